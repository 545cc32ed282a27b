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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// syncBuffer is a bytes.Buffer safe for the watch goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls buf until it contains want, or fails after a while.
func waitFor(t *testing.T, buf *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(buf.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q; output so far:\n%s", want, buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func service(name, rv string, mutate func(*v1.Service)) *v1.Service {
	svc := &v1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: rv, UID: types.UID("uid-" + name)},
	}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}
	if mutate != nil {
		mutate(svc)
	}
	return svc
}

func lbConditions(provisioning, serving metav1.ConditionStatus, servingReason string, s int) []metav1.Condition {
	ltt := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC))
	provReason := "Complete"
	if provisioning == metav1.ConditionTrue {
		provReason = "Provisioning"
	}
	return []metav1.Condition{
		{Type: "LoadBalancerProvisioning", Status: provisioning, Reason: provReason, LastTransitionTime: ltt},
		{Type: "LoadBalancerServing", Status: serving, Reason: servingReason, LastTransitionTime: ltt},
	}
}

// fakeCluster is a serviceAPI: each list returns the current objects, each
// watch a new fake watcher the test drives, or the next of watchErrs.
type fakeCluster struct {
	mu        sync.Mutex
	objects   []v1.Service
	rv        string
	lists     atomic.Int32
	watchErrs []error
	watchRVs  []string
	delays    []time.Duration
	watchers  chan *watch.FakeWatcher
}

func newFakeCluster(objects ...*v1.Service) *fakeCluster {
	f := &fakeCluster{rv: "10", watchers: make(chan *watch.FakeWatcher, 10)}
	for _, o := range objects {
		f.objects = append(f.objects, *o)
	}
	return f
}

func (f *fakeCluster) list(context.Context) (*v1.ServiceList, error) {
	f.lists.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	list := &v1.ServiceList{ListMeta: metav1.ListMeta{ResourceVersion: f.rv}}
	for i := range f.objects {
		list.Items = append(list.Items, *f.objects[i].DeepCopy())
	}
	return list, nil
}

func (f *fakeCluster) watch(_ context.Context, rv string, _ time.Duration) (watch.Interface, error) {
	f.mu.Lock()
	f.watchRVs = append(f.watchRVs, rv)
	if len(f.watchErrs) > 0 {
		err := f.watchErrs[0]
		f.watchErrs = f.watchErrs[1:]
		f.mu.Unlock()
		return nil, err
	}
	f.mu.Unlock()
	w := watch.NewFakeWithChanSize(10, false)
	f.watchers <- w
	return w, nil
}

// pause records the retry delays the source asks for, and waits only a
// moment.
func (f *fakeCluster) pause(ctx context.Context, d time.Duration) {
	f.mu.Lock()
	f.delays = append(f.delays, d)
	f.mu.Unlock()
	sleep(ctx, time.Millisecond)
}

// set replaces the cluster's objects and resourceVersion, as writes the
// watch did not see would.
func (f *fakeCluster) set(rv string, objects ...*v1.Service) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv = rv
	f.objects = nil
	for _, o := range objects {
		f.objects = append(f.objects, *o)
	}
}

// nextWatcher returns the watcher of the source's next watch call.
func (f *fakeCluster) nextWatcher(t *testing.T) *watch.FakeWatcher {
	t.Helper()
	select {
	case w := <-f.watchers:
		return w
	case <-time.After(30 * time.Second):
		t.Fatal("the source did not watch")
		return nil
	}
}

// expired is the Status of a watch whose resourceVersion is too old.
func expired() *metav1.Status {
	return &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
}

// startWatch runs "lbstatus watch args" against src until the returned
// stop function is called; stop returns the exit status.
func startWatch(t *testing.T, e env, args ...string) (stdout, stderr *syncBuffer, stop func() int) {
	t.Helper()
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, append([]string{"watch"}, args...), strings.NewReader(""), stdout, stderr, e)
	}()
	stop = func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(30 * time.Second):
			t.Fatal("watch did not stop")
			return -1
		}
	}
	t.Cleanup(func() { cancel() })
	return stdout, stderr, stop
}

func fakeEnv(f *fakeCluster) env {
	return env{newSource: func(*watchFlags) (serviceSource, error) {
		return &listWatchSource{api: f, what: "Services in a fake cluster", server: "https://fake.example", pause: f.pause}, nil
	}}
}

