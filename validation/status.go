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

package validation

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// conditionsPath is the JSON path of a Service's status conditions. Paths
// are immutable, so one value serves every call.
var conditionsPath = field.NewPath("status", "conditions")

// conditionPaths are conditionsPath.Index(i) for the first few i, made
// once: every condition validated needs its path, errors or not, and a
// Service has a few conditions.
var conditionPaths = func() (p [8]*field.Path) {
	for i := range p {
		p[i] = conditionsPath.Index(i)
	}
	return p
}()

// conditionPath returns fldPath.Index(i), made once for the Service's own
// conditions path.
func conditionPath(fldPath *field.Path, i int) *field.Path {
	if fldPath == conditionsPath && i < len(conditionPaths) {
		return conditionPaths[i]
	}
	return fldPath.Index(i)
}

// servingStatuses are the only statuses of LoadBalancerServing and
// LoadBalancerProvisioning (C1).
var servingStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}

// ConditionsSpec is what the status rules read of a Service besides its
// conditions. Its fields have the same Go types in the internal and the
// versioned API (a string type converts with a cast), so a registry
// strategy fills it from the object it holds.
type ConditionsSpec struct {
	// Generation is metadata.generation. 0, unset as in a manifest, skips
	// the check that observedGeneration is not above it (C5).
	Generation int64
	// Type is spec.type. L4, L5, P5 and P6 are judged only for a
	// LoadBalancer: a provider removes the conditions of any other type
	// (L9), and a write that removes some of them is not refused for those
	// it leaves.
	Type corev1.ServiceType
	// Asks holds the features the Service asks for, as P5 reads them
	// (AskedFeatures computes it from a versioned spec). nil means the
	// caller does not know, and P5 is not judged; an empty set means the
	// Service asks for none.
	Asks sets.Set[v1.LoadBalancerFeature]
	// Ingress and OldIngress are status.loadBalancer.ingress as the write
	// leaves it and as it was before (nil for a create), for L4.
	Ingress, OldIngress []corev1.LoadBalancerIngress
	// Required lists the features the Service requires, as P6 reads them:
	// spec.requiredLoadBalancerFeatures, or when it is empty the
	// v1.RequiredFeaturesAnnotation fallback (RequiredFeatures). Empty: P6
	// has nothing to judge.
	Required []v1.LoadBalancerFeature
}

// ConditionsSpecFor returns the ConditionsSpec of svc, P5, P6 and the
// ingress included (OldIngress is the caller's to set); the zero
// ConditionsSpec for nil.
func ConditionsSpecFor(svc *v1.Service) ConditionsSpec {
	if svc == nil {
		return ConditionsSpec{}
	}
	return ConditionsSpec{
		Generation: svc.Generation,
		Type:       svc.Spec.Type,
		Asks:       AskedFeatures(&svc.Spec.ServiceSpec, svc.Annotations),
		Ingress:    svc.Status.LoadBalancer.Ingress,
		Required:   RequiredFeatures(svc.Spec.RequiredLoadBalancerFeatures, svc.Annotations),
	}
}

// RequiredFeatures returns the features a Service with this spec field and
// these annotations requires, as P6 reads them: the field when it is not
// empty, else the v1.RequiredFeaturesAnnotation fallback as
// v1.ParseRequiredFeatures reads it. Values are kept as written, known or
// not (R4 judges them, not P6).
func RequiredFeatures(field []v1.LoadBalancerFeature, annotations map[string]string) []v1.LoadBalancerFeature {
	if len(field) > 0 {
		return field
	}
	out, _ := v1.ParseRequiredFeatures(annotations[v1.RequiredFeaturesAnnotation], nil)
	return out
}

// knownFeatures is v1.LoadBalancerFeatures(), made once: AskedFeatures
// runs on every validation.
var knownFeatures = v1.LoadBalancerFeatures()

