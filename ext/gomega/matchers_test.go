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
	"strings"
	"testing"
	"time"

	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

func svcWith(ingress bool, conds ...metav1.Condition) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	s.Spec.Type = corev1.ServiceTypeLoadBalancer
	s.Status.Conditions = conds
	if ingress {
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	}
	return s
}

func c(typ v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: string(typ), Status: status, Reason: reason, Message: message}
}

var (
	ready = svcWith(true,
		c(v1.LoadBalancerConditionServing, "True", "Serving", ""),
		c(v1.LoadBalancerConditionProvisioning, "False", "Complete", ""))
	provisioning = svcWith(false,
		c(v1.LoadBalancerConditionServing, "False", "Provisioning", ""),
		c(v1.LoadBalancerConditionProvisioning, "True", "Provisioning", "waiting for the cloud"))
	refused = svcWith(false,
		c(v1.LoadBalancerConditionServing, "False", "Unsupported", "no UDP"),
		c(v1.LoadBalancerConditionProvisioning, "False", "Complete", ""))
	degradedMultiple = svcWith(true,
		c(v1.LoadBalancerConditionServing, "True", "Serving", ""),
		c(v1.LoadBalancerConditionProvisioning, "False", "Complete", ""),
		c(v1.LoadBalancerConditionDegraded, "True", "Multiple", "PortsNotSupported,SessionAffinityNotSupported: udp/53"))
	legacyPortsError = svcWith(true,
		c(v1.LoadBalancerConditionServing, "True", "Serving", ""),
		c(v1.LoadBalancerConditionProvisioning, "False", "Complete", ""),
		c(v1.LoadBalancerConditionPortsError, "True", "PortsError", "udp/53"))
)

func TestMatchers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		matcher types.GomegaMatcher
		actual  any
		want    bool
	}{
		{"BeServing/ready", BeServing(), ready, true},
		{"BeServing/ready as lbstatus value", BeServing(), *v1.FromCore(ready), true},
		{"BeServing/ready from a function", BeServing(), func() *corev1.Service { return ready }, true},
		{"BeServing/provisioning", BeServing(), provisioning, false},
		{"BeServing/nil", BeServing(), (*corev1.Service)(nil), false},
		{"BeServing/serving without ingress (L4)", BeServing(), svcWith(false, ready.Status.Conditions...), false},
		{"BeServing/serving with an ingress entry of no address (L4)", BeServing(), func() *corev1.Service {
			s := ready.DeepCopy()
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
			return s
		}(), false},
		{"BeServing/ready from a function returning a value", BeServing(), func() corev1.Service { return *ready }, true},
		{"BeServing/ready from a function returning an lbstatus value", BeServing(), func() v1.Service { return *v1.FromCore(ready) }, true},
		{"HaveVerdict/pending", HaveVerdict(conditions.ResultPending), provisioning, true},
		{"HaveVerdict/skip when refused", HaveVerdict(conditions.ResultSkip), refused, true},
		{"HaveVerdictFor/skip when degraded in the feature", HaveVerdictFor(v1.LoadBalancerFeatureSessionAffinity, conditions.ResultSkip), degradedMultiple, true},
		{"HaveVerdictFor/ready for another feature", HaveVerdictFor(v1.LoadBalancerFeatureLoadBalancerIP, conditions.ResultReady), degradedMultiple, true},
		{"BeRefused/refused", BeRefused(), refused, true},
		{"BeRefused/ready", BeRefused(), ready, false},
		{"BeDegradedIn/listed by Multiple", BeDegradedIn(v1.LoadBalancerFeaturePorts), degradedMultiple, true},
		{"BeDegradedIn/not listed", BeDegradedIn(v1.LoadBalancerFeatureIPFamilies), degradedMultiple, false},
		{"BeDegradedIn/deprecated PortsError (C4)", BeDegradedIn(v1.LoadBalancerFeaturePorts), legacyPortsError, true},
		{"BeDegradedIn/unknown feature", BeDegradedIn("Teleport"), degradedMultiple, false},
		{"BeServing/ready from a function returning an lbstatus pointer", BeServing(), func() *v1.Service { return v1.FromCore(ready) }, true},
		{"BeServing/untyped nil", BeServing(), nil, false},
		{"BeRefused/nil", BeRefused(), (*corev1.Service)(nil), false},
		{"BeRefused/Serving=False for another reason", BeRefused(), provisioning, false},
		// Unsupported is a reason of Serving=False only (C3): with True it
		// is no refusal.
		{"BeRefused/Serving=True with reason Unsupported", BeRefused(), svcWith(true,
			c(v1.LoadBalancerConditionServing, "True", "Unsupported", ""),
			c(v1.LoadBalancerConditionProvisioning, "False", "Complete", "")), false},
		{"BeDegradedIn/nil", BeDegradedIn(v1.LoadBalancerFeaturePorts), (*v1.Service)(nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.matcher.Match(tc.actual)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Match = %v, want %v; failure message:\n%s", got, tc.want, tc.matcher.FailureMessage(tc.actual))
			}
		})
	}
}

