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

// Package fork tests the kube-apiserver of hack/fork, which has
// spec.requiredLoadBalancerFeatures and calls lbstatus's validation from its
// Service strategies, with the LoadBalancerStatusImprovements gate on: the
// field is stored and applied, a write that breaks a KEP-4631 rule (R4, or
// a status rule) is refused with 422 naming the field and the rule,
// unchanged invalid conditions ratchet, and the reference provider and the
// checker run clean against it. (With the gate off, the fork runs the stock tests of the
// parent package: hack/integration.sh does both.)
//
// KUBEBUILDER_ASSETS must name a folder holding etcd and the fork's
// kube-apiserver (hack/fork/build.sh prints one); without it the tests fail.
package fork
