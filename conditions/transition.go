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
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Transition is the result of one provider event: the Service with its
// complete new status, and the same status as a server-side-apply
// configuration, written in one request so that a watcher never sees half
// of it (G4).
type Transition[S Object] struct {
	// Service is the Service with the complete new status, of the caller's
	// type: the three KEP-4631 conditions and the ingress updated, other
	// conditions kept. Its metadata and spec are shared with the Service
	// the transition was made from; only the status is new. Write it with
	// UpdateStatus, or use Apply. Nil when the transition failed.
	Service S
	// Apply is the same change as a
	// *k8s.io/client-go/applyconfigurations/core/v1.ServiceApplyConfiguration
	// for Services(ns).ApplyStatus: name, namespace, the resourceVersion
	// of the Service the transition was made from, and a status holding
	// only what this package owns, the KEP-4631 conditions present in the
	// new status and the ingress. The resourceVersion makes the apply
	// conditional, as UpdateStatus is: the new lastTransitionTimes follow
	// from the status that was read, and a Service read from a cache that
	// lags behind gets a conflict, not a time that moves backwards (C7);
	// read it again and make the transition again. Server-side apply
	// removes what the same field manager applied before and left out now
	// (a removed Degraded condition, a cleared ingress); the field manager
	// is the caller's choice (metav1.ApplyOptions). A field that another
	// manager also owns stays: the ingress a provider wrote with
	// UpdateStatus before it adopted this package, say. Failed and
	// NotLoadBalancer then leave it in place, and every later reconcile
	// writes again; hand such fields over to the applying manager once,
	// before its first apply (k8s.io/client-go/util/csaupgrade). Nil when
	// there is nothing to write: whenever Changed is false, as for an
	// ignored Service (P1), a cleanup of a status the WithFieldManager
	// manager never applied to, or a Service seen again after a restart.
	Apply *corev1ac.ServiceApplyConfiguration
	// Changed reports whether the new status differs from the Service's
	// status. When it is false there is nothing to write, and Apply is nil.
	Changed bool
}

// outcome is a transition in the project's type, before it is returned in
// the caller's.
type outcome struct {
	status  v1.ServiceStatus
	apply   *corev1ac.ServiceApplyConfiguration
	changed bool
}

// transitionOf returns r as a Transition of the caller's type; on error,
// the zero Transition.
func transitionOf[S Object](svc S, r outcome, err error) (Transition[S], error) {
	if err != nil {
		return Transition[S]{}, err
	}
	return Transition[S]{Service: withNewStatus(svc, r.status), Apply: r.apply, Changed: r.changed}, nil
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
	now    time.Time
	// floor is the latest lastTransitionTime of the KEP conditions before
	// the transition. A condition that appears never lands before it, so
	// that a condition removed and written again (Degraded, when
	// serving stops and resumes) does not come back with an earlier time
	// when the clock has gone backwards (C7). Every transition that removes
	// Degraded also moves Serving or Provisioning, which keeps the floor.
	floor metav1.Time
	// manager is WithFieldManager's; foreign marks a cleanup it skipped,
	// the status being none of the manager's.
	manager string
	foreign bool
}

func newDraft(svc *v1.Service, o transitionOptions) *draft {
	d := &draft{svc: svc, status: *svc.Status.DeepCopy(), now: o.clock.Now(), manager: o.manager}
	for _, c := range svc.Status.Conditions {
		if isKEPType(c.Type) && c.LastTransitionTime.After(d.floor.Time) {
			d.floor = c.LastTransitionTime
		}
	}
	return d
}

// stamp is the lastTransitionTime a condition of type t gets when it moves
// in this write. It is computed from the time the condition had before the
// write, never from one the draft already moved, so that a condition
// touched by several steps of one write (a bump for a spec change, then a
// flip) moves once: to the clock's second, or one second past its old
// value when the clock has not passed it (G5). Only a condition that is new
// in this write can land on the floor, ahead of the clock.
func (d *draft) stamp(t string) metav1.Time {
	var prev metav1.Time
	if c := Get(d.svc.Status.Conditions, t); c != nil {
		prev = c.LastTransitionTime
	}
	s := nextTransitionTime(prev, d.now)
	if prev.IsZero() && s.Before(&d.floor) {
		s = d.floor
	}
	return s
}

func (d *draft) set(t v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason v1.LoadBalancerConditionReason, message string) {
	d.setCondition(metav1.Condition{
		Type:    string(t),
		Status:  status,
		Reason:  string(reason),
		Message: truncate(message),
	})
}

