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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// waitResult is what Wait returned.
type waitResult struct {
	svc     *corev1.Service
	verdict Verdict
	err     error
}

// startWait runs Wait in the background. Every observation is sent to the
// returned channel, so a test knows what Wait has seen before it moves the
// clock.
func startWait(t *testing.T, ctx context.Context, cs *fake.Clientset, feature v1.LoadBalancerFeature, opts ...WaitOption) (<-chan waitResult, <-chan Verdict) {
	t.Helper()
	observed := make(chan Verdict, 100)
	done := make(chan waitResult, 1)
	opts = append(opts, WithProgress(func(_ *corev1.Service, v Verdict) { observed <- v }))
	go func() {
		svc, v, err := Wait(ctx, cs.CoreV1().Services("default"), "web", feature, opts...)
		done <- waitResult{svc, v, err}
	}()
	return done, observed
}

func result(t *testing.T, done <-chan waitResult) waitResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("Wait did not return")
		return waitResult{}
	}
}

func nextObservation(t *testing.T, observed <-chan Verdict) Verdict {
	t.Helper()
	select {
	case v := <-observed:
		return v
	case <-time.After(20 * time.Second):
		t.Fatal("Wait observed nothing")
		return Verdict{}
	}
}

// provide plays a provider that writes a transition through server-side
// apply, as a real one would.
func provide(t *testing.T, cs *fake.Clientset) func(Transition[*v1.Service], error) *v1.Service {
	return func(tr Transition[*v1.Service], err error) *v1.Service {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cs.CoreV1().Services("default").ApplyStatus(context.Background(), tr.Apply, metav1.ApplyOptions{FieldManager: "lb-provider", Force: true})
		if err != nil {
			t.Fatalf("ApplyStatus: %v", err)
		}
		return v1.FromCore(out)
	}
}

// watching returns a function that waits until the fake clientset has
// served n watches of Services. The fake's watches do not replay what
// happened before they started, as the apiserver does from a
// resourceVersion, so a test changes the Service only once Wait watches.
func watching(t *testing.T, cs *fake.Clientset) func(n int32) {
	var served atomic.Int32
	cs.PrependWatchReactor("services", func(action k8stesting.Action) (bool, watch.Interface, error) {
		opts := action.(k8stesting.WatchActionImpl).ListOptions
		w, err := cs.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		served.Add(1)
		return true, w, err
	})
	return func(n int32) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for served.Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("Wait started %d watches, want %d", served.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

func coreService(mutate ...func(*v1.Service)) *corev1.Service {
	return v1.ToCore(lbService(mutate...))
}

func TestWait_T3_Ready(t *testing.T) {
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "")
	waitWatch(1)
	if v := nextObservation(t, observed); v.Result != ResultPending {
		t.Fatalf("first observation %v, want Pending", v)
	}
	svc := provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	provide(t, cs)(Succeeded(svc, ingress, nil))
	r := result(t, done)
	if r.err != nil || r.verdict.Result != ResultReady || r.verdict.Rule != "T3" {
		t.Fatalf("Wait = %v, %v; want Ready by T3", r.verdict, r.err)
	}
	if r.svc == nil || len(r.svc.Status.LoadBalancer.Ingress) == 0 {
		t.Error("Wait did not return the Service with its ingress")
	}
}

func TestWait_T1_SkipDegradedFeature(t *testing.T) {
	cs := fake.NewClientset(coreService(clientIP))
	waitWatch := watching(t, cs)
	done, _ := startWait(t, context.Background(), cs, v1.LoadBalancerFeatureSessionAffinity)
	waitWatch(1)
	provide(t, cs)(Succeeded(lbService(clientIP), ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
	if r := result(t, done); r.err != nil || r.verdict.Result != ResultSkip || r.verdict.Rule != "T1" {
		t.Fatalf("Wait = %v, %v; want Skip by T1", r.verdict, r.err)
	}
}

func TestWait_T2_Infrastructure(t *testing.T) {
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, _ := startWait(t, context.Background(), cs, "")
	waitWatch(1)
	provide(t, cs)(Failed(lbService(), v1.LoadBalancerReasonInfrastructure, "quota exceeded"))
	r := result(t, done)
	if r.verdict.Result != ResultFail || r.verdict.Rule != "T2" {
		t.Fatalf("Wait = %v, %v; want Fail by T2", r.verdict, r.err)
	}
	// Every Fail is an error that carries its verdict.
	var fe *FailError
	if !errors.As(r.err, &fe) || !errors.Is(r.err, ErrInfrastructure) || fe.Verdict != r.verdict || !strings.Contains(fe.Error(), "quota exceeded") {
		t.Fatalf("err = %v, want a *FailError wrapping ErrInfrastructure with the verdict", r.err)
	}
}

// WithDeadlinesFromCreation: a Service created 25 seconds before Wait
// starts has 5 seconds left of the default 30 for its conditions (L8).
func TestWait_L8_DeadlinesFromCreation(t *testing.T) {
	for _, fromCreation := range []bool{false, true} {
		t.Run(fmt.Sprint("fromCreation=", fromCreation), func(t *testing.T) {
			clk := testingclock.NewFakeClock(t0)
			cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(-25 * time.Second)) }))
			waitWatch := watching(t, cs)
			opts := []WaitOption{WithClock(clk)}
			if fromCreation {
				opts = append(opts, WithDeadlinesFromCreation())
			}
			done, observed := startWait(t, context.Background(), cs, "", opts...)
			waitWatch(1)
			nextObservation(t, observed)
			waitForTimers(t, clk, 2)
			// The step may come before or after Wait has read the
			// creation time; either way the deadline has passed.
			clk.Step(5 * time.Second)
			if fromCreation {
				r := result(t, done)
				var fe *FailError
				if !errors.Is(r.err, ErrNoKEPProvider) || !errors.As(r.err, &fe) || fe.Verdict.Result != ResultFail {
					t.Fatalf("Wait = %v, %v 30 s after the Service's creation; want Fail with ErrNoKEPProvider", r.verdict, r.err)
				}
				return
			}
			select {
			case r := <-done:
				t.Fatalf("Wait returned %v, %v 5 s after it started", r.verdict, r.err)
			case <-time.After(200 * time.Millisecond):
			}
		})
	}
}

// A Service created before its conditions deadline ends fails at once:
// no timer has to fire (L8).
func TestWait_L8_CreatedPastTheDeadline(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(-40 * time.Second)) }))
	// Wait may end on the list alone, before it starts a watch.
	done, _ := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	r := result(t, done)
	if !errors.Is(r.err, ErrNoKEPProvider) || r.verdict.Rule != "T2" {
		t.Fatalf("Wait = %v, %v; want Fail by T2 with ErrNoKEPProvider", r.verdict, r.err)
	}
	if !strings.Contains(r.verdict.Reason, "the service's creation") {
		t.Errorf("reason %q does not say the deadline ran from the creation", r.verdict.Reason)
	}
}