// AskedFeatures returns the features a Service with this spec (and these
// annotations, for the source-ranges annotation) asks for, as P5 reads it
// (v1.AsksFor). A nil spec asks for nothing (an empty set).
func AskedFeatures(spec *corev1.ServiceSpec, annotations map[string]string) sets.Set[v1.LoadBalancerFeature] {
	asks := sets.New[v1.LoadBalancerFeature]()
	for _, f := range knownFeatures {
		if v1.AsksFor(spec, annotations, f) {
			asks.Insert(f)
		}
	}
	return asks
}

// ValidateConditions validates the status conditions conds of a Service,
// at fldPath, as an update from oldConds (nil or empty for a create), for
// a Service described by spec. It is the block ValidateServiceStatusUpdate
// and ValidateServiceUpdate are made of, for a registry strategy that
// holds the internal type: both types hold []metav1.Condition.
//
// With the gate off nothing is validated: a stock apiserver validates no
// Service condition (R5). With it on, ratchet first: a condition equal to
// one of oldConds (every field, lastTransitionTime as an instant) is not
// validated at all; every other condition goes through
// metav1validation.ValidateCondition (C5), the observedGeneration bound
// (C5), C1 and C3. A type
// that appears twice is a Duplicate (C5) unless oldConds held at least as
// many conditions of it. With Options.CrossConditionRules,
// for a LoadBalancer Service, L5 judges the pair of Serving and
// Provisioning when the status or reason of either changed, P5 each
// changed Degraded=True or LoadBalancerPortsError=True condition, L4
// Serving against spec.Ingress when Serving's status or reason or the
// ingress changed (from spec.OldIngress), and P6 the degradations against
// spec.Required when Serving's status or reason or one of them changed. Every error
// carries its rule ID as origin. nil or empty conds yield no errors; a gate
// that does not know the feature yields one internal error at fldPath,
// whatever conds hold.
func ValidateConditions(ctx context.Context, fldPath *field.Path, conds, oldConds []metav1.Condition, spec ConditionsSpec, opts Options) field.ErrorList {
	lbRules, err := opts.enabled()
	if err != nil {
		return field.ErrorList{field.InternalError(fldPath, err)}
	}
	return validateConditions(fldPath, conds, oldConds, spec, lbRules, lbRules && opts.CrossConditionRules)
}

// validateConditions is ValidateConditions with the gate read: lbRules
// for any rule at all, crossRules for L4, L5, P5 and P6.
func validateConditions(fldPath *field.Path, conds, oldConds []metav1.Condition, spec ConditionsSpec, lbRules, crossRules bool) field.ErrorList {
	// With the gate off the apiserver behaves as a stock one, which
	// validates no Service condition at all (R5): C5 included, or a fork
	// would refuse status writes that every other cluster takes.
	if len(conds) == 0 || !lbRules {
		return nil
	}
	r := conditionRatchet{conds: conds, old: oldConds}
	var allErrs field.ErrorList
	var firstOfType map[string]struct{}
	for i := range conds {
		c := &conds[i]
		// C5: no type twice. The first of each type is never the duplicate,
		// so the common case (distinct types) needs no map until a type
		// repeats one seen before.
		if isDuplicateType(conds, i, &firstOfType) && !r.duplicatedInOld(i) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), c.Type).WithOrigin(OriginC5))
		}
		if r.unchanged(i) {
			continue
		}
		p := conditionPath(fldPath, i)
		// C5: the metav1.Condition rules.
		for _, e := range metav1validation.ValidateCondition(*c, p) {
			// Its only NotSupported is the status, listing Unknown too: for
			// Serving and Provisioning a writer who took that advice would be
			// refused again by C1, so list what they take.
			if e.Type == field.ErrorTypeNotSupported && onlyTrueOrFalse(c.Type) {
				e = field.NotSupported(p.Child("status"), c.Status, servingStatuses)
			}
			allErrs = append(allErrs, c5(e))
		}
		// C5: observedGeneration not above metadata.generation. A
		// generation of 0 is unset (a manifest, not a stored object):
		// there is nothing to compare with.
		if spec.Generation > 0 && c.ObservedGeneration > spec.Generation {
			allErrs = append(allErrs, field.Invalid(p.Child("observedGeneration"), c.ObservedGeneration,
				fmt.Sprintf("must be less than or equal to metadata.generation (%d)", spec.Generation)).WithOrigin(OriginC5))
		}
		if e := validateLoadBalancerCondition(c, p); e != nil {
			allErrs = append(allErrs, e)
		}
		if crossRules && spec.Asks != nil && spec.Type == corev1.ServiceTypeLoadBalancer {
			allErrs = append(allErrs, validateDegradation(c, p, spec.Asks)...)
		}
	}
	if crossRules && spec.Type == corev1.ServiceTypeLoadBalancer {
		if e := validatePartners(fldPath, conds, &r); e != nil {
			allErrs = append(allErrs, e)
		}
		if e := validateAddress(fldPath, conds, spec, &r); e != nil {
			allErrs = append(allErrs, e)
		}
		allErrs = append(allErrs, validateRequiredDegradations(fldPath, conds, spec.Required, &r)...)
	}
	return allErrs
}

