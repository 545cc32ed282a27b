/*
Copyright The lbstatus Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package suite

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// runServedBasic runs Basic against a provider that serves at once, on
// client, with a short cleanup timeout, and returns Basic's report.
func runServedBasic(t *testing.T, client *fake.Clientset) *TestReport {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second, CleanupTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	basic := report.Test("Basic")
	if basic.Result != TestPassed {
		t.Errorf("Basic %s (%s), want passed", basic.Result, basic.Reason)
	}
	return basic
}

var errNoRBAC = apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "", errors.New("no RBAC"))

// TestCleanup_WhatIsLeft: a test's cleanup reports, in one line, what it
// left on the cluster, and only that: a Service or namespace already gone
// when deleted is not left, a namespace that could not be deleted is
// reported once, not again as still there at the end of the run, and a
// list of the Services that failed says their fate is not known.
func TestCleanup_WhatIsLeft(t *testing.T) {
	t.Run("Service already gone", func(t *testing.T) {
		client := fakeCluster(t)
		client.PrependReactor("delete", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, a.(k8stesting.DeleteAction).GetName())
		})
		client.PrependReactor("delete", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, errNoRBAC })
		basic := runServedBasic(t, client)
		if !strings.HasPrefix(basic.Cleanup, "left on the cluster: namespace "+basic.Namespace) || strings.Contains(basic.Cleanup, "Service basic") ||
			strings.Count(basic.Cleanup, basic.Namespace) != 1 {
			t.Errorf("cleanup %q, want namespace %s left, once, and no Service", basic.Cleanup, basic.Namespace)
		}
	})
	t.Run("namespace already gone", func(t *testing.T) {
		client := fakeCluster(t)
		client.PrependReactor("delete", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
			name := a.(k8stesting.DeleteAction).GetName()
			_ = client.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("namespaces"), "", name)
			return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
		})
		if basic := runServedBasic(t, client); basic.Cleanup != "" {
			t.Errorf("cleanup %q, want nothing left", basic.Cleanup)
		}
	})
	t.Run("Services not listed", func(t *testing.T) {
		client := fakeCluster(t)
		var lists atomic.Int32
		client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
			if lists.Add(1) == 1 { // the tracker's
				return false, nil, nil
			}
			return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
		})
		client.PrependReactor("delete", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, errNoRBAC })
		if basic := runServedBasic(t, client); !strings.Contains(basic.Cleanup, "and the Services in it (listing them:") || !strings.Contains(basic.Cleanup, "etcd is down") {
			t.Errorf("cleanup %q, want the Services in the namespace left, naming the list's error", basic.Cleanup)
		}
	})
	t.Run("unanswered namespace not deleted", func(t *testing.T) {
		client := fakeCluster(t)
		createsUnanswered(client, context.DeadlineExceeded)
		client.PrependReactor("delete", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, errNoRBAC })
		report, err := Run(t.Context(), client, Options{Run: []string{"Basic"}, CleanupTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if basic := report.Test("Basic"); !strings.HasPrefix(basic.Cleanup, "left on the cluster: namespace lbstatus-conformance-basic-unanswered") || !strings.Contains(basic.Cleanup, "no RBAC") {
			t.Errorf("cleanup %q, want the namespace whose creation got no answer left, saying why", basic.Cleanup)
		}
	})
}

// TestWaitNamespacesGone_WhatHoldsIt: a namespace still there at the end
// of the run is reported with what holds it: the messages of its
// conditions that hold (not of one that does not), else its finalizers,
// those of its spec included; the line starts with what is left.
func TestWaitNamespacesGone_WhatHoldsIt(t *testing.T) {
	for _, tc := range []struct {
		name            string
		conditions      []corev1.NamespaceCondition
		finalizers      []corev1.FinalizerName
		want, notWanted string
	}{
		{"a condition that holds", []corev1.NamespaceCondition{
			{Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionFalse, Message: "all content deleted"},
			{Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Message: "finalizers remaining"},
		}, nil, ": finalizers remaining", "all content deleted"},
		{"finalizers of its spec", nil, []corev1.FinalizerName{corev1.FinalizerKubernetes}, " (finalizers kubernetes)", "; "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			namespaces := corev1.SchemeGroupVersion.WithResource("namespaces")
			client.PrependReactor("delete", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
				obj, err := client.Tracker().Get(namespaces, "", a.(k8stesting.DeleteAction).GetName())
				if err != nil {
					return true, nil, err
				}
				ns := obj.(*corev1.Namespace).DeepCopy()
				ns.DeletionTimestamp = ptr.To(metav1.Now())
				ns.Status.Conditions, ns.Spec.Finalizers = tc.conditions, tc.finalizers
				return true, nil, client.Tracker().Update(namespaces, ns, "")
			})
			basic := runServedBasic(t, client)
			if !strings.HasPrefix(basic.Cleanup, "left on the cluster: namespace "+basic.Namespace) || !strings.HasSuffix(basic.Cleanup, tc.want) ||
				strings.Contains(basic.Cleanup, tc.notWanted) {
				t.Errorf("cleanup %q, want the namespace left, ending %q, without %q", basic.Cleanup, tc.want, tc.notWanted)
			}
		})
	}
}

// TestWaitNamespacesGone_NotListed: when the namespaces cannot be listed
// at the end of the run, a test whose namespace was deleted says it is
// perhaps left; one that made no namespace, or already says what it left,
// says nothing more. A list that fails once, then shows the namespaces
// gone, leaves nothing to report.
func TestWaitNamespacesGone_NotListed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fails int32 // lists of namespaces that fail; -1: all
	}{{"never listed", -1}, {"listed the second time", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			var lists atomic.Int32
			client.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
				if n := lists.Add(1); tc.fails >= 0 && n > tc.fails {
					return false, nil, nil
				}
				return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
			})
			client.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if ns := a.(k8stesting.CreateAction).GetObject().(*corev1.Namespace); ns.Labels[testLabel] == "recreate" {
					return true, nil, apierrors.NewInternalError(errors.New("no namespace for you"))
				}
				return false, nil, nil
			})
			client.PrependReactor("delete", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if strings.Contains(a.(k8stesting.DeleteAction).GetName(), "typechange") {
					return true, nil, errNoRBAC
				}
				return false, nil, nil
			})
			report, err := Run(t.Context(), client, Options{Run: []string{"Basic", "TypeChange", "Recreate"},
				ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond, CleanupTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			basic, typeChange, recreate := report.Test("Basic"), report.Test("TypeChange"), report.Test("Recreate")
			if tc.fails < 0 {
				if !strings.HasPrefix(basic.Cleanup, "perhaps left on the cluster: namespace "+basic.Namespace) || !strings.Contains(basic.Cleanup, "etcd is down") {
					t.Errorf("Basic's cleanup %q, want its namespace perhaps left, naming the list's error", basic.Cleanup)
				}
			} else if basic.Cleanup != "" {
				t.Errorf("Basic's cleanup %q, want nothing left", basic.Cleanup)
			}
			if recreate.Cleanup != "" {
				t.Errorf("Recreate, which made no namespace: cleanup %q, want nothing", recreate.Cleanup)
			}
			if !strings.HasPrefix(typeChange.Cleanup, "left on the cluster") || strings.Contains(typeChange.Cleanup, "perhaps") {
				t.Errorf("TypeChange's cleanup %q, want its namespace left, said once", typeChange.Cleanup)
			}
		})
	}
}

// TestWaitNamespacesGone_ListRefused: an account that may not list
// namespaces never will: the wait for the run's namespaces to go gives up
// at the first refusal, instead of asking again until the cleanup timeout,
// and each test whose namespace was deleted says it is perhaps left,
// naming the refusal.
func TestWaitNamespacesGone_ListRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"forbidden", errNoRBAC},
		{"unauthorized", apierrors.NewUnauthorized("no RBAC: the token expired")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			var lists atomic.Int32
			client.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
				lists.Add(1)
				return true, nil, tc.err
			})
			report, err := Run(t.Context(), client, Options{Run: []string{"Basic"},
				ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond, CleanupTimeout: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if n := lists.Load(); n != 1 {
				t.Errorf("namespaces listed %d times, want once: a refusal does not change", n)
			}
			if basic := report.Test("Basic"); !strings.HasPrefix(basic.Cleanup, "perhaps left on the cluster: namespace "+basic.Namespace) ||
				!strings.Contains(basic.Cleanup, "no RBAC") {
				t.Errorf("Basic's cleanup %q, want its namespace perhaps left, naming the refusal", basic.Cleanup)
			}
		})
	}
}

// TestSlugAndOneLine: a test name becomes a piece of a namespace name
// (lower case, "-" for "/" and "_"), and a message one line, cut at the
// first line break of either kind.
func TestSlugAndOneLine(t *testing.T) {
	if got := (Test{Name: "Feature/Some_Thing"}).NamespaceGenerateName("p"); got != "p-feature-some-thing-" {
		t.Errorf("generateName %q, want %q", got, "p-feature-some-thing-")
	}
	for in, want := range map[string]string{"a\rb": "a", "a\nb": "a", "a\r\nb": "a", "ab": "ab"} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
