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
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lbstatus/lbstatus/conformance"
)

// reporter renders the results of check.
type reporter interface {
	// collectorOptions says what the Collector keeps for the reporter.
	collectorOptions() []conformance.CollectorOption
	// findings is called with each batch of findings, as they are made.
	findings([]conformance.Finding)
	// inputError is called with each input problem (already on stderr).
	inputError(error)
	// input is called at the end of each input with its report.
	input(name string, r conformance.Report)
	// finish is called once, at the end, with the totals.
	finish(total conformance.Summary, inputs int)
}

// displayName names an input for people.
func displayName(name string) string {
	if name == "-" {
		return "(standard input)"
	}
	return name
}

// textReporter prints, per input, a table of its Services and their
// findings, then a summary.
type textReporter struct {
	w           io.Writer
	maxFindings int
	verbose     bool
}

func newTextReporter(w io.Writer, maxFindings int, verbose bool) *textReporter {
	return &textReporter{w: w, maxFindings: maxFindings, verbose: verbose}
}

func (t *textReporter) collectorOptions() []conformance.CollectorOption {
	if t.maxFindings < 0 {
		return nil
	}
	// Verdict notices are kept too but not all listed; keep room for them.
	return []conformance.CollectorOption{conformance.KeepFindings(t.maxFindings + 8)}
}

func (t *textReporter) findings([]conformance.Finding) {}
func (t *textReporter) inputError(error)               {}

func (t *textReporter) input(name string, r conformance.Report) {
	s := &r.Summary
	fmt.Fprintf(t.w, "%s: %s of %s", displayName(name), plural(s.Observations, "observation"), plural(s.Services, "Service"))
	if s.Skipped > 0 {
		fmt.Fprintf(t.w, ", %s skipped", plural(s.Skipped, "other object"))
	}
	if s.InputErrors > 0 {
		fmt.Fprintf(t.w, ", %s", plural(s.InputErrors, "input error"))
	}
	fmt.Fprintln(t.w)
	if len(r.Services) > 0 {
		tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  SERVICE\tTYPE\tPROVISIONING\tSERVING\tDEGRADED\tINGRESS\tVERDICT\tCHECK")
		for _, sr := range r.Services {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", serviceName(sr), sr.Type,
				condColumn(sr, "LoadBalancerProvisioning"), condColumn(sr, "LoadBalancerServing"), degradedColumn(sr),
				ingressColumn(sr), verdictColumn(sr), checkColumn(sr.Counts))
		}
		tw.Flush()
	}
	for _, sr := range r.Services {
		var lines []string
		for _, f := range sr.Findings {
			if t.listed(f) {
				lines = append(lines, "      "+findingLine(f, false))
			}
		}
		if len(lines) > t.maxFindings && t.maxFindings >= 0 {
			lines = lines[:t.maxFindings]
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(t.w, "\n    %s\n", serviceName(sr))
		for _, l := range lines {
			fmt.Fprintln(t.w, l)
		}
		if more := sr.Counts.Violations + sr.Counts.Warnings - t.countListed(sr.Findings); more > 0 {
			fmt.Fprintf(t.w, "      ... and %s (use -o json for all)\n", plural(more, "more violation or warning"))
		}
	}
	if len(r.Other) > 0 {
		fmt.Fprintln(t.w)
		for _, f := range r.Other {
			fmt.Fprintln(t.w, "    "+findingLine(f, true))
		}
	}
	fmt.Fprintln(t.w)
}

// listed reports whether a finding is listed under its Service: all but
// the verdict notices, which the VERDICT column shows, unless verbose.
func (t *textReporter) listed(f conformance.Finding) bool {
	return t.verbose || f.Verdict == nil
}

// countListed counts the violations and warnings among the listed
// findings, as printed (at most maxFindings).
func (t *textReporter) countListed(found []conformance.Finding) int {
	n, shown := 0, 0
	for _, f := range found {
		if !t.listed(f) {
			continue
		}
		if t.maxFindings >= 0 && shown >= t.maxFindings {
			break
		}
		shown++
		if f.Severity != conformance.SeverityNotice {
			n++
		}
	}
	return n
}

func (t *textReporter) finish(total conformance.Summary, inputs int) {
	s := &total
	fmt.Fprintf(t.w, "Checked %s: %s of %s", plural(inputs, "input"), plural(s.Observations, "observation"), plural(s.Services, "Service"))
	if s.Skipped > 0 {
		fmt.Fprintf(t.w, "; %s skipped", plural(s.Skipped, "other object"))
	}
	fmt.Fprintln(t.w, ".")
	if s.Services > 0 {
		fmt.Fprintln(t.w, "VERDICT is what a client or test concludes from the status (Ready, Pending, Skip, Fail);")
		fmt.Fprintln(t.w, "CHECK counts what breaks the specification (violations) or should be fixed (warnings).")
	}
	printTotals(t.w, s)
}

