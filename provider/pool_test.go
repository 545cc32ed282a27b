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
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
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
	for _, c := range []string{"198.18.0.0", "198.18.0.1/24", "198.18.0.0/31", "198.18.0.0/32", "fd00:1b::/128", "not-a-cidr"} {
		if _, err := NewPool(c); err == nil {
			t.Errorf("NewPool(%q): no error", c)
		}
	}
	// What a user gets from --pool names the value and the form wanted,
	// not the parser that refused it.
	if _, err := NewPool("198.18.0.0"); err == nil || err.Error() != `IP pool: "198.18.0.0" is not a CIDR, such as 198.18.0.0/16 or fd00:1b::/112` {
		t.Errorf("NewPool without a prefix length: %v", err)
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
	svc := v1.FromCore(&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: "198.18.0.1"}})
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

// TestPool_RequestedAddressOfItsFamily: a requested address of another
// family than the one asked for is refused, even when the pool holds it.
func TestPool_RequestedAddressOfItsFamily(t *testing.T) {
	p, err := NewPool("198.18.0.0/29", "fd00:1b::/125")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := p.Allocate("ns/a", corev1.IPv4Protocol, "fd00:1b::2"); err == nil {
		t.Errorf("an IPv6 address handed out as the IPv4 one: %v", a)
	}
	if p.InUse() != 0 {
		t.Errorf("InUse %d after a refused request, want 0", p.InUse())
	}
}

// TestNewPool_SmallestRanges: every CIDR with an address to hand out is a
// pool: an IPv6 /127 hands out its second address (IPv6 has no broadcast
// address), an IPv4 /30 the two between its network and broadcast
// addresses.
func TestNewPool_SmallestRanges(t *testing.T) {
	for cidr, want := range map[string][]string{
		"fd00:1b::/127": {"fd00:1b::1"},
		"fd00:1b::/126": {"fd00:1b::1", "fd00:1b::2", "fd00:1b::3"},
		"198.18.0.0/30": {"198.18.0.1", "198.18.0.2"},
	} {
		p, err := NewPool(cidr)
		if err != nil {
			t.Errorf("NewPool(%q): %v", cidr, err)
			continue
		}
		family := familyOf(netip.MustParsePrefix(cidr).Addr())
		var got []string
		for i := range len(want) + 1 {
			a, err := p.Allocate(fmt.Sprint("ns/", i), family, "")
			if err != nil {
				if !errors.Is(err, ErrPoolExhausted) {
					t.Errorf("%s: %v", cidr, err)
				}
				break
			}
			got = append(got, a.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s handed out %v, want %v", cidr, got, want)
		}
	}
}

// TestPool_OneAddressPerFamily: a key holds one address of each family.
// Asking for another address of a family moves the key to it and frees the
// one it held; a request that cannot be met leaves the key what it held,
// and the other family is not touched.
func TestPool_OneAddressPerFamily(t *testing.T) {
	p, err := NewPool("10.0.0.0/29", "fd00:1b::/125")
	if err != nil {
		t.Fatal(err)
	}
	v6, _ := p.Allocate("ns/a", corev1.IPv6Protocol, "")
	first, _ := p.Allocate("ns/a", corev1.IPv4Protocol, "")
	if a, err := p.Allocate("ns/a", corev1.IPv4Protocol, "10.0.0.5"); err != nil || a.String() != "10.0.0.5" {
		t.Fatalf("request for 10.0.0.5: %v, %v", a, err)
	}
	if p.InUse() != 2 {
		t.Errorf("InUse %d after moving to 10.0.0.5, want 2: the IPv6 address and 10.0.0.5", p.InUse())
	}
	if b, err := p.Allocate("ns/b", corev1.IPv4Protocol, first.String()); err != nil || b != first {
		t.Errorf("ns/b asking for the freed %v: %v, %v", first, b, err)
	}
	if _, err := p.Allocate("ns/a", corev1.IPv4Protocol, first.String()); err == nil {
		t.Errorf("ns/a was given %v, which ns/b holds", first)
	}
	if a, err := p.Allocate("ns/a", corev1.IPv4Protocol, ""); err != nil || a.String() != "10.0.0.5" {
		t.Errorf("after a request refused, ns/a holds %v, %v; want 10.0.0.5", a, err)
	}
	if a, err := p.Allocate("ns/a", corev1.IPv6Protocol, ""); err != nil || a != v6 {
		t.Errorf("ns/a's IPv6 address is %v, %v; want %v, untouched", a, err, v6)
	}
	if p.InUse() != 3 {
		t.Errorf("InUse %d, want 3", p.InUse())
	}
}

// TestPool_KeyAsksAgain: a key asking again for the address it holds gets
// it, however the request spells it, and still holds one address; a key
// claiming again what it holds is granted it.
func TestPool_KeyAsksAgain(t *testing.T) {
	p, err := NewPool("fd00:1b::/125")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fd00:1b::5", "FD00:1B:0::5"} {
		if a, err := p.Allocate("ns/a", corev1.IPv6Protocol, want); err != nil || a.String() != "fd00:1b::5" {
			t.Errorf("request for %s: %v, %v; want fd00:1b::5", want, a, err)
		}
	}
	if !p.Claim("ns/a", "fd00:1b::5") {
		t.Error("a key's claim of the address it holds refused")
	}
	if p.InUse() != 1 {
		t.Errorf("InUse %d, want 1", p.InUse())
	}
}

