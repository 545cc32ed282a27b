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
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/lbstatus/lbstatus/conformance/suite"
)

func TestConformance_Usage(t *testing.T) {
	// A server that is not there: the run cannot start.
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help shows an example", []string{"--help"}, exitOK, "lbstatus conformance --class example.com/lb"},
		{"bad format", []string{"-o", "xml"}, exitInput, `unknown output format "xml"`},
		{"arguments", []string{"Basic"}, exitInput, "takes no arguments"},
		{"bad parallelism", []string{"--parallel", "0"}, exitInput, "--parallel 0"},
		{"no server", []string{"--kubeconfig", kubeconfig, "--request-timeout", "2s"}, exitInput, "https://127.0.0.1:1"},
		// Before any request: the server is not there.
		{"unknown test", []string{"--kubeconfig", kubeconfig, "--run", "Basic,Nope"}, exitInput, `lbstatus: --run: "Nope" names no test; the tests are Basic, Feature/IPFamilies,`},
		// Before any request: values every test would fail on.
		{"zero deadline", []string{"--kubeconfig", kubeconfig, "--conditions-timeout", "0"}, exitInput, "lbstatus: --conditions-timeout 0s: want a positive duration"},
		{"negative deadline", []string{"--kubeconfig", kubeconfig, "--provision-timeout", "-1m"}, exitInput, "lbstatus: --provision-timeout -1m0s: want a positive duration"},
		{"negative settle period", []string{"--kubeconfig", kubeconfig, "--settle-period", "-1s"}, exitInput, "lbstatus: --settle-period -1s: want a positive duration"},
		{"zero cleanup timeout", []string{"--kubeconfig", kubeconfig, "--cleanup-timeout", "0"}, exitInput, "lbstatus: --cleanup-timeout 0s: want a positive duration"},
		{"negative cleanup timeout", []string{"--kubeconfig", kubeconfig, "--cleanup-timeout", "-5s"}, exitInput, "lbstatus: --cleanup-timeout -5s: want a positive duration"},
		// A positive one is taken: the run goes on to the server.
		{"cleanup timeout", []string{"--kubeconfig", kubeconfig, "--request-timeout", "2s", "--cleanup-timeout", "5m"}, exitInput, "https://127.0.0.1:1"},
		{"help shows the cleanup timeout", []string{"--help"}, exitOK, "--cleanup-timeout duration"},
		{"bad class", []string{"--kubeconfig", kubeconfig, "--class", "example.com/Bad!"}, exitInput, `lbstatus: --class "example.com/Bad!": not a loadBalancerClass the apiserver accepts`},
		{"the foreign class", []string{"--kubeconfig", kubeconfig, "--class", suite.ForeignClass}, exitInput, `lbstatus: --class "` + suite.ForeignClass + `": ForeignClass uses that class`},
		{"bad namespace prefix", []string{"--kubeconfig", kubeconfig, "--namespace-prefix", "Conformance"}, exitInput, `lbstatus: --namespace-prefix "Conformance": the namespace of Basic would start "Conformance-basic-"`},
		{"namespace prefix too long for one test", []string{"--kubeconfig", kubeconfig, "--run", "Basic,Feature/", "--namespace-prefix", strings.Repeat("a", 40)},
			exitInput, "the namespace of Feature/SessionAffinity would start"},
		{"not an address", []string{"--kubeconfig", kubeconfig, "--load-balancer-ip", "198.18.0"}, exitInput, `lbstatus: --load-balancer-ip "198.18.0": want an IPv4 or IPv6 address`},
		{"the last address", []string{"--kubeconfig", kubeconfig, "--load-balancer-ip", "255.255.255.255"}, exitInput, `lbstatus: --load-balancer-ip "255.255.255.255": want an IPv4 or IPv6 address that has a next one`},
		{"bad annotation key", []string{"--kubeconfig", kubeconfig, "--relevant-annotation", "example.com/a b"}, exitInput, `lbstatus: --relevant-annotation "example.com/a b": not an annotation key`},
		// Before any request: a report that cannot be written would be
		// lost after a run of many minutes.
		{"report in no folder", []string{"--kubeconfig", kubeconfig, "--report", "/nonexistent/report.yaml"}, exitInput, "lbstatus: --report: /nonexistent/report.yaml: no such file or directory"},
		// The name reaches the terminal escaped, as every other does.
		{"report in no folder, escaped", []string{"--kubeconfig", kubeconfig, "--report", "/nonexistent\x1b[31m/report.yaml"}, exitInput, `lbstatus: --report: /nonexistent\x1b[31m/report.yaml: no such file or directory`},
		// Each test makes a namespace of its own: -n and -A would be ignored.
		{"a namespace", []string{"-n", "shop"}, exitInput, "unknown shorthand flag: 'n'"},
		{"every namespace", []string{"--all-namespaces"}, exitInput, "unknown flag: --all-namespaces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"conformance"}, tc.args...), nil, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			out, name := stderr.String(), "stderr"
			if tc.code == exitOK {
				out, name = stdout.String(), "stdout" // help
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("%s %q does not say %q", name, out, tc.want)
			}
			if tc.code == exitInput && strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
				t.Errorf("stderr has more than one line: %q", stderr.String())
			}
		})
	}
}

