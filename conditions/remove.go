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

// Remove deletes the condition of type t from *conds, keeping the order of
// the others, and reports whether it was present. A nil conds is a no-op
// that reports false. The removal happens in place: other slices sharing
// the backing array see the shifted elements.
func Remove[T ConditionType](conds *[]metav1.Condition, t T) bool {
	if conds == nil {
		return false
	}
	for i := range *conds {
		if (*conds)[i].Type == string(t) {
			*conds = append((*conds)[:i], (*conds)[i+1:]...)
			return true
		}
	}
	return false
}
