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

package suite

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// TestRunT_EndsBeforeTheGoTestTimeout: a go test that outlives its
// -timeout ends at once, without cleanup, leaving every test namespace
// under way on the cluster with its load balancers. RunT stops the run
// before then, as on an interrupt: the namespaces are deleted, and the
// test fails saying why rather than passing on tests not run. The go test
// runs in a process of its own, with a short -timeout, against a cluster
// where no provider writes, so Basic waits far longer than that.
func TestRunT_EndsBeforeTheGoTestTimeout(t *testing.T) {
	if os.Getenv("LBSTATUS_RUNT_TIMEOUT") == "1" {
		client := fakeCluster(t)
		RunT(t, client, Options{Run: []string{"Basic"}, ConditionsTimeout: time.Minute})
		list, err := client.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("namespaces left: %d\n", len(list.Items))
		return
	}
	if testing.Short() {
		t.Skip("runs a go test of a few seconds")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestRunT_EndsBeforeTheGoTestTimeout$", "-test.timeout=6s")
	cmd.Env = append(os.Environ(), "LBSTATUS_RUNT_TIMEOUT=1")
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{"namespaces left: 0", "before go test's -timeout"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the go test's output does not say %q:\n%s", want, out)
		}
	}
}

// TestRunT_SkipsWhatDidNotRunAndFailsWhatWasLeft: a test the run did not
// run claims nothing, so its subtest is skipped with the reason, not
// passed; and a cleanup that left something on the cluster (here a
// namespace the account may not delete, with its load balancer) fails the
// go test, naming it, even when every test passed. The go test runs in a
// process of its own, Basic alone selected, against a provider that
// serves at once.
func TestRunT_SkipsWhatDidNotRunAndFailsWhatWasLeft(t *testing.T) {
	if os.Getenv("LBSTATUS_RUNT_LEFT") == "1" {
		client := fakeCluster(t)
		client.PrependReactor("delete", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, errNoRBAC })
		fakeProvider(t.Context(), t, client, func(svc *corev1.Service) bool {
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
			svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
			return true
		})
		RunT(t, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second, CleanupTimeout: 2 * time.Second})
		return
	}
	if testing.Short() {
		t.Skip("runs a go test of a few seconds")
	}
	const name = "TestRunT_SkipsWhatDidNotRunAndFailsWhatWasLeft"
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.timeout=1m")
	cmd.Env = append(os.Environ(), "LBSTATUS_RUNT_LEFT=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("the go test passed; want it failed for the namespace left on the cluster:\n%s", out)
	}
	for _, want := range []string{
		"--- PASS: " + name + "/Basic ",
		"--- SKIP: " + name + "/Recreate ",
		"not selected by the run's filter",
		"Basic: left on the cluster: namespace lbstatus-conformance-basic-",
		"--- FAIL: " + name + " ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the go test's output does not say %q:\n%s", want, out)
		}
	}
}
