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

// Package controlplane starts the etcd and kube-apiserver that the
// integration tests run against, from the binaries hack/integration.sh
// builds (KUBEBUILDER_ASSETS), and holds what every test binary needs of
// them: an admin client, a namespace per test, the processes it started.
//
// A test binary runs Main from its TestMain. Without KUBEBUILDER_ASSETS,
// Main fails rather than skips: a run that tested nothing must not look
// like a success.
package controlplane

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Options say how to start the control plane.
type Options struct {
	// Name starts every message: the test binary's package.
	Name string
	// ServiceCIDRs is kube-apiserver's --service-cluster-ip-range;
	// 10.0.0.0/16 when empty (envtest's /24 holds fewer ClusterIPs than
	// the tests create Services).
	ServiceCIDRs string
	// FeatureGates is kube-apiserver's --feature-gates, when not empty.
	FeatureGates string
	// Restartable keeps kube-apiserver's serving certificates in Dir, so
	// that a test may stop and start it again with the same CA (envtest
	// makes new ones in a directory of its own).
	Restartable bool
}

// Env is a running control plane.
type Env struct {
	*envtest.Environment
	// Config is the admin user's; copy it (rest.CopyConfig) to change it.
	Config *rest.Config
	// Kubeconfig is a kubeconfig file for the admin user, for the CLI.
	Kubeconfig string
	// Dir is the test binary's own directory, removed after the tests.
	Dir string
}

// Main starts etcd and kube-apiserver, calls ready (when not nil) and runs
// the tests, then stops both and checks that no process it started is
// left. It returns the exit code for os.Exit: not 0 when the control plane
// does not start or stop cleanly, or ready fails.
func Main(m *testing.M, o Options, ready func(*Env) error) int {
	// envtest logs through controller-runtime, which warns with a stack
	// trace when no logger is set; the tests say what they need.
	logf.SetLogger(logr.Discard())
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", o.Name, err)
		return 1
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return fail(errors.New("KUBEBUILDER_ASSETS is not set; run hack/integration.sh, which builds etcd and kube-apiserver"))
	}
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			return fail(fmt.Errorf("KUBEBUILDER_ASSETS=%s has no %s: %w", assets, bin, err))
		}
	}
	dir, err := os.MkdirTemp("", "lbstatus-"+strings.ReplaceAll(o.Name, "/", "-")+"-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)

	e := &Env{Dir: dir, Kubeconfig: filepath.Join(dir, "kubeconfig"), Environment: &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  60 * time.Second,
	}}
	api := e.ControlPlane.GetAPIServer()
	if o.Restartable {
		api.CertDir = filepath.Join(dir, "apiserver")
		if err := os.Mkdir(api.CertDir, 0o700); err != nil {
			return fail(err)
		}
	}
	api.Configure().Set("service-cluster-ip-range", cmp.Or(o.ServiceCIDRs, "10.0.0.0/16"))
	// Stock authorization is enough: the tests use the admin user.
	api.Configure().Set("authorization-mode", "RBAC")
	if o.FeatureGates != "" {
		api.Configure().Set("feature-gates", o.FeatureGates)
	}

	start := time.Now()
	if e.Config, err = e.Start(); err != nil {
		e.stop(o.Name)
		return fail(fmt.Errorf("starting etcd and kube-apiserver: %w", err))
	}
	fmt.Fprintf(os.Stderr, "%s: etcd and kube-apiserver ready in %s\n", o.Name, time.Since(start).Round(time.Millisecond))
	code := func() int {
		if err := e.checkLoopback(); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(e.Kubeconfig, e.KubeConfig, 0o600); err != nil {
			return fail(err)
		}
		if ready != nil {
			if err := ready(e); err != nil {
				return fail(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go e.finalizeNamespaces(ctx)
		return m.Run()
	}()
	if !e.stop(o.Name) && code == 0 {
		code = 1
	}
	return code
}

// stop stops the control plane and reports whether it stopped cleanly: no
// error, and none of its processes left.
func (e *Env) stop(name string) bool {
	// A test that failed while etcd was stopped must not leave it so: the
	// apiserver would hang on shutdown.
	if pid, ok := ChildPID("etcd"); ok {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
	children := childPIDs()
	ok := true
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: stopping etcd and kube-apiserver: %v\n", name, err)
		ok = false
	}
	for pid, comm := range children {
		if c, ok2 := childComm(pid); ok2 && c == comm {
			fmt.Fprintf(os.Stderr, "%s: %s (pid %d) is still running after stop\n", name, comm, pid)
			ok = false
		}
	}
	return ok
}

// checkLoopback makes sure both servers listen on 127.0.0.1 only.
func (e *Env) checkLoopback() error {
	for name, u := range map[string]*url.URL{"etcd": e.ControlPlane.Etcd.URL, "kube-apiserver": e.ControlPlane.APIServer.SecureServing.URL("https", "/")} {
		if u == nil {
			return fmt.Errorf("%s has no URL", name)
		}
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			return fmt.Errorf("%s listens on %s, not 127.0.0.1", name, u.Host)
		}
	}
	return nil
}

// ChildPID returns the pid of the running process named comm ("etcd",
// "kube-apiserver") that this test binary started.
func ChildPID(comm string) (int, bool) {
	for pid, c := range childPIDs() {
		if c == comm {
			return pid, true
		}
	}
	return 0, false
}

// childPIDs returns the running processes this test binary started, with
// their names.
func childPIDs() map[int]string {
	entries, _ := os.ReadDir("/proc")
	out := map[int]string{}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if comm, ok := childComm(pid); ok {
				out[pid] = comm
			}
		}
	}
	return out
}

