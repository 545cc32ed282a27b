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

package timeline

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// build runs a trace file through the checker and a Timeline, as check
// --timeline does.
func build(t *testing.T, path string, opts ...Option) *Timeline {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := conformance.NewDecoder(f, filepath.Base(path))
	checker := conformance.NewChecker()
	tl := New(opts...)
	for {
		obj, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		tl.ObserveObject(obj, checker.ObserveObject(obj))
	}
	tl.Findings(checker.Finish())
	return tl
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// TestWriteText_L6Golden: the text timeline of a trace where one provider
// misses L6 (web), one acknowledges its spec change (api) and one never
// writes again (db, the end-of-input warning).
func TestWriteText_L6Golden(t *testing.T) {
	tl := build(t, "testdata/l6-miss.json")
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil {
		t.Fatal(err)
	}
	golden(t, "l6-miss.txt", buf.Bytes())
}

// TestTimeline_L6Model checks the model the renderers draw: the spec change
// of web at its 4th observation, the L6 violation pinned at its 5th, the
// acknowledging bump of api's Provisioning, and db's warning at the end.
func TestTimeline_L6Model(t *testing.T) {
	tl := build(t, "testdata/l6-miss.json")
	if tl.Len() != 11 {
		t.Errorf("Len() = %d, want 11", tl.Len())
	}
	byName := map[string]*Service{}
	for _, s := range tl.Services() {
		byName[s.Name] = s
	}
	if len(byName) != 3 {
		t.Fatalf("Services() = %d, want 3", len(byName))
	}
	web := byName["web"]
	if got := web.SpecChanges; len(got) != 1 || got[0].Step != 4 || !cmp.Equal(got[0].Fields, []string{"spec.ports"}) {
		t.Errorf("web spec changes = %+v, want one at step 4 of spec.ports", got)
	}
	if len(web.Findings) != 1 || web.Findings[0].Step != 5 || web.Findings[0].AtEnd || web.Findings[0].Finding.Rule != "L6" {
		t.Errorf("web findings = %+v, want L6 at step 5", web.Findings)
	}
	prov := web.Lanes[0]
	if prov.Name != string(v1.LoadBalancerConditionProvisioning) {
		t.Fatalf("first lane = %s", prov.Name)
	}
	var steps []int
	for _, p := range prov.Points {
		steps = append(steps, p.Step)
	}
	if !cmp.Equal(steps, []int{1, 2, 3}) {
		t.Errorf("web Provisioning points at steps %v, want [1 2 3]: nothing moved after the spec change", steps)
	}
	api := byName["api"]
	last := api.Lanes[0].Points[len(api.Lanes[0].Points)-1]
	if last.Step != 4 || !last.Bumped || last.Status != "False" {
		t.Errorf("api Provisioning last point = %+v, want a bump at step 4 with status False", last)
	}
	if len(api.Findings) != 0 {
		t.Errorf("api findings = %+v, want none", api.Findings)
	}
	db := byName["db"]
	if len(db.Findings) != 1 || !db.Findings[0].AtEnd || db.Findings[0].Finding.Severity != conformance.SeverityWarning {
		t.Errorf("db findings = %+v, want one warning at the end", db.Findings)
	}
	verdict := web.Lanes[3]
	var results []string
	for _, p := range verdict.Points {
		results = append(results, p.Status)
	}
	if !cmp.Equal(results, []string{"Pending", "Pending", "Ready"}) {
		t.Errorf("web verdicts = %v, want [Pending Pending Ready] (the reason moves on, then the result)", results)
	}
}

func lbService(name, rv string, status metav1.ConditionStatus, ltt time.Time) *v1.Service {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Status.Conditions = []metav1.Condition{{
		Type: string(v1.LoadBalancerConditionServing), Status: status, Reason: "Serving",
		LastTransitionTime: metav1.NewTime(ltt),
	}}
	return svc
}

// TestTimeline_MaxPointsBoundsLanes: a Service that flaps many times keeps
// at most MaxPoints events per lane and per finding list, the latest ones,
// and counts the others.
func TestTimeline_MaxPointsBoundsLanes(t *testing.T) {
	tl := New(MaxPoints(5))
	base := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	for i := range 100 {
		status := metav1.ConditionTrue
		if i%2 == 1 {
			status = metav1.ConditionFalse
		}
		svc := lbService("flap", "", status, base.Add(time.Duration(i)*time.Second))
		tl.Observe(svc, []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "flap"}}})
	}
	s := tl.Services()[0]
	serving := s.Lanes[1]
	if len(serving.Points) != 5 || serving.Dropped != 95 {
		t.Errorf("Serving lane keeps %d points, dropped %d; want 5 and 95", len(serving.Points), serving.Dropped)
	}
	if serving.Points[4].Step != 100 || serving.Points[0].Step != 96 {
		t.Errorf("Serving lane keeps steps %d..%d, want the latest, 96..100", serving.Points[0].Step, serving.Points[4].Step)
	}
	// While recording, a lane holds up to twice MaxPoints (see bound),
	// and append rounds its array up to a size class.
	if cap(serving.Points) > 4*5 {
		t.Errorf("Serving lane's backing array holds %d points: trimming must not let it grow", cap(serving.Points))
	}
	if len(s.Findings) != 5 || s.DroppedFindings != 95 {
		t.Errorf("findings keep %d, dropped %d; want 5 and 95", len(s.Findings), s.DroppedFindings)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"95 earlier events not kept", "95 earlier findings not kept"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text timeline lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestTimeline_MaxPointsCostsNoMoreWhenLarger: keeping the latest
// MaxPoints events must not cost MaxPoints copies per event past it, or a
// long trace checked with a large --timeline-points takes its length times
// that (minutes for 100,000 observations of one Service): the entries
// trimming copies grow with the events, not with events times MaxPoints.
// What the Service hands out is the same latest MaxPoints.
func TestTimeline_MaxPointsCostsNoMoreWhenLarger(t *testing.T) {
	const keep, events = 1000, 20000
	tl := New(MaxPoints(keep))
	base := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	for i := range events {
		status := metav1.ConditionTrue
		if i%2 == 1 {
			status = metav1.ConditionFalse
		}
		tl.Observe(lbService("flap", strconv.Itoa(i+1), status, base.Add(time.Duration(i)*time.Second)),
			[]conformance.Finding{{Rule: "C6", Severity: conformance.SeverityWarning, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "flap"}}})
	}
	s := tl.Services()[0]
	// Two lists change on every event: Serving's lane and the findings.
	if limit := 2 * 2 * events; tl.moved > limit {
		t.Errorf("trimming copied %d entries for %d events in 2 lists, want at most %d", tl.moved, events, limit)
	}
	serving := s.Lanes[1]
	if len(serving.Points) != keep || serving.Dropped != events-keep || serving.Points[0].Step != events-keep+1 || serving.Points[keep-1].Step != events {
		t.Errorf("Serving keeps %d points from step %d, dropped %d; want the latest %d", len(serving.Points), serving.Points[0].Step, serving.Dropped, keep)
	}
	if len(s.Findings) != keep || s.DroppedFindings != events-keep || s.Findings[0].Step != events-keep+1 {
		t.Errorf("findings keep %d from step %d, dropped %d; want the latest %d", len(s.Findings), s.Findings[0].Step, s.DroppedFindings, keep)
	}
}

// TestTimeline_EmptyAndForeign: nil Services, objects of other kinds (and
// their deletions) and findings about Services never observed leave a Timeline empty, and the
// text renderer says so.
func TestTimeline_EmptyAndForeign(t *testing.T) {
	tl := New(nil)
	tl.Observe(nil, nil)
	tl.ObserveObject(conformance.Object{Kind: "ConfigMap"}, nil)
	tl.ObserveObject(conformance.Object{Kind: "ConfigMap", Deleted: true}, nil)
	tl.Findings([]conformance.Finding{{Rule: "L6", Object: conformance.ObjectRef{Kind: "Service", Name: "ghost"}}})
	if got := tl.Services(); got != nil {
		t.Errorf("Services() = %v, want nil", got)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no LoadBalancer Service") {
		t.Errorf("empty timeline text = %q", buf.String())
	}
}

