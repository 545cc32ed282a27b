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

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Transition is the result of one provider event: the complete new status
// of the Service and the same status as a server-side-apply configuration,
// written in one request so that a watcher never sees half of it (G4).
type Transition struct {
	// Status is the complete new status: the Service's status with the
	// three KEP-4631 conditions and the ingress updated, other conditions
	// kept. Write it with UpdateStatus, or use Apply.
	Status v1.ServiceStatus
	// Apply is the same change for Services(ns).ApplyStatus: name,
	// namespace and a status holding only what this package owns, the
	// KEP-4631 conditions present in Status and the ingress. Server-side
	// apply removes what the same field manager applied before and left out
	// now (a removed Degraded condition, a cleared ingress); the field
	// manager is the caller's choice (metav1.ApplyOptions). Nil when there
	// is nothing to write: an ignored Service (P1).
	Apply *corev1ac.ServiceApplyConfiguration
	// Changed reports whether Status differs from the Service's status; a
	// provider may skip the write when it is false.
	Changed bool
}

// ServingDuringProvisioning says whether a load balancer keeps serving
// while it is reprovisioned (L7).
type ServingDuringProvisioning bool

const (
	// KeepServing: the load balancer keeps serving the previous
	// configuration: Serving stays True while Provisioning is True.
	KeepServing ServingDuringProvisioning = true
	// StopServing: Serving goes False with reason Provisioning.
	StopServing ServingDuringProvisioning = false
)

// Messages the transitions write.
const (
	msgProvisioning    = "the load balancer is being provisioned"
	msgComplete        = "provisioning is complete"
	msgServing         = "the load balancer serves the service at the addresses in status.loadBalancer.ingress"
	msgServingPrevious = "the load balancer serves the previous configuration of the service while it is reprovisioned"
	msgUnsupported     = "the provider does not support the service"
	msgInfrastructure  = "provisioning failed in the provider's infrastructure"
	maxMessageLen      = 32 * 1024
)

var (
	errNilService      = errors.New("service is nil")
	errNotLoadBalancer = errors.New("service is not of type LoadBalancer")
)

// draft is a transition under construction: a copy of the Service's status,
// the one instant all its times come from, and the floor below which no
// lastTransitionTime it moves may land.
type draft struct {
	svc    *v1.Service
	status v1.ServiceStatus
	clock  fixedClock
	// floor is the latest lastTransitionTime of the KEP conditions before
	// the transition. A condition that moves or appears never lands before
	// it, so that a condition removed and written again (Degraded, when
	// serving stops and resumes) does not come back with an earlier time
	// when the clock has gone backwards (C7). Every transition that removes
	// Degraded also moves Serving or Provisioning, which keeps the floor.
	floor metav1.Time
}

func newDraft(svc *v1.Service, opts []Option) *draft {
	o := makeOptions(opts)
	d := &draft{svc: svc, status: *svc.Status.DeepCopy(), clock: fixedClock{o.clock.Now()}}
	for _, c := range svc.Status.Conditions {
		if isKEPType(c.Type) && c.LastTransitionTime.After(d.floor.Time) {
			d.floor = c.LastTransitionTime
		}
	}
	return d
}

func (d *draft) set(t v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason v1.LoadBalancerConditionReason, message string) {
	d.setCondition(metav1.Condition{
		Type:    string(t),
		Status:  status,
		Reason:  string(reason),
		Message: truncate(message),
	})
}

// setCondition is Set with the draft's clock and floor.
func (d *draft) setCondition(c metav1.Condition) {
	var before metav1.Time
	if old := Get(d.status.Conditions, c.Type); old != nil {
		before = old.LastTransitionTime
	}
	c.ObservedGeneration = d.svc.Generation
	Set(&d.status.Conditions, c, WithClock(d.clock))
	if now := Get(d.status.Conditions, c.Type); !now.LastTransitionTime.Equal(&before) && now.LastTransitionTime.Before(&d.floor) {
		now.LastTransitionTime = d.floor
	}
}

func (d *draft) bump(t v1.LoadBalancerConditionType) {
	if c := Get(d.status.Conditions, t); c != nil {
		c.LastTransitionTime = nextTransitionTime(c.LastTransitionTime, d.clock.t)
		if c.LastTransitionTime.Before(&d.floor) {
			c.LastTransitionTime = d.floor
		}
	}
}

