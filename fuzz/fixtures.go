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

package fuzz

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// fixture is a named Service the seeds start from.
type fixture struct {
	name string
	svc  *v1.Service
}

// fixtureGeneration is the metadata.generation of the fixtures.
const fixtureGeneration = 2

// fixtureTime is the lastTransitionTime of the fixtures' conditions.
var fixtureTime = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// fixtureService returns a valid LoadBalancer Service changed by mods: the
// Service the validation table tests start from.
func fixtureService(mods ...func(*v1.Service)) *v1.Service {
	svc := &v1.Service{}
	svc.APIVersion, svc.Kind = "v1", "Service"
	svc.Name, svc.Namespace = "web", "default"
	svc.Generation = fixtureGeneration
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}
	for _, mod := range mods {
		mod(svc)
	}
	return svc
}

// fixtureCondition returns a condition valid under the metav1 rules.
func fixtureCondition[T ~string, R ~string](typ T, status metav1.ConditionStatus, reason R) metav1.Condition {
	return metav1.Condition{
		Type:               string(typ),
		Status:             status,
		Reason:             string(reason),
		Message:            "fixture",
		ObservedGeneration: fixtureGeneration,
		LastTransitionTime: fixtureTime,
	}
}

func changed(c metav1.Condition, mod func(*metav1.Condition)) metav1.Condition {
	mod(&c)
	return c
}

func withType(t corev1.ServiceType) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Spec.Type = t }
}

func withFeatures(fs ...v1.LoadBalancerFeature) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Spec.RequiredLoadBalancerFeatures = fs }
}

func withConditions(cs ...metav1.Condition) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Status.Conditions = cs }
}

func withIngress(svc *v1.Service) {
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10", Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
}

// The conditions a provider writes, as in the validation tests.
var (
	servingTrue          = fixtureCondition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	servingProvisioning  = fixtureCondition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning)
	servingUnsupported   = fixtureCondition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported)
	servingInfra         = fixtureCondition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure)
	provisioningTrue     = fixtureCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning)
	provisioningComplete = fixtureCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete)
	degradedMultiple     = changed(fixtureCondition(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonMultiple),
		func(c *metav1.Condition) {
			c.Message = "PortsNotSupported,SessionAffinityNotSupported: UDP and ClientIP are not implemented"
		})
)

