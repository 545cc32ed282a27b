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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestAsksFor_P5 pins what each feature takes for a Service to ask for
// it (P5), on both sides of each boundary.
func TestAsksFor_P5(t *testing.T) {
	ranges := map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "10.0.0.0/8"}
	blank := map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: " \t"}
	policy := func(p corev1.IPFamilyPolicy) *corev1.IPFamilyPolicy { return ptr.To(p) }
	for _, tc := range []struct {
		name        string
		feature     v1.LoadBalancerFeature
		spec        corev1.ServiceSpec
		annotations map[string]string
		want        bool
	}{
		{"two families", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{"IPv4", "IPv6"}}, nil, true},
		{"one family", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{"IPv6"}}, nil, false},
		{"a family twice", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{"IPv4", "IPv4"}}, nil, false},
		// Families set win over the policy, which only defaulting reads.
		{"one family, RequireDualStack", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilies: []corev1.IPFamily{"IPv4"}, IPFamilyPolicy: policy(corev1.IPFamilyPolicyRequireDualStack)}, nil, false},
		{"undefaulted RequireDualStack", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilyPolicy: policy(corev1.IPFamilyPolicyRequireDualStack)}, nil, true},
		{"undefaulted PreferDualStack", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilyPolicy: policy(corev1.IPFamilyPolicyPreferDualStack)}, nil, true},
		{"undefaulted SingleStack", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{IPFamilyPolicy: policy(corev1.IPFamilyPolicySingleStack)}, nil, false},
		{"no family, no policy", v1.LoadBalancerFeatureIPFamilies, corev1.ServiceSpec{}, nil, false},
		{"two ports", v1.LoadBalancerFeaturePorts, corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}, {Port: 443}}}, nil, true},
		{"one port", v1.LoadBalancerFeaturePorts, corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}, nil, false},
		{"ClientIP", v1.LoadBalancerFeatureSessionAffinity, corev1.ServiceSpec{SessionAffinity: corev1.ServiceAffinityClientIP}, nil, true},
		{"affinity None", v1.LoadBalancerFeatureSessionAffinity, corev1.ServiceSpec{SessionAffinity: corev1.ServiceAffinityNone}, nil, false},
		{"affinity unset", v1.LoadBalancerFeatureSessionAffinity, corev1.ServiceSpec{}, nil, false},
		{"Local", v1.LoadBalancerFeatureExternalTrafficPolicy, corev1.ServiceSpec{ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal}, nil, true},
		{"Cluster", v1.LoadBalancerFeatureExternalTrafficPolicy, corev1.ServiceSpec{ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster}, nil, false},
		// Unset, as in a manifest the apiserver has not defaulted: Cluster.
		{"traffic policy unset", v1.LoadBalancerFeatureExternalTrafficPolicy, corev1.ServiceSpec{}, nil, false},
		{"loadBalancerIP", v1.LoadBalancerFeatureLoadBalancerIP, corev1.ServiceSpec{LoadBalancerIP: "192.0.2.7"}, nil, true},
		{"no loadBalancerIP", v1.LoadBalancerFeatureLoadBalancerIP, corev1.ServiceSpec{}, nil, false},
		{"source ranges", v1.LoadBalancerFeatureLoadBalancerSourceRanges, corev1.ServiceSpec{LoadBalancerSourceRanges: []string{"10.0.0.0/8"}}, nil, true},
		{"source-ranges annotation", v1.LoadBalancerFeatureLoadBalancerSourceRanges, corev1.ServiceSpec{}, ranges, true},
		{"blank source-ranges annotation", v1.LoadBalancerFeatureLoadBalancerSourceRanges, corev1.ServiceSpec{}, blank, false},
		{"an unknown feature", "Teleport", corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}, {Port: 443}}}, nil, false},
	} {
		if got := v1.AsksFor(&tc.spec, tc.annotations, tc.feature); got != tc.want {
			t.Errorf("%s: AsksFor(%s) = %v, want %v", tc.name, tc.feature, got, tc.want)
		}
	}
	for _, f := range v1.LoadBalancerFeatures() {
		if v1.AsksFor(nil, ranges, f) {
			t.Errorf("a nil spec asks for %s", f)
		}
	}
}
