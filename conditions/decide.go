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
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Capabilities describes what a provider's load balancers can do. The zero
// value is a provider that handles no Service at all (no class, not even the
// default one) and can do nothing; every field adds a capability.
type Capabilities struct {
	// IPFamilies lists the IP families the provider can serve. Empty: none,
	// every Service with IP families is refused (P2a).
	IPFamilies []corev1.IPFamily
	// DualStack says one load balancer can serve two IP families at once.
	// Without it, a dual-stack Service is served on its first supported
	// family only and degraded in IPFamilies (P4).
	DualStack bool
	// Protocols lists the L4 protocols the provider can serve. Empty: none,
	// every Service with ports is refused (P2b).
	Protocols []corev1.Protocol
	// MixedProtocols says one load balancer can serve several protocols at
	// once. Without it, a Service with several supported protocols is served
	// on the protocol of its first supported port only and degraded in Ports
	// (P4).
	MixedProtocols bool
	// WithoutNodePorts says the provider can serve a Service with
	// allocateLoadBalancerNodePorts false. Without it, such a Service is
	// refused (P2c).
	WithoutNodePorts bool
	// SessionAffinity says the provider implements sessionAffinity ClientIP.
	SessionAffinity bool
	// LoadBalancerSourceRanges says the provider enforces
	// spec.loadBalancerSourceRanges (and its annotation).
	LoadBalancerSourceRanges bool
	// LoadBalancerIP says the provider honors spec.loadBalancerIP.
	LoadBalancerIP bool
	// PreserveSourceIP says the provider preserves the client's source IP
	// for externalTrafficPolicy Local.
	PreserveSourceIP bool
	// Classes lists the non-empty spec.loadBalancerClass values the provider
	// handles. A Service of another class is ignored (P1).
	Classes []string
	// DefaultClass says the provider handles Services without a
	// loadBalancerClass (nil or empty), as a cloud provider's service
	// controller does. Without it, they are ignored (P1).
	DefaultClass bool
	// KnownFeatures lists the required features the provider knows and
	// checks. A required feature outside the list is unsupported (R2): the
	// Service is refused. Empty: the provider knows none, and refuses every
	// Service that requires any feature. v1.LoadBalancerFeatures() is the list
	// of this version of the API. A provider built for a newer API may list
	// a value this version does not know: R2 asks what the provider knows,
	// not this library. No capability here says whether a Service gets such
	// a feature, so listing it says the provider implements it for the
	// Service at hand (R1); a provider that cannot leaves it out for that
	// Service, and Decide refuses it.
	KnownFeatures []v1.LoadBalancerFeature
	// RefuseUnsupported lists the features of P3 (SessionAffinity,
	// LoadBalancerSourceRanges, LoadBalancerIP) the provider refuses rather
	// than degrades when a Service asks for them and the provider cannot
	// honor them. Features of P4 in this list are ignored: P4 requires a
	// degradation unless the feature is required. Empty: degrade.
	RefuseUnsupported []v1.LoadBalancerFeature
}

// Action is what Decide tells a provider to do with a Service.
type Action string

const (
	// ActionIgnore: the Service is not the provider's (P1): no load
	// balancer, no status change.
	ActionIgnore Action = "Ignore"
	// ActionRefuse: write Serving=False/Unsupported (P2, R1, R2): Failed
	// with v1.LoadBalancerReasonUnsupported and Decision.Message.
	ActionRefuse Action = "Refuse"
	// ActionProvision: provision, then report Decision.Degraded with
	// Succeeded (P3, P4).
	ActionProvision Action = "Provision"
)

// Refusal is one reason to refuse a Service: the rule that requires it
// (P2, R1 or R2, or P3 for a refusal the provider chose), the feature it is
// about ("" for none), and a lower-case fragment saying what is unsupported.
type Refusal struct {
	Rule    string
	Feature v1.LoadBalancerFeature
	Message string
}

// IgnoreReason says why Decide ignores a Service. A provider cleans up
// after each of them alike (Reconcile does): the conditions and the
// ingress it wrote go (L9, P1).
type IgnoreReason string

const (
	// IgnoreNoService: there is no Service (nil).
	IgnoreNoService IgnoreReason = "NoService"
	// IgnoreNotLoadBalancer: the Service is not of type LoadBalancer (any
	// more, L9).
	IgnoreNotLoadBalancer IgnoreReason = "NotLoadBalancer"
	// IgnoreForeignClass: the Service's loadBalancerClass, or its lack of
	// one, is not the provider's (P1).
	IgnoreForeignClass IgnoreReason = "ForeignClass"
)

