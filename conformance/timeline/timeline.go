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
	"cmp"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// DefaultMaxPoints is how many events a lane, the spec-change list and the
// finding list of one Service keep unless MaxPoints says otherwise.
const DefaultMaxPoints = 200

// LaneVerdict names the lane of the section 6 verdict; the other lanes are
// named by their condition type.
const LaneVerdict = "Verdict"

// Lanes lists the lanes of every Service, in the order they are drawn:
// Provisioning first, since a provider writes it first (L6), then Serving,
// Degraded, and the verdict a client concludes from the three. A Service
// that holds the deprecated LoadBalancerPortsError in any observation has
// one more lane, named by that condition type, after Degraded (see
// Service.Lanes).
var Lanes = []string{
	string(v1.LoadBalancerConditionProvisioning),
	string(v1.LoadBalancerConditionServing),
	string(v1.LoadBalancerConditionDegraded),
	LaneVerdict,
}

// trackedLanes are the lanes a Timeline keeps for every Service: Lanes
// with LoadBalancerPortsError after Degraded. That one is shown only for
// a Service that held it, so that the timelines of the others do not grow
// a lane that is absent throughout; it is kept for every Service so that,
// once shown, it says what it was from the first observation on.
var trackedLanes = slices.Insert(slices.Clone(Lanes), slices.Index(Lanes, string(v1.LoadBalancerConditionDegraded))+1,
	string(v1.LoadBalancerConditionPortsError))

// Option configures a Timeline.
type Option interface {
	apply(*Timeline)
}

// MaxPoints is an Option: how many events each lane, the spec-change list
// and the finding list of a Service keep. When more happen the oldest are
// dropped and counted, so that the end of a long trace, where a problem
// usually is, stays visible. Zero or negative means DefaultMaxPoints.
type MaxPoints int

func (m MaxPoints) apply(t *Timeline) {
	if m > 0 {
		t.maxPoints = int(m)
	}
}

// MaxEnded is an Option: how many Services whose latest event is their
// deletion a Timeline keeps, for a source that never ends, such as a live
// watch, where Services come and go for ever and memory must follow those
// alive, not all those ever seen. Past it the Timeline lets the others go:
// first those it would not hand out (see Services); of the rest it keeps
// those with a violation, then those with a warning, then the others, the
// latest deletions before older ones in each (see Worst). Forgotten counts
// them.
// Zero or negative, the default, keeps every Service.
type MaxEnded int

func (m MaxEnded) apply(t *Timeline) { t.maxEnded = max(int(m), 0) }

// RelevantAnnotations is an Option: annotation keys whose changes count as
// load-balancer-relevant spec changes, as for the checker's option of the
// same name. Nil or empty adds none.
type RelevantAnnotations []string

func (a RelevantAnnotations) apply(t *Timeline) {
	t.annotationKeys = slices.Concat(specAnnotationKeys, a)
	t.changeOpts = []conditions.ChangeOption{conditions.WithRelevantAnnotations(t.annotationKeys[len(specAnnotationKeys):]...)}
}

// specAnnotationKeys are the annotations ChangedFields reads without
// RelevantAnnotations: the source ranges and the required features.
var specAnnotationKeys = []string{corev1.AnnotationLoadBalancerSourceRangesKey, v1.RequiredFeaturesAnnotation}

// Timeline records, per Service, what happened over a trace: the
// observations' conditions and verdict (one lane each), the
// load-balancer-relevant spec changes (G3) and the checker's findings,
// pinned to the observation they were made on.
//
// Memory is bounded per Service: each lane hands out at most MaxPoints
// events (an event is an observation where the lane changed: status,
// reason, or lastTransitionTime), and so do the spec-change and finding
// lists; while recording, a list may hold up to twice as many, so that
// the oldest are dropped in bulk and an event costs the same however many
// are kept. The previous observation's spec and annotations are kept to
// compare with the next. Memory grows with the number of Services, as the
// checker's does.
//
// A Timeline is not safe for concurrent use.
type Timeline struct {
	maxPoints  int
	changeOpts []conditions.ChangeOption
	// annotationKeys are the annotations ChangedFields reads:
	// specAnnotationKeys, then RelevantAnnotations.
	annotationKeys []string
	services       map[key]*Service
	// nameless are the Services without a name (manifests with a
	// generateName), each its own, in input order.
	nameless []*Service
	// seq counts every observation given to the Timeline, all Services
	// together: input order.
	seq int
	// moved counts the entries trim copied, for the test that holds the
	// cost of an event to a constant.
	moved int
	// maxEnded is MaxEnded; endedList holds the Services deleted since
	// they were last pruned, oldest first, as each was when it ended
	// (one observed again since no longer is); forgotten counts those
	// let go that Services would have handed out.
	maxEnded  int
	endedList []endedService
	forgotten int
}

