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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestRun_InterruptedDuringCleanup: an interrupt that comes once a test
// has ended, while its cleanup deletes its namespace, changes nothing of
// what the test showed: a test passed stays passed, and one failed for a
// violation (here L1, Serving without Provisioning) stays failed, naming
// it; neither becomes not run.
func TestRun_InterruptedDuringCleanup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		conds  []string
		want   TestResult
		reason string
	}{
		{"passed", []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving"}, TestPassed, ""},
		{"violation", []string{"LoadBalancerServing=True/Serving"}, TestFailed, "violation of L1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			client.PrependReactor("delete", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
				cancel() // Ctrl-C, as the namespace goes
				return false, nil, nil
			})
			fakeProvider(t.Context(), t, client, func(svc *corev1.Service) bool {
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), tc.conds...)
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Test("Basic"); got.Result != tc.want || !strings.HasPrefix(got.Reason, tc.reason) {
				t.Errorf("Basic %s (%s), want %s (%s)", got.Result, got.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestRun_L6_RelevantAnnotation: a change of an annotation given in
// Options.RelevantAnnotations is one the provider must acknowledge (L6),
// like a change of a G3 field: a provider that writes status after it
// without bumping Provisioning fails the test under way.
func TestRun_L6_RelevantAnnotation(t *testing.T) {
	const key = "lb.example.com/size"
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	at := time.Now().Truncate(time.Second)
	fakeReconciler(ctx, t, client, func(ev watch.EventType, svc *corev1.Service) bool {
		if svc.Name != "own" {
			return false
		}
		switch {
		case ev == watch.Added:
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
			svc.Status.Conditions = conditionsAt(at, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
			return true
		case svc.Annotations[key] == "" && len(svc.Status.Conditions) > 0:
			// The user resizes the load balancer.
			svc.Annotations = map[string]string{key: "large"}
			_, _ = client.CoreV1().Services(svc.Namespace).Update(ctx, svc, metav1.UpdateOptions{})
			return false
		case svc.Annotations[key] != "" && svc.Status.Conditions[1].Message != "resized":
			// A write that does not acknowledge the change.
			svc.Status.Conditions[1].Message = "resized"
			return true
		}
		return false
	})
	report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, RelevantAnnotations: []string{key},
		ConditionsTimeout: 5 * time.Second, SettlePeriod: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("ForeignClass"); got.Result != TestFailed || !strings.HasPrefix(got.Reason, "violation of L6 on own") {
		t.Errorf("ForeignClass %s (%s), want failed for L6 on own %v", got.Result, got.Reason, got.Findings)
	}
}

// TestRun_ViolationReasonNamesTheFirst: the reason of a test failed for
// violations names the first the checker found.
func TestRun_ViolationReasonNamesTheFirst(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Serving=True alone, without an address, breaks L1 and then L4.
	got := report.Test("Basic")
	if got.Result != TestFailed || !strings.HasPrefix(got.Reason, "violation of L1 on basic") || len(got.Findings) < 2 {
		t.Errorf("Basic %s (%s) with findings %v, want failed, naming L1, the first of two", got.Result, got.Reason, got.Findings)
	}
}

// TestSupport_Section9_DegradedWhenRequiredClaimsNothing: a feature
// served degraded where it was required broke P6, so its test claims no
// support, whatever the outcome it carries.
func TestSupport_Section9_DegradedWhenRequiredClaimsNothing(t *testing.T) {
	feature := Test{Name: "Feature/Ports", Feature: v1.LoadBalancerFeaturePorts}
	if got := support(feature, TestReport{Result: TestPassed}, outcome{asked: servedDegraded, required: servedDegraded}); got.Support != SupportUntested {
		t.Errorf("support = %+v, want Untested", got)
	}
}

// TestFeature_P3_RequiredLoadBalancerIP: the Service that requires a
// loadBalancerIP is held to P3 as well: served without degradation, at
// another address than the one it asked for, it fails the test, named.
func TestFeature_P3_RequiredLoadBalancerIP(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		at := svc.Spec.LoadBalancerIP
		if _, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]; ok {
			at = "192.0.2.10"
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: at}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Feature/LoadBalancerIP"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("Feature/LoadBalancerIP"); got.Result != TestFailed || !strings.HasPrefix(got.Reason, "requires ") || !strings.Contains(got.Reason, "(P3)") {
		t.Errorf("Feature/LoadBalancerIP %s (%s), want failed, naming requires and P3", got.Result, got.Reason)
	}
}

// TestUnknownRequiredFeature_R2_Verdicts: a provider that serves a
// Service requiring a feature it cannot know fails R2; a run declaring
// NoRequiredFeatures skips the test without creating it; a cluster whose
// admission forbids the Service, or refuses a Service of another feature
// test as invalid, is no verdict on R2 or on that feature: the first
// skips, the second fails the feature's test (only a single-stack
// cluster's refusal of IPFamilies skips).
func TestUnknownRequiredFeature_R2_Verdicts(t *testing.T) {
	serve := func(svc *corev1.Service) bool {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	}
	refuse := func(err error) k8stesting.ReactionFunc {
		return func(a k8stesting.Action) (bool, runtime.Object, error) {
			if svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service); svc.Name != "plain" {
				return true, nil, err
			}
			return false, nil, nil
		}
	}
	for _, tc := range []struct {
		name, test string
		opts       Options
		reactor    k8stesting.ReactionFunc
		want       TestResult
		reason     string
	}{
		{"served", "UnknownRequiredFeature", Options{}, nil, TestFailed, "(R2)"},
		{"no required features", "UnknownRequiredFeature", Options{NoRequiredFeatures: true}, refuse(errors.New("created")), TestSkipped, v1.RequiredFeaturesAnnotation},
		{"forbidden by admission", "UnknownRequiredFeature", Options{},
			refuse(apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "unknown", errors.New("denied by policy"))), TestSkipped, "refuses"},
		{"another feature invalid", "Feature/SessionAffinity", Options{},
			refuse(apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "asks", field.ErrorList{field.Invalid(field.NewPath("spec"), "", "no")})), TestFailed, "creating Service asks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			if tc.reactor != nil {
				client.PrependReactor("create", "services", tc.reactor)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeProvider(ctx, t, client, serve)
			opts := tc.opts
			opts.Run, opts.ConditionsTimeout, opts.ProvisionTimeout = []string{tc.test}, 5*time.Second, 5*time.Second
			report, err := Run(ctx, client, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Test(tc.test); got.Result != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("%s %s (%s), want %s (%s)", tc.test, got.Result, got.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestSpecChange_L2_SettlesWithinTheProvisionTimeout: after the change
// is acknowledged, provisioning again may take as long as the first
// provisioning: SpecChange passes a provider that settles again after
// L8's deadline for the first conditions, within the provisioning
// deadline.
func TestSpecChange_L2_SettlesWithinTheProvisionTimeout(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	created := time.Now().Truncate(time.Second)
	fakeReconciler(ctx, t, client, func(ev watch.EventType, svc *corev1.Service) bool {
		switch {
		case ev == watch.Added:
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
			svc.Status.Conditions = conditionsAt(created, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		case len(svc.Spec.Ports) > 1 && svc.Status.Conditions[0].LastTransitionTime.Time.Equal(created):
			svc.Status.Conditions = append(conditionsAt(created.Add(time.Second), "LoadBalancerProvisioning=True/Provisioning"),
				conditionsAt(created, "LoadBalancerServing=True/Serving")...)
		case svc.Status.Conditions[0].Status == metav1.ConditionTrue:
			select { // provisioning the new port
			case <-time.After(1500 * time.Millisecond):
			case <-ctx.Done():
				return false
			}
			svc.Status.Conditions = append(conditionsAt(created.Add(2*time.Second), "LoadBalancerProvisioning=False/Complete"),
				conditionsAt(created, "LoadBalancerServing=True/Serving")...)
		default:
			return false
		}
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"SpecChange"}, ConditionsTimeout: 500 * time.Millisecond, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("SpecChange"); got.Result != TestPassed {
		t.Errorf("SpecChange %s (%s), want passed %v", got.Result, got.Reason, got.Findings)
	}
}
