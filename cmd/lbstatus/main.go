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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/lbstatus/lbstatus/cmd/internal/flagerror"
	"github.com/lbstatus/lbstatus/conformance/suite"
)

// Exit statuses.
const (
	exitOK        = 0 // no violation
	exitViolation = 1 // at least one violation
	exitInput     = 2 // unreadable or unparseable input, or bad usage
)

const usage = `lbstatus checks Services against KEP-4631 (LoadBalancer Service status).

Usage:
  lbstatus check [flags] [PATH|-]...   check manifests, lists, traces and watch streams
  lbstatus watch [flags]               check a live cluster's Services as they change
  lbstatus describe [flags] [svc/NAME]...  show Services' conditions, verdict, findings and Events
  lbstatus explain [RULE]...           print rules' text (all rules without RULE)
  lbstatus conformance [flags]         run the conformance suite against a cluster's provider
  lbstatus version                     print the version, commit and rules version

Exit status: 0 no violation, 1 at least one violation (conformance: a failed
test), 2 input that cannot be read or parsed, a cluster that cannot be
reached, or bad usage; a command's --help says which outcome is which.

Examples:
  lbstatus check ./examples                        # the shipped examples: PASS
  kubectl get services -A -o json | lbstatus check # a snapshot of a cluster
  lbstatus explain L6                              # what a rule requires

Run "lbstatus COMMAND --help" (or "lbstatus help COMMAND") for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, the default handling returns: a second
		// Ctrl-C ends a report that takes too long to write.
		<-ctx.Done()
		stop()
	}()
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, defaultEnv())
	stop()
	os.Exit(code)
}

// run runs the command line args (without the program name) and returns
// the exit status. It is main without the process: tests call it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr, defaultEnv())
}

// env is what the commands take from outside the command line: how watch
// reaches a cluster. Tests replace it.
type env struct {
	// newSource returns the Services to watch for the watch flags.
	newSource func(flags *watchFlags) (serviceSource, error)
}

func defaultEnv() env {
	return env{newSource: newClusterSource}
}

// runContext is run with a context that ends watch and interrupts check,
// and an env.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInput
	}
	switch args[0] {
	case "check":
		return runCheck(ctx, args[1:], stdin, stdout, stderr)
	case "watch":
		return runWatch(ctx, args[1:], stdout, stderr, e)
	case "explain":
		return runExplain(args[1:], stdout, stderr)
	case "conformance":
		return runConformance(ctx, args[1:], stdout, stderr)
	case "describe":
		return runDescribe(ctx, args[1:], stdout, stderr, defaultDescribeEnv())
	case "version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" {
			// "lbstatus help check", as go and kubectl take it.
			return helpFor(ctx, args[1:], stdin, stdout, stderr, e)
		}
		out := bufio.NewWriter(stdout)
		fmt.Fprint(out, usage)
		return flushOutput(out, stderr, "the help")
	}
	// One line, as for any bad usage: the usage would bury it.
	fmt.Fprintf(stderr, "lbstatus: unknown command %q: the commands are check, watch, describe, explain, conformance and version (run \"lbstatus --help\")\n", args[0])
	return exitInput
}

// helpFor is "lbstatus help COMMAND": the command's --help, or for a
// command that does not exist what runContext says of it.
func helpFor(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	if len(args) > 1 {
		fmt.Fprintf(stderr, "lbstatus: help takes one command, got %q\n", args)
		return exitInput
	}
	return runContext(ctx, []string{args[0], "--help"}, stdin, stdout, stderr, e)
}

// runVersion prints versionText. It takes no arguments; --help says so
// with an example, as every command's does, rather than printing the
// version.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.SetOutput(stdout) // --help; bad usage is one line on stderr
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lbstatus version\n\nPrints the version of lbstatus, the commit it was built from when the build\nrecorded one (go build in a git checkout does, go run does not), the version\nof the rules it checks and the Go release, for a bug report.\n\nExample:\n  lbstatus version\n")
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbstatus: version takes no arguments, got %q\n", fs.Arg(0))
		return exitInput
	}
	out := bufio.NewWriter(stdout)
	fmt.Fprint(out, versionText(debug.ReadBuildInfo()))
	return flushOutput(out, stderr, "the version")
}

// flushOutput flushes a command's output. What could not be written (a
// full disk, a closed file) was not printed: exit status 2 with one line,
// as for check, not 0. The buffer keeps the first write error.
func flushOutput(out *bufio.Writer, stderr io.Writer, what string) int {
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "lbstatus: writing %s: %s\n", what, pathMessage(err))
		return exitInput
	}
	return exitOK
}

// versionText says which lbstatus this is, for a bug report: the module
// version ("(devel)" for a build from a checkout), the commit it was built
// from when known, the version of the rules it checks, and the Go release.
func versionText(info *debug.BuildInfo, ok bool) string {
	version, commit := "(unknown)", ""
	if ok {
		version = info.Main.Version
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if commit != "" && modified {
			commit += " (with uncommitted changes)"
		}
	}
	s := "lbstatus " + version + "\n"
	if commit != "" {
		s += "  commit: " + commit + "\n"
	}
	return s + "  rules:  " + suite.SpecVersion + "\n  go:     " + runtime.Version() + "\n"
}

// parseFlags parses a subcommand's arguments. done reports that the command
// is over, with code its exit status: help was asked for (0, or 2 when it
// could not be written, as for any output), or the flags were bad (2, with
// one line on stderr). fs.Usage writes the help to fs.Output().
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) (code int, done bool) {
	help := bufio.NewWriter(fs.Output())
	fs.SetOutput(help)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, false
	case errors.Is(err, pflag.ErrHelp):
		return flushOutput(help, stderr, "the help"), true
	default:
		fmt.Fprintf(stderr, "lbstatus: %s\n", flagerror.Message(err))
		return exitInput, true
	}
}
