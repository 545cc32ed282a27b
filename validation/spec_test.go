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
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

const (
	ipFamilies     = v1.LoadBalancerFeatureIPFamilies
	ports          = v1.LoadBalancerFeaturePorts
	sessionAff     = v1.LoadBalancerFeatureSessionAffinity
	unknownFeature = v1.LoadBalancerFeature("Teleport")
)

func TestValidateService_R4(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  *v1.Service
		want field.ErrorList
	}{{
		name: "no features",
		svc:  service(),
	}, {
		name: "every known feature",
		svc:  service(withFeatures(v1.LoadBalancerFeatures()...)),
	}, {
		name: "unknown value is NotSupported at its index",
		svc:  service(withFeatures(ports, unknownFeature)),
		want: errs(want("R4", field.ErrorTypeNotSupported, featurePath(1))),
	}, {
		name: "empty value is NotSupported",
		svc:  service(withFeatures("")),
		want: errs(want("R4", field.ErrorTypeNotSupported, featurePath(0))),
	}, {
		name: "duplicate is reported on the later index",
		svc:  service(withFeatures(ports, sessionAff, ports)),
		want: errs(want("R4", field.ErrorTypeDuplicate, featurePath(2))),
	}, {
		name: "duplicate unknown value: duplicate once, unknown at each index",
		svc:  service(withFeatures(unknownFeature, unknownFeature)),
		want: errs(
			want("R4", field.ErrorTypeDuplicate, featurePath(1)),
			want("R4", field.ErrorTypeNotSupported, featurePath(0)),
			want("R4", field.ErrorTypeNotSupported, featurePath(1)),
		),
	}, {
		name: "16 values are allowed",
		svc:  service(withFeatures(seventeen()[:16]...)),
		// Sixteen values out of six features hold duplicates: every
		// later copy is one.
		want: func() field.ErrorList {
			var l field.ErrorList
			for i := len(v1.LoadBalancerFeatures()); i < 16; i++ {
				l = append(l, want("R4", field.ErrorTypeDuplicate, featurePath(i)))
			}
			return l
		}(),
	}, {
		name: "17 values are TooMany, and nothing else is checked",
		svc:  service(withFeatures(append(seventeen()[:16], unknownFeature)...)),
		want: errs(want("R4", field.ErrorTypeTooMany, featurePath(-1))),
	}, {
		name: "ClusterIP Service is Forbidden the field",
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "NodePort Service is Forbidden the field",
		svc:  service(withType(corev1.ServiceTypeNodePort), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "unset type is Forbidden the field",
		svc:  service(withType(""), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "ClusterIP Service without the field",
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures()),
	}, {
		name: "wrong type and unknown value are two problems",
		svc:  service(withType(corev1.ServiceTypeExternalName), withFeatures(unknownFeature)),
		want: errs(
			want("R4", field.ErrorTypeForbidden, featurePath(-1)),
			want("R4", field.ErrorTypeNotSupported, featurePath(0)),
		),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateService(tc.svc, on))
		})
	}
}

// TestValidateService_R4_NotSupportedListsKnownFeatures checks the
// NotSupported detail names every known feature, so a user can fix a typo.
func TestValidateService_R4_NotSupportedListsKnownFeatures(t *testing.T) {
	got := validation.ValidateService(service(withFeatures(unknownFeature)), on)
	if len(got) == 0 {
		t.Fatal("no error for an unknown feature")
	}
	for _, f := range v1.LoadBalancerFeatures() {
		if !strings.Contains(got[0].Detail, `"`+string(f)+`"`) {
			t.Errorf("detail %q does not list %q", got[0].Detail, f)
		}
	}
}

