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
	"fmt"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// LoadBalancerState is the state of a provider's load balancer for one
// Service, as the provider knows it when it reconciles.
type LoadBalancerState string

const (
	// LoadBalancerAbsent: there is no load balancer and none is being made
	// (not started yet, or deleted). The zero value.
	LoadBalancerAbsent LoadBalancerState = ""
	// LoadBalancerProvisioning: a time-consuming provisioning step is under
	// way (creation, or an update that takes a while).
	LoadBalancerProvisioning LoadBalancerState = "Provisioning"
	// LoadBalancerReady: the load balancer serves the Service's current
	// spec at LoadBalancer.Ingress.
	LoadBalancerReady LoadBalancerState = "Ready"
	// LoadBalancerFailed: the provider gave up on the load balancer for a
	// problem in its infrastructure, said in LoadBalancer.Message.
	LoadBalancerFailed LoadBalancerState = "Failed"
)

// LoadBalancer is what a provider knows of its load balancer for one
// Service when it reconciles, after it has brought the load balancer in line
// with the Service's current spec as far as it could. The zero value is an
// absent load balancer.
type LoadBalancer struct {
	// State is the load balancer's state.
	State LoadBalancerState
	// Ingress is where a Ready load balancer serves: at least one entry
	// with an ip or a hostname (L4, see HasAddress). Ignored in other
	// states.
	Ingress []corev1.LoadBalancerIngress
	// Degraded lists, for a Ready load balancer, the features it does not
	// implement. Nil means the decision's (Decision.Degraded); an empty,
	// non-nil slice means none. Ignored in other states.
	Degraded []v1.LoadBalancerFeature
	// Message says, for a Failed load balancer, what failed; empty: a
	// default message. Ignored in other states.
	Message string
	// KeepServing says, for a load balancer in Provisioning, that the
	// previous configuration keeps serving meanwhile (L7). Ignored in
	// other states.
	KeepServing ServingDuringProvisioning
}

// Reconciliation is the result of Reconcile: the decision for the Service
// and the one status write to make.
type Reconciliation[S Object] struct {
	// Decision is Decide's answer for the Service: what to do with the load
	// balancer (nothing, delete it, provision it with its degradations).
	Decision Decision
	// Transition is the status write. Its Apply is nil and Changed false
	// when there is nothing to write; Service then has the unchanged
	// status.
	Transition[S]
}