// firstOf returns the index of the first condition of type t in conds, -1
// for none: the one every rule between conditions reads.
func firstOf(conds []metav1.Condition, t v1.LoadBalancerConditionType) int {
	for i := range conds {
		if conds[i].Type == string(t) {
			return i
		}
	}
	return -1
}

// validateAddress is L4: Serving=True goes with an ingress entry that has
// an ip or a hostname. It is judged when the write changes Serving's
// status or reason (sameState) or the ingress; the error is at Serving's
// status, the condition the write must not leave True.
func validateAddress(fldPath *field.Path, conds []metav1.Condition, spec ConditionsSpec, r *conditionRatchet) *field.Error {
	serving := firstOf(conds, v1.LoadBalancerConditionServing)
	if serving < 0 || conds[serving].Status != metav1.ConditionTrue || v1.HasAddress(spec.Ingress) ||
		r.sameState(serving) && apiequality.Semantic.DeepEqual(spec.Ingress, spec.OldIngress) {
		return nil
	}
	return field.Invalid(conditionPath(fldPath, serving).Child("status"), conds[serving].Status,
		"must not be True while no entry of status.loadBalancer.ingress has an ip or a hostname").WithOrigin(OriginL4)
}

// validateRequiredDegradations is P6: while Serving is True, no
// degradation (a LoadBalancerDegraded=True reason, those a Multiple lists,
// or a LoadBalancerPortsError=True, which C4 reads as PortsNotSupported)
// names a feature the Service requires: the provider must refuse it
// instead (R1). It is judged when the write changes Serving's status or
// reason (sameState), Degraded or LoadBalancerPortsError.
func validateRequiredDegradations(fldPath *field.Path, conds []metav1.Condition, required []v1.LoadBalancerFeature, r *conditionRatchet) field.ErrorList {
	serving := firstOf(conds, v1.LoadBalancerConditionServing)
	if len(required) == 0 || serving < 0 || conds[serving].Status != metav1.ConditionTrue {
		return nil
	}
	degraded := firstOf(conds, v1.LoadBalancerConditionDegraded)
	portsError := firstOf(conds, v1.LoadBalancerConditionPortsError)
	if r.sameState(serving) && (degraded < 0 || r.unchanged(degraded)) && (portsError < 0 || r.unchanged(portsError)) {
		return nil
	}
	var errs field.ErrorList
	// report names, in one error at p, the features of reasons that the
	// Service requires.
	report := func(p *field.Path, value string, reasons ...v1.LoadBalancerConditionReason) {
		var named []string
		for _, r := range reasons {
			if f, ok := v1.DegradedFeature(r); ok && slices.Contains(required, f) {
				named = append(named, string(f))
			}
		}
		if len(named) > 0 {
			errs = append(errs, field.Invalid(p, value, fmt.Sprintf(
				"must not name %s while %s is True: the Service requires it, and a provider that cannot serve it refuses the Service (R1)",
				strings.Join(named, ", "), v1.LoadBalancerConditionServing)).WithOrigin(OriginP6))
		}
	}
	if degraded >= 0 && conds[degraded].Status == metav1.ConditionTrue {
		at, value, reasons := degradedReasons(&conds[degraded], conditionPath(fldPath, degraded))
		report(at, value, reasons...)
	}
	if portsError >= 0 && conds[portsError].Status == metav1.ConditionTrue {
		report(conditionPath(fldPath, portsError).Child("status"), string(conds[portsError].Status), v1.LoadBalancerReasonPortsNotSupported)
	}
	return errs
}

