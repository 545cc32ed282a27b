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

package conditions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/fuzz/seed"
	"github.com/lbstatus/lbstatus/validation"
)

// FuzzConditionsStateMachine runs the provider state machine of
// TestProvider_StateMachine (statemachine_test.go) with the fuzzer's bytes
// as rapid's source of choices, so coverage guidance steers the sequences
// of events, spec changes and clock steps, and every invariant the machine
// checks after each step holds for them.
func FuzzConditionsStateMachine(f *testing.F) {
	for i, data := range [][]byte{
		nil,
		make([]byte, 64),
		[]byte(strings.Repeat("\x01\x80\xff\x10", 64)),
		[]byte("lbstatus state machine: provision, succeed, change the spec, fail, recover"),
	} {
		seed.Add(f, fmt.Sprintf("bitstream-%d", i), data)
	}
	f.Fuzz(rapid.MakeFuzz(stateMachine))
}

// FuzzConditionsSequence reads its bytes as a provider's life: the
// provider's capabilities and a feature under test, then a script of clock
// steps (forwards and backwards), user spec changes and provider events
// (Seen, ProvisioningStarted, Succeeded, Failed, SpecUpdated,
// NotLoadBalancer), plus low-level Set, Bump and Remove calls on a list of
// their own. It needs no model of what the provider should have done:
// after every step it checks what must hold of any status the helpers
// write, from any history:
//
//   - the status passes the project's validation with the gate on (C1, C3,
//     C5), has both of Serving and Provisioning or neither (L1), Degraded
//     only True and only while serving (C2), no LoadBalancerPortsError
//     (C4), an ingress whenever Serving is True (L4), Serving's reason
//     matching Provisioning (L5), times in whole seconds (G5), Multiple
//     listing its reasons sorted (G2), degradations only in features the
//     Service asks for and does not require (P5, P6), and another
//     controller's condition untouched;
//   - between two writes, a status change moves lastTransitionTime (C6),
//     which never moves backwards (C7), and a relevant spec change bumps
//     Provisioning (L6);
//   - a transition's Changed flag, its apply configuration and the verdict
//     of Evaluate agree with its status (G4, section 6); a failed call
//     changes nothing;
//   - Set, Bump and Remove keep their documented contracts;
//   - the same bytes give the same statuses.
func FuzzConditionsSequence(f *testing.F) {
	for name, script := range sequenceSeeds() {
		seed.Add(f, name, script)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		first := runSequence(t, data)
		second := runSequence(t, data)
		if !apiequality.Semantic.DeepEqual(first, second) {
			t.Fatalf("the same script gave two histories:\n%v\n%v", first, second)
		}
	})
}

// The operations of a script, one byte each (modulo seqOps), most followed
// by operand bytes. A script that runs out of bytes reads zeros.
const (
	opClockForward        = iota // operand: tenths of a second
	opClockBackward              // operand: tenths of a second
	opUserChangesSpec            // operand: which change
	opSpecUpdated                // the provider reacts to the spec
	opSeen                       // Seen with Decide's decision
	opProvisioningStarted        // operand: odd keeps serving
	opSucceeded                  // operands: ingress shape, degradations
	opFailed                     // operands: reason, message
	opNotLoadBalancer            //
	opSet                        // operands: type, status, reason, generation option
	opBump                       // operand: type
	opRemove                     // operand: type
	seqOps
)

