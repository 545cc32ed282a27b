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
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The one control plane of this test binary, set by TestMain.
var (
	env *envtest.Environment
	// cfg is the admin config of env; copy it (rest.CopyConfig) before
	// changing it.
	cfg *rest.Config
	// kubeconfig is the path of a kubeconfig file for env, for the CLI.
	kubeconfig string
)

// TestMain starts etcd and kube-apiserver once for all tests of the binary,
// runs the tests and stops both, kube-apiserver first (envtest's order: an
// apiserver whose etcd is gone hangs on shutdown), then checks that no
// process it started is left.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		// Failing, not passing: a run without a control plane tests
		// nothing, and must not look like a success.
		fmt.Fprintln(os.Stderr, "integration: KUBEBUILDER_ASSETS is not set; run hack/integration.sh, which builds etcd and kube-apiserver")
		return 1
	}
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			fmt.Fprintf(os.Stderr, "integration: KUBEBUILDER_ASSETS=%s has no %s: %v\n", assets, bin, err)
			return 1
		}
	}

	env = &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	api := env.ControlPlane.GetAPIServer()
	// 10.0.0.0/24, envtest's default, holds 254 ClusterIPs: fewer than the
	// Services the tests create.
	api.Configure().Set("service-cluster-ip-range", "10.0.0.0/16,fd00:10::/108")
	// Stock authorization is enough: the tests use the admin user.
	api.Configure().Set("authorization-mode", "RBAC")

	start := time.Now()
	var err error
	cfg, err = env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: starting etcd and kube-apiserver: %v\n", err)
		stop(nil)
		return 1
	}
	children := childProcesses()
	fmt.Fprintf(os.Stderr, "integration: etcd and kube-apiserver ready in %s (pids %v)\n", time.Since(start).Round(time.Millisecond), children)

	code := func() int {
		if err := checkLoopback(); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
			return 1
		}
		dir, err := os.MkdirTemp("", "lbstatus-integration-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
		kubeconfig = filepath.Join(dir, "kubeconfig")
		if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
			return 1
		}
		return m.Run()
	}()

	if !stop(children) && code == 0 {
		code = 1
	}
	return code
}

// stop stops the control plane and reports whether it stopped cleanly:
// no error, and none of the given processes left.
func stop(children []int) bool {
	start := time.Now()
	ok := true
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: stopping etcd and kube-apiserver: %v\n", err)
		ok = false
	}
	for _, pid := range children {
		if alive(pid) {
			fmt.Fprintf(os.Stderr, "integration: process %d is still running after stop\n", pid)
			ok = false
		}
	}
	fmt.Fprintf(os.Stderr, "integration: control plane stopped in %s\n", time.Since(start).Round(time.Millisecond))
	return ok
}

// checkLoopback makes sure both servers listen on 127.0.0.1 only.
func checkLoopback() error {
	for name, u := range map[string]*url.URL{"etcd": env.ControlPlane.Etcd.URL, "kube-apiserver": env.ControlPlane.APIServer.SecureServing.URL("https", "/")} {
		if u == nil {
			return fmt.Errorf("%s has no URL", name)
		}
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			return fmt.Errorf("%s listens on %s, not 127.0.0.1", name, u.Host)
		}
	}
	return nil
}

// childProcesses returns the processes whose parent is this test binary:
// etcd and kube-apiserver.
func childProcesses() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok && ppid == self {
			out = append(out, pid)
		}
	}
	return out
}

// parentOf reads the parent pid from /proc/<pid>/stat.
func parentOf(pid int) (int, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The command name may hold spaces and parentheses: the fields after
	// the last ')' are state, ppid, ...
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// alive reports whether pid is a running process of this test binary (a
// zombie, or a pid reused by another parent, does not count).
func alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 || fields[0] == "Z" {
		return false
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid == os.Getpid()
}

// clientset returns a clientset for env with the given user agent, which
// the apiserver also uses as the default field manager.
func clientset(t testing.TB, userAgent string) kubernetes.Interface {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.UserAgent = userAgent
	// Tests that expect warnings read them from the response.
	c.WarningHandlerWithContext = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return cs
}

// namespace creates a namespace of its own for a test. envtest runs no
// namespace controller, so namespaces are never really deleted; the
// cleanup deletes the Services, which frees their ClusterIPs and node
// ports.
func namespace(t testing.TB) string {
	t.Helper()
	cs := clientset(t, "lbstatus-integration")
	ctx := context.Background()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.Trim(name, "-")
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		// Services have no deletecollection.
		ctx := context.Background()
		list, err := cs.CoreV1().Services(ns.Name).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Errorf("cleanup: list services: %v", err)
			return
		}
		for _, svc := range list.Items {
			if err := cs.CoreV1().Services(ns.Name).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("cleanup: %v", err)
			}
		}
	})
	return ns.Name
}
