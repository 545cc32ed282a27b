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
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantUsageError runs lbstatus with args and requires bad usage: exit
// status 2, nothing on stdout, and one line on stderr that says want.
func wantUsageError(t *testing.T, want string, args ...string) {
	t.Helper()
	code, stdout, stderr := runCmd(t, "", args...)
	if code != exitInput || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("lbstatus %q: exit %d, stdout %q, stderr %q; want 2 and one line saying %q", args, code, stdout, stderr, want)
	}
}

// A negative --request-timeout is one the user cannot have meant: clientcmd
// would take it as no limit at all. Every cluster command refuses it
// before talking to the cluster.
func TestClusterFlags_NegativeRequestTimeout(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	for _, cmd := range []string{"watch", "describe", "conformance"} {
		wantUsageError(t, `--request-timeout "-5s": want a duration of zero`, cmd, "--kubeconfig", kubeconfig, "--request-timeout", "-5s")
		wantUsageError(t, `--request-timeout "soon"`, cmd, "--kubeconfig", kubeconfig, "--request-timeout", "soon")
	}
}

// conformance tests one provider: a second --class used to replace the
// first without a word, and the run tested a provider the user had not
// meant last.
func TestConformance_ClassGivenTwice(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	wantUsageError(t, `--class "example.com/a" was given already`, "conformance", "--kubeconfig", kubeconfig, "--class", "example.com/a", "--class", "example.com/b")
	wantUsageError(t, `--class "" was given already`, "conformance", "--kubeconfig", kubeconfig, "--class", "", "--class", "example.com/b")
}

// --list and --render write what they always write: a report file or
// format asked for with them would be dropped without a word, and a CI
// job would then look for a report that was never written.
func TestConformance_ListAndRenderTakeNoReportFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--list", "--report", "report.yaml"},
		{"--list", "-o", "json"},
		{"--list", "-o", "yaml"},
	} {
		wantUsageError(t, "--list prints a table of the tests: it takes neither --report nor -o", append([]string{"conformance"}, args...)...)
	}
	wantUsageError(t, "--render takes neither --list, --report nor -o", "conformance", "--render", "report.yaml", "-o", "json")
}

// A --class or --relevant-annotation that no Service can have judged no
// Service by it: check passed, as if the provider had been checked. check,
// watch and describe refuse it as conformance does; an empty --class stays
// the class of Services without one.
func TestCheckerFlags_ValuesNoServiceCanHave(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	for _, cmd := range [][]string{{"check", "../../examples"}, {"watch", "--kubeconfig", kubeconfig}, {"describe", "--kubeconfig", kubeconfig}} {
		wantUsageError(t, `lbstatus: --class "example.com/my lb": not a loadBalancerClass the apiserver accepts`, append(cmd, "--class", "example.com/my lb")...)
		wantUsageError(t, `lbstatus: --class "b/"`, append(cmd, "--class", "", "--class", "a,b/")...)
		wantUsageError(t, `lbstatus: --relevant-annotation "example.com/a b": not an annotation key`, append(cmd, "--relevant-annotation", "example.com/a b")...)
	}
	if code, _, stderr := runCmd(t, "", "check", "--class", "", "--class", "example.com/lb", "../../examples"); code != exitOK {
		t.Errorf("check --class '' --class example.com/lb: exit %d, stderr %q", code, stderr)
	}
}

// A misspelt command is bad usage like any other: one line naming it and
// the commands there are, not the whole usage on standard error.
func TestRun_UnknownCommandIsOneLine(t *testing.T) {
	wantUsageError(t, `lbstatus: unknown command "chek": the commands are check, watch,`, "chek", "./examples")
	wantUsageError(t, `lbstatus: unknown command "chek"`, "help", "chek")
}

// --max-findings limits the text table; -o json and -o html keep every
// finding, so the limit was dropped without a word, as --timeline and
// --html-services with the wrong output are not.
func TestCheck_MaxFindingsGoesWithText(t *testing.T) {
	for _, format := range []string{"json", "html"} {
		wantUsageError(t, "lbstatus: --max-findings goes with -o text; -o "+format+" keeps every finding", "check", "-o", format, "--max-findings", "3", "../../examples")
	}
	if code, _, stderr := runCmd(t, "", "check", "-o", "text", "--max-findings", "3", "../../examples"); code != exitOK {
		t.Errorf("-o text --max-findings 3: exit %d, stderr %q", code, stderr)
	}
}

