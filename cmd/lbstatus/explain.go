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
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lbstatus/lbstatus/conformance"
)

// runExplain prints the text of the rules named, or a list of every rule.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	fs.SetOutput(stdout) // --help; bad usage is one line on stderr
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lbstatus explain [RULE]...\n\nPrints what each rule named requires and how the checker applies it;\nwithout RULE, lists every rule. RULE is an ID such as L6.\n\nExamples:\n  lbstatus explain          # every rule, with how the checker reports it\n  lbstatus explain L4 L6    # the rules a check's summary names\n")
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	out := bufio.NewWriter(stdout)
	if fs.NArg() == 0 {
		for _, r := range conformance.Rules() {
			fmt.Fprintf(out, "%-6s %-22s %s\n", r.ID, severities(r), r.Title)
		}
		return flushOutput(out, stderr, "the rules")
	}
	// Every ID is looked up before anything is printed: a typo among them
	// is one line, not a page and then an error.
	var rules []conformance.Rule
	for _, id := range fs.Args() {
		r, ok := conformance.LookupRule(id)
		if !ok {
			fmt.Fprintf(stderr, "lbstatus: unknown rule %q (run \"lbstatus explain\" for the list)\n", id)
			return exitInput
		}
		rules = append(rules, r)
	}
	for i, r := range rules {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "%s: %s\nChecked as: %s\n\n%s\n", r.ID, r.Title, severities(r), wrap(r.Text, 76))
	}
	return flushOutput(out, stderr, "the rules")
}

// severities says how the checker reports a rule.
func severities(r conformance.Rule) string {
	if len(r.Severities) == 0 {
		return "not checked by itself"
	}
	s := make([]string, len(r.Severities))
	for i, v := range r.Severities {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// wrap breaks text into lines of at most width columns, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
