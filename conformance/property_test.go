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
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

// genService draws a LoadBalancer Service from a small domain, so that two
// draws often agree in some fields and differ in others: every G3 field,
// the annotations ChangedFields reads, and fields it must ignore.
func genService(t *rapid.T) *v1.Service {
	svc := newLB("web")
	s := &svc.Spec.ServiceSpec
	s.Type = rapid.SampledFrom([]corev1.ServiceType{"", corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP}).Draw(t, "type")
	nports := rapid.IntRange(0, 3).Draw(t, "ports")
	s.Ports = nil
	for i := range nports {
		s.Ports = append(s.Ports, corev1.ServicePort{
			Name:     rapid.SampledFrom([]string{"a", "b"}).Draw(t, "portName"),
			Port:     int32(80 + i*rapid.IntRange(0, 1).Draw(t, "portStep")),
			Protocol: rapid.SampledFrom([]corev1.Protocol{"", corev1.ProtocolTCP, corev1.ProtocolUDP}).Draw(t, "protocol"),
			NodePort: int32(rapid.IntRange(30000, 30001).Draw(t, "nodePort")),
		})
	}
	s.LoadBalancerIP = rapid.SampledFrom([]string{"", "192.0.2.1"}).Draw(t, "lbIP")
	s.LoadBalancerSourceRanges = rapid.SliceOfN(rapid.SampledFrom([]string{"10.0.0.0/8", " 10.0.0.0/8", "192.168.0.0/16"}), 0, 2).Draw(t, "ranges")
	s.LoadBalancerClass = rapid.SampledFrom([]*string{nil, ptr.To(""), ptr.To("a/b")}).Draw(t, "class")
	s.ExternalTrafficPolicy = rapid.SampledFrom([]corev1.ServiceExternalTrafficPolicy{"", "Cluster", "Local"}).Draw(t, "etp")
	s.HealthCheckNodePort = int32(rapid.IntRange(0, 1).Draw(t, "hcnp"))
	s.SessionAffinity = rapid.SampledFrom([]corev1.ServiceAffinity{"", "None", "ClientIP"}).Draw(t, "affinity")
	switch rapid.IntRange(0, 3).Draw(t, "affinityConfig") {
	case 1:
		s.SessionAffinityConfig = &corev1.SessionAffinityConfig{}
	case 2:
		s.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](10800)}}
	case 3:
		s.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](60)}}
	}
	s.IPFamilies = rapid.SliceOfN(rapid.SampledFrom([]corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}), 0, 2).Draw(t, "families")
	s.IPFamilyPolicy = rapid.SampledFrom([]*corev1.IPFamilyPolicy{nil, ptr.To(corev1.IPFamilyPolicySingleStack), ptr.To(corev1.IPFamilyPolicyPreferDualStack)}).Draw(t, "familyPolicy")
	s.AllocateLoadBalancerNodePorts = rapid.SampledFrom([]*bool{nil, ptr.To(true), ptr.To(false)}).Draw(t, "allocate")
	s.TrafficDistribution = rapid.SampledFrom([]*string{nil, ptr.To(""), ptr.To("PreferClose")}).Draw(t, "distribution")
	svc.Spec.RequiredLoadBalancerFeatures = rapid.SliceOfN(rapid.SampledFrom([]v1.LoadBalancerFeature{"Ports", "SessionAffinity"}), 0, 2).Draw(t, "required")
	ann := map[string]string{}
	if v := rapid.SampledFrom([]string{"-", "", "Ports", "SessionAffinity,Ports", "Bogus"}).Draw(t, "requiredAnnotation"); v != "-" {
		ann[v1.RequiredFeaturesAnnotation] = v
	}
	if v := rapid.SampledFrom([]string{"-", "10.0.0.0/8"}).Draw(t, "rangesAnnotation"); v != "-" {
		ann[corev1.AnnotationLoadBalancerSourceRangesKey] = v
	}
	if v := rapid.SampledFrom([]string{"-", "", "large"}).Draw(t, "relevantAnnotation"); v != "-" {
		ann["lb.example.com/size"] = v
	}
	if v := rapid.SampledFrom([]string{"-", "x"}).Draw(t, "otherAnnotation"); v != "-" {
		ann["example.com/owner"] = v
	}
	if len(ann) > 0 {
		svc.Annotations = ann
	}
	s.Selector = rapid.SampledFrom([]map[string]string{nil, {"app": "web"}}).Draw(t, "selector")
	return svc
}

