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
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

var ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}

// testingT is what the helpers shared by table tests and rapid properties
// need: both *testing.T and *rapid.T have it.
type testingT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// applied returns what the apply configuration of tr would write, read back
// as a core/v1 Service.
func applied(t testingT, tr Transition[*v1.Service]) *corev1.Service {
	t.Helper()
	data, err := json.Marshal(tr.Apply)
	if err != nil {
		t.Fatalf("marshal apply configuration: %v", err)
	}
	var out corev1.Service
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("unmarshal apply configuration: %v", err)
	}
	return &out
}

// ownedPart returns the part of a status this package owns: the KEP
// conditions and the ingress.
func ownedPart(conds []metav1.Condition, lb corev1.LoadBalancerStatus) ([]metav1.Condition, []corev1.LoadBalancerIngress) {
	var own []metav1.Condition
	for _, c := range conds {
		if isKEPType(c.Type) {
			own = append(own, c)
		}
	}
	return own, lb.Ingress
}

// checkApply fails unless tr.Apply is nil exactly when tr.Changed is false
// (nothing new, nothing written), and otherwise holds exactly the owned
// part of tr.Service.Status, for the Service's name and namespace (G4).
func checkApply(t testingT, svc *v1.Service, tr Transition[*v1.Service]) {
	t.Helper()
	if (tr.Apply != nil) != tr.Changed {
		t.Fatalf("Apply %v with Changed %v: a write exactly when something changed", tr.Apply != nil, tr.Changed)
	}
	if tr.Apply == nil {
		return
	}
	got := applied(t, tr)
	if got.Name != svc.Name || got.Namespace != svc.Namespace || got.Kind != "Service" || got.APIVersion != "v1" {
		t.Errorf("apply configuration names %s %s/%s, want Service %s/%s", got.Kind, got.Namespace, got.Name, svc.Namespace, svc.Name)
	}
	if !apiequality.Semantic.DeepEqual(got.Spec, corev1.ServiceSpec{}) || len(got.Labels) != 0 {
		t.Errorf("apply configuration carries more than status")
	}
	wc, wi := ownedPart(tr.Service.Status.Conditions, tr.Service.Status.LoadBalancer)
	if !apiequality.Semantic.DeepEqual(got.Status.Conditions, wc) || !apiequality.Semantic.DeepEqual(got.Status.LoadBalancer.Ingress, wi) {
		t.Errorf("apply configuration differs from the status it stands for:\n%s", cmp.Diff(
			struct {
				C []metav1.Condition
				I []corev1.LoadBalancerIngress
			}{wc, wi},
			struct {
				C []metav1.Condition
				I []corev1.LoadBalancerIngress
			}{got.Status.Conditions, got.Status.LoadBalancer.Ingress}))
	}
}

// step applies tr to svc, as a status write would, after checking it.
func step(t *testing.T, svc *v1.Service, tr Transition[*v1.Service], err error) *v1.Service {
	t.Helper()
	if err != nil {
		t.Fatalf("transition failed: %v", err)
	}
	checkApply(t, svc, tr)
	out := svc.DeepCopy()
	out.Status = tr.Service.Status
	return out
}

func combination(conds []metav1.Condition) string {
	s := func(t v1.LoadBalancerConditionType) string {
		c := Get(conds, t)
		if c == nil {
			return "-"
		}
		return string(c.Status)[:1] + "/" + c.Reason
	}
	return "P=" + s(v1.LoadBalancerConditionProvisioning) + " S=" + s(v1.LoadBalancerConditionServing) + " D=" + s(v1.LoadBalancerConditionDegraded)
}

func TestSeen_L1_Provisioning(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService(func(s *v1.Service) { s.Generation = 4 })
	tr, err := Seen(svc, Decide(svc, fullCapabilities()), WithClock(clk))
	svc = step(t, svc, tr, err)
	if got, want := combination(svc.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; got != want {
		t.Errorf("after Seen: %s, want %s", got, want)
	}
	if !tr.Changed {
		t.Error("Seen reported no change")
	}
	for _, c := range svc.Status.Conditions {
		if c.ObservedGeneration != 4 {
			t.Errorf("%s observedGeneration = %d, want metadata.generation 4 (G6)", c.Type, c.ObservedGeneration)
		}
		if want := wire(t0); !c.LastTransitionTime.Equal(&want) {
			t.Errorf("%s lastTransitionTime = %v, want %v", c.Type, c.LastTransitionTime, want)
		}
	}
}

func TestSeen_L1_Refused(t *testing.T) {
	svc := lbService(requires("Teleport"))
	tr, err := Seen(svc, Decide(svc, fullCapabilities()))
	svc = step(t, svc, tr, err)
	if got, want := combination(svc.Status.Conditions), "P=F/Complete S=F/Unsupported D=-"; got != want {
		t.Errorf("after Seen: %s, want %s", got, want)
	}
	if msg := Get(svc.Status.Conditions, v1.LoadBalancerConditionServing).Message; !strings.Contains(msg, "Teleport") {
		t.Errorf("Unsupported message %q does not say what", msg)
	}
}

func TestSeen_P1_IgnoredWritesNothing(t *testing.T) {
	svc := lbService(func(s *v1.Service) { s.Status.Conditions = []metav1.Condition{{Type: "Other"}} })
	caps := fullCapabilities()
	caps.DefaultClass = false
	tr, err := Seen(svc, Decide(svc, caps))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Apply != nil || tr.Changed || !apiequality.Semantic.DeepEqual(tr.Service.Status, svc.Status) {
		t.Errorf("ignored Service got a write: %+v", tr)
	}
}

func TestSeen_RestartLeavesExistingConditions(t *testing.T) {
	svc := lbService()
	caps := fullCapabilities()
	tr, err := Seen(svc, Decide(svc, caps))
	svc = step(t, svc, tr, err)
	tr, err = Succeeded(svc, ingress, nil)
	svc = step(t, svc, tr, err)
	tr, err = Seen(svc, Decide(svc, caps))
	after := step(t, svc, tr, err)
	if tr.Changed || !apiequality.Semantic.DeepEqual(after.Status, svc.Status) {
		t.Errorf("Seen after a restart changed a serving Service: %s", combination(after.Status.Conditions))
	}
}

func TestSeen_Errors(t *testing.T) {
	if _, err := Seen[*v1.Service](nil, Decision{Action: ActionProvision}); err == nil {
		t.Error("nil Service: no error")
	}
	if _, err := Seen(lbService(), Decision{}); err == nil {
		t.Error("decision without action: no error")
	}
	notLB := lbService(func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort })
	if _, err := Seen(notLB, Decision{Action: ActionProvision}); err == nil {
		t.Error("NodePort Service: no error")
	}
}

