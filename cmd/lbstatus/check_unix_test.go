//go:build unix

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
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkWithin runs check, failing t if it has not ended after d: a check
// that waits for a FIFO's writer would wait for ever.
func checkWithin(t *testing.T, ctx context.Context, d time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type ran struct {
		code           int
		stdout, stderr string
	}
	done := make(chan ran, 1)
	go func() {
		code, stdout, stderr := runCmdContext(ctx, strings.NewReader(""), append([]string{"check"}, args...)...)
		done <- ran{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(d):
		t.Fatalf("check %v still runs after %v", args, d)
		return 0, "", ""
	}
}

// In a directory, only regular files and links to them are read: a FIFO
// there would stop the check until something writes to it.
func TestCheck_DirectoryReadsRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.yaml", readyYAML)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := os.Symlink(a, filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "dir.yaml")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, dir)
	if code != exitInput {
		t.Errorf("exit %d, want %d", code, exitInput)
	}
	for _, name := range []string{"fifo.yaml", "dir.yaml"} {
		if !strings.Contains(stderr, name+": not a regular file; not read") {
			t.Errorf("stderr does not name %s:\n%s", name, stderr)
		}
	}
	if !strings.Contains(stdout, "Checked 4 inputs: 2 observations of 2 Services") {
		t.Errorf("want a.yaml and the link to it read:\n%s", stdout)
	}
}

// A link to a directory, named on the command line, is searched as the
// directory is: walked as a link, it held no manifest, and the check
// passed on nothing.
func TestCheck_LinkToADirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "manifests/a.yaml", readyYAML)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "manifests"), link); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, link)
	if code != exitOK || !strings.Contains(stdout, filepath.Join(link, "a.yaml")+": 1 observation of 1 Service") {
		t.Errorf("exit %d, want %d and link/a.yaml read:\n%s%s", code, exitOK, stdout, stderr)
	}
}

// An interrupt stops a check that waits to open a FIFO named on the
// command line, which is read like any file once a writer comes.
func TestCheck_InterruptWhileOpening(t *testing.T) {
	dir := t.TempDir()
	// Two FIFOs: the open the interrupt gave up on still waits on the
	// first, and would race the second check for a writer there.
	abandoned, fifo := filepath.Join(dir, "abandoned"), filepath.Join(dir, "fifo")
	for _, name := range []string{abandoned, fifo} {
		if err := syscall.Mkfifo(name, 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	code, stdout, _ := checkWithin(t, ctx, 5*time.Second, abandoned)
	if code != exitInput || !strings.Contains(stdout, "INTERRUPTED") {
		t.Errorf("exit %d, want %d and a report marked as interrupted:\n%s", code, exitInput, stdout)
	}

	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = w.WriteString(readyYAML)
			w.Close()
		}
	}()
	code, stdout, stderr := checkWithin(t, context.Background(), 10*time.Second, fifo)
	if code != exitOK || !strings.Contains(stdout, "1 observation of 1 Service") {
		t.Errorf("exit %d, want %d and the Service read:\n%s%s", code, exitOK, stdout, stderr)
	}
}
