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

package health

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/validation"
)

// boundPolicy is a policy of deploy/admission that matches an update of
// a Service's status, and whether a binding of it denies: a policy bound
// only with Warn never refuses a write.
type boundPolicy struct {
	policy
	name string
	deny bool
}

// statusPolicies loads every policy of deploy/admission/policies.yaml
// that matches an UPDATE of services/status, with its bindings' actions.
func statusPolicies(t *testing.T) []boundPolicy {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "deploy", "admission", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	deny := map[string]bool{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		switch {
		case strings.Contains(doc, "kind: ValidatingAdmissionPolicy\n"):
			var p admissionregistrationv1.ValidatingAdmissionPolicy
			if err := yaml.Unmarshal([]byte(doc), &p); err != nil {
				t.Fatal(err)
			}
			if matchesStatusUpdate(p.Spec.MatchConstraints) {
				names = append(names, p.Name)
			}
		case strings.Contains(doc, "kind: ValidatingAdmissionPolicyBinding\n"):
			var b admissionregistrationv1.ValidatingAdmissionPolicyBinding
			if err := yaml.Unmarshal([]byte(doc), &b); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(b.Spec.ValidationActions, admissionregistrationv1.Deny) {
				deny[b.Spec.PolicyName] = true
			}
		}
	}
	var out []boundPolicy
	for _, n := range names {
		out = append(out, boundPolicy{policy: loadPolicy(t, n), name: n, deny: deny[n]})
	}
	if len(out) == 0 {
		t.Fatal("no policy of deploy/admission matches a status write")
	}
	return out
}

// matchesStatusUpdate reports whether m selects an UPDATE of the
// services/status subresource of core/v1.
func matchesStatusUpdate(m *admissionregistrationv1.MatchResources) bool {
	if m == nil {
		return false
	}
	for _, r := range m.ResourceRules {
		ops, rule := r.Operations, r.Rule
		if (slices.Contains(ops, admissionregistrationv1.Update) || slices.Contains(ops, admissionregistrationv1.OperationAll)) &&
			slices.Contains(rule.APIGroups, "") && slices.Contains(rule.APIVersions, "v1") &&
			(slices.Contains(rule.Resources, "services/status") || slices.Contains(rule.Resources, "services/*") || slices.Contains(rule.Resources, "*/*")) {
			return true
		}
	}
	return false
}

// asPolicyObject is svc as a stock apiserver hands it to a policy: the
// core/v1 Service (no spec.requiredLoadBalancerFeatures, which such a
// server prunes) in its unstructured form.
func asPolicyObject(t *rapid.T, svc *v1.Service) map[string]any {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v1.ToCore(svc))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// The alphabet of the generated writes: a few of each value that some
// rule reads, and one that none does.
var (
	propertyTimes = []metav1.Time{
		metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)),
	}
	propertyTypes = []string{
		string(v1.LoadBalancerConditionServing), string(v1.LoadBalancerConditionProvisioning),
		string(v1.LoadBalancerConditionDegraded), string(v1.LoadBalancerConditionPortsError),
		"example.com/Ready",
	}
	propertyStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
	// The table's reasons, Multiple among them, a reason of KEP-1435 and
	// a provider's own.
	propertyReasons = append([]string{"Serving", "Provisioning", "Unsupported", "Infrastructure", "Complete", "Multiple", "PortsError"}, propertyListed...)
	// What a Multiple lists: the Degraded reasons and a provider's own.
	propertyListed = func() []string {
		out := []string{"QuotaExceeded"}
		for _, f := range v1.LoadBalancerFeatures() {
			r, _ := v1.DegradedReason(f)
			out = append(out, string(r))
		}
		return out
	}()
	// Items of the required-features annotation: the features, one no
	// lbstatus knows, an empty item and one with spaces around it.
	propertyFeatureItems = append(stringsOfFeatures(v1.LoadBalancerFeatures()), "Teleport", "", " Ports ")
	propertyIngresses    = [][]corev1.LoadBalancerIngress{
		nil,
		{{IP: "192.0.2.1"}},
		{{Hostname: "lb.example.com"}},
		{{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}},
	}
)

func stringsOfFeatures(fs []v1.LoadBalancerFeature) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// conditionGen draws a condition of one of the alphabet's types
// (conditionOf).
var conditionGen = rapid.Custom(func(t *rapid.T) metav1.Condition {
	return conditionOf(rapid.SampledFrom(propertyTypes).Draw(t, "type")).Draw(t, "condition")
})

