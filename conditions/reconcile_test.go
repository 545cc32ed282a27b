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

package conditions

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// coreLB returns lbService as client-go's type: Reconcile takes it as it
// is, with required features from the annotation.
func coreLB(mutate ...func(*v1.Service)) *corev1.Service {
	return v1.ToCore(lbService(mutate...))
}

var ready = LoadBalancer{State: LoadBalancerReady, Ingress: ingress}

// reconciled runs Reconcile and returns the Service after its write.
func reconciled(t *testing.T, svc *corev1.Service, caps Capabilities, acted *corev1.Service, lb LoadBalancer, opts ...TransitionOption) (*corev1.Service, Reconciliation[*corev1.Service]) {
	t.Helper()
	r, err := Reconcile(svc, caps, acted, lb, opts...)
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if (r.Apply != nil) != r.Changed {
		t.Fatalf("Apply %v with Changed %v: a write exactly when something changed", r.Apply != nil, r.Changed)
	}
	if r.Apply != nil {
		checkApply(t, view(svc), Transition[*v1.Service]{Service: view(r.Service), Apply: r.Apply, Changed: r.Changed})
	}
	out := svc.DeepCopy()
	out.Status = *r.Service.Status.DeepCopy()
	return out, r
}

func TestReconcile_L1_FirstSight(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  *corev1.Service
		lb   LoadBalancer
		want string
	}{
		{"provisioning", coreLB(), LoadBalancer{}, "P=T/Provisioning S=F/Provisioning D=-"},
		{"provisioning, state given", coreLB(), LoadBalancer{State: LoadBalancerProvisioning}, "P=T/Provisioning S=F/Provisioning D=-"},
		{"already available", coreLB(), ready, "P=F/Complete S=T/Serving D=-"},
		{"failed", coreLB(), LoadBalancer{State: LoadBalancerFailed, Message: "quota"}, "P=F/Complete S=F/Infrastructure D=-"},
		{"refused (R2, annotation)", coreLB(func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport"}
		}), ready, "P=F/Complete S=F/Unsupported D=-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakePassiveClock(t0)
			got, r := reconciled(t, tc.svc, fullCapabilities(), nil, tc.lb, WithClock(clk))
			if c := combination(got.Status.Conditions); c != tc.want {
				t.Fatalf("after first sight: %s, want %s", c, tc.want)
			}
			if r.Decision.Action == ActionIgnore {
				t.Fatalf("decision %+v", r.Decision)
			}
			for _, c := range got.Status.Conditions {
				if !c.LastTransitionTime.Equal(ptr.To(wire(t0))) {
					t.Errorf("%s stamped %v, want the clock's second %v", c.Type, c.LastTransitionTime, wire(t0))
				}
			}
			if serving := IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing); serving != (len(got.Status.LoadBalancer.Ingress) > 0) {
				t.Errorf("L4: Serving=True %v with ingress %v", serving, got.Status.LoadBalancer.Ingress)
			}
		})
	}
}

// L2: provisioning ends in success or failure, in one write each, and a
// repeated reconcile of the same state writes nothing.
func TestReconcile_L2_ProvisioningEnds(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	caps := fullCapabilities()
	svc, _ := reconciled(t, coreLB(clientIP), caps, nil, LoadBalancer{}, WithClock(clk))
	acted := svc.DeepCopy()
	if _, r := reconciled(t, svc, caps, acted, LoadBalancer{State: LoadBalancerProvisioning}, WithClock(clk)); r.Apply != nil {
		t.Fatalf("still provisioning: wrote %+v", r.Service.Status)
	}
	clk.SetTime(t0.Add(42 * time.Second))
	lb := LoadBalancer{State: LoadBalancerReady, Ingress: ingress, Degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}}
	done, _ := reconciled(t, svc, caps, acted, lb, WithClock(clk))
	if got, want := combination(done.Status.Conditions), "P=F/Complete S=T/Serving D=T/SessionAffinityNotSupported"; got != want {
		t.Fatalf("provisioning done: %s, want %s", got, want)
	}
	if _, r := reconciled(t, done, caps, acted, lb, WithClock(clk)); r.Apply != nil || r.Changed {
		t.Errorf("the same state again wrote %+v", r.Service.Status)
	}
	failed, _ := reconciled(t, svc, caps, acted, LoadBalancer{State: LoadBalancerFailed, Message: "quota exceeded"}, WithClock(clk))
	if got, want := combination(failed.Status.Conditions), "P=F/Complete S=F/Infrastructure D=-"; got != want {
		t.Fatalf("provisioning failed: %s, want %s", got, want)
	}
	if msg := Get(failed.Status.Conditions, v1.LoadBalancerConditionServing).Message; msg != "quota exceeded" {
		t.Errorf("message %q", msg)
	}
}

