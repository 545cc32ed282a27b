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

package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	lbgomega "github.com/lbstatus/lbstatus/ext/gomega"
	"github.com/lbstatus/lbstatus/provider"
	"github.com/lbstatus/lbstatus/validation"
)

// policiesFile is the generated file the README tells users to apply.
var policiesFile = filepath.Join("..", "deploy", "admission", "policies.yaml")

// admissionLabel marks the namespaces the test binds the policies to: the
// shipped bindings apply to every namespace, and other tests of this
// package write conditions the policies reject on purpose.
const admissionLabel = "lbstatus.github.io/admission-test"

// Condition shorthands for the admission tests.
const (
	serving      = string(v1.LoadBalancerConditionServing)
	provisioning = string(v1.LoadBalancerConditionProvisioning)
	degraded     = string(v1.LoadBalancerConditionDegraded)
	portsError   = string(v1.LoadBalancerConditionPortsError)
)

// admissionTime is the lastTransitionTime of the hand-written conditions:
// whole seconds, as the wire keeps them, so that a condition read back
// equals the one written.
var admissionTime = metav1.NewTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))

func cond(typ string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: admissionTime}
}

var (
	servingPair      = []metav1.Condition{cond(serving, "True", "Serving", ""), cond(provisioning, "False", "Complete", "")}
	provisioningPair = []metav1.Condition{cond(serving, "False", "Provisioning", ""), cond(provisioning, "True", "Provisioning", "")}
)

func with(base []metav1.Condition, more ...metav1.Condition) []metav1.Condition {
	return append(slices.Clone(base), more...)
}

// loadPolicies reads the generated policies and bindings.
func loadPolicies(t testing.TB) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, []*admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	data, err := os.ReadFile(policiesFile)
	if err != nil {
		t.Fatal(err)
	}
	var policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	var bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", policiesFile, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("%s: %v", policiesFile, err)
		}
		switch meta.Kind {
		case "":
			continue // the header comment
		case "ValidatingAdmissionPolicy":
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := yaml.UnmarshalStrict(doc, p); err != nil {
				t.Fatalf("%s: %v", policiesFile, err)
			}
			policies = append(policies, p)
		case "ValidatingAdmissionPolicyBinding":
			b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			if err := yaml.UnmarshalStrict(doc, b); err != nil {
				t.Fatalf("%s: %v", policiesFile, err)
			}
			bindings = append(bindings, b)
		default:
			t.Fatalf("%s: unexpected kind %q", policiesFile, meta.Kind)
		}
	}
	if len(policies) != 4 || len(bindings) != 4 {
		t.Fatalf("%s holds %d policies and %d bindings, want 4 and 4", policiesFile, len(policies), len(bindings))
	}
	return policies, bindings
}

// installPolicies creates the generated policies and their bindings,
// limited to namespaces labelled admissionLabel=value, and removes them
// when the test ends. (kube-controller-manager, which envtest does not
// run, type-checks policies; a policy whose CEL does not compile denies
// every write it matches, which waitForPolicies and the cases see.)
func installPolicies(t *testing.T, client kubernetes.Interface, value string) {
	t.Helper()
	ctx := context.Background()
	policies, bindings := loadPolicies(t)
	api := client.AdmissionregistrationV1()
	for _, p := range policies {
		if _, err := api.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create policy %s: %v", p.Name, err)
		}
		t.Cleanup(func() {
			_ = api.ValidatingAdmissionPolicies().Delete(context.Background(), p.Name, metav1.DeleteOptions{})
		})
	}
	for _, b := range bindings {
		if b.Spec.MatchResources != nil {
			t.Fatalf("binding %s: the shipped bindings apply to every namespace; got matchResources %+v", b.Name, b.Spec.MatchResources)
		}
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{admissionLabel: value}},
		}
		if _, err := api.ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create binding %s: %v", b.Name, err)
		}
		t.Cleanup(func() {
			_ = api.ValidatingAdmissionPolicyBindings().Delete(context.Background(), b.Name, metav1.DeleteOptions{})
		})
	}
}

// admissionNamespace creates a namespace for the test, labelled so that
// the test's bindings apply to it.
func admissionNamespace(t *testing.T, client kubernetes.Interface, value string) string {
	t.Helper()
	ns := namespace(t)
	ctx := context.Background()
	obj, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Labels == nil {
		obj.Labels = map[string]string{}
	}
	obj.Labels[admissionLabel] = value
	if _, err := client.CoreV1().Namespaces().Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// serviceSpecs are the specs the admission tests use, each asking for a
// different mix of features (P5). allocateLoadBalancerNodePorts is off so
// that hundreds of Services do not exhaust the node port range.
var serviceSpecs = map[string]func(*corev1.ServiceSpec){
	"basic":         func(*corev1.ServiceSpec) {},
	"two-ports":     func(s *corev1.ServiceSpec) { s.Ports = append(s.Ports, corev1.ServicePort{Name: "https", Port: 443}) },
	"affinity":      func(s *corev1.ServiceSpec) { s.SessionAffinity = corev1.ServiceAffinityClientIP },
	"local":         func(s *corev1.ServiceSpec) { s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal },
	"ip":            func(s *corev1.ServiceSpec) { s.LoadBalancerIP = "192.0.2.10" },
	"source-ranges": func(s *corev1.ServiceSpec) { s.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} },
	// Two IP families on the dual-stack apiserver of TestMain.
	"dual-stack": func(s *corev1.ServiceSpec) { s.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack) },
	"affinity-two-ports": func(s *corev1.ServiceSpec) {
		s.SessionAffinity = corev1.ServiceAffinityClientIP
		s.Ports = append(s.Ports, corev1.ServicePort{Name: "https", Port: 443})
	},
}

// specNames lists serviceSpecs' keys in a fixed order.
var specNames = []string{"basic", "two-ports", "affinity", "local", "ip", "source-ranges", "affinity-two-ports"}

func newService(ns, name, spec string, typ corev1.ServiceType, annotations map[string]string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type:  typ,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	if typ == corev1.ServiceTypeLoadBalancer {
		svc.Spec.AllocateLoadBalancerNodePorts = ptr.To(false)
	}
	serviceSpecs[spec](&svc.Spec)
	return svc
}

// statusCase is a status write judged by the policy: the Service's spec,
// its conditions before the policies are installed (written without
// them), and the write judged by the policies.
type statusCase struct {
	name string
	spec string
	// typ is the Service's type; "" is LoadBalancer.
	typ corev1.ServiceType
	// annotations are the Service's, next to the spec.
	annotations map[string]string
	old, new    []metav1.Condition
	// oldIngress and ingress name the status.loadBalancer.ingress of
	// the old status and of the write (keys of ingresses). "" is an
	// address on a LoadBalancer Service, and none on another type, where
	// the apiserver forbids an ingress.
	oldIngress, ingress string
	// want is the rule ID the rejection must name, "" for an accepted
	// write.
	want string
	// left, for an accepted write, lists the conditions L9's warning must
	// name as left on a Service of another type; nil for no warning.
	left []string
}

