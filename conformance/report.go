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
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// SeverityCounts counts findings by severity.
type SeverityCounts struct {
	Violations int `json:"violations"`
	Warnings   int `json:"warnings"`
	Notices    int `json:"notices"`
}

// Add counts one finding of severity s; an unknown severity is not counted.
func (c *SeverityCounts) Add(s Severity) {
	switch s {
	case SeverityViolation:
		c.Violations++
	case SeverityWarning:
		c.Warnings++
	case SeverityNotice:
		c.Notices++
	}
}

// Summary counts what a check saw and found.
type Summary struct {
	// Objects is the number of objects read, Services or not.
	Objects int `json:"objects"`
	// Observations is the number of Service observations checked.
	Observations int `json:"observations"`
	// Services is the number of distinct Services observed, by namespace,
	// name and uid: one deleted and created again (a new uid, or seen again
	// after a DELETED event) counts twice, one of a class the checker
	// leaves alone (P1) counts too.
	Services int `json:"services"`
	// Skipped is the number of objects that were not Services.
	Skipped int `json:"skipped"`
	// InputErrors is the number of input problems (see DecodeError).
	InputErrors int `json:"inputErrors"`
	// Findings counts all findings by severity.
	Findings SeverityCounts `json:"findings"`
	// Rules counts findings per rule and severity; rules without findings
	// are absent.
	Rules map[RuleID]*SeverityCounts `json:"rules"`
}

// ConditionSummary is one load-balancer condition as last observed.
type ConditionSummary struct {
	// Type is the condition's type, such as LoadBalancerServing.
	Type string `json:"type"`
	// Status is True, False, Unknown, or whatever the object said.
	Status string `json:"status"`
	// Reason is the condition's reason; empty when it has none.
	Reason string `json:"reason,omitempty"`
}

// ServiceReport is what a check says about one Service: its last
// observation, its verdict and its findings.
type ServiceReport struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// ResourceVersion is that of the last observation.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Type is spec.type as last observed ("ClusterIP" when empty). It, the
	// resourceVersion, the class and the conditions' status and reason are
	// cut by input.Clip: kept for every Service, they cost no more than
	// valid ones, whatever the input holds.
	Type string `json:"type"`
	// Class is spec.loadBalancerClass, empty when unset.
	Class string `json:"loadBalancerClass,omitempty"`
	// Observations is how many times the Service was observed.
	Observations int `json:"observations"`
	// UID is the last metadata.uid observed; empty when no observation
	// had one, as in manifests. A Service created again under the name (a
	// new uid) has a ServiceReport of its own.
	UID string `json:"uid,omitempty"`
	// Deleted reports that the Service's last event was its deletion (a
	// DELETED watch event), or that a new Service of the name followed
	// it; the other fields are its last observation.
	Deleted bool `json:"deleted,omitempty"`
	// Conditions are the KEP-4631 conditions (and LoadBalancerPortsError)
	// of the last observation, in the order Serving, Provisioning,
	// Degraded, PortsError.
	Conditions []ConditionSummary `json:"conditions,omitempty"`
	// Ingress lists the IPs and hostnames of the last observation, each
	// cut by input.Clip as Type is.
	Ingress []string `json:"ingress,omitempty"`
	// Verdict is the last verdict reported for a LoadBalancer Service; nil
	// for other types.
	Verdict *Verdict `json:"verdict,omitempty"`
	// Counts counts the Service's findings by severity.
	Counts SeverityCounts `json:"counts"`
	// Findings are the Service's findings, in input order, as many of
	// each severity as the Collector keeps.
	Findings []Finding `json:"findings,omitempty"`
	// Omitted is the number of findings not kept in Findings, when the
	// Collector keeps some but not all.
	Omitted int `json:"omitted,omitempty"`
	// kept counts Findings per severity.
	kept SeverityCounts
}

// Report is the result of a check.
type Report struct {
	// Services are the Services observed, sorted by namespace and name.
	Services []*ServiceReport `json:"services"`
	// Other holds the findings about objects that are not Services, as
	// many of each severity as the Collector keeps.
	Other []Finding `json:"other,omitempty"`
	// OtherOmitted is the number of such findings not kept in Other.
	OtherOmitted int `json:"otherOmitted,omitempty"`
	// SkippedKinds counts the objects skipped as not Services, per kind,
	// most first, for the first maxSkippedKinds kinds met;
	// SkippedOtherKinds counts those of the kinds after them.
	SkippedKinds      []KindCount `json:"skippedKinds,omitempty"`
	SkippedOtherKinds int         `json:"skippedOtherKinds,omitempty"`
	// Errors are the input problems, in input order, as many as the
	// Collector keeps.
	Errors []string `json:"errors,omitempty"`
	// ErrorsOmitted is the number of input problems not kept in Errors.
	ErrorsOmitted int `json:"errorsOmitted,omitempty"`
	// Interrupted reports that the check was stopped before the end of its
	// input: the report covers what was read until then.
	Interrupted bool `json:"interrupted,omitempty"`
	// Summary counts everything.
	Summary Summary `json:"summary"`
}