// TestTimeline_ClusterIPLeftOut: a Service never of type LoadBalancer and
// without findings gets no timeline.
func TestTimeline_ClusterIPLeftOut(t *testing.T) {
	tl := New()
	tl.Observe(&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}, nil)
	tl.Observe(lbService("lb", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	got := tl.Services()
	if len(got) != 1 || got[0].Name != "lb" {
		t.Errorf("Services() = %v, want only lb", got)
	}
}

// TestTimeline_NoVerdictOutsideLoadBalancer: a Service converted to
// ClusterIP that still carries the conditions (L9) has no verdict from
// then on, in the model and in both renderings, as in the check's table.
func TestTimeline_NoVerdictOutsideLoadBalancer(t *testing.T) {
	tl := New()
	lb := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	lb.Status.Conditions = append(lb.Status.Conditions, metav1.Condition{
		Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete"})
	tl.Observe(lb, nil)
	converted := lb.DeepCopy()
	converted.ResourceVersion, converted.Spec.Type = "2", corev1.ServiceTypeClusterIP
	tl.Observe(converted, nil)
	s := tl.Services()[0]
	var verdicts []string
	for _, l := range s.Lanes {
		if l.Name == LaneVerdict {
			for _, p := range l.Points {
				verdicts = append(verdicts, p.Status)
			}
		}
	}
	if want := []string{"Pending", ""}; !cmp.Equal(verdicts, want) {
		t.Errorf("verdict lane %q, want %q", verdicts, want)
	}
	var text bytes.Buffer
	if err := WriteText(&text, tl.Services()); err != nil {
		t.Fatal(err)
	}
	// Observation 2: OBS, RV, three lanes unchanged, the verdict "-", the type change.
	if !strings.Contains(text.String(), "\n  2    2   |               |             |         -           type\n") {
		t.Errorf("want observation 2's verdict shown as -:\n%s", text.String())
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Title: "t", Services: tl.Services()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "no verdict: the Service is not of type LoadBalancer") {
		t.Error("the HTML does not say why the verdict lane is empty")
	}
}

// TestTimeline_DeletionEndsTrace: after a DELETED event a Service of the
// same name starts again, so its new spec is no spec change.
func TestTimeline_DeletionEndsTrace(t *testing.T) {
	tl := New()
	a := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.ObserveObject(conformance.Object{Service: a}, nil)
	tl.ObserveObject(conformance.Object{Service: a, Deleted: true}, nil)
	b := a.DeepCopy()
	b.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	tl.ObserveObject(conformance.Object{Service: b}, nil)
	s := tl.Services()[0]
	if len(s.SpecChanges) != 0 || !cmp.Equal(markSteps(s.Deletions), []int{1}) {
		t.Errorf("spec changes %v, deletions %v; want none and [1]", s.SpecChanges, s.Deletions)
	}
	// The new Service's first observation has a row, though its state is
	// the old one's last (a Service relabeled out of a watch's selector
	// and back): it had none, as if nothing had happened after the deletion.
	for _, l := range s.Lanes {
		if n := len(l.Points); n == 0 || l.Points[n-1].Step != 2 {
			t.Errorf("lane %s: points %+v; want one at the new Service's first observation", l.Name, l.Points)
		}
	}
	var text bytes.Buffer
	if err := WriteText(&text, tl.Services()); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  2 +1 +`).MatchString(text.String()) {
		t.Errorf("no row for observation 2:\n%s", text.String())
	}
}

// TestTimeline_ManifestsWithoutANameAreNotATrace: a second manifest
// without a name (generateName) is another Service, as in the check's
// table: a timeline of its own, in input order, with its own findings, and
// its spec no spec change of the first's. They used to be one timeline,
// "deleted" between them.
func TestTimeline_ManifestsWithoutANameAreNotATrace(t *testing.T) {
	tl := New()
	a := lbService("", "", metav1.ConditionTrue, time.Unix(0, 0))
	a.GenerateName, a.UID = "web-", ""
	tl.ObserveObject(conformance.Object{Service: a}, []conformance.Finding{{Rule: "R3", Object: conformance.ObjectRef{Namespace: a.Namespace}}})
	b := a.DeepCopy()
	b.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	tl.ObserveObject(conformance.Object{Service: b}, []conformance.Finding{{Rule: "L4", Object: conformance.ObjectRef{Namespace: a.Namespace}}})
	got := tl.Services()
	if len(got) != 2 {
		t.Fatalf("%d timelines, want 2", len(got))
	}
	for i, rule := range []conformance.RuleID{"R3", "L4"} {
		s := got[i]
		if s.Observations != 1 || len(s.SpecChanges) != 0 || len(s.Deletions) != 0 || len(s.Findings) != 1 || s.Findings[0].Finding.Rule != rule {
			t.Errorf("timeline %d: %d observations, spec changes %v, deletions %v, findings %+v; want 1, none, none and %s", i, s.Observations, s.SpecChanges, s.Deletions, s.Findings, rule)
		}
	}
}

// TestTimeline_MaxPointsBoundsDeletions: a Service deleted and created
// again many times, by DELETED events and by new uids, keeps the latest
// MaxPoints deletions, so that its memory stays bounded like its lanes'.
func TestTimeline_MaxPointsBoundsDeletions(t *testing.T) {
	tl := New(MaxPoints(3))
	for i := range 50 {
		svc := lbService("x", strconv.Itoa(i+1), metav1.ConditionTrue, time.Unix(int64(i), 0))
		svc.UID = types.UID(fmt.Sprint("u", i))
		tl.ObserveObject(conformance.Object{Service: svc}, nil)
		if i%2 == 0 {
			tl.ObserveObject(conformance.Object{Service: svc, Deleted: true}, nil)
		}
	}
	// Every observation but the last ended: 49 deletions, at steps 1..49.
	s := tl.Services()[0]
	if !cmp.Equal(markSteps(s.Deletions), []int{47, 48, 49}) || s.DroppedDeletions != 46 {
		t.Errorf("deletions %v, dropped %d; want the latest three, [47 48 49], and 46", s.Deletions, s.DroppedDeletions)
	}
	// The page and the text say that earlier deletions are missing, as
	// they do for a lane's events: the rows of the steps before 47 are
	// gone, and nothing else tells.
	var buf bytes.Buffer
	if err := WriteText(&buf, []*Service{s}); err != nil {
		t.Fatal(err)
	}
	// 46 deletions and 47 points of each of the four lanes (each new
	// Service's first observation is a point in every lane).
	if want := "234 earlier events not kept"; !strings.Contains(buf.String(), want) {
		t.Errorf("the text does not say %q:\n%s", want, buf.String())
	}
}

// TestTimeline_NewObjectAfterDeletion: the findings a deletion ends a
// trace with are pinned to the deletion, not to the end of the input after
// the next Service's observations; the new Service's first conditions are
// not a bump of the old one's (L6); and a new uid without a DELETED event
// is a deletion too.
func TestTimeline_NewObjectAfterDeletion(t *testing.T) {
	for _, withEvent := range []bool{true, false} {
		tl := New()
		old := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
		old.UID = "u1"
		tl.ObserveObject(conformance.Object{Service: old}, nil)
		if withEvent {
			owed := conformance.Finding{Rule: "L6", Severity: conformance.SeverityWarning, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "x", ResourceVersion: "1"}}
			tl.ObserveObject(conformance.Object{Service: old, Deleted: true}, []conformance.Finding{owed})
		}
		again := lbService("x", "2", metav1.ConditionTrue, time.Unix(60, 0))
		again.UID = "u2"
		tl.ObserveObject(conformance.Object{Service: again}, nil)
		s := tl.Services()[0]
		if !cmp.Equal(markSteps(s.Deletions), []int{1}) {
			t.Errorf("DELETED event %v: deletions %v, want [1]", withEvent, s.Deletions)
		}
		serving := s.Lanes[1]
		if p := serving.Points[len(serving.Points)-1]; p.Step != 2 || p.Bumped {
			t.Errorf("DELETED event %v: the new Service's Serving %+v, want a point at step 2 that is no bump", withEvent, p)
		}
		if withEvent && (len(s.Findings) != 1 || s.Findings[0].AtEnd || s.Findings[0].Step != 1) {
			t.Errorf("the deletion's finding pinned %+v, want at step 1, not at the end", s.Findings)
		}
	}
}

// TestTimeline_RecreatedOwesAtItsEnd: a Service created again (a new uid)
// without a DELETED event ends the old one's trace, and what the old one
// still owed, which the checker returns with the new Service's first
// observation, is pinned to the old one's last observation, where check's
// table counts it, not to the new Service's first.
func TestTimeline_RecreatedOwesAtItsEnd(t *testing.T) {
	// Without resourceVersions (manifests with uids) too, where what the
	// old Service owed names the same resourceVersion, none, as the new
	// Service's own findings.
	for _, rvs := range [][3]string{{"1", "2", "3"}, {"", "", ""}} {
		t.Run("resourceVersions "+strings.Join(rvs[:], ","), func(t *testing.T) {
			recreatedOwesAtItsEnd(t, rvs)
		})
	}
}

func recreatedOwesAtItsEnd(t *testing.T, rvs [3]string) {
	checker := conformance.NewChecker()
	tl := New()
	feed := func(svc *v1.Service) []conformance.Finding {
		// Served and provisioned, as a conformant provider writes it.
		svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{
			Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete",
			LastTransitionTime: svc.Status.Conditions[0].LastTransitionTime,
		})
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.1"}}
		found := checker.Observe(svc)
		tl.Observe(svc, found)
		return found
	}
	old := lbService("x", rvs[0], metav1.ConditionTrue, time.Unix(0, 0))
	old.UID = "u1"
	feed(old)
	changed := lbService("x", rvs[1], metav1.ConditionTrue, time.Unix(0, 0))
	changed.UID = "u1"
	changed.Spec.Ports = []corev1.ServicePort{{Port: 81, Protocol: corev1.ProtocolTCP}}
	feed(changed) // a spec change the provider never acknowledges
	again := lbService("x", rvs[2], metav1.ConditionTrue, time.Unix(60, 0))
	again.UID = "u2"
	found := feed(again)
	var owed []conformance.Finding
	for _, f := range found {
		if f.Rule == "L6" {
			owed = append(owed, f)
		}
	}
	if len(owed) != 1 || owed[0].Object.ResourceVersion != rvs[1] {
		t.Fatalf("the checker's findings on the new Service %+v, want one L6 about resourceVersion %q", found, rvs[1])
	}
	s := tl.Services()[0]
	var pins []int
	for _, p := range s.Findings {
		if p.Finding.Rule == "L6" {
			pins = append(pins, p.Step)
		}
	}
	if !cmp.Equal(markSteps(s.Deletions), []int{2}) || !cmp.Equal(pins, []int{2}) {
		t.Errorf("deletions %v, L6 pinned at %v; want both at step 2, the old Service's last", s.Deletions, pins)
	}
}

// TestTimeline_RecreatedWithoutConditionsEndsItsOwn: the R3 notice on an
// old Service that never had conditions, which the checker gives with the
// first observation of a new one of the same name (a new uid), is pinned
// to the old one's last observation, also without resourceVersions.
func TestTimeline_RecreatedWithoutConditionsEndsItsOwn(t *testing.T) {
	checker := conformance.NewChecker()
	tl := New()
	for _, uid := range []types.UID{"u1", "u2"} {
		svc := lbService("x", "", metav1.ConditionTrue, time.Unix(0, 0))
		svc.UID, svc.Status.Conditions = uid, nil
		tl.Observe(svc, checker.Observe(svc))
	}
	var pins []int
	for _, p := range tl.Services()[0].Findings {
		if p.Finding.Rule == "R3" {
			pins = append(pins, p.Step)
		}
	}
	if !cmp.Equal(pins, []int{1}) {
		t.Errorf("R3 pinned at %v; want step 1, the old Service's last", pins)
	}
}

// TestTimeline_RecreatedOwesL9AtItsEnd: a Service no longer of type
// LoadBalancer whose conditions were never removed (L9), created again
// (a new uid) in a trace without resourceVersions: the checker's L9 that
// ends the old trace, given with the new Service's first observation, is
// pinned to the old Service's last, not to the new one's first, where it
// would read as the new Service's own.
func TestTimeline_RecreatedOwesL9AtItsEnd(t *testing.T) {
	checker := conformance.NewChecker()
	tl := New()
	feed := func(svc *v1.Service, uid types.UID) []conformance.Finding {
		svc.UID = uid
		svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{
			Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete",
			LastTransitionTime: svc.Status.Conditions[0].LastTransitionTime,
		})
		found := checker.Observe(svc)
		tl.Observe(svc, found)
		return found
	}
	feed(lbService("x", "", metav1.ConditionTrue, time.Unix(0, 0)), "u1")
	clusterIP := lbService("x", "", metav1.ConditionTrue, time.Unix(0, 0))
	clusterIP.Spec.Type = corev1.ServiceTypeClusterIP
	feed(clusterIP, "u1") // the conditions stay: owed, never removed
	found := feed(lbService("x", "", metav1.ConditionTrue, time.Unix(60, 0)), "u2")
	if !slices.ContainsFunc(found, func(f conformance.Finding) bool { return f.Rule == "L9" && f.EndOfTrace }) {
		t.Fatalf("the checker's findings on the new Service %+v, want the old one's L9 that ends its trace", found)
	}
	var pins []int
	for _, p := range tl.Services()[0].Findings {
		if p.Finding.Rule == "L9" {
			pins = append(pins, p.Step)
		}
	}
	if len(pins) == 0 || slices.Contains(pins, 3) {
		t.Errorf("L9 pinned at %v; want none at step 3, the new Service's first", pins)
	}
}

// TestTimeline_DeletedTwice: a second DELETED event before the next
// observation ends nothing more: it neither marks the deletion again nor
// pushes earlier deletions out of those kept (MaxPoints).
func TestTimeline_DeletedTwice(t *testing.T) {
	tl := New(MaxPoints(2))
	for i, uid := range []types.UID{"u1", "u2"} {
		svc := lbService("x", strconv.Itoa(i+1), metav1.ConditionTrue, time.Unix(0, 0))
		svc.UID = uid
		tl.ObserveObject(conformance.Object{Service: svc}, nil)
		for range 3 {
			tl.ObserveObject(conformance.Object{Service: svc, Deleted: true}, nil)
		}
	}
	if s := tl.Services()[0]; !cmp.Equal(markSteps(s.Deletions), []int{1, 2}) || s.DroppedDeletions != 0 {
		t.Errorf("deletions %v, dropped %d; want [1 2] and none", s.Deletions, s.DroppedDeletions)
	}
}

// TestTimeline_NewUIDAfterObservationWithoutOne: an observation without a
// uid (a manifest given with a live trace) does not hide that the next uid
// is a new Service's, as in the checker.
func TestTimeline_NewUIDAfterObservationWithoutOne(t *testing.T) {
	tl := New()
	old := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	old.UID = "u1"
	manifest := lbService("x", "", metav1.ConditionTrue, time.Unix(0, 0))
	again := lbService("x", "2", metav1.ConditionTrue, time.Unix(60, 0))
	again.UID = "u2"
	for _, svc := range []*v1.Service{old, manifest, again} {
		tl.ObserveObject(conformance.Object{Service: svc}, nil)
	}
	if s := tl.Services()[0]; !cmp.Equal(markSteps(s.Deletions), []int{2}) {
		t.Errorf("deletions %v, want [2]: u2 follows u1", s.Deletions)
	}
}

// TestTimeline_Gap: a gap is marked after the Service's last observation,
// once however often it is named, and shown in the text; a Service never
// observed gets none.
func TestTimeline_Gap(t *testing.T) {
	tl := New()
	tl.ObserveObject(conformance.Object{Service: lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))}, nil)
	tl.Gap("ns", "x")
	tl.Gap("ns", "x")
	tl.Gap("ns", "never")
	tl.ObserveObject(conformance.Object{Service: lbService("x", "9", metav1.ConditionFalse, time.Unix(60, 0))}, nil)
	services := tl.Services()
	if len(services) != 1 || !cmp.Equal(markSteps(services[0].Gaps), []int{1}) {
		t.Fatalf("services %d, gaps %v; want one Service with a gap after step 1", len(services), services[0].Gaps)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, services); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "gap") {
		t.Errorf("the text timeline does not show the gap:\n%s", buf.String())
	}
}

// TestTimeline_GapAfterDeletion: a watch that lists again names a Service
// created in its gap under the name of one it saw deleted before it. The
// deleted one's trace ended with the DELETED event it saw, and the new one
// starts after the gap: neither row says the watch lost sight of it.
func TestTimeline_GapAfterDeletion(t *testing.T) {
	tl := New()
	old := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	old.UID = "u1"
	tl.ObserveObject(conformance.Object{Service: old}, nil)
	tl.ObserveObject(conformance.Object{Service: old, Deleted: true}, nil)
	tl.Gap("ns", "x")
	again := lbService("x", "9", metav1.ConditionTrue, time.Unix(60, 0))
	again.UID = "u2"
	tl.ObserveObject(conformance.Object{Service: again}, nil)
	s := tl.Services()[0]
	if !cmp.Equal(markSteps(s.Deletions), []int{1}) || len(s.Gaps) != 0 {
		t.Errorf("deletions %v and gaps %v; want a deletion after step 1 and no gap", s.Deletions, s.Gaps)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestWriteText_WriterError: the writer's error comes back.
func TestWriteText_WriterError(t *testing.T) {
	tl := build(t, "testdata/l6-miss.json")
	if err := WriteText(failWriter{}, tl.Services()); err == nil {
		t.Error("WriteText to a failing writer returned nil")
	}
}

// TestWriteText_EscapesInput: a reason, a name, a resourceVersion or a message that would
// drive the terminal is printed escaped.
func TestWriteText_EscapesInput(t *testing.T) {
	svc := lbService("evil\x1b[2J", "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Status.Conditions[0].Reason = "Serving\x1b]0;title\x07"
	first := svc.DeepCopy()
	first.ResourceVersion = "0\x1b[0m"
	tl := New()
	tl.Observe(first, nil)
	tl.Observe(svc, []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation, Message: "bad \u202e text",
		Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: svc.Name}}})
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("control characters reach the terminal:\n%q", out)
	}
	for _, want := range []string{`evil\x1b[2J`, `Serving\x1b]0;title\a`, `\u202e`, `resourceVersion 0\x1b[0m to 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// TestTimeline_MaxPointsZeroIsDefault: MaxPoints(0) and a negative value
// keep the default number of events, not none.
func TestTimeline_MaxPointsZeroIsDefault(t *testing.T) {
	for _, m := range []MaxPoints{0, -1} {
		tl := New(m)
		for i := range 3 {
			tl.Observe(lbService("x", strconv.Itoa(i+1), metav1.ConditionTrue, time.Unix(int64(i), 0)), nil)
		}
		if serving := tl.Services()[0].Lanes[1]; len(serving.Points) != 3 || serving.Dropped != 0 {
			t.Errorf("MaxPoints(%d): Serving keeps %d points, dropped %d; want 3 and 0", m, len(serving.Points), serving.Dropped)
		}
	}
}

// TestTimeline_RelevantAnnotations: a change of an annotation named by
// RelevantAnnotations is a spec change (G3); one of another annotation is
// not. The Timeline keeps its own copy of the keys: the caller may reuse
// its slice.
func TestTimeline_RelevantAnnotations(t *testing.T) {
	const key = "lb.example.com/size"
	for _, tc := range []struct {
		relevant bool
		want     int
	}{{false, 0}, {true, 1}} {
		var opts []Option
		keys := RelevantAnnotations{key}
		if tc.relevant {
			opts = append(opts, keys)
		}
		tl := New(opts...)
		keys[0] = "other.example.com/key"
		a := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
		a.Annotations = map[string]string{key: "small"}
		b := lbService("x", "2", metav1.ConditionTrue, time.Unix(0, 0))
		b.Annotations = map[string]string{key: "large"}
		tl.Observe(a, nil)
		tl.Observe(b, nil)
		if got := tl.Services()[0].SpecChanges; len(got) != tc.want {
			t.Errorf("relevant %v: spec changes %+v, want %d", tc.relevant, got, tc.want)
		}
	}
}

// TestTimeline_SpecChangesAreChangedFields: the Timeline keeps of the
// previous observation only the spec and the annotations ChangedFields
// reads, and still finds every spec change ChangedFields finds between
// each observation and the one before, the annotations it does not keep
// on them: also after observations that ChangedFields finds equal but are
// not, such as a source ranges annotation changed while the field, which
// replaces it, is set.
func TestTimeline_SpecChangesAreChangedFields(t *testing.T) {
	const relevant = "lb.example.com/size"
	annotations := map[string][]string{
		corev1.AnnotationLoadBalancerSourceRangesKey:       {"10.0.0.0/8", "10.0.0.0/8,192.168.0.0/16"},
		v1.RequiredFeaturesAnnotation:                      {"", "Ports", "Ports,SessionAffinity", "Bogus"},
		relevant:                                           {"", "large"},
		"example.com/owner":                                {"a", "b"},
		"kubectl.kubernetes.io/last-applied-configuration": {`{"kind":"Service"}`, `{"kind":"Service","spec":{}}`},
	}
	keys := slices.Sorted(maps.Keys(annotations))
	rapid.Check(t, func(t *rapid.T) {
		tl := New(RelevantAnnotations{relevant})
		var prev *v1.Service
		var want []SpecChange
		for step := range rapid.IntRange(1, 6).Draw(t, "steps") {
			step++
			svc := lbService("web", strconv.Itoa(step), metav1.ConditionTrue, time.Unix(0, 0))
			for range rapid.IntRange(1, 2).Draw(t, "ports") {
				svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{
					Port:     int32(rapid.SampledFrom([]int{80, 443}).Draw(t, "port")),
					Protocol: rapid.SampledFrom([]corev1.Protocol{"", corev1.ProtocolTCP}).Draw(t, "protocol"),
				})
			}
			svc.Spec.SessionAffinity = rapid.SampledFrom([]corev1.ServiceAffinity{"", corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP}).Draw(t, "affinity")
			if rapid.Bool().Draw(t, "affinityTimeout") {
				svc.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To(int32(rapid.SampledFrom([]int{60, 10800}).Draw(t, "timeout")))}}
			}
			svc.Spec.LoadBalancerSourceRanges = rapid.SliceOfN(rapid.SampledFrom([]string{"10.0.0.0/8", "192.168.0.0/16"}), 0, 1).Draw(t, "ranges")
			for _, key := range keys {
				if v := rapid.IntRange(-1, len(annotations[key])-1).Draw(t, key); v >= 0 {
					if svc.Annotations == nil {
						svc.Annotations = map[string]string{}
					}
					svc.Annotations[key] = annotations[key][v]
				}
			}
			if prev != nil {
				if fields := conditions.ChangedFields(prev, svc, conditions.WithRelevantAnnotations(relevant)); len(fields) > 0 {
					want = append(want, SpecChange{Step: step, Seq: step, ResourceVersion: svc.ResourceVersion, Fields: fields})
				}
			}
			tl.Observe(svc, nil)
			prev = svc
		}
		s := tl.services[key{"ns", "web"}]
		if diff := cmp.Diff(want, s.SpecChanges); diff != "" {
			t.Fatalf("spec changes differ from ChangedFields' (-want +got):\n%s", diff)
		}
		for k := range s.prev.Annotations {
			if k == "example.com/owner" || strings.HasPrefix(k, "kubectl.kubernetes.io/") {
				t.Fatalf("the previous observation keeps the annotation %s, which no spec change is computed from", k)
			}
		}
	})
}

// TestTimeline_SpecChangeAgainstThePreviousObservation: the source
// ranges annotation, changed while the field replaces it, is no spec
// change; when the field goes next, only the field changed, since the
// annotation is as in the observation before.
func TestTimeline_SpecChangeAgainstThePreviousObservation(t *testing.T) {
	tl := New()
	for i, step := range []struct {
		field      []string
		annotation string
	}{{[]string{"10.0.0.0/8"}, "10.0.0.0/8"}, {[]string{"10.0.0.0/8"}, "192.168.0.0/16"}, {nil, "192.168.0.0/16"}} {
		svc := lbService("web", strconv.Itoa(i+1), metav1.ConditionTrue, time.Unix(0, 0))
		svc.Spec.LoadBalancerSourceRanges = step.field
		svc.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: step.annotation}
		tl.Observe(svc, nil)
	}
	want := []SpecChange{{Step: 3, Seq: 3, ResourceVersion: "3", Fields: []string{"spec.loadBalancerSourceRanges"}}}
	if diff := cmp.Diff(want, tl.Services()[0].SpecChanges); diff != "" {
		t.Errorf("spec changes (-want +got):\n%s", diff)
	}
}

// TestTimeline_DeletionOfUnknownService: a DELETED event for a Service
// never observed, and its findings, are ignored.
func TestTimeline_DeletionOfUnknownService(t *testing.T) {
	tl := New()
	ghost := lbService("ghost", "1", metav1.ConditionTrue, time.Unix(0, 0))
	owed := conformance.Finding{Rule: "L6", Severity: conformance.SeverityWarning, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "ghost"}}
	tl.ObserveObject(conformance.Object{Service: ghost, Deleted: true}, []conformance.Finding{owed})
	if got := tl.Services(); got != nil {
		t.Errorf("Services() = %v, want nil", got)
	}
}