func TestSucceeded_L1_AlreadyAvailable(t *testing.T) {
	svc := lbService()
	tr, err := Succeeded(svc, ingress, nil)
	svc = step(t, svc, tr, err)
	if got, want := combination(svc.Status.Conditions), "P=F/Complete S=T/Serving D=-"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if !apiequality.Semantic.DeepEqual(svc.Status.LoadBalancer.Ingress, ingress) {
		t.Errorf("ingress = %v, want %v", svc.Status.LoadBalancer.Ingress, ingress)
	}
}

func TestSucceeded_L4_ServingComesWithIngress(t *testing.T) {
	svc := lbService()
	tr, err := Seen(svc, Decide(svc, fullCapabilities()))
	svc = step(t, svc, tr, err)
	if _, err := Succeeded(svc, nil, nil); err == nil {
		t.Error("Succeeded without ingress: no error")
	}
	if _, err := Succeeded(svc, []corev1.LoadBalancerIngress{{}, {IPMode: ptr.To(corev1.LoadBalancerIPModeVIP)}}, nil); err == nil {
		t.Error("Succeeded with ingress entries of neither ip nor hostname: no error")
	}
	tr, err = Succeeded(svc, ingress, nil)
	got := step(t, svc, tr, err)
	if !IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing) || len(got.Status.LoadBalancer.Ingress) == 0 {
		t.Error("Serving=True and the ingress must come in the same write (L4)")
	}
}

func TestSucceeded_G2_MultipleDegradations(t *testing.T) {
	svc := lbService(clientIP, mixedProtocols)
	tr, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts})
	svc = step(t, svc, tr, err)
	d := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded)
	if d == nil || d.Reason != string(v1.LoadBalancerReasonMultiple) || !strings.HasPrefix(d.Message, "PortsNotSupported,SessionAffinityNotSupported: ") {
		t.Fatalf("Degraded = %+v, want Multiple listing both sorted", d)
	}
}

func TestSucceeded_C2_NoDegradedFalse(t *testing.T) {
	svc := lbService(clientIP)
	tr, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity})
	svc = step(t, svc, tr, err)
	tr, err = Succeeded(svc, ingress, nil)
	svc = step(t, svc, tr, err)
	if c := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded); c != nil {
		t.Errorf("Degraded left as %+v, want it removed (never False)", c)
	}
	if n := len(applied(t, tr).Status.Conditions); n != 2 {
		t.Errorf("apply configuration has %d conditions, want 2: a removed Degraded is left out", n)
	}
}

func TestSucceeded_P5_RejectsDegradationNotAskedFor(t *testing.T) {
	svc := lbService()
	if _, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}); err == nil {
		t.Error("SessionAffinityNotSupported without sessionAffinity ClientIP: no error")
	}
}

func TestSucceeded_R1_RejectsDegradedRequiredFeature(t *testing.T) {
	svc := lbService(clientIP, requires(v1.LoadBalancerFeatureSessionAffinity))
	if _, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}); err == nil {
		t.Error("degraded in a required feature: no error")
	}
}

func TestSucceeded_C3_RejectsUnknownOrDuplicateFeature(t *testing.T) {
	svc := lbService(clientIP)
	if _, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{"Teleport"}); err == nil {
		t.Error("unknown feature: no error")
	}
	if _, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureSessionAffinity}); err == nil {
		t.Error("duplicate feature: no error")
	}
}

