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

package validation_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

// cross is the gate on with the cross-condition rules, as a fork's status
// strategy calls validation.
var cross = validation.Options{FeatureGate: gateOn, CrossConditionRules: true}

func TestValidateServiceStatusUpdate_L5(t *testing.T) {
	unsupported := changed(servingFalse, func(c *metav1.Condition) { c.Reason = string(v1.LoadBalancerReasonUnsupported) })
	infra := changed(servingFalse, func(c *metav1.Condition) { c.Reason = string(v1.LoadBalancerReasonInfrastructure) })
	for _, tc := range []statusCase{
		{name: "Serving=False/Provisioning with Provisioning=False", conds: c2(provisioningFalse, servingFalse),
			want: errs(want("L5", field.ErrorTypeInvalid, conditionPath(0, "status")))},
		{name: "Serving=False/Unsupported with Provisioning=True", conds: c2(provisioningTrue, unsupported),
			want: errs(want("L5", field.ErrorTypeInvalid, conditionPath(0, "status")))},
		{name: "Serving=False/Infrastructure with Provisioning=True, Serving first", conds: c2(infra, provisioningTrue),
			want: errs(want("L5", field.ErrorTypeInvalid, conditionPath(1, "status")))},
		{name: "Serving=False/Provisioning with Provisioning=True", conds: c2(provisioningTrue, servingFalse)},
		{name: "Serving=False/Unsupported with Provisioning=False", conds: c2(provisioningFalse, unsupported)},
		{name: "Serving=True with Provisioning=True (L3 reprovisioning)", conds: c2(provisioningTrue, servingTrue)},
		{name: "Serving alone is L1, not L5", conds: c2(servingFalse)},
		{name: "a provider's own Serving=False reason", conds: c2(provisioningTrue, changed(servingFalse, func(c *metav1.Condition) { c.Reason = "QuotaExceeded" }))},
	} {
		runStatusCases(t, cross, []statusCase{tc})
		t.Run(tc.name+"/without CrossConditionRules", func(t *testing.T) {
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(service(withConditions(tc.conds...)), service(), on))
		})
	}
}

// TestValidateServiceStatusUpdate_L5_LoadBalancerOnly: on a Service of
// another type the conditions are L9's to remove. A write that removes
// Degraded and leaves a broken pair, or changes the pair, is not refused
// for L5; the same write on a LoadBalancer is.
func TestValidateServiceStatusUpdate_L5_LoadBalancerOnly(t *testing.T) {
	broken := []metav1.Condition{provisioningFalse, servingFalse}
	old := withConditions(append(slices.Clone(broken), degradedPorts)...)
	finished := changed(provisioningFalse, func(c *metav1.Condition) { c.Reason = "Finished" })
	for _, typ := range []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, ""} {
		t.Run(string(typ), func(t *testing.T) {
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(service(withType(typ), withConditions(finished, servingFalse)),
				service(withType(typ), old), cross))
		})
	}
	testErrors(t, errs(want("L5", field.ErrorTypeInvalid, conditionPath(0, "status"))),
		validation.ValidateServiceStatusUpdate(service(withConditions(finished, servingFalse)), service(old), cross))
}

// withIngress sets status.loadBalancer.ingress.
func withIngress(ingress ...corev1.LoadBalancerIngress) func(*v1.Service) {
	return func(svc *v1.Service) { svc.Status.LoadBalancer.Ingress = ingress }
}