// The check that the report can be written changes nothing: a report
// already there keeps its content, and a new path is not left behind, when
// the run then cannot start.
func TestConformance_ReportCheckedBeforeTheRun(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	dir := t.TempDir()
	old := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(old, []byte("result: success\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, report := range []string{old, filepath.Join(dir, "new.yaml")} {
		var stderr bytes.Buffer
		code := run([]string{"conformance", "--kubeconfig", kubeconfig, "--request-timeout", "2s", "--report", report}, nil, io.Discard, &stderr)
		if code != exitInput || !strings.Contains(stderr.String(), "https://127.0.0.1:1") {
			t.Errorf("--report %s: exit %d, stderr %q; want 2 naming the server", report, code, stderr.String())
		}
	}
	if got, err := os.ReadFile(old); err != nil || string(got) != "result: success\n" {
		t.Errorf("the report already there became %q (%v)", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only old.yaml: %v", len(entries), entries)
	}

	// A link to a report not yet written stays a link to nothing: the
	// check made the file it names, and left it there, empty.
	link, target := filepath.Join(dir, "link.yaml"), filepath.Join(t.TempDir(), "latest.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	var stderr bytes.Buffer
	if code := run([]string{"conformance", "--kubeconfig", kubeconfig, "--request-timeout", "2s", "--report", link}, nil, io.Discard, &stderr); code != exitInput {
		t.Errorf("--report %s: exit %d, stderr %q; want 2", link, code, stderr.String())
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the check left %s behind, which the link names", target)
	}
}

// --list prints the tests --run selects, with their rules, without a
// cluster.
func TestConformance_List(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"conformance", "--list", "--run", "Feature/,Recreate", "--kubeconfig", "/nonexistent"}, nil, &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if code != exitOK || stderr.Len() != 0 || len(lines) != 8 || !strings.HasPrefix(lines[0], "TEST") ||
		!strings.HasPrefix(lines[1], "Feature/IPFamilies ") || !strings.HasSuffix(lines[7], "C6, C7") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr.String(), stdout.String())
	}
	// Both report formats are accepted, yaml and json alike: the run
	// goes on to the cluster, which is not there.
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	for _, format := range []string{"yaml", "json"} {
		stderr.Reset()
		if code := run([]string{"conformance", "-o", format, "--kubeconfig", kubeconfig}, nil, &bytes.Buffer{}, &stderr); code != exitInput || !strings.Contains(stderr.String(), "https://127.0.0.1:1") {
			t.Errorf("-o %s: exit %d, stderr %q; want the unreachable server", format, code, stderr.String())
		}
	}
}

// TestProgressLine: a test's reason may quote what the provider wrote, and
// the line goes to a terminal: it is escaped.
func TestProgressLine(t *testing.T) {
	tr := suite.TestReport{Name: "refuse-unsupported", Result: suite.TestFailed, Duration: "3s",
		Reason: "violation of L4 on web: message \x1b[2J\u202eQQ"}
	got := progressLine(tr)
	want := `FAILED  refuse-unsupported                       3s  violation of L4 on web: message \x1b[2J\u202eQQ`
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// 2: a server that never answers is exit 2 after --request-timeout, and at
// once on an interrupt, naming the server, as watch and describe do.
func TestConformance_SilentServer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timeout   string
		interrupt bool
		want      string
	}{
		{"request timeout", "200ms", false, "context deadline exceeded"},
		{"interrupt", "1h", true, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, arrived := silentServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.interrupt {
				go func() {
					<-arrived
					cancel()
				}()
			}
			done := make(chan int, 1)
			var errOut bytes.Buffer
			go func() {
				done <- runContext(ctx, []string{"conformance", "--kubeconfig", writeKubeconfig(t, srv.URL), "--request-timeout", tc.timeout, "--run", "Basic"},
					nil, io.Discard, &errOut, defaultEnv())
			}()
			select {
			case code := <-done:
				if code != exitInput || !strings.Contains(errOut.String(), srv.URL) || !strings.Contains(errOut.String(), tc.want) {
					t.Errorf("exit %d, stderr %q; want 2, naming %s: %s", code, errOut.String(), srv.URL, tc.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("still running 20 s later against a server that never answers")
			}
		})
	}
}

