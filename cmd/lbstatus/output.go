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
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/conformance/timeline"
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
	// finish is called once, at the end, with the totals; interrupted
	// says the check was stopped before the end of its inputs, unfinished
	// where the document it cut short starts (nil for none), missing that
	// it requires a Service (--require-services) and read none.
	finish(total conformance.Summary, inputs int, interrupted bool, unfinished *input.Position, missing bool)
}

// displayName names an input for people.
func displayName(name string) string {
	if name == "-" {
		return "(standard input)"
	}
	return input.Escape(name)
}

// errorText is an input error as people read it: standard input named so,
// not "-" (which JSON keeps, by convention).
func errorText(err error) string {
	var de *input.DecodeError
	if errors.As(err, &de) && de.Position.Source == "-" {
		shown := *de
		shown.Position.Source = displayName("-")
		return shown.Error()
	}
	return err.Error()
}

// unfinishedText says that the document at p, which an interrupt cut
// short, was not checked.
func unfinishedText(p *input.Position) string {
	return errorText(&input.DecodeError{Position: *p, Err: errors.New("not checked: the input was interrupted before the document ended")})
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

// The Collector keeps what the text lists, no more: findings of each
// severity up to the cap, and verdict notices only when they are listed
// (the VERDICT column shows the last one). Its memory then grows with the
// number of Services, not with that of observations or skipped objects.
func (t *textReporter) collectorOptions() []conformance.CollectorOption {
	return []conformance.CollectorOption{
		conformance.KeepFindings(t.maxFindings),
		conformance.KeepVerdictNotices(t.verbose),
	}
}

func (t *textReporter) findings([]conformance.Finding) {}
func (t *textReporter) inputError(error)               {}

func (t *textReporter) input(name string, r conformance.Report) {
	s := &r.Summary
	fmt.Fprintf(t.w, "%s: %s of %s", displayName(name), plural(s.Observations, "observation"), plural(s.Services, "Service"))
	if s.Skipped > 0 {
		fmt.Fprintf(t.w, ", %s skipped (%s)", plural(s.Skipped, "other object"), skippedKinds(r))
	}
	if s.InputErrors > 0 {
		fmt.Fprintf(t.w, ", %s", plural(s.InputErrors, "input error"))
	}
	fmt.Fprintln(t.w)
	if len(r.Services) > 0 {
		tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  SERVICE\tTYPE\tPROVISIONING\tSERVING\tDEGRADED\tINGRESS\tVERDICT\tCHECK")
		// A reason may be 1,024 characters and still valid, and a column
		// is as wide as its widest cell: cut as the timeline cuts, one
		// long reason no longer pushes every row's verdict off the screen;
		// a finding that reports the reason quotes it whole. Names are cut
		// only after 1 KiB, as everywhere (ObjectRef.String): they say
		// which Service the findings below are about.
		clipped := false
		cell := func(s string) string {
			c, cut := timeline.ClipCell(s)
			clipped = clipped || cut
			return c
		}
		state := func(s string, cut bool) string {
			clipped = clipped || cut
			return s
		}
		for _, sr := range r.Services {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", serviceName(sr), cell(sr.Type),
				state(condColumn(sr, "LoadBalancerProvisioning")), state(condColumn(sr, "LoadBalancerServing")), state(degradedColumn(sr)),
				ingressColumn(sr, cell), verdictColumn(sr), checkColumn(sr.Counts))
		}
		tw.Flush()
		if clipped {
			fmt.Fprintf(t.w, "  (\"…\" marks a cell cut at %d characters)\n", timeline.MaxTextCell)
		}
	}
	for _, sr := range r.Services {
		var listed conformance.SeverityCounts
		var lines []string
		for _, f := range sr.Findings {
			if t.listed(f) {
				listed.Add(f.Severity)
				lines = append(lines, "      "+findingLine(f, false))
			}
		}
		more := moreLine(sr, listed)
		if len(lines) == 0 && more == "" {
			continue
		}
		fmt.Fprintf(t.w, "\n    %s\n", serviceName(sr))
		for _, l := range lines {
			fmt.Fprintln(t.w, l)
		}
		if more != "" {
			fmt.Fprintf(t.w, "      ... and %s (use -o json for all)\n", more)
		}
	}
	// Skipped objects are counted per kind in the first line; each is
	// listed only when verbose.
	if len(r.Other) > 0 && t.verbose {
		fmt.Fprintln(t.w)
		for _, f := range r.Other {
			fmt.Fprintln(t.w, "    "+findingLine(f, true))
		}
		if r.OtherOmitted > 0 {
			fmt.Fprintf(t.w, "    ... and %s about other objects (use -o json for all)\n", plural(r.OtherOmitted, "more finding"))
		}
	}
	fmt.Fprintln(t.w)
}

