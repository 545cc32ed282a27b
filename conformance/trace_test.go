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

package conformance

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// degradedInAffinity returns a serving Service, degraded in the session
// affinity it asks for, written at second s.
func degradedInAffinity(name string, s int) *v1.Service {
	svc := ready(name, s)
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
		v1.LoadBalancerReasonSessionAffinityNotSupported, at(s)))
	return svc
}

// C6 and C7 follow LoadBalancerDegraded as they follow Serving and
// Provisioning, and their messages say which way the status or the time
// moved.
func TestCheck_C6_Degraded(t *testing.T) {
	degraded := degradedInAffinity("web", 10)
	checking := next(degraded)
	getCond(t, checking, v1.LoadBalancerConditionDegraded).Status = metav1.ConditionUnknown
	getCond(t, checking, v1.LoadBalancerConditionDegraded).Reason = "Checking"
	f := wantFinding(t, check(degraded, checking), "C6", SeverityViolation, "status.conditions[2].lastTransitionTime")
	if want := "LoadBalancerDegraded changed from True to Unknown"; !strings.HasPrefix(f.Message, want) {
		t.Errorf("C6 message %q, want it to start %q", f.Message, want)
	}
	getCond(t, checking, v1.LoadBalancerConditionDegraded).LastTransitionTime = at(11)
	noFinding(t, check(degraded, checking), "C6")
}

func TestCheck_C7_Degraded(t *testing.T) {
	degraded := degradedInAffinity("web", 10)
	earlier := next(degraded)
	getCond(t, earlier, v1.LoadBalancerConditionDegraded).LastTransitionTime = at(9)
	f := wantFinding(t, check(degraded, earlier), "C7", SeverityViolation, "status.conditions[2].lastTransitionTime")
	if want := "from 2026-03-01T12:00:10Z to 2026-03-01T12:00:09Z"; !strings.HasSuffix(f.Message, want) {
		t.Errorf("C7 message %q, want it to end %q", f.Message, want)
	}
}

// C7 compares whole seconds (G5): one second back is backwards, a move
// back within the same second is no move.
func TestCheck_C7_WholeSeconds(t *testing.T) {
	first := ready("web", 10)
	oneBack := next(first)
	getCond(t, oneBack, v1.LoadBalancerConditionServing).LastTransitionTime = at(9)
	wantFinding(t, check(first, oneBack), "C7", SeverityViolation, "status.conditions[1].lastTransitionTime")

	late := next(first)
	getCond(t, late, v1.LoadBalancerConditionServing).LastTransitionTime = metav1.NewTime(at(10).Add(700 * time.Millisecond))
	early := next(late)
	getCond(t, early, v1.LoadBalancerConditionServing).LastTransitionTime = metav1.NewTime(at(10).Add(200 * time.Millisecond))
	noFinding(t, check(late, early), "C7")
}

// On first provisioning a hostname fills the ingress as an ip does (L4).
func TestCheck_L4_HostnameBeforeServing(t *testing.T) {
	created := newLB("web")
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	early := next(provisioning)
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "web.example.com"}}
	wantFinding(t, check(created, provisioning, early), "L4", SeverityViolation, ingressField)
}

// On first provisioning, a Serving that is absent is not True either: a
// provider that writes Provisioning alone (L1) and fills the ingress breaks
// L4 too.
func TestCheck_L4_IngressWithoutServing(t *testing.T) {
	created := newLB("web")
	early := next(created)
	setProvisioning(early, 5)
	early.Status.Conditions = early.Status.Conditions[:1]
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	found := check(created, early)
	wantFinding(t, found, "L1", SeverityViolation, "status.conditions[0]")
	wantFinding(t, found, "L4", SeverityViolation, ingressField)
}

// L4's trace half judges a KEP-aware provider provisioning a LoadBalancer:
// not one that predates the KEP and writes no conditions (R3 says so), nor
// the ingress of a Service of another type (L9 judges its conditions).
func TestCheck_L4_OnlyAKEPAwareLoadBalancer(t *testing.T) {
	created := newLB("legacy")
	legacy := next(created)
	legacy.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	found := check(created, legacy)
	noFinding(t, found, "L4")
	wantFinding(t, found, "R3", SeverityNotice, conditionsField)

	clusterIP := newLB("cluster-ip")
	toClusterIP(clusterIP)
	setProvisioning(clusterIP, 5)
	filled := next(clusterIP)
	filled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	noFinding(t, check(clusterIP, filled), "L4")
}

