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

package provider

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// L6: every load-balancer-relevant spec change delivered is owed an
// acknowledgement, even one a later change undid, so View reports a
// change pending, and Settled is false, until the provider has acted on
// the count of changes it was delivered.
func TestView_L6_ChangePendingUntilActedOn(t *testing.T) {
	p := New(nil, Options{Capabilities: ipv4TCP()})
	first := v1.FromCore(lbService("web"))
	first.ResourceVersion = "1"
	moved := first.DeepCopy()
	moved.ResourceVersion = "2"
	moved.Spec.Ports[0].Port = 8080
	back := first.DeepCopy()
	back.ResourceVersion = "3"

	p.delivered(nil, first)
	p.delivered(first, moved)
	if v := p.View("ns", "web"); !v.ChangePending || v.Acted != nil {
		t.Errorf("a change delivered before any was acted on: %+v, want ChangePending and no Acted", v)
	}
	p.remember("ns/web", record{acted: first})
	p.delivered(moved, back)
	if v := p.View("ns", "web"); !v.ChangePending || v.Settled(v1.ToCore(back)) {
		t.Errorf("acted on the first version, delivered a change and its undoing: %+v, want a change pending, not settled", v)
	}
	p.remember("ns/web", record{acted: back, changes: p.changeCount("ns/web")})
	if v := p.View("ns", "web"); v.ChangePending || !v.Settled(v1.ToCore(back)) {
		t.Errorf("acted on every change delivered: %+v, want settled", v)
	}
}

// L6: a relevant spec change that a later change undid before the
// provider got to it is still acknowledged: Provisioning's
// lastTransitionTime moves, though the spec is the one acted on.
func TestProvider_L6_ChangeUndoneIsStillAcknowledged(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	s.served(s.p.manager)
	s.reconcile()
	svc := s.reconcile() // acted on: nothing more to write
	before := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning).LastTransitionTime
	writes := s.p.Stats().Writes

	seen := v1.FromCore(svc)
	moved := seen.DeepCopy()
	moved.Spec.Ports[0].Port = 8080
	s.p.delivered(seen, moved)
	s.p.delivered(moved, seen)
	svc = s.reconcile()
	after := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning).LastTransitionTime
	if s.p.Stats().Writes != writes+1 || !before.Before(&after) {
		t.Errorf("a change and its undoing: %d writes, Provisioning's lastTransitionTime %v, then %v; want one write that moves it",
			s.p.Stats().Writes-writes, before, after)
	}
}

// L2: with a provisioning that takes a while, the provider comes back
// when it is done and writes its end, with no other event to wake it.
func TestProvider_L2_ProvisioningEndsAfterTheDelay(t *testing.T) {
	client := fake.NewClientset()
	run(t, New(client, Options{Workers: 1, Capabilities: ipv4TCP(), ProvisionDelay: 200 * time.Millisecond}))
	if _, err := client.CoreV1().Services("ns").Create(t.Context(), lbService("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "not served after the provisioning delay", func() bool {
		svc, err := client.CoreV1().Services("ns").Get(t.Context(), "web", metav1.GetOptions{})
		return err == nil && conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing)
	})
}

// L1, L4 after a restart: a status that says Serving=True with no
// address left (the apiserver clears the ingress when the type leaves
// LoadBalancer; the Service came back while the provider was down) is no
// load balancer of the provider's: it provisions again, as on a first
// sight, rather than call it served.
func TestProvider_L4_ServingWithoutAddressIsProvisionedAgain(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	st := corev1ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, string(v1.LoadBalancerReasonComplete)),
		condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, string(v1.LoadBalancerReasonServing)))
	if _, err := s.client.CoreV1().Services("ns").ApplyStatus(t.Context(), corev1ac.Service("web", "ns").WithStatus(st),
		metav1.ApplyOptions{FieldManager: s.p.manager, Force: true}); err != nil {
		t.Fatal(err)
	}
	svc := s.reconcile()
	if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) || !conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Errorf("after a restart, Serving=True without an address: %+v; want provisioned again", svc.Status)
	}
}

// L9: a Service the provider let go of (its cleanup done) is cleaned up
// again when relevant changes were delivered since and its status shows
// conditions its field manager applied: the provider acted on a version
// in between whose record it lost (its write succeeded, but the release
// of an old manager after it failed), and what it wrote then must go.
func TestProvider_L9_CleanupAgainAfterChangesSinceLettingGo(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	services := s.client.CoreV1().Services("ns")
	svc, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb := v1.FromCore(svc)
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	if _, err := services.Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.served(s.p.manager)
	if svc := s.reconcile(); conditions.HasKEPConditions(svc.Status.Conditions) {
		t.Fatalf("no cleanup of a Service that is no LoadBalancer: %+v", svc.Status)
	}
	if rec, ok := s.p.record("ns/web"); !ok || !rec.letGo {
		t.Fatalf("no marker after the cleanup: %+v", rec)
	}
	// Served in between, and no LoadBalancer again.
	s.served(s.p.manager)
	clusterIP, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.p.delivered(v1.FromCore(clusterIP), lb)
	s.p.delivered(lb, v1.FromCore(clusterIP))
	if svc := s.reconcile(); conditions.HasKEPConditions(svc.Status.Conditions) || len(svc.Status.LoadBalancer.Ingress) > 0 {
		t.Errorf("the conditions written in between stayed (L9): %+v", svc.Status)
	}
}

// L3 after a restart: a Service the provider serves is still served, and
// not provisioned again: its load balancer is found from the status
// (Serving=True with an address), so the first reconcile writes
// Provisioning=False, not a reprovisioning.
func TestProvider_L3_RestartFindsTheServingLoadBalancer(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	s.served(s.p.manager)
	svc := s.reconcile()
	if !conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) || !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Errorf("after a restart: %+v; want still served, Provisioning=False", svc.Status)
	}
}

// L3 after a restart: a failed load balancer is tried again, as its doc
// says. A stock Service's status cannot show whether the spec changed
// while the provider was down (G6), so the failure is not taken to stand.
func TestProvider_L3_RestartRetriesAFailure(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	st := corev1ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, string(v1.LoadBalancerReasonComplete)),
		condition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, string(v1.LoadBalancerReasonInfrastructure)).WithMessage("no address left"))
	if _, err := s.client.CoreV1().Services("ns").ApplyStatus(t.Context(), corev1ac.Service("web", "ns").WithStatus(st), metav1.ApplyOptions{FieldManager: s.p.manager, Force: true}); err != nil {
		t.Fatal(err)
	}
	svc := s.reconcile()
	if serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing); serving == nil || serving.Reason == string(v1.LoadBalancerReasonInfrastructure) {
		t.Errorf("after a restart the failure stands: %+v; want it provisioned again", svc.Status)
	}
	if rec, _ := s.p.record("ns/web"); rec.lb.state == conditions.LoadBalancerFailed {
		t.Errorf("the provider holds the load balancer failed: %+v", rec.lb)
	}
}
