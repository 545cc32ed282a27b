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
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/conformance/suite"
)

// runCmd runs the command line in-process.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// write creates a file under dir with the given content and returns its
// path.
func write(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const readyYAML = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, resourceVersion: "7"}
spec:
  type: LoadBalancer
  ports: [{port: 80, protocol: TCP, nodePort: 30080}]
status:
  loadBalancer: {ingress: [{ip: 192.0.2.1}]}
  conditions:
  - {type: LoadBalancerProvisioning, status: "False", reason: Complete, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: LoadBalancerServing, status: "True", reason: Serving, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
`

// noIngressJSON breaks L4.
const noIngressJSON = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"no-ingress","namespace":"shop"},
 "spec":{"type":"LoadBalancer","ports":[{"port":80}]},
 "status":{"conditions":[
  {"type":"LoadBalancerProvisioning","status":"False","reason":"Complete","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"},
  {"type":"LoadBalancerServing","status":"True","reason":"Serving","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}
`

func TestRun_Usage(t *testing.T) {
	if code, _, stderr := runCmd(t, ""); code != exitInput || !strings.Contains(stderr, "Usage:") {
		t.Errorf("no command: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCmd(t, "", "frobnicate"); code != exitInput || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, stderr)
	}
	for _, arg := range []string{"help", "-h", "--help"} {
		if code, stdout, stderr := runCmd(t, "", arg); code != exitOK || !strings.Contains(stdout, "lbstatus check") || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", arg, code, stderr)
		}
	}
}

// The README's first command: every shipped example conforms, so a
// newcomer's first run ends in success.
func TestCheck_Examples(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "check", "../../examples")
	if code != exitOK {
		t.Fatalf("exit %d, want 0 (the examples conform); stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	for _, want := range []string{
		"Ready", "Pending", "Skip", "Fail", // every verdict
		"R3",    // the provider that predates the KEP
		"PASS:", // the summary
		"examples/conformant/ready.yaml", "examples/traces/provisioning.json",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// The README's second checker command: each file in violations/ breaks a
// rule on purpose, and the checker names every one of them.
func TestCheck_Violations(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "check", "../../violations")
	if code != exitViolation {
		t.Fatalf("exit %d, want 1 (the files violate on purpose); stderr:\n%s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	for _, want := range []string{
		"L4", "C1", "L1", "P6", "L6", "R4", "L9", // the deliberate findings
		"FAIL:", "lbstatus explain",
		"violations/traces/stale-acknowledgement.json",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestCheck_ExitStatus(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, content string
		args                []string
		code                int
		stderr              []string // substrings of the single stderr line
	}{
		{name: "conformant", file: "ok.yaml", content: readyYAML, code: exitOK},
		{name: "violation", file: "bad.json", content: noIngressJSON, code: exitViolation},
		{name: "other kinds only", file: "cm.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", code: exitOK,
			stderr: []string{"cm.yaml: no Service in this input"}},
		{name: "a Secret beside a Service", file: "secret.yaml", content: "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\ntype: Opaque\n---\n" + readyYAML,
			code: exitOK},
		{name: "no Service, required", file: "cm2.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", code: exitInput,
			args: []string{"--require-services"}, stderr: []string{"cm2.yaml: no Service in this input"}},
		{name: "empty, required", file: "empty.json", content: "\n", code: exitInput,
			args: []string{"--require-services"}, stderr: []string{"empty.json: no Service in this input"}},
		{name: "malformed JSON", file: "broken.json", content: "{\"kind\": \"Service\",\n \"metadata\": {\"name\": \"a\",}}", code: exitInput,
			stderr: []string{"broken.json:2", "malformed JSON"}},
		{name: "malformed YAML", file: "broken.yaml", content: "kind: Service\nmetadata:\n  name: [a\n", code: exitInput,
			stderr: []string{"broken.yaml:1", "malformed YAML"}},
		{name: "truncated stream", file: "cut.json", content: noIngressJSON + `{"kind":"Service","metadata":{`, code: exitInput,
			stderr: []string{"cut.json", "truncated", "document 2"}},
		{name: "duplicate keys", file: "dup.json", content: `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","name":"b"}}`, code: exitInput,
			stderr: []string{"dup.json:1", `duplicate member name "name"`}},
		{name: "wrong field type", file: "type.json", content: `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"spec":{"ports":[{"port":"http"}]}}`, code: exitInput,
			stderr: []string{"type.json:1", "spec.ports[0].port", "integer"}},
		{name: "huge object", file: "huge.json", content: `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","annotations":{"x":"` + strings.Repeat("x", 5000) + `"}}}`,
			args: []string{"--max-object-bytes", "1000"}, code: exitInput, stderr: []string{"huge.json:1", "larger than the limit of 1000 bytes"}},
		{name: "scalar", file: "num.json", content: "[1]", code: exitInput, stderr: []string{"num.json:1", "items[0]", "not a JSON object"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, dir, tc.file, tc.content)
			code, stdout, stderr := runCmd(t, "", append(append([]string{"check"}, tc.args...), path)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.stderr == nil {
				if stderr != "" {
					t.Errorf("stderr: %s", stderr)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("want one line on stderr, got:\n%s", stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(lines[0], want) {
					t.Errorf("stderr %q lacks %q", lines[0], want)
				}
			}
		})
	}
}

func TestCheck_BadFileDoesNotStopOthers(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "a-bad.json", "{\"kind\":")
	worse := write(t, dir, "b-violation.json", noIngressJSON)
	code, stdout, stderr := runCmd(t, "", "check", bad, filepath.Join(dir, "missing.yaml"), worse)
	if code != exitInput {
		t.Errorf("exit %d, want 2", code)
	}
	if n := strings.Count(stderr, "\n"); n != 2 || !strings.Contains(stderr, "a-bad.json") || !strings.Contains(stderr, "missing.yaml") {
		t.Errorf("stderr:\n%s", stderr)
	}
	// The path and the problem, not the system call ("stat path: ...").
	if want := "lbstatus: " + filepath.Join(dir, "missing.yaml") + ": no such file or directory\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "L4") || !strings.Contains(stdout, "shop/no-ingress") {
		t.Errorf("the file after the bad ones was not checked:\n%s", stdout)
	}
}

func TestCheck_Stdin(t *testing.T) {
	for _, args := range [][]string{{"check"}, {"check", "-"}} {
		code, stdout, _ := runCmd(t, noIngressJSON, args...)
		if code != exitViolation || !strings.Contains(stdout, "(standard input)") || !strings.Contains(stdout, "L4") {
			t.Errorf("%v: exit %d\n%s", args, code, stdout)
		}
	}
	// An input error names standard input as the table does, in text;
	// JSON keeps "-", as Position.Source has it.
	bad := `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"spec":{"ports":5}}`
	code, _, stderr := runCmd(t, bad, "check")
	if want := "lbstatus: (standard input):1 (document 1, byte 76): a: spec.ports: "; code != exitInput || !strings.HasPrefix(stderr, want) {
		t.Errorf("input error on stdin: exit %d, stderr %q, want it to start %q", code, stderr, want)
	}
	if _, stdout, _ := runCmd(t, bad, "check", "-o", "json"); !strings.Contains(stdout, `"errors": ["-:1 (document 1, byte 76)`) {
		t.Errorf("-o json: want the error's position as Position.String gives it:\n%s", stdout)
	}
	// A second "-" would read what the first left, nothing, and pass.
	code, stdout, stderr := runCmd(t, noIngressJSON, "check", "-", "../../examples", "-")
	if code != exitInput || stdout != "" || stderr != "lbstatus: \"-\" is given twice: standard input can be read only once\n" {
		t.Errorf("check - DIR -: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// A Service whose watch ends in its deletion keeps its row, marked, so
// that its last verdict does not read as the Service's state now.
func TestCheck_DeletedServiceIsMarked(t *testing.T) {
	svc := strings.ReplaceAll(noIngressJSON, "\n", "")
	trace := `{"type":"ADDED","object":` + svc + "}\n" + `{"type":"DELETED","object":` + svc + "}\n"
	code, stdout, _ := runCmd(t, trace, "check")
	if code != exitViolation || strings.Count(stdout, "shop/no-ingress (deleted)") != 2 {
		t.Errorf("exit %d\n%s", code, stdout)
	}
	// Seen again after the deletion: another Service, with a row of its
	// own after the deleted one's.
	code, stdout, _ = runCmd(t, trace+svc, "check")
	if code != exitViolation || !strings.Contains(stdout, "shop/no-ingress (deleted)  ") || !strings.Contains(stdout, "\n  shop/no-ingress            ") ||
		!strings.Contains(stdout, "2 observations of 2 Services") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

// A restarted kubectl get -w writes the current state again: the same
// observation, read twice, is one observation, and its findings are
// reported once (spec section 8), in the summary as on the timeline.
func TestCheck_RepeatedObservationCountsOnce(t *testing.T) {
	svc := strings.ReplaceAll(noIngressJSON, "\n", "")
	svc = strings.Replace(svc, `"metadata":{`, `"metadata":{"uid":"u1","resourceVersion":"5",`, 1)
	code, stdout, _ := runCmd(t, svc+"\n"+svc+"\n", "check", "--timeline")
	if code != exitViolation || !strings.Contains(stdout, "Checked 1 input: 1 observation of 1 Service.") ||
		!strings.Contains(stdout, "no-ingress: 1 observation") || !strings.Contains(stdout, "FAIL: 1 violation,") {
		t.Errorf("exit %d, want one observation and one violation:\n%s", code, stdout)
	}
	if _, stdout, _ := runCmd(t, svc+"\n"+svc+"\n", "check", "-o", "json"); !strings.Contains(stdout, `"objects":2,"observations":1,`) {
		t.Errorf("-o json: want 2 objects read, 1 observation:\n%s", stdout)
	}
}

// A restarted kubectl get -w --output-watch-events lists again: an ADDED
// event of a Service already watched, not deleted since, ends a stretch
// that was not seen, and the provider's writes in it are not judged as a
// first write (L1) or a first provisioning (L4). The same state after a
// MODIFIED event was seen from its start, and is judged.
func TestCheck_AddedAgainIsARelist(t *testing.T) {
	meta := `"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"%s"},` +
		`"spec":{"type":"LoadBalancer","ports":[{"port":80,"protocol":"TCP","nodePort":30080}]}`
	created := fmt.Sprintf("{"+meta+"}", "1")
	// Provisioned, served, then reprovisioned while serving: all unseen.
	reprovisioning := fmt.Sprintf("{"+meta+`,"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]},"conditions":[`+
		`{"type":"LoadBalancerProvisioning","status":"True","reason":"Provisioning","message":"","lastTransitionTime":"2026-01-01T00:00:09Z"},`+
		`{"type":"LoadBalancerServing","status":"True","reason":"Serving","message":"","lastTransitionTime":"2026-01-01T00:00:05Z"}]}}`, "9")
	for typ, want := range map[string]int{"ADDED": exitOK, "MODIFIED": exitViolation} {
		trace := `{"type":"ADDED","object":` + created + "}\n" + `{"type":"` + typ + `","object":` + reprovisioning + "}\n"
		if code, stdout, _ := runCmd(t, trace, "check"); code != want || (want == exitOK) == strings.Contains(stdout, "L1 ") {
			t.Errorf("then %s: exit %d, want %d:\n%s", typ, code, want, stdout)
		}
	}
	// Listed again unchanged: nothing was missed, and the next write is
	// judged.
	trace := `{"type":"ADDED","object":` + created + "}\n" + `{"type":"ADDED","object":` + created + "}\n" +
		`{"type":"MODIFIED","object":` + reprovisioning + "}\n"
	if code, stdout, _ := runCmd(t, trace, "check"); code != exitViolation || !strings.Contains(stdout, "L1 ") {
		t.Errorf("listed again unchanged: exit %d, want an L1 violation:\n%s", code, stdout)
	}
}

// -f names inputs as kubectl's does, before the PATH arguments, and a
// comma in it is part of the path.
func TestCheck_Filename(t *testing.T) {
	dir := t.TempDir()
	comma := write(t, dir, "a,b.yaml", readyYAML)
	sub := write(t, dir, "sub/bad.json", noIngressJSON)
	code, want, _ := runCmd(t, "", "check", comma, filepath.Dir(sub))
	if code != exitViolation || !strings.Contains(want, "a,b.yaml: 1 observation") {
		t.Fatalf("check PATH PATH: exit %d\n%s", code, want)
	}
	code, got, errOut := runCmd(t, "", "check", "-f", comma, "--filename", filepath.Dir(sub))
	if code != exitViolation || got != want {
		t.Errorf("check -f PATH --filename PATH: exit %d, stderr %q\n%s\nwant\n%s", code, errOut, got, want)
	}
	code, got, _ = runCmd(t, "", "check", "-f", comma, filepath.Dir(sub))
	if code != exitViolation || got != want {
		t.Errorf("check -f PATH PATH: exit %d\n%s\nwant\n%s", code, got, want)
	}
	code, got, _ = runCmd(t, "", "check", "-R", "-f", comma, filepath.Dir(sub))
	if code != exitViolation || got != want {
		t.Errorf("check -R -f PATH PATH: exit %d\n%s\nwant\n%s", code, got, want)
	}
	if code, _, errOut := runCmd(t, "", "check", "-R=false", dir); code != exitInput || !strings.Contains(errOut, "always searched recursively") {
		t.Errorf("check -R=false DIR: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCmd(t, "", "check", "-k", dir)
	if wantErr := "kubectl kustomize " + dir + " | lbstatus check\n"; code != exitInput || !strings.HasSuffix(errOut, wantErr) {
		t.Errorf("check -k DIR: exit %d, stderr %q, want it to end in %q", code, errOut, wantErr)
	}
	if code, _, errOut := runCmd(t, readyYAML, "check", "-f", "-", "-"); code != exitInput || !strings.Contains(errOut, `"-" is given twice`) {
		t.Errorf(`check -f - -: exit %d, stderr %q`, code, errOut)
	}
}

// A server that takes the connection and never answers is an input error
// after fetchTimeout: "lbstatus check URL" in a CI job waited for ever.
func TestCheck_URLWithoutAnAnswer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release) // before Close, which waits for the handler
	defer func(d time.Duration) { fetchTimeout = d }(fetchTimeout)
	fetchTimeout = 200 * time.Millisecond
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCmd(t, "", "check", srv.URL+"/x.yaml")
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("check of a URL that never answers still runs after 20 s")
	}
	if want := "lbstatus: " + srv.URL + "/x.yaml: no answer within 200ms\n"; code != exitInput || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitInput, want)
	}
}

// A URL is an input, as with kubectl's -f: fetched, its document checked
// under the URL's name; a response that is not 2xx is an input error that
// names the URL, and a server that stops sending does not outlast Ctrl-C.
func TestCheck_URL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/svc.yaml":
			_, _ = io.WriteString(w, readyYAML)
		case "/slow.json":
			_, _ = io.WriteString(w, noIngressJSON)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	code, stdout, stderr := runCmd(t, "", "check", "-f", srv.URL+"/svc.yaml")
	if code != exitOK || !strings.Contains(stdout, srv.URL+"/svc.yaml: 1 observation of 1 Service") || !strings.Contains(stdout, "shop/web") {
		t.Errorf("check -f URL: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	upper := "HTTP" + strings.TrimPrefix(srv.URL, "http") + "/svc.yaml"
	if code, stdout, stderr := runCmd(t, "", "check", upper); code != exitOK || !strings.Contains(stdout, "shop/web") {
		t.Errorf("check %s: exit %d, stderr %q\n%s", upper, code, stderr, stdout)
	}
	code, _, stderr = runCmd(t, "", "check", srv.URL+"/missing.yaml")
	if want := "lbstatus: " + srv.URL + "/missing.yaml: 404 Not Found\n"; code != exitInput || stderr != want {
		t.Errorf("check URL of nothing: exit %d, stderr %q, want %q", code, stderr, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	code, stdout, _ = runCmdContext(ctx, strings.NewReader(""), "check", srv.URL+"/slow.json")
	if code != exitViolation || !strings.Contains(stdout, "INTERRUPTED") || time.Since(start) > 10*time.Second {
		t.Errorf("check of a URL that stops sending, interrupted: exit %d after %v\n%s", code, time.Since(start), stdout)
	}
	// An input error before the interrupt outranks the violation, as it
	// does in a check that ends.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	code, stdout, _ = runCmdContext(ctx, strings.NewReader(""), "check", srv.URL+"/missing.yaml", srv.URL+"/slow.json")
	if code != exitInput || !strings.Contains(stdout, "INTERRUPTED") || !strings.Contains(stdout, "ERROR: 1 violation") {
		t.Errorf("check of a URL of nothing and one that stops sending, interrupted: exit %d, want %d\n%s", code, exitInput, stdout)
	}
}

func TestSkippedKinds(t *testing.T) {
	r := conformance.Report{SkippedOtherKinds: 2, SkippedKinds: []conformance.KindCount{
		{Kind: "Pod", Count: 9}, {Kind: "", Count: 5}, {Kind: "Bad\x1bKind", Count: 4}, {Kind: "D", Count: 3}, {Kind: "E", Count: 2}, {Kind: "F", Count: 1}}}
	if got, want := skippedKinds(r), `Pod: 9, no kind: 5, Bad\x1bKind: 4, D: 3, E: 2, other kinds: 3`; got != want {
		t.Errorf("skippedKinds = %q, want %q", got, want)
	}
	// Five kinds at most, however many the report counts one by one: the
	// sixth and every one after it fall under "other kinds".
	r = conformance.Report{SkippedKinds: []conformance.KindCount{
		{Kind: "A", Count: 8}, {Kind: "B", Count: 7}, {Kind: "C", Count: 6}, {Kind: "D", Count: 5},
		{Kind: "E", Count: 4}, {Kind: "F", Count: 3}, {Kind: "G", Count: 2}, {Kind: "H", Count: 1}}}
	if got, want := skippedKinds(r), `A: 8, B: 7, C: 6, D: 5, E: 4, other kinds: 6`; got != want {
		t.Errorf("eight kinds: skippedKinds = %q, want %q", got, want)
	}
	// One object of a sixth kind is still counted.
	r.SkippedKinds = r.SkippedKinds[:6]
	r.SkippedKinds[5].Count = 1
	if got, want := skippedKinds(r), `A: 8, B: 7, C: 6, D: 5, E: 4, other kinds: 1`; got != want {
		t.Errorf("six kinds: skippedKinds = %q, want %q", got, want)
	}
}

// A Helm chart found in a directory is one input error naming it and how
// to check it, not an error per template; the rest is read.
func TestCheck_HelmChart(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", readyYAML)
	write(t, dir, "chart/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n")
	write(t, dir, "chart/templates/svc.yaml", "kind: Service\nmetadata:\n  labels:\n    {{- include \"web.labels\" . | nindent 4 }}\n")
	code, stdout, stderr := runCmd(t, "", "check", dir)
	chart := filepath.Join(dir, "chart")
	want := "lbstatus: " + chart + ": a Helm chart, whose templates are not manifests until rendered; not read: check what it renders (helm template " + chart + " | lbstatus check)\n"
	if code != exitInput || stderr != want || !strings.Contains(stdout, "a.yaml: 1 observation") {
		t.Errorf("exit %d, stderr %q, want %q\n%s", code, stderr, want, stdout)
	}
}

func TestCheck_Directory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", readyYAML)
	write(t, dir, "sub/b.yml", readyYAML)
	write(t, dir, "sub/deeper/c.json", noIngressJSON)
	write(t, dir, "sub/notes.txt", "not a manifest {")
	code, stdout, stderr := runCmd(t, "", "check", dir)
	if code != exitViolation || stderr != "" {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "\nWhat this rule requires: lbstatus explain L4\n") {
		t.Errorf("want the summary to say how to explain the rule broken:\n%s", stdout)
	}
	if !strings.Contains(stdout, "Checked 3 inputs") {
		t.Errorf("want three inputs read:\n%s", stdout)
	}
	if strings.Index(stdout, "a.yaml") > strings.Index(stdout, "b.yml") || strings.Index(stdout, "b.yml") > strings.Index(stdout, "c.json") {
		t.Errorf("inputs not in lexical order:\n%s", stdout)
	}
}

// A directory without a manifest is named on standard error, and a check
// that requires a Service and reads none says ERROR, as its exit status
// does, not PASS.
func TestCheck_NoServices(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "chart/templates/svc.tpl", readyYAML)
	code, stdout, stderr := runCmd(t, "", "check", dir)
	if code != exitOK || !strings.Contains(stdout, "PASS:") {
		t.Errorf("exit %d, want 0 and PASS\n%s", code, stdout)
	}
	if want := "lbstatus: " + dir + ": no .json, .yaml or .yml file in the directory\n"; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start with %q", stderr, want)
	}
	if _, stdout, _ = runCmd(t, "", "check", "-o", "json", dir); !strings.Contains(stdout, `"inputs":0,`) || !strings.Contains(stdout, `"rules":{}`) {
		t.Errorf("JSON summary of no input, want rules {} as for any input without findings:\n%s", stdout)
	}
	cm := write(t, dir, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	code, stdout, _ = runCmd(t, "", "check", "--require-services", cm)
	if code != exitInput || !strings.Contains(stdout, "ERROR: 0 violations, 0 warnings, 1 notice; no Service, and --require-services requires one.") {
		t.Errorf("exit %d, want 2 and an ERROR that says why\n%s", code, stdout)
	}
}

// mkfifo makes a FIFO, or skips t where there is none.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if out, err := exec.Command("mkfifo", path).CombinedOutput(); err != nil {
		t.Skipf("no FIFO here: %v %s", err, out)
	}
}

// checkWithin runs check, failing t if it has not ended after d: a check
// that waits for a FIFO's writer would wait for ever.
func checkWithin(t *testing.T, ctx context.Context, d time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type ran struct {
		code           int
		stdout, stderr string
	}
	done := make(chan ran, 1)
	go func() {
		code, stdout, stderr := runCmdContext(ctx, strings.NewReader(""), append([]string{"check"}, args...)...)
		done <- ran{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(d):
		t.Fatalf("check %v still runs after %v", args, d)
		return 0, "", ""
	}
}

// In a directory, only regular files and links to them are read: a FIFO
// there would stop the check until something writes to it.
func TestCheck_DirectoryReadsRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.yaml", readyYAML)
	mkfifo(t, filepath.Join(dir, "fifo.yaml"))
	if err := os.Symlink(a, filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, dir)
	if code != exitInput {
		t.Errorf("exit %d, want %d", code, exitInput)
	}
	if !strings.Contains(stderr, "fifo.yaml: not a regular file; not read") {
		t.Errorf("stderr does not name fifo.yaml:\n%s", stderr)
	}
	if !strings.Contains(stdout, "Checked 3 inputs: 2 observations of 2 Services") {
		t.Errorf("want a.yaml and the link to it read:\n%s", stdout)
	}
}

// A link to a directory, found in a directory searched, is searched as
// the directory is, whatever its name: it used to be passed over in
// silence, its manifests never read. Each directory is searched once, so a
// link back up ends, and a directory both linked to and found is read once.
func TestCheck_LinksToDirectoriesAreSearched(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "base/a.yaml", readyYAML)
	write(t, dir, "elsewhere/b.yaml", strings.ReplaceAll(readyYAML, "name: web", "name: other"))
	for link, target := range map[string]string{
		"overlay/base": "../base",      // also found as base/: read once
		"overlay/more": "../elsewhere", // a link with no extension: the only way to b.yaml
		"overlay/up":   "..",           // a loop
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, filepath.Join(dir, "overlay"))
	if code != exitOK || !strings.Contains(stdout, "Checked 2 inputs: 2 observations of 2 Services") {
		t.Errorf("exit %d, want %d and a.yaml and b.yaml read once each:\n%s%s", code, exitOK, stdout, stderr)
	}
}

// A link to a directory, named on the command line, is searched as the
// directory is: walked as a link, it held no manifest, and the check
// passed on nothing.
func TestCheck_LinkToADirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "manifests/a.yaml", readyYAML)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "manifests"), link); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, link)
	if code != exitOK || !strings.Contains(stdout, filepath.Join(link, "a.yaml")+": 1 observation of 1 Service") {
		t.Errorf("exit %d, want %d and link/a.yaml read:\n%s%s", code, exitOK, stdout, stderr)
	}
}

