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

// Package provider is a reference load-balancer provider for the
// integration tests: a level-triggered controller (informer, work queue, a
// few workers) that writes the KEP-4631 status of LoadBalancer Services
// through package conditions and server-side apply, without creating any
// real load balancer.
//
// For each Service it follows the lifecycle of the specification:
//
//   - first sight of a LoadBalancer Service (created, or converted from
//     another type): conditions.Decide, then conditions.Seen, one write
//     holding both conditions (L1); a refusal ends there, a provision goes
//     on after Options.ProvisionDelay with conditions.Succeeded or
//     conditions.Failed (L2, L4);
//   - a load-balancer-relevant spec change (conditions.ChangedFields against
//     the spec the provider last acted on, or any change the informer
//     delivered since, even one a later change undid): conditions.SpecUpdated
//     bumps Provisioning (L6), and in the same write the load balancer is
//     updated in place (Succeeded), refused (Failed), or, when nothing was
//     served, provisioned again (ProvisioningStarted);
//   - a Service that stops being a LoadBalancer: conditions.NotLoadBalancer
//     removes the conditions and the ingress (L9).
//
// Every write is one server-side apply of the status subresource with the
// resourceVersion the decision was made on, so a decision made on a stale
// read fails with a conflict and is made again on a fresh one. The ingress
// is made up: one IP from 198.18.0.0/16 per Service, with the ports the
// load balancer serves.
//
// Bugs switches on deliberate mistakes, so that tests can prove the
// conformance checker catches them.
package provider