// skippedKinds names the kinds of the skipped objects, with how many of
// each, most first: "ConfigMap: 3, Deployment: 1"; five kinds at most.
func skippedKinds(r conformance.Report) string {
	var parts []string
	others := r.SkippedOtherKinds
	for i, k := range r.SkippedKinds {
		if i >= 5 {
			others += k.Count
			continue
		}
		kind := input.Escape(k.Kind)
		if kind == "" {
			kind = "no kind"
		}
		parts = append(parts, kind+": "+strconv.Itoa(k.Count))
	}
	if others > 0 {
		parts = append(parts, "other kinds: "+strconv.Itoa(others))
	}
	return strings.Join(parts, ", ")
}

// listed reports whether a finding is listed under its Service: all but
// the verdict notices, which the VERDICT column shows, unless verbose.
func (t *textReporter) listed(f conformance.Finding) bool {
	return t.verbose || f.Verdict == nil
}

// moreLine says what was counted for a Service but not listed, per
// severity: "2 more violations, 1 more warning"; empty when nothing. Every
// finding kept is listed, so what is missing is what the Collector did not
// keep: sr.Omitted, of which the violations and warnings are those counted
// but not listed, and the rest are notices. Without -v the Collector keeps
// no verdict notices, nor counts them in Omitted: the VERDICT column
// shows them.
func moreLine(sr *conformance.ServiceReport, listed conformance.SeverityCounts) string {
	missing := conformance.SeverityCounts{
		Violations: sr.Counts.Violations - listed.Violations,
		Warnings:   sr.Counts.Warnings - listed.Warnings,
	}
	missing.Notices = sr.Omitted - missing.Violations - missing.Warnings
	var parts []string
	for _, sev := range conformance.Severities {
		if n := count(&missing, sev); n > 0 {
			parts = append(parts, plural(n, "more "+string(sev)))
		}
	}
	return strings.Join(parts, ", ")
}

func (t *textReporter) finish(total conformance.Summary, inputs int, interrupted bool, unfinished *input.Position, missing bool) {
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
	printCheckTotals(t.w, s, interrupted, unfinished, missing)
}

// printTotals prints the verdict of a check, its counts and the rules
// that have findings.
func printTotals(w io.Writer, s *conformance.Summary) { printCheckTotals(w, s, false, nil, false) }

// checkResult is the word every output format ends a check with, which
// gives the exit status (resultStatus): ERROR for an input error, however
// many violations the inputs that could be read have; else FAIL for a
// violation, interrupted or not; else ERROR for no Service where
// --require-services requires one (missing); else INTERRUPTED; else PASS.
func checkResult(s *conformance.Summary, interrupted, missing bool) string {
	switch {
	case s.InputErrors > 0:
		return "ERROR"
	case s.Failed():
		return "FAIL"
	case missing:
		return "ERROR"
	case interrupted:
		return "INTERRUPTED"
	}
	return "PASS"
}

// resultStatus is the exit status of each checkResult.
var resultStatus = map[string]int{"PASS": exitOK, "FAIL": exitViolation, "ERROR": exitInput, "INTERRUPTED": exitInput}