// TestValidateServiceStatusUpdate_L4: with CrossConditionRules, a write
// that changes Serving or the ingress must not leave Serving=True without
// an ingress entry that has an ip or a hostname; one that changes neither
// ratchets; another type is L9's.
func TestValidateServiceStatusUpdate_L4(t *testing.T) {
	l4 := errs(want("L4", field.ErrorTypeInvalid, conditionPath(1, "status")))
	ports := corev1.LoadBalancerIngress{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}
	serving := withConditions(provisioningFalse, servingTrue)
	for _, tc := range []struct {
		name     string
		svc, old *v1.Service
		want     field.ErrorList
	}{
		{"no ingress", service(serving, withIngress()), service(withIngress()), l4},
		{"an entry without an address", service(serving, withIngress(ports)), service(withIngress()), l4},
		{"a hostname", service(serving, withIngress(corev1.LoadBalancerIngress{Hostname: "lb.example.com"})), service(withIngress()), nil},
		{"an ip", service(serving), service(), nil},
		{"an address after an entry without one", service(serving, withIngress(ports, corev1.LoadBalancerIngress{IP: "192.0.2.1"})), service(withIngress()), nil},
		{"ingress removed under Serving=True", service(serving, withIngress()), service(serving), l4},
		{"address replaced by an entry without one under Serving=True", service(serving, withIngress(ports)), service(serving), l4},
		{"unchanged, another condition added", service(withConditions(provisioningFalse, servingTrue, cond("Ready", metav1.ConditionTrue, "Ready")), withIngress()),
			service(serving, withIngress()), nil},
		// Only Serving's status and reason are read: a bump (L6) of a
		// Serving=True stored without an address is not judged again.
		{"Serving's lastTransitionTime bumped, no ingress before or after", service(withConditions(provisioningFalse,
			changed(servingTrue, func(c *metav1.Condition) { c.LastTransitionTime = times[2] })), withIngress()), service(serving, withIngress()), nil},
		// The state is the first Serving's, the one readers take: one
		// turned True is judged, though a second stored behind it was.
		{"the first of two stored Serving turned True", service(withConditions(provisioningFalse,
			changed(servingTrue, func(c *metav1.Condition) { c.LastTransitionTime = times[2] }), servingTrue), withIngress()),
			service(withConditions(provisioningFalse, changed(servingFalse, func(c *metav1.Condition) { c.Reason = string(v1.LoadBalancerReasonInfrastructure) }), servingTrue), withIngress()), l4},
		{"Serving's lastTransitionTime bumped, the address removed", service(withConditions(provisioningFalse,
			changed(servingTrue, func(c *metav1.Condition) { c.LastTransitionTime = times[2] })), withIngress()), service(serving), l4},
		{"Serving=False without ingress", service(withConditions(provisioningTrue, servingFalse), withIngress()), service(withIngress()), nil},
		{"ClusterIP", service(serving, withIngress(), withType(corev1.ServiceTypeClusterIP)), service(withIngress(), withType(corev1.ServiceTypeClusterIP)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateServiceStatusUpdate(tc.svc, tc.old, cross))
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(tc.svc, tc.old, on))
			// An update of the main resource reads old's ingress the
			// same way.
			testErrors(t, tc.want, validation.ValidateServiceUpdate(tc.svc, tc.old, cross))
		})
	}
	t.Run("create", func(t *testing.T) {
		testErrors(t, l4, validation.ValidateService(service(serving, withIngress()), cross))
	})
}

