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

// Package fault runs `lbstatus watch` against a real etcd and kube-apiserver
// of its own while the test injects faults: the apiserver restarted, etcd
// stalled (SIGSTOP) or compacted while the watch is cut off, a server that
// never answers, an interrupt during the first list. Each test asserts what
// the user sees: findings printed once, one gap record per re-list, the
// final states right, a prompt exit with one clear line.
//
// The control plane is its own (TestMain), so that restarting it does not
// disturb the other integration tests, and its certificates live in a
// directory that survives a restart, so that the kubeconfig stays valid.
package fault
