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
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/pflag"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// checkFlags are the flags of check and, for the checker options, watch.
type checkFlags struct {
	output            string
	classes           []string
	requireConditions bool
	annotations       []string
	maxObjectBytes    int
	maxFindings       int
	verbose           bool
	decodeOnly        bool
	scanOnly          bool
	requireServices   bool
	filenames         []string    // -f, before the PATH arguments
	hooks             *checkHooks // timelines and progress; nil in watch
}

// addCheckerFlags adds the flags that configure the checker.
func addCheckerFlags(fs *pflag.FlagSet, f *checkFlags) {
	fs.StringVarP(&f.output, "output", "o", "text", `output format: "text" (a table per input, a row per Service), "json", or "html" (one page with the timelines)`)
	addClassFlag(fs, &f.classes)
	fs.BoolVar(&f.requireConditions, "require-conditions", false, "report a LoadBalancer Service without KEP-4631 conditions as a violation (R3), not a notice")
	fs.StringSliceVar(&f.annotations, "relevant-annotation", nil, "an annotation the provider reads, whose changes it must acknowledge like the G3 fields (repeatable)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "text output: also list each verdict change (T1-T4 notices, which the VERDICT column sums up) and each object skipped as not a Service")
}

// addClassFlag adds --class, a comma-separated list as kubectl's list
// flags are, but where an empty value is kept: a provider of Services without
// a class only, which turns P1 on for every Service with one.
func addClassFlag(fs *pflag.FlagSet, classes *[]string) {
	fs.Var((*classList)(classes), "class", `a loadBalancerClass the provider under test handles (repeatable, or comma-separated; '' for none: Services without a class only); turns on P1`)
}

// classList is the value of --class.
type classList []string

func (c *classList) Set(v string) error {
	*c = append(*c, strings.Split(v, ",")...)
	return nil
}

func (c *classList) String() string { return strings.Join(*c, ",") }

func (c *classList) Type() string { return "strings" }

// validateChecker reports a --class or --relevant-annotation that no
// Service can have, as conformance does: the check would pass, judging no
// Service by it. An empty --class names the Services without one.
func (f *checkFlags) validateChecker() error {
	err := conformance.ValidateOptions(f.checkerOptions()...)
	var oe *conformance.OptionError
	if errors.As(err, &oe) {
		return fmt.Errorf("%s %q: %s", cmp.Or(checkerFlags[oe.Option], oe.Option), oe.Value, oe.Detail)
	}
	return err
}

// checkerFlags are the flags of the checker options that
// conformance.ValidateOptions names.
var checkerFlags = map[string]string{"Classes": "--class", "RelevantAnnotations": "--relevant-annotation"}

// checkerOptions returns the checker options the flags ask for.
func (f *checkFlags) checkerOptions() []conformance.Option {
	return []conformance.Option{
		conformance.Classes(f.classes),
		conformance.RequireConditions(f.requireConditions),
		conformance.RelevantAnnotations(f.annotations),
	}
}

const checkUsage = `Usage: lbstatus check [flags] [PATH|-]...

Checks Service objects against KEP-4631. Each PATH (or -f PATH, as kubectl
takes it) is a file, an http:// or https:// URL, or a directory searched
recursively for .json, .yaml and .yml files (regular files, or links to
them: a FIFO there is an input error), through links to directories, each
directory once; "-", or no PATH at all, reads
standard input (on a terminal, after saying so: Ctrl-D ends it). A file may
hold a single object, a List or ServiceList (JSON or YAML, read item by
item), multi-document YAML, watch events, or a stream of concatenated JSON
objects (what "kubectl get services --watch -o json" prints). Observations
of the same namespace/name within a file form a trace and are also checked
as pairs. One object may be at most 4 MiB (--max-object-bytes); a larger one
is reported and skipped, but a single JSON string over the limit ends its
input. An object with a member name given twice is reported and not checked.

A Helm chart (a directory with a Chart.yaml) is not read: its templates are
YAML only once rendered ("helm template CHART | lbstatus check"). An input
without any Service, and a directory without a manifest, are reported on
standard error. A check that reads no Service at all passes, unless
--require-services makes it fail. Ctrl-C or SIGTERM stops the check and
reports what was read until then, marked as interrupted; a document it cut
short (in YAML, the last: a document ends at the next "---") is named on
standard error and in the summary, and not checked.

Exit status: 0 no violation, 1 at least one violation, 2 input that cannot be
read or parsed (one line per problem on standard error), no Service with
--require-services, an interrupted check without a violation, a report that
cannot be written, or bad usage.

Examples:
  lbstatus check ./manifests                       # every .json, .yaml, .yml below
  kubectl get services -A -o yaml | lbstatus check # a snapshot of a cluster
  lbstatus check -o json --require-services trace.json
  lbstatus check --timeline trace.json             # each Service's story, after the table
  lbstatus check -o html trace.json > report.html  # the same as one page, for a browser

Flags:
`

// runCheck is the check command. It stops early, with a partial report,
// when ctx is done.
func runCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	var f checkFlags
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(stdout) // --help; bad usage is one line on stderr
	addCheckerFlags(fs, &f)
	fs.IntVar(&f.maxObjectBytes, "max-object-bytes", conformance.DefaultMaxObjectBytes, "size limit of one object, in bytes")
	fs.IntVar(&f.maxFindings, "max-findings", 50, "text output: findings of each severity listed per Service at most (all are counted)")
	fs.BoolVar(&f.requireServices, "require-services", false, "fail (exit 2) when the inputs hold no Service at all, for CI")
	// As kubectl names its inputs; an array, not a slice: a comma in a
	// path is not a separator.
	fs.StringArrayVarP(&f.filenames, "filename", "f", nil, `a file, directory or URL to check, as with kubectl's -f (repeatable; "-" is standard input): the same as a PATH, read before the PATHs`)
	recursive := fs.BoolP("recursive", "R", true, "accepted as kubectl takes it: directories are always searched recursively")
	kustomize := fs.StringP("kustomize", "k", "", "")
	_ = fs.MarkHidden("kustomize") // only to say what to do instead
	fs.BoolVar(&f.decodeOnly, "decode-only", false, "decode the input and check nothing (for measuring the checker)")
	_ = fs.MarkHidden("decode-only")
	fs.BoolVar(&f.scanOnly, "scan-only", false, "find where each JSON value ends and nothing else (the floor the check is measured against)")
	_ = fs.MarkHidden("scan-only")
	f.hooks = addCheckHooks(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), checkUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if !*recursive {
		fmt.Fprintln(stderr, "lbstatus: --recursive=false: directories are always searched recursively; name the files instead")
		return exitInput
	}
	if *kustomize != "" {
		fmt.Fprintf(stderr, "lbstatus: -k: lbstatus does not build kustomizations; check the output: kubectl kustomize %s | lbstatus check\n", input.Escape(*kustomize))
		return exitInput
	}
	// Bad usage is found before a reporter starts its output: -o json
	// writes its first bytes at once, and half a document is worse than
	// none.
	if err := f.validateChecker(); err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	if f.maxObjectBytes <= 0 {
		fmt.Fprintln(stderr, "lbstatus: --max-object-bytes must be positive")
		return exitInput
	}
	if fs.Changed("max-findings") && (f.output == "json" || f.output == "html") {
		// -o json and -o html keep every finding: the limit would be
		// dropped without a word.
		fmt.Fprintf(stderr, "lbstatus: --max-findings goes with -o text; -o %s keeps every finding\n", f.output)
		return exitInput
	}
	if fs.Changed("verbose") && (f.output == "json" || f.output == "html") {
		// What -v adds to the text, -o json and -o html have already.
		fmt.Fprintf(stderr, "lbstatus: -v goes with -o text; -o %s keeps every finding\n", f.output)
		return exitInput
	}
	if f.maxFindings < 0 {
		// The Collector would keep every finding: memory would grow with
		// the input, not with the Services.
		fmt.Fprintln(stderr, "lbstatus: --max-findings must not be negative")
		return exitInput
	}
	paths := append(f.filenames, fs.Args()...)
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	if i := slices.Index(paths, "-"); i >= 0 && slices.Contains(paths[i+1:], "-") {
		// The second would read what the first left: nothing.
		fmt.Fprintln(stderr, `lbstatus: "-" is given twice: standard input can be read only once`)
		return exitInput
	}
	report := stdoutFile(stdout)
	if in := inputThatIs(report, paths); in != "" {
		fmt.Fprintf(stderr, "lbstatus: %s: standard output is this input: the report would be written over it; write it to another file\n", input.Escape(in))
		return exitInput
	}
	// Reports can be long; write them through a buffer, flushed at the end.
	stdout, stderr, err := f.hooks.start(&f, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	buffered := bufio.NewWriterSize(stdout, 64<<10)
	defer func() {
		// A report that could not be written (a full disk, a closed
		// pipe) is no report: a CI job must not pass on it. The
		// buffer keeps the first write error.
		if err := buffered.Flush(); err != nil {
			fmt.Fprintf(stderr, "lbstatus: writing the report: %s\n", pathMessage(err))
			code = exitInput
		}
	}()
	stdout = buffered
	f.hooks.stdout = stdout

	var out reporter
	switch f.output {
	case "text":
		out = newTextReporter(stdout, f.maxFindings, f.verbose)
	case "json":
		out = newJSONReporter(stdout)
	case "html":
		out = f.hooks.newHTMLReporter(stdout)
	default:
		fmt.Fprintf(stderr, "lbstatus: unknown output format %q: use text, json or html\n", f.output)
		return exitInput
	}
	defer tuneGC(f.hooks.wantTimeline())()

	// Rules as Merge makes it: {} in -o json, even when no input is read.
	total := conformance.Summary{Rules: map[conformance.RuleID]*conformance.SeverityCounts{}}
	inputs := 0
	interrupted := false
	var unfinished *input.Position // the document the interrupt cut short
	ins := expand(paths, report)
	var ahead *readAhead
	if !f.scanOnly {
		// Inputs are checked one at a time; small files are read ahead,
		// each checked in its turn. The reads end with the check.
		actx, cancel := context.WithCancel(ctx)
		defer cancel()
		ahead = newReadAhead(actx, ins, f.maxObjectBytes)
	}
	// inputFailed reports an input that could not be found, opened or
	// read, as path: problem, on standard error and in the output.
	inputFailed := func(err error) {
		err = pathError(err)
		fmt.Fprintf(stderr, "lbstatus: %s\n", input.Escape(err.Error()))
		total.InputErrors++
		out.inputError(err)
	}
	for i, in := range ins {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		if in.empty {
			fmt.Fprintf(stderr, "lbstatus: %s: no .json, .yaml or .yml file in the directory\n", input.Escape(in.name))
			continue
		}
		// The name shown, in every output and error: a URL's password
		// is not (reports and CI logs are shared).
		name := in.name
		if isURL(name) {
			name = redactURL(name)
		}
		inputs++
		if in.err != nil {
			inputFailed(in.err)
			continue
		}
		var src source
		if a, n := ahead.take(i); a != nil {
			src = a
			f.hooks.readAhead(n)
		}
		var r io.Reader = stdin
		var file io.ReadCloser
		if in.name == "-" && isTerminal(stdin) {
			// "lbstatus check" alone waits for input that no one may type.
			fmt.Fprintln(stderr, "lbstatus: reading standard input, a terminal: paste or type objects, then Ctrl-D (or name files: lbstatus check PATH...)")
		}
		if in.name != "-" && src == nil {
			var err error
			open := openContext
			switch {
			case isURL(in.name):
				open = fetch
			case in.listed:
				open = openListed
			}
			if file, err = open(ctx, in.name); err != nil && ctx.Err() != nil {
				interrupted = true
				break
			} else if err != nil {
				inputFailed(err)
				continue
			}
			r = file
		}
		r = f.hooks.reader(r)
		if src == nil && !f.scanOnly {
			src = input.NewDecoder(r, name, input.MaxObjectBytes(f.maxObjectBytes), decoderWorkers())
		}
		var s conformance.Summary
		var stopped bool
		switch {
		case f.scanOnly:
			s = scanOnly(name, r, stderr)
		case f.decodeOnly:
			s, stopped = decodeOnly(ctx, src, stderr)
		default:
			s, stopped, unfinished = checkInput(ctx, name, src, &f, out, stderr)
		}
		if file != nil {
			file.Close()
		}
		total.Merge(s)
		if !stopped && s.Observations == 0 && s.InputErrors == 0 && !f.scanOnly {
			// The input that holds nothing to check is named: among
			// several, the summary's counts would hide it, and alone,
			// the line is what a CI log shows of a wrong path.
			fmt.Fprintf(stderr, "lbstatus: %s: no Service in this input\n", displayName(name))
		}
		if stopped {
			interrupted = true
			break
		}
	}
	f.hooks.done()
	// Inputs that were read without a problem yet hold no Service: said,
	// since an empty check passing looks like a provider passing.
	noServices := total.Observations == 0 && total.InputErrors == 0 && !interrupted && !f.scanOnly
	if f.decodeOnly || f.scanOnly {
		fmt.Fprintf(stdout, "decoded %d objects (%d Services) from %d inputs; %d input errors\n",
			total.Objects, total.Observations, inputs, total.InputErrors)
	} else {
		out.finish(total, inputs, interrupted, unfinished, noServices && f.requireServices)
	}
	if noServices && len(ins) != 1 {
		fmt.Fprintf(stderr, "lbstatus: no Service in %s\n", plural(inputs, "input"))
	}
	return resultStatus[checkResult(&total, interrupted, noServices && f.requireServices)]
}

// tuneGC lets the heap grow to three times what is live, within 192 MiB,
// unless GOGC or GOMEMLIMIT say otherwise, and returns what restores the
// settings. A check allocates a few KiB per object and keeps little of it:
// at Go's default the collector runs every few thousand objects. Measured
// at 100,000 Services, GOGC=200 keeps the time linear in the input. The
// limit binds only where more is live: the text output, which keeps a row
// per Service, peaked at 275 MiB of memory under a limit of 224 MiB and at
// 241 MiB under this one, at some cost in time; a check with -o json,
// whose heap stays under the limit, runs as fast as without one.
//
// Timelines (-o html, --timeline) keep far more per Service: 780 MB were
// live at 100,000 Services. Under the limit the collector then ran without
// pause, and the check took 94 s; so with timelines Go's defaults stay
// (the heap grows to twice what is live), and it took 19 s.
func tuneGC(timelines bool) (restore func()) {
	if timelines || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(200)
	limit := debug.SetMemoryLimit(192 << 20)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// decoderWorkers is how many goroutines decode while the checker runs:
// every core, and at least two, so that a stalled read never stops the
// check from noticing an interrupt.
func decoderWorkers() input.Workers {
	return input.Workers(max(2, runtime.GOMAXPROCS(0)))
}

// checkInput checks one input and returns its summary; stopped reports
// that ctx ended it before the end of the input, and unfinished where the
// document it was in the middle of starts, if one was.
func checkInput(ctx context.Context, name string, dec source, f *checkFlags, out reporter, stderr io.Writer) (_ conformance.Summary, stopped bool, unfinished *input.Position) {
	defer dec.Close()
	checker := conformance.NewChecker(f.checkerOptions()...)
	col := conformance.NewCollector(out.collectorOptions()...)
	f.hooks.startInput()
	for {
		obj, err := dec.NextContext(ctx)
		if err == io.EOF {
			break
		}
		if ctx.Err() != nil {
			// What was read is still reported: the traces end here. A
			// document not yet ended is not checked, which is said, but is
			// no input error: the result is that of what was read.
			stopped = true
			col.Interrupt()
			if d, ok := dec.(*input.Decoder); ok {
				if unfinished = d.Unfinished(); unfinished != nil {
					fmt.Fprintf(stderr, "lbstatus: %s\n", unfinishedText(unfinished))
				}
			}
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "lbstatus: %s\n", errorText(err))
			col.Error(err)
			out.inputError(err)
			continue
		}
		found := checker.ObserveObject(obj)
		if checker.Repeated() {
			// Read, and checked once before (section 8).
			col.Repeated()
			f.hooks.repeated()
			continue
		}
		f.hooks.observe(obj, found)
		col.Observe(obj, found)
		out.findings(found)
	}
	end := checker.Finish()
	col.Findings(end)
	out.findings(end)
	report := col.Report()
	out.input(name, report)
	f.hooks.endInput(name, end)
	return report.Summary, stopped, unfinished
}

// decodeOnly decodes one input and checks nothing: the baseline the
// checker's cost is measured against (hack/bench-conformance.sh).
func decodeOnly(ctx context.Context, dec source, stderr io.Writer) (_ conformance.Summary, stopped bool) {
	var s conformance.Summary
	defer dec.Close()
	for {
		obj, err := dec.NextContext(ctx)
		if err == io.EOF || ctx.Err() != nil {
			return s, err != io.EOF // stopped by ctx before the end
		}
		if err != nil {
			fmt.Fprintf(stderr, "lbstatus: %v\n", err)
			s.InputErrors++
			continue
		}
		s.Objects++
		if obj.Service != nil {
			s.Observations++
		}
	}
}

// scanOnly reads one JSON input with a bare jsontext ReadValue loop: the
// floor of what reading the input costs, which hack/bench-conformance.sh
// compares the check with. Every top-level value counts as an object.
func scanOnly(name string, r io.Reader, stderr io.Writer) conformance.Summary {
	var s conformance.Summary
	dec := jsontext.NewDecoder(r)
	for {
		if _, err := dec.ReadValue(); err == io.EOF {
			return s
		} else if err != nil {
			fmt.Fprintf(stderr, "lbstatus: %s: %s\n", input.Escape(name), input.Escape(err.Error()))
			s.InputErrors++
			return s
		}
		s.Objects++
	}
}

// isURL reports whether an input names a document to fetch, as kubectl's
// -f takes one. A scheme is the same in any case, as RFC 3986 has it:
// "HTTP://u:pw@host/x" is a URL, not a file whose error would show the
// password.
func isURL(name string) bool {
	scheme, _, ok := strings.Cut(name, "://")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}

// fetchTimeout bounds the wait for a server's answer to a fetch, which a
// server that accepts the connection and says nothing would make endless
// in a CI job. The document itself may take as long as it takes.
var fetchTimeout = 30 * time.Second

// fetch opens the document at url, or says why it cannot: a response that
// is not 2xx is an error, not an input to check.
func fetch(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, parseError(url, err)
	}
	url = redactURL(url) // what the errors say
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = fetchTimeout
	resp, err := (&http.Client{Transport: t}).Do(req)
	var ue *neturl.Error
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
		return nil, fmt.Errorf("%s: no answer within %s", url, fetchTimeout)
	}
	if errors.As(err, &ue) {
		// As a file's problem is told: the input first, then what is
		// wrong, not Go's "Get "URL": ...".
		return nil, fmt.Errorf("%s: %w", url, ue.Err)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return resp.Body, nil
}