// The apiserver fills in ipMode VIP on an ingress entry with an ip: a
// provider that gives the same ingress without it again has nothing to
// write, and Serving does not move (L6); another ipMode is a new ingress.
func TestReconcile_L6_IngressAsStored(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	caps := fullCapabilities()
	svc, _ := reconciled(t, coreLB(), caps, nil, ready, WithClock(clk))
	if svc.Status.LoadBalancer.Ingress[0].IPMode != nil {
		t.Fatalf("wrote ipMode %v, which was not given", *svc.Status.LoadBalancer.Ingress[0].IPMode)
	}
	stored := svc.DeepCopy()
	stored.Status.LoadBalancer.Ingress[0].IPMode = ptr.To(corev1.LoadBalancerIPModeVIP)
	clk.SetTime(t0.Add(time.Minute))
	if _, r := reconciled(t, stored, caps, svc, ready, WithClock(clk)); r.Apply != nil || r.Changed {
		t.Errorf("the same ingress, ipMode defaulted by the apiserver: wrote %+v", r.Service.Status)
	}
	proxy := LoadBalancer{State: LoadBalancerReady, Ingress: []corev1.LoadBalancerIngress{{IP: ingress[0].IP, IPMode: ptr.To(corev1.LoadBalancerIPModeProxy)}}}
	moved, r := reconciled(t, stored, caps, svc, proxy, WithClock(clk))
	before := Get(stored.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
	if after := Get(moved.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime; !r.Changed || !before.Before(&after) {
		t.Errorf("ipMode Proxy for VIP: changed %v, Serving %v -> %v; want a write and Serving moved", r.Changed, before, after)
	}
}

// L6 and G5: a spec change that ends in any outcome moves Provisioning in
// the same write, stamped once: at the clock's second when the clock has
// passed the old value, never a second ahead of it.
func TestReconcile_L6_SpecChangeEndsInAnyOutcome(t *testing.T) {
	caps := fullCapabilities()
	for _, tc := range []struct {
		name   string
		change func(*v1.Service)
		lb     LoadBalancer
		want   string
	}{
		{"updated in place", func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 }, ready, "P=F/Complete S=T/Serving D=-"},
		{"reprovisioning, keeps serving", func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 },
			LoadBalancer{State: LoadBalancerProvisioning, KeepServing: KeepServing}, "P=T/Provisioning S=T/Serving D=-"},
		{"reprovisioning", func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 },
			LoadBalancer{State: LoadBalancerProvisioning}, "P=T/Provisioning S=F/Provisioning D=-"},
		{"failed", func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 }, LoadBalancer{State: LoadBalancerFailed}, "P=F/Complete S=F/Infrastructure D=-"},
		{"refused", func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport"}
		}, ready, "P=F/Complete S=F/Unsupported D=-"},
		{"provider annotation", func(s *v1.Service) {
			s.Annotations = map[string]string{"vendor.example/sku": "premium"}
		}, ready, "P=F/Complete S=T/Serving D=-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakePassiveClock(t0)
			opts := []TransitionOption{WithClock(clk), WithRelevantAnnotations("vendor.example/sku")}
			svc, _ := reconciled(t, coreLB(), caps, nil, ready, opts...)
			acted := svc.DeepCopy()
			changed := v1.FromCore(svc)
			tc.change(changed)
			svc = v1.ToCore(changed)

			clk.SetTime(t0.Add(10 * time.Second))
			after, _ := reconciled(t, svc, caps, acted, tc.lb, opts...)
			if got := combination(after.Status.Conditions); got != tc.want {
				t.Fatalf("after the change: %s, want %s", got, tc.want)
			}
			p := Get(after.Status.Conditions, v1.LoadBalancerConditionProvisioning)
			if want := wire(t0.Add(10 * time.Second)); !p.LastTransitionTime.Equal(&want) {
				t.Errorf("L6: Provisioning stamped %v, want the clock's second %v", p.LastTransitionTime, want)
			}
			if tc.lb.State == LoadBalancerReady && tc.want == "P=F/Complete S=T/Serving D=-" {
				if s := Get(after.Status.Conditions, v1.LoadBalancerConditionServing); !s.LastTransitionTime.Equal(&p.LastTransitionTime) {
					t.Errorf("L6: the updated load balancer's Serving stamped %v, want %v", s.LastTransitionTime, p.LastTransitionTime)
				}
			}
		})
	}
}

