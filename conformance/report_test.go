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
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/conformance/input"
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
	// "core/v1" names the core group as the documentation does, not as
	// the apiVersion says: the notice says what to write instead.
	core := Object{Kind: "Service", APIVersion: "core/v1", Ref: ObjectRef{Kind: "Service", Name: "web"}}
	if f := c.ObserveObject(core); len(f) != 1 || f[0].Message != "skipped: a core/v1 Service has apiVersion v1, not core/v1" {
		t.Errorf("a Service of core/v1's notice: %+v", f)
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
	// Input problems are counted, not kept, either.
	col.Error(errors.New("x.yaml:3: not JSON"))
	if r := col.Report(); len(r.Errors) != 0 || r.ErrorsOmitted != 1 || r.Summary.InputErrors != 1 {
		t.Errorf("errors %q, %d omitted, %d counted", r.Errors, r.ErrorsOmitted, r.Summary.InputErrors)
	}
}

func TestSummary_Merge(t *testing.T) {
	a := Summary{Objects: 1, Observations: 1, Findings: SeverityCounts{Violations: 1, Notices: 1},
		Rules: map[RuleID]*SeverityCounts{"L4": {Violations: 1}, "T3": {Notices: 1}}}
	b := Summary{Objects: 2, Services: 1, Skipped: 1, InputErrors: 1, Findings: SeverityCounts{Warnings: 2, Notices: 1},
		Rules: map[RuleID]*SeverityCounts{"L4": {Violations: 2}, "C2": {Warnings: 2}, "T3": {Notices: 1}}}
	var total Summary
	total.Merge(a)
	total.Merge(b)
	want := Summary{Objects: 3, Observations: 1, Services: 1, Skipped: 1, InputErrors: 1, Findings: SeverityCounts{Violations: 1, Warnings: 2, Notices: 2},
		Rules: map[RuleID]*SeverityCounts{"L4": {Violations: 3}, "C2": {Warnings: 2}, "T3": {Notices: 2}}}
	if !reflect.DeepEqual(total, want) {
		t.Errorf("merged %+v, want %+v", total, want)
	}
	if a.Rules["L4"].Violations != 1 {
		t.Error("Merge changed its argument")
	}
	if ids := total.SortedRules(); !slices.Equal(ids, []RuleID{"C2", "L4", "T3"}) {
		t.Errorf("SortedRules() = %v", ids)
	}
}