// An interrupted run says so also when a test failed before the
// interrupt: its exit status is then 1, but the report is not of every
// test. It used to say nothing. A run whose cleanup left something on the
// cluster (namespaces, load balancers) is no success either, as RunT
// fails the go test: it exited 0.
func TestSuiteExit(t *testing.T) {
	for _, tc := range []struct {
		result                 suite.Result
		interrupted, leftovers bool
		code                   int
	}{
		{suite.ResultSuccess, false, false, exitOK},
		{suite.ResultFailure, false, false, exitViolation},
		{suite.ResultFailure, true, false, exitViolation},
		{suite.ResultPartial, true, false, exitInput},
		{suite.ResultSuccess, false, true, exitInput},
		{suite.ResultPartial, false, true, exitInput},
		{suite.ResultFailure, false, true, exitViolation},
	} {
		var stderr bytes.Buffer
		code := suiteExit(tc.result, tc.interrupted, tc.leftovers, &stderr)
		if said := strings.Contains(stderr.String(), "conformance interrupted"); code != tc.code || said != tc.interrupted {
			t.Errorf("%s, interrupted %v, leftovers %v: exit %d, said %q; want %d", tc.result, tc.interrupted, tc.leftovers, code, stderr.String(), tc.code)
		}
	}
}

// The client allows 50 requests a second, not client-go's 5, which
// throttled a conformance run of a few tests at once and logged each wait.
func TestConnect_RateLimit(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	cf := addClusterFlags(fs, false)
	if err := fs.Parse([]string{"--kubeconfig", writeKubeconfig(t, "https://192.0.2.1:6443")}); err != nil {
		t.Fatal(err)
	}
	conn, err := cf.connect()
	if err != nil {
		t.Fatal(err)
	}
	if qps := conn.client.CoreV1().RESTClient().GetRateLimiter().QPS(); qps != 50 {
		t.Errorf("QPS %v, want 50", qps)
	}
}

