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
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// The snapshot rules read the first condition of each type, as
// conditions.Get and the verdict do: a duplicate (C5) is not judged too.
func TestCheck_C5_DuplicateTypeJudgedByTheFirst(t *testing.T) {
	svc := newLB("duplicate-serving")
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, at(10)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure, at(10)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, at(10)),
	}
	found := check(svc)
	wantFinding(t, found, "C5", SeverityViolation, "status.conditions[2]")
	// The Service is not serving (the first Serving says False): it owes
	// no ingress.
	noFinding(t, found, "L4")
}

// L9 and P1 are about any of the three conditions, Degraded alone too, and
// name what they found.
func TestCheck_L9_DegradedAloneIsALeftover(t *testing.T) {
	left := newLB("converted-degraded")
	left.Spec.Type = "" // unset: a ClusterIP Service
	left.Spec.Ports[0].NodePort = 0
	left.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonSessionAffinityNotSupported, at(10)),
	}
	f := wantFinding(t, check(left), "L9", SeverityWarning, "status.conditions")
	for _, want := range []string{"of type ClusterIP,", "LoadBalancerDegraded"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("L9 message %q does not say %q", f.Message, want)
		}
	}

	foreign := newLB("foreign-degraded")
	foreign.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	foreign.Status.Conditions = left.Status.Conditions
	f = wantFinding(t, observeAll([]Option{Classes{"example.com/lb"}}, foreign), "P1", SeverityViolation, "status.conditions")
	if !strings.Contains(f.Message, "LoadBalancerDegraded") {
		t.Errorf("P1 message %q does not name LoadBalancerDegraded", f.Message)
	}
}

// A changed requiredLoadBalancerFeatures is validated again, even when the
// list keeps its length: the memo of a clean observation hashes its values.
func TestCheck_R4_MemoSeesEveryRequiredFeature(t *testing.T) {
	known := ready("web", 10)
	known.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	unknown := next(known)
	unknown.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleportation"}
	c := NewChecker()
	noFinding(t, c.Observe(known), "R4")
	wantFinding(t, c.Observe(unknown), "R4", SeverityViolation, "spec.requiredLoadBalancerFeatures[0]")
}

// A condition of another type that changes in any field is validated again
// (C5): the memo of a clean observation hashes every field of it.
func TestCheck_C5_MemoSeesEveryFieldOfOtherConditions(t *testing.T) {
	clean := ready("web", 10)
	clean.Generation = 1
	clean.Status.Conditions = append(clean.Status.Conditions, metav1.Condition{
		Type: "example.com/Healthy", Status: metav1.ConditionTrue, Reason: "Fine", Message: "all good",
		LastTransitionTime: at(10), ObservedGeneration: 1,
	})
	tests := []struct {
		field string
		edit  func(*metav1.Condition)
	}{
		{"type", func(c *metav1.Condition) { c.Type = "not a type!" }},
		{"status", func(c *metav1.Condition) { c.Status = "Maybe" }},
		{"reason", func(c *metav1.Condition) { c.Reason = "not a reason!" }},
		{"message", func(c *metav1.Condition) { c.Message = strings.Repeat("x", 32769) }},
		{"lastTransitionTime", func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} }},
		{"observedGeneration", func(c *metav1.Condition) { c.ObservedGeneration = 2 }},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			broken := next(clean)
			tc.edit(&broken.Status.Conditions[2])
			c := NewChecker()
			noFinding(t, c.Observe(clean), "C5")
			wantFinding(t, c.Observe(broken), "C5", SeverityViolation, "status.conditions[2]."+tc.field)
		})
	}
}

// C1's message names the condition that is Unknown, rather than quoting
// validation's error alone.
func TestCheck_C1_MessageNamesTheCondition(t *testing.T) {
	svc := ready("unknown", 10)
	getCond(t, svc, v1.LoadBalancerConditionServing).Status = metav1.ConditionUnknown
	f := wantFinding(t, check(svc), "C1", SeverityViolation, "status.conditions[1].status")
	if want := "LoadBalancerServing is Unknown"; !strings.HasPrefix(f.Message, want) {
		t.Errorf("message %q, want it to start %q", f.Message, want)
	}
}

// A reason outside the table is a warning with status False too (C3).
func TestCheck_C3_UnknownReasonOnFalse(t *testing.T) {
	serving := ready("own-serving-reason", 10)
	getCond(t, serving, v1.LoadBalancerConditionServing).Status = metav1.ConditionFalse
	getCond(t, serving, v1.LoadBalancerConditionServing).Reason = "MaintenanceWindow"
	wantFinding(t, check(serving), "C3", SeverityWarning, "status.conditions[1].reason")

	prov := ready("own-provisioning-reason", 10)
	getCond(t, prov, v1.LoadBalancerConditionProvisioning).Reason = "GaveUp"
	wantFinding(t, check(prov), "C3", SeverityWarning, "status.conditions[0].reason")
}

