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
	"errors"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestCollector(t *testing.T) {
	c := NewChecker()
	col := NewCollector(KeepFindings(1))
	bad := ready("web", 10)
	bad.Status.LoadBalancer.Ingress = nil // L4, and verdict Pending
	cip := newLB("cip")
	cip.Spec.Type = corev1.ServiceTypeClusterIP
	for _, obj := range []Object{
		{Kind: "Service", Service: bad},
		{Kind: "Service", Service: cip},
		{Kind: "ConfigMap", Ref: ObjectRef{Name: "cm"}},
		// A Knative Service is another kind, not a Service without
		// observations.
		{Kind: "Service", APIVersion: "serving.knative.dev/v1", Ref: ObjectRef{Kind: "Service", Name: "hello"}},
	} {
		col.Observe(obj, c.ObserveObject(obj))
	}
	col.Findings(c.Finish())
	col.Error(&DecodeError{Position: Position{Source: "x", Line: 2}, Err: errors.New("truncated")})
	r := col.Report()

	s := r.Summary
	if s.Objects != 4 || s.Observations != 2 || s.Services != 2 || s.Skipped != 2 || s.InputErrors != 1 {
		t.Errorf("summary %+v", s)
	}
	if s.Findings.Violations != 1 || s.Rules["L4"].Violations != 1 || s.Rules["T4"].Notices != 1 || !s.Failed() {
		t.Errorf("counts %+v, rules %v", s.Findings, s.Rules)
	}
	if len(r.Services) != 2 || r.Services[0].Name != "cip" || r.Services[1].Name != "web" {
		t.Fatalf("services not sorted: %+v", r.Services)
	}
	web := r.Services[1]
	if web.Verdict == nil || web.Verdict.Rule != "T4" || web.Type != "LoadBalancer" || len(web.Conditions) != 2 {
		t.Errorf("web report %+v", web)
	}
	// One of each severity is kept: the L4 violation and the T4 notice.
	if len(web.Findings) != 2 || web.Omitted != 0 || web.Counts.Violations != 1 {
		t.Errorf("web keeps %d findings, omitted %d", len(web.Findings), web.Omitted)
	}
	if cip := r.Services[0]; cip.Verdict != nil || cip.Type != "ClusterIP" {
		t.Errorf("cip report %+v", cip)
	}
	if len(r.Other) != 1 || r.OtherOmitted != 1 || len(r.Errors) != 1 {
		t.Errorf("other %v (%d omitted), errors %v", r.Other, r.OtherOmitted, r.Errors)
	}
	knative := Object{Kind: "Service", APIVersion: "serving.knative.dev/v1", Ref: ObjectRef{Kind: "Service", Name: "hello"}}
	if f := c.ObserveObject(knative); len(f) != 1 || f[0].Object.Kind != "Service.serving.knative.dev" ||
		f[0].Message != "skipped: a Service of serving.knative.dev/v1 is not a core/v1 Service" {
		t.Errorf("the Knative Service's notice: %+v", f)
	}
	v2 := Object{Kind: "Service", APIVersion: "v2", Ref: ObjectRef{Kind: "Service", Name: "v2"}}
	if f := c.ObserveObject(v2); len(f) != 1 || f[0].Object.Kind != "Service (v2)" {
		t.Errorf("a Service of v2's notice: %+v", f)
	}
}

// A deleted Service keeps its row, its last observation, marked deleted
// until it is observed again.
func TestCollector_Deleted(t *testing.T) {
	c := NewChecker()
	col := NewCollector()
	web := ready("web", 10)
	deleted := func() bool {
		r := col.Report()
		if len(r.Services) != 1 || r.Services[0].Observations != 1 || r.Services[0].Verdict == nil {
			t.Fatalf("services %+v", r.Services)
		}
		return r.Services[0].Deleted
	}
	for _, obj := range []Object{{Kind: "Service", Service: web}, {Kind: "Service", Service: web, Deleted: true}} {
		col.Observe(obj, c.ObserveObject(obj))
	}
	if !deleted() {
		t.Error("a Service whose last event is its deletion is not marked deleted")
	}
	// A deletion of a Service never observed makes no row.
	gone := Object{Kind: "Service", Service: ready("gone", 10), Deleted: true}
	col.Observe(gone, c.ObserveObject(gone))
	if !deleted() {
		t.Error("the deletion of another Service unmarked web")
	}
	again := Object{Kind: "Service", Service: ready("web", 10)}
	again.Service.UID = "uid-web-2"
	col.Observe(again, c.ObserveObject(again))
	if r := col.Report(); len(r.Services) != 2 || !r.Services[0].Deleted || r.Services[1].Deleted ||
		r.Services[1].Observations != 1 || r.Services[1].UID != "uid-web-2" {
		t.Errorf("created again: the deleted Service and the new one each want a row, the deleted one first: %+v", r.Services)
	}
}

