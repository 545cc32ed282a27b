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
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/api/operation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestDegradedReason_G1 pins the six feature/reason pairs of the
// specification (sections 2 and 4, G1's source ranges included) to
// literals, both ways, and in the specification's order.
func TestDegradedReason_G1(t *testing.T) {
	pairs := []struct{ feature, reason string }{
		{"IPFamilies", "IPFamiliesNotSupported"},
		{"Ports", "PortsNotSupported"},
		{"SessionAffinity", "SessionAffinityNotSupported"},
		{"LoadBalancerIP", "LoadBalancerIPNotSupported"},
		{"ExternalTrafficPolicy", "ExternalTrafficPolicyNotSupported"},
		{"LoadBalancerSourceRanges", "LoadBalancerSourceRangesNotSupported"},
	}
	var want []v1.LoadBalancerFeature
	for _, p := range pairs {
		f, r := v1.LoadBalancerFeature(p.feature), v1.LoadBalancerConditionReason(p.reason)
		want = append(want, f)
		if got, ok := v1.DegradedReason(f); !ok || got != r {
			t.Errorf("DegradedReason(%s) = %q, %v; want %q", f, got, ok, r)
		}
		if got, ok := v1.DegradedFeature(r); !ok || got != f {
			t.Errorf("DegradedFeature(%s) = %q, %v; want %q", r, got, ok, f)
		}
		if !f.IsKnown() {
			t.Errorf("%s is not known", f)
		}
	}
	if diff := cmp.Diff(want, v1.LoadBalancerFeatures()); diff != "" {
		t.Errorf("LoadBalancerFeatures() (-want +got):\n%s", diff)
	}
	for _, r := range []v1.LoadBalancerConditionReason{"Multiple", "", "Serving", "TeleportNotSupported"} {
		if f, ok := v1.DegradedFeature(r); ok {
			t.Errorf("DegradedFeature(%q) = %q, must name no single feature", r, f)
		}
	}
	// Reasons are not features: a Degraded reason read as a required
	// feature would be known, and a provider would not refuse it (R2).
	for _, f := range []v1.LoadBalancerFeature{"Teleport", "", "ports", "Multiple", "PortsNotSupported"} {
		if f.IsKnown() {
			t.Errorf("%q is known", f)
		}
		if r, ok := v1.DegradedReason(f); ok {
			t.Errorf("DegradedReason(%q) = %q", f, r)
		}
	}
}

// TestLoadBalancerFeatures_NotShared: the list is the caller's to change;
// changing it changes nothing for the next caller.
func TestLoadBalancerFeatures_NotShared(t *testing.T) {
	got := v1.LoadBalancerFeatures()
	got[0] = "Teleport"
	if v1.LoadBalancerFeatures()[0] != v1.LoadBalancerFeatureIPFamilies {
		t.Errorf("a caller's change to the returned slice reached the next caller")
	}
	if v1.LoadBalancerFeature("Teleport").IsKnown() {
		t.Errorf("a caller's change to the returned slice made a feature known")
	}
}

// TestLoadBalancerFeatures_MatchGeneratedEnum: the enum the generated
// declarative validation accepts (R4) is the table's list of features.
func TestLoadBalancerFeatures_MatchGeneratedEnum(t *testing.T) {
	ctx := context.Background()
	op := operation.Operation{Type: operation.Create}
	for _, f := range v1.LoadBalancerFeatures() {
		if errs := v1.Validate_LoadBalancerFeature(ctx, op, nil, &f, nil); len(errs) != 0 {
			t.Errorf("generated validation rejects %s: %v", f, errs)
		}
	}
	teleport := v1.LoadBalancerFeature("Teleport")
	errs := v1.Validate_LoadBalancerFeature(ctx, op, nil, &teleport, nil)
	if len(errs) != 1 {
		t.Fatalf("generated validation of Teleport: %v", errs)
	}
	var supported []v1.LoadBalancerFeature
	for _, s := range strings.Split(strings.TrimPrefix(errs[0].Detail, "supported values: "), ", ") {
		supported = append(supported, v1.LoadBalancerFeature(strings.Trim(s, `"`)))
	}
	if diff := cmp.Diff(v1.LoadBalancerFeatures(), supported, cmpopts.SortSlices(func(a, b v1.LoadBalancerFeature) bool { return a < b })); diff != "" {
		t.Errorf("generated enum differs from the table (-table +generated):\n%s", diff)
	}
}

