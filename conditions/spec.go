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
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// SpecChanged reports whether any load-balancer-relevant field (G3)
// differs between old and new: type, ports (port, protocol, nodePort),
// loadBalancerIP, loadBalancerSourceRanges (and the equivalent
// service.beta.kubernetes.io/load-balancer-source-ranges annotation),
// loadBalancerClass, externalTrafficPolicy, healthCheckNodePort,
// sessionAffinity, sessionAffinityConfig, ipFamilies, ipFamilyPolicy,
// allocateLoadBalancerNodePorts, trafficDistribution and the required
// features (spec.requiredLoadBalancerFeatures or its annotation fallback,
// v1.RequiredFeaturesAnnotation). See ChangedFields for the comparison
// rules; provider-declared annotations need ChangedFields with
// WithRelevantAnnotations. Two nil Services are equal; nil and non-nil differ.
func SpecChanged[S Object](old, new S) bool {
	return len(changedFields(view(old), view(new), nil)) > 0
}

// ChangedFields returns the JSON paths of the load-balancer-relevant fields
// (G3, see SpecChanged) that differ between old and new, in a fixed order,
// plus the annotations named by WithRelevantAnnotations. Nil and non-nil give
// ["spec"]; two nil Services give nil.
//
// Values the apiserver defaults compare equal to their default, so that a
// Service before and after defaulting has no changes: empty type is
// ClusterIP, empty protocol is TCP, empty externalTrafficPolicy is Cluster,
// empty sessionAffinity is None, unset ipFamilyPolicy is SingleStack, unset
// allocateLoadBalancerNodePorts is true, unset loadBalancerClass and
// trafficDistribution are empty. Ports, source ranges (the field, and the
// annotation, which the field replaces when set) and required features
// are sets: their order does not matter. sessionAffinityConfig counts only
// with sessionAffinity ClientIP on both sides, and its unset timeout is the
// default 10800 seconds. ipFamilies is ordered: the first family is the primary.
// Required features compare as sets across their two sources, so moving
// them from the annotation to the spec field is no change; an annotation
// that does not parse differs from every one that does.
func ChangedFields[S Object](old, new S, opts ...ChangeOption) []string {
	return changedFields(view(old), view(new), annotationsOf(opts))
}

func changedFields(old, new *v1.Service, relevantAnnotations []string) []string {
	if old == nil && new == nil {
		return nil
	}
	if old == nil || new == nil {
		return []string{"spec"}
	}
	// The paths are constants, written out so that comparing two specs
	// allocates only for the fields that differ: the checker calls this on
	// every observation.
	a, b := &old.Spec.ServiceSpec, &new.Spec.ServiceSpec
	var out []string
	add := func(differs bool, path string) {
		if differs {
			out = append(out, path)
		}
	}
	addAnnotation := func(differs bool, key string) {
		if differs {
			out = append(out, field.NewPath("metadata", "annotations").Key(key).String())
		}
	}
	add(serviceType(a) != serviceType(b), "spec.type")
	add(portsDiffer(a.Ports, b.Ports), "spec.ports")
	add(a.LoadBalancerIP != b.LoadBalancerIP, "spec.loadBalancerIP")
	add(sourceRangesDiffer(a.LoadBalancerSourceRanges, b.LoadBalancerSourceRanges), "spec.loadBalancerSourceRanges")
	addAnnotation(sourceRangesAnnotationDiffers(old, new), corev1.AnnotationLoadBalancerSourceRangesKey)
	add(ptr.Deref(a.LoadBalancerClass, "") != ptr.Deref(b.LoadBalancerClass, ""), "spec.loadBalancerClass")
	add(trafficPolicy(a) != trafficPolicy(b), "spec.externalTrafficPolicy")
	add(a.HealthCheckNodePort != b.HealthCheckNodePort, "spec.healthCheckNodePort")
	add(sessionAffinity(a) != sessionAffinity(b), "spec.sessionAffinity")
	add(sessionAffinity(a) == sessionAffinity(b) && affinityTimeout(a) != affinityTimeout(b), "spec.sessionAffinityConfig")
	add(!slices.Equal(a.IPFamilies, b.IPFamilies), "spec.ipFamilies")
	add(familyPolicy(a) != familyPolicy(b), "spec.ipFamilyPolicy")
	add(ptr.Deref(a.AllocateLoadBalancerNodePorts, true) != ptr.Deref(b.AllocateLoadBalancerNodePorts, true), "spec.allocateLoadBalancerNodePorts")
	add(ptr.Deref(a.TrafficDistribution, "") != ptr.Deref(b.TrafficDistribution, ""), "spec.trafficDistribution")
	add(requiredFeaturesDiffer(old, new), "spec.requiredLoadBalancerFeatures")
	for _, key := range relevantAnnotations {
		ov, ook := old.Annotations[key]
		nv, nok := new.Annotations[key]
		addAnnotation(ov != nv || ook != nok, key)
	}
	return out
}

