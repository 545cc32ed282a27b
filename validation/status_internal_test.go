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

package validation

import "testing"

func TestConditionIndex(t *testing.T) {
	for _, tc := range []struct {
		path      string
		i         int
		whole, ok bool
	}{
		{path: "status.conditions[0]", i: 0, whole: true, ok: true},
		{path: "status.conditions[12]", i: 12, whole: true, ok: true},
		{path: "status.conditions[3].reason", i: 3, ok: true},
		{path: "status.conditions[3]reason"},
		{path: "status.conditions[]"},
		{path: "status.conditions[1"},
		{path: "status.conditions[x]"},
		{path: "status.conditions[1234567890]"},
		{path: "status.conditions"},
		{path: "status.loadBalancer.ingress[0]"},
		{path: "spec.requiredLoadBalancerFeatures[0]"},
		{path: ""},
	} {
		i, whole, ok := conditionIndex(tc.path)
		if i != tc.i || whole != tc.whole || ok != tc.ok {
			t.Errorf("conditionIndex(%q) = %d, %t, %t; want %d, %t, %t", tc.path, i, whole, ok, tc.i, tc.whole, tc.ok)
		}
	}
}