// A Service created before its conditions deadline ended that has its
// conditions is not failed for their absence (L8).
func TestWait_L8_CreatedLongAgoWithConditions(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(-40 * time.Second)) }))
	provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	if v := nextObservation(t, observed); v.Result != ResultPending {
		t.Fatalf("observation %v, want Pending while provisioning", v)
	}
	provide(t, cs)(Succeeded(lbService(), ingress, nil))
	if r := result(t, done); r.err != nil || r.verdict.Result != ResultReady {
		t.Fatalf("Wait = %v, %v; want Ready", r.verdict, r.err)
	}
}

// A Service that became Ready long ago, past both deadlines, is Ready: a
// passed deadline judges only a Service still pending (L8).
func TestWait_L8_ReadyLongAgo(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour)) }))
	provide(t, cs)(Succeeded(lbService(), ingress, nil))
	// Wait may end on the list alone, before it starts a watch.
	done, _ := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	if r := result(t, done); r.err != nil || r.verdict.Result != ResultReady {
		t.Fatalf("Wait = %v, %v; want Ready", r.verdict, r.err)
	}
}

// notDone fails the test when Wait has returned.
func notDone(t *testing.T, done <-chan waitResult, when string) {
	t.Helper()
	select {
	case r := <-done:
		t.Fatalf("Wait = %v, %v %s", r.verdict, r.err, when)
	case <-time.After(200 * time.Millisecond):
	}
}

// A Service created after Wait started has L8's whole 30 s from its
// creation, not what is left of them since the start.
func TestWait_L8_CreatedAfterTheStart(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset()
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	waitForTimers(t, clk, 2)
	clk.Step(20 * time.Second)
	created := coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(clk.Now()) })
	if _, err := cs.CoreV1().Services("default").Create(context.Background(), created, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nextObservation(t, observed) // the deadlines have moved before it is reported
	clk.Step(15 * time.Second)
	notDone(t, done, "15 s after the Service's creation")
	clk.Step(16 * time.Second)
	if r := result(t, done); !errors.Is(r.err, ErrNoKEPProvider) || !strings.Contains(r.verdict.Reason, "the service's creation") {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider 31 s after the creation", r.verdict, r.err)
	}
}

// A Service created long ago as ClusterIP and converted while Wait watches
// has L8's deadlines from the conversion, not from its creation.
func TestWait_L8_ConvertedDuringTheWait(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) {
		s.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour))
		s.Spec.Type = corev1.ServiceTypeClusterIP
	}))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	nextObservation(t, observed)
	notDone(t, done, "on a ClusterIP Service created an hour ago")
	// Not a LoadBalancer: no deadline runs, however long the conversion
	// takes.
	clk.Step(40 * time.Second)
	notDone(t, done, "40 s on a ClusterIP Service")
	clk.Step(DefaultProvisionTimeout)
	notDone(t, done, "past the provisioning deadline on a ClusterIP Service")
	converted, err := cs.CoreV1().Services("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	converted.Spec.Type = corev1.ServiceTypeLoadBalancer
	if _, err := cs.CoreV1().Services("default").Update(context.Background(), converted, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	nextObservation(t, observed)
	clk.Step(20 * time.Second)
	notDone(t, done, "20 s after the conversion")
	clk.Step(11 * time.Second)
	if r := result(t, done); !errors.Is(r.err, ErrNoKEPProvider) || !strings.Contains(r.verdict.Reason, "conversion") {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider 31 s after the conversion", r.verdict, r.err)
	}
}

// Without WithDeadlinesFromCreation the deadlines run from the start of
// the wait whatever the Service's type: a ClusterIP Service that nobody
// converts fails at the first deadline, as a LoadBalancer without a
// KEP-aware provider does.
func TestWait_L8_NotALoadBalancerFromTheStart(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP }))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk))
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	clk.Step(DefaultConditionsTimeout)
	r := result(t, done)
	if !errors.Is(r.err, ErrNoKEPProvider) || !strings.Contains(r.verdict.Reason, "within 30s of the start of the wait") {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider 30 s after the start", r.verdict, r.err)
	}
}

// A Service converted to ClusterIP (its conditions removed, L9) and back
// has L8's 30 s again from the conversion back: the conditions seen
// before were the old load balancer's.
func TestWait_L8_ConvertedBackWithoutProvider(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) {
		s.CreationTimestamp = metav1.NewTime(t0)
		s.Status.Conditions = []metav1.Condition{
			{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionTrue, Reason: string(v1.LoadBalancerReasonProvisioning), LastTransitionTime: metav1.NewTime(t0)},
			{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionFalse, Reason: string(v1.LoadBalancerReasonProvisioning), LastTransitionTime: metav1.NewTime(t0)},
		}
	}))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	nextObservation(t, observed)
	services := cs.CoreV1().Services("default")
	change := func(edit func(*corev1.Service), status bool) {
		t.Helper()
		svc, err := services.Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		edit(svc)
		if status {
			_, err = services.UpdateStatus(context.Background(), svc, metav1.UpdateOptions{})
		} else {
			_, err = services.Update(context.Background(), svc, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		nextObservation(t, observed)
	}
	waitForTimers(t, clk, 2)
	clk.Step(10 * time.Second)
	change(func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP }, false)
	change(func(s *corev1.Service) { s.Status.Conditions = nil }, true)
	clk.Step(10 * time.Second)
	change(func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer }, false)
	clk.Step(20 * time.Second)
	notDone(t, done, "20 s after the conversion back")
	clk.Step(11 * time.Second)
	if r := result(t, done); !errors.Is(r.err, ErrNoKEPProvider) || !strings.Contains(r.verdict.Reason, "conversion") {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider 31 s after the conversion back", r.verdict, r.err)
	}
}

// relisting serves a list of each Service in turn, the last one again
// after them, and watches that expire at once, as after a compaction.
type relisting struct {
	mu    sync.Mutex
	items []*corev1.Service
}

func (r *relisting) List(context.Context, metav1.ListOptions) (*corev1.ServiceList, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	svc := r.items[0]
	if len(r.items) > 1 {
		r.items = r.items[1:]
	}
	return &corev1.ServiceList{ListMeta: metav1.ListMeta{ResourceVersion: svc.ResourceVersion}, Items: []corev1.Service{*svc}}, nil
}

