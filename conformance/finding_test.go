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

package conformance

import (
	"testing"

	"github.com/lbstatus/lbstatus/conditions"
)

func TestVerdict_String(t *testing.T) {
	v := Verdict{Result: conditions.ResultSkip, Rule: "T1", Reason: "the provider does not support the Service"}
	if got, want := v.String(), "Skip (T1): the provider does not support the Service"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// A verdict notice carries the whole verdict, also when other findings
// come before it in the observation.
func TestCheck_T4_VerdictAfterOtherFindings(t *testing.T) {
	svc := ready("web", 10)
	svc.Status.LoadBalancer.Ingress = nil // L4, before the verdict
	found := check(svc)
	wantFinding(t, found, "L4", SeverityViolation, ingressField)
	f := wantFinding(t, found, "T4", SeverityNotice, "status")
	want := conditions.Evaluate(svc, "")
	if f.Verdict == nil || *f.Verdict != (Verdict{Result: want.Result, Rule: want.Rule, Reason: want.Reason}) {
		t.Errorf("verdict %+v, want %+v", f.Verdict, want)
	}
	if f.Message != "verdict "+f.Verdict.String() {
		t.Errorf("message %q does not state the verdict %q", f.Message, f.Verdict)
	}
}
