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
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// This file holds the provider state machine that TestProvider_StateMachine
// runs under rapid. stateMachine is the property; a fuzz target in this
// package can reuse it with rapid.MakeFuzz(stateMachine).
//
// The machine holds one Service as the apiserver would: the user writes its
// spec, a well-behaved provider writes its status through the transitions
// of this package, a fake clock moves (also backwards), and a watcher takes
// snapshots through JSON, as a client would see them. A small model of the
// L3 combination, the degradations and the ingress says what each provider
// event must produce. After every action the invariants of sections 2, 3
// and 5 of the specification are checked on the status, and every write
// and every pair of observations is checked as a step of a trace.

const (
	handledClass   = "example.com/lb"
	unhandledClass = "other.example/lb"
	vendorSKU      = "vendor.example/sku"
	foreignType    = "example.com/Ready"
)

// phase is the model's L3 combination (plus "no conditions").
type phase string

const (
	phaseNone           phase = "none"           // no KEP conditions
	phaseRefused        phase = "refused"        // P=F, S=F/Unsupported
	phaseFailed         phase = "failed"         // P=F, S=F/Infrastructure
	phaseProvisioning   phase = "provisioning"   // P=T, S=F/Provisioning
	phaseReprovisioning phase = "reprovisioning" // P=T, S=T
	phaseServing        phase = "serving"        // P=F, S=T
)

// expected returns the Provisioning status, Serving status and Serving
// reason of a phase; ok is false for phaseNone.
func (p phase) expected() (prov, serving metav1.ConditionStatus, reason v1.LoadBalancerConditionReason, ok bool) {
	switch p {
	case phaseRefused:
		return metav1.ConditionFalse, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported, true
	case phaseFailed:
		return metav1.ConditionFalse, metav1.ConditionFalse, v1.LoadBalancerReasonInfrastructure, true
	case phaseProvisioning:
		return metav1.ConditionTrue, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, true
	case phaseReprovisioning:
		return metav1.ConditionTrue, metav1.ConditionTrue, v1.LoadBalancerReasonServing, true
	case phaseServing:
		return metav1.ConditionFalse, metav1.ConditionTrue, v1.LoadBalancerReasonServing, true
	}
	return "", "", "", false
}

func (p phase) serving() bool { return p == phaseServing || p == phaseReprovisioning }

// model is what the status must be, built from the events alone.
type model struct {
	phase    phase
	degraded []v1.LoadBalancerFeature
	ingress  []corev1.LoadBalancerIngress
}

// machine is one run of the state machine.
type machine struct {
	clk     *testingclock.FakePassiveClock
	opts    []TransitionOption
	caps    Capabilities
	feature v1.LoadBalancerFeature // under test, for the verdicts

	svc   *v1.Service // as stored by the apiserver
	seen  *v1.Service // as the provider last reconciled it; nil before
	model model

	foreign   metav1.Condition // another controller's condition, never touched
	lifecycle int              // bumped by each L9 removal

	lastObs          *v1.Service
	lastObsLifecycle int
}

// stateMachine is the rapid property behind TestProvider_StateMachine.
func stateMachine(t *rapid.T) {
	m := newMachine(t)
	t.Repeat(map[string]func(*rapid.T){
		"":                          m.check,
		"user changes spec":         m.userChangesSpec,
		"clock steps":               m.clockSteps,
		"watch observes":            m.watchObserves,
		"provider reconciles":       m.providerReconciles,
		"provider restarts":         func(*rapid.T) { m.seen = nil },
		"provider observes":         func(t *rapid.T) { m.observe(t) },
		"provider sees":             m.providerSees,
		"provider starts":           m.providerStarts,
		"provider succeeds":         m.providerSucceeds,
		"provider fails":            m.providerFails,
		"provider misuses helpers":  m.providerMisuses,
		"decision holds its rules":  m.decisionHoldsRules,
		"verdict matches the model": m.verdictMatchesModel,
	})
}

func newMachine(t *rapid.T) *machine {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(rapid.Int64Range(0, int64(time.Second)-1).Draw(t, "subsecond")))
	clk := testingclock.NewFakePassiveClock(start)
	m := &machine{
		clk:     clk,
		opts:    []TransitionOption{WithClock(clk), WithRelevantAnnotations(vendorSKU)},
		caps:    genCapabilities().Draw(t, "capabilities"),
		feature: rapid.SampledFrom(append([]v1.LoadBalancerFeature{""}, v1.LoadBalancerFeatures()...)).Draw(t, "feature under test"),
		model:   model{phase: phaseNone},
		foreign: metav1.Condition{Type: foreignType, Status: metav1.ConditionTrue, Reason: "Ready", Message: "not ours",
			LastTransitionTime: metav1.NewTime(start.Add(time.Hour).Truncate(time.Second)), ObservedGeneration: 1},
	}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 1}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}
	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	for _, f := range rapid.SliceOfN(rapid.SampledFrom(specFields), 0, 6).Draw(t, "initial spec") {
		f.mutate(t, svc)
	}
	svc.Status.Conditions = []metav1.Condition{m.foreign}
	m.svc = svc
	return m
}

