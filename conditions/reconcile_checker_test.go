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

package conditions_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/validation"
)

// TestReconcile_ConformsToChecker drives a provider built on Reconcile
// through random lives of one Service (user spec changes, load balancer
// states, clock steps, restarts) and gives every state a watcher could see
// to the conformance checker: no finding may be a violation, and every
// status write passes the apiserver's validation with the gate on and the
// cross-condition rules (C1, C3, C5, L4, L5, P5, P6). A reconcile repeated
// with the same inputs writes nothing (no hot loop on its own writes).
func TestReconcile_ConformsToChecker(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := newLife(t)
		t.Repeat(map[string]func(*rapid.T){
			"user changes spec":   p.userChangesSpec,
			"clock steps":         p.clockSteps,
			"provider reconciles": p.reconcile,
			"provider restarts":   func(*rapid.T) { p.acted = nil },
		})
		for _, f := range p.checker.Finish() {
			if f.Severity == conformance.SeverityViolation {
				t.Fatalf("at the end: %+v", f)
			}
		}
	})
}

const (
	lifeClass      = "example.com/lb"
	lifeOtherClass = "other.example/lb"
	lifeVendor     = "vendor.example/sku"
)

var lifeGateOn = func() validation.Options {
	g := features.NewFeatureGate()
	if err := g.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		panic(err)
	}
	return validation.Options{FeatureGate: g, CrossConditionRules: true}
}()

type life struct {
	clk     *testingclock.FakePassiveClock
	caps    conditions.Capabilities
	checker *conformance.Checker
	svc     *corev1.Service // as stored
	acted   *corev1.Service
	ingress []corev1.LoadBalancerIngress // the load balancer's, once ready
	rv      int
	history []string
}

func newLife(t *rapid.T) *life {
	all := conditions.Capabilities{
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}, DualStack: true,
		Protocols: []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}, MixedProtocols: true,
		WithoutNodePorts: true, SessionAffinity: true, LoadBalancerSourceRanges: true, LoadBalancerIP: true, PreserveSourceIP: true,
		Classes: []string{lifeClass}, DefaultClass: true, KnownFeatures: v1.LoadBalancerFeatures(),
	}
	if rapid.Bool().Draw(t, "single stack") {
		all.DualStack = false
	}
	if rapid.Bool().Draw(t, "ipv4 only") {
		all.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	all.WithoutNodePorts = rapid.Bool().Draw(t, "without node ports")
	if rapid.Bool().Draw(t, "tcp only") {
		all.Protocols = []corev1.Protocol{corev1.ProtocolTCP}
	}
	if rapid.Bool().Draw(t, "one protocol") {
		all.MixedProtocols = false
	}
	all.SessionAffinity = rapid.Bool().Draw(t, "affinity")
	all.LoadBalancerIP = rapid.Bool().Draw(t, "lb ip")
	all.PreserveSourceIP = rapid.Bool().Draw(t, "source ip")
	all.LoadBalancerSourceRanges = rapid.Bool().Draw(t, "source ranges")
	all.DefaultClass = rapid.Bool().Draw(t, "default class")
	if rapid.Bool().Draw(t, "refuse P3") {
		all.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	}
	clk := testingclock.NewFakePassiveClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(rapid.Int64Range(0, 999).Draw(t, "ms")) * time.Millisecond))
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1", Generation: 1}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}
	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	p := &life{clk: clk, caps: all, checker: conformance.NewChecker(conformance.Classes{lifeClass}, conformance.RelevantAnnotations{lifeVendor}), svc: svc}
	p.store(t, "created")
	return p
}

// store stores the Service as the apiserver does, through JSON, with a
// new resourceVersion, and shows it to the watcher.
func (p *life) store(t *rapid.T, what string) {
	p.rv++
	p.svc.ResourceVersion = strconv.Itoa(p.rv)
	p.history = append(p.history, what)
	data, err := json.Marshal(p.svc)
	if err != nil {
		t.Fatal(err)
	}
	stored, obs := &corev1.Service{}, &v1.Service{}
	if err := json.Unmarshal(data, stored); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, obs); err != nil {
		t.Fatal(err)
	}
	p.svc = stored
	for _, f := range p.checker.Observe(obs) {
		if f.Severity == conformance.SeverityViolation {
			t.Fatalf("after %v: %+v\nstatus %+v", p.history, f, p.svc.Status)
		}
	}
}