// setCondition is Set with the draft's stamp: a new condition, or one
// whose status changes, moves; otherwise only reason and message follow.
func (d *draft) setCondition(c metav1.Condition) {
	c.ObservedGeneration = d.svc.Generation
	old := Get(d.status.Conditions, c.Type)
	switch {
	case old == nil:
		c.LastTransitionTime = d.stamp(c.Type)
		d.status.Conditions = append(d.status.Conditions, c)
	case old.Status != c.Status || old.LastTransitionTime.IsZero():
		c.LastTransitionTime = d.stamp(c.Type)
		*old = c
	default:
		old.Reason, old.Message = c.Reason, c.Message
	}
}

// bump moves the condition of type t without changing its status (L6).
func (d *draft) bump(t v1.LoadBalancerConditionType) {
	if c := Get(d.status.Conditions, t); c != nil {
		c.LastTransitionTime = d.stamp(c.Type)
	}
}

func (d *draft) remove(t v1.LoadBalancerConditionType) { Remove(&d.status.Conditions, t) }

// result finishes the draft. Every KEP condition gets the Service's
// generation: the whole status describes what the provider made of that
// generation (G6).
func (d *draft) result() outcome {
	if d.foreign {
		return outcome{status: d.status} // nothing to write
	}
	for i := range d.status.Conditions {
		if c := &d.status.Conditions[i]; isKEPType(c.Type) {
			c.ObservedGeneration = d.svc.Generation
		}
	}
	if apiequality.Semantic.DeepEqual(d.svc.Status, d.status) {
		return outcome{status: d.status} // nothing new to write
	}
	return outcome{status: d.status, apply: applyConfiguration(d.svc, d.status), changed: true}
}

// unchanged is the transition that writes nothing new.
func unchanged(svc *v1.Service) outcome {
	return outcome{status: *svc.Status.DeepCopy()}
}

