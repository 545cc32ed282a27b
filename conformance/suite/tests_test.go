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
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// fakeCluster is a fake clientset the suite can run on.
func fakeCluster(t *testing.T) *fake.Clientset {
	// The fake clientset serves no watch-list stream, which the tracker's
	// informer would otherwise wait for.
	t.Setenv("KUBE_FEATURE_WatchListClient", "false")
	client := fake.NewClientset()
	var n atomic.Int32
	client.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ns := a.(k8stesting.CreateAction).GetObject().(*corev1.Namespace)
		if ns.Name == "" { // the fake does not generate names
			ns.Name = fmt.Sprintf("%s%d", ns.GenerateName, n.Add(1))
		}
		return false, nil, nil
	})
	return client
}

// TestUnknownRequiredFeature_RefusedByAdmission: on a cluster whose
// admission refuses a Service requiring an unknown feature, as
// deploy/admission's policies do (R4), the provider is never asked: the
// test is skipped, not failed for R2.
func TestUnknownRequiredFeature_RefusedByAdmission(t *testing.T) {
	client := fakeCluster(t)
	client.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service)
		if strings.Contains(svc.Annotations[v1.RequiredFeaturesAnnotation], string(UnknownFeature)) {
			return true, nil, apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{
				field.NotSupported(field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation), UnknownFeature, []string{"Ports"})})
		}
		return false, nil, nil
	})
	report, err := Run(t.Context(), client, Options{Run: []string{"UnknownRequiredFeature"}, ConditionsTimeout: time.Second, ProvisionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("UnknownRequiredFeature"); got.Result != TestSkipped || !strings.Contains(got.Reason, "refuses") {
		t.Errorf("UnknownRequiredFeature %s (%s), want skipped: the cluster refused the Service", got.Result, got.Reason)
	}
}

// TestBasic_ProvisioningComplete: section 9's Basic passes on
// Serving=True, Provisioning=False/Complete and an address, and fails a
// provider that ends provisioning with a reason of its own, which a client
// waiting for Complete never sees.
func TestBasic_ProvisioningComplete(t *testing.T) {
	for _, reason := range []string{"Complete", "Done"} {
		t.Run(reason, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			w, err := client.CoreV1().Services("").Watch(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			go func() { // a provider that serves in one write
				for ev := range w.ResultChan() {
					svc, ok := ev.Object.(*corev1.Service)
					if !ok || ev.Type != watch.Added {
						continue
					}
					now := metav1.NewTime(time.Now().Truncate(time.Second))
					svc = svc.DeepCopy()
					svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
					svc.Status.Conditions = []metav1.Condition{
						{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: reason, Message: "done", LastTransitionTime: now},
						{Type: "LoadBalancerServing", Status: metav1.ConditionTrue, Reason: "Serving", Message: "serving", LastTransitionTime: now},
					}
					_, _ = client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
				}
			}()
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			basic := report.Test("Basic")
			switch {
			case reason == "Complete" && basic.Result != TestPassed:
				t.Errorf("Basic %s, want passed: %s %v", basic.Result, basic.Reason, basic.Findings)
			case reason != "Complete" && (basic.Result != TestFailed || !strings.Contains(basic.Reason, `reason "Done"`)):
				t.Errorf("Basic %s (%s), want failed for Provisioning=False/Done", basic.Result, basic.Reason)
			}
		})
	}
}
