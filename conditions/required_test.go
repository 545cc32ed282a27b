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
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

func TestRequiredFeatures(t *testing.T) {
	annotation := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	for _, tc := range []struct {
		name        string
		spec        []v1.LoadBalancerFeature
		annotations map[string]string
		want        []v1.LoadBalancerFeature
		source      RequiredFeaturesSource
		errs        field.ErrorList
	}{{
		name:   "nothing",
		source: RequiredFeaturesSourceNone,
	}, {
		name:   "spec field",
		spec:   []v1.LoadBalancerFeature{"Ports", "SessionAffinity"},
		want:   []v1.LoadBalancerFeature{"Ports", "SessionAffinity"},
		source: RequiredFeaturesSourceSpec,
	}, {
		name:        "spec field wins over the annotation",
		spec:        []v1.LoadBalancerFeature{"Ports"},
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: "IPFamilies"},
		want:        []v1.LoadBalancerFeature{"Ports"},
		source:      RequiredFeaturesSourceSpec,
	}, {
		// "requiredLoadBalancerFeatures": [] decodes to an empty, non-nil
		// list: an empty field, so the annotation counts.
		name:        "empty spec field, annotation",
		spec:        []v1.LoadBalancerFeature{},
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Ports"},
		want:        []v1.LoadBalancerFeature{"Ports"},
		source:      RequiredFeaturesSourceAnnotation,
	}, {
		name:        "annotation, spaces trimmed",
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: " SessionAffinity , LoadBalancerSourceRanges"},
		want:        []v1.LoadBalancerFeature{"SessionAffinity", "LoadBalancerSourceRanges"},
		source:      RequiredFeaturesSourceAnnotation,
	}, {
		name:        "empty annotation requires nothing",
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: " "},
		source:      RequiredFeaturesSourceAnnotation,
	}, {
		// No feature named: nothing required, but malformed all the same.
		name:        "annotation of commas and blanks requires nothing and is reported",
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: " , "},
		source:      RequiredFeaturesSourceAnnotation,
		errs:        field.ErrorList{field.Invalid(annotation, " , ", "")},
	}, {
		name:        "unknown value is kept and reported",
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Ports,Teleport"},
		want:        []v1.LoadBalancerFeature{"Ports", "Teleport"},
		source:      RequiredFeaturesSourceAnnotation,
		errs:        field.ErrorList{field.NotSupported(annotation, "Teleport", v1.LoadBalancerFeatures())},
	}, {
		name:        "duplicate and empty items are reported",
		annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Ports,,Ports"},
		want:        []v1.LoadBalancerFeature{"Ports"},
		source:      RequiredFeaturesSourceAnnotation,
		errs: field.ErrorList{
			field.Invalid(annotation, "Ports,,Ports", ""),
			field.Duplicate(annotation, "Ports"),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}}
			svc.Spec.RequiredLoadBalancerFeatures = tc.spec
			got, source, errs := RequiredFeatures(svc)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("features (-want +got):\n%s", diff)
			}
			if source != tc.source {
				t.Errorf("source = %q, want %q", source, tc.source)
			}
			field.ErrorMatcher{}.ByType().ByField().Test(t, tc.errs, errs)
		})
	}
	if f, s, errs := RequiredFeatures[*v1.Service](nil); f != nil || s != RequiredFeaturesSourceNone || errs != nil {
		t.Errorf("nil Service: %v %q %v", f, s, errs)
	}
}

// TestRequiredFeatures_CoreService: a client-go Service is read from the
// annotation, as a stock cluster returns it.
func TestRequiredFeatures_CoreService(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Ports"}}}
	got, source, errs := RequiredFeatures(svc)
	if !slices.Equal(got, []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}) || source != RequiredFeaturesSourceAnnotation || len(errs) != 0 {
		t.Errorf("got %v from %q, errors %v; want Ports from the annotation", got, source, errs)
	}
	if f, s, errs := RequiredFeatures[*corev1.Service](nil); f != nil || s != RequiredFeaturesSourceNone || errs != nil {
		t.Errorf("nil Service: %v %q %v", f, s, errs)
	}
}

func TestFormatRequiredFeaturesAnnotation_RoundTrips(t *testing.T) {
	in := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies, v1.LoadBalancerFeatureLoadBalancerIP}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		v1.RequiredFeaturesAnnotation: FormatRequiredFeaturesAnnotation(in),
	}}}
	got, _, errs := RequiredFeatures(svc)
	if diff := cmp.Diff(in, got); diff != "" || len(errs) != 0 {
		t.Errorf("round trip (-want +got):\n%s\nerrs: %v", diff, errs)
	}
}

// SetRequiredFeaturesAnnotation: a client-go Service without annotations
// comes to require the features through the annotation (R1), unknown ones
// too (R2), keeping other annotations; none removes the request.
func TestSetRequiredFeaturesAnnotation_R1(t *testing.T) {
	svc := &corev1.Service{}
	SetRequiredFeaturesAnnotation(svc, v1.LoadBalancerFeatureSessionAffinity, "Teleport")
	got, source, _ := RequiredFeatures(svc)
	want := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, "Teleport"}
	if !slices.Equal(got, want) || source != RequiredFeaturesSourceAnnotation {
		t.Errorf("got %v from %q; want %v from the annotation", got, source, want)
	}
	svc.Annotations["example.com/other"] = "kept"
	SetRequiredFeaturesAnnotation(svc)
	if _, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]; ok || svc.Annotations["example.com/other"] != "kept" {
		t.Errorf("annotations %v; want the request removed and the other kept", svc.Annotations)
	}

	ours := &v1.Service{}
	SetRequiredFeaturesAnnotation(ours, v1.LoadBalancerFeaturePorts)
	if got, source, _ := RequiredFeatures(ours); !slices.Equal(got, []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}) || source != RequiredFeaturesSourceAnnotation {
		t.Errorf("lbstatus Service: got %v from %q; want Ports from the annotation", got, source)
	}
	SetRequiredFeaturesAnnotation[*corev1.Service](nil, v1.LoadBalancerFeaturePorts) // no panic
	SetRequiredFeaturesAnnotation(&corev1.Service{})                                 // nothing to remove
}
