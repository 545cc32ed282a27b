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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// withStatus returns a Service whose status has the given conditions and,
// when withIngress, an ingress.
func withStatus(withIngress bool, conds ...metav1.Condition) *v1.Service {
	svc := lbService()
	svc.Status.Conditions = conds
	if withIngress {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	}
	return svc
}

// noAddress gives svc an ingress entry with ports but neither an ip nor a
// hostname: no address (L4).
func noAddress(svc *v1.Service) *v1.Service {
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
	return svc
}

// laterAddress gives svc an ingress whose first entry has no address and
// whose second has a hostname: an address all the same (L4).
func laterAddress(svc *v1.Service) *v1.Service {
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{
		{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}},
		{Hostname: "lb.example.com"},
	}
	return svc
}

var (
	pTrue    = cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning)
	pFalse   = cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete)
	sTrue    = cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	sProv    = cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning)
	sUnsupp  = cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported)
	sInfra   = cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure)
	dSA      = cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonSessionAffinityNotSupported)
	dMulti   = metav1.Condition{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue, Reason: "Multiple", Message: "PortsNotSupported,SessionAffinityNotSupported: x"}
	portsErr = metav1.Condition{Type: string(v1.LoadBalancerConditionPortsError), Status: metav1.ConditionTrue, Reason: "UDPNotSupported"}
)

func TestEvaluate(t *testing.T) {
	sa, ports, lbIP := v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureLoadBalancerIP
	for _, tc := range []struct {
		name    string
		svc     *v1.Service
		feature v1.LoadBalancerFeature
		result  Result
		rule    string
	}{
		{"T4 nil service", nil, "", ResultPending, "T4"},
		{"T4 nil service keeps the feature under test", nil, v1.LoadBalancerFeatureSessionAffinity, ResultPending, "T4"},
		{"T4 Unsupported on a Serving that is not False (T1 needs False)", withStatus(false, pFalse, cond(v1.LoadBalancerConditionServing, metav1.ConditionUnknown, v1.LoadBalancerReasonUnsupported)), "", ResultPending, "T4"},
		{"T4 no conditions (L8 is Wait's)", withStatus(true), "", ResultPending, "T4"},
		{"T4 provisioning", withStatus(false, pTrue, sProv), "", ResultPending, "T4"},
		{"T4 reprovisioning while serving", withStatus(true, pTrue, sTrue), "", ResultPending, "T4"},
		{"T4 Infrastructure while still provisioning", withStatus(false, pTrue, sInfra), "", ResultPending, "T4"},
		{"T4 Serving without ingress (L4)", withStatus(false, pFalse, sTrue), "", ResultPending, "T4"},
		{"T4 Serving with an ingress entry of no address (L4)", noAddress(withStatus(false, pFalse, sTrue)), "", ResultPending, "T4"},
		{"T4 Serving only", withStatus(true, sTrue), "", ResultPending, "T4"},
		{"T1 Unsupported", withStatus(false, pFalse, sUnsupp), "", ResultSkip, "T1"},
		{"T1 Unsupported whatever the feature", withStatus(false, pFalse, sUnsupp), lbIP, ResultSkip, "T1"},
		{"T1 degraded in the feature", withStatus(true, pFalse, sTrue, dSA), sa, ResultSkip, "T1"},
		{"T1 degraded in the feature while provisioning", withStatus(true, pTrue, sTrue, dSA), sa, ResultSkip, "T1"},
		{"T1 G2 Multiple names the feature", withStatus(true, pFalse, sTrue, dMulti), ports, ResultSkip, "T1"},
		{"T1 C4 PortsError names Ports", withStatus(true, pFalse, sTrue, portsErr), ports, ResultSkip, "T1"},
		{"T2 Infrastructure", withStatus(false, pFalse, sInfra), "", ResultFail, "T2"},
		{"T3 serving", withStatus(true, pFalse, sTrue), "", ResultReady, "T3"},
		{"T3 L4 an address in a later ingress entry", laterAddress(withStatus(false, pFalse, sTrue)), "", ResultReady, "T3"},
		{"T3 degraded in another feature", withStatus(true, pFalse, sTrue, dSA), lbIP, ResultReady, "T3"},
		{"T3 Multiple without the feature", withStatus(true, pFalse, sTrue, dMulti), lbIP, ResultReady, "T3"},
		{"T3 degraded but no feature under test", withStatus(true, pFalse, sTrue, dMulti), "", ResultReady, "T3"},
		{"T3 unknown feature cannot be degraded", withStatus(true, pFalse, sTrue, dMulti), "Teleport", ResultReady, "T3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Evaluate(tc.svc, tc.feature)
			if v.Result != tc.result || v.Rule != tc.rule || v.Feature != tc.feature || v.Reason == "" {
				t.Errorf("Evaluate = %+v, want %s by %s with a reason", v, tc.result, tc.rule)
			}
		})
	}
}

