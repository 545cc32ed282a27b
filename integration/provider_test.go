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
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/suite"
	"github.com/lbstatus/lbstatus/integration/internal/runprovider"
	"github.com/lbstatus/lbstatus/provider"
)

// settle waits until svc has settled (Provisioning=False and Serving
// set), and returns it.
func settle(t *testing.T, client kubernetes.Interface, ns, name string) *corev1.Service {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		svc := getService(t, client, ns, name)
		if conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) &&
			conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing) != nil {
			return svc
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not settle: %+v", name, svc.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProvider_AnotherClassStartsAndLeavesTheStatusAlone: a provider of
// another class that starts (and so cleans up, not knowing what it wrote
// before) leaves a served Service's conditions and ingress as they are
// (P1), both with their default field managers, one per class set.
func TestProvider_AnotherClassStartsAndLeavesTheStatusAlone(t *testing.T) {
	client := clientset(t, "lbstatus-integration")
	ns := namespace(t)
	classA, classB := suiteClass(t)+"-a", suiteClass(t)+"-b"
	start := func(class string) {
		opts := providerOptions(fullCapabilities(class), provider.Bugs{})
		opts.FieldManager = "" // the default: FieldManagerFor the class
		runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), opts))
	}
	start(classA)
	createLoadBalancer(t, client, ns, "web", func(svc *corev1.Service) { svc.Spec.LoadBalancerClass = ptr.To(classA) })
	served := settle(t, client, ns, "web")
	if !conditions.IsTrue(served.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Fatalf("provider %s did not serve web: %+v", classA, served.Status)
	}
	start(classB)
	// Long enough for B's first reconcile of every Service it lists.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		svc := getService(t, client, ns, "web")
		if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) || len(svc.Status.LoadBalancer.Ingress) == 0 {
			t.Fatalf("P1: a provider of %s started and web (of %s) lost its status: %+v", classB, classA, svc.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Nor did B write to it at all: it applied an empty status, a new
	// resourceVersion and an entry of its manager in the managed fields
	// of a Service that was never its.
	managerB := provider.FieldManagerFor(fullCapabilities(classB))
	for _, m := range getService(t, client, ns, "web").ManagedFields {
		if m.Manager == managerB {
			t.Errorf("P1: web (of %s) has managed fields of %s: %+v", classA, classB, m)
		}
	}
}

// TestProvider_UpgradeReleasesTheOldFieldManager: a provider of a class
// that another configuration of the reference provider served before (a
// version that wrote under DefaultFieldManager, or the provider before its
// class set changed, with the manager FieldManagerFor gave that set) takes
// over what it still writes and lets the rest go. Served degraded in
// SessionAffinity by the old configuration, web is served fully by the
// new one: its Degraded condition goes, which under the old manager's
// co-ownership it would not (P6 would then hold a degradation that ended),
// and the old manager no longer owns any of the status.
func TestProvider_UpgradeReleasesTheOldFieldManager(t *testing.T) {
	for name, oldManager := range map[string]func(class string) string{
		"version": func(string) string { return provider.DefaultFieldManager },
		"class set": func(class string) string {
			return provider.FieldManagerFor(conditions.Capabilities{Classes: []string{class, class + "-gone"}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			class := suiteClass(t)
			upgradeReleases(t, class, oldManager(class))
		})
	}
}

func upgradeReleases(t *testing.T, class, oldManager string) {
	client := clientset(t, "lbstatus-integration")
	ns := namespace(t)
	old := providerOptions(fullCapabilities(class), provider.Bugs{})
	old.FieldManager = oldManager
	old.Capabilities.SessionAffinity = false
	stop := runprovider.Start(t, provider.New(clientset(t, "lbstatus-reference-provider"), old))
	createLoadBalancer(t, client, ns, "web", func(svc *corev1.Service) {
		svc.Spec.LoadBalancerClass = ptr.To(class)
		svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	})
	createLoadBalancer(t, client, ns, "api", func(svc *corev1.Service) {
		svc.Spec.LoadBalancerClass = ptr.To(class)
	})
	if svc := settle(t, client, ns, "web"); !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionDegraded) {
		t.Fatalf("the old version did not serve web degraded: %+v", svc.Status)
	}
	before := settle(t, client, ns, "api")
	stop()

	upgraded := providerOptions(fullCapabilities(class), provider.Bugs{})
	upgraded.FieldManager = "" // FieldManagerFor the class
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), upgraded))
	oldOwns := func(svc *corev1.Service) bool {
		return slices.ContainsFunc(svc.ManagedFields, func(m metav1.ManagedFieldsEntry) bool {
			return m.Manager == oldManager && m.Subresource == "status"
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		web, api := getService(t, client, ns, "web"), getService(t, client, ns, "api")
		degraded := conditions.Get(web.Status.Conditions, v1.LoadBalancerConditionDegraded)
		if !oldOwns(web) && !oldOwns(api) && degraded == nil && conditions.IsTrue(web.Status.Conditions, v1.LoadBalancerConditionServing) {
			// api's status had nothing to change: taken over as it was,
			// but for the restart's L6 bump.
			if !conditions.IsTrue(api.Status.Conditions, v1.LoadBalancerConditionServing) || !equality.Semantic.DeepEqual(before.Status.LoadBalancer, api.Status.LoadBalancer) {
				t.Errorf("api's status changed in the upgrade:\n before %+v\n after  %+v", before.Status, api.Status)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the upgrade: web's Degraded %+v; the old manager owns the status of web: %v, of api: %v; want no Degraded, served, and no old manager",
				degraded, oldOwns(web), oldOwns(api))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProvider_PoolNeverTwiceExhaustedAndRecovered: a pool of two
// addresses serves two Services, fails the third in the infrastructure
// with a message, and a restarted provider recovers the allocations from
// status, so that it never hands out an address twice.
func TestProvider_PoolNeverTwiceExhaustedAndRecovered(t *testing.T) {
	t.Parallel()
	class := suiteClass(t)
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	newOpts := func() provider.Options {
		pool, err := provider.NewPool("198.51.100.0/30")
		if err != nil {
			t.Fatal(err)
		}
		o := providerOptions(fullCapabilities(class), provider.Bugs{})
		o.Pool, o.Namespace = pool, ns
		return o
	}
	lb := func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To(class) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- provider.New(clientset(t, "lbstatus-reference-provider"), newOpts()).Run(ctx) }()
	a := settle(t, client, ns, createLoadBalancer(t, client, ns, "a", lb))
	b := settle(t, client, ns, createLoadBalancer(t, client, ns, "b", lb))
	c := settle(t, client, ns, createLoadBalancer(t, client, ns, "c", lb))
	ipA, ipB := a.Status.LoadBalancer.Ingress[0].IP, b.Status.LoadBalancer.Ingress[0].IP
	if ipA == ipB || !strings.HasPrefix(ipA, "198.51.100.") || !strings.HasPrefix(ipB, "198.51.100.") {
		t.Errorf("a and b got %s and %s, want two pool addresses", ipA, ipB)
	}
	serving := conditions.Get(c.Status.Conditions, v1.LoadBalancerConditionServing)
	if serving.Status != metav1.ConditionFalse || serving.Reason != string(v1.LoadBalancerReasonInfrastructure) || !strings.Contains(serving.Message, "exhausted") {
		t.Errorf("c on an exhausted pool: %+v, want Serving=False/Infrastructure saying the pool is exhausted", serving)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A new provider with an empty memory; b and c go away, d comes.
	for _, name := range []string{"b", "c"} {
		if err := client.CoreV1().Services(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), newOpts()))
	d := settle(t, client, ns, createLoadBalancer(t, client, ns, "d", lb))
	if len(d.Status.LoadBalancer.Ingress) == 0 {
		t.Fatalf("d not served: %+v", d.Status)
	}
	if ipD := d.Status.LoadBalancer.Ingress[0].IP; ipD == ipA || ipD != ipB {
		t.Errorf("d got %s; want b's freed %s, never a's %s", ipD, ipB, ipA)
	}
	if got := getService(t, client, ns, "a").Status.LoadBalancer.Ingress[0].IP; got != ipA {
		t.Errorf("a moved from %s to %s across the restart", ipA, got)
	}
}

// TestProvider_FaultAnnotations: each fault annotation makes the provider
// misbehave as it says, within the rules.
func TestProvider_FaultAnnotations(t *testing.T) {
	t.Parallel()
	class := suiteClass(t)
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	o := providerOptions(fullCapabilities(class), provider.Bugs{})
	o.Faults, o.Namespace, o.ProvisionDelay = true, ns, 100*time.Millisecond
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), o))
	with := func(annotations map[string]string, edit func(*corev1.Service)) func(*corev1.Service) {
		return func(s *corev1.Service) {
			s.Spec.LoadBalancerClass = ptr.To(class)
			s.Annotations = annotations
			if edit != nil {
				edit(s)
			}
		}
	}

	failed := settle(t, client, ns, createLoadBalancer(t, client, ns, "fail", with(map[string]string{provider.FailAnnotation: "the cloud is on fire"}, nil)))
	if s := conditions.Get(failed.Status.Conditions, v1.LoadBalancerConditionServing); s.Reason != string(v1.LoadBalancerReasonInfrastructure) || s.Message != "the cloud is on fire" {
		t.Errorf("fail: Serving %+v, want Infrastructure with the annotation's message", s)
	}

	degraded := settle(t, client, ns, createLoadBalancer(t, client, ns, "degrade", with(map[string]string{provider.DegradeAnnotation: "SessionAffinity,Ports"},
		func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP })))
	// Ports is not degraded: the Service has one port, and P5 forbids it.
	if got := conditions.DegradedReasons(degraded.Status.Conditions); len(got) != 1 || got[0] != v1.LoadBalancerReasonSessionAffinityNotSupported {
		t.Errorf("degrade: reasons %v, want SessionAffinityNotSupported alone", got)
	}

	start := time.Now()
	settle(t, client, ns, createLoadBalancer(t, client, ns, "delay", with(map[string]string{provider.DelayAnnotation: "2s"}, nil)))
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("delay: settled after %s, want at least 2s", took)
	}

	createLoadBalancer(t, client, ns, "silent", with(map[string]string{provider.StopWritingAnnotation: "true"}, nil))
	time.Sleep(2 * time.Second)
	if svc := getService(t, client, ns, "silent"); conditions.HasKEPConditions(svc.Status.Conditions) {
		t.Errorf("stop-writing: the provider wrote %+v", svc.Status)
	}
}