// conditionOf returns a generator of well-formed conditions (C5's format
// rules, which the policies leave to lbstatus check, hold) of type typ,
// with the alphabet's statuses and reasons; a Multiple lists some Degraded
// reasons, a repeat or a provider's own among them.
func conditionOf(typ string) *rapid.Generator[metav1.Condition] {
	return rapid.Custom(func(t *rapid.T) metav1.Condition { return drawCondition(t, typ) })
}

func drawCondition(t *rapid.T, typ string) metav1.Condition {
	c := metav1.Condition{
		Type:               typ,
		Status:             rapid.SampledFrom(propertyStatuses).Draw(t, "status"),
		Reason:             rapid.SampledFrom(propertyReasons).Draw(t, "reason"),
		Message:            "m",
		LastTransitionTime: rapid.SampledFrom(propertyTimes).Draw(t, "time"),
	}
	// Mostly a reason of the table for the type, with the status the
	// table gives it, so that writes get past C1 and C3 to the rules
	// between conditions.
	var coherent []string
	for _, r := range propertyReasons {
		if _, ok := v1.ReasonStatus(v1.LoadBalancerConditionType(c.Type), v1.LoadBalancerConditionReason(r)); ok {
			coherent = append(coherent, r)
		}
	}
	if len(coherent) > 0 && rapid.IntRange(0, 2).Draw(t, "coherent") > 0 {
		c.Reason = rapid.SampledFrom(coherent).Draw(t, "tableReason")
		c.Status, _ = v1.ReasonStatus(v1.LoadBalancerConditionType(c.Type), v1.LoadBalancerConditionReason(c.Reason))
	}
	if c.Reason == string(v1.LoadBalancerReasonMultiple) {
		items := rapid.SliceOfN(rapid.SampledFrom(propertyListed), 0, 3).Draw(t, "listed")
		c.Message = strings.Join(items, ", ") + ": details"
	}
	return c
}

// drawConditions draws a condition list: each type of the alphabet at
// most once, mostly, and sometimes a second condition of a type.
func drawConditions(t *rapid.T, label string) []metav1.Condition {
	var out []metav1.Condition
	for _, typ := range propertyTypes {
		if rapid.IntRange(0, 2).Draw(t, label+"Has"+typ) > 0 {
			out = append(out, conditionOf(typ).Draw(t, label+typ))
		}
	}
	if rapid.IntRange(0, 3).Draw(t, label+"Second") == 0 {
		out = append(out, conditionGen.Draw(t, label+"SecondCondition"))
	}
	return out
}

// annotationGen draws a value of the required-features annotation: items
// joined by commas, none, unknown, empty or repeated among them.
var annotationGen = rapid.Custom(func(t *rapid.T) string {
	return strings.Join(rapid.SliceOfN(rapid.SampledFrom(propertyFeatureItems), 0, 3).Draw(t, "items"), ",")
})