// redactURL returns url with its password, if it has one, replaced by
// "xxxxx", as Go's HTTP client shows a URL in its errors. Of a URL that
// cannot be parsed, or a server without a scheme (which a client takes as
// http://SERVER), where the password ends is not known: all between the
// scheme and the last "@" is replaced.
func redactURL(url string) string {
	u, err := neturl.Parse(url)
	if err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	scheme, rest, ok := strings.Cut(url, "://")
	switch {
	case !ok:
		scheme, rest = "", url
	case err == nil:
		return url // parsed, without a password
	default:
		scheme += "://"
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		return scheme + "xxxxx" + rest[at:]
	}
	return url
}

// parseError says that url, which err says cannot be parsed, cannot be,
// as "URL: problem" and without its password: Go's error quotes the URL
// raw, and its detail may quote part of the password (an "invalid port" of
// what follows its colon), so of a URL with one only that is said.
func parseError(url string, err error) error {
	var ue *neturl.Error
	if shown := redactURL(url); shown != url || !errors.As(err, &ue) {
		return fmt.Errorf("%s: not a URL that can be parsed", shown)
	}
	return fmt.Errorf("%s: %w", url, ue.Err)
}

// openContext opens the file name, unless ctx ends first: opening a FIFO
// waits for a writer, which may never come.
func openContext(ctx context.Context, name string) (io.ReadCloser, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, o.err // not a nil *os.File in an interface
		}
		return o.f, nil
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// openListed opens a file found in a directory, which was a regular file
// when it was listed: without waiting, and only if it still is one. A FIFO
// put in its place since would wait for a writer, and a device might
// never end.
func openListed(_ context.Context, name string) (io.ReadCloser, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, cmp.Or(err, fmt.Errorf("%s: not a regular file; not read", name))
	}
	return f, nil
}