// TestReasonStatus_C3: each reason of the specification's table belongs to
// exactly one status of its type, and reasons outside the table, or of
// another type, are not claimed.
func TestReasonStatus_C3(t *testing.T) {
	for _, tc := range []struct {
		typ    v1.LoadBalancerConditionType
		reason v1.LoadBalancerConditionReason
		status metav1.ConditionStatus
		known  bool
	}{
		{v1.LoadBalancerConditionServing, v1.LoadBalancerReasonServing, metav1.ConditionTrue, true},
		{v1.LoadBalancerConditionServing, v1.LoadBalancerReasonProvisioning, metav1.ConditionFalse, true},
		{v1.LoadBalancerConditionServing, v1.LoadBalancerReasonUnsupported, metav1.ConditionFalse, true},
		{v1.LoadBalancerConditionServing, v1.LoadBalancerReasonInfrastructure, metav1.ConditionFalse, true},
		{v1.LoadBalancerConditionProvisioning, v1.LoadBalancerReasonProvisioning, metav1.ConditionTrue, true},
		{v1.LoadBalancerConditionProvisioning, v1.LoadBalancerReasonComplete, metav1.ConditionFalse, true},
		{v1.LoadBalancerConditionDegraded, v1.LoadBalancerReasonMultiple, metav1.ConditionTrue, true},
		{v1.LoadBalancerConditionDegraded, v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported, metav1.ConditionTrue, true},
		{v1.LoadBalancerConditionProvisioning, v1.LoadBalancerReasonServing, "", false},
		{v1.LoadBalancerConditionServing, "ProviderSpecific", "", false},
		{"example.com/Other", v1.LoadBalancerReasonServing, "", false},
	} {
		status, known := v1.ReasonStatus(tc.typ, tc.reason)
		if status != tc.status || known != tc.known {
			t.Errorf("ReasonStatus(%s, %s) = %q, %v; want %q, %v", tc.typ, tc.reason, status, known, tc.status, tc.known)
		}
	}
}

// TestConditionConstants_Section2 pins the condition types and reasons to
// the strings of the specification's table (section 2) and C4's
// deprecated type: they are what providers write and clients read, so a
// change to one is a change of the wire format.
func TestConditionConstants_Section2(t *testing.T) {
	for got, want := range map[v1.LoadBalancerConditionType]string{
		v1.LoadBalancerConditionServing:      "LoadBalancerServing",
		v1.LoadBalancerConditionProvisioning: "LoadBalancerProvisioning",
		v1.LoadBalancerConditionDegraded:     "LoadBalancerDegraded",
		v1.LoadBalancerConditionPortsError:   "LoadBalancerPortsError",
	} {
		if string(got) != want {
			t.Errorf("condition type %q, want %q", got, want)
		}
	}
	for got, want := range map[v1.LoadBalancerConditionReason]string{
		v1.LoadBalancerReasonServing:                              "Serving",
		v1.LoadBalancerReasonProvisioning:                         "Provisioning",
		v1.LoadBalancerReasonUnsupported:                          "Unsupported",
		v1.LoadBalancerReasonInfrastructure:                       "Infrastructure",
		v1.LoadBalancerReasonComplete:                             "Complete",
		v1.LoadBalancerReasonIPFamiliesNotSupported:               "IPFamiliesNotSupported",
		v1.LoadBalancerReasonPortsNotSupported:                    "PortsNotSupported",
		v1.LoadBalancerReasonLoadBalancerIPNotSupported:           "LoadBalancerIPNotSupported",
		v1.LoadBalancerReasonSessionAffinityNotSupported:          "SessionAffinityNotSupported",
		v1.LoadBalancerReasonExternalTrafficPolicyNotSupported:    "ExternalTrafficPolicyNotSupported",
		v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported: "LoadBalancerSourceRangesNotSupported",
		v1.LoadBalancerReasonMultiple:                             "Multiple",
	} {
		if string(got) != want {
			t.Errorf("condition reason %q, want %q", got, want)
		}
	}
}

