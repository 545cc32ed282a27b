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

// g3Reader reads what encodeG3 wrote.
type g3Reader struct {
	b   []byte
	err error
}

var errG3 = errors.New("corrupt G3 encoding")

func (r *g3Reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errG3
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *g3Reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errG3
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *g3Reader) byte() byte {
	if len(r.b) == 0 {
		r.err = errG3
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *g3Reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = errG3
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *g3Reader) optString() *string {
	if r.byte() == 0 {
		return nil
	}
	s := r.string()
	return &s
}

// count reads a length, bounded by what is left: each item takes a byte
// at least.
func (r *g3Reader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = errG3
		return 0
	}
	return int(n)
}

// decodeG3 rebuilds a Service that holds only the G3 fields encodeG3
// wrote.
func (c *Checker) decodeG3(enc string) (*v1.Service, error) {
	r := &g3Reader{b: []byte(enc)}
	svc := &v1.Service{}
	s := &svc.Spec.ServiceSpec
	ann := map[string]string{}
	s.Type = corev1.ServiceType(r.string())
	for range r.count() {
		p := corev1.ServicePort{Port: int32(r.varint()), NodePort: int32(r.varint())}
		p.Protocol = corev1.Protocol(r.string())
		s.Ports = append(s.Ports, p)
	}
	s.LoadBalancerIP = r.string()
	for range r.count() {
		s.LoadBalancerSourceRanges = append(s.LoadBalancerSourceRanges, r.string())
	}
	if v := r.string(); v != "" {
		ann[corev1.AnnotationLoadBalancerSourceRangesKey] = v
	}
	s.LoadBalancerClass = r.optString()
	s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicy(r.string())
	s.HealthCheckNodePort = int32(r.varint())
	s.SessionAffinity = corev1.ServiceAffinity(r.string())
	if r.byte() == 1 {
		t := int32(r.varint())
		s.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &t}}
	}
	for range r.count() {
		s.IPFamilies = append(s.IPFamilies, corev1.IPFamily(r.string()))
	}
	s.IPFamilyPolicy = (*corev1.IPFamilyPolicy)(r.optString())
	switch r.byte() {
	case 1:
		t := true
		s.AllocateLoadBalancerNodePorts = &t
	case 2:
		f := false
		s.AllocateLoadBalancerNodePorts = &f
	}
	s.TrafficDistribution = r.optString()
	for range r.count() {
		svc.Spec.RequiredLoadBalancerFeatures = append(svc.Spec.RequiredLoadBalancerFeatures, v1.LoadBalancerFeature(r.string()))
	}
	keys := append([]string{v1.RequiredFeaturesAnnotation}, c.opts.relevantAnnotations...)
	for _, k := range keys {
		if r.byte() == 1 {
			ann[k] = r.string()
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(ann) > 0 {
		svc.Annotations = ann
	}
	return svc, nil
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
