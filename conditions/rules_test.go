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
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Tests named by the rules that had none of their own: each checks the
// rule's behaviour end to end through the public functions.

// refusalRules returns the rules of d's refusals.
func refusalRules(d Decision) []string {
	var rules []string
	for _, r := range d.Refusals {
		rules = append(rules, r.Rule)
	}
	return rules
}

// TestDecide_P2_RefusesWhatCannotBeServedAtAll: each of P2's four cases
// refuses, and a Service the provider can serve is provisioned.
func TestDecide_P2_RefusesWhatCannotBeServedAtAll(t *testing.T) {
	for name, tc := range map[string]struct {
		svc  func(*v1.Service)
		caps func(*Capabilities)
		rule string
	}{
		"(a) only IP families it cannot serve": {svc: func(*v1.Service) {}, caps: func(c *Capabilities) { c.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} }, rule: "P2"},
		"(b) only protocols it cannot serve": {svc: func(s *v1.Service) { s.Spec.Ports[0].Protocol = corev1.ProtocolSCTP },
			caps: func(c *Capabilities) { c.Protocols = []corev1.Protocol{corev1.ProtocolTCP} }, rule: "P2"},
		"(c) no node ports, but it needs them": {svc: func(s *v1.Service) { s.Spec.AllocateLoadBalancerNodePorts = ptr.To(false) },
			caps: func(c *Capabilities) { c.WithoutNodePorts = false }, rule: "P2"},
		"(d) a required feature it does not support": {svc: requires(v1.LoadBalancerFeatureSessionAffinity),
			caps: func(c *Capabilities) { c.SessionAffinity = false }, rule: "R1"},
	} {
		t.Run(name, func(t *testing.T) {
			caps := fullCapabilities()
			tc.caps(&caps)
			d := Decide(lbService(clientIP, tc.svc), caps)
			if d.Action != ActionRefuse || !slices.Contains(refusalRules(d), tc.rule) {
				t.Errorf("decision %+v, want a refusal under %s", d, tc.rule)
			}
			if d := Decide(lbService(clientIP, tc.svc), fullCapabilities()); d.Action != ActionProvision {
				t.Errorf("with every capability: %+v, want Provision", d)
			}
		})
	}
}

// TestDecide_P3_RefuseOrDegrade: session affinity, source ranges and a
// loadBalancerIP the provider cannot honor degrade by default, and refuse
// when the Service requires the feature.
func TestDecide_P3_RefuseOrDegrade(t *testing.T) {
	for _, tc := range []struct {
		feature v1.LoadBalancerFeature
		asks    func(*v1.Service)
		cannot  func(*Capabilities)
	}{
		{v1.LoadBalancerFeatureSessionAffinity, clientIP, func(c *Capabilities) { c.SessionAffinity = false }},
		{v1.LoadBalancerFeatureLoadBalancerSourceRanges, func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"192.0.2.0/24"} },
			func(c *Capabilities) { c.LoadBalancerSourceRanges = false }},
		{v1.LoadBalancerFeatureLoadBalancerIP, func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.1" }, func(c *Capabilities) { c.LoadBalancerIP = false }},
	} {
		t.Run(string(tc.feature), func(t *testing.T) {
			caps := fullCapabilities()
			tc.cannot(&caps)
			if d := Decide(lbService(tc.asks), caps); d.Action != ActionProvision || !slices.Equal(d.Degraded, []v1.LoadBalancerFeature{tc.feature}) {
				t.Errorf("asked for: %+v, want Provision degraded in %s", d, tc.feature)
			}
			if d := Decide(lbService(tc.asks, requires(tc.feature)), caps); d.Action != ActionRefuse || len(d.Degraded) != 0 {
				t.Errorf("required: %+v, want a refusal and no degradation", d)
			}
			// P3 lets the provider refuse instead, for each of the three.
			caps.RefuseUnsupported = []v1.LoadBalancerFeature{tc.feature}
			if d := Decide(lbService(tc.asks), caps); d.Action != ActionRefuse || !slices.Equal(refusalRules(d), []string{"P3"}) {
				t.Errorf("refused by choice: %+v, want a refusal under P3", d)
			}
			// A provider that can honor it neither degrades nor refuses.
			if d := Decide(lbService(tc.asks), fullCapabilities()); d.Action != ActionProvision || len(d.Degraded) != 0 {
				t.Errorf("supported: %+v, want Provision without degradation", d)
			}
		})
	}
}

// TestDecide_P4_Degrades: Local without source-IP preservation, dual-stack
// served single-stack and some ports unsupported degrade, naming the
// feature.
func TestDecide_P4_Degrades(t *testing.T) {
	for _, tc := range []struct {
		feature v1.LoadBalancerFeature
		asks    func(*v1.Service)
		cannot  func(*Capabilities)
	}{
		{v1.LoadBalancerFeatureExternalTrafficPolicy, func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal },
			func(c *Capabilities) { c.PreserveSourceIP = false }},
		{v1.LoadBalancerFeatureIPFamilies, dualStack, func(c *Capabilities) { c.DualStack = false }},
		{v1.LoadBalancerFeaturePorts, mixedProtocols, func(c *Capabilities) { c.Protocols = []corev1.Protocol{corev1.ProtocolTCP} }},
	} {
		t.Run(string(tc.feature), func(t *testing.T) {
			caps := fullCapabilities()
			tc.cannot(&caps)
			d := Decide(lbService(tc.asks), caps)
			if d.Action != ActionProvision || !slices.Contains(d.Degraded, tc.feature) {
				t.Errorf("%+v, want Provision degraded in %s", d, tc.feature)
			}
			if d := Decide(lbService(tc.asks), fullCapabilities()); d.Action != ActionProvision || len(d.Degraded) != 0 {
				t.Errorf("supported: %+v, want Provision without degradation", d)
			}
		})
	}
}