func (d *draft) remove(t v1.LoadBalancerConditionType) { Remove(&d.status.Conditions, t) }

// transition finishes the draft. Every KEP condition gets the Service's
// generation: the whole status describes what the provider made of that
// generation (G6).
func (d *draft) transition() Transition {
	for i := range d.status.Conditions {
		if c := &d.status.Conditions[i]; isKEPType(c.Type) {
			c.ObservedGeneration = d.svc.Generation
		}
	}
	return Transition{
		Status:  d.status,
		Apply:   applyConfiguration(d.svc, d.status),
		Changed: !apiequality.Semantic.DeepEqual(d.svc.Status, d.status),
	}
}

// unchanged is the transition that writes nothing new.
func unchanged(svc *v1.Service) Transition {
	status := *svc.Status.DeepCopy()
	return Transition{Status: status, Apply: applyConfiguration(svc, status)}
}

func truncate(message string) string {
	if len(message) <= maxMessageLen {
		return message
	}
	return message[:maxMessageLen]
}

func checkLoadBalancer(svc *v1.Service) error {
	if svc == nil {
		return errNilService
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return fmt.Errorf("%w: type is %q", errNotLoadBalancer, svc.Spec.Type)
	}
	return nil
}

// Seen is the provider's first sight of a LoadBalancer Service (created, or
// converted from another type), after Decide. It writes both conditions at
// once (L1): for ActionRefuse, Provisioning=False/Complete and
// Serving=False/Unsupported with the decision's message (as Failed); for
// ActionProvision, Provisioning=True/Provisioning and
// Serving=False/Provisioning. For ActionIgnore it writes nothing (P1): the
// Transition has the unchanged status and a nil Apply.
//
// A provider that restarts sees its Services again: when Serving or
// Provisioning is already present, Seen with ActionProvision changes
// nothing, and the provider goes on with the event that matches what it
// does next (Succeeded for a load balancer that already exists, the third
// combination of L1). The ingress is left as it is.
//
// Errors, with the status unchanged: nil svc, a Service that is not of type
// LoadBalancer (unless ignored), a decision without a known action.
func Seen(svc *v1.Service, d Decision, opts ...Option) (Transition, error) {
	if svc == nil {
		return Transition{}, errNilService
	}
	switch d.Action {
	case ActionIgnore:
		return Transition{Status: *svc.Status.DeepCopy()}, nil
	case ActionRefuse:
		return Failed(svc, v1.LoadBalancerReasonUnsupported, d.Message(), opts...)
	case ActionProvision:
	default:
		return Transition{}, fmt.Errorf("decision has unknown action %q", d.Action)
	}
	if err := checkLoadBalancer(svc); err != nil {
		return Transition{}, err
	}
	conds := svc.Status.Conditions
	if Get(conds, v1.LoadBalancerConditionServing) != nil || Get(conds, v1.LoadBalancerConditionProvisioning) != nil {
		return unchanged(svc), nil
	}
	dr := newDraft(svc, opts)
	dr.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, msgProvisioning)
	dr.set(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, msgProvisioning)
	return dr.transition(), nil
}

// ProvisioningStarted records that a time-consuming provisioning step has
// begun: Provisioning=True/Provisioning. With KeepServing and Serving
// already True, Serving stays True, with its lastTransitionTime, and the
// Degraded condition, which still describes the load balancer that serves
// (L7, the (P=T,S=T) combination of L3). Otherwise Serving goes
// False/Provisioning and Degraded is removed, since nothing is served. The
// ingress is left in place (L4). Called again while Provisioning is already
// True, it changes nothing more; a spec change seen meanwhile is
// SpecUpdated's business.
//
// Errors, with the status unchanged: nil svc, a Service that is not of type
// LoadBalancer.
func ProvisioningStarted(svc *v1.Service, serving ServingDuringProvisioning, opts ...Option) (Transition, error) {
	if err := checkLoadBalancer(svc); err != nil {
		return Transition{}, err
	}
	dr := newDraft(svc, opts)
	dr.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, msgProvisioning)
	if serving == KeepServing && IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
		dr.set(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, msgServingPrevious)
	} else {
		dr.set(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, msgProvisioning)
		dr.remove(v1.LoadBalancerConditionDegraded)
	}
	return dr.transition(), nil
}

