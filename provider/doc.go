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

// Package provider is the reference load-balancer provider of lbstatus: a
// level-triggered controller (informer, work queue, a few workers) that
// writes the KEP-4631 status of LoadBalancer Services with one call of
// conditions.Reconcile per reconcile and one server-side apply of the
// status subresource per write. cmd/lbstatus-provider runs it against a
// cluster; the integration tests run it in-process.
//
// It has no data plane: the addresses it writes into
// status.loadBalancer.ingress are not reachable. It exists for tests of the
// control plane and of client logic (e2e suites, the conformance suite,
// lbstatus check and watch).
//
// What it does with a Service is what its Options say:
//
//   - Capabilities (conditions.Capabilities): the classes it handles, or
//     Services without a class; the IP families and protocols it serves;
//     the features it implements, degrades or refuses (sections 4 and 5);
//   - Pool: the IPv4 and IPv6 CIDRs its addresses come from. Addresses are
//     recovered from the Services' status when Run starts and never handed
//     out twice; an exhausted pool fails the provisioning in the
//     infrastructure (Serving=False/Infrastructure, with a message). A
//     requested spec.loadBalancerIP outside the pool (or not an address,
//     or of a family not served) cannot be honored: it is degraded or
//     refused as the capabilities say (P3), refused when required (R1).
//     A load balancer that failed is tried again when its spec changes.
//   - ProvisionDelay and Fail, and with Faults the fault annotations of a
//     Service (FailAnnotation, DelayAnnotation, DegradeAnnotation,
//     StopWritingAnnotation), so that failures can be produced on demand;
//   - Bugs: deliberate rule-breaking mistakes, so that tests can prove the
//     conformance checker and the suite catch them.
//
// It reads Services as the project's v1.Service, through the clientset's
// REST client (conditions.RESTServices), so that on a server with
// spec.requiredLoadBalancerFeatures it honors the field (R1, R2); on a
// stock cluster the required-features annotation says the same. A
// clientset without a REST client, such as client-go's fake, is read
// through its typed client, which sees the annotation alone.
//
// The provider keeps in memory only what Reconcile cannot read from a
// Service (the version it last acted on, the state of its load balancer),
// and only for the Services it serves or refuses; of one it ignores, at
// most a marker that its cleanup is done (L9, P1), where its field manager
// wrote the status or the status shows KEP-4631 conditions;
// after a restart it finds the load balancers it serves from the status it
// wrote, provisions every other one again (a failure too: the status of a
// stock Service cannot show whether its spec changed meanwhile, G6), and
// moves Provisioning once on each Service it serves, which is always
// allowed (L6).
package provider
