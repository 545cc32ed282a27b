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

package gomega

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// BeServing succeeds when the Service's verdict, for no feature under
// test, is Ready (T3): Provisioning=False, Serving=True and an ingress
// entry with an ip or a hostname (L4).
func BeServing() types.GomegaMatcher {
	return HaveVerdictFor("", conditions.ResultReady)
}

// HaveVerdict succeeds when the Service's verdict for no feature under
// test has the given result (section 6).
func HaveVerdict(result conditions.Result) types.GomegaMatcher {
	return HaveVerdictFor("", result)
}

// HaveVerdictFor succeeds when the Service's verdict for a test of feature
// ("" for none) has the given result.
func HaveVerdictFor(feature v1.LoadBalancerFeature, result conditions.Result) types.GomegaMatcher {
	return &verdictMatcher{feature: feature, result: result}
}

// BeRefused succeeds when the provider refused the Service:
// Serving=False with reason Unsupported (R1, P2; T1 for a test).
func BeRefused() types.GomegaMatcher { return &refusedMatcher{} }

// BeDegradedIn succeeds when LoadBalancerDegraded is True and names
// feature's reason, directly, through Multiple (G2) or through the
// deprecated LoadBalancerPortsError (C4) (P3, P4). A feature this version
// does not know is never matched.
func BeDegradedIn(feature v1.LoadBalancerFeature) types.GomegaMatcher {
	return &degradedMatcher{feature: feature}
}

// HaveSeenChange succeeds when the Service shows that the provider saw a
// change of a load-balancer-relevant field made after before was read
// (L6, conditions.ChangeSeen): LoadBalancerProvisioning is there and its
// lastTransitionTime moved since before. After an update, a verdict
// matcher alone passes on the status the provider gave the old spec:
//
//	Eventually(get).Should(And(lbgomega.HaveSeenChange(before), lbgomega.BeServing()))
//
// before is the Service the update or patch returned, or the one an
// Update was made with (not one read before a patch: a status write in
// between would count, see conditions.WithSpecChange), in any form the
// matchers take other than a function; nil counts as a Service without
// conditions.
func HaveSeenChange(before any) types.GomegaMatcher {
	return &seenChangeMatcher{before: before}
}

// BeReleased succeeds when the Service is no longer of type LoadBalancer
// and carries none of LoadBalancerServing, LoadBalancerProvisioning and
// LoadBalancerDegraded and no status.loadBalancer.ingress: the provider
// removed them together with the load balancer (L9, conditions.Released,
// what conditions.WaitReleased waits for). After a change of the type away
// from LoadBalancer, where no verdict follows:
//
//	Eventually(get).WithTimeout(timeout).Should(lbgomega.BeReleased())
//
// The deprecated LoadBalancerPortsError and other controllers' conditions
// do not count. A nil Service is not matched.
func BeReleased() types.GomegaMatcher { return &releasedMatcher{} }

// toService converts what a matcher is given to a Service; see the
// package doc.
func toService(actual any) (*v1.Service, error) {
	if v := reflect.ValueOf(actual); v.Kind() == reflect.Func && v.IsNil() {
		return nil, fmt.Errorf("lbstatus matchers got a nil %T, not a function to call for the Service", actual)
	}
	switch x := actual.(type) {
	case *v1.Service:
		return x, nil
	case v1.Service:
		return &x, nil
	case *corev1.Service:
		if x == nil {
			return nil, nil
		}
		return v1.FromCoreShallow(x), nil
	case corev1.Service:
		return v1.FromCoreShallow(&x), nil
	case func() *v1.Service:
		return x(), nil
	case func() *corev1.Service:
		return toService(x())
	case func() v1.Service:
		return toService(x())
	case func() corev1.Service:
		return toService(x())
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("lbstatus matchers expect a Service (lbstatus v1 or client-go core/v1), got %T", actual)
}

// describe returns "Service ns/name" and the KEP-4631 conditions seen.
func describe(svc *v1.Service) string {
	if svc == nil {
		return "no Service (nil)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Service %s/%s", svc.Namespace, svc.Name)
	var seen []string
	for _, c := range svc.Status.Conditions {
		switch v1.LoadBalancerConditionType(c.Type) {
		case v1.LoadBalancerConditionServing, v1.LoadBalancerConditionProvisioning,
			v1.LoadBalancerConditionDegraded, v1.LoadBalancerConditionPortsError:
			s := fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason)
			if c.Message != "" {
				s += fmt.Sprintf(" %q", c.Message)
			}
			seen = append(seen, s)
		}
	}
	if len(seen) == 0 {
		b.WriteString("\nconditions seen: none of KEP-4631")
	} else {
		b.WriteString("\nconditions seen:\n  " + strings.Join(seen, "\n  "))
	}
	var addrs []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		switch {
		case in.IP != "" && in.Hostname != "":
			addrs = append(addrs, in.IP+" ("+in.Hostname+")")
		case in.IP != "" || in.Hostname != "":
			addrs = append(addrs, in.IP+in.Hostname)
		default:
			// Shown, so that an entry L4 does not count is not taken
			// for no entry at all.
			addrs = append(addrs, "(no address)")
		}
	}
	fmt.Fprintf(&b, "\ningress: %v", addrs)
	return b.String()
}

type verdictMatcher struct {
	feature v1.LoadBalancerFeature
	result  conditions.Result
	got     conditions.Verdict
	svc     *v1.Service
}

func (m *verdictMatcher) Match(actual any) (bool, error) {
	svc, err := toService(actual)
	if err != nil {
		return false, err
	}
	m.svc = svc
	m.got = conditions.Evaluate(svc, m.feature)
	return m.got.Result == m.result, nil
}

