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
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// ErrPoolExhausted is returned (wrapped) by Pool.Allocate when no address
// of the family is free.
var ErrPoolExhausted = errors.New("IP pool exhausted")

// Pool hands out the addresses of a set of IPv4 and IPv6 CIDRs to
// Services, each address to at most one Service. The network address of
// every CIDR, and the broadcast address of an IPv4 one, are never handed
// out. It is safe for concurrent use.
type Pool struct {
	mu       sync.Mutex
	prefixes []netip.Prefix
	owner    map[netip.Addr]string
	byKey    map[string][]netip.Addr
}

// NewPool returns a Pool of the given CIDRs ("198.18.0.0/24",
// "fd00:1b::/120"). A CIDR that does not parse, is not the start of its
// range, or holds no address to hand out (an IPv4 /31 or /32, an IPv6
// /128) is an error; no CIDR at all is an empty pool, from which every
// allocation fails.
func NewPool(cidrs ...string) (*Pool, error) {
	p := &Pool{owner: map[netip.Addr]string{}, byKey: map[string][]netip.Addr{}}
	for _, c := range cidrs {
		prefix, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			// netip's error names its own function: say what was wanted.
			return nil, fmt.Errorf("IP pool: %q is not a CIDR, such as 198.18.0.0/16 or fd00:1b::/112", strings.TrimSpace(c))
		}
		if prefix.Masked() != prefix {
			return nil, fmt.Errorf("IP pool: %s is not the start of its range (%s)", prefix, prefix.Masked())
		}
		need := 1 // host bits for the network address and one to hand out
		if prefix.Addr().Is4() {
			need = 2 // and for the broadcast address
		}
		if prefix.Addr().BitLen()-prefix.Bits() < need {
			return nil, fmt.Errorf("IP pool: %s holds no address to hand out", prefix)
		}
		p.prefixes = append(p.prefixes, prefix)
	}
	return p, nil
}

// String lists the pool's CIDRs, comma-separated; empty for a nil Pool.
func (p *Pool) String() string {
	if p == nil {
		return ""
	}
	s := make([]string, len(p.prefixes))
	for i, pr := range p.prefixes {
		s[i] = pr.String()
	}
	return strings.Join(s, ",")
}