// c5 gives an error of metav1validation its rule and clears its
// CoveredByDeclarative mark: that mark is true of the types it was written
// for, not of this one, whose generated validation treats conditions as
// opaque, and a caller that removes covered errors
// (field.ErrorList.RemoveCoveredByDeclarative) must not lose these.
func c5(e *field.Error) *field.Error {
	e.CoveredByDeclarative = false
	return e.WithOrigin(OriginC5)
}

// isDuplicateType reports whether conds[i]'s type appears in conds[:i].
// seen is filled lazily, from the first repeat on.
func isDuplicateType(conds []metav1.Condition, i int, seen *map[string]struct{}) bool {
	if *seen == nil {
		// Until a repeat is found, conds[:i] has distinct types: a linear
		// look back is the whole check, and most lists end here.
		for j := 0; j < i; j++ {
			if conds[j].Type == conds[i].Type {
				m := make(map[string]struct{}, len(conds))
				for k := 0; k < i; k++ {
					m[conds[k].Type] = struct{}{}
				}
				*seen = m
				return true
			}
		}
		if i < 8 {
			return false
		}
		m := make(map[string]struct{}, len(conds))
		for k := 0; k <= i; k++ {
			m[conds[k].Type] = struct{}{}
		}
		*seen = m
		return false
	}
	if _, ok := (*seen)[conds[i].Type]; ok {
		return true
	}
	(*seen)[conds[i].Type] = struct{}{}
	return false
}

// validateLoadBalancerCondition applies C1 (Serving and Provisioning are
// True or False) and C3 (a well-known reason of the other status) to the
// condition c at path p. Other condition types pass. It reports at most one
// error, and none that ValidateCondition reports: a status outside True,
// False and Unknown is that function's to reject, and C3 only judges a
// condition whose status is True or False.
func validateLoadBalancerCondition(c *metav1.Condition, p *field.Path) *field.Error {
	t := v1.LoadBalancerConditionType(c.Type)
	switch t {
	case v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning:
		if c.Status == metav1.ConditionUnknown {
			return field.NotSupported(p.Child("status"), c.Status, servingStatuses).WithOrigin(OriginC1)
		}
	case v1.LoadBalancerConditionDegraded:
	default:
		return nil
	}
	if c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse {
		return nil
	}
	if s, known := v1.ReasonStatus(t, v1.LoadBalancerConditionReason(c.Reason)); known && s != c.Status {
		return field.Invalid(p.Child("reason"), c.Reason,
			fmt.Sprintf("must not be used with status %s: it is a reason for status %s", c.Status, s)).WithOrigin(OriginC3)
	}
	return nil
}

