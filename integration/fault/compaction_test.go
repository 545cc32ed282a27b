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

package fault

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/lbstatus/lbstatus/integration/internal/controlplane"
)

// etcd compacted while the watch is cut off: the resumed watch asks for a
// revision etcd no longer has, the apiserver answers 410 Gone, and the
// command lists again. The gap record names the Services created, changed
// and deleted while it was away; only their final states are checked (a
// violation written and undone in the gap is, by the spec, not seen); an
// unchanged Service is not checked again.
//
// The watch goes through a second kube-apiserver on the same etcd, without
// a watch cache, so that it reads etcd's history itself (with a cache, a
// watch is served from the apiserver's memory, which compaction does not
// touch), and through a TCP proxy the test can cut.
func TestWatch_EtcdCompactedWhileAway(t *testing.T) {
	server, config := uncachedAPIServer(t)
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	cs := clientset(t)
	ns := controlplane.Namespace(t, cs)
	for _, name := range []string{"still", "flip", "gone"} {
		createService(t, cs, ns, name)
	}
	w := startWatch(t, "--kubeconfig", config, "--server", "https://"+p.addr(), "-n", ns)
	for _, name := range []string{"still", "flip", "gone"} {
		w.WaitFor(t, 30*time.Second, name+"'s Pending verdict", func(l line) bool { return l.verdict("Pending", name) })
	}

	p.partition()
	writeServingWithoutIngress(t, cs, ns, "flip") // L4, then fixed: never seen
	setIngress(t, cs, ns, "flip", "192.0.2.7")
	if err := cs.CoreV1().Services(ns).Delete(context.Background(), "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createService(t, cs, ns, "born")
	writeServingWithoutIngress(t, cs, ns, "born") // L4, the final state: seen
	compactEtcd(t)
	p.heal()

	w.WaitFor(t, 30*time.Second, "a gap record", isGap)
	w.WaitFor(t, 30*time.Second, "born's L4 violation", func(l line) bool { return l.violation("L4", "born") })
	w.WaitFor(t, 30*time.Second, "flip's Ready verdict", func(l line) bool { return l.verdict("Ready", "flip") })
	code, sum := stop(t, w)

	var gaps []line
	for _, l := range w.Lines() {
		if l.Gap != nil {
			gaps = append(gaps, l)
		}
	}
	want := []string{ns + "/born", ns + "/flip", ns + "/gone"}
	if len(gaps) != 1 || gaps[0].Gap.Changed != 3 || !slices.Equal(gaps[0].Gap.Services, want) || !strings.Contains(gaps[0].Gap.Reason, "410 Gone") {
		t.Errorf("want one gap naming %v, after a 410; %s", want, w.Describe())
	}
	if n := w.Count(func(l line) bool { return l.violation("L4", "flip") }); n != 0 {
		t.Errorf("flip's L4 inside the gap was reported; %s", w.Describe())
	}
	if n := w.Count(func(l line) bool { return l.Object.Name == "still" && l.Verdict != nil }); n != 1 {
		t.Errorf("still, unchanged, was checked again (%d verdict notices); %s", n, w.Describe())
	}
	if n := w.Count(func(l line) bool { return l.Object.Name == "gone" && l.Rule == "R3" }); n != 1 {
		t.Errorf("gone's trace did not end at the gap (%d R3 notices); %s", n, w.Describe())
	}
	// still, flip, gone; then flip and born after the gap.
	if code != 1 || sum.Summary.Findings.Violations != 1 || sum.Summary.Gaps != 1 || sum.Summary.Observations != 5 {
		t.Errorf("exit %d, summary %+v; want 1, born's violation only, 1 gap, 5 observations; %s", code, *sum.Summary, w.Describe())
	}
}

// uncachedAPIServer starts a second kube-apiserver on the control plane's
// etcd, without a watch cache, and returns its URL and an admin kubeconfig.
func uncachedAPIServer(t *testing.T) (server, config string) {
	t.Helper()
	first := env.ControlPlane.GetAPIServer()
	api := &envtest.APIServer{
		EtcdURL:      env.ControlPlane.Etcd.URL,
		Path:         first.Path,
		StartTimeout: 90 * time.Second,
		StopTimeout:  60 * time.Second,
	}
	api.Configure().
		Set("watch-cache", "false").
		Set("service-cluster-ip-range", "10.0.0.0/16").
		Set("authorization-mode", "RBAC")
	start := time.Now()
	if err := api.Start(); err != nil {
		t.Fatalf("start a second kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := api.Stop(); err != nil {
			t.Errorf("stop the second kube-apiserver: %v", err)
		}
	})
	t.Logf("second kube-apiserver ready in %s", time.Since(start).Round(time.Millisecond))
	plane := &envtest.ControlPlane{APIServer: api}
	user, err := plane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return user.Config().Host, config
}

// proxy forwards TCP connections to a target until partitioned, when it
// drops every connection and refuses new ones until healed.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			cut := p.cut
			p.mu.Unlock()
			if cut {
				c.Close()
				continue
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		p.partition()
	})
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// partition drops every connection and refuses new ones.
func (p *proxy) partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// heal accepts connections again.
func (p *proxy) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// setIngress adds an ingress to name's status, which makes a status of
// writeServingWithoutIngress right.
func setIngress(t *testing.T, cs kubernetes.Interface, ns, name, ip string) {
	t.Helper()
	ctx := context.Background()
	svc, err := cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if _, err := cs.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// compactEtcd writes a key of its own to etcd, so that its revision is past
// anything a watcher saw, and compacts etcd's history up to that revision,
// through etcd's JSON gateway to its gRPC API.
func compactEtcd(t *testing.T) {
	t.Helper()
	base := env.ControlPlane.Etcd.URL.String()
	var put struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	key := base64.StdEncoding.EncodeToString([]byte("/lbstatus-fault/compaction"))
	value := base64.StdEncoding.EncodeToString([]byte(time.Now().String()))
	etcdPost(t, base+"/v3/kv/put", fmt.Sprintf(`{"key":%q,"value":%q}`, key, value), &put)
	if put.Header.Revision == "" {
		t.Fatal("etcd gave no revision")
	}
	etcdPost(t, base+"/v3/kv/compaction", fmt.Sprintf(`{"revision":%q,"physical":true}`, put.Header.Revision), nil)
	t.Logf("etcd compacted at revision %s", put.Header.Revision)
}

func etcdPost(t *testing.T, url, body string, out any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("etcd %s: %s: %s", url, resp.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("etcd %s: %v: %s", url, err, data)
		}
	}
}
