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
	"bytes"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/provider"
)

// runCLI runs the lbstatus binary and returns its exit status and output.
func runCLI(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", bin, err)
	}
	return code, out.String(), errOut.String()
}

// TestCLIDescribe_ReadyService runs `lbstatus describe` against the real
// server after the reference provider made a Service Ready: the operator
// sees the conditions, the required features from the annotation, the
// verdict and the Event the provider's side recorded, and a Service that
// does not exist is exit status 2 with one line naming it.
func TestCLIDescribe_ReadyService(t *testing.T) {
	bin := buildCLI(t)
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	ctx := context.Background()
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
		Capabilities: waitCapabilities, Namespace: ns, Workers: 1,
	}))
	name := createLoadBalancer(t, client, ns, "web", func(svc *corev1.Service) {
		svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports"}
	})
	svc, verdict, err := waitFor(t, client, ns, name, "", longConditionsTimeout, longProvisionTimeout)
	if err != nil || verdict.Result != conditions.ResultReady {
		t.Fatalf("Wait: %v, %v", verdict, err)
	}
	_, err = client.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + "-"},
		InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: ns, Name: name, UID: svc.UID, APIVersion: "v1"},
		Type:           corev1.EventTypeNormal, Reason: "EnsuredLoadBalancer", Message: "Ensured load balancer",
		Source: corev1.EventSource{Component: "lbstatus-reference-provider"}, Count: 1,
		FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(),
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t, bin, "describe", "--kubeconfig", kubeconfig, "-n", ns, "svc/"+name)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, re := range []string{
		`(?m)^Name: +` + name + `$`,
		`(?m)^Required features: +Ports \(from the annotation`,
		`(?m)^  LoadBalancerProvisioning +False +\S+ +\d+s`,
		`(?m)^  LoadBalancerServing +True +Serving +\d+s`,
		`(?m)^Verdict: +Ready \(T3\)`,
		`(?m)^Findings: +none$`,
		`(?m)^  Normal +EnsuredLoadBalancer +\S+ +lbstatus-reference-provider +Ensured load balancer$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("describe output does not match %s:\n%s", re, out)
		}
	}

	code, _, errOut = runCLI(t, bin, "describe", "--kubeconfig", kubeconfig, "-n", ns, "svc/missing")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, ns+"/missing") {
		t.Errorf("a missing Service: exit %d, stderr %q; want 2 and one line naming it", code, errOut)
	}
}
