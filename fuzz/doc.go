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

// Package fuzz holds the project's cross-package native Go fuzz targets
// (in its _test.go files) and the helpers they share. Targets that belong
// to one package live next to that package's code instead.
//
// The targets feed untrusted bytes to what an apiserver, a provider or CI
// feeds the library: Service manifests in JSON and YAML decoded into
// apis/core/v1, every validation entry point, the JSON, YAML and CBOR wire
// forms, conversion to and from core/v1, and condition lists compared with
// apimachinery's own rules. Each target checks properties that must hold
// for every input, not just the absence of panics.
//
// The helpers are ordinary (non-test) code on purpose: OSS-Fuzz and
// ClusterFuzzLite build a target from its own file plus the package's
// non-test files, so a target must not depend on another _test.go file.
// For the same reason a target's name appears in its own file only. The
// list of targets, the CI budget and the OSS-Fuzz build are in
// hack/fuzz.sh and hack/oss-fuzz/.
package fuzz
