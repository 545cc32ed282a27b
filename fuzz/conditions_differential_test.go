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
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/fuzz/seed"
	"github.com/lbstatus/lbstatus/validation"
)

// FuzzConditionsDifferential builds a condition list from fuzzed type,
// status, reason and message strings, times and generations (see
// conditionShape), and compares our status validation with apimachinery's
// metav1validation.ValidateConditions: with the gate on, whatever upstream
// rejects we reject, with at least upstream's errors; and what we report
// beyond upstream's is exactly what the specification adds (C1, C3, C5's
// observedGeneration bound). With the gate off we report nothing, as a
// stock apiserver (R5).
func FuzzConditionsDifferential(f *testing.F) {
	for _, fx := range fixtures() {
		conds := fx.svc.Status.Conditions
		if len(conds) == 0 || len(conds) > 4 {
			continue
		}
		in := conditionInput{
			message:            conds[0].Message,
			lastTransition:     conds[0].LastTransitionTime.Unix(),
			observedGeneration: conds[0].ObservedGeneration,
			shape:              conditionShape(len(conds) - 1),
		}
		var types, statuses, reasons []string
		for i, c := range conds {
			types, statuses, reasons = append(types, c.Type), append(statuses, string(c.Status)), append(reasons, c.Reason)
			if c.LastTransitionTime.IsZero() {
				in.shape |= 1 << (2 + 12*i + 11)
			}
		}
		in.types, in.statuses, in.reasons = strings.Join(types, "|"), strings.Join(statuses, "|"), strings.Join(reasons, "|")
		if len(in.message) > 32768 {
			in.message, in.shape = "", in.shape|1<<50
		}
		seed.Add(f, fx.name, in.types, in.statuses, in.reasons, in.message, in.lastTransition, in.observedGeneration, fx.svc.Generation, uint64(in.shape))
	}
	// Every well-known type, status and reason, through the shape bits.
	for i := range 16 {
		var shape uint64 = 3
		for c := range 4 {
			bits := uint64(1 | (c&3)<<1 | 1<<3 | ((i+c)&3)<<4 | 1<<6 | ((i*4+c)%16)<<7)
			shape |= bits << (2 + 12*c)
		}
		seed.Add(f, fmt.Sprintf("well-known-%d", i), "x", "x", "x", "", int64(1767225600), int64(i%4), int64(2), shape)
	}

	f.Fuzz(func(t *testing.T, types, statuses, reasons, message string, lastTransition, observedGeneration, generation int64, shape uint64) {
		if len(types)+len(statuses)+len(reasons)+len(message) > maxInput {
			return
		}
		conds := buildConditions(conditionInput{types, statuses, reasons, message, lastTransition, observedGeneration, conditionShape(shape)})
		upstream := metav1validation.ValidateConditions(conds, field.NewPath("status", "conditions"))
		svc := fixtureService(func(svc *v1.Service) {
			svc.Generation = generation
			svc.Status.Conditions = conds
		})
		// An old object with conditions of other types: nothing to ratchet.
		old := fixtureService(func(svc *v1.Service) {
			svc.Generation = generation
			svc.Status.Conditions = []metav1.Condition{fixtureCondition("example.com/Other", metav1.ConditionTrue, "Fine")}
		})
		for _, g := range gates {
			// With the gate off no condition is validated, as on a stock
			// apiserver (R5).
			upstream := upstream
			want := append(errorKeys(upstream), errorKeys(kepRuleErrors(conds, generation, g.on))...)
			if !g.on {
				upstream, want = nil, nil
			}
			for call, ours := range map[string]field.ErrorList{
				"ValidateService":                     validation.ValidateService(svc, g.opts),
				"ValidateServiceStatusUpdate":         validation.ValidateServiceStatusUpdate(svc, old, g.opts),
				"ValidateServiceStatusUpdate, no old": validation.ValidateServiceStatusUpdate(svc, nil, g.opts),
				"ValidateServiceUpdate":               validation.ValidateServiceUpdate(svc, old, g.opts),
			} {
				if len(upstream) > 0 && len(ours) == 0 {
					t.Fatalf("%s, %s accepts conditions metav1validation rejects: %v\nconditions: %+v", g.name, call, upstream, conds)
				}
				got := errorKeys(ours)
				if lost := missing(errorKeys(upstream), got); len(lost) > 0 {
					t.Fatalf("%s, %s misses metav1validation's %v\nours: %v\nconditions: %+v", g.name, call, lost, ours, conds)
				}
				if extra, lost := missing(got, want), missing(want, got); len(extra) > 0 || len(lost) > 0 {
					t.Fatalf("%s, %s: reports %v beyond the specification and misses %v\nours: %v\nupstream: %v\nconditions: %+v", g.name, call, extra, lost, ours, upstream, conds)
				}
				if bad := conventionErrors(ours); len(bad) > 0 {
					t.Fatalf("%s, %s breaks the error conventions: %v", g.name, call, bad)
				}
			}
		}
	})
}
