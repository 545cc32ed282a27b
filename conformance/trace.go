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
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// The checker's memory per Service is serviceState: what the trace rules
// need of the previous observation, and nothing else. Conditions are kept
// as a status, a lastTransitionTime in whole seconds and a hash of the whole
// condition; the ingress as a hash; the spec as the few fields G3 names.

// Slots of serviceState.conds.
const (
	slotServing = iota
	slotProvisioning
	slotDegraded
	numSlots
)

var slotTypes = [numSlots]v1.LoadBalancerConditionType{
	v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning, v1.LoadBalancerConditionDegraded,
}

// condState is what the trace rules need of one condition.
type condState struct {
	present bool
	status  statusCode
	ltt     int64  // lastTransitionTime, Unix seconds (G5)
	sum     uint64 // hash of status, reason, message, time, observedGeneration
}

// statusCode is a condition status in one byte, so that the state keeps no
// decoded string alive.
type statusCode uint8

const (
	statusOther statusCode = iota
	statusTrue
	statusFalse
	statusUnknown
)

func codeOf(s metav1.ConditionStatus) statusCode {
	switch s {
	case metav1.ConditionTrue:
		return statusTrue
	case metav1.ConditionFalse:
		return statusFalse
	case metav1.ConditionUnknown:
		return statusUnknown
	}
	return statusOther
}

// String names the status in messages.
func (c statusCode) String() string {
	switch c {
	case statusTrue:
		return "True"
	case statusFalse:
		return "False"
	case statusUnknown:
		return "Unknown"
	}
	return "another status"
}

// obligation is a load-balancer-relevant spec change the provider has not
// acknowledged yet (L6).
type obligation struct {
	pre     int64  // Provisioning's lastTransitionTime before the change
	spec    string // the G3 fields before the change, encoded by encodeG3
	rv      string // resourceVersion of the observation that showed the change, cut as messages quote it
	changed string // the fields that changed, comma-separated
	pos     *Position
}

// serviceState is the checker's memory of one Service.
type serviceState struct {
	uid uint64 // hash of the last metadata.uid observed; 0 for none
	// rv is the last resourceVersion, cut by input.Clip as findings carry
	// it, and rvSum a hash of the whole one when that was cut (0 when not),
	// which tells a repeated observation (see Checker.sameVersion): the
	// input may hold any string there, and the state stays the same size.
	rv         string
	rvSum      uint64
	conds      [numSlots]condState
	ingressSum uint64
	hasIngress bool
	lb         bool
	spec       string // the G3 fields, encoded by encodeG3
	// seenServing: Serving=True was observed since the Service last became
	// a LoadBalancer (L4), or may have been, before the trace's first
	// observation or unseen in a gap, after which the provider's
	// conditions or ingress were there: a refill of the ingress is then no
	// first provisioning. A conversion back is a first provisioning again,
	// as L1 and L9 have it.
	seenServing bool
	// specAhead: the spec changed since the provider last wrote status
	// (see observation.specAhead).
	specAhead bool
	// gap: writes may have been missed since the last observation (see
	// Checker.Gap).
	gap bool
	// noConditions: the last observation was a LoadBalancer Service with
	// neither Serving nor Provisioning, the conditions R3 trusts (R3 at the
	// end of the trace, L1); a Degraded alone does not count.
	noConditions bool
	noCondPos    *Position
	// verdict hashes the last verdict's result, rule and reason; 0 for
	// none (not a LoadBalancer Service).
	verdict uint64
	owed    *obligation
	// validSum hashes the inputs of the last validation, and validClean
	// says it found nothing (see Checker.validate).
	validSum   uint64
	validClean bool
	// moved: the Service moved to a class the provider under test does
	// not handle, and carries the conditions it wrote before, unchanged
	// (P1's leftovers). Only uid and conds are kept.
	moved bool
}

