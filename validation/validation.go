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
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
)

// Options carries what validation cannot read from the object itself.
type Options struct {
	// FeatureGate answers feature-gate questions by name; nil means every
	// gate at its default (LoadBalancerStatusImprovements off). A gate that
	// does not know LoadBalancerStatusImprovements is read as off too.
	FeatureGate featuregate.FeatureGate
}

// enabled reports whether LoadBalancerStatusImprovements is on.
func (o Options) enabled() bool {
	return features.Enabled(o.FeatureGate)
}

// ValidateService validates a Service as it would be created: the KEP-4631
// spec field (R4, R5) and the status conditions (C5, and C1 and C3 with the
// gate on). It checks nothing of the upstream core/v1 fields (see the
// package doc). A nil svc has nothing to validate and yields no errors.
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
	allErrs := validateSpec(svc, old, opts)
	allErrs = append(allErrs, validateStatus(svc, old, opts)...)
	return allErrs
}

// ValidateServiceStatusUpdate validates a write of the status subresource
// from old to svc: status.conditions only (C5, and C1 and C3 with the gate
// on), ratcheted per condition. The spec is not looked at: an apiserver
// resets it to old's on a status write. A nil old is validated as a create;
// a nil svc yields no errors.
func ValidateServiceStatusUpdate(svc, old *v1.Service, opts Options) field.ErrorList {
	if svc == nil {
		return nil
	}
	return validateStatus(svc, old, opts)
}

// DropDisabledFields clears spec.requiredLoadBalancerFeatures from svc when
// LoadBalancerStatusImprovements is off and old does not already use the
// field (R5): a create (nil old) loses it, an update of a Service that had it
// keeps the new value as written. An apiserver calls it before validation,
// on create and on update. A nil svc is left alone.
func DropDisabledFields(svc, old *v1.Service, opts Options) {
	if svc == nil || opts.enabled() || usesRequiredFeatures(old) {
		return
	}
	svc.Spec.RequiredLoadBalancerFeatures = nil
}

// usesRequiredFeatures reports whether svc sets
// spec.requiredLoadBalancerFeatures; false for nil.
func usesRequiredFeatures(svc *v1.Service) bool {
	return svc != nil && len(svc.Spec.RequiredLoadBalancerFeatures) > 0
}
