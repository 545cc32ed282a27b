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
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/lbstatus/lbstatus/conditions"
)

func TestPool_NeverTwiceAndExhausted(t *testing.T) {
	// A /30 has two addresses to hand out: .1 and .2 (not the network
	// address .0, nor the broadcast address .3).
	p, err := NewPool("198.18.0.0/30", "fd00:1b::/126")
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Allocate("ns/a", corev1.IPv4Protocol, "")
	if err != nil || a.String() != "198.18.0.1" {
		t.Fatalf("first allocation %v, %v; want 198.18.0.1", a, err)
	}
	if again, _ := p.Allocate("ns/a", corev1.IPv4Protocol, ""); again != a {
		t.Errorf("a key asking again got %v, want its %v", again, a)
	}
	b, err := p.Allocate("ns/b", corev1.IPv4Protocol, "")
	if err != nil || b.String() != "198.18.0.2" {
		t.Fatalf("second allocation %v, %v; want 198.18.0.2", b, err)
	}
	if c, err := p.Allocate("ns/c", corev1.IPv4Protocol, ""); !errors.Is(err, ErrPoolExhausted) {
		t.Errorf("third allocation %v, %v; want ErrPoolExhausted", c, err)
	}
	if v6, err := p.Allocate("ns/c", corev1.IPv6Protocol, ""); err != nil || v6.String() != "fd00:1b::1" {
		t.Errorf("IPv6 allocation %v, %v; want fd00:1b::1", v6, err)
	}
	p.Release("ns/a")
	if c, err := p.Allocate("ns/c", corev1.IPv4Protocol, ""); err != nil || c != a {
		t.Errorf("after release: %v, %v; want the freed %v", c, err, a)
	}
	if p.InUse() != 3 {
		t.Errorf("InUse %d, want 3", p.InUse())
	}
}

func TestPool_RequestedAndClaimed(t *testing.T) {
	p, err := NewPool("198.18.0.0/29")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Claim("ns/old", "198.18.0.1") {
		t.Fatal("claim of a free pool address refused")
	}
	if p.Claim("ns/other", "198.18.0.1") {
		t.Error("an address claimed twice")
	}
	if p.Claim("ns/other", "10.0.0.1") || p.Claim("ns/other", "198.18.0.0") || p.Claim("ns/other", "nonsense") {
		t.Error("an address outside the pool, the network address or garbage claimed")
	}
	if a, err := p.Allocate("ns/new", corev1.IPv4Protocol, ""); err != nil || a.String() != "198.18.0.2" {
		t.Errorf("allocation after a claim %v, %v; want 198.18.0.2", a, err)
	}
	if a, err := p.Allocate("ns/want", corev1.IPv4Protocol, "198.18.0.5"); err != nil || a.String() != "198.18.0.5" {
		t.Errorf("requested address %v, %v; want 198.18.0.5", a, err)
	}
	for _, want := range []string{"198.18.0.1", "192.0.2.1", "fd00::1"} {
		if a, err := p.Allocate("ns/x", corev1.IPv4Protocol, want); err == nil {
			t.Errorf("request for %s granted as %v", want, a)
		}
	}
}

func TestNewPool_BadCIDRs(t *testing.T) {
	for _, c := range []string{"198.18.0.0", "198.18.0.1/24", "198.18.0.0/31", "not-a-cidr"} {
		if _, err := NewPool(c); err == nil {
			t.Errorf("NewPool(%q): no error", c)
		}
	}
	var nilPool *Pool
	if _, err := nilPool.Allocate("k", corev1.IPv4Protocol, ""); !errors.Is(err, ErrPoolExhausted) {
		t.Errorf("nil pool: %v", err)
	}
	nilPool.Release("k")
}

// TestProvider_AddressesFollowTheSpec: a Service holds one address per IP
// family it is served in; one it no longer asks for (a changed
// loadBalancerIP, a dropped family) goes back to the pool.
func TestProvider_AddressesFollowTheSpec(t *testing.T) {
	pool, err := NewPool("198.18.0.0/29", "fd00::/125")
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{opts: Options{Pool: pool, Capabilities: conditions.Capabilities{
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}, DualStack: true, LoadBalancerIP: true}}}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: "198.18.0.1"}}
	step := func(want ...string) {
		t.Helper()
		addrs, err := p.addresses("ns/a", svc)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range addrs {
			got = append(got, a.String())
		}
		if !slices.Equal(got, want) || pool.InUse() != len(want) {
			t.Errorf("addresses %v with %d in use, want %v", got, pool.InUse(), want)
		}
	}
	step("198.18.0.1")
	svc.Spec.LoadBalancerIP = "198.18.0.2"
	step("198.18.0.2")
	if a, err := pool.Allocate("ns/b", corev1.IPv4Protocol, "198.18.0.1"); err != nil {
		t.Errorf("the address given up is still held: %v, %v", a, err)
	}
	pool.Release("ns/b")
	svc.Spec.LoadBalancerIP = ""
	step("198.18.0.2")
	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}
	step("fd00::1", "198.18.0.2")
	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
	step("fd00::1")
}