func (r *relisting) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	events := make(chan watch.Event, 1)
	gone := apierrors.NewResourceExpired("too old resource version")
	events <- watch.Event{Type: watch.Error, Object: &gone.ErrStatus}
	return watch.NewProxyWatcher(events), nil
}

// A Service deleted and created again while the watch was down comes back
// from the relist as an update of the old one: its new uid says the
// Service Wait watched was deleted.
func TestWait_RecreatedWhileTheWatchWasDown(t *testing.T) {
	old, recreated := coreService(), coreService()
	old.UID, old.ResourceVersion = "uid-1", "10"
	recreated.UID, recreated.ResourceVersion = "uid-2", "20"
	svc, _, err := Wait(context.Background(), &relisting{items: []*corev1.Service{old, recreated}}, "web", "")
	if !errors.Is(err, ErrServiceDeleted) || svc == nil || svc.UID != "uid-1" {
		t.Fatalf("Wait = %v (uid %v); want ErrServiceDeleted with the deleted Service", err, svc)
	}
}

func TestWait_ServiceCreatedLater(t *testing.T) {
	cs := fake.NewClientset()
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "")
	waitWatch(1)
	if _, err := cs.CoreV1().Services("default").Create(context.Background(), coreService(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nextObservation(t, observed)
	provide(t, cs)(Succeeded(lbService(), ingress, nil))
	if r := result(t, done); r.err != nil || r.verdict.Result != ResultReady {
		t.Fatalf("Wait = %v, %v; want Ready", r.verdict, r.err)
	}
}

func TestWait_L8_NoKEPProvider(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	// A provider that predates the KEP: ingress, no conditions.
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.Status.LoadBalancer.Ingress = ingress }))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk))
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	clk.Step(DefaultConditionsTimeout)
	r := result(t, done)
	var fe *FailError
	if !errors.Is(r.err, ErrNoKEPProvider) || !errors.As(r.err, &fe) || fe.Verdict != r.verdict {
		t.Fatalf("err = %v, want a *FailError wrapping ErrNoKEPProvider", r.err)
	}
	if r.verdict.Result != ResultFail || r.verdict.Rule != "T2" {
		t.Errorf("verdict %v, want Fail by T2", r.verdict)
	}
	if r.svc == nil || len(r.svc.Status.LoadBalancer.Ingress) == 0 {
		t.Error("the legacy provider's Service is not returned")
	}
}

func TestWait_L8_ConditionsInTimeThenProvisionTimeout(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithConditionsTimeout(10*time.Second), WithProvisionTimeout(time.Minute))
	waitWatch(1)
	nextObservation(t, observed)
	provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	if v := nextObservation(t, observed); v.Result != ResultPending {
		t.Fatalf("observation %v, want Pending while provisioning", v)
	}
	waitForTimers(t, clk, 2)
	clk.Step(10 * time.Second) // the first deadline passes: conditions were in time
	select {
	case r := <-done:
		t.Fatalf("Wait returned at the first deadline with conditions present: %v, %v", r.verdict, r.err)
	case <-time.After(100 * time.Millisecond):
	}
	clk.Step(time.Minute)
	r := result(t, done)
	if !errors.Is(r.err, ErrProvisionTimeout) || r.verdict.Result != ResultFail || r.verdict.Rule != "T2" {
		t.Fatalf("Wait = %v, %v; want Fail by T2 with ErrProvisionTimeout", r.verdict, r.err)
	}
}

func waitForTimers(t *testing.T, clk *testingclock.FakeClock, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for clk.Waiters() < n {
		if time.Now().After(deadline) {
			t.Fatalf("Wait set %d timers, want %d", clk.Waiters(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// The first watch ends with "resource version too old" (410 Gone) after
// the provider has written the final status, which that watch never
// delivers: Wait must relist and still see it.
func TestWait_SurvivesWatchRestart(t *testing.T) {
	cs := fake.NewClientset(coreService())
	broken := watch.NewFake()
	var watches atomic.Int32
	cs.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) {
		if watches.Add(1) == 1 {
			return true, broken, nil
		}
		return false, nil, nil
	})
	var lists atomic.Int32
	cs.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return false, nil, nil
	})
	done, observed := startWait(t, context.Background(), cs, "")
	nextObservation(t, observed)
	for watches.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	provide(t, cs)(Succeeded(lbService(), ingress, nil))
	gone := apierrors.NewResourceExpired("too old resource version")
	broken.Error(&gone.ErrStatus)
	r := result(t, done)
	if r.err != nil || r.verdict.Result != ResultReady {
		t.Fatalf("Wait = %v, %v; want Ready after the watch restart", r.verdict, r.err)
	}
	if lists.Load() < 2 {
		t.Errorf("%d lists, want a relist after the expired watch", lists.Load())
	}
}

func TestWait_ServiceDeleted(t *testing.T) {
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "")
	waitWatch(1)
	nextObservation(t, observed)
	if err := cs.CoreV1().Services("default").Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := result(t, done); !errors.Is(r.err, ErrServiceDeleted) {
		t.Fatalf("err = %v, want ErrServiceDeleted", r.err)
	}
}

func TestWait_ContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, ctx, cs, "")
	waitWatch(1)
	nextObservation(t, observed)
	cancel()
	r := result(t, done)
	if !errors.Is(r.err, context.Canceled) || r.verdict.Result != ResultPending {
		t.Fatalf("Wait = %v, %v; want the last Pending verdict and context.Canceled", r.verdict, r.err)
	}
	// A suite that fails with the error alone (framework.ExpectNoError)
	// says which Service it gave up on, and how far it had come.
	if msg := r.err.Error(); !strings.Contains(msg, "default/web") || !strings.Contains(msg, r.verdict.Reason) {
		t.Errorf("err = %q; want it to name the Service and the last verdict", msg)
	}
}

func TestWait_NilClient(t *testing.T) {
	if _, _, err := Wait(context.Background(), nil, "web", ""); err == nil {
		t.Error("nil client: no error")
	}
}

// An empty name names no Service: Wait says so at once, instead of
// waiting out the first deadline of L8 and failing by T2.
// A feature this version does not know could never skip (T1): Wait says
// so at once rather than judge a test of it Ready.
func TestWait_UnknownFeature(t *testing.T) {
	cs := fake.NewClientset(coreService())
	_, v, err := Wait(context.Background(), cs.CoreV1().Services("default"), "web", "SessionAfinity", WithClock(testingclock.NewFakeClock(t0)))
	if err == nil || !strings.Contains(err.Error(), `"SessionAfinity"`) || !strings.Contains(err.Error(), "SessionAffinity") || v.Result != ResultPending {
		t.Fatalf("Wait for a misspelt feature: %v, %v; want an error naming it and the known ones", v, err)
	}
}

