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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
)

// Set writes c into *conds, keyed by c.Type, and reports whether anything
// changed. A nil conds is a no-op that reports false.
//
// Unlike meta.SetStatusCondition, Set owns lastTransitionTime:
// c.LastTransitionTime is ignored. A new condition, or one whose status
// changes, gets the current time of the clock (WithClock), truncated to
// whole seconds and at least one second after the previous value, so that
// it never moves backwards (C7) and every change is visible on the wire
// (G5). An existing condition whose status stays keeps its
// lastTransitionTime (unless it had none), and gets c's reason, message and
// observedGeneration; use Bump to move lastTransitionTime without a status
// change (L6). ObservedGeneration, when given, replaces
// c.ObservedGeneration (G6).
//
// A new condition is appended; when *conds has spare capacity, nothing is
// allocated.
func Set(conds *[]metav1.Condition, c metav1.Condition, opts ...Option) bool {
	return set(conds, &c, &opts)
}

// set is Set on a pointer to its (copied) condition and options: Set
// inlines to this call. opts is needed only on the paths that read the
// clock; held through a pointer, it stays in memory rather than being saved
// and restored around each string comparison of the common path.
func set(conds *[]metav1.Condition, c *metav1.Condition, opts *[]Option) bool {
	if conds == nil {
		return false
	}
	if len(*opts) > 0 {
		if _, gen, ok := clockAndGeneration(*opts); ok {
			c.ObservedGeneration = gen
		}
	}
	existing := Get(*conds, c.Type)
	if existing == nil {
		*conds = append(*conds, *c)
		added := &(*conds)[len(*conds)-1]
		added.LastTransitionTime = transitionTime(metav1.Time{}, *opts)
		return true
	}
	if existing.Status != c.Status || existing.LastTransitionTime.IsZero() {
		// A flip, or a condition stored without a time: the condition is
		// c's from now on.
		existing.Status, existing.Reason, existing.Message = c.Status, c.Reason, c.Message
		existing.ObservedGeneration = c.ObservedGeneration
		existing.LastTransitionTime = transitionTime(existing.LastTransitionTime, *opts)
		return true
	}
	changed := false
	if existing.Reason != c.Reason {
		existing.Reason = c.Reason
		changed = true
	}
	if existing.Message != c.Message {
		existing.Message = c.Message
		changed = true
	}
	if existing.ObservedGeneration != c.ObservedGeneration {
		existing.ObservedGeneration = c.ObservedGeneration
		changed = true
	}
	return changed
}

// transitionTime returns the lastTransitionTime that follows prev by the
// clock of opts. The real clock, the default, is read with wallSeconds:
// the wire keeps whole seconds of wall time, so nothing else of the clock
// is needed.
func transitionTime(prev metav1.Time, opts []Option) metav1.Time {
	clk, _, _ := clockAndGeneration(opts)
	if _, ok := clk.(clock.RealClock); ok {
		return nextTransitionTime(prev, time.Unix(wallSeconds(), 0))
	}
	return nextTransitionTime(prev, clk.Now())
}

// clockAndGeneration reads the options of Set and Bump. They are read here
// rather than with makeOptions: with a clock that only flows to a Now call
// through this small result, passing options allocates nothing.
func clockAndGeneration(opts []Option) (clk clock.PassiveClock, gen int64, hasGen bool) {
	clk = clock.RealClock{}
	for _, opt := range opts {
		switch opt := opt.(type) {
		case clockOption:
			if opt.c != nil {
				clk = opt.c
			}
		case ObservedGeneration:
			gen, hasGen = int64(opt), true
		}
	}
	return clk, gen, hasGen
}

// nextTransitionTime returns the lastTransitionTime that follows prev at
// time now: now truncated to whole seconds, but never earlier than one
// second after prev (C7, G5). A zero prev has no lower bound. The result
// keeps now's location and has no monotonic clock reading, which the wire
// does not carry either.
func nextTransitionTime(prev metav1.Time, now time.Time) metav1.Time {
	sec := now.Unix()
	if !prev.IsZero() {
		// Unix rounds towards negative infinity: whole seconds.
		if floor := prev.Unix() + 1; sec < floor {
			sec = floor
		}
	}
	return metav1.Time{Time: time.Unix(sec, 0).In(now.Location())}
}

// fixedClock is a clock.PassiveClock stopped at one instant: a provider
// transition reads the real clock once and writes every condition with
// that time.
type fixedClock struct{ t time.Time }

func (f fixedClock) Now() time.Time                   { return f.t }
func (f fixedClock) Since(ts time.Time) time.Duration { return f.t.Sub(ts) }