// validateDegradation is P5 for the condition c at path p: a
// LoadBalancerDegraded=True reason that names a feature (or a Multiple
// whose message lists such reasons, G2) must name one the Service asks
// for. Reasons outside the table are a provider's own and pass. It
// reports at most one error: a Multiple that lists several reasons the
// Service does not ask for gets one error naming them all. A
// LoadBalancerPortsError=True is read as Degraded with reason
// PortsNotSupported (C4), as P6 and the checker read it: on a Service that
// does not ask for Ports it is an error at its status.
func validateDegradation(c *metav1.Condition, p *field.Path, asks sets.Set[v1.LoadBalancerFeature]) field.ErrorList {
	if c.Status != metav1.ConditionTrue {
		return nil
	}
	switch v1.LoadBalancerConditionType(c.Type) {
	case v1.LoadBalancerConditionDegraded:
	case v1.LoadBalancerConditionPortsError:
		if asks.Has(v1.LoadBalancerFeaturePorts) {
			return nil
		}
		return field.ErrorList{field.Invalid(p.Child("status"), c.Status, fmt.Sprintf(
			"must not be True while the Service does not ask for %s: %s is read as %s with reason %s",
			v1.LoadBalancerFeaturePorts, v1.LoadBalancerConditionPortsError, v1.LoadBalancerConditionDegraded, v1.LoadBalancerReasonPortsNotSupported)).WithOrigin(OriginP5)}
	default:
		return nil
	}
	at, value, reasons := degradedReasons(c, p)
	var unasked []string
	for _, r := range reasons {
		if f, _ := v1.DegradedFeature(r); !asks.Has(f) {
			if r == v1.LoadBalancerConditionReason(c.Reason) {
				return field.ErrorList{field.Invalid(at, value,
					fmt.Sprintf("must name something the Service asks for: it does not ask for %s", f)).WithOrigin(OriginP5)}
			}
			unasked = append(unasked, fmt.Sprintf("%s (%s)", f, r))
		}
	}
	if len(unasked) == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(at, value,
		fmt.Sprintf("must name only what the Service asks for: it does not ask for %s", strings.Join(unasked, ", "))).WithOrigin(OriginP5)}
}

