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
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
)

func TestSupport_Section9(t *testing.T) {
	feature := Test{Name: "Feature/SessionAffinity", Feature: v1.LoadBalancerFeatureSessionAffinity}
	passed := TestReport{Result: TestPassed}
	for _, tc := range []struct {
		name string
		rep  TestReport
		out  outcome
		want Support
	}{
		{"served when required", passed, outcome{asked: servedPlain, required: servedPlain}, SupportSupported},
		{"degraded when asked, refused when required", passed, outcome{asked: servedDegraded, required: servedRefused}, SupportDegraded},
		{"served when asked, refused when required", passed, outcome{asked: servedPlain, required: servedRefused}, SupportDegraded},
		{"refused even when asked", passed, outcome{asked: servedRefused, required: servedRefused}, SupportRefused},
		{"refused when asked, required half not run", passed, outcome{asked: servedRefused, requiredSkipped: "no annotation"}, SupportRefused},
		{"served when asked, required half not run", passed, outcome{asked: servedPlain, requiredSkipped: "no annotation"}, SupportUntested},
		{"skipped test claims nothing", TestReport{Result: TestSkipped, Reason: "no dual-stack"}, outcome{}, SupportUntested},
		{"failed test claims nothing", TestReport{Result: TestFailed, Reason: "L6"}, outcome{asked: servedPlain, required: servedPlain}, SupportUntested},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := support(feature, tc.rep, tc.out)
			if got.Support != tc.want || got.Name != feature.Feature || !strings.Contains(got.Evidence, feature.Name) {
				t.Errorf("support = %+v, want %s with evidence naming %s", got, tc.want, feature.Name)
			}
			if tc.want == SupportUntested && tc.rep.Reason != "" && !strings.Contains(got.Evidence, tc.rep.Reason) {
				t.Errorf("evidence %q does not say why (%q)", got.Evidence, tc.rep.Reason)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name    string
		results []TestResult
		want    Result
	}{
		{"all passed", []TestResult{TestPassed, TestPassed}, ResultSuccess},
		{"a skip", []TestResult{TestPassed, TestSkipped}, ResultPartial},
		{"not run is never passed", []TestResult{TestPassed, TestNotRun}, ResultPartial},
		{"nothing passed", []TestResult{TestNotRun}, ResultPartial},
		{"a failure wins", []TestResult{TestPassed, TestSkipped, TestFailed}, ResultFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{}
			for _, res := range tc.results {
				r.Tests = append(r.Tests, TestReport{Result: res})
			}
			r.summarize()
			if r.Result != tc.want {
				t.Errorf("result %s, want %s", r.Result, tc.want)
			}
			s := r.Statistics
			if s.Passed+s.Skipped+s.Failed+s.NotRun != len(tc.results) {
				t.Errorf("statistics %+v do not count %d tests", s, len(tc.results))
			}
		})
	}
}

