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
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/validation"
)

// Option configures a Checker.
type Option interface {
	applyChecker(*checkerOptions)
}

type checkerOptions struct {
	classes             []string
	requireConditions   bool
	relevantAnnotations []string
	live                bool
}

// Classes is an Option: the spec.loadBalancerClass values the provider
// under test handles. It turns on P1: KEP-4631 conditions on a Service of
// any other non-empty class are a violation, and nothing else is checked on
// such a Service. Services without a class are always checked. Empty (the
// default) turns P1 off: every Service is checked.
type Classes []string

func (c Classes) applyChecker(o *checkerOptions) { o.classes = slices.Clone(c) }

// Foreign reports whether svc is of a class other than those c names: a
// Service P1 leaves to another provider. With no classes, none is.
func (c Classes) Foreign(svc *v1.Service) bool {
	class := svc.Spec.LoadBalancerClass
	return len(c) > 0 && class != nil && *class != "" && !slices.Contains(c, *class)
}

// RequireConditions is an Option: when true, a LoadBalancer Service that
// has neither LoadBalancerServing nor LoadBalancerProvisioning at the end of
// its trace is a violation (R3)
// instead of a notice, for suites that demand a KEP-aware provider.
type RequireConditions bool

func (r RequireConditions) applyChecker(o *checkerOptions) { o.requireConditions = bool(r) }

// RelevantAnnotations is an Option: annotation keys the provider under
// test reads, whose changes are load-balancer-relevant like the spec fields
// of G3 and so owe an acknowledgement (L6). Empty adds nothing.
type RelevantAnnotations []string

func (a RelevantAnnotations) applyChecker(o *checkerOptions) {
	o.relevantAnnotations = slices.Clone(a)
}

// OptionError is an entry of a checker Option that no Service can have: a
// check given it would pass, judging no Service by it.
type OptionError struct {
	// Option is the Option's type: "Classes" or "RelevantAnnotations".
	Option string
	// Value is the entry, as given.
	Value string
	// Detail says what is wrong with it.
	Detail string
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %q: %s", e.Option, e.Value, e.Detail) }

// ValidateOptions returns an *OptionError naming the first entry of opts
// that no Service can have, which NewChecker takes as given: a Classes
// entry the apiserver would refuse as a spec.loadBalancerClass (an empty
// one names the Services without a class, and is fine), a
// RelevantAnnotations entry that is not an annotation key (checked
// lower-cased, as apimachinery's ValidateAnnotations checks keys). It
// returns nil for no options, nil ones and the other options.
func ValidateOptions(opts ...Option) error {
	for _, o := range opts {
		switch o := o.(type) {
		case Classes:
			for _, class := range o {
				if class == "" {
					continue
				}
				if errs := utilvalidation.IsQualifiedName(class); len(errs) > 0 {
					return &OptionError{"Classes", class, "not a loadBalancerClass the apiserver accepts: " + strings.Join(errs, "; ")}
				}
			}
		case RelevantAnnotations:
			for _, key := range o {
				if errs := utilvalidation.IsQualifiedName(strings.ToLower(key)); len(errs) > 0 {
					return &OptionError{"RelevantAnnotations", key, "not an annotation key: " + strings.Join(errs, "; ")}
				}
			}
		}
	}
	return nil
}

// Live is an Option: the observations come from a live watch, so what
// Finish reports as owed is owed when the watch stopped (an L6 warning
// says "the watch stopped before ..."), not at the end of an input.
type Live bool

func (l Live) applyChecker(o *checkerOptions) { o.live = bool(l) }

// Checker checks Service observations against the specification, one at a
// time. Each observation is checked alone (snapshot rules), and against the
// previous observation of the same namespace/name (trace rules). The
// Checker keeps a small state per Service, never whole objects, so its
// memory grows with the number of distinct Services, not with the number
// of observations.
//
// A Checker is not safe for concurrent use.
type Checker struct {
	opts       checkerOptions
	validation validation.Options
	seed       maphash.Seed
	// services locates each Service's state in states.
	services map[serviceKey]int32
	states   stateSlab
	// noMemo turns off the memos of clean validation results; for tests
	// that prove the memos change nothing.
	noMemo bool
	// cleanConds holds the contents (see condStates) of KEP-4631
	// conditions that passed validation: one with the same content passes
	// again, at any generation that bounds its observedGeneration.
	cleanConds map[uint64]struct{}
	// verdictMsgs holds the messages of the verdict notices by the hash of
	// their verdict (serviceState.verdict): the Services share a few
	// verdicts, and each message is built once, not at every change.
	verdictMsgs map[uint64]string
	// scratch is encodeG3's buffer, hash the hashes' one, ratchet
	// validateUnknown's old Service.
	scratch []byte
	ratchet v1.Service
	// g3 is decodeG3's Service.
	g3   g3Old
	hash hasher
	seen int
	// repeated: the last observation was the one before it again.
	repeated bool
}

// NewChecker returns a Checker with the given options, taken as given:
// ValidateOptions reports an entry no Service can have. A nil option is
// ignored.
func NewChecker(opts ...Option) *Checker {
	c := &Checker{
		validation: validation.Options{FeatureGate: gateOn()},
		seed:       maphash.MakeSeed(),
		services:   map[serviceKey]int32{},
		cleanConds: map[uint64]struct{}{},
	}
	for _, o := range opts {
		if o != nil {
			o.applyChecker(&c.opts)
		}
	}
	return c
}

// gateOn is a feature gate with LoadBalancerStatusImprovements on: the
// checker validates as a server that serves the KEP would. It is never
// changed after it is made, so every Checker shares it: a gate costs some 50
// allocations (4 KiB), and the CLI makes a Checker per input.
var gateOn = sync.OnceValue(func() featuregate.FeatureGate {
	gate := features.NewFeatureGate()
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		// The gate was just made with this feature; setting it cannot fail.
		panic(err)
	}
	return &onGate{gate}
})

