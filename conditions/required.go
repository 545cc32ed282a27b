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

package conditions

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// RequiredFeaturesSource says where RequiredFeatures found a Service's
// required features.
type RequiredFeaturesSource string

const (
	// RequiredFeaturesSourceNone: neither the spec field nor the annotation
	// is set; the Service requires nothing.
	RequiredFeaturesSourceNone RequiredFeaturesSource = ""
	// RequiredFeaturesSourceSpec: spec.requiredLoadBalancerFeatures.
	RequiredFeaturesSourceSpec RequiredFeaturesSource = "Spec"
	// RequiredFeaturesSourceAnnotation: v1.RequiredFeaturesAnnotation.
	RequiredFeaturesSourceAnnotation RequiredFeaturesSource = "Annotation"
)

// RequiredFeatures returns the load-balancer features a Service requires and
// where it found them: spec.requiredLoadBalancerFeatures when it is not
// empty, else v1.RequiredFeaturesAnnotation, else nothing.
//
// Annotation values are returned as written (trimmed), known or not, in
// their order, each once: a provider must refuse a feature it does not know
// (R2), so an unknown or misspelt value is never dropped, while an empty
// item and a repeat of a value are. The problems with the annotation are
// also reported in errs, with the annotation's field path, as
// v1.ParseRequiredFeatures reports them: one error for the unknown values,
// one for the repeats, one for the empty items, and, for more than
// v1.MaxRequiredFeatures items, TooMany instead of the first two. Values
// from the spec field are returned as they are; API validation (R4) is
// where they are checked. A client-go Service, which has no spec field, is
// read from the annotation alone. A nil Service requires nothing.
func RequiredFeatures[S Object](s S) (features []v1.LoadBalancerFeature, source RequiredFeaturesSource, errs field.ErrorList) {
	svc := view(s)
	if svc == nil {
		return nil, RequiredFeaturesSourceNone, nil
	}
	if len(svc.Spec.RequiredLoadBalancerFeatures) > 0 {
		return svc.Spec.RequiredLoadBalancerFeatures, RequiredFeaturesSourceSpec, nil
	}
	value, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]
	if !ok {
		return nil, RequiredFeaturesSourceNone, nil
	}
	features, errs = v1.ParseRequiredFeatures(value, field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation))
	return features, RequiredFeaturesSourceAnnotation, errs
}

// FormatRequiredFeaturesAnnotation returns the v1.RequiredFeaturesAnnotation
// value for a list of features: the values joined by commas, in the given
// order. An empty list gives "".
func FormatRequiredFeaturesAnnotation(features []v1.LoadBalancerFeature) string {
	parts := make([]string, len(features))
	for i, f := range features {
		parts[i] = string(f)
	}
	return strings.Join(parts, ",")
}

// SetRequiredFeaturesAnnotation makes svc require features (R1) through
// v1.RequiredFeaturesAnnotation, which every cluster keeps, unlike
// spec.requiredLoadBalancerFeatures, which a stock apiserver drops: the
// annotation is set to FormatRequiredFeaturesAnnotation(features), and
// other annotations are kept. No features removes the annotation. Features
// are written as given, known or not, so that a test can require one no
// provider knows (R2); on a *v1.Service whose spec field is set, the field
// is what RequiredFeatures reads. A nil svc is left alone.
func SetRequiredFeaturesAnnotation[S Object](svc S, features ...v1.LoadBalancerFeature) {
	var meta *metav1.ObjectMeta
	switch s := any(svc).(type) {
	case *v1.Service:
		if s != nil {
			meta = &s.ObjectMeta
		}
	case *corev1.Service:
		if s != nil {
			meta = &s.ObjectMeta
		}
	}
	switch {
	case meta == nil:
	case len(features) == 0:
		delete(meta.Annotations, v1.RequiredFeaturesAnnotation)
	default:
		if meta.Annotations == nil {
			meta.Annotations = map[string]string{}
		}
		meta.Annotations[v1.RequiredFeaturesAnnotation] = FormatRequiredFeaturesAnnotation(features)
	}
}