// freePort returns a loopback address with a port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// buildProvider builds cmd/lbstatus-provider of this checkout.
func buildProvider(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lbstatus-provider")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/lbstatus-provider")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/lbstatus-provider: %v\n%s", err, out)
	}
	return bin
}

// TestPrograms_ProviderPassesConformance runs both programs as the README
// says: lbstatus-provider with leader election against the apiserver, and
// lbstatus conformance against it. The run succeeds with every feature
// Supported, the report is written under _out/, the provider reports
// itself ready and counts its writes, and stops cleanly on SIGTERM.
func TestPrograms_ProviderPassesConformance(t *testing.T) {
	t.Parallel()
	providerBin, cliBin := buildProvider(t), buildCLI(t)
	class := suiteClass(t)
	health, metrics := freePort(t), freePort(t)
	prov := exec.Command(providerBin, "--kubeconfig", kubeconfig, "--class", class, "--provision-delay", "300ms",
		"--leader-elect", "--leader-election-namespace", "default", "--leader-election-id", "lbstatus-provider-programs",
		"--field-manager", "provider-"+class, "--health-addr", health, "--metrics-addr", metrics)
	stderr, err := prov.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := prov.Start(); err != nil {
		t.Fatal(err)
	}
	logs := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default:
			}
		}
		close(logs)
	}()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = prov.Process.Kill()
			_ = prov.Wait()
		}
	})
	waitHTTP(t, "http://"+health+"/readyz")

	report := filepath.Join("_out", strings.ReplaceAll(t.Name(), "/", "_")+".yaml")
	if err := os.MkdirAll("_out", 0o755); err != nil {
		t.Fatal(err)
	}
	cli := exec.Command(cliBin, "conformance", "--kubeconfig", kubeconfig, "--class", class,
		"--conditions-timeout", "30s", "--provision-timeout", "60s", "--settle-period", "2s",
		"--project", "lbstatus-provider", "--report", report)
	out, err := cli.CombinedOutput()
	if err != nil {
		t.Fatalf("lbstatus conformance: %v\n%s", err, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r suite.Report
	if err := yaml.Unmarshal(data, &r); err != nil {
		t.Fatalf("report %s: %v", report, err)
	}
	requirePassed(t, &r)
	for _, f := range r.Features {
		if f.Support != suite.SupportSupported {
			t.Errorf("feature %s: %s (%s)", f.Name, f.Support, f.Evidence)
		}
	}
	body := waitHTTP(t, "http://"+metrics+"/metrics")
	if !strings.Contains(body, "lbstatus_provider_leader 1") || strings.Contains(body, "lbstatus_provider_status_writes_total 0\n") {
		t.Errorf("metrics do not show a leader that wrote:\n%s", body)
	}

	if err := prov.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := prov.Wait(); err != nil {
		var lines []string
		for l := range logs {
			lines = append(lines, l)
		}
		t.Errorf("lbstatus-provider after SIGTERM: %v\n%s", err, strings.Join(lines, "\n"))
	}
}

// waitHTTP gets url until it answers 200, and returns the body.
func waitHTTP(t *testing.T, url string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return string(body)
			}
			err = fmt.Errorf("%s: %s", resp.Status, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPrograms_TwoReplicasOneLeader runs lbstatus-provider as a Deployment
// of two replicas would: both with leader election on one Lease. Only the
// leader writes status. Stopped, the leader gives the Lease up and the
// standby takes over within its retry period, recovers the addresses in
// use from status, and serves the next Service from the same pool without
// handing an address out twice.
func TestPrograms_TwoReplicasOneLeader(t *testing.T) {
	t.Parallel()
	bin := buildProvider(t)
	class := suiteClass(t)
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	type replica struct {
		cmd     *exec.Cmd
		metrics string
		stderr  *strings.Builder
	}
	start := func() *replica {
		health, metrics := freePort(t), freePort(t)
		r := &replica{metrics: "http://" + metrics + "/metrics", stderr: &strings.Builder{}}
		r.cmd = exec.Command(bin, "--kubeconfig", kubeconfig, "--class", class, "--pool", "198.51.100.64/30",
			"--provision-delay", "200ms", "--leader-elect", "--leader-election-namespace", ns,
			"--leader-election-id", "lbstatus-provider", "--field-manager", "provider-"+class,
			"--health-addr", health, "--metrics-addr", metrics)
		r.cmd.Stderr = r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if r.cmd.ProcessState == nil {
				_ = r.cmd.Process.Kill()
				_ = r.cmd.Wait()
			}
		})
		waitHTTP(t, "http://"+health+"/readyz")
		return r
	}
	leading := func(r *replica) bool { return strings.Contains(waitHTTP(t, r.metrics), "lbstatus_provider_leader 1\n") }
	wrote := func(r *replica) bool {
		return !strings.Contains(waitHTTP(t, r.metrics), "lbstatus_provider_status_writes_total 0\n")
	}
	// waitLeader waits until one of rs leads, and returns it.
	waitLeader := func(rs ...*replica) *replica {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			for _, r := range rs {
				if leading(r) {
					return r
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("no replica took the Lease in 30s")
		return nil
	}

	one, two := start(), start()
	leader := waitLeader(one, two)
	standby := two
	if leader == two {
		standby = one
	}
	lb := func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To(class) }
	a := settle(t, client, ns, createLoadBalancer(t, client, ns, "a", lb))
	if len(a.Status.LoadBalancer.Ingress) == 0 {
		t.Fatalf("a not served: %+v", a.Status)
	}
	if leading(standby) || wrote(standby) || !wrote(leader) {
		t.Errorf("the standby leads or wrote, or the leader did not write:\nstandby:\n%s\nleader:\n%s", waitHTTP(t, standby.metrics), waitHTTP(t, leader.metrics))
	}

	if err := leader.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := leader.cmd.Wait(); err != nil {
		t.Errorf("the leader after SIGTERM: %v\n%s", err, leader.stderr)
	}
	released := time.Now()
	waitLeader(standby)
	if took := time.Since(released); took > 10*time.Second {
		t.Errorf("the standby took the released Lease after %s, want within a few retry periods, not the lease duration", took)
	} else {
		t.Logf("the standby took the Lease %s after the leader stopped", took.Round(time.Millisecond))
	}
	b := settle(t, client, ns, createLoadBalancer(t, client, ns, "b", lb))
	if len(b.Status.LoadBalancer.Ingress) == 0 || !wrote(standby) {
		t.Fatalf("b not served by the new leader: %+v", b.Status)
	}
	ipA, ipB := a.Status.LoadBalancer.Ingress[0].IP, b.Status.LoadBalancer.Ingress[0].IP
	if ipA == ipB {
		t.Errorf("a and b both got %s: the new leader handed an address out twice", ipA)
	}
	if got := getService(t, client, ns, "a").Status.LoadBalancer.Ingress; len(got) == 0 || got[0].IP != ipA {
		t.Errorf("a moved from %s to %v across the change of leader", ipA, got)
	}
}