// stdoutFile returns what standard output is when it is a regular file,
// where the report goes, or nil.
func stdoutFile(stdout io.Writer) os.FileInfo {
	file, ok := stdout.(*os.File)
	if !ok {
		return nil
	}
	out, err := file.Stat()
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	return out
}

// inputThatIs returns the first of paths, the inputs named on the command
// line, that is the file out, known by its identity (device and inode, as
// fileID), or "" when none is; standard input ("-") and URLs are no file.
// check asks it of standard output: "check x.json > x.json" had the shell
// empty the input, and with ">>" the report would be added to what is
// read. conformance asks it of the report's file (replacesInput).
func inputThatIs(out os.FileInfo, paths []string) string {
	if out == nil {
		return ""
	}
	for _, p := range paths {
		if info, err := os.Stat(p); p != "-" && !isURL(p) && err == nil && os.SameFile(out, info) {
			return p
		}
	}
	return ""
}

// inputPath is one input of check: a file, a URL, or "-" for standard
// input.
type inputPath struct {
	name   string
	err    error // the input cannot be found or listed
	empty  bool  // a directory that holds no manifest: not an input
	small  bool  // a regular file that may be read ahead (see readAhead)
	listed bool  // a regular file when found in a directory (see openListed)
}

// expand turns the command-line paths into inputs: directories become the
// .json, .yaml and .yml regular files under them (see walk), in lexical
// order. A file found in a directory that is report, where the report is
// written ("check . > report.json"), is not read: it is being written.
func expand(paths []string, report os.FileInfo) []inputPath {
	var out []inputPath
	for _, p := range paths {
		if p == "-" || isURL(p) {
			out = append(out, inputPath{name: p})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			out = append(out, inputPath{name: p, err: err})
			continue
		}
		if !info.IsDir() {
			out = append(out, inputPath{name: p, small: isSmall(info)})
			continue
		}
		var files []inputPath
		root := p
		if l, err := os.Lstat(p); err == nil && l.Mode()&fs.ModeSymlink != 0 {
			root = p + string(filepath.Separator) // the directory the link names, not the link
		}
		seen := dirSet{}
		seen.add(info)
		walk(root, report, &seen, &files)
		if len(files) == 0 {
			files = []inputPath{{name: p, empty: true}}
		}
		sort.SliceStable(files, func(i, j int) bool { return files[i].name < files[j].name })
		out = append(out, files...)
	}
	return out
}

