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
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

// statusCase is a status table case, run through every entry point that
// validates status: ValidateService (create), ValidateServiceUpdate and
// ValidateServiceStatusUpdate from a Service without conditions.
type statusCase struct {
	name  string
	conds []metav1.Condition
	gen   int64 // metadata.generation; 0 means the test default
	want  field.ErrorList
}

func runStatusCases(t *testing.T, opts validation.Options, cases []statusCase) {
	t.Helper()
	for _, tc := range cases {
		svc := service(withConditions(tc.conds...))
		if tc.gen != 0 {
			svc.Generation = tc.gen
		}
		old := service()
		t.Run(tc.name+"/create", func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateService(svc, opts))
		})
		t.Run(tc.name+"/update", func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateServiceUpdate(svc, old, opts))
		})
		t.Run(tc.name+"/status update", func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateServiceStatusUpdate(svc, old, opts))
		})
	}
}

// validCombinations are the condition sets a provider writes (L1, L2, L3),
// valid with the gate on and off.
var validCombinations = []statusCase{{
	name:  "no conditions",
	conds: nil,
}, {
	name:  "provisioning",
	conds: []metav1.Condition{provisioningTrue, servingFalse},
}, {
	name:  "serving",
	conds: []metav1.Condition{provisioningFalse, servingTrue},
}, {
	name:  "reprovisioning while serving",
	conds: []metav1.Condition{provisioningTrue, servingTrue},
}, {
	name: "refused",
	conds: []metav1.Condition{provisioningFalse,
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported)},
}, {
	name: "failed",
	conds: []metav1.Condition{provisioningFalse,
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure)},
}, {
	name: "serving degraded, Multiple",
	conds: []metav1.Condition{provisioningFalse, servingTrue,
		cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonMultiple)},
}, {
	name:  "another controller's condition",
	conds: []metav1.Condition{cond("example.com/Ready", metav1.ConditionUnknown, "Waiting"), servingTrue},
}}

func TestValidateServiceStatusUpdate_C5(t *testing.T) {
	cases := append(validCombinations, []statusCase{{
		name:  "missing reason",
		conds: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.Reason = "" })},
		want:  errs(want("C5", field.ErrorTypeRequired, conditionPath(0, "reason"))),
	}, {
		name:  "malformed reason",
		conds: []metav1.Condition{servingTrue, changed(provisioningFalse, func(c *metav1.Condition) { c.Reason = "not complete" })},
		want:  errs(want("C5", field.ErrorTypeInvalid, conditionPath(1, "reason"))),
	}, {
		name:  "malformed type",
		conds: []metav1.Condition{cond("Load Balancer", metav1.ConditionTrue, "Fine")},
		want:  errs(want("C5", field.ErrorTypeInvalid, conditionPath(0, "type"))),
	}, {
		name:  "missing type",
		conds: []metav1.Condition{cond("", metav1.ConditionTrue, "Fine")},
		want:  errs(want("C5", field.ErrorTypeRequired, conditionPath(0, "type"))),
	}, {
		name:  "missing status",
		conds: []metav1.Condition{cond("Ready", "", "Fine")},
		want:  errs(want("C5", field.ErrorTypeRequired, conditionPath(0, "status"))),
	}, {
		// Reported once, by the metav1 rules, not again by C1.
		name:  "status outside True, False and Unknown on Serving",
		conds: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.Status = "Yes" })},
		want:  errs(want("C5", field.ErrorTypeNotSupported, conditionPath(0, "status"))),
	}, {
		name:  "message too long",
		conds: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.Message = strings.Repeat("x", 32*1024+1) })},
		want:  errs(want("C5", field.ErrorTypeTooLong, conditionPath(0, "message"))),
	}, {
		name:  "missing lastTransitionTime",
		conds: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} })},
		want:  errs(want("C5", field.ErrorTypeRequired, conditionPath(0, "lastTransitionTime"))),
	}, {
		name:  "negative observedGeneration",
		conds: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = -1 })},
		want:  errs(want("C5", field.ErrorTypeInvalid, conditionPath(0, "observedGeneration"))),
	}, {
		name:  "observedGeneration above metadata.generation",
		conds: []metav1.Condition{servingTrue, changed(provisioningFalse, func(c *metav1.Condition) { c.ObservedGeneration = generation + 1 })},
		want:  errs(want("C5", field.ErrorTypeInvalid, conditionPath(1, "observedGeneration"))),
	}, {
		name:  "observedGeneration equal to metadata.generation",
		conds: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = 7 })},
		gen:   7,
	}, {
		name:  "duplicate type, reported on the later index",
		conds: []metav1.Condition{servingTrue, provisioningFalse, servingFalse},
		want:  errs(want("C5", field.ErrorTypeDuplicate, conditionPath(2, ""))),
	}, {
		name:  "two types twice each",
		conds: []metav1.Condition{servingTrue, servingFalse, provisioningTrue, provisioningFalse},
		want: errs(
			want("C5", field.ErrorTypeDuplicate, conditionPath(1, "")),
			want("C5", field.ErrorTypeDuplicate, conditionPath(3, "")),
		),
	}, {
		name:  "duplicate type in a long list, of a type first seen past eight",
		conds: append(others(9), others(9)[8]),
		want:  errs(want("C5", field.ErrorTypeDuplicate, conditionPath(9, ""))),
	}, {
		name:  "several problems in one condition",
		conds: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}},
		want: errs(
			want("C5", field.ErrorTypeRequired, conditionPath(0, "reason")),
			want("C5", field.ErrorTypeRequired, conditionPath(0, "lastTransitionTime")),
		),
	}}...)
	t.Run("gate on", func(t *testing.T) { runStatusCases(t, on, cases) })
	// The cross-condition rules read a fuller ConditionsSpec
	// (ConditionsSpecFor); the metav1 rules and the generation bound
	// apply all the same.
	t.Run("cross-condition rules", func(t *testing.T) { runStatusCases(t, cross, cases) })
}

