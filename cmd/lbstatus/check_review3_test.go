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
	"strings"
	"testing"
)

// Bad usage is exit 2 with one line on standard error and nothing on
// standard output, in every format: half a JSON document would break
// whatever reads it.
func TestCheck_BadUsageWritesNoOutput(t *testing.T) {
	file := write(t, t.TempDir(), "web.yaml", readyYAML)
	for _, args := range [][]string{
		{"--max-object-bytes", "0", file},
		{"-", "-"},
		{"--max-findings", "-1", file},
	} {
		for _, format := range []string{"text", "json", "html"} {
			code, stdout, stderr := runCmd(t, readyYAML, append([]string{"check", "-o", format}, args...)...)
			if code != exitInput || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("-o %s %q: exit %d, %d bytes on stdout, stderr %q; want 2, nothing, one line", format, args, code, len(stdout), stderr)
			}
		}
	}
}

// The HTML page lists the first input problems, as -o json does, and
// counts the rest: their number grows with the input, and memory and the
// page must not.
func TestCheck_HTMLInputProblemsAreBounded(t *testing.T) {
	bad := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","name":"b"}}` + "\n"
	path := write(t, t.TempDir(), "dups.json", strings.Repeat(bad, maxJSONErrors+3))
	code, stdout, _ := runCmd(t, "", "check", "-o", "html", path)
	if n := strings.Count(stdout, "duplicate member name"); code != exitInput || n != maxJSONErrors {
		t.Errorf("exit %d, %d input problems on the page; want 2 and %d", code, n, maxJSONErrors)
	}
	if !strings.Contains(stdout, "... and 3 more input problems, on standard error") {
		t.Errorf("the page does not count the input problems it leaves out")
	}
}

// "An input without any Service ... [is] reported on standard error":
// among several inputs too, where the others' Services would hide it.
func TestCheck_EachInputWithoutAServiceIsNamed(t *testing.T) {
	dir := t.TempDir()
	web := write(t, dir, "web.yaml", readyYAML)
	empty := write(t, dir, "empty.yaml", "")
	cm := write(t, dir, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	for _, format := range []string{"text", "json"} {
		code, _, stderr := runCmd(t, "", "check", "--require-services", "-o", format, empty, web, cm)
		want := "lbstatus: " + empty + ": no Service in this input\nlbstatus: " + cm + ": no Service in this input\n"
		if code != exitOK || stderr != want {
			t.Errorf("-o %s: exit %d, stderr %q; want 0 and %q", format, code, stderr, want)
		}
	}
}