// endedService is a Service a deletion ended after its observation step.
type endedService struct {
	s    *Service
	step int
}

type key struct{ namespace, name string }

// New returns an empty Timeline with the given options; nil options are
// ignored.
func New(opts ...Option) *Timeline {
	t := &Timeline{maxPoints: DefaultMaxPoints, annotationKeys: specAnnotationKeys, services: map[key]*Service{}}
	for _, o := range opts {
		if o != nil {
			o.apply(t)
		}
	}
	return t
}

// Service is the timeline of one Service (namespace/name).
type Service struct {
	Namespace string
	Name      string
	// Source names what the Service was read from, such as a file, for a
	// page that draws the Services of several inputs: two inputs may
	// hold a Service of the same name. Empty when the caller does not
	// say; the Timeline never sets it.
	Source string
	// LoadBalancer reports that the Service was of type LoadBalancer in at
	// least one observation.
	LoadBalancer bool
	// Observations counts the Service's observations; Steps are numbered
	// from 1 to Observations.
	Observations int
	// FirstVersion and LastVersion are the resourceVersions of the first
	// and the last observation, cut as a Point's; empty for manifests
	// without one.
	FirstVersion, LastVersion string
	// Lanes holds one lane per entry of the package's Lanes, in that order,
	// and, when an observation of the Service held the deprecated
	// LoadBalancerPortsError condition, a lane for it after Degraded.
	Lanes []*Lane
	// SpecChanges are the observations whose load-balancer-relevant spec
	// differs from the previous observation's, oldest first.
	SpecChanges []SpecChange
	// DroppedSpecChanges counts the spec changes not kept (MaxPoints).
	DroppedSpecChanges int
	// Findings are the checker's findings on the Service, oldest first,
	// verdict notices left out (the verdict lane shows them).
	Findings []Pin
	// DroppedFindings counts the findings not kept (MaxPoints).
	DroppedFindings int
	// Counts counts the findings on the Service by severity, those not
	// kept too, verdict notices left out as from Findings.
	Counts conformance.SeverityCounts
	// Deletions are the observations after which a DELETED watch event
	// ended the Service; the next observation starts a new Service of the
	// same name. The latest MaxPoints are kept.
	Deletions []Mark
	// DroppedDeletions counts the deletions not kept (MaxPoints).
	DroppedDeletions int
	// Gaps are the observations after which the source saw nothing of
	// the Service for a while (a watch that had to list again, see Gap):
	// what it went through until the next observation is not known. The
	// latest MaxPoints are kept.
	Gaps []Mark
	// DroppedGaps counts the gaps not kept (MaxPoints).
	DroppedGaps int

	// prev is the previous observation reduced to what spec changes are
	// computed from: spec and the annotations ChangedFields reads (see
	// specAnnotations). Nil after a deletion.
	prev *v1.Service
	// uid is the last observation's metadata.uid.
	uid string
	// lanes are the lanes kept, one per entry of trackedLanes; Lanes
	// holds the same, LoadBalancerPortsError's left out until an
	// observation holds that condition.
	lanes []*Lane
}

// Ref returns "namespace/name", or "name" without a namespace.
func (s *Service) Ref() string {
	return conformance.ObjectRef{Namespace: s.Namespace, Name: s.Name}.String()
}

// Lane is the history of one condition (or of the verdict) of a Service.
type Lane struct {
	// Name is a condition type, or LaneVerdict.
	Name string
	// Points are the observations where the lane changed, oldest first.
	// Between two points the lane is as the earlier one says.
	Points []Point
	// Dropped counts the points not kept (MaxPoints); the first kept point
	// then stands for the state before it too.
	Dropped int
}

