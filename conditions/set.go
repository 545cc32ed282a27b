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
	if conds == nil {
		return false
	}
	o := makeOptions(opts)
	if o.hasGeneration {
		c.ObservedGeneration = o.observedGeneration
	}
	return set(conds, c, o.clock)
}

// set is Set after the options are applied; conds is not nil.
func set(conds *[]metav1.Condition, c metav1.Condition, clk clock.PassiveClock) bool {
	for i := range *conds {
		existing := &(*conds)[i]
		if existing.Type != c.Type {
			continue
		}
		changed := false
		if existing.Status != c.Status || existing.LastTransitionTime.IsZero() {
			existing.Status = c.Status
			existing.LastTransitionTime = nextTransitionTime(existing.LastTransitionTime, clk.Now())
			changed = true
		}
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
	c.LastTransitionTime = nextTransitionTime(metav1.Time{}, clk.Now())
	*conds = append(*conds, c)
	return true
}

// nextTransitionTime returns the lastTransitionTime that follows prev at
// time now: now truncated to whole seconds, but never earlier than one
// second after prev (C7, G5). A zero prev has no lower bound.
func nextTransitionTime(prev metav1.Time, now time.Time) metav1.Time {
	// Truncate also drops the monotonic reading, which the wire does not
	// carry either.
	next := now.Truncate(time.Second)
	if !prev.IsZero() {
		if floor := prev.Truncate(time.Second).Add(time.Second); next.Before(floor) {
			next = floor
		}
	}
	return metav1.Time{Time: next}
}

// fixedClock is a clock.PassiveClock stopped at one instant: a provider
// transition reads the real clock once and writes every condition with
// that time.
type fixedClock struct{ t time.Time }

func (f fixedClock) Now() time.Time                   { return f.t }
func (f fixedClock) Since(ts time.Time) time.Duration { return f.t.Sub(ts) }