// trace applies the rules that compare an observation with the previous
// one of the same Service (seen reports there was one), then remembers the
// observation in st.
func (c *Checker) trace(f *findings, st *serviceState, seen bool, svc *v1.Service, v *view, o *observation) {
	cur := &o.conds
	ingressSum, hasIngress := o.ingressSum, o.hasIngress
	lb := isLoadBalancer(svc)

	gap := st.gap
	if seen {
		c.checkTransitions(f, st, cur, v)
		if !gap {
			c.checkFirstWrite(f, st, cur, v, svc, hasIngress)
		}
		c.checkAcknowledgement(f, st, svc, cur, v, o)
	}
	st.gap = false

	st.specAhead = o.specAhead
	if uid := c.uidSum(svc); uid != 0 {
		st.uid = uid // an observation without one (a manifest) says nothing of it
	}
	st.rv, st.rvSum = f.ref.ResourceVersion, c.rvSum(svc.ResourceVersion)
	st.conds = *cur
	st.ingressSum, st.hasIngress = ingressSum, hasIngress
	st.lb = lb
	st.seenServing = lb && (st.seenServing || cur[slotServing].present && cur[slotServing].status == statusTrue ||
		(gap || !seen) && (v.hasKEP() || hasIngress))
	st.noConditions = lb && v.serving < 0 && v.provisioning < 0
	st.noCondPos = nil
	if st.noConditions {
		st.noCondPos = f.position()
	}
	c.checkVerdict(f, st, svc, lb)
}

// observation is what the checker derives from an observation and the
// previous one of the same Service before applying any rule.
type observation struct {
	conds [numSlots]condState
	// contents hash what validation reads of each condition in conds (see
	// condStates).
	contents   [numSlots]uint64
	ingressSum uint64
	hasIngress bool
	// changed lists the load-balancer-relevant fields that changed since
	// the previous observation (G3), and prevSpec is their encoding there.
	changed  []string
	prevSpec string
	// written reports that the provider wrote status since the previous
	// observation: a KEP-4631 condition or the ingress changed.
	written bool
	// specAhead reports that the spec changed since the provider last
	// wrote status: the status still answers an older spec.
	specAhead bool
}

// derive derives the observation of svc; st is the Service's state, seen
// whether it holds a previous observation. It updates the remembered G3
// fields and nothing else.
func (c *Checker) derive(st *serviceState, seen bool, svc *v1.Service, v *view) observation {
	var o observation
	o.conds, o.contents = c.condStates(v)
	o.ingressSum, o.hasIngress = c.ingressSum(svc.Status.LoadBalancer.Ingress)
	if !seen {
		return o
	}
	o.prevSpec = st.spec
	o.changed = c.specChanges(st, svc)
	// A write that changed the spec is not the provider's status write,
	// whatever changed in status with it: a /status write cannot change the
	// spec, and the apiserver itself edits status in a spec write (it clears
	// the ingress when type leaves LoadBalancer).
	if len(o.changed) == 0 {
		o.written = st.ingressSum != o.ingressSum
		for s := range o.conds {
			o.written = o.written || o.conds[s].present != st.conds[s].present || o.conds[s].sum != st.conds[s].sum
		}
	}
	o.specAhead = !o.written && (len(o.changed) > 0 || st.specAhead)
	return o
}

// uidSum hashes metadata.uid; 0 for none.
func (c *Checker) uidSum(svc *v1.Service) uint64 {
	if svc.UID == "" {
		return 0
	}
	return maphash.String(c.seed, string(svc.UID)) | 1
}

// condStates hashes the three KEP-4631 conditions of an observation. It
// hashes each twice: whole, for the trace rules (condState.sum), and with
// its slot, which stands for its type, and what validation reads of it
// (contents): every field but lastTransitionTime, of which validation
// only reads whether it is set.
func (c *Checker) condStates(v *view) (out [numSlots]condState, contents [numSlots]uint64) {
	for s, i := range [numSlots]int{v.serving, v.provisioning, v.degraded} {
		if i < 0 {
			continue
		}
		cond := &v.conds[i]
		h := &c.hash
		h.reset()
		h.int(int64(s))
		h.str(string(cond.Status))
		h.str(cond.Reason)
		h.str(cond.Message)
		h.int(cond.ObservedGeneration)
		n := len(h.buf)
		h.bool(!cond.LastTransitionTime.IsZero())
		contents[s] = h.sum(c.seed)
		h.buf = h.buf[:n]
		ltt := cond.LastTransitionTime.Unix()
		h.int(ltt)
		out[s] = condState{present: true, status: codeOf(cond.Status), ltt: ltt, sum: h.sum(c.seed)}
	}
	return out, contents
}