func TestWatch_FindingsAsTheyHappen(t *testing.T) {
	cluster := newFakeCluster(service("web", "10", nil))
	stdout, stderr, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, "verdict Pending (T4)")

	w.Modify(service("web", "11", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionTrue, metav1.ConditionFalse, "Provisioning", 1)
	}))
	w.Modify(service("web", "12", func(s *v1.Service) { // Serving without an ingress
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 2)
	}))
	waitFor(t, stdout, "violation  L4    Service default/web: status.loadBalancer.ingress")

	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	out := stdout.String()
	if !strings.Contains(out, "Watched 3 observations of 1 Service.") || !strings.Contains(out, "FAIL: 1 violation") {
		t.Errorf("no summary on interrupt:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "watching Services in a fake cluster") {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestWatch_EndOfTraceOnDelete(t *testing.T) {
	ready := service("web", "10", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	})
	cluster := newFakeCluster(ready)
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", "json")
	w := cluster.nextWatcher(t)
	changed := ready.DeepCopy()
	changed.ResourceVersion = "11"
	changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Port: 443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	w.Modify(changed)
	w.Delete(changed)
	waitFor(t, stdout, `"rule":"L6","severity":"warning"`)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0 (a warning only)", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var last struct {
		Summary struct {
			Result       string `json:"result"` // as check's JSON summary says it
			Observations int    `json:"observations"`
			Services     int    `json:"services"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Summary.Observations != 2 || last.Summary.Services != 1 || last.Summary.Result != "PASS" {
		t.Errorf("last line %q: %v %+v", lines[len(lines)-1], err, last)
	}
}

// L8 at the end of a watch: a LoadBalancer Service still without either
// condition more than 30 s after its creation is noted, once; not one
// created since, one that got its conditions, one deleted, or one whose
// creation time is not known.
func TestWatch_L8AtTheEnd(t *testing.T) {
	old := metav1.NewTime(time.Now().Add(-time.Hour))
	created := func(at metav1.Time) func(*v1.Service) { return func(s *v1.Service) { s.CreationTimestamp = at } }
	cluster := newFakeCluster(
		service("orphan", "10", created(old)),
		service("fresh", "11", created(metav1.Now())),
		service("gone", "12", created(old)),
		service("late", "13", created(old)),
		service("served", "14", func(s *v1.Service) {
			s.CreationTimestamp = old
			s.Status.Conditions = lbConditions(metav1.ConditionTrue, metav1.ConditionFalse, "Provisioning", 1)
		}),
		service("foreign", "17", func(s *v1.Service) { // another provider's: not for this check (P1)
			s.CreationTimestamp = old
			s.Spec.LoadBalancerClass = ptr.To("other.example/lb")
		}),
		service("undated", "18", nil), // no creationTimestamp: no clock to run
	)
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", "json", "--class", "example.com/lb")
	w := cluster.nextWatcher(t)
	w.Delete(service("gone", "15", created(old)))
	w.Modify(service("late", "16", func(s *v1.Service) { // now Ready: a verdict notice to wait for
		s.CreationTimestamp = old
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.16"}}
	}))
	waitFor(t, stdout, `"resourceVersion":"16"`)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if l8 := l8Notices(stdout.String()); len(l8) != 1 || !strings.HasPrefix(l8[0], "orphan: no KEP-4631 condition 60m after the Service's creation, past L8's 30s") {
		t.Errorf("L8 notices %q, want one for orphan", l8)
	}
}

// L8's notice names the Service's last observation with its
// resourceVersion cut as the checker's findings cut it: the first KiB,
// marked as cut.
func TestWatch_L8LongResourceVersionIsCut(t *testing.T) {
	rv := strings.Repeat("7", 64<<10)
	cluster := newFakeCluster(service("orphan", rv, func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour)) }))
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", "json")
	cluster.nextWatcher(t)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	var l8 []conformance.Finding
	for line := range strings.Lines(stdout.String()) {
		var f conformance.Finding
		if json.Unmarshal([]byte(line), &f) == nil && f.Rule == "L8" {
			l8 = append(l8, f)
		}
	}
	if len(l8) != 1 || len(l8[0].Object.ResourceVersion) > input.MaxTextBytes+64 || !strings.HasSuffix(l8[0].Object.ResourceVersion, " more bytes)") {
		t.Errorf("%d L8 notices; want one whose resourceVersion is cut after %d", len(l8), input.MaxTextBytes)
	}
}

// l8Notices returns the L8 notices of a watch's JSON output, as
// "name: message".
func l8Notices(out string) []string {
	var l8 []string
	for _, line := range strings.Split(out, "\n") {
		var f conformance.Finding
		if json.Unmarshal([]byte(line), &f) == nil && f.Rule == "L8" {
			l8 = append(l8, f.Object.Name+": "+f.Message)
		}
	}
	return l8
}

// L8 runs from a conversion to LoadBalancer that the watch saw, not from a
// creation long before it; and its clock stops when the watch is lost,
// since what happened after was not seen.
func TestWatch_L8FromConversionAndWhileWatching(t *testing.T) {
	old := metav1.NewTime(time.Now().Add(-time.Hour))
	clusterIP := service("converted", "10", func(s *v1.Service) {
		s.CreationTimestamp = old
		s.Spec.Type = corev1.ServiceTypeClusterIP
	})
	converted := service("converted", "11", func(s *v1.Service) { s.CreationTimestamp = old })
	listed := service("listed", "12", func(s *v1.Service) { s.CreationTimestamp = old }) // converted or not: unknown
	almost := service("almost", "13", func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(time.Now().Add(-29 * time.Second)) })
	src := replaySource{{svc: clusterIP}, {svc: listed}, {svc: almost}, {lost: true}, {svc: converted}}
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }}, "-o", "json")
	waitFor(t, stdout, `"resourceVersion":"11"`)
	time.Sleep(1500 * time.Millisecond) // almost is past 30 s, but the watch was lost before
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if l8 := l8Notices(stdout.String()); len(l8) != 1 || !strings.HasPrefix(l8[0], "listed: no KEP-4631 condition 60m after the Service's creation") {
		t.Errorf("L8 notices %q, want one for listed", l8)
	}
}

// A Service listed as LoadBalancer may have been converted just before the
// watch began: L8 runs, as in describe, from the last write that may have
// set its type (a manager owning spec.type wrote after the creation), not
// from a creation long before it.
func TestWatch_L8FromAWriteThatMaySetTheType(t *testing.T) {
	old := metav1.NewTime(time.Now().Add(-time.Hour))
	typeWritten := func(ago time.Duration) func(*v1.Service) {
		return func(s *v1.Service) {
			s.CreationTimestamp = old
			at := metav1.NewTime(time.Now().Add(-ago))
			s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-patch", Operation: metav1.ManagedFieldsOperationUpdate, Time: &at,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:type":{}}}`)}}}
		}
	}
	src := replaySource{{svc: service("recent", "10", typeWritten(5*time.Second))}, {svc: service("earlier", "11", typeWritten(2*time.Minute))}}
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }}, "-o", "json")
	waitFor(t, stdout, `"resourceVersion":"11"`)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if l8 := l8Notices(stdout.String()); len(l8) != 1 ||
		!strings.HasPrefix(l8[0], "earlier: no KEP-4631 condition 2m after the last write that may have set its type LoadBalancer, past L8's 30s") {
		t.Errorf("L8 notices %q, want one for earlier", l8)
	}
}

// A Service deleted and created again under its name while the watch had
// a gap is a new Service (a new uid): L8's clock runs from its own
// creation, not from that of the Service it replaced.
func TestWatch_L8ForAServiceCreatedAgainInAGap(t *testing.T) {
	old := service("web", "10", func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour)) })
	cluster := newFakeCluster(old)
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", "json")
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, `"resourceVersion":"10"`)
	cluster.set("20", service("web", "20", func(s *v1.Service) {
		s.UID = "uid-web-2"
		s.CreationTimestamp = metav1.Now()
	}))
	w.Error(expired())
	waitFor(t, stdout, `"resourceVersion":"20"`)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if l8 := l8Notices(stdout.String()); len(l8) != 0 {
		t.Errorf("L8 notices %q for a Service created seconds ago", l8)
	}
}

// Nor is a LoadBalancer Service created in a gap under the name of a
// ClusterIP one a conversion: L8's clock runs from its creation, an hour
// ago, not from when the watch saw it.
func TestWatch_L8ForALoadBalancerCreatedAgainInAGap(t *testing.T) {
	cluster := newFakeCluster(service("web", "9", func(s *v1.Service) {
		s.Spec.Type = corev1.ServiceTypeClusterIP
		s.CreationTimestamp = metav1.NewTime(time.Now().Add(-2 * time.Hour))
	}), service("other", "10", nil)) // its R3 notice says the list was read
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", "json")
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, `"resourceVersion":"10"`)
	cluster.set("20", service("web", "20", func(s *v1.Service) {
		s.UID = "uid-web-2"
		s.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour))
	}))
	w.Error(expired())
	waitFor(t, stdout, `"resourceVersion":"20"`)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if l8 := l8Notices(stdout.String()); len(l8) != 1 || !strings.HasPrefix(l8[0], "web: no KEP-4631 condition 60m after the Service's creation") {
		t.Errorf("L8 notices %q, want one from web's creation", l8)
	}
}

// A spec change still unacknowledged when the watch is stopped is owed at
// that point: the L6 warning says the watch stopped, not that an input
// ended.
func TestWatch_OwedWhenStopped(t *testing.T) {
	ready := service("web", "10", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	})
	cluster := newFakeCluster(ready, service("other", "9", nil))
	stdout, _, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	changed := ready.DeepCopy()
	changed.ResourceVersion = "11"
	changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Port: 443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	w.Modify(changed)
	// Events are handled in order: once other's new verdict is out, so is web's change.
	w.Modify(service("other", "12", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.2"}}
	}))
	waitFor(t, stdout, "Service default/other: status: verdict Ready (T3)")
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0 (a warning only)", code)
	}
	if want := "warning    L6    Service default/web: status.conditions: the watch stopped before the provider acknowledged the change of spec.ports"; !strings.Contains(stdout.String(), want) {
		t.Errorf("want %q:\n%s", want, stdout.String())
	}
}

// An expired watch (410 Gone) makes the informer list again and go on.
func TestWatch_SurvivesExpiry(t *testing.T) {
	cluster := newFakeCluster(service("web", "10", nil))
	stdout, _, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, "verdict Pending")

	cluster.mu.Lock()
	cluster.rv = "20"
	cluster.objects[0] = *service("web", "20", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionTrue, metav1.ConditionUnknown, "Provisioning", 3)
	})
	cluster.mu.Unlock()
	w.Error(expired())

	second := cluster.nextWatcher(t) // watching again, after a new list
	waitFor(t, stdout, "violation  C1")
	if cluster.lists.Load() < 2 {
		t.Errorf("lists: %d, want a relist after expiry", cluster.lists.Load())
	}
	second.Modify(service("web", "21", func(s *v1.Service) { // Serving without an ingress
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 4)
	}))
	waitFor(t, stdout, "L4")
	waitFor(t, stdout, "resourceVersion 21")
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
}