// truncate makes message one the apiserver stores as given: valid UTF-8
// (on the wire JSON turns each invalid byte into U+FFFD, three bytes, so
// the stored message would differ from the written one and every later
// reconcile would write again) and at most maxMessageLen bytes, cut at a
// character boundary (C5).
func truncate(message string) string {
	message = strings.ToValidUTF8(message, "\uFFFD")
	if len(message) <= maxMessageLen {
		return message
	}
	cut := maxMessageLen
	for cut > 0 && !utf8.RuneStart(message[cut]) {
		cut--
	}
	return message[:cut]
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
// Seen is for a first sight only: when Serving or Provisioning is already
// present (a provider that restarted sees its Services again), Seen with
// ActionProvision leaves the status as it is: Changed false, Apply nil.
// Reconcile handles first sights and restarts in one call.
//
// Errors, with the status unchanged: nil svc, a Service that is not of type
// LoadBalancer (unless ignored), a decision without a known action.
func Seen[S Object](svc S, d Decision, opts ...TransitionOption) (Transition[S], error) {
	r, err := seen(view(svc), d, makeTransitionOptions(opts))
	return transitionOf(svc, r, err)
}

func seen(svc *v1.Service, d Decision, o transitionOptions) (outcome, error) {
	if svc == nil {
		return outcome{}, errNilService
	}
	switch d.Action {
	case ActionIgnore:
		return outcome{status: *svc.Status.DeepCopy()}, nil
	case ActionRefuse, ActionProvision:
	default:
		return outcome{}, fmt.Errorf("decision has unknown action %q", d.Action)
	}
	if err := checkLoadBalancer(svc); err != nil {
		return outcome{}, err
	}
	conds := svc.Status.Conditions
	if d.Action == ActionProvision && Acknowledged(conds) {
		return unchanged(svc), nil
	}
	dr := newDraft(svc, o)
	if d.Action == ActionRefuse {
		dr.failed(v1.LoadBalancerReasonUnsupported, d.Message())
	} else {
		dr.provisioning(StopServing)
	}
	return dr.result(), nil
}

// ProvisioningStarted records that a time-consuming provisioning step has
// begun: Provisioning=True/Provisioning. With KeepServing and Serving
// already True with an address in the ingress (L4; the apiserver clears
// the ingress when the type leaves LoadBalancer), Serving stays True, with
// its lastTransitionTime, and the
// Degraded condition, which still describes the load balancer that serves
// (L7, the (P=T,S=T) combination of L3). Otherwise Serving goes
// False/Provisioning and Degraded is removed, since nothing is served. The
// ingress is left in place (L4). Called again while Provisioning is already
// True, it changes nothing more; a spec change seen meanwhile is
// SpecUpdated's business.
//
// Errors, with the status unchanged: nil svc, a Service that is not of type
// LoadBalancer.
func ProvisioningStarted[S Object](svc S, serving ServingDuringProvisioning, opts ...TransitionOption) (Transition[S], error) {
	v := view(svc)
	if err := checkLoadBalancer(v); err != nil {
		return Transition[S]{}, err
	}
	dr := newDraft(v, makeTransitionOptions(opts))
	dr.provisioning(serving)
	return transitionOf(svc, dr.result(), nil)
}

func (d *draft) provisioning(serving ServingDuringProvisioning) {
	d.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, msgProvisioning)
	// Serving stays True only where it may (L4): with an address left,
	// which the apiserver clears when the type leaves LoadBalancer.
	if serving == KeepServing && IsTrue(d.status.Conditions, v1.LoadBalancerConditionServing) && HasAddress(d.status.LoadBalancer.Ingress) {
		d.set(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, msgServingPrevious)
		return
	}
	d.set(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, msgProvisioning)
	d.remove(v1.LoadBalancerConditionDegraded)
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
// LoadBalancer, an ingress without an entry with an ip or a hostname (L4,
// see HasAddress), a degraded feature that is unknown (C3), listed twice,
// not asked for by the Service (P5, see AsksFor), or required by it (R1,
// P6: refuse with Failed instead).
func Succeeded[S Object](svc S, ingress []corev1.LoadBalancerIngress, degraded []v1.LoadBalancerFeature, opts ...TransitionOption) (Transition[S], error) {
	v := view(svc)
	if err := checkSucceeded(v, ingress, degraded); err != nil {
		return Transition[S]{}, err
	}
	dr := newDraft(v, makeTransitionOptions(opts))
	dr.succeeded(ingress, degraded, false)
	return transitionOf(svc, dr.result(), nil)
}

func checkSucceeded(svc *v1.Service, ingress []corev1.LoadBalancerIngress, degraded []v1.LoadBalancerFeature) error {
	if err := checkLoadBalancer(svc); err != nil {
		return err
	}
	if !HasAddress(ingress) {
		return errors.New("ingress has no entry with an ip or a hostname: Serving=True needs at least one address (L4)")
	}
	return checkDegraded(svc, degraded)
}

// succeeded writes the serving state. Serving's lastTransitionTime moves
// when the load balancer's behaviour changed (L6): a reprovisioning ended,
// the ingress or the degradations changed, or, with updated, the load
// balancer was updated in place for a new spec.
func (d *draft) succeeded(ingress []corev1.LoadBalancerIngress, degraded []v1.LoadBalancerFeature, updated bool) {
	old := d.svc.Status.Conditions
	wasServing := IsTrue(old, v1.LoadBalancerConditionServing)
	wasProvisioning := IsTrue(old, v1.LoadBalancerConditionProvisioning)
	oldDegraded := DegradedReasons(old)

	d.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, msgComplete)
	d.set(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, msgServing)
	// The stored ingress stays when it is the one given, as the apiserver
	// stored it.
	newIngress := !sameIngress(d.svc.Status.LoadBalancer.Ingress, ingress)
	if newIngress {
		d.status.LoadBalancer.Ingress = make([]corev1.LoadBalancerIngress, len(ingress))
		for i := range ingress {
			ingress[i].DeepCopyInto(&d.status.LoadBalancer.Ingress[i])
		}
	}
	if c, ok := degradedCondition(degraded); ok {
		d.setCondition(c)
	} else {
		d.remove(v1.LoadBalancerConditionDegraded)
	}
	if wasServing && (updated || wasProvisioning || newIngress ||
		!slices.Equal(oldDegraded, DegradedReasons(d.status.Conditions))) {
		d.bump(v1.LoadBalancerConditionServing)
	}
}

// sameIngress reports whether the ingress stored is the ingress given, as
// the apiserver stores it: since Kubernetes 1.30 it fills in ipMode VIP on
// an entry with an ip and none, so a provider that leaves it out would
// otherwise see a new ingress, write and bump Serving on every reconcile.
func sameIngress(stored, given []corev1.LoadBalancerIngress) bool {
	if len(stored) != len(given) {
		return false
	}
	for i := range given {
		in := given[i]
		if in.IP != "" && in.IPMode == nil && stored[i].IPMode != nil && *stored[i].IPMode == corev1.LoadBalancerIPModeVIP {
			in.IPMode = stored[i].IPMode
		}
		if !apiequality.Semantic.DeepEqual(stored[i], in) {
			return false
		}
	}
	return true
}