// Succeeded records a load balancer that serves the latest spec of the
// Service at ingress, degraded in the given features (from
// Decision.Degraded, or what the provider found out while provisioning):
// Provisioning=False/Complete, Serving=True/Serving, the ingress, and
// Degraded=True naming the features (Multiple per G2 for several), or no
// Degraded condition at all for none (C2: never False) — all in one write
// (L4, G4).
//
// When Serving was already True, its lastTransitionTime is bumped if the
// load balancer's behaviour changed (L6): a reprovisioning finished
// (Provisioning was True), or the ingress or the degradations changed. A
// repeated Succeeded with the same arguments changes nothing.
//
// Errors, with the status unchanged: nil svc, a Service that is not of type
// LoadBalancer, an empty ingress (L4), a degraded feature that is unknown
// (C3), listed twice, not asked for by the Service (P5, see AsksFor), or
// required by it (R1, P6: refuse with Failed instead).
func Succeeded(svc *v1.Service, ingress []corev1.LoadBalancerIngress, degraded []v1.LoadBalancerFeature, opts ...Option) (Transition, error) {
	if err := checkLoadBalancer(svc); err != nil {
		return Transition{}, err
	}
	if len(ingress) == 0 {
		return Transition{}, errors.New("ingress is empty: Serving=True needs at least one ingress point (L4)")
	}
	if err := checkDegraded(svc, degraded); err != nil {
		return Transition{}, err
	}
	dr := newDraft(svc, opts)
	old := svc.Status.Conditions
	wasServing := IsTrue(old, v1.LoadBalancerConditionServing)
	wasProvisioning := IsTrue(old, v1.LoadBalancerConditionProvisioning)
	oldDegraded := DegradedReasons(old)

	dr.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, msgComplete)
	dr.set(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, msgServing)
	dr.status.LoadBalancer.Ingress = slices.Clone(ingress)
	for i := range dr.status.LoadBalancer.Ingress {
		dr.status.LoadBalancer.Ingress[i] = *ingress[i].DeepCopy()
	}
	if c, ok := degradedCondition(degraded); ok {
		dr.setCondition(c)
	} else {
		dr.remove(v1.LoadBalancerConditionDegraded)
	}
	if wasServing && (wasProvisioning ||
		!apiequality.Semantic.DeepEqual(svc.Status.LoadBalancer.Ingress, dr.status.LoadBalancer.Ingress) ||
		!slices.Equal(oldDegraded, DegradedReasons(dr.status.Conditions))) {
		dr.bump(v1.LoadBalancerConditionServing)
	}
	return dr.transition(), nil
}

// checkDegraded returns an error for a degradation the helpers must not
// write.
func checkDegraded(svc *v1.Service, degraded []v1.LoadBalancerFeature) error {
	required, _, _ := v1.RequiredFeatures(svc)
	for i, f := range degraded {
		switch {
		case !f.IsKnown():
			return fmt.Errorf("degraded feature %q is not known (C3)", f)
		case slices.Contains(degraded[:i], f):
			return fmt.Errorf("degraded feature %s is listed twice", f)
		case !AsksFor(svc, f):
			return fmt.Errorf("degraded feature %s is not asked for by the service (P5)", f)
		case slices.Contains(required, f):
			return fmt.Errorf("degraded feature %s is required by the service: refuse instead (R1)", f)
		}
	}
	return nil
}

// Failed records that the provider finished trying without a load
// balancer: Provisioning=False/Complete and Serving=False with reason
// Unsupported (refused: P2, R1, R2) or Infrastructure (failed), with
// message saying what (a default when empty; cut to the 32768 bytes a
// condition message may hold). The Degraded condition and the ingress are
// removed: nothing is served. Failed again with the same arguments changes
// nothing.
//
// Errors, with the status unchanged: nil svc, a Service that is not of type
// LoadBalancer, a reason other than Unsupported and Infrastructure.
func Failed(svc *v1.Service, reason v1.LoadBalancerConditionReason, message string, opts ...Option) (Transition, error) {
	if err := checkLoadBalancer(svc); err != nil {
		return Transition{}, err
	}
	switch reason {
	case v1.LoadBalancerReasonUnsupported:
		if message == "" {
			message = msgUnsupported
		}
	case v1.LoadBalancerReasonInfrastructure:
		if message == "" {
			message = msgInfrastructure
		}
	default:
		return Transition{}, fmt.Errorf("reason %q is not Unsupported or Infrastructure", reason)
	}
	dr := newDraft(svc, opts)
	dr.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, msgComplete)
	dr.set(v1.LoadBalancerConditionServing, metav1.ConditionFalse, reason, message)
	dr.remove(v1.LoadBalancerConditionDegraded)
	dr.status.LoadBalancer.Ingress = nil
	return dr.transition(), nil
}