// The real path: a kubeconfig, a REST client, and an apiserver that lists
// and watches Services (served by httptest).
func TestWatch_Kubeconfig(t *testing.T) {
	ready := service("web", "10", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
		s.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleportation"} // kept by our types: R4
	})
	var requests sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Store(r.URL.Path+"?watch="+r.URL.Query().Get("watch")+"&labelSelector="+r.URL.Query().Get("labelSelector"), true)
		if r.URL.Path != "/api/v1/namespaces/shop/services" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			json.NewEncoder(w).Encode(map[string]any{
				"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "10"},
				"items": []any{ready},
			})
			return
		}
		w.WriteHeader(http.StatusOK)
		unknown := ready.DeepCopy()
		unknown.ResourceVersion = "11"
		unknown.Status.Conditions[1].Status = metav1.ConditionUnknown
		json.NewEncoder(w).Encode(map[string]any{"type": "MODIFIED", "object": unknown})
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch

	kubeconfig := writeKubeconfig(t, srv.URL)

	stdout, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", kubeconfig, "--context", "test", "-n", "shop", "-l", "app in (web),tier")
	waitFor(t, stdout, "violation  R4")
	waitFor(t, stdout, "violation  C1")
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	// -l is sent with the list and with every watch.
	for _, req := range []string{"watch=&labelSelector=app in (web),tier", "watch=true&labelSelector=app in (web),tier"} {
		if _, ok := requests.Load("/api/v1/namespaces/shop/services?" + req); !ok {
			t.Errorf("no request %q reached the server", req)
		}
	}
	if !strings.Contains(stderr.String(), "watching Services matching app in (web),tier in namespace shop of "+srv.URL) {
		t.Errorf("stderr does not say what is watched:\n%s", stderr.String())
	}
}

func TestWatch_Errors(t *testing.T) {
	var out, errOut bytes.Buffer
	missing := filepath.Join(t.TempDir(), "nope")
	code := runContext(context.Background(), []string{"watch", "--kubeconfig", missing}, nil, &out, &errOut, defaultEnv())
	if code != exitInput || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "kubeconfig") {
		t.Errorf("missing kubeconfig: exit %d, stderr %q", code, errOut.String())
	}
	for _, args := range [][]string{{"watch", "-n", "a", "-A"}, {"watch", "extra"}, {"watch", "-o", "table"}, {"watch", "-l", "a b"}} {
		errOut.Reset()
		if code := runContext(context.Background(), args, nil, &out, &errOut, fakeEnv(newFakeCluster())); code != exitInput || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}

// --timeline-points is bad usage without --timeline, or at zero or
// below, as in check, rather than ignored or read as the default.
func TestWatch_TimelinePointsChecked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a watch the flags let through ends at once
	for args, want := range map[string]string{
		"--timeline-points 5":                    "lbstatus: --timeline-points goes with --timeline\n",
		"--timeline --timeline-points 0":         "lbstatus: --timeline-points must be positive\n",
		"--timeline --timeline-points -1":        "lbstatus: --timeline-points must be positive\n",
		"--timeline --timeline-points 5 -o json": "lbstatus: --timeline goes with -o text\n",
	} {
		var out, errOut bytes.Buffer
		code := runContext(ctx, append([]string{"watch"}, strings.Fields(args)...), nil, &out, &errOut, fakeEnv(newFakeCluster()))
		if code != exitInput || errOut.String() != want {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", args, code, errOut.String(), want)
		}
	}
}

// Without a kubeconfig client-go talks to http://localhost:8080; each
// command says instead what it looked for (see kubeconfig.Missing).
func TestCluster_NoKubeconfig(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	t.Setenv("KUBECONFIG", missing)
	t.Setenv("KUBERNETES_MASTER", "")
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"watch"}, {"describe"}, {"conformance"}, {"describe", "--kubeconfig", empty}} {
		var out, errOut bytes.Buffer
		code := runContext(context.Background(), args, nil, &out, &errOut, defaultEnv())
		looked := missing // KUBECONFIG's
		if len(args) > 1 {
			looked = empty
		}
		want := "lbstatus: no cluster to talk to: no kubeconfig names one (looked in " + looked + "); give --kubeconfig PATH, or --server URL\n"
		if code != exitInput || errOut.String() != want {
			t.Errorf("%v: exit %d, stderr %q, want %q", args, code, errOut.String(), want)
		}
	}
}

// servingWithoutIngress is a Service that violates L4 at every observation.
func servingWithoutIngress(name, rv string) *v1.Service {
	return service(name, rv, func(s *v1.Service) {
		s.UID = types.UID("uid-" + name)
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 2)
	})
}

func ready(name, rv, ip string) *v1.Service {
	return service(name, rv, func(s *v1.Service) {
		s.UID = types.UID("uid-" + name)
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 2)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	})
}

func pending(name, rv string) *v1.Service {
	return service(name, rv, func(s *v1.Service) { s.UID = types.UID("uid-" + name) })
}

// 1 and 3: a list after 410 Gone hands back the unchanged Services; they are
// not checked again, the violation is printed once, and one gap line names
// the window and the Services created, changed and deleted in it.
func TestWatch_RelistChecksEachObservationOnce(t *testing.T) {
	cluster := newFakeCluster(servingWithoutIngress("web", "5"), pending("api", "6"), pending("old", "7"))
	stdout, _, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, "violation  L4    Service default/web")

	// A resync of the same state on the watch is not checked again either.
	w.Modify(servingWithoutIngress("web", "5"))
	w.Modify(ready("api", "12", "192.0.2.1"))
	waitFor(t, stdout, "resourceVersion 12")

	// While the watch is away: api changes, old goes, fresh comes; web stays.
	cluster.set("40", servingWithoutIngress("web", "5"), ready("api", "30", "192.0.2.2"), pending("fresh", "31"))
	w.Error(expired())
	second := cluster.nextWatcher(t)
	waitFor(t, stdout, "resourceVersion 31")

	second.Modify(servingWithoutIngress("web", "41")) // a new state: checked
	waitFor(t, stdout, "resourceVersion 41")
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	out := stdout.String()
	if n := strings.Count(out, "violation  L4    Service default/web"); n != 2 {
		t.Errorf("%d L4 lines, want 2 (resourceVersions 5 and 41, each once):\n%s", n, out)
	}
	if n := strings.Count(out, "LoadBalancerServing is True but status.loadBalancer.ingress is empty [resourceVersion 5]"); n != 1 {
		t.Errorf("web@5 reported %d times, want once:\n%s", n, out)
	}
	wantGap := "gap        resourceVersions after 12 up to 40 were not observed (the watch's resourceVersion expired (410 Gone: too old resource version)); 3 Services changed in it: default/api, default/fresh, default/old; states written and undone inside it were not seen"
	if strings.Count(out, "gap        ") != 1 || !strings.Contains(out, wantGap) {
		t.Errorf("want one gap line\n%s\ngot:\n%s", wantGap, out)
	}
	if !strings.Contains(out, "The watch had 1 gap: transient states inside it were not observed") {
		t.Errorf("the summary does not count the gap:\n%s", out)
	}
	if !strings.Contains(out, "FAIL: 2 violations") {
		t.Errorf("the summary does not count 2 distinct violations:\n%s", out)
	}
	// web@5, api@6, old@7, api@12, api@30, fresh@31, web@41; the deletion
	// of old ends its trace (R3 at its end) and is no observation.
	if !strings.Contains(out, "Watched 7 observations of 4 Services.") || !strings.Contains(out, "R3    Service default/old") {
		t.Errorf("observations counted twice or lost:\n%s", out)
	}
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if got := strings.Join(cluster.watchRVs, ","); got != "10,40" {
		t.Errorf("watched from %s, want 10 then the new list's 40", got)
	}
}

