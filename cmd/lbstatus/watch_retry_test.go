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

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// sourceEvents records what a source hands to its handler, one word per
// event: "web@5" an observation, "-web" a deletion, "~web" a Service that
// left the label selector, "gap 10..20 [a b]" a gap with the Services it
// names, "lost" and "back".
type sourceEvents struct {
	mu   sync.Mutex
	evs  []string
	gaps []watchGap
	// heard holds, of each lost event, when the server was last heard.
	heard []time.Time
}

func (r *sourceEvents) handle(ev serviceEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case ev.lost:
		r.evs = append(r.evs, "lost")
		r.heard = append(r.heard, ev.heard)
	case ev.back:
		r.evs = append(r.evs, "back")
	case ev.gap != nil:
		r.gaps = append(r.gaps, *ev.gap)
		r.evs = append(r.evs, fmt.Sprintf("gap %s..%s %v", ev.gap.From, ev.gap.To, ev.gap.Services))
	case ev.left:
		r.evs = append(r.evs, "~"+ev.svc.Name)
	case ev.deleted:
		r.evs = append(r.evs, "-"+ev.svc.Name)
	default:
		r.evs = append(r.evs, ev.svc.Name+"@"+ev.svc.ResourceVersion)
	}
}

func (r *sourceEvents) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.evs, ", ")
}

// runSource runs src until the returned stop is called, which returns once
// run has.
func runSource(t *testing.T, src *listWatchSource) (events *sourceEvents, log *syncBuffer, stop func()) {
	t.Helper()
	events, log = &sourceEvents{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- src.run(ctx, log, events.handle) }()
	stop = func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the source did not stop")
		}
	}
	return events, log, stop
}

// fakeSource is a listWatchSource on a fake cluster.
func fakeSource(api serviceAPI, f *fakeCluster) *listWatchSource {
	return &listWatchSource{api: api, what: "Services in a fake cluster", server: "https://fake.example", pause: f.pause}
}

// failingLists is a fake cluster whose lists after the first fail with
// listErr(n), n counting from 2, until it returns nil.
type failingLists struct {
	*fakeCluster
	listErr func(n int) error
	mu      sync.Mutex
	n       int
}

func (f *failingLists) list(ctx context.Context) (*v1.ServiceList, error) {
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	if n > 1 {
		if err := f.listErr(n); err != nil {
			return nil, err
		}
	}
	return f.fakeCluster.list(ctx)
}

func (f *fakeCluster) delaysNow() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.delays)
}

// about reports whether d is low plus at most the fifth of jitter.
func about(d, low time.Duration) bool { return d >= low && d <= low*12/10 }

// The retry delays start at retryFirst and double up to retryCap, each
// with up to a fifth more at random, so that watchers that lost the same
// server do not all come back in step.
func TestWatchRetry_DelaysGrowWithJitter(t *testing.T) {
	b := (&listWatchSource{}).newRetry()
	jittered := 0
	for i, low := 0, retryFirst; i < 40; i, low = i+1, min(2*low, retryCap) {
		d := b.Step()
		if !about(d, low) {
			t.Fatalf("delay %d is %s, want %s to a fifth more", i, d, low)
		}
		if d != low {
			jittered++
		}
	}
	if jittered == 0 {
		t.Error("no delay has jitter: watchers that lost the same server would come back in step")
	}
}

// While the server is down the source says once that it lost the watch,
// and once that it watches again: in between, L8's clock stops.
func TestWatchRetry_LostAndBackOnce(t *testing.T) {
	refused := errors.New("connection refused")
	cluster := newFakeCluster(pending("web", "5"))
	cluster.watchErrs = []error{refused, refused, refused}
	events, log, stop := runSource(t, fakeSource(cluster, cluster))
	cluster.nextWatcher(t)
	stop()
	if got, want := events.String(), "web@5, lost, back"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	want := "lbstatus: watching Services in a fake cluster; interrupt to stop\n" +
		"lbstatus: lost the watch on https://fake.example (connection refused); trying again every few seconds\n" +
		"lbstatus: watching again from resourceVersion 10\n"
	if l := log.String(); l != want {
		t.Errorf("log:\n%s\nwant the outage said once when lost and once when resumed:\n%s", l, want)
	}
}

