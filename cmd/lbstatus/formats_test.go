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

	"github.com/lbstatus/lbstatus/conformance"
)

// oddInputs returns the inputs the reader's and the checker's fuzz targets
// keep as seeds (the first argument of each corpus file): malformed JSON
// and YAML, duplicate names, Lists cut short, control characters in names,
// odd conditions.
func oddInputs(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("../../conformance/*/testdata/fuzz/*/*")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../conformance/testdata/fuzz/*/*")
	inputs := map[string][]byte{}
	for _, path := range append(files, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(data), "\n", 3)
		if len(lines) < 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
			continue
		}
		in, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		inputs[filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path)] = []byte(in)
	}
	if len(inputs) < 50 {
		t.Fatalf("found %d corpus inputs under ../../conformance: the corpora moved?", len(inputs))
	}
	for name, in := range hostileInputs() {
		inputs[name] = []byte(in)
	}
	return inputs
}

// hostile is what every string of hostileInputs holds: a control sequence
// that clears a terminal, a character that reverses the text after it, and
// a line break followed by a marker that starts a line only if the break
// reaches the output raw.
const hostile = `h\u001b[2J\u202e\nQQ`

// hostileInputs are a Service, its trace, a List of it and an object of
// another kind with hostile in every string a finding, a table, a timeline
// or an error may show.
func hostileInputs() map[string]string {
	h := hostile
	cond := func(typ, status string) string {
		return `{"type":"` + typ + `","status":"` + status + `","reason":"` + h + `","message":"` + h + `","lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}`
	}
	svc := func(rv string, conds ...string) string {
		return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + h + `","namespace":"` + h + `","resourceVersion":"` + rv + h +
			`","uid":"` + h + `","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z","annotations":{"` + h + `":"` + h + `"}},` +
			`"spec":{"type":"LoadBalancer","loadBalancerClass":"` + h + `","ports":[{"name":"` + h + `","port":80,"protocol":"` + h + `"}],` +
			`"requiredLoadBalancerFeatures":["` + h + `"]},` +
			`"status":{"conditions":[` + strings.Join(conds, ",") + `],"loadBalancer":{"ingress":[{"ip":"` + h + `","hostname":"` + h + `","ipMode":"` + h + `"}]}}}`
	}
	first := svc("1", cond("LoadBalancerProvisioning", "True"), cond("LoadBalancerServing", "False"))
	second := svc("2", cond(h, h), cond("LoadBalancerServing", "True"), cond("LoadBalancerDegraded", "True"))
	return map[string]string{
		"hostile/service":     second,
		"hostile/trace":       first + "\n" + second + "\n" + `{"type":"DELETED","object":` + second + `}`,
		"hostile/list":        `{"apiVersion":"v1","kind":"List","items":[` + first + `,` + second + `]}`,
		"hostile/other-kind":  `{"apiVersion":"` + h + `","kind":"` + h + `","metadata":{"name":"` + h + `"}}`,
		"hostile/bad-field":   `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + h + `","namespace":"` + h + `"},"status":{"conditions":[{"type":"` + h + `","lastTransitionTime":"` + h + `"}]}}`,
		"hostile/error-event": `{"type":"ERROR","object":{"kind":"Status","message":"` + h + `"}}`,
		"hostile/yaml":        "kind: |\n  Config\n  QQ\nmetadata:\n  name: \"h\\e[2J\\u202e\\nQQ\"\n",
	}
}

// Every output format tells the same story of the same odd input: the same
// exit status, problems on standard error one line each, and nothing from
// the input that a terminal or a browser would act on (section 8, "Nothing
// printed from an input is trusted"). A ten-minute fuzzing run of these
// checks over the whole command found nothing; this keeps them.
func TestCheck_OddInputsInEveryFormat(t *testing.T) {
	plain := func(s string) (rune, bool) {
		for _, r := range s {
			if r != '\n' && r != '\t' && !unicode.IsGraphic(r) {
				return r, false
			}
		}
		return 0, true
	}
	formats := [][]string{
		{"-o", "text"},
		{"-o", "text", "-v", "--timeline"},
		{"-o", "json"},
		{"-o", "html"},
	}
	for name, in := range oddInputs(t) {
		codes := map[int][]string{}
		for _, format := range formats {
			args := append(append([]string{"check", "--max-object-bytes", "2048"}, format...), "-")
			var out, errOut bytes.Buffer
			code := run(args, bytes.NewReader(in), &out, &errOut)
			what := name + " " + strings.Join(format, " ")
			codes[code] = append(codes[code], strings.Join(format, " "))
			for _, line := range strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n") {
				if line != "" && !strings.HasPrefix(line, "lbstatus: ") {
					t.Errorf("%s: standard error line %q does not start with \"lbstatus: \"", what, line)
				}
			}
			if r, ok := plain(errOut.String()); !ok {
				t.Errorf("%s: standard error holds %U", what, r)
			}
			if strings.Contains(errOut.String(), "\nQQ") {
				t.Errorf("%s: a line break from the input reached standard error:\n%s", what, errOut.String())
			}
			if format[1] == "json" {
				var report any
				if err := json.Unmarshal(out.Bytes(), &report); err != nil {
					t.Errorf("%s: the output is not JSON: %v", what, err)
				}
				for _, msg := range messages(report) {
					if r, ok := plain(msg); !ok || strings.Contains(msg, "\n") {
						t.Errorf("%s: a message holds %U or a line break: %q", what, r, msg)
					}
				}
				continue
			}
			if r, ok := plain(out.String()); !ok {
				t.Errorf("%s: the output holds %U", what, r)
			}
			if strings.Contains(out.String(), "\nQQ") {
				t.Errorf("%s: a line break from the input reached the output:\n%s", what, out.String())
			}
			// The hostile strings are shown, escaped; the page draws
			// Services only, not skipped objects or input errors.
			shown := strings.HasPrefix(name, "hostile/") && (format[1] == "text" || name == "hostile/service")
			if shown && !strings.Contains(out.String()+errOut.String(), `\nQQ`) {
				t.Errorf("%s: the hostile strings are not shown, escaped, at all:\n%s%s", what, out.String(), errOut.String())
			}
		}
		if len(codes) != 1 {
			t.Errorf("%s: exit statuses differ by format: %v", name, codes)
		}
	}
}

// messages returns the "message" members of a decoded JSON report, at any
// depth.
func messages(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if msg, ok := e.(string); ok && k == "message" {
				out = append(out, msg)
			}
			out = append(out, messages(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, messages(e)...)
		}
	}
	return out
}

// TestCheck_FormatsAgree: text, JSON and HTML end a check with the same
// result word, as the exit status says, and count the same Services: a
// Service deleted and created again counts twice, one of a class --class
// leaves alone counts too.
func TestCheck_FormatsAgree(t *testing.T) {
	dir := t.TempDir()
	svc := func(name, uid, class string) string {
		c := ""
		if class != "" {
			c = `, "loadBalancerClass": "` + class + `"`
		}
		return `{"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "shop", "name": "` + name + `", "uid": "` + uid +
			`", "resourceVersion": "1"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]` + c + `}}`
	}
	recreated := write(t, dir, "recreated.json", `{"type": "ADDED", "object": `+svc("web", "u1", "")+`}
{"type": "DELETED", "object": `+svc("web", "u1", "")+`}
{"type": "ADDED", "object": `+svc("web", "u2", "")+`}`)
	classes := write(t, dir, "classes.json", svc("mine", "u3", "example.com/mine")+svc("theirs", "u4", "example.com/theirs"))
	broken := write(t, dir, "broken.json", `{"kind": "Service", "metadata": {"name": 7}}`)
	configMap := write(t, dir, "cm.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}`)
	// Serving=Unknown: a C1 violation.
	violation := write(t, dir, "violation.json", `{"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "shop", "name": "bad", "resourceVersion": "1"},
 "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}, "status": {"conditions": [
  {"type": "LoadBalancerServing", "status": "Unknown", "reason": "X", "lastTransitionTime": "2026-01-01T00:00:00Z"},
  {"type": "LoadBalancerProvisioning", "status": "False", "reason": "Complete", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}`)
	counts := regexp.MustCompile(`(\d+) observations? of (\d+) Services?`)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		result   string
		services int
	}{
		{"recreated", []string{recreated}, exitOK, "PASS", 2},
		{"another class", []string{"--class", "example.com/mine", classes}, exitOK, "PASS", 2},
		{"input error", []string{broken, classes}, exitInput, "ERROR", 2},
		{"violation", []string{violation}, exitViolation, "FAIL", 1},
		// An unreadable input is exit 2 whatever the others hold.
		{"violation and input error", []string{violation, broken}, exitInput, "ERROR", 1},
		{"no Service required", []string{"--require-services", configMap}, exitInput, "ERROR", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := runCmd(t, "", append([]string{"check"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, "\n"+tc.result+": ") {
				t.Errorf("text: exit %d, want %d, ending in %s:\n%s", code, tc.code, tc.result, out)
			}
			if m := counts.FindAllStringSubmatch(out, -1); len(m) == 0 || m[len(m)-1][2] != strconv.Itoa(tc.services) {
				t.Errorf("text: want %d Services:\n%s", tc.services, out)
			}

			code, out, _ = runCmd(t, "", append([]string{"check", "-o", "json"}, tc.args...)...)
			var report struct {
				Summary struct {
					Result   string `json:"result"`
					Services int    `json:"services"`
				} `json:"summary"`
			}
			if err := json.Unmarshal([]byte(out), &report); err != nil || code != tc.code ||
				report.Summary.Result != tc.result || report.Summary.Services != tc.services {
				t.Errorf("json: exit %d, want %d; summary %+v, want %s and %d Services (%v):\n%s", code, tc.code, report.Summary, tc.result, tc.services, err, out)
			}

			code, out, _ = runCmd(t, "", append([]string{"check", "-o", "html"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, "<strong>"+tc.result+"</strong>") ||
				!strings.Contains(out, " of "+plural(tc.services, "Service")+";") {
				t.Errorf("html: exit %d, want %d, %s and %d Services:\n%s", code, tc.code, tc.result, tc.services, out)
			}
		})
	}
}

// -o json lists the first maxJSONErrors input problems and counts the
// rest, so that a broken input cannot make the report unbounded.
func TestJSONReporter_ErrorsCapped(t *testing.T) {
	var b strings.Builder
	j := newJSONReporter(&b)
	for i := range maxJSONErrors + 1 {
		j.inputError(fmt.Errorf("problem %d", i))
	}
	j.finish(conformance.Summary{InputErrors: maxJSONErrors + 1}, 1, false, nil, false)
	var got struct {
		Errors  []string `json:"errors"`
		Summary struct {
			Result        string `json:"result"`
			ErrorsOmitted int    `json:"errorsOmitted"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(got.Errors) != maxJSONErrors || got.Errors[maxJSONErrors-1] != fmt.Sprintf("problem %d", maxJSONErrors-1) {
		t.Errorf("%d errors listed, want the first %d", len(got.Errors), maxJSONErrors)
	}
	if got.Summary.ErrorsOmitted != 1 || got.Summary.Result != "ERROR" {
		t.Errorf("summary %+v, want 1 error omitted and ERROR", got.Summary)
	}
}

// The JSON escaper turns DEL and a format character into \u escapes even
// when a write splits the character's bytes, and leaves the rest as it is.
func TestJSONEscaper(t *testing.T) {
	var b bytes.Buffer
	e := &jsonEscaper{w: &b}
	rlo := "\u202e" // right-to-left override: three bytes
	for _, part := range []string{`{"a":"x` + "\x7f", rlo[:1], rlo[1:2], rlo[2:] + `é"}`} {
		if n, err := e.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	if got, want := b.String(), `{"a":"x\u007f\u202eé"}`; got != want {
		t.Errorf("escaped %q, want %q", got, want)
	}
}

// An output that ends inside a character lost the character's first bytes:
// the escaper held them for a next write that never came. Flush writes
// them as \ufffd, which keeps the output UTF-8 and the string valid JSON.
func TestJSONEscaper_FlushWritesAHeldPartialRune(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"a` + "\u202e"[:2], `"a\ufffd`},
		{`"` + "é"[:1], `"\ufffd`},
		{`"a` + "\U0001f600"[:3], `"a\ufffd`},
		{`"a` + "\u202e", `"a\u202e`}, // nothing held: nothing more
	} {
		var b bytes.Buffer
		e := &jsonEscaper{w: &b}
		e.Write([]byte(tc.in))
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		e.Flush() // a second Flush has nothing left to write
		if got := b.String(); got != tc.want {
			t.Errorf("%q: wrote %q, want %q", tc.in, got, tc.want)
		}
		if s := b.String() + `"`; !json.Valid([]byte(s)) {
			t.Errorf("%q: %s is not a JSON string", tc.in, s)
		}
	}
}

// TestCheck_TableCutsLongCells: a provider's own Degraded reason may be a
// valid 1,024 characters; one such reason pushed the INGRESS, VERDICT and
// CHECK columns of every row off the screen. The table cuts a condition,
// type or ingress cell as the timeline does, says so under the table, and
// the finding that reports the reason quotes it whole.
func TestCheck_TableCutsLongCells(t *testing.T) {
	reason := "VendorSpecific" + strings.Repeat("X", 200)
	long := strings.Replace(readyYAML, "name: web", "name: api", 1)
	long = strings.Replace(long, "  conditions:\n", "  conditions:\n  - {type: LoadBalancerDegraded, status: \"True\", reason: \""+reason+"\", message: \"\", lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n", 1)
	code, out, errOut := runCmd(t, readyYAML+"---\n"+long, "check")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
	var web, api string
	for line := range strings.Lines(out) {
		switch {
		case strings.HasPrefix(line, "  shop/web "):
			web = line
		case strings.HasPrefix(line, "  shop/api "):
			api = line
		}
	}
	if web == "" || api == "" {
		t.Fatalf("no row for shop/web or shop/api:\n%s", out)
	}
	if n := len([]rune(web)); n > 160 {
		t.Errorf("shop/web's row is %d characters wide: api's reason widens every row:\n%s", n, out)
	}
	if !strings.Contains(api, "True/VendorSpecificXXX") || !strings.Contains(api, "…") || !strings.Contains(out, "(\"…\" marks a cell cut at 48 characters") {
		t.Errorf("api's Degraded cell is not cut, or the cut is not said:\n%s", out)
	}
	if !strings.Contains(out, `has reason "`+reason+`"`) {
		t.Errorf("the finding does not quote the reason whole:\n%s", out)
	}
}

// A finding's line is named only when it is known: a position without
// one (line 0, as JSON leaves it out) adds no "line 0".
func TestFindingLine_Where(t *testing.T) {
	f := conformance.Finding{Rule: "L4", Severity: conformance.SeverityViolation, Message: "m",
		Object: conformance.ObjectRef{Namespace: "ns", Name: "web", ResourceVersion: "7"}}
	for _, tc := range []struct {
		pos  *conformance.Position
		want string
	}{
		{nil, "m [resourceVersion 7]"},
		{&conformance.Position{Source: "x.json", Offset: 4}, "m [resourceVersion 7]"},
		{&conformance.Position{Source: "x.json", Line: 3}, "m [resourceVersion 7, line 3]"},
	} {
		f.Position = tc.pos
		if got := findingLine(f, false); !strings.HasSuffix(got, tc.want) {
			t.Errorf("position %+v: %q, want it to end with %q", tc.pos, got, tc.want)
		}
	}
}

// DEGRADED shows LoadBalancerDegraded, then the deprecated
// LoadBalancerPortsError marked as such, or either alone, each cut on its
// own; a status "-" is not the "-" of both absent.
func TestDegradedColumn(t *testing.T) {
	degraded := conformance.ConditionSummary{Type: "LoadBalancerDegraded", Status: "True", Reason: "SessionAffinity"}
	ports := conformance.ConditionSummary{Type: "LoadBalancerPortsError", Status: "True", Reason: "Mixed"}
	dash := conformance.ConditionSummary{Type: "LoadBalancerDegraded", Status: "-"}
	long := conformance.ConditionSummary{Type: "LoadBalancerDegraded", Status: "True", Reason: strings.Repeat("X", 60)}
	for _, tc := range []struct {
		conds []conformance.ConditionSummary
		want  string
		cut   bool
	}{
		{nil, "-", false},
		{[]conformance.ConditionSummary{degraded}, "True/SessionAffinity", false},
		{[]conformance.ConditionSummary{ports}, "PortsError:True/Mixed", false},
		{[]conformance.ConditionSummary{degraded, ports}, "True/SessionAffinity PortsError:True/Mixed", false},
		{[]conformance.ConditionSummary{dash}, `"-"`, false},
		{[]conformance.ConditionSummary{dash, ports}, `"-" PortsError:True/Mixed`, false},
		{[]conformance.ConditionSummary{long, ports}, "True/" + strings.Repeat("X", 42) + "… PortsError:True/Mixed", true},
	} {
		if got, cut := degradedColumn(&conformance.ServiceReport{Conditions: tc.conds}); got != tc.want || cut != tc.cut {
			t.Errorf("%v: %q, %v; want %q, %v", tc.conds, got, cut, tc.want, tc.cut)
		}
	}
}

// TestCondColumn_AbsentIsNoStatus: C1 and C5 make a status other than
// True, False or Unknown a violation, and a trace may still hold one. A
// condition absent shows as "-"; one whose state could read as that, or
// as another mark, or whose status holds "/" (True/X with reason Y is not
// True with reason X/Y), is quoted as the timeline quotes it
// (timeline.StateCell), cut outside its escapes; a state the API accepts
// is shown as it is.
func TestCondColumn_AbsentIsNoStatus(t *testing.T) {
	a := strings.Repeat("a", 40)
	for _, tc := range []struct {
		status, reason string
		want           string
		cut            bool
	}{
		{"True", "Serving", "True/Serving", false},
		{"Unknown", "", "Unknown", false},
		{"-", "", `"-"`, false},
		{"", "", `""`, false},
		{"|", "", `"|"`, false},
		{"False", "Odd*", `"False/Odd*"`, false},
		{"-", "Odd", "-/Odd", false},
		{"True/X", "Y", `"True/X/Y"`, false},
		{"True", "X/Y", "True/X/Y", false},
		// Quoted, the escape of U+202E would end past the room: it is
		// left out whole.
		{`"` + a + "\u202e" + a, "", `"\"` + a + "…", true},
	} {
		sr := &conformance.ServiceReport{Conditions: []conformance.ConditionSummary{{Type: "LoadBalancerServing", Status: tc.status, Reason: tc.reason}}}
		if got, cut := condColumn(sr, "LoadBalancerServing"); got != tc.want || cut != tc.cut {
			t.Errorf("status %q, reason %q: %q, %v; want %q, %v", tc.status, tc.reason, got, cut, tc.want, tc.cut)
		}
	}
	if got, cut := condColumn(&conformance.ServiceReport{}, "LoadBalancerServing"); got != "-" || cut {
		t.Errorf("absent: %q, %v; want \"-\", false", got, cut)
	}
}

// A finding about another object names it after the rule, its kind only
// when known, and escapes the field path as it does the message: a path
// may hold an annotation key from the input.
func TestFindingLine_ObjectAndField(t *testing.T) {
	f := conformance.Finding{Rule: "L4", Severity: conformance.SeverityViolation, Message: "m", Field: "metadata.annotations[x\x1b[2J]",
		Object: conformance.ObjectRef{Namespace: "ns", Name: "web"}}
	got := findingLine(f, true)
	if want := `violation  L4    ns/web: metadata.annotations[x\x1b[2J]: m`; got != want {
		t.Errorf("findingLine = %q, want %q", got, want)
	}
}

// The line under a Service's findings counts those not listed by
// severity: the omitted ones that are neither violations nor warnings
// are notices.
func TestMoreLine(t *testing.T) {
	sr := &conformance.ServiceReport{Counts: conformance.SeverityCounts{Violations: 1, Warnings: 2, Notices: 3}, Omitted: 3}
	listed := conformance.SeverityCounts{Violations: 1, Warnings: 1}
	if got, want := moreLine(sr, listed), "1 more warning, 2 more notices"; got != want {
		t.Errorf("moreLine = %q, want %q", got, want)
	}
}
