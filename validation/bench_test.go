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
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

// benchServices returns a realistic status write: a dual-port LoadBalancer
// Service that finished provisioning (Serving=True, Provisioning=False,
// Degraded=True for session affinity), and the object it replaces (still
// provisioning).
func benchServices() (svc, old *v1.Service) {
	c := func(typ v1.LoadBalancerConditionType, s metav1.ConditionStatus, r v1.LoadBalancerConditionReason, msg string, ltt metav1.Time) metav1.Condition {
		return metav1.Condition{Type: string(typ), Status: s, Reason: string(r), Message: msg, ObservedGeneration: 3, LastTransitionTime: ltt}
	}
	old = &v1.Service{}
	old.Name, old.Namespace, old.Generation, old.ResourceVersion = "frontend", "shop", 3, "48213"
	old.Labels = map[string]string{"app.kubernetes.io/name": "frontend"}
	old.Spec.Type = corev1.ServiceTypeLoadBalancer
	old.Spec.Selector = map[string]string{"app.kubernetes.io/name": "frontend"}
	old.Spec.Ports = []corev1.ServicePort{
		{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 31080},
		{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(8443), NodePort: 31443},
	}
	old.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	old.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	old.Status.Conditions = []metav1.Condition{
		c(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, "creating the load balancer", times[1]),
		c(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, "creating the load balancer", times[1]),
	}
	svc = old.DeepCopy()
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7", IPMode: ptr(corev1.LoadBalancerIPModeVIP)}}
	svc.Status.Conditions = []metav1.Condition{
		c(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, "serving at 203.0.113.7", times[2]),
		c(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, "", times[2]),
		c(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonSessionAffinityNotSupported,
			"sessionAffinity ClientIP is not implemented by this load balancer", times[2]),
	}
	return svc, old
}

func ptr[T any](v T) *T { return &v }

// BenchmarkValidateServiceStatusUpdate is the full status validation of a
// valid status write, gate on. Compare with
// BenchmarkUpstreamValidateConditions, run in the same invocation.
func BenchmarkValidateServiceStatusUpdate(b *testing.B) {
	svc, old := benchServices()
	if got := validation.ValidateServiceStatusUpdate(svc, old, on); len(got) != 0 {
		b.Fatalf("benchmark input is invalid: %v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		validation.ValidateServiceStatusUpdate(svc, old, on)
	}
}

// BenchmarkUpstreamValidateConditions is the baseline: apimachinery's
// metav1validation.ValidateConditions alone on the same conditions, with
// its field path built once.
func BenchmarkUpstreamValidateConditions(b *testing.B) {
	svc, _ := benchServices()
	fldPath := field.NewPath("status", "conditions")
	if got := metav1validation.ValidateConditions(svc.Status.Conditions, fldPath); len(got) != 0 {
		b.Fatalf("benchmark input is invalid: %v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		metav1validation.ValidateConditions(svc.Status.Conditions, fldPath)
	}
}

// BenchmarkValidateServiceUpdate is a main-resource update of the same
// Service adding a required feature, for reference: it runs the generated
// declarative validation too.
func BenchmarkValidateServiceUpdate(b *testing.B) {
	svc, old := benchServices()
	svc.Spec.RequiredLoadBalancerFeatures = append(svc.Spec.RequiredLoadBalancerFeatures, v1.LoadBalancerFeatureIPFamilies)
	svc.Status = old.Status
	if got := validation.ValidateServiceUpdate(svc, old, on); len(got) != 0 {
		b.Fatalf("benchmark input is invalid: %v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		validation.ValidateServiceUpdate(svc, old, on)
	}
}

// BenchmarkValidateServiceStatusUpdateManyConditions is a hostile status
// write: n conditions of one type, each a duplicate and each missing its
// reason, over an old object holding n-1 of them, against upstream's
// ValidateConditions on the same list. Ratcheting must keep the cost
// linear in n, like upstream's.
func BenchmarkValidateServiceStatusUpdateManyConditions(b *testing.B) {
	for _, n := range []int{100, 10000} {
		conds := make([]metav1.Condition, n)
		for i := range conds {
			conds[i] = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: times[1], Message: fmt.Sprint(i)}
		}
		svc := service(withConditions(conds...))
		old := service(withConditions(conds[1:]...))
		b.Run(fmt.Sprintf("n=%d/ours", n), func(b *testing.B) {
			for b.Loop() {
				validation.ValidateServiceStatusUpdate(svc, old, on)
			}
		})
		b.Run(fmt.Sprintf("n=%d/upstream", n), func(b *testing.B) {
			fldPath := field.NewPath("status", "conditions")
			for b.Loop() {
				metav1validation.ValidateConditions(conds, fldPath)
			}
		})
	}
}

// BenchmarkRatchetFirst compares status validation that skips unchanged
// conditions before validating (ours) with the algorithm it replaced,
// which validated every condition and then dropped the errors of
// unchanged ones by parsing paths (legacyStatus, the property test's
// oracle), in the same process: a provider's write that changes one
// condition of a Service whose other conditions, written by other
// controllers, are unchanged and break the metav1 rules.
func BenchmarkRatchetFirst(b *testing.B) {
	for _, n := range []int{3, 30} {
		old := service()
		for i := range n {
			old.Status.Conditions = append(old.Status.Conditions, metav1.Condition{
				Type: fmt.Sprintf("example.com/Other%d", i), Status: metav1.ConditionTrue, LastTransitionTime: times[1],
			})
		}
		old.Status.Conditions = append(old.Status.Conditions, provisioningTrue, servingFalse)
		svc := old.DeepCopy()
		svc.Status.Conditions[n], svc.Status.Conditions[n+1] = provisioningFalse, servingTrue
		if got := validation.ValidateServiceStatusUpdate(svc, old, on); len(got) != 0 {
			b.Fatalf("benchmark input is invalid: %v", got)
		}
		if got := legacyStatus(svc, old, true); len(got) != 0 {
			b.Fatalf("benchmark input is invalid for the legacy algorithm: %v", got)
		}
		b.Run(fmt.Sprintf("unchanged=%d/ours", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				validation.ValidateServiceStatusUpdate(svc, old, on)
			}
		})
		b.Run(fmt.Sprintf("unchanged=%d/legacy", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				legacyStatus(svc, old, true)
			}
		})
	}
}