// A list after 410 Gone that fails is retried, at the growing delay, until
// the server answers: the watch is lost in between, and is back with the
// gap the list closes.
func TestWatchRetry_RelistRetriedUntilTheServerAnswers(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	api := &failingLists{fakeCluster: cluster, listErr: func(n int) error {
		if n <= 3 {
			return errors.New("connection refused")
		}
		return nil
	}}
	events, log, stop := runSource(t, fakeSource(api, cluster))
	w := cluster.nextWatcher(t)
	cluster.set("20", pending("web", "19"))
	w.Error(expired())
	cluster.nextWatcher(t)
	stop()
	if got, want := events.String(), "web@5, lost, gap 10..20 [default/web], web@19, back"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if d := cluster.delaysNow(); len(d) != 2 || !about(d[0], retryFirst) || !about(d[1], 2*retryFirst) {
		t.Errorf("delays %v, want about %s then %s", d, retryFirst, 2*retryFirst)
	}
	if l := log.String(); strings.Count(l, "lost the watch on https://fake.example (connection refused)") != 1 ||
		strings.Count(l, "watching again from resourceVersion 20") != 1 {
		t.Errorf("want the outage said once when lost and once when resumed:\n%s", l)
	}
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if got := strings.Join(cluster.watchRVs, ","); got != "10,20" {
		t.Errorf("watched from %s, want 10 then the new list's 20", got)
	}
}

// The list that closes a gap is the server answering again: the watch is
// back as soon as it succeeds, before the next watch is even asked for,
// not only once that watch works.
func TestWatchRetry_BackWhenTheRelistSucceeds(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	api := &failingLists{fakeCluster: cluster, listErr: func(n int) error {
		if n == 2 {
			return errors.New("connection refused")
		}
		return nil
	}}
	events, log, stop := runSource(t, fakeSource(api, cluster))
	w := cluster.nextWatcher(t)
	cluster.set("20", pending("web", "19"))
	w.Error(expired())
	cluster.nextWatcher(t) // asked for after the list: nothing on it yet
	got, l := events.String(), log.String()
	stop()
	if want := "web@5, lost, gap 10..20 [default/web], web@19, back"; got != want {
		t.Errorf("events when the next watch is asked for %q, want %q", got, want)
	}
	if !strings.Contains(l, "lbstatus: watching again from resourceVersion 20\n") {
		t.Errorf("the log does not say the watch is back when the next watch is asked for:\n%s", l)
	}
}

// An interrupt while the list after 410 Gone keeps failing ends the watch.
func TestWatchRetry_InterruptWhileRelisting(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	api := &failingLists{fakeCluster: cluster, listErr: func(int) error { return errors.New("connection refused") }}
	_, _, stop := runSource(t, fakeSource(api, cluster))
	cluster.nextWatcher(t).Error(expired())
	for deadline := time.Now().Add(30 * time.Second); len(cluster.delaysNow()) < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the source did not retry the list")
		}
	}
	stop()
}

// A resourceVersion that expires again at once is not listed for in a
// tight loop: the second list waits. A list is no outage, so nothing says
// the watch was lost. Once a watch works, the next expiry lists at once.
func TestWatchRetry_ExpiredAgainAtOnceWaits(t *testing.T) {
	gone := apierrors.NewResourceExpired("too old resource version")
	cluster := newFakeCluster(pending("web", "5"))
	cluster.watchErrs = []error{gone, gone}
	events, log, stop := runSource(t, fakeSource(cluster, cluster))
	w := cluster.nextWatcher(t)
	if d := cluster.delaysNow(); len(d) != 1 || !about(d[0], retryFirst) {
		t.Errorf("delays %v, want one of about %s, before the second list", d, retryFirst)
	}
	w.Modify(pending("web", "11")) // a watch that works...
	cluster.set("20", pending("web", "11"))
	w.Error(expired()) // ...then expires
	cluster.nextWatcher(t)
	stop()
	if d := cluster.delaysNow(); len(d) != 1 {
		t.Errorf("delays %v: the list after a working watch waited", d)
	}
	if n := cluster.lists.Load(); n != 4 {
		t.Errorf("%d lists, want 4", n)
	}
	if got, want := events.String(), "web@5, gap 10..10 [], gap 10..10 [], web@11, gap 11..20 []"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if l := log.String(); strings.Contains(l, "lost the watch") {
		t.Errorf("an expiry said the watch was lost:\n%s", l)
	}
}

