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
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	lbac "github.com/lbstatus/lbstatus/generated/applyconfiguration/core/v1"
	"github.com/lbstatus/lbstatus/integration/internal/rawservice"
	"github.com/lbstatus/lbstatus/provider"
)

// unknownField is how kube-apiserver names the field it does not have.
const unknownField = `unknown field "spec.requiredLoadBalancerFeatures"`

// forkGateOff reports whether these tests run against hack/fork's
// kube-apiserver with LoadBalancerStatusImprovements off, as
// hack/integration.sh's second run says. That server has
// spec.requiredLoadBalancerFeatures and drops it (R5), where a stock one
// prunes it as a field it does not know: no warning, and strict field
// validation and server-side apply take it.
func forkGateOff() bool { return os.Getenv("LBSTATUS_INTEGRATION_SERVER") == "fork" }

// TestStockCluster_IsKubernetes137 pins the premise of the other stock
// cluster tests: the server is an unmodified kube-apiserver v1.37.2, which
// has no spec.requiredLoadBalancerFeatures.
func TestStockCluster_IsKubernetes137(t *testing.T) {
	v, err := clientset(t, "lbstatus-integration").Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != "v1.37.2" {
		t.Fatalf("server version %s, want v1.37.2 (hack/kube pins it)", v.GitVersion)
	}
}

// TestStockCluster_RequiredFeaturesPrunedByDefault: a Service of this
// project's type, with spec.requiredLoadBalancerFeatures, created on a
// stock apiserver with the default field validation, is accepted with a
// warning and stored without the field: the request is silently lost to
// every reader. That is pruning of an unknown field, not R5's gate: a
// stock apiserver has neither the field nor the gate. The fork with its
// gate off drops the field by R5, without the warning.
func TestStockCluster_RequiredFeaturesPrunedByDefault(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	svc := rawservice.Requiring(ns, "pruned", v1.LoadBalancerFeatureSessionAffinity)

	res := rawservice.Post(t, client, svc, "")
	if err := res.Error(); err != nil {
		t.Fatalf("create with the default field validation: %v", err)
	}
	if forkGateOff() {
		if rawservice.HasWarning(res, unknownField) {
			t.Errorf("warnings %v; the fork knows the field and drops it (R5) without one", res.Warnings())
		}
	} else if !rawservice.HasWarning(res, unknownField) {
		t.Errorf("warnings %v, want %q", res.Warnings(), unknownField)
	}
	var created v1.Service
	raw, _ := res.Raw()
	if err := json.Unmarshal(raw, &created); err != nil {
		t.Fatal(err)
	}
	stored := v1.FromCore(getService(t, client, ns, svc.Name))
	for what, s := range map[string]*v1.Service{"the create response": &created, "a later read": stored} {
		if got := s.Spec.RequiredLoadBalancerFeatures; len(got) > 0 {
			t.Errorf("%s has requiredLoadBalancerFeatures %v; a stock apiserver prunes it", what, got)
		}
		if f, source, _ := conditions.RequiredFeatures(s); len(f) > 0 || source != conditions.RequiredFeaturesSourceNone {
			t.Errorf("%s requires %v (from %q); want nothing", what, f, source)
		}
	}
	if stored.Spec.SessionAffinity != corev1.ServiceAffinityClientIP || stored.Spec.Type != corev1.ServiceTypeLoadBalancer {
		t.Errorf("the rest of the spec was not kept: %+v", stored.Spec.ServiceSpec)
	}
}