// TestValidateServiceStatusUpdate_C5_UnsetGeneration checks an unset
// metadata.generation (0, as in a manifest) is not compared with.
func TestValidateServiceStatusUpdate_C5_UnsetGeneration(t *testing.T) {
	svc := service(withGeneration(0), withConditions(servingTrue,
		changed(provisioningFalse, func(c *metav1.Condition) { c.ObservedGeneration = 9 })))
	testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, nil, on))
	testErrors(t, nil, validation.ValidateService(svc, on))
}

// TestValidateServiceStatusUpdate_C5_NotCoveredByDeclarative checks the
// metav1 rules' errors survive a caller removing errors covered by
// declarative validation: nothing declarative covers conditions here.
func TestValidateServiceStatusUpdate_C5_NotCoveredByDeclarative(t *testing.T) {
	svc := service(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.Reason = "" })))
	got := validation.ValidateServiceStatusUpdate(svc, nil, on).RemoveCoveredByDeclarative()
	testErrors(t, errs(want("C5", field.ErrorTypeRequired, conditionPath(0, "reason"))), got)
}

// TestValidateServiceStatusUpdate_R5_GateOffAcceptsAnyCondition: with the
// gate off an apiserver must take every status write a stock one takes,
// and stock Kubernetes validates no Service condition. Conditions that
// break C5, C1 and C3 are accepted by every entry point and the block,
// with a nil gate too, and with the cross-condition rules asked for.
func TestValidateServiceStatusUpdate_R5_GateOffAcceptsAnyCondition(t *testing.T) {
	ctx := context.Background()
	svc := service(withConditions(
		metav1.Condition{Type: "not a type", Status: "Maybe"},
		changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown }),
		changed(provisioningFalse, func(c *metav1.Condition) { c.Reason = "" }),
		changed(provisioningFalse, func(c *metav1.Condition) { c.ObservedGeneration = generation + 1 }),
		changed(degradedPorts, func(c *metav1.Condition) { c.Status = metav1.ConditionFalse }),
	))
	if len(validation.ValidateServiceStatusUpdate(svc, nil, on)) == 0 {
		t.Fatal("the conditions are valid with the gate on; the test tests nothing")
	}
	old := service(withConditions(servingTrue))
	for name, opts := range map[string]validation.Options{
		"gate off":        off,
		"nil gate":        {},
		"gate off, cross": {FeatureGate: gateOff, CrossConditionRules: true},
	} {
		t.Run(name, func(t *testing.T) {
			testErrors(t, nil, validation.ValidateService(svc, opts))
			testErrors(t, nil, validation.ValidateServiceUpdate(svc, old, opts))
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, old, opts))
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, nil, opts))
			testErrors(t, nil, validation.ValidateConditions(ctx, field.NewPath("status", "conditions"),
				svc.Status.Conditions, old.Status.Conditions, validation.ConditionsSpecFor(svc), opts))
		})
	}
}