// Expiries are not watches the server ended at once without a word: however
// many come in a row, each is a gap and a list, never a lost watch.
func TestWatchRetry_ExpiredManyTimesAtOnceIsNotLost(t *testing.T) {
	gone := apierrors.NewResourceExpired("too old resource version")
	cluster := newFakeCluster(pending("web", "5"))
	cluster.watchErrs = slices.Repeat([]error{gone}, closedAtOnceLost+1)
	events, log, stop := runSource(t, fakeSource(cluster, cluster))
	cluster.nextWatcher(t)
	stop()
	want := "web@5" + strings.Repeat(", gap 10..10 []", closedAtOnceLost+1)
	if got := events.String(); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if l := log.String(); strings.Contains(l, "lost the watch") {
		t.Errorf("expiries said the watch was lost:\n%s", l)
	}
}

// A watch that stayed open for healthyWatch worked, though it ends with an
// error event: after an expiry that follows it, the list does not wait as
// when the resourceVersion expires again at once.
func TestWatchRetry_QuietWatchThatStayedOpenThenExpired(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	cluster.watchErrs = []error{apierrors.NewResourceExpired("too old resource version")}
	events, _, stop := runSource(t, fakeSource(cluster, cluster))
	w := cluster.nextWatcher(t)
	time.Sleep(healthyWatch + 100*time.Millisecond)
	cluster.set("20", pending("web", "11"))
	w.Error(expired())
	cluster.nextWatcher(t)
	stop()
	if d := cluster.delaysNow(); len(d) != 0 {
		t.Errorf("delays %v: the list after a watch that stayed open waited", d)
	}
	if got, want := events.String(), "web@5, gap 10..10 [], gap 10..20 [default/web], web@11"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// The Services a gap names are those that differ from what the source
// last saw, on the watch or at the list before: not one changed or deleted
// on the watch since, nor one a list already reported.
func TestWatchRetry_GapsNameWhatChangedSinceLastSeen(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"), pending("api", "6"), pending("old", "7"))
	events, _, stop := runSource(t, fakeSource(cluster, cluster))
	w := cluster.nextWatcher(t)
	w.Modify(pending("api", "12"))
	w.Delete(pending("old", "13"))
	cluster.set("20", pending("api", "12"), pending("fresh", "15"))
	w.Error(expired())
	w = cluster.nextWatcher(t)
	cluster.set("30", pending("api", "12"))
	w.Error(expired())
	cluster.nextWatcher(t)
	stop()
	want := "web@5, api@6, old@7, api@12, -old, gap 13..20 [default/fresh default/web], fresh@15, -web, gap 20..30 [default/fresh], -fresh"
	if got := events.String(); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
}

// A gap names its Services in name order, and the traces of those deleted
// in it end in name order too, whatever order the list gave (or a map).
func TestWatchRetry_GapInNameOrder(t *testing.T) {
	var listed []*v1.Service
	var seen, names, ended []string
	for i := range 20 {
		name := fmt.Sprintf("g%02d", i)
		listed = append(listed, pending(name, strconv.Itoa(i)))
		seen = append(seen, name+"@"+strconv.Itoa(i))
		names = append(names, "default/"+name)
		ended = append(ended, "-"+name)
	}
	cluster := newFakeCluster(listed...)
	events, _, stop := runSource(t, fakeSource(cluster, cluster))
	w := cluster.nextWatcher(t)
	cluster.set("30", pending("zz", "21"), pending("aa", "22"))
	w.Error(expired())
	cluster.nextWatcher(t)
	stop()
	names = append(append([]string{"default/aa"}, names...), "default/zz")
	want := strings.Join(seen, ", ") + fmt.Sprintf(", gap 10..30 %v, zz@21, aa@22, ", names) + strings.Join(ended, ", ")
	if got := events.String(); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
}

// A watch that ends with an error event is lost, with the server's words;
// the retry delay grows while watches fail at once, and starts small again
// after one that delivered Services (an ADDED one as a MODIFIED one). A
// server that accepts each watch and ends it at once is still down: the
// loss is said once, and the watch is back only when one works (delivers
// a Service, stays open for a while, or is open when the watch stops).
func TestWatchRetry_ErrorEvents(t *testing.T) {
	down := &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: "etcd is down"}
	cluster := newFakeCluster(pending("web", "5"))
	events, log, stop := runSource(t, fakeSource(cluster, cluster))
	cluster.nextWatcher(t).Error(down)
	cluster.nextWatcher(t).Error(down)
	w := cluster.nextWatcher(t)
	if d := cluster.delaysNow(); len(d) != 2 || !about(d[0], retryFirst) || !about(d[1], 2*retryFirst) {
		t.Errorf("delays %v, want about %s then %s", d, retryFirst, 2*retryFirst)
	}
	w.Add(pending("api", "11"))
	w.Error(down)
	w = cluster.nextWatcher(t)
	if d := cluster.delaysNow(); len(d) != 2 {
		t.Errorf("delays %v: waited after a watch that worked", d)
	}
	w.Error(down)
	cluster.nextWatcher(t)
	stop()
	if d := cluster.delaysNow(); len(d) != 3 || !about(d[2], retryFirst) {
		t.Errorf("delays %v, want a third of about %s", d, retryFirst)
	}
	// The last watch is open when the watch stops: back.
	if got, want := events.String(), "web@5, lost, back, api@11, lost, back"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if l := log.String(); strings.Count(l, "lost the watch on https://fake.example (etcd is down)") != 2 ||
		strings.Count(l, "watching again") != 2 {
		t.Errorf("want each loss said once, with the server's words, and the watch back once:\n%s", l)
	}
}