// ingressSum hashes status.loadBalancer.ingress, and reports whether it
// holds an address: an entry with an ip or a hostname (L4; an entry with
// neither is no address).
func (c *Checker) ingressSum(ingress []corev1.LoadBalancerIngress) (sum uint64, address bool) {
	if len(ingress) == 0 {
		return 0, false
	}
	h := &c.hash
	h.reset()
	h.int(int64(len(ingress)))
	for i := range ingress {
		in := &ingress[i]
		address = address || in.IP != "" || in.Hostname != ""
		h.str(in.IP)
		h.str(in.Hostname)
		h.optStr((*string)(in.IPMode))
		h.int(int64(len(in.Ports)))
		for _, p := range in.Ports {
			h.int(int64(p.Port))
			h.str(string(p.Protocol))
			h.optStr(p.Error)
		}
	}
	return h.sum(c.seed), address
}

// hasher lays values out in a byte string and hashes it once, which costs
// less than many small writes to a maphash.Hash. Strings carry their
// length, so that no two sequences of values lay out alike.
type hasher struct{ buf []byte }

func (h *hasher) reset() { h.buf = h.buf[:0] }

func (h *hasher) str(s string) {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
}

func (h *hasher) optStr(s *string) {
	if s == nil {
		h.buf = append(h.buf, 0)
		return
	}
	h.buf = append(h.buf, 1)
	h.str(*s)
}

func (h *hasher) int(n int64) { h.buf = binary.AppendVarint(h.buf, n) }

func (h *hasher) bool(b bool) {
	if b {
		h.buf = append(h.buf, 1)
	} else {
		h.buf = append(h.buf, 0)
	}
}

func (h *hasher) sum(seed maphash.Seed) uint64 { return maphash.Bytes(seed, h.buf) }

// checkTransitions is C6 and C7.
func (c *Checker) checkTransitions(f *findings, st *serviceState, cur *[numSlots]condState, v *view) {
	idx := [numSlots]int{v.serving, v.provisioning, v.degraded}
	for s := range cur {
		prev, now := &st.conds[s], &cur[s]
		if !prev.present || !now.present {
			continue
		}
		switch {
		case now.ltt < prev.ltt:
			f.add("C7", SeverityViolation, condPath(idx[s], "lastTransitionTime"), fmt.Sprintf(
				"%s's lastTransitionTime moved backwards, from %s to %s", slotTypes[s], formatUnix(prev.ltt), formatUnix(now.ltt)))
		case now.status != prev.status && now.ltt == prev.ltt:
			f.add("C6", SeverityViolation, condPath(idx[s], "lastTransitionTime"), fmt.Sprintf(
				"%s changed from %s to %s but its lastTransitionTime stayed %s", slotTypes[s], prev.status, now.status, formatUnix(now.ltt)))
		}
	}
}

// checkFirstWrite is L1's and L4's trace halves: the first write of the
// conditions, and the first provisioning.
func (c *Checker) checkFirstWrite(f *findings, st *serviceState, cur *[numSlots]condState, v *view, svc *v1.Service, hasIngress bool) {
	lb := isLoadBalancer(svc)
	if lb && st.noConditions && v.serving >= 0 && v.provisioning >= 0 &&
		cur[slotServing].status == statusTrue && cur[slotProvisioning].status == statusTrue {
		f.add("L1", SeverityViolation, conditionsField,
			"the provider's first write of the conditions claims Provisioning=True and Serving=True, which means reprovisioning while serving; a first write is one of the three combinations of L1")
	}
	if lb && !st.seenServing && !st.hasIngress && hasIngress && v.hasKEP() && !v.is(v.serving, metav1.ConditionTrue) {
		f.add("L4", SeverityViolation, ingressField,
			"status.loadBalancer.ingress was filled on first provisioning while LoadBalancerServing is not True; Serving turns True in the same write that fills the ingress")
	}
}

