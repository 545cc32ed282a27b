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

package integration

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/suite"
	"github.com/lbstatus/lbstatus/provider"
)

// The suite's deadlines in these tests. The provider answers within a
// second, so a passing run never waits for them (only ForeignClass's
// settling period is spent in full) and the whole suite runs in seconds;
// they are generous so that a machine busy with other work does not turn
// a slow answer into a failure.
const (
	suiteConditionsTimeout = 30 * time.Second
	suiteProvisionTimeout  = 60 * time.Second
	suiteSettlePeriod      = 2 * time.Second
	suiteProvisionDelay    = 300 * time.Millisecond
)

// fullCapabilities can do everything section 5 names, for Services of
// class.
func fullCapabilities(class string) conditions.Capabilities {
	return conditions.Capabilities{
		IPFamilies:               []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol},
		DualStack:                true,
		Protocols:                []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP},
		MixedProtocols:           true,
		WithoutNodePorts:         true,
		SessionAffinity:          true,
		LoadBalancerSourceRanges: true,
		LoadBalancerIP:           true,
		PreserveSourceIP:         true,
		Classes:                  []string{class},
		KnownFeatures:            v1.LoadBalancerFeatures(),
	}
}

// suiteClass is a loadBalancerClass of the test's own, so that the
// providers of tests running in parallel never meet.
func suiteClass(t *testing.T) string {
	return "lbstatus.github.io/" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
}

// runSuite runs the suite against the provider of class and writes its
// report to _out/<test name>.yaml, for a reader to open after the run.
func runSuite(t *testing.T, class string) *suite.Report {
	t.Helper()
	report, err := suite.Run(context.Background(), clientset(t, "lbstatus-conformance"), suite.Options{
		LoadBalancerClass: class,
		Implementation:    suite.Implementation{Organization: "lbstatus", Project: "reference-provider", Version: "integration"},
		ConditionsTimeout: suiteConditionsTimeout,
		ProvisionTimeout:  suiteProvisionTimeout,
		SettlePeriod:      suiteSettlePeriod,
	})
	if err != nil {
		t.Fatalf("suite: %v", err)
	}
	for _, tr := range report.Tests {
		if tr.Result != suite.TestNotRun && tr.Duration == "" {
			t.Errorf("%s: %s without a duration", tr.Name, tr.Result)
		}
		// Section 9: what a test made is gone after it, namespaces too.
		if tr.Cleanup != "" {
			t.Errorf("%s: cleanup: %s", tr.Name, tr.Cleanup)
		}
	}
	path := filepath.Join("_out", strings.ReplaceAll(t.Name(), "/", "_")+".yaml")
	if err := os.MkdirAll("_out", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := report.Write(f, suite.FormatYAML); err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %s (%s, %+v)", path, report.Result, report.Statistics)
	return report
}

// startSuiteProvider runs the reference provider until the test ends.
func startSuiteProvider(t *testing.T, caps conditions.Capabilities, bugs provider.Bugs) {
	t.Helper()
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), providerOptions(caps, bugs)))
}

// providerOptions are those of a provider of the suite tests. Providers of
// tests that run at once each have a field manager of their own: a
// provider clears what its field manager wrote on Services that are not
// its own, which must not touch another provider's conditions.
func providerOptions(caps conditions.Capabilities, bugs provider.Bugs) provider.Options {
	// Each provider has a pool of its own, as separate clusters would;
	// the suite's requested address is in it.
	pool, err := provider.NewPool("198.18.0.0/16", "fd00:1b::/112")
	if err != nil {
		panic(err) // constant CIDRs
	}
	return provider.Options{
		Pool:           pool,
		Capabilities:   caps,
		Workers:        4,
		ProvisionDelay: suiteProvisionDelay,
		Bugs:           bugs,
		FieldManager:   "provider-" + caps.Classes[0],
	}
}

// requirePassed fails t unless every test of report passed.
func requirePassed(t *testing.T, report *suite.Report) {
	t.Helper()
	for _, tr := range report.Tests {
		if tr.Result != suite.TestPassed {
			t.Errorf("%s: %s: %s", tr.Name, tr.Result, tr.Reason)
		}
	}
	if report.Result != suite.ResultSuccess {
		t.Errorf("result %s, want success", report.Result)
	}
}