// TestValidateServiceStatusUpdate_P6: with CrossConditionRules, while
// Serving is True no degradation may name a feature the Service requires,
// from the spec field or else the annotation; judged when the write
// changes Serving, Degraded or LoadBalancerPortsError.
func TestValidateServiceStatusUpdate_P6(t *testing.T) {
	affinity := cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonSessionAffinityNotSupported)
	multiple := changed(affinity, func(c *metav1.Condition) {
		c.Reason = string(v1.LoadBalancerReasonMultiple)
		c.Message = "PortsNotSupported, SessionAffinityNotSupported: udp/53; no affinity"
	})
	portsError := cond(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "PortsError")
	servingUnknown := changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })
	asks := func(svc *v1.Service) {
		svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP})
	}
	annotated := func(value string) func(*v1.Service) {
		return func(svc *v1.Service) { svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: value} }
	}
	sa, pt := v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts
	for _, tc := range []struct {
		name     string
		svc, old *v1.Service
		want     field.ErrorList
	}{
		{"required in the field", service(asks, withFeatures(sa), withConditions(provisioningFalse, servingTrue, affinity)), service(asks, withFeatures(sa)),
			errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{"required in the annotation", service(asks, annotated(" SessionAffinity ,Ports"), withConditions(provisioningFalse, servingTrue, affinity)), service(asks),
			errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{"the field first", service(asks, withFeatures(pt), annotated("SessionAffinity"), withConditions(provisioningFalse, servingTrue, affinity)), service(asks), nil},
		{"an empty field, as JSON's [] decodes, leaves the annotation", service(asks, withFeatures([]v1.LoadBalancerFeature{}...), annotated("SessionAffinity"),
			withConditions(provisioningFalse, servingTrue, affinity)), service(asks), errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{"a Multiple listing two required", service(asks, withFeatures(pt, sa), withConditions(provisioningFalse, servingTrue, multiple)), service(asks),
			errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "message")))},
		{"LoadBalancerPortsError", service(asks, withFeatures(pt), withConditions(provisioningFalse, servingTrue, portsError)), service(asks),
			errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "status")))},
		{"Degraded added under an unchanged Serving", service(asks, withFeatures(sa), withConditions(provisioningFalse, servingTrue, affinity)),
			service(asks, withFeatures(sa), withConditions(provisioningFalse, servingTrue)), errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{"LoadBalancerPortsError added under an unchanged Serving", service(asks, withFeatures(pt), withConditions(provisioningFalse, servingTrue, portsError)),
			service(asks, withFeatures(pt), withConditions(provisioningFalse, servingTrue)), errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "status")))},
		{"LoadBalancerPortsError=False", service(asks, withFeatures(pt), withConditions(provisioningFalse, servingTrue,
			changed(portsError, func(c *metav1.Condition) { c.Status = metav1.ConditionFalse }))), service(asks), nil},
		{"Degraded=Unknown naming a required feature", service(asks, withFeatures(sa), withConditions(provisioningFalse, servingTrue,
			changed(affinity, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown }))), service(asks), nil},
		{"not required", service(asks, withFeatures(pt), withConditions(provisioningFalse, servingTrue, affinity)), service(asks), nil},
		{"not serving", service(asks, withFeatures(sa), withConditions(provisioningTrue, servingFalse, affinity)), service(asks), nil},
		{"Serving=Unknown kept from old", service(asks, withFeatures(sa), withConditions(provisioningFalse, servingUnknown, affinity)),
			service(asks, withFeatures(sa), withConditions(provisioningFalse, servingUnknown)), nil},
		{"unchanged", service(asks, withFeatures(sa), withConditions(provisioningFalse, servingTrue, affinity)),
			service(asks, withConditions(provisioningFalse, servingTrue, affinity)), nil},
		{"Serving's lastTransitionTime bumped over an unchanged Degraded", service(asks, withFeatures(sa), withConditions(provisioningFalse,
			changed(servingTrue, func(c *metav1.Condition) { c.LastTransitionTime = times[2] }), affinity)),
			service(asks, withConditions(provisioningFalse, servingTrue, affinity)), nil},
		{"Serving turned True over an unchanged Degraded", service(asks, withFeatures(sa), withConditions(provisioningFalse, servingTrue, affinity)),
			service(asks, withConditions(provisioningTrue, servingFalse, affinity)), errs(want("P6", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{"ClusterIP", service(asks, withFeatures(sa), withType(corev1.ServiceTypeClusterIP), withIngress(), withConditions(provisioningFalse, servingTrue, affinity)),
			service(asks, withType(corev1.ServiceTypeClusterIP), withIngress()), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := validation.ValidateServiceStatusUpdate(tc.svc, tc.old, cross)
			testErrors(t, tc.want, got)
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(tc.svc, tc.old, on))
			// One error per field, naming every required feature there.
			if len(got) == 1 && tc.svc.Status.Conditions[2].Reason == string(v1.LoadBalancerReasonMultiple) &&
				!strings.Contains(got[0].Detail, "must not name Ports, SessionAffinity while") {
				t.Errorf("detail %q does not name both required features", got[0].Detail)
			}
		})
	}
}