func TestWait_EmptyName(t *testing.T) {
	cs := fake.NewClientset(coreService())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan waitResult, 1)
	go func() {
		svc, v, err := Wait(ctx, cs.CoreV1().Services("default"), "", "", WithClock(testingclock.NewFakeClock(t0)))
		done <- waitResult{svc, v, err}
	}()
	r := result(t, done)
	var fe *FailError
	if r.err == nil || errors.As(r.err, &fe) || errors.Is(r.err, context.Canceled) || !strings.Contains(r.err.Error(), "name") {
		t.Fatalf("Wait with an empty name: %v; want an error about the name", r.err)
	}
	if r.svc != nil || r.verdict.Result != ResultPending {
		t.Errorf("Wait = %v, %v; want no Service and a Pending verdict", r.svc, r.verdict)
	}
}

// withForeignCondition returns a fake clientset holding the Service web,
// asking for session affinity, whose status carries a condition that
// another field manager applied.
func withForeignCondition(t *testing.T) *fake.Clientset {
	t.Helper()
	cs := fake.NewClientset(coreService(clientIP))
	other := map[string]any{"type": "example.com/Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": "2025-01-01T00:00:00Z"}
	patch := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": "default"},
		"status": map[string]any{"conditions": []any{other}}}
	if _, err := cs.CoreV1().Services("default").Patch(context.Background(), "web", "application/apply-patch+yaml", mustJSON(t, patch),
		metav1.PatchOptions{FieldManager: "other"}, "status"); err != nil {
		t.Fatalf("apply by another manager: %v", err)
	}
	return cs
}

// The apply configurations do what they claim through server-side apply:
// the provider's field manager owns the KEP conditions and the ingress,
// another manager's condition stays, and what a later transition leaves
// out (Degraded, the ingress) is removed (G4, C2, L9).
func TestApply_G4_ServerSideApplyOwnsOnlyKEPStatus(t *testing.T) {
	cs := withForeignCondition(t)
	services := cs.CoreV1().Services("default")
	get := func() *v1.Service {
		out, err := services.Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return v1.FromCore(out)
	}
	svc := provide(t, cs)(Succeeded(get(), ingress, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}))
	if Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded) == nil || Get(svc.Status.Conditions, "example.com/Ready") == nil {
		t.Fatalf("after Succeeded: %s", combination(svc.Status.Conditions))
	}
	svc = provide(t, cs)(Succeeded(svc, ingress, nil))
	if Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded) != nil {
		t.Error("server-side apply kept the Degraded condition the provider left out")
	}
	notLB := svc.DeepCopy()
	notLB.Spec.Type = corev1.ServiceTypeClusterIP
	svc = provide(t, cs)(NotLoadBalancer(notLB))
	if HasKEPConditions(svc.Status.Conditions) || len(svc.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("after NotLoadBalancer: %s, ingress %v", combination(svc.Status.Conditions), svc.Status.LoadBalancer.Ingress)
	}
	if Get(svc.Status.Conditions, "example.com/Ready") == nil {
		t.Error("another manager's condition was removed")
	}
}

// StatusApply: a provider that writes its conditions with Set, Bump and
// Remove applies what they leave; another manager's condition stays, a
// removed condition goes, and the read's resourceVersion is the apply's
// precondition (G4).
func TestStatusApply_G4_SetAndRemove(t *testing.T) {
	cs := withForeignCondition(t)
	services := cs.CoreV1().Services("default")
	apply := func(svc *corev1.Service) *corev1.Service {
		t.Helper()
		out, err := services.ApplyStatus(context.Background(), StatusApply(svc), metav1.ApplyOptions{FieldManager: "lb-provider", Force: true})
		if err != nil {
			t.Fatalf("ApplyStatus: %v", err)
		}
		return out
	}
	svc, err := services.Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	Set(&svc.Status.Conditions, metav1.Condition{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue, Reason: string(v1.LoadBalancerReasonServing)})
	Set(&svc.Status.Conditions, metav1.Condition{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: string(v1.LoadBalancerReasonComplete)})
	Set(&svc.Status.Conditions, metav1.Condition{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue, Reason: string(v1.LoadBalancerReasonSessionAffinityNotSupported)})
	svc.Status.LoadBalancer.Ingress = ingress
	svc = apply(svc)
	if c := Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded); c == nil || len(svc.Status.LoadBalancer.Ingress) != 1 || Get(svc.Status.Conditions, "example.com/Ready") == nil {
		t.Fatalf("after the first apply: %s, ingress %v", combination(v1.FromCore(svc).Status.Conditions), svc.Status.LoadBalancer.Ingress)
	}
	Remove(&svc.Status.Conditions, v1.LoadBalancerConditionDegraded)
	svc = apply(svc)
	if Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded) != nil || Get(svc.Status.Conditions, v1.LoadBalancerConditionServing) == nil {
		t.Errorf("after Remove: %s", combination(v1.FromCore(svc).Status.Conditions))
	}
	if Get(svc.Status.Conditions, "example.com/Ready") == nil {
		t.Error("another manager's condition was removed")
	}
	// The fake keeps no resourceVersion; a read from an apiserver has one.
	svc.ResourceVersion = "42"
	if ac := StatusApply(svc); ac.ResourceVersion == nil || *ac.ResourceVersion != "42" {
		t.Errorf("StatusApply carries resourceVersion %v, want the read's 42", ac.ResourceVersion)
	}
	if StatusApply[*corev1.Service](nil) != nil {
		t.Error("StatusApply(nil) is not nil")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Wait judges only the Service it was asked for, also through a client
// (the fake, an adapter) that does not honour the field selector.
func TestWait_OnlyTheNamedService(t *testing.T) {
	other := coreService(func(s *v1.Service) {
		s.Name = "other"
		s.Status.Conditions = []metav1.Condition{pFalse, sTrue}
		s.Status.LoadBalancer.Ingress = ingress
	})
	cs := fake.NewClientset(other, coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "")
	waitWatch(1)
	if v := nextObservation(t, observed); v.Result != ResultPending {
		t.Fatalf("first observation %v, want web's Pending", v)
	}
	provide(t, cs)(Succeeded(lbService(), ingress, nil))
	if r := result(t, done); r.err != nil || r.verdict.Result != ResultReady || r.svc == nil || r.svc.Name != "web" {
		t.Fatalf("Wait = %v, %v on %v; want web Ready", r.verdict, r.err, r.svc)
	}
}

// L8 with WithDeadlinesFromCreation: an update of a Service that is
// already a LoadBalancer does not move the deadlines; only the creation or
// a conversion does.
func TestWait_L8_UpdateDoesNotMoveTheDeadlines(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0) }))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	clk.Step(20 * time.Second)
	svc, err := cs.CoreV1().Services("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Labels = map[string]string{"touched": "yes"}
	if _, err := cs.CoreV1().Services("default").Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	nextObservation(t, observed)
	clk.Step(10 * time.Second)
	if r := result(t, done); !errors.Is(r.err, ErrNoKEPProvider) || !strings.Contains(r.verdict.Reason, "the service's creation") {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider 30 s after the creation", r.verdict, r.err)
	}
}

