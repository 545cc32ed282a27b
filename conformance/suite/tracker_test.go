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

package suite

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
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
	"k8s.io/klog/v2"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
)

// A state the provider writes and takes back at once is still judged: a
// hold on ForeignClass's Service sees the ingress the next write removed
// (P1), whenever the wait wakes.
func TestTracker_HoldSeesEveryObservation(t *testing.T) {
	tr := newTracker()
	foreign := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "foreign", UID: "u", ResourceVersion: "1"}}
	foreign.Spec.Type = corev1.ServiceTypeLoadBalancer
	tr.observe(foreign, false)

	written := foreign.DeepCopy()
	written.ResourceVersion = "2"
	written.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	undone := foreign.DeepCopy()
	undone.ResourceVersion = "3"

	started := make(chan struct{})
	var once sync.Once
	done := make(chan *v1.Service, 1)
	go func() {
		bad, err := tr.hold(context.Background(), "foreign", 10*time.Second, func(s *v1.Service) bool {
			once.Do(func() { close(started) })
			return len(s.Status.LoadBalancer.Ingress) > 0
		})
		if err != nil {
			t.Error(err)
		}
		done <- bad
	}()
	<-started // judging the state before the writes
	tr.observe(written, false)
	tr.observe(undone, false)
	if bad := <-done; bad == nil || bad.ResourceVersion != "2" {
		t.Fatalf("hold returned %v, want the write of resourceVersion 2", bad)
	}
}

// observed is a LoadBalancer Service of namespace t as the tracker's
// informer would deliver it, of the project's type; served gives it Serving=True, Provisioning=False and,
// with ip, an ingress address.
func observed(name, rv string, served bool, ip string) *v1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name, UID: types.UID("u-" + name), ResourceVersion: rv}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	if served {
		now := metav1.Now()
		svc.Status.Conditions = []metav1.Condition{
			{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: "Complete", Message: "m", LastTransitionTime: now},
			{Type: "LoadBalancerServing", Status: metav1.ConditionTrue, Reason: "Serving", Message: "m", LastTransitionTime: now},
		}
	}
	if ip != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	}
	return v1.FromCore(svc)
}

// ended returns a context that has already ended: a wait then judges what
// it has and returns without blocking.
func ended(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}

// A wait judges from the latest observation on: a state the Service left
// before the wait began does not end it (await after SpecChange's update
// must not return the status from before).
func TestTracker_WaitStartsAtTheLatestObservation(t *testing.T) {
	tr := newTracker()
	tr.observe(observed("change", "1", true, "192.0.2.1"), false)
	tr.observe(observed("change", "2", false, ""), false)
	got, err := tr.wait(ended(t), "change", time.Minute, func(s *v1.Service) bool { return s != nil && settled(s) })
	if err == nil || got == nil || got.ResourceVersion != "2" {
		t.Fatalf("wait = %v, %v; want the context's error and the latest observation, resourceVersion 2", got, err)
	}
	tr.observe(observed("change", "3", true, "192.0.2.1"), false)
	if got, err := tr.wait(ended(t), "change", time.Minute, settled); err != nil || got.ResourceVersion != "3" {
		t.Errorf("wait = %v, %v; want resourceVersion 3", got, err)
	}
}

// A deletion is observed as "not there" (a nil Service), which Recreate's
// wait for the old object to go looks for, and the report marks the
// Service's last state as deleted; a Service never seen is not there
// either, but one present is.
func TestTracker_DeletionIsNotThere(t *testing.T) {
	gone := func(s *v1.Service) bool { return s == nil }
	tr := newTracker()
	if got, err := tr.wait(ended(t), "never", time.Minute, gone); err != nil || got != nil {
		t.Errorf("a Service never seen: %v, %v; want not there", got, err)
	}
	tr.observe(observed("again", "1", false, ""), false)
	if got, err := tr.wait(ended(t), "again", time.Minute, gone); err == nil {
		t.Errorf("a Service present: %v, %v; want the wait to go on", got, err)
	}
	tr.observe(observed("again", "1", false, ""), true)
	if got, err := tr.wait(ended(t), "again", time.Minute, gone); err != nil || got != nil {
		t.Errorf("a Service deleted: %v, %v; want not there", got, err)
	}
	findings, last := tr.finish()
	if len(last) != 1 || !last[0].Deleted {
		t.Errorf("last observed %+v, want again marked deleted", last)
	}
	// The deletion ended the checker's trace: its end-of-trace finding
	// says so.
	if len(findings) != 1 || !strings.Contains(findings[0].Message, "deleted") {
		t.Errorf("findings %+v, want one saying the Service was deleted", findings)
	}
}