func (p *life) userChangesSpec(t *rapid.T) {
	s := &p.svc.Spec
	before := p.svc.DeepCopy()
	switch rapid.IntRange(0, 13).Draw(t, "field") {
	case 12:
		slices.Reverse(s.Ports)
	case 13:
		s.TrafficDistribution = rapid.SampledFrom([]*string{nil, ptr.To("PreferClose")}).Draw(t, "distribution")
	case 10:
		s.AllocateLoadBalancerNodePorts = rapid.SampledFrom([]*bool{nil, ptr.To(false)}).Draw(t, "node ports")
	case 11:
		s.IPFamilies, s.IPFamilyPolicy = []corev1.IPFamily{corev1.IPv6Protocol}, nil
	case 0:
		s.Ports = append(s.Ports, corev1.ServicePort{Port: int32(81 + len(s.Ports)), Protocol: rapid.SampledFrom([]corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}).Draw(t, "protocol"), NodePort: int32(30081 + len(s.Ports))})
	case 1:
		s.Ports = s.Ports[:1]
	case 2:
		if rapid.Bool().Draw(t, "dual") {
			s.IPFamilies, s.IPFamilyPolicy = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}, ptr.To(corev1.IPFamilyPolicyPreferDualStack)
		} else {
			s.IPFamilies, s.IPFamilyPolicy = []corev1.IPFamily{corev1.IPv4Protocol}, ptr.To(corev1.IPFamilyPolicySingleStack)
		}
	case 3:
		s.SessionAffinity = rapid.SampledFrom([]corev1.ServiceAffinity{corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP}).Draw(t, "affinity")
	case 4:
		s.ExternalTrafficPolicy = rapid.SampledFrom([]corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}).Draw(t, "policy")
	case 5:
		s.LoadBalancerIP = rapid.SampledFrom([]string{"", "192.0.2.7"}).Draw(t, "lb ip")
	case 6:
		s.LoadBalancerSourceRanges = rapid.SampledFrom([][]string{nil, {"10.0.0.0/8"}}).Draw(t, "ranges")
	case 7:
		values := append([]v1.LoadBalancerFeature{"Teleport"}, v1.LoadBalancerFeatures()...)
		req := rapid.SliceOfNDistinct(rapid.SampledFrom(values), 0, 2, rapid.ID).Draw(t, "required")
		if p.svc.Annotations == nil {
			p.svc.Annotations = map[string]string{}
		}
		if len(req) == 0 {
			delete(p.svc.Annotations, v1.RequiredFeaturesAnnotation)
		} else {
			p.svc.Annotations[v1.RequiredFeaturesAnnotation] = conditions.FormatRequiredFeaturesAnnotation(req)
		}
	case 8:
		if p.svc.Annotations == nil {
			p.svc.Annotations = map[string]string{}
		}
		p.svc.Annotations[lifeVendor] = rapid.SampledFrom([]string{"basic", "premium"}).Draw(t, "sku")
	case 9:
		if s.Type == corev1.ServiceTypeLoadBalancer {
			s.Type, s.LoadBalancerClass = corev1.ServiceTypeClusterIP, nil
			// The apiserver clears the ingress with the type.
			p.svc.Status.LoadBalancer.Ingress = nil
		} else {
			s.Type = corev1.ServiceTypeLoadBalancer
			s.LoadBalancerClass = rapid.SampledFrom([]*string{nil, ptr.To(lifeClass), ptr.To(lifeOtherClass)}).Draw(t, "class")
		}
	}
	if apiequality.Semantic.DeepEqual(before, p.svc) {
		return
	}
	p.store(t, "user changed spec")
}

func (p *life) clockSteps(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{0, 300 * time.Millisecond, time.Second, time.Minute, -time.Second, -time.Minute}).Draw(t, "step")
	p.clk.SetTime(p.clk.Now().Add(d))
}

func (p *life) reconcile(t *rapid.T) {
	d := conditions.Decide(p.svc, p.caps)
	lb := conditions.LoadBalancer{State: rapid.SampledFrom([]conditions.LoadBalancerState{
		conditions.LoadBalancerAbsent, conditions.LoadBalancerProvisioning, conditions.LoadBalancerReady, conditions.LoadBalancerFailed,
	}).Draw(t, "lb")}
	switch lb.State {
	case conditions.LoadBalancerReady:
		if p.ingress == nil || rapid.IntRange(0, 3).Draw(t, "new ingress") == 0 {
			p.ingress = []corev1.LoadBalancerIngress{rapid.SampledFrom([]corev1.LoadBalancerIngress{
				{IP: "192.0.2.10"}, {IP: "192.0.2.11", IPMode: ptr.To(corev1.LoadBalancerIPModeProxy)}, {Hostname: "lb.example"},
				{IP: "192.0.2.12", Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP, Error: ptr.To("Pending")}}},
			}).Draw(t, "ingress")}
		}
		lb.Ingress = p.ingress
		if rapid.Bool().Draw(t, "fewer degradations") && len(d.Degraded) > 0 {
			lb.Degraded = d.Degraded[1:]
		}
	case conditions.LoadBalancerProvisioning:
		lb.KeepServing = conditions.ServingDuringProvisioning(rapid.Bool().Draw(t, "keep serving"))
	case conditions.LoadBalancerFailed:
		lb.Message = "quota exceeded"
	}
	opts := []conditions.TransitionOption{conditions.WithClock(p.clk), conditions.WithRelevantAnnotations(lifeVendor)}
	r, err := conditions.Reconcile(p.svc, p.caps, p.acted, lb, opts...)
	if err != nil {
		t.Fatalf("Reconcile(%+v) after %v: %v", lb, p.history, err)
	}
	if r.Changed != (r.Apply != nil) {
		t.Fatalf("Changed %v, Apply %v", r.Changed, r.Apply != nil)
	}
	p.acted = p.svc.DeepCopy()
	if !r.Changed {
		return
	}
	prev := p.svc.DeepCopy()
	p.svc.Status = *r.Service.Status.DeepCopy()
	if errs := validation.ValidateServiceStatusUpdate(v1.FromCore(p.svc), v1.FromCore(prev), lifeGateOn); len(errs) > 0 {
		t.Fatalf("after %v, Reconcile(%+v) wrote a status the apiserver refuses: %v\n%+v", p.history, lb, errs, p.svc.Status)
	}
	p.store(t, fmt.Sprintf("reconciled %s/%s", d.Action, lb.State))
	// The same inputs again: nothing to write.
	again, err := conditions.Reconcile(p.svc, p.caps, p.acted, lb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed {
		t.Fatalf("after %v, the same reconcile wrote again:\n%+v\n%+v", p.history, p.svc.Status, again.Service.Status)
	}
	p.acted = p.svc.DeepCopy()
}

