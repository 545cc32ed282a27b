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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
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
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: rv, UID: "uid-" + "name"},
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

func (f *fakeCluster) watch(_ context.Context, rv string) (watch.Interface, error) {
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
		return &listWatchSource{api: f, what: "a fake cluster", server: "https://fake.example", pause: f.pause}, nil
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
			Observations int `json:"observations"`
			Services     int `json:"services"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Summary.Observations != 2 || last.Summary.Services != 1 {
		t.Errorf("last line %q: %v %+v", lines[len(lines)-1], err, last)
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
		requests.Store(r.URL.Path+"?watch="+r.URL.Query().Get("watch"), true)
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
	defer srv.Close()

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
`, srv.URL), 0o600); err != nil {
		t.Fatal(err)
	}

	stdout, _, stop := startWatch(t, defaultEnv(), "--kubeconfig", kubeconfig, "--context", "test", "-n", "shop")
	waitFor(t, stdout, "violation  R4")
	waitFor(t, stdout, "violation  C1")
	if code := stop(); code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	if _, ok := requests.Load("/api/v1/namespaces/shop/services?watch=true"); !ok {
		t.Error("no watch request reached the server")
	}
}

func TestWatch_Errors(t *testing.T) {
	var out, errOut bytes.Buffer
	missing := filepath.Join(t.TempDir(), "nope")
	code := runContext(context.Background(), []string{"watch", "--kubeconfig", missing}, nil, &out, &errOut, defaultEnv())
	if code != exitInput || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "kubeconfig") {
		t.Errorf("missing kubeconfig: exit %d, stderr %q", code, errOut.String())
	}
	for _, args := range [][]string{{"watch", "-n", "a", "-A"}, {"watch", "extra"}, {"watch", "-o", "table"}} {
		errOut.Reset()
		if code := runContext(context.Background(), args, nil, &out, &errOut, fakeEnv(newFakeCluster())); code != exitInput || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}