// TestValidateServiceStatusUpdate_L5_NotTwice: a Provisioning status that
// is neither True nor False is C1's or ValidateConditions' error alone; L5
// does not report the same field again.
func TestValidateServiceStatusUpdate_L5_NotTwice(t *testing.T) {
	for _, tc := range []struct {
		status metav1.ConditionStatus
		want   field.ErrorList
	}{
		{metav1.ConditionUnknown, errs(want("C1", field.ErrorTypeNotSupported, conditionPath(0, "status")))},
		{"Maybe", errs(want("C5", field.ErrorTypeNotSupported, conditionPath(0, "status")))},
	} {
		t.Run(string(tc.status), func(t *testing.T) {
			p := changed(provisioningTrue, func(c *metav1.Condition) { c.Status = tc.status })
			testErrors(t, tc.want, validation.ValidateServiceStatusUpdate(service(withConditions(p, servingFalse)), service(), cross))
			// Left as it was, that status is ratcheted for C1 and C5: a
			// new Serving=False/Provisioning beside it is L5's to refuse,
			// as the checker and the admission policies do.
			old := service(withConditions(p, servingTrue))
			testErrors(t, errs(want("L5", field.ErrorTypeInvalid, conditionPath(0, "status"))),
				validation.ValidateServiceStatusUpdate(service(withConditions(p, servingFalse)), old, cross))
		})
	}
}

// TestValidateServiceStatusUpdate_L5_ServingFalseOnly: L5 is about
// Serving=False. A Serving status that is not False (Unknown, which is C1,
// or outside the three, which is the metav1 rules') is not judged by its
// reason as well, and of two Serving conditions (a C5 Duplicate) the
// first is the one judged, as by every rule between conditions.
func TestValidateServiceStatusUpdate_L5_ServingFalseOnly(t *testing.T) {
	status := func(s metav1.ConditionStatus, r v1.LoadBalancerConditionReason) metav1.Condition {
		return changed(servingFalse, func(c *metav1.Condition) { c.Status, c.Reason = s, string(r) })
	}
	runStatusCases(t, cross, []statusCase{{
		name:  "Serving=Unknown/Provisioning with Provisioning=False",
		conds: c2(provisioningFalse, status(metav1.ConditionUnknown, v1.LoadBalancerReasonProvisioning)),
		want:  errs(want("C1", field.ErrorTypeNotSupported, conditionPath(1, "status"))),
	}, {
		name:  "Serving=Maybe/Unsupported with Provisioning=True",
		conds: c2(provisioningTrue, status("Maybe", v1.LoadBalancerReasonUnsupported)),
		want:  errs(want("C5", field.ErrorTypeNotSupported, conditionPath(1, "status"))),
	}, {
		name:  "the first of two Serving conditions is judged",
		conds: c2(provisioningFalse, servingFalse, servingTrue),
		want: errs(
			want("C5", field.ErrorTypeDuplicate, conditionPath(2, "")),
			want("L5", field.ErrorTypeInvalid, conditionPath(0, "status")),
		),
	}})
}

