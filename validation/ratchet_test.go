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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

// invalidServices break each rule once, for the ratcheting tests.
func invalidServices() map[string]*v1.Service {
	unknown := func(c metav1.Condition) metav1.Condition {
		return changed(c, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })
	}
	return map[string]*v1.Service{
		"R4 unknown feature":         service(withFeatures(unknownFeature)),
		"R4 duplicate feature":       service(withFeatures(ports, ports)),
		"R4 too many features":       service(withFeatures(seventeen()...)),
		"R4 field on ClusterIP":      service(withType(corev1.ServiceTypeClusterIP), withFeatures(ports)),
		"C1 Serving Unknown":         service(withConditions(provisioningFalse, unknown(servingTrue))),
		"C3 Serving=False/Serving":   service(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionFalse }))),
		"C5 missing reason":          service(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.Reason = "" }))),
		"C5 duplicate type":          service(withConditions(servingTrue, servingTrue, servingFalse)),
		"C5 observedGeneration":      service(withConditions(changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = generation + 1 }))),
		"C5 and C1 in one condition": service(withConditions(cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionUnknown, ""))),
	}
}

// TestValidateServiceUpdate_Ratcheting checks an update that changes
// nothing reports nothing, for objects breaking every rule, with the gate on
// and off; while the same object created is rejected (so the test can fail).
func TestValidateServiceUpdate_Ratcheting(t *testing.T) {
	for name, svc := range invalidServices() {
		for gate, opts := range gateOptions {
			t.Run(name+"/"+gate, func(t *testing.T) {
				if len(validation.ValidateService(svc, on)) == 0 {
					t.Fatal("fixture is valid with the gate on; it tests nothing")
				}
				testErrors(t, nil, validation.ValidateServiceUpdate(svc, svc.DeepCopy(), opts))
				testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, svc.DeepCopy(), opts))
			})
		}
	}
}

func TestValidateServiceStatusUpdate_Ratcheting(t *testing.T) {
	unknownServing := changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })
	foreign := metav1.Condition{Type: "example.com/Legacy", Status: metav1.ConditionTrue} // no reason, no time
	wrongReason := changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionFalse })
	elsewhere := changed(servingTrue, func(c *metav1.Condition) {
		// The same instant, decoded in another location.
		c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.In(time.FixedZone("UTC+2", 2*3600)))
	})
	for _, tc := range []struct {
		name     string
		old, svc []metav1.Condition
		want     field.ErrorList
	}{{
		name: "C1 violation written before the gate was on, other condition changes",
		old:  []metav1.Condition{provisioningFalse, unknownServing},
		svc:  []metav1.Condition{provisioningTrue, unknownServing},
	}, {
		name: "C1 violation written before the gate was on, condition added",
		old:  []metav1.Condition{unknownServing},
		svc:  []metav1.Condition{unknownServing, provisioningFalse},
	}, {
		name: "C1 violation changed and still invalid",
		old:  []metav1.Condition{provisioningFalse, unknownServing},
		svc: []metav1.Condition{provisioningFalse,
			changed(unknownServing, func(c *metav1.Condition) { c.Message = "changed" })},
		want: errs(want("C1", field.ErrorTypeNotSupported, conditionPath(1, "status"))),
	}, {
		name: "C3 violation unchanged",
		old:  []metav1.Condition{wrongReason, provisioningTrue},
		svc:  []metav1.Condition{wrongReason, provisioningFalse},
	}, {
		name: "C3 violation newly written",
		old:  []metav1.Condition{servingTrue, provisioningFalse},
		svc:  []metav1.Condition{wrongReason, provisioningFalse},
		want: errs(want("C3", field.ErrorTypeInvalid, conditionPath(0, "reason"))),
	}, {
		name: "C5 violation by another controller, provider writes its own",
		old:  []metav1.Condition{foreign},
		svc:  []metav1.Condition{foreign, provisioningTrue, servingFalse},
	}, {
		name: "C5 violation unchanged but moved",
		old:  []metav1.Condition{foreign, servingFalse},
		svc:  []metav1.Condition{servingTrue, provisioningFalse, foreign},
	}, {
		name: "C5 violation unchanged but moved, in a long list",
		old:  append([]metav1.Condition{foreign}, others(8)...),
		svc:  append(others(8), foreign),
	}, {
		name: "C5 violation unchanged but moved to the front, in a long list",
		old:  append(others(8), foreign),
		svc:  append([]metav1.Condition{foreign}, others(8)...),
	}, {
		name: "C5 violation copied to a new type",
		old:  []metav1.Condition{foreign},
		svc:  []metav1.Condition{foreign, changed(foreign, func(c *metav1.Condition) { c.Type = "example.com/Copy" })},
		want: errs(
			want("C5", field.ErrorTypeRequired, conditionPath(1, "reason")),
			want("C5", field.ErrorTypeRequired, conditionPath(1, "lastTransitionTime")),
		),
	}, {
		name: "C5 observedGeneration above generation, unchanged",
		old:  []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = generation + 3 })},
		svc: []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.ObservedGeneration = generation + 3 }),
			provisioningFalse},
	}, {
		name: "unchanged condition decoded in another location",
		old:  []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.Reason = "" })},
		svc:  []metav1.Condition{changed(elsewhere, func(c *metav1.Condition) { c.Reason = "" })},
	}, {
		name: "duplicate kept from old",
		old:  []metav1.Condition{servingTrue, servingFalse},
		svc:  []metav1.Condition{servingTrue, servingFalse, provisioningFalse},
	}, {
		name: "duplicate kept from old, one copy changed",
		old:  []metav1.Condition{servingTrue, servingFalse},
		svc:  []metav1.Condition{servingTrue, changed(servingFalse, func(c *metav1.Condition) { c.Message = "changed" })},
	}, {
		name: "third copy of a duplicated type",
		old:  []metav1.Condition{servingTrue, servingFalse},
		svc:  []metav1.Condition{servingTrue, servingFalse, servingTrue},
		want: errs(want("C5", field.ErrorTypeDuplicate, conditionPath(2, ""))),
	}, {
		name: "new duplicate of an unchanged condition",
		old:  []metav1.Condition{servingTrue},
		svc:  []metav1.Condition{servingFalse, servingTrue},
		want: errs(want("C5", field.ErrorTypeDuplicate, conditionPath(1, ""))),
	}, {
		name: "invalid condition removed",
		old:  []metav1.Condition{foreign, unknownServing},
		svc:  []metav1.Condition{servingTrue},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			old := service(withConditions(tc.old...))
			svc := service(withConditions(tc.svc...))
			testErrors(t, tc.want, validation.ValidateServiceStatusUpdate(svc, old, on))
			testErrors(t, tc.want, validation.ValidateServiceUpdate(svc, old, on))
			// Without an old object nothing is ratcheted: every case
			// but the last has something to report then.
			if tc.name != "invalid condition removed" && len(validation.ValidateServiceStatusUpdate(svc, nil, on)) == 0 {
				t.Error("the case is valid even without ratcheting; it tests nothing")
			}
		})
	}
}