// A directory is known however it is reached: by its path, or by a link
// to it.
func TestDirSet(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a/x.yaml", readyYAML)
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	stat := func(name string) os.FileInfo {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	var s dirSet
	for _, step := range []struct {
		name string
		want bool
	}{{"a", true}, {"a", false}, {"link", false}, {".", true}, {"a/..", false}} {
		if got := s.add(stat(step.name)); got != step.want {
			t.Errorf("add(%s) = %v, want %v", step.name, got, step.want)
		}
	}
}

// BenchmarkExpand searches a tree of 10,000 directories: the time grows
// with their number, not with its square: "lbstatus check" of 80,000 took
// 11.4 s when each directory was compared with every one before it, 1.5 s
// (as long as find) since.
func BenchmarkExpand(b *testing.B) {
	dir := b.TempDir()
	for i := range 100 {
		for j := range 100 {
			if err := os.MkdirAll(filepath.Join(dir, strconv.Itoa(i), strconv.Itoa(j)), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	write(b, dir, "0/0/a.yaml", readyYAML)
	for b.Loop() {
		if files := expand([]string{dir}, nil); len(files) != 1 || files[0].err != nil {
			b.Fatalf("files %+v", files)
		}
	}
}

// An interrupt stops a check that waits to open a FIFO named on the
// command line, which is read like any file once a writer comes.
func TestCheck_InterruptWhileOpening(t *testing.T) {
	dir := t.TempDir()
	// Two FIFOs: the open the interrupt gave up on still waits on the
	// first, and would race the second check for a writer there.
	abandoned, fifo := filepath.Join(dir, "abandoned"), filepath.Join(dir, "fifo")
	mkfifo(t, abandoned)
	mkfifo(t, fifo)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	code, stdout, _ := checkWithin(t, ctx, 5*time.Second, abandoned)
	if code != exitInput || !strings.Contains(stdout, "INTERRUPTED") {
		t.Errorf("exit %d, want %d and a report marked as interrupted:\n%s", code, exitInput, stdout)
	}

	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = w.WriteString(readyYAML)
			w.Close()
		}
	}()
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, fifo)
	if code != exitOK || !strings.Contains(stdout, "1 observation of 1 Service") {
		t.Errorf("exit %d, want %d and the Service read:\n%s%s", code, exitOK, stdout, stderr)
	}
}

// Without an input problem, -o json's errors are an empty list, not
// null: a consumer iterates over them either way.
func TestCheck_JSONErrorsEmpty(t *testing.T) {
	code, stdout, _ := runCmd(t, noIngressJSON, "check", "-o", "json")
	if code != exitViolation || !strings.Contains(stdout, "\n\"errors\": [],\n") {
		t.Errorf("exit %d, want 1 and \"errors\": []:\n%s", code, stdout)
	}
}

func TestCheck_JSONOutput(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "bad.json", noIngressJSON+`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"}}`)
	code, stdout, _ := runCmd(t, "", "check", "-o", "json", path, filepath.Join(dir, "missing.json"))
	if code != exitInput {
		t.Fatalf("exit %d", code)
	}
	var report struct {
		Findings []conformance.Finding `json:"findings"`
		Errors   []string              `json:"errors"`
		Summary  struct {
			conformance.Summary
			Inputs int `json:"inputs"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if len(report.Errors) != 1 || !strings.Contains(report.Errors[0], "missing.json") {
		t.Errorf("errors %v", report.Errors)
	}
	s := report.Summary
	if s.Inputs != 2 || s.Services != 1 || s.Skipped != 1 || s.Findings.Violations != 1 || s.Rules["L4"].Violations != 1 || s.Rules["Input"].Notices != 1 {
		t.Errorf("summary %+v", s)
	}
	var l4 *conformance.Finding
	for i := range report.Findings {
		if report.Findings[i].Rule == "L4" {
			l4 = &report.Findings[i]
		}
	}
	if l4 == nil || l4.Object.Name != "no-ingress" || l4.Field != "status.loadBalancer.ingress" || l4.Position == nil || l4.Position.Line != 1 {
		t.Errorf("L4 finding %+v", l4)
	}
}

func TestCheck_CheckerFlags(t *testing.T) {
	dir := t.TempDir()
	legacy := write(t, dir, "legacy.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: legacy}\nspec: {type: LoadBalancer}\nstatus: {loadBalancer: {ingress: [{ip: 192.0.2.9}]}}\n")
	if code, _, _ := runCmd(t, "", "check", legacy); code != exitOK {
		t.Errorf("without --require-conditions: exit %d, want 0", code)
	}
	if code, stdout, _ := runCmd(t, "", "check", "--require-conditions", legacy); code != exitViolation || !strings.Contains(stdout, "R3") {
		t.Errorf("with --require-conditions: exit %d\n%s", code, stdout)
	}

	foreign := write(t, dir, "foreign.yaml", strings.Replace(readyYAML, "type: LoadBalancer", "type: LoadBalancer\n  loadBalancerClass: other.example/lb", 1))
	if code, _, _ := runCmd(t, "", "check", foreign); code != exitOK {
		t.Errorf("without --class: exit %d", code)
	}
	if code, stdout, _ := runCmd(t, "", "check", "--class", "mine.example/lb", foreign); code != exitViolation || !strings.Contains(stdout, "P1") {
		t.Errorf("with --class: exit %d\n%s", code, stdout)
	}
	// --class '' names the provider of Services without a class: P1 is
	// on, and every class is another's. It used to be dropped as an empty
	// list, turning P1 off. A list is split at commas, as kubectl's are.
	for _, args := range [][]string{{"--class", ""}, {"--class", "a.example/lb,b.example/lb"}, {"--class=a.example/lb", "--class="}} {
		if code, stdout, _ := runCmd(t, "", append(append([]string{"check"}, args...), foreign)...); code != exitViolation || !strings.Contains(stdout, "P1") {
			t.Errorf("%q: exit %d, want P1 on\n%s", args, code, stdout)
		}
	}
	if code, _, _ := runCmd(t, "", "check", "--class", "a.example/lb,other.example/lb", foreign); code != exitOK {
		t.Errorf("--class naming its class in a list: exit %d, want 0", code)
	}

	for _, bad := range [][]string{{"check", "-o", "yaml"}, {"check", "--no-such-flag"}, {"check", "--max-object-bytes", "0"}} {
		if code, _, stderr := runCmd(t, "", bad...); code != exitInput || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
	if code, stdout, _ := runCmd(t, "", "check", "--help"); code != exitOK || !strings.Contains(stdout, "--require-conditions") {
		t.Errorf("--help: exit %d", code)
	}
}

func TestCheck_VerboseListsVerdicts(t *testing.T) {
	path := write(t, t.TempDir(), "ok.yaml", readyYAML)
	_, quiet, _ := runCmd(t, "", "check", path)
	_, verbose, _ := runCmd(t, "", "check", "-v", path)
	if strings.Contains(quiet, "verdict Ready") || !strings.Contains(verbose, "verdict Ready (T3)") {
		t.Errorf("quiet:\n%s\nverbose:\n%s", quiet, verbose)
	}
}

func TestCheck_DecodeOnly(t *testing.T) {
	path := write(t, t.TempDir(), "bad.json", noIngressJSON+noIngressJSON)
	code, stdout, _ := runCmd(t, "", "check", "--decode-only", path)
	if code != exitOK || !strings.Contains(stdout, "decoded 2 objects (2 Services)") {
		t.Errorf("exit %d: %s", code, stdout)
	}
	code, stdout, stderr := runCmd(t, "", "check", "--scan-only", path)
	if code != exitOK || !strings.Contains(stdout, "decoded 2 objects (0 Services)") || stderr != "" {
		t.Errorf("--scan-only: exit %d: %s%s", code, stdout, stderr)
	}
	// What is not JSON is an input error, which --scan-only counts too.
	bad := write(t, t.TempDir(), "bad.json", "{]")
	if code, stdout, _ := runCmd(t, "", "check", "--scan-only", bad); code != exitInput || !strings.Contains(stdout, "; 1 input errors") {
		t.Errorf("--scan-only of what is not JSON: exit %d, want 2 and the error counted: %s", code, stdout)
	}
}

// An interrupt stops --decode-only as it stops a check: the count says
// what was decoded until then, and the exit status is 2, not a pass.
func TestCheck_DecodeOnlyInterrupted(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go func() { _, _ = io.WriteString(w, noIngressJSON) }() // then nothing
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	code, stdout, _ := runCmdContext(ctx, r, "check", "--decode-only")
	if code != exitInput || !strings.Contains(stdout, "decoded 1 objects (1 Services)") {
		t.Errorf("exit %d, want 2 and the object decoded: %s", code, stdout)
	}
}

func TestExplain(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "explain", "l6")
	if code != exitOK || !strings.HasPrefix(stdout, "L6: ") || !strings.Contains(stdout, "lastTransitionTime") || !strings.Contains(stdout, "violation, warning") {
		t.Errorf("explain l6: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCmd(t, "", "explain", "Z9"); code != exitInput || !strings.Contains(stderr, `unknown rule "Z9"`) {
		t.Errorf("unknown rule: exit %d %q", code, stderr)
	}
	code, stdout, _ = runCmd(t, "", "explain", "L4", "c1")
	if l4, c1 := strings.Index(stdout, "L4: "), strings.Index(stdout, "\n\nC1: "); code != exitOK || l4 != 0 || c1 < 0 {
		t.Errorf("explain L4 c1: exit %d, want L4's text, then C1's\n%s", code, stdout)
	}
	if code, stdout, stderr := runCmd(t, "", "explain", "C1", "Z9"); code != exitInput || stdout != "" || !strings.Contains(stderr, `unknown rule "Z9"`) {
		t.Errorf("explain C1 Z9: exit %d, stderr %q, want nothing printed\n%s", code, stderr, stdout)
	}
	code, stdout, _ = runCmd(t, "", "explain")
	if code != exitOK {
		t.Fatalf("explain: exit %d", code)
	}
	for _, id := range specRuleIDs() {
		if !strings.Contains(stdout, "\n"+id+" ") && !strings.HasPrefix(stdout, id+" ") {
			t.Errorf("the list lacks %s", id)
		}
		if code, out, _ := runCmd(t, "", "explain", id); code != exitOK || len(out) < 80 {
			t.Errorf("explain %s: exit %d, %q", id, code, out)
		}
	}
}

// specRuleIDs lists every rule ID of the specification.
func specRuleIDs() []string {
	var ids []string
	for _, f := range []struct {
		prefix string
		n      int
	}{{"C", 7}, {"L", 9}, {"R", 5}, {"P", 6}, {"T", 5}, {"G", 6}} {
		for i := 1; i <= f.n; i++ {
			ids = append(ids, f.prefix+string(rune('0'+i)))
		}
	}
	return ids
}

// runCmdContext runs the command line in-process with a context and a
// reader for standard input.
func runCmdContext(ctx context.Context, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runContext(ctx, args, stdin, &out, &errOut, defaultEnv())
	return code, out.String(), errOut.String()
}

// An interrupt stops a check that waits for input, at once, and reports
// what was read, marked as interrupted: exit 1 when a violation was found,
// else 2 (spec section 8, "Reading inputs").
func TestCheck_InterruptReportsWhatWasRead(t *testing.T) {
	for _, tc := range []struct {
		name, first string
		code        int
	}{
		{"after a violation", noIngressJSON, exitViolation},
		{"without a violation", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"plain"}}`, exitInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, format := range []string{"text", "json"} {
				r, w := io.Pipe()
				defer w.Close()
				go func() { _, _ = io.WriteString(w, tc.first) }() // then nothing, as "sleep | lbstatus check"
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(300*time.Millisecond, cancel)
				start := time.Now()
				code, stdout, _ := runCmdContext(ctx, r, "check", "-o", format)
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("%s: the check took %v after the interrupt", format, took)
				}
				if code != tc.code {
					t.Errorf("%s: exit %d, want %d\n%s", format, code, tc.code, stdout)
				}
				if marker := map[string]string{"text": "INTERRUPTED", "json": `"interrupted":true`}[format]; !strings.Contains(stdout, marker) {
					t.Errorf("%s output is not marked as interrupted:\n%s", format, stdout)
				}
				if !strings.Contains(stdout, map[string]string{"text": "1 observation", "json": `"observations":1`}[format]) {
					t.Errorf("%s output does not report the observation read:\n%s", format, stdout)
				}
			}
		})
	}
}