// TestValidateServiceStatusUpdate_L5_Ratchets: a broken pair whose status
// and reasons did not change is not judged again, whatever else of the two
// conditions the write moves: the lastTransitionTime bump L6 asks of a
// provider must not wait for the stored pairing to be repaired. Changing
// the status or reason of either half is judged.
func TestValidateServiceStatusUpdate_L5_Ratchets(t *testing.T) {
	old := service(withConditions(provisioningFalse, servingFalse))
	bumped := func(c metav1.Condition) metav1.Condition {
		return changed(c, func(c *metav1.Condition) { c.LastTransitionTime = times[2] })
	}
	l5 := errs(want("L5", field.ErrorTypeInvalid, conditionPath(0, "status")))
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  field.ErrorList
	}{
		{"unchanged", []metav1.Condition{provisioningFalse, servingFalse}, nil},
		{"Provisioning's lastTransitionTime bumped (L6)", []metav1.Condition{bumped(provisioningFalse), servingFalse}, nil},
		{"both bumped", []metav1.Condition{bumped(provisioningFalse), bumped(servingFalse)}, nil},
		{"a message changed", []metav1.Condition{provisioningFalse, changed(servingFalse, func(c *metav1.Condition) { c.Message = "still" })}, nil},
		{"Provisioning's reason changed", []metav1.Condition{changed(provisioningFalse, func(c *metav1.Condition) { c.Reason = "Finished" }), servingFalse}, l5},
		{"Serving's reason changed, still broken", []metav1.Condition{provisioningTrue,
			changed(servingFalse, func(c *metav1.Condition) { c.Reason = string(v1.LoadBalancerReasonUnsupported) })}, l5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testErrors(t, tc.want, validation.ValidateServiceStatusUpdate(service(withConditions(tc.conds...)), old, cross))
		})
	}
}

func TestValidateServiceStatusUpdate_P5(t *testing.T) {
	multiple := func(msg string) metav1.Condition {
		return changed(degradedPorts, func(c *metav1.Condition) {
			c.Reason = string(v1.LoadBalancerReasonMultiple)
			c.Message = msg
		})
	}
	twoPorts := func(s *v1.Service) {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP})
	}
	clientIP := func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }
	rangesAnnotation := func(s *v1.Service) {
		s.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "10.0.0.0/8"}
	}
	portsError := changed(degradedPorts, func(c *metav1.Condition) {
		c.Type, c.Reason = string(v1.LoadBalancerConditionPortsError), "PortsError"
	})
	ranges := changed(degradedPorts, func(c *metav1.Condition) {
		c.Reason = string(v1.LoadBalancerReasonLoadBalancerSourceRangesNotSupported)
	})
	for _, tc := range []struct {
		name string
		mods []func(*v1.Service)
		cond metav1.Condition
		want field.ErrorList
	}{
		{name: "PortsNotSupported on a one-port Service", cond: degradedPorts,
			want: errs(want("P5", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{name: "PortsNotSupported on a two-port Service", mods: []func(*v1.Service){twoPorts}, cond: degradedPorts},
		{name: "Multiple naming one reason the Service does not ask for", mods: []func(*v1.Service){twoPorts},
			cond: multiple("PortsNotSupported, SessionAffinityNotSupported: two"),
			want: errs(want("P5", field.ErrorTypeInvalid, conditionPath(2, "message")))},
		{name: "Multiple naming what the Service asks for", mods: []func(*v1.Service){twoPorts, clientIP},
			cond: multiple("PortsNotSupported, SessionAffinityNotSupported: two")},
		{name: "a provider's own Degraded reason", cond: changed(degradedPorts, func(c *metav1.Condition) { c.Reason = "SlowDisks" })},
		{name: "Degraded=Unknown names nothing", cond: changed(degradedPorts, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })},
		{name: "not a LoadBalancer: L9's, not P5's", mods: []func(*v1.Service){withType(corev1.ServiceTypeClusterIP)}, cond: degradedPorts},
		// The deprecated condition, True, reads as PortsNotSupported
		// (C4), as the checker and P6 read it, whatever its reason.
		{name: "LoadBalancerPortsError on a one-port Service", cond: portsError,
			want: errs(want("P5", field.ErrorTypeInvalid, conditionPath(2, "status")))},
		{name: "LoadBalancerPortsError on a two-port Service", mods: []func(*v1.Service){twoPorts}, cond: portsError},
		{name: "LoadBalancerPortsError=False names nothing", cond: changed(portsError, func(c *metav1.Condition) { c.Status = metav1.ConditionFalse })},
		// The Service asks for source ranges through the annotation too.
		{name: "LoadBalancerSourceRangesNotSupported without source ranges", cond: ranges,
			want: errs(want("P5", field.ErrorTypeInvalid, conditionPath(2, "reason")))},
		{name: "LoadBalancerSourceRangesNotSupported with the source-ranges annotation", mods: []func(*v1.Service){rangesAnnotation}, cond: ranges},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := service(append(tc.mods, withConditions(provisioningFalse, servingTrue, tc.cond))...)
			testErrors(t, tc.want, validation.ValidateServiceStatusUpdate(svc, service(tc.mods...), cross))
			testErrors(t, tc.want, validation.ValidateService(svc, cross))
			// Off without the option: the checker judges P5 itself.
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, service(tc.mods...), on))
			// Unchanged, it ratchets.
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, svc.DeepCopy(), cross))
		})
	}
}