// SortedRules orders by family and number, as the specification does, and
// puts every other ID last, by name: RuleInput, and IDs a merged report
// from another version may carry.
func TestSummary_SortedRulesOthersLastByName(t *testing.T) {
	s := Summary{Rules: map[RuleID]*SeverityCounts{}}
	for _, id := range []RuleID{"Zz", RuleInput, "L10", "C-1", "G1", "L6", "C", "C1"} {
		s.Rules[id] = &SeverityCounts{Notices: 1}
	}
	want := []RuleID{"C1", "L6", "L10", "G1", "C", "C-1", RuleInput, "Zz"}
	if ids := s.SortedRules(); !slices.Equal(ids, want) {
		t.Errorf("SortedRules() = %v, want %v", ids, want)
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

// rows lists the rows of r, one a line.
func rows(r Report) string {
	var b strings.Builder
	for _, sr := range r.Services {
		fmt.Fprintf(&b, "  %s/%s uid %q: %d observations, deleted %v, counts %+v\n", sr.Namespace, sr.Name, sr.UID, sr.Observations, sr.Deleted, sr.Counts)
	}
	return b.String()
}

// observeAllObjects feeds objects to c and col, then Finish's findings.
func observeAllObjects(c *Checker, col *Collector, objs ...Object) Report {
	for _, obj := range objs {
		col.Observe(obj, c.ObserveObject(obj))
	}
	col.Findings(c.Finish())
	return col.Report()
}

// A Service created again without a DELETED event: what the checker owes
// at the end of the old one's trace (here R3, for a Service that never had
// conditions) is recorded, and counted, on the old one's row; also when
// the old one was read without a resourceVersion, as a manifest is, and
// when neither was, where no resourceVersion tells the two apart.
func TestCollector_EndOfRecreatedTraceOnTheOldRow(t *testing.T) {
	for _, rvs := range [][2]string{{"1", "2"}, {"", "2"}, {"", ""}} {
		rv := rvs[0]
		legacy := newLB("web") // no conditions: R3 at the end of its trace
		legacy.ResourceVersion = rv
		again := ready("web", 20)
		again.UID, again.ResourceVersion = "uid-web-2", rvs[1]
		r := observeAllObjects(NewChecker(), NewCollector(), Object{Kind: "Service", Service: legacy}, Object{Kind: "Service", Service: again})
		if len(r.Services) != 2 {
			t.Fatalf("resourceVersion %q: %d rows, want 2", rv, len(r.Services))
		}
		if old, now := r.Services[0], r.Services[1]; len(withRule(old.Findings, "R3")) != 1 || len(withRule(now.Findings, "R3")) != 0 {
			t.Errorf("resourceVersion %q: old row:\n%snew row:\n%swant R3 on the old row only", rv, dump(old.Findings), dump(now.Findings))
		}
		if rc := r.Summary.Rules["R3"]; rc == nil || rc.Notices != 1 {
			t.Errorf("resourceVersion %q: summary counts R3 as %+v, want one notice", rv, rc)
		}
	}
}

// The new Service's own findings stay on its row, even when its
// resourceVersion is the old one's (inputs from two clusters, say).
func TestCollector_RecreatedWithTheSameResourceVersion(t *testing.T) {
	again := ready("web", 20)
	again.UID = "uid-web-2"
	again.Status.LoadBalancer.Ingress = nil // L4
	r := observeAllObjects(NewChecker(), NewCollector(), Object{Kind: "Service", Service: ready("web", 10)}, Object{Kind: "Service", Service: again})
	if len(r.Services) != 2 {
		t.Fatalf("%d rows, want 2", len(r.Services))
	}
	if old, now := r.Services[0], r.Services[1]; old.Counts.Violations != 0 || now.Counts.Violations != 1 {
		t.Errorf("old row %+v, new row %+v; want the new Service's L4 on its own row", old, now)
	}
}

// A Service first read without a uid (a manifest) and then with one is one
// Service, as it is one trace for the checker: one row, counted once (it
// was counted twice). A manifest after it is that Service too; a new uid
// after that is another.
func TestCollector_UIDAddedIsTheSameService(t *testing.T) {
	manifest := ready("web", 10)
	manifest.UID = ""
	live := next(manifest)
	live.UID = "uid-web"
	r := observeAllObjects(NewChecker(), NewCollector(), Object{Kind: "Service", Service: manifest}, Object{Kind: "Service", Service: live})
	if len(r.Services) != 1 || r.Services[0].Observations != 2 || r.Services[0].UID != "uid-web" || r.Services[0].Deleted || r.Summary.Services != 1 {
		t.Errorf("rows:\n%swant one of two observations with uid-web; %d Services, want 1", rows(r), r.Summary.Services)
	}
	again := next(live)
	again.UID = ""
	other := next(again)
	other.UID = "uid-web-2"
	for _, summaryOnly := range []bool{false, true} {
		r = observeAllObjects(NewChecker(), NewCollector(SummaryOnly(summaryOnly)), Object{Kind: "Service", Service: manifest},
			Object{Kind: "Service", Service: live}, Object{Kind: "Service", Service: again}, Object{Kind: "Service", Service: other})
		if r.Summary.Services != 2 || !summaryOnly && len(r.Services) != 2 {
			t.Errorf("summary only %v: %d Services, rows:\n%swant 2 and 2: the manifests are uid-web's", summaryOnly, r.Summary.Services, rows(r))
		}
	}
}

// A row shows the last observation: its type ("ClusterIP" when unset), its
// class, cleared with the field, its ingress (an entry's ip before its
// hostname), and no verdict once it is no longer a LoadBalancer.
func TestCollector_RowShowsTheLastObservation(t *testing.T) {
	lb := ready("web", 10)
	lb.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1", Hostname: "web.example.com"}, {Hostname: "alt.example.com"}}
	c, col := NewChecker(), NewCollector()
	obj := Object{Kind: "Service", Service: lb}
	col.Observe(obj, c.ObserveObject(obj))
	sr := col.Report().Services[0]
	if sr.Class != "example.com/lb" || !slices.Equal(sr.Ingress, []string{"192.0.2.1", "alt.example.com"}) || sr.Verdict == nil {
		t.Errorf("LoadBalancer row: class %q, ingress %v, verdict %v", sr.Class, sr.Ingress, sr.Verdict)
	}

	converted := next(lb)
	converted.Spec.Type = ""
	converted.Spec.LoadBalancerClass = nil
	converted.Spec.Ports[0].NodePort = 0
	converted.Status = v1.ServiceStatus{}
	obj = Object{Kind: "Service", Service: converted}
	col.Observe(obj, c.ObserveObject(obj))
	sr = col.Report().Services[0]
	if sr.Type != "ClusterIP" || sr.Class != "" || len(sr.Ingress) != 0 || sr.Verdict != nil {
		t.Errorf("converted row: type %q, class %q, ingress %v, verdict %v; want ClusterIP, no class, no ingress, no verdict", sr.Type, sr.Class, sr.Ingress, sr.Verdict)
	}
}

// Services are sorted by namespace first, then name; the rows of one name
// in the order its Services were created, however many.
func TestCollector_ReportOrder(t *testing.T) {
	c, col := NewChecker(), NewCollector()
	var objs []Object
	for _, nn := range [][2]string{{"b", "a"}, {"a", "b"}} {
		svc := ready(nn[1], 10)
		svc.Namespace = nn[0]
		objs = append(objs, Object{Kind: "Service", Service: svc})
	}
	var want []string
	for i := range 20 {
		svc := ready("c", 10)
		svc.Namespace = "a"
		svc.UID = types.UID(fmt.Sprintf("uid-%02d", i))
		svc.ResourceVersion = fmt.Sprint(i + 1)
		objs = append(objs, Object{Kind: "Service", Service: svc})
		want = append(want, "a/c/"+string(svc.UID))
	}
	want = append([]string{"a/b/uid-b"}, want...)
	want = append(want, "b/a/uid-a")
	var got []string
	for _, sr := range observeAllObjects(c, col, objs...).Services {
		got = append(got, sr.Namespace+"/"+sr.Name+"/"+sr.UID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%v\nwant\n%v", got, want)
	}
}

// KeepFindings(0) keeps no finding and no input problem, and counts them
// all; only a negative number keeps all.
func TestCollector_KeepNone(t *testing.T) {
	col := NewCollector(KeepFindings(0))
	ref := ObjectRef{Kind: "Service", Name: "web"}
	col.Findings([]Finding{{Rule: "L4", Severity: SeverityViolation, Object: ref}, {Rule: "C3", Severity: SeverityWarning, Object: ref}})
	col.Findings([]Finding{{Rule: RuleInput, Severity: SeverityNotice, Object: ObjectRef{Kind: "ConfigMap", Name: "cm"}}})
	col.Error(errors.New("bad"))
	r := col.Report()
	if web := r.Services[0]; len(web.Findings) != 0 || web.Omitted != 2 || web.Counts.Violations != 1 || web.Counts.Warnings != 1 {
		t.Errorf("web keeps %v, omitted %d, counts %+v", web.Findings, web.Omitted, web.Counts)
	}
	if len(r.Other) != 0 || r.OtherOmitted != 1 || len(r.Errors) != 0 || r.ErrorsOmitted != 1 {
		t.Errorf("other %v (%d omitted), errors %v (%d omitted)", r.Other, r.OtherOmitted, r.Errors, r.ErrorsOmitted)
	}
}

// An object that is not a Service, passed without findings, is counted
// under its own kind; with SummaryOnly, skipped kinds are not kept either.
func TestCollector_SkippedWithoutFindings(t *testing.T) {
	col := NewCollector()
	col.Observe(Object{Kind: "ConfigMap"}, nil)
	if r := col.Report(); !slices.Equal(r.SkippedKinds, []KindCount{{"ConfigMap", 1}}) || r.Summary.Skipped != 1 {
		t.Errorf("skipped kinds %v, skipped %d", r.SkippedKinds, r.Summary.Skipped)
	}

	col = NewCollector(SummaryOnly(true))
	c := NewChecker()
	obj := Object{Kind: "ConfigMap"}
	col.Observe(obj, c.ObserveObject(obj))
	if r := col.Report(); len(r.SkippedKinds) != 0 || r.Summary.Skipped != 1 {
		t.Errorf("summary only: skipped kinds %v, skipped %d", r.SkippedKinds, r.Summary.Skipped)
	}
}

// A row made by findings alone, then deleted, is no longer deleted once
// its Service is observed: Deleted is about the last event.
func TestCollector_ObservedAfterDeletionOfARowWithoutObservations(t *testing.T) {
	col := NewCollector()
	web := ready("web", 10)
	col.Findings([]Finding{{Rule: "L6", Severity: SeverityWarning, Object: ObjectRef{Kind: "Service", Namespace: web.Namespace, Name: web.Name}}})
	col.Observe(Object{Kind: "Service", Service: web, Deleted: true}, nil)
	col.Observe(Object{Kind: "Service", Service: web}, nil)
	if r := col.Report(); len(r.Services) != 1 || r.Services[0].Deleted || r.Services[0].Observations != 1 {
		t.Errorf("rows:\n%swant one observed row, not deleted", rows(r))
	}
}

// TestCollector_ManifestsWithoutANameAreServicesOfTheirOwn: manifests with
// generateName and no name, one after the other, are different Services,
// not a trace: the second is no change of the first's spec (no L6 owed at
// the end), each is counted and has its row, and neither is deleted.
func TestCollector_ManifestsWithoutANameAreServicesOfTheirOwn(t *testing.T) {
	c := NewChecker()
	col := NewCollector()
	var all []Finding
	for i, port := range []int32{80, 443} {
		svc := ready("", 10)
		svc.GenerateName, svc.UID, svc.ResourceVersion = "web-", "", ""
		svc.Spec.Ports[0].Port = port
		svc.Status.LoadBalancer.Ingress[0].IP = fmt.Sprintf("192.0.2.%d", i+1)
		obj := Object{Kind: "Service", Service: svc}
		found := c.ObserveObject(obj)
		all = append(all, found...)
		col.Observe(obj, found)
	}
	end := c.Finish()
	col.Findings(end)
	all = append(all, end...)
	noFinding(t, all, "L6")
	noViolations(t, all)
	r := col.Report()
	if r.Summary.Services != 2 || len(r.Services) != 2 {
		t.Fatalf("%d Services, %d rows; want 2 and 2", r.Summary.Services, len(r.Services))
	}
	for i, sr := range r.Services {
		if sr.Observations != 1 || sr.Deleted || len(sr.Ingress) != 1 || sr.Ingress[0] != fmt.Sprintf("192.0.2.%d", i+1) {
			t.Errorf("row %d: %+v; want one observation, not deleted, ingress 192.0.2.%d", i, sr, i+1)
		}
	}
}

// TestCollector_ManifestWithoutANameEndsItsOwnTrace: a manifest without
// a name ends its own trace with its observation (R3 for one without
// conditions): that finding is its own, on its row, not the previous
// nameless manifest's.
func TestCollector_ManifestWithoutANameEndsItsOwnTrace(t *testing.T) {
	var objs []Object
	for range 2 {
		svc := newLB("")
		svc.GenerateName, svc.UID, svc.ResourceVersion = "web-", "", ""
		objs = append(objs, Object{Kind: "Service", Service: svc})
	}
	r := observeAllObjects(NewChecker(), NewCollector(), objs...)
	if len(r.Services) != 2 {
		t.Fatalf("%d rows, want 2", len(r.Services))
	}
	for i, sr := range r.Services {
		if len(withRule(sr.Findings, "R3")) != 1 {
			t.Errorf("row %d:\n%swant one R3", i, dump(sr.Findings))
		}
	}
}

// What a report keeps of every Service, and what a finding quotes, from
// the input is cut past what a valid one holds: 300 Services with a reason
// of 1 MiB took 1.3 GB with -o text, where memory is to be bounded by the
// number of Services, not by the size of their strings.
func TestCollector_InputStringsAreCut(t *testing.T) {
	long := strings.Repeat("x", 4*input.MaxTextBytes)
	svc := newLB("a")
	svc.Spec.Type = corev1.ServiceType(long)
	svc.Spec.LoadBalancerClass = &long
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionStatus(long), v1.LoadBalancerReasonProvisioning, at(1)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerConditionReason(long), at(1)),
	}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	c, col := NewChecker(), NewCollector()
	r := observeAllObjects(c, col, Object{Kind: "Service", APIVersion: "v1", Service: svc, Ref: ObjectRef{Kind: "Service", Namespace: "test", Name: "a"}})
	svc.Spec.Type = corev1.ServiceType(long)
	r2 := observeAllObjects(NewChecker(), NewCollector(), Object{Kind: "Service", APIVersion: "v1", Service: svc, Ref: ObjectRef{Kind: "Service", Namespace: "test", Name: "a"}})
	sr, sr2 := r.Services[0], r2.Services[0]
	kept := []string{sr.Class, sr2.Type}
	for _, cs := range sr.Conditions {
		kept = append(kept, cs.Status, cs.Reason)
	}
	var c5 bool
	for _, f := range sr.Findings {
		kept = append(kept, f.Message)
		c5 = c5 || f.Rule == "C5" && f.Field == "status.conditions[1].reason"
	}
	for _, s := range kept {
		if len(s) > 2*input.MaxTextBytes {
			t.Errorf("kept %d bytes: %.80s...; want at most %d", len(s), s, 2*input.MaxTextBytes)
		}
	}
	if !c5 {
		t.Errorf("findings %v; want a C5 on the reason", sr.Findings)
	}
}

// KeepFindings caps warnings by the warnings kept, as it caps the other
// severities.
func TestCollector_KeepsWarningsPerSeverity(t *testing.T) {
	col := NewCollector(KeepFindings(1))
	ref := ObjectRef{Kind: "Service", Name: "web"}
	for range 3 {
		col.Findings([]Finding{{Rule: "C3", Severity: SeverityWarning, Object: ref}})
	}
	if web := col.Report().Services[0]; len(web.Findings) != 1 || web.Omitted != 2 || web.Counts.Warnings != 3 {
		t.Errorf("kept %d warnings, omitted %d, counted %d; want 1, 2 and 3", len(web.Findings), web.Omitted, web.Counts.Warnings)
	}
}

// A Service observed again after its DELETED event is another Service,
// in the count as in the rows, also when its observations carry no uid.
func TestCollector_ObservedAgainAfterDeletionCountsTwice(t *testing.T) {
	web := ready("web", 10)
	web.UID = ""
	for _, summaryOnly := range []bool{false, true} {
		r := observeAllObjects(NewChecker(), NewCollector(SummaryOnly(summaryOnly)), Object{Kind: "Service", Service: web},
			Object{Kind: "Service", Service: web, Deleted: true}, Object{Kind: "Service", Service: next(web)})
		if r.Summary.Services != 2 || !summaryOnly && len(r.Services) != 2 {
			t.Errorf("summary only %v: %d Services, rows:\n%swant 2 and 2", summaryOnly, r.Summary.Services, rows(r))
		}
	}
}

// TestCollector_LongResourceVersionIsCut: the input may hold any string as
// a resourceVersion. Every finding's object (a snapshot rule's, L4 here;
// the verdict's; R3's at the end of a trace; a skipped object's notice)
// and every Service's row keep its first KiB, cut by input.Clip, as the
// timeline and L6's message keep it; a Service created again under the
// name, whose resourceVersion differs past that KiB only, still gets a row
// of its own, with what the old one broke on the old one's row.
func TestCollector_LongResourceVersionIsCut(t *testing.T) {
	long := func(last string) string { return strings.Repeat("7", 64<<10) + last }
	c := NewChecker()
	col := NewCollector()
	broken := ready("web", 10)
	broken.Status.LoadBalancer.Ingress = nil // L4
	broken.ResourceVersion = long("1")
	again := ready("web", 20)
	again.UID, again.ResourceVersion = "uid-web-2", long("2")
	bare := newLB("bare") // R3 at the end
	bare.ResourceVersion = long("3")
	var found []Finding
	for _, obj := range []Object{
		{Kind: "Service", Service: broken},
		{Kind: "Service", Service: again},
		{Kind: "Service", Service: bare},
		{Kind: "ConfigMap", Ref: ObjectRef{Kind: "ConfigMap", Name: "cm", ResourceVersion: long("4")}},
	} {
		f := c.ObserveObject(obj)
		found = append(found, f...)
		col.Observe(obj, f)
	}
	end := c.Finish()
	col.Findings(end)
	found = append(found, end...)
	for _, rule := range []RuleID{"L4", "T3", "T4", "R3", RuleInput} {
		if len(withRule(found, rule)) == 0 {
			t.Errorf("no %s finding:\n%s", rule, dump(found))
		}
	}
	cut := func(what, rv string) {
		if len(rv) > input.MaxTextBytes+64 || !strings.HasSuffix(rv, " more bytes)") {
			t.Errorf("%s keeps a resourceVersion of %d bytes, want it cut after %d", what, len(rv), input.MaxTextBytes)
		}
	}
	for _, f := range found {
		cut(fmt.Sprintf("%s finding on %s", f.Rule, f.Object), f.Object.ResourceVersion)
	}
	r := col.Report()
	if len(r.Services) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(r.Services), r.Services)
	}
	for _, sr := range r.Services {
		cut("the row of "+sr.Name, sr.ResourceVersion)
	}
	if old, now := r.Services[1], r.Services[2]; old.Counts.Violations != 1 || old.Counts.Notices != 1 || now.Counts != (SeverityCounts{Notices: 1}) {
		t.Errorf("old row counts %+v, new row %+v; want the L4 violation and T4 on the old one, T3 alone on the new one", old.Counts, now.Counts)
	}
}

