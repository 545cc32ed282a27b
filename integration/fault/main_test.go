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
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/lbstatus/lbstatus/integration/internal/controlplane"
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

// TestMain starts a control plane of this binary's own, whose
// kube-apiserver the tests stop and start again, builds the CLI, runs the
// tests and stops the control plane.
func TestMain(m *testing.M) {
	os.Exit(controlplane.Main(m, controlplane.Options{Name: "fault", Restartable: true}, func(e *controlplane.Env) error {
		env, cfg, kubeconfig = e.Environment, e.Config, e.Kubeconfig
		lbstatus = filepath.Join(e.Dir, "lbstatus")
		build := exec.Command("go", "build", "-o", lbstatus, "./cmd/lbstatus")
		build.Dir = "../.." // the root module
		build.Env = append(os.Environ(), "GOWORK=off")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/lbstatus: %v\n%s", err, out)
		}
		return nil
	}))
}