// An interrupt in the middle of a document, as in a watch piped as YAML,
// where a document ends only at the next "---", says where the document
// starts, on standard error and in the summary: it was read in part, and
// not checked. That is no input error: the result and the exit status are
// those of what was read (spec section 8, "Reading inputs").
func TestCheck_InterruptNamesTheUnfinishedDocument(t *testing.T) {
	n := len(noIngressJSON)
	for _, tc := range []struct {
		name, in   string
		at, atJSON string // where the unfinished document starts; "" for none
		code       int
	}{
		{"YAML", readyYAML + "---\n" + readyYAML[:40], "(standard input):13 (document 2)", `{"source":"-","document":2,"line":13,"offset":-1}`, exitInput},
		{"JSON after a violation", noIngressJSON + noIngressJSON[:30], fmt.Sprintf("(standard input):6 (document 2, byte %d)", n), fmt.Sprintf(`{"source":"-","document":2,"line":6,"offset":%d}`, n), exitViolation},
		{"YAML, none begun after ---", readyYAML + "---\n", "", "", exitInput},
	} {
		for _, format := range []string{"text", "json", "html"} {
			r, w := io.Pipe()
			go func() { _, _ = io.WriteString(w, tc.in) }() // then nothing, the pipe left open
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			code, stdout, stderr := runCmdContext(ctx, r, "check", "-o", format)
			w.Close()
			note, wantStderr := tc.at+": not checked: the input was interrupted before the document ended", ""
			if tc.at != "" {
				wantStderr = "lbstatus: " + note + "\n"
			}
			if code != tc.code || stderr != wantStderr {
				t.Errorf("%s, -o %s: exit %d, stderr %q; want %d, %q", tc.name, format, code, stderr, tc.code, wantStderr)
			}
			var said bool
			switch format {
			case "text":
				said = strings.Contains(stdout, "\nINTERRUPTED: the check was stopped; this reports what was read until then.\n"+note+".\n")
			case "json":
				said = strings.Contains(stdout, `"unfinished":`)
				if said && !strings.Contains(stdout, `"unfinished":`+tc.atJSON+`,`) {
					t.Errorf("%s, -o json: want \"unfinished\":%s:\n%s", tc.name, tc.atJSON, stdout)
				}
				if !json.Valid([]byte(stdout)) || !strings.Contains(stdout, `"inputErrors":0`) {
					t.Errorf("%s, -o json: not valid, or an input error:\n%s", tc.name, stdout)
				}
			case "html":
				said = strings.Contains(stdout, note)
			}
			if said != (tc.at != "") || strings.Contains(stdout, "ERROR") {
				t.Errorf("%s, -o %s: the summary says the document was not checked: %v, want %v:\n%s", tc.name, format, said, tc.at != "", stdout)
			}
		}
	}
}

