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

package conditions

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

func TestDegradedReasons(t *testing.T) {
	degraded := func(reason v1.LoadBalancerConditionReason, message string) metav1.Condition {
		return metav1.Condition{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue, Reason: string(reason), Message: message}
	}
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  []v1.LoadBalancerConditionReason
	}{
		{name: "nil"},
		{name: "single", conds: []metav1.Condition{degraded(v1.LoadBalancerReasonSessionAffinityNotSupported, "x")},
			want: []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonSessionAffinityNotSupported}},
		{name: "G2 Multiple parsed back, unsorted and spaced", conds: []metav1.Condition{degraded(v1.LoadBalancerReasonMultiple, "SessionAffinityNotSupported, PortsNotSupported: text: more")},
			want: []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonPortsNotSupported, v1.LoadBalancerReasonSessionAffinityNotSupported}},
		{name: "G2 Multiple without text", conds: []metav1.Condition{degraded(v1.LoadBalancerReasonMultiple, "PortsNotSupported,IPFamiliesNotSupported")},
			want: []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonIPFamiliesNotSupported, v1.LoadBalancerReasonPortsNotSupported}},
		{name: "G2 Multiple with free text only", conds: []metav1.Condition{degraded(v1.LoadBalancerReasonMultiple, "ports and affinity are off")}},
		{name: "G2 Multiple duplicates and Multiple itself dropped", conds: []metav1.Condition{degraded(v1.LoadBalancerReasonMultiple, "PortsNotSupported,Multiple,PortsNotSupported: x")},
			want: []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonPortsNotSupported}},
		{name: "provider-specific reason kept", conds: []metav1.Condition{degraded("VendorThing", "x")},
			want: []v1.LoadBalancerConditionReason{"VendorThing"}},
		// Invalid (C5), but a checker reads what it is given: no reason
		// names no degradation.
		{name: "Degraded True without a reason names none", conds: []metav1.Condition{degraded("", "x")}},
		{name: "C2 Degraded False means none", conds: []metav1.Condition{{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionFalse, Reason: "PortsNotSupported"}}},
		{name: "Degraded Unknown means none", conds: []metav1.Condition{{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionUnknown, Reason: "PortsNotSupported"}}},
		{name: "C4 PortsError read as PortsNotSupported", conds: []metav1.Condition{
			{Type: string(v1.LoadBalancerConditionPortsError), Status: metav1.ConditionTrue, Reason: "Whatever"},
			degraded(v1.LoadBalancerReasonPortsNotSupported, "x"),
		}, want: []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonPortsNotSupported}},
		{name: "C4 PortsError False ignored", conds: []metav1.Condition{{Type: string(v1.LoadBalancerConditionPortsError), Status: metav1.ConditionFalse}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DegradedReasons(tc.conds); !slices.Equal(got, tc.want) {
				t.Errorf("DegradedReasons = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDegradedCondition_G2_MultipleSortedAtStartOfMessage(t *testing.T) {
	c, ok := degradedCondition([]v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureIPFamilies})
	if !ok {
		t.Fatal("no condition for three features")
	}
	if c.Reason != string(v1.LoadBalancerReasonMultiple) || c.Status != metav1.ConditionTrue {
		t.Errorf("got %s/%s, want True/Multiple", c.Status, c.Reason)
	}
	if want := "IPFamiliesNotSupported,PortsNotSupported,SessionAffinityNotSupported: "; !strings.HasPrefix(c.Message, want) {
		t.Errorf("message %q does not start with %q", c.Message, want)
	}
	// The text describes the features in the order the list names them.
	if want := "IPFamiliesNotSupported,PortsNotSupported,SessionAffinityNotSupported: the load balancer does not implement " +
		describeFeature(v1.LoadBalancerFeatureIPFamilies) + "; " + describeFeature(v1.LoadBalancerFeaturePorts) + "; " +
		describeFeature(v1.LoadBalancerFeatureSessionAffinity); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	got := DegradedReasons([]metav1.Condition{c})
	want := []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonIPFamiliesNotSupported, v1.LoadBalancerReasonPortsNotSupported, v1.LoadBalancerReasonSessionAffinityNotSupported}
	if !slices.Equal(got, want) {
		t.Errorf("round trip = %v, want %v", got, want)
	}
	if one, _ := degradedCondition([]v1.LoadBalancerFeature{v1.LoadBalancerFeatureLoadBalancerIP}); one.Reason != string(v1.LoadBalancerReasonLoadBalancerIPNotSupported) {
		t.Errorf("one feature: reason %q, want the feature's own", one.Reason)
	}
	if _, ok := degradedCondition(nil); ok {
		t.Error("no features must give no condition (C2: never Degraded=False)")
	}
}