// sequenceSeeds are scripts of the lifecycles the specification describes:
// a header (two capability bytes, the feature under test, the clock's
// fraction of a second) and operations.
func sequenceSeeds() map[string][]byte {
	const all, allB = 0xff, 0x3f
	s := func(header []byte, ops ...byte) []byte { return append(header, ops...) }
	full := []byte{all, allB, 0, 0x80}
	return map[string][]byte{
		"provision-succeed":        s(full, opSeen, opClockForward, 30, opProvisioningStarted, 0, opClockForward, 5, opSucceeded, 1, 0),
		"refuse-required-unknown":  s([]byte{all, 0x1f, 3, 0}, opUserChangesSpec, 8, opSeen, opClockForward, 1, opSeen),
		"degrade-then-spec-change": s(full[:1:1], 0x00, 2, 0x10, opUserChangesSpec, 2, opUserChangesSpec, 3, opSeen, opSucceeded, 2, 0, opUserChangesSpec, 3, opSpecUpdated, opClockForward, 9, opSucceeded, 2, 0),
		"reprovision-keep-serving": s(full, opSeen, opSucceeded, 1, 0, opUserChangesSpec, 1, opSpecUpdated, opProvisioningStarted, 1, opSucceeded, 3, 0),
		"fail-recover-clock-back":  s(full, opSeen, opFailed, 1, 0, opClockBackward, 200, opSeen, opProvisioningStarted, 0, opSucceeded, 1, 0, opClockBackward, 255, opFailed, 0, 2),
		"same-second-flips":        s(full, opSeen, opSucceeded, 1, 0, opProvisioningStarted, 0, opSucceeded, 2, 0, opProvisioningStarted, 1, opSucceeded, 1, 0),
		"not-a-load-balancer":      s(full, opSeen, opSucceeded, 1, 0, opUserChangesSpec, 0, opSpecUpdated, opUserChangesSpec, 0, opSeen, opSucceeded, 1, 0),
		"low-level-helpers":        s(full, opSet, 0, 0, 0, 0, opSet, 0, 1, 2, 1, opClockBackward, 50, opBump, 0, opSet, 4, 2, 5, 0, opRemove, 1, opBump, 1),
		"ignored-class":            s([]byte{0x7f, allB, 1, 0}, opSeen, opUserChangesSpec, 10, opSpecUpdated, opSeen, opSucceeded, 1, 0),
		"misuse":                   s(full, opSucceeded, 0, 2, opFailed, 2, 0, opSucceeded, 1, 3, opNotLoadBalancer, opSpecUpdated),
	}
}

// seqStream reads a script.
type seqStream struct {
	data []byte
	pos  int
}

func (s *seqStream) next() byte {
	if s.pos >= len(s.data) {
		s.pos++
		return 0
	}
	b := s.data[s.pos]
	s.pos++
	return b
}

func (s *seqStream) done() bool { return s.pos >= len(s.data) }

// seqClock is a clock the script moves, also backwards.
type seqClock struct{ now time.Time }

func (c *seqClock) Now() time.Time                   { return c.now }
func (c *seqClock) Since(ts time.Time) time.Duration { return c.now.Sub(ts) }

// sequence is one run of a script.
type sequence struct {
	t       *testing.T
	in      *seqStream
	clk     *seqClock
	opts    []TransitionOption
	setOpts []SetOption
	caps    Capabilities
	feature v1.LoadBalancerFeature
	svc     *v1.Service // as stored
	seen    *v1.Service // the spec the provider last reconciled; nil before
	scratch []metav1.Condition
	foreign metav1.Condition
	history []string
}

const (
	seqHandledClass   = "example.com/lb"
	seqUnhandledClass = "other.example/lb"
)

var seqGateOn = func() validation.Options {
	g := features.NewFeatureGate()
	if err := g.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		panic(err)
	}
	return validation.Options{FeatureGate: g}
}()

// runSequence runs the script in data and returns the statuses it went
// through.
func runSequence(t *testing.T, data []byte) []v1.ServiceStatus {
	in := &seqStream{data: data}
	a, b := in.next(), in.next()
	caps := Capabilities{
		DualStack:                a&4 != 0,
		MixedProtocols:           a&32 != 0,
		WithoutNodePorts:         a&64 != 0,
		DefaultClass:             a&128 != 0,
		SessionAffinity:          b&1 != 0,
		LoadBalancerSourceRanges: b&2 != 0,
		LoadBalancerIP:           b&4 != 0,
		PreserveSourceIP:         b&8 != 0,
	}
	if a&1 != 0 {
		caps.IPFamilies = append(caps.IPFamilies, corev1.IPv4Protocol)
	}
	if a&2 != 0 {
		caps.IPFamilies = append(caps.IPFamilies, corev1.IPv6Protocol)
	}
	if a&8 != 0 {
		caps.Protocols = append(caps.Protocols, corev1.ProtocolTCP)
	}
	if a&16 != 0 {
		caps.Protocols = append(caps.Protocols, corev1.ProtocolUDP)
	}
	if b&16 != 0 {
		caps.Classes = []string{seqHandledClass}
	}
	if b&32 != 0 {
		caps.KnownFeatures = v1.LoadBalancerFeatures()
	} else if b&128 != 0 {
		caps.KnownFeatures = v1.LoadBalancerFeatures()[:3]
	}
	if b&64 != 0 {
		caps.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureLoadBalancerIP}
	}
	features := append([]v1.LoadBalancerFeature{""}, v1.LoadBalancerFeatures()...)
	feature := features[int(in.next())%len(features)]
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(in.next()) * time.Second / 256)
	clk := &seqClock{now: start}

	foreign := metav1.Condition{Type: "example.com/Ready", Status: metav1.ConditionTrue, Reason: "Ready", Message: "not ours",
		ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(start.Add(time.Hour).Truncate(time.Second))}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 1}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}
	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	svc.Status.Conditions = []metav1.Condition{foreign}

	s := &sequence{
		t: t, in: in, clk: clk, opts: []TransitionOption{WithClock(clk)}, setOpts: []SetOption{WithClock(clk)}, caps: caps, feature: feature,
		svc: svc, foreign: foreign,
		// A list in the states Set must cope with: no time at all, a
		// fraction of a second, a time ahead of the clock.
		scratch: []metav1.Condition{
			{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue, Reason: "Serving"},
			{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete", LastTransitionTime: metav1.NewTime(start.Add(1500 * time.Millisecond))},
			{Type: "example.com/Other", Status: metav1.ConditionUnknown, Reason: "Other", LastTransitionTime: metav1.NewTime(start.Add(48 * time.Hour))},
		},
	}
	statuses := []v1.ServiceStatus{*svc.Status.DeepCopy()}
	for step := 0; !in.done() && step < 256; step++ {
		s.step(in.next() % seqOps)
		statuses = append(statuses, *s.svc.Status.DeepCopy())
	}
	return statuses
}