// TestPool_ReleasedKeyHoldsNothing: after Release, the key's old address
// is someone else's, and the key asking again gets a new one: an address
// is never handed out twice.
func TestPool_ReleasedKeyHoldsNothing(t *testing.T) {
	p, err := NewPool("198.18.0.0/29")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Allocate("ns/a", corev1.IPv4Protocol, "")
	p.Release("ns/a")
	b, err := p.Allocate("ns/b", corev1.IPv4Protocol, "")
	if err != nil || b != a {
		t.Fatalf("ns/b got %v, %v; want the freed %v", b, err, a)
	}
	if again, err := p.Allocate("ns/a", corev1.IPv4Protocol, ""); err != nil || again == b {
		t.Errorf("ns/a asking again got %v, %v; want an address other than ns/b's %v", again, err, b)
	}
}

// TestProvider_AddressesHonorLoadBalancerIPOnlyWhenCapable (P3): the
// requested loadBalancerIP is handed out only when the capabilities honor
// it and no injected bug ignores it; otherwise the Service gets a free
// address, and another Service may ask for the one it requested. A
// dual-stack Service gets its requested address in that address's family
// and a free one in the other.
func TestProvider_AddressesHonorLoadBalancerIPOnlyWhenCapable(t *testing.T) {
	v4 := []corev1.IPFamily{corev1.IPv4Protocol}
	for _, tc := range []struct {
		name     string
		caps     conditions.Capabilities
		bugs     Bugs
		families []corev1.IPFamily
		want     []string
	}{
		{"capable", conditions.Capabilities{IPFamilies: v4, LoadBalancerIP: true}, Bugs{}, v4, []string{"198.18.0.5"}},
		{"not capable", conditions.Capabilities{IPFamilies: v4}, Bugs{}, v4, []string{"198.18.0.1"}},
		{"ignored by a bug", conditions.Capabilities{IPFamilies: v4, LoadBalancerIP: true}, Bugs{IgnoreLoadBalancerIP: true}, v4, []string{"198.18.0.1"}},
		{"dual-stack", conditions.Capabilities{IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}, DualStack: true, LoadBalancerIP: true}, Bugs{},
			[]corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}, []string{"fd00::1", "198.18.0.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := NewPool("198.18.0.0/29", "fd00::/125")
			if err != nil {
				t.Fatal(err)
			}
			p := &Provider{opts: Options{Pool: pool, Capabilities: tc.caps, Bugs: tc.bugs}}
			svc := v1.FromCore(&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: "198.18.0.5", IPFamilies: tc.families}})
			addrs, err := p.addresses("ns/a", svc)
			var got []string
			for _, a := range addrs {
				got = append(got, a.String())
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("addresses %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestProvider_RecoverClaimsShownAddresses: a provider starting again
// claims the pool addresses the status of its Services shows, the oldest
// Service first when two show one address: those of its classes, serving
// or not, and those of a Service of another class whose status a provider
// that shared a class with it applied, its own earlier configuration. Not
// those of another provider's Service, whose addresses are its own though
// its pool may overlap.
func TestProvider_RecoverClaimsShownAddresses(t *testing.T) {
	pool, err := NewPool("198.18.0.0/29")
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{opts: Options{Pool: pool, Capabilities: conditions.Capabilities{
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Protocols: []corev1.Protocol{corev1.ProtocolTCP},
		DefaultClass: true, KnownFeatures: v1.LoadBalancerFeatures(),
	}}}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	service := func(name string, age time.Duration, class *string, serving metav1.ConditionStatus, ip string) *corev1.Service {
		reason := string(v1.LoadBalancerReasonInfrastructure)
		if serving == metav1.ConditionTrue {
			reason = "Serving"
		}
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.NewTime(base.Add(-age))},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerClass: class,
				Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}},
			Status: corev1.ServiceStatus{
				LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: ip}}},
				Conditions: []metav1.Condition{
					{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete"},
					{Type: string(v1.LoadBalancerConditionServing), Status: serving, Reason: reason},
				},
			},
		}
	}
	// Served while the provider also had this class.
	left := service("left", 4*time.Hour, ptr.To("example.com/gone"), metav1.ConditionTrue, "198.18.0.4")
	left.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: DefaultFieldManager + "/(default),example.com/gone",
		Operation: metav1.ManagedFieldsOperationApply, Subresource: "status"}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, svc := range []*corev1.Service{
		// Listed newest first: recover must sort.
		service("young", time.Hour, nil, metav1.ConditionTrue, "198.18.0.1"),
		service("old", 2*time.Hour, nil, metav1.ConditionTrue, "198.18.0.1"),
		service("theirs", 3*time.Hour, ptr.To("example.com/other"), metav1.ConditionTrue, "198.18.0.2"),
		service("failed", 3*time.Hour, nil, metav1.ConditionFalse, "198.18.0.3"),
		left,
	} {
		if err := indexer.Add(v1.FromCore(svc)); err != nil {
			t.Fatal(err)
		}
	}
	p.recover(indexer)
	if a, err := pool.Allocate("ns/old", corev1.IPv4Protocol, ""); err != nil || a.String() != "198.18.0.1" {
		t.Errorf("old got %v, %v; want the 198.18.0.1 its status shows", a, err)
	}
	if pool.InUse() != 3 {
		t.Errorf("InUse %d after recovery, want 3: the addresses of old, failed and left", pool.InUse())
	}
	if a, err := pool.Allocate("ns/new", corev1.IPv4Protocol, ""); err != nil || a.String() != "198.18.0.2" {
		t.Errorf("a new Service got %v, %v; want 198.18.0.2, which only another provider's Service shows", a, err)
	}
}

