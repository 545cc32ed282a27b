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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
)

// Options come in one family per kind of call, so that an option that does
// not apply to a call does not compile:
//
//   - SetOption for Set and Bump: WithClock, WithObservedGeneration;
//   - TransitionOption for Reconcile and the provider transitions (Seen,
//     Succeeded, ...): WithClock, WithRelevantAnnotations,
//     WithFieldManager;
//   - ChangeOption for ChangedFields: WithRelevantAnnotations;
//   - WaitOption for Wait and WaitReleased: WithClock, WithConditionsTimeout,
//     WithProvisionTimeout, WithDeadlinesFromCreation, WithProgress,
//     WithSpecChange, WithSpecChangeFrom.
//
// Every option is made by a function; an option that belongs to several
// families (WithClock) returns a type that is a member of each. Options are
// applied in order, and the last one of a kind wins; a nil option is
// ignored. Each family is an interface with an unexported method, read
// with a type switch: a method call would make the options escape to the
// heap, and Set with options would allocate.

// SetOption is an option of Set and Bump: WithClock,
// WithObservedGeneration. A nil SetOption is ignored.
type SetOption interface{ setOption() }

// TransitionOption is an option of Reconcile and the provider
// transitions: WithClock, WithRelevantAnnotations, WithFieldManager. A nil
// TransitionOption is ignored.
type TransitionOption interface{ transitionOption() }

// ChangeOption is an option of ChangedFields: WithRelevantAnnotations. A
// nil ChangeOption is ignored.
type ChangeOption interface{ changeOption() }

// WaitOption is an option of Wait and WaitReleased: WithClock,
// WithConditionsTimeout, WithProvisionTimeout, WithDeadlinesFromCreation,
// WithProgress, WithSpecChange, WithSpecChangeFrom. A nil WaitOption is
// ignored.
type WaitOption interface{ waitOption() }

// ClockOption is the result of WithClock: a SetOption, a TransitionOption
// and a WaitOption.
type ClockOption struct{ c clock.PassiveClock }

// WithClock takes the current time from c instead of the real clock. Wait
// also runs its deadlines on c when c is a clock.Clock; with a
// clock.PassiveClock only, Wait's deadlines run on the real clock. A nil c
// selects the real clock.
func WithClock(c clock.PassiveClock) ClockOption { return ClockOption{c} }

// GenerationOption is the result of WithObservedGeneration, a SetOption.
type GenerationOption struct{ gen int64 }

// WithObservedGeneration makes Set and Bump write gen as the condition's
// observedGeneration, normally the object's metadata.generation (G6).
// Without it, Set writes the condition's own ObservedGeneration and Bump
// leaves it alone. The provider transitions always use the Service's
// metadata.generation and take no such option.
func WithObservedGeneration(gen int64) GenerationOption { return GenerationOption{gen} }

// AnnotationsOption is the result of WithRelevantAnnotations: a
// TransitionOption and a ChangeOption.
type AnnotationsOption struct{ keys []string }

// WithRelevantAnnotations names the annotation keys a provider reads, whose
// changes are load-balancer-relevant like the spec fields of G3 (L6). No
// keys add nothing.
func WithRelevantAnnotations(keys ...string) AnnotationsOption { return AnnotationsOption{keys} }

// FieldManagerOption is the result of WithFieldManager: a
// TransitionOption.
type FieldManagerOption struct{ manager string }

// WithFieldManager names the field manager the provider applies the status
// with, so that a cleanup writes only where that manager has applied to the
// status before (OwnsStatus). The cleanups are Reconcile's of an ignored
// Service, NotLoadBalancer, and SpecUpdated to a type that is not
// LoadBalancer. Without it, a provider that restarts (a nil acted) applies
// an empty status to every Service of another class that has conditions:
// it removes nothing, but it adds its manager to the Service's managed
// fields and makes a new resourceVersion of a Service that is not its own
// (P1). The other transitions write the provider's own state and do not
// read it. The Services must be read with their managed fields: an
// informer that strips them to save memory makes every cleanup look
// foreign, and conditions would stay on a Service that is no longer a
// LoadBalancer (L9). An empty manager is no option.
func WithFieldManager(manager string) FieldManagerOption { return FieldManagerOption{manager} }

