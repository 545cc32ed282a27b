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
	"github.com/lbstatus/lbstatus/conditions"
)

// Severity is how much a finding weighs (section 8 of the specification).
type Severity string

const (
	// SeverityViolation: a MUST of the specification is broken. Any
	// violation makes a check fail.
	SeverityViolation Severity = "violation"
	// SeverityWarning: a SHOULD is broken, or a compatibility note.
	SeverityWarning Severity = "warning"
	// SeverityNotice: a fact a reader needs, such as the verdict of section
	// 6 or a Service without KEP-4631 conditions.
	SeverityNotice Severity = "notice"
)

// Severities lists the severities from the heaviest to the lightest.
var Severities = []Severity{SeverityViolation, SeverityWarning, SeverityNotice}

// RuleID names a rule of the specification ("C1", "L6", "R4", ...), or
// RuleInput.
type RuleID string

// RuleInput is not a rule of the specification: it labels notices about
// the input itself, such as an object that is not a Service and was skipped.
const RuleInput RuleID = "Input"

// Finding is one result of the checker: a rule, how much it weighs, the
// observation and field it is about, and a one-sentence message.
type Finding struct {
	// Rule is the rule's ID; Rules describes every ID.
	Rule RuleID `json:"rule"`
	// Severity is the finding's weight.
	Severity Severity `json:"severity"`
	// Object is the observation the finding is about. Its
	// resourceVersion is cut by input.Clip, as the strings a message
	// quotes from the input are: the input may hold any string there. Its
	// namespace and name are whole, since they tell Services apart, and
	// ObjectRef.String cuts them where they are printed.
	Object ObjectRef `json:"object"`
	// Field is the JSON path of the field the finding is about, such as
	// "status.conditions[0].status"; empty when it is about the whole
	// object.
	Field string `json:"field,omitempty"`
	// Message says what is wrong, or what was observed, in one sentence.
	Message string `json:"message"`
	// Position says where in the input the observation was read; nil when
	// the checker was handed a Service directly (Checker.Observe).
	Position *Position `json:"position,omitempty"`
	// Verdict is the section 6 verdict of the Service; set on verdict
	// notices (rules T1 to T4) only. Its reason, which may quote Serving's
	// message, is cut by input.Clip, as Message is.
	Verdict *Verdict `json:"verdict,omitempty"`
	// EndOfTrace reports a finding owed when the Service's trace ended
	// (deleted, created again with a new uid, no longer selected, or the
	// input ended): it is about the trace's last observation, Object,
	// even when it comes with the observation of a new Service of the
	// same name, where no resourceVersion may tell the two apart.
	EndOfTrace bool `json:"endOfTrace,omitempty"`
}

// Verdict is a conditions.Verdict as a report carries it: the section 6
// conclusion for a Service, for no particular feature under test.
type Verdict struct {
	// Result is Ready, Pending, Skip or Fail.
	Result conditions.Result `json:"result"`
	// Rule is the rule of section 6 that gave the result, "T1" to "T4".
	Rule string `json:"rule"`
	// Reason says why, in one sentence.
	Reason string `json:"reason"`
}

// newVerdict converts a conditions.Verdict.
func newVerdict(v conditions.Verdict) *Verdict {
	return &Verdict{Result: v.Result, Rule: v.Rule, Reason: v.Reason}
}

// String returns "Result (Rule): Reason".
func (v Verdict) String() string {
	return string(v.Result) + " (" + v.Rule + "): " + v.Reason
}