// What the server says when the run cannot start reaches the terminal
// escaped, as watch and describe escape it: a proxy or webhook in front of
// the apiserver may answer anything.
func TestConformance_ServerErrorEscaped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/version" {
			_, _ = io.WriteString(w, `{"major":"1","minor":"34","gitVersion":"v1.34.0"}`)
			return
		}
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"boom\u001b[2J\u202e"}`)
	}))
	defer srv.Close()
	var stderr bytes.Buffer
	code := run([]string{"conformance", "--kubeconfig", writeKubeconfig(t, srv.URL), "--run", "Basic"}, nil, io.Discard, &stderr)
	if code != exitInput || strings.ContainsAny(stderr.String(), "\x1b\u202e") || !strings.Contains(stderr.String(), `boom\x1b[2J\u202e`) ||
		strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2 and one line with the server's words escaped", code, stderr.String())
	}
}

// A report, or its HTML form, written over a file the run reads destroyed
// it after a run of many minutes: "--kubeconfig k --report k" left the
// report where the kubeconfig was. What would be replaced is found by the
// file's identity, not its name: a link to the kubeconfig, another name of
// it, the token file it names and the HTML form beside the report are
// refused alike, before the run, on one line.
func TestConformance_ReportReplacesNoInput(t *testing.T) {
	dir := t.TempDir()
	kubeconfig, token := filepath.Join(dir, "config"), filepath.Join(dir, "token")
	content := "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster: {server: \"https://127.0.0.1:1\"}\n" +
		"users:\n- name: test\n  user: {tokenFile: " + token + "}\ncontexts:\n- name: test\n  context: {cluster: test, user: test}\ncurrent-context: test\n"
	for path, data := range map[string]string{kubeconfig: content, token: "secret\n"} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link, hard := filepath.Join(dir, "link"), filepath.Join(dir, "hard")
	if err := os.Symlink(kubeconfig, link); err != nil {
		t.Skip(err)
	}
	if err := os.Link(kubeconfig, hard); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(kubeconfig, filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  string // KUBECONFIG
	}{
		{args: []string{"--kubeconfig", kubeconfig, "--report", kubeconfig}},
		{args: []string{"--report", kubeconfig}, env: kubeconfig},
		{args: []string{"--kubeconfig", kubeconfig, "--report", link}},
		{args: []string{"--kubeconfig", link, "--report", hard}},
		{args: []string{"--kubeconfig", kubeconfig, "--report", token}},
		{args: []string{"--kubeconfig", kubeconfig, "--report", filepath.Join(dir, "report.yaml")}},
	} {
		t.Setenv("KUBECONFIG", tc.env)
		var stderr bytes.Buffer
		code := run(append([]string{"conformance", "--request-timeout", "2s"}, tc.args...), nil, io.Discard, &stderr)
		if code != exitInput || !strings.Contains(stderr.String(), "which the run reads; name another file") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line refusing the report", tc.args, code, stderr.String())
		}
	}
	for path, data := range map[string]string{kubeconfig: content, token: "secret\n"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != data {
			t.Errorf("%s became %q (%v)", path, got, err)
		}
	}
}

// closeFails is a report file whose writes succeed and whose close fails,
// as one on NFS does when the data reaches the server.
type closeFails struct{ bytes.Buffer }

func (*closeFails) Close() error { return errors.New("input/output error") }

// A report file whose close failed was taken as written: the run exited
// with the status of its tests while the report was lost. The close's
// error is the write's, which the command says and exits 2 on.
func TestWriteAndClose_CloseFails(t *testing.T) {
	var file closeFails
	report := &suite.Report{APIVersion: suite.ReportAPIVersion, Kind: suite.ReportKind, Result: suite.ResultSuccess}
	if err := writeAndClose(&file, report, suite.FormatYAML); err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Errorf("writeAndClose: %v, want the close's error", err)
	}
	if !strings.Contains(file.String(), "kind: ConformanceReport") {
		t.Errorf("wrote %q, want the report", file.String())
	}
}

// failingWriter is a standard output whose reader went away.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A report that could not be written ended the command before it said
// what the run found: the namespaces left on the cluster and the summary
// were not said, and the report was all there was of them. They are said
// first, the failure last, and the status is 2 whatever the tests did.
func TestConformance_ReportWriteFailsAfterTheSummary(t *testing.T) {
	report := &suite.Report{APIVersion: suite.ReportAPIVersion, Kind: suite.ReportKind, Result: suite.ResultFailure,
		Statistics: suite.Statistics{Passed: 1, Failed: 1},
		Tests: []suite.TestReport{
			{Name: "Basic", Result: suite.TestPassed},
			{Name: "Recreate", Result: suite.TestFailed, Cleanup: "namespace lbstatus-conformance-recreate-x still there"},
		}}
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		report string // --report
		stdout io.Writer
		code   int
		last   string // the last line of stderr
	}{
		{"stdout", "", failingWriter{}, exitInput, "lbstatus: writing the report: broken pipe"},
		{"a file in no folder", filepath.Join(dir, "gone", "report.yaml"), io.Discard, exitInput, "lbstatus: --report: " + filepath.Join(dir, "gone", "report.yaml") + ": no such file or directory"},
		{"a file", filepath.Join(dir, "report.yaml"), io.Discard, exitViolation, "lbstatus: failure: 1 passed, 0 skipped, 1 failed, 0 not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			f := conformanceFlags{report: tc.report}
			code := f.finish(report, suite.FormatYAML, false, tc.stdout, &stderr)
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			want := []string{
				"lbstatus: Recreate: namespace lbstatus-conformance-recreate-x still there",
				"lbstatus: failure: 1 passed, 0 skipped, 1 failed, 0 not run",
			}
			if tc.last != want[1] {
				want = append(want, tc.last)
			}
			if code != tc.code || !slices.Equal(lines, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %d and:\n%s", code, stderr.String(), tc.code, strings.Join(want, "\n"))
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("the HTML report: %v", err)
	}
}