func (s *sequence) fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("after %s: %s\nstatus: %+v", strings.Join(s.history, ", "), fmt.Sprintf(format, args...), s.svc.Status)
}

// step runs one operation.
func (s *sequence) step(op byte) {
	s.t.Helper()
	switch op {
	case opClockForward:
		d := time.Duration(s.in.next()) * 100 * time.Millisecond
		s.clk.now = s.clk.now.Add(d)
		s.history = append(s.history, fmt.Sprintf("clock +%v", d))
	case opClockBackward:
		d := time.Duration(s.in.next()) * 100 * time.Millisecond
		s.clk.now = s.clk.now.Add(-d)
		s.history = append(s.history, fmt.Sprintf("clock -%v", d))
	case opUserChangesSpec:
		s.userChangesSpec(s.in.next())
	case opSpecUpdated:
		s.reconcileSpec()
	case opSeen:
		s.reconcileSpec()
		d := Decide(s.svc, s.caps)
		s.checkDecision(d)
		tr, err := Seen(s.svc, d, s.opts...)
		if err != nil {
			// Decide ignores what is not a LoadBalancer: Seen has no
			// reason to fail.
			s.fatalf("Seen(%s): %v", d.Action, err)
		}
		s.apply(fmt.Sprintf("Seen(%s)", d.Action), tr, err)
	case opProvisioningStarted:
		s.reconcileSpec()
		keep := ServingDuringProvisioning(s.in.next()%2 == 1)
		tr, err := ProvisioningStarted(s.svc, keep, s.opts...)
		s.apply(fmt.Sprintf("ProvisioningStarted(%v)", keep), tr, err)
	case opSucceeded:
		s.reconcileSpec()
		ingress := seqIngress(s.in.next())
		degraded, valid := s.degradations(s.in.next())
		wasServing := IsTrue(s.svc.Status.Conditions, v1.LoadBalancerConditionServing)
		before := s.svc.DeepCopy()
		tr, err := Succeeded(s.svc, ingress, degraded, s.opts...)
		if valid && len(ingress) > 0 && s.svc.Spec.Type == corev1.ServiceTypeLoadBalancer && err != nil {
			s.fatalf("Succeeded with Decide's degradations %v failed: %v", degraded, err)
		}
		s.apply(fmt.Sprintf("Succeeded(%d ingress, %v)", len(ingress), degraded), tr, err)
		if err == nil && wasServing && !apiequality.Semantic.DeepEqual(before.Status.LoadBalancer.Ingress, s.svc.Status.LoadBalancer.Ingress) &&
			Get(before.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime.Equal(&Get(s.svc.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime) {
			s.fatalf("the ingress changed while serving, but Serving's lastTransitionTime did not move (L6)")
		}
	case opFailed:
		s.reconcileSpec()
		reason := []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure, v1.LoadBalancerReasonServing, "QuotaExceeded"}[s.in.next()%4]
		message := []string{"", "quota exceeded", strings.Repeat("long ", 7000)}[s.in.next()%3]
		tr, err := Failed(s.svc, reason, message, s.opts...)
		if err == nil && reason != v1.LoadBalancerReasonUnsupported && reason != v1.LoadBalancerReasonInfrastructure {
			s.fatalf("Failed accepted reason %q", reason)
		}
		s.apply(fmt.Sprintf("Failed(%s, %d bytes)", reason, len(message)), tr, err)
	case opNotLoadBalancer:
		tr, err := NotLoadBalancer(s.svc, s.opts...)
		s.apply("NotLoadBalancer", tr, err)
	case opSet, opBump, opRemove:
		s.lowLevel(op)
	}
}

// reconcileSpec is what a well-behaved provider does before any other
// event: tell SpecUpdated about a spec it has not reconciled yet.
func (s *sequence) reconcileSpec() {
	s.t.Helper()
	if s.seen != nil && apiequality.Semantic.DeepEqual(s.seen.Spec, s.svc.Spec) &&
		apiequality.Semantic.DeepEqual(s.seen.Annotations, s.svc.Annotations) && s.seen.Generation == s.svc.Generation {
		return
	}
	old := s.seen
	changed := ChangedFields(old, s.svc)
	if SpecChanged(old, s.svc) != (len(changed) > 0) {
		s.fatalf("SpecChanged = %v but ChangedFields = %v", !(len(changed) > 0), changed)
	}
	if SpecChanged(s.svc, s.svc.DeepCopy()) {
		s.fatalf("SpecChanged reports a change between a Service and its copy")
	}
	before := Get(s.svc.Status.Conditions, v1.LoadBalancerConditionProvisioning).DeepCopy()
	tr, err := SpecUpdated(old, s.svc, s.opts...)
	if err != nil {
		s.fatalf("SpecUpdated: %v", err)
	}
	s.apply(fmt.Sprintf("SpecUpdated(%v)", changed), tr, err)
	s.seen = s.svc.DeepCopy()
	if after := Get(s.svc.Status.Conditions, v1.LoadBalancerConditionProvisioning); before != nil && after != nil &&
		len(changed) > 0 && s.svc.Spec.Type == corev1.ServiceTypeLoadBalancer && after.LastTransitionTime.Equal(&before.LastTransitionTime) {
		s.fatalf("%v changed but Provisioning's lastTransitionTime did not move (L6)", changed)
	}
}

// userChangesSpec applies one of the user's spec edits; every one bumps
// metadata.generation, as on a cluster that does (G6).
func (s *sequence) userChangesSpec(which byte) {
	spec := &s.svc.Spec
	var what string
	switch which % 12 {
	case 0:
		if spec.Type == corev1.ServiceTypeLoadBalancer {
			spec.Type = corev1.ServiceTypeClusterIP
		} else {
			spec.Type = corev1.ServiceTypeLoadBalancer
		}
		what = "type " + string(spec.Type)
	case 1:
		if len(spec.Ports) < 3 {
			spec.Ports = append(spec.Ports, corev1.ServicePort{Name: fmt.Sprintf("p%d", len(spec.Ports)), Port: int32(53 + len(spec.Ports)), Protocol: corev1.ProtocolUDP})
		} else {
			spec.Ports = spec.Ports[:1]
		}
		what = fmt.Sprintf("%d ports", len(spec.Ports))
	case 2:
		spec.SessionAffinity = map[bool]corev1.ServiceAffinity{true: corev1.ServiceAffinityNone, false: corev1.ServiceAffinityClientIP}[spec.SessionAffinity == corev1.ServiceAffinityClientIP]
		what = "sessionAffinity " + string(spec.SessionAffinity)
	case 3:
		spec.ExternalTrafficPolicy = map[bool]corev1.ServiceExternalTrafficPolicy{true: corev1.ServiceExternalTrafficPolicyCluster, false: corev1.ServiceExternalTrafficPolicyLocal}[spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal]
		what = "externalTrafficPolicy " + string(spec.ExternalTrafficPolicy)
	case 4:
		if len(spec.IPFamilies) == 1 {
			spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		} else {
			spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		}
		what = fmt.Sprintf("ipFamilies %v", spec.IPFamilies)
	case 5:
		spec.LoadBalancerIP = map[bool]string{true: "", false: "192.0.2.7"}[spec.LoadBalancerIP != ""]
		what = "loadBalancerIP " + spec.LoadBalancerIP
	case 6:
		if len(spec.LoadBalancerSourceRanges) == 0 {
			spec.LoadBalancerSourceRanges = []string{"203.0.113.0/24"}
		} else {
			spec.LoadBalancerSourceRanges = nil
		}
		what = fmt.Sprintf("loadBalancerSourceRanges %v", spec.LoadBalancerSourceRanges)
	case 7:
		f := v1.LoadBalancerFeatures()[int(s.in.next())%len(v1.LoadBalancerFeatures())]
		if !slices.Contains(spec.RequiredLoadBalancerFeatures, f) {
			spec.RequiredLoadBalancerFeatures = append(spec.RequiredLoadBalancerFeatures, f)
		}
		what = fmt.Sprintf("requiredLoadBalancerFeatures %v", spec.RequiredLoadBalancerFeatures)
	case 8:
		spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"FutureFeature"}
		what = "requiredLoadBalancerFeatures [FutureFeature]"
	case 9:
		spec.RequiredLoadBalancerFeatures = nil
		setSeqAnnotation(s.svc, v1.RequiredFeaturesAnnotation, []string{"", "Ports,SessionAffinity", "Ports,,"}[s.in.next()%3])
		what = "required-features annotation"
	case 10:
		spec.LoadBalancerClass = []*string{nil, ptr.To(seqHandledClass), ptr.To(seqUnhandledClass)}[s.in.next()%3]
		what = fmt.Sprintf("loadBalancerClass %v", ptr.Deref(spec.LoadBalancerClass, "<nil>"))
	case 11:
		setSeqAnnotation(s.svc, "example.com/unrelated", fmt.Sprint(s.svc.Generation))
		what = "an unrelated annotation"
	}
	s.svc.Generation++
	s.history = append(s.history, "user: "+what)
}