// 3: -o json carries the gap as a record of its own, and the summary counts
// gaps.
func TestWatch_GapJSON(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", "json")
	w := cluster.nextWatcher(t)
	cluster.set("20", pending("web", "19"))
	w.Error(expired())
	cluster.nextWatcher(t)
	waitFor(t, stdout, `"gap"`)
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	var gap, summary int
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var l struct {
			Gap     *watchGap `json:"gap"`
			Summary *struct {
				Gaps         int `json:"gaps"`
				Observations int `json:"observations"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if l.Gap != nil {
			gap++
			want := watchGap{From: "10", To: "20", Changed: 1, Services: []string{"default/web"}, Reason: l.Gap.Reason}
			if !strings.Contains(l.Gap.Reason, "410 Gone") || fmt.Sprint(*l.Gap) != fmt.Sprint(want) {
				t.Errorf("gap %+v, want %+v with a 410 reason", *l.Gap, want)
			}
		}
		if l.Summary != nil {
			summary++
			if l.Summary.Gaps != 1 || l.Summary.Observations != 2 {
				t.Errorf("summary %+v, want 1 gap and 2 observations", *l.Summary)
			}
		}
	}
	if gap != 1 || summary != 1 {
		t.Errorf("%d gap and %d summary records, want 1 each:\n%s", gap, summary, stdout)
	}
}

// 4: while the server is down, the watch retries at a growing interval that
// stops at retryCap (so it resumes within about 2 s of the server being
// back, and a server still down sees one request every 2 s or so); after a
// watch that worked, the interval starts small again.
func TestWatch_RetryDelays(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	cluster := newFakeCluster(pending("web", "5"))
	cluster.watchErrs = slices.Repeat([]error{refused}, 8)
	_, stderr, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)

	cluster.mu.Lock()
	delays := slices.Clone(cluster.delays)
	cluster.watchErrs = []error{refused}
	cluster.mu.Unlock()
	if len(delays) != 8 {
		t.Fatalf("delays %v, want one per failed watch", delays)
	}
	for i, d := range delays {
		low := min(retryFirst<<i, retryCap)
		if d < low || d > low*13/10 {
			t.Errorf("delay %d is %s, want %s to %s", i, d, low, low*13/10)
		}
	}

	w.Modify(pending("web", "6")) // a watch that works...
	w.Stop()                      // ...then breaks
	cluster.nextWatcher(t)
	cluster.mu.Lock()
	after := cluster.delays[len(delays):]
	cluster.mu.Unlock()
	if len(after) != 1 || after[0] > retryFirst*13/10 {
		t.Errorf("delays after a working watch %v, want one of about %s", after, retryFirst)
	}
	stop()
	log := stderr.String()
	if strings.Count(log, "lost the watch on https://fake.example (dial tcp 127.0.0.1:6443: connect: connection refused)") != 2 ||
		strings.Count(log, "watching again from resourceVersion") != 2 {
		t.Errorf("want each outage said once when lost and once when resumed:\n%s", log)
	}
}

// writeKubeconfig writes a kubeconfig for server and returns its path.
func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q}
users:
- name: test
  user: {token: secret}
contexts:
- name: test
  context: {cluster: test, user: test, namespace: default}
current-context: test
`, server), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// silentServer accepts requests and never answers them; arrived is
// signalled for each.
func silentServer(t *testing.T) (srv *httptest.Server, arrived chan struct{}) {
	arrived = make(chan struct{}, 10)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, arrived
}

// 2: a server that never answers the first list is exit 2 after
// --request-timeout, with one line naming the server and what timed out.
func TestWatch_SilentServerTimesOut(t *testing.T) {
	srv, _ := silentServer(t)
	var out, errOut bytes.Buffer
	code := runContext(context.Background(), []string{"watch", "--kubeconfig", writeKubeconfig(t, srv.URL), "--request-timeout", "200ms"},
		nil, &out, &errOut, defaultEnv())
	want := "lbstatus: listing Services on " + srv.URL + ": no answer within 200ms (--request-timeout)\n"
	if code != exitInput || errOut.String() != want || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out.String(), errOut.String(), want)
	}
}

// 2: an interrupt while the first list waits ends the command (exit 2: the
// cluster was never read), without waiting for the request timeout.
func TestWatch_InterruptDuringFirstList(t *testing.T) {
	srv, arrived := silentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	var out, errOut bytes.Buffer
	code := runContext(ctx, []string{"watch", "--kubeconfig", writeKubeconfig(t, srv.URL), "--request-timeout", "1h"},
		nil, &out, &errOut, defaultEnv())
	want := "lbstatus: interrupted while listing Services on " + srv.URL + "\n"
	if code != exitInput || errOut.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}

// The real path through the typed client: a watch refused with 410 Gone
// (an HTTP error, as an apiserver without a watch cache answers) makes the
// command list again and report the gap.
func TestWatch_KubeconfigExpired(t *testing.T) {
	var lists, watches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			rv := fmt.Sprint(10 * (lists.Add(1)))
			json.NewEncoder(w).Encode(map[string]any{
				"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": rv},
				"items": []any{pending("web", rv)},
			})
			return
		}
		if watches.Add(1) == 1 {
			w.WriteHeader(http.StatusGone)
			json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
				"reason": "Expired", "code": 410, "message": "too old resource version: 10 (15)"})
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	stdout, _, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL))
	waitFor(t, stdout, "gap        resourceVersions after 10 up to 20 were not observed (the watch's resourceVersion expired (410 Gone: too old resource version: 10 (15))); 1 Service changed in it: default/web")
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
}

// A watch's --timeline marks the gap on the timelines of the Services it
// names: their states in between were not seen.
func TestWatch_TimelineShowsTheGap(t *testing.T) {
	gap := &watchGap{From: "5", To: "9", Reason: "test", Changed: 1, Services: []string{"default/web"}}
	src := replaySource{{svc: pending("web", "5")}, {gap: gap}, {svc: servingWithoutIngress("web", "9")}}
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }}, "--timeline")
	waitFor(t, stdout, "resourceVersion 9")
	stop()
	out := stdout.String()
	story := out[strings.LastIndex(out, "default/web"):]
	if !regexp.MustCompile(`(?m)^\s*1\s.*\bgap\b`).MatchString(story) {
		t.Errorf("the timeline does not mark the gap after observation 1:\n%s", out)
	}
}

// replaySource delivers fixed events, then waits for the end.
type replaySource []serviceEvent

func (replaySource) describe() string { return "a replay" }

func (r replaySource) run(ctx context.Context, _ io.Writer, handle func(serviceEvent)) error {
	for _, ev := range r {
		handle(ev)
	}
	<-ctx.Done()
	return nil
}

// 1: whatever the source, an observation delivered again (same uid and
// resourceVersion) is not checked again; a new uid under the same name is.
func TestWatch_SameObservationCheckedOnce(t *testing.T) {
	web := servingWithoutIngress("web", "5")
	recreated := servingWithoutIngress("web", "5")
	recreated.UID = "uid-web-2"
	src := replaySource{{svc: web}, {svc: web.DeepCopy()}, {svc: recreated}, {svc: recreated.DeepCopy()}}
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
	waitFor(t, stdout, "violation")
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	out := stdout.String()
	if n := strings.Count(out, "violation  L4"); n != 2 || !strings.Contains(out, "Watched 2 observations of 2 Services.") {
		t.Errorf("%d L4 lines, want 2 (one per uid):\n%s", n, out)
	}
}

