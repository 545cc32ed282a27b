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

package fuzz

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// kepTypes are the condition types the specification gives rules for.
var kepTypes = []v1.LoadBalancerConditionType{
	v1.LoadBalancerConditionServing,
	v1.LoadBalancerConditionProvisioning,
	v1.LoadBalancerConditionDegraded,
	v1.LoadBalancerConditionPortsError,
}

// kepReasons are the well-known reasons of the specification's table
// (section 2), in its order.
var kepReasons = []v1.LoadBalancerConditionReason{
	v1.LoadBalancerReasonServing,
	v1.LoadBalancerReasonProvisioning,
	v1.LoadBalancerReasonUnsupported,
	v1.LoadBalancerReasonInfrastructure,
	v1.LoadBalancerReasonComplete,
	v1.LoadBalancerReasonIPFamiliesNotSupported,
	v1.LoadBalancerReasonPortsNotSupported,
	v1.LoadBalancerReasonLoadBalancerIPNotSupported,
	v1.LoadBalancerReasonSessionAffinityNotSupported,
	v1.LoadBalancerReasonExternalTrafficPolicyNotSupported,
	v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported,
	v1.LoadBalancerReasonMultiple,
}

// statuses are the three statuses metav1 allows, and one it does not.
var statuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, ""}

// mutations are the edits mutate can apply. Each takes the object and a
// value to pick with; they never panic, whatever the object holds.
var mutations = []func(svc *v1.Service, pick uint64){
	func(svc *v1.Service, _ uint64) { svc.Spec.Type = corev1.ServiceTypeLoadBalancer },
	func(svc *v1.Service, pick uint64) {
		svc.Spec.Type = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, "", "ExternalName"}[pick%4]
	},
	func(svc *v1.Service, pick uint64) {
		svc.Spec.RequiredLoadBalancerFeatures = append(svc.Spec.RequiredLoadBalancerFeatures, v1.LoadBalancerFeatures()[pick%uint64(len(v1.LoadBalancerFeatures()))])
	},
	func(svc *v1.Service, _ uint64) {
		svc.Spec.RequiredLoadBalancerFeatures = append(svc.Spec.RequiredLoadBalancerFeatures, "FutureFeature")
	},
	func(svc *v1.Service, _ uint64) {
		if fs := svc.Spec.RequiredLoadBalancerFeatures; len(fs) > 0 {
			svc.Spec.RequiredLoadBalancerFeatures = append(fs, fs[0])
		}
	},
	func(svc *v1.Service, _ uint64) { svc.Spec.RequiredLoadBalancerFeatures = nil },
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			switch c.Status {
			case metav1.ConditionTrue:
				c.Status = metav1.ConditionFalse
			case metav1.ConditionFalse:
				c.Status = metav1.ConditionTrue
			default:
				c.Status = metav1.ConditionUnknown
			}
		}
	},
	func(svc *v1.Service, pick uint64) {
		if n := len(svc.Status.Conditions); n > 0 {
			i := int(pick % uint64(n))
			svc.Status.Conditions = append(svc.Status.Conditions[:i:i], svc.Status.Conditions[i+1:]...)
		}
	},
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			svc.Status.Conditions = append(svc.Status.Conditions, *c.DeepCopy())
		}
	},
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			c.Reason = string(kepReasons[(pick>>8)%uint64(len(kepReasons))])
		}
	},
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.Add(time.Second))
		}
	},
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			c.LastTransitionTime = metav1.Time{}
		}
	},
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			c.ObservedGeneration = svc.Generation + 1
		}
	},
	func(svc *v1.Service, _ uint64) { svc.Generation++ },
	func(svc *v1.Service, pick uint64) {
		svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: "192.0.2.1"})
	},
	func(svc *v1.Service, pick uint64) {
		if c := pickCondition(svc, pick); c != nil {
			c.Type = string(kepTypes[(pick>>8)%uint64(len(kepTypes))])
		}
	},
	func(svc *v1.Service, pick uint64) {
		setCondition(svc, metav1.Condition{
			Type:               string(kepTypes[pick%uint64(len(kepTypes))]),
			Status:             statuses[(pick>>4)%uint64(len(statuses))],
			Reason:             string(kepReasons[(pick>>8)%uint64(len(kepReasons))]),
			Message:            "fuzz",
			ObservedGeneration: svc.Generation,
			LastTransitionTime: metav1.NewTime(time.Unix(int64(pick>>16)%4102444800, 0)),
		})
	},
	func(svc *v1.Service, _ uint64) { svc.Status.Conditions = nil },
}

// mutate returns a copy of svc changed by the mutations whose bit is set
// in m; the upper half of m picks values. The same svc and m give the same
// copy. svc is not modified.
func mutate(svc *v1.Service, m uint64) *v1.Service {
	out := svc.DeepCopy()
	pick := m >> 32
	for i, mut := range mutations {
		if m&(1<<i) != 0 {
			mut(out, pick)
			pick = pick*6364136223846793005 + 1442695040888963407
		}
	}
	return out
}

// pickCondition returns a pointer to one of svc's conditions, or nil when
// it has none.
func pickCondition(svc *v1.Service, pick uint64) *metav1.Condition {
	n := len(svc.Status.Conditions)
	if n == 0 {
		return nil
	}
	return &svc.Status.Conditions[pick%uint64(n)]
}

// setCondition replaces the first condition of c's type, or appends c.
func setCondition(svc *v1.Service, c metav1.Condition) {
	for i := range svc.Status.Conditions {
		if svc.Status.Conditions[i].Type == c.Type {
			svc.Status.Conditions[i] = c
			return
		}
	}
	svc.Status.Conditions = append(svc.Status.Conditions, c)
}
