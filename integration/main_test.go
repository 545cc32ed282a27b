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
	"os"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lbstatus/lbstatus/integration/internal/controlplane"
)

// The one control plane of this test binary, set by TestMain.
var (
	// cfg is the admin config; copy it (rest.CopyConfig) before changing
	// it.
	cfg *rest.Config
	// kubeconfig is the path of a kubeconfig file for the admin user, for
	// the CLI.
	kubeconfig string
)

// TestMain starts etcd and kube-apiserver once for all tests of the
// binary, dual-stack, runs the tests and stops both.
func TestMain(m *testing.M) {
	os.Exit(controlplane.Main(m, controlplane.Options{Name: "integration", ServiceCIDRs: "10.0.0.0/16,fd00:10::/108"},
		func(e *controlplane.Env) error {
			cfg, kubeconfig = e.Config, e.Kubeconfig
			return nil
		}))
}

// clientset returns an admin clientset with the given user agent, which the
// apiserver also uses as the default field manager.
func clientset(t testing.TB, userAgent string) kubernetes.Interface {
	t.Helper()
	return controlplane.Clientset(t, cfg, userAgent)
}

// namespace creates a namespace of its own for a test; see
// controlplane.Namespace.
func namespace(t testing.TB) string {
	t.Helper()
	return controlplane.Namespace(t, clientset(t, "lbstatus-integration"))
}