// A watch that ends resumes from the last resourceVersion it saw, a
// bookmark's included, without listing again: nothing was missed, so there
// is no gap.
func TestWatch_ResumesFromLastResourceVersion(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	stdout, _, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	w.Modify(servingWithoutIngress("web", "11"))
	w.Action(watch.Bookmark, &v1.Service{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "15"}})
	waitFor(t, stdout, "resourceVersion 11")
	w.Stop() // the server ends the watch
	cluster.nextWatcher(t)
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if got := strings.Join(cluster.watchRVs, ","); got != "10,15" || cluster.lists.Load() != 1 {
		t.Errorf("watched from %s after %d lists, want 10 then the bookmark's 15, after 1 list", got, cluster.lists.Load())
	}
	if out := stdout.String(); strings.Contains(out, "gap") || !strings.Contains(out, "Watched 2 observations of 1 Service.") {
		t.Errorf("a gap, or the bookmark counted as an observation:\n%s", out)
	}
}

// A refused connection or rejected credentials on the first list are exit
// 2, with one line naming the server, not retries (which would not end).
func TestWatch_UnreachableOrRejected(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	rejecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Unauthorized", "code": 401, "message": "Unauthorized"})
	}))
	defer rejecting.Close()
	// RBAC: the server's own words, which name the user and the verb.
	forbidding := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
			"message": `services is forbidden: User "dev" cannot list resource "services" in API group "" in the namespace "default"`})
	}))
	defer forbidding.Close()
	for server, want := range map[string]string{closed: "connection refused", rejecting.URL: "provide credentials",
		forbidding.URL: `User "dev" cannot list resource "services"`} {
		var out, errOut bytes.Buffer
		code := runContext(context.Background(), []string{"watch", "--kubeconfig", writeKubeconfig(t, server)}, nil, &out, &errOut, defaultEnv())
		got := errOut.String()
		if code != exitInput || strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "lbstatus: listing Services on "+server+": ") || !strings.Contains(got, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line naming the server and %q", server, code, got, want)
		}
	}
}

// The requests say they come from lbstatus in the server's audit log,
// not from whatever the binary is called, as client-go's default has it.
func TestCluster_UserAgent(t *testing.T) {
	agents := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case agents <- r.UserAgent():
		default:
		}
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	if code := runContext(context.Background(), []string{"watch", "--kubeconfig", writeKubeconfig(t, srv.URL)}, nil, &out, &errOut, defaultEnv()); code != exitInput {
		t.Errorf("exit %d, want 2: %s", code, errOut.String())
	}
	if got := <-agents; got != "lbstatus" {
		t.Errorf("User-Agent %q, want lbstatus", got)
	}
}

// A gap line names ten Services at most and counts the rest.
func TestWatchGap_TextNamesTenServices(t *testing.T) {
	var names []string
	for i := range 11 {
		names = append(names, fmt.Sprintf("shop/s%02d", i))
	}
	g := &watchGap{From: "10", To: "20", Reason: "expired", Changed: 11, Services: names}
	if got := g.text(); !strings.Contains(got, "11 Services changed in it: shop/s00, ") || !strings.Contains(got, "shop/s09 and 1 more; states") || strings.Contains(got, "shop/s10") {
		t.Errorf("eleven Services: %q", got)
	}
	g.Services, g.Changed = names[:10], 10
	if got := g.text(); !strings.Contains(got, "shop/s09; states written") || strings.Contains(got, "more") {
		t.Errorf("ten Services: %q", got)
	}
}

// Observations without a resourceVersion cannot be told apart: each is
// checked, none is taken for one delivered again.
func TestWatch_NoResourceVersionCheckedEachTime(t *testing.T) {
	src := replaySource{{svc: pending("web", "")}, {svc: servingWithoutIngress("web", "")}}
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
	waitFor(t, stdout, "violation  L4")
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	if out := stdout.String(); !strings.Contains(out, "Watched 2 observations of 1 Service.") {
		t.Errorf("want both observations checked:\n%s", out)
	}
}

// A watch that ends with 410 Gone, the older spelling of an expired
// resourceVersion, lists again like one that ends with Expired: a gap,
// with the server's message in its reason.
func TestWatch_GoneIsAGap(t *testing.T) {
	cluster := newFakeCluster(service("web", "10", nil))
	stdout, _, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, "verdict Pending")
	cluster.set("20", service("web", "20", nil))
	w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonGone, Message: "the history is gone"})
	cluster.nextWatcher(t)
	waitFor(t, stdout, "gap        resourceVersions after 10 up to 20 were not observed (the watch's resourceVersion expired (410 Gone: the history is gone)); 1 Service changed in it: default/web")
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
}

// watch --help speaks of watch's output, not check's: a line per finding,
// no table per Service, no HTML, and no -v, which changes nothing here but
// stays accepted.
func TestWatch_Help(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runContext(context.Background(), []string{"watch", "--help"}, strings.NewReader(""), &stdout, &stderr, fakeEnv(newFakeCluster())); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	help := stdout.String()
	if !strings.Contains(help, "lbstatus watch -n shop -l app=web") || !strings.Contains(help, `"text" (a line per finding`) ||
		strings.Contains(help, "table per Service") || strings.Contains(help, "html") || strings.Contains(help, "--verbose") {
		t.Errorf("help:\n%s", help)
	}
	cluster := newFakeCluster(service("web", "10", nil))
	stdout2, _, stop := startWatch(t, fakeEnv(cluster), "-v")
	waitFor(t, stdout2, "verdict Pending (T4)")
	if code := stop(); code != exitOK {
		t.Errorf("watch -v: exit %d", code)
	}
}

// A user who may list Services but not watch them gets exit status 2 and
// the server's words at the first watch, as for a refused list, not a
// watch lost for ever that ends with a clean summary. A refusal after a
// watch was accepted is retried: credentials are refreshed, RBAC changes.
func TestWatch_FirstWatchRefused(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "", errors.New(`User "dev" cannot watch resource "services"`))
	cluster := newFakeCluster(service("web", "10", nil))
	cluster.watchErrs = []error{forbidden}
	_, stderr, stop := startWatch(t, fakeEnv(cluster))
	want := "lbstatus: watching Services on https://fake.example: " + forbidden.Error() + "\n"
	waitFor(t, stderr, want)
	if code := stop(); code != exitInput || !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}

	cluster = newFakeCluster(service("web", "10", nil))
	_, stderr, stop = startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	cluster.mu.Lock()
	cluster.watchErrs = []error{forbidden}
	cluster.mu.Unlock()
	w.Stop()
	cluster.nextWatcher(t)
	if code := stop(); code != exitOK || !strings.Contains(stderr.String(), "lost the watch on https://fake.example ("+forbidden.Error()+")") {
		t.Errorf("exit %d, stderr %q; want a lost watch, resumed", code, stderr)
	}
}

// A watch still lost when it is stopped says so in its summary, with
// since when: a clean result covers only what was seen before. It used to
// end in PASS with nothing but the earlier "lost the watch" line.
func TestWatch_LostAtTheEnd(t *testing.T) {
	cluster := newFakeCluster(service("web", "10", nil))
	for _, format := range []string{"text", "json"} {
		stdout, stderr, stop := startWatch(t, fakeEnv(cluster), "-o", format)
		w := cluster.nextWatcher(t)
		cluster.mu.Lock()
		cluster.watchErrs = slices.Repeat([]error{errors.New("connection refused")}, 1000)
		cluster.mu.Unlock()
		w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: "etcd is down"})
		waitFor(t, stderr, "lost the watch")
		stop()
		want := map[string]string{"text": "The watch was lost at ", "json": `"lostSince":"`}[format]
		if out := stdout.String(); !strings.Contains(out, want) {
			t.Errorf("-o %s: summary does not say the watch was lost (%q):\n%s", format, want, out)
		}
		// A watch runs for days: the time alone does not say which day.
		if day := time.Now().Format(time.DateOnly); format == "text" && !strings.Contains(stdout.String(), want+day+" ") {
			t.Errorf("summary does not say on which day the watch was lost (%s):\n%s", day, stdout)
		}
		cluster.mu.Lock()
		cluster.watchErrs = nil
		cluster.mu.Unlock()
	}
}

