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
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

// measuredSource delivers the events next makes, one step at a time, and
// measures the heap after warm steps and again after all steps, then waits
// for the end.
type measuredSource struct {
	warm, steps int
	next        func(step int, handle func(serviceEvent))
	before      uint64
	after       uint64
	done        chan struct{}
}

func (*measuredSource) describe() string { return "a measured source" }

func (m *measuredSource) run(ctx context.Context, _ io.Writer, handle func(serviceEvent)) error {
	for i := range m.steps {
		if i == m.warm {
			m.before = conformancetest.HeapAfterGC()
		}
		m.next(i, handle)
	}
	m.after = conformancetest.HeapAfterGC()
	close(m.done)
	<-ctx.Done()
	return nil
}

// lineCounter counts the lines written to it, and keeps none.
type lineCounter struct{ lines int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte("\n"))
	return len(p), nil
}

// runMeasured runs "lbstatus watch args" on src, its output counted and
// dropped, and returns how much the heap grew between src's two
// measurements, and how many lines the watch printed.
func runMeasured(t *testing.T, src *measuredSource, args ...string) (grew int64, lines int) {
	t.Helper()
	src.done = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	var stdout lineCounter
	go func() {
		exit <- runContext(ctx, append([]string{"watch"}, args...), strings.NewReader(""), &stdout, io.Discard,
			env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
	}()
	select {
	case <-src.done:
	case code := <-exit:
		t.Fatalf("watch ended with %d before the source was done", code)
	case <-time.After(2 * time.Minute):
		t.Fatal("the source was not done after 2 minutes")
	}
	cancel()
	<-exit
	return int64(src.after) - int64(src.before), stdout.lines
}

// churned is the Service of step i of a churn: created (a ClusterIP one
// every fifth step, converted later), provisioned, then served.
func churned(i, phase int) *v1.Service {
	name := "svc-" + strconv.Itoa(i)
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "churn", Name: name, UID: types.UID("uid-" + name),
		ResourceVersion:   strconv.Itoa(3*i + phase + 1),
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second))}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}
	switch phase {
	case 0:
		if i%5 == 0 {
			svc.Spec.Type = corev1.ServiceTypeClusterIP
		}
	case 1:
		svc.Status.Conditions = lbConditions(metav1.ConditionTrue, metav1.ConditionFalse, "Provisioning", i)
	case 2:
		svc.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", i+1)
		if i%7 != 0 { // else Serving without an ingress: a violation (L4)
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
		}
	}
	return svc
}

// Section 8: memory is bounded by the number of distinct live Services,
// in every output format. A watch left running on a busy cluster sees
// Services created and deleted for ever, a hundred alive at a time: what
// it keeps for them must go when they go, or a week of churn fills the
// memory. The heap after 20,000 Services came and went is compared with
// the heap after 2,000: 100 bytes kept per Service would be 1.8 MB, a
// timeline of each of them tens of MB.
func TestWatch_MemoryBoundedUnderChurn(t *testing.T) {
	const live, total = 100, 20000
	for _, args := range [][]string{nil, {"-o", "json"}, {"--timeline"}} {
		t.Run(strings.Join(append([]string{"watch"}, args...), " "), func(t *testing.T) {
			src := &measuredSource{warm: total / 10, steps: total, next: func(i int, handle func(serviceEvent)) {
				handle(serviceEvent{svc: churned(i, 0)})
				if i >= 1 {
					handle(serviceEvent{svc: churned(i-1, 1)})
				}
				if i >= 2 {
					handle(serviceEvent{svc: churned(i-2, 2)})
				}
				if i%1000 == 999 {
					// A relist after 410 Gone: it names the Services
					// that changed, the deleted among them.
					g := &watchGap{From: "1", To: "2", Reason: "test"}
					for j := max(0, i-live-10); j <= i; j++ {
						g.Services = append(g.Services, "churn/svc-"+strconv.Itoa(j))
					}
					g.Changed = len(g.Services)
					handle(serviceEvent{gap: g})
				}
				if i >= live {
					gone := churned(i-live, 2)
					handle(serviceEvent{svc: gone, deleted: true})
				}
			}}
			grew, _ := runMeasured(t, src, args...)
			t.Logf("the heap grew by %d bytes from %d to %d Services churned", grew, src.warm, src.steps)
			if limit := int64(2 << 20); grew > limit {
				t.Errorf("the heap grew by %.1f MiB while %d Services came and went, %d alive at a time; want under %d MiB: memory grows with every Service ever seen",
					float64(grew)/(1<<20), total-src.warm, live, limit>>20)
			}
		})
	}
}

// countedSource runs a source, and measures the heap after warm of the
// Service events it delivers and again after total, from inside its
// handler, so that no event is in flight: the source holds the next.
type countedSource struct {
	serviceSource
	warm, total   int
	before, after uint64
	done          chan struct{}
}