// L8 with WithDeadlinesFromCreation: a Service without a creationTimestamp
// (as a fake clientset makes it) has its deadlines from the start of the
// wait, not from the zero time.
func TestWait_L8_NoCreationTimestamp(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	nextObservation(t, observed)
	provide(t, cs)(Succeeded(lbService(), ingress, nil))
	if r := result(t, done); r.err != nil || r.verdict.Result != ResultReady {
		t.Fatalf("Wait = %v, %v; want Ready", r.verdict, r.err)
	}
}

// L8 with WithDeadlinesFromCreation: a creationTimestamp in the future is
// clock skew; the deadlines run from the start of the wait, as they say.
func TestWait_L8_CreatedInTheFuture(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(time.Hour)) }))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	clk.Step(DefaultConditionsTimeout)
	if r := result(t, done); !errors.Is(r.err, ErrNoKEPProvider) || !strings.Contains(r.verdict.Reason, "the start of the wait") {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider 30 s after the start of the wait", r.verdict, r.err)
	}
}

// L8 with WithDeadlinesFromCreation: a Service still provisioning whose
// provision deadline has passed by the time Wait sees it, or passes at
// that very instant, fails at once, without a timer (and so without the
// clock moving).
func TestWait_L8_ProvisionDeadlinePassedAtTheStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		age     time.Duration
		seen    bool
		wantErr error
	}{
		{"provisioning for 20 minutes", 20 * time.Minute, true, ErrProvisionTimeout},
		{"provisioning for exactly 15 minutes", DefaultProvisionTimeout, true, ErrProvisionTimeout},
		{"no conditions for exactly 30 s", DefaultConditionsTimeout, false, ErrNoKEPProvider},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(t0)
			cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(-tc.age)) }))
			if tc.seen {
				provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
			}
			// Wait may end on the list alone, before it starts a watch.
			done, _ := startWait(t, context.Background(), cs, "", WithClock(clk), WithDeadlinesFromCreation())
			if r := result(t, done); !errors.Is(r.err, tc.wantErr) || r.verdict.Rule != "T2" {
				t.Fatalf("Wait = %v, %v; want Fail by T2 with %v", r.verdict, r.err, tc.wantErr)
			}
		})
	}
}

// L8: with a provision deadline shorter than the conditions deadline, a
// Service that never had conditions still fails for want of a KEP-aware
// provider, not for a slow one.
func TestWait_L8_ShortProvisionTimeoutWithoutConditions(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService())
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithConditionsTimeout(time.Minute), WithProvisionTimeout(10*time.Second))
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	clk.Step(10 * time.Second)
	r := result(t, done)
	if !errors.Is(r.err, ErrNoKEPProvider) {
		t.Fatalf("Wait = %v, %v; want ErrNoKEPProvider", r.verdict, r.err)
	}
	// The reason names the deadline that passed, not the longer one.
	if !strings.Contains(r.verdict.Reason, "within 10s of the start of the wait") {
		t.Errorf("reason %q; want it to name the 10 s that passed", r.verdict.Reason)
	}
}

// A FailError names the Service, with its namespace when Wait saw it and
// without when it saw none.
func TestWait_T2_FailErrorNamesTheService(t *testing.T) {
	for _, tc := range []struct {
		name      string
		objects   []runtime.Object
		namespace string
		prefix    string
	}{
		{"seen", []runtime.Object{coreService()}, "default", "service default/web: "},
		{"never seen", nil, "", "service web: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(t0)
			cs := fake.NewClientset(tc.objects...)
			waitWatch := watching(t, cs)
			done, observed := startWait(t, context.Background(), cs, "", WithClock(clk))
			waitWatch(1)
			if tc.objects != nil {
				nextObservation(t, observed)
			}
			waitForTimers(t, clk, 2)
			clk.Step(DefaultConditionsTimeout)
			r := result(t, done)
			var fe *FailError
			if !errors.As(r.err, &fe) {
				t.Fatalf("err = %v, want a *FailError", r.err)
			}
			if fe.Namespace != tc.namespace || fe.Name != "web" || fe.Error() != tc.prefix+r.verdict.String() {
				t.Errorf("FailError %q/%q says %q, want %s/web and %q", fe.Namespace, fe.Name, fe.Error(), tc.namespace, tc.prefix+r.verdict.String())
			}
		})
	}
}

// L8 on a Service that never appeared (a wrong name or namespace, or one
// never made): the Fail says so, rather than blaming a provider that had
// nothing to write on.
func TestWait_L8_NeverSeenBlamesNoProvider(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset()
	waitWatch := watching(t, cs)
	done, _ := startWait(t, context.Background(), cs, "", WithClock(clk))
	waitWatch(1)
	waitForTimers(t, clk, 2)
	clk.Step(DefaultConditionsTimeout)
	r := result(t, done)
	if !errors.Is(r.err, ErrNoKEPProvider) || r.svc != nil || r.verdict.Rule != "T2" {
		t.Fatalf("Wait = %v, %v, %v; want Fail by T2 with ErrNoKEPProvider and no Service", r.svc, r.verdict, r.err)
	}
	if !strings.Contains(r.verdict.Reason, `no service named "web" appeared within 30s`) || strings.Contains(r.verdict.Reason, "KEP-aware") {
		t.Errorf("reason %q; want it to say that the service never appeared, not that no KEP-aware provider handles it", r.verdict.Reason)
	}
}

// A client that may not list Services (an RBAC refusal) never sees the
// Service: when the first deadline passes, Wait returns the refusal, not
// a Fail that blames a missing provider or a Service that never appeared.
func TestWait_L8_ListRefusedIsNotANoShow(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService())
	lists := refuseLists(cs)
	done, _ := startWait(t, context.Background(), cs, "", WithClock(clk))
	waitForTimers(t, clk, 2)
	for deadline := time.Now().Add(20 * time.Second); lists.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Wait never listed")
		}
	}
	clk.Step(DefaultConditionsTimeout)
	r := result(t, done)
	if !apierrors.IsForbidden(r.err) {
		t.Fatalf("err = %v; want the list's refusal", r.err)
	}
	var fe *FailError
	if errors.Is(r.err, ErrNoKEPProvider) || errors.As(r.err, &fe) {
		t.Errorf("err = %v; a client that could not list blames no provider (T2)", r.err)
	}
	if r.svc != nil || r.verdict.Result != ResultPending {
		t.Errorf("Wait = %v, %v; want no Service and a Pending verdict", r.svc, r.verdict)
	}
}

