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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzCheckCommand runs `lbstatus check` as a user does, on arbitrary
// bytes, with the output format, -v, --max-object-bytes and
// --require-services picked by options (see checkArgs), and holds it to
// what the README and the command's help promise: no panic; exit status 0,
// 1 or 2 as the output's result says; -o json one JSON document whose
// counts give that status; each input problem one line on standard error
// naming the input; nothing from the input a terminal would act on; and
// the same report whether the input is read from standard input or from a
// file. Each input is checked both ways.
func FuzzCheckCommand(f *testing.F) {
	for _, s := range []struct {
		path    string
		options uint8
	}{
		{"../../examples/conformant/ready.yaml", formatText},
		{"../../examples/conformant/degraded-and-legacy.yaml", formatHTML | optionRequireServices},
		{"../../examples/traces/provisioning.json", formatTimeline | optionVerbose},
		{"../../violations/unknown-serving.yaml", formatJSON | optionRequireServices},
		{"../../violations/invalid-spec-and-leftovers.json", formatText | optionVerbose | optionSmallLimit},
		{"../../violations/traces/stale-acknowledgement.json", formatJSON | optionSmallLimit},
		{"testdata/columns.json", formatText | optionVerbose},
	} {
		data, err := os.ReadFile(s.path)
		if err != nil {
			f.Fatal(err)
		}
		seed.Add(f, strings.TrimPrefix(s.path, "../../"), data, s.options)
	}
	var stream bytes.Buffer
	if err := conformancetest.WriteStream(&stream, conformancetest.StreamOptions{Services: 2, Observations: 6, Compact: true}); err != nil {
		f.Fatal(err)
	}
	seed.Add(f, "concatenated-json", stream.Bytes(), uint8(formatJSON))
	seed.Add(f, "concatenated-json-truncated", stream.Bytes()[:stream.Len()*2/3], uint8(formatText|optionSmallLimit))
	for _, s := range []struct {
		name    string
		options uint8
	}{
		{"yaml-list", formatText | optionSmallLimit},
		{"json-list", formatJSON | optionSmallLimit},
		{"watch-events", formatTimeline | optionVerbose},
		{"duplicate-name", formatJSON},
		{"bom", formatHTML},
		{"utf-16", formatText | optionRequireServices},
		{"binary", formatJSON | optionRequireServices},
		{"multi-document", formatText | optionVerbose},
		{"truncated", formatHTML | optionSmallLimit},
		{"hostile-trace", formatJSON | optionVerbose},
		{"hostile-trace", formatTimeline | optionVerbose},
		{"empty", formatText | optionRequireServices},
	} {
		seed.Add(f, fmt.Sprintf("%s-%s", s.name, checkFormats[s.options&3][1]), craftedCheckInputs[s.name], s.options)
	}

	// One file, written again by each call: a directory per call would
	// cost as much as a check.
	path := filepath.Join(f.TempDir(), "input")
	f.Fuzz(func(t *testing.T, data []byte, options uint8) {
		if len(data) > 32<<10 {
			return // bigger inputs only slow the search down
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fromStdin := runCheckOn(t, options, "-", data)
		fromFile := runCheckOn(t, options, path, nil)
		for _, r := range []checkRun{fromStdin, fromFile} {
			exitStatusIsOneOfThree(t, r)
			inputProblemsAreOneLineEachNamingTheInput(t, r)
			outputHoldsNothingATerminalActsOn(t, r)
			resultAgreesWithExitStatus(t, r)
			if r.format == "json" {
				jsonIsOneDocumentWhoseCountsGiveTheExitStatus(t, r)
			}
			if r.format == "text" {
				textTotalsGiveTheExitStatus(t, r)
			}
		}
		standardInputAndFileGiveTheSameReport(t, fromStdin, fromFile)
	})
}

// checkFormats are the output formats FuzzCheckCommand runs, picked by
// the two lowest bits of its options; --timeline is text with the
// timelines after each table.
var checkFormats = [][]string{
	formatText:     {"-o", "text"},
	formatJSON:     {"-o", "json"},
	formatHTML:     {"-o", "html"},
	formatTimeline: {"-o", "text", "--timeline"},
}

const (
	formatText = iota
	formatJSON
	formatHTML
	formatTimeline
)

// checkRun is one run of check on the fuzzed input.
type checkRun struct {
	input           string // as given on the command line: "-" or a path
	format          string // text, json or html
	requireServices bool
	code            int
	stdout, stderr  string
}

// shown is how text, HTML and standard error name the input.
func (r checkRun) shown() string { return displayName(r.input) }

// The other bits of FuzzCheckCommand's options.
const (
	optionVerbose         = 1 << 2 // -v, with text output
	optionSmallLimit      = 1 << 3 // --max-object-bytes 1024
	optionRequireServices = 1 << 4 // --require-services
)

// checkArgs turns options into check's flags.
func checkArgs(options uint8) []string {
	args := append([]string{"check"}, checkFormats[options&3]...)
	if options&optionVerbose != 0 && checkFormats[options&3][1] == "text" {
		args = append(args, "-v") // -o json and -o html refuse it
	}
	if options&optionSmallLimit != 0 {
		args = append(args, "--max-object-bytes", "1024")
	}
	if options&optionRequireServices != 0 {
		args = append(args, "--require-services")
	}
	return args
}

// runCheckOn runs check with the flags options picks on name: "-" reads
// stdin.
func runCheckOn(t *testing.T, options uint8, name string, stdin []byte) checkRun {
	t.Helper()
	args := append(checkArgs(options), name)
	var out, errOut bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &out, &errOut)
	return checkRun{
		input:           name,
		format:          checkFormats[options&3][1],
		requireServices: options&optionRequireServices != 0,
		code:            code,
		stdout:          out.String(),
		stderr:          errOut.String(),
	}
}

