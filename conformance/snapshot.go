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
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/validation"
)

// Which source owns which rule:
//
//   - package validation (ValidateService, gate on) owns R4 (everything
//     outside status.conditions), C5 (the metav1.Condition rules), C1
//     (Unknown on Serving or Provisioning) and the violation half of C3 (a
//     reason of the other status). The checker maps its errors to rule IDs
//     and does not check these itself.
//   - the checker owns the rest of section 8: C2, the warning half of C3,
//     C4, L1, L4, L5, L9, P5, P6, R2, R3, P1 and the trace rules C6, C7, L4, L6.
//   - package conditions owns the verdict (Evaluate), the parsing of
//     Degraded reasons (DegradedReasons) and what counts as a
//     load-balancer-relevant change (ChangedFields).

// view indexes the load-balancer conditions of one observation.
type view struct {
	conds                                     []metav1.Condition
	serving, provisioning, degraded, portsErr int // index, -1 when absent
}

// scan returns the view of svc: the first condition of each type, as
// conditions.Get reads them.
func scan(svc *v1.Service) view {
	v := view{conds: svc.Status.Conditions, serving: -1, provisioning: -1, degraded: -1, portsErr: -1}
	for i := range v.conds {
		var slot *int
		switch v1.LoadBalancerConditionType(v.conds[i].Type) {
		case v1.LoadBalancerConditionServing:
			slot = &v.serving
		case v1.LoadBalancerConditionProvisioning:
			slot = &v.provisioning
		case v1.LoadBalancerConditionDegraded:
			slot = &v.degraded
		case v1.LoadBalancerConditionPortsError:
			slot = &v.portsErr
		default:
			continue
		}
		if *slot < 0 {
			*slot = i
		}
	}
	return v
}

// hasKEP reports whether any of Serving, Provisioning and Degraded is set.
func (v *view) hasKEP() bool {
	return v.serving >= 0 || v.provisioning >= 0 || v.degraded >= 0
}

// status returns the status of the condition at index i, which must be
// one, as a message may quote it: escaped, and cut by input.Clip.
func (v *view) status(i int) string {
	return input.Escape(input.Clip(string(v.conds[i].Status)))
}

// is reports whether the condition at index i has the given status.
func (v *view) is(i int, s metav1.ConditionStatus) bool {
	return i >= 0 && v.conds[i].Status == s
}

// condPath returns the JSON path of field sub ("" for the whole condition)
// of condition i.
func condPath(i int, sub string) string {
	p := "status.conditions[" + strconv.Itoa(i) + "]"
	if sub != "" {
		p += "." + sub
	}
	return p
}

const (
	conditionsField = "status.conditions"
	ingressField    = "status.loadBalancer.ingress"
)

// validate runs API validation with the gate on and reports its errors
// under the rule that owns them.
//
// Validation is a pure function of what validationSum hashes, and costs
// more than all the checker's own rules together (the metav1.Condition
// format checks are regular expressions). So when the previous observation
// of the same Service had the same inputs and passed, this one passes too
// and is not validated again; and a KEP-4631 condition that passed before,
// in this Service or another, is not validated again either (see
// validateUnknown).
func (c *Checker) validate(f *findings, st *serviceState, svc *v1.Service, v *view, o *observation) {
	sum := c.validationSum(svc, v, o)
	if !c.noMemo && st.validClean && st.validSum == sum {
		return
	}
	var errs field.ErrorList
	if c.noMemo {
		errs = validation.ValidateService(svc, c.validation)
	} else {
		errs = c.validateUnknown(svc, v, o)
	}
	st.validSum, st.validClean = sum, len(errs) == 0
	if !c.noMemo && len(errs) == 0 {
		c.rememberClean(v, o)
	}
	for _, e := range errs {
		// Validation quotes the bad value as JSON does, which leaves
		// format characters such as U+202E, which reverses the text
		// after it, as they are: escaped, as the other messages are.
		rule, msg := classify(svc, e)
		f.add(rule, SeverityViolation, e.Field, input.Escape(msg))
	}
}