// TestProvisioningStarted_L4_KeepServingNeedsAnAddress: a Service
// converted to ClusterIP and back has lost its ingress (the apiserver
// clears it) but may still say Serving=True; keeping Serving True through
// the reprovisioning would break L4.
func TestProvisioningStarted_L4_KeepServingNeedsAnAddress(t *testing.T) {
	svc := lbService()
	svc = then(t, svc)(Succeeded(svc, ingress, nil))
	svc.Status.LoadBalancer.Ingress = nil
	got := then(t, svc)(ProvisioningStarted(svc, KeepServing))
	if c, want := combination(got.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; c != want {
		t.Errorf("got %s, want %s: Serving=True without an address breaks L4", c, want)
	}
}

// TestSpecUpdated_L4_ConvertedBackWithoutIngress: a Service converted to
// ClusterIP and back before the provider looked has lost its ingress (the
// apiserver clears it) but still says Serving=True; SpecUpdated's write,
// with a relevant change or with only a new generation, must not keep
// Serving True without an address (L4).
func TestSpecUpdated_L4_ConvertedBackWithoutIngress(t *testing.T) {
	served := lbService()
	served = then(t, served)(Succeeded(served, ingress, nil))
	for name, mutate := range map[string]func(*v1.Service){
		"class set":      func(s *v1.Service) { s.Spec.LoadBalancerClass = ptr.To("example.com/lb") },
		"new generation": func(s *v1.Service) { s.Generation++ },
	} {
		back := served.DeepCopy()
		back.Status.LoadBalancer.Ingress = nil
		mutate(back)
		got := then(t, back)(SpecUpdated(served, back))
		if c, want := combination(got.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; c != want {
			t.Errorf("%s: got %s, want %s: Serving=True without an address breaks L4", name, c, want)
		}
	}
}

func TestSucceeded_L6_ReprovisionedBumpsServing(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService()
	tr, err := Succeeded(svc, ingress, nil, WithClock(clk))
	svc = step(t, svc, tr, err)
	before := Get(svc.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime

	tr, err = ProvisioningStarted(svc, KeepServing, WithClock(clk))
	svc = step(t, svc, tr, err)
	tr, err = Succeeded(svc, ingress, nil, WithClock(clk)) // same second
	svc = step(t, svc, tr, err)
	after := Get(svc.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
	if !after.After(before.Time) {
		t.Errorf("Serving lastTransitionTime %v -> %v: a finished reprovisioning must bump it (L6, G5)", before, after)
	}

	tr, err = Succeeded(svc, ingress, nil, WithClock(clk))
	if err != nil || tr.Changed {
		t.Errorf("repeated Succeeded changed the status (err %v)", err)
	}
	tr, err = Succeeded(svc, []corev1.LoadBalancerIngress{{Hostname: "lb.example"}}, nil, WithClock(clk))
	svc2 := step(t, svc, tr, err)
	if c := Get(svc2.Status.Conditions, v1.LoadBalancerConditionServing); !c.LastTransitionTime.After(after.Time) {
		t.Error("an ingress change must bump Serving (L6)")
	}
}

func TestProvisioningStarted_L7(t *testing.T) {
	svc := lbService(clientIP)
	tr, err := Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity})
	serving := step(t, svc, tr, err)

	tr, err = ProvisioningStarted(serving, KeepServing)
	kept := step(t, serving, tr, err)
	if got, want := combination(kept.Status.Conditions), "P=T/Provisioning S=T/Serving D=T/SessionAffinityNotSupported"; got != want {
		t.Errorf("KeepServing: %s, want %s", got, want)
	}
	if a, b := Get(serving.Status.Conditions, v1.LoadBalancerConditionServing), Get(kept.Status.Conditions, v1.LoadBalancerConditionServing); !a.LastTransitionTime.Equal(&b.LastTransitionTime) {
		t.Error("KeepServing moved Serving's lastTransitionTime")
	}

	tr, err = ProvisioningStarted(serving, StopServing)
	stopped := step(t, serving, tr, err)
	if got, want := combination(stopped.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; got != want {
		t.Errorf("StopServing: %s, want %s", got, want)
	}
	if len(stopped.Status.LoadBalancer.Ingress) == 0 {
		t.Error("StopServing removed the ingress; L4 says it usually stays")
	}

	failed := then(t, svc)(Failed(svc, v1.LoadBalancerReasonInfrastructure, "quota"))
	tr, err = ProvisioningStarted(failed, KeepServing)
	retry := step(t, failed, tr, err)
	if got, want := combination(retry.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; got != want {
		t.Errorf("KeepServing without serving: %s, want %s", got, want)
	}
}

// then is step for a transition call written inline.
func then(t *testing.T, svc *v1.Service) func(Transition[*v1.Service], error) *v1.Service {
	return func(tr Transition[*v1.Service], err error) *v1.Service {
		t.Helper()
		return step(t, svc, tr, err)
	}
}

func TestFailed_L5(t *testing.T) {
	svc := lbService(clientIP)
	serving := then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
	for _, reason := range []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure} {
		tr, err := Failed(serving, reason, "")
		got := step(t, serving, tr, err)
		if c, want := combination(got.Status.Conditions), "P=F/Complete S=F/"+string(reason)+" D=-"; c != want {
			t.Errorf("%s: %s, want %s", reason, c, want)
		}
		if Get(got.Status.Conditions, v1.LoadBalancerConditionServing).Message == "" {
			t.Errorf("%s: empty message", reason)
		}
		if len(got.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("%s: ingress kept on a load balancer that does not serve", reason)
		}
	}
	if _, err := Failed(serving, v1.LoadBalancerReasonProvisioning, "x"); err == nil {
		t.Error("Failed with reason Provisioning: no error (L5)")
	}
}

func TestFailed_C5_MessageCutToLimit(t *testing.T) {
	serving := lbService()
	long := strings.Repeat("x", 40000)
	tr, err := Failed(serving, v1.LoadBalancerReasonInfrastructure, long)
	if err != nil || len(Get(tr.Service.Status.Conditions, v1.LoadBalancerConditionServing).Message) != maxMessageLen {
		t.Errorf("a long message must be cut to %d bytes (C5)", maxMessageLen)
	}
	// A message of exactly the limit is what C5 allows: written whole.
	exact := strings.Repeat("x", maxMessageLen)
	if tr, err := Failed(serving, v1.LoadBalancerReasonInfrastructure, exact); err != nil || Get(tr.Service.Status.Conditions, v1.LoadBalancerConditionServing).Message != exact {
		t.Errorf("a message of exactly %d bytes must be written whole (C5), err %v", maxMessageLen, err)
	}
	// Cut at a character, and made valid UTF-8, so that the apiserver
	// stores what was written: JSON would turn a broken character into
	// U+FFFD, three bytes, past the limit.
	for _, message := range []string{strings.Repeat("x", maxMessageLen-1) + "é and more", "quota\xff exceeded"} {
		tr, err := Failed(serving, v1.LoadBalancerReasonInfrastructure, message)
		got := Get(tr.Service.Status.Conditions, v1.LoadBalancerConditionServing).Message
		if err != nil || !utf8.ValidString(got) || len(got) > maxMessageLen {
			t.Errorf("message of %d bytes written as %d bytes, valid UTF-8 %v (C5)", len(message), len(got), utf8.ValidString(got))
		}
	}
}

func TestSpecUpdated_L6_BumpsProvisioningInSameSecond(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService()
	svc = then(t, svc)(Succeeded(svc, ingress, nil, WithClock(clk)))
	before := *Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)

	updated := svc.DeepCopy()
	updated.Spec.Ports[0].Port = 8080
	tr, err := SpecUpdated(svc, updated, WithClock(clk))
	got := step(t, updated, tr, err)
	after := Get(got.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	if after.Status != metav1.ConditionFalse || !after.LastTransitionTime.After(before.LastTransitionTime.Time) {
		t.Errorf("Provisioning %s at %v -> %s at %v: want False with a later time (L6, G5)", before.Status, before.LastTransitionTime, after.Status, after.LastTransitionTime)
	}
	if !IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Error("SpecUpdated changed Serving without a reason")
	}

	same := updated.DeepCopy()
	same.Labels = map[string]string{"x": "y"}
	if tr, _ := SpecUpdated(updated, same, WithClock(clk)); tr.Changed {
		t.Error("an irrelevant change bumped Provisioning")
	}
}

func TestSpecUpdated_L6_DeclaredAnnotation(t *testing.T) {
	svc := lbService()
	svc = then(t, svc)(Succeeded(svc, ingress, nil))
	updated := svc.DeepCopy()
	updated.Annotations = map[string]string{"vendor.example/sku": "big"}
	if tr, _ := SpecUpdated(svc, updated); tr.Changed {
		t.Error("an undeclared annotation bumped Provisioning")
	}
	if tr, _ := SpecUpdated(svc, updated, WithRelevantAnnotations("vendor.example/sku")); !tr.Changed {
		t.Error("a declared annotation did not bump Provisioning")
	}
}

func TestSpecUpdated_P5_DropsDegradationNoLongerAsked(t *testing.T) {
	svc := lbService(clientIP, mixedProtocols)
	svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts}))
	updated := svc.DeepCopy()
	updated.Spec.SessionAffinity = corev1.ServiceAffinityNone
	got := then(t, updated)(SpecUpdated(svc, updated))
	if r := DegradedReasons(got.Status.Conditions); !slices.Equal(r, []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonPortsNotSupported}) {
		t.Errorf("degradations after dropping ClientIP = %v, want only PortsNotSupported", r)
	}
	updated2 := got.DeepCopy()
	updated2.Spec.Ports = updated2.Spec.Ports[:1]
	got2 := then(t, updated2)(SpecUpdated(got, updated2))
	if Get(got2.Status.Conditions, v1.LoadBalancerConditionDegraded) != nil {
		t.Error("Degraded kept with nothing degraded left")
	}
}