// "Exit status: 0 no violation, 1 at least one violation, 2 input that
// cannot be read or parsed ... no Service with --require-services".
func exitStatusIsOneOfThree(t *testing.T, r checkRun) {
	if r.code != exitOK && r.code != exitViolation && r.code != exitInput {
		t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", r.input, r.code, r.stdout, r.stderr)
	}
}

// "Each input problem is one line on standard error naming the file", and
// "An input with no Service says so on standard error": nothing else is
// there. Exit status 2 is an input problem or, with --require-services, no
// Service; and an input problem is always exit status 2.
func inputProblemsAreOneLineEachNamingTheInput(t *testing.T, r checkRun) {
	problems, noService := stderrLines(t, r)
	if problems > 0 && r.code != exitInput {
		t.Fatalf("%s: %d input problems on standard error, exit status %d", r.input, problems, r.code)
	}
	if r.code == exitInput && problems == 0 && !(noService && r.requireServices) {
		t.Fatalf("%s: exit status 2 without an input problem or a missing Service; stderr:\n%s", r.input, r.stderr)
	}
}

// stderrLines counts the input problems on standard error and says
// whether it notes that no Service was read. Any other line fails t.
func stderrLines(t *testing.T, r checkRun) (problems int, noService bool) {
	for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		switch {
		case line == "":
		case line == "lbstatus: "+r.shown()+": no Service in this input":
			noService = true
		case strings.HasPrefix(line, "lbstatus: "+r.shown()+":"), strings.HasPrefix(line, "lbstatus: "+r.shown()+" ("):
			problems++
		default:
			t.Fatalf("%s: standard error line %q is neither an input problem naming %q nor the note of no Service", r.input, line, r.shown())
		}
	}
	return problems, noService
}

// "Nothing printed from an input is trusted: control and format
// characters ... are escaped": in every format's output and on standard
// error, which are valid UTF-8 (-o json escapes them as JSON does; an
// object's own data, such as a name in a private-use character, is left
// as it is there).
func outputHoldsNothingATerminalActsOn(t *testing.T, r checkRun) {
	for what, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if !utf8.ValidString(s) {
			t.Fatalf("%s: %s is not valid UTF-8:\n%q", r.input, what, s)
		}
		for i, c := range s {
			if c != '\n' && unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
				t.Fatalf("%s: %s holds %U at byte %d:\n%q", r.input, what, c, i, s)
			}
		}
	}
}