// TestStockCluster_StrictFieldValidationRejectsRequiredFeatures: with
// fieldValidation=Strict the create is refused (400, strict decoding
// error); a server-side apply that sets the field is refused whatever the
// field validation, because the server's schema does not declare it. The
// project's apply configurations work against a stock server as long as
// they leave the field out. The fork with its gate off has the field: both
// writes pass there, and the field is dropped (R5).
func TestStockCluster_StrictFieldValidationRejectsRequiredFeatures(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	ctx := context.Background()

	svc := rawservice.Requiring(ns, "strict", v1.LoadBalancerFeatureSessionAffinity)
	res := rawservice.Post(t, client, svc, metav1.FieldValidationStrict)
	if forkGateOff() {
		assertDroppedByTheFork(t, client, ns, svc.Name, res.Error())
		code, err := rawservice.Apply(t, client, lbac.Service("apply", ns).WithSpec(lbac.ServiceSpec().
			WithType(corev1.ServiceTypeLoadBalancer).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)).
			WithRequiredLoadBalancerFeatures(v1.LoadBalancerFeatureSessionAffinity)), metav1.FieldValidationStrict)
		t.Logf("apply with fieldValidation=Strict: HTTP %d", code)
		assertDroppedByTheFork(t, client, ns, "apply", err)
		return
	}
	err := res.Error()
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "strict decoding error: "+unknownField) {
		t.Fatalf("create with fieldValidation=Strict: %v; want a BadRequest naming %s", err, unknownField)
	}
	assertNotFound(t, client, ns, svc.Name)

	for _, validation := range []string{"", metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict} {
		name := "apply-" + strings.ToLower(cmp.Or(validation, "default"))
		apply := lbac.Service(name, ns).WithSpec(lbac.ServiceSpec().
			WithType(corev1.ServiceTypeLoadBalancer).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)).
			WithRequiredLoadBalancerFeatures(v1.LoadBalancerFeatureSessionAffinity))
		code, err := rawservice.Apply(t, client, apply, validation)
		if err == nil || !strings.Contains(err.Error(), ".spec.requiredLoadBalancerFeatures: field not declared in schema") {
			t.Errorf("apply with fieldValidation=%q: %v; want a refusal naming the undeclared field", validation, err)
		}
		t.Logf("apply with fieldValidation=%q: HTTP %d", validation, code)
		assertNotFound(t, client, ns, name)
	}

	// The same apply configuration without the field.
	apply := lbac.Service("apply-without", ns).WithSpec(lbac.ServiceSpec().
		WithType(corev1.ServiceTypeLoadBalancer).
		WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)))
	if _, err := rawservice.Apply(t, client, apply, metav1.FieldValidationStrict); err != nil {
		t.Fatalf("apply without the field: %v", err)
	}
	if _, err := client.CoreV1().Services(ns).Get(ctx, "apply-without", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestStockCluster_AnnotationFallbackCarriesRequiredFeatures: the same
// request, SessionAffinity required, sent once in the spec field and once
// in the annotation fallback, to a provider without session affinity. The
// spec field is pruned, so the provider never sees the request and serves
// degraded (for the client, Skip on a degradation it asked to be refused);
// the annotation reaches the provider, which refuses the Service (R1), and
// the client reads the same request back with conditions.RequiredFeatures. The
// checker, reading the watch stream, finds no violation.
func TestStockCluster_AnnotationFallbackCarriesRequiredFeatures(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	str := watchServices(t, client, ns)
	p := provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
		Capabilities: waitCapabilities, Namespace: ns, Workers: 2,
	})
	runProvider(t, p)
	required := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}

	// In the spec field: pruned.
	inSpec := rawservice.Requiring(ns, "in-spec", required...)
	if err := rawservice.Post(t, client, inSpec, "").Error(); err != nil {
		t.Fatal(err)
	}
	// In the annotation: kept.
	inAnnotation := rawservice.Requiring(ns, "in-annotation")
	inAnnotation.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: conditions.FormatRequiredFeaturesAnnotation(required)}
	if err := rawservice.Post(t, client, inAnnotation, metav1.FieldValidationStrict).Error(); err != nil {
		t.Fatal(err)
	}

	svc, verdict, err := waitFor(t, client, ns, inSpec.Name, v1.LoadBalancerFeatureSessionAffinity, longConditionsTimeout, longProvisionTimeout)
	if err != nil || verdict.Result != conditions.ResultSkip || !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Errorf("spec field: %v, %v, conditions %v; want Skip on a serving, degraded load balancer: the request never reached the provider", verdict, err, svc.Status.Conditions)
	}
	if !slices.Contains(conditions.DegradedReasons(svc.Status.Conditions), v1.LoadBalancerReasonSessionAffinityNotSupported) {
		t.Errorf("spec field: degraded in %v, want SessionAffinityNotSupported", conditions.DegradedReasons(svc.Status.Conditions))
	}

	svc, verdict, err = waitFor(t, client, ns, inAnnotation.Name, v1.LoadBalancerFeatureSessionAffinity, longConditionsTimeout, longProvisionTimeout)
	serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing)
	if err != nil || verdict.Result != conditions.ResultSkip || serving == nil || serving.Reason != string(v1.LoadBalancerReasonUnsupported) ||
		!strings.Contains(serving.Message, "required feature SessionAffinity") {
		t.Errorf("annotation: %v, %v, Serving %+v; want Skip on a refusal naming the required feature", verdict, err, serving)
	}
	got, source, errs := conditions.RequiredFeatures(v1.FromCore(svc))
	if !slices.Equal(got, required) || source != conditions.RequiredFeaturesSourceAnnotation || len(errs) > 0 {
		t.Errorf("annotation read back: %v from %q (%v), want %v from the annotation", got, source, errs, required)
	}

	want := map[string]string{}
	for _, name := range []string{inSpec.Name, inAnnotation.Name} {
		s, err := client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want[name] = s.ResourceVersion
	}
	if behind := str.caughtUp(t, want, 10*time.Second); len(behind) > 0 {
		t.Fatalf("the watch stream did not deliver the latest version of %d services", len(behind))
	}
	findings, _ := str.finish()
	if v := bySeverity(findings, conformance.SeverityViolation); len(v) > 0 {
		logFindings(t, v, 10)
		t.Errorf("the checker reports %d violations", len(v))
	}
}

// assertDroppedByTheFork checks a write that set the field on the fork
// with its gate off: accepted (err is its error), and the Service stored
// without the field (R5).
func assertDroppedByTheFork(t *testing.T, client kubernetes.Interface, ns, name string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("write of %s with the field, fork with the gate off: %v; want it accepted, the field dropped (R5)", name, err)
	}
	if got := rawservice.Get(t, client, ns, name).Spec.RequiredLoadBalancerFeatures; len(got) > 0 {
		t.Errorf("%s stored with requiredLoadBalancerFeatures %v; the gate is off, so R5 drops it", name, got)
	}
}

func assertNotFound(t *testing.T, client kubernetes.Interface, ns, name string) {
	t.Helper()
	if _, err := client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("service %s after a refused write: %v, want NotFound", name, err)
	}
}
