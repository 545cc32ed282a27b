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
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Result is what a client or an e2e test concludes from a Service's status
// (section 6 of the specification).
type Result string

const (
	// ResultReady: Provisioning=False, Serving=True, not degraded in the
	// feature under test (T3). IP ingress works at once; hostname ingress
	// may still wait for DNS.
	ResultReady Result = "Ready"
	// ResultPending: nothing final yet (T4); keep watching until a deadline
	// of L8.
	ResultPending Result = "Pending"
	// ResultSkip: the provider refused the Service or is degraded in the
	// feature under test (T1); the test should skip.
	ResultSkip Result = "Skip"
	// ResultFail: the provider failed in its infrastructure, or a deadline
	// of L8 passed (T2); the test should fail.
	ResultFail Result = "Fail"
)

// IsFinal reports whether r no longer changes by waiting: Ready, Skip and
// Fail are final, Pending and anything else are not.
func (r Result) IsFinal() bool {
	return r == ResultReady || r == ResultSkip || r == ResultFail
}

// Verdict is the conclusion of Evaluate: the result, the rule of section 6
// that gave it ("T1" to "T4"), a one-sentence reason, and the feature under
// test ("" for none).
type Verdict struct {
	Result  Result
	Rule    string
	Reason  string
	Feature v1.LoadBalancerFeature
	// Hostname is set on a Ready verdict whose ingress has no ip, only a
	// hostname: the first one, which a client resolves before it
	// connects, and whose DNS record may lag (T3). Empty otherwise. The
	// reason leaves it out, as the health checks of other tools, which
	// say what the reason says, do.
	Hostname string
}

// String returns "Result (Rule): Reason", and with a Hostname, what to do
// with it.
func (v Verdict) String() string {
	if v.Hostname != "" {
		return fmt.Sprintf("%s (%s): %s, at hostname %s, with no ip: resolve it first, its DNS record may lag", v.Result, v.Rule, v.Reason, v.Hostname)
	}
	return fmt.Sprintf("%s (%s): %s", v.Result, v.Rule, v.Reason)
}

// Evaluate returns the verdict for svc and an optional feature under test
// ("" for none). It only reads svc.Status.Conditions and, for Ready,
// svc.Status.LoadBalancer.Ingress; the rules apply in order:
//
//   - T1 Skip: Serving=False with reason Unsupported, or Degraded=True
//     naming the feature, directly or through Multiple (G2) or the
//     deprecated LoadBalancerPortsError (C4).
//   - T2 Fail: Serving=False with reason Infrastructure and
//     Provisioning=False.
//   - T3 Ready: Provisioning=False and Serving=True and an ingress entry
//     with an address (L4, see HasAddress). Serving=True without one stays
//     Pending. When no entry has an ip, the verdict's Hostname names the
//     hostname, which a client resolves first.
//   - T4 Pending: anything else, including a Service with no KEP-4631
//     conditions at all; the deadlines of L8 are Wait's business.
//
// A nil svc is Pending. An unknown feature is never named by a Degraded
// reason, so it cannot cause a skip.
func Evaluate[S Object](svc S, feature v1.LoadBalancerFeature) Verdict {
	switch s := any(svc).(type) {
	case *v1.Service:
		if s != nil {
			return evaluate(s.Status.Conditions, s.Status.LoadBalancer.Ingress, feature)
		}
	case *corev1.Service:
		if s != nil {
			return evaluate(s.Status.Conditions, s.Status.LoadBalancer.Ingress, feature)
		}
	}
	return Verdict{Result: ResultPending, Rule: "T4", Reason: "there is no service yet", Feature: feature}
}

// ShouldSkip is the one call of an e2e test for feature (or "" for none)
// on a Service it created (T1): true when the provider refused the
// Service (Serving=False/Unsupported) or is degraded in feature, with the
// reason to log; otherwise false, with the verdict's reason, so that a
// test may log why it goes on. T5: call it once, when the Service's
// verdict is final (Wait returns it). A nil svc is not skipped.
func ShouldSkip[S Object](svc S, feature v1.LoadBalancerFeature) (bool, string) {
	v := Evaluate(svc, feature)
	return v.Result == ResultSkip, v.Reason
}

// HasAddress reports whether ingress has an entry with an ip or a
// hostname: what L4 counts as an address (v1.HasAddress, which validation
// reads too). An entry with neither (only ports, or an ipMode) gives a
// client nothing to connect to.
func HasAddress(ingress []corev1.LoadBalancerIngress) bool {
	return v1.HasAddress(ingress)
}

func evaluate(conds []metav1.Condition, ingress []corev1.LoadBalancerIngress, feature v1.LoadBalancerFeature) Verdict {
	v := Verdict{Feature: feature}
	serving := Get(conds, v1.LoadBalancerConditionServing)
	provisioning := Get(conds, v1.LoadBalancerConditionProvisioning)

	if serving != nil && serving.Status == metav1.ConditionFalse && serving.Reason == string(v1.LoadBalancerReasonUnsupported) {
		v.Result, v.Rule = ResultSkip, "T1"
		v.Reason = "the provider refused the service as unsupported" + suffix(serving.Message)
		return v
	}
	if reason, ok := v1.DegradedReason(feature); ok && slices.Contains(DegradedReasons(conds), reason) {
		v.Result, v.Rule = ResultSkip, "T1"
		v.Reason = fmt.Sprintf("the load balancer is degraded in feature %s (%s)", feature, reason)
		return v
	}
	provisioningFalse := provisioning != nil && provisioning.Status == metav1.ConditionFalse
	if serving != nil && serving.Status == metav1.ConditionFalse && serving.Reason == string(v1.LoadBalancerReasonInfrastructure) && provisioningFalse {
		v.Result, v.Rule = ResultFail, "T2"
		v.Reason = "provisioning failed in the provider's infrastructure" + suffix(serving.Message)
		return v
	}
	if serving != nil && serving.Status == metav1.ConditionTrue && provisioningFalse {
		if !HasAddress(ingress) {
			v.Result, v.Rule = ResultPending, "T4"
			v.Reason = "Serving is True but status.loadBalancer.ingress is empty (L4)"
			if len(ingress) > 0 {
				v.Reason = "Serving is True but no entry of status.loadBalancer.ingress has an ip or a hostname (L4)"
			}
			return v
		}
		v.Result, v.Rule = ResultReady, "T3"
		v.Reason = "the load balancer serves the latest spec of the service"
		v.Hostname = hostnameOnly(ingress)
		return v
	}
	v.Result, v.Rule = ResultPending, "T4"
	switch {
	case serving == nil && provisioning == nil:
		v.Reason = "no provider has written the LoadBalancerServing and LoadBalancerProvisioning conditions yet"
	case provisioning != nil && provisioning.Status == metav1.ConditionTrue:
		v.Reason = "the load balancer is being provisioned"
	default:
		v.Reason = "the conditions do not give a final answer yet"
	}
	return v
}

// hostnameOnly returns the first hostname of ingress when no entry has an
// ip, else "".
func hostnameOnly(ingress []corev1.LoadBalancerIngress) string {
	hostname := ""
	for _, in := range ingress {
		if in.IP != "" {
			return ""
		}
		hostname = cmp.Or(hostname, in.Hostname)
	}
	return hostname
}

// suffix returns ": message" for a non-empty message.
func suffix(message string) string {
	if message == "" {
		return ""
	}
	return ": " + message
}