// Point is a lane's state from one observation on.
type Point struct {
	// Step is the Service's observation, from 1.
	Step int
	// Seq is the observation's place among all observations, from 1.
	Seq int
	// ResourceVersion is the observation's, cut after MaxMessageBytes as
	// Message is; empty when it has none. So are those of SpecChange, Mark
	// and a Pin's Finding.
	ResourceVersion string
	// Status is True, False or Unknown (as written, cut as Message is) for
	// a condition, empty when the condition is absent; for the verdict
	// lane the result: Ready, Pending, Skip or Fail, or empty for a
	// Service that is not of type LoadBalancer.
	Status string
	// Present reports a condition that is in the observation with an empty
	// status, which the API rejects (C5) but a trace may hold: written,
	// unlike an absent one. A point with a Status is present anyway.
	Present bool
	// Reason is the condition's reason, cut as Message is; for the verdict
	// lane the rule of section 6 and why ("T3: ..."), cut the same way,
	// since why may quote Serving's message.
	Reason string
	// Message is the condition's message, cut after MaxMessageBytes with
	// the number of bytes cut said at the end; empty for the verdict lane.
	Message string
	// LastTransitionTime is the condition's; zero for the verdict lane and
	// an absent condition.
	LastTransitionTime time.Time
	// Bumped reports that lastTransitionTime moved while status stayed:
	// the provider acknowledged a change (L6).
	Bumped bool
}

// SpecChange is an observation whose load-balancer-relevant spec differs
// from the previous one's.
type SpecChange struct {
	Step            int
	Seq             int
	ResourceVersion string
	// Fields are the JSON paths that changed, as conditions.ChangedFields
	// names them.
	Fields []string
}

// Mark is an event that follows an observation of a Service: its
// deletion, or a gap in what the source saw.
type Mark struct {
	// Step is the observation it follows.
	Step int
	// ResourceVersion is that observation's, empty when it has none.
	ResourceVersion string
}

// Pin is a finding placed on a Service's timeline.
type Pin struct {
	// Step is the observation the finding was made on; for a finding owed
	// at the end of the input (AtEnd) the last observation.
	Step int
	// AtEnd reports a finding made when the input ended (Checker.Finish),
	// not on an observation. One made when the Service was deleted, or
	// created again with a new uid, is pinned to its last observation,
	// which the deletion follows.
	AtEnd   bool
	Finding conformance.Finding
}

// ObserveObject records an object a Decoder read and the findings the
// Checker returned for it. Objects that are not Services are ignored; a
// DELETED watch event ends the Service's trace, and its findings are
// pinned to the deletion, after the Service's last observation.
func (t *Timeline) ObserveObject(obj conformance.Object, found []conformance.Finding) {
	if obj.Service == nil {
		return
	}
	if obj.Deleted {
		s := t.services[key{obj.Service.Namespace, obj.Service.Name}]
		if s == nil {
			return
		}
		for _, f := range found {
			t.pin(f, false)
		}
		if t.ended(s) && t.maxEnded > 0 && s.Name != "" {
			t.endedList = append(t.endedList, endedService{s, s.Observations})
			if len(t.endedList) > 2*t.maxEnded {
				t.pruneEnded()
			}
		}
		return
	}
	t.Observe(obj.Service, found)
}

// ended records that s ended after its latest observation: the next one
// starts a new Service of the same name. Another DELETED event before the
// next observation ends nothing more: ended reports whether this one did.
func (t *Timeline) ended(s *Service) bool {
	s.prev = nil
	if n := len(s.Deletions); n > 0 && s.Deletions[n-1].Step == s.Observations {
		return false
	}
	s.Deletions = append(s.Deletions, Mark{Step: s.Observations, ResourceVersion: s.LastVersion})
	s.Deletions, s.DroppedDeletions = bound(t, s.Deletions, s.DroppedDeletions)
	return true
}