// onGate is a gate on which LoadBalancerStatusImprovements is on for
// good: it answers Enabled for it without featuregate's lookup and record
// of the query, which validation makes twice per observation. A pointer,
// which features.Enabled remembers as known to hold the feature.
type onGate struct {
	featuregate.MutableVersionedFeatureGate
}

func (g *onGate) Enabled(f featuregate.Feature) bool {
	return f == features.LoadBalancerStatusImprovements || g.MutableVersionedFeatureGate.Enabled(f)
}

// Repeated reports whether the last observation given was its Service's
// previous one again, which was not checked (see Observe): an object read,
// not another observation.
func (c *Checker) Repeated() bool { return c.repeated }

// Services returns how many Services the Checker holds state for: those
// observed and not yet forgotten (by Forget, a deletion or Finish).
func (c *Checker) Services() int { return len(c.services) }

// Seen returns how many distinct Services the Checker has observed since
// it was made, a Service deleted and created again counting twice.
func (c *Checker) Seen() int { return c.seen }

// Observe checks one observation of a Service and returns its findings, in
// a fixed order: API validation (R4, C1, C3, C5), the snapshot rules, the
// trace rules, then the verdict notice when the verdict changed. A nil svc
// gives nil, and so does the Service's last observation given again (the
// same uid, resourceVersion and content, as a restarted watch delivers
// it): each observation is checked once. svc is only read, and not kept.
func (c *Checker) Observe(svc *v1.Service) []Finding {
	return c.observe(svc, Position{}, false)
}

// ObserveCore is Observe for client-go's core/v1 Service, as an informer
// or a watch delivers it, with the same findings as Observe of
// v1.FromCore(svc) and without that copy. core/v1 has no
// spec.requiredLoadBalancerFeatures: required features come from the
// annotation (v1.RequiredFeaturesAnnotation). A nil svc gives nil. svc is
// only read, and not kept.
func (c *Checker) ObserveCore(svc *corev1.Service) []Finding {
	return c.observe(v1.FromCoreShallow(svc), Position{}, false)
}

