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
// (C1, L6, ...) refer to the project's specification, spec/kep-4631.md.
//
// It has four layers, each usable alone:
//
//   - Helpers on a []metav1.Condition: Get, IsTrue, IsFalse, IsUnknown, Set,
//     Remove and Bump. All are nil-safe.
//   - Provider transitions on a Service, one call per provider event: Seen,
//     ProvisioningStarted, Succeeded, Failed, SpecUpdated and
//     NotLoadBalancer. Each returns a Transition: the complete new status
//     (both conditions and the ingress in one value, G4) and the same status
//     as a server-side-apply configuration for Services(ns).ApplyStatus.
//   - Provider decisions: Decide answers, from a provider's Capabilities,
//     whether to ignore a Service (P1), refuse it (P2, R1, R2) or provision
//     it with a list of degradations (P3, P4).
//   - Client verdicts: Evaluate gives Ready, Pending, Skip or Fail for a
//     Service and an optional feature under test (section 6); Wait watches
//     one Service until the verdict is final, with the deadlines of L8.
//
// Transition rules the helpers follow, unlike meta.SetStatusCondition:
//
//   - lastTransitionTime moves when a condition's status changes (C6) and
//     when the caller bumps the condition without changing its status (L6).
//   - lastTransitionTime never moves backwards (C7), even when the clock does:
//     a move always lands at least one second after the previous value. The
//     provider transitions also never stamp a condition earlier than the
//     latest lastTransitionTime of the three, so a Degraded condition that
//     is removed and written again does not come back with an earlier time.
//   - lastTransitionTime is truncated to whole seconds, the resolution of the
//     wire format, so a bump within the same second as the previous value is
//     still visible to a watcher (G5).
//   - A Set that keeps the status keeps lastTransitionTime; reason, message
//     and observedGeneration are updated in place.
//   - observedGeneration comes from the object (G6): the provider
//     transitions use metadata.generation; Set uses the ObservedGeneration
//     option, else the condition's own field.
//   - Time comes from the clock passed with WithClock, else the real clock;
//     there is no package-level clock.
//   - Serving and Provisioning are written together, only True or False
//     (C1, L1); Degraded is written True or removed, never False (C2), and
//     only while Serving is True; LoadBalancerPortsError is never written
//     (C4); only the reasons of the specification's table are written (C3).
//   - A provider transition writes observedGeneration, conditions and
//     ingress in a single status value (G4); Serving=True always comes with
//     a non-empty ingress (L4).
//   - Several degradations are written as reason Multiple with the
//     individual reasons, sorted and comma-separated, at the start of the
//     message (G2); DegradedReasons parses them back.
//
// Conditions of other types, written by other controllers, are kept as they
// are and never included in an apply configuration.
package conditions