// Reconcile is one call per provider reconcile of a Service. Given the
// Service, the provider's capabilities, acted (the Service as the provider
// last acted on it: the version whose status it last wrote, or decided to
// leave alone) and lb (the state of its load balancer), it returns the
// decision and the single status write that brings the status in line
// (G4), or none:
//
//   - first sight of a LoadBalancer Service (no Serving or Provisioning
//     yet): both conditions at once (L1), provisioning, refused, failed or
//     already serving, as lb says;
//   - provisioning done (lb Ready) or failed (lb Failed), or started
//     again (lb Provisioning or Absent) (L2, L7);
//   - a load-balancer-relevant spec change since acted (G3: ChangedFields
//     with WithRelevantAnnotations) ending in any of these outcomes:
//     Provisioning's lastTransitionTime moves in the same write (L6), and
//     Serving's too when an updated load balancer serves the new spec;
//   - refusal (Decision.Action ActionRefuse: lb is ignored; the provider
//     deletes any load balancer it has);
//   - cleanup (ActionIgnore: the Service stopped being a LoadBalancer, L9,
//     or moved to a class that is not the provider's, P1): the three
//     conditions and the ingress go, as NotLoadBalancer, when the provider
//     may have written them, that is unless acted was ignored too.
//
// Every condition's lastTransitionTime is stamped once per write from the
// clock (WithClock): the clock's second, or, when the clock has not passed
// the previous value, one second after it (G5, C7); a Degraded condition
// that comes back never lands before the others' times.
//
// What a provider keeps: acted, per Service, in memory. After the write
// succeeds (or when there is none), the Service passed in is the next
// acted. A nil acted means "not known": a provider that restarts passes
// nil for every Service, and so does one that saw a relevant change it has
// not acted on but a later change undid (the checker owes nothing for a
// spec changed back, L6, but a client waiting with WithSpecChange for the
// first change waits for a bump).
// Reconcile then counts the spec as changed and moves Provisioning once
// (and, for a Ready load balancer that was serving, Serving, as for any
// spec change: the load balancer may serve a spec changed meanwhile),
// which is always allowed, so no L6 bump is lost across a restart and
// nothing needs to be kept in the cluster; the price is one write per
// Service with conditions when the provider starts. For the same reason a
// cleanup with a nil acted may concern a Service of another provider:
// write it with server-side apply (Apply, the provider's own field
// manager), which removes only what that manager wrote; never with
// UpdateStatus. Name that manager with WithFieldManager, and the cleanup
// is returned only where it has applied to the status: a Service of
// another provider then gets no write at all (P1).
//
// Errors, with no write: nil svc; lb in an unknown state; for a Ready lb,
// an ingress without an address (L4) or a degradation Succeeded would
// refuse (C3, P5, R1). caps may differ from one Service to the next: a
// provider that finds out while provisioning that it cannot give a Service
// what it asks for (its loadBalancerIP is in none of its pools, say) passes
// caps without that capability, and Reconcile refuses the Service where the
// feature is required (R1) and degrades it where not (P3).
func Reconcile[S Object](svc S, caps Capabilities, acted S, lb LoadBalancer, opts ...TransitionOption) (Reconciliation[S], error) {
	v := view(svc)
	if v == nil {
		return Reconciliation[S]{}, errNilService
	}
	o := makeTransitionOptions(opts)
	d := decide(v, caps)
	rec := Reconciliation[S]{Decision: d}
	r, err := reconcile(v, d, caps, view(acted), lb, o)
	if err != nil {
		return rec, err
	}
	rec.Transition, _ = transitionOf(svc, r, nil)
	return rec, nil
}

func reconcile(svc *v1.Service, d Decision, caps Capabilities, acted *v1.Service, lb LoadBalancer, o transitionOptions) (outcome, error) {
	switch lb.State {
	case LoadBalancerAbsent, LoadBalancerProvisioning, LoadBalancerFailed:
	case LoadBalancerReady:
		if d.Action == ActionProvision {
			degraded := lb.Degraded
			if degraded == nil {
				degraded = d.Degraded
			}
			if err := checkSucceeded(svc, lb.Ingress, degraded); err != nil {
				return outcome{}, err
			}
			lb.Degraded = degraded
		}
	default:
		return outcome{}, fmt.Errorf("load balancer state %q is not known", lb.State)
	}
	conds := svc.Status.Conditions
	dr := newDraft(svc, o)

	if d.Action == ActionIgnore {
		wrote := HasKEPConditions(conds) || len(svc.Status.LoadBalancer.Ingress) > 0
		if wrote && (acted == nil || decide(acted, caps).Action != ActionIgnore) {
			dr.notLoadBalancer()
		}
		return dr.result(), nil
	}

	known := Acknowledged(conds)
	changed := known && (acted == nil || len(changedFields(acted, svc, o.annotations)) > 0)
	if changed {
		// Degradations follow the new spec (P5, P6) whatever comes next,
		// and Provisioning moves (L6).
		dr.specUpdated()
	}
	switch {
	case d.Action == ActionRefuse:
		dr.failed(v1.LoadBalancerReasonUnsupported, d.Message())
	case lb.State == LoadBalancerReady:
		dr.succeeded(lb.Ingress, lb.Degraded, changed)
	case lb.State == LoadBalancerFailed:
		dr.failed(v1.LoadBalancerReasonInfrastructure, lb.Message)
	case lb.State == LoadBalancerProvisioning:
		dr.provisioning(lb.KeepServing)
	default:
		dr.provisioning(StopServing)
	}
	return dr.result(), nil
}
