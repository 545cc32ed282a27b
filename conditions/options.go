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
	"cmp"
	"time"

	"k8s.io/utils/clock"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Option configures a call of this package. An option that does not apply to
// a call is ignored, so one list of options can be shared by a provider's
// calls. Options are applied in order; the last one of a kind wins. The
// options are the named types and functions of this package; a nil Option
// is ignored.
type Option interface {
	// isOption marks the types of this package. Options are read with a
	// type switch rather than a method call so that passing them does not
	// make them escape to the heap: Set and Bump with options allocate
	// nothing when the clock is clock.RealClock or a pointer.
	isOption()
}

// options is the result of applying a list of Option.
type options struct {
	clock              clock.PassiveClock
	observedGeneration int64
	hasGeneration      bool
	annotations        []string
	conditionsTimeout  time.Duration
	provisionTimeout   time.Duration
	progress           Progress
}

// Defaults of the two deadlines of L8, used by Wait.
const (
	// DefaultConditionsTimeout is how long Wait waits for a KEP-aware
	// provider to write its first conditions: the e2e suites'
	// KubeProxyEndpointLagTimeout.
	DefaultConditionsTimeout = 30 * time.Second
	// DefaultProvisionTimeout is how long Wait waits, from its start, for a
	// final verdict: the e2e suites' load-balancer create timeout.
	DefaultProvisionTimeout = 15 * time.Minute
)

func makeOptions(opts []Option) options {
	o := options{
		clock:             clock.RealClock{},
		conditionsTimeout: DefaultConditionsTimeout,
		provisionTimeout:  DefaultProvisionTimeout,
	}
	for _, opt := range opts {
		switch opt := opt.(type) {
		case clockOption:
			o.clock = opt.c
			if o.clock == nil {
				o.clock = clock.RealClock{}
			}
		case ObservedGeneration:
			o.observedGeneration, o.hasGeneration = int64(opt), true
		case RelevantAnnotations:
			o.annotations = opt
		case ConditionsTimeout:
			o.conditionsTimeout = cmp.Or(max(time.Duration(opt), 0), DefaultConditionsTimeout)
		case ProvisionTimeout:
			o.provisionTimeout = cmp.Or(max(time.Duration(opt), 0), DefaultProvisionTimeout)
		case Progress:
			o.progress = opt
		}
	}
	return o
}

// WithClock returns an Option that takes the current time from c instead of
// the real clock. Wait also uses c for its deadlines when c implements
// clock.Clock; with a clock.PassiveClock only, Wait's deadlines run on the
// real clock. A nil c selects the real clock.
func WithClock(c clock.PassiveClock) Option { return clockOption{c} }

type clockOption struct{ c clock.PassiveClock }

// ObservedGeneration is an Option for Set and Bump: the observedGeneration
// to write, normally the object's metadata.generation (G6). Without it, Set
// writes the condition's own ObservedGeneration and Bump leaves it alone.
// The provider transitions always use the Service's metadata.generation and
// ignore this option.
type ObservedGeneration int64

// RelevantAnnotations is an Option for ChangedFields and SpecUpdated: the
// annotation keys a provider reads, whose changes are load-balancer-relevant
// like the spec fields of G3. Empty adds nothing.
type RelevantAnnotations []string

// ConditionsTimeout is an Option for Wait: the first deadline of L8, how
// long after Wait starts a KEP-aware provider has to write its first
// conditions. Zero or negative selects DefaultConditionsTimeout.
type ConditionsTimeout time.Duration

// ProvisionTimeout is an Option for Wait: the second deadline of L8, how
// long after Wait starts the verdict has to become final once the
// conditions have appeared. Zero or negative selects
// DefaultProvisionTimeout.
type ProvisionTimeout time.Duration

// Progress is an Option for Wait: a function called with every observation
// of the Service and its verdict, on Wait's goroutine, before Wait returns
// a final one. A suite logs its progress with it. Nil does nothing.
type Progress func(svc *v1.Service, v Verdict)

func (clockOption) isOption()         {}
func (ObservedGeneration) isOption()  {}
func (RelevantAnnotations) isOption() {}
func (ConditionsTimeout) isOption()   {}
func (ProvisionTimeout) isOption()    {}
func (Progress) isOption()            {}
