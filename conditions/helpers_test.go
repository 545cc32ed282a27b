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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// t0 has a sub-second part so that truncation to wire seconds shows.
var t0 = time.Date(2025, 3, 4, 5, 6, 7, 600_000_000, time.UTC)

func wire(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }

func cond(t v1.LoadBalancerConditionType, s metav1.ConditionStatus, r v1.LoadBalancerConditionReason) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, Reason: string(r), Message: "m"}
}

func TestGet_NilSafe(t *testing.T) {
	if Get(nil, v1.LoadBalancerConditionServing) != nil {
		t.Error("Get(nil) != nil")
	}
	if IsTrue(nil, "x") || IsFalse(nil, "x") || !IsUnknown(nil, "x") {
		t.Error("nil conditions must read as Unknown")
	}
	conds := []metav1.Condition{
		cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing),
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete),
		{Type: "Odd", Status: "Maybe"},
	}
	if c := Get(conds, v1.LoadBalancerConditionProvisioning); c != &conds[1] {
		t.Errorf("Get returned %p, want a pointer into the slice %p", c, &conds[1])
	}
	if !IsTrue(conds, v1.LoadBalancerConditionServing) || IsFalse(conds, v1.LoadBalancerConditionServing) || IsUnknown(conds, v1.LoadBalancerConditionServing) {
		t.Error("Serving should be True only")
	}
	if !IsFalse(conds, v1.LoadBalancerConditionProvisioning) || IsTrue(conds, v1.LoadBalancerConditionProvisioning) {
		t.Error("Provisioning should be False only")
	}
	if !IsUnknown(conds, "Odd") {
		t.Error("a status outside True/False must read as Unknown")
	}
}

func TestIsUnknown_C2_AbsentDegraded(t *testing.T) {
	conds := []metav1.Condition{cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)}
	if !IsUnknown(conds, v1.LoadBalancerConditionDegraded) {
		t.Error("absent Degraded must read as Unknown (C2)")
	}
}

func TestHasKEPConditions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  bool
	}{
		{"nil", nil, false},
		{"foreign only", []metav1.Condition{{Type: "Ready"}}, false},
		{"deprecated PortsError only", []metav1.Condition{{Type: string(v1.LoadBalancerConditionPortsError)}}, false},
		{"Degraded only", []metav1.Condition{{Type: string(v1.LoadBalancerConditionDegraded)}}, true},
		{"Serving", []metav1.Condition{{Type: "Ready"}, {Type: string(v1.LoadBalancerConditionServing)}}, true},
		{"Provisioning", []metav1.Condition{{Type: string(v1.LoadBalancerConditionProvisioning)}}, true},
	} {
		if got := HasKEPConditions(tc.conds); got != tc.want {
			t.Errorf("%s: HasKEPConditions = %v, want %v", tc.name, got, tc.want)
		}
		// Degraded alone is not what a provider writes first (L1).
		if got, want := Acknowledged(tc.conds), tc.want && tc.name != "Degraded only"; got != want {
			t.Errorf("%s: Acknowledged = %v, want %v", tc.name, got, want)
		}
	}
}

func TestSet_NilIsNoOp(t *testing.T) {
	if Set(nil, cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)) {
		t.Error("Set(nil) reported a change")
	}
}

func TestSet_NewConditionGetsClockTimeInWireSeconds(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	in := cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	in.LastTransitionTime = metav1.NewTime(t0.Add(-time.Hour)) // ignored: the helper owns it
	if !Set(&conds, in, WithClock(clk)) {
		t.Fatal("Set of a new condition reported no change")
	}
	if got := conds[0].LastTransitionTime; !got.Equal(&metav1.Time{Time: t0.Truncate(time.Second)}) {
		t.Errorf("lastTransitionTime = %v, want %v", got, t0.Truncate(time.Second))
	}
	if conds[0].LastTransitionTime.Nanosecond() != 0 {
		t.Error("lastTransitionTime has sub-second precision the wire does not carry")
	}
}

func TestSet_C6_StatusChangeMovesTransitionTime(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning), WithClock(clk))
	clk.SetTime(t0.Add(10 * time.Second))
	if !Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing), WithClock(clk)) {
		t.Fatal("status flip reported no change")
	}
	if want := wire(t0.Add(10 * time.Second)); !conds[0].LastTransitionTime.Equal(&want) {
		t.Errorf("lastTransitionTime = %v, want %v", conds[0].LastTransitionTime, want)
	}
}