// TestSuite_FullCapabilities: a provider that can do everything passes
// every test, and every feature is Supported.
func TestSuite_FullCapabilities(t *testing.T) {
	t.Parallel()
	class := suiteClass(t)
	startSuiteProvider(t, fullCapabilities(class), provider.Bugs{})
	report := runSuite(t, class)
	requirePassed(t, report)
	if len(report.Features) != len(v1.LoadBalancerFeatures()) {
		t.Errorf("features %v, want one per feature", report.Features)
	}
	for _, f := range report.Features {
		if f.Support != suite.SupportSupported {
			t.Errorf("feature %s: %s (%s), want Supported", f.Name, f.Support, f.Evidence)
		}
	}
	for _, tr := range report.Tests {
		if len(tr.LastObserved) == 0 && tr.Name != "ForeignClass" {
			t.Errorf("%s: no last observed status kept", tr.Name)
		}
	}
}

// TestSuite_RequiredFeatureProbeIsQuiet (section 9): on a server without
// the spec field, the suite's probe of whether the cluster keeps it draws
// no warning, which client-go would log, and features are then required
// through the annotation, as the report says.
func TestSuite_RequiredFeatureProbeIsQuiet(t *testing.T) {
	t.Parallel()
	class := suiteClass(t)
	startSuiteProvider(t, fullCapabilities(class), provider.Bugs{})
	client, heard := warningClient(t)
	report, err := suite.Run(context.Background(), client, suite.Options{
		LoadBalancerClass: class,
		Run:               []string{"Feature/SessionAffinity"},
		ConditionsTimeout: suiteConditionsTimeout,
		ProvisionTimeout:  suiteProvisionTimeout,
	})
	if err != nil {
		t.Fatalf("suite: %v", err)
	}
	for _, tr := range report.Tests {
		if tr.Result != suite.TestPassed && tr.Result != suite.TestNotRun {
			t.Errorf("%s: %s: %s", tr.Name, tr.Result, tr.Reason)
		}
	}
	if w := heard.take(); len(w) > 0 {
		t.Errorf("the run drew warnings: %q", w)
	}
	if report.RequiredFeaturesSource != conditions.RequiredFeaturesSourceAnnotation {
		t.Errorf("the report says features were required through %q, want Annotation", report.RequiredFeaturesSource)
	}
}

// TestSuite_CapabilityRemoved: each capability taken away in turn shows as
// the feature Degraded or Refused (section 9), and the run still succeeds.
func TestSuite_CapabilityRemoved(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		feature v1.LoadBalancerFeature
		want    suite.Support
		remove  func(*conditions.Capabilities)
	}{
		{"NoDualStack", v1.LoadBalancerFeatureIPFamilies, suite.SupportDegraded, func(c *conditions.Capabilities) { c.DualStack = false }},
		{"NoMixedProtocols", v1.LoadBalancerFeaturePorts, suite.SupportDegraded, func(c *conditions.Capabilities) { c.MixedProtocols = false }},
		{"NoSessionAffinity", v1.LoadBalancerFeatureSessionAffinity, suite.SupportDegraded, func(c *conditions.Capabilities) { c.SessionAffinity = false }},
		{"RefuseSessionAffinity", v1.LoadBalancerFeatureSessionAffinity, suite.SupportRefused, func(c *conditions.Capabilities) {
			c.SessionAffinity = false
			c.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
		}},
		{"NoLoadBalancerIP", v1.LoadBalancerFeatureLoadBalancerIP, suite.SupportDegraded, func(c *conditions.Capabilities) { c.LoadBalancerIP = false }},
		{"RefuseLoadBalancerIP", v1.LoadBalancerFeatureLoadBalancerIP, suite.SupportRefused, func(c *conditions.Capabilities) {
			c.LoadBalancerIP = false
			c.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureLoadBalancerIP}
		}},
		{"NoSourceRanges", v1.LoadBalancerFeatureLoadBalancerSourceRanges, suite.SupportDegraded, func(c *conditions.Capabilities) { c.LoadBalancerSourceRanges = false }},
		{"RefuseSourceRanges", v1.LoadBalancerFeatureLoadBalancerSourceRanges, suite.SupportRefused, func(c *conditions.Capabilities) {
			c.LoadBalancerSourceRanges = false
			c.RefuseUnsupported = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureLoadBalancerSourceRanges}
		}},
		{"NoSourceIPPreservation", v1.LoadBalancerFeatureExternalTrafficPolicy, suite.SupportDegraded, func(c *conditions.Capabilities) { c.PreserveSourceIP = false }},
		{"NoUDP", v1.LoadBalancerFeaturePorts, suite.SupportDegraded, func(c *conditions.Capabilities) {
			c.Protocols = []corev1.Protocol{corev1.ProtocolTCP}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			class := suiteClass(t)
			caps := fullCapabilities(class)
			tc.remove(&caps)
			startSuiteProvider(t, caps, provider.Bugs{})
			report := runSuite(t, class)
			requirePassed(t, report)
			for _, f := range report.Features {
				want := suite.SupportSupported
				if f.Name == tc.feature {
					want = tc.want
				}
				if f.Support != want {
					t.Errorf("feature %s: %s (%s), want %s", f.Name, f.Support, f.Evidence, want)
				}
			}
		})
	}
}

