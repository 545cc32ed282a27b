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
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// The provider's reconcile loop on the fake clientset: a Service it
// serves is provisioned (L1) and then served with an address (L2, L4);
// a Service of another class gets nothing (P1).
func TestProvider_RunServesItsServices(t *testing.T) {
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	run(t, New(client, Options{Pool: pool, Workers: 1, Capabilities: ipv4TCP()}))
	ctx := t.Context()
	other := "example.com/other"
	for name, class := range map[string]*string{"mine": nil, "theirs": &other} {
		svc := lbService(name)
		svc.Spec.LoadBalancerClass = class
		if _, err := client.CoreV1().Services("ns").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		svc, err := client.CoreV1().Services("ns").Get(ctx, "mine", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
			if !conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) || !conditions.HasAddress(svc.Status.LoadBalancer.Ingress) {
				t.Errorf("served without Provisioning=False and an address: %+v", svc.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not served after 20 s: %+v", svc.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	theirs, err := client.CoreV1().Services("ns").Get(ctx, "theirs", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(theirs.Status.Conditions) > 0 || len(theirs.Status.LoadBalancer.Ingress) > 0 {
		t.Errorf("P1: another class's Service got a status: %+v", theirs.Status)
	}
}

// ipv4TCP returns the capabilities of a provider of IPv4 and TCP that
// serves Services without a class and knows every feature.
func ipv4TCP() conditions.Capabilities {
	return conditions.Capabilities{
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Protocols: []corev1.Protocol{corev1.ProtocolTCP},
		DefaultClass: true, KnownFeatures: v1.LoadBalancerFeatures(),
	}
}

// run runs p until the test ends, and waits for it to stop.
func run(t *testing.T, p *Provider) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// Ingress lists the ports of every protocol the provider serves, and with
// MixedProtocols off only those of the first (P4's PortsNotSupported).
func TestIngress_MixedProtocols(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dns"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Port: 53, Protocol: corev1.ProtocolTCP}, {Port: 53, Protocol: corev1.ProtocolUDP}}}}
	caps := conditions.Capabilities{Protocols: []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP}, MixedProtocols: true}
	if in := Ingress(svc, caps); len(in) != 1 || len(in[0].Ports) != 2 {
		t.Errorf("mixed protocols: %+v, want both ports", in)
	}
	caps.MixedProtocols = false
	if in := Ingress(svc, caps); len(in) != 1 || len(in[0].Ports) != 1 || in[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("no mixed protocols: %+v, want the TCP port only", in)
	}
}

// Ingress of a nil Service is nil, not a panic.
func TestIngress_NilService(t *testing.T) {
	caps := conditions.Capabilities{Protocols: []corev1.Protocol{corev1.ProtocolTCP}}
	if in := Ingress((*corev1.Service)(nil), caps); in != nil {
		t.Errorf("Ingress of a nil *corev1.Service: %+v", in)
	}
	if in := Ingress((*v1.Service)(nil), caps); in != nil {
		t.Errorf("Ingress of a nil *v1.Service: %+v", in)
	}
}

// lbService returns a LoadBalancer Service ns/name of IPv4 with one TCP
// port, 80, as ipv4TCP serves.
func lbService(name string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
		Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
}

// goneIsNotFound makes client answer an apply of the status of a Service
// that is gone with NotFound, as an apiserver does, where the fake would
// make a new Service.
func goneIsNotFound(client *fake.Clientset) {
	client.PrependReactor("patch", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		_, err := client.Tracker().Get(a.GetResource(), a.GetNamespace(), a.(k8stesting.PatchAction).GetName())
		return err != nil, nil, err
	})
}

// eventually polls cond every 10 ms until it holds, or fails the test
// after 20 s with what.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %s", what)
		}
	}
}

// TestProvider_DeletionFreesTheAddress: the pool address of a Service
// that is deleted goes back to the pool, and the provider forgets how it
// acted on it.
func TestProvider_DeletionFreesTheAddress(t *testing.T) {
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	goneIsNotFound(client)
	p := New(client, Options{Pool: pool, Workers: 1, Capabilities: ipv4TCP()})
	run(t, p)
	svc := lbService("web")
	services := client.CoreV1().Services("ns")
	if _, err := services.Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Served, with nothing more to write: the fake's apply of a status
	// would create the Service again after its deletion.
	eventually(t, "not served", func() bool {
		got, err := services.Get(t.Context(), "web", metav1.GetOptions{})
		return err == nil && conditions.IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing) && p.View("ns", "web").Settled(got)
	})
	if pool.InUse() != 1 {
		t.Fatalf("%d addresses in use, want 1", pool.InUse())
	}
	if err := services.Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted Service's address is still in use, or the provider remembers acting on it", func() bool {
		return pool.InUse() == 0 && p.View("ns", "web").Acted == nil
	})
}

