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

// Package conformance checks that the status a load-balancer provider
// writes on Services conforms to KEP-4631, as the project's specification
// states it (rule IDs C1, L6, R4, ...; section 8 lists what is checked).
//
// # Model
//
// The input is a sequence of observations of Service objects: manifests, a
// List, or the stream a watch prints. A Checker takes them one at a time
// (Observe; ObserveCore for client-go's core/v1 Service, read in place;
// ObserveObject for what a Decoder reads):
//
//   - each observation is checked alone (snapshot rules: C1 to C5, L1, L4,
//     L5, L9, P1, P5, P6, R2, R4);
//   - two observations of the same namespace/name, in input order, are a
//     step of a trace and are also checked as a pair (C6, C7, L1 and L4 on
//     first write and first provisioning, L6); a Service without a name
//     (a manifest with generateName) is one of its own, its trace ended
//     at once; Gap marks a Service whose writes since its last
//     observation were not seen (a watch that listed again, or an ADDED
//     event of a Service whose trace goes on): its next observation is no
//     first write or first provisioning, and if it shows the provider at
//     work, no later one is a first provisioning either; a Service's last
//     observation given again is checked once (see Repeated);
//   - Finish ends the input and returns what is still owed: a
//     load-balancer-relevant spec change never acknowledged (L6, warning)
//     and a LoadBalancer Service without KEP-4631 conditions (R3, notice,
//     or violation with RequireConditions).
//
// Every Finding carries a rule ID, a severity (violation, warning,
// notice), the object (namespace/name, resourceVersion), a JSON field path
// and a one-sentence message. The section 6 verdict of each LoadBalancer
// Service (package conditions' Evaluate) is a notice whenever it changes.
//
// # Sources of truth
//
// The checker does not re-implement what other packages own. API
// validation (package validation, LoadBalancerStatusImprovements on) gives
// R4, C5, C1 and the violation half of C3; each error is reported once,
// under the rule that owns it. Package conditions gives the verdict, the
// reasons a Degraded condition names (G2), and which fields count as
// load-balancer-relevant (ChangedFields, G3).
//
// # Memory
//
// Memory grows with the number of distinct Services, not with the number
// of observations: per Service the checker keeps a few hashes, the
// conditions' statuses and lastTransitionTimes in whole seconds (G5), the
// G3 fields, and an open L6 obligation if there is one. Never a whole
// object. A Collector keeps at most KeepFindings findings of each severity
// per Service, and counts the rest.
//
// # Input
//
// Package input reads the observations (Decoder: JSON, YAML, Lists, watch
// events; see its documentation for what makes an input unreadable). Its
// types are also named here (Decoder, Object, Position, DecodeError,
// ObjectRef), so that callers of the checker need one import.
//
// Collector turns results into a Report: one ServiceReport per Service
// (last conditions, verdict, findings) and a Summary of counts per rule and
// severity. Rules and LookupRule hold the text of every rule of the
// specification, for "lbstatus explain".
package conformance