// refuseLists makes every list of Services through cs an RBAC refusal, and
// counts them.
func refuseLists(cs *fake.Clientset) *atomic.Int32 {
	var lists atomic.Int32
	cs.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return true, nil, apierrors.NewForbidden(corev1.Resource("services"), "", errors.New(`user "e2e" cannot list resource "services"`))
	})
	return &lists
}

// TestWait_CanceledWhileListsAreRefused: a caller that gives up before the
// first deadline gets its context's error and, when no Service was seen,
// the refusal of the last list, which says why.
func TestWait_CanceledWhileListsAreRefused(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService())
	lists := refuseLists(cs)
	ctx, cancel := context.WithCancel(context.Background())
	done, _ := startWait(t, ctx, cs, "", WithClock(clk))
	// A second list follows the first's error being kept.
	for deadline := time.Now().Add(20 * time.Second); lists.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Wait never listed")
		}
	}
	cancel()
	r := result(t, done)
	if !errors.Is(r.err, context.Canceled) || !apierrors.IsForbidden(r.err) {
		t.Errorf("err = %v; want the context's error and the list's refusal", r.err)
	}
}

// WithSpecChange: after an update, a verdict counts only once the provider
// has acknowledged the change by moving Provisioning's lastTransitionTime
// (L6). Without it, Wait returns the verdict of the old spec at once.
func TestWait_L6_SpecChangeAcknowledged(t *testing.T) {
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.UID = "uid-web" }))
	served := provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	provide(t, cs)(Succeeded(served, ingress, nil))
	services := cs.CoreV1().Services("default")
	before, err := services.Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := before.DeepCopy()
	changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Name: "alt", Port: 8443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	if changed, err = services.Update(context.Background(), changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	if r := result(t, func() <-chan waitResult { done, _ := startWait(t, context.Background(), cs, ""); return done }()); r.verdict.Result != ResultReady {
		t.Fatalf("without WithSpecChange: %v, %v; want the old spec's Ready at once", r.verdict, r.err)
	}

	waitWatch := watching(t, cs)
	// The Service the update returned serves as well as one read before.
	done, observed := startWait(t, context.Background(), cs, "", WithSpecChange(changed))
	waitWatch(1)
	v := nextObservation(t, observed)
	if v.Result != ResultPending || !strings.Contains(v.Reason, "(L6)") || !strings.Contains(v.Reason, "lastTransitionTime is still") {
		t.Fatalf("before the provider acknowledged the change: %v; want Pending naming L6", v)
	}
	notDone(t, done, "before the provider acknowledged the change")
	provide(t, cs)(SpecUpdated(v1.FromCore(before), v1.FromCore(changed)))
	r := result(t, done)
	if r.err != nil || r.verdict.Result != ResultReady || r.svc == nil || len(r.svc.Spec.Ports) != 2 {
		t.Fatalf("after the acknowledgement: %v, %v, %v; want Ready on the changed Service", r.verdict, r.err, r.svc)
	}

	// Another Service under the name is not the one that changed.
	other := before.DeepCopy()
	other.UID = "uid-of-another-service"
	if r := result(t, func() <-chan waitResult {
		done, _ := startWait(t, context.Background(), cs, "", WithSpecChange(other))
		return done
	}()); !errors.Is(r.err, ErrServiceDeleted) {
		t.Fatalf("a Service of another uid: %v, %v; want ErrServiceDeleted", r.verdict, r.err)
	}
}

// A change never acknowledged ends at the provisioning deadline, which
// runs from the start of the wait even with WithDeadlinesFromCreation,
// and the verdict says what was missing (L6, L8).
func TestWait_L6_SpecChangeNeverAcknowledged(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService(func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour)) }))
	served := provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	provide(t, cs)(Succeeded(served, ingress, nil))
	before, err := cs.CoreV1().Services("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, "", WithClock(clk), WithProvisionTimeout(time.Minute),
		WithDeadlinesFromCreation(), WithSpecChange(before))
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	notDone(t, done, "an hour after the creation, with the provisioning deadline from the start of the wait")
	clk.Step(time.Minute)
	r := result(t, done)
	if !errors.Is(r.err, ErrProvisionTimeout) || !strings.Contains(r.verdict.Reason, "not acknowledged the spec change") {
		t.Fatalf("Wait = %v, %v; want ErrProvisionTimeout saying the change was not acknowledged", r.verdict, r.err)
	}
}

// ChangeSeen: the provider saw a change when Provisioning is there and
// its lastTransitionTime moved since the read before it (L6).
func TestChangeSeen_L6(t *testing.T) {
	with := func(ts time.Time) *corev1.Service {
		return coreService(func(s *v1.Service) {
			s.Status.Conditions = []metav1.Condition{{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse,
				Reason: string(v1.LoadBalancerReasonComplete), LastTransitionTime: wire(ts)}}
		})
	}
	before, same, moved, none := with(t0), with(t0), with(t0.Add(time.Second)), coreService()
	for name, tc := range map[string]struct {
		before, svc *corev1.Service
		want        bool
	}{
		"moved":                            {before, moved, true},
		"not moved":                        {before, same, false},
		"gone":                             {before, none, false},
		"none before, written since":       {none, same, true},
		"none before, none since":          {none, none, false},
		"nil before counts as none":        {nil, same, true},
		"nil service has not seen a thing": {before, nil, false},
	} {
		if got := ChangeSeen(tc.before, tc.svc); got != tc.want {
			t.Errorf("%s: ChangeSeen = %v, want %v", name, got, tc.want)
		}
	}
}

// WithSpecChange and WithSpecChangeFrom after a change of the type away
// from LoadBalancer: the provider answers by releasing the load balancer
// (L9), not by acknowledging the change (L6), so Wait fails at once, before
// any list, naming the Service and WaitReleased, instead of at the
// provisioning deadline.
func TestWait_L6_SpecChangeAwayFromLoadBalancer(t *testing.T) {
	old := coreService()
	changed := old.DeepCopy()
	changed.Spec.Type = corev1.ServiceTypeClusterIP
	for name, opt := range map[string]SpecChangeOption{
		"WithSpecChange":     WithSpecChange(changed),
		"WithSpecChangeFrom": WithSpecChangeFrom(old, changed),
	} {
		ctx, cancel := context.WithCancel(context.Background())
		client := &stopAtList{cancel: cancel}
		_, _, err := Wait(ctx, client, "web", "", opt)
		cancel()
		if !errors.Is(err, ErrNotLoadBalancer) || client.lists.Load() != 0 {
			t.Errorf("%s: Wait = %v after %d lists; want ErrNotLoadBalancer at once", name, err, client.lists.Load())
		} else if msg := err.Error(); !strings.Contains(msg, "service default/web") || !strings.Contains(msg, "WaitReleased") {
			t.Errorf("%s: error %q; want it to name the Service and WaitReleased", name, msg)
		}
	}
}

