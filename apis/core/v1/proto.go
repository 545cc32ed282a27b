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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ErrNoProtobuf is returned by the protobuf methods of ServiceSpec: the
// embedded core/v1 encoding has no field number for
// requiredLoadBalancerFeatures, so encoding through it would silently drop
// the field. Use JSON, YAML or CBOR.
var ErrNoProtobuf = errors.New("lbstatus ServiceSpec has no protobuf encoding (it would drop requiredLoadBalancerFeatures); use JSON, YAML or CBOR")

// String returns the core/v1 fields as core/v1 prints them, followed by
// RequiredLoadBalancerFeatures. It replaces the promoted core/v1 String,
// which omits the new field.
func (s *ServiceSpec) String() string {
	if s == nil {
		return "nil"
	}
	return fmt.Sprintf("&ServiceSpec{ServiceSpec:%s,RequiredLoadBalancerFeatures:%v,}", s.ServiceSpec.String(), s.RequiredLoadBalancerFeatures)
}

// Reset clears the whole spec, the new field included.
func (s *ServiceSpec) Reset() { *s = ServiceSpec{} }

// Marshal always fails with ErrNoProtobuf.
func (s *ServiceSpec) Marshal() ([]byte, error) { return nil, ErrNoProtobuf }

// MarshalTo always fails with ErrNoProtobuf.
func (s *ServiceSpec) MarshalTo([]byte) (int, error) { return 0, ErrNoProtobuf }

// MarshalToSizedBuffer always fails with ErrNoProtobuf.
func (s *ServiceSpec) MarshalToSizedBuffer([]byte) (int, error) { return 0, ErrNoProtobuf }

// Unmarshal always fails with ErrNoProtobuf and leaves s unchanged.
func (s *ServiceSpec) Unmarshal([]byte) error { return ErrNoProtobuf }

// Size returns 0: ServiceSpec has no protobuf encoding (see Marshal).
func (s *ServiceSpec) Size() int { return 0 }

// SwaggerDoc returns core/v1's field documentation plus that of
// requiredLoadBalancerFeatures.
func (ServiceSpec) SwaggerDoc() map[string]string {
	doc := corev1.ServiceSpec{}.SwaggerDoc()
	out := make(map[string]string, len(doc)+1)
	for k, v := range doc {
		out[k] = v
	}
	out["requiredLoadBalancerFeatures"] = "requiredLoadBalancerFeatures lists load-balancer features the provider must implement in full, or else refuse the Service. Only valid when type is LoadBalancer. Requires the LoadBalancerStatusImprovements feature gate."
	return out
}
