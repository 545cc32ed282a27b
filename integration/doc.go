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

// Package integration holds the project's tests against a real etcd and a
// real kube-apiserver: what only a server can prove (server-side apply merges
// of conditions, watch streams, what a stock apiserver does with
// spec.requiredLoadBalancerFeatures, behaviour under concurrent writers).
//
// The tests start one etcd and one kube-apiserver per test binary with
// controller-runtime's envtest, bound to 127.0.0.1, from the binaries in
// KUBEBUILDER_ASSETS (internal/controlplane, which every test binary's
// TestMain calls); hack/kube/build.sh builds them from the Go module proxy,
// and hack/integration.sh builds them and runs the tests. Without
// KUBEBUILDER_ASSETS the tests fail rather than pass: a run that tested
// nothing must not look like a success.
//
// The module is separate from the root module so that the root never
// depends on controller-runtime; a replace directive ties it to the
// checkout it lives in. The package itself is empty: everything is in the
// tests; the reference provider they drive is package provider of the
// root module.
package integration
