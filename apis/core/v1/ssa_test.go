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

package v1_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	metaac "k8s.io/client-go/applyconfigurations/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/generated/applyconfiguration"
	ac "github.com/lbstatus/lbstatus/generated/applyconfiguration/core/v1"
)

func toUnstructured(t *testing.T, applyConfig interface{}) *unstructured.Unstructured {
	t.Helper()
	data, err := json.Marshal(applyConfig)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return u
}

func condition(typ v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason v1.LoadBalancerConditionReason) *metaac.ConditionApplyConfiguration {
	return metaac.Condition().WithType(string(typ)).WithStatus(status).WithReason(string(reason)).
		WithMessage("").WithLastTransitionTime(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
}

func liveService(t *testing.T, obj runtime.Object) *v1.Service {
	t.Helper()
	var svc v1.Service
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, &svc); err != nil {
		t.Fatal(err)
	}
	return &svc
}

func conditionTypes(svc *v1.Service) []string {
	var types []string
	for _, c := range svc.Status.Conditions {
		types = append(types, c.Type)
	}
	return types
}

// TestSSA_ConditionsMergeByType: the generated OpenAPI makes
// status.conditions a map keyed by type, so two field managers that each
// apply their own condition types keep each other's; and a forced apply by
// one takes over only the conditions it names.
func TestSSA_ConditionsMergeByType(t *testing.T) {
	fm := managedfieldstest.NewTestFieldManagerSubresource(applyconfiguration.NewTypeConverter(ours(t).scheme), serviceGVK, "status")

	provider := ac.Service("lb", "default").WithStatus(ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning),
		condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning),
	))
	other := ac.Service("lb", "default").WithStatus(ac.ServiceStatus().WithConditions(
		metaac.Condition().WithType("example.com/Audited").WithStatus(metav1.ConditionTrue).WithReason("Checked").
			WithMessage("").WithLastTransitionTime(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))),
	))
	if err := fm.Apply(toUnstructured(t, provider), "provider", false); err != nil {
		t.Fatalf("provider apply: %v", err)
	}
	if err := fm.Apply(toUnstructured(t, other), "auditor", false); err != nil {
		t.Fatalf("auditor apply: %v", err)
	}
	want := []string{"LoadBalancerServing", "LoadBalancerProvisioning", "example.com/Audited"}
	if diff := cmp.Diff(want, conditionTypes(liveService(t, fm.Live()))); diff != "" {
		t.Fatalf("after both applies (-want +got):\n%s", diff)
	}

	// The provider re-applies with Serving flipped and Provisioning dropped:
	// its own Provisioning goes, the auditor's condition stays.
	provider = ac.Service("lb", "default").WithStatus(ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing),
	))
	if err := fm.Apply(toUnstructured(t, provider), "provider", false); err != nil {
		t.Fatalf("provider re-apply: %v", err)
	}
	live := liveService(t, fm.Live())
	if diff := cmp.Diff([]string{"LoadBalancerServing", "example.com/Audited"}, conditionTypes(live)); diff != "" {
		t.Errorf("after the provider's re-apply (-want +got):\n%s", diff)
	}
	if live.Status.Conditions[0].Status != metav1.ConditionTrue {
		t.Errorf("Serving = %s, want True", live.Status.Conditions[0].Status)
	}

	// The auditor changing the provider's condition conflicts; forcing takes
	// that one condition only.
	grab := ac.Service("lb", "default").WithStatus(ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure),
	))
	if err := fm.Apply(toUnstructured(t, grab), "auditor2", false); err == nil {
		t.Errorf("applying another manager's condition without force did not conflict")
	}
	if err := fm.Apply(toUnstructured(t, grab), "auditor2", true); err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	if diff := cmp.Diff([]string{"LoadBalancerServing", "example.com/Audited"}, conditionTypes(liveService(t, fm.Live()))); diff != "" {
		t.Errorf("after the forced apply (-want +got):\n%s", diff)
	}
}