// TestDecide_R2_UnknownRequiredFeatureRefused: a required feature this
// version does not know, or the provider does not list, is refused, and
// so is an unknown value in the annotation.
func TestDecide_R2_UnknownRequiredFeatureRefused(t *testing.T) {
	older := fullCapabilities()
	older.KnownFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	for name, tc := range map[string]struct {
		svc  *v1.Service
		caps Capabilities
	}{
		"newer than this version":   {lbService(requires("Teleport")), fullCapabilities()},
		"newer than the provider":   {lbService(requires(v1.LoadBalancerFeatureLoadBalancerSourceRanges)), older},
		"unknown in the annotation": {lbService(func(s *v1.Service) { s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport"} }), fullCapabilities()},
	} {
		t.Run(name, func(t *testing.T) {
			d := Decide(tc.svc, tc.caps)
			if d.Action != ActionRefuse || !slices.Contains(refusalRules(d), "R2") {
				t.Errorf("%+v, want a refusal under R2", d)
			}
		})
	}
	if d := Decide(lbService(requires(v1.LoadBalancerFeaturePorts)), older); d.Action != ActionProvision {
		t.Errorf("a feature the provider knows and supports: %+v, want Provision", d)
	}
}

// TestDecide_R2_ProviderNewerThanThisVersion: R2 refuses what the
// provider does not know. A provider built for a newer API that lists a
// feature this version does not know, and implements it for the Service
// (KnownFeatures), is not refused for it, whether the Service requires it
// in the spec field or in the annotation.
func TestDecide_R2_ProviderNewerThanThisVersion(t *testing.T) {
	newer := fullCapabilities()
	newer.KnownFeatures = append(newer.KnownFeatures, "Teleport")
	for name, svc := range map[string]*v1.Service{
		"spec field": lbService(requires("Teleport", v1.LoadBalancerFeaturePorts)),
		"annotation": lbService(func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport,Ports"}
		}),
	} {
		if d := Decide(svc, newer); d.Action != ActionProvision || len(d.Refusals) != 0 || len(d.Degraded) != 0 {
			t.Errorf("%s: %+v, want Provision", name, d)
		}
	}
	// A served Service that comes to require it keeps being served.
	served, _ := reconciled(t, coreLB(), newer, nil, ready)
	updated := served.DeepCopy()
	updated.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport"}
	got, _ := reconciled(t, updated, newer, served, ready)
	if c, want := combination(got.Status.Conditions), "P=F/Complete S=T/Serving D=-"; c != want {
		t.Errorf("after the Service came to require it: %s, want %s", c, want)
	}
}

// TestTransitions_L2_ProvisioningEndsInSuccessOrFailure: from
// Provisioning=True the provider ends with Provisioning=False and Serving
// True on success, False on failure.
func TestTransitions_L2_ProvisioningEndsInSuccessOrFailure(t *testing.T) {
	svc := lbService()
	provisioning := then(t, svc)(Seen(svc, Decide(svc, fullCapabilities())))
	if got, want := combination(provisioning.Status.Conditions), "P=T/Provisioning S=F/Provisioning D=-"; got != want {
		t.Fatalf("after Seen: %s, want %s", got, want)
	}
	if got, want := combination(then(t, provisioning)(Succeeded(provisioning, ingress, nil)).Status.Conditions), "P=F/Complete S=T/Serving D=-"; got != want {
		t.Errorf("success: %s, want %s", got, want)
	}
	if got, want := combination(then(t, provisioning)(Failed(provisioning, v1.LoadBalancerReasonInfrastructure, "quota")).Status.Conditions), "P=F/Complete S=F/Infrastructure D=-"; got != want {
		t.Errorf("failure: %s, want %s", got, want)
	}
}

// TestWait_T5_OneSkipAtTheFirstRefusal: Wait ends with Skip on the very
// write that refuses the Service, returning that version, without waiting
// for a deadline; a later write cannot produce a second skip.
func TestWait_T5_OneSkipAtTheFirstRefusal(t *testing.T) {
	refused := lbService(clientIP, requires(v1.LoadBalancerFeatureSessionAffinity))
	cs := fake.NewClientset(v1.ToCore(refused))
	waitWatch := watching(t, cs)
	done, observed := startWait(t, context.Background(), cs, v1.LoadBalancerFeatureSessionAffinity)
	waitWatch(1)
	caps := fullCapabilities()
	caps.SessionAffinity = false
	written := provide(t, cs)(Seen(refused, Decide(refused, caps)))
	r := result(t, done)
	if r.err != nil || r.verdict.Result != ResultSkip || r.verdict.Rule != "T1" {
		t.Fatalf("Wait = %v, %v; want Skip by T1", r.verdict, r.err)
	}
	if r.svc == nil || r.svc.ResourceVersion != written.ResourceVersion {
		t.Errorf("Wait returned %v, want the refusing write (resourceVersion %s)", r.svc, written.ResourceVersion)
	}
	skips := 0
	for len(observed) > 0 {
		if v := <-observed; v.Result == ResultSkip {
			skips++
		}
	}
	if skips != 1 {
		t.Errorf("Wait observed %d skips, want exactly 1", skips)
	}
}