// ObserveObject checks an object read by a Decoder. A Service is checked as
// by Observe, with obj.Position on every finding. An object of another kind
// gives one notice (RuleInput) saying it was skipped. A Service of a
// DELETED watch event ends that Service's trace: the findings owed at its
// end (see Finish) are returned, and a later Service of the same name starts
// a new trace. A Service of an ADDED watch event whose trace goes on (the
// same uid, not deleted) was listed again, as by a restarted kubectl get
// -w: unless it is the last observation again, it ends a gap (see Gap).
func (c *Checker) ObserveObject(obj Object) []Finding {
	if obj.Service == nil {
		var pos *Position
		if obj.Position != (Position{}) {
			p := obj.Position
			pos = &p
		}
		// The kind and apiVersion come from the input: a YAML block scalar
		// gives one a line break. Escaped, a message stays one line; cut
		// by input.Clip, as the resourceVersion, it and the kind the
		// finding names stay short whatever the input holds.
		kind := input.Clip(obj.Kind)
		msg := "skipped: the object has no kind"
		if kind != "" {
			msg = "skipped: a " + input.Escape(kind) + " is not a Service"
		}
		ref := obj.Ref
		ref.ResourceVersion = input.Clip(ref.ResourceVersion)
		ref.Kind = input.Clip(cmp.Or(ref.Kind, obj.Kind))
		if kind == "Service" && obj.APIVersion != "" { // another group's or version's, such as Knative's
			msg = "skipped: a Service of " + input.Escape(input.Clip(obj.APIVersion)) + " is not a core/v1 Service"
			if obj.APIVersion == "core/v1" {
				msg = "skipped: a core/v1 Service has apiVersion v1, not core/v1"
			}
			// Named as kubectl names another group's kind, so that it is
			// not counted as a Service.
			if group, _, ok := strings.Cut(obj.APIVersion, "/"); ok {
				ref.Kind = kind + "." + input.Clip(group)
			} else {
				ref.Kind = kind + " (" + input.Clip(obj.APIVersion) + ")"
			}
		}
		return []Finding{{Rule: RuleInput, Severity: SeverityNotice, Object: ref, Message: msg, Position: pos}}
	}
	if obj.Deleted {
		var pos *Position
		if obj.Position != (Position{}) {
			p := obj.Position
			pos = &p
		}
		return c.forget(serviceKey{obj.Service.Namespace, obj.Service.Name}, pos, endDeleted)
	}
	return c.observe(obj.Service, obj.Position, obj.Added)
}

// Forget ends the trace of the Service namespace/name, as its deletion
// would, and returns the findings owed at the end of a trace (see Finish).
// An unknown Service gives nil.
func (c *Checker) Forget(namespace, name string) []Finding {
	return c.forget(serviceKey{namespace, name}, nil, endDeleted)
}

// Leave ends the trace of the Service namespace/name, which still exists
// but no longer matches the selector of the input (a watch with a label
// selector reports it as deleted), and returns the findings owed at the
// end of a trace, worded so. An unknown Service gives nil.
func (c *Checker) Leave(namespace, name string) []Finding {
	return c.forget(serviceKey{namespace, name}, nil, endLeft)
}

// Gap notes that the Service namespace/name may have been written in ways
// not observed since its last observation, as when a watch lost its
// history and listed again (spec section 8, "Live watches"). Its next
// observation is still compared with the last as the next step of its
// trace (C6, C7, L6), but the provider's writes in between are not judged:
// that observation cannot show a first write of the conditions or a first
// provisioning, so L1's and L4's trace halves leave it alone. When it
// shows the provider's conditions or an ingress, the Service may have
// served in the gap, so no later write is a first provisioning either
// (L4). An unknown Service is ignored.
func (c *Checker) Gap(namespace, name string) {
	if i, ok := c.services[serviceKey{namespace, name}]; ok {
		c.states.at(i).gap = true
	}
}

// Finish ends the input: it returns the findings owed at the end of every
// trace, sorted by namespace and name, and forgets every Service, so that
// the Checker can be used again. At the end of a trace the checker reports
// a load-balancer-relevant spec change the provider never acknowledged (L6,
// warning) and a LoadBalancer Service still without KEP-4631 conditions
// (R3, notice; violation with RequireConditions).
func (c *Checker) Finish() []Finding {
	keys := make([]serviceKey, 0, len(c.services))
	for k := range c.services {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b serviceKey) int {
		if r := strings.Compare(a.namespace, b.namespace); r != 0 {
			return r
		}
		return strings.Compare(a.name, b.name)
	})
	ended := endInput
	if c.opts.live {
		ended = endWatch
	}
	var out []Finding
	for _, k := range keys {
		out = append(out, c.forget(k, nil, ended)...)
	}
	return out
}

// How a trace ends, as endOfTrace words it.
const (
	endInput     = "the input ended"
	endWatch     = "the watch stopped"
	endDeleted   = "the Service was deleted"
	endLeft      = "the Service stopped matching the selector"
	endRecreated = "the Service was deleted and created again (a new uid)"
)

// forget removes a Service's state and returns its end-of-trace findings.
// pos, when not nil, is where the trace ended; ended says how.
func (c *Checker) forget(k serviceKey, pos *Position, ended string) []Finding {
	i, ok := c.services[k]
	if !ok {
		return nil
	}
	out := c.endOfTrace(k, c.states.at(i), pos, ended)
	c.drop(k, i)
	return out
}

// drop removes the state of the Service k, found at states[i].
func (c *Checker) drop(k serviceKey, i int32) {
	delete(c.services, k)
	c.states.release(i)
}