// TestTimeline_FirstUIDAfterManifest: a manifest without a uid, then the
// live object with one, is the same Service, not a deletion.
func TestTimeline_FirstUIDAfterManifest(t *testing.T) {
	tl := New()
	manifest := lbService("x", "", metav1.ConditionTrue, time.Unix(0, 0))
	live := lbService("x", "2", metav1.ConditionTrue, time.Unix(0, 0))
	live.UID = "u1"
	tl.Observe(manifest, nil)
	tl.Observe(live, nil)
	if s := tl.Services()[0]; len(s.Deletions) != 0 {
		t.Errorf("deletions %v, want none: the first uid seen ends nothing", s.Deletions)
	}
}

// TestTimeline_ObjectChangedInPlace: a caller that changes the object it
// gave and observes it again still gets the spec change (G3): the
// Timeline keeps its own copy of the previous spec.
func TestTimeline_ObjectChangedInPlace(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	tl.Observe(svc, nil)
	svc.ResourceVersion, svc.Spec.Ports[0].Port = "2", 8080
	tl.Observe(svc, nil)
	if got := tl.Services()[0].SpecChanges; len(got) != 1 || got[0].Step != 2 {
		t.Errorf("spec changes %+v, want one at step 2", got)
	}
}

// TestTimeline_MaxPointsBoundsSpecChangesAndGaps: spec changes and gaps
// keep the latest MaxPoints; dropped spec changes are counted and said.
func TestTimeline_MaxPointsBoundsSpecChangesAndGaps(t *testing.T) {
	tl := New(MaxPoints(3))
	for i := range 10 {
		svc := lbService("x", strconv.Itoa(i+1), metav1.ConditionTrue, time.Unix(0, 0))
		svc.Spec.Ports = []corev1.ServicePort{{Port: int32(80 + i), Protocol: corev1.ProtocolTCP}}
		tl.Observe(svc, nil)
		tl.Gap("ns", "x")
	}
	s := tl.Services()[0]
	var steps []int
	for _, c := range s.SpecChanges {
		steps = append(steps, c.Step)
	}
	if !cmp.Equal(steps, []int{8, 9, 10}) || s.DroppedSpecChanges != 6 {
		t.Errorf("spec changes at %v, dropped %d; want [8 9 10] and 6", steps, s.DroppedSpecChanges)
	}
	if !cmp.Equal(markSteps(s.Gaps), []int{8, 9, 10}) || s.DroppedGaps != 7 {
		t.Errorf("gaps %v, dropped %d; want the latest three, [8 9 10], and 7", s.Gaps, s.DroppedGaps)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "13 earlier events not kept") {
		t.Errorf("the text does not count the dropped spec changes and gaps (6 and 7):\n%s", buf.String())
	}
}

