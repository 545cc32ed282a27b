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

// Package kstatus teaches kstatus (sigs.k8s.io/cli-utils, used by kpt,
// Config Sync and others) when a LoadBalancer Service is deployed.
//
// Stock kstatus reports a Service Current as soon as it exists, long before
// a load balancer has an address. The StatusReader here reads the KEP-4631
// conditions instead, through conditions.Evaluate for each feature the
// Service requires (spec.requiredLoadBalancerFeatures, else the
// required-features annotation: conditions.RequiredFeatures) and then
// with no feature under test, and maps the verdict:
//
//   - Ready (T3) with an ingress entry that has an ip or a hostname (L4):
//     Current;
//   - Skip (T1: refused as Unsupported, or degraded in a feature the
//     Service requires, which R1 forbids) and Fail (T2: Infrastructure):
//     Failed, for waiting longer cannot help;
//   - Pending (T4): InProgress, except for a Service with neither
//     LoadBalancerServing nor LoadBalancerProvisioning whose ingress has an
//     address and that requires no feature (neither
//     spec.requiredLoadBalancerFeatures nor the required-features
//     annotation lists one): its provider predates the KEP (R3), and the
//     address is the only signal there is, so it is Current. A Service
//     that requires a feature stays InProgress: R3 trusts a provider to
//     have honored the requirement only when it writes the conditions.
//
// The message is the verdict's rule and reason ("T1: the provider refused
// the service as unsupported: ..."). Services of other types, and Services
// being deleted, get stock kstatus's answer. The Argo CD health check in
// deploy/argocd and the Flux health expressions in deploy/flux implement
// the same mapping; ext/health tests that all three agree.
//
// The package is a module of its own so that cli-utils never enters the
// lbstatus module's dependencies.
package kstatus