// genCapabilities draws a provider: one that can do everything, with a
// few gaps. Small gap lists are the likeliest, so most runs provision,
// often degraded, and some refuse or ignore.
func genCapabilities() *rapid.Generator[Capabilities] {
	v4, v6 := corev1.IPv4Protocol, corev1.IPv6Protocol
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	gaps := map[string]func(t *rapid.T, c *Capabilities){
		"ipv4 only":          func(_ *rapid.T, c *Capabilities) { c.IPFamilies = []corev1.IPFamily{v4} },
		"ipv6 only":          func(_ *rapid.T, c *Capabilities) { c.IPFamilies = []corev1.IPFamily{v6} },
		"single-stack LBs":   func(_ *rapid.T, c *Capabilities) { c.DualStack = false },
		"tcp only":           func(_ *rapid.T, c *Capabilities) { c.Protocols = []corev1.Protocol{tcp} },
		"tcp and udp only":   func(_ *rapid.T, c *Capabilities) { c.Protocols = []corev1.Protocol{tcp, udp} },
		"one protocol":       func(_ *rapid.T, c *Capabilities) { c.MixedProtocols = false },
		"needs node ports":   func(_ *rapid.T, c *Capabilities) { c.WithoutNodePorts = false },
		"no affinity":        func(_ *rapid.T, c *Capabilities) { c.SessionAffinity = false },
		"no source ranges":   func(_ *rapid.T, c *Capabilities) { c.LoadBalancerSourceRanges = false },
		"no loadBalancerIP":  func(_ *rapid.T, c *Capabilities) { c.LoadBalancerIP = false },
		"no source IP":       func(_ *rapid.T, c *Capabilities) { c.PreserveSourceIP = false },
		"class only":         func(_ *rapid.T, c *Capabilities) { c.DefaultClass = false },
		"no class":           func(_ *rapid.T, c *Capabilities) { c.Classes = nil },
		"older feature list": func(_ *rapid.T, c *Capabilities) { c.KnownFeatures = v1.LoadBalancerFeatures()[:4] },
		"refuses instead": func(t *rapid.T, c *Capabilities) {
			c.RefuseUnsupported = rapid.SliceOfDistinct(rapid.SampledFrom(v1.LoadBalancerFeatures()), rapid.ID).Draw(t, "refuse unsupported")
		},
	}
	names := make([]string, 0, len(gaps))
	for name := range gaps {
		names = append(names, name)
	}
	slices.Sort(names)
	return rapid.Custom(func(t *rapid.T) Capabilities {
		c := fullCapabilities()
		c.Classes = []string{handledClass}
		for _, gap := range rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, 4, rapid.ID).Draw(t, "gaps") {
			gaps[gap](t, &c)
		}
		return c
	})
}

// specField is one load-balancer-relevant part of a Service the user can
// change (G3), with a generator of new values.
type specField struct {
	name   string
	mutate func(t *rapid.T, svc *v1.Service)
}

