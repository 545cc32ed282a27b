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

package conformance

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/validation"
)

// Snapshot rules.

func TestCheck_C1_ServingUnknown(t *testing.T) {
	noFinding(t, check(ready("ok", 10)), "C1")

	svc := ready("unknown", 10)
	getCond(t, svc, v1.LoadBalancerConditionServing).Status = metav1.ConditionUnknown
	found := check(svc)
	wantFinding(t, found, "C1", SeverityViolation, "status.conditions[1].status")
	noFinding(t, found, "C5") // validation's error is reported once, as C1
}

func TestCheck_C1_ProvisioningUnknown(t *testing.T) {
	svc := ready("unknown", 10)
	getCond(t, svc, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionUnknown
	wantFinding(t, check(svc), "C1", SeverityViolation, "status.conditions[0].status")

	// Unknown is fine on Degraded (C2): not a C1 matter.
	ok := ready("degraded-unknown", 10)
	ok.Status.Conditions = append(ok.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionUnknown, "Checking", at(10)))
	noFinding(t, check(ok), "C1")
}

func TestCheck_C2_DegradedFalse(t *testing.T) {
	svc := ready("degraded-false", 10)
	svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionFalse, "AllFeatures", at(10)))
	wantFinding(t, check(svc), "C2", SeverityWarning, "status.conditions[2].status")

	unknown := ready("degraded-unknown", 10)
	unknown.Status.Conditions = append(unknown.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionUnknown, "Checking", at(10)))
	noFinding(t, check(unknown), "C2")
	noFinding(t, check(ready("no-degraded", 10)), "C2")
}

func TestCheck_C3_ReasonOfOtherStatus(t *testing.T) {
	svc := ready("wrong-reason", 10)
	getCond(t, svc, v1.LoadBalancerConditionServing).Reason = string(v1.LoadBalancerReasonProvisioning)
	found := check(svc)
	f := wantFinding(t, found, "C3", SeverityViolation, "status.conditions[1].reason")
	if f.Severity != SeverityViolation {
		t.Fatal("a reason of the other status is a violation")
	}
	noFinding(t, found, "C5")

	noFinding(t, check(ready("ok", 10)), "C3")
}

func TestCheck_C3_UnknownReason(t *testing.T) {
	svc := ready("own-reason", 10)
	getCond(t, svc, v1.LoadBalancerConditionServing).Reason = "ServingViaAnycast"
	wantFinding(t, check(svc), "C3", SeverityWarning, "status.conditions[1].reason")

	degraded := ready("own-degraded-reason", 10)
	degraded.Status.Conditions = append(degraded.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, "NoHTTP3", at(10)))
	wantFinding(t, check(degraded), "C3", SeverityWarning, "status.conditions[2].reason")

	noFinding(t, check(ready("table-reasons", 10)), "C3")
}

func TestCheck_C4_PortsError(t *testing.T) {
	svc := ready("ports-error", 10)
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, NodePort: 30053})
	svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "UDPNotSupported", at(10)))
	found := check(svc)
	wantFinding(t, found, "C4", SeverityWarning, "status.conditions[2]")
	noFinding(t, found, "P5") // two ports: a partial port degradation is possible

	noFinding(t, check(ready("no-ports-error", 10)), "C4")
}

func TestCheck_C5_ConditionFormat(t *testing.T) {
	noFinding(t, check(ready("ok", 10)), "C5")

	noTime := ready("no-time", 10)
	getCond(t, noTime, v1.LoadBalancerConditionServing).LastTransitionTime = metav1.Time{}
	wantFinding(t, check(noTime), "C5", SeverityViolation, "status.conditions[1].lastTransitionTime")

	dup := ready("duplicate", 10)
	dup.Status.Conditions = append(dup.Status.Conditions, dup.Status.Conditions[1])
	wantFinding(t, check(dup), "C5", SeverityViolation, "status.conditions[2]")

	gen := ready("future-generation", 10)
	gen.Generation = 2
	getCond(t, gen, v1.LoadBalancerConditionServing).ObservedGeneration = 3
	wantFinding(t, check(gen), "C5", SeverityViolation, "status.conditions[1].observedGeneration")
}

func TestCheck_L1_MissingPartner(t *testing.T) {
	noFinding(t, check(ready("both", 10)), "L1")

	servingOnly := ready("serving-only", 10)
	servingOnly.Status.Conditions = servingOnly.Status.Conditions[1:]
	wantFinding(t, check(servingOnly), "L1", SeverityViolation, "status.conditions[0]")

	provisioningOnly := newLB("provisioning-only")
	setProvisioning(provisioningOnly, 5)
	provisioningOnly.Status.Conditions = provisioningOnly.Status.Conditions[:1]
	wantFinding(t, check(provisioningOnly), "L1", SeverityViolation, "status.conditions[0]")
}

func TestCheck_L4_ServingWithoutIngress(t *testing.T) {
	noFinding(t, check(ready("with-ingress", 10)), "L4")

	svc := ready("no-ingress", 10)
	svc.Status.LoadBalancer.Ingress = nil
	wantFinding(t, check(svc), "L4", SeverityViolation, "status.loadBalancer.ingress")
}