func TestSpecUpdated_P6_RequiredDegradedStopsServing(t *testing.T) {
	svc := lbService(clientIP)
	svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
	updated := svc.DeepCopy()
	updated.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	got := then(t, updated)(SpecUpdated(svc, updated))
	if c, want := combination(got.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; c != want {
		t.Errorf("got %s, want %s: Serving=True with a required feature degraded breaks P6", c, want)
	}
}

// TestSpecUpdated_R2_UnknownRequiredStopsServing: a served Service that
// comes to require a feature this version does not know, through the spec
// field or the annotation, is served no more: Decide refuses it (R2), and
// Serving=True until then reads as honouring a requirement nobody knows.
func TestSpecUpdated_R2_UnknownRequiredStopsServing(t *testing.T) {
	for _, viaSpec := range []bool{true, false} {
		svc := lbService(clientIP)
		svc = then(t, svc)(Succeeded(svc, ingress, nil))
		updated := svc.DeepCopy()
		if viaSpec {
			updated.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleport"}
		} else {
			updated.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport"}
		}
		got := then(t, updated)(SpecUpdated(svc, updated))
		if c, want := combination(got.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; c != want {
			t.Errorf("spec field %v: got %s, want %s", viaSpec, c, want)
		}
	}
}

// TestSpecUpdated_P6_ProviderReasonInMultiple: a provider's own reason
// listed by Multiple before the degraded feature that becomes required
// (reasons sort by name) does not hide it from P6.
func TestSpecUpdated_P6_ProviderReasonInMultiple(t *testing.T) {
	for _, own := range []string{"AcmeSlowDisks", "ZetaSlowDisks"} {
		svc := lbService(clientIP)
		svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
		d := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded)
		d.Reason, d.Message = string(v1.LoadBalancerReasonMultiple), own+",SessionAffinityNotSupported: two"
		updated := svc.DeepCopy()
		updated.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
		got := then(t, updated)(SpecUpdated(svc, updated))
		if c, want := combination(got.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; c != want {
			t.Errorf("with %s: got %s, want %s: Serving=True with a required feature degraded breaks P6", own, c, want)
		}
	}
}

func TestSpecUpdated_BeforeSeenChangesNothing(t *testing.T) {
	svc := lbService()
	updated := lbService(clientIP)
	tr, err := SpecUpdated(svc, updated)
	if err != nil || tr.Changed {
		t.Errorf("SpecUpdated before Seen: changed %v, err %v", tr.Changed, err)
	}
	if _, err := SpecUpdated(svc, nil); err == nil {
		t.Error("nil new: no error")
	}
}

func TestNotLoadBalancer_L9(t *testing.T) {
	svc := lbService(clientIP, func(s *v1.Service) {
		s.Status.Conditions = []metav1.Condition{{Type: "Other", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: wire(t0)}}
	})
	svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
	updated := svc.DeepCopy()
	updated.Spec.Type = corev1.ServiceTypeClusterIP
	for name, tr := range map[string]Transition[*v1.Service]{
		"NotLoadBalancer": mustTr(t)(NotLoadBalancer(updated)),
		"SpecUpdated":     mustTr(t)(SpecUpdated(svc, updated)),
	} {
		got := step(t, updated, tr, nil)
		if HasKEPConditions(got.Status.Conditions) || len(got.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("%s: left %s with ingress %v", name, combination(got.Status.Conditions), got.Status.LoadBalancer.Ingress)
		}
		if Get(got.Status.Conditions, "Other") == nil {
			t.Errorf("%s: removed another controller's condition", name)
		}
		if a := applied(t, tr); len(a.Status.Conditions) != 0 || len(a.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("%s: apply configuration still holds status: %+v", name, a.Status)
		}
	}
}

func mustTr(t *testing.T) func(Transition[*v1.Service], error) Transition[*v1.Service] {
	return func(tr Transition[*v1.Service], err error) Transition[*v1.Service] {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
}

func TestTransitions_C1_C3_C4_OnlyTableReasonsNeverPortsError(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService(clientIP, mixedProtocols, dualStack)
	all := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureIPFamilies}
	allowed := map[v1.LoadBalancerConditionType][]string{
		v1.LoadBalancerConditionServing:      {"True/Serving", "False/Provisioning", "False/Unsupported", "False/Infrastructure"},
		v1.LoadBalancerConditionProvisioning: {"True/Provisioning", "False/Complete"},
	}
	check := func(s *v1.Service) {
		for _, c := range s.Status.Conditions {
			switch v1.LoadBalancerConditionType(c.Type) {
			case v1.LoadBalancerConditionPortsError:
				t.Error("LoadBalancerPortsError written (C4)")
			case v1.LoadBalancerConditionDegraded:
				if c.Status != metav1.ConditionTrue {
					t.Errorf("Degraded=%s written (C2)", c.Status)
				}
				if _, ok := v1.DegradedFeature(v1.LoadBalancerConditionReason(c.Reason)); !ok && c.Reason != string(v1.LoadBalancerReasonMultiple) {
					t.Errorf("Degraded reason %q outside the table (C3)", c.Reason)
				}
			default:
				if !slices.Contains(allowed[v1.LoadBalancerConditionType(c.Type)], string(c.Status)+"/"+c.Reason) {
					t.Errorf("%s=%s/%s outside the table (C1, C3)", c.Type, c.Status, c.Reason)
				}
			}
		}
	}
	for _, tr := range []func(*v1.Service) (Transition[*v1.Service], error){
		func(s *v1.Service) (Transition[*v1.Service], error) {
			return Seen(s, Decide(s, fullCapabilities()), WithClock(clk))
		},
		func(s *v1.Service) (Transition[*v1.Service], error) {
			return Succeeded(s, ingress, all, WithClock(clk))
		},
		func(s *v1.Service) (Transition[*v1.Service], error) {
			return ProvisioningStarted(s, KeepServing, WithClock(clk))
		},
		func(s *v1.Service) (Transition[*v1.Service], error) {
			return Succeeded(s, ingress, all[:1], WithClock(clk))
		},
		func(s *v1.Service) (Transition[*v1.Service], error) {
			return ProvisioningStarted(s, StopServing, WithClock(clk))
		},
		func(s *v1.Service) (Transition[*v1.Service], error) {
			return Failed(s, v1.LoadBalancerReasonInfrastructure, "boom", WithClock(clk))
		},
	} {
		clk.SetTime(clk.Now().Add(300 * time.Millisecond))
		svc = then(t, svc)(tr(svc))
		check(svc)
	}
}

func TestTransition_ErrorsLeaveNothingToWrite(t *testing.T) {
	notLB := lbService(func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP })
	for name, f := range map[string]func() (Transition[*v1.Service], error){
		"ProvisioningStarted nil": func() (Transition[*v1.Service], error) { return ProvisioningStarted[*v1.Service](nil, KeepServing) },
		"ProvisioningStarted":     func() (Transition[*v1.Service], error) { return ProvisioningStarted(notLB, KeepServing) },
		"Succeeded":               func() (Transition[*v1.Service], error) { return Succeeded(notLB, ingress, nil) },
		"Failed":                  func() (Transition[*v1.Service], error) { return Failed(notLB, v1.LoadBalancerReasonUnsupported, "") },
		"NotLoadBalancer nil":     func() (Transition[*v1.Service], error) { return NotLoadBalancer[*v1.Service](nil) },
	} {
		tr, err := f()
		if err == nil || tr.Apply != nil {
			t.Errorf("%s: err %v, apply %v; want an error and nothing to write", name, err, tr.Apply)
		}
	}
}

// Found by TestProvider_StateMachine: on a cluster that bumps
// metadata.generation for every spec change, an irrelevant change left
// observedGeneration behind forever.
func TestSpecUpdated_G6_IrrelevantChangeFollowsGeneration(t *testing.T) {
	svc := lbService()
	svc = then(t, svc)(Succeeded(svc, ingress, nil))
	updated := svc.DeepCopy()
	updated.Spec.SessionAffinity = corev1.ServiceAffinityNone // the default: not a change
	updated.Generation = 2
	before := Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning).LastTransitionTime
	got := then(t, updated)(SpecUpdated(svc, updated))
	for _, c := range got.Status.Conditions {
		if c.ObservedGeneration != 2 {
			t.Errorf("%s observedGeneration = %d, want 2", c.Type, c.ObservedGeneration)
		}
	}
	if after := Get(got.Status.Conditions, v1.LoadBalancerConditionProvisioning).LastTransitionTime; !after.Equal(&before) {
		t.Error("an irrelevant change bumped Provisioning")
	}
}