// Every observation goes through the checker (section 8): a violation is
// kept for the report and ends every wait and hold of the test at once,
// with errViolation, so that the test fails for the rule it broke (the
// ended context shows the wait gives up for the violation before it
// would for its context).
func TestTracker_ViolationEndsWaits(t *testing.T) {
	tr := newTracker()
	tr.observe(observed("basic", "1", false, ""), false)
	tr.observe(observed("basic", "2", true, ""), false) // Serving=True without an address (L4)
	findings, _ := tr.finish()
	if !slices.ContainsFunc(findings, func(f conformance.Finding) bool {
		return f.Rule == "L4" && f.Severity == conformance.SeverityViolation
	}) {
		t.Errorf("findings %+v, want the L4 violation", findings)
	}
	never := func(*v1.Service) bool { return false }
	if _, err := tr.wait(ended(t), "basic", time.Minute, never); !errors.Is(err, errViolation) {
		t.Errorf("wait: %v, want errViolation", err)
	}
	if _, err := tr.hold(ended(t), "other", time.Minute, never); !errors.Is(err, errViolation) {
		t.Errorf("hold: %v, want errViolation", err)
	}
}

// The report's findings leave out the checker's verdict notices, and hold
// the end-of-trace ones; the last observations are sorted by name, each
// with the Service's type then.
func TestTracker_FindingsAndLastObserved(t *testing.T) {
	tr := newTracker()
	tr.observe(observed("served", "1", false, ""), false)
	tr.observe(observed("served", "2", true, "192.0.2.1"), false)
	tr.observe(observed("bare", "1", false, ""), false)
	retyped := observed("retyped", "1", false, "")
	retyped.Spec.Type = corev1.ServiceTypeClusterIP
	tr.observe(retyped, false)
	findings, last := tr.finish()
	for _, f := range findings {
		if f.Verdict != nil {
			t.Errorf("a verdict notice in the findings: %+v", f)
		}
	}
	if !slices.ContainsFunc(findings, func(f conformance.Finding) bool { return f.Rule == "R3" && f.Object.Name == "bare" }) {
		t.Errorf("findings %+v, want the end-of-trace R3 notice on bare", findings)
	}
	if len(last) != 3 || last[0].Name != "bare" || last[1].Name != "retyped" || last[2].Name != "served" || last[2].ResourceVersion != "2" {
		t.Fatalf("last observed %+v, want bare, retyped, then served at resourceVersion 2", last)
	}
	// The type goes with the state: a ClusterIP Service owes no conditions.
	if last[1].Type != corev1.ServiceTypeClusterIP || last[2].Type != corev1.ServiceTypeLoadBalancer {
		t.Errorf("last observed types %q and %q, want ClusterIP and LoadBalancer", last[1].Type, last[2].Type)
	}
}

// A hold whose period passes found nothing; one cut short by the caller's
// context is an error, not a clean pass of ForeignClass.
func TestTracker_HoldEndedByTheCaller(t *testing.T) {
	tr := newTracker()
	never := func(*v1.Service) bool { return false }
	ctx, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	<-ctx.Done()
	if bad, err := tr.hold(ctx, "foreign", time.Minute, never); err == nil {
		t.Errorf("hold on an ended context: %v, nil; want its error", bad)
	}
	if bad, err := tr.hold(t.Context(), "foreign", 0, never); err != nil || bad != nil {
		t.Errorf("hold whose period passed: %v, %v; want nil, nil", bad, err)
	}
}

// TestTracker_WatchesItsNamespaceAlone: a test's tracker sees the Services
// of its own namespace, not those of the tests that run beside it, which
// may have the same names.
func TestTracker_WatchesItsNamespaceAlone(t *testing.T) {
	client := fake.NewClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "web"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "beside", Name: "other"}},
	)
	tr := newTracker()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if err := tr.start(ctx, client, "t", time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, svc := range []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "beside", Name: "late"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "last"}},
	} {
		if _, err := client.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// One watch delivers in order: what came before last has come.
	if _, err := tr.wait(ctx, "last", 5*time.Second, func(s *v1.Service) bool { return s != nil }); err != nil {
		t.Fatal(err)
	}
	_, observed := tr.finish()
	var names []string
	for _, o := range observed {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"last", "web"}) {
		t.Errorf("observed %v, want last and web alone", names)
	}
}

