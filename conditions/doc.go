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

// Package conditions reads and writes the KEP-4631 load-balancer status of a
// Service: the LoadBalancerServing, LoadBalancerProvisioning and
// LoadBalancerDegraded conditions and status.loadBalancer.ingress. Rule IDs
// (C1, L6, ...) refer to the project's specification, whose rules
// "lbstatus explain" prints (their text is conformance/rules.md).
//
// Every function that takes or returns a Service takes either type (see
// Object): client-go's *k8s.io/api/core/v1.Service, which providers and
// e2e suites hold, or the project's
// *github.com/lbstatus/lbstatus/apis/core/v1.Service, which has
// spec.requiredLoadBalancerFeatures; results come back in the caller's
// type. No conversion is needed on either side. Wait alone, which watches
// through a client-go client, returns client-go's. To read Services with
// the spec field from a server that has it, use RESTServices, or
// ServiceListWatch for an informer: client-go's typed client drops it.
//
// It has four layers, each usable alone:
//
//   - Helpers on a []metav1.Condition: Get, IsTrue, IsFalse, IsUnknown, Set,
//     Remove and Bump. All are nil-safe. StatusApply turns a Service whose
//     conditions they changed into a server-side-apply configuration.
//   - Provider decisions: Decide answers, from a provider's Capabilities,
//     whether to ignore a Service (P1, L9, with a typed IgnoreReason),
//     refuse it (P2, R1, R2) or provision it with a list of degradations
//     (P3, P4). RequiredFeatures is what it reads a Service's request from:
//     spec.requiredLoadBalancerFeatures, else the annotation a stock
//     cluster keeps (v1.RequiredFeaturesAnnotation), saying which.
//   - Provider status writes. Reconcile is one call per provider
//     reconcile: given the Service, the capabilities, the Service the
//     provider last acted on and the state of its load balancer
//     (LoadBalancer), it returns the decision and the single status write
//     to make, or none. The per-event transitions it is made of (Seen,
//     ProvisioningStarted, Succeeded, Failed, SpecUpdated, NotLoadBalancer)
//     are there for providers that track events themselves. Each write is
//     a Transition: the Service with its complete new status (both
//     conditions and the ingress in one value, G4) and the same status as a
//     server-side-apply configuration for Services(ns).ApplyStatus.
//   - Client verdicts: Evaluate gives Ready, Pending, Skip or Fail for a
//     Service and an optional feature under test (section 6); ShouldSkip is
//     an e2e test's one call for T1; Wait watches one Service through any
//     client that lists and watches Services until the verdict is final,
//     with the deadlines of L8, and returns every Fail as a *FailError.
//     ChangeSeen tells whether the provider saw an update (L6), which
//     Wait's WithSpecChange waits for. WaitReleased waits, after a change
//     of the type away from LoadBalancer, for the provider to remove its
//     conditions and the ingress (L9), which Released tells.
//
// Options are functions, in one family per kind of call (SetOption,
// TransitionOption, ChangeOption, WaitOption): an option that does not
// apply to a call does not compile.
//
// Transition rules the helpers follow, unlike meta.SetStatusCondition:
//
//   - lastTransitionTime moves when a condition's status changes (C6) and
//     when the caller bumps the condition without changing its status (L6).
//   - lastTransitionTime is truncated to whole seconds, the resolution of the
//     wire format, and a move always lands at least one second after the
//     previous value, so a bump within the same second is still visible to
//     a watcher (G5) and the time never moves backwards (C7), even when the
//     clock does.
//   - A status write stamps each condition once, from the time it had
//     before the write: a spec change that ends in an outcome moves
//     Provisioning to the clock's second, not a second past it. Only a
//     condition that comes back in the write (Degraded, removed while
//     nothing was served) may land later than the clock, on the latest
//     time of the others, so that it does not come back earlier than it
//     left.
//   - A Set that keeps the status keeps lastTransitionTime; reason, message
//     and observedGeneration are updated in place.
//   - observedGeneration comes from the object (G6): the provider writes
//     use metadata.generation; Set uses WithObservedGeneration, else the
//     condition's own field.
//   - Time comes from the clock passed with WithClock, else the real clock;
//     there is no package-level clock.
//   - Serving and Provisioning are written together, only True or False
//     (C1, L1); Degraded is written True or removed, never False (C2), and
//     only while Serving is True; LoadBalancerPortsError is never written
//     (C4); only the reasons of the specification's table are written (C3).
//   - Serving=True always comes with a non-empty ingress (L4).
//   - Several degradations are written as reason Multiple with the
//     individual reasons, sorted and comma-separated, at the start of the
//     message (G2); DegradedReasons parses them back.
//
// Conditions of other types, written by other controllers, are kept as they
// are and never included in an apply configuration.
package conditions
