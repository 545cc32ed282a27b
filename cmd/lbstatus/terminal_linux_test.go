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
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal: the terminal a
// program reads, and the side that types into it.
func openPTY(t *testing.T) (tty, typist *os.File) {
	t.Helper()
	typist, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no pseudo-terminals here: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { typist.Close() })
	if err := unix.IoctlSetPointerInt(int(typist.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(typist.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	if tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty, typist
}

// "lbstatus check" alone, on a terminal, says that it reads what is typed
// there, instead of waiting without a word; what is typed is checked. Read
// from a file, or from /dev/null, which is a character device but not a
// terminal, it says nothing.
func TestCheck_TerminalStdinSaysSo(t *testing.T) {
	const hint = "lbstatus: reading standard input, a terminal: paste or type objects, then Ctrl-D"
	tty, typist := openPTY(t)
	// A line is read once it ends; Ctrl-D at the start of a line ends
	// the input.
	if _, err := typist.Write([]byte(readyYAML + "\x04")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check"}, tty, &stdout, &stderr); code != exitOK || !strings.HasPrefix(stderr.String(), hint) ||
		!strings.Contains(stdout.String(), "1 observation of 1 Service") {
		t.Errorf("typed on a terminal: exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}

	for _, name := range []string{os.DevNull, write(t, t.TempDir(), "svc.yaml", readyYAML)} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		stderr.Reset()
		run([]string{"check", "-"}, f, &bytes.Buffer{}, &stderr)
		f.Close()
		if strings.Contains(stderr.String(), hint) {
			t.Errorf("standard input from %s: %q, want no word of a terminal", name, &stderr)
		}
	}

	// A terminal on standard input is not read when a file is named: no
	// word of it either.
	stderr.Reset()
	if code := run([]string{"check", write(t, t.TempDir(), "svc.yaml", readyYAML)}, tty, &bytes.Buffer{}, &stderr); code != exitOK || stderr.Len() != 0 {
		t.Errorf("a file named, a terminal on standard input: exit %d, stderr %q", code, &stderr)
	}
}
