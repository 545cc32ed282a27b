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

package integration

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
)

// stream feeds the real watch stream of the Services of one namespace to a
// conformance checker, event by event, in the order the server sent them.
type stream struct {
	mu       sync.Mutex
	checker  *conformance.Checker
	findings []conformance.Finding
	// rv is the resourceVersion of the last event per name.
	rv map[string]string
	// prev is the last observation per name.
	prev map[string]*v1.Service
	// history holds one line per observation and name, for failure
	// messages.
	history map[string][]string
	events  int
	done    chan struct{}
	err     error
}

// watchServices starts feeding the Services of namespace ns to a new
// checker with the given options. It watches from the current
// resourceVersion, so start it before creating the Services. The watch ends
// with the test.
func watchServices(t *testing.T, client kubernetes.Interface, ns string, opts ...conformance.Option) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	services := client.CoreV1().Services(ns)
	list, err := services.List(ctx, metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("list services: %v", err)
	}
	s := &stream{
		checker: conformance.NewChecker(opts...),
		rv:      map[string]string{},
		prev:    map[string]*v1.Service{},
		history: map[string][]string{},
		done:    make(chan struct{}),
	}
	for i := range list.Items {
		s.observe(watch.Added, &list.Items[i])
	}
	// A RetryWatcher resumes from the last resourceVersion when the server
	// closes the watch, so no event is lost or repeated.
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			return services.Watch(ctx, options)
		},
	})
	if err != nil {
		cancel()
		t.Fatalf("watch services: %v", err)
	}
	go func() {
		defer close(s.done)
		for ev := range rw.ResultChan() {
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				svc, ok := ev.Object.(*corev1.Service)
				if !ok {
					s.fail(fmt.Errorf("watch event %s of a %T", ev.Type, ev.Object))
					continue
				}
				s.observe(ev.Type, svc)
			case watch.Error:
				s.fail(fmt.Errorf("watch error: %v", apiStatus(ev.Object)))
			}
		}
	}()
	t.Cleanup(func() {
		rw.Stop()
		cancel()
		<-s.done
	})
	return s
}

func (s *stream) observe(typ watch.EventType, svc *corev1.Service) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events++
	if typ == watch.Deleted {
		delete(s.rv, svc.Name)
		delete(s.prev, svc.Name)
		s.findings = append(s.findings, s.checker.Forget(svc.Namespace, svc.Name)...)
		return
	}
	obs := v1.FromCore(svc)
	s.history[svc.Name] = append(s.history[svc.Name], describeObservation(s.prev[svc.Name], obs))
	s.prev[svc.Name] = obs
	s.rv[svc.Name] = svc.ResourceVersion
	s.findings = append(s.findings, s.checker.Observe(obs)...)
}

func (s *stream) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// caughtUp waits until the stream has delivered, for every Service in
// want, the event of the resourceVersion want holds. It returns the names
// still behind when the timeout ends, with the last observation of each.
func (s *stream) caughtUp(t *testing.T, want map[string]string, timeout time.Duration) map[string]*v1.Service {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s.mu.Lock()
		behind := map[string]*v1.Service{}
		for name, rv := range want {
			if s.rv[name] != rv {
				behind[name] = s.prev[name].DeepCopy()
			}
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		if len(behind) == 0 || time.Now().After(deadline) {
			return behind
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// finish ends the input of the checker and returns every finding, those of
// the stream and those owed at the end of the traces, with the number of
// events read.
func (s *stream) finish() ([]conformance.Finding, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.findings)
	out = append(out, s.checker.Finish()...)
	return out, s.events
}

// bySeverity returns the findings of severity sev.
func bySeverity(findings []conformance.Finding, sev conformance.Severity) []conformance.Finding {
	var out []conformance.Finding
	for _, f := range findings {
		if f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// byRule returns the findings of rule id with severity sev.
func byRule(findings []conformance.Finding, id conformance.RuleID, sev conformance.Severity) []conformance.Finding {
	var out []conformance.Finding
	for _, f := range findings {
		if f.Rule == id && f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// countRules counts findings per "rule severity", for logs.
func countRules(findings []conformance.Finding) string {
	counts := map[string]int{}
	for _, f := range findings {
		counts[string(f.Rule)+" "+string(f.Severity)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// logFindings logs up to n findings.
func logFindings(t *testing.T, findings []conformance.Finding, n int) {
	t.Helper()
	for i, f := range findings {
		if i == n {
			t.Logf("... and %d more", len(findings)-n)
			return
		}
		t.Logf("%s %s %s rv=%s %s: %s", f.Severity, f.Rule, f.Object, f.Object.ResourceVersion, f.Field, f.Message)
	}
}

// percentile returns the p-th percentile (0 < p <= 100) of ds, by the
// nearest-rank method; 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	rank := int(p/100*float64(len(sorted)) + 0.999999)
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func apiStatus(obj runtime.Object) string {
	if st, ok := obj.(*metav1.Status); ok {
		return st.Message
	}
	return fmt.Sprintf("%T", obj)
}

// describeObservation says in one line what changed from prev to obs: the
// load-balancer-relevant fields of the spec, and the conditions.
func describeObservation(prev, obs *v1.Service) string {
	var conds []string
	for _, c := range obs.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s/%s@%s", strings.TrimPrefix(c.Type, "LoadBalancer"), c.Status, c.Reason, c.LastTransitionTime.UTC().Format("15:04:05")))
	}
	var managers []string
	for _, m := range obs.ManagedFields {
		managers = append(managers, fmt.Sprintf("%s@%s", m.Manager, m.Time.UTC().Format("15:04:05")))
	}
	return fmt.Sprintf("rv %s: spec changes %v; ingress %d; %s; written by %s", obs.ResourceVersion,
		conditions.ChangedFields(prev, obs), len(obs.Status.LoadBalancer.Ingress), strings.Join(conds, " "), strings.Join(managers, ", "))
}

// historyOf returns the observations of name, one per line.
func (s *stream) historyOf(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.history[name], "\n")
}
