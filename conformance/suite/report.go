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
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
)

// SpecVersion is the version of the rules (the project's restatement of
// KEP-4631, sections 1 to 9) that this suite checks; reports carry it so a
// reader knows which rules a result speaks of.
const SpecVersion = "v1alpha1-2026-11"

// ReportAPIVersion and ReportKind identify a Report on the wire.
const (
	ReportAPIVersion = "lbstatus.github.io/v1alpha1"
	ReportKind       = "ConformanceReport"
)

// Result is the outcome of a whole run.
type Result string

const (
	// ResultSuccess: every test ran and passed.
	ResultSuccess Result = "success"
	// ResultPartial: no test failed, but some were skipped or not run.
	ResultPartial Result = "partial"
	// ResultFailure: at least one test failed.
	ResultFailure Result = "failure"
)

// TestResult is the outcome of one test.
type TestResult string

const (
	// TestPassed: the provider did what the test's rules require.
	TestPassed TestResult = "passed"
	// TestSkipped: the test could not exercise the provider (a refusal of
	// its Service, a cluster or a declaration that rules it out); Reason
	// says why.
	TestSkipped TestResult = "skipped"
	// TestFailed: the provider broke a rule or missed a deadline; Reason
	// names the rule.
	TestFailed TestResult = "failed"
	// TestNotRun: the run was limited to other tests. Never counted as
	// passed.
	TestNotRun TestResult = "notRun"
)

// Support is what the tests showed of a feature (section 9).
type Support string

const (
	// SupportSupported: served, not degraded, when required.
	SupportSupported Support = "Supported"
	// SupportDegraded: served degraded (or served) when not required,
	// refused when required.
	SupportDegraded Support = "Degraded"
	// SupportRefused: refused even when not required.
	SupportRefused Support = "Refused"
	// SupportUntested: its test was skipped, failed or not run; Evidence
	// says why. A feature is never claimed on a test that did not pass.
	SupportUntested Support = "Untested"
)

// Implementation names the provider under test, as the Gateway API
// conformance report does.
type Implementation struct {
	Organization string   `json:"organization,omitempty"`
	Project      string   `json:"project,omitempty"`
	URL          string   `json:"url,omitempty"`
	Version      string   `json:"version,omitempty"`
	Contact      []string `json:"contact,omitempty"`
}

// Statistics counts the tests by result.
type Statistics struct {
	Passed  int `json:"passed"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	NotRun  int `json:"notRun,omitempty"`
}

// FeatureReport is the support of one feature and the test that showed it.
type FeatureReport struct {
	Name    v1.LoadBalancerFeature `json:"name"`
	Support Support                `json:"support"`
	// Evidence names the test, and for Untested says why.
	Evidence string `json:"evidence"`
}

// ObservedService is the last state of one of a test's Services the suite
// saw, kept before cleanup.
type ObservedService struct {
	Name            string `json:"name"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Type is the Service's spec.type then: a Service that stopped being
	// a LoadBalancer (TypeChange) owes no conditions.
	Type corev1.ServiceType `json:"type,omitempty"`
	// Deleted says the last observation was the Service's deletion.
	Deleted bool             `json:"deleted,omitempty"`
	Status  v1.ServiceStatus `json:"status"`
}

// TestReport is the outcome of one test.
type TestReport struct {
	Name   string     `json:"name"`
	Rules  []string   `json:"rules"`
	Result TestResult `json:"result"`
	// Reason says, in one line, why the test was skipped or failed.
	Reason string `json:"reason,omitempty"`
	// Namespace is where the test's Services lived.
	Namespace string `json:"namespace,omitempty"`
	// Duration is how long the test took, in Go's duration syntax.
	Duration string `json:"duration,omitempty"`
	// Cleanup says, in one line, what the test's cleanup could not
	// delete and why: its namespace, and Services with their load
	// balancers, left on the cluster, also when the namespace was
	// deleted but was still there at the end of the run (a finalizer
	// holds it). Empty when nothing was left.
	Cleanup string `json:"cleanup,omitempty"`
	// Findings are the checker's findings (section 8) on the test's
	// Services; any violation fails the test.
	Findings []conformance.Finding `json:"findings,omitempty"`
	// LastObserved holds each Service's last observed state.
	LastObserved []ObservedService `json:"lastObserved,omitempty"`
}

// Report is the outcome of a run, modelled on the Gateway API conformance
// report.
type Report struct {
	APIVersion        string         `json:"apiVersion"`
	Kind              string         `json:"kind"`
	Date              string         `json:"date"`
	SpecVersion       string         `json:"specVersion"`
	KubernetesVersion string         `json:"kubernetesVersion,omitempty"`
	Implementation    Implementation `json:"implementation"`
	LoadBalancerClass string         `json:"loadBalancerClass"`
	// RequiredFeaturesSource says how the tests required a feature:
	// Spec, through spec.requiredLoadBalancerFeatures, where the cluster
	// keeps the field; else Annotation. UnknownRequiredFeature uses the
	// annotation where the cluster refuses its value in the field (R4).
	// Empty when no test required a feature.
	RequiredFeaturesSource conditions.RequiredFeaturesSource `json:"requiredFeaturesSource,omitempty"`
	Result                 Result                            `json:"result"`
	Statistics             Statistics                        `json:"statistics"`
	Features               []FeatureReport                   `json:"features"`
	Tests                  []TestReport                      `json:"tests"`
}