// zeros is /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// An input of NUL bytes (/dev/zero) is not text: the check stops at once.
func TestCheck_BinaryInputStops(t *testing.T) {
	done := make(chan int, 1)
	var stderr string
	go func() {
		code, _, errOut := runCmdContext(context.Background(), zeros{}, "check")
		stderr = errOut
		done <- code
	}()
	select {
	case code := <-done:
		if code != exitInput || !strings.Contains(stderr, "not text") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the check reads /dev/zero without end")
	}
}

// Names and messages from the input reach no terminal raw, in any output
// format (spec section 8, "Reading inputs").
func TestCheck_EscapesControlCharacters(t *testing.T) {
	in := `{"kind":"Service","apiVersion":"v1","metadata":{"name":"evil\u001b[2J\u202e","namespace":"ns\u009b1m"},` +
		`"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]},"conditions":[` +
		`{"type":"LoadBalancerServing","status":"True","reason":"Serv\u0007ing","message":"\u001b]0;owned\u0007","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`
	dir := t.TempDir()
	bad := write(t, dir, "evil\x1b.json", "{")
	for _, format := range []string{"text", "json"} {
		args := []string{"check", "-o", format, "-", bad}
		if format == "text" {
			args = append(args, "-v") // -o json refuses it
		}
		_, stdout, stderr := runCmd(t, in, args...)
		for _, out := range []string{stdout, stderr} {
			for _, r := range out {
				if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
					t.Fatalf("%s output holds %U raw:\n%s", format, r, out)
				}
			}
		}
		if format == "json" {
			var v any
			if err := json.Unmarshal([]byte(stdout), &v); err != nil || !strings.Contains(stdout, `\u202e`) {
				t.Errorf("JSON output is not valid, or lost the escaped name (%v):\n%s", err, stdout)
			}
		} else if !strings.Contains(stdout, `evil\x1b[2J\u202e`) {
			t.Errorf("text output does not show the name escaped:\n%s", stdout)
		}
	}
}