// TestParseRequiredFeatures_R1: the annotation's items, trimmed, in order,
// empty items and repeats left out; unknown values kept (R2); each problem
// reported once, at the path given.
func TestParseRequiredFeatures_R1(t *testing.T) {
	path := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	for _, tc := range []struct {
		value string
		want  []v1.LoadBalancerFeature
		errs  []field.ErrorType
	}{
		{"", nil, nil},
		{"  ", nil, nil},
		// Commas and blanks name no feature, so require nothing (and the
		// admission policy does not forbid them on another type), but
		// their empty items are malformed.
		{" , ", nil, []field.ErrorType{field.ErrorTypeInvalid}},
		{"\t,,", nil, []field.ErrorType{field.ErrorTypeInvalid}},
		{" Ports ,SessionAffinity", []v1.LoadBalancerFeature{"Ports", "SessionAffinity"}, nil},
		{"Ports,,Ports", []v1.LoadBalancerFeature{"Ports"}, []field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeDuplicate}},
		// Empty items are one problem of the value, reported once: the
		// error carries the whole value.
		{"Ports,, ,,Ports,", []v1.LoadBalancerFeature{"Ports"}, []field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeDuplicate}},
		{"Teleport,Ports", []v1.LoadBalancerFeature{"Teleport", "Ports"}, []field.ErrorType{field.ErrorTypeNotSupported}},
		// Past a few items repeats are found through an index.
		{"a,b,c,d,e,f,g,h,Ports,j,a,j,Ports", []v1.LoadBalancerFeature{"a", "b", "c", "d", "e", "f", "g", "h", "Ports", "j"},
			[]field.ErrorType{field.ErrorTypeNotSupported, field.ErrorTypeDuplicate}},
	} {
		got, errs := v1.ParseRequiredFeatures(tc.value, path)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: features (-want +got):\n%s", tc.value, diff)
		}
		var types []field.ErrorType
		for _, e := range errs {
			types = append(types, e.Type)
			if e.Field != path.String() {
				t.Errorf("%q: error at %s, want %s", tc.value, e.Field, path)
			}
		}
		if diff := cmp.Diff(tc.errs, types); diff != "" {
			t.Errorf("%q: errors (-want +got):\n%s", tc.value, diff)
		}
	}
}

// TestParseRequiredFeatures_R2_ErrorsNameTheItem: each error names what is
// wrong, so that a user can find it in a long value: repeats and unknown
// values name the items, trimmed, each once (the item alone when there is
// one, else the list in the value's order); an empty item names the whole
// value; unknown values list every known feature.
func TestParseRequiredFeatures_R2_ErrorsNameTheItem(t *testing.T) {
	path := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	for _, tc := range []struct {
		value string
		want  field.ErrorList
	}{
		{"Teleport, ,Ports, Teleport ,Ports", field.ErrorList{
			field.Invalid(path, "Teleport, ,Ports, Teleport ,Ports", "must be a comma-separated list of features without empty items"),
			field.NotSupported(path, "Teleport", v1.LoadBalancerFeatures()),
			field.Duplicate(path, []string{"Teleport", "Ports"}),
		}},
		{"b,Ports,a,b,b,Ports,a", field.ErrorList{
			field.NotSupported(path, []string{"b", "a"}, v1.LoadBalancerFeatures()),
			field.Duplicate(path, []string{"b", "Ports", "a"}),
		}},
		{"Ports,Ports,Ports", field.ErrorList{field.Duplicate(path, "Ports")}},
	} {
		_, errs := v1.ParseRequiredFeatures(tc.value, path)
		field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailExact().Test(t, tc.want, errs)
	}
}