// TestTimeline_FindingKinds: a finding without a kind is about a Service
// and pinned; one about another kind of object of the same name is not.
func TestTimeline_FindingKinds(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.Observe(svc, []conformance.Finding{
		{Rule: "C6", Severity: conformance.SeverityViolation, Object: conformance.ObjectRef{Namespace: "ns", Name: "x"}},
		{Rule: "C7", Severity: conformance.SeverityViolation, Object: conformance.ObjectRef{Kind: "EndpointSlice", Namespace: "ns", Name: "x"}},
	})
	var rules []string
	for _, p := range tl.Services()[0].Findings {
		rules = append(rules, string(p.Finding.Rule))
	}
	if !cmp.Equal(rules, []string{"C6"}) {
		t.Errorf("pinned %v, want [C6]", rules)
	}
}

// TestTimeline_ServicesSortedByNamespaceThenName: Services come sorted by
// namespace first, then name.
func TestTimeline_ServicesSortedByNamespaceThenName(t *testing.T) {
	tl := New()
	for _, ref := range [][2]string{{"b", "a"}, {"a", "z"}, {"a", "b"}} {
		svc := lbService(ref[1], "1", metav1.ConditionTrue, time.Unix(0, 0))
		svc.Namespace = ref[0]
		tl.Observe(svc, nil)
	}
	var got []string
	for _, s := range tl.Services() {
		got = append(got, s.Ref())
	}
	if want := []string{"a/b", "a/z", "b/a"}; !cmp.Equal(got, want) {
		t.Errorf("Services() = %v, want %v", got, want)
	}
}

