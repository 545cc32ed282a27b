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

	"k8s.io/utils/clock"
)

// Option configures a call of this package. An option that does not apply to
// a call is ignored, so one list of options can be shared by a provider's
// calls. Options are applied in order; the last one of a kind wins.
type Option interface {
	// apply returns o with the option applied. It takes and returns a value,
	// not a pointer, so that applying options does not make the caller's
	// options escape to the heap.
	apply(o options) options
}

// options is the result of applying a list of Option.
type options struct {
	clock              clock.PassiveClock
	observedGeneration int64
	hasGeneration      bool
	annotations        []string
	conditionsTimeout  time.Duration
	provisionTimeout   time.Duration
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
		if opt != nil {
			o = opt.apply(o)
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

func (c clockOption) apply(o options) options {
	if c.c == nil {
		o.clock = clock.RealClock{}
	} else {
		o.clock = c.c
	}
	return o
}

// ObservedGeneration is an Option for Set and Bump: the observedGeneration
// to write, normally the object's metadata.generation (G6). Without it, Set
// writes the condition's own ObservedGeneration and Bump leaves it alone.
// The provider transitions always use the Service's metadata.generation and
// ignore this option.
type ObservedGeneration int64

func (g ObservedGeneration) apply(o options) options {
	o.observedGeneration = int64(g)
	o.hasGeneration = true
	return o
}

// RelevantAnnotations is an Option for ChangedFields and SpecUpdated: the
// annotation keys a provider reads, whose changes are load-balancer-relevant
// like the spec fields of G3. Empty adds nothing.
type RelevantAnnotations []string

func (a RelevantAnnotations) apply(o options) options {
	o.annotations = a
	return o
}

// ConditionsTimeout is an Option for Wait: the first deadline of L8, how
// long after Wait starts a KEP-aware provider has to write its first
// conditions. Zero or negative selects DefaultConditionsTimeout.
type ConditionsTimeout time.Duration

func (d ConditionsTimeout) apply(o options) options {
	if d > 0 {
		o.conditionsTimeout = time.Duration(d)
	} else {
		o.conditionsTimeout = DefaultConditionsTimeout
	}
	return o
}

// ProvisionTimeout is an Option for Wait: the second deadline of L8, how
// long after Wait starts the verdict has to become final once the
// conditions have appeared. Zero or negative selects
// DefaultProvisionTimeout.
type ProvisionTimeout time.Duration

func (d ProvisionTimeout) apply(o options) options {
	if d > 0 {
		o.provisionTimeout = time.Duration(d)
	} else {
		o.provisionTimeout = DefaultProvisionTimeout
	}
	return o
}