// serviceType is c's Service type.
func (c statusCase) serviceType() corev1.ServiceType {
	if c.typ == "" {
		return corev1.ServiceTypeLoadBalancer
	}
	return c.typ
}

// ingressOf returns the ingress that name (oldIngress or ingress) stands
// for in c.
func (c statusCase) ingressOf(name string) []corev1.LoadBalancerIngress {
	if name == "" && c.serviceType() == corev1.ServiceTypeLoadBalancer {
		name = "ip"
	}
	return ingresses[name]
}

// ingresses are the status.loadBalancer.ingress values the tests write,
// as the apiserver stores them (ipMode defaulted), so that a value read
// back equals the one written.
var ingresses = map[string][]corev1.LoadBalancerIngress{
	"":         nil,
	"none":     nil,
	"ip":       {{IP: "192.0.2.1", IPMode: ptr.To(corev1.LoadBalancerIPModeVIP)}},
	"hostname": {{Hostname: "lb.example.com"}},
	// An entry that is no address (L4): ports only.
	"no-address": {{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}},
}

// ingressNames lists ingresses' keys in a fixed order, "" left out.
var ingressNames = []string{"none", "ip", "hostname", "no-address"}

var statusCases = []statusCase{
	{name: "C1/accept", spec: "basic", new: provisioningPair},
	{name: "C1/reject-unknown-serving", spec: "basic", new: []metav1.Condition{cond(serving, "Unknown", "Provisioning", ""), cond(provisioning, "True", "Provisioning", "")}, want: "C1"},
	{name: "C1/reject-unknown-provisioning", spec: "basic", new: []metav1.Condition{cond(serving, "True", "Serving", ""), cond(provisioning, "Unknown", "Complete", "")}, want: "C1"},
	{name: "C1/ratchet-unchanged-unknown", spec: "basic",
		old: []metav1.Condition{cond(serving, "Unknown", "Provisioning", ""), cond(provisioning, "True", "Provisioning", "")},
		new: []metav1.Condition{cond(serving, "Unknown", "Provisioning", ""), cond(provisioning, "True", "Provisioning", ""), cond("Ready", "True", "Ready", "")}},
	// The ratchet keeps a condition as it was, not its type: an Unknown
	// condition the write changes is judged.
	{name: "C1/reject-changed-unknown", spec: "basic",
		old: []metav1.Condition{cond(serving, "Unknown", "Provisioning", ""), cond(provisioning, "True", "Provisioning", "")},
		new: []metav1.Condition{cond(serving, "Unknown", "Provisioning", "still waiting"), cond(provisioning, "True", "Provisioning", "")}, want: "C1"},
	{name: "C3/accept", spec: "basic", new: servingPair},
	{name: "C3/accept-provider-reason", spec: "basic", new: []metav1.Condition{cond(serving, "False", "QuotaExceeded", ""), cond(provisioning, "False", "Complete", "")}},
	// The refusal names the condition at fault (its messageExpression).
	{name: "C3/reject-serving-reason-on-false", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Serving", ""), cond(provisioning, "False", "Complete", "")},
		want: "C3: status.conditions: LoadBalancerServing=False with reason Serving: "},
	{name: "C3/reject-complete-on-true", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Provisioning", ""), cond(provisioning, "True", "Complete", "")}, want: "C3"},
	{name: "C3/ratchet-unchanged", spec: "basic",
		old: []metav1.Condition{cond(serving, "False", "Serving", ""), cond(provisioning, "False", "Complete", "")},
		new: []metav1.Condition{cond(serving, "False", "Serving", ""), cond(provisioning, "False", "Complete", ""), cond("Ready", "False", "NotReady", "")}},
	// C2: an explicit Degraded=Unknown is allowed, whatever its reason:
	// C3 judges a reason under True or False only, P5 a Degraded=True.
	{name: "C2/accept-unknown-degraded", spec: "basic", new: with(servingPair, cond(degraded, "Unknown", "SessionAffinityNotSupported", ""))},
	{name: "C3/reject-changed-wrong-reason", spec: "basic",
		old: []metav1.Condition{cond(serving, "False", "Serving", ""), cond(provisioning, "False", "Complete", "")},
		new: []metav1.Condition{cond(serving, "False", "Serving", "lost"), cond(provisioning, "False", "Complete", "")}, want: "C3"},
	// C4 is a warning: the write goes through, and is told of Degraded.
	{name: "C4/warn-new-ports-error", spec: "two-ports", old: servingPair, new: with(servingPair, cond(portsError, "True", "PortsError", "udp/53"))},
	{name: "C4/accept-kept-ports-error", spec: "two-ports",
		old: with(servingPair, cond(portsError, "True", "PortsError", "udp/53")),
		new: with(servingPair, cond(portsError, "True", "PortsError", "udp/53 and udp/54"))},
	// The write that adds the deprecated condition and nothing else of
	// KEP-4631's is judged too.
	{name: "C4/warn-ports-error-alone", spec: "two-ports", new: []metav1.Condition{cond(portsError, "True", "PortsError", "udp/53")}},
	{name: "L1/accept", spec: "basic", new: provisioningPair},
	{name: "L1/reject-serving-alone", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Provisioning", "")}, want: "L1"},
	{name: "L1/reject-provisioning-alone", spec: "basic", new: []metav1.Condition{cond(provisioning, "True", "Provisioning", "")}, want: "L1"},
	{name: "L1/reject-partner-removed", spec: "basic", old: servingPair, new: servingPair[:1], want: "L1"},
	{name: "L1/ratchet-unchanged", spec: "basic",
		old: []metav1.Condition{cond(serving, "False", "Provisioning", "")},
		new: []metav1.Condition{cond(serving, "False", "Provisioning", ""), cond("Ready", "False", "NotReady", "")}},
	{name: "L5/accept-refused", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Unsupported", "no UDP"), cond(provisioning, "False", "Complete", "")}},
	{name: "L5/reject-refused-while-provisioning", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Unsupported", "no UDP"), cond(provisioning, "True", "Provisioning", "")}, want: "L5"},
	{name: "L5/reject-infrastructure-while-provisioning", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Infrastructure", "quota"), cond(provisioning, "True", "Provisioning", "")}, want: "L5"},
	{name: "L5/reject-provisioning-without-provisioning", spec: "basic", new: []metav1.Condition{cond(serving, "False", "Provisioning", ""), cond(provisioning, "False", "Complete", "")}, want: "L5"},
	// L5 reads Serving's reason: another False condition with reason
	// Provisioning asks nothing of LoadBalancerProvisioning.
	{name: "L5/accept-other-type-with-reason", spec: "basic", new: with(servingPair, cond("Ready", "False", "Provisioning", ""))},
	{name: "L5/ratchet-unchanged", spec: "basic",
		old: []metav1.Condition{cond(serving, "False", "Infrastructure", "quota"), cond(provisioning, "True", "Provisioning", "")},
		new: []metav1.Condition{cond(serving, "False", "Infrastructure", "quota"), cond(provisioning, "True", "Provisioning", ""), cond("Ready", "False", "NotReady", "")}},
	{name: "P5/accept-affinity", spec: "affinity", new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", ""))},
	{name: "P5/reject-affinity-not-asked", spec: "basic", new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", "")), want: "P5"},
	{name: "P5/accept-ports", spec: "two-ports", new: with(servingPair, cond(degraded, "True", "PortsNotSupported", ""))},
	{name: "P5/reject-ports-not-asked", spec: "basic", new: with(servingPair, cond(degraded, "True", "PortsNotSupported", "")), want: "P5"},
	{name: "P5/accept-local", spec: "local", new: with(servingPair, cond(degraded, "True", "ExternalTrafficPolicyNotSupported", ""))},
	{name: "P5/reject-local-not-asked", spec: "basic", new: with(servingPair, cond(degraded, "True", "ExternalTrafficPolicyNotSupported", "")), want: "P5"},
	{name: "P5/accept-ip", spec: "ip", new: with(servingPair, cond(degraded, "True", "LoadBalancerIPNotSupported", ""))},
	{name: "P5/reject-ip-not-asked", spec: "basic", new: with(servingPair, cond(degraded, "True", "LoadBalancerIPNotSupported", "")), want: "P5"},
	{name: "P5/accept-source-ranges", spec: "source-ranges", new: with(servingPair, cond(degraded, "True", "LoadBalancerSourceRangesNotSupported", ""))},
	{name: "P5/reject-source-ranges-not-asked", spec: "basic", new: with(servingPair, cond(degraded, "True", "LoadBalancerSourceRangesNotSupported", "")), want: "P5"},
	{name: "P5/reject-ip-families-single-stack", spec: "basic", new: with(servingPair, cond(degraded, "True", "IPFamiliesNotSupported", "")), want: "P5"},
	{name: "P5/accept-multiple", spec: "affinity-two-ports", new: with(servingPair, cond(degraded, "True", "Multiple", "PortsNotSupported,SessionAffinityNotSupported: udp/53; no affinity"))},
	{name: "P5/reject-multiple-not-asked", spec: "affinity", new: with(servingPair, cond(degraded, "True", "Multiple", "PortsNotSupported,SessionAffinityNotSupported: udp/53; no affinity")), want: "P5"},
	{name: "P5/accept-ip-families-dual-stack", spec: "dual-stack", new: with(servingPair, cond(degraded, "True", "IPFamiliesNotSupported", ""))},
	// Source ranges asked for through the legacy annotation alone; a blank
	// one asks for nothing (v1.AsksFor).
	{name: "P5/accept-source-ranges-annotation", spec: "basic", annotations: map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "10.0.0.0/8"},
		new: with(servingPair, cond(degraded, "True", "LoadBalancerSourceRangesNotSupported", ""))},
	{name: "P5/reject-source-ranges-blank-annotation", spec: "basic", annotations: map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: " "},
		new: with(servingPair, cond(degraded, "True", "LoadBalancerSourceRangesNotSupported", "")), want: "P5"},
	// G2: the list of a Multiple message may have blanks after the commas.
	{name: "P5/reject-multiple-spaced-not-asked", spec: "affinity", new: with(servingPair, cond(degraded, "True", "Multiple", "SessionAffinityNotSupported, PortsNotSupported: no affinity; udp/53")), want: "P5"},
	// A Degraded condition written on its own, without touching the pair.
	{name: "P5/reject-degraded-alone", spec: "basic", new: []metav1.Condition{cond(degraded, "True", "SessionAffinityNotSupported", "")}, want: "P5"},
	// C4: LoadBalancerPortsError=True reads as PortsNotSupported; a write
	// that changes the PortsError on a one-port Service breaks P5. P5
	// ratchets per degradation, as validation's does: one that a write
	// adds beside a PortsError left as it was is judged alone. A
	// PortsError that is not True names nothing.
	{name: "P5/ratchet-kept-ports-error-one-port", spec: "affinity",
		old: with(servingPair, cond(portsError, "True", "PortsError", "udp/53")),
		new: with(servingPair, cond(portsError, "True", "PortsError", "udp/53"), cond(degraded, "True", "SessionAffinityNotSupported", ""))},
	{name: "P5/reject-changed-ports-error-one-port", spec: "basic",
		old: with(servingPair, cond(portsError, "True", "PortsError", "udp/53")),
		new: with(servingPair, cond(portsError, "True", "PortsError", "udp/53 and udp/54")), want: "P5"},
	{name: "P5/accept-kept-false-ports-error", spec: "affinity",
		old: with(servingPair, cond(portsError, "False", "PortsError", "")),
		new: with(servingPair, cond(portsError, "False", "PortsError", ""), cond(degraded, "True", "SessionAffinityNotSupported", ""))},
	{name: "P5/ratchet-unchanged-degraded", spec: "basic",
		old: with(provisioningPair, cond(degraded, "True", "SessionAffinityNotSupported", "")),
		new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", ""))},
	// P6: degraded, while serving, in a feature the annotation requires
	// (the only place a stock server holds requirements).
	{name: "P6/reject-degraded-in-required", spec: "affinity", annotations: map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity"},
		new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", "")), want: "P6"},
	{name: "P6/reject-multiple-in-required", spec: "affinity-two-ports", annotations: map[string]string{v1.RequiredFeaturesAnnotation: "LoadBalancerIP, Ports"},
		new: with(servingPair, cond(degraded, "True", "Multiple", "PortsNotSupported,SessionAffinityNotSupported: udp/53; no affinity")), want: "P6"},
	{name: "P6/reject-ports-error-in-required", spec: "affinity-two-ports", annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Ports"},
		old: with(provisioningPair, cond(portsError, "True", "PortsError", "udp/53")),
		new: with(servingPair, cond(portsError, "True", "PortsError", "udp/53")), want: "P6"},
	{name: "P6/accept-degraded-not-required", spec: "affinity", annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Ports"},
		new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", ""))},
	{name: "P6/accept-refused", spec: "affinity", annotations: map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity"},
		new: []metav1.Condition{cond(serving, "False", "Unsupported", "no affinity"), cond(provisioning, "False", "Complete", "")}},
	{name: "P6/ratchet-unchanged", spec: "affinity", annotations: map[string]string{v1.RequiredFeaturesAnnotation: "SessionAffinity"},
		old: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", "")),
		new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", ""), cond("Ready", "True", "Ready", ""))},
	// On a Service of another type the conditions are L9's to remove: a
	// write is not refused for L1, L5 or P5, and one that changes them
	// and leaves any is warned about, naming those left.
	{name: "L1/accept-partner-removed-on-ClusterIP", spec: "basic", typ: corev1.ServiceTypeClusterIP,
		old: servingPair, new: servingPair[:1], left: []string{serving}},
	{name: "L5/accept-on-ClusterIP", spec: "basic", typ: corev1.ServiceTypeClusterIP,
		old: provisioningPair, new: []metav1.Condition{cond(serving, "False", "Provisioning", ""), cond(provisioning, "False", "Complete", "")},
		left: []string{serving, provisioning}},
	{name: "P5/accept-on-NodePort", spec: "basic", typ: corev1.ServiceTypeNodePort,
		old: servingPair, new: with(servingPair, cond(degraded, "True", "SessionAffinityNotSupported", "")),
		left: []string{serving, provisioning, degraded}},
	{name: "L9/warn-degraded-removed-pair-left", spec: "basic", typ: corev1.ServiceTypeClusterIP,
		old: with(servingPair, cond(degraded, "True", "PortsNotSupported", "")), new: servingPair,
		left: []string{serving, provisioning}},
	{name: "L9/no-warning-unchanged", spec: "basic", typ: corev1.ServiceTypeClusterIP,
		old: servingPair, new: with(servingPair, cond("Ready", "True", "Ready", ""))},
	{name: "L9/no-warning-all-removed", spec: "basic", typ: corev1.ServiceTypeClusterIP,
		old: with(servingPair, cond(degraded, "True", "PortsNotSupported", "")), new: []metav1.Condition{cond("Ready", "True", "Ready", "")}},
	{name: "L4/accept-hostname", spec: "basic", new: servingPair, ingress: "hostname"},
	{name: "L4/reject-no-ingress", spec: "basic", new: servingPair, ingress: "none", want: "L4"},
	{name: "L4/reject-entry-without-address", spec: "basic", new: servingPair, ingress: "no-address", want: "L4"},
	// Serving as it was, the ingress changed under it.
	{name: "L4/reject-ingress-removed-while-serving", spec: "basic", old: servingPair, new: servingPair, ingress: "none", want: "L4"},
	{name: "L4/accept-not-serving-without-ingress", spec: "basic", new: provisioningPair, ingress: "none"},
	{name: "L4/ratchet-unchanged", spec: "basic", old: servingPair, oldIngress: "none",
		new: with(servingPair, cond("Ready", "True", "Ready", "")), ingress: "none"},
	// C1 and C3 judge each condition a write sets, on any type.
	{name: "C1/reject-unknown-on-ClusterIP", spec: "basic", typ: corev1.ServiceTypeClusterIP, old: servingPair,
		new: []metav1.Condition{cond(serving, "Unknown", "Provisioning", ""), cond(provisioning, "True", "Provisioning", "")}, want: "C1"},
}

// TestAdmissionPolicies writes, for each rule the generated policies
// enforce, an accepted and a rejected status write (and a write that leaves
// an invalid condition as it was, which ratchets), then runs the
// differential of TestAdmissionPolicies/differential against
// validation.ValidateServiceStatusUpdate and the checker.
func TestAdmissionPolicies(t *testing.T) {
	client := clientset(t, "lbstatus-admission")
	ctx := context.Background()
	label := fmt.Sprintf("run-%d", time.Now().UnixNano())
	ns := admissionNamespace(t, client, label)

	// Before the policies exist: the Services and the old states,
	// some of which the policies would reject.
	stored := map[string]*corev1.Service{}
	for i, c := range statusCases {
		name := fmt.Sprintf("case-%d", i)
		stored[c.name] = createWithStatus(t, client, newService(ns, name, c.spec, c.serviceType(), c.annotations), c.old, c.ingressOf(c.oldIngress))
	}
	legacy, err := client.CoreV1().Services(ns).Create(ctx, newService(ns, "legacy-clusterip", "basic", corev1.ServiceTypeClusterIP,
		map[string]string{v1.RequiredFeaturesAnnotation: "Ports,Bogus"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// L9 through the library's own write: a LoadBalancer degraded in
	// Ports, with a LoadBalancerPortsError from before (which the helpers
	// never touch), turned into a one-port ClusterIP Service.
	l9 := createWithStatus(t, client, newService(ns, "l9", "two-ports", corev1.ServiceTypeLoadBalancer, nil),
		with(servingPair, cond(degraded, "True", "PortsNotSupported", "udp"), cond(portsError, "True", "PortsError", "udp")), ingresses["ip"])
	l9.Spec.Type = corev1.ServiceTypeClusterIP
	l9.Spec.Ports = l9.Spec.Ports[:1]
	if l9, err = client.CoreV1().Services(ns).Update(ctx, l9, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	diff := prepareDifferential(t, client, ns)
	leftovers := createWithStatus(t, client, newService(ns, "leftovers-probe", "basic", corev1.ServiceTypeClusterIP, nil), servingPair, nil)

	installPolicies(t, client, label)
	waitForPolicies(t, client, ns, stored[statusCases[0].name])
	warned, heard := warningClient(t)
	waitForWarnings(t, warned, heard, leftovers)
	t.Run("status", func(t *testing.T) {
		for _, c := range statusCases {
			t.Run(c.name, func(t *testing.T) {
				svc := stored[c.name].DeepCopy()
				svc.Status.Conditions = c.new
				svc.Status.LoadBalancer.Ingress = c.ingressOf(c.ingress)
				heard.take() // what earlier writes got, refused ones included
				_, err := warned.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
				checkAdmission(t, err, c.want)
				if c.want == "" {
					checkWarnings(t, heard.take(), string(c.serviceType()), c.left, addsPortsError(c.old, c.new))
				}
			})
		}
	})

	// P5 is about what a LoadBalancer asks for: the write that removes
	// the conditions of a Service that is no longer one (L9) is not
	// refused for the PortsError it leaves.
	t.Run("status/P5/accept-L9-write", func(t *testing.T) {
		tr, err := conditions.NotLoadBalancer(l9)
		if err != nil {
			t.Fatal(err)
		}
		heard.take()
		_, err = warned.CoreV1().Services(ns).UpdateStatus(ctx, tr.Service, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		checkAdmission(t, err, "")
		checkWarnings(t, heard.take(), "ClusterIP", nil, false)
	})

	t.Run("annotation", func(t *testing.T) {
		key := v1.RequiredFeaturesAnnotation
		for _, c := range []struct {
			name, value string
			typ         corev1.ServiceType
			want        string
		}{
			{"R4/accept", "Ports, SessionAffinity", corev1.ServiceTypeLoadBalancer, ""},
			{"R4/accept-empty", "", corev1.ServiceTypeLoadBalancer, ""},
			{"R4/reject-unknown-value", "Ports,Bogus", corev1.ServiceTypeLoadBalancer, `Unsupported value: "Bogus"`},
			{"R4/reject-empty-item", "Ports,,SessionAffinity", corev1.ServiceTypeLoadBalancer, "without empty items"},
			{"R4/reject-duplicate", "Ports,Ports", corev1.ServiceTypeLoadBalancer, `Duplicate value: "Ports"`},
			// Any feature listed twice, not only the first.
			{"R4/reject-later-duplicate", "Ports, SessionAffinity, SessionAffinity", corev1.ServiceTypeLoadBalancer, `Duplicate value: "SessionAffinity"`},
			{"R4/reject-placement", "Ports", corev1.ServiceTypeClusterIP, "Forbidden"},
			{"R4/accept-empty-on-ClusterIP", " ", corev1.ServiceTypeClusterIP, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				svc := newService(ns, "a-"+strings.ToLower(strings.ReplaceAll(c.name, "/", "-")), "basic", c.typ, map[string]string{key: c.value})
				_, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				checkAdmission(t, err, c.want)
			})
		}
		t.Run("R4/ratchet-unchanged-annotation", func(t *testing.T) {
			svc := legacy.DeepCopy()
			svc.Labels = map[string]string{"touched": "yes"}
			_, err := client.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			checkAdmission(t, err, "")
		})
		t.Run("R4/reject-changed-annotation", func(t *testing.T) {
			svc := legacy.DeepCopy()
			svc.Annotations[key] = "Bogus"
			_, err := client.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			checkAdmission(t, err, "Unsupported value")
		})
		// An update that adds the annotation to a Service that did not
		// have it, with or without other annotations, is judged like a
		// create.
		for name, before := range map[string]map[string]string{
			"no-annotations":    nil,
			"other-annotations": {"example.com/team": "web"},
		} {
			t.Run("R4/reject-added-annotation/"+name, func(t *testing.T) {
				plain, err := client.CoreV1().Services(ns).Create(ctx, newService(ns, name, "basic", corev1.ServiceTypeLoadBalancer, before), metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if plain.Annotations == nil {
					plain.Annotations = map[string]string{}
				}
				plain.Annotations[key] = "Ports,Bogus"
				_, err = client.CoreV1().Services(ns).Update(ctx, plain, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
				checkAdmission(t, err, "Unsupported value")
			})
		}
		// The status subresource writes a Service's metadata too: an
		// annotation set there is judged as on the Service itself, and a
		// status write that keeps an old one still ratchets.
		t.Run("R4/reject-annotation-through-status", func(t *testing.T) {
			lb, err := client.CoreV1().Services(ns).Create(ctx, newService(ns, "through-status", "basic", corev1.ServiceTypeLoadBalancer, nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			patch := []byte(`{"metadata":{"annotations":{"` + key + `":"Ports,Bogus"}}}`)
			_, err = client.CoreV1().Services(ns).Patch(ctx, lb.Name, types.MergePatchType, patch, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}, "status")
			checkAdmission(t, err, "Unsupported value")
		})
		t.Run("R4/ratchet-status-write-keeps-annotation", func(t *testing.T) {
			svc := legacy.DeepCopy()
			svc.Status.Conditions = []metav1.Condition{cond("Ready", "True", "Ready", "")}
			_, err := client.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			checkAdmission(t, err, "")
		})
		// A type change away from LoadBalancer must drop the annotation in
		// the same write, as R4 has it for the spec field (README).
		t.Run("R4/type-change-drops-annotation", func(t *testing.T) {
			lb, err := client.CoreV1().Services(ns).Create(ctx, newService(ns, "leaving-lb", "basic", corev1.ServiceTypeLoadBalancer,
				map[string]string{key: "Ports"}), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lb.Spec.Type = corev1.ServiceTypeClusterIP
			_, err = client.CoreV1().Services(ns).Update(ctx, lb, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			checkAdmission(t, err, "Forbidden")
			delete(lb.Annotations, key)
			_, err = client.CoreV1().Services(ns).Update(ctx, lb, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			checkAdmission(t, err, "")
		})
	})

	t.Run("differential", func(t *testing.T) { runDifferential(t, warned, heard, ns, diff) })

	// The reference provider's writes all pass: the policies reject
	// mistakes, not a conformant provider.
	t.Run("reference-provider", func(t *testing.T) {
		g := NewWithT(t)
		ns := admissionNamespace(t, client, label)
		probe := createWithStatus(t, client, newService(ns, "probe", "basic", corev1.ServiceTypeLoadBalancer, nil), nil, nil)
		waitForPolicies(t, client, ns, probe)
		runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
			Capabilities: waitCapabilities, Namespace: ns, Workers: 2, ProvisionDelay: 300 * time.Millisecond,
		}))
		get := func(name string) func() *corev1.Service {
			return func() *corev1.Service {
				svc, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil
				}
				return svc
			}
		}
		createLoadBalancer(t, client, ns, "web", nil)
		createLoadBalancer(t, client, ns, "affinity", func(svc *corev1.Service) { svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP })
		createLoadBalancer(t, client, ns, "dns", func(svc *corev1.Service) {
			svc.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}
		})
		g.Eventually(get("web"), 30*time.Second, 100*time.Millisecond).Should(lbgomega.BeServing())
		g.Eventually(get("affinity"), 30*time.Second, 100*time.Millisecond).Should(lbgomega.BeDegradedIn(v1.LoadBalancerFeatureSessionAffinity))
		g.Eventually(get("dns"), 30*time.Second, 100*time.Millisecond).Should(lbgomega.BeRefused())

		// A spec change: the provider reprovisions (Provisioning=True,
		// then False again) through the policies.
		svc := get("web")()
		before := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning).LastTransitionTime
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP})
		if _, err := client.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		g.Eventually(func() bool {
			svc := get("web")()
			p := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)
			return p != nil && p.LastTransitionTime.After(before.Time) && conditions.Evaluate(v1.FromCore(svc), "").Result == conditions.ResultReady
		}, 30*time.Second, 100*time.Millisecond).Should(BeTrue(), "the provider's writes after a spec change did not get through")
	})
}

// createWithStatus creates svc and, when conds or ingress is not empty,
// writes them as its status; it returns the stored object.
func createWithStatus(t *testing.T, client kubernetes.Interface, svc *corev1.Service, conds []metav1.Condition, ingress []corev1.LoadBalancerIngress) *corev1.Service {
	t.Helper()
	stored, err := createStored(client, svc, conds, ingress)
	if err != nil {
		t.Fatalf("create %s with its old status: %v", svc.Name, err)
	}
	return stored
}

// waitForPolicies waits until both policies judge writes in ns: the
// apiserver loads policies and bindings from informers, a moment after
// they are created.
func waitForPolicies(t *testing.T, client kubernetes.Interface, ns string, probe *corev1.Service) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	dry := metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}
	for {
		svc := probe.DeepCopy()
		svc.Status.Conditions = []metav1.Condition{cond(serving, "Unknown", "Provisioning", ""), cond(provisioning, "True", "Provisioning", "")}
		_, statusErr := client.CoreV1().Services(ns).UpdateStatus(ctx, svc, dry)
		_, createErr := client.CoreV1().Services(ns).Create(ctx,
			newService(ns, "probe", "basic", corev1.ServiceTypeClusterIP, map[string]string{v1.RequiredFeaturesAnnotation: "Ports"}),
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if statusErr != nil && createErr != nil {
			checkAdmission(t, statusErr, "C1")
			checkAdmission(t, createErr, "Forbidden")
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policies do not judge writes after 60s: status write: %v; create: %v", statusErr, createErr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitForWarnings waits until both warning policies answer writes in the
// probe's namespace too: the apiserver loads each policy and binding on
// its own, so the refusing ones judging writes (waitForPolicies) does not
// mean the warning ones do. probe is a ClusterIP Service with KEP-4631
// conditions; the dry-run write removes one of them (L9) and adds a
// LoadBalancerPortsError (C4).
func waitForWarnings(t *testing.T, client kubernetes.Interface, heard *warningRecorder, probe *corev1.Service) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		svc := probe.DeepCopy()
		svc.Status.Conditions = append(svc.Status.Conditions[:1], cond(portsError, "False", "PortsError", ""))
		heard.take()
		_, err := client.CoreV1().Services(probe.Namespace).UpdateStatus(context.Background(), svc, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("the warnings probe's write: %v", err)
		}
		warnings := heard.take()
		if slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "'lbstatus-conditions-left.lbstatus.github.io'") }) &&
			slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "'lbstatus-deprecated-conditions.lbstatus.github.io'") }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the warning policies do not both answer writes after 60s: %q", warnings)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkAdmission checks the outcome of a write: accepted when want is "",
// else refused by a generated policy with a message holding want.
func checkAdmission(t testing.TB, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("write refused, want accepted: %v", err)
	case want != "" && err == nil:
		t.Errorf("write accepted, want refused naming %s", want)
	case want != "" && !isPolicyDenial(err):
		t.Errorf("write refused by something other than an lbstatus policy: %v", err)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("refusal %q does not name %s", err, want)
	}
}

// warningRecorder keeps the warnings the apiserver sends a client, for
// the L9 policy, which warns and never refuses.
type warningRecorder struct {
	mu   sync.Mutex
	text []string
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

// take returns the warnings heard since the last take.
func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.text
	w.text = nil
	return out
}

// warningClient returns a client whose warnings the recorder keeps.
func warningClient(t *testing.T) (kubernetes.Interface, *warningRecorder) {
	t.Helper()
	heard := &warningRecorder{}
	c := rest.CopyConfig(cfg)
	c.UserAgent = "lbstatus-admission-warnings"
	c.WarningHandlerWithContext = heard
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return cs, heard
}

// checkWarnings checks lbstatus's warnings of one accepted write: L9's,
// naming the Service's type and exactly the conditions left, when left is
// not nil; C4's when the write added a LoadBalancerPortsError; no other.
func checkWarnings(t testing.TB, warnings []string, typ string, left []string, portsErrorAdded bool) {
	t.Helper()
	var l9, c4, others []string
	for _, w := range warnings {
		switch {
		case strings.Contains(w, "'lbstatus-conditions-left.lbstatus.github.io'"):
			l9 = append(l9, w)
		case strings.Contains(w, "'lbstatus-deprecated-conditions.lbstatus.github.io'"):
			c4 = append(c4, w)
		case strings.Contains(w, ".lbstatus.github.io"):
			others = append(others, w)
		}
	}
	if len(others) > 0 {
		t.Errorf("warnings %q from no policy the test knows", others)
	}
	switch want := "L9: status.conditions: the Service is of type " + typ + ", not LoadBalancer, yet this write leaves " +
		strings.Join(left, ", ") + "; the provider removes them together, in one write"; {
	case left == nil && len(l9) > 0:
		t.Errorf("L9 warnings %q, want none", l9)
	case left != nil && (len(l9) != 1 || !strings.HasSuffix(l9[0], want)):
		t.Errorf("L9 warnings %q, want one ending in %q", l9, want)
	}
	switch want := "C4: status.conditions: " + portsError + " is deprecated; set " + degraded + "=True with reason PortsNotSupported instead"; {
	case !portsErrorAdded && len(c4) > 0:
		t.Errorf("C4 warnings %q, want none", c4)
	case portsErrorAdded && (len(c4) != 1 || !strings.HasSuffix(c4[0], want)):
		t.Errorf("C4 warnings %q, want one ending in %q", c4, want)
	}
}

// addsPortsError reports whether a status write of conds, over old, adds a
// LoadBalancerPortsError: C4's warning.
func addsPortsError(old, conds []metav1.Condition) bool {
	has := func(cs []metav1.Condition) bool {
		return slices.ContainsFunc(cs, func(c metav1.Condition) bool { return c.Type == portsError })
	}
	return has(conds) && !has(old)
}

// isPolicyDenial reports whether err is a 422 from one of the generated
// policies.
func isPolicyDenial(err error) bool {
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "ValidatingAdmissionPolicy") && strings.Contains(err.Error(), ".lbstatus.github.io")
}

// differentialCases is how many generated condition sets the differential
// writes.
const differentialCases = 520

type differentialCase struct {
	stored  *corev1.Service
	new     []metav1.Condition
	ingress []corev1.LoadBalancerIngress
}

// prepareDifferential creates the differential's Services with generated
// old conditions (written before the policies exist) and generates the
// condition set each one is then updated to.
func prepareDifferential(t *testing.T, client kubernetes.Interface, ns string) []differentialCase {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	t.Logf("differential seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 4631))
	cases := make([]differentialCase, differentialCases)
	olds := make([][]metav1.Condition, len(cases))
	oldIngress := make([][]corev1.LoadBalancerIngress, len(cases))
	specs := make([]string, len(cases))
	typs := make([]corev1.ServiceType, len(cases))
	annotations := make([]map[string]string, len(cases))
	for i := range cases {
		specs[i] = specNames[rng.IntN(len(specNames))]
		typs[i] = corev1.ServiceTypeLoadBalancer
		if rng.IntN(6) == 0 {
			// A Service of another type, whose conditions are L9's:
			// a spec that type can take.
			typs[i], specs[i] = corev1.ServiceTypeClusterIP, specNames[rng.IntN(3)]
		} else if rng.IntN(2) == 0 {
			// Required features, for P6: a subset of them, in the
			// annotation, which the features policy accepts.
			var required []string
			for _, f := range v1.LoadBalancerFeatures() {
				if rng.IntN(2) == 0 {
					required = append(required, string(f))
				}
			}
			annotations[i] = map[string]string{v1.RequiredFeaturesAnnotation: strings.Join(required, ", ")}
		}
		olds[i] = genConditions(rng, nil)
		oldIngress[i] = genIngress(rng, typs[i], nil)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	work := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range work {
				svc, err := createStored(client, newService(ns, fmt.Sprintf("diff-%d", i), specs[i], typs[i], annotations[i]), olds[i], oldIngress[i])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				cases[i].stored = svc
				mu.Unlock()
			}
		})
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	for i := range cases {
		cases[i].new = genConditions(rng, cases[i].stored.Status.Conditions)
		cases[i].ingress = genIngress(rng, typs[i], cases[i].stored.Status.LoadBalancer.Ingress)
	}
	return cases
}

// genIngress returns an ingress of ingresses for a Service of type typ:
// none on another type (the apiserver forbids one there), else old half
// of the time when old is not nil, a random one otherwise.
func genIngress(rng *rand.Rand, typ corev1.ServiceType, old []corev1.LoadBalancerIngress) []corev1.LoadBalancerIngress {
	switch {
	case typ != corev1.ServiceTypeLoadBalancer:
		return nil
	case old != nil && rng.IntN(2) == 0:
		return old
	}
	return ingresses[ingressNames[rng.IntN(len(ingressNames))]]
}

func createStored(client kubernetes.Interface, svc *corev1.Service, conds []metav1.Condition, ingress []corev1.LoadBalancerIngress) (*corev1.Service, error) {
	ctx := context.Background()
	created, err := client.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil || len(conds) == 0 && len(ingress) == 0 {
		return created, err
	}
	created.Status.Conditions = conds
	created.Status.LoadBalancer.Ingress = ingress
	return client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
}

// Reasons the generator draws from, per condition type: the table's and
// one a provider might have of its own.
var genReasons = map[string][]string{
	serving:      {"Serving", "Provisioning", "Unsupported", "Infrastructure", "Complete", "QuotaExceeded"},
	provisioning: {"Provisioning", "Complete", "Serving", "Waiting"},
	degraded: {"IPFamiliesNotSupported", "PortsNotSupported", "LoadBalancerIPNotSupported", "SessionAffinityNotSupported",
		"ExternalTrafficPolicyNotSupported", "LoadBalancerSourceRangesNotSupported", "Multiple", "Multiple", "Partial"},
	portsError: {"PortsError"},
	"Ready":    {"Ready", "NotReady"},
}

// genTypes are the condition types the generator writes, with the chance
// of each being present in a fresh set.
var genTypes = []struct {
	typ    string
	chance float64
}{{serving, 0.8}, {provisioning, 0.8}, {degraded, 0.4}, {portsError, 0.15}, {"Ready", 0.3}}

// genConditions returns a well-formed (C5) condition set. With old not nil
// it is a write on top of old: each of old's conditions is kept as it is,
// changed or dropped, and absent types may appear; one write in four keeps
// all of old's KEP-4631 conditions.
func genConditions(rng *rand.Rand, old []metav1.Condition) []metav1.Condition {
	keepAll := old != nil && rng.IntN(4) == 0
	var out []metav1.Condition
	for _, gt := range genTypes {
		i := slices.IndexFunc(old, func(c metav1.Condition) bool { return c.Type == gt.typ })
		switch {
		case i >= 0 && (keepAll || rng.IntN(2) == 0):
			out = append(out, old[i])
		case i >= 0 && rng.IntN(3) == 0:
			// dropped
		case i >= 0 || rng.Float64() < gt.chance:
			if keepAll && i < 0 {
				continue
			}
			out = append(out, genCondition(rng, gt.typ))
		}
	}
	return out
}

func genCondition(rng *rand.Rand, typ string) metav1.Condition {
	status := metav1.ConditionStatus([]string{"True", "False", "Unknown"}[rng.IntN(3)])
	if rng.IntN(4) > 0 && status == "Unknown" {
		status = "True"
	}
	reasons := genReasons[typ]
	reason := reasons[rng.IntN(len(reasons))]
	// Mostly a reason that goes with the status, so that many sets are
	// valid.
	if rng.IntN(3) > 0 {
		for _, r := range reasons {
			if s, ok := v1.ReasonStatus(v1.LoadBalancerConditionType(typ), v1.LoadBalancerConditionReason(r)); ok && s == status && rng.IntN(2) == 0 {
				reason = r
				break
			}
		}
	}
	message := fmt.Sprintf("message %d", rng.IntN(3))
	if reason == "Multiple" {
		var list []string
		for _, r := range genReasons[degraded][:6] {
			if rng.IntN(3) == 0 {
				list = append(list, r)
			}
		}
		message = strings.Join(list, ",") + ": details"
	}
	return metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(admissionTime.Add(time.Duration(rng.IntN(3)) * time.Second)),
	}
}

// differentialRules are the rules the policies enforce, as the reference
// side finds them: C1 and C3 from validation.ValidateServiceStatusUpdate,
// P5 from it with the cross-condition rules (P5 ratchets per condition,
// which the checker, judging one object, cannot tell), L1, L4, L5 and P6
// from the conformance checker, for a write of newConds and newIngress
// over stored. C4 only warns (addsPortsError).
func expectedRules(t *testing.T, gate validation.Options, stored *corev1.Service, newConds []metav1.Condition, newIngress []corev1.LoadBalancerIngress) []string {
	t.Helper()
	oldSvc := v1.FromCore(stored)
	next := stored.DeepCopy()
	next.Status.Conditions = newConds
	next.Status.LoadBalancer.Ingress = newIngress
	newSvc := v1.FromCore(next)

	var rules []string
	for _, err := range validation.ValidateServiceStatusUpdate(newSvc, oldSvc, gate) {
		switch {
		case isRuleID(err.Origin):
			// Validation that names its rule by origin.
			rules = append(rules, err.Origin)
		case err.Type == field.ErrorTypeNotSupported:
			// The generated sets are well-formed (C5), so an error is C1
			// (Unknown) or C3.
			rules = append(rules, "C1")
		default:
			rules = append(rules, "C3")
		}
	}
	cross := gate
	cross.CrossConditionRules = true
	for _, err := range validation.ValidateServiceStatusUpdate(newSvc, oldSvc, cross) {
		if err.Origin == validation.OriginP5 {
			rules = append(rules, err.Origin)
		}
	}
	changed := func(types ...string) bool { return typesChanged(oldSvc.Status.Conditions, newConds, types...) }
	// Of Serving and Provisioning, L4, L5 and P6 read the first's status
	// and reason only.
	stateChanged := func(types ...string) bool { return firstStateChanged(oldSvc.Status.Conditions, newConds, types...) }
	for _, f := range conformance.NewChecker().Observe(newSvc) {
		if f.Severity != conformance.SeverityViolation {
			continue
		}
		switch f.Rule {
		case "L1":
			if changed(serving, provisioning) {
				rules = append(rules, string(f.Rule))
			}
		case "L5":
			if stateChanged(serving, provisioning) {
				rules = append(rules, string(f.Rule))
			}
		case "L4":
			if stateChanged(serving) || !apiequality.Semantic.DeepEqual(newIngress, stored.Status.LoadBalancer.Ingress) {
				rules = append(rules, string(f.Rule))
			}
		case "P6":
			// A Degraded or LoadBalancerPortsError the write removes
			// names no new degradation: one left as it was stands.
			if stateChanged(serving) || firstOfType(newConds, degraded) != nil && changed(degraded) ||
				firstOfType(newConds, portsError) != nil && changed(portsError) {
				rules = append(rules, string(f.Rule))
			}
		}
	}
	// The checker reports a Provisioning that is neither True nor False as
	// C1 alone. The policies, as validation, let a stored one stand (C1
	// ratchets) and judge a new Serving beside it for L5, on a
	// LoadBalancer Service, as every L5.
	if s, p := firstOfType(newConds, serving), firstOfType(newConds, provisioning); newSvc.Spec.Type == corev1.ServiceTypeLoadBalancer &&
		s != nil && p != nil && s.Status == metav1.ConditionFalse &&
		p.Status != metav1.ConditionTrue && p.Status != metav1.ConditionFalse &&
		slices.ContainsFunc(oldSvc.Status.Conditions, func(o metav1.Condition) bool { return conditionEqual(o, *p) }) &&
		stateChanged(serving, provisioning) && slices.Contains([]string{"Provisioning", "Unsupported", "Infrastructure"}, s.Reason) {
		rules = append(rules, "L5")
	}
	slices.Sort(rules)
	return slices.Compact(rules)
}

// firstOfType returns the first condition of type typ, or nil.
func firstOfType(conds []metav1.Condition, typ string) *metav1.Condition {
	if i := slices.IndexFunc(conds, func(c metav1.Condition) bool { return c.Type == typ }); i >= 0 {
		return &conds[i]
	}
	return nil
}

// isRuleID reports whether s looks like a rule ID of the specification
// (C1, L5, P5, ...).
func isRuleID(s string) bool {
	return len(s) >= 2 && strings.ContainsRune("CLPRTG", rune(s[0])) && strings.Trim(s[1:], "0123456789") == ""
}

func conditionEqual(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.ObservedGeneration == b.ObservedGeneration && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// runDifferential writes each generated condition set (dry run) and
// requires the policies to accept it exactly when the reference finds no
// violation of the rules they enforce, and to warn of L9 exactly when the
// checker finds the conditions left on a Service of another type and the
// write changed them. client's warnings go to heard.
func runDifferential(t *testing.T, client kubernetes.Interface, heard *warningRecorder, ns string, cases []differentialCase) {
	gate := features.NewFeatureGate()
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		t.Fatal(err)
	}
	opts := validation.Options{FeatureGate: gate}
	ctx := context.Background()
	counts := map[string]int{}
	accepted := 0
	for i, c := range cases {
		want := expectedRules(t, opts, c.stored, c.new, c.ingress)
		svc := c.stored.DeepCopy()
		svc.Status.Conditions = c.new
		svc.Status.LoadBalancer.Ingress = c.ingress
		heard.take()
		_, err := client.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && !isPolicyDenial(err) {
			t.Fatalf("case %d: write failed for another reason: %v", i, err)
		}
		if err == nil {
			left, added := expectedLeft(c.stored, c.new), addsPortsError(c.stored.Status.Conditions, c.new)
			if left != nil {
				counts["L9 warning"]++
			}
			if added {
				counts["C4 warning"]++
			}
			t.Run(fmt.Sprintf("case-%d", i), func(t *testing.T) {
				checkWarnings(t, heard.take(), string(c.stored.Spec.Type), left, added)
			})
		}
		for _, r := range want {
			counts[r]++
		}
		if err == nil {
			accepted++
		}
		switch {
		case err == nil && len(want) > 0:
			t.Errorf("case %d: the policies accept a write that breaks %v\nold: %s\nnew: %s", i, want, formatConds(c.stored.Status.Conditions), formatConds(c.new))
		case err != nil && len(want) == 0:
			t.Errorf("case %d: the policies refuse a write the reference accepts: %v\nold: %s\nnew: %s", i, err, formatConds(c.stored.Status.Conditions), formatConds(c.new))
		case err != nil && !slices.ContainsFunc(want, func(r string) bool { return strings.Contains(err.Error(), r+": ") }):
			t.Errorf("case %d: the refusal names none of %v: %v", i, want, err)
		}
	}
	t.Logf("differential: %d condition sets, %d accepted; rules broken: %v", len(cases), accepted, counts)
	// The generator must reach every rule, and both outcomes, or the
	// differential proves less than it says.
	for _, r := range []string{"C1", "C3", "L1", "L4", "L5", "P5", "P6", "L9 warning", "C4 warning"} {
		if counts[r] == 0 {
			t.Errorf("no generated write gives %s", r)
		}
	}
	if accepted == 0 || accepted == len(cases) {
		t.Errorf("%d of %d writes accepted; the generator must produce both outcomes", accepted, len(cases))
	}
}

// expectedLeft is the reference for the L9 warning of an accepted write:
// the KEP-4631 conditions it leaves, in their order, when the checker finds
// them left on a Service that is not a LoadBalancer (L9) and the write
// changed any of them; nil otherwise.
func expectedLeft(stored *corev1.Service, newConds []metav1.Condition) []string {
	next := stored.DeepCopy()
	next.Status.Conditions = newConds
	if !slices.ContainsFunc(conformance.NewChecker().Observe(v1.FromCore(next)), func(f conformance.Finding) bool { return f.Rule == "L9" }) {
		return nil
	}
	kep := []string{serving, provisioning, degraded}
	if !typesChanged(stored.Status.Conditions, newConds, kep...) {
		return nil
	}
	var left []string
	for _, c := range newConds {
		if slices.Contains(kep, c.Type) {
			left = append(left, c.Type)
		}
	}
	return left
}

// typesChanged reports whether a write from old to new changes the
// conditions of any of types, as the policies' CEL compares them: for
// each type, the list of its conditions in order.
func typesChanged(old, new []metav1.Condition, types ...string) bool {
	of := func(conds []metav1.Condition, typ string) []metav1.Condition {
		return slices.DeleteFunc(slices.Clone(conds), func(c metav1.Condition) bool { return c.Type != typ })
	}
	return slices.ContainsFunc(types, func(typ string) bool {
		return !slices.EqualFunc(of(old, typ), of(new, typ), conditionEqual)
	})
}

// firstStateChanged reports whether, for one of types, the first condition
// of the type in new is there where old has none, or the other way round,
// or differs in status or reason from old's first.
func firstStateChanged(old, new []metav1.Condition, types ...string) bool {
	return slices.ContainsFunc(types, func(typ string) bool {
		o := slices.IndexFunc(old, func(c metav1.Condition) bool { return c.Type == typ })
		n := slices.IndexFunc(new, func(c metav1.Condition) bool { return c.Type == typ })
		return (o < 0) != (n < 0) || o >= 0 && (old[o].Status != new[n].Status || old[o].Reason != new[n].Reason)
	})
}

func formatConds(conds []metav1.Condition) string {
	var parts []string
	for _, c := range conds {
		parts = append(parts, fmt.Sprintf("%s=%s/%s(%q)@%d", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.Unix()))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