func TestValidateServiceStatusUpdate_C1(t *testing.T) {
	unknown := func(c metav1.Condition) metav1.Condition {
		return changed(c, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })
	}
	t.Run("gate on", func(t *testing.T) {
		runStatusCases(t, on, append(validCombinations, []statusCase{{
			name:  "Serving Unknown",
			conds: []metav1.Condition{provisioningFalse, unknown(servingTrue)},
			want:  errs(want("C1", field.ErrorTypeNotSupported, conditionPath(1, "status"))),
		}, {
			name:  "Provisioning Unknown",
			conds: []metav1.Condition{unknown(provisioningTrue), servingFalse},
			want:  errs(want("C1", field.ErrorTypeNotSupported, conditionPath(0, "status"))),
		}, {
			name:  "both Unknown",
			conds: []metav1.Condition{unknown(provisioningTrue), unknown(servingFalse)},
			want: errs(
				want("C1", field.ErrorTypeNotSupported, conditionPath(0, "status")),
				want("C1", field.ErrorTypeNotSupported, conditionPath(1, "status")),
			),
		}, {
			name:  "Degraded Unknown is allowed (C2)",
			conds: []metav1.Condition{provisioningFalse, servingTrue, unknown(degradedPorts)},
		}, {
			name:  "deprecated PortsError Unknown is not judged",
			conds: []metav1.Condition{cond(v1.LoadBalancerConditionPortsError, metav1.ConditionUnknown, "Whatever")},
		}}...))
	})
	t.Run("gate off", func(t *testing.T) {
		runStatusCases(t, off, []statusCase{{
			name:  "Serving Unknown",
			conds: []metav1.Condition{provisioningFalse, unknown(servingTrue)},
		}})
	})
}

// TestValidateServiceStatusUpdate_C1_ListsTrueAndFalse checks the C1 error
// names the two allowed statuses and not Unknown.
func TestValidateServiceStatusUpdate_C1_ListsTrueAndFalse(t *testing.T) {
	svc := service(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })))
	got := validation.ValidateServiceStatusUpdate(svc, nil, on)
	if len(got) == 0 {
		t.Fatal("no error for Serving=Unknown")
	}
	if d := got[0].Detail; !strings.Contains(d, `"True"`) || !strings.Contains(d, `"False"`) || strings.Contains(d, "Unknown") {
		t.Errorf("detail %q does not list exactly True and False", d)
	}
}

func TestValidateServiceStatusUpdate_C3(t *testing.T) {
	c := func(typ v1.LoadBalancerConditionType, s metav1.ConditionStatus, r v1.LoadBalancerConditionReason) []metav1.Condition {
		return []metav1.Condition{cond(typ, s, r)}
	}
	reason := errs(want("C3", field.ErrorTypeInvalid, conditionPath(0, "reason")))
	const (
		serving      = v1.LoadBalancerConditionServing
		provisioning = v1.LoadBalancerConditionProvisioning
		degraded     = v1.LoadBalancerConditionDegraded
		tru          = metav1.ConditionTrue
		fals         = metav1.ConditionFalse
		unknown      = metav1.ConditionUnknown
	)
	cases := []statusCase{
		{name: "Serving=False/Serving", conds: c(serving, fals, v1.LoadBalancerReasonServing), want: reason},
		{name: "Serving=True/Provisioning", conds: c(serving, tru, v1.LoadBalancerReasonProvisioning), want: reason},
		{name: "Serving=True/Unsupported", conds: c(serving, tru, v1.LoadBalancerReasonUnsupported), want: reason},
		{name: "Serving=True/Infrastructure", conds: c(serving, tru, v1.LoadBalancerReasonInfrastructure), want: reason},
		{name: "Provisioning=True/Complete", conds: c(provisioning, tru, v1.LoadBalancerReasonComplete), want: reason},
		{name: "Provisioning=False/Provisioning", conds: c(provisioning, fals, v1.LoadBalancerReasonProvisioning), want: reason},
		{name: "Degraded=False/PortsNotSupported", conds: c(degraded, fals, v1.LoadBalancerReasonPortsNotSupported), want: reason},
		{name: "Degraded=False/LoadBalancerSourceRangesNotSupported", conds: c(degraded, fals, v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported), want: reason},
		{name: "Degraded=False/Multiple", conds: c(degraded, fals, v1.LoadBalancerReasonMultiple), want: reason},

		// Not C3.
		{name: "Serving=True/Serving", conds: c(serving, tru, v1.LoadBalancerReasonServing)},
		{name: "Degraded=True/PortsNotSupported", conds: c(degraded, tru, v1.LoadBalancerReasonPortsNotSupported)},
		{name: "Degraded=Unknown with a Degraded reason", conds: c(degraded, unknown, v1.LoadBalancerReasonPortsNotSupported)},
		{name: "Degraded=False with a reason of its own", conds: c(degraded, fals, "AllGood")},
		{name: "a provider's own reason", conds: c(serving, fals, "QuotaExceeded")},
		{name: "another type's reason", conds: c(serving, tru, v1.LoadBalancerReasonComplete)},
		{name: "a well-known reason on another type", conds: []metav1.Condition{cond("Ready", fals, v1.LoadBalancerReasonServing)}},
		{name: "Serving=Unknown/Serving is C1 only",
			conds: c(serving, unknown, v1.LoadBalancerReasonServing),
			want:  errs(want("C1", field.ErrorTypeNotSupported, conditionPath(0, "status")))},
		{name: "Serving=Maybe/Provisioning is C5 only",
			conds: c(serving, "Maybe", v1.LoadBalancerReasonProvisioning),
			want:  errs(want("C5", field.ErrorTypeNotSupported, conditionPath(0, "status")))},
	}
	t.Run("gate on", func(t *testing.T) { runStatusCases(t, on, cases) })
	t.Run("gate off", func(t *testing.T) {
		runStatusCases(t, off, []statusCase{
			{name: "Serving=False/Serving", conds: c(serving, fals, v1.LoadBalancerReasonServing)},
			{name: "Degraded=False/PortsNotSupported", conds: c(degraded, fals, v1.LoadBalancerReasonPortsNotSupported)},
		})
	})
}