// A client that may list Services but not watch them (an RBAC refusal)
// sees the Service only on the lists that follow each refused watch, ever
// further apart: when a deadline passes, or the caller gives up, Wait
// returns the refusal, not a Fail that blames the provider on a stale
// list.
func TestWait_L8_WatchRefusedIsNotAVerdict(t *testing.T) {
	provisioning := func(s *v1.Service) {
		s.Status.Conditions = []metav1.Condition{
			{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionTrue, Reason: string(v1.LoadBalancerReasonProvisioning), LastTransitionTime: wire(t0)},
			{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionFalse, Reason: string(v1.LoadBalancerReasonProvisioning), LastTransitionTime: wire(t0)},
		}
	}
	for name, tc := range map[string]struct {
		svc  *corev1.Service
		step time.Duration // 0: the caller gives up
	}{
		"first deadline":        {coreService(), DefaultConditionsTimeout},
		"provisioning deadline": {coreService(provisioning), DefaultProvisionTimeout},
		"canceled":              {coreService(), 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := testingclock.NewFakeClock(t0)
			cs := fake.NewClientset(tc.svc)
			var watches atomic.Int32
			cs.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) {
				watches.Add(1)
				return true, nil, apierrors.NewForbidden(corev1.Resource("services"), "", errors.New(`user "e2e" cannot watch resource "services"`))
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done, observed := startWait(t, ctx, cs, "", WithClock(clk))
			nextObservation(t, observed)
			waitForTimers(t, clk, 2)
			// A second watch comes only once Wait has taken in the
			// first one's refusal.
			for deadline := time.Now().Add(20 * time.Second); watches.Load() < 2; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("Wait watched %d times, want 2", watches.Load())
				}
			}
			if tc.step == 0 {
				cancel()
			} else {
				clk.Step(tc.step)
			}
			r := result(t, done)
			if !apierrors.IsForbidden(r.err) {
				t.Fatalf("err = %v; want the watch's refusal", r.err)
			}
			var fe *FailError
			if errors.As(r.err, &fe) || r.verdict.Result != ResultPending {
				t.Errorf("Wait = %v, %v; a client that could not watch blames no provider (T2)", r.verdict, r.err)
			}
			if tc.step == 0 && !errors.Is(r.err, context.Canceled) {
				t.Errorf("err = %v; want the context's error too", r.err)
			}
			if tc.step != 0 && (!strings.Contains(r.err.Error(), "default/web") || !strings.Contains(r.err.Error(), "could not be watched")) {
				t.Errorf("err = %q; want it to name the Service and say that it could not be watched", r.err)
			}
		})
	}
}