// LoadBalancerPortsError is warned about wherever it is, first too (C4).
func TestCheck_C4_PortsErrorFirst(t *testing.T) {
	svc := ready("ports-error-first", 10)
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, NodePort: 30053})
	svc.Status.Conditions = append([]metav1.Condition{cond(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "UDPNotSupported", at(10))},
		svc.Status.Conditions...)
	wantFinding(t, check(svc), "C4", SeverityWarning, "status.conditions[0]")
}

// Serving=False with reason Infrastructure goes with Provisioning=False
// (L5), as Unsupported does.
func TestCheck_L5_InfrastructureGoesWithProvisioningFalse(t *testing.T) {
	svc := newLB("infrastructure-busy")
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, at(10)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure, at(10)),
	}
	f := wantFinding(t, check(svc), "L5", SeverityViolation, "status.conditions[0].status")
	if !strings.Contains(f.Message, "Infrastructure") {
		t.Errorf("message %q does not name the reason", f.Message)
	}
}

// L5 is about Serving=False: an Unknown Serving (C1) is not also judged as
// if it were False.
func TestCheck_L5_NotJudgedOnServingUnknown(t *testing.T) {
	svc := newLB("serving-unknown")
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, at(10)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionUnknown, v1.LoadBalancerReasonProvisioning, at(10)),
	}
	found := check(svc)
	wantFinding(t, found, "C1", SeverityViolation, "status.conditions[1].status")
	noFinding(t, found, "L5")
}

// P6 is Degraded in a required feature while Serving=True: a refused
// Service that says what it lacks breaks nothing.
func TestCheck_P6_OnlyWhileServing(t *testing.T) {
	svc := newLB("refused-degraded")
	setRefused(svc, 10)
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	svc.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
		v1.LoadBalancerReasonSessionAffinityNotSupported, at(10)))
	found := check(svc)
	noFinding(t, found, "P6")
	noViolations(t, found)

	serving := svc.DeepCopy()
	serving.Name = "serving-degraded"
	setReady(serving, 10)
	serving.Status.Conditions = append(serving.Status.Conditions, svc.Status.Conditions[2])
	wantFinding(t, check(serving), "P6", SeverityViolation, "status.conditions[2].reason")
}

// P5 points at the field that names the reason: the Multiple message for
// any reason it lists, wherever in the list and however spaced, and the
// deprecated LoadBalancerPortsError for PortsNotSupported that only it
// says.
func TestCheck_P5_FieldOfEachReason(t *testing.T) {
	multiple := func(message string) metav1.Condition {
		return metav1.Condition{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue,
			Reason: string(v1.LoadBalancerReasonMultiple), Message: message, LastTransitionTime: at(10)}
	}
	tests := []struct {
		name  string
		conds []metav1.Condition
		field string
	}{
		{"last in the list", []metav1.Condition{multiple("SessionAffinityNotSupported,PortsNotSupported: UDP and affinity")}, "status.conditions[2].message"},
		{"after a space", []metav1.Condition{multiple("SessionAffinityNotSupported, PortsNotSupported")}, "status.conditions[2].message"},
		{"only in PortsError", []metav1.Condition{
			multiple("SessionAffinityNotSupported,ExternalTrafficPolicyNotSupported: no affinity, no client IP"),
			cond(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "UDPNotSupported", at(10)),
		}, "status.conditions[3]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := ready("degraded", 10) // one port: PortsNotSupported is not asked for
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			svc.Status.Conditions = append(svc.Status.Conditions, tc.conds...)
			f := wantFinding(t, check(svc), "P5", SeverityViolation, tc.field)
			if !strings.Contains(f.Message, "PortsNotSupported") {
				t.Errorf("message %q does not name PortsNotSupported", f.Message)
			}
		})
	}
}

// L9 is about each of the three conditions: Serving or Provisioning left
// alone on a Service of another type is a leftover too.
func TestCheck_L9_AnyConditionIsALeftover(t *testing.T) {
	for _, ct := range []v1.LoadBalancerConditionType{v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning} {
		left := ready("converted", 10)
		toClusterIP(left)
		left.Status.LoadBalancer.Ingress = nil
		left.Status.Conditions = []metav1.Condition{*getCond(t, left, ct)}
		f := wantFinding(t, check(left), "L9", SeverityWarning, "status.conditions")
		if !strings.Contains(f.Message, string(ct)) {
			t.Errorf("L9 message %q does not name %s", f.Message, ct)
		}
	}
}