// TestValidateServiceStatusUpdate_C3_EveryDegradedReason checks each of
// the table's Degraded reasons, Multiple included, is accepted with True
// and rejected with False.
func TestValidateServiceStatusUpdate_C3_EveryDegradedReason(t *testing.T) {
	reasons := []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonMultiple}
	for _, f := range v1.LoadBalancerFeatures() {
		r, ok := v1.DegradedReason(f)
		if !ok {
			t.Fatalf("no Degraded reason for %q", f)
		}
		reasons = append(reasons, r)
	}
	for _, r := range reasons {
		t.Run(string(r), func(t *testing.T) {
			ok := service(withConditions(cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, r)))
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(ok, nil, on))
			bad := service(withConditions(cond(v1.LoadBalancerConditionDegraded, metav1.ConditionFalse, r)))
			testErrors(t, errs(want("C3", field.ErrorTypeInvalid, conditionPath(0, "reason"))),
				validation.ValidateServiceStatusUpdate(bad, nil, on))
		})
	}
}

// TestValidateServiceStatusUpdate_C1_OtherStatusListsTrueAndFalse: a
// Serving or Provisioning status outside True, False and Unknown is still
// the metav1 rules' error (C5), but it lists only what C1 takes: a writer
// who picked Unknown from the metav1 list would be refused again.
func TestValidateServiceStatusUpdate_C1_OtherStatusListsTrueAndFalse(t *testing.T) {
	for _, c := range []metav1.Condition{servingTrue, provisioningTrue} {
		t.Run(c.Type, func(t *testing.T) {
			svc := service(withConditions(changed(c, func(c *metav1.Condition) { c.Status = "Maybe" })))
			got := validation.ValidateServiceStatusUpdate(svc, nil, on)
			testErrors(t, errs(want("C5", field.ErrorTypeNotSupported, conditionPath(0, "status"))), got)
			if len(got) == 1 {
				if d := got[0].Detail; !strings.Contains(d, `"True"`) || !strings.Contains(d, `"False"`) || strings.Contains(d, "Unknown") {
					t.Errorf("detail %q does not list exactly True and False", d)
				}
			}
		})
	}
	// Other types keep the metav1 list: Unknown is theirs to use.
	got := validation.ValidateServiceStatusUpdate(service(withConditions(cond(v1.LoadBalancerConditionDegraded, "Maybe", "Whatever"))), nil, on)
	if len(got) != 1 || !strings.Contains(got[0].Detail, `"Unknown"`) {
		t.Errorf("Degraded=Maybe: got %v, want one error listing Unknown", got)
	}
}
