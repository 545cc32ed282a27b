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

package v1_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// filledCoreService returns a core/v1 Service with every field set, the
// same on every call.
func filledCoreService(t *testing.T, withStatus bool) *corev1.Service {
	t.Helper()
	obj, err := roundtrip.CompatibilityTestObject(core(t).scheme, corev1.SchemeGroupVersion.WithKind("Service"), wireFillFuncs())
	if err != nil {
		t.Fatalf("filling core Service: %v", err)
	}
	svc := obj.(*corev1.Service)
	svc.APIVersion, svc.Kind = "v1", "Service"
	if !withStatus {
		svc.Status = corev1.ServiceStatus{}
	}
	return svc
}

// wireFillFuncs fill the types whose in-memory form has more states than
// their encoding (both halves of an IntOrString, say) with a canonical
// value, so that a filled object survives a trip through the wire.
func wireFillFuncs() map[reflect.Type]roundtrip.FillFunc {
	return map[reflect.Type]roundtrip.FillFunc{
		reflect.TypeOf(&metav1.TypeMeta{}): func(string, int, interface{}) {},
		reflect.TypeOf(&metav1.FieldsV1{}): func(_ string, _ int, obj interface{}) {
			obj.(*metav1.FieldsV1).SetRawString(`{"f:metadata":{}}`)
		},
		reflect.TypeOf(&metav1.Time{}): func(_ string, i int, obj interface{}) {
			obj.(*metav1.Time).Time = time.Date(2000+i, 1, 1, 1, 1, 1, 0, time.UTC)
		},
		reflect.TypeOf(&intstr.IntOrString{}): func(s string, _ int, obj interface{}) {
			*obj.(*intstr.IntOrString) = intstr.FromString(s + "Value")
		},
	}
}

// TestWire_CoreServiceRoundTrips: a core/v1 Service, encoded by k8s.io/api,
// decodes into our Service and encodes back to the same bytes, in JSON and
// YAML, with and without status.
func TestWire_CoreServiceRoundTrips(t *testing.T) {
	c, o := core(t), ours(t)
	for _, withStatus := range []bool{true, false} {
		in := filledCoreService(t, withStatus)
		for _, format := range []struct {
			name       string
			coreS, our runtime.Serializer
		}{
			{"json", c.json, o.json},
			{"yaml", c.yaml, o.yaml},
		} {
			name := format.name
			if withStatus {
				name += "/status"
			}
			t.Run(name, func(t *testing.T) {
				coreBytes := encode(t, format.coreS, in)
				var svc v1.Service
				decode(t, format.our, coreBytes, serviceGVK, &svc)
				if len(svc.Spec.RequiredLoadBalancerFeatures) != 0 {
					t.Errorf("a core Service decoded with required features %v", svc.Spec.RequiredLoadBalancerFeatures)
				}
				if diff := cmp.Diff(in, v1.ToCore(&svc)); diff != "" {
					t.Errorf("decoded Service differs from the core one (-core +ours):\n%s", diff)
				}
				if ourBytes := encode(t, format.our, &svc); !bytes.Equal(coreBytes, ourBytes) {
					t.Errorf("re-encoded bytes differ (-core +ours):\n%s", cmp.Diff(string(coreBytes), string(ourBytes)))
				}
				var back corev1.Service
				decode(t, format.coreS, encode(t, format.our, &svc), corev1.SchemeGroupVersion.WithKind("Service"), &back)
				if diff := cmp.Diff(in, &back); diff != "" {
					t.Errorf("core decode of our encoding differs (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestWire_NewFieldIsTheOnlyAddition: our Service with
// requiredLoadBalancerFeatures set encodes to the core/v1 encoding of the
// same Service plus exactly spec.requiredLoadBalancerFeatures.
func TestWire_NewFieldIsTheOnlyAddition(t *testing.T) {
	c, o := core(t), ours(t)
	for _, format := range []struct {
		name       string
		coreS, our runtime.Serializer
		toJSON     func([]byte) ([]byte, error)
	}{
		{"json", c.json, o.json, func(b []byte) ([]byte, error) { return b, nil }},
		{"yaml", c.yaml, o.yaml, yaml.YAMLToJSON},
	} {
		t.Run(format.name, func(t *testing.T) {
			svc := v1.FromCore(filledCoreService(t, true))
			features := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts}
			svc.Spec.RequiredLoadBalancerFeatures = features

			ourMap := toMap(t, format.toJSON, encode(t, format.our, svc))
			coreMap := toMap(t, format.toJSON, encode(t, format.coreS, v1.ToCore(svc)))

			spec := ourMap["spec"].(map[string]interface{})
			got, ok := spec["requiredLoadBalancerFeatures"]
			if !ok {
				t.Fatalf("spec.requiredLoadBalancerFeatures missing from the encoding")
			}
			if diff := cmp.Diff([]interface{}{"SessionAffinity", "Ports"}, got); diff != "" {
				t.Errorf("spec.requiredLoadBalancerFeatures (-want +got):\n%s", diff)
			}
			delete(spec, "requiredLoadBalancerFeatures")
			if diff := cmp.Diff(coreMap, ourMap); diff != "" {
				t.Errorf("encoding differs from core/v1 beyond the new field (-core +ours):\n%s", diff)
			}
		})
	}
}

func toMap(t *testing.T, toJSON func([]byte) ([]byte, error), data []byte) map[string]interface{} {
	t.Helper()
	j, err := toJSON(data)
	if err != nil {
		t.Fatalf("converting to JSON: %v", err)
	}
	var m map[string]interface{}
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatalf("unmarshalling: %v", err)
	}
	return m
}