// Found by TestProvider_StateMachine: with the clock going backwards, a
// Degraded condition removed when serving stopped came back with an earlier
// lastTransitionTime than a watcher had already seen (C7).
func TestTransitions_C7_DegradedComesBackNotEarlier(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService(clientIP)
	svc = then(t, svc)(Succeeded(svc, ingress, nil, WithClock(clk)))
	clk.SetTime(t0.Add(time.Hour))
	svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}, WithClock(clk)))
	seen := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded).LastTransitionTime

	clk.SetTime(t0.Add(-time.Hour)) // the clock goes back
	svc = then(t, svc)(ProvisioningStarted(svc, StopServing, WithClock(clk)))
	svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}, WithClock(clk)))
	if again := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded).LastTransitionTime; again.Before(&seen) {
		t.Errorf("Degraded came back at %v, before the %v a watcher saw (C7)", again, seen)
	}
}

// The four combinations of L3, each reached by the transitions and read by
// Evaluate as section 6 says.
func TestTransitions_L3_FourCombinations(t *testing.T) {
	svc := lbService()
	for _, step := range []struct {
		name        string
		transition  func(*v1.Service) (Transition[*v1.Service], error)
		combination string
		result      Result
	}{
		{"provisioning, not serving", func(s *v1.Service) (Transition[*v1.Service], error) { return Seen(s, Decide(s, fullCapabilities())) },
			"P=T/Provisioning S=F/Provisioning D=-", ResultPending},
		{"serving the latest spec", func(s *v1.Service) (Transition[*v1.Service], error) { return Succeeded(s, ingress, nil) },
			"P=F/Complete S=T/Serving D=-", ResultReady},
		{"reprovisioning while serving an older spec", func(s *v1.Service) (Transition[*v1.Service], error) { return ProvisioningStarted(s, KeepServing) },
			"P=T/Provisioning S=T/Serving D=-", ResultPending},
		{"error, not serving and not expected to", func(s *v1.Service) (Transition[*v1.Service], error) {
			return Failed(s, v1.LoadBalancerReasonInfrastructure, "the cloud said no")
		}, "P=F/Complete S=F/Infrastructure D=-", ResultFail},
	} {
		svc = then(t, svc)(step.transition(svc))
		if got := combination(svc.Status.Conditions); got != step.combination {
			t.Errorf("%s: %s, want %s", step.name, got, step.combination)
		}
		if v := Evaluate(svc, ""); v.Result != step.result {
			t.Errorf("%s: verdict %v, want %s", step.name, v, step.result)
		}
	}
}