// The server's words reach the terminal escaped, as every string from an
// input does: a message holding "\x1b[2J" would clear the screen.
func TestWatchRetry_ServerWordsAreEscaped(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	_, log, stop := runSource(t, fakeSource(cluster, cluster))
	cluster.nextWatcher(t).Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: "down\x1b[2J"})
	cluster.nextWatcher(t)
	stop()
	if l := log.String(); !strings.Contains(l, `(down\x1b[2J)`) || strings.Contains(l, "\x1b") {
		t.Errorf("want the message escaped:\n%q", l)
	}
	g := watchGap{From: "1\x1b", To: "2", Reason: "gone\u202e", Changed: 0}
	if got := g.text(); !strings.Contains(got, `after 1\x1b up to 2 were not observed (gone\u202e)`) {
		t.Errorf("gap line %q, want its server strings escaped", got)
	}
}

// The Services a gap names are the server's words too: a name holding
// "\x1b[2J" reaches the terminal escaped, as in the findings' lines.
func TestWatchRetry_GapNamesAreEscaped(t *testing.T) {
	g := watchGap{From: "1", To: "2", Reason: "gone", Changed: 2, Services: []string{"shop/api", "shop/web\x1b[2J\u202e"}}
	if got := g.text(); strings.ContainsAny(got, "\x1b\u202e") || !strings.Contains(got, `: shop/api, shop/web\x1b[2J\u202e;`) {
		t.Errorf("gap line %q, want the names escaped", got)
	}
}

// An event without a resourceVersion does not move where the watch resumes.
func TestWatchRetry_ResumeIgnoresAnEmptyResourceVersion(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	events, _, stop := runSource(t, fakeSource(cluster, cluster))
	w := cluster.nextWatcher(t)
	w.Modify(pending("web", ""))
	w.Stop()
	cluster.nextWatcher(t)
	stop()
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if got := strings.Join(cluster.watchRVs, ","); got != "10,10" {
		t.Errorf("watched from %s (events %s), want 10 twice", got, events)
	}
}

