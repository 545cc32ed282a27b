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
// They are made of two blocks, each taking ctx, a field path, new and old,
// for a registry strategy that holds the internal type: the types they
// read are the same Go types there ([]metav1.Condition; spec.type with a
// string cast; the feature list):
//
//   - ValidateConditions: status.conditions, given a ConditionsSpec
//     (metadata.generation, spec.type and, for P5, the features the spec
//     asks for).
//   - ValidateRequiredLoadBalancerFeatures: the spec field, given spec.type.
//
// DropDisabledFields is the strategy half of the feature gate (R5): call it
// before validating a create or an update. DropTypeDependentFields is the
// strategy half of R4: call it before validating an update, so that a
// change of spec.type away from LoadBalancer that leaves the field as it
// was clears it, as kube-apiserver clears loadBalancerClass.
//
// Options.FeatureGate is read by name (LoadBalancerStatusImprovements), so
// an apiserver passes its own gate. nil means off; a gate that does not
// know the feature is an internal error naming it (an error from
// DropDisabledFields), never a silent "off". Options.CrossConditionRules
// adds L4, L5, P5 and P6, for an apiserver that wants them enforced.
//
// Every error carries the ID of the rule it enforces as its origin
// (OriginC1 ... OriginR5), for field.ErrorMatcher.ByOrigin and for
// callers that sort errors by rule.
//
// # Spec: spec.requiredLoadBalancerFeatures (R4, R5)
//
// The field's own rules are declared on the type and enforced by the
// generated v1.Validate_Service: each value is a known LoadBalancerFeature
// (NotSupported, listing the known values), no value twice (Duplicate, on
// the later index), at most 16 values (TooMany; uniqueness and values are
// then not checked), and, with the gate off, R5: no value unless the old
// object already used the field (+k8s:update=NoSet; the values are then
// not checked, their number still is), the field DropDisabledFields keeps.
// The hand-written part is the cross-field rule: the field is Forbidden
// unless spec.type is LoadBalancer.
//
// So with the gate off: a create or an update that newly sets the field is
// rejected (Forbidden, origin R5, naming the gate) unless
// DropDisabledFields ran first; an update of an object that already used
// it is validated as with the gate on, edits included. The type rule is
// not reported when the gate's Forbidden already is: one error per
// problem.
//
// A scheme's own validation (runtime.Scheme.Validate and ValidateUpdate,
// with the gate as the option LoadBalancerStatusImprovements) runs the
// generated rules alone, without the hand-written parts (the type rule,
// the ratchets of repeats and reorders). As to R5 it differs from the
// entry points in two ways, each about a field R5 has the apiserver drop
// before validation: an update that newly sets the field with the gate off gets the generated
// Invalid error (origin "update", "field cannot be set once created")
// instead of the Forbidden naming the gate; and a create with the gate off
// is not refused for the field at all, since a declarative update rule
// cannot judge a create. DropDisabledFields, which an apiserver's strategy
// calls before validating a create, is what keeps the field out there.
//
// # Status: status.conditions (C5, C1, C3)
//
// Conditions are validated only with the gate on. With it off an apiserver
// must take every status write a stock one takes (R5), and upstream
// Kubernetes validates no Service condition at all: every entry point and
// ValidateConditions then report nothing about status.conditions.
//
// With the gate on, every condition obeys the metav1.Condition rules, checked by
// k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateConditions: type
// and reason format, status among True, False and Unknown, message length,
// lastTransitionTime set, observedGeneration not negative, and no type twice
// (Duplicate, on the later index). This package adds what that function
// cannot know: observedGeneration not above metadata.generation (Invalid;
// not checked when metadata.generation is 0, unset, as in a manifest).
//
// The KEP-4631 condition types are checked too:
//
//   - C1: LoadBalancerServing and LoadBalancerProvisioning with status
//     Unknown (NotSupported on .status, listing True and False). Any other
//     bad status is already ValidateConditions' error (C5) and is not
//     reported twice; for these two types that error lists True and False
//     too, not Unknown.
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
// With Options.CrossConditionRules too, for a Service of type LoadBalancer
// (on another type the conditions are L9's to remove, and a write that
// removes some is not refused for those it leaves):
//
//   - L5: LoadBalancerServing=False with reason Provisioning while
//     LoadBalancerProvisioning is not True, or with Unsupported or
//     Infrastructure while it is not False (Invalid on Provisioning's
//     .status); judged when the write changes the status or reason of
//     either (see Ratcheting).
//   - P5: LoadBalancerDegraded=True with a reason naming a feature the
//     Service does not ask for (Invalid on .reason, or on .message for the
//     reasons a Multiple lists: one error naming them all, each once), or
//     LoadBalancerPortsError=True, read as reason PortsNotSupported (C4),
//     on a Service that does not ask for Ports (Invalid on its .status).
//   - L4: LoadBalancerServing=True while no entry of
//     status.loadBalancer.ingress has an ip or a hostname (Invalid on
//     Serving's .status); judged when the write changes Serving's status
//     or reason, or the ingress.
//   - P6: LoadBalancerServing=True while a degradation (a Degraded=True
//     reason, those a Multiple lists, or LoadBalancerPortsError=True) names
//     a feature the Service requires, in spec.requiredLoadBalancerFeatures
//     or else the annotation fallback (Invalid on .reason, .message or the
//     LoadBalancerPortsError's .status, naming the features); judged when
//     the write changes Serving's status or reason, Degraded or
//     LoadBalancerPortsError.
//
// # Ratcheting
//
// An update never newly rejects data that did not change, so
// ValidateServiceUpdate(x, x) and ValidateServiceStatusUpdate(x, x) report
// nothing at all. In detail:
//
//   - the spec field: the generated code does not validate an unchanged
//     field (a reorder, the same values each as often, is no change of a
//     set: a stored list of 17 reordered is not TooMany), nor a value
//     already present in the old list against the enum;
//     a repeat is not reported when the old list held at least as many
//     copies of the value; the type rule is not reported when the old
//     object broke it with the same list.
//   - conditions: a condition equal to one of the old object's conditions
//     (every field equal, lastTransitionTime as an instant; old and new
//     matched by content, so by type, wherever they sit in the lists) is
//     not validated again by any rule, C5 included; a duplicate type is not
//     reported when the old list held at least as many conditions of that
//     type.
//   - the rules between conditions (L4, L5, P6) read only the status and
//     reason of Serving and Provisioning (the first of each type, as
//     readers take it): a write that leaves both as the old object's
//     first of each type had them is not judged again for them, whatever
//     else of the two it changes (L4 still judges a changed ingress, P6 a
//     changed Degraded or LoadBalancerPortsError). The specification
//     does not say; this is upstream's ratcheting of unchanged data,
//     applied to what the rules read, and it lets a provider make the
//     lastTransitionTime bump L6 asks of it (or change a message) on a
//     Service stored with a pairing that breaks L4, L5 or P6, without
//     first repairing it. The admission policies ratchet the same way.
//
// Ratcheting comes first: an unchanged condition is not validated at all,
// and only changed ones go through metav1validation.ValidateCondition.
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
// The spec errors are the generated code's, with their origin set to the
// rule and, for the gate's Forbidden, a detail naming the gate. None of the errors
// is marked CoveredByDeclarative (the conditions' errors from
// metav1validation have that mark cleared): the marks serve an apiserver's
// migration from hand-written to declarative validation of one rule, and no
// rule here exists in both forms, so a caller that removes covered errors
// must not lose any of these.
//
// Unchanged conditions cost a comparison with the old list (an index
// only for long lists) and no validation; changed ones cost what
// metav1validation.ValidateCondition costs.
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