// ChangeSeen after a patch: a patch carries no resourceVersion, so a status
// write between a read and the patch (a provisioning that ends) moves
// Provisioning before the provider has seen the change. The Service the
// patch returned holds that write, and is the one to compare with (L6).
func TestChangeSeen_L6_BeforeAPatch(t *testing.T) {
	cs := fake.NewClientset(coreService())
	services := cs.CoreV1().Services("default")
	started := provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	read, err := services.Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	provide(t, cs)(Succeeded(started, ingress, nil)) // after the read, before the patch
	patched, err := services.Patch(context.Background(), "web", types.MergePatchType,
		[]byte(`{"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"alt","port":8443,"protocol":"TCP"}]}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ChangeSeen(patched, patched) {
		t.Error("ChangeSeen(patched, patched): the Service the patch returned shows no acknowledgement yet")
	}
	if !ChangeSeen(read, patched) {
		t.Error("ChangeSeen(read, patched) = false; a read before a patch takes the status write in between for the acknowledgement, as WithSpecChange warns")
	}
}

// startWaitReleased runs WaitReleased in the background, as startWait
// runs Wait.
func startWaitReleased(t *testing.T, ctx context.Context, cs *fake.Clientset, opts ...WaitOption) (<-chan waitResult, <-chan Verdict) {
	t.Helper()
	observed := make(chan Verdict, 100)
	done := make(chan waitResult, 1)
	opts = append(opts, WithProgress(func(_ *corev1.Service, v Verdict) { observed <- v }))
	go func() {
		svc, err := WaitReleased(ctx, cs.CoreV1().Services("default"), "web", opts...)
		done <- waitResult{svc: svc, err: err}
	}()
	return done, observed
}

// toClusterIP serves the Service, then changes its type to ClusterIP, and
// returns the Service the update returned, conditions and ingress still
// on it.
func toClusterIP(t *testing.T, cs *fake.Clientset) *corev1.Service {
	t.Helper()
	served := provide(t, cs)(Seen(lbService(), Decide(lbService(), fullCapabilities())))
	provide(t, cs)(Succeeded(served, ingress, nil))
	services := cs.CoreV1().Services("default")
	current, err := services.Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	current.Spec.Type = corev1.ServiceTypeClusterIP
	changed, err := services.Update(context.Background(), current, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return changed
}

// WaitReleased ends when the provider has removed the three conditions
// and the ingress of a Service no longer of type LoadBalancer (L9), and
// not before: conditions gone with the ingress left is not yet a release.
func TestWaitReleased_L9(t *testing.T) {
	cs := fake.NewClientset(coreService())
	changed := toClusterIP(t, cs)
	waitWatch := watching(t, cs)
	done, observed := startWaitReleased(t, context.Background(), cs)
	waitWatch(1)
	if v := nextObservation(t, observed); v.Result != ResultPending || v.Rule != "L9" || !strings.Contains(v.Reason, "LoadBalancerServing") {
		t.Fatalf("with the conditions still there: %v; want Pending by L9 naming LoadBalancerServing", v)
	}
	kept := changed.DeepCopy()
	kept.Status.Conditions = nil
	if _, err := cs.CoreV1().Services("default").UpdateStatus(context.Background(), kept, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := nextObservation(t, observed); v.Result != ResultPending || !strings.Contains(v.Reason, "ingress") {
		t.Fatalf("with the ingress still there: %v; want Pending naming the ingress", v)
	}
	notDone(t, done, "with the ingress still there")
	kept.Status.LoadBalancer.Ingress = nil
	if _, err := cs.CoreV1().Services("default").UpdateStatus(context.Background(), kept, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := result(t, done)
	if r.err != nil || r.svc == nil || HasKEPConditions(r.svc.Status.Conditions) || len(r.svc.Status.LoadBalancer.Ingress) > 0 {
		t.Fatalf("WaitReleased = %v, %v; want the released Service", r.svc, r.err)
	}
}

// Released, which WaitReleased and ext/gomega's BeReleased share: a
// Service no longer of type LoadBalancer, without the three conditions and
// without an ingress (L9); either type of Service, nil is not released.
func TestReleased_L9(t *testing.T) {
	clusterIP := func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP }
	serving := metav1.Condition{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue, Reason: "Serving"}
	ports := metav1.Condition{Type: string(v1.LoadBalancerConditionPortsError), Status: metav1.ConditionTrue, Reason: "PortsError"}
	for name, tc := range map[string]struct {
		svc  *v1.Service
		want bool
	}{
		"released":                     {lbService(clusterIP), true},
		"the deprecated PortsError":    {lbService(clusterIP, func(s *v1.Service) { s.Status.Conditions = []metav1.Condition{ports} }), true},
		"still a LoadBalancer":         {lbService(), false},
		"a condition kept":             {lbService(clusterIP, func(s *v1.Service) { s.Status.Conditions = []metav1.Condition{serving} }), false},
		"the ingress kept":             {lbService(clusterIP, func(s *v1.Service) { s.Status.LoadBalancer.Ingress = ingress }), false},
		"an ingress entry without one": {lbService(clusterIP, func(s *v1.Service) { s.Status.LoadBalancer.Ingress = make([]corev1.LoadBalancerIngress, 1) }), false},
	} {
		if got := Released(tc.svc); got != tc.want {
			t.Errorf("%s: Released = %v, want %v", name, got, tc.want)
		}
		if got := Released(v1.ToCore(tc.svc)); got != tc.want {
			t.Errorf("%s: Released of the client-go Service = %v, want %v", name, got, tc.want)
		}
	}
	if Released((*corev1.Service)(nil)) || Released((*v1.Service)(nil)) {
		t.Error("Released(nil) = true, want false")
	}
}

// A provider that never releases the load balancer: WaitReleased fails at
// the provisioning deadline, not at the conditions deadline, with a
// FailError that names the Service and what it still has (L8, L9).
func TestWaitReleased_L9_NotReleasedInTime(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	cs := fake.NewClientset(coreService())
	toClusterIP(t, cs)
	waitWatch := watching(t, cs)
	done, observed := startWaitReleased(t, context.Background(), cs, WithClock(clk), WithProvisionTimeout(time.Minute))
	waitWatch(1)
	nextObservation(t, observed)
	waitForTimers(t, clk, 2)
	clk.Step(DefaultConditionsTimeout)
	notDone(t, done, "at the conditions deadline")
	clk.Step(time.Minute)
	r := result(t, done)
	var fe *FailError
	if !errors.Is(r.err, ErrNotReleased) || !errors.As(r.err, &fe) || fe.Verdict.Rule != "L9" {
		t.Fatalf("WaitReleased = %v; want a FailError by L9 wrapping ErrNotReleased", r.err)
	}
	if msg := r.err.Error(); !strings.Contains(msg, "service default/web") || !strings.Contains(msg, "LoadBalancerServing") {
		t.Errorf("error %q; want it to name the Service and the condition it still has", msg)
	}
	if r.svc == nil {
		t.Error("WaitReleased did not return the last Service it saw")
	}
}

func TestWaitReleased_ServiceDeleted(t *testing.T) {
	cs := fake.NewClientset(coreService())
	toClusterIP(t, cs)
	waitWatch := watching(t, cs)
	done, observed := startWaitReleased(t, context.Background(), cs)
	waitWatch(1)
	nextObservation(t, observed)
	if err := cs.CoreV1().Services("default").Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r := result(t, done)
	if !errors.Is(r.err, ErrServiceDeleted) || !strings.Contains(r.err.Error(), "service default/web") {
		t.Fatalf("err = %v; want ErrServiceDeleted naming the Service", r.err)
	}
}

// stopAtList is a client whose first list ends the wait: a Wait that
// lists has started watching.
type stopAtList struct {
	cancel context.CancelFunc
	lists  atomic.Int32
}

func (s *stopAtList) List(context.Context, metav1.ListOptions) (*corev1.ServiceList, error) {
	s.lists.Add(1)
	s.cancel()
	return nil, errors.New("stopped")
}

func (s *stopAtList) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errors.New("stopped")
}

// WithSpecChangeFrom: an update that changed nothing L6 calls relevant
// (G3) fails at once, before any list, naming the Service, instead of at
// the provisioning deadline; a relevant change, one of an annotation the
// provider reads, and a nil old wait as WithSpecChange does.
func TestWait_L6_SpecChangeFromNothingRelevant(t *testing.T) {
	old := coreService(func(s *v1.Service) { s.Annotations = map[string]string{"example.com/lb-tier": "gold"} })
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"team": "web"}
	ports := old.DeepCopy()
	ports.Spec.Ports = append(ports.Spec.Ports, corev1.ServicePort{Port: 8443})
	tier := old.DeepCopy()
	tier.Annotations["example.com/lb-tier"] = "silver"
	for name, tc := range map[string]struct {
		opt       SpecChangeOption
		wantError bool
	}{
		"a label only":                     {WithSpecChangeFrom(old, labelled), true},
		"no change at all":                 {WithSpecChangeFrom(old, old.DeepCopy()), true},
		"an annotation no one declared":    {WithSpecChangeFrom(old, tier), true},
		"a port":                           {WithSpecChangeFrom(old, ports), false},
		"an annotation the provider reads": {WithSpecChangeFrom(old, tier, WithRelevantAnnotations("example.com/lb-tier")), false},
		"no old":                           {WithSpecChangeFrom(nil, labelled), false},
		"WithSpecChange":                   {WithSpecChange(labelled), false},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		client := &stopAtList{cancel: cancel}
		_, _, err := Wait(ctx, client, "web", "", tc.opt)
		cancel()
		if got := errors.Is(err, ErrNoSpecChange); got != tc.wantError {
			t.Errorf("%s: Wait = %v; want ErrNoSpecChange %v", name, err, tc.wantError)
		}
		if tc.wantError && (client.lists.Load() != 0 || !strings.Contains(err.Error(), "service default/web")) {
			t.Errorf("%s: %d lists, error %q; want none, naming the Service", name, client.lists.Load(), err)
		}
	}
}
