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
// real load balancer. It works on client-go's Service throughout.
//
// Each reconcile is one call of conditions.Reconcile, given:
//
//   - the Service from the informer's cache;
//   - the Service the provider last acted on, kept in memory, or nil when
//     the provider does not know it (after a restart, or when changes the
//     informer delivered undid each other: the L6 acknowledgement is still
//     owed, and Reconcile moves Provisioning when it cannot tell);
//   - the state of its made-up load balancer: provisioning takes
//     Options.ProvisionDelay and may fail (Options.Fail); a serving load
//     balancer is updated in place on a spec change; a refused or ignored
//     Service has none. After a restart the provider finds its load
//     balancers from the status it wrote.
//
// Reconcile returns at most one status write, which the provider sends as
// one server-side apply of the status subresource with the resourceVersion
// the decision was made on, so a decision made on a stale read fails with a
// conflict and is made again on a fresh one. The ingress is made up: one IP
// from 198.18.0.0/16 per Service, with the ports the load balancer serves.
//
// Bugs switches on deliberate mistakes, so that tests can prove the
// conformance checker catches them.
package provider