// drawStatusWrite draws a write of a Service's status: the stored object
// old and the object the write leaves, svc. Both have the same spec,
// because the apiserver resets the spec of a status write to the stored
// one before admission and validation see it; metadata, annotations
// included, may change. old may already break rules (it was written
// before the policies or the gate), and svc keeps, edits or drops each of
// its conditions and adds new ones, so ratcheting is exercised.
func drawStatusWrite(t *rapid.T) (svc, old *v1.Service) {
	old = &v1.Service{}
	old.Name, old.Namespace, old.Generation = "svc", "default", 1
	old.Spec.Type = rapid.SampledFrom([]corev1.ServiceType{corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP}).Draw(t, "type")
	old.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	if rapid.Bool().Draw(t, "twoPorts") {
		proto := rapid.SampledFrom([]corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP}).Draw(t, "secondProtocol")
		old.Spec.Ports = append(old.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: proto})
	}
	if rapid.Bool().Draw(t, "affinity") {
		old.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	}
	if rapid.Bool().Draw(t, "dualStack") {
		policy := corev1.IPFamilyPolicyRequireDualStack
		old.Spec.IPFamilyPolicy = &policy
		old.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	}
	if rapid.Bool().Draw(t, "loadBalancerIP") {
		old.Spec.LoadBalancerIP = "192.0.2.10"
	}
	switch rapid.IntRange(0, 2).Draw(t, "sourceRanges") {
	case 1:
		old.Spec.LoadBalancerSourceRanges = []string{"198.51.100.0/24"}
	case 2:
		old.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "198.51.100.0/24"}
	}
	if rapid.Bool().Draw(t, "local") {
		old.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	}
	// The spec field, which only a fork's apiserver keeps.
	if rapid.IntRange(0, 3).Draw(t, "inTheField") == 0 {
		old.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{rapid.SampledFrom(v1.LoadBalancerFeatures()).Draw(t, "fieldFeature")}
	}
	if rapid.IntRange(0, 2).Draw(t, "oldAnnotated") > 0 {
		if old.Annotations == nil {
			old.Annotations = map[string]string{}
		}
		old.Annotations[v1.RequiredFeaturesAnnotation] = annotationGen.Draw(t, "oldAnnotation")
	}
	old.Status.Conditions = drawConditions(t, "old")
	old.Status.LoadBalancer.Ingress = rapid.SampledFrom(propertyIngresses).Draw(t, "oldIngress")

	svc = old.DeepCopy()
	// A status write may change the annotations; the source-ranges one is
	// kept, as a provider's write would.
	if rapid.IntRange(0, 3).Draw(t, "reannotate") == 0 {
		delete(svc.Annotations, v1.RequiredFeaturesAnnotation)
		if rapid.Bool().Draw(t, "newAnnotated") {
			if svc.Annotations == nil {
				svc.Annotations = map[string]string{}
			}
			svc.Annotations[v1.RequiredFeaturesAnnotation] = annotationGen.Draw(t, "newAnnotation")
		}
	}
	svc.Status.Conditions = nil
	for i, c := range old.Status.Conditions {
		switch rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("write%d", i)) {
		case 0, 1: // kept
			svc.Status.Conditions = append(svc.Status.Conditions, c)
		case 2: // a new status
			c.Status = rapid.SampledFrom(propertyStatuses).Draw(t, fmt.Sprintf("status%d", i))
			c.LastTransitionTime = propertyTimes[1]
			svc.Status.Conditions = append(svc.Status.Conditions, c)
		case 3: // replaced by a condition of the same type
			svc.Status.Conditions = append(svc.Status.Conditions, conditionOf(c.Type).Draw(t, fmt.Sprintf("replacement%d", i)))
		case 4: // dropped
		}
	}
	for _, typ := range propertyTypes {
		if !slices.ContainsFunc(svc.Status.Conditions, func(c metav1.Condition) bool { return c.Type == typ }) &&
			rapid.IntRange(0, 2).Draw(t, "add"+typ) == 0 {
			svc.Status.Conditions = append(svc.Status.Conditions, conditionOf(typ).Draw(t, "added"+typ))
		}
	}
	if rapid.IntRange(0, 5).Draw(t, "addSecond") == 0 {
		svc.Status.Conditions = append(svc.Status.Conditions, conditionGen.Draw(t, "addedSecond"))
	}
	if rapid.Bool().Draw(t, "shuffle") {
		slices.Reverse(svc.Status.Conditions)
	}
	if rapid.Bool().Draw(t, "writeIngress") {
		svc.Status.LoadBalancer.Ingress = rapid.SampledFrom(propertyIngresses).Draw(t, "newIngress")
	}
	return svc, old
}