// fixtures are the Services of the validation table tests (spec rules R4,
// R5, C1, C3, C5) and of the provider lifecycle (L1, L3), plus a Service
// with every metadata field the wire has special cases for.
func fixtures() []fixture {
	seventeen := make([]v1.LoadBalancerFeature, 17)
	for i := range seventeen {
		seventeen[i] = v1.LoadBalancerFeatures()[i%len(v1.LoadBalancerFeatures())]
	}
	sixteen := make([]v1.LoadBalancerFeature, 16)
	for i := range sixteen {
		sixteen[i] = v1.LoadBalancerFeature("Feature" + string(rune('A'+i)))
	}
	c := func(typ v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason v1.LoadBalancerConditionReason) metav1.Condition {
		return fixtureCondition(typ, status, reason)
	}
	serving, provisioning, degraded := v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning, v1.LoadBalancerConditionDegraded
	tru, fals, unknown := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	return []fixture{
		{"lb", fixtureService()},
		{"R4-every-feature", fixtureService(withFeatures(v1.LoadBalancerFeatures()...))},
		{"R4-unknown-feature", fixtureService(withFeatures(v1.LoadBalancerFeaturePorts, "FutureFeature"))},
		{"R4-empty-feature", fixtureService(withFeatures(""))},
		{"R4-duplicate", fixtureService(withFeatures(v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeaturePorts))},
		{"R4-sixteen-unknown", fixtureService(withFeatures(sixteen...))},
		{"R4-seventeen", fixtureService(withFeatures(seventeen...))},
		{"R4-clusterip", fixtureService(withType(corev1.ServiceTypeClusterIP), withFeatures(v1.LoadBalancerFeaturePorts))},
		{"R4-nodeport", fixtureService(withType(corev1.ServiceTypeNodePort), withFeatures(v1.LoadBalancerFeatureIPFamilies))},
		{"R4-no-type", fixtureService(withType(""), withFeatures(v1.LoadBalancerFeatureSessionAffinity))},
		{"R1-annotation", fixtureService(func(svc *v1.Service) {
			svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity,Ports,FutureFeature"}
		})},
		{"L1-provisioning", fixtureService(withConditions(provisioningTrue, servingProvisioning))},
		{"L1-serving", fixtureService(withIngress, withConditions(provisioningComplete, servingTrue))},
		{"L3-reprovisioning", fixtureService(withIngress, withConditions(provisioningTrue, servingTrue))},
		{"L1-refused", fixtureService(withFeatures(v1.LoadBalancerFeatureLoadBalancerSourceRanges), withConditions(provisioningComplete, servingUnsupported))},
		{"L1-failed", fixtureService(withConditions(provisioningComplete, servingInfra))},
		{"P4-degraded-multiple", fixtureService(withIngress, func(svc *v1.Service) {
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP})
		}, withConditions(provisioningComplete, servingTrue, degradedMultiple))},
		{"C4-ports-error", fixtureService(withIngress, withConditions(provisioningComplete, servingTrue,
			c(v1.LoadBalancerConditionPortsError, tru, v1.LoadBalancerReasonPortsNotSupported)))},
		{"other-controller", fixtureService(withConditions(changed(c("example.com/Ready", fals, "Waiting"), func(c *metav1.Condition) { c.ObservedGeneration = 0 })))},
		{"C5-missing-reason", fixtureService(withConditions(c(serving, tru, "")))},
		{"C5-malformed-reason", fixtureService(withConditions(c(serving, tru, "not a reason!")))},
		{"C5-malformed-type", fixtureService(withConditions(c("bad type", tru, v1.LoadBalancerReasonServing)))},
		{"C5-missing-type", fixtureService(withConditions(c("", tru, v1.LoadBalancerReasonServing)))},
		{"C5-missing-status", fixtureService(withConditions(c(serving, "", v1.LoadBalancerReasonServing)))},
		{"C5-other-status", fixtureService(withConditions(c(serving, "Maybe", v1.LoadBalancerReasonProvisioning)))},
		{"C5-long-message", fixtureService(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.Message = strings.Repeat("m", 32769) })))},
		{"C5-missing-time", fixtureService(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} })))},
		{"C5-negative-generation", fixtureService(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = -1 })))},
		{"C5-generation-above", fixtureService(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = fixtureGeneration + 1 })))},
		{"C5-duplicate-type", fixtureService(withConditions(servingTrue, servingTrue))},
		{"C1-serving-unknown", fixtureService(withConditions(c(serving, unknown, v1.LoadBalancerReasonProvisioning), provisioningTrue))},
		{"C1-provisioning-unknown", fixtureService(withConditions(c(provisioning, unknown, v1.LoadBalancerReasonProvisioning), servingProvisioning))},
		{"C2-degraded-unknown", fixtureService(withConditions(c(degraded, unknown, v1.LoadBalancerReasonPortsNotSupported)))},
		{"C3-serving-false-serving", fixtureService(withConditions(c(serving, fals, v1.LoadBalancerReasonServing)))},
		{"C3-provisioning-true-complete", fixtureService(withConditions(c(provisioning, tru, v1.LoadBalancerReasonComplete)))},
		{"C3-degraded-false-ports", fixtureService(withConditions(c(degraded, fals, v1.LoadBalancerReasonPortsNotSupported)))},
		{"C3-degraded-false-multiple", fixtureService(withConditions(c(degraded, fals, v1.LoadBalancerReasonMultiple)))},
		{"unset-generation", fixtureService(func(svc *v1.Service) { svc.Generation = 0 }, withConditions(changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = 9 })))},
		{"metadata", fixtureService(func(svc *v1.Service) {
			svc.Labels = map[string]string{"app": "web"}
			svc.Annotations = map[string]string{"note": "<&>"}
			svc.CreationTimestamp = metav1.NewTime(time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC))
			svc.ManagedFields = []metav1.ManagedFieldsEntry{{
				Manager:    "lb-controller",
				Operation:  metav1.ManagedFieldsOperationApply,
				APIVersion: "v1",
				Time:       &fixtureTime,
				FieldsType: "FieldsV1",
				FieldsV1:   metav1.NewFieldsV1(`{"f:status":{"f:conditions":{"k:{\"type\":\"LoadBalancerServing\"}":{".":{}}}}}`),
			}}
			svc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1234"}}
		}, withIngress, withConditions(provisioningComplete, servingTrue))},
	}
}

// seedFiles returns the manifests under dirs (relative to this package's
// directory, where `go test` runs), walked recursively, whose names end in
// .json, .yaml or .yml and that fit maxSeed, keyed by their path below
// the parent of their dir. A missing directory contributes nothing.
func seedFiles(dirs ...string) map[string][]byte {
	out := map[string][]byte{}
	for _, dir := range dirs {
		parent := filepath.Dir(dir)
		_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			switch filepath.Ext(path) {
			case ".json", ".yaml", ".yml":
			default:
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil || len(data) > maxSeed {
				return nil
			}
			rel, err := filepath.Rel(parent, path)
			if err != nil {
				return nil
			}
			out[filepath.ToSlash(rel)] = data
			return nil
		})
	}
	return out
}

// sortedKeys returns m's keys in order, so seeds are added the same way on
// every run.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// spread turns a small seed index into a mutation value with bits spread
// over the whole word, so seeds start from different edits.
func spread(i int) uint64 {
	return uint64(i+1) * 0x9E3779B97F4A7C15
}

// manifestDirs are where the project keeps Service manifests: the golden
// wire fixtures of the types, the README's examples and the files that
// break a rule on purpose.
var manifestDirs = []string{"../apis/core/v1/testdata/HEAD", "../examples", "../violations"}