// validateUnknown is validation.ValidateService(svc), but for the
// KEP-4631 conditions known to pass (see Checker.cleanConds). With the
// checker's options (no cross-condition rules) a condition's errors depend
// on nothing else, but for the duplicate check, which ratcheting leaves
// alone here: the known conditions are one of each type. They are handed
// to validation as the old conditions of a status update, whose
// ratcheting skips a condition equal to an old one; the spec is validated
// as created, as ValidateService does. ValidateService is those two
// blocks.
func (c *Checker) validateUnknown(svc *v1.Service, v *view, o *observation) field.ErrorList {
	old := c.ratchet.Status.Conditions[:0]
	for s, i := range [numSlots]int{v.serving, v.provisioning, v.degraded} {
		if i < 0 {
			continue
		}
		if _, ok := c.cleanConds[o.contents[s]]; !ok {
			continue
		}
		// The generation bound is the one rule that reads the Service too.
		cond := &v.conds[i]
		if svc.Generation > 0 && cond.ObservedGeneration > svc.Generation {
			continue
		}
		old = append(old, *cond)
	}
	c.ratchet.Status.Conditions = old
	errs := validation.ValidateRequiredLoadBalancerFeatures(context.Background(), specPath,
		&validation.RequiredFeaturesSpec{Type: svc.Spec.Type, RequiredLoadBalancerFeatures: svc.Spec.RequiredLoadBalancerFeatures}, nil, c.validation)
	errs = append(errs, validation.ValidateServiceStatusUpdate(svc, &c.ratchet, c.validation)...)
	// The copies hold svc's strings: drop them, as svc is not kept.
	clear(old)
	c.ratchet.Status.Conditions = old[:0]
	return errs
}

// maxCleanConds bounds Checker.cleanConds. Providers write few distinct
// conditions once lastTransitionTime is left out; one whose messages vary
// without end only makes the memo start again now and then.
const maxCleanConds = 4096

// rememberClean remembers the KEP-4631 conditions of an observation that
// passed validation.
func (c *Checker) rememberClean(v *view, o *observation) {
	for s, i := range [numSlots]int{v.serving, v.provisioning, v.degraded} {
		if i < 0 {
			continue
		}
		if _, ok := c.cleanConds[o.contents[s]]; ok {
			continue
		}
		if len(c.cleanConds) >= maxCleanConds {
			clear(c.cleanConds)
		}
		c.cleanConds[o.contents[s]] = struct{}{}
	}
}

// specPath is the path ValidateService gives the spec.
var specPath = field.NewPath("spec")

// validationSum hashes everything validation.ValidateService reads:
// spec.type, spec.requiredLoadBalancerFeatures (and, should validation take
// it up, its annotation), metadata.generation and every field of every
// condition, in order. The KEP-4631 conditions are already hashed (o.conds);
// their hashes stand in for them.
func (c *Checker) validationSum(svc *v1.Service, v *view, o *observation) uint64 {
	h := &c.hash
	h.reset()
	h.str(string(svc.Spec.Type))
	h.int(int64(len(svc.Spec.RequiredLoadBalancerFeatures)))
	for _, r := range svc.Spec.RequiredLoadBalancerFeatures {
		h.str(string(r))
	}
	if a, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]; ok {
		h.optStr(&a)
	} else {
		h.optStr(nil)
	}
	h.int(svc.Generation)
	for i := range v.conds {
		switch i {
		case v.serving:
			h.int(1)
			h.int(int64(o.conds[slotServing].sum))
			continue
		case v.provisioning:
			h.int(2)
			h.int(int64(o.conds[slotProvisioning].sum))
			continue
		case v.degraded:
			h.int(3)
			h.int(int64(o.conds[slotDegraded].sum))
			continue
		}
		cond := &v.conds[i]
		h.str(cond.Type)
		h.str(string(cond.Status))
		h.str(cond.Reason)
		h.str(cond.Message)
		h.int(cond.LastTransitionTime.Unix())
		h.int(cond.ObservedGeneration)
	}
	return h.sum(c.seed)
}

