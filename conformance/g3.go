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

package conformance

import (
	"encoding/binary"
	"errors"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// The checker remembers the load-balancer-relevant fields (G3) of each
// Service's last observation as a compact byte string rather than as a
// struct: one allocation of some 60 bytes instead of a dozen. An
// observation whose encoding is the same has no relevant change; one whose
// encoding differs is decoded back into a Service holding only those
// fields and judged by conditions.ChangedFields, which knows about defaults
// and sets. The encoding covers every field ChangedFields reads (a property
// test holds the two together).

// encodeG3 encodes the G3 fields of svc into the Checker's scratch buffer
// and returns it; the result is valid until the next call.
func (c *Checker) encodeG3(svc *v1.Service) []byte {
	s := &svc.Spec.ServiceSpec
	b := c.scratch[:0]
	b = appendString(b, string(s.Type))
	b = binary.AppendUvarint(b, uint64(len(s.Ports)))
	for i := range s.Ports {
		p := &s.Ports[i]
		b = binary.AppendVarint(b, int64(p.Port))
		b = binary.AppendVarint(b, int64(p.NodePort))
		b = appendString(b, string(p.Protocol))
	}
	b = appendString(b, s.LoadBalancerIP)
	b = appendStrings(b, s.LoadBalancerSourceRanges)
	b = appendString(b, svc.Annotations[corev1.AnnotationLoadBalancerSourceRangesKey])
	b = appendOptString(b, s.LoadBalancerClass)
	b = appendString(b, string(s.ExternalTrafficPolicy))
	b = binary.AppendVarint(b, int64(s.HealthCheckNodePort))
	b = appendString(b, string(s.SessionAffinity))
	if t := affinityTimeout(s); t != nil {
		b = append(b, 1)
		b = binary.AppendVarint(b, int64(*t))
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s.IPFamilies)))
	for _, f := range s.IPFamilies {
		b = appendString(b, string(f))
	}
	b = appendOptString(b, (*string)(s.IPFamilyPolicy))
	switch {
	case s.AllocateLoadBalancerNodePorts == nil:
		b = append(b, 0)
	case *s.AllocateLoadBalancerNodePorts:
		b = append(b, 1)
	default:
		b = append(b, 2)
	}
	b = appendOptString(b, s.TrafficDistribution)
	b = binary.AppendUvarint(b, uint64(len(svc.Spec.RequiredLoadBalancerFeatures)))
	for _, f := range svc.Spec.RequiredLoadBalancerFeatures {
		b = appendString(b, string(f))
	}
	b = appendAnnotation(b, svc.Annotations, v1.RequiredFeaturesAnnotation)
	for _, k := range c.opts.relevantAnnotations {
		b = appendAnnotation(b, svc.Annotations, k)
	}
	c.scratch = b
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return appendString(append(b, 1), *s)
}

func appendAnnotation(b []byte, ann map[string]string, key string) []byte {
	v, ok := ann[key]
	if !ok {
		return append(b, 0)
	}
	return appendString(append(b, 1), v)
}

// g3Reader reads what encodeG3 wrote. It reads the remembered string
// itself, so that the strings it returns are parts of it, not copies.
type g3Reader struct {
	s   string
	err error
}

var errG3 = errors.New("corrupt G3 encoding")