// C5: a transition never writes a condition without lastTransitionTime,
// even over conditions that had none (written by hand, never stored).
func TestSucceeded_C5_StampsAMissingTime(t *testing.T) {
	svc := lbService()
	svc.Status.LoadBalancer.Ingress = ingress
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing),
	}
	tr, err := Succeeded(svc, ingress, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tr.Service.Status.Conditions {
		if c.LastTransitionTime.IsZero() {
			t.Errorf("%s has no lastTransitionTime (C5)", c.Type)
		}
	}
}

// A refused Service that carries a Degraded condition and now requires
// that feature stays refused: only a serving load balancer degraded in a
// newly required feature starts provisioning again (P6).
func TestSpecUpdated_RefusedStaysRefused(t *testing.T) {
	old := lbService(func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP })
	old.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported),
		cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonSessionAffinityNotSupported),
	}
	for i := range old.Status.Conditions {
		old.Status.Conditions[i].LastTransitionTime = wire(t0)
	}
	updated := old.DeepCopy()
	updated.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	tr, err := SpecUpdated(old, updated)
	if err != nil {
		t.Fatal(err)
	}
	if c := Get(tr.Service.Status.Conditions, v1.LoadBalancerConditionServing); c == nil || c.Reason != string(v1.LoadBalancerReasonUnsupported) {
		t.Errorf("Serving %+v, want False/Unsupported kept", c)
	}
	if IsTrue(tr.Service.Status.Conditions, v1.LoadBalancerConditionProvisioning) {
		t.Error("Provisioning turned True on a refused Service")
	}
}

// The floor a new condition may land on is the latest time of the
// KEP-4631 conditions only: a condition of another controller, stamped
// by another clock, must not push the provider's first conditions ahead
// of the clock (C6: the time of the change).
func TestSeen_C6_OtherConditionsDoNotMoveTheFloor(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService(func(s *v1.Service) {
		s.Status.Conditions = []metav1.Condition{{Type: "Other", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: wire(t0.Add(time.Hour))}}
	})
	svc = then(t, svc)(Seen(svc, Decide(svc, fullCapabilities()), WithClock(clk)))
	for _, ct := range []v1.LoadBalancerConditionType{v1.LoadBalancerConditionProvisioning, v1.LoadBalancerConditionServing} {
		if got, want := Get(svc.Status.Conditions, ct).LastTransitionTime, wire(t0); !got.Equal(&want) {
			t.Errorf("%s lastTransitionTime = %v, want the clock's %v", ct, got, want)
		}
	}
}

// A provider that restarts and now refuses a Service it served (its
// capabilities changed) must say so (R1): only ActionProvision leaves
// existing conditions alone.
func TestSeen_R1_RestartThatRefusesWrites(t *testing.T) {
	svc := lbService(clientIP, requires(v1.LoadBalancerFeatureSessionAffinity))
	svc = then(t, svc)(Succeeded(svc, ingress, nil))
	caps := fullCapabilities()
	caps.SessionAffinity = false
	d := Decide(svc, caps)
	if d.Action != ActionRefuse {
		t.Fatalf("Decide: %s, want %s", d.Action, ActionRefuse)
	}
	tr, err := Seen(svc, d)
	got := step(t, svc, tr, err)
	if c, want := combination(got.Status.Conditions), "P=F/Complete S=F/Unsupported D=-"; !tr.Changed || c != want {
		t.Errorf("Seen after a restart that refuses: changed %v, %s, want %s", tr.Changed, c, want)
	}
}