// edges builds a Timeline of Services that exercise the renderers'
// corners: a single observation and a condition without a reason (one), a
// manifest without a resourceVersion then the live object, with a finding
// on an observation where no lane changed (manifest), a deletion (gone),
// one event and one finding not kept (trimmed), and a spec change the
// provider acknowledges, a gap, and findings at the end more than a slot
// holds in a row (acked).
func edges() *Timeline {
	tl := New(MaxPoints(4))
	one := lbService("one", "7", metav1.ConditionTrue, time.Unix(0, 0))
	one.Status.Conditions[0].Reason = ""
	tl.Observe(one, nil)

	tl.Observe(lbService("manifest", "", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("manifest", "5", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("manifest", "6", metav1.ConditionTrue, time.Unix(0, 0)), []conformance.Finding{{
		Rule: "C6", Severity: conformance.SeverityViolation, Message: "a finding",
		Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "manifest", ResourceVersion: "6"},
	}})

	gone := lbService("gone", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.ObserveObject(conformance.Object{Service: gone}, nil)
	tl.ObserveObject(conformance.Object{Service: gone, Deleted: true}, nil)

	for i, status := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionTrue} {
		rv := strconv.Itoa(10 + i)
		tl.Observe(lbService("trimmed", rv, status, time.Unix(int64(i), 0)), []conformance.Finding{{
			Rule: "C6", Severity: conformance.SeverityWarning, Message: "finding " + rv,
			Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "trimmed", ResourceVersion: rv},
		}})
	}

	acked := lbService("acked", "20", metav1.ConditionTrue, time.Unix(0, 0))
	acked.Status.Conditions[0].Message = "ready"
	tl.Observe(acked, nil)
	acked = acked.DeepCopy()
	acked.ResourceVersion, acked.Spec.Ports = "21", []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	tl.Observe(acked, nil)
	acked = acked.DeepCopy()
	acked.ResourceVersion, acked.Status.Conditions[0].LastTransitionTime = "22", metav1.NewTime(time.Unix(60, 0))
	tl.Observe(acked, nil)
	acked = acked.DeepCopy()
	acked.ResourceVersion = "23"
	acked.Status.Conditions = append(acked.Status.Conditions, metav1.Condition{
		Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionUnknown, Reason: "Probing"})
	tl.Observe(acked, nil)
	tl.Gap("ns", "acked")
	var owed []conformance.Finding
	for _, rule := range []conformance.RuleID{"L1", "L2", "L3", "L4"} {
		owed = append(owed, conformance.Finding{Rule: rule, Severity: conformance.SeverityNotice, Field: "status", Message: "owed",
			Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "acked"}})
	}
	tl.Findings(owed)
	return tl
}

// TestWriteText_EdgesGolden: the text timeline of the corners (edges).
func TestWriteText_EdgesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, edges().Services()); err != nil {
		t.Fatal(err)
	}
	golden(t, "edges.txt", buf.Bytes())
}

// onceFailWriter fails its first write and takes every later one.
type onceFailWriter struct{ failed bool }

func (w *onceFailWriter) Write(p []byte) (int, error) {
	if !w.failed {
		w.failed = true
		return 0, os.ErrClosed
	}
	return len(p), nil
}

// TestWriteText_FirstErrorSticks: a writer that fails once and then
// recovers still gets the error back, and nothing after it is written.
func TestWriteText_FirstErrorSticks(t *testing.T) {
	tl := build(t, "testdata/l6-miss.json")
	if err := WriteText(&onceFailWriter{}, tl.Services()); err == nil {
		t.Error("WriteText to a writer that failed once returned nil")
	}
}

// A message is kept up to MaxMessageBytes, cut at a character's start, and
// says how much was cut: a trace of 2 MB messages made points, and pages,
// of that size.
func TestTimeline_LongMessagesAreCut(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	long := strings.Repeat("é", MaxMessageBytes) // two bytes each
	svc.Status.Conditions[0].Message = long
	tl.Observe(svc, nil)
	var serving *Lane
	for _, l := range tl.Services()[0].Lanes {
		if l.Name == string(v1.LoadBalancerConditionServing) {
			serving = l
		}
	}
	if serving == nil || len(serving.Points) != 1 {
		t.Fatalf("lane %+v", serving)
	}
	want := strings.Repeat("é", MaxMessageBytes/2) + "… (1024 more bytes)"
	if got := serving.Points[0].Message; got != want {
		t.Errorf("message of %d bytes ending %q; want %d ending %q", len(got), got[len(got)-30:], len(want), want[len(want)-30:])
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Title: "t", Services: tl.Services()}); err != nil {
		t.Fatal(err)
	}
	if page.Len() > 64<<10 || !strings.Contains(page.String(), "(1024 more bytes)") {
		t.Errorf("page of %d bytes, cut said %v", page.Len(), strings.Contains(page.String(), "(1024 more bytes)"))
	}
}

// TestTimeline_VerdictQuotesACutMessage: the verdict of a refused or
// failed Service quotes the provider's message (T1, T2), which may be as
// long as the input allows. The verdict lane keeps its first KiB, as the
// condition's lane does: a lane of 200 points each holding a whole
// message, drawn in every tooltip of the page, would cost the message's
// size 400 times over per Service.
func TestTimeline_VerdictQuotesACutMessage(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionFalse, time.Unix(0, 0))
	svc.Status.Conditions[0].Reason = string(v1.LoadBalancerReasonInfrastructure)
	svc.Status.Conditions[0].Message = strings.Repeat("m", 64<<10)
	svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{Type: string(v1.LoadBalancerConditionProvisioning),
		Status: metav1.ConditionFalse, Reason: string(v1.LoadBalancerReasonComplete), LastTransitionTime: metav1.NewTime(time.Unix(0, 0))})
	tl.Observe(svc, nil)
	verdict := tl.Services()[0].Lanes[3]
	if verdict.Name != LaneVerdict || len(verdict.Points) != 1 {
		t.Fatalf("lane %+v", verdict)
	}
	p := verdict.Points[0]
	if p.Status != "Fail" || !strings.HasPrefix(p.Reason, "T2: ") || len(p.Reason) > MaxMessageBytes+64 || !strings.HasSuffix(p.Reason, " more bytes)") {
		t.Errorf("verdict %s with a reason of %d bytes ending %q; want Fail, T2, cut after %d bytes", p.Status, len(p.Reason), p.Reason[max(0, len(p.Reason)-30):], MaxMessageBytes)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Title: "t", Services: tl.Services()}); err != nil {
		t.Fatal(err)
	}
	if page.Len() > 64<<10 {
		t.Errorf("page of %d bytes for one observation: it holds the whole message", page.Len())
	}
}

