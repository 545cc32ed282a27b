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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
)

// The origins of this package's errors: each error's Origin is the ID of
// the specification's rule it enforces, for callers (the conformance
// checker, tests with field.ErrorMatcher.ByOrigin) that sort errors by
// rule without reading paths.
const (
	OriginC1 = "C1" // Serving and Provisioning are True or False
	OriginC3 = "C3" // a well-known reason of the other status
	OriginC5 = "C5" // the metav1.Condition rules, observedGeneration, no type twice
	OriginL4 = "L4" // Serving=True goes with an ingress entry that has an address
	OriginL5 = "L5" // Serving=False's reason and Provisioning's status agree
	OriginP5 = "P5" // a Degraded reason names something the Service asks for
	OriginP6 = "P6" // no degradation in a required feature while serving
	OriginR4 = "R4" // requiredLoadBalancerFeatures: known values, a set, LoadBalancer only
	OriginR5 = "R5" // requiredLoadBalancerFeatures with the gate off
)

// Options carries what validation cannot read from the object itself.
type Options struct {
	// FeatureGate answers feature-gate questions by name; nil means every
	// gate at its default (LoadBalancerStatusImprovements off). A gate that
	// does not know LoadBalancerStatusImprovements is an error: validation
	// returns an internal error naming the gate, DropDisabledFields returns
	// it.
	FeatureGate featuregate.FeatureGate

	// CrossConditionRules adds, with the gate on, the rules that judge the
	// conditions together and against the spec and the ingress, for a
	// LoadBalancer Service: L4 (Serving=True with an address in the
	// ingress), L5 (Serving's reason and Provisioning's status agree), P5
	// (a Degraded reason names something the Service asks for) and P6 (no
	// degradation in a required feature while serving). An apiserver that wants a provider's
	// broken status write refused sets it; the conformance checker, which
	// judges those rules itself with knowledge of the history (a status
	// that answers an older spec), does not. Off by default.
	CrossConditionRules bool
}

// enabled reports whether LoadBalancerStatusImprovements is on.
func (o Options) enabled() (bool, error) {
	return features.Enabled(o.FeatureGate)
}

// ValidateService validates a Service as it would be created: the KEP-4631
// spec field (R4, R5) and, with the gate on, the status conditions (C5, C1
// and C3, L4, L5, P5 and P6 too with Options.CrossConditionRules). It checks
// nothing of the upstream core/v1 fields (see the package doc). A nil svc
// has nothing to validate and yields no errors.
func ValidateService(svc *v1.Service, opts Options) field.ErrorList {
	return ValidateServiceUpdate(svc, nil, opts)
}

// ValidateServiceUpdate validates an update of a Service from old to svc:
// the same rules as ValidateService, except that data that did not change is
// not validated again (ratcheting), and that the spec field stays allowed
// with the gate off when old already used it (R5). A nil old is validated as
// a create; a nil svc yields no errors.
func ValidateServiceUpdate(svc, old *v1.Service, opts Options) field.ErrorList {
	if svc == nil {
		return nil
	}
	on, err := opts.enabled()
	if err != nil {
		return field.ErrorList{field.InternalError(specPath, err)}
	}
	ctx := context.Background()
	var oldSpec *RequiredFeaturesSpec
	if old != nil {
		oldSpec = requiredFeaturesSpecOf(old)
	}
	allErrs := validateRequiredFeatures(ctx, specPath, requiredFeaturesSpecOf(svc), oldSpec, on)
	return append(allErrs, validateConditions(conditionsPath, svc.Status.Conditions, oldConditions(old), conditionsSpecIfNeeded(svc, old, on, opts), on, on && opts.CrossConditionRules)...)
}

// ValidateServiceStatusUpdate validates a write of the status subresource
// from old to svc: status.conditions only, with the gate on (C5, C1 and C3,
// L4, L5, P5 and P6 too with Options.CrossConditionRules), ratcheted per
// condition. The spec is not changed by such a write (an apiserver resets
// it to old's) but P5 and P6 read it, and L4 the ingress of both. A nil old is validated as a create; a nil
// svc yields no errors.
func ValidateServiceStatusUpdate(svc, old *v1.Service, opts Options) field.ErrorList {
	if svc == nil {
		return nil
	}
	on, err := opts.enabled()
	if err != nil {
		return field.ErrorList{field.InternalError(conditionsPath, err)}
	}
	return validateConditions(conditionsPath, svc.Status.Conditions, oldConditions(old), conditionsSpecIfNeeded(svc, old, on, opts), on, on && opts.CrossConditionRules)
}

// conditionsSpecIfNeeded is ConditionsSpecFor(svc), with old's ingress
// (nil for a nil old), and without what only the cross-condition rules
// read when none of them will.
func conditionsSpecIfNeeded(svc, old *v1.Service, gateOn bool, opts Options) ConditionsSpec {
	if !gateOn || !opts.CrossConditionRules || len(svc.Status.Conditions) == 0 {
		return ConditionsSpec{Generation: svc.Generation, Type: svc.Spec.Type}
	}
	spec := ConditionsSpecFor(svc)
	if old != nil {
		spec.OldIngress = old.Status.LoadBalancer.Ingress
	}
	return spec
}

// requiredFeaturesSpecOf returns the part of svc's spec the spec rules
// read.
func requiredFeaturesSpecOf(svc *v1.Service) *RequiredFeaturesSpec {
	return &RequiredFeaturesSpec{Type: svc.Spec.Type, RequiredLoadBalancerFeatures: svc.Spec.RequiredLoadBalancerFeatures}
}

// oldConditions returns old's conditions; nil for a nil old.
func oldConditions(old *v1.Service) []metav1.Condition {
	if old == nil {
		return nil
	}
	return old.Status.Conditions
}

// DropDisabledFields clears spec.requiredLoadBalancerFeatures from svc when
// LoadBalancerStatusImprovements is off and old does not already use the
// field (R5): a create (nil old) loses it, an update of a Service that had it
// keeps the new value as written. An apiserver calls it before validation,
// on create and on update. A nil svc is left alone. A gate that does not
// know the feature is returned as an error and svc is left alone.
func DropDisabledFields(svc, old *v1.Service, opts Options) error {
	if svc == nil {
		return nil
	}
	on, err := opts.enabled()
	if err != nil {
		return err
	}
	if on || usesRequiredFeatures(old) {
		return nil
	}
	svc.Spec.RequiredLoadBalancerFeatures = nil
	return nil
}

// DropTypeDependentFields clears spec.requiredLoadBalancerFeatures from svc
// when an update changes spec.type from LoadBalancer to another type and
// leaves the field as old had it (R4), as kube-apiserver clears
// loadBalancerClass: the field no longer applies, and the user did not
// write it in this update. The field is a set, so the same values in
// another order are the field as old had it. A user who also changed the
// set gets R4's Forbidden from validation. An apiserver calls it on update, before
// validation, whatever the gate; a nil svc or old (a create) is left alone.
func DropTypeDependentFields(svc, old *v1.Service) {
	if svc == nil || old == nil || old.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		return
	}
	if sameSet(svc.Spec.RequiredLoadBalancerFeatures, old.Spec.RequiredLoadBalancerFeatures) {
		svc.Spec.RequiredLoadBalancerFeatures = nil
	}
}

// usesRequiredFeatures reports whether svc sets
// spec.requiredLoadBalancerFeatures; false for nil.
func usesRequiredFeatures(svc *v1.Service) bool {
	return svc != nil && len(svc.Spec.RequiredLoadBalancerFeatures) > 0
}