func (m *verdictMatcher) what() string {
	if m.feature == "" {
		return fmt.Sprintf("verdict %s", m.result)
	}
	return fmt.Sprintf("verdict %s for a test of %s", m.result, m.feature)
}

func (m *verdictMatcher) FailureMessage(any) string {
	return fmt.Sprintf("expected %s, got %s\n%s", m.what(), m.got, describe(m.svc))
}

func (m *verdictMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("expected no %s, got %s\n%s", m.what(), m.got, describe(m.svc))
}

type refusedMatcher struct{ svc *v1.Service }

func (m *refusedMatcher) Match(actual any) (bool, error) {
	svc, err := toService(actual)
	if err != nil {
		return false, err
	}
	m.svc = svc
	if svc == nil {
		return false, nil
	}
	c := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == string(v1.LoadBalancerReasonUnsupported), nil
}

func (m *refusedMatcher) FailureMessage(any) string {
	return "expected the provider to refuse the Service (R1: LoadBalancerServing=False/Unsupported)\n" + describe(m.svc)
}

func (m *refusedMatcher) NegatedFailureMessage(any) string {
	return "expected the provider not to refuse the Service (R1: LoadBalancerServing=False/Unsupported)\n" + describe(m.svc)
}

type degradedMatcher struct {
	feature v1.LoadBalancerFeature
	svc     *v1.Service
}

func (m *degradedMatcher) Match(actual any) (bool, error) {
	svc, err := toService(actual)
	if err != nil {
		return false, err
	}
	m.svc = svc
	reason, known := v1.DegradedReason(m.feature)
	if svc == nil || !known {
		return false, nil
	}
	return slices.Contains(conditions.DegradedReasons(svc.Status.Conditions), reason), nil
}

func (m *degradedMatcher) rule() string {
	reason, known := v1.DegradedReason(m.feature)
	if !known {
		return fmt.Sprintf("%s, which is not a feature this version knows", m.feature)
	}
	return fmt.Sprintf("%s (%s: LoadBalancerDegraded=True naming %s)", m.feature, degradationRule(m.feature), reason)
}

// degradationRule is the rule that lets a provider degrade in f instead
// of refusing: P3 for what it may refuse or degrade (session affinity,
// loadBalancerIP, source ranges), P4 for what it must degrade (ports, IP
// families, externalTrafficPolicy Local).
func degradationRule(f v1.LoadBalancerFeature) string {
	switch f {
	case v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureLoadBalancerIP, v1.LoadBalancerFeatureLoadBalancerSourceRanges:
		return "P3"
	}
	return "P4"
}

func (m *degradedMatcher) FailureMessage(any) string {
	return "expected the load balancer to be degraded in " + m.rule() + "\n" + describe(m.svc)
}

func (m *degradedMatcher) NegatedFailureMessage(any) string {
	return "expected the load balancer not to be degraded in " + m.rule() + "\n" + describe(m.svc)
}

type seenChangeMatcher struct {
	before   any
	old, svc *v1.Service
}

func (m *seenChangeMatcher) Match(actual any) (bool, error) {
	if reflect.ValueOf(m.before).Kind() == reflect.Func {
		return false, fmt.Errorf("HaveSeenChange takes the Service the update returned, not a function (%T)", m.before)
	}
	old, err := toService(m.before)
	if err != nil {
		return false, err
	}
	svc, err := toService(actual)
	if err != nil {
		return false, err
	}
	m.old, m.svc = old, svc
	return conditions.ChangeSeen(old, svc), nil
}

// since says what a seen change moves, as before had it.
func (m *seenChangeMatcher) since() string {
	var c *metav1.Condition
	if m.old != nil {
		c = conditions.Get(m.old.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	}
	if c == nil {
		return "LoadBalancerProvisioning written, none before"
	}
	return "LoadBalancerProvisioning's lastTransitionTime moved from " + c.LastTransitionTime.UTC().Format(time.RFC3339)
}

// now says what the Service shows of what since names: the conditions
// describe lists have no times.
func (m *seenChangeMatcher) now() string {
	var c *metav1.Condition
	if m.svc != nil {
		c = conditions.Get(m.svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	}
	if c == nil {
		return "there is no LoadBalancerProvisioning now"
	}
	return "LoadBalancerProvisioning's lastTransitionTime is now " + c.LastTransitionTime.UTC().Format(time.RFC3339)
}

func (m *seenChangeMatcher) FailureMessage(any) string {
	return "expected the provider to have seen the spec change (L6: " + m.since() + "); " + m.now() + "\n" + describe(m.svc)
}

func (m *seenChangeMatcher) NegatedFailureMessage(any) string {
	return "expected the provider not to have seen the spec change yet (L6: " + m.since() + "); " + m.now() + "\n" + describe(m.svc)
}

type releasedMatcher struct{ svc *v1.Service }

func (m *releasedMatcher) Match(actual any) (bool, error) {
	svc, err := toService(actual)
	if err != nil {
		return false, err
	}
	m.svc = svc
	return conditions.Released(svc), nil
}

// typeOf names the Service's type, which describe leaves out.
func (m *releasedMatcher) typeOf() string {
	if m.svc == nil {
		return ""
	}
	return fmt.Sprintf(" (type %s)", cmp.Or(string(m.svc.Spec.Type), "not set"))
}

func (m *releasedMatcher) FailureMessage(any) string {
	return "expected a Service no longer of type LoadBalancer, without the KEP-4631 conditions and without an ingress (L9)" + m.typeOf() + "\n" + describe(m.svc)
}

func (m *releasedMatcher) NegatedFailureMessage(any) string {
	return "expected a LoadBalancer Service, or one with KEP-4631 conditions or an ingress still (L9)" + m.typeOf() + "\n" + describe(m.svc)
}