func (c *countedSource) run(ctx context.Context, log io.Writer, handle func(serviceEvent)) error {
	n := 0
	return c.serviceSource.run(ctx, log, func(ev serviceEvent) {
		handle(ev)
		if ev.svc == nil {
			return
		}
		switch n++; n {
		case c.warm:
			c.before = conformancetest.HeapAfterGC()
		case c.total:
			c.after = conformancetest.HeapAfterGC()
			close(c.done)
		}
	})
}

// Section 8: what the watch's own source keeps for a Service goes with it
// too. Under -l, each DELETED event asks whether the Service only left the
// selector; 50,000 Services come and go on the watch, a hundred alive at a
// time, and the heap after them is compared with the heap after 5,000:
// 50 bytes kept per Service deleted would be 2.1 MiB.
func TestWatch_SourceMemoryBoundedUnderChurn(t *testing.T) {
	const live, total = 100, 50000
	cluster := newFakeCluster()
	src := &countedSource{serviceSource: fakeSource(selectingCluster{cluster}, cluster), warm: 3 * total / 10, total: 3*total - live, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- runContext(ctx, []string{"watch", "-l", "app=web"}, strings.NewReader(""), &lineCounter{}, io.Discard,
			env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
	}()
	w := cluster.nextWatcher(t)
	for i := range total {
		w.Add(churned(i, 0))
		w.Modify(churned(i, 2))
		if i >= live {
			w.Delete(churned(i-live, 2))
		}
	}
	select {
	case <-src.done:
	case code := <-exit:
		t.Fatalf("watch ended with %d before the source was done", code)
	case <-time.After(2 * time.Minute):
		t.Fatal("the source was not done after 2 minutes")
	}
	cancel()
	<-exit
	grew := int64(src.after) - int64(src.before)
	t.Logf("the heap grew by %d bytes from %d to %d Services churned", grew, src.warm/3, total)
	if limit := int64(2 << 20); grew > limit {
		t.Errorf("the heap grew by %.1f MiB while %d Services came and went, %d alive at a time; want under %d MiB: the source keeps something of every Service deleted",
			float64(grew)/(1<<20), total-src.warm/3, live, limit>>20)
	}
}

// One Service whose status flaps for a week, with a violation on every
// write: each observation is printed as it comes, and only counts, capped
// lists and the Service's own state are kept, in every output format.
func TestWatch_MemoryBoundedUnderFlapping(t *testing.T) {
	const total = 50000
	for _, args := range [][]string{nil, {"-o", "json"}, {"--timeline"}} {
		t.Run(strings.Join(append([]string{"watch"}, args...), " "), func(t *testing.T) {
			src := &measuredSource{warm: total / 10, steps: total, next: func(i int, handle func(serviceEvent)) {
				handle(serviceEvent{svc: service("flap", strconv.Itoa(i+1), func(s *v1.Service) {
					status := []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}[i%2]
					// Serving without an ingress, and a message that
					// differs every time: a violation on every write.
					s.Status.Conditions = lbConditions(metav1.ConditionFalse, status, "Serving", i)
					s.Status.Conditions[1].Message = fmt.Sprintf("write %d", i)
					s.Status.Conditions[1].Reason = "not a reason!"
				})})
			}}
			grew, lines := runMeasured(t, src, args...)
			t.Logf("the heap grew by %d bytes from %d to %d observations", grew, src.warm, src.steps)
			if lines < total {
				t.Errorf("%d lines printed for %d observations, each with a violation", lines, total)
			}
			if limit := int64(2 << 20); grew > limit {
				t.Errorf("the heap grew by %.1f MiB over %d observations of one Service; want under %d MiB: memory grows with every observation",
					float64(grew)/(1<<20), total-src.warm, limit>>20)
			}
		})
	}
}

// A watch's --timeline keeps the timelines of the latest deleted Services
// only, and says how many it let go.
func TestWatch_TimelineOfDeletedServicesBounded(t *testing.T) {
	const total = 2*watchEndedTimelines + 50
	var src replaySource
	for i := range total {
		svc := pending(fmt.Sprintf("gone-%03d", i), strconv.Itoa(i+1))
		src = append(src, serviceEvent{svc: svc}, serviceEvent{svc: svc, deleted: true})
	}
	src = append(src, serviceEvent{svc: pending("alive", strconv.Itoa(total+1))})
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }}, "--timeline")
	waitFor(t, stdout, "default/alive")
	stop()
	out := stdout.String()
	want := fmt.Sprintf("The timelines of %d more Services deleted while watching are not shown: only the %d latest deleted are kept",
		total-watchEndedTimelines, watchEndedTimelines)
	if !strings.Contains(out, want) {
		t.Errorf("no line %q in:\n%s", want, out[max(0, len(out)-2000):])
	}
	// A timeline begins with the Service's name at the start of a line.
	var shown []int
	for _, m := range regexp.MustCompile(`(?m)^default/gone-(\d+): `).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		shown = append(shown, n)
	}
	if len(shown) != watchEndedTimelines || shown[0] != total-watchEndedTimelines || shown[len(shown)-1] != total-1 {
		t.Errorf("%d timelines of deleted Services shown (%v), want those of the %d latest", len(shown), shown, watchEndedTimelines)
	}
}
