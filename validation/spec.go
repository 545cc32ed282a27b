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
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
)

// specPath is the JSON path of a Service's spec.
var specPath = field.NewPath("spec")

// The operation options handed to the generated declarative validation. The
// option is always defined (the generated code reports an internal error
// for an undefined one); the maps are shared and only ever read.
var (
	declarativeOptionsOn  = map[string]bool{string(features.LoadBalancerStatusImprovements): true}
	declarativeOptionsOff = map[string]bool{string(features.LoadBalancerStatusImprovements): false}
)

// gateForbiddenDetail is the detail of the Forbidden error for the field
// with the gate off: the generated one names no gate, and the writer needs
// to know which gate to ask for.
var gateForbiddenDetail = "may only be set when the " + string(features.LoadBalancerStatusImprovements) + " feature gate is enabled"

// RequiredFeaturesSpec is what the spec rules read: the field and, for the
// cross-field rule, spec.type. Both have the same Go types wherever a
// caller holds them (a string type converts with a cast).
type RequiredFeaturesSpec struct {
	// Type is spec.type.
	Type corev1.ServiceType
	// RequiredLoadBalancerFeatures is spec.requiredLoadBalancerFeatures.
	RequiredLoadBalancerFeatures []v1.LoadBalancerFeature
}

// ValidateRequiredLoadBalancerFeatures validates
// spec.requiredLoadBalancerFeatures of spec, as an update from old (nil for
// a create), where fldPath is the path of the spec: errors are at
// fldPath.Child("requiredLoadBalancerFeatures") and below. It is the block
// ValidateServiceUpdate is made of.
//
// With the gate off the field is Forbidden (origin R5, the detail naming
// the gate) unless old already used it (R5 keeps it then). Otherwise the
// generated declarative rules apply (R4: a set of known values, at most 16,
// ratcheted on update, a reorder of old's values and a repeat old held as
// often included) and the field
// is Forbidden unless spec.type is LoadBalancer (R4, not reported when old
// broke the rule with the same list). A nil spec yields no errors; a gate
// that does not know the feature yields one internal error at the field.
func ValidateRequiredLoadBalancerFeatures(ctx context.Context, fldPath *field.Path, spec, old *RequiredFeaturesSpec, opts Options) field.ErrorList {
	if spec == nil {
		return nil
	}
	on, err := opts.enabled()
	if err != nil {
		return field.ErrorList{field.InternalError(fldPath.Child("requiredLoadBalancerFeatures"), err)}
	}
	return validateRequiredFeatures(ctx, fldPath, spec, old, on)
}

// validateRequiredFeatures is ValidateRequiredLoadBalancerFeatures with the
// gate read.
func validateRequiredFeatures(ctx context.Context, fldPath *field.Path, spec, old *RequiredFeaturesSpec, gateOn bool) field.ErrorList {
	// An empty set breaks no rule (it is not "used", so R5 does not forbid
	// it, and R4 has no value to judge). Most Services have none, and the
	// checker validates every observation.
	if len(spec.RequiredLoadBalancerFeatures) == 0 {
		return nil
	}
	// The option is the gate: with it off, the generated R5 rule
	// (+k8s:update=NoSet) refuses a field that old did not use and lets
	// one it used be kept and changed, as DropDisabledFields does. A
	// create is validated as an update from a spec without the field, so
	// that the rule, which cannot judge a create, judges it too; with the
	// gate on the two are the same.
	op := operation.Operation{Type: operation.Update, Options: declarativeOptionsOff}
	if gateOn {
		op.Options = declarativeOptionsOn
	}
	newSpec := &v1.ServiceSpec{RequiredLoadBalancerFeatures: spec.RequiredLoadBalancerFeatures}
	oldSpec := &v1.ServiceSpec{}
	if old != nil {
		oldSpec.RequiredLoadBalancerFeatures = old.RequiredLoadBalancerFeatures
		// The field is a set: the same values, each as often, in another
		// order are no change, and the generated code, which ratchets
		// only an equal list, is shown them as none.
		if reordered(spec.RequiredLoadBalancerFeatures, old.RequiredLoadBalancerFeatures) {
			oldSpec.RequiredLoadBalancerFeatures = spec.RequiredLoadBalancerFeatures
		}
	}
	fieldPath := fldPath.Child("requiredLoadBalancerFeatures")
	allErrs := ratchetDuplicates(v1.Validate_ServiceSpec(ctx, op, fldPath, newSpec, oldSpec), fieldPath, spec.RequiredLoadBalancerFeatures, oldSpec.RequiredLoadBalancerFeatures)
	gateRefused := false
	for i, e := range allErrs {
		if e.Origin == "update" {
			// The generated error says the field cannot be set once
			// created; the writer needs to know which gate to ask for.
			allErrs[i] = field.Forbidden(fieldPath, gateForbiddenDetail).WithOrigin(OriginR5)
			gateRefused = true
			continue
		}
		e.WithOrigin(OriginR4)
	}
	if !gateRefused {
		// Once the gate refuses the field, a second error for spec.type
		// would report the same field twice.
		if err := validateRequiredFeaturesType(fldPath, spec, old); err != nil {
			allErrs = append(allErrs, err)
		}
	}
	return allErrs
}