// A test suite asks "should I skip?" in one call.
func TestEvaluate_T1_ShouldSkipInOneCall(t *testing.T) {
	svc := withStatus(true, pFalse, sTrue, dMulti)
	if v := Evaluate(svc, v1.LoadBalancerFeatureSessionAffinity); v.Result != ResultSkip {
		t.Errorf("a session-affinity test on a load balancer degraded in it: %v, want Skip", v)
	}
	if v := Evaluate(svc, v1.LoadBalancerFeatureExternalTrafficPolicy); v.Result == ResultSkip {
		t.Errorf("an externalTrafficPolicy test: %v, want no skip", v)
	}
}

func TestResult_IsFinal(t *testing.T) {
	for r, want := range map[Result]bool{ResultReady: true, ResultSkip: true, ResultFail: true, ResultPending: false, "": false} {
		if r.IsFinal() != want {
			t.Errorf("%q.IsFinal() = %v, want %v", r, !want, want)
		}
	}
	if s := (Verdict{Result: ResultSkip, Rule: "T1", Reason: "why"}).String(); s != "Skip (T1): why" {
		t.Errorf("String = %q", s)
	}
}

// T2 is no skip: a provider that failed in its infrastructure fails the
// test, ShouldSkip does not hide it (T1, T5).
func TestShouldSkip_T2_FailIsNotASkip(t *testing.T) {
	svc := withStatus(false, pFalse, sInfra)
	if skip, why := ShouldSkip(svc, ""); skip || why == "" {
		t.Errorf("ShouldSkip on an infrastructure failure = %v, %q; want no skip, with the verdict's reason", skip, why)
	}
}

// T3: a Ready verdict on an ingress with only hostnames says so, with the
// hostname a client resolves first (DNS may lag); an ip anywhere in the
// ingress works at once, and the verdict names no hostname.
func TestEvaluate_T3_HostnameOnlyIngress(t *testing.T) {
	with := func(ingress ...corev1.LoadBalancerIngress) *v1.Service {
		svc := withStatus(false, pFalse, sTrue)
		svc.Status.LoadBalancer.Ingress = ingress
		return svc
	}
	for name, tc := range map[string]struct {
		svc      *v1.Service
		hostname string
	}{
		"a hostname":                   {with(corev1.LoadBalancerIngress{Hostname: "lb.example.com"}), "lb.example.com"},
		"an entry of no address first": {laterAddress(withStatus(false, pFalse, sTrue)), "lb.example.com"},
		"an ip":                        {with(corev1.LoadBalancerIngress{IP: "192.0.2.10"}), ""},
		"an ip and a hostname in one":  {with(corev1.LoadBalancerIngress{IP: "192.0.2.10", Hostname: "lb.example.com"}), ""},
		"a hostname, then an ip":       {with(corev1.LoadBalancerIngress{Hostname: "lb.example.com"}, corev1.LoadBalancerIngress{IP: "192.0.2.10"}), ""},
	} {
		v := Evaluate(tc.svc, "")
		if v.Result != ResultReady || v.Hostname != tc.hostname {
			t.Errorf("%s: Evaluate = %+v; want Ready with Hostname %q", name, v, tc.hostname)
		}
		if said := strings.Contains(v.String(), "hostname lb.example.com"); said != (tc.hostname != "") {
			t.Errorf("%s: %q; want it to name the hostname: %v", name, v, tc.hostname != "")
		}
	}
	if v := Evaluate(noAddress(withStatus(false, pFalse, sTrue)), ""); v.Hostname != "" {
		t.Errorf("a Pending verdict names hostname %q", v.Hostname)
	}
}