// Decision is the answer of Decide. Ignored is set for ActionIgnore,
// Refusals for ActionRefuse, Degraded (possibly empty) for
// ActionProvision.
type Decision struct {
	Action Action
	// Ignored says why the Service is ignored; empty for other actions.
	Ignored IgnoreReason
	// Detail is a lower-case fragment saying what made the Service
	// ignored (its type, its class); empty for other actions.
	Detail string
	// Refusals are the reasons to refuse, in the order of the specification:
	// P2a, P2b, P2c, then required features (R1, R2), then P3 choices.
	Refusals []Refusal
	// Degraded are the features the load balancer will not implement, in
	// the order of v1.LoadBalancerFeatures(). Each is something the Service
	// asks for (P5) and none is required (R1).
	Degraded []v1.LoadBalancerFeature
}

// Message returns the message for Serving=False/Unsupported: the refusal
// messages joined by "; "; for an ignored Service, Detail. Empty when
// there are none.
func (d Decision) Message() string {
	if d.Action == ActionIgnore {
		return d.Detail
	}
	msgs := make([]string, 0, len(d.Refusals))
	for _, r := range d.Refusals {
		msgs = append(msgs, r.Message)
	}
	return strings.Join(msgs, "; ")
}

// Decide says what a provider with capabilities caps must do with svc:
// ignore it (P1: not a LoadBalancer, or a loadBalancerClass the provider
// does not handle), refuse it (P2: no IP family or protocol it can serve, or
// node ports it needs; R1: a required feature it cannot implement; R2: a
// required feature it does not know, that is one not in caps.KnownFeatures,
// or a required-features annotation that does not parse; P3: an unsupported
// feature caps says to refuse), or provision it with the degradations of P3
// and P4. Required features come from RequiredFeatures: the spec field, else
// the annotation fallback. A required feature is never degraded: it is
// refused instead. A nil svc is ignored with IgnoreNoService.
func Decide[S Object](svc S, caps Capabilities) Decision {
	return decide(view(svc), caps)
}

func decide(svc *v1.Service, caps Capabilities) Decision {
	if svc == nil {
		return Decision{Action: ActionIgnore, Ignored: IgnoreNoService, Detail: "there is no service"}
	}
	spec := &svc.Spec.ServiceSpec
	if spec.Type != corev1.ServiceTypeLoadBalancer {
		return Decision{Action: ActionIgnore, Ignored: IgnoreNotLoadBalancer, Detail: fmt.Sprintf("type is %q, not LoadBalancer", spec.Type)}
	}
	if class := ptr.Deref(spec.LoadBalancerClass, ""); class == "" && !caps.DefaultClass {
		return Decision{Action: ActionIgnore, Ignored: IgnoreForeignClass, Detail: "the provider does not handle services without a loadBalancerClass"}
	} else if class != "" && !slices.Contains(caps.Classes, class) {
		return Decision{Action: ActionIgnore, Ignored: IgnoreForeignClass, Detail: fmt.Sprintf("the provider does not handle loadBalancerClass %q", class)}
	}

	var d Decision
	refuse := func(rule string, f v1.LoadBalancerFeature, format string, args ...any) {
		d.Refusals = append(d.Refusals, Refusal{Rule: rule, Feature: f, Message: fmt.Sprintf(format, args...)})
	}
	required, _, errs := RequiredFeatures(svc)
	requiredSet := sets.New(required...)
	knownSet := sets.New(caps.KnownFeatures...)
	refuseSet := sets.New(caps.RefuseUnsupported...)

	// What the provider cannot give in full, per feature; P2 refusals are
	// recorded as found.
	var short []v1.LoadBalancerFeature

	families := serviceFamilies(spec)
	served := 0
	for _, f := range families {
		if slices.Contains(caps.IPFamilies, f) {
			served++
		}
	}
	switch {
	case len(families) > 0 && served == 0:
		refuse("P2", "", "IP families %s are not supported", joinFamilies(families))
	case served < len(families) || (len(families) > 1 && !caps.DualStack):
		short = append(short, v1.LoadBalancerFeatureIPFamilies)
	}

	protocols := sets.New[corev1.Protocol]()
	supported := sets.New[corev1.Protocol]()
	for _, p := range spec.Ports {
		protocols.Insert(protocol(p))
		if slices.Contains(caps.Protocols, protocol(p)) {
			supported.Insert(protocol(p))
		}
	}
	switch {
	case protocols.Len() > 0 && supported.Len() == 0:
		refuse("P2", "", "protocols %s are not supported", joinProtocols(sets.List(protocols)))
	case supported.Len() < protocols.Len() || (supported.Len() > 1 && !caps.MixedProtocols):
		short = append(short, v1.LoadBalancerFeaturePorts)
	}

	if !ptr.Deref(spec.AllocateLoadBalancerNodePorts, true) && !caps.WithoutNodePorts {
		refuse("P2", "", "allocateLoadBalancerNodePorts false is not supported: the provider needs node ports")
	}

	if asksFor(svc, v1.LoadBalancerFeatureSessionAffinity) && !caps.SessionAffinity {
		short = append(short, v1.LoadBalancerFeatureSessionAffinity)
	}
	if asksFor(svc, v1.LoadBalancerFeatureLoadBalancerIP) && !caps.LoadBalancerIP {
		short = append(short, v1.LoadBalancerFeatureLoadBalancerIP)
	}
	if asksFor(svc, v1.LoadBalancerFeatureExternalTrafficPolicy) && !caps.PreserveSourceIP {
		short = append(short, v1.LoadBalancerFeatureExternalTrafficPolicy)
	}
	if asksFor(svc, v1.LoadBalancerFeatureLoadBalancerSourceRanges) && !caps.LoadBalancerSourceRanges {
		short = append(short, v1.LoadBalancerFeatureLoadBalancerSourceRanges)
	}

	// A value no one knows is refused below as a feature of its own; the
	// annotation's own refusal is for what is malformed in it (an empty
	// item, a value twice, too many items).
	errs = errs.Filter(func(err error) bool {
		var fe *field.Error
		return errors.As(err, &fe) && fe.Type == field.ErrorTypeNotSupported
	})
	if len(errs) > 0 {
		refuse("R2", "", "annotation %s is not a valid list of features: %s", v1.RequiredFeaturesAnnotation, errs.ToAggregate().Error())
	}
	for _, f := range required {
		switch {
		case !knownSet.Has(f):
			refuse("R2", f, "required feature %s is not known to the provider", f)
		case slices.Contains(short, f):
			refuse("R1", f, "required feature %s is not supported: %s", f, describeShort(f))
		}
	}

	for _, f := range v1.LoadBalancerFeatures() {
		if !slices.Contains(short, f) || requiredSet.Has(f) {
			continue
		}
		if refuseSet.Has(f) && isP3(f) {
			refuse("P3", f, "%s is not supported", describeShort(f))
			continue
		}
		d.Degraded = append(d.Degraded, f)
	}

	if len(d.Refusals) > 0 {
		d.Action, d.Degraded = ActionRefuse, nil
		return d
	}
	d.Action = ActionProvision
	return d
}

