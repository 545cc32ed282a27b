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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// conditionsPath is the JSON path of the status conditions, built once:
// on valid input the status rules build no path at all beyond what
// metav1validation.ValidateConditions builds itself.
var (
	conditionsPath       = field.NewPath("status", "conditions")
	conditionsPathPrefix = conditionsPath.String() + "["
)

// servingStatuses are the only statuses of LoadBalancerServing and
// LoadBalancerProvisioning (C1).
var servingStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}

// validateStatus validates svc's status.conditions, against old's when old
// is not nil (an update).
func validateStatus(svc, old *v1.Service, opts Options) field.ErrorList {
	conds := svc.Status.Conditions
	if len(conds) == 0 {
		return nil
	}
	// C5: the metav1.Condition rules, duplicate types and a negative
	// observedGeneration included.
	allErrs := metav1validation.ValidateConditions(conds, conditionsPath)
	lbRules := opts.enabled()
	generation := svc.Generation
	for i := range conds {
		c := &conds[i]
		// C5: observedGeneration not above metadata.generation. A
		// generation of 0 is unset (a manifest, not a stored object):
		// there is nothing to compare with.
		if generation > 0 && c.ObservedGeneration > generation {
			allErrs = append(allErrs, field.Invalid(conditionsPath.Index(i).Child("observedGeneration"), c.ObservedGeneration,
				fmt.Sprintf("must be less than or equal to metadata.generation (%d)", generation)))
		}
		if lbRules {
			if err := validateLoadBalancerCondition(c, i); err != nil {
				allErrs = append(allErrs, err)
			}
		}
	}
	if len(allErrs) == 0 {
		return nil
	}
	for _, err := range allErrs {
		// metav1validation marks most of its errors as covered by
		// declarative validation, which is true of the types it was
		// written for but not of this one: the generated validation of
		// Service treats conditions as opaque. A caller that removes
		// covered errors (field.ErrorList.RemoveCoveredByDeclarative)
		// must not lose them.
		err.CoveredByDeclarative = false
	}
	if old != nil {
		allErrs = ratchetConditions(allErrs, conds, old.Status.Conditions)
	}
	return allErrs
}

// validateLoadBalancerCondition applies the KEP-4631 rules to one condition
// at index i: C1 (Serving and Provisioning are True or False) and C3 (a
// well-known reason of the other status). Other condition types pass. It
// reports at most one error, and none that ValidateConditions reports: a
// status outside True, False and Unknown is that function's to reject, and
// C3 only judges a condition whose status is True or False.
func validateLoadBalancerCondition(c *metav1.Condition, i int) *field.Error {
	t := v1.LoadBalancerConditionType(c.Type)
	switch t {
	case v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning:
		if c.Status == metav1.ConditionUnknown {
			return field.NotSupported(conditionsPath.Index(i).Child("status"), c.Status, servingStatuses)
		}
	case v1.LoadBalancerConditionDegraded:
	default:
		return nil
	}
	if c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse {
		return nil
	}
	if s, known := v1.ReasonStatus(t, v1.LoadBalancerConditionReason(c.Reason)); known && s != c.Status {
		return field.Invalid(conditionsPath.Index(i).Child("reason"), c.Reason,
			fmt.Sprintf("must not be used with status %s: it is a reason for status %s", c.Status, s))
	}
	return nil
}

// ratchetConditions drops from errs the errors about conditions that did not
// change: a condition equal to one of old's is not validated again, whatever
// the rule (C1, C3 or C5). A duplicate type is not reported again when old
// already held at least as many conditions of that type. Errors outside
// status.conditions[i] are kept. errs is filtered in place.
//
// It runs only when there are errors, and in time linear in the lists: a
// write of many conditions must not cost an apiserver more than the
// validation itself.
func ratchetConditions(errs field.ErrorList, conds, old []metav1.Condition) field.ErrorList {
	if len(old) == 0 {
		return errs
	}
	r := conditionRatchet{conds: conds, old: old}
	kept := errs[:0]
	for _, err := range errs {
		i, whole, ok := conditionIndex(err.Field)
		if ok && i < len(conds) {
			if whole && err.Type == field.ErrorTypeDuplicate {
				if r.duplicatedInOld(i) {
					continue
				}
			} else if r.unchanged(i) {
				continue
			}
		}
		kept = append(kept, err)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
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
// building its indexes on first use.
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
	if r.oldKeys == nil {
		r.oldKeys = make(map[conditionKey]struct{}, len(r.old))
		for j := range r.old {
			r.oldKeys[keyOf(&r.old[j])] = struct{}{}
		}
	}
	_, ok := r.oldKeys[keyOf(&r.conds[i])]
	return ok
}

// duplicatedInOld reports whether old holds at least as many conditions of
// conds[i]'s type as conds[:i+1] does.
func (r *conditionRatchet) duplicatedInOld(i int) bool {
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

// conditionIndex parses the index i out of a path "status.conditions[i]"
// (whole) or "status.conditions[i].<field>" (not whole). ok is false for any
// other path.
func conditionIndex(path string) (i int, whole, ok bool) {
	rest, found := strings.CutPrefix(path, conditionsPathPrefix)
	if !found {
		return 0, false, false
	}
	n := 0
	// Nine digits hold any index of a list that fits in a request; a
	// longer run is not an index this package wrote.
	for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
		i = i*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || n >= len(rest) || rest[n] != ']' {
		return 0, false, false
	}
	rest = rest[n+1:]
	switch {
	case rest == "":
		return i, true, true
	case rest[0] == '.':
		return i, false, true
	}
	return 0, false, false
}