// -v lists more in the text table; -o json and -o html keep every finding
// already, so "-o json -v" was accepted and did nothing.
func TestCheck_VerboseGoesWithText(t *testing.T) {
	for _, format := range []string{"json", "html"} {
		for _, v := range []string{"-v", "--verbose"} {
			wantUsageError(t, "lbstatus: -v goes with -o text; -o "+format+" keeps every finding", "check", "-o", format, v, "../../examples")
		}
	}
	if code, _, stderr := runCmd(t, "", "check", "-o", "text", "-v", "../../examples"); code != exitOK {
		t.Errorf("-o text -v: exit %d, stderr %q", code, stderr)
	}
}

// A context, cluster or user the kubeconfig does not have is one line that
// names the kubeconfig: clientcmd's message names none, and with several
// files on KUBECONFIG the user could not tell where to look.
func TestClusterFlags_MissingContextNamesTheKubeconfig(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	for _, cmd := range []string{"watch", "describe", "conformance"} {
		wantUsageError(t, "lbstatus: loading kubeconfig "+kubeconfig+`: context "nope" does not exist`, cmd, "--kubeconfig", kubeconfig, "--context", "nope")
		wantUsageError(t, "lbstatus: loading kubeconfig "+kubeconfig+`: cluster "nope" does not exist`, cmd, "--kubeconfig", kubeconfig, "--cluster", "nope")
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	wantUsageError(t, "lbstatus: loading kubeconfig "+kubeconfig+`: context "nope" does not exist`, "watch", "--context", "nope")
}

// A URL that cannot be fetched is told as a file that cannot be read is:
// the input first, then the problem, not Go's "Get "URL": ...".
func TestCheck_URLNotReachedNamesTheInputFirst(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/svc.yaml"
	srv.Close() // nothing listens there now
	code, _, stderr := runCmd(t, "", "check", url)
	if want := "lbstatus: " + url + ": dial tcp "; code != exitInput || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2 and one line starting %q", code, stderr, want)
	}
}

// fullDisk fails every write, as standard output on a full disk does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) {
	return 0, errors.New("write /dev/stdout: no space left on device")
}

// A report that cannot be written is no report: "lbstatus check -o json
// ./manifests > report.json" on a full disk exited 0 with nothing in the
// file, and the CI job passed on it.
func TestCheck_ReportNotWrittenIsAnError(t *testing.T) {
	for _, format := range []string{"text", "json", "html"} {
		var stderr strings.Builder
		code := run([]string{"check", "-o", format, "../../examples"}, strings.NewReader(""), fullDisk{}, &stderr)
		if want := "lbstatus: writing the report: write /dev/stdout: no space left on device\n"; code != exitInput || stderr.String() != want {
			t.Errorf("-o %s: exit %d, stderr %q; want 2 and %q", format, code, stderr.String(), want)
		}
	}
}

// A report file named for one format and written in the other was found
// wrong only after the run: "--report report.json" wrote YAML, -o's
// default, and jq failed on it. The mismatch is bad usage before any
// request; a name of neither format takes either.
func TestConformance_ReportNamedForTheOtherFormat(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	dir := t.TempDir()
	for _, tc := range []struct{ report, output, want string }{
		{"report.json", "", "the report would be YAML (-o yaml); give -o json"},
		{"report.yaml", "json", "the report would be JSON (-o json); give -o yaml"},
		{"report.yml", "json", "the report would be JSON (-o json); give -o yaml"},
	} {
		args := []string{"conformance", "--kubeconfig", kubeconfig, "--report", filepath.Join(dir, tc.report)}
		if tc.output != "" {
			args = append(args, "-o", tc.output)
		}
		wantUsageError(t, tc.want, args...)
	}
	for _, args := range [][]string{{"--report", filepath.Join(dir, "report.json"), "-o", "json"}, {"--report", filepath.Join(dir, "report.txt")}} {
		code, _, stderr := runCmd(t, "", append([]string{"conformance", "--kubeconfig", kubeconfig}, args...)...)
		if code != exitInput || !strings.Contains(stderr, "https://127.0.0.1:1") {
			t.Errorf("%q: exit %d, stderr %q; want the run to go on to the unreachable server", args, code, stderr)
		}
	}
}