var specFields = []specField{
	{"ports", func(t *rapid.T, svc *v1.Service) {
		presets := [][]corev1.Protocol{
			{corev1.ProtocolTCP}, {corev1.ProtocolTCP, corev1.ProtocolTCP}, {corev1.ProtocolTCP, corev1.ProtocolUDP},
			{corev1.ProtocolUDP}, {corev1.ProtocolSCTP}, {corev1.ProtocolTCP, corev1.ProtocolSCTP}, {""},
		}
		protocols := rapid.SampledFrom(presets).Draw(t, "ports")
		svc.Spec.Ports = nil
		for i, p := range protocols {
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Port: int32(80 + i), Protocol: p, NodePort: int32(30080 + i)})
		}
	}},
	{"ipFamilies", func(t *rapid.T, svc *v1.Service) {
		v4, v6 := corev1.IPv4Protocol, corev1.IPv6Protocol
		switch rapid.IntRange(0, 5).Draw(t, "families") {
		case 0:
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []corev1.IPFamily{v4}, nil
		case 1:
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []corev1.IPFamily{v6}, ptr.To(corev1.IPFamilyPolicySingleStack)
		case 2:
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []corev1.IPFamily{v4, v6}, ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		case 3:
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []corev1.IPFamily{v6, v4}, ptr.To(corev1.IPFamilyPolicyPreferDualStack)
		case 4:
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = nil, ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		default:
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = nil, nil
		}
	}},
	{"sessionAffinity", func(t *rapid.T, svc *v1.Service) {
		svc.Spec.SessionAffinity = rapid.SampledFrom([]corev1.ServiceAffinity{"", corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP}).Draw(t, "affinity")
		svc.Spec.SessionAffinityConfig = nil
		if svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP && rapid.Bool().Draw(t, "affinity timeout") {
			svc.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To(rapid.Int32Range(1, 86400).Draw(t, "timeout"))}}
		}
	}},
	{"externalTrafficPolicy", func(t *rapid.T, svc *v1.Service) {
		svc.Spec.ExternalTrafficPolicy = rapid.SampledFrom([]corev1.ServiceExternalTrafficPolicy{"", corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}).Draw(t, "policy")
		svc.Spec.HealthCheckNodePort = 0
		if svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
			svc.Spec.HealthCheckNodePort = rapid.Int32Range(30000, 30002).Draw(t, "health check node port")
		}
	}},
	{"loadBalancerIP", func(t *rapid.T, svc *v1.Service) {
		svc.Spec.LoadBalancerIP = rapid.SampledFrom([]string{"", "192.0.2.1", "192.0.2.2"}).Draw(t, "loadBalancerIP")
	}},
	{"loadBalancerSourceRanges", func(t *rapid.T, svc *v1.Service) {
		svc.Spec.LoadBalancerSourceRanges = rapid.SliceOfDistinct(rapid.SampledFrom([]string{"10.0.0.0/8", "192.0.2.0/24"}), rapid.ID).Draw(t, "source ranges")
		delete(svc.Annotations, corev1.AnnotationLoadBalancerSourceRangesKey)
		if rapid.IntRange(0, 3).Draw(t, "source ranges annotation") == 0 {
			setAnnotation(svc, corev1.AnnotationLoadBalancerSourceRangesKey, "10.0.0.0/8")
		}
	}},
	{"allocateLoadBalancerNodePorts", func(t *rapid.T, svc *v1.Service) {
		svc.Spec.AllocateLoadBalancerNodePorts = rapid.SampledFrom([]*bool{nil, ptr.To(true), ptr.To(false)}).Draw(t, "node ports")
	}},
	{"trafficDistribution", func(t *rapid.T, svc *v1.Service) {
		svc.Spec.TrafficDistribution = rapid.SampledFrom([]*string{nil, ptr.To("PreferClose")}).Draw(t, "traffic distribution")
	}},
	{"requiredLoadBalancerFeatures", func(t *rapid.T, svc *v1.Service) {
		values := append([]v1.LoadBalancerFeature{"Teleport"}, v1.LoadBalancerFeatures()...)
		features := rapid.SliceOfNDistinct(rapid.SampledFrom(values), 0, 3, rapid.ID).Draw(t, "required")
		svc.Spec.RequiredLoadBalancerFeatures = nil
		delete(svc.Annotations, v1.RequiredFeaturesAnnotation)
		switch rapid.IntRange(0, 7).Draw(t, "required source") { // mostly none
		case 0:
			if svc.Spec.Type == corev1.ServiceTypeLoadBalancer { // R4: only on LoadBalancer
				svc.Spec.RequiredLoadBalancerFeatures = features
			}
		case 1:
			setAnnotation(svc, v1.RequiredFeaturesAnnotation, FormatRequiredFeaturesAnnotation(features))
		case 2:
			setAnnotation(svc, v1.RequiredFeaturesAnnotation, rapid.SampledFrom([]string{",", "Ports,,Ports", " SessionAffinity , Ports "}).Draw(t, "annotation"))
		}
	}},
	{"vendor annotation", func(t *rapid.T, svc *v1.Service) {
		setAnnotation(svc, vendorSKU, rapid.SampledFrom([]string{"basic", "premium"}).Draw(t, "sku"))
	}},
	{"labels (irrelevant)", func(t *rapid.T, svc *v1.Service) {
		svc.Labels = map[string]string{"rev": fmt.Sprint(rapid.IntRange(0, 3).Draw(t, "label"))}
	}},
	{"type", func(t *rapid.T, svc *v1.Service) {
		if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && rapid.IntRange(0, 4).Draw(t, "leave LoadBalancer") != 4 {
			return // the initial Service and most changes stay LoadBalancer
		}
		if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
			svc.Spec.Type = rapid.SampledFrom([]corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort}).Draw(t, "new type")
			svc.Spec.LoadBalancerClass = nil // only valid on LoadBalancer
			svc.Spec.RequiredLoadBalancerFeatures = nil
			return
		}
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		// loadBalancerClass can only be set when the type becomes LoadBalancer.
		svc.Spec.LoadBalancerClass = rapid.SampledFrom([]*string{nil, ptr.To(handledClass), ptr.To(unhandledClass)}).Draw(t, "class")
	}},
}

func setAnnotation(svc *v1.Service, key, value string) {
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[key] = value
}

// userChangesSpec applies one spec change, as kubectl apply would. Like a
// Kubernetes fork that bumps metadata.generation on spec changes (G6).
func (m *machine) userChangesSpec(t *rapid.T) {
	f := rapid.SampledFrom(specFields).Draw(t, "field")
	before := m.svc.DeepCopy()
	f.mutate(t, m.svc)
	if !apiequality.Semantic.DeepEqual(before.Spec, m.svc.Spec) || !apiequality.Semantic.DeepEqual(before.Annotations, m.svc.Annotations) {
		m.svc.Generation++
	}
}

func (m *machine) clockSteps(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{
		0, time.Millisecond, 300 * time.Millisecond, 999 * time.Millisecond, time.Second,
		1500 * time.Millisecond, time.Minute, time.Hour, -time.Second, -10 * time.Minute,
	}).Draw(t, "clock step")
	m.clk.SetTime(m.clk.Now().Add(d))
}

