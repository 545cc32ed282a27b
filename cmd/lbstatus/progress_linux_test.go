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

import "testing"

// On a terminal there is a status line, unless quiet (-o json) asks for
// none.
func TestProgress_OnATerminalUnlessQuiet(t *testing.T) {
	tty, _ := openPTY(t)
	t.Setenv("TERM", "xterm") // whatever the terminal running the tests
	if newProgress(tty, false) == nil {
		t.Error("no progress on a terminal")
	}
	if newProgress(tty, true) != nil {
		t.Error("progress on a terminal though quiet")
	}
}

// A dumb terminal (TERM=dumb: an editor's shell buffer) shows the status
// line's escape sequences raw, one more "\x1b[K" per redraw: it gets none.
func TestProgress_NoneOnADumbTerminal(t *testing.T) {
	tty, _ := openPTY(t)
	t.Setenv("TERM", "dumb")
	if newProgress(tty, false) != nil {
		t.Error("progress with TERM=dumb")
	}
	t.Setenv("TERM", "xterm-256color")
	if newProgress(tty, false) == nil {
		t.Error("no progress with TERM=xterm-256color")
	}
}
