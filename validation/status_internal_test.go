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

package validation

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestConditionKey_CoversCondition fails when metav1.Condition gains a
// field: conditionKey, and so ratcheting, would not see it change.
func TestConditionKey_CoversCondition(t *testing.T) {
	var got []string
	typ := reflect.TypeFor[metav1.Condition]()
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Name)
	}
	want := []string{"Type", "Status", "ObservedGeneration", "LastTransitionTime", "Reason", "Message"}
	if !slices.Equal(got, want) {
		t.Errorf("metav1.Condition has fields %v, conditionKey covers %v: update keyOf", got, want)
	}
}

// TestConditionKey_EqualityIsSemantic checks two conditions have the same
// key exactly when apimachinery's semantic equality says they are equal,
// for conditions that differ in one field each.
func TestConditionKey_EqualityIsSemantic(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := metav1.Condition{
		Type: "LoadBalancerServing", Status: metav1.ConditionTrue, ObservedGeneration: 2,
		LastTransitionTime: metav1.NewTime(at), Reason: "Serving", Message: "ok",
	}
	variants := []metav1.Condition{base}
	for _, mod := range []func(*metav1.Condition){
		func(c *metav1.Condition) { c.Type = "LoadBalancerProvisioning" },
		func(c *metav1.Condition) { c.Status = metav1.ConditionFalse },
		func(c *metav1.Condition) { c.ObservedGeneration = 3 },
		func(c *metav1.Condition) { c.LastTransitionTime = metav1.NewTime(at.Add(time.Second)) },
		func(c *metav1.Condition) { c.LastTransitionTime = metav1.NewTime(at.Add(time.Nanosecond)) },
		func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} },
		func(c *metav1.Condition) { c.Reason = "Provisioning" },
		func(c *metav1.Condition) { c.Message = "" },
		// The same instant elsewhere: equal.
		func(c *metav1.Condition) {
			c.LastTransitionTime = metav1.NewTime(at.In(time.FixedZone("UTC-5", -5*3600)))
		},
	} {
		c := base
		mod(&c)
		variants = append(variants, c)
	}
	for i, a := range variants {
		for j, b := range variants {
			if got, want := keyOf(&a) == keyOf(&b), equality.Semantic.DeepEqual(a, b); got != want {
				t.Errorf("variants %d and %d: same key %t, semantically equal %t", i, j, got, want)
			}
		}
	}
}