// L5 pairs a False Serving with a True or False Provisioning. A
// Provisioning that is neither is one violation, on every observation
// that holds it: C1 for Unknown, which no Serving reason makes right, C5
// for any other status; not L5 as well, which would report the one
// status twice.
func TestCheck_L5_ProvisioningUnknownIsC1Alone(t *testing.T) {
	for _, reason := range []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonProvisioning, v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure} {
		for status, rule := range map[metav1.ConditionStatus]RuleID{metav1.ConditionUnknown: "C1", "Maybe": "C5", "": "C5"} {
			t.Run(string(reason)+"/"+string(status), func(t *testing.T) {
				svc := newLB("provisioning-unknown")
				svc.Status.Conditions = []metav1.Condition{
					cond(v1.LoadBalancerConditionProvisioning, status, "Checking", at(10)),
					cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, reason, at(10)),
				}
				found := check(svc, next(svc))
				noFinding(t, found, "L5")
				if got := withRule(found, rule); len(got) != 2 || got[0].Field != "status.conditions[0].status" || got[1].Field != got[0].Field {
					t.Errorf("want one %s on status.conditions[0].status per observation, got:\n%s", rule, dump(found))
				}
			})
		}
	}
}

// C2 allows an explicit Degraded=Unknown. The table has no reasons for
// it, so its reason is not one "outside the table" (C3) either: nothing
// to warn about.
func TestCheck_C2_DegradedUnknownIsAllowed(t *testing.T) {
	svc := ready("degraded-unknown", 10)
	svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionUnknown, "Checking", at(10)))
	noViolations(t, check(svc))
}

// P5 reads the source ranges from the field or its annotation, as
// kube-proxy and cloud providers do: a Service that sets only the
// annotation asks for them.
func TestCheck_P5_SourceRangesAnnotation(t *testing.T) {
	degraded := func(annotation string) *v1.Service {
		svc := ready("ranges-annotation", 10)
		svc.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: annotation}
		svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
			v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported, at(10)))
		return svc
	}
	found := check(degraded("198.51.100.0/24"))
	noFinding(t, found, "P5")
	noViolations(t, found)
	wantFinding(t, check(degraded(" ")), "P5", SeverityViolation, "status.conditions[2].reason")
}

// R2 is about a provider that serves a Service whose required feature it
// cannot know: before the provider answers (no conditions yet, then
// provisioning) there is nothing to warn about.
func TestCheck_R2_NotBeforeServing(t *testing.T) {
	created := newLB("web")
	created.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleportation"}
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	noFinding(t, check(created, provisioning), "R2")
}

// L4's message says which of its two cases it is: no ingress at all, or
// entries without an address.
func TestCheck_L4_MessageSaysWhatIsMissing(t *testing.T) {
	empty := ready("empty", 10)
	empty.Status.LoadBalancer.Ingress = nil
	if f := wantFinding(t, check(empty), "L4", SeverityViolation, ingressField); !strings.HasSuffix(f.Message, "status.loadBalancer.ingress is empty") {
		t.Errorf("L4 without ingress: message %q", f.Message)
	}
	noAddress := ready("no-address", 10)
	noAddress.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{}}
	if f := wantFinding(t, check(noAddress), "L4", SeverityViolation, ingressField); !strings.Contains(f.Message, "has an ip or a hostname") {
		t.Errorf("L4 with an entry without address: message %q", f.Message)
	}
}

// The memo of a clean observation hashes metadata.generation: a Service
// first read from a manifest (no generation: observedGeneration is not
// bounded) and then live is validated again (C5).
func TestCheck_C5_MemoSeesTheGeneration(t *testing.T) {
	manifest := ready("web", 10)
	getCond(t, manifest, v1.LoadBalancerConditionServing).ObservedGeneration = 3
	live := next(manifest)
	live.Generation = 1
	c := NewChecker()
	noFinding(t, c.Observe(manifest), "C5")
	wantFinding(t, c.Observe(live), "C5", SeverityViolation, "status.conditions[1].observedGeneration")
}

// The memo of clean conditions hashes observedGeneration: a condition that
// differs from a clean one only there is validated again (C5: not
// negative).
func TestCheck_C5_MemoSeesObservedGeneration(t *testing.T) {
	clean := ready("web", 10)
	negative := next(clean)
	getCond(t, negative, v1.LoadBalancerConditionServing).ObservedGeneration = -1
	c := NewChecker()
	noFinding(t, c.Observe(clean), "C5")
	wantFinding(t, c.Observe(negative), "C5", SeverityViolation, "status.conditions[1].observedGeneration")
}

// R2 names the entry of spec.requiredLoadBalancerFeatures that holds the
// unknown value, as R4's NotSupported error does, so that two unknown
// values are two fields, not one.
func TestCheck_R2_NamesTheEntry(t *testing.T) {
	svc := ready("web", 10)
	svc.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleportation", v1.LoadBalancerFeaturePorts, "Warp"}
	found := check(svc)
	var r2, r4 []string
	for _, f := range found {
		switch f.Rule {
		case "R2":
			r2 = append(r2, f.Field)
		case "R4":
			r4 = append(r4, f.Field)
		}
	}
	want := []string{"spec.requiredLoadBalancerFeatures[0]", "spec.requiredLoadBalancerFeatures[2]"}
	if !slices.Equal(r2, want) || !slices.Equal(r4, want) {
		t.Errorf("R2 at %v, R4 at %v; want both at %v\n%s", r2, r4, want, dump(found))
	}
}
