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

	corev1 "k8s.io/api/core/v1"
)

// AsksFor reports whether a Service with this spec, and these annotations
// (for the source-ranges annotation), asks for feature f, as P5 reads it: a
// Degraded reason for a feature the Service does not ask for breaks P5.
//
//   - SessionAffinity: sessionAffinity ClientIP;
//   - ExternalTrafficPolicy: externalTrafficPolicy Local;
//   - IPFamilies: two distinct IP families or, in a manifest the apiserver
//     has not defaulted yet (no ipFamilies), a PreferDualStack or
//     RequireDualStack policy, which may give it two;
//   - Ports: more than one port;
//   - LoadBalancerIP: a loadBalancerIP;
//   - LoadBalancerSourceRanges: source ranges in the field or the
//     annotation.
//
// A nil spec, and a feature this version does not know, ask for nothing.
// It is lbstatus's one reading of P5: validation, the condition helpers,
// the checker and the generated admission policies each give its answer.
func AsksFor(spec *corev1.ServiceSpec, annotations map[string]string, f LoadBalancerFeature) bool {
	if spec == nil {
		return false
	}
	switch f {
	case LoadBalancerFeatureSessionAffinity:
		return spec.SessionAffinity == corev1.ServiceAffinityClientIP
	case LoadBalancerFeatureExternalTrafficPolicy:
		return spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	case LoadBalancerFeatureIPFamilies:
		if fams := spec.IPFamilies; len(fams) > 0 {
			return len(fams) > 1 && fams[0] != fams[1]
		}
		return spec.IPFamilyPolicy != nil &&
			(*spec.IPFamilyPolicy == corev1.IPFamilyPolicyPreferDualStack || *spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack)
	case LoadBalancerFeaturePorts:
		return len(spec.Ports) > 1
	case LoadBalancerFeatureLoadBalancerIP:
		return spec.LoadBalancerIP != ""
	case LoadBalancerFeatureLoadBalancerSourceRanges:
		return len(spec.LoadBalancerSourceRanges) > 0 || strings.TrimSpace(annotations[corev1.AnnotationLoadBalancerSourceRangesKey]) != ""
	}
	return false
}