// TestProvider_FailSeesACopy: Options.Fail is given the Service's spec, as
// a copy: what it changes is not what the provider acted on.
func TestProvider_FailSeesACopy(t *testing.T) {
	client := fake.NewClientset()
	var mu sync.Mutex
	var seen []string
	p := New(client, Options{Workers: 1, Capabilities: ipv4TCP(), Fail: func(svc *corev1.Service) string {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %d", svc.Spec.Type, len(svc.Spec.Ports)))
		svc.Spec.Ports[0].Port = 9999
		return ""
	}})
	run(t, p)
	svc := lbService("web")
	if _, err := client.CoreV1().Services("ns").Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Fail is asked at the end of the provisioning.
	eventually(t, "not served", func() bool {
		got, err := client.CoreV1().Services("ns").Get(t.Context(), "web", metav1.GetOptions{})
		return err == nil && conditions.IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing) && p.View("ns", "web").Acted != nil
	})
	if acted := p.View("ns", "web").Acted; acted.Spec.Ports[0].Port != 80 {
		t.Errorf("acted on port %d, want 80: Fail changed the provider's Service", acted.Spec.Ports[0].Port)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "LoadBalancer 1" {
		t.Errorf("Fail saw %q, want a LoadBalancer with one port", seen)
	}
}

// TestProvider_P3_R1_LoadBalancerIPItCannotTake: a loadBalancerIP the
// load balancer can never take (outside its pool, not an address, of a
// family it does not serve the Service in) is one the provider cannot
// honor: a Service that asks for it is served elsewhere and degraded in
// LoadBalancerIP (P3), one that requires it is refused (R1). Neither is
// an infrastructure failure, which says nothing of what the provider
// supports and fails a client's test (T2) instead of skipping it (T1).
func TestProvider_P3_R1_LoadBalancerIPItCannotTake(t *testing.T) {
	pool, err := NewPool("10.0.0.0/24", "fd00:1b::/120")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	caps := ipv4TCP()
	caps.IPFamilies = append(caps.IPFamilies, corev1.IPv6Protocol)
	caps.LoadBalancerIP = true
	run(t, New(client, Options{Pool: pool, Workers: 2, Capabilities: caps}))
	ctx := t.Context()
	for _, tc := range []struct {
		name, ip  string
		required  bool
		wantServe metav1.ConditionStatus
	}{
		{"outside-asks", "198.18.255.100", false, metav1.ConditionTrue},
		{"outside-requires", "198.18.255.101", true, metav1.ConditionFalse},
		{"hostname-asks", "lb.example.com", false, metav1.ConditionTrue},
		{"family-requires", "fd00:1b::5", true, metav1.ConditionFalse},
		{"inside-requires", "10.0.0.7", true, metav1.ConditionTrue},
	} {
		svc := lbService(tc.name)
		svc.Spec.LoadBalancerIP = tc.ip
		if tc.required {
			svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: string(v1.LoadBalancerFeatureLoadBalancerIP)}
		}
		if _, err := client.CoreV1().Services("ns").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) {
			deadline := time.Now().Add(20 * time.Second)
			for {
				got, err := client.CoreV1().Services("ns").Get(ctx, tc.name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				conds := got.Status.Conditions
				if conditions.IsFalse(conds, v1.LoadBalancerConditionProvisioning) {
					serving := conditions.Get(conds, v1.LoadBalancerConditionServing)
					degraded := conditions.DegradedReasons(conds)
					switch {
					case serving == nil || serving.Status != tc.wantServe:
						t.Errorf("Serving %+v, want %s", serving, tc.wantServe)
					case tc.wantServe == metav1.ConditionFalse && serving.Reason != string(v1.LoadBalancerReasonUnsupported):
						t.Errorf("Serving=False/%s (%s), want Unsupported (R1)", serving.Reason, serving.Message)
					case tc.wantServe == metav1.ConditionTrue && tc.required && len(degraded) > 0:
						t.Errorf("degraded in %v, want served as asked", degraded)
					case tc.wantServe == metav1.ConditionTrue && !tc.required && !slices.Contains(degraded, v1.LoadBalancerReasonLoadBalancerIPNotSupported):
						t.Errorf("degraded in %v, want LoadBalancerIPNotSupported (P3); ingress %+v", degraded, got.Status.LoadBalancer.Ingress)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("not settled after 20 s: %+v", got.Status)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// Run recovers the pool addresses its Services' status shows before it
// writes anything: a Service served before a restart keeps its address,
// though it is not the first free one.
func TestProvider_RunKeepsTheAddressesShownAcrossARestart(t *testing.T) {
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	p := New(client, Options{Pool: pool, Workers: 1, Capabilities: ipv4TCP()})
	services := client.CoreV1().Services("ns")
	if _, err := services.Create(t.Context(), lbService("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	st := corev1ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, string(v1.LoadBalancerReasonComplete)),
		condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, string(v1.LoadBalancerReasonServing))).
		WithLoadBalancer(corev1ac.LoadBalancerStatus().WithIngress(corev1ac.LoadBalancerIngress().WithIP("198.18.0.2").
			WithIPMode(corev1.LoadBalancerIPModeVIP).WithPorts(corev1ac.PortStatus().WithPort(80).WithProtocol(corev1.ProtocolTCP))))
	if _, err := services.ApplyStatus(t.Context(), corev1ac.Service("web", "ns").WithStatus(st), metav1.ApplyOptions{FieldManager: p.manager, Force: true}); err != nil {
		t.Fatal(err)
	}
	run(t, p)
	eventually(t, "web not acted on", func() bool { return p.View("ns", "web").Acted != nil })
	svc, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in := svc.Status.LoadBalancer.Ingress; len(in) != 1 || in[0].IP != "198.18.0.2" {
		t.Errorf("after a restart web is served at %+v; want the 198.18.0.2 it showed", in)
	}
}
