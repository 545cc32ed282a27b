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

// Command apiserver starts the integration tests' control plane (etcd and
// kube-apiserver from KUBEBUILDER_ASSETS, through envtest) for a person to
// use: it writes a kubeconfig, prints its path, and runs until interrupted.
// It is how the README runs lbstatus-provider and lbstatus conformance
// against the same apiserver the integration tests use.
//
// Usage (from integration/):
//
//	KUBEBUILDER_ASSETS=../hack/kube/.bin go run ./cmd/apiserver --kubeconfig /tmp/lbstatus.kubeconfig
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func main() {
	// A flag set of our own: controller-runtime defines --kubeconfig on the
	// global one.
	fs := flag.NewFlagSet("apiserver", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "lbstatus.kubeconfig", "where to write the kubeconfig of the started apiserver")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: KUBEBUILDER_ASSETS=DIR apiserver [--kubeconfig PATH]\n\n"+
			"Starts etcd and kube-apiserver (from DIR, as hack/kube/build.sh builds them), writes a\n"+
			"kubeconfig, and runs until interrupted. Example, from integration/:\n"+
			"  KUBEBUILDER_ASSETS=../hack/kube/.bin go run ./cmd/apiserver --kubeconfig /tmp/lbstatus.kubeconfig\n\n")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "apiserver: KUBEBUILDER_ASSETS is not set: point it at the folder of etcd and kube-apiserver (hack/kube/build.sh prints it)")
		os.Exit(2)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: 60 * time.Second, ControlPlaneStopTimeout: 30 * time.Second}
	api := env.ControlPlane.GetAPIServer()
	// As the integration tests: dual-stack Services, RBAC.
	api.Configure().Set("service-cluster-ip-range", "10.0.0.0/16,fd00:10::/108")
	api.Configure().Set("authorization-mode", "RBAC")
	if _, err := env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "apiserver: starting etcd and kube-apiserver: %v\n", err)
		_ = env.Stop()
		os.Exit(1)
	}
	code := 0
	if err := os.WriteFile(*kubeconfig, env.KubeConfig, 0o600); err != nil {
		fmt.Fprintf(os.Stderr, "apiserver: %v\n", err)
		code = 1
	} else {
		fmt.Printf("kube-apiserver ready; kubeconfig: %s (interrupt to stop)\n", *kubeconfig)
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		<-ctx.Done()
		stop()
	}
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "apiserver: stopping: %v\n", err)
		code = 1
	}
	os.Exit(code)
}