// The summary says the watch was lost when the source last heard from the
// server, not when it noticed.
func TestWatch_LostWhenLastHeard(t *testing.T) {
	heard := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	src := replaySource{{svc: pending("web", "5")}, {lost: true, heard: heard}}
	stdout, _, stop := startWatch(t, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }}, "-o", "json")
	waitFor(t, stdout, "web")
	stop()
	if want := `"lostSince":"2026-03-01T12:00:00Z"`; !strings.Contains(stdout.String(), want) {
		t.Errorf("summary lacks %s:\n%s", want, stdout)
	}
}

// A Service provisioned, served and then reprovisioned while the watch
// had a gap is seen first without conditions, then reprovisioning while
// serving: that is no first write, and the provider's writes inside the
// gap are not judged (spec section 8, "Live watches"). No L1 violation,
// exit 0.
func TestWatch_GapHidesTheFirstWrite(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	stdout, _, stop := startWatch(t, fakeEnv(cluster))
	w := cluster.nextWatcher(t)
	waitFor(t, stdout, "verdict Pending (T4)")
	cluster.set("20", service("web", "19", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionTrue, metav1.ConditionTrue, "Serving", 3)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	}))
	w.Error(expired())
	cluster.nextWatcher(t)
	waitFor(t, stdout, "1 Service changed in it: default/web")
	waitFor(t, stdout, "resourceVersion 19")
	if code := stop(); code != exitOK || strings.Contains(stdout.String(), "L1") {
		t.Errorf("exit %d, want 0 and no L1 across the gap:\n%s", code, stdout)
	}
}

// watch -o json escapes what a terminal would interpret, as check -o json
// does: encoding/json leaves bidirectional overrides and C1 controls raw
// (section 8, "Reading inputs").
func TestWatch_JSONEscapesFormatCharacters(t *testing.T) {
	refused := service("web", "10", func(s *v1.Service) {
		s.Status.Conditions = []metav1.Condition{
			{Type: "LoadBalancerServing", Status: metav1.ConditionFalse, Reason: "Unsupported", Message: "refused \u202egnp.exe\u0085", LastTransitionTime: metav1.Now()},
			{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: "Complete", LastTransitionTime: metav1.Now()},
		}
	})
	stdout, _, stop := startWatch(t, fakeEnv(newFakeCluster(refused)), "-o", "json")
	waitFor(t, stdout, `"rule":"T1"`)
	stop()
	out := stdout.String()
	if strings.ContainsAny(out, "\u202e\u0085") || !strings.Contains(out, `\u202egnp.exe\u0085`) {
		t.Errorf("watch -o json wrote the message's format and control characters raw:\n%s", out)
	}
}

// TestWatch_StopsWhenFindingsCannotBeWritten: "lbstatus watch -o json >
// findings.jsonl" on a full disk ran on with every finding lost, and
// exited 0 when stopped. It stops at the first write error, with one
// line, and exit status 2.
func TestWatch_StopsWhenFindingsCannotBeWritten(t *testing.T) {
	cluster := newFakeCluster(service("web", "10", nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"watch", "-o", "json"}, strings.NewReader(""), fullDisk{}, stderr, fakeEnv(cluster))
	}()
	select {
	case code := <-done:
		if want := "lbstatus: writing the findings: write /dev/stdout: no space left on device; the watch stopped\n"; code != exitInput || !strings.HasSuffix(stderr.String(), "\n"+want) {
			t.Errorf("exit %d, stderr %q; want 2 and, last, %q", code, stderr.String(), want)
		}
	case <-time.After(10 * time.Second):
		cancel()
		<-done
		t.Fatalf("the watch still ran 10s after its first finding could not be written; stderr %q", stderr.String())
	}
}

// selectingCluster is a fakeCluster watched with a label selector: a
// Service of a DELETED event that is still among its objects, with the
// same uid, only left the selector.
type selectingCluster struct{ *fakeCluster }

func (f selectingCluster) stillThere(_ context.Context, svc *v1.Service) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range f.objects {
		if o.Namespace == svc.Namespace && o.Name == svc.Name && o.UID == svc.UID {
			return true
		}
	}
	return false
}

func (f selectingCluster) listUnselected(context.Context, string, metav1.ListOptions) (*v1.ServiceList, error) {
	return f.list(context.Background())
}

// With -l, a Service whose labels stop matching comes as DELETED, with
// the labels it had: its end-of-trace findings (L6, R3) say that it left
// the selector, and those of one really deleted that it was deleted.
func TestWatch_L6R3_LeftTheSelector(t *testing.T) {
	ready := service("web", "10", func(s *v1.Service) {
		s.Labels = map[string]string{"app": "web"}
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	})
	bare := service("api", "11", func(s *v1.Service) { s.Labels = map[string]string{"app": "web"} })
	cluster := selectingCluster{newFakeCluster(ready, bare)}
	e := env{newSource: func(*watchFlags) (serviceSource, error) {
		return &listWatchSource{api: cluster, what: "Services in a fake cluster", server: "https://fake.example", pause: cluster.pause}, nil
	}}
	stdout, _, stop := startWatch(t, e, "-l", "app=web")
	w := cluster.nextWatcher(t)
	changed := ready.DeepCopy()
	changed.ResourceVersion = "12"
	changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Port: 443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	w.Modify(changed)
	relabelled := changed.DeepCopy()
	relabelled.ResourceVersion = "13"
	relabelled.Labels = nil
	cluster.set("14", relabelled) // api is deleted, web relabelled
	w.Delete(changed)
	w.Delete(bare)
	waitFor(t, stdout, "L6")
	waitFor(t, stdout, "the Service was deleted; it had neither")
	stop()
	out := stdout.String()
	if !strings.Contains(out, "the Service stopped matching the selector before the provider acknowledged") {
		t.Errorf("L6 of web, which left the selector, does not say so:\n%s", out)
	}
	if strings.Count(out, "the Service was deleted") != 1 {
		t.Errorf("want only api's R3 to say the Service was deleted:\n%s", out)
	}
}

// stillThere asks the server only with a selector, and only of a Service
// not being deleted: the same uid is still there; another uid is a new
// Service, and NotFound a deleted one.
func TestWatch_StillThereAsksTheServer(t *testing.T) {
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		if r.URL.Path != "/api/v1/namespaces/other/services/web" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(service("web", "20", func(s *v1.Service) { s.Namespace = "other" }))
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	api := &coreServices{client: client.CoreV1().RESTClient(), namespace: "", selector: "app=web"}
	web := service("web", "10", func(s *v1.Service) { s.Namespace = "other" })
	now := metav1.Now()
	for _, tc := range []struct {
		name     string
		api      *coreServices
		svc      *v1.Service
		want     bool
		wantGets int32
	}{
		{"same uid", api, web, true, 1},
		{"another uid", api, service("web", "10", func(s *v1.Service) { s.Namespace, s.UID = "other", "uid-old" }), false, 1},
		{"not found", api, service("gone", "10", func(s *v1.Service) { s.Namespace = "other" }), false, 1},
		{"being deleted", api, service("web", "10", func(s *v1.Service) { s.Namespace, s.DeletionTimestamp = "other", &now }), false, 0},
		{"no selector", &coreServices{client: api.client}, web, false, 0},
	} {
		gets.Store(0)
		if got := tc.api.stillThere(context.Background(), tc.svc); got != tc.want || gets.Load() != tc.wantGets {
			t.Errorf("%s: stillThere %v after %d GETs, want %v after %d", tc.name, got, gets.Load(), tc.want, tc.wantGets)
		}
	}
}