// A resourceVersion is any string the input holds: each finding's row in
// the text and each finding's object in JSON quote its first KiB, marked
// as cut, as the timeline and L6's message do, not 64 KiB per finding.
func TestCheck_LongResourceVersionIsCut(t *testing.T) {
	rv := strings.Repeat("7", 64<<10)
	in := strings.Replace(noIngressJSON, `"namespace":"shop"`, `"namespace":"shop","resourceVersion":"`+rv+`"`, 1)
	for _, args := range [][]string{{"-o", "text", "-v"}, {"-o", "json"}} {
		format := args[1]
		code, stdout, _ := runCmd(t, in, append([]string{"check"}, args...)...)
		if code != exitViolation || !strings.Contains(stdout, "L4") {
			t.Fatalf("-o %s: exit %d, want %d with L4:\n%.2000s", format, code, exitViolation, stdout)
		}
		// Two findings (L4 and the verdict), each with the first KiB.
		if len(stdout) > 8<<10 || !strings.Contains(stdout, rv[:input.MaxTextBytes]+"… (") {
			t.Errorf("-o %s: %d bytes of output; want each resourceVersion cut after %d, marked as cut", format, len(stdout), input.MaxTextBytes)
		}
	}
}

// A namespace and a name are any string in a file: every row, finding
// line and JSON finding that names a Service, or a skipped object, quotes
// their first KiB, marked as cut, as it quotes a long resourceVersion. Two
// Services whose names differ past that KiB only are still two, each with
// its own row and findings.
func TestCheck_LongNamesAreCut(t *testing.T) {
	long := strings.Repeat("a", 64<<10)
	named := func(ns, name string) string {
		return strings.Replace(noIngressJSON, `"name":"no-ingress","namespace":"shop"`, `"name":"`+name+`","namespace":"`+ns+`"`, 1)
	}
	in := named("shop", long+"1") + named("shop", long+"2") + named(long, "web") +
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + long + `"}}`
	cut := long[:input.MaxTextBytes] + "… ("
	for _, args := range [][]string{{"-o", "text", "-v"}, {"-o", "json"}, {"-o", "html"}, {"--timeline"}} {
		code, stdout, stderr := runCmd(t, in, append([]string{"check"}, args...)...)
		if code != exitViolation || strings.Count(stdout, "L4") < 3 {
			t.Fatalf("%v: exit %d, want %d with L4 on each Service:\n%.2000s%.2000s", args, code, exitViolation, stdout, stderr)
		}
		if len(stdout) > 64<<10 || !strings.Contains(stdout, cut) {
			t.Errorf("%v: %d bytes of output; want each name cut after %d, marked as cut", args, len(stdout), input.MaxTextBytes)
		}
		if args[0] == "--timeline" || args[1] == "text" {
			if !strings.Contains(stdout, "3 observations of 3 Services") || strings.Count(stdout, "  1 violation") != 3 {
				t.Errorf("%v: want three Services, each on a row of its own with its violation:\n%.3000s", args, stdout)
			}
		}
	}
}

