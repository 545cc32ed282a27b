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

package suite

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestOptions_Defaults: each zero field of Options takes its documented
// default, and a field given keeps its value: a zero SettlePeriod would
// let ForeignClass (P1) pass on no settling at all.
func TestOptions_Defaults(t *testing.T) {
	d := Options{}.withDefaults()
	want := Options{Parallelism: DefaultParallelism, ConditionsTimeout: DefaultConditionsTimeout, ProvisionTimeout: DefaultProvisionTimeout,
		SettlePeriod: DefaultSettlePeriod, CleanupTimeout: DefaultCleanupTimeout, NamespacePrefix: DefaultNamespacePrefix, LoadBalancerIP: DefaultLoadBalancerIP}
	if d.Parallelism != want.Parallelism || d.ConditionsTimeout != want.ConditionsTimeout || d.ProvisionTimeout != want.ProvisionTimeout ||
		d.SettlePeriod != want.SettlePeriod || d.CleanupTimeout != want.CleanupTimeout || d.NamespacePrefix != want.NamespacePrefix ||
		d.LoadBalancerIP != want.LoadBalancerIP {
		t.Errorf("defaults %+v, want %+v", d, want)
	}
	given := Options{Parallelism: 2, ConditionsTimeout: time.Second, ProvisionTimeout: 2 * time.Second, SettlePeriod: 3 * time.Second,
		CleanupTimeout: 4 * time.Second, NamespacePrefix: "lb", LoadBalancerIP: "192.0.2.1"}
	if g := given.withDefaults(); g.Parallelism != 2 || g.ConditionsTimeout != time.Second || g.ProvisionTimeout != 2*time.Second ||
		g.SettlePeriod != 3*time.Second || g.CleanupTimeout != 4*time.Second || g.NamespacePrefix != "lb" || g.LoadBalancerIP != "192.0.2.1" {
		t.Errorf("given %+v, kept %+v", given, g)
	}
	if d := (Options{Parallelism: -3}).withDefaults(); d.Parallelism != DefaultParallelism {
		t.Errorf("parallelism -3 became %d, want %d", d.Parallelism, DefaultParallelism)
	}
}

// TestRun_DefaultParallelism: with the default parallelism, tests run at
// once: two tests on a cluster where no provider writes both start before
// either ends (each waits for L8's deadline).
func TestRun_DefaultParallelism(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	_, err := Run(t.Context(), fakeCluster(t), Options{Run: []string{"Basic", "SpecChange"}, ConditionsTimeout: 500 * time.Millisecond,
		Started:  func(name string) { record("start " + name) },
		Progress: func(tr TestReport) { record("end " + tr.Name) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 4 || !strings.HasPrefix(events[0], "start ") || !strings.HasPrefix(events[1], "start ") {
		t.Errorf("events %q, want both tests started before either ended", events)
	}
}

// TestValidate_NamespacePrefixOfTheSelectedTests: a NamespacePrefix is
// judged by the namespace names of the tests the run selects: one too long
// for UnknownRequiredFeature's namespace is fine for a run of Basic alone.
func TestValidate_NamespacePrefixOfTheSelectedTests(t *testing.T) {
	prefix := strings.Repeat("a", 40) // 40 + len("-unknownrequiredfeature-") > 63
	if err := (Options{NamespacePrefix: prefix, Run: []string{"Basic"}}).Validate(); err != nil {
		t.Errorf("Basic alone: %v, want no error", err)
	}
	var oe *OptionError
	if err := (Options{NamespacePrefix: prefix}).Validate(); !errors.As(err, &oe) || oe.Field != "NamespacePrefix" {
		t.Errorf("every test: %v, want an error naming NamespacePrefix", err)
	}
}

// TestValidate_Fields: what else Validate refuses, and accepts: an
// address with a zone names no load-balancer address, an annotation key
// with capitals in its prefix is one the apiserver takes (it lower-cases
// them to check them), and a Run entry that names no test is CheckRun's
// error.
func TestValidate_Fields(t *testing.T) {
	var oe *OptionError
	if err := (Options{LoadBalancerIP: "fe80::1%eth0"}).Validate(); !errors.As(err, &oe) || oe.Field != "LoadBalancerIP" {
		t.Errorf("an address with a zone: %v, want an error naming LoadBalancerIP", err)
	}
	if err := (Options{RelevantAnnotations: []string{"Example.com/Key"}}).Validate(); err != nil {
		t.Errorf("an annotation key with capitals: %v, want no error", err)
	}
	if err := (Options{Run: []string{"Basic", "Nope"}}).Validate(); err == nil || !strings.Contains(err.Error(), `"Nope" names no test`) {
		t.Errorf("a Run entry naming no test: %v, want CheckRun's error", err)
	}
}

// TestRun_NotSelectedTestsAreReported: the tests a run leaves out are in
// its report all the same, by name and rules, as not run, and the run is
// no success; the test it ran names its namespace.
func TestRun_NotSelectedTestsAreReported(t *testing.T) {
	report, err := Run(t.Context(), fakeCluster(t), Options{Run: []string{"Basic"}, ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if basic := report.Test("Basic"); !strings.HasPrefix(basic.Namespace, Tests()[0].NamespaceGenerateName(DefaultNamespacePrefix)) {
		t.Errorf("Basic ran in namespace %q, want its own", basic.Namespace)
	}
	tests := Tests()
	if len(report.Tests) != len(tests) {
		t.Fatalf("%d tests in the report, want %d", len(report.Tests), len(tests))
	}
	for i, tr := range report.Tests[1:] {
		if want := tests[i+1]; tr.Name != want.Name || !slices.Equal(tr.Rules, want.Rules) || tr.Result != TestNotRun || !strings.Contains(tr.Reason, "not selected") {
			t.Errorf("report of %s: %+v, want notRun, not selected, with its rules", want.Name, tr)
		}
	}
	if report.Result != ResultFailure && report.Result != ResultPartial {
		t.Errorf("run %s, want no success", report.Result)
	}
}

// TestTests_RulesOfEachFeature: P3 (refuse or degrade) governs
// SessionAffinity, LoadBalancerIP and LoadBalancerSourceRanges, P4
// (degrade) the others; each Feature/<F> test names it.
func TestTests_RulesOfEachFeature(t *testing.T) {
	p3 := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureLoadBalancerIP, v1.LoadBalancerFeatureLoadBalancerSourceRanges}
	for _, test := range Tests() {
		if test.Feature == "" {
			continue
		}
		want := "P4"
		if slices.Contains(p3, test.Feature) {
			want = "P3"
		}
		if test.Rules[0] != want || test.Name != "Feature/"+string(test.Feature) {
			t.Errorf("%s: rules %v, want %s first", test.Name, test.Rules, want)
		}
	}
}