// walk appends the manifests under the directory root to files. A link to
// a directory is searched as the directory is, and each directory once
// (seen, root included): a loop of links ends, and a directory both linked
// to and walked into is not read twice. The file report is left out.
func walk(root string, report os.FileInfo, seen *dirSet, files *[]inputPath) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			*files = append(*files, inputPath{name: path, err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() && isChart(path) {
			// Its templates are not YAML until rendered: one line
			// for the chart, not one error per template.
			err := fmt.Errorf("%s: a Helm chart, whose templates are not manifests until rendered; not read: check what it renders (helm template %s | lbstatus check)", path, path)
			*files = append(*files, inputPath{name: path, err: err})
			return fs.SkipDir
		}
		if d.IsDir() {
			if info, err := d.Info(); err == nil && path != root && !seen.add(info) {
				return fs.SkipDir
			}
			return nil
		}
		link := d.Type()&fs.ModeSymlink != 0
		if !link && !isManifest(path) {
			return nil
		}
		info, err := os.Stat(path) // a link's target
		switch {
		case err == nil && info.IsDir() && link:
			if seen.add(info) {
				walk(path+string(filepath.Separator), report, seen, files)
			}
			return nil
		case !isManifest(path), err == nil && report != nil && os.SameFile(info, report):
			return nil
		}
		// Only regular files, or links to them: a FIFO or a device
		// found in a directory is no manifest, and reading it could
		// wait for ever or never end.
		in := inputPath{name: path, small: err == nil && isSmall(info), listed: true}
		if err != nil {
			in.err = err
		} else if !info.Mode().IsRegular() {
			in.err = fmt.Errorf("%s: not a regular file; not read", path)
		}
		*files = append(*files, in)
		return nil
	})
	if err != nil {
		*files = append(*files, inputPath{name: root, err: err})
	}
}