// degradedReasons returns the reasons the LoadBalancerDegraded condition
// c at path p names that name a feature (v1.DegradedFeature), each once,
// in the order they first appear, and where an error about them points:
// its reason, or for Multiple the list at the start of its message (G2),
// each item trimmed. Reasons outside the table are a provider's own, which
// neither P5 nor P6 judges. A repeat is left out: the message is written
// by a client, and one error per repeat, each carrying the message, would
// make the answer grow with the square of the message's length.
func degradedReasons(c *metav1.Condition, p *field.Path) (*field.Path, string, []v1.LoadBalancerConditionReason) {
	if v1.LoadBalancerConditionReason(c.Reason) != v1.LoadBalancerReasonMultiple {
		var reasons []v1.LoadBalancerConditionReason
		if _, ok := v1.DegradedFeature(v1.LoadBalancerConditionReason(c.Reason)); ok {
			reasons = append(reasons, v1.LoadBalancerConditionReason(c.Reason))
		}
		return p.Child("reason"), c.Reason, reasons
	}
	list, _, _ := strings.Cut(c.Message, ":")
	var reasons []v1.LoadBalancerConditionReason
	for item := range strings.SplitSeq(list, ",") {
		r := v1.LoadBalancerConditionReason(strings.TrimSpace(item))
		// At most one reason per feature is kept, so this look-up is over
		// a handful of items whatever the message's length.
		if _, ok := v1.DegradedFeature(r); ok && !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	return p.Child("message"), c.Message, reasons
}

// validatePartners is L5: Serving=False with reason Provisioning goes with
// Provisioning=True, and with Unsupported or Infrastructure with
// Provisioning=False. It judges the first condition of each type, only when
// both are present (one without the other is L1, a provider's lifecycle
// rule no single write can be held to) and when the write changes the
// status or reason of either (sameState). A
// Provisioning status other than True or False that the write sets is
// already C1's or ValidateConditions' error, not reported twice; one it
// leaves as it was is ratcheted there, and so is L5's to report.
func validatePartners(fldPath *field.Path, conds []metav1.Condition, r *conditionRatchet) *field.Error {
	serving, provisioning := firstOf(conds, v1.LoadBalancerConditionServing), firstOf(conds, v1.LoadBalancerConditionProvisioning)
	if serving < 0 || provisioning < 0 || conds[serving].Status != metav1.ConditionFalse {
		return nil
	}
	var want metav1.ConditionStatus
	switch v1.LoadBalancerConditionReason(conds[serving].Reason) {
	case v1.LoadBalancerReasonProvisioning:
		want = metav1.ConditionTrue
	case v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure:
		want = metav1.ConditionFalse
	default:
		return nil
	}
	p := &conds[provisioning]
	if p.Status == want || r.sameState(serving) && r.sameState(provisioning) ||
		p.Status != metav1.ConditionTrue && p.Status != metav1.ConditionFalse && !r.unchanged(provisioning) {
		return nil
	}
	return field.Invalid(fldPath.Index(provisioning).Child("status"), p.Status,
		fmt.Sprintf("must be %s while %s is False with reason %s", want, v1.LoadBalancerConditionServing, conds[serving].Reason)).WithOrigin(OriginL5)
}

// onlyTrueOrFalse reports whether conditions of type t may only be True or
// False (C1).
func onlyTrueOrFalse(t string) bool {
	return t == string(v1.LoadBalancerConditionServing) || t == string(v1.LoadBalancerConditionProvisioning)
}

// conditionKey is everything a metav1.Condition holds, with
// lastTransitionTime as an instant, so that two conditions are equal
// exactly when their keys are. TestConditionKey_CoversCondition fails when
// metav1.Condition gains a field this key does not hold.
type conditionKey struct {
	typ, status, reason, message string
	observedGeneration           int64
	transitionSec                int64
	transitionNsec               int
}

func keyOf(c *metav1.Condition) conditionKey {
	t := c.LastTransitionTime.Time
	return conditionKey{
		typ:                c.Type,
		status:             string(c.Status),
		reason:             c.Reason,
		message:            c.Message,
		observedGeneration: c.ObservedGeneration,
		transitionSec:      t.Unix(),
		transitionNsec:     t.Nanosecond(),
	}
}

// conditionRatchet answers ratcheting questions about conds against old,
// building its indexes on first use. Old and new are matched by content,
// wherever they sit in the lists.
type conditionRatchet struct {
	conds, old []metav1.Condition

	oldKeys map[conditionKey]struct{}
	// oldTypes counts old's conditions per type; ordinals[i] is the
	// position (from 1) of conds[i] among the conditions of its type.
	oldTypes map[string]int
	ordinals []int
}

// unchanged reports whether old holds a condition equal to conds[i].
func (r *conditionRatchet) unchanged(i int) bool {
	if len(r.old) == 0 {
		return false
	}
	k := keyOf(&r.conds[i])
	// The same position is where an unchanged condition usually is; a
	// short list is cheaper to scan than to index.
	if i < len(r.old) && keyOf(&r.old[i]) == k {
		return true
	}
	if len(r.old) <= 8 {
		for j := range r.old {
			if keyOf(&r.old[j]) == k {
				return true
			}
		}
		return false
	}
	if r.oldKeys == nil {
		r.oldKeys = make(map[conditionKey]struct{}, len(r.old))
		for j := range r.old {
			r.oldKeys[keyOf(&r.old[j])] = struct{}{}
		}
	}
	_, ok := r.oldKeys[k]
	return ok
}

// sameState reports whether the first of old's conditions of conds[i]'s
// type, the one readers take, has conds[i]'s status and reason: all that
// the rules between conditions read of Serving and Provisioning. A write
// that moves only its lastTransitionTime (the bump L6 asks for), message
// or observedGeneration leaves the state as it was, and a pairing stored
// before is not judged again for it.
func (r *conditionRatchet) sameState(i int) bool {
	c := &r.conds[i]
	for j := range r.old {
		if o := &r.old[j]; o.Type == c.Type {
			return o.Status == c.Status && o.Reason == c.Reason
		}
	}
	return false
}

// duplicatedInOld reports whether old holds at least as many conditions of
// conds[i]'s type as conds[:i+1] does.
func (r *conditionRatchet) duplicatedInOld(i int) bool {
	if len(r.old) == 0 {
		return false
	}
	if r.ordinals == nil {
		r.oldTypes = make(map[string]int, len(r.old))
		for j := range r.old {
			r.oldTypes[r.old[j].Type]++
		}
		seen := make(map[string]int, len(r.conds))
		r.ordinals = make([]int, len(r.conds))
		for j := range r.conds {
			seen[r.conds[j].Type]++
			r.ordinals[j] = seen[r.conds[j].Type]
		}
	}
	return r.oldTypes[r.conds[i].Type] >= r.ordinals[i]
}
