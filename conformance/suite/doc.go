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

// Package suite is the active conformance suite of section 9 of the
// specification: it makes a load-balancer provider show what it does with
// KEP-4631 Services, instead of judging whatever it happened to write.
//
// Run creates Services on a live cluster, each test in a namespace of its
// own, changes them, and watches every write the provider makes. Every
// observation goes through a conformance.Checker of the test (section 8), so
// any violation on a test's Services fails that test and the report names
// the rule. Tests run in parallel, at most Options.Parallelism at once.
// Before a test's namespace is deleted, the last observed status of each of
// its Services is kept for the report. Once every test has ended, the run
// waits up to Options.CleanupTimeout for its namespaces to go, and reports
// one that a finalizer holds as left on the cluster.
//
// The tests are those of section 9: Basic, Feature/<F> for each feature
// (the Service asking for F without requiring it, and one requiring it
// through spec.requiredLoadBalancerFeatures where the cluster keeps the
// field, which a dry-run create tells once per run, else through
// v1.RequiredFeaturesAnnotation; Report.RequiredFeaturesSource says which),
// UnknownRequiredFeature, SpecChange, ForeignClass, TypeChange and Recreate.
// A test is skipped, never passed, when it cannot exercise the provider (a
// refusal of a plain Service, a cluster that cannot create dual-stack
// Services, a provider that reads no required features, a ForeignClass run
// where the provider writes nothing on its own class either), and the skip
// says why.
//
// A feature's support is derived from its test alone: Supported (served,
// not degraded, when required), Degraded (served when asked, refused when
// required), Refused (refused even when only asked for) or Untested (its
// test did not pass, or its required half did not run). A feature is never
// claimed on a test that did not pass.
//
// The Report is the ConformanceReport of section 9, written as YAML or JSON
// by Report.Write; it carries SpecVersion. From a provider's own go test,
// call RunT, which runs the suite and reports each test as a subtest; on the
// command line, lbstatus conformance does the same.
package suite