// checkAcknowledgement is L6. written reports that the provider wrote
// status since the previous observation.
func (c *Checker) checkAcknowledgement(f *findings, st *serviceState, svc *v1.Service, cur *[numSlots]condState, v *view, o *observation) {
	prov := &cur[slotProvisioning]
	written := o.written
	if changed := o.changed; len(changed) > 0 {
		switch {
		case st.owed == nil && st.conds[slotProvisioning].present:
			st.owed = &obligation{pre: st.conds[slotProvisioning].ltt, spec: o.prevSpec, rv: input.Clip(svc.ResourceVersion), changed: strings.Join(changed, ", ")}
			st.owed.pos = f.position()
		case st.owed != nil && c.sameG3(st.owed.spec, svc):
			// Changed back before the provider wrote: one that saw only
			// the latest spec saw no change.
			st.owed = nil
		}
		if st.owed != nil && (!prov.present || prov.ltt != st.owed.pre) {
			// Acknowledged in the same observation, or the conditions are
			// already gone: nothing left to acknowledge with or to remove.
			st.owed = nil
		}
		return
	}
	owed := st.owed
	if owed == nil {
		return
	}
	switch {
	case !prov.present:
		st.owed = nil // the conditions are gone: nothing left to acknowledge with
	case prov.ltt != owed.pre:
		st.owed = nil // acknowledged
	case written && !isLoadBalancer(svc):
		// A Service that is no longer a LoadBalancer owes the removal of
		// its conditions (L9, which judges this write), not a bump.
		st.owed = nil
	case written:
		st.owed = nil
		f.add("L6", SeverityViolation, condPath(v.provisioning, "lastTransitionTime"), fmt.Sprintf(
			"the provider wrote status after the change of %s (resourceVersion %s) but LoadBalancerProvisioning's lastTransitionTime is still %s; it must move to acknowledge the change",
			owed.changed, orUnset(owed.rv), formatUnix(owed.pre)))
	}
}

// checkVerdict reports the section 6 verdict of a LoadBalancer Service
// when it differs from the previous observation's: its result, its rule,
// or its reason (no provider has written the conditions yet, then
// provisioning).
func (c *Checker) checkVerdict(f *findings, st *serviceState, svc *v1.Service, lb bool) {
	if !lb {
		st.verdict = 0
		return
	}
	verdict := conditions.Evaluate(svc, "")
	sum := maphash.Comparable(c.seed, [3]string{string(verdict.Result), verdict.Rule, verdict.Reason}) | 1
	if sum == st.verdict {
		return
	}
	st.verdict = sum
	// A refusal's or a failure's reason quotes Serving's message: cut as
	// a message quotes the input, once the whole one has told a change.
	verdict.Reason = input.Clip(verdict.Reason)
	rule := RuleID(verdict.Rule)
	if rule == "" {
		rule = "T4"
	}
	msg, ok := c.verdictMsgs[sum]
	if !ok {
		msg = "verdict " + string(verdict.Result) + " (" + verdict.Rule + "): " + verdict.Reason
		// A Checker of one Service, as the CLI makes for each input,
		// has no other Service to share the message with.
		if c.seen > 1 {
			if c.verdictMsgs == nil || len(c.verdictMsgs) >= maxVerdictMsgs {
				c.verdictMsgs = map[uint64]string{}
			}
			c.verdictMsgs[sum] = msg
		}
	}
	f.addVerdict(rule, msg, verdict)
}

// maxVerdictMsgs bounds Checker.verdictMsgs. The reasons of the verdicts
// are a few sentences, but for those that quote a condition's message.
const maxVerdictMsgs = 1024

