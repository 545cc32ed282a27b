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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/validation"
)

// A status write, as a registry strategy validates it with the feature gate
// on: the provider sets Serving to Unknown (C1) and names a degradation the
// Service does not ask for (P5, one of the cross-condition rules).
func ExampleValidateServiceStatusUpdate() {
	gate := features.NewFeatureGate()
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		panic(err)
	}
	old := &v1.Service{}
	old.Spec.Type = "LoadBalancer"
	svc := old.DeepCopy()
	now := metav1.Now()
	svc.Status.Conditions = []metav1.Condition{
		{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionUnknown, Reason: "Serving", LastTransitionTime: now},
		{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionTrue, Reason: "Provisioning", LastTransitionTime: now},
		{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue, Reason: "SessionAffinityNotSupported", LastTransitionTime: now},
	}
	errs := validation.ValidateServiceStatusUpdate(svc, old, validation.Options{FeatureGate: gate, CrossConditionRules: true})
	for _, err := range errs {
		fmt.Printf("%s: %s\n", err.Origin, err)
	}
	// Output:
	// C1: status.conditions[0].status: Unsupported value: "Unknown": supported values: "True", "False"
	// P5: status.conditions[2].reason: Invalid value: "SessionAffinityNotSupported": must name something the Service asks for: it does not ask for SessionAffinity
}
