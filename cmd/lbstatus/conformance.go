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
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/conformance/suite"
)

const conformanceUsage = `Usage: lbstatus conformance [flags]

Runs the conformance suite of KEP-4631 (section 9 of the rules) against the
load-balancer provider of a live cluster: each test creates Services in a
namespace of its own, watches every status write the provider makes, checks
each one against the rules, and deletes its namespace afterwards. The report
(YAML or JSON) lists each test's result and the support of each feature.

The provider under test is selected by --class, or, without it, is the one
that serves Services without a loadBalancerClass. Each test makes a
namespace of its own (--namespace-prefix), so there is no -n or -A. The
account needs to create, list and delete namespaces, and to create, watch
and delete Services. A namespace still there --cleanup-timeout (30s) after
the last test ended (a finalizer holds it) is reported as left on the
cluster, as one that could not be deleted is.

Exit status: 0 no test failed (the report says success, or partial when a
test was skipped or not run), 1 a test failed, 2 bad usage, a cluster that
cannot be reached, an account that may not create namespaces or watch
Services in them, a report that could not be written (or closed: said
last, after the count of tests by result), a cleanup that left something
on the cluster (said on standard error), or an interrupt (SIGINT,
SIGTERM: the tests under way stop, clean up, and the report is still
written).

Examples:
  # Test the provider of class example.com/lb; write the report to a file.
  lbstatus conformance --class example.com/lb --report report.yaml
  # Only the basic and spec-change tests, JSON on stdout.
  lbstatus conformance --run Basic,SpecChange -o json
  # The feature tests, through another kubeconfig context.
  lbstatus conformance --context kind-kind --run Feature/
  # The tests and the rules each checks.
  lbstatus conformance --list
  # Render the HTML form of a report kept earlier (writes report.html).
  lbstatus conformance --render report.yaml

Flags:
`

// conformanceFlags are the flags of lbstatus conformance.
type conformanceFlags struct {
	cluster        *clusterFlags
	opts           suite.Options
	run            []string
	output         string
	report         string
	noRequired     bool
	implementation suite.Implementation
}

