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
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
)

// requiredFeaturesPath is the JSON path of the new spec field. Paths are
// immutable, so one value serves every call.
var requiredFeaturesPath = field.NewPath("spec", "requiredLoadBalancerFeatures")

// The operation options handed to the generated declarative validation. The
// option is always defined (the generated code reports an internal error
// for an undefined one); the maps are shared and only ever read.
var (
	declarativeOptionsOn  = map[string]bool{string(features.LoadBalancerStatusImprovements): true}
	declarativeOptionsOff = map[string]bool{string(features.LoadBalancerStatusImprovements): false}
)

// validateSpec validates spec.requiredLoadBalancerFeatures of svc, against
// old when old is not nil (an update).
//
// The generated Validate_Service covers the field's own rules: the gate
// (+k8s:ifDisabled=+k8s:forbidden), at most 16 items (TooMany, which stops
// the other checks), set semantics (Duplicate) and the enum (NotSupported,
// listing the known values), and it ratchets on update: an unchanged field is
// not validated, and an item already present in old is not checked against
// the enum again. Only the cross-field rule on spec.type is hand-written.
func validateSpec(svc, old *v1.Service, opts Options) field.ErrorList {
	// The option is on when the gate is, and also when old already uses the
	// field: that is when DropDisabledFields keeps it, so validation must
	// accept it too, edits included (R5).
	allowed := opts.enabled() || usesRequiredFeatures(old)
	op := operation.Operation{Type: operation.Create, Options: declarativeOptionsOff}
	if allowed {
		op.Options = declarativeOptionsOn
	}
	if old != nil {
		op.Type = operation.Update
	}
	allErrs := v1.Validate_Service(context.Background(), op, nil, svc, old)
	if allowed {
		// With the option off a non-empty field already has the generated
		// Forbidden error; a second one for spec.type would report the
		// same field twice.
		if err := validateRequiredFeaturesType(svc, old); err != nil {
			allErrs = append(allErrs, err)
		}
	}
	return allErrs
}

// validateRequiredFeaturesType is R4's cross-field rule:
// requiredLoadBalancerFeatures may only be set when spec.type is
// LoadBalancer, as for loadBalancerClass. It ratchets: an update that keeps
// the features of an old object that was not a LoadBalancer either is not
// rejected for it.
func validateRequiredFeaturesType(svc, old *v1.Service) *field.Error {
	required := svc.Spec.RequiredLoadBalancerFeatures
	if len(required) == 0 || svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		return nil
	}
	if old != nil && old.Spec.Type != corev1.ServiceTypeLoadBalancer &&
		slices.Equal(old.Spec.RequiredLoadBalancerFeatures, required) {
		return nil
	}
	return field.Forbidden(requiredFeaturesPath, "may only be used when `type` is 'LoadBalancer'")
}