// heldGets is a selecting fake cluster whose server would hold each GET
// until its bound: it reports the bound each GET was given, -1 for none.
type heldGets struct {
	selectingCluster
	given chan time.Duration
}

func (f heldGets) stillThere(ctx context.Context, _ *v1.Service) bool {
	d := time.Duration(-1)
	if at, ok := ctx.Deadline(); ok {
		d = time.Until(at)
	}
	f.given <- d
	return false
}

// The watch reads no event while the GET after a DELETED under -l waits:
// that GET has a short bound of its own, not --request-timeout's (nor
// none, with --request-timeout 0), and a shorter --request-timeout still
// bounds it.
func TestWatch_LeftAskedWithinAShortBound(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Minute, time.Second} {
		cluster := newFakeCluster(pending("web", "5"))
		api := heldGets{selectingCluster{cluster}, make(chan time.Duration, 1)}
		src := fakeSource(api, cluster)
		src.requestTimeout = timeout
		_, _, stop := runSource(t, src)
		cluster.nextWatcher(t).Delete(pending("web", "6"))
		want := leftTimeout
		if timeout > 0 {
			want = min(want, timeout)
		}
		select {
		case d := <-api.given:
			if d < 0 || d > want {
				t.Errorf("--request-timeout %s: the GET had %s, want at most %s", timeout, d, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("--request-timeout %s: no GET after the DELETED", timeout)
		}
		stop()
	}
}

// burstGets is a selecting fake cluster whose server answers a GET only
// once n are under way at once, the last asked first; one that its bound
// ends first finds nothing.
type burstGets struct {
	selectingCluster
	n     int32
	asked *atomic.Int32
	all   chan struct{} // closed at the nth GET
}

func (f burstGets) stillThere(ctx context.Context, svc *v1.Service) bool {
	i := f.asked.Add(1)
	if i == f.n {
		close(f.all)
	}
	select {
	case <-f.all:
	case <-ctx.Done():
		return false
	}
	time.Sleep(time.Duration(f.n-i) * 10 * time.Millisecond)
	return f.selectingCluster.stillThere(ctx, svc)
}

// Under -l, the GETs after a burst of DELETED events are under way at
// once, not each waiting for the last to answer, on a server that holds
// each for up to its bound; the events are still handled in the order
// they came, each deleted or left as its GET says.
func TestWatch_LeftAskedAtOnceForABurst(t *testing.T) {
	a, b, c, d := pending("a", "1"), pending("b", "2"), pending("c", "3"), pending("d", "4")
	cluster := newFakeCluster(a, b, c, d)
	api := burstGets{selectingCluster: selectingCluster{cluster}, n: 4, asked: &atomic.Int32{}, all: make(chan struct{})}
	src := fakeSource(api, cluster)
	src.requestTimeout = time.Second
	events, _, stop := runSource(t, src)
	w := cluster.nextWatcher(t)
	cluster.set("20", b, d) // a and c deleted, b and d relabelled
	w.Delete(a)
	w.Delete(b)
	w.Add(pending("e", "12"))
	w.Delete(c)
	w.Delete(d)
	const want = "a@1, b@2, c@3, d@4, -a, ~b, e@12, -c, ~d"
	for deadline := time.Now().Add(30 * time.Second); events.String() != want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if got := events.String(); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// pagedCluster is a selecting fake cluster whose list without the selector
// comes in pages (the continue token is the next page's index), holding the
// Services of the namespace asked (all, for none), and fails
// at page failAt when that is not -1; with stuck, its last page gives its
// own token again. It records each request as "namespace?continue".
type pagedCluster struct {
	selectingCluster
	pages  [][]*v1.Service
	failAt int
	stuck  bool
	asked  *[]string
}

func (f pagedCluster) listUnselected(_ context.Context, namespace string, opts metav1.ListOptions) (*v1.ServiceList, error) {
	*f.asked = append(*f.asked, namespace+"?"+opts.Continue)
	i, _ := strconv.Atoi(cmp.Or(opts.Continue, "0"))
	if i == f.failAt || opts.Limit != leftInGapPage {
		return nil, errors.New("the server failed")
	}
	list := &v1.ServiceList{}
	for _, svc := range f.pages[i] {
		if namespace == "" || svc.Namespace == namespace {
			list.Items = append(list.Items, *svc)
		}
	}
	switch {
	case i+1 < len(f.pages):
		list.Continue = strconv.Itoa(i + 1)
	case f.stuck:
		list.Continue = strconv.Itoa(i)
	}
	return list, nil
}

// Of the Services missing after a gap under -l, those still there with
// the uid the watch knew only left the selector: one list without the
// selector, page after page, in each namespace where Services went missing
// (never of every namespace, with -A), says which. Those a failed page
// leaves unanswered, and one whose uid was not known, count as deleted.
func TestWatch_LeftInGap(t *testing.T) {
	web, api := pending("web", "5"), pending("api", "6")
	shopWeb := service("web", "7", func(s *v1.Service) { s.Namespace, s.UID = "shop", "uid-shop-web" })
	noUID := service("nouid", "8", func(s *v1.Service) { s.UID = "" })
	shop2Web := service("web", "9", func(s *v1.Service) { s.Namespace, s.UID = "shop2", "uid-shop2-web" })
	known := map[string]observed{}
	for _, svc := range []*v1.Service{web, api, shopWeb, noUID, shop2Web} {
		known[keyOf(svc)] = observedOf(svc)
	}
	apiAgain := service("api", "9", func(s *v1.Service) { s.UID = "uid-api-2" })
	for _, tc := range []struct {
		name      string
		gone      []string
		pages     [][]*v1.Service
		failAt    int
		stuck     bool
		want      []string
		wantAsked []string
	}{
		{"pages", []string{"default/api", "default/web"}, [][]*v1.Service{{apiAgain}, {web}}, -1, false, []string{"default/web"}, []string{"default?", "default?1"}},
		{"namespaces", []string{"default/web", "shop/web"}, [][]*v1.Service{{web, shopWeb}}, -1, false, []string{"default/web", "shop/web"}, []string{"default?", "shop?"}},
		// A namespace's name may begin another's: each is read on its own.
		{"namespace prefix", []string{"shop/web", "shop2/web"}, [][]*v1.Service{{shopWeb, shop2Web}}, -1, false, []string{"shop/web", "shop2/web"}, []string{"shop?", "shop2?"}},
		// What one namespace answered does not end the pages of the next.
		{"next namespace's pages", []string{"default/web", "shop/web"}, [][]*v1.Service{{web}, {shopWeb}}, -1, false, []string{"default/web", "shop/web"}, []string{"default?", "shop?", "shop?1"}},
		{"failed page", []string{"default/api", "default/web"}, [][]*v1.Service{{web}, {api}}, 1, false, []string{"default/web"}, []string{"default?", "default?1"}},
		{"all found", []string{"default/web"}, [][]*v1.Service{{web}, {api}}, -1, false, []string{"default/web"}, []string{"default?"}},
		{"token given again", []string{"default/api"}, [][]*v1.Service{{web}, {apiAgain}}, -1, true, nil, []string{"default?", "default?1"}},
		{"unknown uid", []string{"default/nouid"}, [][]*v1.Service{{noUID}}, -1, false, nil, []string{"default?"}},
	} {
		var asked []string
		cluster := newFakeCluster()
		src := fakeSource(pagedCluster{selectingCluster: selectingCluster{cluster}, pages: tc.pages, failAt: tc.failAt, stuck: tc.stuck, asked: &asked}, cluster)
		var got []string
		for key, left := range src.leftInGap(context.Background(), tc.gone, known) {
			if left {
				got = append(got, key)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || !slices.Equal(asked, tc.wantAsked) {
			t.Errorf("%s: left %v after asking %v, want %v after %v", tc.name, got, asked, tc.want, tc.wantAsked)
		}
	}
}

// heldUnselected is a selecting fake cluster whose list without the
// selector the server holds until the watch stops; asked is closed when it
// is asked.
type heldUnselected struct {
	selectingCluster
	asked chan struct{}
}

func (f heldUnselected) listUnselected(ctx context.Context, _ string, _ metav1.ListOptions) (*v1.ServiceList, error) {
	close(f.asked)
	<-ctx.Done()
	return nil, ctx.Err()
}

// Interrupted while it asks whether the Services missing after a gap left
// the selector, the watch has not learnt that they were deleted: it ends
// their traces as the watch's, not as deleted ones.
func TestWatch_InterruptWhileAskingWhetherLeft(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	api := heldUnselected{selectingCluster{cluster}, make(chan struct{})}
	events, _, stop := runSource(t, fakeSource(api, cluster))
	w := cluster.nextWatcher(t)
	cluster.set("20")
	w.Error(expired())
	select {
	case <-api.asked:
	case <-time.After(30 * time.Second):
		t.Fatalf("the source did not ask: %s", events)
	}
	stop()
	if got := events.String(); got != "web@5" {
		t.Errorf("events %q, want only web@5", got)
	}
}

// Without a selector the watch's own list holds every Service: nothing
// more is asked.
func TestWatch_NoSelectorNoUnselectedList(t *testing.T) {
	if list, err := (&coreServices{}).listUnselected(context.Background(), "", metav1.ListOptions{}); list != nil || err != nil {
		t.Errorf("listUnselected without a selector: %v, %v; want nothing", list, err)
	}
}

// heldGet is a selecting fake cluster whose server holds each GET until
// the watch stops; asked is closed at the first.
type heldGet struct {
	selectingCluster
	asked chan struct{}
}

func (f heldGet) stillThere(ctx context.Context, _ *v1.Service) bool {
	close(f.asked)
	<-ctx.Done()
	return false
}

// Interrupted while it asks whether the Service of a DELETED event left
// the selector, the watch has not learnt that it was deleted: its trace
// ends as the watch's, not as a deleted one's.
func TestWatch_InterruptWhileAskingWhetherDeletedLeft(t *testing.T) {
	cluster := newFakeCluster(pending("web", "5"))
	api := heldGet{selectingCluster{cluster}, make(chan struct{})}
	events, _, stop := runSource(t, fakeSource(api, cluster))
	cluster.nextWatcher(t).Delete(pending("web", "6"))
	select {
	case <-api.asked:
	case <-time.After(30 * time.Second):
		t.Fatalf("the source did not ask: %s", events)
	}
	stop()
	if got := events.String(); got != "web@5" {
		t.Errorf("events %q, want only web@5", got)
	}
}

// The same holds when the watch ended while the GET was under way: the
// Service of the DELETED event waits for its answer, and an interrupt
// before it came ends its trace as the watch's.
func TestWatch_InterruptWhileAskingAfterTheWatchEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster := newFakeCluster(pending("web", "5"))
		api := heldGet{selectingCluster{cluster}, make(chan struct{})}
		events, _, stop := runSource(t, fakeSource(api, cluster))
		w := cluster.nextWatcher(t)
		w.Delete(pending("web", "6"))
		<-api.asked
		w.Stop()
		synctest.Wait() // the watch has ended, and waits for the GET
		stop()
		if got := events.String(); got != "web@5" {
			t.Errorf("events %q, want only web@5", got)
		}
	})
}

// watch --help says how long past its timeout a silent watch stays open
// before it is lost: the value the watch uses, silentGrace.
func TestWatchUsage_SaysSilentGrace(t *testing.T) {
	if want := fmt.Sprintf("one still open %s later", silentGrace); !strings.Contains(strings.Join(strings.Fields(watchUsage), " "), want) {
		t.Errorf("watch --help does not say %q", want)
	}
}

// answeredGet is a selecting fake cluster whose server answers each GET
// only when the test gives the answer.
type answeredGet struct {
	selectingCluster
	asked  chan struct{}
	answer chan bool
}

func (f answeredGet) stillThere(ctx context.Context, _ *v1.Service) bool {
	f.asked <- struct{}{}
	select {
	case left := <-f.answer:
		return left
	case <-ctx.Done():
		return false
	}
}

// L6, R3: a watch that ends while the GET after a DELETED event is under
// way still hands on that event, once the GET answers, and the events
// read after it, in order: the traces of the deleted Service end, and the
// later observations are checked, before the next watch begins.
func TestWatch_EventsWaitingOnAGetWhenTheWatchEndsAreHandled(t *testing.T) {
	for _, end := range []string{"closed", "error"} {
		t.Run(end, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cluster := newFakeCluster(pending("web", "5"), pending("api", "6"))
				api := answeredGet{selectingCluster{cluster}, make(chan struct{}), make(chan bool)}
				events, _, stop := runSource(t, fakeSource(api, cluster))
				w := cluster.nextWatcher(t)
				w.Delete(pending("web", "7"))
				<-api.asked
				w.Modify(pending("api", "8"))
				if end == "closed" {
					w.Stop()
				} else {
					w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: "etcd is down"})
				}
				synctest.Wait() // the watch has ended, and waits for the GET
				api.answer <- false
				cluster.nextWatcher(t)
				stop()
				if got, want := events.String(), "web@5, api@6, -web, api@8"; !strings.HasPrefix(got, want) {
					t.Errorf("events %q, want %q first", got, want)
				}
			})
		})
	}
}