func setSeqAnnotation(svc *v1.Service, key, value string) {
	if value == "" {
		delete(svc.Annotations, key)
		return
	}
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[key] = value
}

// seqIngress returns one of the ingress shapes a provider writes, or none.
func seqIngress(which byte) []corev1.LoadBalancerIngress {
	switch which % 4 {
	case 1:
		return []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	case 2:
		return []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
	case 3:
		return []corev1.LoadBalancerIngress{{IP: "192.0.2.2", IPMode: ptr.To(corev1.LoadBalancerIPModeProxy), Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
	}
	return nil
}

// degradations returns the degradations Succeeded is called with, and
// whether they are valid: Decide's, every feature the Service asks for and
// does not require (valid too), or one arbitrary, possibly invalid feature.
func (s *sequence) degradations(which byte) ([]v1.LoadBalancerFeature, bool) {
	required, _, _ := RequiredFeatures(s.svc)
	switch which % 3 {
	case 0:
		return Decide(s.svc, s.caps).Degraded, true
	case 1:
		var out []v1.LoadBalancerFeature
		for _, f := range v1.LoadBalancerFeatures() {
			if AsksFor(s.svc, f) && !slices.Contains(required, f) {
				out = append(out, f)
			}
		}
		return out, true
	}
	all := append([]v1.LoadBalancerFeature{"FutureFeature"}, v1.LoadBalancerFeatures()...)
	return []v1.LoadBalancerFeature{all[int(s.in.next())%len(all)]}, false
}

// checkDecision checks what Decide promises: Degraded only when
// provisioning, asked for and not required; Refusals only when refusing,
// and then at least one.
func (s *sequence) checkDecision(d Decision) {
	s.t.Helper()
	required, _, _ := RequiredFeatures(s.svc)
	switch d.Action {
	case ActionProvision:
		if len(d.Refusals) > 0 {
			s.fatalf("Decide provisions with refusals %v", d.Refusals)
		}
		for _, f := range d.Degraded {
			if !AsksFor(s.svc, f) || slices.Contains(required, f) {
				s.fatalf("Decide degrades %s, which the Service does not ask for or requires (P5, R1)", f)
			}
		}
	case ActionRefuse:
		if len(d.Refusals) == 0 || len(d.Degraded) > 0 {
			s.fatalf("Decide refuses with refusals %v and degradations %v", d.Refusals, d.Degraded)
		}
	case ActionIgnore:
		if len(d.Refusals) > 0 || len(d.Degraded) > 0 {
			s.fatalf("Decide ignores with refusals %v and degradations %v", d.Refusals, d.Degraded)
		}
	default:
		s.fatalf("Decide returned action %q", d.Action)
	}
}

// apply writes a successful transition's status, as the apiserver stores
// it, and checks it; a failed call must have left the Service alone.
func (s *sequence) apply(what string, tr Transition[*v1.Service], err error) {
	s.t.Helper()
	s.history = append(s.history, what)
	if err != nil {
		s.history[len(s.history)-1] += " failed"
		return
	}
	prev := s.svc.DeepCopy()
	if changed := !apiequality.Semantic.DeepEqual(prev.Status, tr.Service.Status); changed != tr.Changed {
		s.fatalf("Changed = %v, but the status did%s change", tr.Changed, map[bool]string{true: "", false: " not"}[changed])
	}
	s.svc.Status = tr.Service.Status
	s.checkApply(tr)
	s.checkStatus()
	s.checkStep(prev)
	s.checkVerdict()
}

// checkApply checks that the apply configuration carries exactly the KEP
// conditions and the ingress of the status (G4).
func (s *sequence) checkApply(tr Transition[*v1.Service]) {
	s.t.Helper()
	if tr.Apply == nil {
		return
	}
	if ptr.Deref(tr.Apply.Name, "") != s.svc.Name || ptr.Deref(tr.Apply.Namespace, "") != s.svc.Namespace || tr.Apply.Status == nil {
		s.fatalf("the apply configuration names %v/%v or has no status", tr.Apply.Namespace, tr.Apply.Name)
	}
	var want []metav1.Condition
	for _, c := range tr.Service.Status.Conditions {
		if isKEPType(c.Type) {
			want = append(want, c)
		}
	}
	var got []metav1.Condition
	for _, c := range tr.Apply.Status.Conditions {
		got = append(got, metav1.Condition{
			Type: ptr.Deref(c.Type, ""), Status: ptr.Deref(c.Status, ""), Reason: ptr.Deref(c.Reason, ""), Message: ptr.Deref(c.Message, ""),
			ObservedGeneration: ptr.Deref(c.ObservedGeneration, 0), LastTransitionTime: ptr.Deref(c.LastTransitionTime, metav1.Time{}),
		})
	}
	if !apiequality.Semantic.DeepEqual(want, got) {
		s.fatalf("the apply configuration's conditions %+v are not the status's KEP conditions %+v", got, want)
	}
	n := 0
	if lb := tr.Apply.Status.LoadBalancer; lb != nil {
		n = len(lb.Ingress)
		for i, in := range lb.Ingress {
			if i >= len(tr.Service.Status.LoadBalancer.Ingress) || ptr.Deref(in.IP, "") != tr.Service.Status.LoadBalancer.Ingress[i].IP ||
				ptr.Deref(in.Hostname, "") != tr.Service.Status.LoadBalancer.Ingress[i].Hostname {
				s.fatalf("the apply configuration's ingress %d differs from the status's", i)
			}
		}
	}
	if n != len(tr.Service.Status.LoadBalancer.Ingress) {
		s.fatalf("the apply configuration has %d ingress points, the status %d", n, len(tr.Service.Status.LoadBalancer.Ingress))
	}
}

// checkStatus checks what holds of every status the transitions write.
func (s *sequence) checkStatus() {
	s.t.Helper()
	conds := s.svc.Status.Conditions
	if errs := validation.ValidateServiceStatusUpdate(s.svc, nil, seqGateOn); len(errs) > 0 {
		s.fatalf("the status fails validation (C1, C3, C5): %v", errs)
	}
	if c := Get(conds, s.foreign.Type); c == nil || !apiequality.Semantic.DeepEqual(*c, s.foreign) {
		s.fatalf("another controller's condition changed: %+v", c)
	}
	if Get(conds, v1.LoadBalancerConditionPortsError) != nil {
		s.fatalf("LoadBalancerPortsError was written (C4)")
	}
	serving, provisioning, degraded := Get(conds, v1.LoadBalancerConditionServing), Get(conds, v1.LoadBalancerConditionProvisioning), Get(conds, v1.LoadBalancerConditionDegraded)
	if (serving == nil) != (provisioning == nil) {
		s.fatalf("Serving and Provisioning are not written together (L1)")
	}
	for _, c := range conds {
		if isKEPType(c.Type) && c.LastTransitionTime.Nanosecond() != 0 {
			s.fatalf("%s's lastTransitionTime %v is not in whole seconds (G5)", c.Type, c.LastTransitionTime)
		}
	}
	if serving == nil {
		if degraded != nil {
			s.fatalf("Degraded without Serving (C2)")
		}
		return
	}
	for _, c := range []*metav1.Condition{serving, provisioning} {
		if c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse {
			s.fatalf("%s is %s (C1)", c.Type, c.Status)
		}
	}
	if serving.Status == metav1.ConditionTrue && len(s.svc.Status.LoadBalancer.Ingress) == 0 {
		s.fatalf("Serving is True without an ingress (L4)")
	}
	if serving.Status == metav1.ConditionFalse {
		switch v1.LoadBalancerConditionReason(serving.Reason) {
		case v1.LoadBalancerReasonProvisioning:
			if provisioning.Status != metav1.ConditionTrue {
				s.fatalf("Serving=False/Provisioning with Provisioning=False (L5)")
			}
		case v1.LoadBalancerReasonUnsupported, v1.LoadBalancerReasonInfrastructure:
			if provisioning.Status != metav1.ConditionFalse {
				s.fatalf("Serving=False/%s with Provisioning=True (L5)", serving.Reason)
			}
		default:
			s.fatalf("Serving=False with reason %q (C3)", serving.Reason)
		}
	}
	if degraded == nil {
		return
	}
	if degraded.Status != metav1.ConditionTrue || serving.Status != metav1.ConditionTrue {
		s.fatalf("Degraded=%s with Serving=%s (C2)", degraded.Status, serving.Status)
	}
	reasons := DegradedReasons(conds)
	if degraded.Reason == string(v1.LoadBalancerReasonMultiple) {
		list := make([]string, len(reasons))
		for i, r := range reasons {
			list[i] = string(r)
		}
		if len(reasons) < 2 || !strings.HasPrefix(degraded.Message, strings.Join(list, ",")+":") {
			s.fatalf("Multiple does not start its message with its sorted reasons (G2): %q", degraded.Message)
		}
	} else if len(reasons) != 1 {
		s.fatalf("Degraded=%s names %v", degraded.Reason, reasons)
	}
	required, _, _ := RequiredFeatures(s.svc)
	for _, r := range reasons {
		f, ok := v1.DegradedFeature(r)
		switch {
		case !ok:
			s.fatalf("Degraded names reason %s of no feature (C3)", r)
		case !AsksFor(s.svc, f):
			s.fatalf("Degraded names %s, which the Service does not ask for (P5)", f)
		case slices.Contains(required, f):
			s.fatalf("Degraded names %s, which the Service requires, while serving (P6)", f)
		}
	}
}

// checkStep checks a write against the status before it.
func (s *sequence) checkStep(prev *v1.Service) {
	s.t.Helper()
	var floor metav1.Time
	for _, c := range prev.Status.Conditions {
		if isKEPType(c.Type) && c.LastTransitionTime.After(floor.Time) {
			floor = c.LastTransitionTime
		}
	}
	for _, c := range s.svc.Status.Conditions {
		if !isKEPType(c.Type) {
			continue
		}
		old := Get(prev.Status.Conditions, c.Type)
		switch {
		case old == nil:
			if !floor.IsZero() && c.LastTransitionTime.Before(&floor) {
				s.fatalf("%s appeared with lastTransitionTime %v, before the previous %v (C7)", c.Type, c.LastTransitionTime, floor)
			}
		case c.LastTransitionTime.Before(&old.LastTransitionTime):
			s.fatalf("%s's lastTransitionTime moved back from %v to %v (C7)", c.Type, old.LastTransitionTime, c.LastTransitionTime)
		case old.Status != c.Status && c.LastTransitionTime.Equal(&old.LastTransitionTime):
			s.fatalf("%s went %s -> %s with lastTransitionTime unchanged (C6)", c.Type, old.Status, c.Status)
		}
	}
}

// checkVerdict checks Evaluate against section 6, read in its order.
func (s *sequence) checkVerdict() {
	s.t.Helper()
	conds := s.svc.Status.Conditions
	serving, provisioning := Get(conds, v1.LoadBalancerConditionServing), Get(conds, v1.LoadBalancerConditionProvisioning)
	reason, hasReason := v1.DegradedReason(s.feature)
	want := ResultPending
	switch {
	case serving != nil && serving.Status == metav1.ConditionFalse && serving.Reason == string(v1.LoadBalancerReasonUnsupported),
		hasReason && slices.Contains(DegradedReasons(conds), reason):
		want = ResultSkip
	case serving != nil && serving.Status == metav1.ConditionFalse && serving.Reason == string(v1.LoadBalancerReasonInfrastructure) &&
		provisioning.Status == metav1.ConditionFalse:
		want = ResultFail
	case serving != nil && serving.Status == metav1.ConditionTrue && provisioning.Status == metav1.ConditionFalse:
		want = ResultReady
	}
	if v := Evaluate(s.svc, s.feature); v.Result != want {
		s.fatalf("Evaluate(%q) = %v, want %s", s.feature, v, want)
	}
}

// lowLevel runs Set, Bump or Remove on the scratch list and checks their
// contracts.
func (s *sequence) lowLevel(op byte) {
	s.t.Helper()
	types := []string{
		string(v1.LoadBalancerConditionServing), string(v1.LoadBalancerConditionProvisioning),
		string(v1.LoadBalancerConditionDegraded), "example.com/Other", "example.com/New",
	}
	typ := types[int(s.in.next())%len(types)]
	before := slices.Clone(s.scratch)
	old := Get(before, typ)
	now := s.clk.now.Truncate(time.Second)
	switch op {
	case opSet:
		c := metav1.Condition{
			Type:    typ,
			Status:  []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}[s.in.next()%3],
			Reason:  []string{"Serving", "Provisioning", "Complete", "Unsupported", "Other", "PortsNotSupported"}[s.in.next()%6],
			Message: "set",
			// Ignored by Set: it owns lastTransitionTime.
			LastTransitionTime: metav1.NewTime(s.clk.now.Add(-time.Hour)),
		}
		opts := s.setOpts
		gen := s.in.next()
		if gen%2 == 1 {
			opts = append(slices.Clone(opts), WithObservedGeneration(int64(gen)))
		}
		changed := Set(&s.scratch, c, opts...)
		s.history = append(s.history, fmt.Sprintf("Set(%s=%s/%s)", typ, c.Status, c.Reason))
		got := Get(s.scratch, typ)
		if got == nil || got.Status != c.Status || got.Reason != c.Reason || got.Message != c.Message {
			s.fatalf("Set did not write %+v: %+v", c, got)
		}
		if gen%2 == 1 && got.ObservedGeneration != int64(gen) {
			s.fatalf("Set ignored the ObservedGeneration option: %d", got.ObservedGeneration)
		}
		if changed != !apiequality.Semantic.DeepEqual(before, s.scratch) {
			s.fatalf("Set reported changed=%v", changed)
		}
		switch {
		case old == nil:
			if len(s.scratch) != len(before)+1 || !got.LastTransitionTime.Equal(&metav1.Time{Time: now}) {
				s.fatalf("a new condition was not appended at the clock's second: %+v", got)
			}
		case old.Status == c.Status && !old.LastTransitionTime.IsZero():
			if !got.LastTransitionTime.Equal(&old.LastTransitionTime) {
				s.fatalf("Set kept the status but moved lastTransitionTime from %v to %v", old.LastTransitionTime, got.LastTransitionTime)
			}
		default:
			s.checkMoved(old, got, now)
		}
	case opBump:
		ok := Bump(&s.scratch, typ, s.setOpts...)
		s.history = append(s.history, fmt.Sprintf("Bump(%s)", typ))
		if ok != (old != nil) {
			s.fatalf("Bump reported %v for a condition that is %v", ok, old)
		}
		if old != nil {
			s.checkMoved(old, Get(s.scratch, typ), now)
		}
	case opRemove:
		ok := Remove(&s.scratch, typ)
		s.history = append(s.history, fmt.Sprintf("Remove(%s)", typ))
		if ok != (old != nil) || Get(s.scratch, typ) != nil {
			s.fatalf("Remove reported %v and left %+v", ok, Get(s.scratch, typ))
		}
	}
	for _, c := range before {
		if c.Type != typ && !apiequality.Semantic.DeepEqual(Get(s.scratch, c.Type), &c) {
			s.fatalf("changing %s changed %s", typ, c.Type)
		}
	}
}

// checkMoved checks a moved lastTransitionTime: the clock's second, but at
// least a second after the old value (C6, C7, G5).
func (s *sequence) checkMoved(old, got *metav1.Condition, now time.Time) {
	s.t.Helper()
	want := now
	if !old.LastTransitionTime.IsZero() {
		if floor := old.LastTransitionTime.Truncate(time.Second).Add(time.Second); want.Before(floor) {
			want = floor
		}
	}
	if !got.LastTransitionTime.Time.Equal(want) {
		s.fatalf("%s's lastTransitionTime moved from %v to %v, want %v", got.Type, old.LastTransitionTime, got.LastTransitionTime, want)
	}
}