// TestProvider_AddressesRequestedButUnusable (P3, R1): a loadBalancerIP
// the load balancer can never take (not an address, which the apiserver
// lets through, of a family it does not serve the Service in, or outside
// its pool) is one the provider cannot honor for that Service: its
// capabilities for it lose LoadBalancerIP, so that Decide degrades or
// refuses it, and the Service gets a free address. Served there without
// that, it would claim to honor the request.
func TestProvider_AddressesRequestedButUnusable(t *testing.T) {
	v4, v6 := corev1.IPv4Protocol, corev1.IPv6Protocol
	for _, tc := range []struct {
		name, requested string
		families        []corev1.IPFamily
		dualStack       bool
		want            []string
	}{
		{"not an address", "lb.example.com", []corev1.IPFamily{v4}, true, []string{"198.18.0.1"}},
		{"another family", "fd00::5", []corev1.IPFamily{v4}, true, []string{"198.18.0.1"}},
		{"the family not served", "fd00::5", []corev1.IPFamily{v4, v6}, false, []string{"198.18.0.1"}},
		{"outside the pool", "198.51.100.7", []corev1.IPFamily{v4}, true, []string{"198.18.0.1"}},
		{"the pool's network address", "198.18.0.0", []corev1.IPFamily{v4}, true, []string{"198.18.0.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := NewPool("198.18.0.0/29", "fd00::/125")
			if err != nil {
				t.Fatal(err)
			}
			p := &Provider{opts: Options{Pool: pool, Capabilities: conditions.Capabilities{IPFamilies: []corev1.IPFamily{v4, v6}, DualStack: tc.dualStack, LoadBalancerIP: true}}}
			svc := v1.FromCore(&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: tc.requested, IPFamilies: tc.families}})
			if p.capabilities(svc).LoadBalancerIP {
				t.Errorf("the capabilities for the Service honor loadBalancerIP %s", tc.requested)
			}
			addrs, err := p.addresses("ns/a", svc)
			var got []string
			for _, a := range addrs {
				got = append(got, a.String())
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("addresses %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestProvider_NoPoolHonorsLoadBalancerIP (P3): without a pool, the made-up
// address gives way to the requested loadBalancerIP when the capabilities
// honor it and no injected bug ignores it: served elsewhere without a
// degradation, the Service would be told its request was honored.
func TestProvider_NoPoolHonorsLoadBalancerIP(t *testing.T) {
	v4 := []corev1.IPFamily{corev1.IPv4Protocol}
	for _, tc := range []struct {
		name      string
		capable   bool
		bugs      Bugs
		requested string
		honored   bool
	}{
		{"capable", true, Bugs{}, "198.51.100.7", true},
		{"nothing requested", true, Bugs{}, "", false},
		{"not capable", false, Bugs{}, "198.51.100.7", false},
		{"ignored by a bug", true, Bugs{IgnoreLoadBalancerIP: true}, "198.51.100.7", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Provider{opts: Options{Bugs: tc.bugs, Capabilities: conditions.Capabilities{IPFamilies: v4, LoadBalancerIP: tc.capable}}}
			svc := v1.FromCore(&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerIP: tc.requested}})
			svc.Namespace, svc.Name = "ns", "a"
			got := p.state("ns/a", svc, loadBalancer{state: conditions.LoadBalancerReady}, conditions.Decision{}, faults{}).Ingress
			madeUp := Ingress(svc, p.opts.Capabilities)[0].IP
			want := madeUp
			if tc.honored {
				want = tc.requested
			}
			if len(got) != 1 || got[0].IP != want {
				t.Errorf("ingress %+v, want one entry at %s", got, want)
			}
		})
	}
}

// With a field manager of its own choosing (Options.FieldManager), which
// names no class, the addresses a Service of another class shows are
// still the provider's when that manager applied them: its earlier
// configuration served the Service. They are not handed out again.
func TestProvider_RecoverClaimsAddressesUnderItsOwnFieldManager(t *testing.T) {
	pool, err := NewPool("198.18.0.0/29")
	if err != nil {
		t.Fatal(err)
	}
	p := New(nil, Options{Pool: pool, FieldManager: "example-lb", Capabilities: conditions.Capabilities{
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Protocols: []corev1.Protocol{corev1.ProtocolTCP},
		Classes: []string{"example.com/lb"}, KnownFeatures: v1.LoadBalancerFeatures(),
	}})
	svc := lbService("left")
	svc.Spec.LoadBalancerClass = ptr.To("example.com/gone")
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "198.18.0.1"}}
	svc.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "example-lb", Operation: metav1.ManagedFieldsOperationApply, Subresource: "status"}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(v1.FromCore(svc)); err != nil {
		t.Fatal(err)
	}
	p.recover(indexer)
	if a, err := pool.Allocate("ns/new", corev1.IPv4Protocol, ""); err != nil || a.String() == "198.18.0.1" {
		t.Errorf("a new Service got %v, %v; want an address other than the 198.18.0.1 ns/left shows", a, err)
	}
}