// write stores the status of a transition, as an UpdateStatus or
// ApplyStatus would, after checking the step from the current status.
func (m *machine) write(t *rapid.T, tr Transition[*v1.Service], err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	checkApply(t, m.svc, tr)
	if want := !apiequality.Semantic.DeepEqual(m.svc.Status, tr.Service.Status); tr.Changed != want {
		t.Fatalf("%s: Changed = %v, want %v", what, tr.Changed, want)
	}
	next := m.svc.DeepCopy()
	next.Status = tr.Service.Status
	checkStep(t, m.svc, next, what)

	// L4 on first provisioning: the ingress is filled in the same write as
	// Serving=True.
	if len(m.svc.Status.LoadBalancer.Ingress) == 0 && len(next.Status.LoadBalancer.Ingress) > 0 && !IsTrue(next.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Fatalf("L4: %s filled the ingress with Serving not True", what)
	}
	// L6: the end of a reprovisioning changes what the load balancer does,
	// so Serving's lastTransitionTime moves.
	if IsTrue(m.svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) && IsTrue(m.svc.Status.Conditions, v1.LoadBalancerConditionServing) &&
		IsFalse(next.Status.Conditions, v1.LoadBalancerConditionProvisioning) && IsTrue(next.Status.Conditions, v1.LoadBalancerConditionServing) {
		before := Get(m.svc.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
		if after := Get(next.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime; !after.After(before.Time) {
			t.Fatalf("L6: %s ended a reprovisioning without bumping Serving (%v -> %v)", what, before, after)
		}
	}
	if HasKEPConditions(m.svc.Status.Conditions) && !HasKEPConditions(next.Status.Conditions) {
		m.lifecycle++
	}
	m.svc = next
}

// checkStep checks two consecutive states of the same Service, as the
// conformance checker checks a trace: C6 and C7 for every condition present
// in both.
func checkStep(t *rapid.T, prev, next *v1.Service, what string) {
	t.Helper()
	for _, n := range next.Status.Conditions {
		p := Get(prev.Status.Conditions, n.Type)
		if p == nil {
			continue
		}
		if n.LastTransitionTime.Before(&p.LastTransitionTime) {
			t.Fatalf("C7: %s moved %s lastTransitionTime back from %v to %v", what, n.Type, p.LastTransitionTime, n.LastTransitionTime)
		}
		if n.Status != p.Status && n.LastTransitionTime.Equal(&p.LastTransitionTime) {
			t.Fatalf("C6: %s changed %s from %s to %s without moving lastTransitionTime %v", what, n.Type, p.Status, n.Status, n.LastTransitionTime)
		}
	}
}

// observe is the start of every provider reconcile: a spec change since
// the provider last looked is reported with SpecUpdated (L6, L9), and a
// Service that is no longer the provider's loses its conditions (P1).
// It returns the provider's decision for the current spec.
func (m *machine) observe(t *rapid.T) Decision {
	d := Decide(m.svc, m.caps)
	// SpecUpdated on a Service of a class that is not the provider's would
	// write to it (P1): it gets NotLoadBalancer alone.
	foreign := d.Ignored == IgnoreForeignClass
	if !foreign && (m.seen != nil || HasKEPConditions(m.svc.Status.Conditions)) {
		changed := SpecChanged(m.seen, m.svc) || len(ChangedFields(m.seen, m.svc, WithRelevantAnnotations(vendorSKU))) > 0
		prev := m.svc.DeepCopy()
		before := Get(prev.Status.Conditions, v1.LoadBalancerConditionProvisioning)
		tr, err := SpecUpdated(m.seen, m.svc, m.opts...)
		m.expectSpecUpdated(changed)
		m.write(t, tr, err, "SpecUpdated")
		after := Get(m.svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)
		if changed && before != nil && after != nil && !after.LastTransitionTime.After(before.LastTransitionTime.Time) {
			t.Fatalf("L6: a relevant spec change left Provisioning's lastTransitionTime at %v", after.LastTransitionTime)
		}
		if changed && before != nil && after != nil && !ChangeSeen(prev, m.svc) {
			t.Fatalf("L6: ChangeSeen misses the change SpecUpdated acknowledged")
		}
	}
	if d.Action == ActionIgnore && HasKEPConditions(m.svc.Status.Conditions) {
		tr, err := NotLoadBalancer(m.svc, m.opts...)
		m.model = model{phase: phaseNone}
		m.write(t, tr, err, "NotLoadBalancer")
	}
	m.seen = m.svc.DeepCopy()
	return d
}

// expectSpecUpdated is the model of SpecUpdated.
func (m *machine) expectSpecUpdated(changed bool) {
	switch {
	case m.svc.Spec.Type != corev1.ServiceTypeLoadBalancer:
		m.model = model{phase: phaseNone}
	case !changed || m.model.phase == phaseNone:
	default:
		required, _, _ := RequiredFeatures(m.svc)
		var keep []v1.LoadBalancerFeature
		requiredDegraded := false
		for _, f := range m.model.degraded {
			if AsksFor(m.svc, f) {
				keep = append(keep, f)
				requiredDegraded = requiredDegraded || slices.Contains(required, f)
			}
		}
		m.model.degraded = keep
		// A required feature degraded (P6), or one this version does
		// not know, which Decide refuses (R2): served no more.
		unknown := slices.ContainsFunc(required, func(f v1.LoadBalancerFeature) bool { return !f.IsKnown() })
		if (requiredDegraded || unknown) && m.model.phase.serving() {
			m.model.phase, m.model.degraded = phaseProvisioning, nil
		}
	}
}

// genLoadBalancer draws what the provider knows of its load balancer for
// decision d: any state, with an ingress and a subset of the decided
// degradations when Ready.
func genLoadBalancer(d Decision, serving bool, current []corev1.LoadBalancerIngress) *rapid.Generator[LoadBalancer] {
	return rapid.Custom(func(t *rapid.T) LoadBalancer {
		lb := LoadBalancer{State: rapid.SampledFrom([]LoadBalancerState{
			LoadBalancerAbsent, LoadBalancerProvisioning, LoadBalancerReady, LoadBalancerReady, LoadBalancerFailed,
		}).Draw(t, "load balancer")}
		switch lb.State {
		case LoadBalancerProvisioning:
			lb.KeepServing = ServingDuringProvisioning(rapid.Bool().Draw(t, "keep serving"))
		case LoadBalancerReady:
			lb.Ingress = genIngress().Draw(t, "ingress")
			if serving && rapid.Bool().Draw(t, "same ingress") {
				lb.Ingress = current
			}
			if rapid.IntRange(0, 3).Draw(t, "does better than decided") == 3 {
				lb.Degraded = rapid.SliceOfDistinct(rapid.SampledFrom(append([]v1.LoadBalancerFeature{""}, d.Degraded...)), rapid.ID).Draw(t, "degraded")
				lb.Degraded = slices.DeleteFunc(lb.Degraded, func(f v1.LoadBalancerFeature) bool { return f == "" })
				if lb.Degraded == nil {
					lb.Degraded = []v1.LoadBalancerFeature{}
				}
			}
		case LoadBalancerFailed:
			lb.Message = rapid.SampledFrom([]string{"", "quota exceeded"}).Draw(t, "message")
		}
		return lb
	})
}

// providerReconciles is a whole provider reconcile in one call: Reconcile
// with the Service the provider last acted on (nil after a restart) and a
// drawn state of its load balancer. Its one write must match the model,
// carry the L6 bump of any relevant change, and stamp every condition
// it moves once: at the clock's second, or one second past the old value
// (G5), never further ahead.
func (m *machine) providerReconciles(t *rapid.T) {
	d := Decide(m.svc, m.caps)
	lb := genLoadBalancer(d, m.model.phase.serving(), m.model.ingress).Draw(t, "state")
	before := m.svc.DeepCopy()
	r, err := Reconcile(m.svc, m.caps, m.seen, lb, m.opts...)
	if err != nil {
		t.Fatalf("Reconcile(%+v): %v", lb, err)
	}
	if r.Decision.Action != d.Action || r.Decision.Ignored != d.Ignored {
		t.Fatalf("Reconcile decided %+v, Decide %+v", r.Decision, d)
	}

	// The model.
	conds := m.svc.Status.Conditions
	known := Get(conds, v1.LoadBalancerConditionServing) != nil || Get(conds, v1.LoadBalancerConditionProvisioning) != nil
	changed := false
	switch {
	case d.Action == ActionIgnore:
		if HasKEPConditions(conds) && (m.seen == nil || Decide(m.seen, m.caps).Action != ActionIgnore) {
			m.model = model{phase: phaseNone}
		}
	default:
		changed = known && (m.seen == nil || len(ChangedFields(m.seen, m.svc, WithRelevantAnnotations(vendorSKU))) > 0)
		if changed {
			m.expectSpecUpdated(true)
		}
		switch {
		case d.Action == ActionRefuse:
			m.model = model{phase: phaseRefused}
		case lb.State == LoadBalancerReady:
			degraded := lb.Degraded
			if degraded == nil {
				degraded = d.Degraded
			}
			m.model = model{phase: phaseServing, degraded: sortFeatures(degraded), ingress: lb.Ingress}
		case lb.State == LoadBalancerFailed:
			m.model = model{phase: phaseFailed}
		case lb.State == LoadBalancerProvisioning && lb.KeepServing == KeepServing && m.model.phase.serving():
			m.model.phase = phaseReprovisioning
		default:
			m.model.phase, m.model.degraded = phaseProvisioning, nil
		}
	}

	if r.Apply == nil {
		if r.Changed || !apiequality.Semantic.DeepEqual(r.Service.Status, m.svc.Status) {
			t.Fatalf("Reconcile: no write, but the status changed")
		}
	} else {
		m.write(t, Transition[*v1.Service]{Service: r.Service, Apply: r.Apply, Changed: r.Changed}, nil, "Reconcile")
	}
	m.seen = before

	now := m.clk.Now()
	for _, c := range m.svc.Status.Conditions {
		old := Get(before.Status.Conditions, c.Type)
		if !isKEPType(c.Type) || old == nil || old.LastTransitionTime.Equal(&c.LastTransitionTime) {
			continue
		}
		if want := nextTransitionTime(old.LastTransitionTime, now); !c.LastTransitionTime.Equal(&want) {
			t.Fatalf("G5: Reconcile moved %s from %v to %v at %v, want %v", c.Type, old.LastTransitionTime, c.LastTransitionTime, now, want)
		}
	}
	if changed {
		p0 := Get(before.Status.Conditions, v1.LoadBalancerConditionProvisioning)
		p := Get(m.svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)
		if p0 != nil && p != nil && !p.LastTransitionTime.After(p0.LastTransitionTime.Time) {
			t.Fatalf("L6: a relevant change left Provisioning at %v", p.LastTransitionTime)
		}
		// What a client waits for after an update (Wait's
		// WithSpecChange) is what the provider's write shows.
		if !ChangeSeen(before, m.svc) {
			t.Fatalf("L6: ChangeSeen misses the change Reconcile acknowledged: Provisioning %v, then %v", p0, p)
		}
	}
}

func (m *machine) providerSees(t *rapid.T) {
	d := m.observe(t)
	if m.svc.Spec.Type != corev1.ServiceTypeLoadBalancer || m.model.phase != phaseNone {
		return // not a first sight
	}
	tr, err := Seen(m.svc, d, m.opts...)
	if err != nil {
		t.Fatalf("Seen: %v", err)
	}
	if d.Action == ActionIgnore {
		if tr.Apply != nil || tr.Changed {
			t.Fatalf("P1: Seen wrote to an ignored Service")
		}
		return
	}
	switch d.Action {
	case ActionRefuse:
		m.model = model{phase: phaseRefused}
	case ActionProvision:
		m.model.phase = phaseProvisioning
	}
	m.write(t, tr, err, "Seen")
}

func (m *machine) providerStarts(t *rapid.T) {
	d := m.observe(t)
	if d.Action != ActionProvision || m.model.phase == phaseNone {
		return
	}
	mode := ServingDuringProvisioning(rapid.Bool().Draw(t, "keep serving"))
	tr, err := ProvisioningStarted(m.svc, mode, m.opts...)
	if mode == KeepServing && m.model.phase.serving() {
		m.model.phase = phaseReprovisioning
	} else {
		m.model.phase, m.model.degraded = phaseProvisioning, nil
	}
	m.write(t, tr, err, "ProvisioningStarted")
}

func genIngress() *rapid.Generator[[]corev1.LoadBalancerIngress] {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) corev1.LoadBalancerIngress {
		in := corev1.LoadBalancerIngress{}
		if rapid.Bool().Draw(t, "hostname") {
			in.Hostname = rapid.SampledFrom([]string{"a.lb.example", "b.lb.example"}).Draw(t, "host")
		} else {
			in.IP = rapid.SampledFrom([]string{"192.0.2.10", "2001:db8::10"}).Draw(t, "ip")
			if rapid.Bool().Draw(t, "ip mode") {
				in.IPMode = ptr.To(corev1.LoadBalancerIPModeProxy)
			}
		}
		if rapid.IntRange(0, 4).Draw(t, "port status") == 0 {
			in.Ports = []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP, Error: ptr.To("Pending")}}
		}
		return in
	}), 1, 2)
}