// An event of a state already delivered (the same uid and
// resourceVersion, as a watch that replays what the list showed sends it)
// is not delivered again: each observation is checked once (section 8).
func TestWatchRetry_KnownStateNotDeliveredAgain(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	events, _, stop := runSource(t, fakeSource(cluster, cluster))
	w := cluster.nextWatcher(t)
	w.Add(pending("web", "5"))
	w.Modify(pending("web", "6"))
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(events.String(), "web@6") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if got := events.String(); got != "web@5, web@6" {
		t.Errorf("events %s, want web@5, web@6", got)
	}
}

// A 410 whose Status carries no message still says why the watch listed
// again.
func TestWatchRetry_GapReasonWithoutMessage(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	events, _, stop := runSource(t, fakeSource(cluster, cluster))
	cluster.nextWatcher(t).Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired})
	cluster.nextWatcher(t)
	stop()
	events.mu.Lock()
	defer events.mu.Unlock()
	if len(events.gaps) != 1 || events.gaps[0].Reason != "the watch's resourceVersion expired (410 Gone: expired)" {
		t.Errorf("gaps %+v, want one whose reason ends (410 Gone: expired)", events.gaps)
	}
}

// sleep waits out its delay, and ends at once with its context: an
// interrupt during a retry delay is not kept waiting.
func TestWatchRetry_Sleep(t *testing.T) {
	done := make(chan struct{})
	go func() {
		sleep(context.Background(), time.Millisecond)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		sleep(ctx, time.Hour)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("sleep did not return")
	}
}

// A watch the server ends at once, having delivered nothing, is a failing
// one: the next waits. One that stayed open for healthyWatch worked, though
// the cluster was quiet (an apiserver ends each watch at its timeout): the
// next starts at once.
func TestWatchRetry_QuietWatchThatStayedOpenWorked(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	_, log, stop := runSource(t, fakeSource(cluster, cluster))
	cluster.nextWatcher(t).Stop()
	w := cluster.nextWatcher(t)
	if d := cluster.delaysNow(); len(d) != 1 || !about(d[0], retryFirst) {
		t.Errorf("delays %v, want one of about %s after a watch that ended at once", d, retryFirst)
	}
	time.Sleep(healthyWatch + 100*time.Millisecond)
	w.Stop()
	cluster.nextWatcher(t)
	stop()
	if d := cluster.delaysNow(); len(d) != 1 {
		t.Errorf("delays %v: waited after a quiet watch that stayed open", d)
	}
	if l := log.String(); strings.Contains(l, "lost the watch") {
		t.Errorf("a watch the server ended was said lost:\n%s", l)
	}
}

// A lost watch is back once a watch has stayed open for healthyWatch,
// though the cluster is quiet and it delivers nothing: the log says so
// then, not only at the first event or the interrupt.
func TestWatchRetry_BackWhenAQuietWatchStaysOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster := newFakeCluster(pending("web", "5"))
		events, log, stop := runSource(t, fakeSource(cluster, cluster))
		cluster.nextWatcher(t).Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: "etcd is down"})
		cluster.nextWatcher(t)
		time.Sleep(healthyWatch)
		synctest.Wait()
		got, l := events.String(), log.String()
		stop()
		if want := "web@5, lost, back"; got != want {
			t.Errorf("events after a quiet watch stayed open %s: %q, want %q", healthyWatch, got, want)
		}
		if !strings.Contains(l, "lbstatus: watching again from resourceVersion 10\n") {
			t.Errorf("the log does not say the watch is back:\n%s", l)
		}
	})
}