func TestCheck_L5_ServingReasonMatchesProvisioning(t *testing.T) {
	refused := newLB("refused")
	setRefused(refused, 5)
	noFinding(t, check(refused), "L5")
	provisioning := newLB("provisioning")
	setProvisioning(provisioning, 5)
	noFinding(t, check(provisioning), "L5")

	stalled := provisioning.DeepCopy()
	stalled.Name = "stalled"
	getCond(t, stalled, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionFalse
	getCond(t, stalled, v1.LoadBalancerConditionProvisioning).Reason = string(v1.LoadBalancerReasonComplete)
	wantFinding(t, check(stalled), "L5", SeverityViolation, "status.conditions[0].status")

	busyRefusal := refused.DeepCopy()
	busyRefusal.Name = "busy-refusal"
	getCond(t, busyRefusal, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionTrue
	getCond(t, busyRefusal, v1.LoadBalancerConditionProvisioning).Reason = string(v1.LoadBalancerReasonProvisioning)
	wantFinding(t, check(busyRefusal), "L5", SeverityViolation, "status.conditions[0].status")
}

func TestCheck_L9_LeftoverConditions(t *testing.T) {
	clean := newLB("converted-clean")
	clean.Spec.Type = corev1.ServiceTypeClusterIP
	noFinding(t, check(clean), "L9")

	left := ready("converted", 10)
	toClusterIP(left)
	found := check(left)
	wantFinding(t, found, "L9", SeverityWarning, "status.conditions")
	// Nothing else is judged on a Service that is no longer a load
	// balancer: no verdict, no L4.
	for _, f := range found {
		if f.Rule != "L9" {
			t.Errorf("unexpected finding on a ClusterIP Service: %s %s", f.Rule, f.Message)
		}
	}
}

func TestCheck_P1_ForeignClass(t *testing.T) {
	classes := []Option{Classes{"example.com/lb"}}
	foreign := ready("foreign", 10)
	foreign.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	found := observeAll(classes, foreign)
	wantFinding(t, found, "P1", SeverityViolation, "status.conditions")
	if len(found) != 1 {
		t.Errorf("a Service of another class is not checked further, got:\n%s", dump(found))
	}

	// The message names the provider's classes, and never leaves them
	// blank when one of them is the empty class (--class '').
	f := wantFinding(t, observeAll([]Option{Classes{"example.com/lb", ""}}, foreign), "P1", SeverityViolation, "status.conditions")
	if want := `handles ("example.com/lb", Services without a class)`; !strings.Contains(f.Message, want) {
		t.Errorf("P1 message: want it to contain %s, got %q", want, f.Message)
	}

	untouched := newLB("foreign-untouched")
	untouched.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	if found := observeAll(classes, untouched); len(found) != 0 {
		t.Errorf("a Service of another class without conditions: want nothing, got:\n%s", dump(found))
	}

	mine := ready("mine", 10)
	mine.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	noFinding(t, observeAll(classes, mine), "P1")
	noFinding(t, observeAll(classes, ready("default-class", 10)), "P1")
	noFinding(t, check(foreign), "P1") // P1 is off without Classes
	if !(Classes{"example.com/lb"}).Foreign(foreign) || (Classes{"example.com/lb"}).Foreign(mine) ||
		(Classes{"example.com/lb"}).Foreign(ready("no-class", 10)) || Classes(nil).Foreign(foreign) {
		t.Error("Classes.Foreign: want only a Service of another non-empty class, and none without classes")
	}

	// A Service of the provider's created again (a new uid) under another
	// class ends the provider's trace with what it still owed (L6), as a
	// recreation under the provider's class does.
	served := ready("recreated", 10)
	changed := specChange(served)
	again := newLB("recreated")
	again.UID, again.ResourceVersion = "uid-recreated-2", "10"
	wantFinding(t, observeAll(classes, served, changed, again), "L6", SeverityWarning, "status.conditions")
	again.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	wantFinding(t, observeAll(classes, served, changed, again), "L6", SeverityWarning, "status.conditions")
}

// P1 after a move: a Service of the provider's that the user moves to
// another class (through another type, as loadBalancerClass is immutable
// on a LoadBalancer) still carries the provider's conditions until the
// provider's next write. Left unchanged by the move, and by the user's
// edits after it, they are a warning, as L9's leftovers are; changed
// since, they are the violation P1 is.
// The class a P1 message quotes comes from the input: it is cut as every
// quoted value is, for a leftover as for a violation.
func TestCheck_P1_MessageClipsTheClass(t *testing.T) {
	classes := []Option{Classes{"example.com/lb"}}
	mine := ready("moved", 10)
	mine.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	moved := next(mine)
	moved.Spec.LoadBalancerClass = ptr.To("example.com/" + strings.Repeat("x", 4*input.MaxTextBytes))
	foreign := moved.DeepCopy()
	foreign.UID = "uid-other"
	for name, found := range map[string][]Finding{
		"leftover":  observeAll(classes, mine, moved),
		"violation": observeAll(classes, foreign),
	} {
		if f := withRule(found, "P1"); len(f) != 1 || len(f[0].Message) > 2*input.MaxTextBytes {
			t.Errorf("%s: P1 message of %d bytes:\n%s", name, len(dump(f)), dump(f))
		}
	}
}

func TestCheck_P1_LeftoversOfAMoveAreAWarning(t *testing.T) {
	classes := []Option{Classes{"example.com/lb"}}
	mine := ready("moved", 10)
	mine.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	clusterIP := mine.DeepCopy()
	clusterIP.ResourceVersion = "11"
	clusterIP.Spec.Type, clusterIP.Spec.LoadBalancerClass = corev1.ServiceTypeClusterIP, nil
	moved := mine.DeepCopy()
	moved.ResourceVersion = "12"
	moved.Spec.LoadBalancerClass = ptr.To("other.example/lb")

	f := wantFinding(t, observeAll(classes, mine, clusterIP, moved), "P1", SeverityWarning, "status.conditions")
	if !strings.Contains(f.Message, "wrote before") || !strings.Contains(f.Message, `"other.example/lb"`) ||
		!strings.Contains(f.Message, "LoadBalancerServing") || f.Object.ResourceVersion != "12" {
		t.Errorf("P1 on a move: %+v", f)
	}
	// Straight from the provider's class, where a fork allows it.
	wantFinding(t, observeAll(classes, mine, moved), "P1", SeverityWarning, "status.conditions")

	// A user's edit before the provider's next write leaves them
	// leftovers; a write of the conditions after that is the violation.
	later := moved.DeepCopy()
	later.ResourceVersion = "13"
	later.Labels = map[string]string{"app": "web"}
	written := later.DeepCopy()
	written.ResourceVersion = "14"
	setProvisioning(written, 20)
	found := withRule(observeAll(classes, mine, clusterIP, moved, later, written), "P1")
	if len(found) != 3 || found[0].Severity != SeverityWarning || found[1].Severity != SeverityWarning ||
		found[1].Object.ResourceVersion != "13" || found[2].Severity != SeverityViolation {
		t.Errorf("leftovers through a user's edit, then written: want two warnings then a violation, got:\n%s", dump(found))
	}
	// Moved back before the provider's cleanup: a new trace, with
	// nothing owed from before the move.
	back := mine.DeepCopy()
	back.ResourceVersion = "15"
	c := NewChecker(classes...)
	for _, o := range []*v1.Service{mine, clusterIP, moved, later} {
		c.Observe(o)
	}
	if got := c.Observe(back); len(withRule(got, "P1")) != 0 || len(withRule(got, "L6")) != 0 {
		t.Errorf("moved back: %s", dump(got))
	}
	if got := c.Finish(); len(got) != 0 {
		t.Errorf("moved back, then the input ends: %s", dump(got))
	}
	// Written since the provider's last observed write: a violation.
	rewritten := moved.DeepCopy()
	setProvisioning(rewritten, 20)
	wantFinding(t, observeAll(classes, mine, clusterIP, rewritten), "P1", SeverityViolation, "status.conditions")
	// One condition written since, the other as the provider left it: a
	// violation too.
	partly := moved.DeepCopy()
	partly.Status.Conditions[1].Message = "written after the move"
	wantFinding(t, observeAll(classes, mine, clusterIP, partly), "P1", SeverityViolation, "status.conditions")
	// A new Service under the name (a new uid): a violation.
	other := moved.DeepCopy()
	other.UID = "uid-moved-2"
	wantFinding(t, observeAll(classes, mine, clusterIP, other), "P1", SeverityViolation, "status.conditions")
}

func TestCheck_P5_DegradationNamesWhatIsAsked(t *testing.T) {
	tests := []struct {
		feature v1.LoadBalancerFeature
		ask     func(*v1.Service)
	}{
		{v1.LoadBalancerFeatureSessionAffinity, func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }},
		{v1.LoadBalancerFeatureExternalTrafficPolicy, func(s *v1.Service) {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}},
		{v1.LoadBalancerFeatureIPFamilies, func(s *v1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol} }},
		{v1.LoadBalancerFeaturePorts, func(s *v1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, NodePort: 30053})
		}},
		{v1.LoadBalancerFeatureLoadBalancerIP, func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.7" }},
		{v1.LoadBalancerFeatureLoadBalancerSourceRanges, func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"198.51.100.0/24"} }},
	}
	for _, tc := range tests {
		t.Run(string(tc.feature), func(t *testing.T) {
			reason, _ := v1.DegradedReason(tc.feature)
			svc := ready("degraded", 10)
			svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, reason, at(10)))
			wantFinding(t, check(svc), "P5", SeverityViolation, "status.conditions[2].reason")

			tc.ask(svc)
			found := check(svc)
			noFinding(t, found, "P5")
			noViolations(t, found)
		})
	}
}

// TestCheck_P5_OneReading: the checker, validation and the condition
// helpers give one answer to "does the Service ask for IPFamilies" (P5),
// also for manifests the apiserver has not defaulted.
func TestCheck_P5_OneReading(t *testing.T) {
	for name, spec := range map[string]func(*v1.Service){
		"undefaulted PreferDualStack":  func(s *v1.Service) { s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack) },
		"undefaulted RequireDualStack": func(s *v1.Service) { s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack) },
		"undefaulted SingleStack":      func(s *v1.Service) { s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack) },
		"a family twice":               func(s *v1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv4Protocol} },
		"two families":                 func(s *v1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol} },
	} {
		svc := ready("families", 10)
		spec(svc)
		asks := conditions.AsksFor(svc, v1.LoadBalancerFeatureIPFamilies)
		if validated := validation.AskedFeatures(&svc.Spec.ServiceSpec, svc.Annotations).Has(v1.LoadBalancerFeatureIPFamilies); validated != asks {
			t.Errorf("%s: validation says it asks for IPFamilies: %v, conditions: %v", name, validated, asks)
		}
		_, err := conditions.Succeeded(svc, svc.Status.LoadBalancer.Ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies})
		if (err == nil) != asks {
			t.Errorf("%s: conditions.Succeeded degraded in IPFamilies: %v, want it only when the Service asks (%v)", name, err, asks)
		}
		svc.Status.Conditions = append(svc.Status.Conditions,
			cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonIPFamiliesNotSupported, at(10)))
		if p5 := len(withRule(check(svc), "P5")) > 0; p5 == asks {
			t.Errorf("%s: the checker finds P5: %v, but the Service asks for IPFamilies: %v", name, p5, asks)
		}
	}
}

func TestCheck_P5_MultipleAndPortsError(t *testing.T) {
	multiple := ready("multiple", 10)
	multiple.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	multiple.Status.Conditions = append(multiple.Status.Conditions, metav1.Condition{
		Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue, Reason: string(v1.LoadBalancerReasonMultiple),
		Message: "PortsNotSupported,SessionAffinityNotSupported: UDP and session affinity are not implemented", LastTransitionTime: at(10),
	})
	f := wantFinding(t, check(multiple), "P5", SeverityViolation, "status.conditions[2].message")
	if want := "PortsNotSupported"; !strings.Contains(f.Message, want) {
		t.Errorf("message %q does not name %s", f.Message, want)
	}

	legacy := ready("legacy-ports-error", 10)
	legacy.Status.Conditions = append(legacy.Status.Conditions, cond(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "UDPNotSupported", at(10)))
	wantFinding(t, check(legacy), "P5", SeverityViolation, "status.conditions[2]")
}

func TestCheck_P6_RequiredFeatureDegraded(t *testing.T) {
	degraded := func(name string) *v1.Service {
		svc := ready(name, 10)
		svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
		svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
			v1.LoadBalancerReasonSessionAffinityNotSupported, at(10)))
		return svc
	}
	spec := degraded("required-in-spec")
	spec.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	f := wantFinding(t, check(spec), "P6", SeverityViolation, "status.conditions[2].reason")
	if !strings.Contains(f.Message, "spec.requiredLoadBalancerFeatures") {
		t.Errorf("message %q does not say where the requirement is", f.Message)
	}

	annotated := degraded("required-in-annotation")
	annotated.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports, SessionAffinity"}
	f = wantFinding(t, check(annotated), "P6", SeverityViolation, "status.conditions[2].reason")
	if !strings.Contains(f.Message, v1.RequiredFeaturesAnnotation) {
		t.Errorf("message %q does not name the annotation", f.Message)
	}

	other := degraded("other-feature-required")
	other.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	noFinding(t, check(other), "P6")
	noFinding(t, check(degraded("nothing-required")), "P6")
}