func TestMatchers_MessagesNameRuleAndConditions(t *testing.T) {
	m := BeServing()
	if ok, _ := m.Match(provisioning); ok {
		t.Fatal("a provisioning Service matched BeServing")
	}
	msg := m.FailureMessage(provisioning)
	for _, want := range []string{"Ready", "Pending (T4)", "shop/web", "LoadBalancerProvisioning=True/Provisioning \"waiting for the cloud\"", "LoadBalancerServing=False/Provisioning"} {
		if !strings.Contains(msg, want) {
			t.Errorf("BeServing's failure message lacks %q:\n%s", want, msg)
		}
	}
	d := BeDegradedIn(v1.LoadBalancerFeatureSessionAffinity)
	if ok, _ := d.Match(degradedMultiple); !ok {
		t.Fatal("BeDegradedIn(SessionAffinity) does not match Multiple listing it")
	}
	msg = d.NegatedFailureMessage(degradedMultiple)
	// Session affinity is P3's (refuse or degrade), ports P4's.
	for _, want := range []string{"SessionAffinity (P3: LoadBalancerDegraded=True naming SessionAffinityNotSupported)", "LoadBalancerDegraded=True/Multiple"} {
		if !strings.Contains(msg, want) {
			t.Errorf("BeDegradedIn's negated failure message lacks %q:\n%s", want, msg)
		}
	}
	r := BeRefused()
	_, _ = r.Match(ready)
	if msg := r.FailureMessage(ready); !strings.Contains(msg, "R1") || !strings.Contains(msg, "LoadBalancerServing=True/Serving") {
		t.Errorf("BeRefused's failure message: %s", msg)
	}
}

func TestMatchers_WrongTypeIsAnError(t *testing.T) {
	for _, m := range []types.GomegaMatcher{BeServing(), BeRefused(), BeDegradedIn(v1.LoadBalancerFeaturePorts), BeReleased()} {
		if _, err := m.Match("web"); err == nil || !strings.Contains(err.Error(), "string") {
			t.Errorf("Match(string): %v, want an error naming the type", err)
		}
		// A nil function is an error, not a panic.
		var get func() *corev1.Service
		if _, err := m.Match(get); err == nil || !strings.Contains(err.Error(), "func() *v1.Service") {
			t.Errorf("Match(nil func): %v, want an error naming the type", err)
		}
	}
}

// TestMatchers_MessagesDescribeWhatWasSeen: the messages say what was
// expected, for which feature, and what the Service showed: every
// KEP-4631 condition (the deprecated PortsError too, C4), none when there
// are none, the ingress addresses by ip or hostname, and a nil Service.
func TestMatchers_MessagesDescribeWhatWasSeen(t *testing.T) {
	check := func(what, msg string, wants ...string) {
		t.Helper()
		for _, want := range wants {
			if !strings.Contains(msg, want) {
				t.Errorf("%s lacks %q:\n%s", what, want, msg)
			}
		}
	}
	v := HaveVerdict(conditions.ResultPending)
	_, _ = v.Match(provisioning)
	check("HaveVerdict's negated message", v.NegatedFailureMessage(provisioning), "expected no verdict Pending, got", "LoadBalancerServing=False/Provisioning")

	f := HaveVerdictFor(v1.LoadBalancerFeatureSessionAffinity, conditions.ResultReady)
	_, _ = f.Match(legacyPortsError)
	check("HaveVerdictFor's message", f.FailureMessage(legacyPortsError), "verdict Ready for a test of SessionAffinity", "LoadBalancerPortsError=True/PortsError", "ingress: [192.0.2.1]")

	bare := svcWith(false)
	bare.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example"}}
	_, _ = v.Match(bare)
	check("a Service without conditions", v.FailureMessage(bare), "conditions seen: none of KEP-4631", "ingress: [lb.example]")

	// An entry with both an ip and a hostname, and one with neither (L4).
	both := svcWith(false)
	both.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1", Hostname: "lb.example"}, {IPMode: ptr(corev1.LoadBalancerIPModeVIP)}}
	_, _ = v.Match(both)
	check("a Service with an ip and a hostname, and an entry without address", v.FailureMessage(both), "ingress: [192.0.2.1 (lb.example) (no address)]")

	_, _ = v.Match(nil)
	check("a nil Service", v.FailureMessage(nil), "no Service (nil)")

	r := BeRefused()
	_, _ = r.Match(refused)
	check("BeRefused's negated message", r.NegatedFailureMessage(refused), "not to refuse", "R1", "LoadBalancerServing=False/Unsupported \"no UDP\"")

	d := BeDegradedIn(v1.LoadBalancerFeatureIPFamilies)
	_, _ = d.Match(degradedMultiple)
	check("BeDegradedIn's message", d.FailureMessage(degradedMultiple), "expected the load balancer to be degraded in IPFamilies (P4: LoadBalancerDegraded=True naming IPFamiliesNotSupported)", "LoadBalancerDegraded=True/Multiple")
	// A condition without a message is shown without one.
	_, _ = v.Match(ready)
	if msg := v.FailureMessage(ready); strings.Contains(msg, `""`) {
		t.Errorf("a condition without a message is shown with an empty one:\n%s", msg)
	}
	u := BeDegradedIn("Teleport")
	_, _ = u.Match(degradedMultiple)
	check("BeDegradedIn's message for an unknown feature", u.FailureMessage(degradedMultiple), "Teleport, which is not a feature this version knows")
}

