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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Service is a core/v1 Service with the KEP-4631 additions: the
// spec.requiredLoadBalancerFeatures field and typed load-balancer conditions
// in status.conditions. On the wire it is a superset of core/v1 Service.
// +k8s:supportsSubresource="/status"
// +k8s:supportsSubresource="/proxy"
type Service struct {
	// +k8s:opaqueType
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata. The apiserver validates it for every kind;
	// package validation does not.
	// +optional
	// +k8s:opaqueType
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired behaviour of the Service, core/v1 fields and
	// KEP-4631 additions alike.
	// +optional
	Spec ServiceSpec `json:"spec,omitempty"`

	// status is the most recently observed status of the Service: the load
	// balancer's ingress points and its conditions. Written by the provider.
	// +optional
	Status ServiceStatus `json:"status,omitempty"`
}

// ServiceSpec is core/v1's ServiceSpec plus requiredLoadBalancerFeatures.
//
// The embedded core type brings protobuf methods (String, Marshal, Size, ...)
// that know nothing of the new field. ServiceSpec redefines each of them (see
// proto.go) so that none silently drops it.
type ServiceSpec struct {
	corev1.ServiceSpec `json:",inline"`

	// requiredLoadBalancerFeatures lists load-balancer features the provider
	// must implement in full. A provider that cannot implement one of them,
	// or does not know it, must refuse the Service
	// (LoadBalancerServing=False, reason Unsupported) rather than provision a
	// load balancer degraded in it. Features not listed may be degraded, with
	// a LoadBalancerDegraded condition naming them. Each value may appear
	// once; at most 16. Only valid when type is LoadBalancer.
	// Requires the LoadBalancerStatusImprovements feature gate: with the
	// gate off, a Service that does not have the field cannot be given it
	// (an apiserver drops it from a create or such an update), and one
	// that already has it keeps it and may change it.
	// +optional
	// +listType=set
	// +featureGate=LoadBalancerStatusImprovements
	// +k8s:optional
	// +k8s:listType=set
	// +k8s:maxItems=16
	// +k8s:ifDisabled(LoadBalancerStatusImprovements)=+k8s:update=NoSet
	RequiredLoadBalancerFeatures []LoadBalancerFeature `json:"requiredLoadBalancerFeatures,omitempty"`
}

// ServiceStatus is the status of a Service: core/v1's ServiceStatus with its
// conditions documented for KEP-4631.
type ServiceStatus struct {
	// loadBalancer contains the current status of the load balancer, if one
	// is present: its ingress points.
	// +optional
	LoadBalancer corev1.LoadBalancerStatus `json:"loadBalancer,omitempty"`

	// conditions is the current state of the Service. A KEP-4631 provider
	// writes LoadBalancerServing and LoadBalancerProvisioning together, and
	// LoadBalancerDegraded when it provisioned less than asked. Other
	// condition types, from other controllers, may appear too.
	// +optional
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	// +k8s:eachVal=+k8s:opaqueType
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ServiceList is a list of Services.
type ServiceList struct {
	// +k8s:opaqueType
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	// +k8s:opaqueType
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of Services.
	Items []Service `json:"items"`
}

// LoadBalancerFeature is a load-balancer behaviour that a Service can require
// of its provider through spec.requiredLoadBalancerFeatures.
// +enum
// +k8s:enum
type LoadBalancerFeature string

const (
	// LoadBalancerFeatureIPFamilies requires the load balancer to accept
	// connections on every IP family of the Service.
	LoadBalancerFeatureIPFamilies LoadBalancerFeature = "IPFamilies"
	// LoadBalancerFeaturePorts requires the load balancer to accept
	// connections on every port and protocol of the Service.
	LoadBalancerFeaturePorts LoadBalancerFeature = "Ports"
	// LoadBalancerFeatureSessionAffinity requires the load balancer to
	// implement the Service's sessionAffinity.
	LoadBalancerFeatureSessionAffinity LoadBalancerFeature = "SessionAffinity"
	// LoadBalancerFeatureLoadBalancerIP requires the load balancer to use the
	// Service's spec.loadBalancerIP.
	LoadBalancerFeatureLoadBalancerIP LoadBalancerFeature = "LoadBalancerIP"
	// LoadBalancerFeatureExternalTrafficPolicy requires the load balancer to
	// implement externalTrafficPolicy fully; for Local, to preserve the
	// client's source IP.
	LoadBalancerFeatureExternalTrafficPolicy LoadBalancerFeature = "ExternalTrafficPolicy"
	// LoadBalancerFeatureLoadBalancerSourceRanges requires the load balancer
	// to enforce spec.loadBalancerSourceRanges. Not in the proposal's enum;
	// added by gap G1 of the specification.
	LoadBalancerFeatureLoadBalancerSourceRanges LoadBalancerFeature = "LoadBalancerSourceRanges"
)