// The checker keeps a copy of the G3 fields instead of the previous
// object; its verdict on "did a load-balancer-relevant field change" must be
// ChangedFields' on the whole objects.
func TestCheck_L6_ChangeDetectionAgreesWithConditions(t *testing.T) {
	const key = "lb.example.com/size"
	rapid.Check(t, func(t *rapid.T) {
		old := genService(t)
		c := NewChecker(RelevantAnnotations{key})
		st := &serviceState{spec: string(c.encodeG3(old))}
		// A few changes in a row: the checker decodes each into the same
		// Service, which must hold nothing of the one before.
		for range rapid.IntRange(1, 3).Draw(t, "changes") {
			cur := genService(t)
			got := c.specChanges(st, cur)
			want := conditions.ChangedFields(old, cur, conditions.WithRelevantAnnotations(key))
			if !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
				t.Fatalf("changed fields %v, ChangedFields says %v", got, want)
			}
			// And the copy is now cur's: no change against cur itself.
			if again := c.specChanges(st, cur); len(again) != 0 {
				t.Fatalf("after remembering, %v still differ", again)
			}
			old = cur
		}
	})
}

// The memos of clean validation results, of whole observations and of
// single conditions, only save work: with them or without them, the
// findings are the same.
func TestCheck_ValidationMemoChangesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var trace []*v1.Service
		n := rapid.IntRange(1, 12).Draw(t, "steps")
		svc := ready("web", 10)
		for i := range n {
			svc = next(svc)
			switch rapid.IntRange(0, 11).Draw(t, "edit") {
			case 0: // nothing: the same inputs again
			case 1:
				getCond(t, svc, v1.LoadBalancerConditionServing).Status = rapid.SampledFrom([]metav1.ConditionStatus{"True", "False", "Unknown", "Maybe"}).Draw(t, "status")
			case 2:
				svc.Spec.RequiredLoadBalancerFeatures = rapid.SliceOfN(rapid.SampledFrom([]v1.LoadBalancerFeature{"Ports", "Bogus"}), 0, 2).Draw(t, "required")
			case 3:
				svc.Generation = int64(rapid.IntRange(0, 2).Draw(t, "generation"))
				getCond(t, svc, v1.LoadBalancerConditionServing).ObservedGeneration = int64(rapid.IntRange(0, 3).Draw(t, "observed"))
			case 4:
				getCond(t, svc, v1.LoadBalancerConditionProvisioning).Reason = rapid.SampledFrom([]string{"Complete", "Provisioning", "bad reason"}).Draw(t, "reason")
			case 5:
				svc.Spec.Type = rapid.SampledFrom([]corev1.ServiceType{corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP}).Draw(t, "type")
			case 6: // an unchanged condition may stop being bounded by the generation
				getCond(t, svc, v1.LoadBalancerConditionProvisioning).ObservedGeneration = int64(rapid.IntRange(0, 3).Draw(t, "observed"))
			case 7:
				svc.Generation = int64(rapid.IntRange(0, 3).Draw(t, "generation"))
			case 8: // a copy of a condition: a duplicate type, with equal content
				svc.Status.Conditions = append(svc.Status.Conditions, *getCond(t, svc, v1.LoadBalancerConditionProvisioning))
			case 9:
				getCond(t, svc, v1.LoadBalancerConditionProvisioning).LastTransitionTime = rapid.SampledFrom([]metav1.Time{{}, at(10), at(11)}).Draw(t, "provisioningTime")
			case 10: // another Service with the same conditions: the memo is the checker's
				svc.Name = rapid.SampledFrom([]string{"web", "api", "db"}).Draw(t, "name")
			case 11: // the same content under another type, which may judge it otherwise (C3)
				serving, prov := getCond(t, svc, v1.LoadBalancerConditionServing), getCond(t, svc, v1.LoadBalancerConditionProvisioning)
				serving.Reason = rapid.SampledFrom([]string{"Serving", "Complete"}).Draw(t, "servingReason")
				if rapid.Bool().Draw(t, "copy") {
					prov.Status, prov.Reason, prov.Message, prov.ObservedGeneration = serving.Status, serving.Reason, serving.Message, serving.ObservedGeneration
				}
			}
			if rapid.Bool().Draw(t, "serving moves") {
				getCond(t, svc, v1.LoadBalancerConditionServing).LastTransitionTime = at(10 + i)
			}
			trace = append(trace, svc)
		}
		memo, direct := NewChecker(), NewChecker()
		direct.noMemo = true
		for i, svc := range trace {
			a, b := memo.Observe(svc), direct.Observe(svc)
			if !cmp.Equal(a, b, cmpopts.EquateEmpty()) {
				t.Fatalf("observation %d: with memo\n%s\nwithout\n%s", i, dump(a), dump(b))
			}
		}
	})
}

