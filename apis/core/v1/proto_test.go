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
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

func specWithFeature() *v1.ServiceSpec {
	return &v1.ServiceSpec{
		ServiceSpec:                  corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		RequiredLoadBalancerFeatures: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity},
	}
}

// TestServiceSpec_StringKeepsNewField: printing the outer spec must show the
// new field; the promoted core/v1 String would not.
func TestServiceSpec_StringKeepsNewField(t *testing.T) {
	spec := specWithFeature()
	for name, got := range map[string]string{
		"String":    spec.String(),
		"Sprint":    fmt.Sprint(spec),
		"Sprintf%v": fmt.Sprintf("%v", spec),
	} {
		// The core spec prints a SessionAffinity field of its own: look
		// for the new field by name.
		if !strings.Contains(got, "RequiredLoadBalancerFeatures:[SessionAffinity]") || !strings.Contains(got, "LoadBalancer") {
			t.Errorf("%s = %q, want both the core fields and the required feature", name, got)
		}
	}
	var nilSpec *v1.ServiceSpec
	if got := nilSpec.String(); got != "nil" {
		t.Errorf("nil String() = %q", got)
	}
}

// TestServiceSpec_ProtobufIsBlocked: every promoted protobuf method fails
// loudly instead of encoding the core part alone.
func TestServiceSpec_ProtobufIsBlocked(t *testing.T) {
	spec := specWithFeature()
	if data, err := spec.Marshal(); !errors.Is(err, v1.ErrNoProtobuf) || data != nil {
		t.Errorf("Marshal() = %v, %v; want nil, ErrNoProtobuf", data, err)
	}
	buf := make([]byte, 64)
	if _, err := spec.MarshalTo(buf); !errors.Is(err, v1.ErrNoProtobuf) {
		t.Errorf("MarshalTo err = %v", err)
	}
	if _, err := spec.MarshalToSizedBuffer(buf); !errors.Is(err, v1.ErrNoProtobuf) {
		t.Errorf("MarshalToSizedBuffer err = %v", err)
	}
	coreBytes, err := (&corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Unmarshal(coreBytes); !errors.Is(err, v1.ErrNoProtobuf) {
		t.Errorf("Unmarshal err = %v", err)
	}
	if spec.Type != corev1.ServiceTypeLoadBalancer || len(spec.RequiredLoadBalancerFeatures) != 1 {
		t.Errorf("Unmarshal changed the spec: %v", spec)
	}
	if n := spec.Size(); n != 0 {
		t.Errorf("Size() = %d, want 0", n)
	}
	// The interfaces protobuf encoders look for are satisfied by our own
	// methods, not the promoted ones.
	var m interface{ Marshal() ([]byte, error) } = spec
	if _, err := m.Marshal(); err == nil {
		t.Errorf("Marshal through an interface succeeded")
	}
}

func TestServiceSpec_ResetClearsNewField(t *testing.T) {
	spec := specWithFeature()
	spec.Reset()
	if spec.Type != "" || spec.RequiredLoadBalancerFeatures != nil {
		t.Errorf("Reset left %v", spec)
	}
}

func TestServiceSpec_SwaggerDocHasNewField(t *testing.T) {
	doc := v1.ServiceSpec{}.SwaggerDoc()
	if doc["requiredLoadBalancerFeatures"] == "" || doc["ports"] == "" {
		t.Errorf("SwaggerDoc lacks the new field or the core ones: %d entries", len(doc))
	}
}
