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
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/validation"
)

// TestDropDisabledFields_R5_GateToggled runs the drop-disabled-fields
// pattern as a registry strategy does, on one apiserver gate toggled with
// component-base's test helper: the field is taken while the gate is on;
// once it is off, a create loses it, an update of a Service that had it
// keeps it (edits included) and passes validation, and an update of a
// Service without it loses it. Nothing the drop keeps is refused.
func TestDropDisabledFields_R5_GateToggled(t *testing.T) {
	gate := features.NewFeatureGate()
	opts := validation.Options{FeatureGate: gate}
	// prepare is PrepareForCreate (nil old) or PrepareForUpdate, then
	// Validate or ValidateUpdate: it returns what is stored.
	prepare := func(t *testing.T, svc, old *v1.Service) []v1.LoadBalancerFeature {
		t.Helper()
		svc = svc.DeepCopy()
		if err := validation.DropDisabledFields(svc, old, opts); err != nil {
			t.Fatal(err)
		}
		validation.DropTypeDependentFields(svc, old)
		testErrors(t, nil, validation.ValidateServiceUpdate(svc, old, opts))
		return svc.Spec.RequiredLoadBalancerFeatures
	}
	check := func(t *testing.T, got []v1.LoadBalancerFeature, want ...v1.LoadBalancerFeature) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("stored requiredLoadBalancerFeatures = %v, want %v", got, want)
		}
	}

	featuregatetesting.SetFeatureGateDuringTest(t, gate, features.LoadBalancerStatusImprovements, true)
	stored := service(withFeatures(ports))
	check(t, prepare(t, stored, nil), ports)
	plain := service()

	t.Run("gate off", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, gate, features.LoadBalancerStatusImprovements, false)
		check(t, prepare(t, service(withFeatures(ports)), nil))
		check(t, prepare(t, stored, stored), ports)
		check(t, prepare(t, service(withFeatures(ports, sessionAff)), stored), ports, sessionAff)
		check(t, prepare(t, service(withFeatures(ports)), plain))
		// Validation alone, without the drop, refuses the new use (R5).
		testErrors(t, errs(want("R5", field.ErrorTypeForbidden, featurePath(-1))),
			validation.ValidateServiceUpdate(service(withFeatures(ports)), plain, opts))
	})

	// The helper restored the gate: on again, a Service without the
	// field may take it.
	check(t, prepare(t, service(withFeatures(ports)), plain), ports)
}
