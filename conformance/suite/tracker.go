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
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	watchapi "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
)

// errViolation ends a wait early: the checker found a violation on the
// test's Services, so the test has failed whatever comes next.
var errViolation = errors.New("the checker found a violation")

// tracker watches the Services of one test's namespace, as the project's
// type: where a server serves spec.requiredLoadBalancerFeatures, the
// checker reads it. Every observation goes through the test's own checker
// (section 8), and the last state of each Service is kept, also after its
// deletion, for the report. Observations are the informer's own objects,
// read and never changed.
type tracker struct {
	mu       sync.Mutex
	checker  *conformance.Checker
	findings []conformance.Finding
	violated bool
	// history holds every observation of each Service in order, nil for
	// its deletion, so that a wait sees a state the provider wrote and
	// took back at once (a test's Services see a few writes each).
	history map[string][]*v1.Service
	last    map[string]ObservedService
	// changed is closed and replaced on every observation, waking waits.
	changed chan struct{}
	// lists counts the informer's lists; relisted holds the
	// resourceVersion of each Service in the latest list after the first.
	// A list follows a watch that failed (410 Gone, an apiserver restart):
	// what the provider wrote in between was not seen (section 8, "Live
	// watches"), and the observation the list brings is marked as a gap.
	lists    int
	relisted map[string]string
	// unwatched is the error of the last attempt to watch, nil once one
	// succeeds: after a refused watch the informer lists again, ever
	// further apart, and sees the provider's writes only then.
	unwatched atomic.Pointer[error]
}

func newTracker(opts ...conformance.Option) *tracker {
	return &tracker{
		checker: conformance.NewChecker(opts...),
		history: map[string][]*v1.Service{},
		last:    map[string]ObservedService{},
		changed: make(chan struct{}),
	}
}

// start watches namespace's Services until ctx ends, and returns once the
// first list is in, or with the error of the last attempt when lists
// still fail after timeout: the informer retries a refused list without
// end.
func (t *tracker) start(ctx context.Context, client kubernetes.Interface, namespace string, timeout time.Duration) error {
	source := conditions.ServiceListWatch(client.CoreV1(), namespace)
	var failed atomic.Pointer[error] // the last list's or watch's error
	record := func(err error) {
		if err != nil && ctx.Err() == nil {
			failed.Store(&err)
		}
	}
	list, watch := source.ListWithContextFunc, source.WatchFuncWithContext
	source.ListWithContextFunc = func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		obj, err := list(ctx, opts)
		if l, ok := obj.(*v1.ServiceList); ok && err == nil {
			t.listed(l)
		}
		record(err)
		return obj, err
	}
	// A watch-list stream, where the server serves one, is the first list.
	source.WatchFuncWithContext = func(ctx context.Context, opts metav1.ListOptions) (watchapi.Interface, error) {
		w, err := watch(ctx, opts)
		record(err)
		switch {
		case err == nil, apierrors.IsResourceExpired(err), apierrors.IsGone(err):
			// An expired resourceVersion is listed again at once.
			t.unwatched.Store(nil)
		case ctx.Err() == nil:
			t.unwatched.Store(&err)
		}
		return w, err
	}
	lw := cache.ToListWatcherWithWatchListSemantics(source, client)
	informer := cache.NewSharedInformer(lw, &v1.Service{}, 0)
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.observe(obj, false) },
		UpdateFunc: func(_, obj any) { t.observe(obj, false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			t.observe(obj, true)
		},
	}); err != nil {
		return fmt.Errorf("watching Services in %s: %w", namespace, err)
	}
	// A failed list or watch is the test's reason, or a gap of the trace:
	// client-go's default handler would also log it, on the standard
	// error of lbstatus conformance, once per retry.
	if err := informer.SetWatchErrorHandlerWithContext(func(context.Context, *cache.Reflector, error) {}); err != nil {
		return fmt.Errorf("watching Services in %s: %w", namespace, err)
	}
	go informer.RunWithContext(ctx)
	// Only a list that fails ends the wait: one under way may take the
	// time it needs, whatever the deadline of L8 a run was given.
	begin := time.Now()
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
		if informer.HasSynced() {
			return true, nil
		}
		if err := failed.Load(); err != nil && time.Since(begin) >= timeout {
			return false, fmt.Errorf("watching Services in %s: the first list did not complete within %s: %w", namespace, timeout, *err)
		}
		return false, nil
	})
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("watching Services in %s: the first list did not complete", namespace)
	case err != nil:
		return err
	}
	return nil
}