func (m *machine) providerSucceeds(t *rapid.T) {
	d := m.observe(t)
	if d.Action != ActionProvision || m.model.phase == phaseNone {
		return
	}
	ingress := genIngress().Draw(t, "ingress")
	if m.model.phase.serving() && rapid.Bool().Draw(t, "same ingress") {
		ingress = m.model.ingress
	}
	// The provider may find out it does better than decided: any subset of
	// the decided degradations is a valid report.
	degraded := d.Degraded
	if rapid.IntRange(0, 3).Draw(t, "does better than decided") == 3 {
		degraded = rapid.SliceOfDistinct(rapid.SampledFrom(append([]v1.LoadBalancerFeature{""}, d.Degraded...)), rapid.ID).Draw(t, "degraded")
		degraded = slices.DeleteFunc(degraded, func(f v1.LoadBalancerFeature) bool { return f == "" })
	}
	tr, err := Succeeded(m.svc, ingress, degraded, m.opts...)
	m.model = model{phase: phaseServing, degraded: sortFeatures(degraded), ingress: ingress}
	m.write(t, tr, err, "Succeeded")
}

func sortFeatures(fs []v1.LoadBalancerFeature) []v1.LoadBalancerFeature {
	if len(fs) == 0 {
		return nil
	}
	return sortedByReason(fs)
}