// TestCollector_CreatedAgainHasItsOwnRow: a Service created again under a
// name, with or without a DELETED event before it, gets a row of its own;
// what the old one broke stays on the old one's row.
func TestCollector_CreatedAgainHasItsOwnRow(t *testing.T) {
	for _, withDeletion := range []bool{true, false} {
		c := NewChecker()
		col := NewCollector()
		broken := ready("web", 10)
		broken.Status.LoadBalancer.Ingress = nil // L4
		objs := []Object{{Kind: "Service", Service: broken}}
		if withDeletion {
			objs = append(objs, Object{Kind: "Service", Service: broken, Deleted: true})
		}
		again := ready("web", 20)
		again.UID, again.ResourceVersion = "uid-web-2", "2"
		objs = append(objs, Object{Kind: "Service", Service: again})
		for _, obj := range objs {
			col.Observe(obj, c.ObserveObject(obj))
		}
		col.Findings(c.Finish())
		r := col.Report()
		if len(r.Services) != 2 || r.Summary.Services != 2 {
			t.Fatalf("deletion observed %v: %d rows, %d Services; want 2 and 2", withDeletion, len(r.Services), r.Summary.Services)
		}
		if old, now := r.Services[0], r.Services[1]; !old.Deleted || old.Counts.Violations != 1 || now.Deleted || now.Counts.Violations != 0 {
			t.Errorf("deletion observed %v: old row %+v, new row %+v; want the L4 violation on the old, deleted one", withDeletion, old, now)
		}
	}
}

// TestCollector_NewServiceOfAnotherClassHasNoVerdict: a Service created
// again under the name, of a class the checker leaves alone (P1), is given
// no verdict, neither its predecessor's nor one of its own; whether the old
// one's deletion was observed or not.
func TestCollector_NewServiceOfAnotherClassHasNoVerdict(t *testing.T) {
	for _, withDeletion := range []bool{true, false} {
		c := NewChecker(Classes{"example.com/lb"})
		col := NewCollector()
		old := ready("web", 10)
		objs := []Object{{Kind: "Service", Service: old}}
		if withDeletion {
			objs = append(objs, Object{Kind: "Service", Service: old, Deleted: true})
		}
		foreign := newLB("web")
		foreign.UID = "uid-web-2"
		foreign.Spec.LoadBalancerClass = ptr.To("other.example/lb")
		objs = append(objs, Object{Kind: "Service", Service: foreign})
		for _, obj := range objs {
			col.Observe(obj, c.ObserveObject(obj))
		}
		if v := col.Report().Services[1].Verdict; v != nil {
			t.Errorf("deletion observed %v: the new Service of another class got the verdict %s", withDeletion, v)
		}
	}
}

// Skipped objects are counted per kind, most first, under the kind their
// notice names; the kinds counted one by one are bounded.
func TestCollector_SkippedKinds(t *testing.T) {
	c := NewChecker()
	col := NewCollector()
	observe := func(kind, apiVersion string, n int) {
		for range n {
			obj := Object{Kind: kind, APIVersion: apiVersion}
			col.Observe(obj, c.ObserveObject(obj))
		}
	}
	observe("ConfigMap", "v1", 1)
	observe("Deployment", "apps/v1", 3)
	observe("", "", 2)
	observe("Service", "serving.knative.dev/v1", 1)
	observe("Pod", "v1", 3)
	want := []KindCount{{"Deployment", 3}, {"Pod", 3}, {"", 2}, {"ConfigMap", 1}, {"Service.serving.knative.dev", 1}}
	if r := col.Report(); !slices.Equal(r.SkippedKinds, want) || r.SkippedOtherKinds != 0 || r.Summary.Skipped != 10 {
		t.Errorf("skipped kinds %v (other kinds %d), want %v", r.SkippedKinds, r.SkippedOtherKinds, want)
	}
	// 5 kinds so far: of 64 more, the last 5 are counted as other kinds.
	for i := range maxSkippedKinds {
		observe(fmt.Sprintf("Kind%d", i), "v1", 1)
	}
	observe("Pod", "v1", 1) // counted already: still counted by kind
	if r := col.Report(); len(r.SkippedKinds) != maxSkippedKinds || r.SkippedOtherKinds != 5 || r.SkippedKinds[0] != (KindCount{"Pod", 4}) {
		t.Errorf("past %d kinds: %d kinds, %d of other kinds, first %v", maxSkippedKinds, len(r.SkippedKinds), r.SkippedOtherKinds, r.SkippedKinds[0])
	}
}