// G5 on a frozen clock: a spec change in the same second as the previous
// write moves Provisioning by exactly one second, however many steps the
// write combines (a bump and a flip).
func TestReconcile_G5_FrozenClockStepsOnce(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	caps := fullCapabilities()
	svc, _ := reconciled(t, coreLB(), caps, nil, LoadBalancer{}, WithClock(clk)) // P=T at t0
	acted := svc.DeepCopy()
	svc.Spec.Ports[0].Port = 8080
	svc, _ = reconciled(t, svc, caps, acted, ready, WithClock(clk)) // bump and flip to False
	want := wire(t0.Add(time.Second))
	for _, c := range svc.Status.Conditions {
		if !c.LastTransitionTime.Equal(&want) {
			t.Errorf("%s stamped %v, want %v: one G5 step past %v", c.Type, c.LastTransitionTime, want, wire(t0))
		}
	}
}

// After a restart the provider knows nothing (acted nil): Reconcile counts
// the spec as changed, so a change the provider never acknowledged still
// gets its bump (L6).
func TestReconcile_L6_RestartWithoutMemory(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	caps := fullCapabilities()
	svc, _ := reconciled(t, coreLB(), caps, nil, ready, WithClock(clk))
	svc.Spec.Ports[0].Port = 8080 // changed while the provider was down
	clk.SetTime(t0.Add(time.Minute))
	after, r := reconciled(t, svc, caps, nil, ready, WithClock(clk))
	if r.Apply == nil {
		t.Fatal("no write after a restart")
	}
	p := Get(after.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	if want := wire(t0.Add(time.Minute)); !p.LastTransitionTime.Equal(&want) {
		t.Errorf("L6: Provisioning at %v after the restart, want %v", p.LastTransitionTime, want)
	}
	// Remembered, the same Service needs nothing more.
	if _, r := reconciled(t, after, caps, svc, ready, WithClock(clk)); r.Apply != nil {
		t.Error("a second reconcile with the acted-on Service wrote again")
	}
}

// L9 and P1: a Service that stops being a LoadBalancer, or moves to a
// class that is not the provider's, loses the conditions and the ingress,
// with a decision that says which case it is.
func TestReconcile_L9_P1_Cleanup(t *testing.T) {
	caps := fullCapabilities()
	caps.Classes = []string{"example.com/lb"}
	for _, tc := range []struct {
		name   string
		change func(*v1.Service)
		why    IgnoreReason
	}{
		{"L9 not a LoadBalancer", func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP }, IgnoreNotLoadBalancer},
		{"P1 foreign class", func(s *v1.Service) { s.Spec.LoadBalancerClass = ptr.To("other.example/lb") }, IgnoreForeignClass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _ := reconciled(t, coreLB(), caps, nil, ready)
			svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{Type: "example.com/Other", Status: "True", Reason: "R", LastTransitionTime: wire(t0)})
			acted := svc.DeepCopy()
			changed := v1.FromCore(svc)
			tc.change(changed)
			svc = v1.ToCore(changed)
			after, r := reconciled(t, svc, caps, acted, ready)
			if r.Decision.Action != ActionIgnore || r.Decision.Ignored != tc.why {
				t.Fatalf("decision %+v, want Ignore for %s", r.Decision, tc.why)
			}
			if HasKEPConditions(after.Status.Conditions) || len(after.Status.LoadBalancer.Ingress) > 0 || r.Apply == nil {
				t.Fatalf("after cleanup: %s, ingress %v", combination(after.Status.Conditions), after.Status.LoadBalancer.Ingress)
			}
			if Get(after.Status.Conditions, "example.com/Other") == nil {
				t.Error("another controller's condition was removed")
			}
			// Acted on while ignored: the conditions another provider
			// writes later are not the provider's to remove.
			other := after.DeepCopy()
			other.Status = svc.Status
			if _, r := reconciled(t, other, caps, after, ready); r.Apply != nil {
				t.Error("removed conditions from a Service it had already let go")
			}
		})
	}
}

