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

package validation_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/validation"
)

// crossReasons are the reasons the cross-rule generator writes per type:
// the table's and a provider's own.
var crossReasons = map[v1.LoadBalancerConditionType][]string{
	v1.LoadBalancerConditionServing:      {"Serving", "Provisioning", "Unsupported", "Infrastructure", "QuotaExceeded"},
	v1.LoadBalancerConditionProvisioning: {"Provisioning", "Complete", "Waiting"},
	v1.LoadBalancerConditionDegraded: {"IPFamiliesNotSupported", "PortsNotSupported", "LoadBalancerIPNotSupported",
		"SessionAffinityNotSupported", "ExternalTrafficPolicyNotSupported", "LoadBalancerSourceRangesNotSupported", "Multiple", "Partial"},
}

// genKEPCondition draws a well-formed condition of type typ: a status its
// type allows (C1, C2), a reason of the list above.
func genKEPCondition(t *rapid.T, typ v1.LoadBalancerConditionType, label string) metav1.Condition {
	statuses := []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}
	if typ == v1.LoadBalancerConditionDegraded {
		statuses = append(statuses, metav1.ConditionUnknown)
	}
	c := metav1.Condition{
		Type:               string(typ),
		Status:             rapid.SampledFrom(statuses).Draw(t, label+"Status"),
		Reason:             rapid.SampledFrom(crossReasons[typ]).Draw(t, label+"Reason"),
		Message:            "m",
		LastTransitionTime: rapid.SampledFrom(times[1:]).Draw(t, label+"Time"),
	}
	if c.Reason == string(v1.LoadBalancerReasonMultiple) {
		var list []string
		for _, r := range crossReasons[v1.LoadBalancerConditionDegraded][:6] {
			if rapid.Bool().Draw(t, label+r) {
				list = append(list, r)
			}
		}
		c.Message = strings.Join(list, ", ") + ": details"
	}
	return c
}

// ingresses are status.loadBalancer.ingress values: none, an address of
// each kind, and an entry without one.
var ingresses = [][]corev1.LoadBalancerIngress{
	nil,
	{{IP: "192.0.2.1"}},
	{{Hostname: "lb.example.com"}},
	{{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}},
}

// TestProperties_CrossRulesAgreeWithTheChecker: on a LoadBalancer Service
// with well-formed KEP-4631 conditions (no LoadBalancerPortsError, which
// only P6 reads here), validation with CrossConditionRules reports L4, L5,
// P5 or P6 exactly when the conformance checker finds that violation in
// the written object and the write changed what the rule reads: Serving's
// status or reason, or the ingress (L4), Serving's or Provisioning's status
// or reason (L5), Degraded (P5), Serving's status or reason, or Degraded
// (P6).
func TestProperties_CrossRulesAgreeWithTheChecker(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		// Several writes a case: one write in a few dozen breaks P6, and
		// the rules must all be reached at rapid's default 100 cases.
		for range 8 {
			checkCrossWrite(t, seen)
		}
	})
	// Each rule must be reached, or the agreement proves less than it says.
	for _, r := range []string{"L4", "L5", "P5", "P6"} {
		if seen[r] == 0 {
			t.Errorf("no generated write breaks %s", r)
		}
	}
}

