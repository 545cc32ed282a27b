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

package validation_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/validation"
)

// Gates and options shared by the tests; a gate is safe for concurrent
// reads.
var (
	gateOn  = newGate(true)
	gateOff = newGate(false)
	on      = validation.Options{FeatureGate: gateOn}
	off     = validation.Options{FeatureGate: gateOff}
)

// gateOptions are both settings of the gate, for tests that run each case
// with both.
var gateOptions = map[string]validation.Options{"gate on": on, "gate off": off}

func newGate(enabled bool) featuregate.FeatureGate {
	gate := features.NewFeatureGate()
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): enabled}); err != nil {
		panic(err)
	}
	return gate
}

// matcher compares errors by rule (origin), type and field, never by count
// or wording.
var matcher = field.ErrorMatcher{}.ByOrigin().ByType().ByField()

// want is an expected error: the rule it enforces (its origin), its type
// and JSON field path.
func want(origin string, typ field.ErrorType, path string) *field.Error {
	return &field.Error{Origin: origin, Type: typ, Field: path}
}

// errs builds an expected error list.
func errs(es ...*field.Error) field.ErrorList { return es }

// featurePath is the path of item i of spec.requiredLoadBalancerFeatures,
// or of the field itself for i < 0.
func featurePath(i int) string {
	if i < 0 {
		return "spec.requiredLoadBalancerFeatures"
	}
	return fmt.Sprintf("spec.requiredLoadBalancerFeatures[%d]", i)
}

// conditionPath is the path of condition i, or of its field sub when sub
// is not empty.
func conditionPath(i int, sub string) string {
	p := fmt.Sprintf("status.conditions[%d]", i)
	if sub != "" {
		p += "." + sub
	}
	return p
}

// generation is the metadata.generation of the test Services.
const generation = 2

// service returns a valid LoadBalancer Service, changed by mods.
func service(mods ...func(*v1.Service)) *v1.Service {
	svc := &v1.Service{}
	svc.Name = "web"
	svc.Namespace = "default"
	svc.Generation = generation
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	// An address, so that Serving=True breaks no L4 unless a test says so.
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	for _, mod := range mods {
		mod(svc)
	}
	return svc
}

func withType(t corev1.ServiceType) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Spec.Type = t }
}

func withFeatures(fs ...v1.LoadBalancerFeature) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Spec.RequiredLoadBalancerFeatures = fs }
}

func withGeneration(g int64) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Generation = g }
}

func withConditions(cs ...metav1.Condition) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Status.Conditions = cs }
}

// cond returns a condition valid under the metav1 rules, observing the
// test Services' generation.
func cond[T ~string, R ~string](typ T, status metav1.ConditionStatus, reason R) metav1.Condition {
	return metav1.Condition{
		Type:               string(typ),
		Status:             status,
		Reason:             string(reason),
		Message:            "test",
		ObservedGeneration: generation,
		LastTransitionTime: times[1],
	}
}

// changed returns c changed by mod.
func changed(c metav1.Condition, mod func(*metav1.Condition)) metav1.Condition {
	mod(&c)
	return c
}

// Shorthands for the conditions a provider writes.
var (
	servingTrue       = cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	servingFalse      = cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning)
	provisioningTrue  = cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning)
	provisioningFalse = cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete)
	degradedPorts     = cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonPortsNotSupported)
)

// others returns n valid conditions of distinct types that are not
// KEP-4631's: past eight conditions, the duplicate and ratcheting checks
// index the lists instead of scanning them.
func others(n int) []metav1.Condition {
	cs := make([]metav1.Condition, n)
	for i := range cs {
		cs[i] = cond(fmt.Sprintf("example.com/Other%d", i), metav1.ConditionTrue, "Fine")
	}
	return cs
}

// seventeen is one feature list over the limit of 16.
func seventeen() []v1.LoadBalancerFeature {
	fs := make([]v1.LoadBalancerFeature, 17)
	for i := range fs {
		fs[i] = v1.LoadBalancerFeatures()[i%len(v1.LoadBalancerFeatures())]
	}
	return fs
}

// reversed returns a copy of fs in reverse order.
func reversed(fs []v1.LoadBalancerFeature) []v1.LoadBalancerFeature {
	r := slices.Clone(fs)
	slices.Reverse(r)
	return r
}

// testErrors compares got with want by type and field, and checks what
// holds of every error this package returns.
func testErrors(t *testing.T, want, got field.ErrorList) {
	t.Helper()
	matcher.Test(t, want, got)
	checkErrorConventions(t, got)
}

// checkErrorConventions fails t for an error that breaks the package's
// conventions: an internal error, a path outside metadata, spec and status,
// a detail that is not a lower-case fragment, or a CoveredByDeclarative mark.
func checkErrorConventions(t field.TestIntf, got field.ErrorList) {
	t.Helper()
	for _, err := range got {
		if err.Type == field.ErrorTypeInternal {
			t.Errorf("internal error: %v", err)
		}
		if !hasRootPrefix(err.Field) {
			t.Errorf("error path %q is not under metadata, spec or status", err.Field)
		}
		if d := err.Detail; d != "" && (d[0] >= 'A' && d[0] <= 'Z' || d[len(d)-1] == '.') {
			t.Errorf("detail %q is not a lower-case fragment", d)
		}
		if err.CoveredByDeclarative {
			t.Errorf("error %v is marked covered by declarative validation", err)
		}
	}
}

func hasRootPrefix(path string) bool {
	return hasPrefixPath(path, "metadata") || hasPrefixPath(path, "spec") || hasPrefixPath(path, "status")
}

// hasPrefixPath reports whether path is prefix or below it.
func hasPrefixPath(path, prefix string) bool {
	rest, ok := strings.CutPrefix(path, prefix)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// under matches the errors whose path is under root, for
// field.ErrorList.Filter.
func under(root string) utilerrors.Matcher {
	return func(err error) bool {
		var fe *field.Error
		return errors.As(err, &fe) && hasPrefixPath(fe.Field, root)
	}
}
