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
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/integration/internal/controlplane"
	"github.com/lbstatus/lbstatus/integration/internal/runprovider"
	"github.com/lbstatus/lbstatus/provider"
)

func isGap(l line) bool { return l.Gap != nil }

// The apiserver restarted mid-watch, and etcd compacted while it was down
// (as the apiserver's own compaction, every 5 minutes, may do): the resumed
// watch gets 410 Gone, so the command lists again. The finding made before the restart is not
// printed again, the next violation is, and one gap record says what was
// not observed.
func TestWatch_APIServerRestart(t *testing.T) {
	cs := clientset(t)
	ns := controlplane.Namespace(t, cs)
	createService(t, cs, ns, "web")
	writeServingWithoutIngress(t, cs, ns, "web")
	w := startWatch(t, "--kubeconfig", kubeconfig, "-n", ns)
	w.WaitFor(t, 30*time.Second, "web's L4 violation", func(l line) bool { return l.violation("L4", "web") })

	restartAPIServer(t, true)
	createService(t, cs, ns, "api")
	writeServingWithoutIngress(t, cs, ns, "api")
	w.WaitFor(t, 30*time.Second, "api's L4 violation", func(l line) bool { return l.violation("L4", "api") })
	w.WaitFor(t, 30*time.Second, "a gap record", isGap)

	code, sum := stop(t, w)
	if n := w.Count(func(l line) bool { return l.violation("L4", "web") }); n != 1 {
		t.Errorf("web's L4 printed %d times, want once; %s", n, w.Describe())
	}
	if n := w.Count(isGap); n != 1 {
		t.Errorf("%d gap records, want 1; %s", n, w.Describe())
	}
	if code != 1 || sum.Summary.Findings.Violations != 2 || sum.Summary.Gaps != 1 {
		t.Errorf("exit %d, summary %+v; want 1, 2 violations (web's and api's L4) and 1 gap; %s", code, *sum.Summary, w.Describe())
	}
	log := w.Stderr()
	if strings.Count(log, "lost the watch") != 1 || strings.Count(log, "watching again") != 1 {
		t.Errorf("want the outage said once when lost and once when over; stderr:\n%s", log)
	}
}