func TestValidateService_R5(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  *v1.Service
		want field.ErrorList
	}{{
		name: "no features",
		svc:  service(),
	}, {
		name: "a newly set field is Forbidden",
		svc:  service(withFeatures(ports)),
		want: errs(want("R5", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "the gate's Forbidden is not repeated for a ClusterIP Service",
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		want: errs(want("R5", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "unknown values are not checked once the field is Forbidden",
		svc:  service(withFeatures(unknownFeature, unknownFeature)),
		want: errs(want("R5", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		// The generated code checks maxItems whatever the gate: two
		// distinct problems of the same field.
		name: "17 values are Forbidden and TooMany",
		svc:  service(withFeatures(seventeen()...)),
		want: errs(
			want("R5", field.ErrorTypeForbidden, featurePath(-1)),
			want("R4", field.ErrorTypeTooMany, featurePath(-1)),
		),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateService(tc.svc, off))
		})
		t.Run(tc.name+"/after DropDisabledFields", func(t *testing.T) {
			svc := tc.svc.DeepCopy()
			validation.DropDisabledFields(svc, nil, off)
			testErrors(t, nil, validation.ValidateService(svc, off))
		})
	}
}

// TestValidateService_R5_GateLookup checks the gate is looked up by name,
// that a missing gate reads as off, and that a gate without the feature is
// an internal error naming the gate, not a silent "off".
func TestValidateService_R5_GateLookup(t *testing.T) {
	svc := service(withFeatures(ports))
	forbidden := errs(want("R5", field.ErrorTypeForbidden, featurePath(-1)))
	for name, tc := range map[string]struct {
		gate featuregate.FeatureGate
		want field.ErrorList
	}{
		"nil gate":             {gate: nil, want: forbidden},
		"gate without feature": {gate: featuregate.NewFeatureGate(), want: errs(want("", field.ErrorTypeInternal, "spec"))},
		"gate off":             {gate: gateOff, want: forbidden},
		"gate on":              {gate: gateOn},
	} {
		t.Run(name, func(t *testing.T) {
			got := validation.ValidateService(svc, validation.Options{FeatureGate: tc.gate})
			matcher.Test(t, tc.want, got)
			for _, e := range got {
				if e.Type == field.ErrorTypeInternal && !strings.Contains(e.Detail, "LoadBalancerStatusImprovements") {
					t.Errorf("internal error does not name the gate: %v", e)
				}
			}
		})
	}
}

func TestValidateServiceUpdate_R4(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, svc *v1.Service
		want     field.ErrorList
	}{{
		name: "adding a known feature",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports, sessionAff)),
	}, {
		name: "adding an unknown feature",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports, unknownFeature)),
		want: errs(want("R4", field.ErrorTypeNotSupported, featurePath(1))),
	}, {
		name: "adding a duplicate",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports, ports)),
		want: errs(want("R4", field.ErrorTypeDuplicate, featurePath(1))),
	}, {
		name: "growing to 17 values",
		old:  service(withFeatures(seventeen()[:6]...)),
		svc:  service(withFeatures(seventeen()...)),
		want: errs(want("R4", field.ErrorTypeTooMany, featurePath(-1))),
	}, {
		name: "changing type away from LoadBalancer keeping the field",
		old:  service(withFeatures(ports)),
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "changing type away from LoadBalancer clearing the field",
		old:  service(withFeatures(ports)),
		svc:  service(withType(corev1.ServiceTypeClusterIP)),
	}, {
		name: "setting the field on a ClusterIP Service",
		old:  service(withType(corev1.ServiceTypeClusterIP)),
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "changing the field of a ClusterIP Service that already had it",
		old:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports, sessionAff)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		// Ratcheting keeps the old list, not any list within it: a
		// smaller one is still a list on the wrong type.
		name: "removing one feature of a ClusterIP Service that already had two",
		old:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports, sessionAff)),
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "replacing the feature of a ClusterIP Service that already had one",
		old:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(sessionAff)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "reordering the field of a ClusterIP Service that already had it (a set)",
		old:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports, sessionAff)),
		svc:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(sessionAff, ports)),
	}, {
		name: "changing type to LoadBalancer",
		old:  service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		svc:  service(withFeatures(ports)),
	}, {
		name: "adding a feature to a list stored with a repeat",
		old:  service(withFeatures(ports, ports)),
		svc:  service(withFeatures(ports, ports, sessionAff)),
	}, {
		name: "reordering a list stored with a repeat",
		old:  service(withFeatures(ports, sessionAff, ports)),
		svc:  service(withFeatures(sessionAff, ports, ports)),
	}, {
		name: "a third copy of a value stored twice",
		old:  service(withFeatures(ports, ports)),
		svc:  service(withFeatures(ports, ports, ports)),
		want: errs(want("R4", field.ErrorTypeDuplicate, featurePath(2))),
	}, {
		name: "repeating another value of a list stored with a repeat",
		old:  service(withFeatures(ports, ports, sessionAff)),
		svc:  service(withFeatures(ports, ports, sessionAff, sessionAff)),
		want: errs(want("R4", field.ErrorTypeDuplicate, featurePath(3))),
	}, {
		name: "removing one of 17 stored values, repeats left as they were",
		old:  service(withFeatures(seventeen()...)),
		svc:  service(withFeatures(seventeen()[:16]...)),
	}, {
		// A reorder is no change of a set: kept as stored, not
		// newly refused for its length.
		name: "reordering a list stored with 17 values",
		old:  service(withFeatures(seventeen()...)),
		svc:  service(withFeatures(reversed(seventeen())...)),
	}, {
		name: "reordering a list stored with 17 values, one replaced",
		old:  service(withFeatures(seventeen()...)),
		svc:  service(withFeatures(append(reversed(seventeen())[1:], unknownFeature)...)),
		want: errs(want("R4", field.ErrorTypeTooMany, featurePath(-1))),
	}, {
		name: "reordering a list stored with an unknown value",
		old:  service(withFeatures(ports, unknownFeature)),
		svc:  service(withFeatures(unknownFeature, ports)),
	}, {
		name: "growing a list stored with 17 values",
		old:  service(withFeatures(seventeen()...)),
		svc:  service(withFeatures(append(seventeen(), ports)...)),
		want: errs(want("R4", field.ErrorTypeTooMany, featurePath(-1))),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateServiceUpdate(tc.svc, tc.old, on))
			// With the gate off a field old used is kept, and so
			// validated as with the gate on (R5).
			if len(tc.old.Spec.RequiredLoadBalancerFeatures) > 0 {
				testErrors(t, tc.want, validation.ValidateServiceUpdate(tc.svc, tc.old, off))
			}
		})
	}
}