// A server that ends every watch at once, with no error and nothing
// delivered, watches nothing: after closedAtOnceLost of them in a row the
// watch is lost, said once, and it is back when a watch works again. Fewer
// in a row, as when a server restarts, are no loss.
func TestWatchRetry_WatchesEndedAtOnceAreLost(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	events, log, stop := runSource(t, fakeSource(cluster, cluster))
	for range closedAtOnceLost - 1 {
		cluster.nextWatcher(t).Stop()
	}
	w := cluster.nextWatcher(t)
	w.Add(pending("api", "11")) // works: the count starts again
	w.Stop()
	for range closedAtOnceLost + 2 {
		cluster.nextWatcher(t).Stop()
	}
	w = cluster.nextWatcher(t)
	w.Add(pending("db", "12"))
	w.Stop()
	cluster.nextWatcher(t)
	stop()
	if got, want := events.String(), "web@5, api@11, lost, back, db@12"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	lost := fmt.Sprintf("lost the watch on https://fake.example (the server ended %d watches in a row at once, without an event)", closedAtOnceLost)
	if l := log.String(); strings.Count(l, lost) != 1 || strings.Count(l, "watching again from resourceVersion 11") != 1 {
		t.Errorf("log:\n%s\nwant the loss said once, as %q, and the watch back once", l, lost)
	}
}

// A watch the server neither ends at its timeout nor sends anything on for
// a grace after (a tenth of so short a timeout), as when its connection
// died unseen, is lost, said
// once; the next resumes from the last resourceVersion seen, at once, and
// is back when it works.
func TestWatchRetry_SilentPastItsTimeoutIsLost(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	src := fakeSource(cluster, cluster)
	src.watchTimeout = time.Second
	events, log, stop := runSource(t, src)
	cluster.nextWatcher(t).Modify(pending("web", "11"))
	cluster.nextWatcher(t).Add(pending("api", "12"))
	waitFor(t, log, "lbstatus: watching again from resourceVersion 11\n")
	stop()
	if got, want := events.String(), "web@5, web@11, lost, back, api@12"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if l := log.String(); strings.Count(l, "lost the watch on https://fake.example (the watch stayed open past its timeout of ") != 1 {
		t.Errorf("log:\n%s\nwant the silent watch said lost once", l)
	}
	if d := cluster.delaysNow(); len(d) != 0 {
		t.Errorf("delays %v: waited after a watch that had worked", d)
	}
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if got := strings.Join(cluster.watchRVs, ","); got != "10,11" {
		t.Errorf("watched from %s, want 10 then the event's 11", got)
	}
}

// A watch gone silent was lost when the server was last heard from (here
// its last event), not when the silence was noticed, a timeout later: the
// summary's "lost at" and L8's clock stop there.
func TestWatchRetry_SilentWatchLostWhenLastHeard(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	src := fakeSource(cluster, cluster)
	src.watchTimeout = time.Second
	events, log, stop := runSource(t, src)
	w := cluster.nextWatcher(t)
	before := time.Now()
	w.Modify(pending("web", "11"))
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(events.String(), "web@11"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the event was not delivered: %s", events)
		}
	}
	after := time.Now()
	waitFor(t, log, "lost the watch")
	stop()
	events.mu.Lock()
	defer events.mu.Unlock()
	if len(events.heard) != 1 || events.heard[0].Before(before) || events.heard[0].After(after) {
		t.Errorf("lost with the server last heard at %v, want one between %v and %v, when the last event came",
			events.heard, before.Format(time.StampMicro), after.Format(time.StampMicro))
	}
}

// A watch gone silent is lost silentGrace after the server should have
// ended it, not a tenth of its timeout of up to 10 minutes later: the
// watch asks for that timeout unchanged, and the loss is noticed soon
// after it.
func TestWatchRetry_SilentWatchNoticedSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Minute
		start := time.Now()
		_, _, err := (&listWatchSource{}).consume(context.Background(), watch.NewFake(), "10", timeout, map[string]observed{},
			func(serviceEvent) {}, func() {})
		if _, ok := errors.AsType[*silentWatch](err); !ok || time.Since(start) < timeout || time.Since(start) > timeout+silentGrace {
			t.Errorf("after %s: %v; want the watch lost at most %s past its timeout of %s", time.Since(start), err, silentGrace, timeout)
		}
	})
}

// noList is a fake cluster whose lists answer without error and without a
// list.
type noList struct{ *fakeCluster }

