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
	"fmt"
	"slices"
	"strings"
	"testing"
)

// specRules lists every rule ID of the specification.
func specRules() []RuleID {
	var ids []RuleID
	for _, f := range []struct {
		family string
		n      int
	}{{"C", 7}, {"L", 9}, {"R", 5}, {"P", 6}, {"T", 5}, {"G", 6}} {
		for i := 1; i <= f.n; i++ {
			ids = append(ids, RuleID(fmt.Sprintf("%s%d", f.family, i)))
		}
	}
	return ids
}

func TestRules_EveryRuleHasText(t *testing.T) {
	rules := Rules()
	var got []RuleID
	for _, r := range rules {
		got = append(got, r.ID)
		if r.Title == "" || len(r.Text) < 60 || strings.Contains(r.Text, "\n") {
			t.Errorf("%s: title %q, text %q", r.ID, r.Title, r.Text)
		}
		for _, s := range r.Severities {
			if !slices.Contains(Severities, s) {
				t.Errorf("%s: unknown severity %q", r.ID, s)
			}
		}
	}
	want := append(specRules(), RuleInput)
	if !slices.Equal(got, want) {
		t.Errorf("rules in order:\n got %v\nwant %v", got, want)
	}
}

// Section 8's severities, as the data states them.
func TestRules_SeveritiesOfSection8(t *testing.T) {
	want := map[RuleID][]Severity{
		"C1": {SeverityViolation}, "C2": {SeverityWarning}, "C3": {SeverityViolation, SeverityWarning},
		"C4": {SeverityWarning}, "C5": {SeverityViolation}, "C6": {SeverityViolation}, "C7": {SeverityViolation},
		"L1": {SeverityViolation}, "L4": {SeverityViolation}, "L5": {SeverityViolation},
		"L6": {SeverityViolation, SeverityWarning}, "L9": {SeverityWarning},
		"P5": {SeverityViolation}, "P6": {SeverityViolation}, "R4": {SeverityViolation},
		"R3": {SeverityNotice, SeverityViolation}, "T3": {SeverityNotice}, "R2": {SeverityWarning},
	}
	for id, sev := range want {
		r, ok := LookupRule(string(id))
		if !ok || !slices.Equal(r.Severities, sev) {
			t.Errorf("%s: severities %v, want %v", id, r.Severities, sev)
		}
	}
}

func TestRules_Lookup(t *testing.T) {
	if r, ok := LookupRule(" l6 "); !ok || r.ID != "L6" {
		t.Errorf("LookupRule(l6) = %v, %v", r.ID, ok)
	}
	for _, bad := range []string{"", "L10", "X1", "L"} {
		if _, ok := LookupRule(bad); ok {
			t.Errorf("LookupRule(%q) found a rule", bad)
		}
	}
	// Rules returns a copy.
	a := Rules()
	a[0].Title = "changed"
	if Rules()[0].Title == "changed" {
		t.Error("Rules shares its slice")
	}
}

// Every rule a finding can carry is explained.
func TestRules_FindingsNameKnownRules(t *testing.T) {
	for _, id := range []RuleID{"C1", "C2", "C3", "C4", "C5", "C6", "C7", "L1", "L4", "L5", "L6", "L9", "P1", "P5", "P6", "R3", "R4", "T1", "T2", "T3", "T4", RuleInput} {
		if r, ok := LookupRule(string(id)); !ok || len(r.Severities) == 0 {
			t.Errorf("%s is reported but not explained as checked", id)
		}
	}
}
