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

package fork

import (
	"os"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lbstatus/lbstatus/integration/internal/controlplane"
)

// cfg is the admin config of this test binary's control plane, set by
// TestMain; copy it before changing it. kubeconfig is a kubeconfig file for
// the same user, for the CLI.
var (
	cfg        *rest.Config
	kubeconfig string
)

// TestMain starts etcd and the fork's kube-apiserver (hack/integration.sh
// points KUBEBUILDER_ASSETS at it) with the LoadBalancerStatusImprovements
// gate on, runs the tests and stops both.
func TestMain(m *testing.M) {
	os.Exit(controlplane.Main(m, controlplane.Options{Name: "integration/fork", FeatureGates: "LoadBalancerStatusImprovements=true"},
		func(e *controlplane.Env) error {
			cfg, kubeconfig = e.Config, e.Kubeconfig
			return nil
		}))
}

// clientset returns an admin client that identifies itself as userAgent
// (the default field manager of its writes).
func clientset(t *testing.T, userAgent string) kubernetes.Interface {
	t.Helper()
	return controlplane.Clientset(t, cfg, userAgent)
}

// namespace creates a namespace for one test; see controlplane.Namespace.
func namespace(t *testing.T) string {
	t.Helper()
	return controlplane.Namespace(t, clientset(t, "lbstatus-fork-test"))
}
