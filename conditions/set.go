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
// change (L6). WithObservedGeneration, when given, replaces
// c.ObservedGeneration (G6).
//
// A new condition is appended; when *conds has spare capacity, nothing is
// allocated.
func Set(conds *[]metav1.Condition, c metav1.Condition, opts ...SetOption) bool {
	if conds == nil {
		return false
	}
	clk, gen, hasGen := setOptions(opts)
	if hasGen {
		c.ObservedGeneration = gen
	}
	existing := Get(*conds, c.Type)
	if existing == nil {
		c.LastTransitionTime = nextTransitionTime(metav1.Time{}, clk.Now())
		*conds = append(*conds, c)
		return true
	}
	if existing.Status != c.Status || existing.LastTransitionTime.IsZero() {
		// A flip, or a condition stored without a time: the condition is
		// c's from now on.
		// Field by field: a whole-struct copy into the slice costs more
		// than the fields that change.
		existing.LastTransitionTime = nextTransitionTime(existing.LastTransitionTime, clk.Now())
		existing.Status, existing.Reason, existing.Message = c.Status, c.Reason, c.Message
		existing.ObservedGeneration = c.ObservedGeneration
		return true
	}
	changed := false
	if existing.Reason != c.Reason {
		existing.Reason, changed = c.Reason, true
	}
	if existing.Message != c.Message {
		existing.Message, changed = c.Message, true
	}
	if existing.ObservedGeneration != c.ObservedGeneration {
		existing.ObservedGeneration, changed = c.ObservedGeneration, true
	}
	return changed
}

// setOptions reads the options of Set and Bump. A type switch, unlike a
// method call, lets the options stay on the caller's stack.
func setOptions(opts []SetOption) (clk clock.PassiveClock, gen int64, hasGen bool) {
	clk = clock.RealClock{}
	for _, opt := range opts {
		switch opt := opt.(type) {
		case ClockOption:
			clk = clockOf(opt)
		case GenerationOption:
			gen, hasGen = opt.gen, true
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
