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
	"cmp"
	"context"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/integration/internal/watchcmd"
	"github.com/lbstatus/lbstatus/provider"
)

// TestCLIWatch_ReportsBrokenProvider runs `lbstatus watch` against the
// server while a deliberately broken provider works: one that forgets the
// Provisioning bump on spec changes (L6), next to a controller that writes
// Provisioning=Unknown (C1). The command must print both violations as
// they happen, and on SIGTERM print its summary and exit with status 1.
func TestCLIWatch_ReportsBrokenProvider(t *testing.T) {
	bin := buildCLI(t)
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	ctx := context.Background()
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
		Capabilities: waitCapabilities, Namespace: ns, Workers: 1,
		Bugs: provider.Bugs{SkipProvisioningBump: true},
	}))

	out := startWatch(t, bin, "--kubeconfig", kubeconfig, "--namespace", ns, "--output", "json")
	const within = 30 * time.Second

	// A Service the CLI has seen become Ready.
	name := createLoadBalancer(t, client, ns, "web", nil)
	if _, verdict, err := waitFor(t, client, ns, name, "", longConditionsTimeout, longProvisionTimeout); err != nil || verdict.Result != conditions.ResultReady {
		t.Fatalf("Wait: %v, %v", verdict, err)
	}
	out.WaitFor(t, within, "the T3 (Ready) verdict of "+name, func(l watchLine) bool {
		return l.Rule == "T3" && l.Object.Name == name
	})

	// A spec change the broken provider answers without the bump: it
	// updates the ingress ports in place.
	svc, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP})
	if _, err := client.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	out.WaitFor(t, within, "an L6 violation on "+name, func(l watchLine) bool {
		return l.Rule == "L6" && l.Severity == conformance.SeverityViolation && l.Object.Name == name
	})

	// Another controller writes Provisioning=Unknown.
	rogue := corev1ac.Service(name, ns).WithStatus(corev1ac.ServiceStatus().WithConditions(metav1ac.Condition().
		WithType(string(v1.LoadBalancerConditionProvisioning)).WithStatus(metav1.ConditionUnknown).
		WithReason("Lost").WithMessage("the controller lost track").WithLastTransitionTime(metav1.Now())))
	if _, err := client.CoreV1().Services(ns).ApplyStatus(ctx, rogue, metav1.ApplyOptions{FieldManager: "rogue-controller", Force: true}); err != nil {
		t.Fatal(err)
	}
	out.WaitFor(t, within, "a C1 violation on "+name, func(l watchLine) bool {
		return l.Rule == "C1" && l.Severity == conformance.SeverityViolation && l.Object.Name == name
	})

	code, lines := out.Stop(t, syscall.SIGTERM)
	var summary *conformance.Summary
	for _, l := range lines {
		summary = cmp.Or(l.Summary, summary)
	}
	if code != 1 {
		t.Errorf("exit status %d after violations, want 1", code)
	}
	if summary == nil {
		t.Fatalf("no summary line after SIGTERM; stdout:\n%s", out.Text())
	}
	if summary.Findings.Violations < 2 || summary.Rules["L6"] == nil || summary.Rules["C1"] == nil || summary.Services != 1 {
		t.Errorf("summary %+v; want the L6 and C1 violations of one Service", *summary)
	}
}

// buildCLI builds cmd/lbstatus of this checkout.
func buildCLI(t *testing.T) string {
	t.Helper()
	return watchcmd.Build(t, "..") // the root module
}

// watchLine is one line of `lbstatus watch --output json`: a finding, or
// the summary at the end.
type watchLine struct {
	conformance.Finding
	Summary *conformance.Summary `json:"summary"`
}

// startWatch runs `lbstatus watch args...` from bin.
func startWatch(t *testing.T, bin string, args ...string) *watchcmd.Process[watchLine] {
	t.Helper()
	return watchcmd.Start[watchLine](t, bin, append([]string{"watch"}, args...)...)
}