// TestTimeline_LongStatusIsCut: a status is True, False or Unknown, but
// the input may hold any string there. A lane keeps its first KiB, as the
// check's report does, not a string as long as the object, once per
// point.
func TestTimeline_LongStatusIsCut(t *testing.T) {
	tl := New()
	for i := range 3 {
		status := metav1.ConditionStatus(strconv.Itoa(i) + strings.Repeat("T", 64<<10))
		tl.Observe(lbService("x", strconv.Itoa(i+1), status, time.Unix(0, 0)), nil)
	}
	serving := tl.Services()[0].Lanes[1]
	if len(serving.Points) != 3 {
		t.Fatalf("lane %+v", serving)
	}
	for _, p := range serving.Points {
		if len(p.Status) > MaxMessageBytes+64 || !strings.HasSuffix(p.Status, " more bytes)") {
			t.Errorf("observation %d keeps a status of %d bytes, want it cut after %d", p.Step, len(p.Status), MaxMessageBytes)
		}
	}
}

// TestTimeline_LongResourceVersionIsCut: the input may hold any string as
// a resourceVersion. Every point, spec change, mark and pinned finding
// keeps its first KiB, as for a reason, not a string as long as the
// object once per event.
func TestTimeline_LongResourceVersionIsCut(t *testing.T) {
	tl := New()
	rv := func(i int) string { return strconv.Itoa(i) + strings.Repeat("9", 64<<10) }
	for i := range 3 {
		svc := lbService("x", rv(i), metav1.ConditionTrue, time.Unix(int64(i), 0))
		svc.Spec.Ports = []corev1.ServicePort{{Port: int32(80 + i), Protocol: corev1.ProtocolTCP}}
		found := []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation,
			Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "x", ResourceVersion: rv(i)}}}
		tl.ObserveObject(conformance.Object{Service: svc}, found)
		tl.Gap("ns", "x")
	}
	tl.ObserveObject(conformance.Object{Service: lbService("x", rv(2), metav1.ConditionTrue, time.Unix(2, 0)), Deleted: true}, nil)
	s := tl.Services()[0]
	versions := map[string]string{"first": s.FirstVersion, "last": s.LastVersion}
	for _, l := range s.Lanes {
		for _, p := range l.Points {
			versions[fmt.Sprintf("%s point %d", l.Name, p.Step)] = p.ResourceVersion
		}
	}
	for _, c := range s.SpecChanges {
		versions[fmt.Sprintf("spec change %d", c.Step)] = c.ResourceVersion
	}
	for _, m := range s.Gaps {
		versions[fmt.Sprintf("gap %d", m.Step)] = m.ResourceVersion
	}
	for _, m := range s.Deletions {
		versions[fmt.Sprintf("deletion %d", m.Step)] = m.ResourceVersion
	}
	for _, p := range s.Findings {
		versions[fmt.Sprintf("finding %d", p.Step)] = p.Finding.Object.ResourceVersion
	}
	// The first and the last, Serving's three points and one of each
	// other lane, two spec changes, three gaps, a deletion, three findings.
	if len(versions) != 2+3+3+2+3+1+3 {
		t.Fatalf("only %d resourceVersions kept: %v", len(versions), slices.Collect(maps.Keys(versions)))
	}
	for what, v := range versions {
		if len(v) > MaxMessageBytes+64 || !strings.HasSuffix(v, " more bytes)") {
			t.Errorf("%s keeps a resourceVersion of %d bytes, want it cut after %d", what, len(v), MaxMessageBytes)
		}
	}
}

// TestTimeline_PortsErrorLane: a Service that holds the deprecated
// LoadBalancerPortsError in one observation gets a lane for it after
// Degraded, absent before it and drawn like the others in both renderings;
// a Service that never holds it keeps the usual lanes.
func TestTimeline_PortsErrorLane(t *testing.T) {
	tl := New()
	tl.Observe(lbService("plain", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("ports", "10", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	held := lbService("ports", "11", metav1.ConditionTrue, time.Unix(0, 0))
	held.Status.Conditions = append(held.Status.Conditions, metav1.Condition{
		Type: string(v1.LoadBalancerConditionPortsError), Status: metav1.ConditionTrue, Reason: "PortsNotSupported",
		LastTransitionTime: metav1.NewTime(time.Unix(60, 0))})
	tl.Observe(held, nil)
	tl.Observe(lbService("ports", "12", metav1.ConditionTrue, time.Unix(0, 0)), nil)

	lanes := func(s *Service) (names []string) {
		for _, l := range s.Lanes {
			names = append(names, l.Name)
		}
		return names
	}
	services := tl.Services()
	if len(services) != 2 || services[0].Name != "plain" || services[1].Name != "ports" {
		t.Fatalf("Services() = %v, want plain and ports", services)
	}
	plain, ports := services[0], services[1]
	if !cmp.Equal(lanes(plain), Lanes) {
		t.Errorf("plain has lanes %v, want %v", lanes(plain), Lanes)
	}
	want := []string{"LoadBalancerProvisioning", "LoadBalancerServing", "LoadBalancerDegraded", "LoadBalancerPortsError", LaneVerdict}
	if !cmp.Equal(lanes(ports), want) {
		t.Fatalf("ports has lanes %v, want %v", lanes(ports), want)
	}
	var got []string
	for _, p := range ports.Lanes[3].Points {
		got = append(got, fmt.Sprintf("%d %q %s", p.Step, p.Status, p.Reason))
	}
	if want := []string{`1 "" `, `2 "True" PortsNotSupported`, `3 "" `}; !cmp.Equal(got, want) {
		t.Errorf("PortsError points %q, want %q", got, want)
	}

	var text bytes.Buffer
	if err := WriteText(&text, services); err != nil {
		t.Fatal(err)
	}
	plainText, portsText, _ := strings.Cut(text.String(), "ns/ports:")
	if strings.Contains(plainText, "PORTSERROR") {
		t.Errorf("plain's text timeline has a PortsError column:\n%s", plainText)
	}
	for _, want := range []string{"DEGRADED  PORTSERROR              VERDICT", "2    11  |             |             |         True/PortsNotSupported  |", "3    12  |             |             |         -                       |"} {
		if !strings.Contains(portsText, want) {
			t.Errorf("ports's text timeline lacks %q:\n%s", want, portsText)
		}
	}

	_, doc := renderHTML(t, Page{Services: services})
	var drawn []string
	for _, n := range findAll(doc, func(n *html.Node) bool { return hasClass(n, "lane") }) {
		lane, _ := attr(n, "data-lane")
		drawn = append(drawn, lane)
	}
	if want := append(slices.Clone(Lanes), want...); !cmp.Equal(drawn, want) {
		t.Errorf("the page draws lanes %v, want %v", drawn, want)
	}
}

// markSteps returns the steps of marks.
func markSteps(marks []Mark) []int {
	var steps []int
	for _, m := range marks {
		steps = append(steps, m.Step)
	}
	return steps
}

// TestTimeline_DeletionRowShowsResourceVersion: the row of an observation
// after which the Service was deleted, or created again with a new uid,
// shows that observation's resourceVersion in both renderings, also when
// no lane changed there.
func TestTimeline_DeletionRowShowsResourceVersion(t *testing.T) {
	tl := New()
	for _, rv := range []string{"10", "11"} {
		svc := lbService("deleted", rv, metav1.ConditionTrue, time.Unix(0, 0))
		tl.ObserveObject(conformance.Object{Service: svc}, nil)
	}
	gone := lbService("deleted", "12", metav1.ConditionTrue, time.Unix(0, 0))
	tl.ObserveObject(conformance.Object{Service: gone, Deleted: true}, nil)
	for i, rv := range []string{"20", "21", "22"} {
		svc := lbService("recreated", rv, metav1.ConditionTrue, time.Unix(0, 0))
		svc.UID = types.UID("u1")
		if i == 2 {
			svc.UID = "u2"
		}
		tl.Observe(svc, nil)
	}
	services := tl.Services()
	for i, want := range []Mark{{Step: 2, ResourceVersion: "11"}, {Step: 2, ResourceVersion: "21"}} {
		if got := services[i].Deletions; !cmp.Equal(got, []Mark{want}) {
			t.Errorf("%s: deletions %+v, want %+v", services[i].Ref(), got, []Mark{want})
		}
	}
	var text bytes.Buffer
	if err := WriteText(&text, services); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  2    11  |             |             |         |           deleted", "  2    21  |             |             |         |           deleted"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text timeline lacks %q:\n%s", want, text.String())
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Services: services}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<tr><td>2</td><td>11</td>", "<tr><td>2</td><td>21</td>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks the row %q", want)
		}
	}
}