// TestTransitions_ConformsToChecker is TestReconcile_ConformsToChecker
// for a provider that tracks events itself with the per-event
// transitions.
func TestTransitions_ConformsToChecker(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := newLife(t)
		opts := []conditions.TransitionOption{conditions.WithClock(p.clk), conditions.WithRelevantAnnotations(lifeVendor)}
		write := func(t *rapid.T, what string, tr conditions.Transition[*corev1.Service], err error) {
			if err != nil {
				t.Fatalf("%s after %v: %v", what, p.history, err)
			}
			if !tr.Changed {
				return
			}
			prev := p.svc.DeepCopy()
			p.svc.Status = *tr.Service.Status.DeepCopy()
			if errs := validation.ValidateServiceStatusUpdate(v1.FromCore(p.svc), v1.FromCore(prev), lifeGateOn); len(errs) > 0 {
				t.Fatalf("after %v, %s wrote a status the apiserver refuses: %v\n%+v", p.history, what, errs, p.svc.Status)
			}
			p.store(t, what)
		}
		// observe is the start of each event: the spec change since the
		// provider last looked, and a cleanup of what is no longer its.
		observe := func(t *rapid.T) conditions.Decision {
			d := conditions.Decide(p.svc, p.caps)
			switch {
			case d.Action == conditions.ActionIgnore:
				if conditions.HasKEPConditions(p.svc.Status.Conditions) {
					tr, err := conditions.NotLoadBalancer(p.svc, opts...)
					write(t, "NotLoadBalancer", tr, err)
				}
			case p.acted != nil || conditions.HasKEPConditions(p.svc.Status.Conditions):
				tr, err := conditions.SpecUpdated(p.acted, p.svc, opts...)
				write(t, "SpecUpdated", tr, err)
			}
			p.acted = p.svc.DeepCopy()
			return d
		}
		t.Repeat(map[string]func(*rapid.T){
			"user changes spec": p.userChangesSpec,
			"clock steps":       p.clockSteps,
			"provider restarts": func(*rapid.T) { p.acted = nil },
			"seen": func(t *rapid.T) {
				d := observe(t)
				if d.Action == conditions.ActionIgnore || conditions.Acknowledged(p.svc.Status.Conditions) {
					return
				}
				tr, err := conditions.Seen(p.svc, d, opts...)
				write(t, "Seen", tr, err)
			},
			"started": func(t *rapid.T) {
				d := observe(t)
				if d.Action != conditions.ActionProvision || !conditions.Acknowledged(p.svc.Status.Conditions) {
					return
				}
				tr, err := conditions.ProvisioningStarted(p.svc, conditions.ServingDuringProvisioning(rapid.Bool().Draw(t, "keep")), opts...)
				write(t, "ProvisioningStarted", tr, err)
			},
			"succeeded": func(t *rapid.T) {
				d := observe(t)
				if d.Action != conditions.ActionProvision || !conditions.Acknowledged(p.svc.Status.Conditions) {
					return
				}
				ing := []corev1.LoadBalancerIngress{{IP: rapid.SampledFrom([]string{"192.0.2.10", "192.0.2.11"}).Draw(t, "ip")}}
				tr, err := conditions.Succeeded(p.svc, ing, d.Degraded, opts...)
				write(t, "Succeeded", tr, err)
			},
			"failed": func(t *rapid.T) {
				d := observe(t)
				if d.Action == conditions.ActionIgnore || !conditions.Acknowledged(p.svc.Status.Conditions) {
					return
				}
				reason, msg := v1.LoadBalancerReasonInfrastructure, "quota"
				if d.Action == conditions.ActionRefuse {
					reason, msg = v1.LoadBalancerReasonUnsupported, d.Message()
				}
				tr, err := conditions.Failed(p.svc, reason, msg, opts...)
				write(t, "Failed", tr, err)
			},
		})
		for _, f := range p.checker.Finish() {
			if f.Severity == conformance.SeverityViolation {
				t.Fatalf("at the end: %+v", f)
			}
		}
	})
}