// pruneEnded keeps maxEnded of the Services still ended (see MaxEnded) and
// lets the others go. It runs once endedList holds twice maxEnded, so that
// a deletion costs the same however many are kept.
func (t *Timeline) pruneEnded() {
	var ended []*Service // newest first, for Worst to prefer them
	for _, e := range slices.Backward(t.endedList) {
		s := e.s
		if s.prev != nil || s.Observations != e.step || t.services[key{s.Namespace, s.Name}] != s {
			continue // observed again, or let go already
		}
		if !s.LoadBalancer && len(s.Findings) == 0 && s.DroppedFindings == 0 {
			delete(t.services, key{s.Namespace, s.Name}) // Services would not hand it out
			continue
		}
		ended = append(ended, s)
	}
	kept := Worst(ended, t.maxEnded)
	t.endedList = t.endedList[:0]
	for _, s := range slices.Backward(kept) {
		t.endedList = append(t.endedList, endedService{s, s.Observations})
	}
	clear(t.endedList[len(t.endedList):cap(t.endedList)])
	if len(kept) == len(ended) {
		return
	}
	keep := make(map[*Service]bool, len(kept))
	for _, s := range kept {
		keep[s] = true
	}
	for _, s := range ended {
		if !keep[s] {
			delete(t.services, key{s.Namespace, s.Name})
			t.forgotten++
		}
	}
}

// Forgotten returns how many Services that Services would hand out the
// Timeline let go, as MaxEnded says.
func (t *Timeline) Forgotten() int { return t.forgotten }

// Observe records one observation of a Service and the findings the
// Checker returned for it, in input order. A nil Service is ignored; the
// findings are pinned to the observation of the Service they name.
func (t *Timeline) Observe(svc *v1.Service, found []conformance.Finding) {
	if svc == nil {
		return
	}
	t.seq++
	// Cut as a reason is: every point, spec change, mark and pin keeps
	// it, and a crafted one may be long.
	rv := input.Clip(svc.ResourceVersion)
	k := key{svc.Namespace, svc.Name}
	s := t.services[k]
	if s == nil || svc.Name == "" {
		// A manifest without a name is a Service of its own, as for the
		// checker: two are not one Service's spec change.
		s = &Service{Namespace: svc.Namespace, Name: svc.Name, FirstVersion: rv}
		for _, name := range trackedLanes {
			l := &Lane{Name: name}
			s.lanes = append(s.lanes, l)
			if name != string(v1.LoadBalancerConditionPortsError) {
				s.Lanes = append(s.Lanes, l)
			}
		}
		if svc.Name == "" {
			t.nameless = append(t.nameless, s)
		} else {
			t.services[k] = s
		}
	}
	// endedAt is the old Service's last step when this observation starts
	// a new one.
	endedAt := 0
	if s.prev != nil && s.uid != "" && svc.UID != "" && string(svc.UID) != s.uid {
		// Created again without a deletion in the input: the old one
		// ended after its last observation.
		t.ended(s)
		endedAt = s.Observations
	}
	// A new object's conditions are its own, not a change of the old
	// one's: nothing in its first observation is a bump (L6).
	fresh := s.prev == nil
	if svc.UID != "" {
		s.uid = string(svc.UID) // an observation without one (a manifest) says nothing of it
	}
	s.Observations++
	s.LastVersion = rv
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		s.LoadBalancer = true
	}
	step := s.Observations
	base := Point{Step: step, Seq: t.seq, ResourceVersion: rv}

	if len(s.Lanes) < len(s.lanes) && conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionPortsError) != nil {
		s.Lanes = s.lanes
	}
	for _, l := range s.lanes {
		p := base
		name := l.Name
		if name == LaneVerdict {
			// Section 6 concludes about LoadBalancer Services only: one of
			// another type has no verdict, as in the check's table.
			if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
				// A refusal or a failure quotes the provider's message
				// whole: cut as the condition's own lane cuts it.
				v := conditions.Evaluate(svc, "")
				p.Status, p.Reason = string(v.Result), input.Clip(v.Rule+": "+v.Reason)
			}
		} else if c := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionType(name)); c != nil {
			p.Status, p.Reason, p.Message = input.Clip(string(c.Status)), input.Clip(c.Reason), input.Clip(c.Message)
			p.Present = c.Status == ""
			p.LastTransitionTime = c.LastTransitionTime.Time
		}
		t.addPoint(l, p, fresh)
	}

	changed := s.prev == nil
	if s.prev != nil {
		if fields := conditions.ChangedFields(s.prev, svc, t.changeOpts...); len(fields) > 0 {
			changed = true
			s.SpecChanges = append(s.SpecChanges, SpecChange{Step: step, Seq: t.seq, ResourceVersion: rv, Fields: fields})
			s.SpecChanges, s.DroppedSpecChanges = bound(t, s.SpecChanges, s.DroppedSpecChanges)
		}
	}
	// A deep copy, since the caller may reuse or change the object; only
	// when the spec changed or an annotation it is computed from was
	// written anew, since an equal one compares the same. ChangedFields'
	// "no change" is not enough for the annotations: it leaves out the
	// source ranges annotation where the field is set on both sides, and
	// the next observation, without the field, compares the annotation.
	// The spec's fields it compares as values with defaults, or as sets,
	// the same against one observation as against another it found equal.
	if changed || t.annotationsDiffer(s.prev, svc) {
		s.prev = &v1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: t.specAnnotations(svc.Annotations)}, Spec: *svc.Spec.DeepCopy()}
	}

	for _, f := range found {
		if endedAt > 0 && f.EndOfTrace {
			// What the old Service still owed, which the checker reports
			// with the observation of the new one: pinned to the old
			// one's last observation, as for a DELETED event, not to the
			// new Service's first.
			t.pinAt(f, false, endedAt)
			continue
		}
		t.pin(f, false)
	}
}