func runConformance(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f conformanceFlags
	fs := pflag.NewFlagSet("conformance", pflag.ContinueOnError)
	fs.SetOutput(stdout) // --help; bad usage is one line on stderr
	f.cluster = addClusterFlags(fs, false)
	fs.Var(&singleClass{v: &f.opts.LoadBalancerClass}, "class", "loadBalancerClass of the provider under test; empty: the provider of Services without a class")
	fs.StringSliceVar(&f.run, "run", nil, `tests to run, by name (Basic, SpecChange, ...) or prefix ending in "/" (Feature/); default all`)
	list := fs.Bool("list", false, "list the tests (those --run selects) and their rules, and exit; no cluster is needed")
	render := fs.String("render", "", "write the HTML form of this report file (YAML or JSON, as --report wrote it) beside it, and exit; no cluster is needed")
	fs.IntVar(&f.opts.Parallelism, "parallel", suite.DefaultParallelism, "how many tests run at once")
	fs.DurationVar(&f.opts.ConditionsTimeout, "conditions-timeout", suite.DefaultConditionsTimeout, "deadline for a Service's first conditions (L8)")
	fs.DurationVar(&f.opts.ProvisionTimeout, "provision-timeout", suite.DefaultProvisionTimeout, "deadline for provisioning to end (L8), and for a load balancer to be taken down (TypeChange, Recreate)")
	fs.DurationVar(&f.opts.SettlePeriod, "settle-period", suite.DefaultSettlePeriod, "how long ForeignClass waits for a write that must not come, once the provider has written on a Service of its own")
	fs.DurationVar(&f.opts.CleanupTimeout, "cleanup-timeout", suite.DefaultCleanupTimeout, "deadline for deleting each test's Services and namespace, and then for the run's namespaces to go: one still there is reported as left on the cluster")
	fs.StringVar(&f.opts.LoadBalancerIP, "load-balancer-ip", suite.DefaultLoadBalancerIP, "the address Feature/LoadBalancerIP requests")
	fs.StringVar(&f.opts.NamespacePrefix, "namespace-prefix", suite.DefaultNamespacePrefix, "start of the name of each test's namespace")
	fs.StringSliceVar(&f.opts.RelevantAnnotations, "relevant-annotation", nil, "annotation key the provider reads, whose change it must acknowledge (L6); repeatable")
	fs.BoolVar(&f.noRequired, "no-required-features", false, "the provider reads no required features (neither the spec field nor the annotation): skip the tests that require one")
	fs.StringVarP(&f.output, "output", "o", "yaml", "report format: yaml or json")
	fs.StringVar(&f.report, "report", "", "write the report to this file instead of stdout, and its HTML form beside it (the extension replaced by .html); a .json name goes with -o json, a .yaml or .yml name with -o yaml")
	fs.StringVar(&f.implementation.Organization, "organization", "", "the provider's organization, for the report")
	fs.StringVar(&f.implementation.Project, "project", "", "the provider's project, for the report")
	fs.StringVar(&f.implementation.URL, "url", "", "the provider's URL, for the report")
	fs.StringVar(&f.implementation.Version, "version", "", "the provider's version, for the report")
	fs.StringSliceVar(&f.implementation.Contact, "contact", nil, "who to contact about the provider, for the report; repeatable")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), conformanceUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbstatus: conformance takes no arguments, got %q\n", fs.Args())
		return exitInput
	}
	format := suite.Format(f.output)
	if format != suite.FormatYAML && format != suite.FormatJSON {
		fmt.Fprintf(stderr, "lbstatus: unknown output format %q: use yaml or json\n", f.output)
		return exitInput
	}
	// A report file named for the other format would hold what its name
	// says it does not: jq on report.json fails on YAML, after the run.
	if f.report == "-" {
		// Read as standard output, as kubectl reads "-", it would
		// have made a file of that name.
		fmt.Fprintln(stderr, `lbstatus: --report -: the report goes to standard output without --report; give a file name`)
		return exitInput
	}
	named := map[string]suite.Format{".json": suite.FormatJSON, ".yaml": suite.FormatYAML, ".yml": suite.FormatYAML}[strings.ToLower(filepath.Ext(f.report))]
	if named != "" && named != format {
		fmt.Fprintf(stderr, "lbstatus: --report %s: the report would be %s (-o %s); give -o %s, or name the file for the format\n",
			input.Escape(f.report), strings.ToUpper(string(format)), format, named)
		return exitInput
	}
	if f.opts.Parallelism < 1 {
		fmt.Fprintf(stderr, "lbstatus: --parallel %d: want at least 1\n", f.opts.Parallelism)
		return exitInput
	}
	if err := suite.CheckRun(f.run); err != nil {
		fmt.Fprintf(stderr, "lbstatus: --run: %v\n", err)
		return exitInput
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	if *render != "" {
		if *list || f.report != "" || fs.Changed("output") {
			fmt.Fprintln(stderr, "lbstatus: --render takes neither --list, --report nor -o")
			return exitInput
		}
		return renderSuiteHTML(*render, stderr)
	}
	if *list {
		// The list is a table on stdout: a report file or format asked
		// for with it would be dropped.
		if f.report != "" || fs.Changed("output") {
			fmt.Fprintln(stderr, "lbstatus: --list prints a table of the tests: it takes neither --report nor -o")
			return exitInput
		}
		out := bufio.NewWriter(stdout)
		tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "TEST\tRULES")
		for _, t := range suite.Tests() {
			if (suite.Options{Run: f.run}).Selects(t.Name) {
				fmt.Fprintf(tw, "%s\t%s\n", t.Name, strings.Join(t.Rules, ", "))
			}
		}
		tw.Flush()
		return flushOutput(out, stderr, "the list")
	}
	// The report's files are tried before the run, which may take many
	// minutes: a path that cannot be written would lose them all.
	for _, path := range []string{f.report, suiteHTMLPath(f.report)} {
		if err := checkWritable(path); err != nil {
			fmt.Fprintf(stderr, "lbstatus: --report: %s\n", pathMessage(err))
			return exitInput
		}
	}
	conn, err := f.cluster.connect()
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	for _, path := range []string{f.report, suiteHTMLPath(f.report)} {
		if in := replacesInput(path, conn.files...); in != "" {
			fmt.Fprintf(stderr, "lbstatus: --report %s: writing %s would replace %s, which the run reads; name another file\n",
				input.Escape(f.report), input.Escape(path), input.Escape(in))
			return exitInput
		}
	}
	f.opts.Run = f.run
	f.opts.NoRequiredFeatures = f.noRequired
	f.opts.Implementation = f.implementation
	f.opts.RequestTimeout = conn.requestTimeout
	if isTerminal(stderr) {
		// Progress only for a person watching; piped runs stay quiet.
		start := time.Now()
		f.opts.Started = func(name string) {
			fmt.Fprintf(stderr, "[%s] %-7s %s\n", time.Since(start).Round(time.Second), "RUNNING", name)
		}
		f.opts.Progress = func(tr suite.TestReport) {
			fmt.Fprintf(stderr, "[%s] %s\n", time.Since(start).Round(time.Second), progressLine(tr))
		}
	}
	report, err := suite.Run(ctx, conn.client, f.opts)
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %s: %s\n", input.Escape(conn.host), input.Escape(err.Error()))
		return exitInput
	}
	return f.finish(report, format, ctx.Err() != nil, stdout, stderr)
}

