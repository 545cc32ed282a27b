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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// The rapid generators below draw Services that are valid and invalid in
// every way the package's rules know about, biased towards the values the
// rules single out (the well-known types, reasons and features, statuses
// near True/False/Unknown, generations near each other) so that the
// interesting cases are common rather than one draw in a million.

// unknownFeatures are values R4 rejects; "" and a wrong case among them.
var unknownFeatures = []v1.LoadBalancerFeature{"", "ports", "Foo", "IPFamilies ", "SessionAffinity,Ports"}

// genFeature draws a known or unknown LoadBalancerFeature.
func genFeature() *rapid.Generator[v1.LoadBalancerFeature] {
	return rapid.OneOf(
		rapid.SampledFrom(v1.LoadBalancerFeatures()),
		rapid.SampledFrom(unknownFeatures),
	)
}

// genFeatures draws a requiredLoadBalancerFeatures list: nil, short ones
// with duplicates and unknowns, and some above the limit of 16.
func genFeatures() *rapid.Generator[[]v1.LoadBalancerFeature] {
	return rapid.OneOf(
		rapid.Just[[]v1.LoadBalancerFeature](nil),
		rapid.SliceOfN(genFeature(), 0, 4),
		rapid.SliceOfN(genFeature(), 15, 18),
	)
}

// genServiceType draws a spec.type, unset and nonsense included.
func genServiceType() *rapid.Generator[corev1.ServiceType] {
	return rapid.SampledFrom([]corev1.ServiceType{
		corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeLoadBalancer,
		corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort,
		corev1.ServiceTypeExternalName, "",
	})
}

// conditionTypes are the KEP-4631 types, a deprecated one, another
// controller's, and types the metav1 rules reject.
var conditionTypes = []string{
	string(v1.LoadBalancerConditionServing),
	string(v1.LoadBalancerConditionProvisioning),
	string(v1.LoadBalancerConditionDegraded),
	string(v1.LoadBalancerConditionPortsError),
	"Ready", "example.com/Custom", "", "bad type", "-Leading",
}

// conditionStatuses are the three valid statuses and two invalid ones.
var conditionStatuses = []metav1.ConditionStatus{
	metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, "", "Maybe",
}

// allReasons are the table's reasons plus a provider's own, an empty one
// and ones the metav1 rules reject.
var allReasons = []string{
	string(v1.LoadBalancerReasonServing), string(v1.LoadBalancerReasonProvisioning),
	string(v1.LoadBalancerReasonUnsupported), string(v1.LoadBalancerReasonInfrastructure),
	string(v1.LoadBalancerReasonComplete), string(v1.LoadBalancerReasonIPFamiliesNotSupported),
	string(v1.LoadBalancerReasonPortsNotSupported), string(v1.LoadBalancerReasonLoadBalancerIPNotSupported),
	string(v1.LoadBalancerReasonSessionAffinityNotSupported),
	string(v1.LoadBalancerReasonExternalTrafficPolicyNotSupported),
	string(v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported),
	string(v1.LoadBalancerReasonMultiple),
	"QuotaExceeded", "", "bad reason", "Trailing:", strings.Repeat("R", 1025),
}

// messages are short, empty, and one byte over the metav1 limit.
var messages = []string{"", "ok", "SessionAffinityNotSupported,PortsNotSupported: both", strings.Repeat("m", 32*1024+1)}

// times are lastTransitionTime values: unset, and two set ones a second
// apart.
var times = []metav1.Time{
	{},
	metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)),
}

// genCondition draws any condition, valid or not.
func genCondition() *rapid.Generator[metav1.Condition] {
	return rapid.Custom(func(t *rapid.T) metav1.Condition {
		return metav1.Condition{
			Type:               rapid.SampledFrom(conditionTypes).Draw(t, "type"),
			Status:             rapid.SampledFrom(conditionStatuses).Draw(t, "status"),
			ObservedGeneration: rapid.Int64Range(-1, 6).Draw(t, "observedGeneration"),
			LastTransitionTime: rapid.SampledFrom(times).Draw(t, "lastTransitionTime"),
			Reason:             rapid.SampledFrom(allReasons).Draw(t, "reason"),
			Message:            rapid.SampledFrom(messages).Draw(t, "message"),
		}
	})
}