// WaitTimeoutOption is the result of WithConditionsTimeout and
// WithProvisionTimeout, a WaitOption.
type WaitTimeoutOption struct {
	d         time.Duration
	provision bool
}

// WithConditionsTimeout sets the first deadline of L8: how long a KEP-aware
// provider has to write its first conditions. Zero or negative selects
// DefaultConditionsTimeout.
func WithConditionsTimeout(d time.Duration) WaitTimeoutOption { return WaitTimeoutOption{d: d} }

// WithProvisionTimeout sets the second deadline of L8: how long the verdict
// has to become final. Zero or negative selects DefaultProvisionTimeout.
func WithProvisionTimeout(d time.Duration) WaitTimeoutOption {
	return WaitTimeoutOption{d: d, provision: true}
}

// FromCreationOption is the result of WithDeadlinesFromCreation, a
// WaitOption.
type FromCreationOption struct{}

// WithDeadlinesFromCreation runs the deadlines of L8 from the Service's
// metadata.creationTimestamp, as L8 says, instead of from the start of
// Wait: a suite that created the Service a while ago does not give the
// provider extra time, and one that creates it after Wait starts gives the
// provider all of it. Until Wait has seen the Service, the deadlines run
// from its start; a creationTimestamp in the future (clock skew) leaves
// them there. A creationTimestamp is the apiserver's clock, read against
// Wait's: a client clock ahead of the apiserver's shortens the deadlines by
// the difference, so a suite whose nodes' clocks may drift by more than a
// few seconds leaves this option out. A Service seen of another type stops
// them: they run from the observation that shows it converted to
// LoadBalancer (L8's "or converting"; the API records no conversion time),
// however late that comes; ctx bounds a wait on a Service never converted.
// A deadline that has already passed when Wait first sees the Service
// judges that first observation: a Service created long ago without
// conditions fails at once, one with them is given what is left of the
// provisioning deadline.
func WithDeadlinesFromCreation() FromCreationOption { return FromCreationOption{} }

// ProgressOption is the result of WithProgress, a WaitOption.
type ProgressOption struct {
	f func(svc *corev1.Service, v Verdict)
}

// WithProgress makes Wait call f with every observation of the Service and
// its verdict, on Wait's goroutine, before Wait returns a final one. A suite
// logs its progress with it. A nil f does nothing.
func WithProgress(f func(svc *corev1.Service, v Verdict)) ProgressOption { return ProgressOption{f} }

func (ClockOption) setOption()               {}
func (ClockOption) transitionOption()        {}
func (ClockOption) waitOption()              {}
func (GenerationOption) setOption()          {}
func (AnnotationsOption) transitionOption()  {}
func (FieldManagerOption) transitionOption() {}
func (AnnotationsOption) changeOption()      {}
func (WaitTimeoutOption) waitOption()        {}
func (FromCreationOption) waitOption()       {}
func (ProgressOption) waitOption()           {}
func (SpecChangeOption) waitOption()         {}

// Defaults of the two deadlines of L8, used by Wait.
const (
	// DefaultConditionsTimeout is how long Wait waits for a KEP-aware
	// provider to write its first conditions: the e2e suites'
	// KubeProxyEndpointLagTimeout.
	DefaultConditionsTimeout = 30 * time.Second
	// DefaultProvisionTimeout is how long Wait waits for a final verdict:
	// the e2e suites' load-balancer create timeout.
	DefaultProvisionTimeout = 15 * time.Minute
)

// clockOf returns the clock chosen by a ClockOption, else the real clock.
func clockOf(c ClockOption) clock.PassiveClock {
	if c.c == nil {
		return clock.RealClock{}
	}
	return c.c
}

// transitionOptions is the result of applying a list of TransitionOption.
type transitionOptions struct {
	clock       clock.PassiveClock
	annotations []string
	manager     string
}

func makeTransitionOptions(opts []TransitionOption) transitionOptions {
	o := transitionOptions{clock: clock.RealClock{}}
	for _, opt := range opts {
		switch opt := opt.(type) {
		case ClockOption:
			o.clock = clockOf(opt)
		case AnnotationsOption:
			o.annotations = opt.keys
		case FieldManagerOption:
			if opt.manager != "" { // an empty one is no option
				o.manager = opt.manager
			}
		}
	}
	return o
}

