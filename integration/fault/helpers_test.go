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
	"os"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lbstatus/lbstatus/integration/internal/controlplane"
	"github.com/lbstatus/lbstatus/integration/internal/watchcmd"
)

// line is one line of `lbstatus watch -o json`: a finding, a gap, or the
// summary.
type line struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Object   struct {
		Namespace       string `json:"namespace"`
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"object"`
	Verdict *struct {
		Result string `json:"result"`
	} `json:"verdict"`
	Gap *struct {
		From     string   `json:"from"`
		To       string   `json:"to"`
		Reason   string   `json:"reason"`
		Changed  int      `json:"changed"`
		Services []string `json:"services"`
	} `json:"gap"`
	Summary *struct {
		Observations int `json:"observations"`
		Services     int `json:"services"`
		Gaps         int `json:"gaps"`
		Findings     struct {
			Violations int `json:"violations"`
			Warnings   int `json:"warnings"`
		} `json:"findings"`
	} `json:"summary"`
}

// violation reports whether l is a violation of rule on the Service name.
func (l line) violation(rule, name string) bool {
	return l.Severity == "violation" && l.Rule == rule && l.Object.Name == name
}

// verdict reports whether l is a verdict notice of result on name.
func (l line) verdict(result, name string) bool {
	return l.Verdict != nil && l.Verdict.Result == result && l.Object.Name == name
}

// watchProcess is a running `lbstatus watch -o json` and what it printed.
type watchProcess = watchcmd.Process[line]

// startWatch runs `lbstatus watch -o json args...`.
func startWatch(t *testing.T, args ...string) *watchProcess {
	t.Helper()
	return watchcmd.Start[line](t, lbstatus, append([]string{"watch", "-o", "json"}, args...)...)
}

// stop interrupts the watch, waits for the exit, and returns the exit
// status and the summary.
func stop(t *testing.T, w *watchProcess) (int, *line) {
	t.Helper()
	code, lines := w.Stop(t, os.Interrupt)
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Summary != nil {
			return code, &lines[i]
		}
	}
	t.Fatalf("no summary; %s", w.Describe())
	return code, nil
}

// clientset returns an admin clientset.
func clientset(t testing.TB) kubernetes.Interface {
	t.Helper()
	return controlplane.Clientset(t, cfg, "lbstatus-fault")
}

// createService creates a LoadBalancer Service (no class: the reference
// provider handles it).
func createService(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	out, err := cs.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s/%s: %v", ns, name, err)
	}
	return out
}

// writeServingWithoutIngress writes the status of a broken provider:
// Serving True with no ingress, a violation of L4 at every write.
func writeServingWithoutIngress(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.Service {
	t.Helper()
	svc, err := servingWithoutIngress(context.Background(), cs, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// servingWithoutIngress is writeServingWithoutIngress for any goroutine.
func servingWithoutIngress(ctx context.Context, cs kubernetes.Interface, ns, name string) (*corev1.Service, error) {
	svc, err := cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get %s/%s: %w", ns, name, err)
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	svc.Status.Conditions = []metav1.Condition{
		{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: "Complete", Message: "done", LastTransitionTime: now, ObservedGeneration: svc.Generation},
		{Type: "LoadBalancerServing", Status: metav1.ConditionTrue, Reason: "Serving", Message: "serving", LastTransitionTime: now, ObservedGeneration: svc.Generation},
	}
	svc.Status.LoadBalancer.Ingress = nil
	out, err := cs.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update status %s/%s: %w", ns, name, err)
	}
	return out, nil
}

// restartAPIServer stops kube-apiserver (SIGTERM, then SIGKILL if it has
// not exited within 5 s: its graceful shutdown can take a minute), compacts
// etcd while it is down when compact is set, starts it again with the same
// flags, port and certificates, and waits until it is ready.
//
// Without the compaction, whether the resumed watch gets 410 Gone depends on
// the new apiserver's watch cache; with it, it always does.
func restartAPIServer(t *testing.T, compact bool) {
	t.Helper()
	api := env.ControlPlane.GetAPIServer()
	start := time.Now()
	pid, ok := controlplane.ChildPID("kube-apiserver")
	if !ok {
		t.Fatal("no kube-apiserver process")
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if !gone(pid, 5*time.Second) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if !gone(pid, 20*time.Second) {
			t.Fatal("kube-apiserver does not exit")
		}
	}
	// envtest notices the exit in a goroutine of its own; until then its
	// Stop signals a process that is gone and fails.
	var err error
	for range 50 {
		if err = api.Stop(); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("stop kube-apiserver: %v", err)
	}
	if compact {
		compactEtcd(t)
	}
	if err := api.Start(); err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	waitReady(t)
	t.Logf("kube-apiserver restarted in %s", time.Since(start).Round(time.Millisecond))
}

// gone waits up to within for the child process pid to exit.
func gone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if p, ok := controlplane.ChildPID("kube-apiserver"); !ok || p != pid {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// waitReady waits until the apiserver answers /readyz.
func waitReady(t *testing.T) {
	t.Helper()
	cs := clientset(t)
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// kubernetesFor returns a clientset for c.
func kubernetesFor(t *testing.T, c *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