// checkDegraded returns an error for a degradation the helpers must not
// write.
func checkDegraded(svc *v1.Service, degraded []v1.LoadBalancerFeature) error {
	required, _, _ := RequiredFeatures(svc)
	for i, f := range degraded {
		switch {
		case !f.IsKnown():
			return fmt.Errorf("degraded feature %q is not known (C3)", f)
		case slices.Contains(degraded[:i], f):
			return fmt.Errorf("degraded feature %s is listed twice", f)
		case !asksFor(svc, f):
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
func Failed[S Object](svc S, reason v1.LoadBalancerConditionReason, message string, opts ...TransitionOption) (Transition[S], error) {
	v := view(svc)
	if err := checkLoadBalancer(v); err != nil {
		return Transition[S]{}, err
	}
	if reason != v1.LoadBalancerReasonUnsupported && reason != v1.LoadBalancerReasonInfrastructure {
		return Transition[S]{}, fmt.Errorf("reason %q is not Unsupported or Infrastructure", reason)
	}
	dr := newDraft(v, makeTransitionOptions(opts))
	dr.failed(reason, message)
	return transitionOf(svc, dr.result(), nil)
}

func (d *draft) failed(reason v1.LoadBalancerConditionReason, message string) {
	if message == "" {
		message = msgInfrastructure
		if reason == v1.LoadBalancerReasonUnsupported {
			message = msgUnsupported
		}
	}
	d.set(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, msgComplete)
	d.set(v1.LoadBalancerConditionServing, metav1.ConditionFalse, reason, message)
	d.remove(v1.LoadBalancerConditionDegraded)
	d.status.LoadBalancer.Ingress = nil
}

// SpecUpdated records that the provider has seen new, an update of old.
// When a load-balancer-relevant field changed (ChangedFields, with
// WithRelevantAnnotations for the provider's own annotations), it bumps
// the lastTransitionTime of Provisioning even if its status stays (L6), and
// brings the rest in line with the new spec:
//
//   - degradations the new spec no longer asks for are dropped (P5); a
//     Degraded condition as Succeeded writes it is written anew, as
//     Succeeded would for what is left; one in a provider's own words, or
//     that lists a provider's own reason, keeps them, less the reasons
//     that went and this package's descriptions of them, and is removed
//     when no reason is left;
//   - if the load balancer serves while degraded in a feature the new spec
//     asks for and requires (P6), Serving goes False/Provisioning,
//     Provisioning True and Degraded is removed: the provider has to decide
//     again, and will normally refuse (R1);
//   - so does a load balancer that serves when the new spec requires a
//     feature this version does not know: Decide refuses it (R2) unless
//     the provider lists it in Capabilities.KnownFeatures, which
//     SpecUpdated does not see (Reconcile does, and keeps serving then).
//
// Whether or not a relevant field changed, a Serving=True without an
// address left in the ingress (L4: the apiserver clears it when the type
// leaves LoadBalancer, and a Service converted back keeps its conditions)
// goes False/Provisioning the same way, with Provisioning True: the
// provider provisions again, as on a first sight.
//
// A new spec that is no longer of type LoadBalancer is NotLoadBalancer
// (L9). Without relevant changes only observedGeneration follows
// metadata.generation (G6: on clusters that bump it for any spec change,
// a client waiting for observedGeneration does not wait forever); before
// the provider has written any condition (Seen comes first) nothing
// changes. A nil old counts as a change.
//
// SpecUpdated does not know the provider's classes: a Service that moved
// to a class that is not the provider's (Decide ignores it,
// IgnoreForeignClass) gets NotLoadBalancer instead, since a bump written
// there is a write to a Service that is not the provider's (P1).
//
// A spec change that ends in an outcome (served, refused, failed) is one
// call of Reconcile, which writes the bump and the outcome together.
//
// Errors, with the status unchanged: nil new.
func SpecUpdated[S Object](old, new S, opts ...TransitionOption) (Transition[S], error) {
	n := view(new)
	if n == nil {
		return Transition[S]{}, errNilService
	}
	o := makeTransitionOptions(opts)
	if n.Spec.Type != corev1.ServiceTypeLoadBalancer {
		dr := newDraft(n, o)
		dr.notLoadBalancer()
		return transitionOf(new, dr.result(), nil)
	}
	if Get(n.Status.Conditions, v1.LoadBalancerConditionProvisioning) == nil {
		return transitionOf(new, unchanged(n), nil)
	}
	dr := newDraft(n, o)
	if len(changedFields(view(old), n, o.annotations)) > 0 {
		dr.specUpdated()
		if IsTrue(dr.status.Conditions, v1.LoadBalancerConditionServing) && requiresUnknown(n) {
			dr.provisioning(StopServing) // to be refused (R2)
		}
	}
	// Serving=True needs an address (L4). One the apiserver cleared, the
	// type having left LoadBalancer and come back, is served no more.
	if IsTrue(dr.status.Conditions, v1.LoadBalancerConditionServing) && !HasAddress(dr.status.LoadBalancer.Ingress) {
		dr.provisioning(StopServing)
	}
	return transitionOf(new, dr.result(), nil)
}

// requiresUnknown reports whether svc requires a feature this version does
// not know (R2).
func requiresUnknown(svc *v1.Service) bool {
	required, _, _ := RequiredFeatures(svc)
	return slices.ContainsFunc(required, func(f v1.LoadBalancerFeature) bool { return !f.IsKnown() })
}

// specUpdated is SpecUpdated on a relevant change: degradations follow the
// new spec, and Provisioning moves (L6).
func (d *draft) specUpdated() {
	conds := d.svc.Status.Conditions
	if IsTrue(conds, v1.LoadBalancerConditionDegraded) {
		required, _, _ := RequiredFeatures(d.svc)
		var keep []v1.LoadBalancerFeature
		known, requiredDegraded := true, false
		for _, r := range DegradedReasons(conds) {
			f, ok := v1.DegradedFeature(r)
			if !ok {
				known = false // and the reasons after it still count for P6
				continue
			}
			if !asksFor(d.svc, f) {
				continue // no longer degraded: the spec does not ask for it
			}
			keep = append(keep, f)
			if slices.Contains(required, f) {
				requiredDegraded = true
			}
		}
		degraded := *Get(conds, v1.LoadBalancerConditionDegraded)
		switch {
		case requiredDegraded && IsTrue(conds, v1.LoadBalancerConditionServing):
			d.provisioning(StopServing)
		case !known || !wroteDegraded(degraded):
			// A provider-specific reason, or a provider's own words, are
			// not ours to rewrite, but a reason of the table that the new
			// spec no longer asks for must still go (P5).
			switch c, ok := withoutUnasked(degraded, d.svc); {
			case ok && c == nil:
				d.remove(v1.LoadBalancerConditionDegraded)
			case ok:
				d.setCondition(*c)
			}
		default:
			if c, ok := degradedCondition(keep); ok {
				d.setCondition(c)
			} else {
				d.remove(v1.LoadBalancerConditionDegraded)
			}
		}
	}
	d.bump(v1.LoadBalancerConditionProvisioning)
}

// wroteDegraded reports whether c, a Degraded=True condition, is as
// degradedCondition writes it for the reasons c names: only such a
// condition is this package's to write anew.
func wroteDegraded(c metav1.Condition) bool {
	var features []v1.LoadBalancerFeature
	for _, r := range DegradedReasons([]metav1.Condition{c}) {
		f, ok := v1.DegradedFeature(r)
		if !ok {
			return false
		}
		features = append(features, f)
	}
	ours, ok := degradedCondition(features)
	return ok && ours.Reason == c.Reason && ours.Message == c.Message
}

// withoutUnasked returns c, a Degraded=True condition in a provider's own
// words or with a reason of its own, without the reasons of the table that
// svc does not ask for (P5), and whether it dropped any; nil when it
// dropped them all. The provider's reasons stay, and so does the text after
// the list of a Multiple message, but for the descriptions this package
// writes of the dropped features (see withoutDescriptions); a list left
// with one reason becomes that reason, as Multiple is for more than one
// (G2).
func withoutUnasked(c metav1.Condition, svc *v1.Service) (*metav1.Condition, bool) {
	listed := []v1.LoadBalancerConditionReason{v1.LoadBalancerConditionReason(c.Reason)}
	if c.Reason == string(v1.LoadBalancerReasonMultiple) {
		listed = parseMultiple(c.Message)
	}
	var kept []string
	var dropped []v1.LoadBalancerFeature
	for _, r := range listed {
		if f, ok := v1.DegradedFeature(r); ok && !asksFor(svc, f) {
			dropped = append(dropped, f)
			continue
		}
		kept = append(kept, string(r))
	}
	switch {
	case len(dropped) == 0:
		return &c, false
	case len(kept) == 0:
		return nil, true
	}
	slices.Sort(kept)
	kept = slices.Compact(kept)
	_, text, _ := strings.Cut(c.Message, ":")
	text = withoutDescriptions(strings.TrimSpace(text), dropped)
	if len(kept) == 1 {
		c.Reason, c.Message = kept[0], text
		return &c, true
	}
	c.Message = strings.Join(kept, ",")
	if text != "" {
		c.Message += ": " + text
	}
	return &c, true
}

// withoutDescriptions returns text, the free text of a Degraded message,
// without the parts that describe the dropped features as
// degradedCondition does: text is read as parts separated by "; ", and a
// part that is describeFeature of a dropped feature, after degradedText or
// not, goes. When the part that goes starts the text with degradedText, a
// description of this package after it takes that start. Every other part
// stays as written: words of a provider's own cannot be told to be about
// one reason rather than another, so a provider that describes a reason
// of the table in its own words and wants them to go with the reason
// writes them as degradedCondition does.
func withoutDescriptions(text string, dropped []v1.LoadBalancerFeature) string {
	var kept []string
	lead := false // the text started with degradedText, in a part that went
	for _, part := range strings.Split(text, "; ") {
		desc, led := strings.CutPrefix(part, degradedText)
		if slices.ContainsFunc(dropped, func(f v1.LoadBalancerFeature) bool { return desc == describeFeature(f) }) {
			lead = lead || (led && len(kept) == 0)
			continue
		}
		if lead && len(kept) == 0 && !led && isDescription(part) {
			part = degradedText + part
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "; ")
}

// isDescription reports whether s is describeFeature of a known feature.
func isDescription(s string) bool {
	return slices.ContainsFunc(v1.LoadBalancerFeatures(), func(f v1.LoadBalancerFeature) bool { return s == describeFeature(f) })
}

// NotLoadBalancer records that svc is no longer of type LoadBalancer (or
// that the provider has deleted its load balancer for good): the three
// KEP-4631 conditions and the ingress are removed together (L9). The
// deprecated LoadBalancerPortsError and other controllers' conditions stay.
// The Apply configuration holds an empty status, so server-side apply
// removes what this field manager applied before. With WithFieldManager,
// a Service whose status that manager never applied to is left as it is,
// with a nil Apply: a cleanup there would write to a Service that is not
// the provider's (P1).
//
// Errors: nil svc. The Service's type is not checked.
func NotLoadBalancer[S Object](svc S, opts ...TransitionOption) (Transition[S], error) {
	v := view(svc)
	if v == nil {
		return Transition[S]{}, errNilService
	}
	dr := newDraft(v, makeTransitionOptions(opts))
	dr.notLoadBalancer()
	return transitionOf(svc, dr.result(), nil)
}

func (d *draft) notLoadBalancer() {
	if d.manager != "" && !ownsStatus(d.svc.ManagedFields, d.manager) {
		d.foreign = true
		return
	}
	d.remove(v1.LoadBalancerConditionServing)
	d.remove(v1.LoadBalancerConditionProvisioning)
	d.remove(v1.LoadBalancerConditionDegraded)
	d.status.LoadBalancer.Ingress = nil
}

// OwnsStatus reports whether manager has applied to svc's status: its
// managed fields hold an Apply entry of manager on the status subresource,
// or one that holds status fields, as client-go's fake clientset records
// an ApplyStatus. What an Update wrote is not counted, since an apply of
// the same manager does not remove it. A nil svc gives false.
func OwnsStatus[S Object](svc S, manager string) bool {
	v := view(svc)
	return v != nil && ownsStatus(v.ManagedFields, manager)
}

func ownsStatus(fields []metav1.ManagedFieldsEntry, manager string) bool {
	return slices.ContainsFunc(fields, func(m metav1.ManagedFieldsEntry) bool {
		if m.Manager != manager || m.Operation != metav1.ManagedFieldsOperationApply {
			return false
		}
		var set map[string]json.RawMessage
		return m.Subresource == "status" || m.FieldsV1 != nil && json.Unmarshal(m.FieldsV1.Raw, &set) == nil && set["f:status"] != nil
	})
}