// L9 after a restart: a provider that no longer knows what it acted on
// (acted nil) still removes its conditions and ingress from a Service that
// stopped being a LoadBalancer while it was down.
func TestReconcile_L9_CleanupAfterRestart(t *testing.T) {
	caps := fullCapabilities()
	svc, _ := reconciled(t, coreLB(), caps, nil, ready)
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	after, r := reconciled(t, svc, caps, nil, LoadBalancer{})
	if r.Apply == nil || HasKEPConditions(after.Status.Conditions) || len(after.Status.LoadBalancer.Ingress) > 0 {
		t.Fatalf("cleanup with acted nil: write %v, %s, ingress %v; want the conditions and the ingress removed",
			r.Apply != nil, combination(after.Status.Conditions), after.Status.LoadBalancer.Ingress)
	}
}

// P1 after a restart: with WithFieldManager, a provider that no longer
// knows what it acted on cleans up only where its manager applied to the
// status. A Service of another class whose conditions another manager
// wrote gets no write; one of its own that left the class still does, and
// so do NotLoadBalancer and SpecUpdated.
func TestReconcile_P1_CleanupOnlyWhereManagerApplied(t *testing.T) {
	caps := fullCapabilities()
	caps.Classes = []string{"example.com/lb"}
	written, _ := reconciled(t, coreLB(), fullCapabilities(), nil, ready)
	foreign := written.DeepCopy()
	foreign.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	foreign.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "other", Operation: metav1.ManagedFieldsOperationApply, Subresource: "status"},
		{Manager: "mine", Operation: metav1.ManagedFieldsOperationApply}, // the spec, not the status
		{Manager: "mine", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"},
		{Manager: "mine", Operation: metav1.ManagedFieldsOperationApply, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:status":{}}}}`)}},
	}
	mine := foreign.DeepCopy()
	mine.ManagedFields = append(mine.ManagedFields, metav1.ManagedFieldsEntry{Manager: "mine", Operation: metav1.ManagedFieldsOperationApply, Subresource: "status"})

	// client-go's fake clientset records an ApplyStatus without the
	// subresource.
	fake := foreign.DeepCopy()
	fake.ManagedFields = append(fake.ManagedFields, metav1.ManagedFieldsEntry{Manager: "mine", Operation: metav1.ManagedFieldsOperationApply,
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:loadBalancer":{}}}`)}})
	if OwnsStatus(foreign, "mine") || !OwnsStatus(mine, "mine") || !OwnsStatus(fake, "mine") || OwnsStatus((*corev1.Service)(nil), "mine") {
		t.Fatalf("OwnsStatus: foreign %v, mine %v, fake %v; want false, true, true", OwnsStatus(foreign, "mine"), OwnsStatus(mine, "mine"), OwnsStatus(fake, "mine"))
	}
	if _, r := reconciled(t, foreign, caps, nil, LoadBalancer{}); r.Apply == nil {
		t.Fatal("without WithFieldManager: no cleanup after a restart; want one, the manager being unknown")
	}
	after, r := reconciled(t, foreign, caps, nil, LoadBalancer{}, WithFieldManager("mine"))
	if r.Apply != nil || !HasKEPConditions(after.Status.Conditions) {
		t.Errorf("another manager's status: write %v, %s; want none, the status kept", r.Apply != nil, combination(after.Status.Conditions))
	}
	// Nor where that status's observedGeneration lags behind the Service.
	stale := foreign.DeepCopy()
	stale.Generation++
	if _, r := reconciled(t, stale, caps, nil, LoadBalancer{}, WithFieldManager("mine")); r.Apply != nil {
		t.Error("another manager's status, its observedGeneration behind: a write; want none")
	}
	// An empty manager is no option: the one before it stays.
	if _, r := reconciled(t, foreign, caps, nil, LoadBalancer{}, WithFieldManager("mine"), WithFieldManager("")); r.Apply != nil {
		t.Error("WithFieldManager(\"mine\") then WithFieldManager(\"\"): a cleanup of another manager's status; want none")
	}
	after, r = reconciled(t, mine, caps, nil, LoadBalancer{}, WithFieldManager("mine"))
	if r.Apply == nil || HasKEPConditions(after.Status.Conditions) {
		t.Errorf("its own status: write %v, %s; want the cleanup", r.Apply != nil, combination(after.Status.Conditions))
	}

	notLB := func(s *corev1.Service) *corev1.Service {
		s = s.DeepCopy()
		s.Spec.Type = corev1.ServiceTypeClusterIP
		return s
	}
	for name, f := range map[string]func(*corev1.Service) (Transition[*corev1.Service], error){
		"NotLoadBalancer": func(s *corev1.Service) (Transition[*corev1.Service], error) {
			return NotLoadBalancer(s, WithFieldManager("mine"))
		},
		"SpecUpdated": func(s *corev1.Service) (Transition[*corev1.Service], error) {
			return SpecUpdated(written, notLB(s), WithFieldManager("mine"))
		},
	} {
		tr, err := f(foreign)
		if err != nil || tr.Apply != nil || tr.Changed || !HasKEPConditions(tr.Service.Status.Conditions) {
			t.Errorf("%s of another manager's status: %v, write %v, changed %v; want nothing", name, err, tr.Apply != nil, tr.Changed)
		}
		tr, err = f(mine)
		if err != nil || tr.Apply == nil || !tr.Changed || HasKEPConditions(tr.Service.Status.Conditions) {
			t.Errorf("%s of its own status: %v, write %v, changed %v; want the cleanup", name, err, tr.Apply != nil, tr.Changed)
		}
	}
}

// L9: an ingress the provider wrote before it wrote any condition (a
// version that predates the KEP) goes too when the Service stops being a
// LoadBalancer.
func TestReconcile_L9_IngressWithoutConditions(t *testing.T) {
	caps := fullCapabilities()
	acted := coreLB()
	acted.Status.LoadBalancer.Ingress = ingress
	svc := acted.DeepCopy()
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	after, r := reconciled(t, svc, caps, acted, LoadBalancer{})
	if r.Apply == nil || len(after.Status.LoadBalancer.Ingress) > 0 {
		t.Fatalf("cleanup of an ingress without conditions: write %v, ingress %v; want the ingress removed", r.Apply != nil, after.Status.LoadBalancer.Ingress)
	}
}

// R1: a refusal says why in Serving's message, the decision's own words
// (which ShouldSkip logs), not a default.
func TestReconcile_R1_RefusalSaysWhy(t *testing.T) {
	caps := fullCapabilities()
	caps.SessionAffinity = false
	svc, r := reconciled(t, coreLB(clientIP, func(s *v1.Service) {
		s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity"}
	}), caps, nil, ready)
	want := r.Decision.Message()
	if r.Decision.Action != ActionRefuse || want == "" {
		t.Fatalf("decision %+v, want a refusal with a message", r.Decision)
	}
	if got := Get(svc.Status.Conditions, v1.LoadBalancerConditionServing).Message; got != want {
		t.Errorf("Serving's message %q, want the decision's %q", got, want)
	}
}

// L7: KeepServing is ignored for an absent load balancer: with none,
// nothing serves, and Serving goes False.
func TestReconcile_L7_AbsentDoesNotKeepServing(t *testing.T) {
	caps := fullCapabilities()
	svc, _ := reconciled(t, coreLB(), caps, nil, ready)
	acted := svc.DeepCopy()
	after, _ := reconciled(t, svc, caps, acted, LoadBalancer{State: LoadBalancerAbsent, KeepServing: KeepServing})
	if got, want := combination(after.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; got != want {
		t.Errorf("load balancer absent, KeepServing given: %s, want %s", got, want)
	}
}

func TestReconcile_Errors(t *testing.T) {
	caps := fullCapabilities()
	for name, f := range map[string]func() error{
		"nil service":   func() error { _, err := Reconcile[*corev1.Service](nil, caps, nil, ready); return err },
		"unknown state": func() error { _, err := Reconcile(coreLB(), caps, nil, LoadBalancer{State: "Sleeping"}); return err },
		"L4 no ingress": func() error {
			_, err := Reconcile(coreLB(), caps, nil, LoadBalancer{State: LoadBalancerReady})
			return err
		},
		"L4 an ingress entry without an address": func() error {
			_, err := Reconcile(coreLB(), caps, nil, LoadBalancer{State: LoadBalancerReady, Ingress: []corev1.LoadBalancerIngress{{Hostname: ""}}})
			return err
		},
		"P5 degraded in what is not asked": func() error {
			_, err := Reconcile(coreLB(), caps, nil, LoadBalancer{State: LoadBalancerReady, Ingress: ingress, Degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}})
			return err
		},
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Decide tells the two kinds of ignored Service apart by type (P1, L9).
func TestDecide_P1_TypedIgnoreReasons(t *testing.T) {
	caps := fullCapabilities()
	caps.DefaultClass = false
	for _, tc := range []struct {
		svc  *corev1.Service
		want IgnoreReason
	}{
		{nil, IgnoreNoService},
		{coreLB(func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }), IgnoreNotLoadBalancer},
		{coreLB(), IgnoreForeignClass},
		{coreLB(func(s *v1.Service) { s.Spec.LoadBalancerClass = ptr.To("x.example/lb") }), IgnoreForeignClass},
	} {
		d := Decide(tc.svc, caps)
		if d.Action != ActionIgnore || d.Ignored != tc.want || d.Message() == "" {
			t.Errorf("Decide = %+v, want Ignore for %s with a message", d, tc.want)
		}
	}
}

// T1 through client-go's type: the annotation carries the required
// features, the conditions the skip.
func TestShouldSkip_T1(t *testing.T) {
	caps := fullCapabilities()
	caps.SessionAffinity = false
	svc, _ := reconciled(t, coreLB(clientIP), caps, nil, ready)
	if skip, why := ShouldSkip(svc, v1.LoadBalancerFeatureSessionAffinity); !skip || !strings.Contains(why, "SessionAffinity") {
		t.Errorf("ShouldSkip(SessionAffinity) = %v, %q; want a skip naming the feature", skip, why)
	}
	if skip, why := ShouldSkip(svc, v1.LoadBalancerFeaturePorts); skip || why == "" {
		t.Errorf("ShouldSkip(Ports) = %v, %q; want no skip, with the verdict's reason", skip, why)
	}
	refused, _ := reconciled(t, coreLB(clientIP, func(s *v1.Service) {
		s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity"}
	}), caps, nil, ready)
	if skip, _ := ShouldSkip(refused, ""); !skip {
		t.Error("a refused Service (R1) is not skipped")
	}
	if skip, _ := ShouldSkip(v1.FromCore(refused), ""); !skip {
		t.Error("a refused Service (R1), as lbstatus's own type, is not skipped")
	}
	if skip, _ := ShouldSkip[*corev1.Service](nil, ""); skip {
		t.Error("a nil Service is skipped")
	}
}

// C6, C7 across a lagging cache: a provider that reads the Service from an
// informer may reconcile a copy older than its own last write. The times
// of that write's status were stamped from the old copy, so the apply is
// made conditional on the resourceVersion read: the apiserver refuses it
// as a conflict instead of storing a Provisioning that flipped without its
// time moving. Every transition's apply carries it; a Service without one
// (a manifest, a fake) gives an apply without one.
func TestReconcile_C6_C7_ApplyIsConditionalOnTheVersionRead(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	stale := coreLB(func(s *v1.Service) { s.ResourceVersion = "41" })
	// What the provider wrote from it, stored as resourceVersion 42.
	provisioning, _ := reconciled(t, stale, fullCapabilities(), nil, LoadBalancer{State: LoadBalancerProvisioning}, WithClock(clk))
	provisioning.ResourceVersion = "42"

	// The cache still holds 41: the same second, Provisioning seen as new.
	r, err := Reconcile(stale, fullCapabilities(), nil, ready, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	if p := Get(r.Service.Status.Conditions, v1.LoadBalancerConditionProvisioning); p.Status != metav1.ConditionFalse || !p.LastTransitionTime.Equal(ptr.To(wire(t0))) {
		t.Fatalf("Provisioning from the stale copy: %v at %v; the case this test is about is False at %v", p.Status, p.LastTransitionTime, wire(t0))
	}
	if rv := ptr.Deref(r.Apply.ResourceVersion, ""); rv != "41" {
		t.Errorf("apply from resourceVersion 41 has resourceVersion %q; want 41, so that it cannot land on 42", rv)
	}

	notLB := provisioning.DeepCopy()
	notLB.Spec.Type = corev1.ServiceTypeClusterIP
	served, _ := reconciled(t, provisioning, fullCapabilities(), nil, ready, WithClock(clk))
	served.ResourceVersion = "42"
	transitions := map[string]func() (Transition[*corev1.Service], error){
		"Seen":                func() (Transition[*corev1.Service], error) { return Seen(stale, Decide(stale, fullCapabilities())) },
		"ProvisioningStarted": func() (Transition[*corev1.Service], error) { return ProvisioningStarted(served, StopServing) },
		"Succeeded":           func() (Transition[*corev1.Service], error) { return Succeeded(provisioning, ingress, nil) },
		"Failed": func() (Transition[*corev1.Service], error) {
			return Failed(provisioning, v1.LoadBalancerReasonInfrastructure, "")
		},
		"SpecUpdated":     func() (Transition[*corev1.Service], error) { return SpecUpdated(nil, provisioning) },
		"NotLoadBalancer": func() (Transition[*corev1.Service], error) { return NotLoadBalancer(notLB) },
	}
	for name, f := range transitions {
		tr, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := "42"
		if name == "Seen" {
			want = "41"
		}
		if tr.Apply == nil {
			t.Fatalf("%s wrote nothing; the test needs a transition that writes", name)
		}
		if rv := ptr.Deref(tr.Apply.ResourceVersion, ""); rv != want {
			t.Errorf("%s: apply has resourceVersion %q, want %q", name, rv, want)
		}
	}
	if r, _ := Reconcile(coreLB(), fullCapabilities(), nil, ready); r.Apply.ResourceVersion != nil {
		t.Errorf("a Service without a resourceVersion gives an apply with %q; want none", *r.Apply.ResourceVersion)
	}
}

// LoadBalancer.Degraded nil means the decision's degradations; empty and
// not nil means none: a provider that found it can honor the feature
// after all says so, and no Degraded condition is written (C2: never
// False, and P5 has nothing to name).
func TestReconcile_P4_EmptyDegradedMeansNone(t *testing.T) {
	caps := fullCapabilities()
	caps.SessionAffinity = false
	svc := coreLB(clientIP)
	if d := Decide(svc, caps); !slices.Equal(d.Degraded, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}) {
		t.Fatalf("Decide: degraded %v, want SessionAffinity", d.Degraded)
	}
	for _, tc := range []struct {
		name     string
		degraded []v1.LoadBalancerFeature
		want     string
	}{
		{"nil: the decision's", nil, "P=F/Complete S=T/Serving D=T/SessionAffinityNotSupported"},
		{"empty: none", []v1.LoadBalancerFeature{}, "P=F/Complete S=T/Serving D=-"},
	} {
		got, _ := reconciled(t, svc, caps, nil, LoadBalancer{State: LoadBalancerReady, Ingress: ingress, Degraded: tc.degraded})
		if c := combination(got.Status.Conditions); c != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, c, tc.want)
		}
	}
}