// printCheckTotals is printTotals for a check that may have been stopped
// before the end of its inputs, maybe in the middle of a document
// (unfinished), or that requires a Service and read none (missing).
func printCheckTotals(w io.Writer, s *conformance.Summary, interrupted bool, unfinished *input.Position, missing bool) {
	if interrupted {
		fmt.Fprintln(w, "INTERRUPTED: the check was stopped; this reports what was read until then.")
	}
	if unfinished != nil {
		fmt.Fprintf(w, "%s.\n", unfinishedText(unfinished))
	}
	fmt.Fprintf(w, "%s: %s, %s, %s", checkResult(s, interrupted, missing), plural(s.Findings.Violations, "violation"),
		plural(s.Findings.Warnings, "warning"), plural(s.Findings.Notices, "notice"))
	if s.InputErrors > 0 {
		fmt.Fprintf(w, ", %s (on standard error)", plural(s.InputErrors, "input error"))
	}
	if missing {
		fmt.Fprint(w, "; no Service, and --require-services requires one")
	}
	fmt.Fprintln(w, ".")
	rules := s.SortedRules()
	for _, sev := range conformance.Severities {
		var parts []string
		for _, id := range rules {
			if n := count(s.Rules[id], sev); n > 0 {
				parts = append(parts, fmt.Sprintf("%s (%d)", id, n))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %-12s%s\n", string(sev)+"s:", strings.Join(parts, "  "))
		}
	}
	var broken []string // rules with violations or warnings, to explain
	for _, id := range rules {
		if count(s.Rules[id], conformance.SeverityViolation)+count(s.Rules[id], conformance.SeverityWarning) > 0 {
			broken = append(broken, string(id))
		}
	}
	switch {
	case len(broken) == 1:
		fmt.Fprintf(w, "What this rule requires: lbstatus explain %s\n", broken[0])
	case len(broken) > 1:
		fmt.Fprintf(w, "What these rules require: lbstatus explain %s\n", strings.Join(broken, " "))
	case len(s.Rules) > 0:
		fmt.Fprintln(w, `What a rule requires: lbstatus explain RULE (for example "lbstatus explain L4").`)
	}
}

func count(c *conformance.SeverityCounts, s conformance.Severity) int {
	if c == nil {
		return 0
	}
	switch s {
	case conformance.SeverityViolation:
		return c.Violations
	case conformance.SeverityWarning:
		return c.Warnings
	}
	return c.Notices
}

// serviceName names a Service, escaped: names come from the input.
func serviceName(sr *conformance.ServiceReport) string {
	name := conformance.ObjectRef{Namespace: sr.Namespace, Name: sr.Name}.String()
	if sr.Deleted {
		name += " (deleted)"
	}
	return name
}

// condColumn renders one condition as the timeline shows its state
// (timeline.StateCell: "Status/Reason", quoted when it could read as a
// mark, escaped and cut), "-" when absent; cut reports a cut.
func condColumn(sr *conformance.ServiceReport, t string) (cell string, cut bool) {
	for _, c := range sr.Conditions {
		if c.Type == t {
			return timeline.StateCell(c.Status, c.Reason)
		}
	}
	return "-", false
}

// degradedColumn renders LoadBalancerDegraded, then the deprecated
// LoadBalancerPortsError marked as such, each cut on its own.
func degradedColumn(sr *conformance.ServiceReport) (cell string, cut bool) {
	d, dCut := condColumn(sr, "LoadBalancerDegraded")
	p, pCut := condColumn(sr, "LoadBalancerPortsError")
	switch {
	case p == "-":
		return d, dCut
	case d == "-":
		return "PortsError:" + p, pCut
	}
	return d + " PortsError:" + p, dCut || pCut
}

// ingressColumn renders the first ingress address, shown by cell, and
// how many more there are, which a cut address keeps.
func ingressColumn(sr *conformance.ServiceReport, cell func(string) string) string {
	switch len(sr.Ingress) {
	case 0:
		return "-"
	case 1:
		return cell(sr.Ingress[0])
	}
	return cell(sr.Ingress[0]) + " +" + strconv.Itoa(len(sr.Ingress)-1)
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
			b.WriteString(input.Escape(f.Object.Kind) + " ")
		}
		b.WriteString(f.Object.String() + ": ")
	}
	if f.Field != "" {
		b.WriteString(input.Escape(f.Field) + ": ")
	}
	// Messages quote what the object holds: reasons, messages, names.
	b.WriteString(input.Escape(f.Message))
	var where []string
	if f.Object.ResourceVersion != "" {
		where = append(where, "resourceVersion "+input.Escape(f.Object.ResourceVersion))
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
	w       *jsonEscaper
	enc     *json.Encoder
	first   bool
	errors  []string
	omitted int
}