func (m *machine) providerFails(t *rapid.T) {
	d := m.observe(t)
	if m.svc.Spec.Type != corev1.ServiceTypeLoadBalancer || d.Action == ActionIgnore || m.model.phase == phaseNone {
		return
	}
	reason, message, next := v1.LoadBalancerReasonInfrastructure, rapid.SampledFrom([]string{"", "quota exceeded"}).Draw(t, "message"), phaseFailed
	if d.Action == ActionRefuse {
		reason, message, next = v1.LoadBalancerReasonUnsupported, d.Message(), phaseRefused
	}
	tr, err := Failed(m.svc, reason, message, m.opts...)
	m.model = model{phase: next}
	m.write(t, tr, err, "Failed")
}

// providerMisuses calls Succeeded with arbitrary arguments: it must fail
// exactly when the arguments break a rule (L4, C3, P5, R1), and then leave
// nothing to write. Successful results are not written: the provider does
// not act on them.
func (m *machine) providerMisuses(t *rapid.T) {
	values := append([]v1.LoadBalancerFeature{"Teleport"}, v1.LoadBalancerFeatures()...)
	degraded := rapid.SliceOfN(rapid.SampledFrom(values), 0, 3).Draw(t, "any degraded")
	var ingress []corev1.LoadBalancerIngress
	if rapid.IntRange(0, 3).Draw(t, "empty ingress") > 0 {
		ingress = genIngress().Draw(t, "ingress")
	}
	required, _, _ := RequiredFeatures(m.svc)
	wantErr := m.svc.Spec.Type != corev1.ServiceTypeLoadBalancer || len(ingress) == 0
	for i, f := range degraded {
		wantErr = wantErr || !f.IsKnown() || slices.Contains(degraded[:i], f) || !AsksFor(m.svc, f) || slices.Contains(required, f)
	}
	before := m.svc.DeepCopy()
	tr, err := Succeeded(m.svc, ingress, degraded, m.opts...)
	if (err != nil) != wantErr {
		t.Fatalf("Succeeded(%v, %v): err = %v, want error %v", ingress, degraded, err, wantErr)
	}
	if err != nil && (tr.Apply != nil || tr.Changed) {
		t.Fatalf("a failed Succeeded left something to write")
	}
	if !apiequality.Semantic.DeepEqual(before, m.svc) {
		t.Fatalf("Succeeded modified its input Service")
	}
}

