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

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/suite"
)

func TestSuiteHTMLPath(t *testing.T) {
	for in, want := range map[string]string{"": "", "report.yaml": "report.html", "out/r.json": "out/r.html", "r": "r.html", "r.html": "r.html.html"} {
		if got := suiteHTMLPath(in); got != want {
			t.Errorf("suiteHTMLPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriteSuiteHTML: the page of a suite report has a row per test and
// per feature, a section per observed Service of every test with its last
// state in the lanes, and each test's findings pinned on its Service.
func TestWriteSuiteHTML(t *testing.T) {
	ltt := metav1.NewTime(time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC))
	ready := v1.ServiceStatus{Conditions: []metav1.Condition{
		{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue, Reason: "Serving", LastTransitionTime: ltt},
		{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionFalse, Reason: "Complete", LastTransitionTime: ltt},
	}}
	r := &suite.Report{
		Result: suite.ResultFailure, Date: "2026-05-04T12:00:00Z", LoadBalancerClass: "example.com/lb",
		KubernetesVersion: "v1.37.2", Implementation: suite.Implementation{Project: "ref-lb", Version: "v0.3.0"},
		Statistics: suite.Statistics{Passed: 1, Failed: 1},
		Features:   []suite.FeatureReport{{Name: v1.LoadBalancerFeaturePorts, Support: suite.SupportSupported, Evidence: "Feature/Ports"}},
		Tests: []suite.TestReport{
			{Name: "Lifecycle", Rules: []string{"L1"}, Result: suite.TestPassed, Namespace: "lbs-a",
				LastObserved: []suite.ObservedService{{Name: "web", ResourceVersion: "9", Status: ready}}},
			{Name: "SpecChange", Rules: []string{"L6"}, Result: suite.TestFailed, Reason: "L6 missed", Namespace: "lbs-b",
				LastObserved: []suite.ObservedService{{Name: "web", ResourceVersion: "12", Status: ready}},
				Findings: []conformance.Finding{{Rule: "L6", Severity: conformance.SeverityViolation, Message: "not acknowledged",
					Object: conformance.ObjectRef{Kind: "Service", Namespace: "lbs-b", Name: "web"}}}},
		},
	}
	data := suitePage(t, r)
	doc, err := html.Parse(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var cells, services, pins []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch {
				case a.Key == "data-service":
					services = append(services, a.Val)
				case a.Key == "data-rule" && n.Data == "g":
					pins = append(pins, a.Val)
				}
			}
			if n.Data == "td" && n.FirstChild != nil && n.FirstChild.Type == html.TextNode {
				cells = append(cells, n.FirstChild.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if strings.Join(services, " ") != "lbs-a/web lbs-b/web" || strings.Join(pins, " ") != "L6" {
		t.Errorf("services %v, pins %v", services, pins)
	}
	joined := strings.Join(cells, "|")
	for _, want := range []string{"project|ref-lb|version|v0.3.0|loadBalancerClass|example.com/lb|Kubernetes|v1.37.2",
		"SpecChange|L6|" + string(suite.TestFailed) + "|L6 missed|lbs-b", "Ports|Supported|Feature/Ports", "True/Serving"} {
		if !strings.Contains(joined, want) {
			t.Errorf("cells lack %q: %s", want, joined)
		}
	}
	if !strings.Contains(data, string(suite.ResultFailure)+" on 2026-05-04T12:00:00Z: 1 passed, 0 skipped, 1 failed, 0 not run") {
		t.Error("the run's result is missing")
	}
	if strings.Contains(data, "Read:") {
		t.Error("the page says it read the provider, as if it were an input")
	}
	if err := writeSuiteHTML(filepath.Join(t.TempDir(), "no", "such", "dir.html"), nil); err == nil {
		t.Error("writing into a missing directory returned nil")
	}
}

// suitePage writes r's HTML page to a temporary file and returns it.
func suitePage(t *testing.T, r *suite.Report) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := writeSuiteHTML(path, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// --render: the page of a report file kept from a run is the page the run
// wrote, with no cluster; what is not a report is exit 2 on one line that
// names the file.
func TestConformanceRender(t *testing.T) {
	ltt := metav1.NewTime(time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC))
	r := &suite.Report{APIVersion: suite.ReportAPIVersion, Kind: suite.ReportKind, Result: suite.ResultFailure, Date: "2026-05-04T12:00:00Z",
		Statistics: suite.Statistics{Failed: 1},
		Tests: []suite.TestReport{{Name: "SpecChange", Rules: []string{"L6"}, Result: suite.TestFailed, Reason: "L6 missed", Namespace: "lbs-b",
			LastObserved: []suite.ObservedService{{Name: "web", ResourceVersion: "12", Status: v1.ServiceStatus{Conditions: []metav1.Condition{
				{Type: string(v1.LoadBalancerConditionServing), Status: metav1.ConditionTrue, Reason: "Serving", LastTransitionTime: ltt}}}}},
			Findings: []conformance.Finding{{Rule: "L6", Severity: conformance.SeverityViolation, Message: "not acknowledged",
				Object: conformance.ObjectRef{Kind: "Service", Namespace: "lbs-b", Name: "web"}}}}},
	}
	want := suitePage(t, r)
	dir := t.TempDir()
	for _, format := range []suite.Format{suite.FormatYAML, suite.FormatJSON} {
		path := filepath.Join(dir, "report."+string(format))
		var buf bytes.Buffer
		if err := r.Write(&buf, format); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		if code := run([]string{"conformance", "--render", path, "--kubeconfig", "/nonexistent"}, nil, io.Discard, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", format, code, stderr.String())
		}
		got, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil || string(got) != want {
			t.Errorf("%s: the page rendered from the file (%v) is not the run's", format, err)
		}
		if !strings.Contains(stderr.String(), "report.html") {
			t.Errorf("%s: stderr %q does not say where the page went", format, stderr.String())
		}
	}

	svc := filepath.Join(dir, "svc.yaml")
	if err := os.WriteFile(svc, []byte("apiVersion: v1\nkind: Service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The parser's error for a key given twice spans two lines.
	twice := filepath.Join(dir, "twice.yaml")
	if err := os.WriteFile(twice, []byte("apiVersion: "+suite.ReportAPIVersion+"\nkind: "+suite.ReportKind+"\nresult: success\nresult: failure\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--render", filepath.Join(dir, "missing.yaml")}, "missing.yaml: no such file"},
		{[]string{"--render", svc}, "svc.yaml: not a report"},
		{[]string{"--render", twice}, `twice.yaml: not a report: yaml: unmarshal errors:\n  line 4: key \"result\"`},
		{[]string{"--render", svc, "--list"}, "--render takes neither"},
		{[]string{"--render", svc, "--report", filepath.Join(dir, "r.yaml")}, "--render takes neither"},
	} {
		var stderr bytes.Buffer
		code := run(append([]string{"conformance"}, tc.args...), nil, io.Discard, &stderr)
		if code != exitInput || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "svc.html")); err == nil {
		t.Error("a page was written for a file that is not a report")
	}

	// A file name is escaped, so that it cannot drive the terminal, in
	// what was written as in what is not a report.
	esc := filepath.Join(dir, "esc\x1b[31m")
	if err := os.Mkdir(esc, 0o755); err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	if err := r.Write(&report, suite.FormatYAML); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"report.yaml": report.Bytes(), "svc.yaml": []byte("apiVersion: v1\nkind: Service\n")} {
		path := filepath.Join(esc, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		run([]string{"conformance", "--render", path}, nil, io.Discard, &stderr)
		if strings.Contains(stderr.String(), "\x1b") || !strings.Contains(stderr.String(), `esc\x1b[31m`) {
			t.Errorf("%s in a folder whose name has an escape: %q, want the name escaped", name, stderr.String())
		}
	}

	// So it is where the file cannot be read or the page written.
	blocked := filepath.Join(dir, "blocked\x1b[31m")
	for _, d := range []string{blocked, filepath.Join(blocked, "report.html")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(blocked, "report.yaml"), report.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(esc, "missing.yaml"), filepath.Join(blocked, "report.yaml")} {
		var stderr bytes.Buffer
		if code := run([]string{"conformance", "--render", path}, nil, io.Discard, &stderr); code != exitInput || strings.Contains(stderr.String(), "\x1b") || !strings.Contains(stderr.String(), `\x1b[31m`) {
			t.Errorf("--render %q: exit %d, %q; want 2 and the name escaped", path, code, stderr.String())
		}
	}

	// Where the page cannot be written, the run says so and fails.
	kept := filepath.Join(dir, "kept")
	if err := os.Mkdir(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(kept, "report.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf, suite.FormatYAML); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, "report.yaml"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := run([]string{"conformance", "--render", filepath.Join(kept, "report.yaml")}, nil, io.Discard, &stderr)
	if code != exitInput || !strings.Contains(stderr.String(), "report.html") || strings.Count(stderr.String(), "\n") != 1 || strings.Contains(stderr.String(), "wrote") {
		t.Errorf("a page that cannot be written: exit %d, %q; want 2 and one line naming report.html", code, stderr.String())
	}
}

// --render r.yaml writes the page to r.html: where that is a link to
// r.yaml, or another name of it, the page replaced the report it was
// rendered from. It is refused on one line, the report left as it was.
func TestConformanceRender_ReplacesNotTheReport(t *testing.T) {
	var report bytes.Buffer
	if err := (&suite.Report{APIVersion: suite.ReportAPIVersion, Kind: suite.ReportKind, Result: suite.ResultSuccess}).Write(&report, suite.FormatYAML); err != nil {
		t.Fatal(err)
	}
	for _, link := range []func(string, string) error{os.Symlink, os.Link} {
		dir := t.TempDir()
		path := filepath.Join(dir, "r.yaml")
		if err := os.WriteFile(path, report.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := link(path, filepath.Join(dir, "r.html")); err != nil {
			t.Skip(err)
		}
		var stderr bytes.Buffer
		code := run([]string{"conformance", "--render", path}, nil, io.Discard, &stderr)
		if code != exitInput || !strings.Contains(stderr.String(), "r.html would replace the report itself") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("exit %d, stderr %q; want 2 and one line refusing the page", code, stderr.String())
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, report.Bytes()) {
			t.Errorf("the report became %q (%v)", got, err)
		}
	}
}