// isSmall reports whether a file may be read ahead of its turn.
func isSmall(info os.FileInfo) bool {
	return info.Mode().IsRegular() && info.Size() <= readAheadBytes
}

// dirSet is the directories searched. Each is known by its identity on
// the file system where the system gives one, so that searching a tree of
// many directories takes time in proportion to their number.
type dirSet struct {
	ids   map[fileID]bool
	other []os.FileInfo // compared one by one, where there is no identity
}

// add adds the directory info describes, and reports whether it was not
// yet in s.
func (s *dirSet) add(info os.FileInfo) bool {
	if id, ok := identity(info); ok {
		if s.ids[id] {
			return false
		}
		if s.ids == nil {
			s.ids = map[fileID]bool{}
		}
		s.ids[id] = true
		return true
	}
	if slices.ContainsFunc(s.other, func(o os.FileInfo) bool { return os.SameFile(o, info) }) {
		return false
	}
	s.other = append(s.other, info)
	return true
}

// pathError says what is wrong with a path as "path: problem", where Go
// says "stat path: problem", naming a system call.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// pathMessage is pathError's message, escaped for a terminal.
func pathMessage(err error) string {
	return input.Escape(pathError(err).Error())
}

// isChart reports whether a directory is a Helm chart.
func isChart(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil
}

// isManifest reports whether a file found in a directory is read.
func isManifest(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}
