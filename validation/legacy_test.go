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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

// legacyStatus is the status validation as it was before ratcheting came
// first: validate every condition with metav1validation.ValidateConditions
// and the package's own rules, then drop the errors of unchanged
// conditions by parsing their index back out of the error path. It is the
// oracle of TestProperties_RatchetFirstEqualsLegacy.
func legacyStatus(svc, old *v1.Service, gateOn bool) field.ErrorList {
	conds := svc.Status.Conditions
	if len(conds) == 0 || !gateOn {
		return nil
	}
	base := field.NewPath("status", "conditions")
	allErrs := metav1validation.ValidateConditions(conds, base)
	// Serving and Provisioning take only True and False (C1): the metav1
	// status error lists those.
	for j, e := range allErrs {
		i, _, ok := legacyIndex(e.Field)
		if !ok || e.Type != field.ErrorTypeNotSupported {
			continue
		}
		if t := v1.LoadBalancerConditionType(conds[i].Type); t == v1.LoadBalancerConditionServing || t == v1.LoadBalancerConditionProvisioning {
			allErrs[j] = field.NotSupported(base.Index(i).Child("status"), conds[i].Status, []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse})
		}
	}
	for i := range conds {
		c := &conds[i]
		if svc.Generation > 0 && c.ObservedGeneration > svc.Generation {
			allErrs = append(allErrs, field.Invalid(base.Index(i).Child("observedGeneration"), c.ObservedGeneration,
				fmt.Sprintf("must be less than or equal to metadata.generation (%d)", svc.Generation)))
		}
		if !gateOn {
			continue
		}
		t := v1.LoadBalancerConditionType(c.Type)
		switch {
		case (t == v1.LoadBalancerConditionServing || t == v1.LoadBalancerConditionProvisioning) && c.Status == metav1.ConditionUnknown:
			allErrs = append(allErrs, field.NotSupported(base.Index(i).Child("status"), c.Status, []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}))
		case (t == v1.LoadBalancerConditionServing || t == v1.LoadBalancerConditionProvisioning || t == v1.LoadBalancerConditionDegraded) &&
			(c.Status == metav1.ConditionTrue || c.Status == metav1.ConditionFalse):
			if s, known := v1.ReasonStatus(t, v1.LoadBalancerConditionReason(c.Reason)); known && s != c.Status {
				allErrs = append(allErrs, field.Invalid(base.Index(i).Child("reason"), c.Reason,
					fmt.Sprintf("must not be used with status %s: it is a reason for status %s", c.Status, s)))
			}
		}
	}
	if old == nil || len(old.Status.Conditions) == 0 {
		return allErrs
	}
	var kept field.ErrorList
	for _, err := range allErrs {
		i, whole, ok := legacyIndex(err.Field)
		if ok && i < len(conds) {
			if whole && err.Type == field.ErrorTypeDuplicate {
				if legacyDuplicatedInOld(conds, old.Status.Conditions, i) {
					continue
				}
			} else if slices.ContainsFunc(old.Status.Conditions, func(o metav1.Condition) bool { return legacyEqual(o, conds[i]) }) {
				continue
			}
		}
		kept = append(kept, err)
	}
	return kept
}

func legacyIndex(path string) (i int, whole, ok bool) {
	rest, found := strings.CutPrefix(path, "status.conditions[")
	if !found {
		return 0, false, false
	}
	end := strings.IndexByte(rest, ']')
	if end <= 0 {
		return 0, false, false
	}
	i, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0, false, false
	}
	return i, rest[end+1:] == "", true
}

func legacyEqual(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.ObservedGeneration == b.ObservedGeneration && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

func legacyDuplicatedInOld(conds, old []metav1.Condition, i int) bool {
	n, m := 0, 0
	for j := 0; j <= i; j++ {
		if conds[j].Type == conds[i].Type {
			n++
		}
	}
	for j := range old {
		if old[j].Type == conds[i].Type {
			m++
		}
	}
	return m >= n
}

// TestProperties_RatchetFirstEqualsLegacy: validating only the changed
// conditions gives exactly the errors that validating all of them and
// dropping those of unchanged conditions gave (type, field, value and
// detail, as multisets), on the differential inputs: every drawn pair of
// old and new Services, gate on and off, create and update.
func TestProperties_RatchetFirstEqualsLegacy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pair := genOldAndNew().Draw(t, "services")
		svc, old := pair[0], pair[1]
		if rapid.Bool().Draw(t, "share conditions") && len(old.Status.Conditions) > 0 {
			// Carry some of old's conditions over, reordered, so that
			// ratcheting has work to do.
			carried := slices.Clone(old.Status.Conditions)
			slices.Reverse(carried)
			svc.Status.Conditions = append(carried[:rapid.IntRange(1, len(carried)).Draw(t, "carried")], svc.Status.Conditions...)
		}
		if rapid.Bool().Draw(t, "create") {
			old = nil
		}
		for name, opts := range map[string]validation.Options{"gate on": on, "gate off": off} {
			got := validation.ValidateServiceStatusUpdate(svc, old, opts)
			want := legacyStatus(svc, old, opts == on)
			if g, w := errorKeys(got), errorKeys(want); !slices.Equal(g, w) {
				t.Fatalf("%s:\nratchet first: %v\nlegacy:        %v", name, g, w)
			}
		}
	})
}

// errorKeys renders errors without their origin, sorted.
func errorKeys(errs field.ErrorList) []string {
	keys := make([]string, len(errs))
	for i, e := range errs {
		keys[i] = fmt.Sprintf("%s|%s|%v|%s", e.Type, e.Field, e.BadValue, e.Detail)
	}
	slices.Sort(keys)
	return keys
}