// KindCount is how many objects of a kind were skipped.
type KindCount struct {
	// Kind is the kind the skip notice names ("Service.serving.knative.dev"
	// for another group's Service); empty for objects without one.
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// maxSkippedKinds bounds the kinds a Collector counts one by one: kinds
// come from the input, and memory must not grow with it.
const maxSkippedKinds = 64

// Collector builds a Report from a Checker's results, one call per object.
// By default it keeps one ServiceReport per distinct Service with all its
// findings; see KeepFindings and SummaryOnly.
type Collector struct {
	keep        int
	summaryOnly bool
	noVerdicts  bool
	otherKept   SeverityCounts
	skipped     map[string]int                // per kind; see maxSkippedKinds
	services    map[serviceKey]*ServiceReport // the latest Service of each name
	retired     []*ServiceReport              // Services a new one of the name followed
	// live holds, by a hash of the namespace and name of each Service
	// observed and not deleted since, a hash of the last uid observed (0
	// while none was); seen counts the Services observed as the rows do:
	// one seen again after its deletion, or under a new uid, twice
	// (Summary.Services).
	live   map[uint64]uint64
	seen   int
	seed   maphash.Seed
	report Report
}

// CollectorOption configures a Collector.
type CollectorOption interface {
	applyCollector(*Collector)
}

// KeepFindings is a CollectorOption: the number of findings of each
// severity kept per Service (and in Report.Other), and of input problems
// kept in Report.Errors; negative keeps all, the default. The counts are
// complete either way. The cap is per severity so that notices, however
// many, never take the place of a violation.
type KeepFindings int

func (k KeepFindings) applyCollector(c *Collector) { c.keep = int(k) }

// SummaryOnly is a CollectorOption: when true, the Collector keeps no
// ServiceReport and no finding, only the Summary, so that its memory grows
// with the distinct Services only (a hash each, to count them); for
// callers that write findings out as they come.
type SummaryOnly bool

func (s SummaryOnly) applyCollector(c *Collector) { c.summaryOnly = bool(s) }

// KeepVerdictNotices is a CollectorOption: when false, the verdict notices
// (T1 to T4) are counted and set ServiceReport.Verdict but are not kept
// among the findings, for reports that show the verdict in a column of
// its own. True (the default) keeps them like any notice.
type KeepVerdictNotices bool

func (k KeepVerdictNotices) applyCollector(c *Collector) { c.noVerdicts = !bool(k) }

// NewCollector returns a Collector with the given options; nil options are
// ignored.
func NewCollector(opts ...CollectorOption) *Collector {
	c := &Collector{keep: -1, services: map[serviceKey]*ServiceReport{}, live: map[uint64]uint64{}, seed: maphash.MakeSeed(),
		report: Report{Summary: Summary{Rules: map[RuleID]*SeverityCounts{}}}}
	for _, o := range opts {
		if o != nil {
			o.applyCollector(c)
		}
	}
	return c
}

// Repeated records an object that gave the previous observation of its
// Service again (Checker.Repeated): an object read, not an observation.
func (c *Collector) Repeated() { c.report.Summary.Objects++ }

// Observe records an object and the findings the Checker returned for it.
func (c *Collector) Observe(obj Object, found []Finding) {
	c.report.Summary.Objects++
	switch {
	case obj.Service == nil:
		c.report.Summary.Skipped++
		if !c.summaryOnly {
			c.countSkipped(obj, found)
		}
		c.Findings(found)
		return
	case obj.Deleted:
		// The end of a trace, not an observation: a Service seen again
		// under the name is another one.
		delete(c.live, c.nameHash(obj.Service))
		if sr := c.services[serviceKey{obj.Service.Namespace, obj.Service.Name}]; sr != nil {
			sr.Deleted = true
		}
		c.Findings(found)
		return
	}
	c.report.Summary.Observations++
	h, uid := c.nameHash(obj.Service), c.uidHash(obj.Service)
	// Each manifest without a name is a Service; one without a uid (a
	// manifest) is the Service of its name observed before and after it.
	last, live := c.live[h]
	if !live || obj.Service.Name == "" || last != 0 && uid != 0 && last != uid {
		c.seen++
	}
	if !live || uid != 0 {
		c.live[h] = uid
	}
	if c.summaryOnly {
		c.Findings(found)
		return
	}
	svc := obj.Service
	k := serviceKey{svc.Namespace, svc.Name}
	sr := c.service(k)
	if sr.Observations > 0 && (sr.Deleted || sr.UID != "" && svc.UID != "" && sr.UID != string(svc.UID) || svc.Name == "") {
		// A new Service of the name (deleted, a new uid, or none: each
		// manifest without a name is a Service of its own): the old one
		// keeps its row, with what it was found to break; the findings
		// that end its trace come with this observation, about its last.
		old := sr
		old.Deleted = old.Deleted || svc.Name != "" // a manifest without a name is not deleted by the next
		c.retired = append(c.retired, old)
		delete(c.services, k)
		sr = c.service(k)
		found = c.retiredFindings(old, svc, found)
	}
	if svc.UID != "" {
		sr.UID = string(svc.UID)
	}
	sr.Observations++
	sr.Deleted = false
	sr.ResourceVersion = input.Clip(svc.ResourceVersion) // as the findings' Object
	sr.Type = intern(input.Clip(string(svc.Spec.Type)))
	if sr.Type == "" {
		sr.Type = string(corev1.ServiceTypeClusterIP)
	}
	sr.Class = ""
	if svc.Spec.LoadBalancerClass != nil {
		sr.Class = input.Clip(*svc.Spec.LoadBalancerClass)
	}
	sr.Conditions = sr.Conditions[:0]
	for _, t := range []v1.LoadBalancerConditionType{v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning,
		v1.LoadBalancerConditionDegraded, v1.LoadBalancerConditionPortsError} {
		if cond := conditions.Get(svc.Status.Conditions, t); cond != nil {
			sr.Conditions = append(sr.Conditions, ConditionSummary{Type: intern(cond.Type), Status: intern(input.Clip(string(cond.Status))), Reason: intern(input.Clip(cond.Reason))})
		}
	}
	sr.Ingress = sr.Ingress[:0]
	for _, in := range svc.Status.LoadBalancer.Ingress {
		sr.Ingress = append(sr.Ingress, input.Clip(cmp.Or(in.IP, in.Hostname)))
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		sr.Verdict = nil
	}
	c.Findings(found)
}

// nameHash identifies svc by namespace and name.
func (c *Collector) nameHash(svc *v1.Service) uint64 {
	return maphash.Comparable(c.seed, [2]string{svc.Namespace, svc.Name})
}

// uidHash identifies svc's uid; 0 for none.
func (c *Collector) uidHash(svc *v1.Service) uint64 {
	if svc.UID == "" {
		return 0
	}
	return maphash.String(c.seed, string(svc.UID)) | 1
}

// retiredFindings records on old's row the findings of found that end
// its trace (EndOfTrace) or are about its last observation
// (resourceVersion), made when the observation svc of a new Service of the
// name ended old's trace, and returns the others. An old observation
// without a resourceVersion is told apart as well as any: the new
// observation's findings carry its own. When both are the same, or differ
// only past what input.Clip keeps, only EndOfTrace tells them apart; a
// manifest without a name ends its own trace with its observation, not
// old's.
func (c *Collector) retiredFindings(old *ServiceReport, svc *v1.Service, found []Finding) []Finding {
	var rest []Finding
	for _, f := range found {
		if f.Object.Kind == "Service" && (f.EndOfTrace && svc.Name != "" ||
			old.ResourceVersion != input.Clip(svc.ResourceVersion) && f.Object.ResourceVersion == old.ResourceVersion) {
			c.count(&f)
			c.addTo(old, &f)
		} else {
			rest = append(rest, f)
		}
	}
	return rest
}

// count adds f to the Summary's counts.
func (c *Collector) count(f *Finding) {
	c.report.Summary.Findings.Add(f.Severity)
	rc := c.report.Summary.Rules[f.Rule]
	if rc == nil {
		rc = &SeverityCounts{}
		c.report.Summary.Rules[f.Rule] = rc
	}
	rc.Add(f.Severity)
}

// addTo records f on the row sr, which has f's namespace and name. A
// finding kept names the Service with the row's strings: each observation
// decodes its own copy of a name, which may be long, and the row is kept
// anyway.
func (c *Collector) addTo(sr *ServiceReport, f *Finding) {
	sr.Counts.Add(f.Severity)
	if f.Verdict != nil {
		v := *f.Verdict
		sr.Verdict = &v
		if c.noVerdicts {
			return
		}
	}
	if c.keeps(&sr.kept, f.Severity) {
		sr.Findings = append(sr.Findings, *f)
		kept := &sr.Findings[len(sr.Findings)-1].Object
		kept.Namespace, kept.Name = sr.Namespace, sr.Name
	} else {
		sr.Omitted++
	}
}

// Findings records findings that come without an object of their own, such
// as those of Checker.Finish.
func (c *Collector) Findings(found []Finding) {
	for i := range found {
		f := &found[i]
		c.count(f)
		if c.summaryOnly {
			continue
		}
		if f.Object.Kind != "Service" {
			if c.keeps(&c.otherKept, f.Severity) {
				c.report.Other = append(c.report.Other, *f)
			} else {
				c.report.OtherOmitted++
			}
			continue
		}
		c.addTo(c.service(serviceKey{f.Object.Namespace, f.Object.Name}), f)
	}
}

// keeps reports whether one more finding of severity sev is kept, given
// those kept so far, and counts it if so.
func (c *Collector) keeps(kept *SeverityCounts, sev Severity) bool {
	if c.keep >= 0 && count(kept, sev) >= c.keep {
		return false
	}
	kept.Add(sev)
	return true
}

// count returns the count of severity s in c.
func count(c *SeverityCounts, s Severity) int {
	switch s {
	case SeverityViolation:
		return c.Violations
	case SeverityWarning:
		return c.Warnings
	}
	return c.Notices
}

// Error records an input problem. The message is kept unless the Collector
// keeps only a summary or already holds as many as KeepFindings says.
func (c *Collector) Error(err error) {
	c.report.Summary.InputErrors++
	if c.summaryOnly || (c.keep >= 0 && len(c.report.Errors) >= c.keep) {
		c.report.ErrorsOmitted++
		return
	}
	c.report.Errors = append(c.report.Errors, err.Error())
}

// Interrupt marks the report as covering only part of its input.
func (c *Collector) Interrupt() { c.report.Interrupted = true }

// Report returns the report so far, Services sorted by namespace and name,
// those of one name in the order they were created. The Collector may go
// on collecting; the returned Report shares its ServiceReports.
func (c *Collector) Report() Report {
	r := c.report
	r.Services = make([]*ServiceReport, 0, len(c.services)+len(c.retired))
	r.Services = append(r.Services, c.retired...)
	for _, sr := range c.services {
		r.Services = append(r.Services, sr)
	}
	slices.SortStableFunc(r.Services, func(a, b *ServiceReport) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	r.Summary.Services = c.seen
	for kind, n := range c.skipped {
		r.SkippedKinds = append(r.SkippedKinds, KindCount{Kind: kind, Count: n})
	}
	slices.SortFunc(r.SkippedKinds, func(a, b KindCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Kind, b.Kind))
	})
	return r
}