func TestSelected(t *testing.T) {
	all := Options{}
	if !all.Selects("Recreate") {
		t.Error("an empty Run must select every test")
	}
	o := Options{Run: []string{"Basic", "Feature/"}}
	for name, want := range map[string]bool{"Basic": true, "Feature/Ports": true, "SpecChange": false, "Basic2": false} {
		if got := o.Selects(name); got != want {
			t.Errorf("Selects(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRun_NilClient(t *testing.T) {
	if _, err := Run(t.Context(), nil, Options{}); err == nil {
		t.Error("Run with a nil client: no error")
	}
}

// TestRun_DurationReported: each test run reports how long it took, even one
// that fails at once (here, creating its namespace).
func TestRun_DurationReported(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("create", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("namespaces are not allowed here")
	})
	report, err := Run(t.Context(), client, Options{Run: []string{"Basic"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range report.Tests {
		if tr.Name != "Basic" {
			continue
		}
		if tr.Result != TestFailed || tr.Duration == "" {
			t.Errorf("Basic: result %q, duration %q; want failed, with a duration", tr.Result, tr.Duration)
		}
		if _, err := time.ParseDuration(tr.Duration); err != nil {
			t.Errorf("duration %q: %v", tr.Duration, err)
		}
		return
	}
	t.Errorf("no Basic in the report: %+v", report.Tests)
}

// Tests start in the order listed, one at a time with a parallelism of
// one: they used to race for the slots, in an order of chance.
func TestRun_TestsStartInOrder(t *testing.T) {
	var mu sync.Mutex
	var started []string
	client := fake.NewClientset()
	client.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		started = append(started, a.(k8stesting.CreateAction).GetObject().(*corev1.Namespace).Labels["lbstatus.github.io/conformance-test"])
		return true, nil, errors.New("namespaces are not allowed here")
	})
	if _, err := Run(t.Context(), client, Options{Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, test := range Tests() {
		want = append(want, slug(test.Name))
	}
	if !slices.Equal(started, want) {
		t.Errorf("tests started in the order %v, want %v", started, want)
	}
}

func TestTests_NamesAndRules(t *testing.T) {
	want := []string{"Basic", "Feature/IPFamilies", "Feature/Ports", "Feature/SessionAffinity", "Feature/LoadBalancerIP",
		"Feature/ExternalTrafficPolicy", "Feature/LoadBalancerSourceRanges", "UnknownRequiredFeature", "SpecChange",
		"ForeignClass", "TypeChange", "Recreate"}
	tests := Tests()
	if len(tests) != len(want) {
		t.Fatalf("%d tests, want %d", len(tests), len(want))
	}
	for i, tc := range tests {
		if tc.Name != want[i] || len(tc.Rules) == 0 || tc.run == nil {
			t.Errorf("test %d: %q with rules %v, want %q with rules and a body", i, tc.Name, tc.Rules, want[i])
		}
	}
}

func TestReportWrite(t *testing.T) {
	r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, SpecVersion: SpecVersion,
		Tests: []TestReport{{Name: "Basic", Rules: []string{"L1"}, Result: TestSkipped, Reason: "refused"}}}
	r.summarize()
	for _, f := range []Format{FormatYAML, FormatJSON} {
		var buf bytes.Buffer
		if err := r.Write(&buf, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		data := buf.Bytes()
		if f == FormatYAML {
			var err error
			if data, err = yaml.YAMLToJSON(data); err != nil {
				t.Fatalf("the YAML report does not read back: %v", err)
			}
		}
		var back Report
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: the report does not read back: %v", f, err)
		}
		if back.Kind != ReportKind || back.SpecVersion != SpecVersion || back.Result != ResultPartial ||
			back.Statistics.Skipped != 1 || back.Test("Basic") == nil || back.Test("Basic").Reason != "refused" {
			t.Errorf("%s: read back %+v", f, back)
		}
	}
	if err := r.Write(&bytes.Buffer{}, "xml"); err == nil {
		t.Error("an unknown format: no error")
	}
}

func TestReportWrite_YAMLKeepsFieldOrder(t *testing.T) {
	r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, SpecVersion: SpecVersion,
		Tests: []TestReport{{Name: "Basic", Rules: []string{"L1"}, Result: TestPassed}},
		// Strings that would read back as other types stay strings.
		Implementation: Implementation{Version: "1.0", Project: "true"}}
	r.summarize()
	var buf bytes.Buffer
	if err := r.Write(&buf, FormatYAML); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "apiVersion: "+ReportAPIVersion+"\nkind: "+ReportKind+"\n") {
		t.Errorf("the YAML report does not start with apiVersion and kind:\n%s", out)
	}
	if strings.Index(out, "\nresult:") > strings.Index(out, "\ntests:") || !strings.Contains(out, "\ntests:\n  - name: Basic\n") {
		t.Errorf("the YAML report is out of order or in flow style:\n%s", out)
	}
	data, err := yaml.YAMLToJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil || back.Implementation.Version != "1.0" || back.Implementation.Project != "true" {
		t.Errorf("read back %+v, %v; want %+v", back.Implementation, err, r.Implementation)
	}
}

// TestSupport_Section9_UntestedSaysWhy: a feature whose required half did
// not run is Untested, and its evidence says why.
func TestSupport_Section9_UntestedSaysWhy(t *testing.T) {
	feature := Test{Name: "Feature/Ports", Feature: v1.LoadBalancerFeaturePorts}
	got := support(feature, TestReport{Result: TestPassed}, outcome{asked: servedDegraded, requiredSkipped: "no required features"})
	if got.Support != SupportUntested || got.Evidence != "Feature/Ports: no required features" {
		t.Errorf("support = %+v, want Untested with evidence %q", got, "Feature/Ports: no required features")
	}
}

// TestSummarize_CountsEachResult: each result has its own count in the
// statistics.
func TestSummarize_CountsEachResult(t *testing.T) {
	r := &Report{}
	for _, res := range []TestResult{TestPassed, TestSkipped, TestSkipped, TestNotRun, TestNotRun, TestNotRun} {
		r.Tests = append(r.Tests, TestReport{Result: res})
	}
	r.summarize()
	if want := (Statistics{Passed: 1, Skipped: 2, NotRun: 3}); r.Statistics != want {
		t.Errorf("statistics %+v, want %+v", r.Statistics, want)
	}
}

// TestReport_Lookups: Test and Feature find by name, nil when absent and
// on a nil Report.
func TestReport_Lookups(t *testing.T) {
	r := &Report{
		Tests:    []TestReport{{Name: "Basic"}, {Name: "Recreate"}},
		Features: []FeatureReport{{Name: v1.LoadBalancerFeaturePorts}, {Name: v1.LoadBalancerFeatureSessionAffinity, Support: SupportDegraded}},
	}
	if got := r.Test("Recreate"); got == nil || got.Name != "Recreate" {
		t.Errorf("Test(Recreate) = %+v", got)
	}
	if got := r.Feature(v1.LoadBalancerFeatureSessionAffinity); got == nil || got.Support != SupportDegraded {
		t.Errorf("Feature(SessionAffinity) = %+v", got)
	}
	if r.Test("Nope") != nil || r.Test("Recr") != nil || r.Feature(v1.LoadBalancerFeatureIPFamilies) != nil {
		t.Error("a missing test or feature found")
	}
	var none *Report
	if none.Test("Basic") != nil || none.Feature(v1.LoadBalancerFeaturePorts) != nil {
		t.Error("a nil Report found something")
	}
}

// TestReportWrite_JSONEndsWithNewline: the JSON report is a text file,
// ending with a newline like the YAML one.
func TestReportWrite_JSONEndsWithNewline(t *testing.T) {
	for _, f := range []Format{FormatJSON, FormatYAML} {
		var buf bytes.Buffer
		if err := (&Report{Kind: ReportKind}).Write(&buf, f); err != nil {
			t.Fatal(err)
		}
		if out := buf.String(); !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
			t.Errorf("%s report does not end with one newline: %q", f, out[max(len(out)-20, 0):])
		}
	}
}

// A report read back, from YAML or JSON, is the report written: the page
// rendered from a report file is the run's own.
func TestReadReport_ReadsWhatWriteWrote(t *testing.T) {
	ltt := metav1.NewTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, Date: "2026-11-30T12:00:00Z", SpecVersion: SpecVersion,
		KubernetesVersion: "v1.37.0", LoadBalancerClass: "example.com/lb",
		Implementation: Implementation{Organization: "Example", Project: "lb", Contact: []string{"@a", "@b"}},
		Features:       []FeatureReport{{Name: v1.LoadBalancerFeatureSessionAffinity, Support: SupportDegraded, Evidence: "Feature/SessionAffinity"}},
		Tests: []TestReport{{Name: "Basic", Rules: []string{"L1", "L2"}, Result: TestFailed, Reason: "L1", Namespace: "ns-1", Duration: "3s",
			Findings: []conformance.Finding{{Rule: "L1", Severity: conformance.SeverityViolation, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns-1", Name: "web", ResourceVersion: "7"},
				Field: "status.conditions", Message: "only one", Position: &conformance.Position{Source: "watch", Offset: -1},
				Verdict: &conformance.Verdict{Result: conditions.ResultFail, Rule: "T4", Reason: "refused"}}},
			LastObserved: []ObservedService{{Name: "web", UID: "u", ResourceVersion: "7", Type: corev1.ServiceTypeLoadBalancer, Deleted: true,
				Status: v1.ServiceStatus{Conditions: []metav1.Condition{{Type: "LoadBalancerServing", Status: metav1.ConditionFalse, Reason: "Provisioning", LastTransitionTime: ltt}}}}},
		}},
	}
	r.summarize()
	for _, f := range []Format{FormatYAML, FormatJSON} {
		var buf bytes.Buffer
		if err := r.Write(&buf, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := ReadReport(&buf)
		if err != nil {
			t.Fatalf("%s: ReadReport: %v", f, err)
		}
		if !apiequality.Semantic.DeepEqual(r, back) {
			t.Errorf("%s: read back\n%+v\nwant\n%+v", f, back, r)
		}
	}
}

func TestReadReport_RefusesWhatIsNotOne(t *testing.T) {
	for name, in := range map[string]string{
		"another kind":                    "apiVersion: v1\nkind: Service\n",
		"no kind":                         "tests: []\n",
		"a key twice":                     "apiVersion: " + ReportAPIVersion + "\nkind: " + ReportKind + "\nresult: success\nresult: failure\n",
		"a wrong type":                    "apiVersion: " + ReportAPIVersion + "\nkind: " + ReportKind + "\ntests: 5\n",
		"not YAML":                        "{[",
		"an empty input":                  "",
		"another kind of this apiVersion": "apiVersion: " + ReportAPIVersion + "\nkind: Service\n",
		"another kind, with a result":     "apiVersion: " + ReportAPIVersion + "\nkind: Service\nresult: success\n",
		"another apiVersion":              "apiVersion: lbstatus.github.io/v2\nkind: " + ReportKind + "\n",
		"no result":                       "apiVersion: " + ReportAPIVersion + "\nkind: " + ReportKind + "\n",
		"a result no run ends in":         "apiVersion: " + ReportAPIVersion + "\nkind: " + ReportKind + "\nresult: done\n",
	} {
		if r, err := ReadReport(strings.NewReader(in)); err == nil || !strings.HasPrefix(err.Error(), "not a report") {
			t.Errorf("%s: %+v, %v; want a \"not a report\" error", name, r, err)
		}
	}
	r, err := ReadReport(strings.NewReader("apiVersion: " + ReportAPIVersion + "\nkind: " + ReportKind + "\nresult: success\nfromALaterVersion: 1\n"))
	if err != nil || r.Result != ResultSuccess {
		t.Errorf("a member it does not know: %+v, %v; want it ignored", r, err)
	}
}

// The key given twice is named, so that whoever edited the file can find
// it.
func TestReadReport_NamesTheKeyGivenTwice(t *testing.T) {
	_, err := ReadReport(strings.NewReader("apiVersion: " + ReportAPIVersion + "\nkind: " + ReportKind + "\nresult: success\nresult: failure\n"))
	if err == nil || !strings.Contains(err.Error(), `"result"`) {
		t.Errorf("got %v, want an error naming \"result\"", err)
	}
}

// A read that fails partway is an error, even when what came before it is
// a report: the rest of the report is missing.
func TestReadReport_ReadError(t *testing.T) {
	broken := errors.New("connection reset")
	in := io.MultiReader(strings.NewReader("apiVersion: "+ReportAPIVersion+"\nkind: "+ReportKind+"\nresult: success\n"), iotest.ErrReader(broken))
	if r, err := ReadReport(in); !errors.Is(err, broken) {
		t.Errorf("got %+v, %v; want the read's error", r, err)
	}
}

// TestReportWrite_RequiredFeaturesSource: the report says, under
// requiredFeaturesSource, how the tests required features, and leaves the
// key out when no test required one; the value reads back.
func TestReportWrite_RequiredFeaturesSource(t *testing.T) {
	for _, source := range []conditions.RequiredFeaturesSource{conditions.RequiredFeaturesSourceSpec, conditions.RequiredFeaturesSourceNone} {
		r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, SpecVersion: SpecVersion, Result: ResultSuccess, RequiredFeaturesSource: source}
		var buf bytes.Buffer
		if err := r.Write(&buf, FormatJSON); err != nil {
			t.Fatal(err)
		}
		var keys map[string]any
		if err := json.Unmarshal(buf.Bytes(), &keys); err != nil {
			t.Fatal(err)
		}
		got, has := keys["requiredFeaturesSource"]
		if source == conditions.RequiredFeaturesSourceNone && has || source != conditions.RequiredFeaturesSourceNone && got != string(source) {
			t.Errorf("source %q: requiredFeaturesSource %v (present %v) in %s", source, got, has, buf.String())
		}
		back, err := ReadReport(&buf)
		if err != nil || back.RequiredFeaturesSource != source {
			t.Errorf("source %q: read back %+v, %v", source, back, err)
		}
	}
}