// countedGets is a selecting fake cluster whose server holds each GET
// until its bound, counting those asked.
type countedGets struct {
	selectingCluster
	asked *atomic.Int32
}

func (f countedGets) stillThere(ctx context.Context, _ *v1.Service) bool {
	f.asked.Add(1)
	<-ctx.Done()
	return false
}

// Under -l, a burst of DELETED events on a server that holds each GET
// has at most leftAhead GETs under way: the watch reads no further event
// until the oldest answers, and then the next.
func TestWatch_LeftAskedAtMostLeftAheadAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster := newFakeCluster()
		api := countedGets{selectingCluster{cluster}, &atomic.Int32{}}
		events, _, stop := runSource(t, fakeSource(api, cluster))
		w := cluster.nextWatcher(t)
		for i := range leftAhead {
			w.Delete(pending(fmt.Sprintf("s%02d", i), strconv.Itoa(10+i)))
		}
		go w.Delete(pending("last", "99"))
		synctest.Wait()
		if n := api.asked.Load(); n != leftAhead {
			t.Errorf("%d GETs under way at once, want %d", n, leftAhead)
		}
		time.Sleep(leftTimeout) // the held GETs end at their bound
		synctest.Wait()
		if n := api.asked.Load(); n != leftAhead+1 {
			t.Errorf("%d GETs asked once the first answered, want %d", n, leftAhead+1)
		}
		time.Sleep(leftTimeout)
		synctest.Wait()
		got := events.String()
		stop()
		if !strings.HasSuffix(got, "-s15, -last") {
			t.Errorf("events %q, want all deleted, the last one last", got)
		}
	})
}