func TestValidateServiceUpdate_R5(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, svc *v1.Service
		want     field.ErrorList
	}{{
		name: "newly set field is Forbidden",
		old:  service(),
		svc:  service(withFeatures(ports)),
		want: errs(want("R5", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "field kept unchanged from old",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports)),
	}, {
		name: "field kept from old, with an edit",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports, sessionAff)),
	}, {
		name: "field kept from old is validated as with the gate on",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports, unknownFeature, ports)),
		want: errs(
			want("R4", field.ErrorTypeDuplicate, featurePath(2)),
			want("R4", field.ErrorTypeNotSupported, featurePath(1)),
		),
	}, {
		name: "field kept from old, type rule applies",
		old:  service(withFeatures(ports)),
		svc:  service(withType(corev1.ServiceTypeNodePort), withFeatures(ports)),
		want: errs(want("R4", field.ErrorTypeForbidden, featurePath(-1))),
	}, {
		name: "field cleared",
		old:  service(withFeatures(ports)),
		svc:  service(),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateServiceUpdate(tc.svc, tc.old, off))
		})
		t.Run(tc.name+"/after DropDisabledFields", func(t *testing.T) {
			svc := tc.svc.DeepCopy()
			validation.DropDisabledFields(svc, tc.old, off)
			// Whatever DropDisabledFields keeps is validated as with the
			// gate on.
			testErrors(t, validation.ValidateServiceUpdate(svc, tc.old, on), validation.ValidateServiceUpdate(svc, tc.old, off))
		})
	}
}

func TestDropDisabledFields_R5(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     validation.Options
		old, svc *v1.Service
		want     []v1.LoadBalancerFeature
	}{{
		name: "create, gate off: dropped",
		opts: off,
		svc:  service(withFeatures(ports)),
	}, {
		name: "create, nil gate: dropped",
		svc:  service(withFeatures(ports)),
	}, {
		name: "create, gate on: kept",
		opts: on,
		svc:  service(withFeatures(ports)),
		want: []v1.LoadBalancerFeature{ports},
	}, {
		name: "update, gate off, old without the field: dropped",
		opts: off,
		old:  service(),
		svc:  service(withFeatures(ports)),
	}, {
		name: "update, gate off, old with the field: kept as written",
		opts: off,
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports, ipFamilies)),
		want: []v1.LoadBalancerFeature{ports, ipFamilies},
	}, {
		name: "update, gate on, old without the field: kept",
		opts: on,
		old:  service(),
		svc:  service(withFeatures(ports)),
		want: []v1.LoadBalancerFeature{ports},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			svc := tc.svc.DeepCopy()
			validation.DropDisabledFields(svc, tc.old, tc.opts)
			if got := svc.Spec.RequiredLoadBalancerFeatures; !slices.Equal(got, tc.want) {
				t.Errorf("requiredLoadBalancerFeatures = %v, want %v", got, tc.want)
			}
			// Nothing else changes.
			svc.Spec.RequiredLoadBalancerFeatures = tc.svc.Spec.RequiredLoadBalancerFeatures
			if !reflect.DeepEqual(svc, tc.svc) {
				t.Errorf("DropDisabledFields changed more than the field:\n%v\n%v", svc, tc.svc)
			}
		})
	}
}

