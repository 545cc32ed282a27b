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
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzConditionsReadService reads its bytes as a sequence of JSON
// Services, whatever a client or a provider may be handed, and holds the
// functions that read one to what their documentation and section 6
// promise, for each Service and each consecutive pair:
//
//   - Evaluate gives T1 Skip, T2 Fail, T3 Ready or T4 Pending, the same for
//     the core/v1 form, from status.conditions and the ingress alone; Ready
//     only with Serving=True, Provisioning=False and an address (T3, L4),
//     Fail only with Serving=False/Infrastructure and Provisioning=False
//     (T2); a feature under test can only turn a verdict into a skip, and
//     an unknown one changes nothing; ShouldSkip agrees with it;
//   - StatusApply carries the Service's name, namespace and
//     resourceVersion, and of its status exactly the KEP-4631 conditions,
//     in order, and the ingress: no spec, no other metadata, no other
//     condition;
//   - ChangeSeen(x, x) is false, ChangeSeen(nil, x) is whether x has
//     Provisioning, ChangeSeen(x, nil) is false, and for a pair it is L6's
//     test: the later one has Provisioning, and the earlier one none or one
//     of another lastTransitionTime; while it is false the Pending reason
//     of WithSpecChange names L6;
//   - none of them changes the Service it reads, and none panics.
func FuzzConditionsReadService(f *testing.F) {
	for name, svcs := range readServiceSeeds() {
		var b bytes.Buffer
		for _, s := range svcs {
			data, err := json.Marshal(s)
			if err != nil {
				f.Fatal(err)
			}
			b.Write(data)
			b.WriteByte('\n')
		}
		seed.Add(f, name, b.Bytes())
	}
	// Hand-written JSON: no times, an ingress of ports alone, a second
	// document cut short.
	seed.Add(f, "raw-no-times", []byte(`{"status":{"conditions":[{"type":"LoadBalancerServing","status":"True"},{"type":"LoadBalancerProvisioning","status":"False"}],"loadBalancer":{"ingress":[{"ports":[{"port":80}]}]}}}`+"\n"+`{"status":{"conditions":[{"type":"LoadBalancerProvisioning"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		var svcs []*v1.Service
		for len(svcs) < 8 {
			svc := &v1.Service{}
			if err := dec.Decode(svc); err != nil {
				break
			}
			svcs = append(svcs, svc)
		}
		for i, svc := range svcs {
			checkReadService(t, svc)
			if i > 0 {
				checkChangeSeenPair(t, svcs[i-1], svc)
			}
		}
	})
}

// readServiceSeeds are sequences of Services in the states section 6 and
// L6 name, and the shapes of status that are easy to get wrong.
func readServiceSeeds() map[string][]*v1.Service {
	at := func(sec int64) metav1.Time { return metav1.NewTime(time.Unix(1767225600+sec, 0).UTC()) }
	cond := func(typ v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason string, sec int64) metav1.Condition {
		return metav1.Condition{Type: string(typ), Status: status, Reason: reason, Message: "m", LastTransitionTime: at(sec), ObservedGeneration: 1}
	}
	svc := func(ingress []corev1.LoadBalancerIngress, conds ...metav1.Condition) *v1.Service {
		s := &v1.Service{}
		s.Name, s.Namespace, s.ResourceVersion, s.UID = "web", "shop", "7", "u1"
		s.Labels = map[string]string{"app": "web"}
		s.Spec.Type = corev1.ServiceTypeLoadBalancer
		s.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
		s.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
		s.Status.Conditions = conds
		s.Status.LoadBalancer.Ingress = ingress
		return s
	}
	ip := []corev1.LoadBalancerIngress{{IP: "192.0.2.1", IPMode: ptr.To(corev1.LoadBalancerIPModeVIP),
		Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP, Error: ptr.To("Pending")}}}}
	host := []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
	servingT := cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, "Serving", 10)
	provF := cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, "Complete", 10)
	provT := cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, "Provisioning", 20)
	foreign := metav1.Condition{Type: "example.com/Ready", Status: metav1.ConditionTrue, Reason: "Fine", LastTransitionTime: at(0)}
	return map[string][]*v1.Service{
		"none-then-ready":        {svc(nil), svc(ip, servingT, provF)},
		"ready-hostname-foreign": {svc(host, foreign, servingT, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, "Multiple", 10), provF)},
		"degraded-multiple": {svc(ip, servingT, provF, metav1.Condition{Type: string(v1.LoadBalancerConditionDegraded), Status: metav1.ConditionTrue,
			Reason: "Multiple", Message: "PortsNotSupported, SessionAffinityNotSupported: two", LastTransitionTime: at(10)})},
		"unsupported": {svc(nil, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Unsupported", 5),
			cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, "Unsupported", 5))},
		"infrastructure-then-retry": {svc(nil, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Infrastructure", 5), provF),
			svc(nil, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Infrastructure", 5), provT)},
		"degraded-legacy-ports-error": {svc(ip, servingT, provF, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, "SessionAffinityNotSupported", 10),
			cond(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "PortsNotSupported", 10))},
		"spec-change-acknowledged": {svc(ip, servingT, provF), svc(ip, servingT, provT), svc(ip, servingT, provT)},
		// A status change that kept lastTransitionTime (C6) is not an
		// acknowledgement (L6).
		"flip-same-time":          {svc(ip, servingT, provF), svc(ip, servingT, cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, "Provisioning", 10))},
		"serving-without-address": {svc([]corev1.LoadBalancerIngress{{Ports: []corev1.PortStatus{{Port: 80}}}}, servingT, provF)},
		"duplicate-types":         {svc(ip, servingT, provF, cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Unsupported", 1))},
		// Services without a type, ClusterIP: the Pending reason of an
		// unacknowledged change still ends naming L6.
		"no-type": {{}, {}},
	}
}

// readServiceFeatures are the features each Service is evaluated for:
// none, each known one, and one no version knows.
var readServiceFeatures = append([]v1.LoadBalancerFeature{""}, append(v1.LoadBalancerFeatures(), "NoSuchFeature")...)

// checkReadService checks what must hold of one Service.
func checkReadService(t *testing.T, svc *v1.Service) {
	t.Helper()
	orig := svc.DeepCopy()
	core := v1.ToCore(svc)
	coreOrig := core.DeepCopy()
	statusOnly := &v1.Service{}
	statusOnly.Status.Conditions = svc.Status.Conditions
	statusOnly.Status.LoadBalancer.Ingress = svc.Status.LoadBalancer.Ingress
	conds, ingress := svc.Status.Conditions, svc.Status.LoadBalancer.Ingress
	serving, provisioning := Get(conds, v1.LoadBalancerConditionServing), Get(conds, v1.LoadBalancerConditionProvisioning)
	is := func(c *metav1.Condition, s metav1.ConditionStatus) bool { return c != nil && c.Status == s }

	base := Evaluate(svc, "")
	for _, feature := range readServiceFeatures {
		v := Evaluate(svc, feature)
		if v.Feature != feature || v.Reason == "" {
			t.Fatalf("Evaluate(%q) = %+v: not the feature asked for, or no reason", feature, v)
		}
		if rule := map[Result]string{ResultSkip: "T1", ResultFail: "T2", ResultReady: "T3", ResultPending: "T4"}[v.Result]; rule == "" || v.Rule != rule {
			t.Fatalf("Evaluate(%q) = %+v: a result and a rule section 6 does not pair", feature, v)
		}
		if c := Evaluate(core, feature); c != v {
			t.Fatalf("Evaluate(%q) of the core/v1 form = %+v, of the project's %+v", feature, c, v)
		}
		if s := Evaluate(statusOnly, feature); s != v {
			t.Fatalf("Evaluate(%q) reads more than the conditions and the ingress: %+v without the rest, %+v with it", feature, s, v)
		}
		switch v.Result {
		case ResultReady:
			if !is(serving, metav1.ConditionTrue) || !is(provisioning, metav1.ConditionFalse) || !HasAddress(ingress) {
				t.Fatalf("Ready (T3) with Serving %+v, Provisioning %+v, ingress %+v", serving, provisioning, ingress)
			}
		case ResultFail:
			if !is(serving, metav1.ConditionFalse) || serving.Reason != string(v1.LoadBalancerReasonInfrastructure) || !is(provisioning, metav1.ConditionFalse) {
				t.Fatalf("Fail (T2) with Serving %+v, Provisioning %+v", serving, provisioning)
			}
		}
		if r, ok := v1.DegradedReason(feature); ok && base.Result != ResultSkip {
			if named := degradedNames(conds, r); named != (v.Result == ResultSkip) {
				t.Fatalf("Evaluate(%q) = %+v, but the conditions name its degradation: %v (T1, G2, C4)", feature, v, named)
			}
		}
		want := base
		want.Feature = feature
		if v != want && (feature == "" || !feature.IsKnown() || v.Result != ResultSkip) {
			t.Fatalf("Evaluate(%q) = %+v, Evaluate(\"\") = %+v: a feature under test may only make a skip", feature, v, base)
		}
		if skip, reason := ShouldSkip(svc, feature); skip != (v.Result == ResultSkip) || reason != v.Reason {
			t.Fatalf("ShouldSkip(%q) = %v, %q; Evaluate gives %+v", feature, skip, reason, v)
		}
	}

	checkStatusApply(t, svc)
	if a, b := applyJSON(t, StatusApply(svc)), applyJSON(t, StatusApply(core)); !bytes.Equal(a, b) {
		t.Fatalf("StatusApply differs for the core/v1 form:\n%s\n%s", a, b)
	}

	if ChangeSeen(svc, svc) || ChangeSeen(core, core) {
		t.Fatal("ChangeSeen(x, x) is true: the Service acknowledges a change against itself")
	}
	if got := ChangeSeen(nil, svc); got != (provisioning != nil) {
		t.Fatalf("ChangeSeen(nil, x) = %v with Provisioning %+v", got, provisioning)
	}
	if ChangeSeen(svc, nil) || ChangeSeen(svc, (*v1.Service)(nil)) {
		t.Fatal("ChangeSeen(x, nil) is true")
	}

	if !apiequality.Semantic.DeepEqual(svc, orig) || !apiequality.Semantic.DeepEqual(core, coreOrig) {
		t.Fatalf("reading the Service changed it:\n%+v\n%+v", orig, svc)
	}
}

// degradedNames reports whether conds say the load balancer is degraded
// with reason r, read as section 6 and G2 say: Degraded=True with reason
// r, or with reason Multiple and r among the comma-separated reasons
// before the first colon of its message; or, for PortsNotSupported, the
// deprecated LoadBalancerPortsError=True (C4).
func degradedNames(conds []metav1.Condition, r v1.LoadBalancerConditionReason) bool {
	if d := Get(conds, v1.LoadBalancerConditionDegraded); d != nil && d.Status == metav1.ConditionTrue {
		if d.Reason == string(r) {
			return true
		}
		if d.Reason == string(v1.LoadBalancerReasonMultiple) {
			list, _, _ := strings.Cut(d.Message, ":")
			for _, item := range strings.Split(list, ",") {
				if strings.TrimSpace(item) == string(r) {
					return true
				}
			}
		}
	}
	p := Get(conds, v1.LoadBalancerConditionPortsError)
	return r == v1.LoadBalancerReasonPortsNotSupported && p != nil && p.Status == metav1.ConditionTrue
}

// checkStatusApply checks that StatusApply(svc) carries svc's name,
// namespace and resourceVersion, and of its status exactly the KEP-4631
// conditions in order and the ingress.
func checkStatusApply(t *testing.T, svc *v1.Service) {
	t.Helper()
	ac := StatusApply(svc)
	if ac == nil {
		t.Fatal("StatusApply of a Service is nil")
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(applyJSON(t, ac), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if k != "kind" && k != "apiVersion" && k != "metadata" && k != "status" {
			t.Fatalf("StatusApply carries %s: %s", k, got[k])
		}
	}
	var meta map[string]any
	if err := json.Unmarshal(got["metadata"], &meta); err != nil {
		t.Fatalf("StatusApply's metadata %s: %v", got["metadata"], err)
	}
	want := map[string]any{"name": svc.Name, "namespace": svc.Namespace}
	if svc.ResourceVersion != "" {
		want["resourceVersion"] = svc.ResourceVersion
	}
	if !apiequality.Semantic.DeepEqual(meta, want) {
		t.Fatalf("StatusApply's metadata is %v, want %v", meta, want)
	}

	var wantStatus corev1.ServiceStatus
	for _, c := range svc.Status.Conditions {
		if isKEPType(c.Type) {
			wantStatus.Conditions = append(wantStatus.Conditions, c)
		}
	}
	wantStatus.LoadBalancer.Ingress = svc.Status.LoadBalancer.Ingress
	wantJSON, err := json.Marshal(wantStatus)
	if err != nil {
		return // a time json cannot write: nor can the apply
	}
	if a, b := normalStatus(t, got["status"]), normalStatus(t, wantJSON); !bytes.Equal(a, b) {
		t.Fatalf("StatusApply's status is\n%s\nwant the KEP-4631 conditions and the ingress\n%s", a, b)
	}
}

// applyJSON encodes an apply configuration; nil gives "null".
func applyJSON(t *testing.T, ac any) []byte {
	t.Helper()
	data, err := json.Marshal(ac)
	if err != nil {
		t.Fatalf("the apply configuration does not encode: %v", err)
	}
	return data
}

// normalStatus reads a status and writes it again, so that an absent and
// an empty field, and a zero observedGeneration, compare equal.
func normalStatus(t *testing.T, data []byte) []byte {
	t.Helper()
	var st corev1.ServiceStatus
	if len(data) > 0 {
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatalf("status %s: %v", data, err)
		}
	}
	out, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkChangeSeenPair checks ChangeSeen on a Service read before and one
// read after: L6's test, the same for both types, and the reason of
// WithSpecChange's Pending verdict while it is false.
func checkChangeSeenPair(t *testing.T, before, svc *v1.Service) {
	t.Helper()
	old, now := Get(before.Status.Conditions, v1.LoadBalancerConditionProvisioning), Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	want := now != nil && (old == nil || !old.LastTransitionTime.Time.Equal(now.LastTransitionTime.Time))
	coreBefore, coreSvc := v1.ToCore(before), v1.ToCore(svc)
	if got := ChangeSeen(before, svc); got != want {
		t.Fatalf("ChangeSeen = %v with Provisioning %+v before and %+v after, want %v", got, old, now, want)
	}
	if got := ChangeSeen(coreBefore, coreSvc); got != want {
		t.Fatalf("ChangeSeen of the core/v1 forms = %v, want %v", got, want)
	}
	if !want {
		if r := unacknowledged(coreBefore, coreSvc); !strings.HasSuffix(r, "(L6)") || strings.Contains(r, "\n") {
			t.Fatalf("the Pending reason while the change is not acknowledged is %q, not one line naming L6", r)
		}
	}
}
