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

package v1

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RequiredFeaturesAnnotation carries spec.requiredLoadBalancerFeatures on
// clusters whose apiserver does not have the field (every stock cluster
// today, which prunes it). Its value is a comma-separated list of
// LoadBalancerFeature values, for example "SessionAffinity,Ports"; spaces
// around each value are ignored. The spec field, when set, wins.
const RequiredFeaturesAnnotation = "lbstatus.github.io/required-load-balancer-features"

// RequiredFeaturesSource says where RequiredFeatures found a Service's
// required features.
type RequiredFeaturesSource string

const (
	// RequiredFeaturesSourceNone: neither the spec field nor the annotation
	// is set; the Service requires nothing.
	RequiredFeaturesSourceNone RequiredFeaturesSource = ""
	// RequiredFeaturesSourceSpec: spec.requiredLoadBalancerFeatures.
	RequiredFeaturesSourceSpec RequiredFeaturesSource = "Spec"
	// RequiredFeaturesSourceAnnotation: the RequiredFeaturesAnnotation.
	RequiredFeaturesSourceAnnotation RequiredFeaturesSource = "Annotation"
)

// RequiredFeatures returns the load-balancer features a Service requires and
// where it found them: spec.requiredLoadBalancerFeatures when it is not
// empty, else the RequiredFeaturesAnnotation, else nothing.
//
// Annotation values are returned as written (trimmed), known or not: a
// provider must refuse a feature it does not know (R2), so an unknown or
// misspelt value is never dropped. Each problem with the annotation (an
// unknown value, a duplicate, an empty item) is also reported in errs, with
// the annotation's field path. Values from the spec field are returned as
// they are; API validation (R4) is where they are checked. A nil Service
// requires nothing.
func RequiredFeatures(svc *Service) (features []LoadBalancerFeature, source RequiredFeaturesSource, errs field.ErrorList) {
	if svc == nil {
		return nil, RequiredFeaturesSourceNone, nil
	}
	if len(svc.Spec.RequiredLoadBalancerFeatures) > 0 {
		return svc.Spec.RequiredLoadBalancerFeatures, RequiredFeaturesSourceSpec, nil
	}
	value, ok := svc.Annotations[RequiredFeaturesAnnotation]
	if !ok {
		return nil, RequiredFeaturesSourceNone, nil
	}
	fldPath := field.NewPath("metadata", "annotations").Key(RequiredFeaturesAnnotation)
	seen := sets.New[LoadBalancerFeature]()
	for _, item := range strings.Split(value, ",") {
		f := LoadBalancerFeature(strings.TrimSpace(item))
		switch {
		case f == "":
			if strings.TrimSpace(value) != "" {
				errs = append(errs, field.Invalid(fldPath, value, "must be a comma-separated list of features without empty items"))
			}
			continue
		case seen.Has(f):
			errs = append(errs, field.Duplicate(fldPath, string(f)))
			continue
		case !f.IsKnown():
			errs = append(errs, field.NotSupported(fldPath, string(f), LoadBalancerFeatures()))
		}
		seen.Insert(f)
		features = append(features, f)
	}
	return features, RequiredFeaturesSourceAnnotation, errs
}

// FormatRequiredFeaturesAnnotation returns the RequiredFeaturesAnnotation
// value for a list of features: the values joined by commas, in the given
// order. An empty list gives "".
func FormatRequiredFeaturesAnnotation(features []LoadBalancerFeature) string {
	parts := make([]string, len(features))
	for i, f := range features {
		parts[i] = string(f)
	}
	return strings.Join(parts, ",")
}