func TestCheck_R4_InvalidRequiredFeatures(t *testing.T) {
	valid := ready("valid", 10)
	valid.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	noFinding(t, check(valid), "R4")

	unknown := ready("unknown-feature", 10)
	unknown.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleportation"}
	wantFinding(t, check(unknown), "R4", SeverityViolation, "spec.requiredLoadBalancerFeatures[0]")

	dup := ready("duplicate-feature", 10)
	dup.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeaturePorts}
	wantFinding(t, check(dup), "R4", SeverityViolation, "spec.requiredLoadBalancerFeatures[1]")

	clusterIP := newLB("cluster-ip")
	clusterIP.Spec.Type = corev1.ServiceTypeClusterIP
	clusterIP.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	wantFinding(t, check(clusterIP), "R4", SeverityViolation, "spec.requiredLoadBalancerFeatures")
}

func TestCheck_R3_NoConditions(t *testing.T) {
	f := wantFinding(t, check(newLB("legacy")), "R3", SeverityNotice, "status.conditions")
	if f.Object.ResourceVersion != "1" {
		t.Errorf("R3 names resourceVersion %q, want the last observation's", f.Object.ResourceVersion)
	}
	wantFinding(t, observeAll([]Option{RequireConditions(true)}, newLB("legacy")), "R3", SeverityViolation, "status.conditions")

	// A trace that gets its conditions owes nothing at its end.
	created := newLB("late")
	provisioned := next(created)
	setReady(provisioned, 10)
	noFinding(t, observeAll([]Option{RequireConditions(true)}, created, provisioned), "R3")
	cip := newLB("cluster-ip")
	cip.Spec.Type = corev1.ServiceTypeClusterIP
	noFinding(t, check(cip), "R3")

	// R3 trusts Serving and Provisioning: a Degraded condition alone is
	// not a provider's answer.
	degradedOnly := newLB("degraded-only")
	degradedOnly.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	degradedOnly.Status.Conditions = []metav1.Condition{cond(v1.LoadBalancerConditionDegraded, metav1.ConditionUnknown, "Checking", at(5))}
	wantFinding(t, observeAll([]Option{RequireConditions(true)}, degradedOnly), "R3", SeverityViolation, "status.conditions")

	// A trace a deletion ends says so: the Service has no conditions
	// "yet" no more.
	for _, require := range []bool{false, true} {
		c := NewChecker(RequireConditions(require))
		c.Observe(newLB("gone"))
		f := wantFinding(t, c.Forget("test", "gone"), "R3", map[bool]Severity{false: SeverityNotice, true: SeverityViolation}[require], "status.conditions")
		if !strings.HasPrefix(f.Message, "the Service was deleted; it had neither LoadBalancerServing nor LoadBalancerProvisioning") {
			t.Errorf("R3 at a deletion (RequireConditions %v): message %q", require, f.Message)
		}
	}
}

// Verdicts (section 6).

func TestCheck_T1_Skip(t *testing.T) {
	svc := newLB("refused")
	setRefused(svc, 5)
	f := wantFinding(t, check(svc), "T1", SeverityNotice, "status")
	if f.Verdict == nil || f.Verdict.Result != conditions.ResultSkip {
		t.Errorf("verdict %+v, want Skip", f.Verdict)
	}
	noFinding(t, check(ready("ready", 10)), "T1")
}

func TestCheck_T2_Fail(t *testing.T) {
	svc := newLB("failed")
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, at(5)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure, at(5)),
	}
	f := wantFinding(t, check(svc), "T2", SeverityNotice, "status")
	if f.Verdict == nil || f.Verdict.Result != conditions.ResultFail {
		t.Errorf("verdict %+v, want Fail", f.Verdict)
	}
	noFinding(t, check(ready("ready", 10)), "T2")
}

func TestCheck_T3_Ready(t *testing.T) {
	f := wantFinding(t, check(ready("ready", 10)), "T3", SeverityNotice, "status")
	if f.Verdict == nil || f.Verdict.Result != conditions.ResultReady {
		t.Errorf("verdict %+v, want Ready", f.Verdict)
	}
	// Reported when it changes, not on every observation.
	first := ready("steady", 10)
	relabeled := next(first)
	relabeled.Labels = map[string]string{"tier": "web"}
	wantFinding(t, check(first, relabeled), "T3", SeverityNotice, "status")

	noFinding(t, check(newLB("pending")), "T3")
}

func TestCheck_T4_Pending(t *testing.T) {
	created := newLB("pending")
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	relabeled := next(provisioning)
	relabeled.Labels = map[string]string{"tier": "web"}
	// Pending twice, for two reasons (no conditions yet, then
	// provisioning): each is reported; the same verdict again is not.
	found := withRule(check(created, provisioning, relabeled), "T4")
	if len(found) != 2 || found[0].Verdict.Reason == found[1].Verdict.Reason ||
		found[1].Verdict.Reason != "the load balancer is being provisioned" {
		t.Errorf("T4 notices %+v, want one per reason: no conditions yet, then provisioning", found)
	}
	noFinding(t, check(ready("ready", 10)), "T4")

	// A ClusterIP Service has no verdict.
	cip := newLB("cluster-ip")
	cip.Spec.Type = corev1.ServiceTypeClusterIP
	noFinding(t, check(cip), "T4")
}

// Trace rules.

func TestCheck_C6_StatusChangeMovesTime(t *testing.T) {
	provisioning := newLB("web")
	setProvisioning(provisioning, 5)
	good := next(provisioning)
	setReady(good, 10)
	noViolations(t, check(provisioning, good))

	stuck := good.DeepCopy()
	getCond(t, stuck, v1.LoadBalancerConditionServing).LastTransitionTime = at(5)
	wantFinding(t, check(provisioning, stuck), "C6", SeverityViolation, "status.conditions[1].lastTransitionTime")
}

func TestCheck_C6_SameSecondIsNoMove(t *testing.T) {
	// G5: the wire has whole seconds; a move within the same second is
	// invisible to a watcher.
	provisioning := newLB("web")
	setProvisioning(provisioning, 5)
	sameSecond := next(provisioning)
	setReady(sameSecond, 10)
	getCond(t, sameSecond, v1.LoadBalancerConditionServing).LastTransitionTime = metav1.NewTime(at(5).Add(400 * time.Millisecond))
	wantFinding(t, check(provisioning, sameSecond), "C6", SeverityViolation, "status.conditions[1].lastTransitionTime")
}

func TestCheck_C7_TimeNeverMovesBackwards(t *testing.T) {
	first := ready("web", 10)
	later := next(first)
	getCond(t, later, v1.LoadBalancerConditionServing).Message = "still serving"
	getCond(t, later, v1.LoadBalancerConditionServing).LastTransitionTime = at(12)
	noFinding(t, check(first, later), "C7")

	earlier := next(first)
	getCond(t, earlier, v1.LoadBalancerConditionServing).LastTransitionTime = at(3)
	wantFinding(t, check(first, earlier), "C7", SeverityViolation, "status.conditions[1].lastTransitionTime")
}