// endOfTrace returns the findings owed when a Service's trace ends: an
// unacknowledged change (L6) and a LoadBalancer Service without conditions
// (R3). pos, when not nil, is where the trace ended; ended says how, as
// the subject of a sentence ("the input ended").
func (c *Checker) endOfTrace(k serviceKey, st *serviceState, pos *Position, ended string) []Finding {
	var out []Finding
	if o := st.owed; o != nil {
		p := o.pos
		if pos != nil {
			p = pos
		}
		rule, msg := RuleID("L6"), fmt.Sprintf("%s before the provider acknowledged the change of %s (resourceVersion %s) by moving LoadBalancerProvisioning's lastTransitionTime",
			ended, o.changed, orUnset(o.rv))
		if !st.lb {
			// No longer a LoadBalancer: what it owed was the removal of
			// its conditions (L9), not a bump.
			rule, msg = "L9", fmt.Sprintf("%s before the provider removed the conditions of a Service no longer of type LoadBalancer (changed at resourceVersion %s)",
				ended, orUnset(o.rv))
		}
		out = append(out, Finding{Rule: rule, Severity: SeverityWarning, Object: k.ref(st.rv), Field: "status.conditions", Message: msg, Position: p, EndOfTrace: true})
	}
	if st.noConditions {
		gone := ended == endDeleted || ended == endRecreated || ended == endLeft // else it is still observed
		sev, msg := SeverityNotice, "the LoadBalancer Service has neither LoadBalancerServing nor LoadBalancerProvisioning: no KEP-aware provider has handled it (yet), so nothing says whether required features were honored"
		if gone {
			msg = ended + "; it had neither LoadBalancerServing nor LoadBalancerProvisioning: no KEP-aware provider handled it, so nothing said whether required features were honored"
		}
		if c.opts.requireConditions {
			sev, msg = SeverityViolation, "the LoadBalancer Service has neither LoadBalancerServing nor LoadBalancerProvisioning, and conditions are required: no KEP-aware provider handled it"
			if gone {
				msg = ended + "; it had neither LoadBalancerServing nor LoadBalancerProvisioning, and conditions are required: no KEP-aware provider handled it"
			}
		}
		p := st.noCondPos
		if pos != nil {
			p = pos
		}
		out = append(out, Finding{Rule: "R3", Severity: sev, Object: k.ref(st.rv), Field: conditionsField, Message: msg, Position: p, EndOfTrace: true})
	}
	return out
}

// formatUnix renders Unix seconds as RFC 3339, as on the wire.
func formatUnix(s int64) string {
	return metav1.Unix(s, 0).UTC().Format("2006-01-02T15:04:05Z07:00")
}

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// affinityTimeout returns the ClientIP timeout of s, nil when unset.
func affinityTimeout(s *corev1.ServiceSpec) *int32 {
	if c := s.SessionAffinityConfig; c != nil && c.ClientIP != nil {
		return c.ClientIP.TimeoutSeconds
	}
	return nil
}

// knownStrings are the condition types, statuses and reasons of the
// specification's table, and the Service types.
var knownStrings = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		string(v1.LoadBalancerConditionServing), string(v1.LoadBalancerConditionProvisioning),
		string(v1.LoadBalancerConditionDegraded), string(v1.LoadBalancerConditionPortsError),
		string(metav1.ConditionTrue), string(metav1.ConditionFalse), string(metav1.ConditionUnknown),
		string(v1.LoadBalancerReasonServing), string(v1.LoadBalancerReasonProvisioning), string(v1.LoadBalancerReasonUnsupported),
		string(v1.LoadBalancerReasonInfrastructure), string(v1.LoadBalancerReasonComplete), string(v1.LoadBalancerReasonMultiple),
		string(corev1.ServiceTypeLoadBalancer), string(corev1.ServiceTypeClusterIP), string(corev1.ServiceTypeNodePort),
		string(corev1.ServiceTypeExternalName),
	} {
		m[s] = s
	}
	for _, f := range v1.LoadBalancerFeatures() {
		r, _ := v1.DegradedReason(f)
		m[string(r)] = string(r)
	}
	return m
}()

// intern returns the package's copy of a well-known string, so that a
// report kept for a long time does not keep a decoded copy of it alive.
func intern(s string) string {
	if k, ok := knownStrings[s]; ok {
		return k
	}
	return s
}