// isP3 reports whether f is a feature that P3 lets the provider refuse
// instead of degrading.
func isP3(f v1.LoadBalancerFeature) bool {
	switch f {
	case v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureLoadBalancerSourceRanges, v1.LoadBalancerFeatureLoadBalancerIP:
		return true
	}
	return false
}

// describeShort says what of f a provider cannot give, for refusal messages.
func describeShort(f v1.LoadBalancerFeature) string {
	switch f {
	case v1.LoadBalancerFeatureIPFamilies:
		return "not every IP family of the service can be served"
	case v1.LoadBalancerFeaturePorts:
		return "not every port and protocol of the service can be served"
	case v1.LoadBalancerFeatureSessionAffinity:
		return "sessionAffinity ClientIP"
	case v1.LoadBalancerFeatureLoadBalancerIP:
		return "loadBalancerIP"
	case v1.LoadBalancerFeatureExternalTrafficPolicy:
		return "client source IP preservation for externalTrafficPolicy Local"
	case v1.LoadBalancerFeatureLoadBalancerSourceRanges:
		return "loadBalancerSourceRanges"
	}
	return string(f)
}

// AsksFor reports whether svc asks for something a provider could degrade in
// feature f, as P5 reads it: v1.AsksFor on its spec and annotations (for
// IPFamilies, two distinct families, or before the apiserver fills them in
// a dual-stack policy). A Degraded reason for a feature the Service does
// not ask for breaks P5. Nil svc and unknown features give false.
func AsksFor[S Object](svc S, f v1.LoadBalancerFeature) bool {
	return asksFor(view(svc), f)
}

func asksFor(svc *v1.Service, f v1.LoadBalancerFeature) bool {
	return svc != nil && v1.AsksFor(&svc.Spec.ServiceSpec, svc.Annotations, f)
}

// serviceFamilies returns the Service's IP families: spec.ipFamilies, or,
// before the apiserver fills them in, both families for RequireDualStack.
// Nil means not known yet. A family listed twice (invalid, but possible in
// an unvalidated object) counts once.
func serviceFamilies(spec *corev1.ServiceSpec) []corev1.IPFamily {
	if len(spec.IPFamilies) > 0 {
		if len(spec.IPFamilies) == 2 && spec.IPFamilies[0] == spec.IPFamilies[1] {
			return spec.IPFamilies[:1]
		}
		return spec.IPFamilies
	}
	if ptr.Deref(spec.IPFamilyPolicy, "") == corev1.IPFamilyPolicyRequireDualStack {
		return []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	}
	return nil
}

func joinFamilies(families []corev1.IPFamily) string {
	parts := make([]string, len(families))
	for i, f := range families {
		parts[i] = string(f)
	}
	return strings.Join(parts, ",")
}

func joinProtocols(protocols []corev1.Protocol) string {
	parts := make([]string, len(protocols))
	for i, p := range protocols {
		parts[i] = string(p)
	}
	return strings.Join(parts, ",")
}