func TestSet_SameStatusKeepsTransitionTime(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing), WithClock(clk))
	before := conds[0].LastTransitionTime
	clk.SetTime(t0.Add(time.Minute))
	c := cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	c.Message = "new message"
	if !Set(&conds, c, WithClock(clk)) {
		t.Error("a message change reported no change")
	}
	if !conds[0].LastTransitionTime.Equal(&before) || conds[0].Message != "new message" {
		t.Errorf("got %+v, want message updated and lastTransitionTime kept at %v", conds[0], before)
	}
	if Set(&conds, c, WithClock(clk)) {
		t.Error("setting an identical condition reported a change")
	}
}

func TestSet_C7_NeverBackwards(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning), WithClock(clk))
	before := conds[0].LastTransitionTime
	clk.SetTime(t0.Add(-time.Hour)) // the clock jumps back
	Set(&conds, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete), WithClock(clk))
	after := conds[0].LastTransitionTime
	if !after.After(before.Time) {
		t.Errorf("lastTransitionTime went from %v to %v: must move forward on a flip even with a clock behind (C6, C7)", before, after)
	}
}

func TestSet_G5_FlipWithinSameSecondStillShows(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning), WithClock(clk))
	clk.SetTime(t0.Add(200 * time.Millisecond)) // same wire second
	Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing), WithClock(clk))
	if want := wire(t0.Add(time.Second)); !conds[0].LastTransitionTime.Equal(&want) {
		t.Errorf("lastTransitionTime = %v, want %v (one wire second later)", conds[0].LastTransitionTime, want)
	}
}

func TestSet_G6_ObservedGeneration(t *testing.T) {
	var conds []metav1.Condition
	c := cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	c.ObservedGeneration = 3
	Set(&conds, c)
	if conds[0].ObservedGeneration != 3 {
		t.Errorf("observedGeneration = %d, want the condition's own 3", conds[0].ObservedGeneration)
	}
	if !Set(&conds, c, WithObservedGeneration(7)) {
		t.Error("a generation change reported no change")
	}
	if conds[0].ObservedGeneration != 7 {
		t.Errorf("observedGeneration = %d, want 7 from the option", conds[0].ObservedGeneration)
	}
}

func TestSet_C5_FillsMissingTransitionTime(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	conds := []metav1.Condition{cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)}
	conds[0].Message = "m"
	if !Set(&conds, conds[0], WithClock(clk)) {
		t.Error("filling a missing lastTransitionTime reported no change")
	}
	if conds[0].LastTransitionTime.IsZero() {
		t.Error("lastTransitionTime still zero (C5)")
	}
}

func TestSet_NoAllocationWhenSliceHasRoom(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	conds := make([]metav1.Condition, 0, 4)
	Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing), WithClock(clk))
	Set(&conds, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete), WithClock(clk))
	status := metav1.ConditionTrue
	allocs := testing.AllocsPerRun(100, func() {
		conds = conds[:2]
		Set(&conds, cond(v1.LoadBalancerConditionDegraded, status, v1.LoadBalancerReasonPortsNotSupported), WithClock(clk), WithObservedGeneration(1000))
		Set(&conds, cond(v1.LoadBalancerConditionServing, status, v1.LoadBalancerReasonServing), WithClock(clk), WithObservedGeneration(1000))
		Bump(&conds, v1.LoadBalancerConditionServing, WithClock(clk), WithObservedGeneration(1001))
		Set(&conds, cond(v1.LoadBalancerConditionProvisioning, status, v1.LoadBalancerReasonComplete))
		if status == metav1.ConditionTrue {
			status = metav1.ConditionFalse
		} else {
			status = metav1.ConditionTrue
		}
	})
	if allocs != 0 {
		t.Errorf("Set and Bump allocated %v times per run, want 0", allocs)
	}
}

func TestRemove(t *testing.T) {
	if Remove(nil, "x") {
		t.Error("Remove(nil) reported a removal")
	}
	conds := []metav1.Condition{{Type: "A"}, {Type: "B"}, {Type: "C"}}
	if !Remove(&conds, "B") {
		t.Error("Remove of a present condition reported false")
	}
	if len(conds) != 2 || conds[0].Type != "A" || conds[1].Type != "C" {
		t.Errorf("after Remove: %+v, want A, C in order", conds)
	}
	if Remove(&conds, "B") {
		t.Error("Remove of an absent condition reported true")
	}
}

func TestBump_L6_MovesWithoutStatusChange(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete), WithClock(clk))
	clk.SetTime(t0.Add(5 * time.Second))
	if !Bump(&conds, v1.LoadBalancerConditionProvisioning, WithClock(clk), WithObservedGeneration(2)) {
		t.Fatal("Bump of a present condition reported false")
	}
	if want := wire(t0.Add(5 * time.Second)); !conds[0].LastTransitionTime.Equal(&want) {
		t.Errorf("lastTransitionTime = %v, want %v", conds[0].LastTransitionTime, want)
	}
	if conds[0].Status != metav1.ConditionFalse || conds[0].ObservedGeneration != 2 {
		t.Errorf("Bump changed status or missed generation: %+v", conds[0])
	}
}