// specAnnotations returns a copy of the annotations among ann that
// conditions.ChangedFields reads (annotationKeys); nil when there are
// none. A copy of all of them would keep, for every Service, what no spec
// change is computed from, such as kubectl's last-applied-configuration, a
// copy of the whole object. The checker keeps the same annotations of the
// previous observation (conformance's G3 encoding); tests hold both to
// ChangedFields.
func (t *Timeline) specAnnotations(ann map[string]string) map[string]string {
	var out map[string]string
	for _, key := range t.annotationKeys {
		if v, ok := ann[key]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[key] = v
		}
	}
	return out
}

// annotationsDiffer reports whether an annotation spec changes are
// computed from (annotationKeys) differs between prev and svc as written.
func (t *Timeline) annotationsDiffer(prev, svc *v1.Service) bool {
	for _, key := range t.annotationKeys {
		pv, pok := prev.Annotations[key]
		v, ok := svc.Annotations[key]
		if pv != v || pok != ok {
			return true
		}
	}
	return false
}

// Gap records that the source did not see the Service namespace/name for
// a while after its last observation, such as a watch that had to list
// again. A Service never observed, or whose deletion was observed, is
// ignored: one created in the gap starts after it.
func (t *Timeline) Gap(namespace, name string) {
	if s := t.services[key{namespace, name}]; s != nil && s.prev != nil && !slices.ContainsFunc(s.Gaps, func(g Mark) bool { return g.Step == s.Observations }) {
		s.Gaps = append(s.Gaps, Mark{Step: s.Observations, ResourceVersion: s.LastVersion})
		s.Gaps, s.DroppedGaps = bound(t, s.Gaps, s.DroppedGaps)
	}
}

// Findings records findings that come without an observation: those
// Checker.Finish or Checker.Forget return. Each is pinned at the end of the
// Service it names; one about a Service never observed, or about an object
// that is not a Service, is ignored.
func (t *Timeline) Findings(found []conformance.Finding) {
	for _, f := range found {
		t.pin(f, true)
	}
}

func (t *Timeline) pin(f conformance.Finding, atEnd bool) {
	t.pinAt(f, atEnd, 0)
}

// pinAt pins f to the given step of the Service it names, or to the
// Service's latest observation when step is 0.
func (t *Timeline) pinAt(f conformance.Finding, atEnd bool, step int) {
	if f.Verdict != nil || (f.Object.Kind != "" && f.Object.Kind != "Service") {
		return
	}
	s := t.services[key{f.Object.Namespace, f.Object.Name}]
	if n := len(t.nameless); f.Object.Name == "" && n > 0 {
		s = t.nameless[n-1] // findings follow the observation they are on
	}
	if s == nil {
		return
	}
	if step == 0 {
		step = s.Observations
	}
	s.Counts.Add(f.Severity)
	f.Object.ResourceVersion = input.Clip(f.Object.ResourceVersion) // as the points' (see Observe)
	// The Service's own strings when equal to the finding's: each
	// observation decodes its own copy of a name, which may be long.
	if f.Object.Namespace == s.Namespace && f.Object.Name == s.Name {
		f.Object.Namespace, f.Object.Name = s.Namespace, s.Name
	}
	s.Findings = append(s.Findings, Pin{Step: step, AtEnd: atEnd, Finding: f})
	s.Findings, s.DroppedFindings = bound(t, s.Findings, s.DroppedFindings)
}