// A report quotes what a provider wrote, which may hold any character: a
// DEL or a C1 control in a condition's message failed the YAML report of
// the whole run, and in either format escape sequences and U+202E reached
// the terminal of whoever printed it. Both formats now carry them as
// escapes (JSON those past the first plane excepted), and read back to the
// same strings.
func TestReportWrite_ControlCharacters(t *testing.T) {
	const bad = "a\x1b[2J\x7f\u009b\u202e\U000e0001\u00a0b"
	r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, Result: ResultFailure,
		Tests: []TestReport{{Name: "Basic", Result: TestFailed, Reason: bad,
			LastObserved: []ObservedService{{Name: "web", Status: v1.ServiceStatus{Conditions: []metav1.Condition{
				{Type: "LoadBalancerServing", Status: metav1.ConditionFalse, Reason: "Provisioning", Message: bad}}}}}}}}
	for _, f := range []Format{FormatYAML, FormatJSON} {
		var buf bytes.Buffer
		if err := r.Write(&buf, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if i := strings.IndexFunc(buf.String(), func(r rune) bool {
			return r != '\n' && r != ' ' && !strconv.IsGraphic(r) && (f == FormatYAML || r <= 0xffff)
		}); i >= 0 {
			t.Errorf("%s: a raw %q in the report:\n%s", f, []rune(buf.String()[i:])[0], buf.String())
		}
		back, err := ReadReport(&buf)
		if err != nil {
			t.Fatalf("%s: ReadReport: %v", f, err)
		}
		if back.Tests[0].Reason != bad || back.Tests[0].LastObserved[0].Status.Conditions[0].Message != bad {
			t.Errorf("%s: read back %q and %q, want %q", f, back.Tests[0].Reason, back.Tests[0].LastObserved[0].Status.Conditions[0].Message, bad)
		}
	}
}

// TestSummarize_Again: summarizing a report again counts each test once,
// and a report of no test at all is no success.
func TestSummarize_Again(t *testing.T) {
	r := &Report{Tests: []TestReport{{Result: TestPassed}, {Result: TestFailed}}}
	r.summarize()
	r.summarize()
	if want := (Statistics{Passed: 1, Failed: 1}); r.Statistics != want {
		t.Errorf("statistics %+v, want %+v", r.Statistics, want)
	}
	empty := &Report{}
	if empty.summarize(); empty.Result != ResultPartial {
		t.Errorf("a report of no test: %s, want partial", empty.Result)
	}
}

// TestReportWrite_JSONIsJSON: the JSON report is JSON for any reader, also
// when a string holds a rune past the first plane, which YAML alone could
// read as an escape.
func TestReportWrite_JSONIsJSON(t *testing.T) {
	const tag = "a\U000e0001b"
	r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, Result: ResultFailure, Tests: []TestReport{{Name: "Basic", Result: TestFailed, Reason: tag}}}
	var buf bytes.Buffer
	if err := r.Write(&buf, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Tests[0].Reason != tag {
		t.Errorf("read back %+v, %v; want the reason %q:\n%s", back.Tests, err, tag, buf.String())
	}
}