// Verdict notices, however many, never hide a violation behind "... and
// N more": the text caps findings per severity.
func TestCheck_VerboseDoesNotHideViolations(t *testing.T) {
	// Pending, then Ready (two verdict notices), then Serving without an
	// ingress (an L4 violation).
	var b bytes.Buffer
	broken := conformancetest.Step(0, 2)
	broken.ResourceVersion += "0"
	broken.Status.LoadBalancer.Ingress = nil
	for _, svc := range []any{conformancetest.Step(0, 1), conformancetest.Step(0, 2), broken} {
		if err := json.NewEncoder(&b).Encode(svc); err != nil {
			t.Fatal(err)
		}
	}
	path := write(t, t.TempDir(), "trace.json", b.String())
	code, stdout, _ := runCmd(t, "", "check", "-v", "--max-findings", "1", path)
	if code != exitViolation {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if !strings.Contains(stdout, "violation  L4") {
		t.Errorf("the violation is not listed:\n%s", stdout)
	}
	if !strings.Contains(stdout, "more notice") {
		t.Errorf("the notices over the cap are not counted:\n%s", stdout)
	}
}

// Skipped objects cost the text report a count, not a line each.
func TestCheck_ManySkippedObjects(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%d"}}`+"\n", i)
	}
	b.WriteString(noIngressJSON)
	code, stdout, _ := runCmd(t, b.String(), "check")
	if code != exitViolation {
		t.Fatalf("exit %d", code)
	}
	// Counted per kind on the input's first line, not listed.
	if !strings.Contains(stdout, "20000 other objects skipped (ConfigMap: 20000)") || strings.Contains(stdout, "cm-0") {
		t.Errorf("the skipped objects are not counted per kind:\n%s", stdout)
	}
	// Verbose lists them, up to the cap.
	_, stdout, _ = runCmd(t, b.String(), "check", "-v")
	if lines := strings.Count(stdout, "\n"); lines > 100 {
		t.Errorf("-v: %d lines of output for 20000 skipped objects", lines)
	}
	if !strings.Contains(stdout, "ConfigMap cm-0: skipped") || !strings.Contains(stdout, "... and 19950 more findings about other objects") {
		t.Errorf("-v: the skipped objects are not listed up to the cap:\n%s", stdout)
	}
}