// childComm returns the name of pid when it is a running child of this
// test binary; a zombie, or a pid another parent reuses, is not.
func childComm(pid int) (string, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", false
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 || fields[0] == "Z" {
		return "", false
	}
	if ppid, _ := strconv.Atoi(fields[1]); ppid != os.Getpid() {
		return "", false
	}
	return s[open+1 : end], true
}

// Clientset returns a clientset of config that names itself userAgent,
// which the apiserver also takes as the default field manager. Warnings
// are not logged: tests that expect one read it from the response.
func Clientset(t testing.TB, config *rest.Config, userAgent string) kubernetes.Interface {
	t.Helper()
	c := rest.CopyConfig(config)
	c.UserAgent = userAgent
	c.WarningHandlerWithContext = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return cs
}

// finalizeNamespaces stands in, until ctx ends, for the namespace
// controller envtest does not run: a namespace being deleted loses its
// Services and then its "kubernetes" finalizer, so that it goes, as on a
// cluster, and a conformance run that waits for its namespaces to go sees
// them go. It polls, so that a kube-apiserver a test stops and starts
// again costs it nothing but a few failed lists.
func (e *Env) finalizeNamespaces(ctx context.Context) {
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "namespace finalizer: %v\n", err)
		return
	}
	for {
		list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			list = &corev1.NamespaceList{} // stopped, or starting again
		}
		for _, ns := range list.Items {
			if ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) == 0 {
				continue
			}
			if n, err := deleteServices(ctx, cs, ns.Name); err != nil || n > 0 {
				continue // gone at a later round, once a provider lets them go
			}
			ns.Spec.Finalizers = nil
			_, _ = cs.CoreV1().Namespaces().Finalize(ctx, &ns, metav1.UpdateOptions{})
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// deleteServices deletes the Services of namespace ns (Services have no
// deletecollection) and returns how many it found, with what failed: the
// list, or deletions other than of a Service already gone.
func deleteServices(ctx context.Context, cs kubernetes.Interface, ns string) (int, error) {
	list, err := cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list services: %w", err)
	}
	var errs []error
	for _, svc := range list.Items {
		if err := cs.CoreV1().Services(ns).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return len(list.Items), errors.Join(errs...)
}

// Namespace creates a namespace named after the test, and deletes its
// Services after it: deleting the Services frees their ClusterIPs and node
// ports, where the namespace, which is not deleted, would keep them.
func Namespace(t testing.TB, cs kubernetes.Interface) string {
	t.Helper()
	ctx := context.Background()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(strings.TrimPrefix(t.Name(), "Test")))
	name = strings.Trim(name[:min(len(name), 50)], "-")
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		if _, err := deleteServices(ctx, cs, ns.Name); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	return ns.Name
}