func serviceType(s *corev1.ServiceSpec) corev1.ServiceType {
	return cmp.Or(s.Type, corev1.ServiceTypeClusterIP)
}

func trafficPolicy(s *corev1.ServiceSpec) corev1.ServiceExternalTrafficPolicy {
	return cmp.Or(s.ExternalTrafficPolicy, corev1.ServiceExternalTrafficPolicyCluster)
}

func sessionAffinity(s *corev1.ServiceSpec) corev1.ServiceAffinity {
	return cmp.Or(s.SessionAffinity, corev1.ServiceAffinityNone)
}

func familyPolicy(s *corev1.ServiceSpec) corev1.IPFamilyPolicy {
	return ptr.Deref(s.IPFamilyPolicy, corev1.IPFamilyPolicySingleStack)
}

// affinityTimeout is the part of sessionAffinityConfig that matters: the
// ClientIP timeout, defaulted, or 0 without ClientIP affinity.
func affinityTimeout(s *corev1.ServiceSpec) int32 {
	if sessionAffinity(s) != corev1.ServiceAffinityClientIP {
		return 0
	}
	if c := s.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
		return *c.ClientIP.TimeoutSeconds
	}
	return corev1.DefaultClientIPServiceAffinitySeconds
}

// portKey is what of a ServicePort a load balancer sees.
type portKey struct {
	port, nodePort int32
	protocol       corev1.Protocol
}

// portsDiffer reports whether two port lists differ as sets of keys.
// Lists of a few ports, as most Services have, are sorted on the stack.
func portsDiffer(a, b []corev1.ServicePort) bool {
	if len(a) != len(b) {
		return true
	}
	var bufA, bufB [4]portKey
	return !slices.Equal(appendPortKeys(bufA[:0], a), appendPortKeys(bufB[:0], b))
}

// appendPortKeys appends the ports' keys to keys, sorted, so that order
// does not matter.
func appendPortKeys(keys []portKey, ports []corev1.ServicePort) []portKey {
	for _, p := range ports {
		keys = append(keys, portKey{port: p.Port, nodePort: p.NodePort, protocol: protocol(p)})
	}
	slices.SortFunc(keys, func(a, b portKey) int {
		return cmp.Or(cmp.Compare(a.port, b.port), cmp.Compare(a.protocol, b.protocol), cmp.Compare(a.nodePort, b.nodePort))
	})
	return keys
}

func protocol(p corev1.ServicePort) corev1.Protocol {
	return cmp.Or(p.Protocol, corev1.ProtocolTCP)
}

// sourceRangesDiffer reports whether two lists of source ranges differ as
// sets of trimmed values. Equal lists, as most comparisons find, are equal
// sets without building either.
func sourceRangesDiffer(a, b []string) bool {
	return !slices.Equal(a, b) && !sourceRanges(a).Equal(sourceRanges(b))
}

func sourceRanges(ranges []string) sets.Set[string] {
	out := sets.New[string]()
	for _, r := range ranges {
		out.Insert(strings.TrimSpace(r))
	}
	return out
}

// sourceRangesAnnotationDiffers compares the source-ranges annotation as
// Kubernetes reads it: a comma-separated set, which the field replaces
// when it is set (on both sides here: a change of the field is the
// field's).
func sourceRangesAnnotationDiffers(old, new *v1.Service) bool {
	key := corev1.AnnotationLoadBalancerSourceRangesKey
	ov, nv := old.Annotations[key], new.Annotations[key]
	if ov == nv || len(old.Spec.LoadBalancerSourceRanges) > 0 && len(new.Spec.LoadBalancerSourceRanges) > 0 {
		return false
	}
	return !sourceRanges(strings.Split(ov, ",")).Equal(sourceRanges(strings.Split(nv, ",")))
}

func requiredFeaturesDiffer(old, new *v1.Service) bool {
	of, _, oerrs := RequiredFeatures(old)
	nf, _, nerrs := RequiredFeatures(new)
	if (len(oerrs) > 0) != (len(nerrs) > 0) {
		return true
	}
	if slices.Equal(of, nf) {
		return false // equal lists are equal sets: most Services have none
	}
	return !sets.New(of...).Equal(sets.New(nf...))
}