func TestCollector_SummaryOnly(t *testing.T) {
	c := NewChecker()
	col := NewCollector(SummaryOnly(true))
	obj := Object{Kind: "Service", Service: newLB("web")}
	col.Observe(obj, c.ObserveObject(obj))
	col.Findings(c.Finish())
	r := col.Report()
	if len(r.Services) != 0 || r.Summary.Observations != 1 || r.Summary.Rules["R3"].Notices != 1 {
		t.Errorf("report %+v", r)
	}
	if c.Seen() != 1 {
		t.Errorf("Seen() = %d", c.Seen())
	}
}

func TestSummary_Merge(t *testing.T) {
	a := Summary{Objects: 1, Findings: SeverityCounts{Violations: 1}, Rules: map[RuleID]*SeverityCounts{"L4": {Violations: 1}}}
	b := Summary{Objects: 2, Services: 1, Findings: SeverityCounts{Warnings: 2}, Rules: map[RuleID]*SeverityCounts{"L4": {Violations: 2}, "C2": {Warnings: 2}}}
	var total Summary
	total.Merge(a)
	total.Merge(b)
	if total.Objects != 3 || total.Services != 1 || total.Findings.Violations != 1 || total.Findings.Warnings != 2 ||
		total.Rules["L4"].Violations != 3 || total.Rules["C2"].Warnings != 2 {
		t.Errorf("merged %+v", total)
	}
	if a.Rules["L4"].Violations != 1 {
		t.Error("Merge changed its argument")
	}
	if ids := total.SortedRules(); len(ids) != 2 || ids[0] != "C2" || ids[1] != "L4" {
		t.Errorf("SortedRules() = %v", ids)
	}
}

// Notices, however many, never take the place of a violation: the cap is
// per severity.
func TestCollector_KeepsPerSeverity(t *testing.T) {
	col := NewCollector(KeepFindings(2))
	ref := ObjectRef{Kind: "Service", Name: "web"}
	for range 10 {
		col.Findings([]Finding{{Rule: "T4", Severity: SeverityNotice, Object: ref, Verdict: &Verdict{Rule: "T4"}}})
	}
	col.Findings([]Finding{{Rule: "L4", Severity: SeverityViolation, Object: ref}})
	web := col.Report().Services[0]
	var rules []RuleID
	for _, f := range web.Findings {
		rules = append(rules, f.Rule)
	}
	if len(rules) != 3 || rules[2] != "L4" || web.Omitted != 8 {
		t.Errorf("kept %v, omitted %d; want two notices and the violation, 8 omitted", rules, web.Omitted)
	}

	// Verdict notices can be left to the Verdict field.
	col = NewCollector(KeepFindings(2), KeepVerdictNotices(false))
	col.Findings([]Finding{{Rule: "T4", Severity: SeverityNotice, Object: ref, Verdict: &Verdict{Rule: "T4"}}})
	if web := col.Report().Services[0]; len(web.Findings) != 0 || web.Verdict == nil || web.Counts.Notices != 1 {
		t.Errorf("verdict notice kept: %+v", web)
	}
}

// Memory is bounded by the number of distinct Services, not by the number
// of skipped objects or input problems.
func TestCollector_SkippedAndErrorsAreBounded(t *testing.T) {
	col := NewCollector(KeepFindings(5))
	c := NewChecker()
	for i := range 100000 {
		obj := Object{Kind: "ConfigMap", Ref: ObjectRef{Kind: "ConfigMap", Name: "cm"}}
		col.Observe(obj, c.ObserveObject(obj))
		if i%10 == 0 {
			col.Error(errors.New("bad"))
		}
	}
	r := col.Report()
	if len(r.Other) != 5 || r.OtherOmitted != 100000-5 || r.Summary.Skipped != 100000 {
		t.Errorf("other: %d kept, %d omitted, %d skipped", len(r.Other), r.OtherOmitted, r.Summary.Skipped)
	}
	if len(r.Errors) != 5 || r.ErrorsOmitted != 10000-5 || r.Summary.InputErrors != 10000 {
		t.Errorf("errors: %d kept, %d omitted, %d counted", len(r.Errors), r.ErrorsOmitted, r.Summary.InputErrors)
	}
}