// Transition.Service has a status of its own, also when nothing changed:
// a caller that edits it must not edit the Service it passed in.
func TestTransitions_UnchangedStatusIsACopy(t *testing.T) {
	svc := lbService()
	svc = then(t, svc)(Succeeded(svc, ingress, nil))
	orig := svc.DeepCopy()
	for name, tr := range map[string]Transition[*v1.Service]{
		"Seen after a restart":   mustTr(t)(Seen(svc, Decide(svc, fullCapabilities()))),
		"SpecUpdated, no change": mustTr(t)(SpecUpdated(svc, svc)),
	} {
		if tr.Changed {
			t.Fatalf("%s: changed", name)
		}
		tr.Service.Status.Conditions[0].Message = "edited"
		tr.Service.Status.LoadBalancer.Ingress[0].IP = "198.51.100.1"
		if !apiequality.Semantic.DeepEqual(svc.Status, orig.Status) {
			t.Errorf("%s: editing the transition's status edited the Service passed in", name)
		}
		svc = orig.DeepCopy()
	}
}

// The transition's ingress is a copy of the one given: a provider that
// reuses its slice for the next Service must not change this one's.
func TestSucceeded_IngressIsCopied(t *testing.T) {
	in := []corev1.LoadBalancerIngress{{
		IP:     "192.0.2.10",
		IPMode: ptr.To(corev1.LoadBalancerIPModeProxy),
		Ports:  []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}},
	}}
	want := []corev1.LoadBalancerIngress{*in[0].DeepCopy()}
	tr := mustTr(t)(Succeeded(lbService(), in, nil))
	in[0].Ports[0].Port = 443
	*in[0].IPMode = corev1.LoadBalancerIPModeVIP
	if got := tr.Service.Status.LoadBalancer.Ingress; !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("ingress after the caller reused its slice: %+v, want %+v", got, want)
	}
}

// The apiserver defaults a missing ipMode to VIP only: a stored Proxy
// and a given ingress without ipMode are different load-balancer
// behaviours, so the ingress is written and Serving moves (L6).
func TestSucceeded_L6_IPModeProxyToDefault(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	svc := lbService()
	proxy := []corev1.LoadBalancerIngress{{IP: ingress[0].IP, IPMode: ptr.To(corev1.LoadBalancerIPModeProxy)}}
	svc = then(t, svc)(Succeeded(svc, proxy, nil, WithClock(clk)))
	before := Get(svc.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
	clk.SetTime(t0.Add(time.Minute))
	tr, err := Succeeded(svc, ingress, nil, WithClock(clk))
	got := step(t, svc, tr, err)
	after := Get(got.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
	if !tr.Changed || got.Status.LoadBalancer.Ingress[0].IPMode != nil || !before.Before(&after) {
		t.Errorf("ipMode Proxy to the default: changed %v, ingress %+v, Serving %v -> %v; want a write without ipMode and Serving moved",
			tr.Changed, got.Status.LoadBalancer.Ingress, before, after)
	}
}

// Without a message, Failed still says which of the two outcomes it is:
// refused (T1 skips) or failed (T2 fails) read differently in a log.
func TestFailed_L5_DefaultMessageFollowsReason(t *testing.T) {
	svc := lbService()
	for reason, want := range map[v1.LoadBalancerConditionReason]string{
		v1.LoadBalancerReasonUnsupported:    msgUnsupported,
		v1.LoadBalancerReasonInfrastructure: msgInfrastructure,
	} {
		got := then(t, svc)(Failed(svc, reason, ""))
		if msg := Get(got.Status.Conditions, v1.LoadBalancerConditionServing).Message; msg != want {
			t.Errorf("%s without a message: %q, want %q", reason, msg, want)
		}
	}
}

// A Degraded condition with a provider's own reason is the provider's: a
// spec change moves Provisioning (L6) and leaves it as it is (C3 allows
// such reasons; only the table's are this package's to rewrite).
func TestSpecUpdated_C3_ProviderReasonKept(t *testing.T) {
	svc := lbService()
	svc = then(t, svc)(Succeeded(svc, ingress, nil))
	svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{
		Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue,
		Reason: "AcmeSlowDisks", Message: "the disks are slow", LastTransitionTime: wire(t0), ObservedGeneration: 1,
	})
	want := *Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded)
	updated := svc.DeepCopy()
	updated.Spec.Ports[0].Port = 8080
	got := then(t, updated)(SpecUpdated(svc, updated))
	if c := Get(got.Status.Conditions, v1.LoadBalancerConditionDegraded); c == nil || !apiequality.Semantic.DeepEqual(*c, want) {
		t.Errorf("Degraded after a spec change: %+v, want %+v", c, want)
	}
}

