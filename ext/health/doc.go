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

// Package health holds only tests: they run the Argo CD health check
// (deploy/argocd/service-health.lua, with gopher-lua) and the Flux health
// expressions (deploy/flux/service-health.yaml, with cel-go) over every
// Service of examples/, violations/ and the golden fixtures in
// apis/core/v1/testdata, plus generated combinations of conditions,
// degradations and required features, and require them and the kstatus
// reader of ext/kstatus to map each Service exactly as
// conditions.Evaluate's verdicts say (see ext/kstatus's package doc). It
// also evaluates the admission policies of deploy/admission with cel-go,
// for what their CEL alone decides, and, with rapid, requires them to
// refuse random status writes for the rules
// validation.ValidateServiceStatusUpdate (gate on, cross-condition rules,
// as a fork's apiserver runs it) reports, but for the differences the
// documentation states; integration/admission_test.go runs them on a
// real apiserver.
//
// It is a module of its own so that neither interpreter enters the lbstatus
// module's dependencies.
package health