// version names the build for a bug report: the module version, the commit
// when the build recorded one, the rules' version and Go's.
func TestVersion(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "3e24cd4"}, {Key: "vcs.modified", Value: "true"}}}
	want := "lbstatus v0.3.0\n  commit: 3e24cd4 (with uncommitted changes)\n  rules:  " + suite.SpecVersion + "\n  go:     " + runtime.Version() + "\n"
	if got := versionText(info, true); got != want {
		t.Errorf("versionText = %q, want %q", got, want)
	}
	// A build that recorded a modified tree but no revision names no commit.
	info = &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}}
	if got := versionText(info, true); strings.Contains(got, "commit:") || !strings.HasPrefix(got, "lbstatus (devel)\n  rules:  ") {
		t.Errorf("modified, without a revision: %q", got)
	}
	if got := versionText(nil, false); !strings.HasPrefix(got, "lbstatus (unknown)\n  rules:  ") {
		t.Errorf("without build information: %q", got)
	}
	for _, arg := range []string{"version", "--version"} {
		if code, stdout, stderr := runCmd(t, "", arg); code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "lbstatus ") || !strings.Contains(stdout, "  rules:  "+suite.SpecVersion) {
			t.Errorf("lbstatus %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
	// --help is the command's help with an example, not the version.
	if code, stdout, stderr := runCmd(t, "", "version", "--help"); code != exitOK || stderr != "" ||
		!strings.HasPrefix(stdout, "Usage: lbstatus version") || !strings.Contains(stdout, "Example:") {
		t.Errorf("lbstatus version --help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, stderr := runCmd(t, "", "version", "extra"); code != exitInput || stdout != "" || strings.Count(stderr, "\n") != 1 {
		t.Errorf("lbstatus version extra: exit %d, stdout %q, stderr %q; want 2 and one line", code, stdout, stderr)
	}
}

// An input's first line counts its input errors, one as well as many,
// beside the Services that could be read.
func TestCheck_InputLineCountsItsErrors(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "mixed.json", noIngressJSON+`{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","name":"b"}}`+"\n")
	code, stdout, stderr := runCmd(t, "", "check", path)
	if code != exitInput {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{
		"mixed.json: 1 observation of 1 Service, 1 input error\n",
		// The summary says where the problem is told, and an input error
		// outweighs the violation.
		"\nERROR: 1 violation, 0 warnings, 1 notice, 1 input error (on standard error).\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, `duplicate member name "name"`) {
		t.Errorf("stderr: %s", stderr)
	}
}

// --max-findings 0 lists no finding, but a Service with findings still
// gets its heading and a line that counts them: the CHECK column is not
// the only trace of a violation.
func TestCheck_MaxFindingsZeroStillCounts(t *testing.T) {
	code, stdout, _ := runCmd(t, noIngressJSON, "check", "--max-findings", "0")
	if code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stdout, "\n    shop/no-ingress\n      ... and 1 more violation (use -o json for all)\n") {
		t.Errorf("the finding over the cap is not counted under its Service:\n%s", stdout)
	}
	if strings.Contains(stdout, "violation  L4") {
		t.Errorf("a finding is listed despite --max-findings 0:\n%s", stdout)
	}
	// One Service is enough for the legend of the table's columns.
	if !strings.Contains(stdout, "\nVERDICT is what a client or test concludes") || !strings.Contains(stdout, "\nCHECK counts what breaks") {
		t.Errorf("the legend of VERDICT and CHECK is missing:\n%s", stdout)
	}
}

// Without -v, a notice over --max-findings is counted too (here R3's on a
// LoadBalancer Service no provider has handled), while the verdict notice,
// which the VERDICT column shows, is not.
func TestCheck_MaxFindingsCountsNoticesWithoutVerbose(t *testing.T) {
	in := `{"kind":"Service","apiVersion":"v1","metadata":{"name":"new","namespace":"shop"},"spec":{"type":"LoadBalancer"}}`
	code, stdout, _ := runCmd(t, in, "check", "--max-findings", "0")
	if code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if !strings.Contains(stdout, "\n    shop/new\n      ... and 1 more notice (use -o json for all)\n") {
		t.Errorf("the R3 notice over the cap is not counted, or the verdict notice is:\n%s", stdout)
	}
}

// -v lists the findings about skipped objects up to --max-findings and
// counts the rest, even when only one is left over.
func TestCheck_VerboseCountsOneOmittedOtherFinding(t *testing.T) {
	in := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-1"}}` + "\n" +
		`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-2"}}` + "\n" + noIngressJSON
	_, stdout, _ := runCmd(t, in, "check", "-v", "--max-findings", "1")
	if !strings.Contains(stdout, "ConfigMap cm-1: skipped") || strings.Contains(stdout, "ConfigMap cm-2") {
		t.Errorf("-v --max-findings 1: not the first skipped object alone:\n%s", stdout)
	}
	if !strings.Contains(stdout, "    ... and 1 more finding about other objects (use -o json for all)\n") {
		t.Errorf("-v --max-findings 1: the second skipped object is not counted:\n%s", stdout)
	}
	if !strings.Contains(stdout, "Checked 1 input: 1 observation of 1 Service; 2 other objects skipped.\n") {
		t.Errorf("the summary does not count the skipped objects:\n%s", stdout)
	}
}

// The text lists only what there is: without a Service, no legend of the
// table's VERDICT and CHECK columns; with -v and every skipped object
// listed, no "... and 0 more".
func TestCheck_TextSaysNothingOfWhatIsNotThere(t *testing.T) {
	in := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-1"}}`
	_, stdout, _ := runCmd(t, in, "check", "-v")
	if !strings.Contains(stdout, "ConfigMap cm-1: skipped") {
		t.Errorf("-v does not list the skipped object:\n%s", stdout)
	}
	if strings.Contains(stdout, "VERDICT") || strings.Contains(stdout, "more finding") {
		t.Errorf("a legend of no table, or a count of no finding left out:\n%s", stdout)
	}
}

// The text table's columns: a condition without a reason is its status
// alone, a deprecated LoadBalancerPortsError alone fills DEGRADED, and
// CHECK and the totals count warnings (here C3, C4, and L9 for a ClusterIP
// Service that keeps its conditions) apart from violations; INGRESS shows
// the first address and how many more.
func TestCheck_TableColumns(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "check", "testdata/columns.json")
	if code != exitViolation {
		t.Errorf("exit %d, want 1", code)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "shop/") && len(f) >= 8 {
			rows[f[0]] = f
		}
	}
	for name, want := range map[string]string{
		"shop/leftover": "shop/leftover ClusterIP - True/Serving - - - 1 warning",
		"shop/ports":    "shop/ports LoadBalancer False/Complete True PortsError:True/PortsUnsupported 192.0.2.1 +1 Ready 2 violations, 1 warning",
	} {
		if got := strings.Join(rows[name], " "); got != want {
			t.Errorf("row of %s:\n got %q\nwant %q", name, got, want)
		}
	}
	for _, want := range []string{
		"\nFAIL: 2 violations, 2 warnings, 1 notice.\n",
		"\n  violations: C5 (1)  P5 (1)\n",
		"\n  warnings:   C4 (1)  L9 (1)\n",
		"\n  notices:    T3 (1)\n",
		"\nWhat these rules require: lbstatus explain C4 C5 L9 P5\n",
		// A finding names the line of the input it was made on.
		"\n      warning    L9    status.conditions: the Service is of type ClusterIP, not LoadBalancer, yet still carries LoadBalancerServing; the provider removes them with the load balancer [line 1]\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// A check with notices only points at explain with an example, and one
// with a single broken rule names it.
func TestCheck_ExplainHint(t *testing.T) {
	_, stdout, _ := runCmd(t, readyYAML, "check")
	if !strings.HasSuffix(stdout, "\nWhat a rule requires: lbstatus explain RULE (for example \"lbstatus explain L4\").\n") {
		t.Errorf("notices only:\n%s", stdout)
	}
	_, stdout, _ = runCmd(t, noIngressJSON, "check")
	if !strings.HasSuffix(stdout, "\nWhat this rule requires: lbstatus explain L4\n") {
		t.Errorf("one broken rule:\n%s", stdout)
	}
}

// A check interrupted before its first input reads none of them, and
// reports the interrupt, not a missing Service: what it did not read may
// hold some, so neither --require-services nor the "no Service" line
// applies.
func TestCheck_InterruptedBeforeAnyServiceIsNotMissing(t *testing.T) {
	path := write(t, t.TempDir(), "svc.yaml", readyYAML)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, stdout, stderr := runCmdContext(ctx, strings.NewReader(""), "check", "--require-services", path)
	if code != exitInput || !strings.HasPrefix(stdout, "Checked 0 inputs:") || !strings.Contains(stdout, "\nINTERRUPTED: 0 violations, 0 warnings, 0 notices.\n") || strings.Contains(stdout, "--require-services") {
		t.Errorf("exit %d, want 2 and INTERRUPTED:\n%s", code, stdout)
	}
	if stderr != "" {
		t.Errorf("stderr %q, want nothing", stderr)
	}
}

// --require-services with a Service read changes nothing: the report
// passes, in every word of it.
func TestCheck_RequireServicesSatisfied(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		code, stdout, stderr := runCmd(t, readyYAML, "check", "--require-services", "-o", format)
		if code != exitOK || stderr != "" || strings.Contains(stdout, "ERROR") || strings.Contains(stdout, "--require-services") || strings.Contains(stdout, "noServices") {
			t.Errorf("-o %s: exit %d, stderr %q\n%s", format, code, stderr, stdout)
		}
	}
}