// MaxMessageBytes is how much of a condition's message a point keeps: the
// API allows 32 KiB, and a lane keeps up to MaxPoints of them, each drawn
// in a tooltip of the page.
const MaxMessageBytes = input.MaxTextBytes

// addPoint appends p to the lane when the lane changed: another status,
// reason or message, or a lastTransitionTime that moved, which is a bump
// unless p is a new object's (fresh).
func (t *Timeline) addPoint(l *Lane, p Point, fresh bool) {
	// A new object's first observation is a point in every lane, its state
	// from then on, even one that equals the old object's last.
	if n := len(l.Points); n > 0 && !fresh {
		last := l.Points[n-1]
		moved := !p.LastTransitionTime.Equal(last.LastTransitionTime)
		if p.Status == last.Status && p.Present == last.Present && p.Reason == last.Reason && p.Message == last.Message && !moved {
			return
		}
		p.Bumped = moved && p.Status == last.Status && p.Status != ""
	}
	l.Points = append(l.Points, p)
	l.Points, l.Dropped = bound(t, l.Points, l.Dropped)
}

// trim drops the oldest entries beyond keep and counts them. It copies
// down rather than reslicing so the backing array stays bounded, and adds
// the entries it copied to *moved.
func trim[T any](keep int, list []T, dropped int, moved *int) ([]T, int) {
	if over := len(list) - keep; over > 0 {
		n := copy(list, list[over:])
		*moved += n
		clear(list[n:])
		list = list[:n]
		dropped += over
	}
	return list, dropped
}

// bound trims list to maxPoints once it is longer than twice that, while
// the Timeline records. Trimming back to maxPoints on every event past it
// copied maxPoints entries per event, so that a long trace cost its length
// times --timeline-points (minutes for 100,000 observations of a Service
// with 20,000 points kept); this copies maxPoints entries once every
// maxPoints events. Services trims every list to maxPoints before handing
// it out.
func bound[T any](t *Timeline, list []T, dropped int) ([]T, int) {
	if len(list) <= 2*t.maxPoints {
		return list, dropped
	}
	return trim(t.maxPoints, list, dropped, &t.moved)
}

// keepLatest trims every list of s to maxPoints: what Services hands out.
func (t *Timeline) keepLatest(s *Service) {
	for _, l := range s.lanes {
		l.Points, l.Dropped = trim(t.maxPoints, l.Points, l.Dropped, &t.moved)
	}
	s.SpecChanges, s.DroppedSpecChanges = trim(t.maxPoints, s.SpecChanges, s.DroppedSpecChanges, &t.moved)
	s.Findings, s.DroppedFindings = trim(t.maxPoints, s.Findings, s.DroppedFindings, &t.moved)
	s.Deletions, s.DroppedDeletions = trim(t.maxPoints, s.Deletions, s.DroppedDeletions, &t.moved)
	s.Gaps, s.DroppedGaps = trim(t.maxPoints, s.Gaps, s.DroppedGaps, &t.moved)
}

// Services returns the Services worth a timeline, sorted by namespace and
// name (those without a name in input order): those of type LoadBalancer
// in at least one observation, and those with a finding. An empty Timeline
// gives nil. With MaxEnded, at most that many of them were deleted.
func (t *Timeline) Services() []*Service {
	if t.maxEnded > 0 && len(t.endedList) > t.maxEnded {
		t.pruneEnded()
	}
	var out []*Service
	for _, s := range append(slices.Collect(maps.Values(t.services)), t.nameless...) {
		if s.LoadBalancer || len(s.Findings) > 0 || s.DroppedFindings > 0 {
			t.keepLatest(s)
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b *Service) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Len returns how many observations the Timeline has recorded.
func (t *Timeline) Len() int { return t.seq }

// absent reports that the point's condition is not set, or, for the
// verdict lane, that there is no verdict.
func (p *Point) absent() bool { return p.Status == "" && !p.Present }