// A status write that changes only the ingress, in any of its fields, is
// a status write: after a relevant spec change it owes the bump of L6.
func TestCheck_L6_EveryIngressFieldIsAStatusWrite(t *testing.T) {
	for name, edit := range map[string]func(*corev1.LoadBalancerIngress){
		"hostname":   func(in *corev1.LoadBalancerIngress) { in.Hostname = "web.example.com" },
		"ipMode":     func(in *corev1.LoadBalancerIngress) { in.IPMode = ptr.To(corev1.LoadBalancerIPModeProxy) },
		"port error": func(in *corev1.LoadBalancerIngress) { in.Ports[0].Error = ptr.To("CertificatePending") },
		"port":       func(in *corev1.LoadBalancerIngress) { in.Ports[0].Port = 8080 },
	} {
		t.Run(name, func(t *testing.T) {
			served := ready("web", 10)
			served.Status.LoadBalancer.Ingress[0].Ports = []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}
			changed := specChange(served)
			written := next(changed)
			edit(&written.Status.LoadBalancer.Ingress[0])
			wantFinding(t, check(served, changed, written), "L6", SeverityViolation, "status.conditions[0].lastTransitionTime")
		})
	}
}

// A bump in the very observation that shows the change acknowledges it:
// nothing is owed, at the next write or at the end.
func TestCheck_L6_AcknowledgedWithTheChangeOwesNothing(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	getCond(t, changed, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(11)
	noFinding(t, check(served, changed), "L6")
}

// A lastTransitionTime that moves backwards after a change is C7's
// violation; it is not also L6's, which is about a time still at its
// pre-change value.
func TestCheck_L6_BackwardsIsC7(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	back := next(changed)
	getCond(t, back, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(5)
	getCond(t, back, v1.LoadBalancerConditionServing).Message = "serving 2 ports"
	found := check(served, changed, back)
	wantFinding(t, found, "C7", SeverityViolation, "status.conditions[0].lastTransitionTime")
	noFinding(t, found, "L6")
}

// A lastTransitionTime moved backwards in the very observation that shows
// the change is C7's as well; it closes the obligation as a move does,
// and nothing is owed at the end.
func TestCheck_L6_BackwardsWithTheChangeIsC7(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	getCond(t, changed, v1.LoadBalancerConditionProvisioning).LastTransitionTime = at(5)
	found := check(served, changed)
	wantFinding(t, found, "C7", SeverityViolation, "status.conditions[0].lastTransitionTime")
	noFinding(t, found, "L6")
}

// L4's trace half judges the write that fills the ingress, once: later
// writes of a provisioning that keep the ingress, Serving still False, are
// no new fault; nor is a first write of the conditions beside an ingress a
// provider that predates them filled.
func TestCheck_L4_OnlyTheWriteThatFillsTheIngress(t *testing.T) {
	created := newLB("web")
	provisioning := next(created)
	setProvisioning(provisioning, 5)
	early := next(provisioning)
	early.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	later := next(early)
	getCond(t, later, v1.LoadBalancerConditionServing).Message = "health checks pending"
	wantFinding(t, check(created, provisioning, early, later), "L4", SeverityViolation, ingressField)

	legacy := next(created)
	legacy.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	upgraded := next(legacy)
	setProvisioning(upgraded, 5)
	noFinding(t, check(created, legacy, upgraded), "L4")
}

// Manifests carry no resourceVersion: L6's messages say so rather than
// name an empty one, at a write and at the end.
func TestCheck_L6_WithoutResourceVersionSaysUnset(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	written := next(changed)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	for _, svc := range []*v1.Service{served, changed, written} {
		svc.ResourceVersion = ""
	}
	for _, f := range []Finding{
		wantFinding(t, check(served, changed), "L6", SeverityWarning, conditionsField),
		wantFinding(t, check(served, changed, written), "L6", SeverityViolation, "status.conditions[0].lastTransitionTime"),
	} {
		if !strings.Contains(f.Message, "(resourceVersion unset)") {
			t.Errorf("L6 message %q does not say the resourceVersion is unset", f.Message)
		}
	}
}

// A resourceVersion is any string the input holds: L6's messages, at a
// write and at the end, quote its first KiB, as a finding quotes a reason,
// and the checker keeps no more of it while the change is owed.
func TestCheck_L6_LongResourceVersionIsCut(t *testing.T) {
	served := ready("web", 10)
	changed := specChange(served)
	changed.ResourceVersion = strings.Repeat("7", 64<<10)
	written := next(changed)
	getCond(t, written, v1.LoadBalancerConditionServing).Message = "serving"
	for _, f := range []Finding{
		wantFinding(t, check(served, changed), "L6", SeverityWarning, conditionsField),
		wantFinding(t, check(served, changed, written), "L6", SeverityViolation, "status.conditions[0].lastTransitionTime"),
	} {
		if len(f.Message) > 2*input.MaxTextBytes || !strings.Contains(f.Message, " more bytes)") {
			t.Errorf("L6 message of %d bytes: %.80s...; want the resourceVersion cut after %d", len(f.Message), f.Message, input.MaxTextBytes)
		}
	}
}

// Two changes before the provider answers: it owes the acknowledgement
// since the first one, and the warning at the end names that change.
func TestCheck_L6_OwedSinceTheFirstChange(t *testing.T) {
	served := ready("web", 10)
	ports := specChange(served)
	ip := next(ports)
	ip.Spec.LoadBalancerIP = "192.0.2.7"
	f := wantFinding(t, check(served, ports, ip), "L6", SeverityWarning, conditionsField)
	if want := "the change of spec.ports (resourceVersion " + ports.ResourceVersion + ")"; !strings.Contains(f.Message, want) {
		t.Errorf("L6 message %q does not say %q", f.Message, want)
	}
}

// R3 trusts Serving and Provisioning: either one is a provider's answer.
// Provisioning alone breaks L1, but it is not "no conditions".
func TestCheck_R3_ProvisioningAloneIsAnAnswer(t *testing.T) {
	created := newLB("web")
	alone := next(created)
	setProvisioning(alone, 5)
	alone.Status.Conditions = alone.Status.Conditions[:1]
	found := observeAll([]Option{RequireConditions(true)}, created, alone)
	wantFinding(t, found, "L1", SeverityViolation, "status.conditions[0]")
	noFinding(t, found, "R3")
}

// A verdict is reported whenever it changes: a Service converted to
// another type (no verdict) and back gets its verdict reported again,
// even the one it had before.
func TestCheck_T3_ReportedAgainAfterAConversion(t *testing.T) {
	served := ready("web", 10)
	clusterIP := next(served)
	toClusterIP(clusterIP)
	clusterIP.Status = v1.ServiceStatus{}
	back := next(clusterIP)
	back.Spec.Type = corev1.ServiceTypeLoadBalancer
	back.Spec.Ports[0].NodePort = 30080
	setReady(back, 20)
	if found := withRule(check(served, clusterIP, back), "T3"); len(found) != 2 {
		t.Errorf("want the Ready verdict reported twice, got:\n%s", dump(found))
	}
}

// A refusal's verdict quotes Serving's message, which a file may make any
// length: the verdict notice's message and its verdict quote the first KiB
// of the reason, marked as cut, once per change, and a message that
// changes past that KiB only is still a change of the verdict.
func TestCheck_T1_LongMessageIsCut(t *testing.T) {
	refused := newLB("web")
	setRefused(refused, 10)
	long := strings.Repeat("m", 64<<10)
	getCond(t, refused, v1.LoadBalancerConditionServing).Message = long + "1"
	again := next(refused)
	getCond(t, again, v1.LoadBalancerConditionServing).Message = long + "2"
	found := withRule(check(refused, again), "T1")
	if len(found) != 2 {
		t.Fatalf("want the verdict reported at each change of its reason, got:\n%.3000s", dump(found))
	}
	for _, f := range found {
		if len(f.Message) > 2*input.MaxTextBytes || len(f.Verdict.Reason) > 2*input.MaxTextBytes || !strings.HasSuffix(f.Verdict.Reason, " more bytes)") {
			t.Errorf("a verdict notice of %d bytes, its reason %d; want the reason cut after %d", len(f.Message), len(f.Verdict.Reason), input.MaxTextBytes)
		}
	}
}