func TestBump_G5_WithinSameSecond(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete), WithClock(clk))
	before := conds[0].LastTransitionTime
	Bump(&conds, v1.LoadBalancerConditionProvisioning, WithClock(clk)) // same instant
	Bump(&conds, v1.LoadBalancerConditionProvisioning, WithClock(clk))
	if want := metav1.NewTime(before.Add(2 * time.Second)); !conds[0].LastTransitionTime.Equal(&want) {
		t.Errorf("two bumps in the same second: lastTransitionTime = %v, want %v", conds[0].LastTransitionTime, want)
	}
}

func TestBump_C7_ClockBehind(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete), WithClock(clk))
	before := conds[0].LastTransitionTime
	clk.SetTime(t0.Add(-24 * time.Hour))
	Bump(&conds, v1.LoadBalancerConditionProvisioning, WithClock(clk))
	if !conds[0].LastTransitionTime.After(before.Time) {
		t.Errorf("bump with the clock behind moved lastTransitionTime from %v to %v", before, conds[0].LastTransitionTime)
	}
}

func TestBump_AbsentOrNil(t *testing.T) {
	if Bump(nil, "x") {
		t.Error("Bump(nil) reported true")
	}
	var conds []metav1.Condition
	if Bump(&conds, v1.LoadBalancerConditionProvisioning) || len(conds) != 0 {
		t.Error("Bump created an absent condition")
	}
}

func TestNextTransitionTime(t *testing.T) {
	local := time.FixedZone("X", 3600)
	// One reading of the clock: two could straddle a second boundary.
	now := time.Now()
	for _, tc := range []struct {
		prev metav1.Time
		now  time.Time
		want time.Time
	}{
		{metav1.Time{}, t0, t0.Truncate(time.Second)},
		{metav1.Time{}, now, now.Round(0).Truncate(time.Second)},
		{wire(t0), t0, t0.Truncate(time.Second).Add(time.Second)},
		{wire(t0.Add(-time.Hour)), t0, t0.Truncate(time.Second)},
		{metav1.NewTime(t0.Add(time.Hour)), t0, t0.Add(time.Hour).Truncate(time.Second).Add(time.Second)},
		{metav1.Time{}, time.Date(1969, 12, 31, 23, 59, 59, 500, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)},
		{metav1.Time{}, t0.In(local), t0.Truncate(time.Second).In(local)},
	} {
		got := nextTransitionTime(tc.prev, tc.now)
		if !got.Time.Equal(tc.want) || got.Location() != tc.now.Location() || got.Nanosecond() != 0 {
			t.Errorf("nextTransitionTime(%v, %v) = %v, want %v in %v", tc.prev, tc.now, got, tc.want, tc.now.Location())
		}
	}
}

// With the default clock, Set and Bump write the current wall time in
// whole seconds, in the local zone as time.Now gives it.
func TestSet_RealClockWritesWallSeconds(t *testing.T) {
	before := time.Now().Unix()
	var conds []metav1.Condition
	Set(&conds, metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "R"})
	got := conds[0].LastTransitionTime
	if got.Unix() < before || got.Unix() > time.Now().Unix() || got.Nanosecond() != 0 || got.Location() != time.Local {
		t.Errorf("lastTransitionTime = %v (%v), want the wall clock in whole seconds, local", got, got.Location())
	}
	prev := got.Unix()
	before = time.Now().Unix()
	if !Bump(&conds, "A") {
		t.Fatal("Bump reported false")
	}
	after := time.Now().Unix()
	if got := conds[0].LastTransitionTime.Unix(); got < max(prev+1, before) || got > max(prev+1, after) {
		t.Errorf("Bump moved lastTransitionTime from %d to %d, want the next second or now", prev, got)
	}
}

// Set with the same status and another reason writes the new reason (a
// Serving=False/Provisioning left beside Provisioning=False breaks L5).
func TestSet_SameStatusNewReason(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(t0)
	var conds []metav1.Condition
	Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning), WithClock(clk))
	before := conds[0].LastTransitionTime
	clk.SetTime(t0.Add(time.Minute))
	// The caller writes the status only when Set reports a change: a
	// reason change that went unreported would never reach the apiserver.
	if !Set(&conds, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure), WithClock(clk)) {
		t.Error("a reason change reported no change")
	}
	if conds[0].Reason != string(v1.LoadBalancerReasonInfrastructure) {
		t.Errorf("reason %s, want Infrastructure", conds[0].Reason)
	}
	if !conds[0].LastTransitionTime.Equal(&before) {
		t.Errorf("lastTransitionTime moved from %v to %v on a reason change without a status change", before, conds[0].LastTransitionTime)
	}
}