// TestTimeline_GapRowShowsResourceVersion: the row of an observation after
// which the watch lost sight of the Service shows that observation's
// resourceVersion, also when no lane changed there.
func TestTimeline_GapRowShowsResourceVersion(t *testing.T) {
	tl := New()
	tl.Observe(lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("x", "2", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Gap("ns", "x")
	services := tl.Services()
	if got, want := services[0].Gaps, []Mark{{Step: 2, ResourceVersion: "2"}}; !cmp.Equal(got, want) {
		t.Errorf("gaps %+v, want %+v", got, want)
	}
	var text bytes.Buffer
	if err := WriteText(&text, services); err != nil {
		t.Fatal(err)
	}
	if want := "  2    2   |             |             |         |           gap"; !strings.Contains(text.String(), want) {
		t.Errorf("text timeline lacks %q:\n%s", want, text.String())
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Services: services}); err != nil {
		t.Fatal(err)
	}
	if want := "<tr><td>2</td><td>2</td>"; !strings.Contains(page.String(), want) {
		t.Errorf("page lacks the row %q", want)
	}
}

// TestClipCell: a cell up to MaxTextCell characters is kept, escaped; a
// longer one is cut to MaxTextCell with "…", before the "*" of a bump, and
// never inside an escape.
func TestClipCell(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		in, want string
		cut      bool
	}{
		{"", "", false},
		{a(MaxTextCell), a(MaxTextCell), false},
		{strings.Repeat("é", MaxTextCell), strings.Repeat("é", MaxTextCell), false},
		{a(MaxTextCell + 1), a(MaxTextCell-1) + "…", true},
		{strings.Repeat("é", MaxTextCell+1), strings.Repeat("é", MaxTextCell-1) + "…", true},
		{a(MaxTextCell) + "*", a(MaxTextCell-2) + "…*", true},
		{"\x1b", `\x1b`, false},
		// The escape of U+202E would start at character 45 and end at
		// 50: it is left out whole.
		{a(44) + "\u202e" + a(10), a(44) + "…", true},
		{a(40) + "\u202e" + a(10), a(40) + `\u202e` + "a…", true},
		{a(45) + `"` + "\x00", a(45) + `\"` + "…", true},
		// Each kind of escape ending one character past the room is
		// left out whole.
		{a(46) + "\n" + a(10), a(46) + "…", true},
		{a(44) + "\x1b" + a(10), a(44) + "…", true},
		{a(42) + "\u202e" + a(10), a(42) + "…", true},
		{a(38) + "\U0010ffff" + a(10), a(38) + "…", true},
		// Text with nothing to escape has no escapes: a backslash in it
		// is one character like another.
		{a(45) + `\x41` + a(10), a(45) + `\x` + "…", true},
	} {
		got, cut := clipCell(tc.in)
		if got != tc.want || cut != tc.cut {
			t.Errorf("clipCell(%q) = %q, %v; want %q, %v", tc.in, got, cut, tc.want, tc.cut)
		}
		if n := utf8.RuneCountInString(got); n > MaxTextCell {
			t.Errorf("clipCell(%q) is %d characters, over %d", tc.in, n, MaxTextCell)
		}
	}
	// Every state KEP-4631 defines fits, with the longest status and a bump.
	for _, f := range v1.LoadBalancerFeatures() {
		reason, _ := v1.DegradedReason(f)
		if c := "Unknown/" + string(reason) + "*"; utf8.RuneCountInString(c) > MaxTextCell {
			t.Errorf("%q is longer than MaxTextCell, %d", c, MaxTextCell)
		}
	}
}

// TestWriteText_MarksAreUnambiguous: the API rejects a reason ending in
// "*", a trace may hold one. The text timeline quotes it, and any state
// that could read as one of its marks ("|", "-", "?", the "*" of a bump)
// or as a state quoted so, so that "False/Odd*" (a bump) and "\"False/Odd*\""
// (a reason) never read the same. A status holding "/" is quoted too, so
// that status True/X with reason Y never reads as True with reason X/Y
// (C1). A state the API accepts is shown as it is. A quoted state is cut,
// when long, outside its escapes.
func TestWriteText_MarksAreUnambiguous(t *testing.T) {
	tl := New()
	var want []string
	for i, c := range []struct {
		status metav1.ConditionStatus
		reason string
		ltt    int64
		cell   string
	}{
		{"False", "Odd*", 0, `"False/Odd*"`},
		{"False", "Odd", 0, "False/Odd"},
		{"False", "Odd", 5, "False/Odd*"},      // a bump
		{"False", "Odd*", 10, `"False/Odd*"*`}, // another reason, and a bump
		{"|", "", 10, `"|"`},
		{"-", "", 10, `"-"`},
		{"?", "", 10, `"?"`},
		{`say "hi"`, "", 10, `"say \"hi\""`},
		{"True/X", "Y", 10, `"True/X/Y"`}, // not True with reason X/Y
		{"True", "X/Y", 10, "True/X/Y"},
		{"True", "Serving", 10, "True/Serving"},
	} {
		svc := lbService("odd", strconv.Itoa(i+1), c.status, time.Unix(c.ltt, 0))
		svc.Status.Conditions[0].Reason = c.reason
		tl.Observe(svc, nil)
		want = append(want, c.cell)
	}
	var cells []string
	for _, r := range rows(tl.Services()[0]) {
		cells = append(cells, r.cells[1])
	}
	if !cmp.Equal(cells, want) {
		t.Errorf("Serving's cells %q, want %q", cells, want)
	}

	// Quoted, the escape of U+202E would start at character 44 and end
	// at 49, past the room: it is left out whole.
	a := strings.Repeat("a", 40)
	tl = New()
	tl.Observe(lbService("long", "1", metav1.ConditionStatus(`"`+a+"\u202e"+a+"*"), time.Unix(0, 0)), nil)
	var out strings.Builder
	if err := WriteText(&out, tl.Services()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), ` "\"`+a+"…  ") {
		t.Errorf("the long quoted state is not cut before its escape:\n%s", out.String())
	}
}

// TestWriteText_KeepsSpecChangesWhole: only the states and the
// resourceVersion are cut; the fields of a spec change, which say what the
// provider had to acknowledge (L6), are listed whole however many.
func TestWriteText_KeepsSpecChangesWhole(t *testing.T) {
	tl := New()
	tl.Observe(lbService("web", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	svc := lbService("web", "2", metav1.ConditionTrue, time.Unix(0, 0))
	class := "example.com/lb"
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80}}
	svc.Spec.LoadBalancerClass = &class
	svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	svc.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"}
	tl.Observe(svc, nil)
	var text bytes.Buffer
	if err := WriteText(&text, tl.Services()); err != nil {
		t.Fatal(err)
	}
	want := "ports,loadBalancerSourceRanges,loadBalancerClass,externalTrafficPolicy,sessionAffinity"
	if len(want) <= MaxTextCell || !strings.Contains(text.String(), want) || strings.Contains(text.String(), "…") {
		t.Errorf("text timeline lacks the spec change %q whole:\n%s", want, text.String())
	}
}