// observe is Observe with the observation's position, the zero Position
// when unknown. relisted says a watch listed svc again (see ObserveObject).
func (c *Checker) observe(svc *v1.Service, at Position, relisted bool) []Finding {
	c.repeated = false
	if svc == nil {
		return nil
	}
	key := serviceKey{svc.Namespace, svc.Name}
	f := findings{ref: key.ref(input.Clip(svc.ResourceVersion)), at: at}

	if Classes(c.opts.classes).Foreign(svc) {
		// P1: not the provider's Service; its conditions, if any, are a
		// violation and nothing else is the provider's business. A trace
		// of the provider's under this name ends: with what it still owed
		// when a new Service (a new uid) took the name, or, when the
		// Service itself moved to another class, with the conditions the
		// provider wrote before the move, unchanged: the user's spec write
		// left them there, and the provider removes them next.
		v := scan(svc)
		leftover := false
		if i, ok := c.services[key]; ok {
			st := c.states.at(i)
			if st.uid != 0 && svc.UID != "" && st.uid != c.uidSum(svc) {
				f.list = append(f.list, c.endOfTrace(key, st, f.position(), endRecreated)...)
			} else {
				leftover = c.unchangedConditions(st, &v)
			}
			if leftover {
				// Kept until the provider's next write: a user's edit
				// before it leaves them leftovers still. The trace
				// itself has ended; nothing more is owed.
				*st = serviceState{uid: st.uid, rv: f.ref.ResourceVersion, rvSum: c.rvSum(svc.ResourceVersion), conds: st.conds, moved: true}
			} else {
				c.drop(key, i)
			}
		}
		c.checkForeignClass(&f, svc, &v, leftover)
		return f.list
	}

	var st *serviceState
	i, seen := c.services[key]
	if seen {
		st = c.states.at(i)
		switch {
		case st.moved:
			// Back in the provider's classes: a new trace, as when the
			// Service is first seen.
			*st = serviceState{}
			seen = false
		case st.uid != 0 && svc.UID != "" && st.uid != c.uidSum(svc):
			// Deleted and created again: a new Service, a new trace.
			f.list = append(f.list, c.endOfTrace(key, st, f.position(), endRecreated)...)
			*st = serviceState{}
			seen = false
		}
	} else {
		i, st = c.states.alloc()
		c.services[key.clone()] = i
	}
	if !seen {
		st.spec = string(c.encodeG3(svc))
		c.seen++
	}

	v := scan(svc)
	again := seen && c.sameVersion(st, svc)
	o := c.derive(st, seen, svc, &v)
	if again && !o.written && c.validationSum(svc, &v, &o) == st.validSum {
		// The last observation delivered again (a restarted kubectl get
		// -w writes the current state again): checked once (section 8).
		c.repeated = true
		return nil
	}
	if relisted && seen && st.uid != 0 && st.uid == c.uidSum(svc) {
		st.gap = true
	}
	c.validate(&f, st, svc, &v, &o)
	c.snapshot(&f, svc, &v, o.specAhead)
	c.trace(&f, st, seen, svc, &v, &o)
	if svc.Name == "" {
		// A manifest without a name (generateName): each is a Service of
		// its own, which no later object continues. Its trace ends here.
		f.list = append(f.list, c.forget(key, nil, endInput)...)
	}
	return f.list
}

// sameVersion reports whether svc has the uid and resourceVersion, both
// set, and the load-balancer-relevant spec of the last observation in st.
// With the same conditions, ingress and what validation reads, it is that
// observation again: nothing else the rules read can differ. Only then is
// the spec encoded a second time.
func (c *Checker) sameVersion(st *serviceState, svc *v1.Service) bool {
	rv := svc.ResourceVersion
	sameRV := rv == st.rv // kept whole
	if sum := c.rvSum(rv); sum != 0 {
		sameRV = sum == st.rvSum
	}
	return rv != "" && sameRV && st.uid != 0 && c.uidSum(svc) == st.uid && string(c.encodeG3(svc)) == st.spec
}

// rvSum hashes a resourceVersion longer than input.Clip keeps; 0 for one
// it keeps whole.
func (c *Checker) rvSum(rv string) uint64 {
	if len(rv) <= input.MaxTextBytes {
		return 0
	}
	return maphash.String(c.seed, rv) | 1
}