// TestParseRequiredFeatures_ErrorsInProportion: what the errors say stays
// in proportion to the value, however many empty items, unknown values or
// repeats it has. The Invalid error for empty items carries the whole
// value; one per empty item made "lbstatus describe" of a Service whose
// annotation is a long run of commas print the value once per comma. So
// did an error per unknown value (each listing the known features) or per
// repeat, for a long list of short items.
func TestParseRequiredFeatures_ErrorsInProportion(t *testing.T) {
	path := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	var short []string
	for i := range 4096 {
		short = append(short, strconv.Itoa(i))
	}
	for name, value := range map[string]string{
		"empty items":    strings.Repeat(",", 4096) + "Ports",
		"unknown values": strings.Join(short, ","),
		"repeats":        strings.Repeat("a,Ports,", 4096),
	} {
		_, errs := v1.ParseRequiredFeatures(value, path)
		size := 0
		for _, e := range errs {
			size += len(e.Error())
		}
		if size > 4*len(value) {
			t.Errorf("%s: %d errors of %d bytes in all for a value of %d bytes", name, len(errs), size, len(value))
		}
	}
}

// TestParseRequiredFeatures_R4_AtMostAsManyAsTheField: the annotation
// holds at most MaxRequiredFeatures items, repeats included, as the spec
// field does (its generated validation), so that both ways of asking
// agree: one item more is TooMany for both, and neither then judges the
// values or repeats; as many is not. Empty items are not items: they
// are the annotation's own error.
func TestParseRequiredFeatures_R4_AtMostAsManyAsTheField(t *testing.T) {
	annotation := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	op := operation.Operation{Type: operation.Create, Options: map[string]bool{"LoadBalancerStatusImprovements": true}}
	for _, n := range []int{v1.MaxRequiredFeatures, v1.MaxRequiredFeatures + 1} {
		// Unknown values and a repeat: the field and the annotation
		// judge them only within the limit.
		items := []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeaturePorts}
		for i := len(items); i < n; i++ {
			items = append(items, v1.LoadBalancerFeature("Teleport"+strconv.Itoa(i)))
		}
		spec := &v1.ServiceSpec{RequiredLoadBalancerFeatures: items}
		fieldErrs := v1.Validate_ServiceSpec(context.Background(), op, field.NewPath("spec"), spec, nil)
		var value []string
		for _, f := range items {
			value = append(value, string(f))
		}
		_, annotationErrs := v1.ParseRequiredFeatures(strings.Join(value, ", ,"), annotation)
		var want field.ErrorList
		if n > v1.MaxRequiredFeatures {
			want = field.ErrorList{field.TooMany(annotation, n, v1.MaxRequiredFeatures)}
			if len(fieldErrs) != 1 || fieldErrs[0].Type != field.ErrorTypeTooMany {
				t.Errorf("%d values in the field: %v, want only TooMany", n, fieldErrs)
			}
		} else if slices.ContainsFunc(fieldErrs, func(e *field.Error) bool { return e.Type == field.ErrorTypeTooMany }) {
			t.Errorf("%d values in the field: %v, want no TooMany", n, fieldErrs)
		}
		var got field.ErrorList
		for _, e := range annotationErrs {
			switch e.Type {
			case field.ErrorTypeInvalid: // the empty items
			case field.ErrorTypeTooMany:
				got = append(got, e)
			default:
				if n > v1.MaxRequiredFeatures {
					t.Errorf("%d items in the annotation: %v judged past the limit", n, e)
				}
			}
		}
		field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailExact().Test(t, want, got)
	}
}