// An address the pool cannot give (requested, but another Service holds
// it; or none left) fails the load balancer in the infrastructure, both
// when a provisioning ends and when a serving load balancer is updated
// in place for a new spec: served without it, the Service would get a
// made-up address outside the pool.
func TestProvider_AddressesThePoolCannotGiveFail(t *testing.T) {
	pool, err := NewPool("198.18.0.0/30") // 198.18.0.1 and .2
	if err != nil {
		t.Fatal(err)
	}
	p := New(nil, Options{Pool: pool, Capabilities: conditions.Capabilities{IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, LoadBalancerIP: true}})
	for _, key := range []string{"ns/a", "ns/b"} {
		if _, err := pool.Allocate(key, corev1.IPv4Protocol, ""); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	for _, tc := range []struct {
		name      string
		requested string
		state     conditions.LoadBalancerState
	}{
		{"provisioned, the pool exhausted", "", conditions.LoadBalancerProvisioning},
		{"updated in place, the address requested in use", "198.18.0.1", conditions.LoadBalancerReady},
	} {
		svc := v1.FromCore(lbService("web"))
		svc.Spec.LoadBalancerIP = tc.requested
		lb := loadBalancer{state: tc.state, ready: now}
		p.ensure("ns/web", svc, record{acted: svc}, &lb, now, faults{})
		if lb.state != conditions.LoadBalancerFailed || lb.message == "" {
			t.Errorf("%s: load balancer %+v; want failed, saying why", tc.name, lb)
		}
	}
}

// A marker of a Service the provider let go of is kept when Run runs
// again and the Service is still there, the same one: its cleanup is
// done, and another provider's later write there is not removed (P1).
func TestProvider_P1_MarkerOfALiveServiceIsKept(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("other.example/lb"))
	services := s.client.CoreV1().Services("ns")
	svc, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.UID = "uid-web" // as an apiserver gives it
	if _, err := services.Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.served("other-provider")
	s.reconcile()
	if svc, err = services.Get(t.Context(), "web", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	if err := store.Add(v1.FromCore(svc)); err != nil {
		t.Fatal(err)
	}
	s.p.forgetGone(store)
	if rec, ok := s.p.record("ns/web"); !ok || !rec.letGo {
		t.Errorf("the marker of a Service still there went: %+v", rec)
	}
}