// TestWriteText_CutsLongCells: one reason of 1 KiB, or a long
// resourceVersion, does not widen every row of the text timeline: the
// cell is cut with "…" (the "*" of a bump kept) and a line says so; the
// page keeps the whole reason.
func TestWriteText_CutsLongCells(t *testing.T) {
	tl := New()
	long := strings.Repeat("R", 1024)
	rv := strings.Repeat("9", 60)
	tl.Observe(lbService("long", rv, metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("long", "2", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	bumped := lbService("long", "3", metav1.ConditionTrue, time.Unix(60, 0))
	bumped.Status.Conditions[0].Reason = long
	tl.Observe(bumped, nil)
	tl.Observe(lbService("short", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	services := tl.Services()

	var text bytes.Buffer
	if err := WriteText(&text, services); err != nil {
		t.Fatal(err)
	}
	longText, shortText, _ := strings.Cut(text.String(), "ns/short:")
	for _, want := range []string{
		"\n  1    " + rv[:MaxTextCell-1] + "…  -             True/Serving  ",
		"\n  3    3" + strings.Repeat(" ", MaxTextCell+1) + "|             True/" + long[:MaxTextCell-7] + "…*  |",
		"\n  (\"…\" marks a cell cut at 48 characters)\n",
	} {
		if !strings.Contains(longText, want) {
			t.Errorf("text timeline of long lacks %q:\n%s", want, longText)
		}
	}
	if strings.Contains(shortText, "…") {
		t.Errorf("text timeline of short has a cut:\n%s", shortText)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Services: services}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "True/"+long+"*") || !strings.Contains(page.String(), rv) {
		t.Error("the page does not show the long reason and resourceVersion whole")
	}
}

// TestWriteText_CutsLongVersionsInTheHeading: the line that heads a
// Service's table names its first and last resourceVersion; one of 100 KiB
// in a crafted trace is cut there as in the table's cells, not written
// whole twice on one line.
func TestWriteText_CutsLongVersionsInTheHeading(t *testing.T) {
	tl := New()
	rv := strings.Repeat("9", 100<<10)
	// Different in the first KiB, which the Timeline keeps of them.
	tl.Observe(lbService("long", "1"+rv, metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("long", "2"+rv, metav1.ConditionTrue, time.Unix(0, 0)), nil)
	var text bytes.Buffer
	if err := WriteText(&text, tl.Services()); err != nil {
		t.Fatal(err)
	}
	cut := rv[:MaxTextCell-2] + "…"
	if want := "\nns/long: 2 observations, resourceVersion 1" + cut + " to 2" + cut + "\n"; !strings.Contains(text.String(), want) {
		t.Errorf("the heading is not %q", strings.Trim(want, "\n"))
	}
	for line := range strings.Lines(text.String()) {
		if n := utf8.RuneCountInString(line); n > 200 {
			t.Errorf("a line of %d characters: %.120q", n, line)
		}
	}
}

// MaxEnded: a Timeline fed for ever (a live watch) keeps the given number
// of deleted Services, the latest, those with a violation first, and lets
// the others go, counting those it would have handed out; a Service alive,
// or deleted and observed again, stays.
func TestTimeline_MaxEnded(t *testing.T) {
	tl := New(MaxEnded(3))
	svc := func(name string, typ corev1.ServiceType) *v1.Service {
		s := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"}}
		s.Spec.Type = typ
		return s
	}
	del := func(s *v1.Service, found ...conformance.Finding) {
		tl.ObserveObject(conformance.Object{Service: s, Deleted: true}, found)
	}
	alive := svc("alive", corev1.ServiceTypeLoadBalancer)
	tl.Observe(alive, nil)
	back := svc("back", corev1.ServiceTypeLoadBalancer)
	tl.Observe(back, nil)
	del(back)
	bad := svc("bad", corev1.ServiceTypeLoadBalancer)
	tl.Observe(bad, nil)
	del(bad, conformance.Finding{Rule: "L4", Severity: conformance.SeverityViolation, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "bad"}})
	for i := range 20 {
		typ := corev1.ServiceTypeLoadBalancer
		if i%2 == 0 {
			typ = corev1.ServiceTypeClusterIP // never handed out: let go first, not counted
		}
		s := svc(fmt.Sprintf("gone-%02d", i), typ)
		tl.Observe(s, nil)
		del(s)
		del(s) // a second DELETED event ends nothing more
		if i == 0 {
			tl.Observe(back, nil) // deleted, then observed again before a prune
		}
	}
	// Pruned to 3 whenever 7 deleted ones are held, and by Services.
	if len(tl.services) > 2+2*3 {
		t.Errorf("%d Services held, want at most 2 alive and twice MaxEnded deleted", len(tl.services))
	}
	var names []string
	for _, s := range tl.Services() {
		names = append(names, s.Name)
	}
	if want := []string{"alive", "back", "bad", "gone-17", "gone-19"}; !slices.Equal(names, want) {
		t.Errorf("Services() = %v, want %v: those alive, then of the deleted the one with a violation and the latest", names, want)
	}
	// bad and the ten gone- of type LoadBalancer were deleted, 3 are kept.
	if got, want := tl.Forgotten(), 11-3; got != want {
		t.Errorf("Forgotten() = %d, want %d", got, want)
	}
}

// Each observation decodes its own copy of a Service's name, which a file
// may make 64 KiB long: a finding pinned on the timeline names the Service
// with the timeline's copy, so that a long-named Service's pins cost what
// another's do, not a copy of the name each.
func TestTimeline_PinsShareTheServicesName(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const observations = 200
	long := strings.Repeat("n", 64<<10)
	heap := conformancetest.HeapAfterGC
	tl := New()
	base := heap()
	for i := range observations {
		svc := lbService(strings.Clone(long), strconv.Itoa(i+1), metav1.ConditionTrue, time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC))
		tl.Observe(svc, []conformance.Finding{{Rule: "L4", Severity: conformance.SeverityViolation,
			Object: conformance.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, ResourceVersion: svc.ResourceVersion}}})
	}
	perObservation := (float64(heap()) - float64(base)) / observations
	if s := tl.Services(); len(s) != 1 || len(s[0].Findings) != observations {
		t.Fatalf("%d Services; want one with %d findings pinned", len(s), observations)
	}
	if perObservation > 8<<10 {
		t.Errorf("%.0f bytes per observation of a Service named by 64 KiB, want at most 8 KiB", perObservation)
	}
}

// TestTimeline_NamedFindingAfterAManifestWithoutAName: a finding on a
// named Service stays on that Service's timeline after a manifest without
// a name was read; only a finding without a name follows the nameless
// observation.
func TestTimeline_NamedFindingAfterAManifestWithoutAName(t *testing.T) {
	tl := New()
	a := lbService("", "", metav1.ConditionTrue, time.Unix(0, 0))
	a.GenerateName = "web-"
	tl.Observe(a, nil)
	b := lbService("web", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.Observe(b, []conformance.Finding{{Rule: "L4", Severity: conformance.SeverityViolation,
		Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "web"}}})
	for _, s := range tl.Services() {
		want := 0
		if s.Name == "web" {
			want = 1
		}
		if len(s.Findings) != want || s.Counts.Violations != want {
			t.Errorf("timeline %q: findings %+v, %d violations counted; want %d", s.Ref(), s.Findings, s.Counts.Violations, want)
		}
	}
}

// TestTimeline_ConditionSetWithAnEmptyStatus: a condition that appears
// with an empty status and nothing else is a point of its own (set, which
// the text shows as `""`), not the absent state before it; and its
// lastTransitionTime moving is not a bump, since there is no status to
// stay.
func TestTimeline_ConditionSetWithAnEmptyStatus(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Status.Conditions = nil
	tl.Observe(svc, nil)
	svc = svc.DeepCopy()
	svc.ResourceVersion = "2"
	svc.Status.Conditions = []metav1.Condition{{Type: string(v1.LoadBalancerConditionServing)}}
	tl.Observe(svc, nil)
	svc = svc.DeepCopy()
	svc.ResourceVersion = "3"
	svc.Status.Conditions[0].LastTransitionTime = metav1.NewTime(time.Unix(60, 0))
	tl.Observe(svc, nil)
	serving := tl.Services()[0].Lanes[1]
	var got []string
	for _, p := range serving.Points {
		got = append(got, fmt.Sprintf("%d %q present=%v bumped=%v", p.Step, p.Status, p.Present, p.Bumped))
	}
	want := []string{`1 "" present=false bumped=false`, `2 "" present=true bumped=false`, `3 "" present=true bumped=false`}
	if !cmp.Equal(got, want) {
		t.Errorf("Serving's points %q, want %q", got, want)
	}
}

// TestTimeline_RowVersionFromALaterMark: the row of an observation whose
// finding names no resourceVersion (a manifest-style finding) takes the
// observation's from the deletion marked on the same row.
func TestTimeline_RowVersionFromALaterMark(t *testing.T) {
	tl := New()
	tl.Observe(lbService("web", "10", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("web", "11", metav1.ConditionTrue, time.Unix(0, 0)), []conformance.Finding{{Rule: "L4",
		Severity: conformance.SeverityViolation, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "web"}}})
	tl.ObserveObject(conformance.Object{Service: lbService("web", "12", metav1.ConditionTrue, time.Unix(0, 0)), Deleted: true}, nil)
	rs := rows(tl.Services()[0])
	if len(rs) != 2 || rs[1].step != 2 || rs[1].version != "11" {
		t.Fatalf("rows %+v, want the second, of observation 2, with resourceVersion 11", rs)
	}
}

// TestWriteText_EscapesEveryColumn: a resourceVersion that starts with a
// quote is escaped like any other (only a lane's state is quoted by the
// table itself), and so is a relevant annotation's key that a spec change
// names.
func TestWriteText_EscapesEveryColumn(t *testing.T) {
	const key = "lb.example.com/x\x1b[2J"
	tl := New(RelevantAnnotations{key})
	for i, size := range []string{"small", "large"} {
		svc := lbService("x", `"`+strconv.Itoa(i)+"\x1b[0m", metav1.ConditionTrue, time.Unix(0, 0))
		svc.Annotations = map[string]string{key: size}
		tl.Observe(svc, nil)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.ContainsAny(out, "\x1b") {
		t.Errorf("control characters reach the terminal:\n%q", out)
	}
}

// TestWriteText_HeadingCutSaysSo: a first resourceVersion cut in the
// heading, whose row MaxPoints did not keep, is still said to be cut.
func TestWriteText_HeadingCutSaysSo(t *testing.T) {
	tl := New(MaxPoints(1))
	first := lbService("long", strings.Repeat("9", 100), metav1.ConditionTrue, time.Unix(0, 0))
	first.Status.Conditions = nil
	tl.Observe(first, nil)
	// Every lane changes at the second observation: the first has no row.
	second := lbService("long", "2", metav1.ConditionTrue, time.Unix(60, 0))
	second.Status.Conditions = append(second.Status.Conditions,
		metav1.Condition{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete", LastTransitionTime: metav1.NewTime(time.Unix(60, 0))},
		metav1.Condition{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionUnknown, Reason: "Checking", LastTransitionTime: metav1.NewTime(time.Unix(60, 0))})
	second.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	tl.Observe(second, nil)
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "resourceVersion "+strings.Repeat("9", MaxTextCell-1)+"… to 2") || strings.Contains(out, "  1 ") {
		t.Fatalf("the heading does not show the first resourceVersion cut, or its row is kept:\n%s", out)
	}
	if !strings.Contains(out, `"…" marks a cell cut`) {
		t.Errorf("the text does not say what \"…\" marks:\n%s", out)
	}
}