// classify maps a validation error to its rule, read from the error's
// origin (validation tags each error with its rule ID), and a message. An
// error without a rule origin it knows (none is expected: the checker
// validates with the gate on, so R5 never fires) counts as C5 under status
// and R4 elsewhere, so that nothing validation reports is lost.
func classify(svc *v1.Service, e *field.Error) (RuleID, string) {
	switch e.Origin {
	case validation.OriginC1:
		if cond := conditionAt(svc, e.Field); cond != nil {
			return "C1", fmt.Sprintf("%s is Unknown; it may only be True or False", cond.Type)
		}
		return "C1", apiValidation(e)
	case validation.OriginC3:
		if cond := conditionAt(svc, e.Field); cond != nil {
			return "C3", fmt.Sprintf("%s=%s has reason %s, which %s", cond.Type, input.Clip(string(cond.Status)), input.Clip(cond.Reason), e.Detail)
		}
		return "C3", apiValidation(e)
	case validation.OriginC5, validation.OriginL5, validation.OriginP5, validation.OriginR4:
		return RuleID(e.Origin), apiValidation(e)
	}
	if strings.HasPrefix(e.Field, conditionsField) {
		return "C5", apiValidation(e)
	}
	return "R4", apiValidation(e)
}

// apiValidation says what validation found, with a value that is a string
// cut by input.Clip: the error quotes it, and it may be as large as the
// object.
func apiValidation(e *field.Error) string {
	if v := reflect.ValueOf(e.BadValue); v.Kind() == reflect.String && v.Len() > input.MaxTextBytes {
		c := *e
		c.BadValue = input.Clip(v.String())
		e = &c
	}
	return "fails API validation: " + e.ErrorBody()
}

// conditionAt returns the condition a field path below
// status.conditions[i] is in; nil when svc has none there.
func conditionAt(svc *v1.Service, path string) *metav1.Condition {
	for i := range svc.Status.Conditions {
		if strings.HasPrefix(path, condPath(i, "")+".") {
			return &svc.Status.Conditions[i]
		}
	}
	return nil
}

// tableReason reports whether reason is in the specification's table for
// condition type t, with any status.
func tableReason(t v1.LoadBalancerConditionType, reason string) bool {
	_, ok := v1.ReasonStatus(t, v1.LoadBalancerConditionReason(reason))
	return ok
}

// snapshot applies the rules that need one observation only.
//
// Five of them judge the status against the spec: L9 (conditions on a
// Service that is no longer a LoadBalancer), P5 and P6 (degradations the
// spec does not ask for, or requires away), R2 (serving a required
// feature nobody knows) and L4 (serving without an address, which the
// apiserver clears in the spec write that makes a Service another type:
// converted back before the provider's cleanup, a Service serves with no
// ingress). When the spec changed after
// the provider's last status write (specAhead, known in a trace only), the
// status still answers the old spec and no provider could have avoided the
// mismatch: those rules wait for the provider's next write, which they
// judge. Meanwhile L6 holds the provider to answering at all.
func (c *Checker) snapshot(f *findings, svc *v1.Service, v *view, specAhead bool) {
	if !isLoadBalancer(svc) {
		if !specAhead {
			c.checkLeftovers(f, svc, v)
		}
		return
	}
	c.checkReasons(f, v)
	c.checkPartners(f, v)
	if !specAhead {
		c.checkIngress(f, svc, v)
		c.checkUnknownRequired(f, svc, v)
		c.checkDegradations(f, svc, v)
	}
}

