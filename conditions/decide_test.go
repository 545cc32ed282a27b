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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// fullCapabilities is a provider that can do everything this version knows.
func fullCapabilities() Capabilities {
	return Capabilities{
		IPFamilies:               []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol},
		DualStack:                true,
		Protocols:                []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP},
		MixedProtocols:           true,
		WithoutNodePorts:         true,
		SessionAffinity:          true,
		LoadBalancerSourceRanges: true,
		LoadBalancerIP:           true,
		PreserveSourceIP:         true,
		DefaultClass:             true,
		KnownFeatures:            v1.LoadBalancerFeatures(),
	}
}

func dualStack(s *v1.Service) {
	s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
}

func mixedProtocols(s *v1.Service) {
	s.Spec.Ports = []corev1.ServicePort{{Port: 53, Protocol: corev1.ProtocolTCP}, {Port: 53, Protocol: corev1.ProtocolUDP}}
}

func clientIP(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }

func requires(fs ...v1.LoadBalancerFeature) func(*v1.Service) {
	return func(s *v1.Service) { s.Spec.RequiredLoadBalancerFeatures = fs }
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name     string
		svc      []func(*v1.Service)
		caps     func(*Capabilities)
		action   Action
		rules    []string // of the refusals, in order
		degraded []v1.LoadBalancerFeature
	}{
		{name: "everything supported", action: ActionProvision},
		{name: "P1 not a LoadBalancer", svc: []func(*v1.Service){func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP }}, action: ActionIgnore},
		{name: "P1 default class not handled", caps: func(c *Capabilities) { c.DefaultClass = false; c.Classes = []string{"a/b"} }, action: ActionIgnore},
		{name: "P1 other class", svc: []func(*v1.Service){func(s *v1.Service) { s.Spec.LoadBalancerClass = ptr.To("other/lb") }}, action: ActionIgnore},
		{name: "P1 own class handled", svc: []func(*v1.Service){func(s *v1.Service) { s.Spec.LoadBalancerClass = ptr.To("a/b") }},
			caps: func(c *Capabilities) { c.DefaultClass = false; c.Classes = []string{"a/b"} }, action: ActionProvision},
		{name: "P1 zero capabilities ignore everything", caps: func(c *Capabilities) { *c = Capabilities{} }, action: ActionIgnore},
		{name: "P2a no servable IP family", caps: func(c *Capabilities) { c.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} },
			action: ActionRefuse, rules: []string{"P2"}},
		{name: "P2b no servable protocol", svc: []func(*v1.Service){func(s *v1.Service) { s.Spec.Ports[0].Protocol = corev1.ProtocolSCTP }},
			caps: func(c *Capabilities) { c.Protocols = []corev1.Protocol{corev1.ProtocolTCP} }, action: ActionRefuse, rules: []string{"P2"}},
		{name: "P2c needs node ports", svc: []func(*v1.Service){func(s *v1.Service) { s.Spec.AllocateLoadBalancerNodePorts = ptr.To(false) }},
			caps: func(c *Capabilities) { c.WithoutNodePorts = false }, action: ActionRefuse, rules: []string{"P2"}},
		{name: "P2 all reasons at once", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Spec.AllocateLoadBalancerNodePorts = ptr.To(false)
			s.Spec.Ports[0].Protocol = corev1.ProtocolSCTP
		}}, caps: func(c *Capabilities) {
			c.WithoutNodePorts = false
			c.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
			c.Protocols = []corev1.Protocol{corev1.ProtocolTCP}
		}, action: ActionRefuse, rules: []string{"P2", "P2", "P2"}},
		{name: "P3 session affinity degraded", svc: []func(*v1.Service){clientIP},
			caps: func(c *Capabilities) { c.SessionAffinity = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}},
		{name: "P3 session affinity refused by choice", svc: []func(*v1.Service){clientIP},
			caps: func(c *Capabilities) {
				c.SessionAffinity = false
				c.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
			}, action: ActionRefuse, rules: []string{"P3"}},
		{name: "P3 source ranges and loadBalancerIP degraded", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Spec.LoadBalancerIP = "192.0.2.7"
			s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"}
		}}, caps: func(c *Capabilities) { c.LoadBalancerIP = false; c.LoadBalancerSourceRanges = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureLoadBalancerIP, v1.LoadBalancerFeatureLoadBalancerSourceRanges}},
		{name: "P3 source ranges annotation counts", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "10.0.0.0/8"}
		}}, caps: func(c *Capabilities) { c.LoadBalancerSourceRanges = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureLoadBalancerSourceRanges}},
		{name: "P4 refusal choice ignored for a P4 feature", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}}, caps: func(c *Capabilities) {
			c.PreserveSourceIP = false
			c.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureExternalTrafficPolicy}
		}, action: ActionProvision, degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureExternalTrafficPolicy}},
		{name: "P4 dual-stack served single-stack", svc: []func(*v1.Service){dualStack},
			caps: func(c *Capabilities) { c.DualStack = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies}},
		{name: "P4 dual-stack with one family supported", svc: []func(*v1.Service){dualStack},
			caps: func(c *Capabilities) { c.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies}},
		{name: "P4 dual-stack before defaulting", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Spec.IPFamilies = nil
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		}}, caps: func(c *Capabilities) { c.DualStack = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies}},
		{name: "P4 some protocols unsupported", svc: []func(*v1.Service){mixedProtocols},
			caps: func(c *Capabilities) { c.Protocols = []corev1.Protocol{corev1.ProtocolUDP} }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}},
		{name: "P4 mixed protocols unsupported", svc: []func(*v1.Service){mixedProtocols},
			caps: func(c *Capabilities) { c.MixedProtocols = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}},
		// Invalid, but possible in an object read without validation: one
		// family, which P5 does not let a provider call degraded.
		{name: "P5 a family listed twice is one family", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv4Protocol}
		}}, caps: func(c *Capabilities) { c.DualStack = false }, action: ActionProvision},
		{name: "P5 nothing asked, nothing degraded", caps: func(c *Capabilities) {
			*c = Capabilities{DefaultClass: true, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Protocols: []corev1.Protocol{corev1.ProtocolTCP}}
		}, action: ActionProvision},
		{name: "R1 required feature unsupported", svc: []func(*v1.Service){clientIP, requires(v1.LoadBalancerFeatureSessionAffinity)},
			caps: func(c *Capabilities) { c.SessionAffinity = false }, action: ActionRefuse, rules: []string{"R1"}},
		{name: "R1 required dual-stack served single-stack", svc: []func(*v1.Service){dualStack, requires(v1.LoadBalancerFeatureIPFamilies)},
			caps: func(c *Capabilities) { c.DualStack = false }, action: ActionRefuse, rules: []string{"R1"}},
		{name: "R1 required only, other degraded is fine", svc: []func(*v1.Service){clientIP, mixedProtocols, requires(v1.LoadBalancerFeaturePorts)},
			caps: func(c *Capabilities) { c.SessionAffinity = false }, action: ActionProvision,
			degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}},
		// Required and unsupported is R1's refusal; the P3 choice to refuse
		// the feature does not say it a second time.
		{name: "R1 required and refused by choice, said once", svc: []func(*v1.Service){clientIP, requires(v1.LoadBalancerFeatureSessionAffinity)},
			caps: func(c *Capabilities) {
				c.SessionAffinity = false
				c.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
			}, action: ActionRefuse, rules: []string{"R1"}},
		{name: "R1 required through the annotation", svc: []func(*v1.Service){clientIP, func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity"}
		}}, caps: func(c *Capabilities) { c.SessionAffinity = false }, action: ActionRefuse, rules: []string{"R1"}},
		{name: "R1 required but not asked for is satisfied", svc: []func(*v1.Service){requires(v1.LoadBalancerFeatureSessionAffinity)},
			caps: func(c *Capabilities) { c.SessionAffinity = false }, action: ActionProvision},
		{name: "R2 unknown required feature", svc: []func(*v1.Service){requires("Teleport")}, action: ActionRefuse, rules: []string{"R2"}},
		{name: "R2 feature the provider does not know", svc: []func(*v1.Service){requires(v1.LoadBalancerFeatureLoadBalancerSourceRanges)},
			caps: func(c *Capabilities) { c.KnownFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts} }, action: ActionRefuse, rules: []string{"R2"}},
		{name: "R2 invalid annotation refuses", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports,,Ports"}
		}}, action: ActionRefuse, rules: []string{"R2"}},
		{name: "R2 unknown annotation value", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports,Teleport"}
		}}, action: ActionRefuse, rules: []string{"R2"}},
		{name: "R2 unknown annotation value in a malformed list", svc: []func(*v1.Service){func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Teleport,Ports,Ports"}
		}}, action: ActionRefuse, rules: []string{"R2", "R2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := lbService(tc.svc...)
			caps := fullCapabilities()
			if tc.caps != nil {
				tc.caps(&caps)
			}
			d := Decide(svc, caps)
			if d.Action != tc.action {
				t.Fatalf("action = %s, want %s (decision %+v)", d.Action, tc.action, d)
			}
			var rules []string
			for _, r := range d.Refusals {
				rules = append(rules, r.Rule)
				if r.Message == "" {
					t.Errorf("refusal %+v has no message", r)
				}
			}
			if !slices.Equal(rules, tc.rules) {
				t.Errorf("refusal rules = %v, want %v (%+v)", rules, tc.rules, d.Refusals)
			}
			if !slices.Equal(d.Degraded, tc.degraded) {
				t.Errorf("degraded = %v, want %v", d.Degraded, tc.degraded)
			}
			if d.Action != ActionIgnore && (d.Action == ActionRefuse) != (d.Message() != "") {
				t.Errorf("message %q for action %s", d.Message(), d.Action)
			}
			if d.Action == ActionIgnore && (d.Ignored == "" || d.Detail == "") {
				t.Error("ignored without a reason")
			}
		})
	}
}