// decisionHoldsRules checks Decide on the current Service: never provision
// a Service degraded in a feature it requires (R1), never degrade what it
// does not ask for (P5), refuse unknown or unparseable requirements (R2),
// ignore what is not the provider's (P1).
func (m *machine) decisionHoldsRules(t *rapid.T) {
	d := Decide(m.svc, m.caps)
	required, _, errs := RequiredFeatures(m.svc)
	class := ptr.Deref(m.svc.Spec.LoadBalancerClass, "")
	mine := m.svc.Spec.Type == corev1.ServiceTypeLoadBalancer && ((class == "" && m.caps.DefaultClass) || (class != "" && slices.Contains(m.caps.Classes, class)))
	if (d.Action == ActionIgnore) != !mine {
		t.Fatalf("P1: action %s for a Service that is mine=%v", d.Action, mine)
	}
	if !mine {
		return
	}
	unknown := len(errs) > 0
	for _, f := range required {
		unknown = unknown || !f.IsKnown() || !slices.Contains(m.caps.KnownFeatures, f)
	}
	if unknown && d.Action != ActionRefuse {
		t.Fatalf("R2: unknown or invalid required features %v (%v) not refused: %+v", required, errs, d)
	}
	for _, f := range d.Degraded {
		if slices.Contains(required, f) {
			t.Fatalf("R1: provisioning degraded in required feature %s", f)
		}
		if !AsksFor(m.svc, f) {
			t.Fatalf("P5: degraded in %s, which the Service does not ask for", f)
		}
	}
	if d.Action == ActionRefuse && (len(d.Refusals) == 0 || len(d.Degraded) > 0) {
		t.Fatalf("refusal without reasons, or with degradations: %+v", d)
	}
}

// watchObserves takes a snapshot through JSON, as a watch delivers it, and
// checks it against the previous snapshot of the same lifecycle.
func (m *machine) watchObserves(t *rapid.T) {
	data, err := json.Marshal(m.svc)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	obs := &v1.Service{}
	if err := json.Unmarshal(data, obs); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	// G5: the helpers write whole seconds, so nothing is lost on the wire
	// and what a watcher compares is what the provider wrote.
	if !apiequality.Semantic.DeepEqual(obs.Status, m.svc.Status) {
		t.Fatalf("G5: the status does not survive the wire")
	}
	if m.lastObs != nil && m.lastObsLifecycle == m.lifecycle {
		checkStep(t, m.lastObs, obs, "between two observations")
	}
	m.lastObs, m.lastObsLifecycle = obs, m.lifecycle
	m.verdictMatchesModel(t)
}

// verdictMatchesModel checks Evaluate against what the model says a client
// must conclude (section 6).
func (m *machine) verdictMatchesModel(t *rapid.T) {
	v := Evaluate(m.svc, m.feature)
	degradedInFeature := slices.Contains(m.model.degraded, m.feature)
	var want Result
	switch m.model.phase {
	case phaseNone, phaseProvisioning:
		want = ResultPending
	case phaseRefused:
		want = ResultSkip
	case phaseFailed:
		want = ResultFail
	case phaseReprovisioning:
		want = ResultPending
		if degradedInFeature {
			want = ResultSkip
		}
	case phaseServing:
		want = ResultReady
		if degradedInFeature {
			want = ResultSkip
		}
	}
	if v.Result != want {
		t.Fatalf("verdict %v in phase %s with degradations %v, want %s", v, m.model.phase, m.model.degraded, want)
	}
}