// TestValidateServiceStatusUpdate_P5P6_RepeatedReasons: a Multiple whose
// message lists a reason more than once is one problem per rule, not one
// per repeat. Every error on the message carries the whole message as its
// value, and an apiserver turns each into a cause of its 422, so errors
// per repeat would let one status write of a message at the 32 KiB limit
// (or above it: the length is C5's error, and the other rules still run)
// answer with hundreds of copies of it.
func TestValidateServiceStatusUpdate_P5P6_RepeatedReasons(t *testing.T) {
	multiple := func(msg string) metav1.Condition {
		return changed(degradedPorts, func(c *metav1.Condition) {
			c.Reason = string(v1.LoadBalancerReasonMultiple)
			c.Message = msg
		})
	}
	// One port, no affinity: the Service asks for neither, and requires
	// Ports.
	short := multiple("PortsNotSupported, SessionAffinityNotSupported, PortsNotSupported,SessionAffinityNotSupported: udp/53")
	svc := service(withFeatures(ports), withConditions(provisioningFalse, servingTrue, short))
	got := validation.ValidateServiceStatusUpdate(svc, service(withFeatures(ports)), cross)
	// testErrors also fails on an exact duplicate error.
	testErrors(t, errs(
		want("P5", field.ErrorTypeInvalid, conditionPath(2, "message")),
		want("P6", field.ErrorTypeInvalid, conditionPath(2, "message")),
	), got)
	for _, e := range got {
		if e.Origin == validation.OriginP6 && !strings.Contains(e.Detail, "must not name Ports while") {
			t.Errorf("P6 detail %q does not name Ports once", e.Detail)
		}
		if e.Origin == validation.OriginP5 && (!strings.Contains(e.Detail, "Ports") || !strings.Contains(e.Detail, "SessionAffinity")) {
			t.Errorf("P5 detail %q does not name both features the Service does not ask for", e.Detail)
		}
	}

	// At the length limit: what the errors say stays in proportion to
	// the message, however often it repeats a reason.
	long := multiple(strings.Repeat("PortsNotSupported,", 1800) + "PortsNotSupported: udp/53")
	svc = service(withFeatures(ports), withConditions(provisioningFalse, servingTrue, long))
	got = validation.ValidateServiceStatusUpdate(svc, service(withFeatures(ports)), cross)
	size := 0
	for _, e := range got {
		size += len(e.ErrorBody())
	}
	if size > 4*len(long.Message) {
		t.Errorf("%d errors of %d bytes in all for a message of %d bytes", len(got), size, len(long.Message))
	}
}

// TestValidateService_R5_ForbiddenNamesTheGate: with the gate off the
// writer learns which gate to ask for.
func TestValidateService_R5_ForbiddenNamesTheGate(t *testing.T) {
	got := validation.ValidateService(service(withFeatures(ports)), off)
	testErrors(t, errs(want("R5", field.ErrorTypeForbidden, featurePath(-1))), got)
	if len(got) == 1 && !strings.Contains(got[0].Detail, "LoadBalancerStatusImprovements feature gate") {
		t.Errorf("detail %q does not name the gate", got[0].Detail)
	}
}