func TestDecide_NilService(t *testing.T) {
	if d := Decide[*v1.Service](nil, fullCapabilities()); d.Action != ActionIgnore {
		t.Errorf("Decide(nil) = %+v, want Ignore", d)
	}
}

func TestDecision_MessageNamesEveryRefusal(t *testing.T) {
	svc := lbService(clientIP, requires(v1.LoadBalancerFeatureSessionAffinity, "Teleport"))
	caps := fullCapabilities()
	caps.SessionAffinity = false
	d := Decide(svc, caps)
	msg := d.Message()
	if !strings.Contains(msg, "SessionAffinity") || !strings.Contains(msg, "Teleport") {
		t.Errorf("message %q does not name both refused features", msg)
	}
}

func TestAsksFor_P5(t *testing.T) {
	for _, tc := range []struct {
		feature v1.LoadBalancerFeature
		no, yes func(*v1.Service)
	}{
		{v1.LoadBalancerFeatureIPFamilies, func(*v1.Service) {}, dualStack},
		{v1.LoadBalancerFeaturePorts, func(*v1.Service) {}, mixedProtocols},
		{v1.LoadBalancerFeatureSessionAffinity, func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityNone }, clientIP},
		{v1.LoadBalancerFeatureLoadBalancerIP, func(*v1.Service) {}, func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.1" }},
		{v1.LoadBalancerFeatureExternalTrafficPolicy,
			func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster },
			func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal }},
		{v1.LoadBalancerFeatureLoadBalancerSourceRanges, func(*v1.Service) {}, func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }},
	} {
		if AsksFor(lbService(tc.no), tc.feature) {
			t.Errorf("%s: AsksFor true for a Service that does not ask", tc.feature)
		}
		if !AsksFor(lbService(tc.yes), tc.feature) {
			t.Errorf("%s: AsksFor false for a Service that asks", tc.feature)
		}
	}
	if AsksFor[*v1.Service](nil, v1.LoadBalancerFeaturePorts) || AsksFor(lbService(dualStack), "Teleport") {
		t.Error("nil Service or unknown feature must not ask")
	}
	if AsksFor(lbService(func(s *v1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv4Protocol} }), v1.LoadBalancerFeatureIPFamilies) {
		t.Error("one family listed twice is not two families")
	}
}