func TestCheck_L1_FirstWrite(t *testing.T) {
	created := newLB("web")
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	noFinding(t, check(created, provisioning), "L1")

	both := next(created)
	setReady(both, 5)
	getCond(t, both, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionTrue
	getCond(t, both, v1.LoadBalancerConditionProvisioning).Reason = string(v1.LoadBalancerReasonProvisioning)
	wantFinding(t, check(created, both), "L1", SeverityViolation, "status.conditions")
	// Alone, the same snapshot is a reprovisioning: fine.
	noFinding(t, check(both), "L1")
}

func TestCheck_L4_IngressBeforeServing(t *testing.T) {
	created := newLB("web")
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	served := next(provisioning)
	setReady(served, 10)
	noViolations(t, check(created, provisioning, served))

	early := next(provisioning)
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	wantFinding(t, check(created, provisioning, early, served), "L4", SeverityViolation, "status.loadBalancer.ingress")

	// Reprovisioning after Serving was True may fill the ingress again
	// while Serving is False.
	reprovisioning := next(served)
	setProvisioning(reprovisioning, 20)
	reprovisioning.Status.LoadBalancer.Ingress = nil
	refilled := next(reprovisioning)
	refilled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.9"}}
	noFinding(t, check(created, provisioning, served, reprovisioning, refilled), "L4")
}

// TestCheck_Gap_FirstWriteNotJudged: across a gap (a watch that listed
// again, spec section 8) the provider's writes in between were not seen,
// so the next observation cannot show a first write or a first
// provisioning: L1's and L4's trace halves do not judge it. The rules
// that compare the two states (C6, C7, L6) still do, and the first write
// is judged again once nothing is between the observations.
func TestCheck_Gap_FirstWriteNotJudged(t *testing.T) {
	created := newLB("web")
	// Provisioned, served, then reprovisioned while serving: all unseen.
	reprovisioning := next(created)
	setReady(reprovisioning, 10)
	getCond(t, reprovisioning, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionTrue
	getCond(t, reprovisioning, v1.LoadBalancerConditionProvisioning).Reason = string(v1.LoadBalancerReasonProvisioning)
	// Served, then failed, the ingress left in place: unseen too.
	failed := next(created)
	setRefused(failed, 10)
	getCond(t, failed, v1.LoadBalancerConditionServing).Reason = string(v1.LoadBalancerReasonInfrastructure)
	failed.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	for name, tc := range map[string]struct {
		after *v1.Service
		rule  RuleID
	}{"L1": {reprovisioning, "L1"}, "L4": {failed, "L4"}} {
		c := NewChecker()
		c.Observe(created)
		c.Gap("test", "web")
		if found := c.Observe(tc.after); len(withRule(found, tc.rule)) > 0 {
			t.Errorf("%s: judged across a gap:\n%s", name, dump(found))
		}
		// Without the gap, the same step is judged.
		wantFinding(t, check(created, tc.after), tc.rule, SeverityViolation, "")
	}

	// C7 still compares the two sides of a gap.
	c := NewChecker()
	c.Observe(ready("web", 20))
	c.Gap("test", "web")
	c.Gap("test", "unknown") // ignored
	if found := c.Observe(next(ready("web", 10))); len(withRule(found, "C7")) != 2 {
		t.Errorf("want C7 for both conditions across a gap:\n%s", dump(found))
	}

	// The gap covers one step: the next is judged again.
	c = NewChecker()
	c.Observe(created)
	c.Gap("test", "web")
	c.Observe(next(created))
	wantFinding(t, c.Observe(next(next(reprovisioning))), "L1", SeverityViolation, "")
}

// TestCheck_Gap_AddedListsAgain: an ADDED watch event of a Service whose
// trace goes on (the same uid) is a watch that listed again, so the
// writes since its last observation were not seen: as after Gap, L1's
// trace half leaves that step alone. Without a uid to show it is the same
// Service, an ADDED object is judged as any other step.
func TestCheck_Gap_AddedListsAgain(t *testing.T) {
	created := newLB("web")
	reprovisioning := next(created) // served, then reprovisioning: unseen
	setReady(reprovisioning, 10)
	getCond(t, reprovisioning, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionTrue
	getCond(t, reprovisioning, v1.LoadBalancerConditionProvisioning).Reason = string(v1.LoadBalancerReasonProvisioning)
	steps := func(first, then *v1.Service, added bool) []Finding {
		c := NewChecker()
		c.ObserveObject(Object{Kind: "Service", Service: first})
		return c.ObserveObject(Object{Kind: "Service", Service: then, Added: added})
	}
	noFinding(t, steps(created, reprovisioning, true), "L1")
	wantFinding(t, steps(created, reprovisioning, false), "L1", SeverityViolation, conditionsField)

	anonymous, later := created.DeepCopy(), reprovisioning.DeepCopy()
	anonymous.UID, later.UID = "", ""
	wantFinding(t, steps(anonymous, later, true), "L1", SeverityViolation, conditionsField)

	// Listed again with nothing changed: the last observation again, no
	// gap, and the next step is judged.
	c := NewChecker()
	c.ObserveObject(Object{Kind: "Service", Service: created})
	c.ObserveObject(Object{Kind: "Service", Service: created.DeepCopy(), Added: true})
	wantFinding(t, c.ObserveObject(Object{Kind: "Service", Service: reprovisioning}), "L1", SeverityViolation, conditionsField)
}

// TestCheck_Gap_L4_RefillAfterTheGap: a Service last seen provisioning
// may have served inside a gap, then been reprovisioned with its ingress
// cleared: the ingress it fills again after the gap, Serving still False,
// is no first provisioning, and L4 does not judge it. A Service the gap
// shows without conditions or ingress is still to be provisioned for the
// first time: that provisioning, seen from its start, is judged.
func TestCheck_Gap_L4_RefillAfterTheGap(t *testing.T) {
	created := newLB("web")
	provisioning := next(created)
	setProvisioning(provisioning, 10)
	reprovisioning := next(provisioning) // after serving, unseen
	setProvisioning(reprovisioning, 30)
	refilled := next(reprovisioning)
	refilled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.9"}}
	c := NewChecker()
	c.Observe(created)
	c.Observe(provisioning)
	c.Gap("test", "web")
	c.Observe(reprovisioning)
	if found := c.Observe(refilled); len(withRule(found, "L4")) > 0 {
		t.Errorf("a refill after the gap judged as a first provisioning:\n%s", dump(found))
	}

	relabeled := next(created)
	relabeled.Labels = map[string]string{"app": "web"}
	early := next(next(relabeled))
	setProvisioning(early, 10)
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	c = NewChecker()
	c.Observe(created)
	c.Gap("test", "web")
	c.Observe(relabeled)
	wantFinding(t, c.Observe(early), "L4", SeverityViolation, "status.loadBalancer.ingress")
}

// TestCheck_L4_FirstSeenAtWork: a trace that starts with the provider's
// conditions already there (a watch started, or a kubectl get -w
// restarted, while the Service was being reprovisioned, its ingress
// cleared) does not show whether the Service served before: the ingress
// filled again while Serving is False is no first provisioning. A trace
// that starts before the provider's first write still judges it.
func TestCheck_L4_FirstSeenAtWork(t *testing.T) {
	reprovisioning := newLB("web")
	setProvisioning(reprovisioning, 30)
	refilled := next(reprovisioning)
	refilled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.9"}}
	noFinding(t, check(reprovisioning, refilled), "L4")

	early := next(newLB("web"))
	setProvisioning(early, 10)
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	wantFinding(t, check(newLB("web"), early), "L4", SeverityViolation, "status.loadBalancer.ingress")

	// An ingress at the start, without conditions (a provider that
	// predates them, since upgraded), shows a load balancer provisioned
	// before: a refill after its reprovisioning is no first provisioning.
	served := newLB("web")
	served.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	cleared := next(served)
	setProvisioning(cleared, 30)
	cleared.Status.LoadBalancer.Ingress = nil
	refilled = next(cleared)
	refilled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.9"}}
	noFinding(t, check(served, cleared, refilled), "L4")
}

// TestCheck_L4_AfterConversionBack: a Service converted to ClusterIP, its
// conditions removed (L9), and converted back is provisioned for the first
// time again (L1: created or converted), so filling the ingress before
// Serving turns True breaks L4, as on a new Service.
func TestCheck_L4_AfterConversionBack(t *testing.T) {
	served := ready("web", 0)
	clusterIP := next(served)
	clusterIP.Spec.Type = corev1.ServiceTypeClusterIP
	clusterIP.Status.LoadBalancer.Ingress = nil
	removed := next(clusterIP)
	removed.Status.Conditions = nil
	back := next(removed)
	back.Spec.Type = corev1.ServiceTypeLoadBalancer
	provisioning := next(back)
	setProvisioning(provisioning, 10)
	early := next(provisioning)
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.9"}}
	wantFinding(t, check(served, clusterIP, removed, back, provisioning, early), "L4", SeverityViolation, "status.loadBalancer.ingress")
}

// TestCheck_L4_ConvertedBackBeforeTheCleanup: the apiserver clears the
// ingress in the spec write that makes a Service a ClusterIP, and a user
// who converts it back before the provider's cleanup (L9) leaves Serving
// True with no ingress, which no provider could avoid: L4 waits for the
// provider's next write, and judges that one.
func TestCheck_L4_ConvertedBackBeforeTheCleanup(t *testing.T) {
	served := ready("web", 0)
	clusterIP := next(served)
	clusterIP.Spec.Type = corev1.ServiceTypeClusterIP
	clusterIP.Status.LoadBalancer.Ingress = nil
	back := next(clusterIP)
	back.Spec.Type = corev1.ServiceTypeLoadBalancer
	noFinding(t, check(served, clusterIP, back), "L4")

	provisioning := next(back)
	setProvisioning(provisioning, 10)
	noFinding(t, check(served, clusterIP, back, provisioning), "L4")
	// The provider's write, Serving still True without an address.
	bumped := next(back)
	setReady(bumped, 10)
	bumped.Status.LoadBalancer.Ingress = nil
	wantFinding(t, check(served, clusterIP, back, bumped), "L4", SeverityViolation, "status.loadBalancer.ingress")
}

// specChange returns the next observation of svc with a port added: a
// load-balancer-relevant change (G3).
func specChange(svc *v1.Service) *v1.Service {
	n := next(svc)
	n.Spec.Ports = append(n.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	return n
}

func TestCheck_L6_StatusWrittenWithoutBump(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	written := next(changed)
	written.Status.LoadBalancer.Ingress = append(written.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: "192.0.2.2"})
	f := wantFinding(t, check(served, changed, written), "L6", SeverityViolation, "status.conditions[0].lastTransitionTime")
	if f.Object.ResourceVersion != written.ResourceVersion {
		t.Errorf("L6 on resourceVersion %q, want the status write's %q", f.Object.ResourceVersion, written.ResourceVersion)
	}

	bumped := next(changed)
	setProvisioning(bumped, 11) // reprovisioning: Provisioning moves
	bumped.Status.LoadBalancer.Ingress = served.Status.LoadBalancer.Ingress
	done := next(bumped)
	setReady(done, 12)
	noFinding(t, check(served, changed, bumped, done), "L6")
}

// TestCheck_RepeatedObservationCheckedOnce: the same observation (uid,
// resourceVersion and content) written again in the input, as a restarted
// kubectl get -w writes the current state again, is checked once (spec
// section 8): its findings are not reported twice, and the trace goes on
// from it as before (here L6, owed since the spec change, is met by the
// next write). The same resourceVersion with another content, as
// hand-written examples reuse them, is another observation.
func TestCheck_RepeatedObservationCheckedOnce(t *testing.T) {
	served := ready("web", 10)
	getCond(t, served, v1.LoadBalancerConditionServing).Reason = "Fine" // C3 warning
	changed := specChange(served)
	acked := next(changed)
	getCond(t, acked, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(11)
	found := check(served, served.DeepCopy(), changed, changed.DeepCopy(), acked, acked.DeepCopy())
	if got := withRule(found, "C3"); len(got) != 3 {
		t.Errorf("want C3 once per observation, 3 in all, got:\n%s", dump(found))
	}
	noFinding(t, found, "L6")
	c := NewChecker()
	c.Observe(served)
	first := c.Repeated()
	again := c.Observe(served.DeepCopy()) == nil && c.Repeated()
	c.Observe(changed)
	if first || !again || c.Repeated() {
		t.Errorf("Repeated: %v, %v, %v; want false, true, false", first, again, c.Repeated())
	}

	other := served.DeepCopy()
	getCond(t, other, v1.LoadBalancerConditionServing).Message = "edited by hand"
	if got := withRule(check(served, other), "C3"); len(got) != 2 {
		t.Errorf("another content under the same resourceVersion was not checked:\n%s", dump(got))
	}
	noUID := served.DeepCopy()
	noUID.UID = ""
	if got := withRule(check(noUID, noUID.DeepCopy()), "C3"); len(got) != 2 {
		t.Errorf("an observation without a uid was taken for a repeat:\n%s", dump(got))
	}
}

// TestCheck_RepeatedOnlyWithTheSameContent: an observation is a repeat,
// checked once, only when everything the rules read is the last one's
// again (spec section 8, "Live watches"); the same uid and
// resourceVersion with another ingress, another condition or another spec,
// as hand-written examples give, is checked. Without a resourceVersion
// there is nothing to tell a repeat by.
func TestCheck_RepeatedOnlyWithTheSameContent(t *testing.T) {
	served := ready("web", 10)

	noIngress := served.DeepCopy()
	noIngress.Status.LoadBalancer.Ingress = nil
	wantFinding(t, check(served, noIngress), "L4", SeverityViolation, ingressField)

	otherCondition := served.DeepCopy()
	otherCondition.Status.Conditions = append(otherCondition.Status.Conditions,
		metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "bad reason", LastTransitionTime: at(10)})
	wantFinding(t, check(served, otherCondition), "C5", SeverityViolation, "status.conditions[2].reason")

	otherSpec := served.DeepCopy()
	otherSpec.Spec.LoadBalancerIP = "192.0.2.7"
	wantFinding(t, check(served, otherSpec), "L6", SeverityWarning, conditionsField)

	noRV := served.DeepCopy()
	getCond(t, noRV, v1.LoadBalancerConditionServing).Reason = "Fine" // C3 warning
	noRV.ResourceVersion = ""
	if got := withRule(check(noRV, noRV.DeepCopy()), "C3"); len(got) != 2 {
		t.Errorf("an observation without a resourceVersion was taken for a repeat:\n%s", dump(got))
	}
}

// TestCheck_L6_ChangedBack: a change undone before the provider wrote is
// none to a provider that saw only the latest spec, as an informer that
// coalesced the two updates does; a change to a third spec is owed.
func TestCheck_L6_ChangedBack(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	back := next(changed)
	back.Spec.Ports = served.Spec.Ports
	written := next(back)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	noFinding(t, check(served, changed, back, written), "L6")

	other := next(changed)
	other.Spec.Ports = append(slices.Clone(served.Spec.Ports), corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, NodePort: 30053})
	written = next(other)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	wantFinding(t, check(served, changed, other, written), "L6", SeverityViolation, "status.conditions[0].lastTransitionTime")
}

// TestCheck_L6_ChangedBackToAnEqualSpec: a change undone to a spec that
// equals the first one as a provider compares them (its ports in another
// order, a field given its default) is none either: Reconcile and
// conditions.ChangedFields see no change and owe no bump.
func TestCheck_L6_ChangedBackToAnEqualSpec(t *testing.T) {
	served := ready("web", 10)
	served.Spec.Ports = append(served.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, NodePort: 30053})
	changed := next(served)
	changed.Spec.Ports = changed.Spec.Ports[:1]
	back := next(changed)
	back.Spec.Ports = []corev1.ServicePort{served.Spec.Ports[1], served.Spec.Ports[0]}
	written := next(back)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	noFinding(t, check(served, changed, back, written), "L6")

	served = ready("web", 10)
	changed = next(served)
	changed.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	back = next(changed)
	back.Spec.SessionAffinity = corev1.ServiceAffinityNone
	if served.Spec.SessionAffinity != "" {
		t.Fatalf("the fixture sets sessionAffinity %q", served.Spec.SessionAffinity)
	}
	written = next(back)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	noFinding(t, check(served, changed, back, written), "L6")
}

func TestCheck_L6_BumpWithoutStatusChange(t *testing.T) {
	// The helpers' way (L6): Provisioning stays False, only its
	// lastTransitionTime moves.
	served := ready("web", 10)
	changed := specChange(served)
	acked := next(changed)
	getCond(t, acked, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(11)
	found := check(served, changed, acked)
	noFinding(t, found, "L6")
	noViolations(t, found)
}

func TestCheck_L6_SameSecondBumpIsNoBump(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	acked := next(changed)
	getCond(t, acked, v1.LoadBalancerConditionProvisioning).LastTransitionTime = metav1.NewTime(at(10).Add(700 * time.Millisecond))
	getCond(t, acked, v1.LoadBalancerConditionProvisioning).Message = "seen"
	wantFinding(t, check(served, changed, acked), "L6", SeverityViolation, "status.conditions[0].lastTransitionTime")
}

func TestCheck_L6_AcknowledgedInTheSameObservation(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	getCond(t, changed, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(11)
	written := next(changed)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving 2 ports"
	noFinding(t, check(served, changed, written), "L6")
}

func TestCheck_L6_OwedAtTheEnd(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	relabeled := next(changed)
	relabeled.Labels = map[string]string{"tier": "web"} // no status write: nothing broken yet
	f := wantFinding(t, check(served, changed, relabeled), "L6", SeverityWarning, "status.conditions")
	if !strings.Contains(f.Message, "spec.ports") || !strings.HasPrefix(f.Message, "the input ended before") {
		t.Errorf("message %q does not say the input ended and name the changed field", f.Message)
	}
	onlyLabels := next(served)
	onlyLabels.Labels = map[string]string{"tier": "web"}
	noFinding(t, check(served, onlyLabels), "L6")

	// From a live watch, what is owed is owed when the watch stopped; a
	// Service without conditions is still there, and R3 says so as at the
	// end of an input.
	live := observeAll([]Option{Live(true)}, served, changed, relabeled)
	if f := wantFinding(t, live, "L6", SeverityWarning, "status.conditions"); !strings.HasPrefix(f.Message, "the watch stopped before the provider acknowledged the change of spec.ports") {
		t.Errorf("Live: L6 message %q", f.Message)
	}
	if f := wantFinding(t, observeAll([]Option{Live(true)}, newLB("legacy")), "R3", SeverityNotice, "status.conditions"); f.Message != wantFinding(t, check(newLB("legacy")), "R3", SeverityNotice, "status.conditions").Message {
		t.Errorf("Live: R3 message %q, want the end-of-input one", f.Message)
	}
}

func TestCheck_L6_IrrelevantChange(t *testing.T) {
	served := ready("web", 10)
	relabeled := next(served)
	relabeled.Labels = map[string]string{"tier": "web"}
	relabeled.Spec.Selector = map[string]string{"app": "web-v2"}
	written := next(relabeled)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	noFinding(t, check(served, relabeled, written), "L6")

	// Defaulting is no change either: ChangedFields compares with the
	// apiserver's defaults.
	defaulted := next(served)
	defaulted.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	defaulted.Spec.SessionAffinity = corev1.ServiceAffinityNone
	noFinding(t, check(served, defaulted, written), "L6")
}

func TestCheck_L6_RelevantAnnotation(t *testing.T) {
	const key = "lb.example.com/size"
	served := ready("web", 10)
	resized := next(served)
	resized.Annotations = map[string]string{key: "large"}
	written := next(resized)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "resized"
	wantFinding(t, observeAll([]Option{RelevantAnnotations{key}}, served, resized, written), "L6", SeverityViolation, "")
	noFinding(t, check(served, resized, written), "L6")
}

func TestCheck_L6_ConditionsRemoved(t *testing.T) {
	served := ready("web", 10)
	converted := next(served)
	toClusterIP(converted)
	cleaned := next(converted)
	cleaned.Status = v1.ServiceStatus{}
	found := check(served, converted, cleaned)
	noFinding(t, found, "L6")
	noViolations(t, found)
}

// An observation that shows the conversion and the conditions already
// removed (a watch that coalesced the user's write and the provider's
// cleanup) owes nothing: the removal L9 asks for is done, and there is no
// Provisioning left to bump (L6).
func TestCheck_L9_RemovedWithTheChange(t *testing.T) {
	served := ready("web", 10)
	cleaned := next(served)
	toClusterIP(cleaned)
	cleaned.Status = v1.ServiceStatus{}
	found := check(served, cleaned)
	noFinding(t, found, "L9")
	noFinding(t, found, "L6")

	gone := specChange(served)
	gone.Status = v1.ServiceStatus{}
	noFinding(t, check(served, gone), "L6")
}

// After a spec change, until the provider writes status, the status still
// answers the old spec: the rules that hold status against spec (L9, P5,
// P6) wait for the provider's next write, and judge that.
func TestCheck_L9_WaitsForTheProvider(t *testing.T) {
	served := ready("web", 10)
	converted := next(served) // the user's write: conditions still there
	toClusterIP(converted)
	noFinding(t, observed(served, converted), "L9")

	kept := next(converted) // the provider writes, and leaves them
	getCond(t, kept, v1.LoadBalancerConditionServing).Message = "still here"
	found := check(served, converted, kept)
	wantFinding(t, found, "L9", SeverityWarning, "status.conditions")
	// What the Service owes after leaving LoadBalancer is L9's removal,
	// not L6's bump: the write is not also a violation.
	noFinding(t, found, "L6")
	// A provider that never answers still owes the removal at the end.
	found = check(served, converted)
	wantFinding(t, found, "L9", SeverityWarning, "status.conditions")
	noFinding(t, found, "L6")
}

// TestCheck_L9_ApiserverClearsIngressInTheUserWrite: a real apiserver
// clears the ingress in the very write that changes type away from
// LoadBalancer. That status change is not the provider's, so L9 waits.
func TestCheck_L9_ApiserverClearsIngressInTheUserWrite(t *testing.T) {
	served := ready("web", 10)
	converted := next(served)
	toClusterIP(converted)
	converted.Status.LoadBalancer.Ingress = nil
	noFinding(t, observed(served, converted), "L9")

	kept := next(converted) // the provider writes, and leaves them
	getCond(t, kept, v1.LoadBalancerConditionServing).Message = "still here"
	wantFinding(t, check(served, converted, kept), "L9", SeverityWarning, "status.conditions")
}

func TestCheck_P5_WaitsForTheProvider(t *testing.T) {
	degraded := ready("web", 10)
	degraded.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	degraded.Status.Conditions = append(degraded.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
		v1.LoadBalancerReasonSessionAffinityNotSupported, at(10)))
	dropped := next(degraded) // the user no longer asks for affinity
	dropped.Spec.SessionAffinity = corev1.ServiceAffinityNone
	relabeled := next(dropped) // still no answer
	relabeled.Labels = map[string]string{"a": "b"}
	noFinding(t, check(degraded, dropped, relabeled), "P5")

	stale := next(relabeled) // the provider answers, but keeps the old degradation
	getCond(t, stale, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(11)
	wantFinding(t, check(degraded, dropped, relabeled, stale), "P5", SeverityViolation, "status.conditions[2].reason")
}

func TestCheck_P6_WaitsForTheProvider(t *testing.T) {
	degraded := ready("web", 10)
	degraded.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	degraded.Status.Conditions = append(degraded.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
		v1.LoadBalancerReasonSessionAffinityNotSupported, at(10)))
	required := next(degraded)
	required.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	noFinding(t, check(degraded, required), "P6")

	refused := next(required)
	setRefused(refused, 11)
	noViolations(t, check(degraded, required, refused))

	ignored := next(required) // bumps Provisioning, keeps serving degraded
	getCond(t, ignored, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(11)
	wantFinding(t, check(degraded, required, ignored), "P6", SeverityViolation, "status.conditions[2].reason")
}

// Input and trace bookkeeping.

func TestCheck_Input_OtherKinds(t *testing.T) {
	c := NewChecker()
	found := c.ObserveObject(Object{Kind: "ConfigMap", APIVersion: "v1", Position: Position{Source: "x.yaml", Line: 3},
		Ref: ObjectRef{Namespace: "ns", Name: "settings"}})
	f := wantFinding(t, found, RuleInput, SeverityNotice, "")
	if f.Position == nil || f.Position.Line != 3 || !strings.Contains(f.Message, "ConfigMap") {
		t.Errorf("skip notice %+v does not say what and where", f)
	}
	if c.Services() != 0 {
		t.Error("a skipped object left state behind")
	}
	f = wantFinding(t, c.ObserveObject(Object{Ref: ObjectRef{Name: "x"}}), RuleInput, SeverityNotice, "")
	if f.Message != "skipped: the object has no kind" {
		t.Errorf("skip notice of an object without a kind: %q", f.Message)
	}
}

// A nil option is ignored, as NewChecker and NewCollector say.
func TestCheck_NilOptionsAreIgnored(t *testing.T) {
	c := NewChecker(nil, Classes{"example.com/lb"}, nil)
	col := NewCollector(nil, KeepFindings(1), nil)
	obj := Object{Kind: "Service", Service: ready("web", 10)}
	col.Observe(obj, c.ObserveObject(obj))
	if r := col.Report(); r.Summary.Observations != 1 {
		t.Errorf("report %+v", r.Summary)
	}
}

func TestCheck_DeletedEndsTheTrace(t *testing.T) {
	c := NewChecker()
	served := ready("web", 10)
	c.Observe(served)
	c.Observe(specChange(served))
	found := c.ObserveObject(Object{Kind: "Service", Service: served, Deleted: true})
	// The input goes on: the message says how the trace ended.
	if f := wantFinding(t, found, "L6", SeverityWarning, ""); !strings.HasPrefix(f.Message, "the Service was deleted before") {
		t.Errorf("L6 at a deletion: message %q", f.Message)
	}
	if c.Services() != 0 {
		t.Fatal("a deleted Service's state is kept")
	}

	// Deleted and created again under the same name (a new UID): a new
	// trace, so an earlier lastTransitionTime is no C7.
	c.Observe(ready("web", 50))
	again := ready("web", 10)
	again.UID = "uid-web-2"
	noFinding(t, c.Observe(again), "C7")

	// A change still owed when the Service is created again.
	c.Observe(specChange(again))
	again3 := ready("web", 10)
	again3.UID = "uid-web-3"
	if f := wantFinding(t, c.Observe(again3), "L6", SeverityWarning, ""); !strings.HasPrefix(f.Message, "the Service was deleted and created again") {
		t.Errorf("L6 at a new uid: message %q", f.Message)
	}
}

func TestCheck_FinishForgets(t *testing.T) {
	c := NewChecker()
	c.Observe(newLB("a"))
	c.Observe(newLB("b"))
	if c.Services() != 2 {
		t.Fatalf("Services() = %d, want 2", c.Services())
	}
	end := c.Finish()
	if len(withRule(end, "R3")) != 2 || end[0].Object.Name != "a" {
		t.Errorf("Finish: want R3 for a then b, got:\n%s", dump(end))
	}
	if c.Services() != 0 || len(c.Finish()) != 0 {
		t.Error("Finish did not forget")
	}
}

// A forgotten Service's state is dropped, and its slot serves the next
// Service afresh: nothing of the old trace leaks into the new one, and
// observing Services again after Finish takes no more state.
func TestCheck_ForgottenStateIsReusedClean(t *testing.T) {
	c := NewChecker()
	served := ready("web", 10)
	c.Observe(served)
	c.Observe(specChange(served)) // web now owes an acknowledgement (L6)
	if f := wantFinding(t, c.Forget(served.Namespace, served.Name), "L6", SeverityWarning, "status.conditions"); !strings.HasPrefix(f.Message, "the Service was deleted before") {
		t.Errorf("L6 at Forget: message %q", f.Message)
	}

	other := ready("api", 10)
	c.Observe(other)
	noFinding(t, c.Finish(), "L6")

	for round := range 3 {
		for _, name := range []string{"a", "b", "c"} {
			c.Observe(ready(name, 10+round))
		}
		c.Finish()
	}
	if c.states.used != 3 {
		t.Errorf("3 Services observed in 3 rounds took %d slots, want 3", c.states.used)
	}
}

func TestCheck_NilService(t *testing.T) {
	if found := NewChecker().Observe(nil); found != nil {
		t.Errorf("Observe(nil) = %v", found)
	}
	// Nor is nil a repeat of the observation before it.
	c := NewChecker()
	c.Observe(ready("web", 10))
	c.Observe(ready("web", 10))
	c.Observe(nil)
	if c.Repeated() {
		t.Error("Repeated() after Observe(nil)")
	}
}

// L8: a client waits a while for the conditions; the checker has no clock,
// so "no conditions" is only a notice at the end of a trace (R3), never on
// an observation a provider could still follow with its first write.
func TestCheck_L8_NoConditionsOnlyAtTheEnd(t *testing.T) {
	created := newLB("web")
	still := next(created)
	still.Labels = map[string]string{"a": "b"}
	c := NewChecker()
	if found := append(c.Observe(created), c.Observe(still)...); len(withRule(found, "R3")) != 0 {
		t.Fatalf("R3 before the end of the trace:\n%s", dump(found))
	}
	wantFinding(t, c.Finish(), "R3", SeverityNotice, "status.conditions")

	provisioned := next(still)
	setReady(provisioned, 10)
	noFinding(t, check(created, still, provisioned), "R3")
}

// L4 counts only ingress entries with an address: an entry with neither ip
// nor hostname is none.
func TestCheck_L4_EntryWithoutAddressIsNoIngress(t *testing.T) {
	hostname := ready("hostname", 10)
	hostname.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
	noFinding(t, check(hostname), "L4")

	empty := ready("empty-entry", 10)
	empty.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
	wantFinding(t, check(empty), "L4", SeverityViolation, "status.loadBalancer.ingress")

	// On first provisioning, an entry without an address fills nothing.
	created := newLB("web")
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	placeholder := next(provisioning)
	placeholder.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{}}
	served := next(placeholder)
	setReady(served, 10)
	noFinding(t, check(created, provisioning, placeholder, served), "L4")
}

// R2 as far as a checker sees it: Serving=True while a required feature is
// unknown to the checker is a warning, from the spec field or the
// annotation; a refusal is what R2 asks for.
func TestCheck_R2_ServingWithUnknownRequiredFeature(t *testing.T) {
	field := ready("field", 10)
	field.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts, "Teleportation"}
	wantFinding(t, check(field), "R2", SeverityWarning, "spec.requiredLoadBalancerFeatures[1]")

	annotation := ready("annotation", 10)
	annotation.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports, Teleportation"}
	wantFinding(t, check(annotation), "R2", SeverityWarning, "metadata.annotations["+v1.RequiredFeaturesAnnotation+"]")

	known := ready("known", 10)
	known.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	noFinding(t, check(known), "R2")

	refused := newLB("refused")
	refused.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleportation"}
	setRefused(refused, 5)
	noFinding(t, check(refused), "R2")

	// A feature required after the provider's last write is not yet
	// answered: R2 waits for the provider's next write, and judges it.
	served := ready("later", 10)
	asked := next(served)
	asked.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleportation"}
	noFinding(t, check(served, asked), "R2")
	answered := next(asked)
	setRefused(answered, 20)
	noViolations(t, check(served, asked, answered))
	noFinding(t, check(served, asked, answered), "R2")
	ignored := next(asked)
	getCond(t, ignored, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(20)
	wantFinding(t, check(served, asked, ignored), "R2", SeverityWarning, "metadata.annotations["+v1.RequiredFeaturesAnnotation+"]")
}

// L1: a first write of Provisioning=False/Complete and Serving=True with an
// ingress ("already available") is one of L1's combinations.
func TestCheck_L1_FirstWriteAlreadyAvailable(t *testing.T) {
	created := newLB("web")
	available := next(created)
	setReady(available, 5)
	noFinding(t, check(created, available), "L1")
}

// L4 is about the write that fills the ingress: one an older provider
// filled before the first KEP-4631 write is not filled by it.
func TestCheck_L4_IngressAlreadyThere(t *testing.T) {
	legacy := newLB("web")
	legacy.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	provisioning := next(legacy)
	setProvisioning(provisioning, 5)
	noFinding(t, check(legacy, provisioning), "L4")
}

// L6: a Service that never had Provisioning owes no bump for a spec change.
func TestCheck_L6_NoConditionsNoObligation(t *testing.T) {
	created := newLB("web")
	changed := next(created)
	changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	noFinding(t, check(created, changed), "L6")
}

// C7 is per uid: an observation without one (a manifest given with a live
// trace) says nothing of which Service it is, so a later uid is compared
// with the one before it, and the checker and the report agree on how
// many Services there were.
func TestCheck_C7_ObservationWithoutUIDKeepsTheTrace(t *testing.T) {
	first := ready("web", 10)
	first.UID = "uid-A"
	manifest := next(first)
	manifest.UID = ""
	again := ready("web", 5) // written earlier: a C7 violation were it the same Service
	again.UID = "uid-B"
	c, col := NewChecker(), NewCollector()
	var last []Finding
	for _, s := range []*v1.Service{first, manifest, again} {
		obj := Object{Kind: "Service", Service: s}
		last = c.ObserveObject(obj)
		col.Observe(obj, last)
	}
	noFinding(t, last, "C7")
	r := col.Report()
	if len(r.Services) != 2 || r.Services[0].UID == r.Services[1].UID {
		t.Errorf("report rows:\n%s\nwant two, uid-A's and uid-B's", rows(r))
	}
}

// TestStateSlab_SlotsAreDistinctAndStay: the chunks grow from slabFirst
// states to slabChunk; every slot handed out, across the growing chunks and
// the fixed ones after them (here past where a chunk's size once overflowed,
// at 55,000), is a state of its own that never moves, and a Checker of one
// Service holds room for slabFirst, not slabChunk.
func TestStateSlab_SlotsAreDistinctAndStay(t *testing.T) {
	var s stateSlab
	const n = 100_000
	ptrs := make([]*serviceState, n)
	for k := range ptrs {
		i, st := s.alloc()
		if int(i) != k || st != s.at(i) {
			t.Fatalf("alloc %d: slot %d, at(%d) differs: %v", k, i, i, st != s.at(i))
		}
		st.rv = strconv.Itoa(k)
		ptrs[k] = st
		if k == 0 && cap(s.chunks[0]) != slabFirst {
			t.Errorf("one Service holds room for %d states; want %d", cap(s.chunks[0]), slabFirst)
		}
	}
	for k, st := range ptrs {
		if st != s.at(int32(k)) || st.rv != strconv.Itoa(k) {
			t.Fatalf("slot %d moved or was shared: holds %q", k, st.rv)
		}
	}
	growing := []int{16, 32, 64, 128, 256, 512}
	for c, chunk := range s.chunks {
		want := slabChunk
		if c < len(growing) {
			want = growing[c]
		}
		if len(chunk) != want {
			t.Errorf("chunk %d holds %d states; want %d", c, len(chunk), want)
		}
	}
	s.release(7)
	if i, st := s.alloc(); i != 7 || st.rv != "" {
		t.Errorf("after release(7), alloc gave slot %d holding %q; want slot 7, zeroed", i, st.rv)
	}
}

// TestStateSlab_SlotsFillEachChunkInTurn: up to the largest slot, each slot
// is the next place in its chunk, or the first of the next chunk once its
// chunk is full.
func TestStateSlab_SlotsFillEachChunkInTurn(t *testing.T) {
	for _, r := range [][2]int32{{0, 3 * slabChunk}, {math.MaxInt32 - 3*slabChunk, math.MaxInt32}} {
		c, j := slot(r[0])
		if j < 0 || int(j) >= chunkLen(c) {
			t.Fatalf("slot(%d) = chunk %d, index %d, past its %d states", r[0], c, j, chunkLen(c))
		}
		for i := r[0] + 1; i > r[0] && i <= r[1]; i++ {
			nc, nj := slot(i)
			next := nc == c && nj == j+1 || nc == c+1 && nj == 0 && int(j) == chunkLen(c)-1
			if !next || nj < 0 || int(nj) >= chunkLen(nc) {
				t.Fatalf("slot(%d) = chunk %d, index %d, after chunk %d, index %d (chunks of %d, %d states)", i, nc, nj, c, j, chunkLen(c), chunkLen(nc))
			}
			c, j = nc, nj
		}
	}
}

// The findings owed at the end of a trace that a DELETED event ends are
// where the event is; those Finish returns are where they became owed.
func TestCheck_EndOfTracePositions(t *testing.T) {
	pos := func(line int) Position { return Position{Source: "watch.json", Line: line} }
	c := NewChecker()
	served := ready("web", 10)
	legacy := newLB("legacy")
	for i, obj := range []Object{
		{Kind: "Service", Service: served, Position: pos(1)},
		{Kind: "Service", Service: specChange(served), Position: pos(2)},
		{Kind: "Service", Service: legacy, Position: pos(3)},
	} {
		if found := c.ObserveObject(obj); len(withRule(found, "L6"))+len(withRule(found, "R3")) > 0 {
			t.Fatalf("observation %d owes at once:\n%s", i, dump(found))
		}
	}
	sev := map[RuleID]Severity{"L6": SeverityWarning, "R3": SeverityNotice}
	for _, tc := range []struct {
		rule RuleID
		svc  *v1.Service
	}{{"L6", served}, {"R3", legacy}} {
		f := wantFinding(t, c.ObserveObject(Object{Kind: "Service", Service: tc.svc, Deleted: true, Position: pos(9)}), tc.rule, sev[tc.rule], "")
		if f.Position == nil || *f.Position != pos(9) {
			t.Errorf("%s at a deletion: position %v, want the DELETED event's", tc.rule, f.Position)
		}
	}

	c.ObserveObject(Object{Kind: "Service", Service: served, Position: pos(11)})
	c.ObserveObject(Object{Kind: "Service", Service: specChange(served), Position: pos(12)})
	c.ObserveObject(Object{Kind: "Service", Service: legacy, Position: pos(13)})
	end := c.Finish()
	for rule, line := range map[RuleID]int{"L6": 12, "R3": 13} {
		f := wantFinding(t, end, rule, sev[rule], "")
		if f.Position == nil || *f.Position != pos(line) {
			t.Errorf("%s at Finish: position %v, want line %d", rule, f.Position, line)
		}
	}
}

// A trace that a new uid ends says so in R3's message, as a deletion does.
func TestCheck_R3_RecreatedSaysSo(t *testing.T) {
	c := NewChecker()
	c.Observe(newLB("web"))
	again := newLB("web")
	again.UID = "uid-web-2"
	f := wantFinding(t, c.Observe(again), "R3", SeverityNotice, conditionsField)
	if want := endRecreated + "; it had neither"; !strings.HasPrefix(f.Message, want) {
		t.Errorf("R3 at a new uid: message %q, want it to start %q", f.Message, want)
	}
}

// Finish sorts what it returns by namespace, then name.
func TestCheck_FinishSortsByNamespaceThenName(t *testing.T) {
	c := NewChecker()
	for _, nn := range [][2]string{{"b", "a"}, {"a", "b"}, {"a", "a"}} {
		svc := newLB(nn[1])
		svc.Namespace = nn[0]
		c.Observe(svc)
	}
	var got []string
	for _, f := range c.Finish() {
		got = append(got, f.Object.Namespace+"/"+f.Object.Name)
	}
	if want := "a/a a/b b/a"; strings.Join(got, " ") != want {
		t.Errorf("Finish: order %v, want %s", got, want)
	}
}

// P1 is about a non-empty class: a Service whose loadBalancerClass is set
// but empty is the default provider's, checked as any other.
func TestCheck_P1_EmptyClassIsNotForeign(t *testing.T) {
	classes := Classes{"example.com/lb"}
	empty := ready("empty-class", 10)
	empty.Spec.LoadBalancerClass = ptr.To("")
	empty.Status.LoadBalancer.Ingress = nil
	if classes.Foreign(empty) {
		t.Error("Classes.Foreign: a Service with an empty class is foreign")
	}
	found := observeAll([]Option{classes}, empty)
	noFinding(t, found, "P1")
	wantFinding(t, found, "L4", SeverityViolation, ingressField)
}

// P1 after a move, read from a manifest: an observation without a uid
// says nothing of which Service it is (as for C7), so the conditions the
// provider left are leftovers, a warning, not a new Service's violation.
func TestCheck_P1_MoveReadWithoutUID(t *testing.T) {
	classes := []Option{Classes{"example.com/lb"}}
	mine := ready("moved", 10)
	mine.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	moved := next(mine)
	moved.UID = ""
	moved.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	wantFinding(t, observeAll(classes, mine, moved), "P1", SeverityWarning, conditionsField)
}

// A Service of the provider's created again (a new uid) under another
// class ends the old trace as a recreation does, and says so (P1, L6).
func TestCheck_P1_RecreatedUnderAnotherClassSaysSo(t *testing.T) {
	served := ready("web", 10)
	again := newLB("web")
	again.UID, again.ResourceVersion = "uid-web-2", "10"
	again.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	c := NewChecker(Classes{"example.com/lb"})
	c.Observe(served)
	c.Observe(specChange(served))
	f := wantFinding(t, c.Observe(again), "L6", SeverityWarning, conditionsField)
	if !strings.HasPrefix(f.Message, endRecreated+" before") {
		t.Errorf("L6 at a new uid of another class: message %q", f.Message)
	}
}

// Observe's findings come in a fixed order: API validation first, then
// the snapshot rules, then the trace rules, then the verdict.
func TestCheck_FindingsInAFixedOrder(t *testing.T) {
	created := newLB("web")
	created.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleportation"} // R4
	both := next(created)
	setReady(both, 5)
	getCond(t, both, v1.LoadBalancerConditionProvisioning).Status = metav1.ConditionTrue
	getCond(t, both, v1.LoadBalancerConditionProvisioning).Reason = string(v1.LoadBalancerReasonProvisioning)
	both.Status.LoadBalancer.Ingress = nil // L4, and R2 for the feature (snapshot)
	c := NewChecker()
	c.Observe(created)
	var rules []string
	for _, f := range c.Observe(both) {
		rules = append(rules, string(f.Rule))
	}
	if got, want := strings.Join(rules, " "), "R4 L4 R2 L1 T4"; got != want {
		t.Errorf("findings in the order %s, want %s", got, want)
	}
}

// A trace that ends because the Service stopped matching a watch's label
// selector says so, not that the Service was deleted: it is still there
// (L6, R3).
func TestCheck_L6R3_LeftTheSelector(t *testing.T) {
	c := NewChecker()
	served := ready("web", 10)
	c.Observe(served)
	c.Observe(specChange(served))
	c.Observe(newLB("new"))
	for _, tc := range []struct{ name, rule string }{{"web", "L6"}, {"new", "R3"}} {
		f := wantFinding(t, c.Leave("test", tc.name), RuleID(tc.rule), map[string]Severity{"L6": SeverityWarning, "R3": SeverityNotice}[tc.rule], "status.conditions")
		if !strings.HasPrefix(f.Message, "the Service stopped matching the selector") {
			t.Errorf("%s at Leave: message %q", tc.rule, f.Message)
		}
	}
	if c.Services() != 0 || c.Leave("test", "web") != nil {
		t.Error("Leave did not end the traces")
	}
}

// A reason API validation rejects (empty, or not a reason's format) is one
// fault: C5 reports it, and C3 does not warn again that it is not in the
// table. A well-formed reason outside the table is still C3's.
func TestCheck_C5_MalformedReasonNotAlsoC3(t *testing.T) {
	for _, reason := range []v1.LoadBalancerConditionReason{"", "not a reason!"} {
		for _, i := range []int{0, 1, 2} {
			svc := ready("web", 10)
			svc.Status.Conditions = append(svc.Status.Conditions,
				cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonPortsNotSupported, at(10)))
			svc.Status.Conditions[i].Reason = string(reason)
			found := check(svc)
			wantFinding(t, found, "C5", SeverityViolation, condPath(i, "reason"))
			noFinding(t, found, "C3")
		}
	}
	svc := ready("web", 10)
	svc.Status.Conditions[1].Reason = "OurOwnReason"
	wantFinding(t, check(svc), "C3", SeverityWarning, "status.conditions[1].reason")
}

// The input may hold any string as a resourceVersion: the Checker's state
// of a Service keeps it cut by input.Clip, with a hash of the whole one,
// so that a Service costs the same whatever the length of its
// resourceVersion. The hash still tells a repeated observation from
// another whose resourceVersion differs past the cut only.
func TestCheck_LongResourceVersionStateIsBounded(t *testing.T) {
	long := func(i int, last string) string { return strings.Repeat(strconv.Itoa(i%10), 64<<10) + last }
	c := NewChecker()
	svc := ready("web", 10)
	svc.ResourceVersion = long(0, "1")
	c.Observe(svc)
	if c.Observe(svc.DeepCopy()); !c.Repeated() {
		t.Errorf("the same observation again was checked again")
	}
	other := svc.DeepCopy()
	other.ResourceVersion = long(0, "2")
	if c.Observe(other); c.Repeated() {
		t.Errorf("an observation whose resourceVersion differs past the first KiB was taken for the previous one")
	}

	if testing.Short() {
		t.Skip("measures the heap")
	}
	const services = 200
	heap := conformancetest.HeapAfterGC
	c = NewChecker()
	base := heap()
	for i := range services {
		svc := ready("web-"+strconv.Itoa(i), 10)
		svc.ResourceVersion = long(i, "")
		c.Observe(svc)
	}
	perService := (float64(heap()) - float64(base)) / services
	if c.Services() != services {
		t.Fatalf("Services() = %d, want %d", c.Services(), services)
	}
	if perService > 8<<10 {
		t.Errorf("state is %.0f bytes per Service with a resourceVersion of 64 KiB, want at most 8 KiB", perService)
	}
	t.Logf("state: %.0f bytes per Service", perService)
}

// A class or annotation key no Service can have made a checker that
// judged no Service by it; ValidateOptions names the first, as the CLI's
// flags and suite.Options report it. P1's empty class names the Services
// without one.
func TestValidateOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []Option
		option string // "" for no error
		value  string
		detail string
	}{
		{name: "no options"},
		{name: "a nil option", opts: []Option{nil}},
		{name: "other options", opts: []Option{Live(true), RequireConditions(true)}},
		{name: "classes", opts: []Option{Classes{"", "example.com/lb", "lb"}}},
		{name: "keys lower-cased", opts: []Option{RelevantAnnotations{"Example.com/Key", "key"}}},
		{name: "a class with a space", opts: []Option{Classes{"example.com/lb", "example.com/my lb"}},
			option: "Classes", value: "example.com/my lb", detail: "not a loadBalancerClass the apiserver accepts: "},
		{name: "a class ending in a slash", opts: []Option{Classes{"b/"}},
			option: "Classes", value: "b/", detail: "not a loadBalancerClass the apiserver accepts: "},
		{name: "a key with a space", opts: []Option{Classes{"example.com/lb"}, RelevantAnnotations{"example.com/a b"}},
			option: "RelevantAnnotations", value: "example.com/a b", detail: "not an annotation key: "},
		{name: "the first", opts: []Option{RelevantAnnotations{"a b"}, Classes{"c d"}},
			option: "RelevantAnnotations", value: "a b", detail: "not an annotation key: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateOptions(tc.opts...)
			var oe *OptionError
			switch {
			case tc.option == "" && err != nil:
				t.Errorf("ValidateOptions: %v, want nil", err)
			case tc.option == "":
			case !errors.As(err, &oe):
				t.Errorf("ValidateOptions: %v, want an *OptionError", err)
			case oe.Option != tc.option || oe.Value != tc.value || !strings.HasPrefix(oe.Detail, tc.detail) || len(oe.Detail) == len(tc.detail):
				t.Errorf("ValidateOptions: %+v, want %s %q: %s...", *oe, tc.option, tc.value, tc.detail)
			}
		})
	}
}