// TestDropDisabledFields_GateWithoutFeature: a gate the caller forgot to
// register the feature in is an error, and the Service is left alone.
func TestDropDisabledFields_GateWithoutFeature(t *testing.T) {
	svc := service(withFeatures(ports))
	err := validation.DropDisabledFields(svc, nil, validation.Options{FeatureGate: featuregate.NewFeatureGate()})
	if err == nil || !strings.Contains(err.Error(), "LoadBalancerStatusImprovements") {
		t.Errorf("err = %v, want one naming the gate", err)
	}
	if len(svc.Spec.RequiredLoadBalancerFeatures) != 1 {
		t.Errorf("the Service was changed: %v", svc.Spec.RequiredLoadBalancerFeatures)
	}
}

// TestBlocks_SameAsServiceLevel: the blocks a strategy holding the internal
// type calls (plain values: conditions, a string type, the feature list)
// give exactly the Service-level results, under a path of the caller's.
func TestBlocks_SameAsServiceLevel(t *testing.T) {
	ctx := context.Background()
	old := service(withConditions(provisioningTrue, servingFalse), withFeatures(ports))
	svc := service(withType(corev1.ServiceTypeNodePort), withFeatures(ports, "Teleport", ports),
		withConditions(provisioningFalse, servingFalse, changed(degradedPorts, func(c *metav1.Condition) { c.Status = metav1.ConditionFalse })))
	for name, opts := range map[string]validation.Options{"gate on": on, "gate off": off, "cross": cross} {
		t.Run(name, func(t *testing.T) {
			spec := validation.ValidateRequiredLoadBalancerFeatures(ctx, field.NewPath("spec"),
				&validation.RequiredFeaturesSpec{Type: svc.Spec.Type, RequiredLoadBalancerFeatures: svc.Spec.RequiredLoadBalancerFeatures},
				&validation.RequiredFeaturesSpec{Type: old.Spec.Type, RequiredLoadBalancerFeatures: old.Spec.RequiredLoadBalancerFeatures}, opts)
			conds := validation.ValidateConditions(ctx, field.NewPath("status", "conditions"), svc.Status.Conditions, old.Status.Conditions,
				validation.ConditionsSpecFor(svc), opts)
			whole := validation.ValidateServiceUpdate(svc, old, opts)
			if len(whole) == 0 {
				t.Fatalf("the test Service is valid")
			}
			matcher.Test(t, whole, append(spec, conds...))
			matcher.Test(t, validation.ValidateServiceStatusUpdate(svc, old, opts), conds)
		})
	}
	// Under the caller's path.
	got := validation.ValidateConditions(ctx, field.NewPath("x"), []metav1.Condition{changed(servingTrue, func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })}, nil, validation.ConditionsSpec{}, on)
	matcher.Test(t, errs(want("C1", field.ErrorTypeNotSupported, "x[0].status")), got)
	// A gate without the feature: one internal error naming it.
	bad := validation.Options{FeatureGate: featuregate.NewFeatureGate()}
	for _, got := range []field.ErrorList{
		validation.ValidateConditions(ctx, field.NewPath("x"), nil, nil, validation.ConditionsSpec{}, bad),
		validation.ValidateRequiredLoadBalancerFeatures(ctx, field.NewPath("spec"), &validation.RequiredFeaturesSpec{}, nil, bad),
		validation.ValidateServiceStatusUpdate(service(), nil, bad),
	} {
		if len(got) != 1 || got[0].Type != field.ErrorTypeInternal || !strings.Contains(got[0].Detail, "LoadBalancerStatusImprovements") {
			t.Errorf("gate without the feature: %v", got)
		}
	}
}