// check holds after every action: the invariants of one status.
func (m *machine) check(t *rapid.T) {
	st := m.svc.Status
	conds := st.Conditions
	serving := Get(conds, v1.LoadBalancerConditionServing)
	prov := Get(conds, v1.LoadBalancerConditionProvisioning)
	degraded := Get(conds, v1.LoadBalancerConditionDegraded)

	// C5: metav1.Condition rules, and observedGeneration not ahead.
	if errs := metav1validation.ValidateConditions(conds, field.NewPath("status", "conditions")); len(errs) > 0 {
		t.Fatalf("C5: %v", errs)
	}
	for _, c := range conds {
		if c.ObservedGeneration > m.svc.Generation {
			t.Fatalf("C5: %s observedGeneration %d > generation %d", c.Type, c.ObservedGeneration, m.svc.Generation)
		}
		if c.Type == string(v1.LoadBalancerConditionPortsError) {
			t.Fatalf("C4: LoadBalancerPortsError written")
		}
	}
	// Another controller's condition is never touched.
	if f := Get(conds, foreignType); f == nil || !apiequality.Semantic.DeepEqual(*f, m.foreign) {
		t.Fatalf("another controller's condition changed: %+v", f)
	}
	// L1: both or neither.
	if (serving == nil) != (prov == nil) {
		t.Fatalf("L1: Serving present %v, Provisioning present %v", serving != nil, prov != nil)
	}
	// L3 against the model.
	wantP, wantS, wantReason, present := m.model.phase.expected()
	if present != (serving != nil) {
		t.Fatalf("L3: phase %s but conditions present = %v", m.model.phase, serving != nil)
	}
	if present && (prov.Status != wantP || serving.Status != wantS || serving.Reason != string(wantReason)) {
		t.Fatalf("L3: phase %s wants P=%s S=%s/%s, status has P=%s S=%s/%s", m.model.phase, wantP, wantS, wantReason, prov.Status, serving.Status, serving.Reason)
	}
	if !apiequality.Semantic.DeepEqual(st.LoadBalancer.Ingress, m.model.ingress) {
		t.Fatalf("ingress %v, model %v", st.LoadBalancer.Ingress, m.model.ingress)
	}
	if present {
		// C1, C3.
		switch prov.Status + "/" + metav1.ConditionStatus(prov.Reason) {
		case "True/Provisioning", "False/Complete":
		default:
			t.Fatalf("C1/C3: Provisioning %s/%s", prov.Status, prov.Reason)
		}
		switch serving.Status + "/" + metav1.ConditionStatus(serving.Reason) {
		case "True/Serving", "False/Provisioning", "False/Unsupported", "False/Infrastructure":
		default:
			t.Fatalf("C1/C3: Serving %s/%s", serving.Status, serving.Reason)
		}
		// L4, L5.
		if serving.Status == metav1.ConditionTrue && len(st.LoadBalancer.Ingress) == 0 {
			t.Fatalf("L4: Serving=True without ingress")
		}
		if serving.Status == metav1.ConditionFalse && (serving.Reason == string(v1.LoadBalancerReasonProvisioning)) != (prov.Status == metav1.ConditionTrue) {
			t.Fatalf("L5: Serving False/%s with Provisioning %s", serving.Reason, prov.Status)
		}
	}
	// G6: every provider write stamps the generation it saw on all three.
	for _, c := range conds {
		if isKEPType(c.Type) && m.seen != nil && c.ObservedGeneration != m.seen.Generation {
			t.Fatalf("G6: %s observedGeneration %d, provider saw generation %d", c.Type, c.ObservedGeneration, m.seen.Generation)
		}
	}
	// C2: never False; and only while serving.
	if degraded != nil && (degraded.Status != metav1.ConditionTrue || serving == nil || serving.Status != metav1.ConditionTrue) {
		t.Fatalf("C2: Degraded=%s with Serving %v", degraded.Status, serving)
	}
	reasons := DegradedReasons(conds)
	var want []v1.LoadBalancerConditionReason
	for _, f := range m.model.degraded {
		r, _ := v1.DegradedReason(f)
		want = append(want, r)
	}
	slices.Sort(want)
	if !slices.Equal(reasons, want) {
		t.Fatalf("degradations %v, model %v", reasons, want)
	}
	if degraded != nil && len(reasons) > 1 && degraded.Reason != string(v1.LoadBalancerReasonMultiple) {
		t.Fatalf("G2: %d degradations under reason %s", len(reasons), degraded.Reason)
	}
	// P5 and P6 against the spec the provider last reconciled.
	if m.seen != nil {
		required, _, _ := RequiredFeatures(m.seen)
		for _, r := range reasons {
			f, _ := v1.DegradedFeature(r)
			if !AsksFor(m.seen, f) {
				t.Fatalf("P5: degraded in %s, which the Service does not ask for", f)
			}
			if slices.Contains(required, f) && serving != nil && serving.Status == metav1.ConditionTrue {
				t.Fatalf("P6: serving degraded in required feature %s", f)
			}
		}
		// P1: a Service that is not the provider's carries none of its conditions.
		if Decide(m.seen, m.caps).Action == ActionIgnore && HasKEPConditions(conds) {
			t.Fatalf("P1: conditions on a Service the provider ignores")
		}
	}
}