// checkCrossWrite draws one write and checks validation against the
// checker for it (TestProperties_CrossRulesAgreeWithTheChecker), counting
// the rules broken in seen.
func checkCrossWrite(t *rapid.T, seen map[string]int) {
	types := []v1.LoadBalancerConditionType{v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning, v1.LoadBalancerConditionDegraded}
	old := &v1.Service{}
	old.Name, old.Namespace, old.Generation = "svc", "default", 1
	old.Spec.Type = corev1.ServiceTypeLoadBalancer
	old.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	if rapid.Bool().Draw(t, "twoPorts") {
		old.Spec.Ports = append(old.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP})
	}
	if rapid.Bool().Draw(t, "affinity") {
		old.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	}
	var required []v1.LoadBalancerFeature
	for _, f := range v1.LoadBalancerFeatures() {
		if rapid.IntRange(0, 2).Draw(t, "require"+string(f)) == 0 {
			required = append(required, f)
		}
	}
	if rapid.Bool().Draw(t, "inTheField") {
		old.Spec.RequiredLoadBalancerFeatures = required
	} else if len(required) > 0 {
		old.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: strings.Join(stringsOf(required), ", ")}
	}
	for _, typ := range types {
		if rapid.IntRange(0, 4).Draw(t, "has"+string(typ)) > 0 {
			old.Status.Conditions = append(old.Status.Conditions, genKEPCondition(t, typ, "old"+string(typ)))
		}
	}
	old.Status.LoadBalancer.Ingress = rapid.SampledFrom(ingresses).Draw(t, "oldIngress")

	svc := old.DeepCopy()
	svc.Status.Conditions = nil
	for _, typ := range types {
		i := slices.IndexFunc(old.Status.Conditions, func(c metav1.Condition) bool { return c.Type == string(typ) })
		switch rapid.IntRange(0, 3).Draw(t, "write"+string(typ)) {
		case 0, 1:
			if i >= 0 {
				svc.Status.Conditions = append(svc.Status.Conditions, old.Status.Conditions[i])
			}
		case 2:
			svc.Status.Conditions = append(svc.Status.Conditions, genKEPCondition(t, typ, "new"+string(typ)))
		}
	}
	if rapid.Bool().Draw(t, "writeIngress") {
		svc.Status.LoadBalancer.Ingress = rapid.SampledFrom(ingresses).Draw(t, "newIngress")
	}

	changed := func(typ v1.LoadBalancerConditionType) bool {
		a := slices.IndexFunc(svc.Status.Conditions, func(c metav1.Condition) bool { return c.Type == string(typ) })
		b := slices.IndexFunc(old.Status.Conditions, func(c metav1.Condition) bool { return c.Type == string(typ) })
		return (a < 0) != (b < 0) || a >= 0 && !apiequality.Semantic.DeepEqual(svc.Status.Conditions[a], old.Status.Conditions[b])
	}
	// stateChanged is changed for what the rules between conditions read
	// of Serving and Provisioning: the status and reason.
	stateChanged := func(typ v1.LoadBalancerConditionType) bool {
		a := slices.IndexFunc(svc.Status.Conditions, func(c metav1.Condition) bool { return c.Type == string(typ) })
		b := slices.IndexFunc(old.Status.Conditions, func(c metav1.Condition) bool { return c.Type == string(typ) })
		return (a < 0) != (b < 0) || a >= 0 && (svc.Status.Conditions[a].Status != old.Status.Conditions[b].Status ||
			svc.Status.Conditions[a].Reason != old.Status.Conditions[b].Reason)
	}
	ingressChanged := !apiequality.Semantic.DeepEqual(svc.Status.LoadBalancer.Ingress, old.Status.LoadBalancer.Ingress)
	reads := map[string]bool{
		"L4": stateChanged(v1.LoadBalancerConditionServing) || ingressChanged,
		"L5": stateChanged(v1.LoadBalancerConditionServing) || stateChanged(v1.LoadBalancerConditionProvisioning),
		"P5": changed(v1.LoadBalancerConditionDegraded),
		"P6": stateChanged(v1.LoadBalancerConditionServing) || changed(v1.LoadBalancerConditionDegraded),
	}
	var want []string
	for _, f := range conformance.NewChecker().Observe(svc) {
		if f.Severity == conformance.SeverityViolation && reads[string(f.Rule)] && !slices.Contains(want, string(f.Rule)) {
			want = append(want, string(f.Rule))
		}
	}
	var got []string
	for _, e := range validation.ValidateServiceStatusUpdate(svc, old, cross) {
		if _, cross := reads[e.Origin]; cross && !slices.Contains(got, e.Origin) {
			got = append(got, e.Origin)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("validation reports %v, the checker %v (with the write's changes)\nold: %+v %v\nnew: %+v %v",
			got, want, old.Status.Conditions, old.Status.LoadBalancer.Ingress, svc.Status.Conditions, svc.Status.LoadBalancer.Ingress)
	}
	for _, r := range want {
		seen[r]++
	}
}

func stringsOf[S ~string](items []S) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = string(s)
	}
	return out
}