// finish writes the report of a run where f asks, says on standard error
// what the run left on the cluster and its summary, and returns the exit
// status. A report that could not be written is said last, and is exit 2:
// what the run found is then said first, summary included, as it may be
// all that is left of a run of many minutes.
func (f *conformanceFlags) finish(report *suite.Report, format suite.Format, interrupted bool, stdout, stderr io.Writer) int {
	failed := f.writeReport(report, format, stdout)
	// Left on the cluster, load balancers and all: said also when piped,
	// and no success, as RunT fails the go test.
	leftovers := false
	for _, tr := range report.Tests {
		if tr.Cleanup != "" {
			fmt.Fprintf(stderr, "lbstatus: %s: %s\n", tr.Name, input.Escape(tr.Cleanup))
			leftovers = true
		}
	}
	if isTerminal(stderr) || f.report != "" || failed != "" {
		fmt.Fprintf(stderr, "lbstatus: %s: %d passed, %d skipped, %d failed, %d not run\n",
			report.Result, report.Statistics.Passed, report.Statistics.Skipped, report.Statistics.Failed, report.Statistics.NotRun)
	}
	code := suiteExit(report.Result, interrupted, leftovers, stderr)
	if failed != "" {
		fmt.Fprintln(stderr, failed)
		return exitInput
	}
	return code
}

// writeReport writes report in format to the --report file and its HTML
// form beside it, or without --report to stdout. It returns the line that
// says what could not be written, or "".
func (f *conformanceFlags) writeReport(report *suite.Report, format suite.Format, stdout io.Writer) string {
	if f.report == "" {
		if err := report.Write(stdout, format); err != nil {
			return "lbstatus: writing the report: " + pathMessage(err)
		}
		return ""
	}
	file, err := os.Create(f.report)
	if err != nil {
		return "lbstatus: --report: " + pathMessage(err)
	}
	if err := writeAndClose(file, report, format); err != nil {
		return "lbstatus: writing the report: " + pathMessage(err)
	}
	if err := writeSuiteHTML(suiteHTMLPath(f.report), report); err != nil {
		return "lbstatus: writing the HTML report: " + pathMessage(err)
	}
	return ""
}

// writeAndClose writes report to file in format and closes it, and returns
// the first error of either: a close that fails (NFS, a quota met when the
// data reaches the disk) can lose what was written, as a write that fails.
func writeAndClose(file io.WriteCloser, report *suite.Report, format suite.Format) error {
	return cmp.Or(report.Write(file, format), file.Close())
}