// TestBeDegradedIn_MessagesNameTheRule: a degradation in what P3 lets
// a provider refuse or degrade (session affinity, loadBalancerIP, source
// ranges) names P3; one in what P4 makes it degrade (ports, IP families,
// externalTrafficPolicy) names P4.
func TestBeDegradedIn_MessagesNameTheRule(t *testing.T) {
	for f, rule := range map[v1.LoadBalancerFeature]string{
		v1.LoadBalancerFeatureSessionAffinity:          "P3",
		v1.LoadBalancerFeatureLoadBalancerIP:           "P3",
		v1.LoadBalancerFeatureLoadBalancerSourceRanges: "P3",
		v1.LoadBalancerFeaturePorts:                    "P4",
		v1.LoadBalancerFeatureIPFamilies:               "P4",
		v1.LoadBalancerFeatureExternalTrafficPolicy:    "P4",
	} {
		m := BeDegradedIn(f)
		_, _ = m.Match(ready)
		if want := string(f) + " (" + rule + ": "; !strings.Contains(m.FailureMessage(ready), want) {
			t.Errorf("BeDegradedIn(%s)'s message lacks %q:\n%s", f, want, m.FailureMessage(ready))
		}
	}
}

func ptr[T any](v T) *T { return &v }

// HaveSeenChange: after an update, the provider's move of Provisioning's
// lastTransitionTime is what tells the change was seen (L6); the verdict
// of the old status is not.
func TestHaveSeenChange_L6(t *testing.T) {
	bumped := ready.DeepCopy()
	bumped.Status.Conditions[1].LastTransitionTime = metav1.Date(2025, 3, 4, 5, 6, 8, 0, time.UTC)
	for _, tc := range []struct {
		name           string
		before, actual any
		want           bool
	}{
		{"not moved", ready, ready, false},
		{"moved", ready, bumped, true},
		{"moved, from a function", ready, func() *corev1.Service { return bumped }, true},
		{"moved, lbstatus values", *v1.FromCore(ready), v1.FromCore(bumped), true},
		{"written, none before", svcWith(false), ready, true},
		{"none before, none now", svcWith(false), svcWith(false), false},
		{"nil before", nil, ready, true},
		{"nil now", ready, (*corev1.Service)(nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := HaveSeenChange(tc.before)
			got, err := m.Match(tc.actual)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Match = %v, want %v; failure message:\n%s", got, tc.want, m.FailureMessage(tc.actual))
			}
		})
	}
	m := HaveSeenChange(ready)
	if ok, _ := m.Match(ready); ok {
		t.Fatal("matched an unmoved Provisioning")
	}
	if msg := m.FailureMessage(ready); !strings.Contains(msg, "L6") || !strings.Contains(msg, "moved from 0001-01-01T00:00:00Z") || !strings.Contains(msg, "Service shop/web") {
		t.Errorf("failure message %q does not name L6, the old time and the Service", msg)
	}
	// The conditions listed have no times: the message says where
	// Provisioning's lastTransitionTime is now.
	if msg := m.FailureMessage(ready); !strings.Contains(msg, "is now 0001-01-01T00:00:00Z") {
		t.Errorf("failure message %q does not say where lastTransitionTime is now", msg)
	}
	fresh := HaveSeenChange(nil)
	if ok, _ := fresh.Match(svcWith(false)); ok {
		t.Fatal("matched a Service without Provisioning, nil before")
	}
	if msg := fresh.FailureMessage(nil); !strings.Contains(msg, "LoadBalancerProvisioning written, none before") {
		t.Errorf("failure message %q does not say that there was none before", msg)
	}
	if ok, _ := fresh.Match(bumped); !ok {
		t.Fatal("did not match a Service with Provisioning, nil before")
	}
	if msg := fresh.NegatedFailureMessage(nil); !strings.Contains(msg, "not to have seen the spec change yet") || !strings.Contains(msg, "is now 2025-03-04T05:06:08Z") {
		t.Errorf("negated failure message %q does not say what was expected and where lastTransitionTime is now", msg)
	}
	gone := HaveSeenChange(ready)
	if ok, _ := gone.Match(svcWith(false)); ok {
		t.Fatal("matched a Service without Provisioning")
	}
	if msg := gone.FailureMessage(nil); !strings.Contains(msg, "there is no LoadBalancerProvisioning now") {
		t.Errorf("failure message %q does not say that Provisioning is gone", msg)
	}
	if ok, _ := m.Match(bumped); !ok {
		t.Fatal("did not match a moved Provisioning")
	}
	if msg := m.NegatedFailureMessage(bumped); !strings.Contains(msg, "is now 2025-03-04T05:06:08Z") {
		t.Errorf("negated failure message %q does not say where lastTransitionTime is now", msg)
	}
	if _, err := HaveSeenChange(func() *corev1.Service { return ready }).Match(bumped); err == nil || !strings.Contains(err.Error(), "not a function") {
		t.Errorf("before given as a function: err = %v", err)
	}
}

