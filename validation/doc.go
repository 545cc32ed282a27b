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

// Package validation is the API validation of the KEP-4631 parts of a
// Service, for a kube-apiserver (or a fork of one) that serves
// spec.requiredLoadBalancerFeatures and wants its Service conditions
// checked, and for offline checkers. Rule IDs (R4, C1, ...) refer to the
// project's specification.
//
// # Entry points
//
// As in k8s.io/kubernetes/pkg/apis/core/validation there are three, one per
// kind of write, each returning a field.ErrorList with JSON paths:
//
//   - ValidateService: a create. The spec field and the status conditions.
//     An apiserver resets status on create, so there the status part finds
//     nothing; an offline caller gets the whole object checked.
//   - ValidateServiceUpdate: an update of the main resource, with the same
//     rules, ratcheted against the old object.
//   - ValidateServiceStatusUpdate: a write of the status subresource; only
//     status.conditions, ratcheted per condition.
//
// DropDisabledFields is the strategy half of the feature gate (R5): call it
// before validating a create or an update.
//
// Options.FeatureGate is read by name (LoadBalancerStatusImprovements), so
// an apiserver passes its own gate. nil, or a gate that does not know the
// feature, means off.
//
// # Spec: spec.requiredLoadBalancerFeatures (R4, R5)
//
// The field's own rules are declared on the type and enforced by the
// generated v1.Validate_Service: each value is a known LoadBalancerFeature
// (NotSupported, listing the known values), no value twice (Duplicate, on
// the later index), at most 16 values (TooMany; uniqueness and values are
// then not checked), and, with the gate off, no value at all (Forbidden;
// the values are then not checked either, their number still is). The
// hand-written part is the cross-field rule: the field is Forbidden unless
// spec.type is LoadBalancer.
//
// With the gate off, the gate option handed to the generated code is still
// on when the old object already uses the field, because DropDisabledFields
// keeps the field in that case and validation must accept what it keeps. So
// with the gate off: a create or an update that newly sets the field is
// rejected (Forbidden) unless DropDisabledFields ran first; an update of an
// object that already used it is validated as with the gate on. The
// type rule is not reported when the gate's Forbidden already is: one
// error per problem.
//
// # Status: status.conditions (C5, C1, C3)
//
// Every condition obeys the metav1.Condition rules, checked by
// k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateConditions: type
// and reason format, status among True, False and Unknown, message length,
// lastTransitionTime set, observedGeneration not negative, and no type twice
// (Duplicate, on the later index). This package adds what that function
// cannot know: observedGeneration not above metadata.generation (Invalid;
// not checked when metadata.generation is 0, unset, as in a manifest). These
// apply with the gate on or off: upstream Kubernetes validates no Service
// condition at all, and a condition a client cannot parse is broken whatever
// the gate.
//
// With the gate on, the KEP-4631 condition types are checked too:
//
//   - C1: LoadBalancerServing and LoadBalancerProvisioning with status
//     Unknown (NotSupported on .status, listing True and False). Any other
//     bad status is already ValidateConditions' error and is not reported
//     twice.
//   - C3: a well-known reason that the specification's table gives to the
//     other status of the same type (Invalid on .reason): Serving with
//     LoadBalancerServing=False; Provisioning, Unsupported or Infrastructure
//     with LoadBalancerServing=True; Complete with
//     LoadBalancerProvisioning=True; Provisioning with
//     LoadBalancerProvisioning=False; a Degraded reason (the six
//     <Feature>NotSupported and Multiple) with LoadBalancerDegraded=False.
//     Only True and False have an "other status": a condition with status
//     Unknown (allowed for Degraded, C2) is not judged by its reason, nor is
//     one whose status is already in error. A reason outside the table is
//     allowed (providers may have their own); so is a well-known reason of
//     another type.
//
// For a caller that sorts errors by rule, as the conformance checker does:
// every error under spec is R4 or R5. Under status.conditions[i], a
// NotSupported on .status of a condition whose status is Unknown is C1 (the
// metav1 rules accept Unknown); an Invalid on .reason of a condition whose
// reason is in the table is C3 (every reason of the table has the metav1
// format); everything else is C5.
//
// # Ratcheting
//
// An update never newly rejects data that did not change, so
// ValidateServiceUpdate(x, x) and ValidateServiceStatusUpdate(x, x) report
// nothing at all. In detail:
//
//   - the spec field: the generated code does not validate an unchanged
//     field, nor a value already present in the old list against the enum;
//     the type rule is not reported when the old object broke it with the
//     same list.
//   - conditions: a condition equal to one of the old object's conditions
//     (every field equal, lastTransitionTime as an instant; old and new
//     matched by content, so by type, wherever they sit in the lists) is
//     not validated again by any rule, C5 included; a duplicate type is not
//     reported when the old list held at least as many conditions of that
//     type.
//
// Ratcheting C5 per condition is deliberate. Services have never had their
// conditions validated upstream, so stored objects may hold conditions,
// written by any controller, that break the metav1 rules. Without it, turning
// this validation on would make every status write to such a Service fail,
// including a provider's write of its own conditions, until someone repairs a
// condition the writer does not own and may not understand. Changed and new
// conditions are always fully checked, and a generation check on an unchanged
// condition can only newly fail if metadata.generation went down, which an
// apiserver never does.
//
// # Errors and cost
//
// The spec errors are the generated code's, unmodified. None of the errors
// is marked CoveredByDeclarative (the conditions' errors from
// metav1validation have that mark cleared): the marks serve an apiserver's
// migration from hand-written to declarative validation of one rule, and no
// rule here exists in both forms, so a caller that removes covered errors
// must not lose any of these.
//
// On valid conditions the status rules allocate nothing beyond what
// ValidateConditions allocates: field paths of this package are built
// only for an error, and ratcheting only looks at the old object when
// there is an error to forgive.
//
// # What this package does not validate
//
// Nothing here validates the upstream core/v1 fields of a Service: not its
// metadata, not the spec fields of core/v1 (ports, clusterIP, type,
// loadBalancerClass, ...), not status.loadBalancer. A fork must still run
// its own validation on the Service converted to core (v1.ToCore, then to
// the internal type with k8s.io/kubernetes/pkg/apis/core/v1's
// Convert_v1_Service_To_core_Service): k8s.io/kubernetes/pkg/apis/core/validation's
// ValidateService, ValidateServiceUpdate and ValidateServiceStatusUpdate, and
// its registry strategy's handling of the core fields (dropping disabled
// fields, resetting status on create and spec on status writes, clearing
// type-dependent fields). Clearing spec.requiredLoadBalancerFeatures when
// type changes away from LoadBalancer, as that strategy does for
// loadBalancerClass, is the fork's choice too; without it such an update is
// rejected by the type rule above.
package validation
