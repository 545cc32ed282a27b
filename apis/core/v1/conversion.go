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
	corev1 "k8s.io/api/core/v1"
)

// FromCore returns a deep copy of a core/v1 Service as a Service. Nothing is
// lost; RequiredLoadBalancerFeatures is empty. A nil input gives nil.
func FromCore(in *corev1.Service) *Service {
	return FromCoreShallow(in.DeepCopy())
}

// FromCoreShallow returns a core/v1 Service as a Service without copying
// it: metadata, spec and status share their maps, slices and pointers with
// in. It suits code that only reads the result, while in stays as it is,
// such as a check of each object an informer delivers; FromCore copies.
// RequiredLoadBalancerFeatures is empty. A nil input gives nil.
func FromCoreShallow(in *corev1.Service) *Service {
	if in == nil {
		return nil
	}
	return &Service{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec:       ServiceSpec{ServiceSpec: in.Spec},
		Status:     ServiceStatus(in.Status),
	}
}

// ToCore returns a deep copy of s as a core/v1 Service. Everything but
// spec.requiredLoadBalancerFeatures, which core/v1 has no field for, is
// kept; to carry that request to a stock cluster, see
// RequiredFeaturesAnnotation. A nil input gives nil.
func ToCore(s *Service) *corev1.Service {
	if s == nil {
		return nil
	}
	s = s.DeepCopy()
	return &corev1.Service{
		TypeMeta:   s.TypeMeta,
		ObjectMeta: s.ObjectMeta,
		Spec:       s.Spec.ServiceSpec,
		Status: corev1.ServiceStatus{
			LoadBalancer: s.Status.LoadBalancer,
			Conditions:   s.Status.Conditions,
		},
	}
}
