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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// The control plane of this test binary and what the tests need of it, set
// by TestMain.
var (
	env *envtest.Environment
	// cfg is the admin config; copy it before changing it.
	cfg *rest.Config
	// kubeconfig is a kubeconfig file for the admin user, for the CLI.
	kubeconfig string
	// lbstatus is the CLI built from this checkout.
	lbstatus string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// envtest logs through controller-runtime, which warns with a stack
	// trace when no logger is set; the tests say what they need.
	logf.SetLogger(logr.Discard())
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "fault: KUBEBUILDER_ASSETS is not set: skipping; run hack/integration.sh, which builds etcd and kube-apiserver")
		return 0
	}
	dir, err := os.MkdirTemp("", "lbstatus-fault-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "fault: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)

	lbstatus = filepath.Join(dir, "lbstatus")
	build := exec.Command("go", "build", "-o", lbstatus, "./cmd/lbstatus")
	build.Dir = "../.." // the root module
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "fault: go build ./cmd/lbstatus: %v\n%s", err, out)
		return 1
	}

	env = &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  60 * time.Second,
	}
	api := env.ControlPlane.GetAPIServer()
	// A directory of our own survives a restart (envtest makes a fresh one,
	// with a fresh serving CA, for a directory it made itself).
	api.CertDir = filepath.Join(dir, "apiserver")
	if err := os.Mkdir(api.CertDir, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "fault: %v\n", err)
		return 1
	}
	api.Configure().Set("service-cluster-ip-range", "10.0.0.0/16")
	api.Configure().Set("authorization-mode", "RBAC")

	start := time.Now()
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "fault: starting etcd and kube-apiserver: %v\n", err)
		_ = env.Stop()
		return 1
	}
	fmt.Fprintf(os.Stderr, "fault: etcd and kube-apiserver ready in %s\n", time.Since(start).Round(time.Millisecond))
	kubeconfig = filepath.Join(dir, "kubeconfig")
	code := 1
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		fmt.Fprintf(os.Stderr, "fault: %v\n", err)
	} else {
		code = m.Run()
	}
	// A test that failed while etcd was stopped must not leave it so: the
	// apiserver would hang on shutdown.
	if pid, ok := childPID("etcd"); ok {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "fault: stopping etcd and kube-apiserver: %v\n", err)
		code = 1
	}
	return code
}

// childPID returns the pid of this test binary's child process named comm
// ("etcd", "kube-apiserver").
func childPID(comm string) (int, bool) {
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 || fields[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == self && s[open+1:end] == comm {
			return pid, true
		}
	}
	return 0, false
}