// suiteExit is the exit status of a run with this result: 1 when a test
// failed, else 2 when the run was interrupted or a cleanup left something
// on the cluster. An interrupted run says so either way: the report is
// not of every test.
func suiteExit(result suite.Result, interrupted, leftovers bool, stderr io.Writer) int {
	if interrupted {
		fmt.Fprintln(stderr, "lbstatus: conformance interrupted; the report lists the tests that did not finish as notRun")
	}
	switch {
	case result == suite.ResultFailure:
		return exitViolation
	case interrupted, leftovers:
		return exitInput
	}
	return exitOK
}

// singleClass is the value of conformance's --class: the suite tests one
// provider, so a second --class is refused rather than replacing the first.
type singleClass struct {
	v   *string
	set bool
}

func (c *singleClass) Set(v string) error {
	if c.set {
		return fmt.Errorf("the suite tests one provider, and --class %q was given already", *c.v)
	}
	*c.v, c.set = v, true
	return nil
}

func (c *singleClass) String() string {
	if c.v == nil {
		return ""
	}
	return *c.v
}

func (c *singleClass) Type() string { return "string" }

// check reports a flag value the run could only fail on, every test
// alike, naming the flag: a deadline that is not positive (zero is not
// the default here: the user asked for no time at all), and what
// suite.Options.Validate refuses.
func (f *conformanceFlags) check() error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{
		{"--conditions-timeout", f.opts.ConditionsTimeout},
		{"--provision-timeout", f.opts.ProvisionTimeout},
		{"--settle-period", f.opts.SettlePeriod},
		{"--cleanup-timeout", f.opts.CleanupTimeout},
	} {
		if d.value <= 0 {
			return fmt.Errorf("%s %s: want a positive duration", d.flag, d.value)
		}
	}
	opts := f.opts
	opts.Run = f.run
	err := opts.Validate()
	var oe *suite.OptionError
	if errors.As(err, &oe) {
		return fmt.Errorf("%s %q: %s", cmp.Or(optionFlags[oe.Field], oe.Field), oe.Value, oe.Detail)
	}
	return err
}

// optionFlags are the flags of the suite.Options fields that
// Options.Validate names.
var optionFlags = map[string]string{
	"LoadBalancerClass":   "--class",
	"NamespacePrefix":     "--namespace-prefix",
	"LoadBalancerIP":      "--load-balancer-ip",
	"RelevantAnnotations": "--relevant-annotation",
	"ConditionsTimeout":   "--conditions-timeout",
	"ProvisionTimeout":    "--provision-timeout",
	"SettlePeriod":        "--settle-period",
	"CleanupTimeout":      "--cleanup-timeout",
}

// checkWritable reports whether a file can be written at path, without
// changing a file that is there: it is opened for writing but not
// truncated, and removed again when the check made it. An empty path is
// fine. It is opened without waiting: a FIFO would wait for a reader,
// before the run, where no interrupt ends the wait.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	_, statErr := os.Stat(path) // through a link: the file it names
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK, 0o666)
	if errors.Is(err, syscall.ENXIO) {
		return fmt.Errorf("%s: a FIFO that nothing reads", path)
	}
	if err != nil {
		return err
	}
	err = file.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		// Made by the check: the file a dangling link names, or path.
		made := path
		if target, err := filepath.EvalSymlinks(path); err == nil {
			made = target
		}
		err = cmp.Or(os.Remove(made), err)
	}
	return err
}

// replacesInput returns the first of inputs that writing path would
// replace: the same file, known by its identity (device and inode, as
// fileID), so that a link to an input, or another name of it, is that
// input. It returns "" when none is, or when path does not exist.
func replacesInput(path string, inputs ...string) string {
	out, err := os.Stat(path)
	if path == "" || err != nil {
		return ""
	}
	return inputThatIs(out, inputs)
}

// progressLine is a finished test on the terminal. Its reason may quote
// what the provider wrote (a condition's message, an Event), escaped.
func progressLine(tr suite.TestReport) string {
	line := fmt.Sprintf("%-7s %-40s %s", strings.ToUpper(string(tr.Result)), tr.Name, tr.Duration)
	if tr.Reason != "" {
		line += "  " + input.Escape(tr.Reason)
	}
	return line
}

// isTerminal reports whether f, a reader or a writer, is a terminal; a
// character device such as /dev/null is not one.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