// watchError returns the error of the last attempt to watch, nil when it
// succeeded or t is nil.
func (t *tracker) watchError() error {
	if t == nil {
		return nil
	}
	if err := t.unwatched.Load(); err != nil {
		return *err
	}
	return nil
}

// listed records a list of the informer: after the first, the state each
// Service is in.
func (t *tracker) listed(l *v1.ServiceList) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lists++; t.lists == 1 {
		return
	}
	t.relisted = make(map[string]string, len(l.Items))
	for i := range l.Items {
		t.relisted[l.Items[i].Name] = l.Items[i].ResourceVersion
	}
}

func (t *tracker) observe(obj any, deleted bool) {
	svc, ok := obj.(*v1.Service)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var found []conformance.Finding
	if deleted {
		t.history[svc.Name] = append(t.history[svc.Name], nil)
		found = t.checker.Forget(svc.Namespace, svc.Name)
	} else {
		if rv, ok := t.relisted[svc.Name]; ok && rv == svc.ResourceVersion {
			// Listed again unchanged, nothing was missed.
			delete(t.relisted, svc.Name)
			if rv != t.last[svc.Name].ResourceVersion {
				t.checker.Gap(svc.Namespace, svc.Name)
			}
		}
		t.history[svc.Name] = append(t.history[svc.Name], svc)
		found = t.checker.Observe(svc)
	}
	t.add(found)
	t.last[svc.Name] = ObservedService{
		Name: svc.Name, UID: string(svc.UID), ResourceVersion: svc.ResourceVersion,
		Type: svc.Spec.Type, Deleted: deleted, Status: *svc.Status.DeepCopy(),
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// add records findings; the caller holds mu. Verdict notices are left out:
// they restate what the report says about each test.
func (t *tracker) add(found []conformance.Finding) {
	for _, f := range found {
		if f.Verdict != nil {
			continue
		}
		if f.Severity == conformance.SeverityViolation {
			t.violated = true
		}
		t.findings = append(t.findings, f)
	}
}

// finish ends every open trace and returns all findings and the last
// observations, sorted by name.
func (t *tracker) finish() ([]conformance.Finding, []ObservedService) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.add(t.checker.Finish())
	out := make([]ObservedService, 0, len(t.last))
	for _, o := range t.last {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return t.findings, out
}

// wait returns the first observation of name, from the latest one when it
// starts on, for which cond holds (a nil Service stands for "not there"):
// every observation is judged, also one that the next replaced at once.
// It gives up with an error, and the latest observation, when timeout
// passes, ctx ends, or the checker finds a violation.
func (t *tracker) wait(ctx context.Context, name string, timeout time.Duration, cond func(*v1.Service) bool) (*v1.Service, error) {
	t.mu.Lock()
	next := max(len(t.history[name])-1, 0) // the first observation to judge
	t.mu.Unlock()
	return t.waitFrom(ctx, name, next, timeout, cond)
}

// waitFrom is wait judging the observations of name from the one at index
// next on.
func (t *tracker) waitFrom(ctx context.Context, name string, next int, timeout time.Duration, cond func(*v1.Service) bool) (*v1.Service, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		t.mu.Lock()
		h, violated, changed := t.history[name], t.violated, t.changed
		t.mu.Unlock()
		var latest *v1.Service
		if len(h) > 0 {
			latest = h[len(h)-1]
		}
		if violated {
			return latest, errViolation
		}
		if len(h) == 0 && cond(nil) {
			return nil, nil
		}
		for ; next < len(h); next++ {
			if cond(h[next]) {
				return h[next], nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return latest, ctx.Err()
		}
	}
}

// hold waits the whole period and returns the first observation of name,
// since the first one of all, for which bad holds, or nil when none did:
// a bad state before the hold began counts too.
func (t *tracker) hold(ctx context.Context, name string, period time.Duration, bad func(*v1.Service) bool) (*v1.Service, error) {
	svc, err := t.waitFrom(ctx, name, 0, period, func(s *v1.Service) bool { return s != nil && bad(s) })
	switch {
	case err == nil, errors.Is(err, errViolation):
		return svc, err
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, nil
	default:
		return nil, err
	}
}
