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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// ConditionType is the type of a condition's type: a plain string or a typed
// string such as v1.LoadBalancerConditionType, so that callers pass the API
// constants without converting them.
type ConditionType interface{ ~string }

// Get returns the condition of type t in conds, or nil when there is none or
// conds is nil. The pointer points into conds: writing through it changes
// the slice.
func Get[T ConditionType](conds []metav1.Condition, t T) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == string(t) {
			return &conds[i]
		}
	}
	return nil
}

// IsTrue reports whether the condition of type t is present with status
// True. Absent or nil conds gives false.
func IsTrue[T ConditionType](conds []metav1.Condition, t T) bool {
	c := Get(conds, t)
	return c != nil && c.Status == metav1.ConditionTrue
}

// IsFalse reports whether the condition of type t is present with status
// False. Absent or nil conds gives false.
func IsFalse[T ConditionType](conds []metav1.Condition, t T) bool {
	c := Get(conds, t)
	return c != nil && c.Status == metav1.ConditionFalse
}

// IsUnknown reports whether the condition of type t is neither True nor
// False: absent (C2 reads an absent Degraded as Unknown), nil conds, status
// Unknown, or a status outside the three.
func IsUnknown[T ConditionType](conds []metav1.Condition, t T) bool {
	c := Get(conds, t)
	return c == nil || (c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse)
}

// HasKEPConditions reports whether conds carries any of LoadBalancerServing,
// LoadBalancerProvisioning and LoadBalancerDegraded, whatever their status.
// The deprecated LoadBalancerPortsError does not count. Nil gives false.
func HasKEPConditions(conds []metav1.Condition) bool {
	for i := range conds {
		if isKEPType(conds[i].Type) {
			return true
		}
	}
	return false
}

// Acknowledged reports whether conds carries Serving or Provisioning,
// whatever their status: the two conditions a KEP-aware provider writes
// first (L1). A client that sees neither within L8's deadline concludes
// that no KEP-aware provider handles the Service. Nil gives false.
func Acknowledged(conds []metav1.Condition) bool {
	return Get(conds, v1.LoadBalancerConditionServing) != nil || Get(conds, v1.LoadBalancerConditionProvisioning) != nil
}

// isKEPType reports whether t is one of the three condition types this
// package owns.
func isKEPType(t string) bool {
	switch v1.LoadBalancerConditionType(t) {
	case v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning, v1.LoadBalancerConditionDegraded:
		return true
	}
	return false
}
