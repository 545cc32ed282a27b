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

package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// reasonTable is the specification's table, in its order: each row is a
// well-known reason of a condition type, the one status it goes with and,
// for a LoadBalancerDegraded reason that names a single degradation, the
// feature it names. (An anonymous struct: a named type in this package
// would be picked up by the API code generators.) It is the only
// list of features, reasons and their statuses in the project: the known
// features are the features of its rows (in row order, which is the order
// of section 4), so a new feature is one row here. Unexported and never
// handed out, so no caller can change it.
var reasonTable = [...]struct {
	typ     LoadBalancerConditionType
	reason  LoadBalancerConditionReason
	status  metav1.ConditionStatus
	feature LoadBalancerFeature
}{
	{LoadBalancerConditionServing, LoadBalancerReasonServing, metav1.ConditionTrue, ""},
	{LoadBalancerConditionServing, LoadBalancerReasonProvisioning, metav1.ConditionFalse, ""},
	{LoadBalancerConditionServing, LoadBalancerReasonUnsupported, metav1.ConditionFalse, ""},
	{LoadBalancerConditionServing, LoadBalancerReasonInfrastructure, metav1.ConditionFalse, ""},
	{LoadBalancerConditionProvisioning, LoadBalancerReasonProvisioning, metav1.ConditionTrue, ""},
	{LoadBalancerConditionProvisioning, LoadBalancerReasonComplete, metav1.ConditionFalse, ""},
	{LoadBalancerConditionDegraded, LoadBalancerReasonIPFamiliesNotSupported, metav1.ConditionTrue, LoadBalancerFeatureIPFamilies},
	{LoadBalancerConditionDegraded, LoadBalancerReasonPortsNotSupported, metav1.ConditionTrue, LoadBalancerFeaturePorts},
	{LoadBalancerConditionDegraded, LoadBalancerReasonSessionAffinityNotSupported, metav1.ConditionTrue, LoadBalancerFeatureSessionAffinity},
	{LoadBalancerConditionDegraded, LoadBalancerReasonLoadBalancerIPNotSupported, metav1.ConditionTrue, LoadBalancerFeatureLoadBalancerIP},
	{LoadBalancerConditionDegraded, LoadBalancerReasonExternalTrafficPolicyNotSupported, metav1.ConditionTrue, LoadBalancerFeatureExternalTrafficPolicy},
	{LoadBalancerConditionDegraded, LoadBalancerReasonLoadBalancerSourceRangesNotSupported, metav1.ConditionTrue, LoadBalancerFeatureLoadBalancerSourceRanges},
	{LoadBalancerConditionDegraded, LoadBalancerReasonMultiple, metav1.ConditionTrue, ""},
}

// LoadBalancerFeatures returns every LoadBalancerFeature this version knows,
// in the specification's order. A provider must treat any other value as
// unsupported (R2). Each call returns a new slice, which the caller may
// change.
func LoadBalancerFeatures() []LoadBalancerFeature {
	out := make([]LoadBalancerFeature, 0, 8)
	for i := range reasonTable {
		if f := reasonTable[i].feature; f != "" {
			out = append(out, f)
		}
	}
	return out
}

// IsKnown reports whether f is one of LoadBalancerFeatures(); false for "".
func (f LoadBalancerFeature) IsKnown() bool {
	_, ok := DegradedReason(f)
	return ok
}

// DegradedReason returns the LoadBalancerDegraded reason that names a
// degradation of feature f, and false for a feature this version does not
// know ("" included).
func DegradedReason(f LoadBalancerFeature) (LoadBalancerConditionReason, bool) {
	if f == "" {
		return "", false
	}
	for i := range reasonTable {
		if reasonTable[i].feature == f {
			return reasonTable[i].reason, true
		}
	}
	return "", false
}

// DegradedFeature is the inverse of DegradedReason: the feature a
// LoadBalancerDegraded reason names, and false for Multiple, for "" and for
// reasons outside the table.
func DegradedFeature(r LoadBalancerConditionReason) (LoadBalancerFeature, bool) {
	for i := range reasonTable {
		if row := &reasonTable[i]; row.typ == LoadBalancerConditionDegraded && row.reason == r && row.feature != "" {
			return row.feature, true
		}
	}
	return "", false
}

// ReasonStatus returns the status a well-known reason of condition type t
// goes with, from the specification's table (section 2), and false for a
// reason the table does not list for t ("" included). Each (type, reason)
// pair of the table has exactly one status:
//
//	LoadBalancerServing       True:  Serving
//	                          False: Provisioning, Unsupported, Infrastructure
//	LoadBalancerProvisioning  True:  Provisioning
//	                          False: Complete
//	LoadBalancerDegraded      True:  the six <Feature>NotSupported reasons, Multiple
//	                          False: none
func ReasonStatus(t LoadBalancerConditionType, r LoadBalancerConditionReason) (metav1.ConditionStatus, bool) {
	for i := range reasonTable {
		if row := &reasonTable[i]; row.typ == t && row.reason == r {
			return row.status, true
		}
	}
	return "", false
}
