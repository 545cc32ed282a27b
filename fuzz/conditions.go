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
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// conditionShape says how buildConditions assembles a condition list from
// fuzzed strings and numbers. Its bits, from the lowest:
//
//	0-1    number of conditions minus one (1 to 4)
//	2-13   condition 0: 0 use a KEP type, 1-2 which; 3 use a well-known
//	       status, 4-5 which; 6 use a well-known reason, 7-10 which;
//	       11 no lastTransitionTime
//	14-25, 26-37, 38-49  conditions 1, 2, 3, alike
//	50     a message one byte over the 32768 limit
//	51     observedGeneration grows with the index
//
// Fuzzed strings are used where a bit does not ask for a well-known value,
// so the fuzzer can reach both the rules for the KEP's conditions and
// metav1's format rules.
type conditionShape uint64

// conditionInput is the structured input of the differential target.
type conditionInput struct {
	types, statuses, reasons, message  string
	lastTransition, observedGeneration int64
	shape                              conditionShape
}

// buildConditions assembles the condition list that in describes.
// Strings hold one value per condition, separated by '|'; condition i
// takes value i modulo their number.
func buildConditions(in conditionInput) []metav1.Condition {
	types, statuses, reasons := strings.Split(in.types, "|"), strings.Split(in.statuses, "|"), strings.Split(in.reasons, "|")
	message := in.message
	if in.shape&(1<<50) != 0 {
		message = strings.Repeat("m", 32769)
	}
	n := 1 + int(in.shape&3)
	conds := make([]metav1.Condition, n)
	for i := range conds {
		bits := uint64(in.shape) >> (2 + 12*i)
		c := metav1.Condition{
			Type:               types[i%len(types)],
			Status:             metav1.ConditionStatus(statuses[i%len(statuses)]),
			Reason:             reasons[i%len(reasons)],
			Message:            message,
			ObservedGeneration: in.observedGeneration,
			LastTransitionTime: metav1.NewTime(time.Unix(in.lastTransition, 0).UTC()),
		}
		if bits&1 != 0 {
			c.Type = string(kepTypes[(bits>>1)&3])
		}
		if bits&(1<<3) != 0 {
			c.Status = statuses4[(bits>>4)&3]
		}
		if bits&(1<<6) != 0 {
			c.Reason = string(kepReasons[int((bits>>7)&15)%len(kepReasons)])
		}
		if bits&(1<<11) != 0 {
			c.LastTransitionTime = metav1.Time{}
		}
		if in.shape&(1<<51) != 0 {
			c.ObservedGeneration += int64(i)
		}
		conds[i] = c
	}
	return conds
}

// statuses4 are the statuses buildConditions picks from.
var statuses4 = [4]metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, "Maybe"}

// reasonStatuses is the specification's table (section 2) of which status
// each well-known reason of a KEP condition type goes with. A reason not
// listed for a type is not judged by C3.
var reasonStatuses = map[v1.LoadBalancerConditionType]map[v1.LoadBalancerConditionReason]metav1.ConditionStatus{
	v1.LoadBalancerConditionServing: {
		v1.LoadBalancerReasonServing:        metav1.ConditionTrue,
		v1.LoadBalancerReasonProvisioning:   metav1.ConditionFalse,
		v1.LoadBalancerReasonUnsupported:    metav1.ConditionFalse,
		v1.LoadBalancerReasonInfrastructure: metav1.ConditionFalse,
	},
	v1.LoadBalancerConditionProvisioning: {
		v1.LoadBalancerReasonProvisioning: metav1.ConditionTrue,
		v1.LoadBalancerReasonComplete:     metav1.ConditionFalse,
	},
	v1.LoadBalancerConditionDegraded: {
		v1.LoadBalancerReasonIPFamiliesNotSupported:               metav1.ConditionTrue,
		v1.LoadBalancerReasonPortsNotSupported:                    metav1.ConditionTrue,
		v1.LoadBalancerReasonLoadBalancerIPNotSupported:           metav1.ConditionTrue,
		v1.LoadBalancerReasonSessionAffinityNotSupported:          metav1.ConditionTrue,
		v1.LoadBalancerReasonExternalTrafficPolicyNotSupported:    metav1.ConditionTrue,
		v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported: metav1.ConditionTrue,
		v1.LoadBalancerReasonMultiple:                             metav1.ConditionTrue,
	},
}

// kepRuleErrors returns what the specification adds to metav1's rules for
// conds on a Service of the given generation, as an oracle written from
// the specification rather than from package validation:
//
//   - C5: observedGeneration above a set (non-zero) metadata.generation is
//     Invalid.
//   - C1, gate on: Serving or Provisioning with status Unknown is
//     NotSupported.
//   - C3, gate on: a KEP condition whose status is True or False with a
//     well-known reason of the other status is Invalid.
func kepRuleErrors(conds []metav1.Condition, generation int64, gateOn bool) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("status", "conditions")
	for i, c := range conds {
		if generation > 0 && c.ObservedGeneration > generation {
			errs = append(errs, field.Invalid(path.Index(i).Child("observedGeneration"), c.ObservedGeneration, ""))
		}
		if !gateOn {
			continue
		}
		t := v1.LoadBalancerConditionType(c.Type)
		if (t == v1.LoadBalancerConditionServing || t == v1.LoadBalancerConditionProvisioning) && c.Status == metav1.ConditionUnknown {
			errs = append(errs, field.NotSupported[metav1.ConditionStatus](path.Index(i).Child("status"), c.Status, nil))
			continue
		}
		if c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse {
			continue
		}
		if s, known := reasonStatuses[t][v1.LoadBalancerConditionReason(c.Reason)]; known && s != c.Status {
			errs = append(errs, field.Invalid(path.Index(i).Child("reason"), c.Reason, ""))
		}
	}
	return errs
}