// TestCollector_KeptFindingsShareTheRowsName: each observation decodes
// its own copy of a Service's name, which a file may make 64 KiB long. A
// finding the Collector keeps names the Service with its row's copy, so
// that the findings of a long-named Service cost what those of another
// do, not a copy of the name each.
func TestCollector_KeptFindingsShareTheRowsName(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const observations = 200
	long := strings.Repeat("n", 64<<10)
	heap := conformancetest.HeapAfterGC
	c, col := NewChecker(), NewCollector()
	base := heap()
	for i := range observations {
		svc := ready(strings.Clone(long), 10)
		svc.UID, svc.ResourceVersion = "uid-1", strconv.Itoa(i+1)
		svc.Status.LoadBalancer.Ingress = nil // L4, at every observation
		obj := Object{Kind: "Service", Service: svc}
		col.Observe(obj, c.ObserveObject(obj))
	}
	perObservation := (float64(heap()) - float64(base)) / observations
	r := col.Report()
	if len(r.Services) != 1 || len(withRule(r.Services[0].Findings, "L4")) != observations {
		t.Fatalf("%d rows; want one with %d L4 findings", len(r.Services), observations)
	}
	if perObservation > 8<<10 {
		t.Errorf("%.0f bytes per observation of a Service named by 64 KiB, want at most 8 KiB", perObservation)
	}
	runtime.KeepAlive(c)
}

// A hostname is any string in a file: the row keeps the first KiB of each
// ingress address, marked as cut, as it keeps a reason.
func TestCollector_LongIngressIsCut(t *testing.T) {
	svc := ready("web", 10)
	long := strings.Repeat("h", 64<<10)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: long}, {IP: "192.0.2.1"}}
	col := NewCollector()
	obj := Object{Kind: "Service", Service: svc}
	col.Observe(obj, NewChecker().ObserveObject(obj))
	r := col.Report()
	if len(r.Services) != 1 || len(r.Services[0].Ingress) != 2 || r.Services[0].Ingress[0] != input.Clip(long) || r.Services[0].Ingress[1] != "192.0.2.1" {
		t.Errorf("%d rows; want one whose ingress is the hostname cut by input.Clip, then the IP", len(r.Services))
	}
}