// etcd stalled (SIGSTOP) for a while, with a write waiting on it: the watch
// stays open, nothing is lost, and there is no list again (no gap).
func TestWatch_EtcdStall(t *testing.T) {
	cs := clientset(t)
	ns := controlplane.Namespace(t, cs)
	createService(t, cs, ns, "web")
	w := startWatch(t, "--kubeconfig", kubeconfig, "-n", ns)
	w.WaitFor(t, 30*time.Second, "web's Pending verdict", func(l line) bool { return l.verdict("Pending", "web") })

	etcd, ok := controlplane.ChildPID("etcd")
	if !ok {
		t.Fatal("no etcd process")
	}
	if err := syscall.Kill(etcd, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(etcd, syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(resume)
	written := make(chan error, 1)
	go func() {
		_, err := servingWithoutIngress(context.Background(), cs, ns, "web")
		written <- err
	}()
	time.Sleep(12 * time.Second)
	resume()
	if err := <-written; err != nil {
		t.Fatalf("the write made during the stall: %v", err)
	}
	w.WaitFor(t, 30*time.Second, "web's L4 violation, written during the stall", func(l line) bool { return l.violation("L4", "web") })

	code, sum := stop(t, w)
	if n := w.Count(isGap); n != 0 || sum.Summary.Gaps != 0 {
		t.Errorf("%d gap records, summary %d gaps; want none; %s", n, sum.Summary.Gaps, w.Describe())
	}
	if code != 1 || sum.Summary.Findings.Violations != 1 || sum.Summary.Observations != 2 {
		t.Errorf("exit %d, summary %+v; want 1, with 1 violation in 2 observations; %s", code, *sum.Summary, w.Describe())
	}
	if log := w.Stderr(); strings.Contains(log, "lost the watch") {
		t.Errorf("the watch was lost during the stall:\n%s", log)
	}
}

// silentServer accepts connections and never answers. It returns the URL
// and a kubeconfig for it.
func silentServer(t *testing.T) (server, config string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	server = "https://" + ln.Addr().String()
	config = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(config, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: silent
  user: {token: secret}
contexts:
- name: silent
  context: {cluster: silent, user: silent, namespace: default}
current-context: silent
`, server), 0o600); err != nil {
		t.Fatal(err)
	}
	return server, config
}

// A server that accepts the connection and never answers: exit 2 once
// --request-timeout has passed, with one line naming the server and what
// timed out.
func TestWatch_SilentServer(t *testing.T) {
	server, config := silentServer(t)
	w := startWatch(t, "--kubeconfig", config, "--request-timeout", "2s")
	if code := w.Wait(t, 15*time.Second); code != 2 {
		t.Errorf("exit %d, want 2; %s", code, w.Describe())
	}
	want := "lbstatus: listing Services on " + server + ": no answer within 2s (--request-timeout)\n"
	if got := w.Stderr(); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// An interrupt while the first list waits, on a silent server and on a
// real apiserver whose etcd is stalled: the command exits at once (status
// 2: the cluster was never read), not when some timeout fires.
func TestWatch_InterruptDuringFirstList(t *testing.T) {
	check := func(t *testing.T, w *watchProcess, server string) {
		t.Helper()
		time.Sleep(time.Second) // the list is under way
		if err := w.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := w.Wait(t, 5*time.Second); code != 2 {
			t.Errorf("exit %d, want 2; %s", code, w.Describe())
		}
		want := "lbstatus: interrupted while listing Services on " + server + "\n"
		if got := w.Stderr(); got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
	}
	t.Run("silent server", func(t *testing.T) {
		server, config := silentServer(t)
		check(t, startWatch(t, "--kubeconfig", config), server)
	})
	t.Run("etcd stalled", func(t *testing.T) {
		etcd, ok := controlplane.ChildPID("etcd")
		if !ok {
			t.Fatal("no etcd process")
		}
		if err := syscall.Kill(etcd, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := syscall.Kill(etcd, syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}()
		check(t, startWatch(t, "--kubeconfig", kubeconfig, "-A"), strings.TrimSuffix(cfg.Host, "/"))
	})
}

// The reference provider keeps converging Services across an apiserver
// restart, and the checker finds nothing wrong in what it wrote before,
// across and after the gap.
func TestWatch_ProviderAcrossRestart(t *testing.T) {
	cs := clientset(t)
	ns := controlplane.Namespace(t, cs)
	pc := rest.CopyConfig(cfg)
	pc.UserAgent = provider.DefaultFieldManager
	p := provider.New(kubernetesFor(t, pc), provider.Options{
		Capabilities: conditions.Capabilities{
			IPFamilies:    []corev1.IPFamily{corev1.IPv4Protocol},
			Protocols:     []corev1.Protocol{corev1.ProtocolTCP},
			DefaultClass:  true,
			KnownFeatures: v1.LoadBalancerFeatures(),
		},
		Namespace: ns, Workers: 1,
	})
	runprovider.Start(t, p)

	createService(t, cs, ns, "first")
	w := startWatch(t, "--kubeconfig", kubeconfig, "-n", ns)
	w.WaitFor(t, 30*time.Second, "first Ready", func(l line) bool { return l.verdict("Ready", "first") })

	restartAPIServer(t, true)
	createService(t, cs, ns, "second")
	// The provider's informer resumes on client-go's backoff, up to 30 s.
	w.WaitFor(t, 90*time.Second, "second Ready", func(l line) bool { return l.verdict("Ready", "second") })

	code, sum := stop(t, w)
	if code != 0 || sum.Summary.Findings.Violations != 0 || sum.Summary.Findings.Warnings != 0 || sum.Summary.Gaps != 1 || w.Count(isGap) != 1 {
		t.Errorf("exit %d, summary %+v; want 0, no violation or warning, 1 gap; %s", code, *sum.Summary, w.Describe())
	}
}