// TestBlocks_R5_GateWithoutFeatureAtTheirField: a gate that does not know
// LoadBalancerStatusImprovements is one internal error at the field each
// entry point validates, under the caller's path for the blocks, so that a
// strategy reports it where its own errors go.
func TestBlocks_R5_GateWithoutFeatureAtTheirField(t *testing.T) {
	ctx := context.Background()
	bad := validation.Options{FeatureGate: featuregate.NewFeatureGate()}
	internal := func(path string) field.ErrorList { return errs(want("", field.ErrorTypeInternal, path)) }
	matcher.Test(t, internal("x.requiredLoadBalancerFeatures"),
		validation.ValidateRequiredLoadBalancerFeatures(ctx, field.NewPath("x"), &validation.RequiredFeaturesSpec{}, nil, bad))
	matcher.Test(t, internal("x"), validation.ValidateConditions(ctx, field.NewPath("x"), nil, nil, validation.ConditionsSpec{}, bad))
	matcher.Test(t, internal("status.conditions"), validation.ValidateServiceStatusUpdate(service(), nil, bad))
}

// c2 is a condition list.
func c2(cs ...metav1.Condition) []metav1.Condition { return cs }

// TestValidateServiceUpdate_CrossRulesNeedTheGate: Options.CrossConditionRules
// adds L4, L5, P5 and P6 only with the gate on. With the gate off a write
// that breaks all four is judged by the metav1 rules alone, through every
// entry point and the conditions block: an apiserver that has not enabled
// LoadBalancerStatusImprovements must not refuse a provider's conditions
// for rules of a feature it does not serve.
func TestValidateServiceUpdate_CrossRulesNeedTheGate(t *testing.T) {
	ctx := context.Background()
	old := service(withFeatures(ports))
	// Two writes, since Serving is either False (L5) or True (L4, P6);
	// degradedPorts on a one-port Service that requires Ports is P5 and
	// P6.
	l5P5 := service(withFeatures(ports), withConditions(provisioningFalse, servingFalse, degradedPorts))
	l4P6 := service(withFeatures(ports), withIngress(), withConditions(provisioningFalse, servingTrue, degradedPorts))
	for name, svc := range map[string]*v1.Service{"L5 and P5": l5P5, "L4 and P6": l4P6} {
		t.Run(name, func(t *testing.T) {
			if len(validation.ValidateServiceStatusUpdate(svc, old, cross)) == 0 {
				t.Fatal("the write breaks no cross-condition rule with the gate on; it tests nothing")
			}
			crossOff := validation.Options{FeatureGate: gateOff, CrossConditionRules: true}
			testErrors(t, nil, validation.ValidateService(svc, crossOff).Filter(under("spec")))
			testErrors(t, nil, validation.ValidateServiceUpdate(svc, old, crossOff))
			testErrors(t, nil, validation.ValidateServiceStatusUpdate(svc, old, crossOff))
			spec := validation.ConditionsSpecFor(svc)
			spec.OldIngress = old.Status.LoadBalancer.Ingress
			testErrors(t, nil, validation.ValidateConditions(ctx, field.NewPath("status", "conditions"), svc.Status.Conditions,
				old.Status.Conditions, spec, crossOff))
		})
	}
}

// TestValidateConditions_P5_AsksUnknown: a ConditionsSpec whose Asks is
// nil says the caller does not know what the Service asks for (a strategy
// that has not computed it), and P5 is not judged; an empty set says the
// Service asks for nothing, and P5 is.
func TestValidateConditions_P5_AsksUnknown(t *testing.T) {
	ctx := context.Background()
	path := field.NewPath("status", "conditions")
	conds := c2(provisioningFalse, servingTrue, degradedPorts)
	spec := validation.ConditionsSpec{Generation: generation, Type: corev1.ServiceTypeLoadBalancer, Ingress: service().Status.LoadBalancer.Ingress}
	testErrors(t, nil, validation.ValidateConditions(ctx, path, conds, nil, spec, cross))
	spec.Asks = sets.New[v1.LoadBalancerFeature]()
	testErrors(t, errs(want("P5", field.ErrorTypeInvalid, conditionPath(2, "reason"))),
		validation.ValidateConditions(ctx, path, conds, nil, spec, cross))
}