// A generated trace of a conformant provider has no violation and no
// warning, and its verdicts end Ready.
func TestCheck_GeneratedTraceConforms(t *testing.T) {
	var buf bytes.Buffer
	if err := conformancetest.WriteStream(&buf, conformancetest.StreamOptions{Services: 30, Observations: 30 * 15}); err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder(&buf, "stream")
	c := NewChecker(RequireConditions(true))
	col := NewCollector()
	for {
		obj, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		col.Observe(obj, c.ObserveObject(obj))
	}
	col.Findings(c.Finish())
	r := col.Report()
	if r.Summary.Observations != 450 || r.Summary.Services != 30 {
		t.Fatalf("summary %+v", r.Summary)
	}
	if r.Summary.Findings.Violations+r.Summary.Findings.Warnings != 0 {
		for _, s := range r.Services {
			t.Log(dump(s.Findings))
		}
		t.Fatalf("a conformant trace has findings: %+v", r.Summary.Findings)
	}
	for _, s := range r.Services {
		if s.Verdict == nil || s.Verdict.Result != conditions.ResultReady {
			t.Errorf("%s/%s ends with verdict %+v, want Ready", s.Namespace, s.Name, s.Verdict)
		}
	}
}

// Memory grows with the number of distinct Services, not with the number
// of observations: observing the same Services again keeps the heap flat.
func TestCheck_MemoryGrowsWithServicesNotObservations(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const services = 2000
	c := NewChecker()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	observe := func(round int) {
		for i := range services {
			c.Observe(conformancetest.Step(i, round))
		}
	}
	base := heap()
	observe(0)
	observe(1)
	observe(2)
	afterFew := heap()
	for round := 3; round < 23; round++ {
		observe(round)
	}
	afterMany := heap()
	perService := float64(afterFew-base) / services
	if c.Services() != services {
		t.Fatalf("Services() = %d, want %d", c.Services(), services)
	}
	// 20 more observations of each Service: the heap may wobble, but not
	// grow by anything like a Service per observation.
	if grown := float64(afterMany) - float64(afterFew); grown > 0.5*float64(afterFew-base) {
		t.Errorf("heap grew by %.0f bytes over %d more observations (state is %.0f bytes per Service)", grown, 20*services, perService)
	}
	if perService > 2048 {
		t.Errorf("state is %.0f bytes per Service, want at most 2 KiB", perService)
	}
	t.Logf("state: %.0f bytes per Service", perService)
}

// ObserveCore reads client-go's Service in place: for any trace, its
// findings are Observe's on a copy converted with v1.FromCore, and the
// Services it is given stay as they were.
func TestObserveCore_SameAsObserveOfACopy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := []Option{RelevantAnnotations{"lb.example.com/size"}}
		if rapid.Bool().Draw(t, "classes") {
			opts = append(opts, Classes{"", "a/b"})
		}
		inPlace, copied := NewChecker(opts...), NewChecker(opts...)
		for i := range rapid.IntRange(1, 8).Draw(t, "steps") {
			svc := genService(t)
			svc.UID = types.UID(rapid.SampledFrom([]string{"", "uid-1", "uid-2"}).Draw(t, "uid"))
			svc.ResourceVersion = fmt.Sprint(i + 1)
			s := rapid.IntRange(10, 12).Draw(t, "second")
			switch rapid.IntRange(0, 3).Draw(t, "state") {
			case 1:
				setProvisioning(svc, s)
			case 2:
				setReady(svc, s)
				if rapid.Bool().Draw(t, "degraded") {
					svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, "Ports", at(s)))
				}
			case 3:
				setRefused(svc, s)
			}
			core := v1.ToCore(svc) // the required features in the annotation only
			before := core.DeepCopy()
			got, want := inPlace.ObserveCore(core), copied.Observe(v1.FromCore(core))
			if !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
				t.Fatalf("observation %d: ObserveCore\n%s\nObserve of a copy\n%s", i, dump(got), dump(want))
			}
			if diff := cmp.Diff(before, core); diff != "" {
				t.Fatalf("observation %d: ObserveCore changed the Service (-before +after):\n%s", i, diff)
			}
		}
		if got, want := inPlace.Finish(), copied.Finish(); !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Fatalf("at the end: ObserveCore's checker\n%s\nObserve's\n%s", dump(got), dump(want))
		}
	})
	if (&Checker{}).ObserveCore(nil) != nil {
		t.Errorf("ObserveCore(nil) gave findings")
	}
}