// countSkipped counts a skipped object under the kind its notice names.
func (c *Collector) countSkipped(obj Object, found []Finding) {
	kind := obj.Kind
	if len(found) == 1 && found[0].Rule == RuleInput {
		kind = found[0].Object.Kind
	}
	if c.skipped == nil {
		c.skipped = map[string]int{}
	}
	if _, ok := c.skipped[kind]; ok || len(c.skipped) < maxSkippedKinds {
		c.skipped[kind]++
	} else {
		c.report.SkippedOtherKinds++
	}
}

func (c *Collector) service(k serviceKey) *ServiceReport {
	sr := c.services[k]
	if sr == nil {
		sr = &ServiceReport{Namespace: k.namespace, Name: k.name}
		c.services[k] = sr
	}
	return sr
}

// Failed reports whether the Summary has a violation.
func (s *Summary) Failed() bool { return s.Findings.Violations > 0 }

// Merge adds the counts of o to s.
func (s *Summary) Merge(o Summary) {
	s.Objects += o.Objects
	s.Observations += o.Observations
	s.Services += o.Services
	s.Skipped += o.Skipped
	s.InputErrors += o.InputErrors
	s.Findings.Violations += o.Findings.Violations
	s.Findings.Warnings += o.Findings.Warnings
	s.Findings.Notices += o.Findings.Notices
	if s.Rules == nil {
		s.Rules = map[RuleID]*SeverityCounts{}
	}
	for id, c := range o.Rules {
		mine := s.Rules[id]
		if mine == nil {
			mine = &SeverityCounts{}
			s.Rules[id] = mine
		}
		mine.Violations += c.Violations
		mine.Warnings += c.Warnings
		mine.Notices += c.Notices
	}
}

// SortedRules returns the IDs of s.Rules in the specification's order.
func (s *Summary) SortedRules() []RuleID {
	ids := make([]RuleID, 0, len(s.Rules))
	for id := range s.Rules {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b RuleID) int {
		switch {
		case ruleLess(a, b):
			return -1
		case ruleLess(b, a):
			return 1
		}
		return 0
	})
	return ids
}
