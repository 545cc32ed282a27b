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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// DegradedReasons returns the individual degradations named by conds: the
// reason of a LoadBalancerDegraded=True condition, or, for reason Multiple,
// the reasons listed before the first colon of its message (G2: "A,B: text",
// a space after the colon or not, or "A,B" with no text); and
// PortsNotSupported for a LoadBalancerPortsError=True condition, the
// deprecated KEP-1435 spelling (C4). The result is sorted and has no
// duplicates. Provider-specific reasons are returned as they are; items of
// a Multiple message that are not valid condition reasons (free text) are
// skipped. Degraded False, Unknown or absent, and nil conds, give nil.
func DegradedReasons(conds []metav1.Condition) []v1.LoadBalancerConditionReason {
	var out []v1.LoadBalancerConditionReason
	if c := Get(conds, v1.LoadBalancerConditionDegraded); c != nil && c.Status == metav1.ConditionTrue {
		reason := v1.LoadBalancerConditionReason(c.Reason)
		if reason == v1.LoadBalancerReasonMultiple {
			out = parseMultiple(c.Message)
		} else if reason != "" {
			out = append(out, reason)
		}
	}
	if IsTrue(conds, v1.LoadBalancerConditionPortsError) {
		out = append(out, v1.LoadBalancerReasonPortsNotSupported)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parseMultiple returns the reasons listed at the start of a Multiple
// message: "A,B: text" or, with no text, "A,B".
func parseMultiple(message string) []v1.LoadBalancerConditionReason {
	list, _, _ := strings.Cut(message, ":")
	var out []v1.LoadBalancerConditionReason
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" || item == string(v1.LoadBalancerReasonMultiple) || len(metav1validation.IsValidConditionReason(item)) > 0 {
			continue
		}
		out = append(out, v1.LoadBalancerConditionReason(item))
	}
	return out
}

// degradedText starts the text of the messages degradedCondition writes,
// before the descriptions of the features (describeFeature), one per
// listed reason, in the order of the list, separated by "; ".
const degradedText = "the load balancer does not implement "

// degradedCondition returns the Degraded=True condition for the given
// degraded features (G2): the feature's reason for one, Multiple with the
// sorted reasons at the start of the message for several. The features
// must be known and without duplicates; ok is false for an empty list.
func degradedCondition(features []v1.LoadBalancerFeature) (c metav1.Condition, ok bool) {
	reasons := make([]string, 0, len(features))
	for _, f := range features {
		r, _ := v1.DegradedReason(f)
		reasons = append(reasons, string(r))
	}
	slices.Sort(reasons)
	c = metav1.Condition{
		Type:   string(v1.LoadBalancerConditionDegraded),
		Status: metav1.ConditionTrue,
	}
	switch len(reasons) {
	case 0:
		return c, false
	case 1:
		c.Reason = reasons[0]
		c.Message = degradedText + describeFeature(features[0])
	default:
		c.Reason = string(v1.LoadBalancerReasonMultiple)
		descs := make([]string, 0, len(features))
		for _, f := range sortedByReason(features) {
			descs = append(descs, describeFeature(f))
		}
		c.Message = strings.Join(reasons, ",") + ": " + degradedText + strings.Join(descs, "; ")
	}
	return c, true
}

// sortedByReason returns a copy of features in the order of their Degraded
// reasons, so that a Multiple message describes them in the order it lists
// them.
func sortedByReason(features []v1.LoadBalancerFeature) []v1.LoadBalancerFeature {
	out := slices.Clone(features)
	slices.SortFunc(out, func(a, b v1.LoadBalancerFeature) int {
		ra, _ := v1.DegradedReason(a)
		rb, _ := v1.DegradedReason(b)
		return strings.Compare(string(ra), string(rb))
	})
	return out
}

// describeFeature says in a few words what a degradation in f leaves out.
func describeFeature(f v1.LoadBalancerFeature) string {
	switch f {
	case v1.LoadBalancerFeatureIPFamilies:
		return "every IP family of the service"
	case v1.LoadBalancerFeaturePorts:
		return "every port and protocol of the service"
	case v1.LoadBalancerFeatureSessionAffinity:
		return "sessionAffinity ClientIP"
	case v1.LoadBalancerFeatureLoadBalancerIP:
		return "the requested loadBalancerIP"
	case v1.LoadBalancerFeatureExternalTrafficPolicy:
		return "client source IP preservation for externalTrafficPolicy Local"
	case v1.LoadBalancerFeatureLoadBalancerSourceRanges:
		return "loadBalancerSourceRanges"
	}
	return string(f)
}