// SpecUpdated records that the provider has seen new, an update of old.
// When a load-balancer-relevant field changed (ChangedFields, with the
// RelevantAnnotations option for the provider's own annotations), it bumps
// the lastTransitionTime of Provisioning even if its status stays (L6), and
// brings the rest in line with the new spec:
//
//   - degradations the new spec no longer asks for are dropped (P5);
//   - if the load balancer serves while degraded in a feature the new spec
//     asks for and requires (P6), Serving goes False/Provisioning, Provisioning True and
//     Degraded is removed: the provider has to decide again, and will
//     normally refuse (R1).
//
// A new spec that is no longer of type LoadBalancer is NotLoadBalancer
// (L9). Without relevant changes only observedGeneration follows
// metadata.generation (G6: on clusters that bump it for any spec change,
// a client waiting for observedGeneration does not wait forever); before
// the provider has written any condition (Seen comes first) nothing
// changes. A nil old counts as a change.
//
// Errors, with the status unchanged: nil new.
func SpecUpdated(old, new *v1.Service, opts ...Option) (Transition, error) {
	if new == nil {
		return Transition{}, errNilService
	}
	if new.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return NotLoadBalancer(new, opts...)
	}
	conds := new.Status.Conditions
	if Get(conds, v1.LoadBalancerConditionProvisioning) == nil {
		return unchanged(new), nil
	}
	dr := newDraft(new, opts)
	if len(ChangedFields(old, new, opts...)) == 0 {
		return dr.transition(), nil // at most observedGeneration moves
	}
	before := Get(conds, v1.LoadBalancerConditionProvisioning).LastTransitionTime

	if IsTrue(conds, v1.LoadBalancerConditionDegraded) {
		required, _, _ := v1.RequiredFeatures(new)
		var keep []v1.LoadBalancerFeature
		known, requiredDegraded := true, false
		for _, r := range DegradedReasons(conds) {
			f, ok := v1.DegradedFeature(r)
			if !ok {
				known = false
				break
			}
			if !AsksFor(new, f) {
				continue // no longer degraded: the spec does not ask for it
			}
			keep = append(keep, f)
			if slices.Contains(required, f) {
				requiredDegraded = true
			}
		}
		switch {
		case requiredDegraded && IsTrue(conds, v1.LoadBalancerConditionServing):
			dr.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, msgProvisioning)
			dr.set(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, msgProvisioning)
			dr.remove(v1.LoadBalancerConditionDegraded)
		case !known:
			// A provider-specific reason: not ours to rewrite.
		default:
			if c, ok := degradedCondition(keep); ok {
				dr.setCondition(c)
			} else {
				dr.remove(v1.LoadBalancerConditionDegraded)
			}
		}
	}
	// L6: unless a status flip above already moved it.
	if Get(dr.status.Conditions, v1.LoadBalancerConditionProvisioning).LastTransitionTime.Equal(&before) {
		dr.bump(v1.LoadBalancerConditionProvisioning)
	}
	return dr.transition(), nil
}

// NotLoadBalancer records that svc is no longer of type LoadBalancer (or
// that the provider has deleted its load balancer for good): the three
// KEP-4631 conditions and the ingress are removed together (L9). The
// deprecated LoadBalancerPortsError and other controllers' conditions stay.
// The Apply configuration holds an empty status, so server-side apply
// removes what this field manager applied before.
//
// Errors: nil svc. The Service's type is not checked.
func NotLoadBalancer(svc *v1.Service, opts ...Option) (Transition, error) {
	if svc == nil {
		return Transition{}, errNilService
	}
	dr := newDraft(svc, opts)
	dr.remove(v1.LoadBalancerConditionServing)
	dr.remove(v1.LoadBalancerConditionProvisioning)
	dr.remove(v1.LoadBalancerConditionDegraded)
	dr.status.LoadBalancer.Ingress = nil
	return dr.transition(), nil
}