// annotationsOf returns the keys of the last AnnotationsOption in opts.
func annotationsOf(opts []ChangeOption) []string {
	var keys []string
	for _, opt := range opts {
		if a, ok := opt.(AnnotationsOption); ok {
			keys = a.keys
		}
	}
	return keys
}

// SpecChangeOption is the result of WithSpecChange and
// WithSpecChangeFrom, a WaitOption.
type SpecChangeOption struct {
	before, old *corev1.Service
	annotations []string
}

// WithSpecChange makes Wait wait for the provider to acknowledge a change
// of a load-balancer-relevant field (G3) made after before was read: a
// verdict counts only once LoadBalancerProvisioning's lastTransitionTime
// differs from before's (L6), and is Pending until then. Without the
// option, a Wait that follows an update returns at once with the verdict
// the provider gave the old spec. before is the Service the update or patch
// returned (a spec write leaves the status as it was), or the one an Update
// was made with, whose resourceVersion lets no status write in between; not
// one read before a patch, which carries none: a status write in between,
// such as the end of a provisioning, would count as the acknowledgement.
// One without Provisioning makes any Provisioning count. A change
// of another field is never acknowledged, and the wait ends at the
// provisioning deadline. A before not of type LoadBalancer, as after a
// change of the type away from it, which the provider answers by
// releasing the load balancer (L9), not by a verdict, makes Wait fail at
// once with ErrNotLoadBalancer: wait for the release with WaitReleased, or
// use BeReleased of ext/gomega. The deadlines run from the start of the
// wait, the change being what the provider answers:
// WithDeadlinesFromCreation is ignored. A Service of the name with another uid than before's is
// ErrServiceDeleted. A nil before does nothing.
//
// The option has only the Service after the change, so it cannot tell a
// change that L6 does not cover (a label, a selector) from one it does;
// WithSpecChangeFrom can.
func WithSpecChange(before *corev1.Service) SpecChangeOption { return SpecChangeOption{before: before} }

// WithSpecChangeFrom is WithSpecChange(updated) that also knows old, the
// Service as it was before the change, so that Wait fails at once, with
// ErrNoSpecChange, when ChangedFields(old, updated, opts...) is empty: no
// provider has to acknowledge a change of no load-balancer-relevant field
// (G3, L6), and the wait would only end at the provisioning deadline.
// opts names the annotations the provider reads (WithRelevantAnnotations).
// old is a copy taken before the change was made (DeepCopy): the object
// that was changed and sent compares equal to updated. An updated not of
// type LoadBalancer fails with ErrNotLoadBalancer, as with WithSpecChange.
// A nil old is WithSpecChange(updated).
func WithSpecChangeFrom(old, updated *corev1.Service, opts ...ChangeOption) SpecChangeOption {
	return SpecChangeOption{before: updated, old: old, annotations: annotationsOf(opts)}
}

// waitOptions is the result of applying a list of WaitOption.
type waitOptions struct {
	clock             clock.PassiveClock
	conditionsTimeout time.Duration
	provisionTimeout  time.Duration
	fromCreation      bool
	progress          func(*corev1.Service, Verdict)
	before            *corev1.Service
	old               *corev1.Service // WithSpecChangeFrom's, nil else
	oldAnnotations    []string
	release           bool // WaitReleased's, set by no option
}

func makeWaitOptions(opts []WaitOption) waitOptions {
	o := waitOptions{
		clock:             clock.RealClock{},
		conditionsTimeout: DefaultConditionsTimeout,
		provisionTimeout:  DefaultProvisionTimeout,
	}
	for _, opt := range opts {
		switch opt := opt.(type) {
		case ClockOption:
			o.clock = clockOf(opt)
		case WaitTimeoutOption:
			d := opt.d
			if d <= 0 {
				d = DefaultConditionsTimeout
				if opt.provision {
					d = DefaultProvisionTimeout
				}
			}
			if opt.provision {
				o.provisionTimeout = d
			} else {
				o.conditionsTimeout = d
			}
		case FromCreationOption:
			o.fromCreation = true
		case ProgressOption:
			o.progress = opt.f
		case SpecChangeOption:
			o.before, o.old, o.oldAnnotations = opt.before, opt.old, opt.annotations
		}
	}
	if o.before != nil {
		o.fromCreation = false
	}
	return o
}