// TestSSA_RequiredFeaturesMergeAsSet: requiredLoadBalancerFeatures is a
// set, so two managers' values merge into their union and each manager owns
// only its own values.
func TestSSA_RequiredFeaturesMergeAsSet(t *testing.T) {
	fm := managedfieldstest.NewTestFieldManager(applyconfiguration.NewTypeConverter(ours(t).scheme), serviceGVK)
	apply := func(manager string, features ...v1.LoadBalancerFeature) {
		t.Helper()
		cfg := ac.Service("lb", "default").WithSpec(ac.ServiceSpec().WithRequiredLoadBalancerFeatures(features...))
		if err := fm.Apply(toUnstructured(t, cfg), manager, false); err != nil {
			t.Fatalf("%s apply: %v", manager, err)
		}
	}
	features := func() []v1.LoadBalancerFeature {
		return liveService(t, fm.Live()).Spec.RequiredLoadBalancerFeatures
	}
	apply("a", v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureSessionAffinity)
	apply("b", v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureIPFamilies)
	want := []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureIPFamilies}
	if diff := cmp.Diff(want, features()); diff != "" {
		t.Fatalf("union (-want +got):\n%s", diff)
	}
	// a drops everything it applied: SessionAffinity is still b's.
	apply("a")
	want = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureIPFamilies}
	if diff := cmp.Diff(want, features()); diff != "" {
		t.Errorf("after a withdrew (-want +got):\n%s", diff)
	}
}

// TestOpenAPIModelName_IsOurs: the embedded core spec must not lend its
// model name to ours, or apply configurations would use core's schema and
// lose the new field.
func TestOpenAPIModelName_IsOurs(t *testing.T) {
	for _, name := range []string{v1.ServiceSpec{}.OpenAPIModelName(), v1.Service{}.OpenAPIModelName()} {
		if len(name) < 30 || name[:30] != "com.github.lbstatus.lbstatus.a" {
			t.Errorf("model name %q is not in our package", name)
		}
	}
}

// TestSSA_ExtractServiceStatus: the generated Extract function returns what
// one manager owns in status, which a provider re-applies after edits.
func TestSSA_ExtractServiceStatus(t *testing.T) {
	fm := managedfieldstest.NewTestFieldManagerSubresource(applyconfiguration.NewTypeConverter(ours(t).scheme), serviceGVK, "status")
	for manager, typ := range map[string]v1.LoadBalancerConditionType{
		"provider": v1.LoadBalancerConditionServing,
		"other":    v1.LoadBalancerConditionDegraded,
	} {
		cfg := ac.Service("lb", "default").WithStatus(ac.ServiceStatus().WithConditions(condition(typ, metav1.ConditionTrue, "Reason")))
		if err := fm.Apply(toUnstructured(t, cfg), manager, false); err != nil {
			t.Fatal(err)
		}
	}
	live := liveService(t, fm.Live())
	live.ManagedFields = fm.ManagedFields()
	got, err := ac.ExtractServiceStatus(live, "provider")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status == nil || len(got.Status.Conditions) != 1 || *got.Status.Conditions[0].Type != string(v1.LoadBalancerConditionServing) {
		t.Errorf("extracted %s", mustJSON(t, got))
	}
}

func mustJSON(t *testing.T, v interface{}) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestStrategicMerge_ConditionsMergeByType: a strategic merge patch of
// status.conditions (kubectl patch, or a client that computes the patch
// from this package's type) merges by type, as it does on core/v1's
// Service: a patch of one condition leaves the provider's others in
// place.
func TestStrategicMerge_ConditionsMergeByType(t *testing.T) {
	live := &v1.Service{}
	live.Status.Conditions = []metav1.Condition{
		{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue, Reason: string(v1.LoadBalancerReasonServing)},
		{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: string(v1.LoadBalancerReasonComplete)},
	}
	patch := `{"status":{"conditions":[{"type":"LoadBalancerDegraded","status":"True","reason":"PortsNotSupported"}]}}`
	merged, err := strategicpatch.StrategicMergePatch([]byte(mustJSON(t, live)), []byte(patch), v1.Service{})
	if err != nil {
		t.Fatal(err)
	}
	var got v1.Service
	if err := json.Unmarshal(merged, &got); err != nil {
		t.Fatal(err)
	}
	want := []string{string(v1.LoadBalancerConditionServing), string(v1.LoadBalancerConditionProvisioning), string(v1.LoadBalancerConditionDegraded)}
	if diff := cmp.Diff(want, conditionTypes(&got), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("conditions after a strategic merge patch of Degraded (-want +got):\n%s", diff)
	}
}