// BeReleased: after a change of the type away from LoadBalancer, the
// provider removes its conditions and the ingress (L9), as
// conditions.WaitReleased waits for; a LoadBalancer Service without them
// yet, or a ClusterIP one that keeps either, is not released.
func TestBeReleased_L9(t *testing.T) {
	clusterIP := func(s *corev1.Service) *corev1.Service {
		s = s.DeepCopy()
		s.Spec.Type = corev1.ServiceTypeClusterIP
		return s
	}
	other := svcWith(false, metav1.Condition{Type: "example.com/Healthy", Status: "True", Reason: "Probed"})
	for _, tc := range []struct {
		name   string
		actual any
		want   bool
	}{
		{"ClusterIP, conditions removed", clusterIP(svcWith(false)), true},
		{"ClusterIP, another controller's condition", clusterIP(other), true},
		{"ClusterIP, deprecated PortsError left", clusterIP(svcWith(false, legacyPortsError.Status.Conditions[2])), true},
		{"ClusterIP, conditions kept", clusterIP(ready), false},
		{"ClusterIP, Degraded kept", clusterIP(svcWith(false, degradedMultiple.Status.Conditions[2])), false},
		{"ClusterIP, conditions removed, ingress kept", clusterIP(svcWith(true)), false},
		{"LoadBalancer without conditions yet", svcWith(false), false},
		{"from a function", func() *corev1.Service { return clusterIP(svcWith(false)) }, true},
		{"nil", (*corev1.Service)(nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := BeReleased()
			got, err := m.Match(tc.actual)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Match = %v, want %v", got, tc.want)
			}
		})
	}
	m := BeReleased()
	if ok, _ := m.Match(clusterIP(ready)); ok {
		t.Fatal("matched a Service that kept its conditions")
	}
	if msg := m.FailureMessage(nil); !strings.Contains(msg, "L9") || !strings.Contains(msg, "type ClusterIP") || !strings.Contains(msg, "LoadBalancerServing=True/Serving") {
		t.Errorf("failure message %q does not name L9, the type and the conditions seen", msg)
	}
	untyped := svcWith(false)
	untyped.Spec.Type = ""
	if ok, _ := m.Match(untyped); !ok {
		t.Fatal("did not match a Service without a type and without conditions")
	}
	if msg := m.NegatedFailureMessage(nil); !strings.Contains(msg, "(type not set)") || !strings.Contains(msg, "or one with KEP-4631 conditions or an ingress still (L9)") {
		t.Errorf("negated failure message %q does not say what was expected and that the type is not set", msg)
	}
	// A nil Service has no type to name.
	if ok, _ := m.Match((*corev1.Service)(nil)); ok {
		t.Fatal("matched a nil Service")
	}
	if msg := m.FailureMessage(nil); !strings.Contains(msg, "(L9)\nno Service (nil)") {
		t.Errorf("failure message %q for a nil Service", msg)
	}
}