// "--report -" made a file named "-" (and "-.html") where the user meant
// standard output, as "-" is elsewhere.
func TestConformance_ReportDash(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "https://127.0.0.1:1")
	t.Chdir(t.TempDir())
	wantUsageError(t, "lbstatus: --report -: the report goes to standard output without --report", "conformance", "--kubeconfig", kubeconfig, "--report", "-")
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was made`)
	}
}

// What explain, version and conformance --list print is all they do:
// "lbstatus explain L4 > /dev/full" exited 0 with nothing written. A
// write error is exit status 2 with one line, as for check.
func TestPrintingCommands_OutputNotWrittenIsAnError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		what string
	}{
		{[]string{"explain"}, "the rules"},
		{[]string{"explain", "L4"}, "the rules"},
		{[]string{"version"}, "the version"},
		{[]string{"conformance", "--list"}, "the list"},
	} {
		var stderr strings.Builder
		code := run(tc.args, strings.NewReader(""), fullDisk{}, &stderr)
		if want := "lbstatus: writing " + tc.what + ": write /dev/stdout: no space left on device\n"; code != exitInput || stderr.String() != want {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), want)
		}
	}
}

// A URL's password is sent to its server and shown nowhere: not in the
// report, in any format, nor in an error, which CI logs and shared pages
// would keep.
func TestCheck_URLPasswordNotShown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pw, _ := r.BasicAuth(); pw != "s3cret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/svc.yaml":
			_, _ = io.WriteString(w, readyYAML)
		case "/bad.json":
			_, _ = io.WriteString(w, "{")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://ci:s3cret@", 1)
	shown := strings.Replace(srv.URL, "http://", "http://ci:xxxxx@", 1)
	for _, format := range []string{"text", "json", "html"} {
		code, stdout, stderr := runCmd(t, "", "check", "-o", format, base+"/svc.yaml", base+"/bad.json", base+"/missing.yaml")
		if code != exitInput || strings.Contains(stdout+stderr, "s3cret") {
			t.Errorf("-o %s: exit %d, the password is shown:\nstderr %s\n%s", format, code, stderr, stdout)
		}
		if !strings.Contains(stdout, shown+"/svc.yaml") || !strings.Contains(stderr, shown+"/missing.yaml: 404 Not Found") ||
			!strings.Contains(stderr, shown+"/bad.json") {
			t.Errorf("-o %s: the URLs are not named, their password hidden:\nstderr %s\n%s", format, stderr, stdout)
		}
	}
}

// Nor is the password of a URL that cannot be parsed: Go's error quotes
// the URL whole, and its detail may quote what follows the password's
// colon as a port.
func TestCheck_UnparseableURLPasswordNotShown(t *testing.T) {
	for _, url := range []string{
		"http://ci:s3cret@127.0.0.1:1/%zz",   // a bad escape after the host
		"http://ci:s3cret/x@127.0.0.1:1/",    // a "/" in the password
		"https://ci:s3cret@127.0.0.1:bad/x",  // a bad port
		"https://ci:s3c@ret@127.0.0.1:bad/x", // an "@" in the password
	} {
		for _, format := range []string{"text", "json", "html"} {
			code, stdout, stderr := runCmd(t, "", "check", "-o", format, url)
			if code != exitInput || strings.Contains(stdout+stderr, "s3cret") || !strings.Contains(stderr, "xxxxx@127.0.0.1") {
				t.Errorf("%s -o %s: exit %d, want 2 and the URL named without its password:\nstderr %s\n%s", url, format, code, stderr, stdout)
			}
		}
	}
}

// Nor is help that could not be written printed: "lbstatus check --help
// > /dev/full" exited 0. Every command's help, and the program's, is
// exit status 2 with one line when its write fails.
func TestHelp_OutputNotWrittenIsAnError(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"-h"}, {"help", "check"},
		{"check", "--help"}, {"check", "-h"}, {"watch", "--help"}, {"describe", "--help"},
		{"explain", "--help"}, {"conformance", "--help"}, {"version", "--help"},
	} {
		var stderr strings.Builder
		code := run(args, strings.NewReader(""), fullDisk{}, &stderr)
		if want := "lbstatus: writing the help: write /dev/stdout: no space left on device\n"; code != exitInput || stderr.String() != want {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, stderr.String(), want)
		}
	}
}

// Nor is the password of a cluster's URL (--server, or a kubeconfig's
// server) shown by the commands that reach a cluster: the URL was named
// raw in their messages, and client-go's error for one that cannot be
// used quotes it raw too.
func TestClusterCommands_ServerPasswordNotShown(t *testing.T) {
	for _, server := range []string{
		"https://ci:s3cret@127.0.0.1:1",      // refused: named in the error
		"https://ci:s3cret@127.0.0.1:1/%zz",  // cannot be parsed
		"https://ci:s3cret/x@127.0.0.1:1/",   // a "/" in the password
		"https://ci:s3cret@127.0.0.1:bad/x/", // a bad port
		"ci:s3cret@127.0.0.1:1",              // no scheme: taken as http://
	} {
		for _, cmd := range []string{"describe", "watch", "conformance"} {
			code, stdout, stderr := runCmd(t, "", cmd, "--kubeconfig", os.DevNull, "--request-timeout", "2s", "--server", server)
			if code != exitInput || strings.Contains(stdout+stderr, "s3cret") || !strings.Contains(stderr, "xxxxx@127.0.0.1") {
				t.Errorf("%s --server %s: exit %d, want 2 and the server named without its password:\nstderr %s\n%s", cmd, server, code, stderr, stdout)
			}
		}
	}
}

// A report written to an input it reads: "lbstatus check x.yaml >>
// x.yaml" added the report to the manifest, and with ">" the shell has
// emptied it, which the check then passed as an input without a Service.
// Standard output is compared with each input named by its identity, so
// a link to the file is that file too; the check is refused on one line.
func TestCheck_StdoutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	path, link := filepath.Join(dir, "svc.yaml"), filepath.Join(dir, "link.yaml")
	if err := os.WriteFile(path, []byte(readyYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path, link); err != nil {
		t.Skip(err)
	}
	for _, in := range []string{path, link} {
		out, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		code := run([]string{"check", "-o", "json", in}, strings.NewReader(""), out, &stderr)
		out.Close()
		if want := "standard output is this input"; code != exitInput || !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("check %s >> %s: exit %d, stderr %q; want 2 and one line saying %q", in, path, code, stderr.String(), want)
		}
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != readyYAML {
		t.Errorf("the input became %q (%v)", got, err)
	}
	// Another file as standard output is no input.
	out, err := os.Create(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if code := run([]string{"check", "-o", "json", path}, strings.NewReader(""), out, io.Discard); code != exitOK {
		t.Errorf("check %s > report.json: exit %d, want 0", path, code)
	}
}

// A report written into a directory being checked ("check . > report.json",
// a common CI habit) is not read back as an input: it is being written, and
// what it holds so far is no manifest.
func TestCheck_ReportInACheckedDirectoryIsNotRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte(readyYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	if err := os.WriteFile(report, []byte(`{"partial": `), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(report, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr strings.Builder
	if code := run([]string{"check", "-o", "json", dir}, strings.NewReader(""), out, &stderr); code != exitOK || stderr.Len() != 0 {
		t.Errorf("check %s >> %s: exit %d, stderr %q; want 0 and nothing", dir, report, code, stderr.String())
	}
	got, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"services": 1`) && !strings.Contains(string(got), `"services":1`) {
		t.Errorf("the report does not count the one Service: %s", got)
	}
}

// A number or a boolean that does not parse is said as what the flag
// wants, not in the words of Go's strconv.
func TestFlags_ValueThatDoesNotParseSaysWhatIsWanted(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--max-object-bytes", "10k"}, `lbstatus: invalid argument "10k" for "--max-object-bytes" flag: want a whole number` + "\n"},
		{[]string{"check", "--require-services=maybe"}, `lbstatus: invalid argument "maybe" for "--require-services" flag: want true or false` + "\n"},
		{[]string{"conformance", "--parallel", "99999999999999999999"}, `lbstatus: invalid argument "99999999999999999999" for "--parallel" flag: out of range` + "\n"},
	} {
		var stdout, stderr strings.Builder
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != exitInput || stderr.String() != tc.want {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