// resultWords maps each exit status to the word the output ends with.
var resultWords = map[int]string{exitOK: "PASS", exitViolation: "FAIL", exitInput: "ERROR"}

var (
	textResult = regexp.MustCompile(`(?m)^(PASS|FAIL|ERROR|INTERRUPTED): `)
	jsonResult = regexp.MustCompile(`"result":"([A-Z]+)"`)
	htmlResult = regexp.MustCompile(`<strong>(PASS|FAIL|ERROR|INTERRUPTED)</strong>`)
)

// "the summary's last word (PASS, FAIL, ERROR, INTERRUPTED) says which".
func resultAgreesWithExitStatus(t *testing.T, r checkRun) {
	re := map[string]*regexp.Regexp{"text": textResult, "json": jsonResult, "html": htmlResult}[r.format]
	m := re.FindAllStringSubmatch(r.stdout, -1)
	if len(m) == 0 || m[len(m)-1][1] != resultWords[r.code] {
		t.Fatalf("%s, -o %s: exit status %d, want the result %s:\n%s", r.input, r.format, r.code, resultWords[r.code], r.stdout)
	}
}

// wantStatus is the exit status the counts of a report call for.
func wantStatus(inputErrors, violations, observations int, requireServices bool) int {
	switch {
	case inputErrors > 0:
		return exitInput
	case violations > 0:
		return exitViolation
	case requireServices && observations == 0:
		return exitInput
	}
	return exitOK
}

