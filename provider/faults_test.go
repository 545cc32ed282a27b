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

package provider

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

func TestFaults_ReadOnlyWhenOnAndNeverBreakingARule(t *testing.T) {
	svc := v1.FromCore(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Annotations: map[string]string{
			FailAnnotation:        " broken ",
			DelayAnnotation:       "3s",
			DegradeAnnotation:     "Ports, SessionAffinity,LoadBalancerIP",
			StopWritingAnnotation: "true",
		}},
		Spec: corev1.ServiceSpec{
			Type:            corev1.ServiceTypeLoadBalancer,
			SessionAffinity: corev1.ServiceAffinityClientIP,
			LoadBalancerIP:  "198.18.0.9",
			Ports:           []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	})
	if f := New(nil, Options{}).faultsOf(svc); f.fail != "" || f.hasDelay || f.degrade != nil || f.stopWriting {
		t.Errorf("faults read without Options.Faults: %+v", f)
	}
	f := New(nil, Options{Faults: true}).faultsOf(svc)
	if f.fail != "broken" || f.delay != 3*time.Second || !f.stopWriting || len(f.degrade) != 3 {
		t.Errorf("faults %+v do not follow the annotations", f)
	}
	// Ports: one port, so P5 forbids it. LoadBalancerIP: required, so R1
	// forbids it. SessionAffinity: asked for, not required.
	svc.Annotations[v1.RequiredFeaturesAnnotation] = "LoadBalancerIP"
	got := degraded(svc, conditions.Decision{}, f)
	if !slices.Equal(got, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}) {
		t.Errorf("degraded %v, want SessionAffinity alone", got)
	}
	// The decision's own degradations stay, in the order of the features.
	got = degraded(svc, conditions.Decision{Degraded: []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies}}, f)
	if !slices.Equal(got, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureIPFamilies, v1.LoadBalancerFeatureSessionAffinity}) {
		t.Errorf("degraded %v, want IPFamilies then SessionAffinity", got)
	}
	svc.Annotations[DelayAnnotation] = "soon"
	if f := New(nil, Options{Faults: true}).faultsOf(svc); f.hasDelay {
		t.Errorf("a delay that does not parse was read as %s", f.delay)
	}
}

// TestFaults_LiftingFailRetries: a load balancer failed by the fail
// annotation is provisioned again once the annotation is removed or
// changed, without waiting for a change of spec; it stays failed while the
// annotation stays.
func TestFaults_LiftingFailRetries(t *testing.T) {
	p := &Provider{opts: Options{Faults: true, ProvisionDelay: time.Second}}
	failed := v1.FromCore(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{FailAnnotation: "boom"}}})
	failed.Spec.Type = corev1.ServiceTypeLoadBalancer
	lifted := failed.DeepCopy()
	lifted.Annotations = nil
	changed := failed.DeepCopy()
	changed.Annotations[FailAnnotation] = "boom again"
	now := time.Now()
	for _, tc := range []struct {
		name string
		svc  *v1.Service
		want conditions.LoadBalancerState
	}{
		{"kept", failed, conditions.LoadBalancerFailed},
		{"lifted", lifted, conditions.LoadBalancerProvisioning},
		{"changed", changed, conditions.LoadBalancerProvisioning},
	} {
		lb := loadBalancer{state: conditions.LoadBalancerFailed, message: "boom"}
		p.ensure("ns/web", tc.svc, record{acted: failed}, &lb, now, p.faultsOf(tc.svc))
		if lb.state != tc.want {
			t.Errorf("%s: load balancer %s, want %s", tc.name, lb.state, tc.want)
		}
	}
}

// TestFaults_AnnotationValues: a delay of zero is one (provisioning at
// once), a negative one is ignored, and values are read with the spaces
// around them trimmed, as the fail annotation is.
func TestFaults_AnnotationValues(t *testing.T) {
	p := New(nil, Options{Faults: true})
	for _, tc := range []struct {
		delay, stop string
		want        faults
	}{
		{"0s", "false", faults{delay: 0, hasDelay: true}},
		{" 2s ", " true ", faults{delay: 2 * time.Second, hasDelay: true, stopWriting: true}},
		{"-1s", "yes", faults{}},
	} {
		svc := v1.FromCore(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{DelayAnnotation: tc.delay, StopWritingAnnotation: tc.stop}}})
		if got := p.faultsOf(svc); got.delay != tc.want.delay || got.hasDelay != tc.want.hasDelay || got.stopWriting != tc.want.stopWriting {
			t.Errorf("delay %q, stop-writing %q: %+v, want %+v", tc.delay, tc.stop, got, tc.want)
		}
	}
}

// TestFaults_DegradeAlreadyDegraded: a fault naming a feature the
// capabilities already degrade lists it once, as the Degraded condition's
// helpers demand (a feature listed twice is refused, and the provider
// would write nothing).
func TestFaults_DegradeAlreadyDegraded(t *testing.T) {
	svc := v1.FromCore(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, SessionAffinity: corev1.ServiceAffinityClientIP,
		Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}},
	}})
	affinity := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
	if got := degraded(svc, conditions.Decision{Degraded: affinity}, faults{degrade: affinity}); !slices.Equal(got, affinity) {
		t.Errorf("degraded %v, want SessionAffinity once", got)
	}
}

// TestFaults_DelayAnnotationTimesTheProvisioning: the delay annotation,
// not Options.ProvisionDelay, says when the provisioning it starts ends.
func TestFaults_DelayAnnotationTimesTheProvisioning(t *testing.T) {
	p := New(nil, Options{Faults: true, ProvisionDelay: time.Second})
	svc := v1.FromCore(lbService("web"))
	svc.Annotations = map[string]string{DelayAnnotation: "1h"}
	now := time.Now()
	var lb loadBalancer
	after := p.ensure("ns/web", svc, record{}, &lb, now, p.faultsOf(svc))
	if lb.state != conditions.LoadBalancerProvisioning || after != time.Hour || !lb.ready.Equal(now.Add(time.Hour)) {
		t.Errorf("load balancer %+v, look again after %s; want provisioning for 1h", lb, after)
	}
}