// uvarint reads what binary.AppendUvarint wrote. The bytes handed to
// binary.Uvarint are a copy of at most MaxVarintLen64 of them, which does
// not escape and so costs no allocation.
func (r *g3Reader) uvarint() uint64 {
	v, n := binary.Uvarint([]byte(r.s[:min(len(r.s), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.err = errG3
		return 0
	}
	r.s = r.s[n:]
	return v
}

// varint reads what binary.AppendVarint wrote.
func (r *g3Reader) varint() int64 {
	v, n := binary.Varint([]byte(r.s[:min(len(r.s), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.err = errG3
		return 0
	}
	r.s = r.s[n:]
	return v
}

func (r *g3Reader) byte() byte {
	if len(r.s) == 0 {
		r.err = errG3
		return 0
	}
	v := r.s[0]
	r.s = r.s[1:]
	return v
}

func (r *g3Reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.err = errG3
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

// optString reads an optional string into *to and returns to, or nil
// when the string is absent.
func (r *g3Reader) optString(to *string) *string {
	if r.byte() == 0 {
		return nil
	}
	*to = r.string()
	return to
}

// count reads a length, bounded by what is left: each item takes a byte
// at least.
func (r *g3Reader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.err = errG3
		return 0
	}
	return int(n)
}

// g3Old is what decodeG3 decodes into: the Service and what its pointers
// and map point to. The Checker keeps one and decodes into it again and
// again, so that once its slices have grown decoding allocates nothing.
type g3Old struct {
	svc v1.Service
	ann map[string]string
	// The lists' arrays, kept apart from svc, whose empty lists are nil.
	ports                       []corev1.ServicePort
	ranges                      []string
	families                    []corev1.IPFamily
	required                    []v1.LoadBalancerFeature
	class, policy, distribution string
	allocate                    bool
	timeout                     int32
	affinity                    corev1.SessionAffinityConfig
	clientIP                    corev1.ClientIPConfig
}

// decodeG3 rebuilds a Service that holds only the G3 fields encodeG3
// wrote. The Service is the Checker's, and its strings are parts of enc:
// it is valid until the next call, and the caller only reads it.
func (c *Checker) decodeG3(enc string) (*v1.Service, error) {
	r := &g3Reader{s: enc}
	d := &c.g3
	if d.ann == nil {
		d.ann = map[string]string{}
	}
	clear(d.ann)
	ports, ranges, families, required := d.ports[:0], d.ranges[:0], d.families[:0], d.required[:0]
	d.svc = v1.Service{}
	svc := &d.svc
	s := &svc.Spec.ServiceSpec
	s.Type = corev1.ServiceType(r.string())
	for range r.count() {
		p := corev1.ServicePort{Port: int32(r.varint()), NodePort: int32(r.varint())}
		p.Protocol = corev1.Protocol(r.string())
		ports = append(ports, p)
	}
	s.LoadBalancerIP = r.string()
	for range r.count() {
		ranges = append(ranges, r.string())
	}
	if v := r.string(); v != "" {
		d.ann[corev1.AnnotationLoadBalancerSourceRangesKey] = v
	}
	s.LoadBalancerClass = r.optString(&d.class)
	s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicy(r.string())
	s.HealthCheckNodePort = int32(r.varint())
	s.SessionAffinity = corev1.ServiceAffinity(r.string())
	if r.byte() == 1 {
		d.timeout = int32(r.varint())
		d.clientIP = corev1.ClientIPConfig{TimeoutSeconds: &d.timeout}
		d.affinity = corev1.SessionAffinityConfig{ClientIP: &d.clientIP}
		s.SessionAffinityConfig = &d.affinity
	}
	for range r.count() {
		families = append(families, corev1.IPFamily(r.string()))
	}
	s.IPFamilyPolicy = (*corev1.IPFamilyPolicy)(r.optString(&d.policy))
	switch r.byte() {
	case 1:
		d.allocate = true
		s.AllocateLoadBalancerNodePorts = &d.allocate
	case 2:
		d.allocate = false
		s.AllocateLoadBalancerNodePorts = &d.allocate
	}
	s.TrafficDistribution = r.optString(&d.distribution)
	for range r.count() {
		required = append(required, v1.LoadBalancerFeature(r.string()))
	}
	r.annotation(d.ann, v1.RequiredFeaturesAnnotation)
	for _, k := range c.opts.relevantAnnotations {
		r.annotation(d.ann, k)
	}
	d.ports, d.ranges, d.families, d.required = ports, ranges, families, required
	// An empty list decodes as nil, as an unset field is.
	s.Ports, s.LoadBalancerSourceRanges, s.IPFamilies, svc.Spec.RequiredLoadBalancerFeatures = orNil(ports), orNil(ranges), orNil(families), orNil(required)
	if r.err != nil {
		return nil, r.err
	}
	if len(d.ann) > 0 {
		svc.Annotations = d.ann
	}
	return svc, nil
}

// annotation reads an optional annotation value into ann under key.
func (r *g3Reader) annotation(ann map[string]string, key string) {
	if r.byte() == 1 {
		ann[key] = r.string()
	}
}

// orNil returns s, or nil when s is empty.
func orNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

// specChanges returns the load-balancer-relevant fields that changed since
// the previous observation, as conditions.ChangedFields names them, and
// remembers the new values.
func (c *Checker) specChanges(st *serviceState, svc *v1.Service) []string {
	enc := c.encodeG3(svc)
	if string(enc) == st.spec {
		return nil
	}
	old, err := c.decodeG3(st.spec)
	st.spec = string(enc)
	if err != nil {
		// Only this package writes the encoding; should it ever be
		// unreadable, say everything changed rather than nothing.
		return []string{"spec"}
	}
	return conditions.ChangedFields(old, svc, conditions.WithRelevantAnnotations(c.opts.relevantAnnotations...))
}

// sameG3 reports whether svc's load-balancer-relevant fields are those
// encoded in enc as conditions.ChangedFields compares them: with defaults
// filled in and sets in any order, as a provider sees no change between
// the two.
func (c *Checker) sameG3(enc string, svc *v1.Service) bool {
	if string(c.encodeG3(svc)) == enc {
		return true
	}
	old, err := c.decodeG3(enc)
	return err == nil && len(conditions.ChangedFields(old, svc, conditions.WithRelevantAnnotations(c.opts.relevantAnnotations...))) == 0
}
