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
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
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

// TestRules_FindingsNameKnownRules checks every rule ID the checker can
// report is explained by LookupRule. The IDs are read from the package's
// source (every string literal shaped like a rule ID, so a new f.add("X9")
// is seen without editing this test) and from validation's origins, which
// classify reports as they are.
func TestRules_FindingsNameKnownRules(t *testing.T) {
	ids := map[RuleID]bool{RuleInput: true}
	// R5 is left out: the checker validates with the gate on, where no
	// error has that origin.
	for _, o := range []string{validation.OriginC1, validation.OriginC3, validation.OriginC5, validation.OriginL5,
		validation.OriginP5, validation.OriginR4} {
		ids[RuleID(o)] = true
	}
	ruleShaped := regexp.MustCompile(`^"[CLRPTG][0-9]+"$`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	scanned := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && ruleShaped.MatchString(lit.Value) {
				ids[RuleID(strings.Trim(lit.Value, `"`))] = true
				scanned++
			}
			return true
		})
	}
	if !ids["L5"] || !ids["C7"] || scanned == 0 {
		t.Fatalf("the source scan found too little: %v", ids)
	}
	for id := range ids {
		if r, ok := LookupRule(string(id)); !ok || len(r.Severities) == 0 {
			t.Errorf("%s is reported but not explained as checked", id)
		}
	}
}

// L6 has two halves in the specification: a relevant spec change moves
// Provisioning's lastTransitionTime, and a change of what the load balancer
// serves moves Serving's. The text explains both, and says which one the
// checker cannot see.
func TestRules_L6_BothHalves(t *testing.T) {
	r, _ := LookupRule("L6")
	for _, want := range []string{"lastTransitionTime of LoadBalancerProvisioning", "lastTransitionTime of LoadBalancerServing", "does not check this half"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("L6's text does not say %q:\n%s", want, r.Text)
		}
	}
}

// C5's bound on observedGeneration needs a metadata.generation to compare
// with; the text says what the checker does without one.
func TestRules_C5_WithoutGeneration(t *testing.T) {
	r, _ := LookupRule("C5")
	if !strings.Contains(r.Text, "without metadata.generation") {
		t.Errorf("C5's text does not say what happens without metadata.generation:\n%s", r.Text)
	}
	manifest := ready("manifest", 10)
	getCond(t, manifest, v1.LoadBalancerConditionServing).ObservedGeneration = 3
	noFinding(t, check(manifest), "C5")
}

// L4's trace half judges providers that write the KEP-4631 conditions: an
// ingress filled on a Service without any is R3's notice, and the text
// says so.
func TestRules_L4_WithoutConditions(t *testing.T) {
	r, _ := LookupRule("L4")
	if !strings.Contains(r.Text, "none of the KEP-4631 conditions") {
		t.Errorf("L4's text does not say what happens without the conditions:\n%s", r.Text)
	}
	created := newLB("legacy")
	filled := next(created)
	filled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	found := check(created, filled)
	noFinding(t, found, "L4")
	wantFinding(t, found, "R3", SeverityNotice, "status.conditions")
}