// checkForeignClass is P1, on svc's view v. leftover marks conditions the
// provider wrote while the Service was its own, unchanged since: a
// warning, as L9's leftovers are, until the provider's next write.
func (c *Checker) checkForeignClass(f *findings, svc *v1.Service, v *view, leftover bool) {
	if !v.hasKEP() {
		return
	}
	if leftover {
		f.add("P1", SeverityWarning, conditionsField, fmt.Sprintf(
			"the Service moved to loadBalancerClass %q, not one the provider under test handles (%s), and still carries the %s the provider wrote before; the provider removes them",
			input.Clip(*svc.Spec.LoadBalancerClass), describeClasses(c.opts.classes), strings.Join(kepTypes(v), ", ")))
		return
	}
	f.add("P1", SeverityViolation, conditionsField, fmt.Sprintf(
		"the Service's loadBalancerClass %q is not one the provider under test handles (%s), yet it carries %s",
		input.Clip(*svc.Spec.LoadBalancerClass), describeClasses(c.opts.classes), strings.Join(kepTypes(v), ", ")))
}

// unchangedConditions reports whether the KEP-4631 conditions of view v
// are those of the last observation in st: none of them written since.
func (c *Checker) unchangedConditions(st *serviceState, v *view) bool {
	conds, _ := c.condStates(v)
	for s := range conds {
		if conds[s].present != st.conds[s].present || conds[s].sum != st.conds[s].sum {
			return false
		}
	}
	return true
}

// describeClasses names the classes of the provider under test for P1's
// message: quoted, as the Service's own class is, and the empty class
// (an empty --class) as what it means, so that the list is never blank.
func describeClasses(classes []string) string {
	names := make([]string, 0, len(classes))
	for _, class := range classes {
		if class == "" {
			names = append(names, "Services without a class")
			continue
		}
		names = append(names, strconv.Quote(class))
	}
	return strings.Join(names, ", ")
}

// kepTypes lists the KEP-4631 condition types present.
func kepTypes(v *view) []string {
	var out []string
	for _, i := range []int{v.serving, v.provisioning, v.degraded} {
		if i >= 0 {
			out = append(out, v.conds[i].Type)
		}
	}
	return out
}

// checkLeftovers is L9.
func (c *Checker) checkLeftovers(f *findings, svc *v1.Service, v *view) {
	if !v.hasKEP() {
		return
	}
	t := string(svc.Spec.Type)
	if t == "" {
		t = string(corev1.ServiceTypeClusterIP)
	}
	f.add("L9", SeverityWarning, conditionsField, fmt.Sprintf(
		"the Service is of type %s, not LoadBalancer, yet still carries %s; the provider removes them with the load balancer",
		t, strings.Join(kepTypes(v), ", ")))
}

// checkReasons is C2, the warning half of C3, and C4. A reason API
// validation rejected (C5: empty, or not a reason's format) is not in the
// table either: saying so again would count one fault twice.
func (c *Checker) checkReasons(f *findings, v *view) {
	for _, i := range []int{v.serving, v.provisioning} {
		if i < 0 {
			continue
		}
		cond := &v.conds[i]
		if (cond.Status == metav1.ConditionTrue || cond.Status == metav1.ConditionFalse) &&
			!tableReason(v1.LoadBalancerConditionType(cond.Type), cond.Reason) && !f.has("C5", condPath(i, "reason")) {
			f.add("C3", SeverityWarning, condPath(i, "reason"), fmt.Sprintf(
				"%s=%s has reason %q, which is not in the specification's table", cond.Type, cond.Status, input.Clip(cond.Reason)))
		}
	}
	if i := v.degraded; i >= 0 {
		cond := &v.conds[i]
		switch cond.Status {
		case metav1.ConditionFalse:
			f.add("C2", SeverityWarning, condPath(i, "status"),
				"LoadBalancerDegraded is False, which is discouraged: a provider cannot know the Service uses no field it has never heard of; remove the condition instead")
		case metav1.ConditionTrue:
			if !tableReason(v1.LoadBalancerConditionDegraded, cond.Reason) && !f.has("C5", condPath(i, "reason")) {
				f.add("C3", SeverityWarning, condPath(i, "reason"), fmt.Sprintf(
					"LoadBalancerDegraded=True has reason %q, which is not in the specification's table", input.Clip(cond.Reason)))
			}
		}
	}
	if i := v.portsErr; i >= 0 {
		f.add("C4", SeverityWarning, condPath(i, ""),
			"LoadBalancerPortsError is deprecated; it is read as LoadBalancerDegraded with reason PortsNotSupported")
	}
}

