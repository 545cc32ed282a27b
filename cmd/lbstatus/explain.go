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
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lbstatus/lbstatus/conformance"
)

// runExplain prints the text of one rule, or a list of every rule.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: lbstatus explain [RULE]\n\nPrints what a rule of the specification requires and how the checker\napplies it; without RULE, lists every rule. RULE is an ID such as L6.\n")
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	switch fs.NArg() {
	case 0:
		for _, r := range conformance.Rules() {
			fmt.Fprintf(stdout, "%-6s %-22s %s\n", r.ID, severities(r), r.Title)
		}
		return exitOK
	case 1:
	default:
		fmt.Fprintln(stderr, "lbstatus: explain takes one rule ID")
		return exitInput
	}
	r, ok := conformance.LookupRule(fs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "lbstatus: unknown rule %q (run \"lbstatus explain\" for the list)\n", fs.Arg(0))
		return exitInput
	}
	fmt.Fprintf(stdout, "%s: %s\nChecked as: %s\n\n%s\n", r.ID, r.Title, severities(r), wrap(r.Text, 76))
	return exitOK
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