// genConditions draws a condition list, duplicates of a type included.
func genConditions() *rapid.Generator[[]metav1.Condition] {
	return rapid.SliceOfN(genCondition(), 0, 6)
}

// genService draws a Service with any spec.type, required features and
// conditions, and a generation that is sometimes unset.
func genService() *rapid.Generator[*v1.Service] {
	return rapid.Custom(func(t *rapid.T) *v1.Service {
		svc := &v1.Service{}
		svc.Name = "svc"
		svc.Namespace = "default"
		svc.Generation = rapid.Int64Range(0, 5).Draw(t, "generation")
		svc.Spec.Type = genServiceType().Draw(t, "type")
		svc.Spec.RequiredLoadBalancerFeatures = genFeatures().Draw(t, "requiredLoadBalancerFeatures")
		svc.Status.Conditions = genConditions().Draw(t, "conditions")
		if rapid.Bool().Draw(t, "ingress") {
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
		}
		return svc
	})
}

// genOldAndNew draws an old Service and a new one that is either a copy,
// a copy with some changes, or unrelated.
func genOldAndNew() *rapid.Generator[[2]*v1.Service] {
	return rapid.Custom(func(t *rapid.T) [2]*v1.Service {
		old := genService().Draw(t, "old")
		var svc *v1.Service
		switch rapid.IntRange(0, 2).Draw(t, "relation") {
		case 0:
			svc = old.DeepCopy()
		case 1:
			svc = old.DeepCopy()
			if rapid.Bool().Draw(t, "changeType") {
				svc.Spec.Type = genServiceType().Draw(t, "newType")
			}
			if rapid.Bool().Draw(t, "changeFeatures") {
				svc.Spec.RequiredLoadBalancerFeatures = genFeatures().Draw(t, "newFeatures")
			}
			if n := len(svc.Status.Conditions); n > 0 && rapid.Bool().Draw(t, "changeCondition") {
				svc.Status.Conditions[rapid.IntRange(0, n-1).Draw(t, "index")] = genCondition().Draw(t, "newCondition")
			}
			if rapid.Bool().Draw(t, "addCondition") {
				svc.Status.Conditions = append(svc.Status.Conditions, genCondition().Draw(t, "addedCondition"))
			}
		default:
			svc = genService().Draw(t, "new")
		}
		return [2]*v1.Service{svc, old}
	})
}

// genValidKEPConditions draws a valid set of the KEP-4631 conditions, as a
// provider writes them (L1): Provisioning and Serving in one of the
// specification's combinations, sometimes Degraded.
func genValidKEPConditions(generation int64) *rapid.Generator[[]metav1.Condition] {
	return rapid.Custom(func(t *rapid.T) []metav1.Condition {
		ltt := rapid.SampledFrom(times[1:]).Draw(t, "lastTransitionTime")
		c := func(typ v1.LoadBalancerConditionType, s metav1.ConditionStatus, r v1.LoadBalancerConditionReason) metav1.Condition {
			return metav1.Condition{Type: string(typ), Status: s, Reason: string(r), LastTransitionTime: ltt, ObservedGeneration: generation}
		}
		var conds []metav1.Condition
		switch rapid.IntRange(0, 3).Draw(t, "combination") {
		case 0:
			conds = append(conds, c(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning),
				c(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning))
		case 1:
			conds = append(conds, c(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete),
				c(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing))
		case 2:
			conds = append(conds, c(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete),
				c(v1.LoadBalancerConditionServing, metav1.ConditionFalse,
					rapid.SampledFrom([]v1.LoadBalancerConditionReason{v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure}).Draw(t, "failure")))
		default:
			conds = append(conds, c(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning),
				c(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing))
		}
		if rapid.Bool().Draw(t, "degraded") {
			f := rapid.SampledFrom(v1.LoadBalancerFeatures()).Draw(t, "degradedFeature")
			r, _ := v1.DegradedReason(f)
			conds = append(conds, c(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, r))
		}
		return conds
	})
}