// Test returns the report of the test named name, or nil (also on a nil
// Report).
func (r *Report) Test(name string) *TestReport {
	if r == nil {
		return nil
	}
	for i := range r.Tests {
		if r.Tests[i].Name == name {
			return &r.Tests[i]
		}
	}
	return nil
}

// Feature returns the report of feature f, or nil (also on a nil Report).
func (r *Report) Feature(f v1.LoadBalancerFeature) *FeatureReport {
	if r == nil {
		return nil
	}
	for i := range r.Features {
		if r.Features[i].Name == f {
			return &r.Features[i]
		}
	}
	return nil
}

// summarize fills Statistics and Result from Tests.
func (r *Report) summarize() {
	r.Statistics = Statistics{}
	for _, t := range r.Tests {
		switch t.Result {
		case TestPassed:
			r.Statistics.Passed++
		case TestSkipped:
			r.Statistics.Skipped++
		case TestFailed:
			r.Statistics.Failed++
		default:
			r.Statistics.NotRun++
		}
	}
	switch {
	case r.Statistics.Failed > 0:
		r.Result = ResultFailure
	case r.Statistics.Skipped > 0 || r.Statistics.NotRun > 0 || r.Statistics.Passed == 0:
		// A run that passed nothing, or left tests out, claims nothing
		// about them: never a success.
		r.Result = ResultPartial
	default:
		r.Result = ResultSuccess
	}
}

// Format is an output format of a Report.
type Format string

const (
	// FormatYAML: block-style YAML in the report's field order.
	FormatYAML Format = "yaml"
	// FormatJSON: indented JSON.
	FormatJSON Format = "json"
)

// Write writes r to w in format f (YAML or JSON, indented). An unknown
// format is an error; a nil Report writes null.
func (r *Report) Write(w io.Writer, f Format) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	switch f {
	case FormatJSON:
		data = append(escapeText(data, false), '\n')
	case FormatYAML:
		if data, err = orderedYAML(escapeText(data, false)); err != nil {
			return fmt.Errorf("encoding the report as YAML: %w", err)
		}
		data = escapeText(data, true)
	default:
		return fmt.Errorf("unknown report format %q: want yaml or json", f)
	}
	_, err = w.Write(data)
	return err
}

// escapeText returns data, JSON or YAML, with every rune that is not
// graphic, besides line breaks and spaces, written as an escape:
// encoding/json and the YAML encoder leave DEL, C1 controls and format
// characters such as U+202E in strings as they are. A report's strings
// quote what a provider wrote: raw, they would drive the terminal of
// whoever prints the report, and the YAML parser refuses DEL and C1
// controls, which failed the YAML report of a whole run. Only strings hold
// such runes (double-quoted ones in YAML: see orderedYAML), and they read
// back as they were. Past the first plane, YAML takes \U; JSON keeps those
// runes (tag characters, private use), since the YAML parser that reads
// both refuses the surrogate pairs JSON would need.
func escapeText(data []byte, yamlText bool) []byte {
	var out []byte
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		keep := r == '\n' || r == ' ' || strconv.IsGraphic(r) || (!yamlText && r > 0xffff)
		if out == nil && !keep {
			out = append([]byte(nil), data[:i]...)
		}
		switch {
		case out == nil:
		case keep:
			out = append(out, data[i:i+n]...)
		case r > 0xffff:
			out = fmt.Appendf(out, `\U%08x`, r)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	if out == nil {
		return data
	}
	return out
}

// ReadReport reads a Report that Write wrote, in YAML or JSON, such as a
// run's report kept by CI, to render it again. A document that is not a
// Report of this apiVersion and kind, or that holds a key twice, is an
// error; members it does not know are ignored, as a later version may add
// some.
func ReadReport(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if data, err = sigsyaml.YAMLToJSONStrict(data); err != nil {
		return nil, fmt.Errorf("not a report: %w", err)
	}
	var report Report
	if err := json.Unmarshal(data, &report); err != nil {
		return nil, fmt.Errorf("not a report: %w", err)
	}
	if report.APIVersion != ReportAPIVersion || report.Kind != ReportKind {
		return nil, fmt.Errorf("not a report: apiVersion %q and kind %q, want %s and %s", report.APIVersion, report.Kind, ReportAPIVersion, ReportKind)
	}
	switch report.Result {
	case ResultSuccess, ResultPartial, ResultFailure:
	default:
		// Every run ends in one of them: without it there is no run to
		// show, and a page would say " on : 0 passed".
		return nil, fmt.Errorf("not a report: result %q, want %s, %s or %s", report.Result, ResultSuccess, ResultPartial, ResultFailure)
	}
	return &report, nil
}

// orderedYAML turns JSON into block-style YAML that keeps the members in
// the order of the JSON (the report's field order: apiVersion and kind
// first, tests last), where a map-based conversion would sort them.
func orderedYAML(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		// Plain style everywhere: the encoder still quotes a string
		// that would read back as another type ("true", "0"). A
		// string to escape is double-quoted, where escapes are read.
		n.Style = 0
		if n.Kind == yaml.ScalarNode && strings.ContainsFunc(n.Value, func(r rune) bool { return r != ' ' && !strconv.IsGraphic(r) }) {
			n.Style = yaml.DoubleQuotedStyle
		}
		for _, c := range n.Content {
			block(c)
		}
	}
	block(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