// isLoadBalancer reports whether svc is of type LoadBalancer.
func isLoadBalancer(svc *v1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// findings collects the findings of one observation.
type findings struct {
	ref  ObjectRef
	at   Position  // where the observation was read; zero when unknown
	pos  *Position // &at on the heap, made for the first finding
	list []Finding
}

// position returns the observation's position for a finding, nil when
// unknown. Most observations have no finding: the copy is made lazily.
func (f *findings) position() *Position {
	if f.pos == nil && f.at != (Position{}) {
		p := f.at
		f.pos = &p
	}
	return f.pos
}

func (f *findings) add(rule RuleID, sev Severity, field, msg string) *Finding {
	f.list = append(f.list, Finding{Rule: rule, Severity: sev, Object: f.ref, Field: field, Message: msg, Position: f.position()})
	return &f.list[len(f.list)-1]
}

// has reports whether a finding of rule on field was made.
func (f *findings) has(rule RuleID, field string) bool {
	for i := range f.list {
		if f.list[i].Rule == rule && f.list[i].Field == field {
			return true
		}
	}
	return false
}

// addVerdict adds the verdict notice of rule with message msg for v. It is
// the last finding of an observation, and usually the only one: then its
// list, its Verdict and, unless an earlier rule made it, its position are
// made in one allocation.
func (f *findings) addVerdict(rule RuleID, msg string, v conditions.Verdict) {
	if len(f.list) > 0 {
		f.add(rule, SeverityNotice, "status", msg).Verdict = newVerdict(v)
		return
	}
	n := &verdictNotice{verdict: Verdict{Result: v.Result, Rule: v.Rule, Reason: v.Reason}}
	if f.pos == nil && f.at != (Position{}) {
		n.pos = f.at
		f.pos = &n.pos
	}
	n.list[0] = Finding{Rule: rule, Severity: SeverityNotice, Object: f.ref, Field: "status", Message: msg, Position: f.pos, Verdict: &n.verdict}
	f.list = n.list[:]
}

// verdictNotice holds an observation's only finding, a verdict notice,
// with what it points to.
type verdictNotice struct {
	list    [1]Finding
	verdict Verdict
	pos     Position
}

// serviceKey identifies a Service across observations.
type serviceKey struct{ namespace, name string }

// clone returns k with its strings copied into one allocation, so that the
// key the Checker keeps holds no decoded object's strings and costs the
// garbage collector one object instead of two.
func (k serviceKey) clone() serviceKey {
	s := k.namespace + k.name
	return serviceKey{s[:len(k.namespace)], s[len(k.namespace):]}
}

// ref returns the ObjectRef of a Service known only by its key, with a
// resourceVersion the caller cut by input.Clip: every finding carries it,
// and a report keeps it, as it keeps a reason.
func (k serviceKey) ref(resourceVersion string) ObjectRef {
	return ObjectRef{Kind: "Service", Namespace: k.namespace, Name: k.name, ResourceVersion: resourceVersion}
}

// stateSlab holds the Checker's serviceStates in chunks: a state never
// moves, so a pointer to it stays valid; the garbage collector scans a chunk
// from end to end instead of visiting one object per Service, which keeps
// its work per Service flat as their number grows; and the slot of a
// forgotten Service is used again. The chunks grow from slabFirst states to
// slabChunk, so that a Checker of a few Services, as the CLI makes for each
// input, does not allocate room for a thousand.
type stateSlab struct {
	chunks [][]serviceState
	free   []int32
	used   int32 // slots ever handed out
}

const (
	slabFirst = 16
	slabChunk = 1024
	// slabGrowing is how many states the chunks before the first of
	// slabChunk hold: 16 + 32 + ... + 512.
	slabGrowing = slabChunk - slabFirst
)

// alloc returns a free slot, zeroed.
func (s *stateSlab) alloc() (int32, *serviceState) {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i, s.at(i)
	}
	i := s.used
	c, j := slot(i)
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]serviceState, chunkLen(c)))
	}
	s.used++
	return i, &s.chunks[c][j]
}

func (s *stateSlab) at(i int32) *serviceState {
	c, j := slot(i)
	return &s.chunks[c][j]
}

// growingChunks is how many chunks are smaller than slabChunk.
var growingChunks = bits.Len32(slabChunk/slabFirst) - 1

// chunkLen is how many states chunk c holds.
func chunkLen(c int) int {
	if c < growingChunks {
		return slabFirst << c
	}
	return slabChunk
}

// slot returns the chunk of slot i, and its index there.
func slot(i int32) (chunk int, j int32) {
	if i < slabGrowing {
		c := bits.Len32(uint32(i/slabFirst+1)) - 1
		return c, i - slabFirst*(1<<c-1)
	}
	i -= slabGrowing
	return growingChunks + int(i/slabChunk), i % slabChunk
}

// release zeroes slot i, dropping what it refers to, and frees it.
func (s *stateSlab) release(i int32) {
	*s.at(i) = serviceState{}
	s.free = append(s.free, i)
}
