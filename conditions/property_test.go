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
	"testing"

	"pgregory.net/rapid"
)

// TestProvider_StateMachine drives a provider through random sequences of
// events, user spec changes, clock steps and watch observations, and checks
// C1-C7, L1, L3-L7, P1, P5, P6 and the decision rules after every action
// (see statemachine_test.go). Run longer with -rapid.checks=10000; failures
// are saved under testdata/rapid/ and replayed by every run.
func TestProvider_StateMachine(t *testing.T) {
	rapid.Check(t, stateMachine)
}