func familyOf(a netip.Addr) corev1.IPFamily {
	if a.Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// usable reports whether a is an address of the pool that may be handed
// out.
func (p *Pool) usable(a netip.Addr) bool {
	for _, pr := range p.prefixes {
		if !pr.Contains(a) || a == pr.Addr() {
			continue
		}
		if a.Is4() && a == lastOf(pr) {
			return false
		}
		return true
	}
	return false
}

// lastOf returns the last address of an IPv4 prefix.
func lastOf(pr netip.Prefix) netip.Addr {
	b := pr.Addr().As4()
	host := uint32(1)<<(32-pr.Bits()) - 1
	v := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// Allocate returns key's address of family: the one key already holds, or
// want when it is given, in the pool and free, or the first free one. A
// key holds one address of each family: any other address of family it
// held is freed. A want outside the pool or held by another key is an
// error, and so is a family with no free address (ErrPoolExhausted); key
// then keeps what it held. A nil Pool has no address.
func (p *Pool) Allocate(key string, family corev1.IPFamily, want string) (netip.Addr, error) {
	if p == nil {
		return netip.Addr{}, fmt.Errorf("%w: no pool", ErrPoolExhausted)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.byKey[key] {
		if familyOf(a) == family && (want == "" || a.String() == want) {
			p.hold(key, a)
			return a, nil
		}
	}
	if want != "" {
		a, err := netip.ParseAddr(want)
		switch {
		case err != nil:
			return netip.Addr{}, fmt.Errorf("requested address %q: %w", want, err)
		case familyOf(a) != family:
			return netip.Addr{}, fmt.Errorf("requested address %s is not %s", a, family)
		case !p.usable(a):
			return netip.Addr{}, fmt.Errorf("requested address %s is not in the pool %s", a, p)
		case p.owner[a] != "" && p.owner[a] != key:
			return netip.Addr{}, fmt.Errorf("requested address %s is in use by another Service", a)
		}
		p.hold(key, a)
		return a, nil
	}
	for _, pr := range p.prefixes {
		if familyOf(pr.Addr()) != family {
			continue
		}
		// Linear from the start: the pool holds as many Services as a
		// test cluster has, so the scan stays short.
		for a := pr.Addr().Next(); pr.Contains(a); a = a.Next() {
			if !p.usable(a) {
				break
			}
			if _, used := p.owner[a]; !used {
				p.hold(key, a)
				return a, nil
			}
		}
	}
	return netip.Addr{}, fmt.Errorf("%w: no free %s address in %s", ErrPoolExhausted, family, p)
}

// hold makes a the one address of its family that key holds.
func (p *Pool) hold(key string, a netip.Addr) {
	held := []netip.Addr{a}
	for _, b := range p.byKey[key] {
		if familyOf(b) != familyOf(a) {
			held = append(held, b)
		} else if b != a {
			delete(p.owner, b)
		}
	}
	p.owner[a] = key
	p.byKey[key] = held
}

func (p *Pool) take(key string, a netip.Addr) {
	p.owner[a] = key
	p.byKey[key] = append(p.byKey[key], a)
}

// Claim records that key holds addr, as the status of its Service says
// after a restart. It returns false, and records nothing, when addr does
// not parse, is not in the pool, or another key holds it: the Service then
// gets another address. A nil Pool claims nothing.
func (p *Pool) Claim(key, addr string) bool {
	if p == nil {
		return false
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.usable(a) {
		return false
	}
	if owner, used := p.owner[a]; used {
		return owner == key
	}
	p.take(key, a)
	return true
}

// retain frees the addresses key holds but keep does not list: those of a
// loadBalancerIP or an IP family the Service asks for no longer.
func (p *Pool) retain(key string, keep []netip.Addr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := p.byKey[key][:0]
	for _, a := range p.byKey[key] {
		if slices.Contains(keep, a) {
			held = append(held, a)
		} else {
			delete(p.owner, a)
		}
	}
	if len(held) == 0 {
		delete(p.byKey, key)
		return
	}
	p.byKey[key] = held
}

// Release frees every address key holds. A nil Pool or an unknown key is
// a no-op.
func (p *Pool) Release(key string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.byKey[key] {
		delete(p.owner, a)
	}
	delete(p.byKey, key)
}

// InUse returns how many addresses are handed out; zero for a nil Pool.
func (p *Pool) InUse() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.owner)
}

// servedFamilies returns the IP families the load balancer of svc serves
// with caps: the Service's families caps supports (IPv4 when the Service
// names none yet), only the first without DualStack.
func servedFamilies(svc *v1.Service, caps conditions.Capabilities) []corev1.IPFamily {
	families := svc.Spec.IPFamilies
	if len(families) == 0 {
		families = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	var served []corev1.IPFamily
	for _, f := range families {
		if slices.Contains(caps.IPFamilies, f) {
			served = append(served, f)
		}
	}
	if !caps.DualStack && len(served) > 1 {
		served = served[:1]
	}
	return served
}

// takeable returns the requested spec.loadBalancerIP of svc as an address
// its load balancer can take with the provider's own capabilities, or why
// it can never take it: not an address (the apiserver does not check),
// not of the IP families it serves the Service in, or, with a pool, not
// one the pool hands out. An address in use by another Service is
// takeable: it may be freed.
func (p *Provider) takeable(svc *v1.Service) (netip.Addr, error) {
	a, err := netip.ParseAddr(svc.Spec.LoadBalancerIP)
	served := servedFamilies(svc, p.opts.Capabilities)
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("requested address %q is not an IP address", svc.Spec.LoadBalancerIP)
	case !slices.Contains(served, familyOf(a)):
		return netip.Addr{}, fmt.Errorf("requested address %s is not of the IP families the load balancer serves (%v)", a, served)
	case p.opts.Pool != nil && !p.opts.Pool.usable(a):
		return netip.Addr{}, fmt.Errorf("requested address %s is not in the pool %s", a, p.opts.Pool)
	}
	return a, nil
}

// addresses returns the pool's addresses of svc: one per IP family its
// load balancer serves (servedFamilies), the requested spec.loadBalancerIP
// when the capabilities for svc honor it (see Provider.capabilities); the
// others key held are freed. Without a pool: the requested address alone
// when it is honored, else nil.
func (p *Provider) addresses(key string, svc *v1.Service) ([]netip.Addr, error) {
	caps := p.capabilities(svc)
	served := servedFamilies(svc, caps)
	// A requested address the load balancer can never take is not
	// honored for this Service (capabilities): Decide degrades or refuses
	// it (P3, R1). Served elsewhere without that, the Service would be
	// told its request was honored.
	var requested netip.Addr
	if caps.LoadBalancerIP && svc.Spec.LoadBalancerIP != "" && !p.opts.Bugs.IgnoreLoadBalancerIP {
		requested, _ = p.takeable(svc) // takeable, or caps would not honor it
	}
	if p.opts.Pool == nil {
		if requested.IsValid() {
			return []netip.Addr{requested}, nil
		}
		return nil, nil
	}
	var out []netip.Addr
	for _, f := range served {
		want := ""
		if requested.IsValid() && familyOf(requested) == f {
			want = requested.String()
		}
		a, err := p.opts.Pool.Allocate(key, f, want)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	p.opts.Pool.retain(key, out)
	return out, nil
}

// withAddresses returns one ingress entry per address, each with the ports
// of the first entry of in.
func withAddresses(in []corev1.LoadBalancerIngress, addrs []netip.Addr) []corev1.LoadBalancerIngress {
	if len(in) == 0 || len(addrs) == 0 {
		return in
	}
	out := make([]corev1.LoadBalancerIngress, 0, len(addrs))
	for _, a := range addrs {
		e := *in[0].DeepCopy()
		e.IP = a.String()
		out = append(out, e)
	}
	return out
}

// recover claims, before the provider writes anything, the pool addresses
// that the status of its Services already shows (ownAddresses), so that no
// address is handed out twice across a restart: not one a Service of its
// classes holds, nor one that a Service an earlier configuration of it
// served, and it no longer serves, still shows.
func (p *Provider) recover(store cache.Store) {
	if p.opts.Pool == nil {
		return
	}
	var services []*v1.Service
	for _, obj := range store.List() {
		if svc, ok := obj.(*v1.Service); ok {
			services = append(services, svc)
		}
	}
	// Oldest first: when two Services claim one address, the older keeps it.
	slices.SortFunc(services, func(a, b *v1.Service) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	for _, svc := range services {
		if p.ownAddresses(svc, conditions.Decide(svc, p.opts.Capabilities).Action) {
			p.claimShown(svc.Namespace+"/"+svc.Name, svc)
		}
	}
}

// ownAddresses reports whether the pool addresses svc's status shows are
// this provider's: svc is of its classes (action is what it decided for
// svc), or its status was applied by this provider or by a reference
// provider that shares a class with it, as its field manager names them
// (referenceClasses), and so by an earlier configuration of it (two
// providers do not serve one class). A provider of other classes keeps its
// addresses apart, though its pool may overlap.
func (p *Provider) ownAddresses(svc *v1.Service, action conditions.Action) bool {
	if action != conditions.ActionIgnore {
		return true
	}
	caps := p.opts.Capabilities
	for _, m := range svc.ManagedFields {
		classes, _ := referenceClasses(m.Manager)
		shared := m.Manager == p.manager || slices.ContainsFunc(classes, func(c string) bool {
			return slices.Contains(caps.Classes, c) || c == defaultClassName && caps.DefaultClass
		})
		if shared && conditions.OwnsStatus(svc, m.Manager) {
			return true
		}
	}
	return false
}

// claimShown claims for key the pool addresses svc's status shows, whoever
// wrote them.
func (p *Provider) claimShown(key string, svc *v1.Service) {
	for _, in := range svc.Status.LoadBalancer.Ingress {
		p.opts.Pool.Claim(key, in.IP)
	}
}
