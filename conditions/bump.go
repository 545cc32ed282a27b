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
)

// Bump moves the lastTransitionTime of the condition of type t without
// changing its status, and reports whether the condition was present. This
// is how a provider says it has seen a load-balancer-relevant change (L6 on
// Provisioning) or that the load balancer's behaviour changed (L6 on
// Serving). The new time is the clock's current time (WithClock) truncated
// to whole seconds, and at least one second after the previous value, so
// the bump is visible on the wire even within the same second (G5) and
// never goes backwards (C7). WithObservedGeneration, when given, is written too.
//
// An absent condition is not created: there is nothing to bump, and Bump
// reports false. A nil conds is a no-op that reports false.
func Bump[T ConditionType](conds *[]metav1.Condition, t T, opts ...SetOption) bool {
	if conds == nil {
		return false
	}
	c := Get(*conds, t)
	if c == nil {
		return false
	}
	clk, gen, hasGen := setOptions(opts)
	c.LastTransitionTime = nextTransitionTime(c.LastTransitionTime, clk.Now())
	if hasGen {
		c.ObservedGeneration = gen
	}
	return true
}