// TestTracker_RelistIsAGap: a list after a watch that failed (410 Gone, an
// apiserver restart) shows what the provider wrote while nobody watched;
// the state it brings is compared as after a gap (section 8, "Live
// watches"), not judged as the provider's first write (L1). The same state
// delivered by the watch was seen from its start, and is judged.
func TestTracker_RelistIsAGap(t *testing.T) {
	created := observed("web", "1", false, "")
	// Provisioned, served, then reprovisioned while serving: the provider's
	// writes before this were not seen.
	reprovisioning := observed("web", "9", true, "192.0.2.1")
	conds := reprovisioning.Status.Conditions
	conds[0].Status, conds[0].Reason = metav1.ConditionTrue, "Provisioning"
	for _, relist := range []bool{true, false} {
		cs := fake.NewClientset(v1.ToCore(created))
		watchers := make(chan *watch.FakeWatcher, 2)
		first := watch.NewFake()
		watchers <- first
		watchers <- watch.NewFake()
		cs.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) {
			select {
			case w := <-watchers:
				return true, w, nil
			default:
				return true, watch.NewFake(), nil
			}
		})
		tr := newTracker()
		ctx, cancel := context.WithCancel(t.Context())
		if err := tr.start(ctx, cs, "t", time.Minute); err != nil {
			t.Fatal(err)
		}
		if relist {
			if err := cs.Tracker().Update(corev1.SchemeGroupVersion.WithResource("services"), v1.ToCore(reprovisioning), "t"); err != nil {
				t.Fatal(err)
			}
			first.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired})
		} else {
			first.Modify(v1.ToCore(reprovisioning))
		}
		seen := func(s *v1.Service) bool { return s != nil && s.ResourceVersion == "9" }
		waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
		_, err := tr.wait(waitCtx, "web", time.Minute, seen)
		stop()
		cancel()
		if err != nil && !errors.Is(err, errViolation) {
			t.Fatalf("relist %v: %v", relist, err)
		}
		findings, _ := tr.finish()
		l1 := slices.ContainsFunc(findings, func(f conformance.Finding) bool { return f.Rule == "L1" })
		if l1 == relist {
			t.Errorf("relist %v: findings %+v; want an L1 violation only when the watch delivered the write", relist, findings)
		}
	}
}

// TestTracker_WatchErrorsAreNotLogged: a list or watch that fails is the
// test's to report (its reason names the error) or a gap of the trace;
// client-go's default handler would also log it through klog, on the
// standard error of lbstatus conformance, between its progress lines and
// in a piped run, one raw line per retry.
func TestTracker_WatchErrorsAreNotLogged(t *testing.T) {
	var logged bytes.Buffer
	klog.LogToStderr(false)
	klog.SetOutput(&logged)
	t.Cleanup(func() {
		klog.SetOutput(io.Discard)
		klog.LogToStderr(true)
	})
	client := fake.NewClientset()
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	tr := newTracker()
	err := tr.start(t.Context(), client, "t", 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "etcd is down") {
		t.Errorf("start: %v, want the list's error", err)
	}
	klog.Flush()
	if logged.Len() > 0 {
		t.Errorf("logged:\n%s", logged.String())
	}
}

// A hold judges every observation since the first, also a bad state the
// provider wrote and took back before the hold began (ForeignClass holds
// only once its own Service is served).
func TestTracker_HoldSeesWhatCameBefore(t *testing.T) {
	tr := newTracker()
	tr.observe(observed("foreign", "1", false, ""), false)
	tr.observe(observed("foreign", "2", false, "192.0.2.1"), false)
	tr.observe(observed("foreign", "3", false, ""), false)
	bad, err := tr.hold(t.Context(), "foreign", time.Millisecond, func(s *v1.Service) bool { return len(s.Status.LoadBalancer.Ingress) > 0 })
	if err != nil || bad == nil || bad.ResourceVersion != "2" {
		t.Errorf("hold = %v, %v; want the write of resourceVersion 2", bad, err)
	}
}