func TestDropTypeDependentFields_R4(t *testing.T) {
	clusterIP, nodePort := withType(corev1.ServiceTypeClusterIP), withType(corev1.ServiceTypeNodePort)
	for _, tc := range []struct {
		name     string
		old, svc *v1.Service
		want     []v1.LoadBalancerFeature
	}{{
		name: "type changed away, field as it was: dropped",
		old:  service(withFeatures(ports, ipFamilies)),
		svc:  service(clusterIP, withFeatures(ports, ipFamilies)),
	}, {
		name: "type changed away, field changed too: kept, for validation to refuse",
		old:  service(withFeatures(ports)),
		svc:  service(nodePort, withFeatures(ports, ipFamilies)),
		want: []v1.LoadBalancerFeature{ports, ipFamilies},
	}, {
		// The field is a set: a reorder is no change of it.
		name: "type changed away, field reordered: dropped",
		old:  service(withFeatures(ports, ipFamilies)),
		svc:  service(clusterIP, withFeatures(ipFamilies, ports)),
	}, {
		name: "type changed away, a feature replaced: kept, for validation to refuse",
		old:  service(withFeatures(ports, ipFamilies)),
		svc:  service(clusterIP, withFeatures(ports, sessionAff)),
		want: []v1.LoadBalancerFeature{ports, sessionAff},
	}, {
		name: "type still LoadBalancer: kept",
		old:  service(withFeatures(ports)),
		svc:  service(withFeatures(ports)),
		want: []v1.LoadBalancerFeature{ports},
	}, {
		name: "old not a LoadBalancer: kept",
		old:  service(clusterIP, withFeatures(ports)),
		svc:  service(nodePort, withFeatures(ports)),
		want: []v1.LoadBalancerFeature{ports},
	}, {
		name: "create: kept",
		svc:  service(clusterIP, withFeatures(ports)),
		want: []v1.LoadBalancerFeature{ports},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			svc := tc.svc.DeepCopy()
			validation.DropTypeDependentFields(svc, tc.old)
			if got := svc.Spec.RequiredLoadBalancerFeatures; !slices.Equal(got, tc.want) {
				t.Errorf("requiredLoadBalancerFeatures = %v, want %v", got, tc.want)
			}
			svc.Spec.RequiredLoadBalancerFeatures = tc.svc.Spec.RequiredLoadBalancerFeatures
			if !reflect.DeepEqual(svc, tc.svc) {
				t.Errorf("DropTypeDependentFields changed more than the field:\n%v\n%v", svc, tc.svc)
			}
		})
	}

	// The update an apiserver then validates: a type change that leaves
	// the field alone passes; one that also writes the field is R4.
	old := service(withFeatures(ports, ipFamilies))
	for _, tc := range []struct {
		svc  *v1.Service
		want field.ErrorList
	}{
		{service(clusterIP, withFeatures(ports, ipFamilies)), nil},
		{service(clusterIP, withFeatures(ipFamilies, ports)), nil},
		{service(clusterIP, withFeatures(ipFamilies)), field.ErrorList{field.Forbidden(field.NewPath("spec", "requiredLoadBalancerFeatures"), "").WithOrigin(validation.OriginR4)}},
	} {
		validation.DropTypeDependentFields(tc.svc, old)
		matcher.Test(t, tc.want, validation.ValidateServiceUpdate(tc.svc, old, on))
	}
	validation.DropTypeDependentFields(nil, old)
}

func TestNilInputs(t *testing.T) {
	for name, opts := range gateOptions {
		t.Run(name, func(t *testing.T) {
			if got := validation.ValidateService(nil, opts); got != nil {
				t.Errorf("ValidateService(nil) = %v", got)
			}
			if got := validation.ValidateServiceUpdate(nil, service(), opts); got != nil {
				t.Errorf("ValidateServiceUpdate(nil, svc) = %v", got)
			}
			if got := validation.ValidateServiceStatusUpdate(nil, service(), opts); got != nil {
				t.Errorf("ValidateServiceStatusUpdate(nil, svc) = %v", got)
			}
			validation.DropDisabledFields(nil, nil, opts)
			if got := validation.ValidateRequiredLoadBalancerFeatures(context.Background(), field.NewPath("spec"), nil, &validation.RequiredFeaturesSpec{}, opts); got != nil {
				t.Errorf("ValidateRequiredLoadBalancerFeatures(nil spec) = %v", got)
			}
			if got := validation.ConditionsSpecFor(nil); !reflect.DeepEqual(got, validation.ConditionsSpec{}) {
				t.Errorf("ConditionsSpecFor(nil) = %+v", got)
			}

			// A nil old is a create.
			svc := service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports),
				withConditions(changed(servingTrue, func(c *metav1.Condition) { c.Reason = "" })))
			matcher.Test(t, validation.ValidateService(svc, opts), validation.ValidateServiceUpdate(svc, nil, opts))
			matcher.Test(t, validation.ValidateService(svc, opts).Filter(under("spec")),
				validation.ValidateServiceStatusUpdate(svc, nil, opts))
		})
	}
}