// An https:// PATH is fetched too: here from a server whose certificate
// no one trusts, which is an input error naming the URL, not a file that
// is not there.
func TestCheck_HTTPSURLIsFetched(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, readyYAML)
	}))
	defer srv.Close()
	code, _, stderr := runCmd(t, "", "check", srv.URL+"/svc.yaml")
	if code != exitInput || !strings.Contains(stderr, srv.URL+"/svc.yaml") || !strings.Contains(stderr, "certificate") || strings.Contains(stderr, "no such file") {
		t.Errorf("exit %d, stderr %q; want the URL fetched and its certificate refused", code, stderr)
	}
}

// A directory's manifests are found whatever the case of their extension.
func TestCheck_DirectoryExtensionCase(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "WEB.YAML", readyYAML)
	write(t, dir, "notes.TXT", "not a manifest")
	code, stdout, stderr := runCmd(t, "", "check", dir)
	if code != exitOK || stderr != "" || !strings.Contains(stdout, "WEB.YAML: 1 observation of 1 Service") || strings.Contains(stdout, "notes.TXT") {
		t.Errorf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}

// Every command's --help, and lbstatus's own, exits 0 with an example, on
// stdout, where a pager or grep reads it. "lbstatus help COMMAND" is the
// same as "lbstatus COMMAND --help".
func TestHelp_EveryCommandHasAnExample(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"check", "--help"}, {"watch", "--help"}, {"describe", "--help"},
		{"explain", "--help"}, {"conformance", "--help"}, {"version", "--help"},
	} {
		code, stdout, stderr := runCmd(t, "", args...)
		if code != exitOK || !strings.Contains(stdout, "Example") || stderr != "" {
			t.Errorf("lbstatus %s: exit %d, want 0 and an example on stdout; stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
		if len(args) == 2 {
			_, help, _ := runCmd(t, "", "help", args[0])
			if help != stdout {
				t.Errorf("lbstatus help %s differs from lbstatus %s --help:\n%s", args[0], args[0], help)
			}
		}
	}
	for _, args := range [][]string{{"help", "frobnicate"}, {"help", "check", "watch"}} {
		if code, stdout, stderr := runCmd(t, "", args...); code != exitInput || stdout != "" || !strings.HasPrefix(stderr, "lbstatus: ") {
			t.Errorf("lbstatus %s: exit %d, stdout %q, stderr %q; want 2 and the problem on stderr", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestTuneGC_TimelinesKeepGoDefaults: a check without timelines lets the
// heap grow to three times what is live within 192 MiB; with timelines,
// which keep more than that live at scale, the collector would run without
// pause under the limit, so Go's defaults stay. Both are undone after.
func TestTuneGC_TimelinesKeepGoDefaults(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	settings := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1) // a negative limit only reads it
	}
	percent, limit := settings()
	for _, timelines := range []bool{false, true} {
		restore := tuneGC(timelines)
		p, l := settings()
		switch {
		case timelines && (p != percent || l != limit):
			t.Errorf("with timelines: GOGC %d, limit %d; want Go's %d, %d", p, l, percent, limit)
		case !timelines && (p != 200 || l != 192<<20):
			t.Errorf("without timelines: GOGC %d, limit %d; want 200, 192 MiB", p, l)
		}
		restore()
		if p, l := settings(); p != percent || l != limit {
			t.Errorf("timelines %v: after restore, GOGC %d, limit %d; want %d, %d", timelines, p, l, percent, limit)
		}
	}
}