// checkPartners is L1's snapshot half and L5.
func (c *Checker) checkPartners(f *findings, v *view) {
	switch {
	case v.serving >= 0 && v.provisioning < 0:
		f.add("L1", SeverityViolation, condPath(v.serving, ""),
			"LoadBalancerServing is set without LoadBalancerProvisioning; a provider sets both in one write")
		return
	case v.provisioning >= 0 && v.serving < 0:
		f.add("L1", SeverityViolation, condPath(v.provisioning, ""),
			"LoadBalancerProvisioning is set without LoadBalancerServing; a provider sets both in one write")
		return
	case v.serving < 0:
		return
	}
	// L5 pairs a False Serving with a True or False Provisioning. Any
	// other Provisioning is C1's violation (Unknown) or C5's, which
	// validation reports; L5 would report that one status twice.
	serving := &v.conds[v.serving]
	if serving.Status != metav1.ConditionFalse ||
		!v.is(v.provisioning, metav1.ConditionTrue) && !v.is(v.provisioning, metav1.ConditionFalse) {
		return
	}
	switch v1.LoadBalancerConditionReason(serving.Reason) {
	case v1.LoadBalancerReasonProvisioning:
		if !v.is(v.provisioning, metav1.ConditionTrue) {
			f.add("L5", SeverityViolation, condPath(v.provisioning, "status"), fmt.Sprintf(
				"LoadBalancerServing is False with reason Provisioning, so LoadBalancerProvisioning must be True, not %s", v.status(v.provisioning)))
		}
	case v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure:
		if !v.is(v.provisioning, metav1.ConditionFalse) {
			f.add("L5", SeverityViolation, condPath(v.provisioning, "status"), fmt.Sprintf(
				"LoadBalancerServing is False with reason %s, so LoadBalancerProvisioning must be False, not %s", serving.Reason, v.status(v.provisioning)))
		}
	}
}

// checkIngress is L4's snapshot half: Serving=True needs an ingress entry
// with an address; an entry with neither ip nor hostname does not count.
func (c *Checker) checkIngress(f *findings, svc *v1.Service, v *view) {
	if !v.is(v.serving, metav1.ConditionTrue) {
		return
	}
	ingress := svc.Status.LoadBalancer.Ingress
	if conditions.HasAddress(ingress) {
		return
	}
	msg := "LoadBalancerServing is True but status.loadBalancer.ingress is empty"
	if len(ingress) > 0 {
		msg = "LoadBalancerServing is True but no entry of status.loadBalancer.ingress has an ip or a hostname"
	}
	f.add("L4", SeverityViolation, ingressField, msg)
}

// checkUnknownRequired is R2 as far as a checker sees it: Serving=True
// while a required feature is a value the checker does not know. A
// warning, not a violation: the provider may be newer than the checker.
func (c *Checker) checkUnknownRequired(f *findings, svc *v1.Service, v *view) {
	if !v.is(v.serving, metav1.ConditionTrue) {
		return
	}
	required, source, _ := conditions.RequiredFeatures(svc)
	for i, feature := range required {
		if feature.IsKnown() {
			continue
		}
		// The field's entry, as R4 names it; the annotation is one string.
		where := "spec.requiredLoadBalancerFeatures[" + strconv.Itoa(i) + "]"
		if source == conditions.RequiredFeaturesSourceAnnotation {
			where = "metadata.annotations[" + v1.RequiredFeaturesAnnotation + "]"
		}
		f.add("R2", SeverityWarning, where, fmt.Sprintf(
			"LoadBalancerServing is True while the required feature %q is unknown to this checker: a provider that does not know it must refuse the Service (R2), unless it is newer than the checker", input.Clip(string(feature))))
	}
}