// A provider's own reason in a Multiple list does not keep a reason of
// the table that the new spec no longer asks for (P5): that one goes, the
// provider's stays, and so does the condition's lastTransitionTime (the
// status stays True). The text after the list loses this package's
// description of what went (as Succeeded writes it: "the load balancer
// does not implement A; B", a part per reason) and keeps the rest, the
// provider's own words included, which cannot be told apart by reason.
func TestSpecUpdated_P5_DropsUnaskedBesideProviderReason(t *testing.T) {
	noAffinity := func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityNone }
	noIP := func(s *v1.Service) { s.Spec.LoadBalancerIP = "" }
	ours := "AcmeSlowDisks,LoadBalancerIPNotSupported,SessionAffinityNotSupported: " +
		"the load balancer does not implement the requested loadBalancerIP; sessionAffinity ClientIP; slow disks"
	for _, tc := range []struct {
		name            string
		message         string
		change          func(*v1.Service)
		reason, wantMsg string
	}{
		{"one of the table dropped, own words kept", "AcmeSlowDisks,SessionAffinityNotSupported: slow disks, no affinity", noAffinity,
			"AcmeSlowDisks", "slow disks, no affinity"},
		{"its description dropped", ours, noAffinity, string(v1.LoadBalancerReasonMultiple),
			"AcmeSlowDisks,LoadBalancerIPNotSupported: the load balancer does not implement the requested loadBalancerIP; slow disks"},
		{"the first description dropped", ours, noIP, string(v1.LoadBalancerReasonMultiple),
			"AcmeSlowDisks,SessionAffinityNotSupported: the load balancer does not implement sessionAffinity ClientIP; slow disks"},
		{"its description after the provider's dropped", "AcmeSlowDisks,SessionAffinityNotSupported: slow disks; the load balancer does not implement sessionAffinity ClientIP",
			noAffinity, "AcmeSlowDisks", "slow disks"},
		{"two left", "AcmeSlowDisks,LoadBalancerIPNotSupported,SessionAffinityNotSupported: three", noAffinity,
			string(v1.LoadBalancerReasonMultiple), "AcmeSlowDisks,LoadBalancerIPNotSupported: three"},
		{"no text", "AcmeSlowDisks,SessionAffinityNotSupported", noAffinity, "AcmeSlowDisks", ""},
		{"two left, no text", "AcmeSlowDisks,LoadBalancerIPNotSupported,SessionAffinityNotSupported", noAffinity,
			string(v1.LoadBalancerReasonMultiple), "AcmeSlowDisks,LoadBalancerIPNotSupported"},
		{"all still asked for", "AcmeSlowDisks,SessionAffinityNotSupported: two", func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 },
			string(v1.LoadBalancerReasonMultiple), "AcmeSlowDisks,SessionAffinityNotSupported: two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := lbService(clientIP, func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.10" })
			svc = then(t, svc)(Succeeded(svc, ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
			d := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded)
			d.Reason, d.Message = string(v1.LoadBalancerReasonMultiple), tc.message
			before := d.LastTransitionTime
			updated := svc.DeepCopy()
			tc.change(updated)
			got := then(t, updated)(SpecUpdated(svc, updated))
			c := Get(got.Status.Conditions, v1.LoadBalancerConditionDegraded)
			if c == nil || c.Status != metav1.ConditionTrue || c.Reason != tc.reason || c.Message != tc.wantMsg || !c.LastTransitionTime.Equal(&before) {
				t.Fatalf("Degraded after the spec change: %+v, want True/%s %q at %v", c, tc.reason, tc.wantMsg, before)
			}
			for _, r := range DegradedReasons(got.Status.Conditions) {
				if f, ok := v1.DegradedFeature(r); ok && !AsksFor(got, f) {
					t.Errorf("Degraded names %s, which the new spec does not ask for (P5)", r)
				}
			}
		})
	}
}

// A Degraded condition of the table's reasons in a provider's own words
// is the provider's: a spec change keeps the words, and takes out only
// what the new spec no longer asks for (P5), the reason from the list
// and, with none left, the condition. Only a condition as Succeeded
// writes it is written anew, with its description of what is left. The
// condition's lastTransitionTime stays while it stays True.
func TestSpecUpdated_P5_KeepsProviderWords(t *testing.T) {
	noAffinity := func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityNone }
	otherPort := func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 }
	both := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureLoadBalancerIP}
	for _, tc := range []struct {
		name            string
		reason, message string // "": as Succeeded writes it
		change          func(*v1.Service)
		wantReason      string // "": no Degraded
		wantMsg         string
	}{
		{"one reason, all still asked for", "SessionAffinityNotSupported", "clients are not pinned behind the NAT", otherPort,
			"SessionAffinityNotSupported", "clients are not pinned behind the NAT"},
		{"two reasons, all still asked for", "Multiple", "LoadBalancerIPNotSupported,SessionAffinityNotSupported: no fixed IPs, no pinning", otherPort,
			"Multiple", "LoadBalancerIPNotSupported,SessionAffinityNotSupported: no fixed IPs, no pinning"},
		{"two reasons, one dropped", "Multiple", "LoadBalancerIPNotSupported,SessionAffinityNotSupported: no fixed IPs, no pinning", noAffinity,
			"LoadBalancerIPNotSupported", "no fixed IPs, no pinning"},
		{"one reason, dropped", "SessionAffinityNotSupported", "clients are not pinned behind the NAT", noAffinity, "", ""},
		{"ours, one dropped", "", "", noAffinity,
			"LoadBalancerIPNotSupported", "the load balancer does not implement the requested loadBalancerIP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := lbService(clientIP, func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.20" })
			svc = then(t, svc)(Succeeded(svc, ingress, both))
			d := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded)
			if tc.reason != "" {
				d.Reason, d.Message = tc.reason, tc.message
			}
			before := d.LastTransitionTime
			updated := svc.DeepCopy()
			tc.change(updated)
			got := then(t, updated)(SpecUpdated(svc, updated))
			c := Get(got.Status.Conditions, v1.LoadBalancerConditionDegraded)
			switch {
			case tc.wantReason == "" && c != nil:
				t.Fatalf("Degraded after the spec change: %+v, want none", c)
			case tc.wantReason != "" && (c == nil || c.Status != metav1.ConditionTrue || c.Reason != tc.wantReason ||
				c.Message != tc.wantMsg || !c.LastTransitionTime.Equal(&before)):
				t.Fatalf("Degraded after the spec change: %+v, want True/%s %q at %v", c, tc.wantReason, tc.wantMsg, before)
			}
		})
	}
}

// Before the provider has acknowledged the Service (Seen writes
// Provisioning first), SpecUpdated changes nothing, whatever another
// writer left in the status: not even observedGeneration.
func TestSpecUpdated_NothingBeforeSeen(t *testing.T) {
	svc := lbService()
	svc.Generation = 1
	svc.Status.Conditions = []metav1.Condition{{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue,
		Reason: string(v1.LoadBalancerReasonServing), ObservedGeneration: 1, LastTransitionTime: metav1.Now()}}
	updated := svc.DeepCopy()
	updated.Generation = 2
	updated.Spec.Ports[0].Port = 8080
	tr, err := SpecUpdated(svc, updated)
	if err != nil || tr.Changed || tr.Apply != nil {
		t.Errorf("SpecUpdated before Seen: changed %v, apply %v, err %v; want nothing written", tr.Changed, tr.Apply != nil, err)
	}
}