// `-o json`: `{"findings": [...], "errors": [...], "summary": {...}}`,
// one valid JSON document, whose summary counts every finding and input
// problem listed.
func jsonIsOneDocumentWhoseCountsGiveTheExitStatus(t *testing.T, r checkRun) {
	if !jsontext.Value(r.stdout).IsValid() {
		t.Fatalf("%s: -o json is not one valid JSON document:\n%s", r.input, r.stdout)
	}
	var report struct {
		Findings []struct {
			Severity string `json:"severity"`
		} `json:"findings"`
		Errors  []string `json:"errors"`
		Summary struct {
			ErrorsOmitted int `json:"errorsOmitted"`
			Observations  int `json:"observations"`
			InputErrors   int `json:"inputErrors"`
			Findings      struct {
				Violations int `json:"violations"`
			} `json:"findings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("%s: -o json: %v:\n%s", r.input, err, r.stdout)
	}
	s := report.Summary
	violations := 0
	for _, f := range report.Findings {
		if f.Severity == "violation" {
			violations++
		}
	}
	if violations != s.Findings.Violations || len(report.Errors)+s.ErrorsOmitted != s.InputErrors {
		t.Fatalf("%s: -o json lists %d violations and %d errors, its summary counts %d and %d:\n%s", r.input, violations, len(report.Errors), s.Findings.Violations, s.InputErrors, r.stdout)
	}
	for _, e := range report.Errors {
		if !strings.HasPrefix(e, r.input+":") && !strings.HasPrefix(e, r.input+" (") {
			t.Fatalf("%s: -o json error %q does not name the input", r.input, e)
		}
	}
	if want := wantStatus(s.InputErrors, s.Findings.Violations, s.Observations, r.requireServices); r.code != want {
		t.Fatalf("%s: exit status %d, the JSON summary calls for %d:\n%s", r.input, r.code, want, r.stdout)
	}
}

var (
	textChecked = regexp.MustCompile(`(?m)^Checked 1 input: (\d+) observations? of \d+ Services?(?:; \d+ other objects? skipped)?\.$`)
	textTotals  = regexp.MustCompile(`(?m)^[A-Z]+: (\d+) violations?, \d+ warnings?, \d+ notices?(?:, (\d+) input errors? \(on standard error\))?(?:; no Service, and --require-services requires one)?\.$`)
)

// The text's summary counts give the exit status, and each input problem
// it counts is on standard error.
func textTotalsGiveTheExitStatus(t *testing.T, r checkRun) {
	checked, totals := textChecked.FindAllStringSubmatch(r.stdout, -1), textTotals.FindAllStringSubmatch(r.stdout, -1)
	if len(checked) == 0 || len(totals) == 0 {
		t.Fatalf("%s: the text output has no summary:\n%s", r.input, r.stdout)
	}
	// The summary is last: a timeline above it may hold anything.
	observations, _ := strconv.Atoi(checked[len(checked)-1][1])
	violations, _ := strconv.Atoi(totals[len(totals)-1][1])
	inputErrors, _ := strconv.Atoi(totals[len(totals)-1][2]) // 0 when not said
	if onStderr, _ := stderrLines(t, r); onStderr != inputErrors {
		t.Fatalf("%s: the text counts %d input errors, standard error has %d:\n%s", r.input, inputErrors, onStderr, r.stderr)
	}
	if want := wantStatus(inputErrors, violations, observations, r.requireServices); r.code != want {
		t.Fatalf("%s: exit status %d, the text's totals call for %d:\n%s", r.input, r.code, want, r.stdout)
	}
}

// The same bytes mean the same, read from a pipe or from a file: only the
// input's name differs ("-" in JSON, "(standard input)" elsewhere).
func standardInputAndFileGiveTheSameReport(t *testing.T, stdin, file checkRun) {
	stdoutName := stdin.shown()
	if stdin.format == "json" {
		stdoutName = stdin.input
	}
	stdout := strings.ReplaceAll(file.stdout, file.input, stdoutName)
	stderr := strings.ReplaceAll(file.stderr, file.input, stdin.shown())
	if stdin.code != file.code || stdin.stdout != stdout || stdin.stderr != stderr {
		t.Fatalf("standard input and a file differ: exit status %d and %d\n--- stdout, standard input:\n%s\n--- stdout, file:\n%s\n--- stderr, standard input:\n%s\n--- stderr, file:\n%s",
			stdin.code, file.code, stdin.stdout, stdout, stdin.stderr, stderr)
	}
}

// craftedCheckInputs are seeds that the example files do not cover: the
// shapes of input the README names, and broken ones.
var craftedCheckInputs = func() map[string][]byte {
	svc := func(name, extra string) string {
		return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `","namespace":"shop","resourceVersion":"1"` + extra +
			`},"spec":{"type":"LoadBalancer","ports":[{"port":80}]},"status":{"conditions":[` +
			`{"type":"LoadBalancerServing","status":"Unknown","reason":"X","lastTransitionTime":"2026-01-01T00:00:00Z"},` +
			`{"type":"LoadBalancerProvisioning","status":"False","reason":"Complete","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`
	}
	yamlList := "apiVersion: v1\nkind: List\nitems:\n" +
		"- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: shop}\n  spec: {type: LoadBalancer}\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c, namespace: shop}\n"
	utf16le := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(readyYAML)) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	return map[string][]byte{
		"yaml-list": []byte(yamlList),
		"json-list": []byte(`{"apiVersion":"v1","kind":"ServiceList","items":[` + svc("a", "") + `,` + svc("b", "") + `]}`),
		"watch-events": []byte(`{"type":"ADDED","object":` + svc("web", "") + "}\n" +
			`{"type":"BOOKMARK","object":{"kind":"Service","metadata":{"resourceVersion":"9"}}}` + "\n" +
			`{"type":"DELETED","object":` + svc("web", "") + "}\n" +
			`{"type":"ERROR","object":{"kind":"Status","message":"too old resource version"}}` + "\n"),
		"duplicate-name": []byte(svc("web", `,"name":"other"`)),
		"bom":            append([]byte("\uFEFF"), readyYAML...),
		"utf-16":         utf16le,
		"binary":         []byte("\x00\x01\x02\xff\xfe\x1b[2J\x7f\xc3\x28"),
		"multi-document": []byte(readyYAML + "---\n" + noIngressJSON + "...\nstray\n---\nkind: [\n"),
		"truncated":      []byte(svc("web", "")[:120]),
		"hostile-trace":  []byte(hostileInputs()["hostile/trace"]),
		"empty":          nil,
	}
}()