// checkDegradations is P5 and P6.
func (c *Checker) checkDegradations(f *findings, svc *v1.Service, v *view) {
	if !v.is(v.degraded, metav1.ConditionTrue) && !v.is(v.portsErr, metav1.ConditionTrue) {
		return
	}
	reasons := conditions.DegradedReasons(v.conds)
	if len(reasons) == 0 {
		return
	}
	var required []v1.LoadBalancerFeature
	var source conditions.RequiredFeaturesSource
	if v.is(v.serving, metav1.ConditionTrue) {
		required, source, _ = conditions.RequiredFeatures(svc)
	}
	for _, r := range reasons {
		feature, known := v1.DegradedFeature(r)
		if !known {
			continue // a provider's own reason: C3 warns about it
		}
		if need := asksFor(svc, feature); need != "" {
			f.add("P5", SeverityViolation, degradedPath(v, r), fmt.Sprintf(
				"the load balancer is degraded with reason %s, but the Service does not ask for it: %s", r, need))
		}
		if slices.Contains(required, feature) {
			where := "spec.requiredLoadBalancerFeatures"
			if source == conditions.RequiredFeaturesSourceAnnotation {
				where = "the " + v1.RequiredFeaturesAnnotation + " annotation"
			}
			f.add("P6", SeverityViolation, degradedPath(v, r), fmt.Sprintf(
				"LoadBalancerServing is True while the load balancer is degraded in %s, which %s requires; the provider must refuse the Service instead (R1)", feature, where))
		}
	}
}

// degradedPath returns the path of the condition field that names reason
// r: the Degraded reason, or its message for Multiple, or the deprecated
// LoadBalancerPortsError.
func degradedPath(v *view, r v1.LoadBalancerConditionReason) string {
	if v.is(v.degraded, metav1.ConditionTrue) {
		d := &v.conds[v.degraded]
		if d.Reason == string(r) {
			return condPath(v.degraded, "reason")
		}
		if d.Reason == string(v1.LoadBalancerReasonMultiple) && multipleNames(d.Message, r) {
			return condPath(v.degraded, "message")
		}
	}
	if v.portsErr >= 0 && r == v1.LoadBalancerReasonPortsNotSupported {
		return condPath(v.portsErr, "")
	}
	return condPath(v.degraded, "")
}

// multipleNames reports whether a Multiple message lists reason r.
func multipleNames(message string, r v1.LoadBalancerConditionReason) bool {
	list, _, _ := strings.Cut(message, ":")
	for item := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(item) == string(r) {
			return true
		}
	}
	return false
}

// notAsked says, as a sentence fragment, what a Service that does not
// ask for a feature (v1.AsksFor, P5) lacks.
var notAsked = map[v1.LoadBalancerFeature]string{
	v1.LoadBalancerFeatureSessionAffinity:          "sessionAffinity is not ClientIP",
	v1.LoadBalancerFeatureExternalTrafficPolicy:    "externalTrafficPolicy is not Local",
	v1.LoadBalancerFeatureIPFamilies:               "the Service has a single IP family",
	v1.LoadBalancerFeaturePorts:                    "the Service has a single port",
	v1.LoadBalancerFeatureLoadBalancerIP:           "spec.loadBalancerIP is not set",
	v1.LoadBalancerFeatureLoadBalancerSourceRanges: "the Service sets no loadBalancerSourceRanges",
}

// asksFor returns "" when svc asks for feature f, as P5 reads it, and
// otherwise what it would take, as a sentence fragment.
func asksFor(svc *v1.Service, f v1.LoadBalancerFeature) string {
	if v1.AsksFor(&svc.Spec.ServiceSpec, svc.Annotations, f) {
		return ""
	}
	return notAsked[f]
}