// printTotals prints the verdict of a check, its counts and the rules
// that have findings.
func printTotals(w io.Writer, s *conformance.Summary) {
	verdict := "PASS"
	switch {
	case s.InputErrors > 0:
		verdict = "ERROR"
	case s.Failed():
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %s, %s, %s", verdict, plural(s.Findings.Violations, "violation"),
		plural(s.Findings.Warnings, "warning"), plural(s.Findings.Notices, "notice"))
	if s.InputErrors > 0 {
		fmt.Fprintf(w, ", %s (on standard error)", plural(s.InputErrors, "input error"))
	}
	fmt.Fprintln(w, ".")
	for _, sev := range conformance.Severities {
		var parts []string
		for _, id := range s.SortedRules() {
			if n := count(s.Rules[id], sev); n > 0 {
				parts = append(parts, fmt.Sprintf("%s (%d)", id, n))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %-12s%s\n", string(sev)+"s:", strings.Join(parts, "  "))
		}
	}
	if len(s.Rules) > 0 {
		fmt.Fprintln(w, `What a rule requires: lbstatus explain RULE (for example "lbstatus explain L4").`)
	}
}

func count(c *conformance.SeverityCounts, s conformance.Severity) int {
	switch s {
	case conformance.SeverityViolation:
		return c.Violations
	case conformance.SeverityWarning:
		return c.Warnings
	}
	return c.Notices
}

func serviceName(sr *conformance.ServiceReport) string {
	if sr.Namespace == "" {
		return sr.Name
	}
	return sr.Namespace + "/" + sr.Name
}

// condColumn renders one condition as "Status/Reason", "-" when absent.
func condColumn(sr *conformance.ServiceReport, t string) string {
	for _, c := range sr.Conditions {
		if c.Type == t {
			if c.Reason == "" {
				return c.Status
			}
			return c.Status + "/" + c.Reason
		}
	}
	return "-"
}

func degradedColumn(sr *conformance.ServiceReport) string {
	d := condColumn(sr, "LoadBalancerDegraded")
	if p := condColumn(sr, "LoadBalancerPortsError"); p != "-" {
		if d == "-" {
			return "PortsError:" + p
		}
		return d + " PortsError:" + p
	}
	return d
}

func ingressColumn(sr *conformance.ServiceReport) string {
	switch len(sr.Ingress) {
	case 0:
		return "-"
	case 1:
		return sr.Ingress[0]
	}
	return sr.Ingress[0] + " +" + strconv.Itoa(len(sr.Ingress)-1)
}

func verdictColumn(sr *conformance.ServiceReport) string {
	if sr.Verdict == nil {
		return "-"
	}
	return string(sr.Verdict.Result)
}

func checkColumn(c conformance.SeverityCounts) string {
	var parts []string
	if c.Violations > 0 {
		parts = append(parts, plural(c.Violations, "violation"))
	}
	if c.Warnings > 0 {
		parts = append(parts, plural(c.Warnings, "warning"))
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}

// findingLine renders a finding on one line. withObject adds the object's
// kind and name, for lines not listed under their Service.
func findingLine(f conformance.Finding, withObject bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s  %-5s ", f.Severity, f.Rule)
	if withObject {
		if f.Object.Kind != "" {
			b.WriteString(f.Object.Kind + " ")
		}
		b.WriteString(f.Object.String() + ": ")
	}
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	b.WriteString(f.Message)
	var where []string
	if f.Object.ResourceVersion != "" {
		where = append(where, "resourceVersion "+f.Object.ResourceVersion)
	}
	if f.Position != nil && f.Position.Line > 0 {
		where = append(where, "line "+strconv.Itoa(f.Position.Line))
	}
	if len(where) > 0 {
		b.WriteString(" [" + strings.Join(where, ", ") + "]")
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "y") {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(what, "y") + "ies"
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// jsonReporter writes one JSON document: the findings as they are made,
// then the input errors and the summary. It keeps nothing per Service, so
// its memory does not grow with the input.
type jsonReporter struct {
	w      io.Writer
	enc    *json.Encoder
	first  bool
	errors []string
}

func newJSONReporter(w io.Writer) *jsonReporter {
	io.WriteString(w, "{\"findings\": [\n")
	return &jsonReporter{w: w, enc: json.NewEncoder(w), first: true}
}

// The findings are written as they come; the report keeps only counts.
func (j *jsonReporter) collectorOptions() []conformance.CollectorOption {
	return []conformance.CollectorOption{conformance.SummaryOnly(true)}
}

func (j *jsonReporter) findings(found []conformance.Finding) {
	for i := range found {
		if !j.first {
			io.WriteString(j.w, ",")
		}
		j.first = false
		// Encode ends each finding with a newline.
		if err := j.enc.Encode(&found[i]); err != nil {
			continue // a Finding always encodes
		}
	}
}

func (j *jsonReporter) inputError(err error) { j.errors = append(j.errors, err.Error()) }

func (j *jsonReporter) input(string, conformance.Report) {}

func (j *jsonReporter) finish(total conformance.Summary, inputs int) {
	io.WriteString(j.w, "],\n\"errors\": ")
	if j.errors == nil {
		j.errors = []string{}
	}
	b, _ := json.Marshal(j.errors)
	j.w.Write(b)
	io.WriteString(j.w, ",\n\"summary\": ")
	b, _ = json.Marshal(struct {
		Inputs int `json:"inputs"`
		conformance.Summary
	}{inputs, total})
	j.w.Write(b)
	io.WriteString(j.w, "\n}\n")
}