// policyRefusals returns the rule IDs for which the denying policies that
// match a status write refuse the write of old to svc, sorted, each once.
func policyRefusals(t *rapid.T, policies []boundPolicy, svc, old *v1.Service) []string {
	obj, oldObj := asPolicyObject(t, svc), asPolicyObject(t, old)
	var out []string
	for _, p := range policies {
		rules := p.refuses(t, obj, oldObj)
		if p.deny {
			out = append(out, rules...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// validationRefusals returns the origins (rule IDs) of the errors
// validation.ValidateServiceStatusUpdate finds in the write of old to
// svc with opts, sorted, each once, and the errors.
func validationRefusals(svc, old *v1.Service, opts validation.Options) ([]string, field.ErrorList) {
	errs := validation.ValidateServiceStatusUpdate(svc, old, opts)
	var out []string
	for _, e := range errs {
		out = append(out, e.Origin)
	}
	slices.Sort(out)
	return slices.Compact(out), errs
}

// isKEPType reports whether t is a condition type the policies judge.
func isKEPType(t string) bool {
	return t != "example.com/Ready"
}

// TestProperties_PoliciesAgreeWithValidation: for a random status write,
// the policies of deploy/admission that match it, evaluated as the
// apiserver would (a Warn binding never refuses), refuse it for exactly
// the rules validation.ValidateServiceStatusUpdate, with the gate on and
// the cross-condition rules as a fork's apiserver runs it, reports; the
// exclusions below are the differences the documentation states.
func TestProperties_PoliciesAgreeWithValidation(t *testing.T) {
	policies := statusPolicies(t)
	gate := features.NewFeatureGate()
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		t.Fatal(err)
	}
	opts := validation.Options{FeatureGate: gate, CrossConditionRules: true}
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		// Several writes a case: P6 needs Serving=True, a degradation
		// and an annotation that requires it, and every rule must be
		// reached at rapid's default 100 cases.
		for range 16 {
			checkStatusWrite(t, policies, opts, seen)
		}
	})
	// Each rule must be reached, or the agreement proves less than it says.
	for _, r := range []string{"C1", "C3", "C5", "L4", "L5", "P5", "P6"} {
		if seen[r] == 0 {
			t.Errorf("no generated write is refused for %s", r)
		}
	}
	t.Logf("writes refused, by rule: %v", seen)
}

// checkStatusWrite draws one status write and requires the policies and
// validation to refuse it for the same rules, the documented differences
// aside (TestProperties_PoliciesAgreeWithValidation), counting the rules
// in seen.
func checkStatusWrite(t *rapid.T, policies []boundPolicy, opts validation.Options, seen map[string]int) {
	svc, old := drawStatusWrite(t)
	byPolicy := policyRefusals(t, policies, svc, old)
	byValidation, errs := validationRefusals(svc, old, opts)
	byPolicy, byValidation = excludeDocumented(svc, old, byPolicy, byValidation, errs)
	if !slices.Equal(byPolicy, byValidation) {
		t.Fatalf("the policies refuse for %v, validation for %v (%v)\nold: %s\nnew: %s", byPolicy, byValidation, errs, describe(old), describe(svc))
	}
	for _, r := range byPolicy {
		seen[r]++
	}
}

// describe is what a failure shows of a generated Service.
func describe(svc *v1.Service) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type=%s ports=%d affinity=%s families=%v lbIP=%q ranges=%v etp=%s field=%v annotations=%v ingress=%v",
		svc.Spec.Type, len(svc.Spec.Ports), svc.Spec.SessionAffinity, svc.Spec.IPFamilies, svc.Spec.LoadBalancerIP,
		svc.Spec.LoadBalancerSourceRanges, svc.Spec.ExternalTrafficPolicy, svc.Spec.RequiredLoadBalancerFeatures, svc.Annotations,
		svc.Status.LoadBalancer.Ingress)
	for _, c := range svc.Status.Conditions {
		fmt.Fprintf(&b, "\n  %s=%s %s %q %s", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// excludeDocumented removes from the rules the policies and validation
// refuse a write for those where the documentation says they differ.
func excludeDocumented(svc, old *v1.Service, byPolicy, byValidation []string, errs field.ErrorList) (policy, valid []string) {
	drop := func(rules []string, rule string) []string {
		return slices.DeleteFunc(slices.Clone(rules), func(r string) bool { return r == rule })
	}
	// L1 is the policies' alone: validation judges "L5 [...] only when
	// both are present (one without the other is L1, a provider's
	// lifecycle rule no single write can be held to)", and
	// Options.CrossConditionRules adds L4, L5, P5 and P6, not L1.
	byPolicy = drop(byPolicy, "L1")
	// R4 of a status write is the required-features policy's, on the
	// annotation: ValidateServiceStatusUpdate validates "status.conditions
	// only", and a fork's R4 is on spec.requiredLoadBalancerFeatures,
	// which a status write cannot change.
	byPolicy = drop(byPolicy, "R4")
	// C5: the policies refuse "a second condition of a KEP-4631 type";
	// "C5's other rules (the format of each condition, observedGeneration)
	// are left to lbstatus check" (README, Admission policies), and so is a
	// second condition of another type, which validation refuses.
	if !slices.ContainsFunc(errs, func(e *field.Error) bool {
		return e.Origin == validation.OriginC5 && e.Type == field.ErrorTypeDuplicate && isKEPType(fmt.Sprint(e.BadValue))
	}) {
		byValidation = drop(byValidation, "C5")
	}
	// P6 with spec.requiredLoadBalancerFeatures: "a stock server has no
	// spec.requiredLoadBalancerFeatures, so the annotation is where a
	// requirement can be" (README); validation reads the field first.
	if len(svc.Spec.RequiredLoadBalancerFeatures) > 0 {
		byPolicy, byValidation = drop(byPolicy, "P6"), drop(byValidation, "P6")
	}
	return byPolicy, byValidation
}