// validateRequiredFeaturesType is R4's cross-field rule:
// requiredLoadBalancerFeatures may only be set when spec.type is
// LoadBalancer, as for loadBalancerClass. It ratchets: an update that keeps
// the features of an old object that was not a LoadBalancer either, in any
// order (the field is a set), is not rejected for it.
func validateRequiredFeaturesType(fldPath *field.Path, spec, old *RequiredFeaturesSpec) *field.Error {
	required := spec.RequiredLoadBalancerFeatures
	if len(required) == 0 || spec.Type == corev1.ServiceTypeLoadBalancer {
		return nil
	}
	if old != nil && old.Type != corev1.ServiceTypeLoadBalancer && sameSet(old.RequiredLoadBalancerFeatures, required) {
		return nil
	}
	return field.Forbidden(fldPath.Child("requiredLoadBalancerFeatures"), "may only be used when `type` is 'LoadBalancer'").WithOrigin(OriginR4)
}

// ratchetDuplicates removes from errs the Duplicate errors, at fldPath, of
// repeats that old already held: the n-th copy of a value is not reported
// when old held at least n copies of it. The generated uniqueness check
// judges the whole list whenever it changed, so without this a Service
// stored with a repeat could not have its features edited at all, not even
// to remove another one, until the repeat was fixed.
func ratchetDuplicates(errs field.ErrorList, fldPath *field.Path, required, old []v1.LoadBalancerFeature) field.ErrorList {
	if len(old) < 2 || !slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Type == field.ErrorTypeDuplicate }) {
		return errs
	}
	// The generated code checks uniqueness only of a list within maxItems:
	// these loops are over a few items.
	var ratcheted []string
	copies := make(map[v1.LoadBalancerFeature]int, len(required))
	for i, f := range required {
		copies[f]++
		if n := copies[f]; n > 1 && n <= countOf(old, f) {
			ratcheted = append(ratcheted, fldPath.Index(i).String())
		}
	}
	if len(ratcheted) == 0 {
		return errs
	}
	return slices.DeleteFunc(errs, func(e *field.Error) bool {
		return e.Type == field.ErrorTypeDuplicate && slices.Contains(ratcheted, e.Field)
	})
}

// sameSet reports whether a and b hold the same values, in any order and
// however often: the field as R4's type rules compare it, a set.
func sameSet(a, b []v1.LoadBalancerFeature) bool {
	return sets.New(a...).Equal(sets.New(b...))
}

// reordered reports whether a holds the values of b, each as often as b,
// in any order: unlike sameSet, a repeat added or removed is a change.
func reordered(a, b []v1.LoadBalancerFeature) bool {
	return len(a) == len(b) && slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// countOf returns how many times f appears in fs.
func countOf(fs []v1.LoadBalancerFeature, f v1.LoadBalancerFeature) int {
	n := 0
	for _, g := range fs {
		if g == f {
			n++
		}
	}
	return n
}