func (noList) list(context.Context) (*v1.ServiceList, error) { return nil, nil }

// A list that comes back empty-handed is an error, not a crash.
func TestWatchRetry_NoListIsAnError(t *testing.T) {
	cluster := newFakeCluster()
	err := fakeSource(noList{cluster}, cluster).run(context.Background(), &syncBuffer{}, func(serviceEvent) {})
	if want := "listing Services on https://fake.example: the server returned no list"; err == nil || err.Error() != want {
		t.Errorf("run: %v, want %q", err, want)
	}
}

// A list after 410 Gone that the server does not answer within
// --request-timeout says so, as the first list does, rather than in Go's
// words: the flag is what a user of a large or slow cluster raises.
func TestWatchRetry_RelistTimeoutNamesTheFlag(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	src := fakeSource(&slowRelist{fakeCluster: cluster}, cluster)
	src.requestTimeout = time.Millisecond
	_, log, stop := runSource(t, src)
	cluster.nextWatcher(t).Error(expired())
	cluster.nextWatcher(t)
	stop()
	want := "lbstatus: lost the watch on https://fake.example (listing Services: no answer within 1ms (--request-timeout)); trying again every few seconds\n"
	if l := log.String(); !strings.Contains(l, want) {
		t.Errorf("log:\n%s\nwant:\n%s", l, want)
	}
}

// slowRelist is a fake cluster whose second list answers only once its
// request has timed out, in client-go's words.
type slowRelist struct {
	*fakeCluster
	n atomic.Int32
}

func (s *slowRelist) list(ctx context.Context) (*v1.ServiceList, error) {
	if s.n.Add(1) == 2 {
		<-ctx.Done()
		return nil, fmt.Errorf("Get %q: %w", "https://fake.example/api/v1/namespaces/default/services", ctx.Err())
	}
	return s.fakeCluster.list(ctx)
}

// Silence counts from the server's last event even past the watch's
// timeout: a server late to end a watch that still delivers events is
// heard, and the watch is lost only silentGrace after the last of them.
func TestWatchRetry_EventsPastTheTimeoutAreHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Minute
		w := watch.NewFake()
		done := make(chan error, 1)
		var handled atomic.Int32
		go func() {
			_, _, err := (&listWatchSource{}).consume(context.Background(), w, "10", timeout, map[string]observed{},
				func(serviceEvent) { handled.Add(1) }, func() {})
			done <- err
		}()
		time.Sleep(timeout + silentGrace - time.Second)
		w.Modify(pending("web", "11"))
		synctest.Wait()
		time.Sleep(silentGrace - time.Second)
		select {
		case err := <-done:
			t.Fatalf("%s after an event that came %s past the timeout: %v; want the watch still open", silentGrace-time.Second, silentGrace-time.Second, err)
		default:
		}
		time.Sleep(2 * time.Second)
		if err := <-done; handled.Load() != 1 {
			t.Errorf("%d events handled, want 1", handled.Load())
		} else if _, ok := errors.AsType[*silentWatch](err); !ok {
			t.Errorf("consume: %v, want the watch lost", err)
		}
	})
}

// Only watches ended at once in a row are a lost watch: one that works
// between them starts the count again, however often a server that
// restarts now and then ends one at once.
func TestWatchRetry_WatchesEndedAtOnceBetweenWorkingOnesAreNoLoss(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	events, log, stop := runSource(t, fakeSource(cluster, cluster))
	var want []string
	for i := range closedAtOnceLost + 1 {
		cluster.nextWatcher(t).Stop()
		w := cluster.nextWatcher(t)
		rv := strconv.Itoa(11 + i)
		w.Modify(pending("web", rv))
		w.Stop()
		want = append(want, "web@"+rv)
	}
	cluster.nextWatcher(t)
	stop()
	if got, want := events.String(), "web@5, "+strings.Join(want, ", "); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if l := log.String(); strings.Contains(l, "lost the watch") {
		t.Errorf("watches ended at once, each after one that worked, said the watch was lost:\n%s", l)
	}
}