// injectedBug is one deliberate mistake of the provider, the suite test
// that owns it and the rule it breaks.
type injectedBug struct {
	name string
	bugs provider.Bugs
	test string
	rule string
}

// TestSuite_InjectedBug: each deliberate mistake of the provider fails the
// test that owns it, and the reason names the rule broken.
func TestSuite_InjectedBug(t *testing.T) {
	t.Parallel()
	for _, tc := range []injectedBug{
		{"SkipProvisioningBump", provider.Bugs{SkipProvisioningBump: true}, "SpecChange", "L6"},
		{"AcceptUnknownFeatures", provider.Bugs{AcceptUnknownFeatures: true}, "UnknownRequiredFeature", "R2"},
		{"KeepConditionsOnTypeChange", provider.Bugs{KeepConditionsOnTypeChange: true}, "TypeChange", "L9"},
		{"IgnoreLoadBalancerIP", provider.Bugs{IgnoreLoadBalancerIP: true}, "Feature/LoadBalancerIP", "P3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkInjectedBug(t, tc)
		})
	}
}

// TestSuite_InjectedBug_ClaimForeignClasses runs alone, not in parallel: a
// provider that claims foreign classes claims every Service of the shared
// foreign class in the cluster, so it would also break the ForeignClass
// test of every suite run beside it.
func TestSuite_InjectedBug_ClaimForeignClasses(t *testing.T) {
	checkInjectedBug(t, injectedBug{"ClaimForeignClasses", provider.Bugs{ClaimForeignClasses: true}, "ForeignClass", "P1"})
}

func checkInjectedBug(t *testing.T, tc injectedBug) {
	t.Helper()
	class := suiteClass(t)
	startSuiteProvider(t, fullCapabilities(class), tc.bugs)
	report := runSuite(t, class)
	tr := report.Test(tc.test)
	if tr == nil || tr.Result != suite.TestFailed {
		t.Fatalf("%s: %+v, want failed", tc.test, tr)
	}
	if !strings.Contains(tr.Reason, tc.rule) {
		t.Errorf("%s failed for %q, which does not name %s", tc.test, tr.Reason, tc.rule)
	}
	if report.Result != suite.ResultFailure {
		t.Errorf("result %s, want failure", report.Result)
	}
	for _, other := range report.Tests {
		if other.Name != tc.test && other.Result == suite.TestFailed {
			t.Errorf("%s failed too: %s", other.Name, other.Reason)
		}
	}
}

// TestSuite_ProviderRestarted: a provider killed and started again while
// the suite runs (its memory lost, its status writes kept) still passes.
func TestSuite_ProviderRestarted(t *testing.T) {
	t.Parallel()
	class := suiteClass(t)
	caps := fullCapabilities(class)
	stop := make(chan struct{})
	done := make(chan struct{})
	restarts := 0
	go func() {
		defer close(done)
		for {
			ctx, cancel := context.WithCancel(context.Background())
			ended := make(chan error, 1)
			p := provider.New(clientset(t, "lbstatus-reference-provider"), providerOptions(caps, provider.Bugs{}))
			go func() { ended <- p.Run(ctx) }()
			select {
			case <-stop:
				cancel()
				<-ended
				return
			case <-time.After(700 * time.Millisecond):
				// Kill it mid-run; the next one starts from the
				// cluster's state alone.
				cancel()
				if err := <-ended; err != nil {
					t.Errorf("provider: %v", err)
				}
				restarts++
			}
		}
	}()
	report := runSuite(t, class)
	close(stop)
	<-done
	if restarts < 2 {
		t.Errorf("the provider restarted %d times during the run, want at least 2", restarts)
	}
	requirePassed(t, report)
	if i := slices.IndexFunc(report.Features, func(f suite.FeatureReport) bool { return f.Support != suite.SupportSupported }); i >= 0 {
		t.Errorf("feature %+v, want Supported", report.Features[i])
	}
}