// maxJSONErrors bounds the input problems a JSON report lists; all are
// counted. Each is also on standard error.
const maxJSONErrors = 1000

func newJSONReporter(w io.Writer) *jsonReporter {
	e := &jsonEscaper{w: w}
	io.WriteString(e, "{\"findings\": [\n")
	return &jsonReporter{w: e, enc: json.NewEncoder(e), first: true}
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
		if err := j.enc.Encode(shownFinding(found[i])); err != nil {
			continue // a Finding always encodes
		}
	}
}

// shownFinding is f as the JSON output shows it: its object's namespace
// and name cut by input.Clip, as the text cuts them (ObjectRef.String),
// where the checker and the Collector keep them whole to tell Services
// apart. Both are any string in a file: no valid one is cut.
func shownFinding(f conformance.Finding) conformance.Finding {
	f.Object.Namespace, f.Object.Name = input.Clip(f.Object.Namespace), input.Clip(f.Object.Name)
	return f
}

func (j *jsonReporter) inputError(err error) {
	if len(j.errors) >= maxJSONErrors {
		j.omitted++
		return
	}
	j.errors = append(j.errors, err.Error())
}

func (j *jsonReporter) input(string, conformance.Report) {}

func (j *jsonReporter) finish(total conformance.Summary, inputs int, interrupted bool, unfinished *input.Position, missing bool) {
	io.WriteString(j.w, "],\n\"errors\": ")
	if j.errors == nil {
		j.errors = []string{}
	}
	b, _ := json.Marshal(j.errors)
	j.w.Write(b)
	io.WriteString(j.w, ",\n\"summary\": ")
	b, _ = json.Marshal(struct {
		Result        string `json:"result"`
		Inputs        int    `json:"inputs"`
		ErrorsOmitted int    `json:"errorsOmitted,omitempty"`
		Interrupted   bool   `json:"interrupted,omitempty"`
		// Unfinished: where the document the interrupt cut short, not
		// checked, starts.
		Unfinished *input.Position `json:"unfinished,omitempty"`
		// NoServices: --require-services requires one, and none was read.
		NoServices bool `json:"noServices,omitempty"`
		conformance.Summary
	}{checkResult(&total, interrupted, missing), inputs, j.omitted, interrupted, unfinished, missing, total})
	j.w.Write(b)
	io.WriteString(j.w, "\n}\n")
	j.w.Flush()
}

// jsonEscaper writes JSON with what a terminal would interpret escaped:
// encoding/json escapes C0 controls but leaves DEL, C1 controls and
// Unicode format characters (bidirectional overrides) raw. Outside of
// strings, JSON is ASCII, so every such rune is inside a string, where
// \uXXXX means the same. Writes may split a rune: the partial rune is
// held until the next write, or Flush at the end of the output.
type jsonEscaper struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

func (e *jsonEscaper) Write(p []byte) (int, error) {
	n := len(p)
	if len(e.pending) > 0 {
		p = append(e.pending, p...)
		e.pending = nil
	}
	e.buf = e.buf[:0]
	start := 0
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			e.pending = append(e.pending, p[i:]...)
			p = p[:i]
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		// A byte that is not UTF-8 (the start of a rune whose end a
		// later write did not bring) decodes as RuneError of size 1,
		// whose \ufffd is what encoding/json writes for it.
		if c == 0x7f || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || size == 1 {
			e.buf = append(e.buf, p[start:i]...)
			for _, u := range utf16.Encode([]rune{r}) {
				e.buf = fmt.Appendf(e.buf, `\u%04x`, u)
			}
			start = i + size
		}
		i += size
	}
	e.buf = append(e.buf, p[start:]...)
	if _, err := e.w.Write(e.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush ends the output: a rune held by the last Write, whose end never
// came, is written as \ufffd, as encoding/json writes bytes that are not
// UTF-8. Its bytes raw would make the output invalid UTF-8, and so
// invalid JSON; dropped, the loss would not show.
func (e *jsonEscaper) Flush() error {
	if len(e.pending) == 0 {
		return nil
	}
	e.pending = nil
	_, err := io.WriteString(e.w, `\ufffd`)
	return err
}
