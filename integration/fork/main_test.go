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
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The control plane of this test binary, set by TestMain.
var (
	env *envtest.Environment
	cfg *rest.Config
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "integration/fork: KUBEBUILDER_ASSETS is not set; run hack/integration.sh, which builds etcd and the fork's kube-apiserver")
		return 1
	}
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			fmt.Fprintf(os.Stderr, "integration/fork: KUBEBUILDER_ASSETS=%s has no %s: %v\n", assets, bin, err)
			return 1
		}
	}
	env = &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	api := env.ControlPlane.GetAPIServer()
	api.Configure().Set("service-cluster-ip-range", "10.0.0.0/16")
	api.Configure().Set("authorization-mode", "RBAC")
	api.Configure().Set("feature-gates", "LoadBalancerStatusImprovements=true")
	var err error
	cfg, err = env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration/fork: starting etcd and the fork's kube-apiserver: %v\n", err)
		_ = env.Stop()
		return 1
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "integration/fork: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// clientset returns a client of the control plane that identifies itself
// as userAgent (the default field manager of its writes).
func clientset(t *testing.T, userAgent string) kubernetes.Interface {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.UserAgent = userAgent
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// namespace creates a namespace for one test and deletes it after.
func namespace(t *testing.T) string {
	t.Helper()
	client := clientset(t, "lbstatus-fork-test")
	ns, err := client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "fork-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}
