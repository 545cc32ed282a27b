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
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A --report naming a FIFO that nothing reads is refused at once: the
// check that the report can be written waited for a reader, saying
// nothing, and Ctrl-C did not end the wait.
func TestConformance_ReportFIFOWithoutReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	var code int
	var stderr bytes.Buffer
	go func() {
		defer close(done)
		code = run([]string{"conformance", "--kubeconfig", "/nonexistent", "--report", fifo}, nil, io.Discard, &stderr)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("--report of a FIFO without a reader still waits after 10 s")
	}
	if want := "lbstatus: --report: " + fifo + ": a FIFO that nothing reads\n"; code != exitInput || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
	}
}

// --render reads a report from a regular file only: a FIFO waited for a
// writer, and /dev/zero was read until memory ran out.
func TestConformanceRender_NotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan struct{})
		var code int
		var stderr bytes.Buffer
		go func() {
			defer close(done)
			code = run([]string{"conformance", "--render", path}, nil, io.Discard, &stderr)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("--render %s still runs after 10 s", path)
		}
		if want := "lbstatus: --render: " + path + ": not a regular file; not read\n"; code != exitInput || stderr.String() != want {
			t.Errorf("--render %s: exit %d, stderr %q; want 2 and %q", path, code, stderr.String(), want)
		}
	}
}

// A file found in a directory that turns into a FIFO before its turn is
// an input error, not a wait for a writer that may never come. Here the
// server of the first input swaps it while the check reads that input.
func TestCheck_ListedFileSwappedForAFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.yaml")
	// Larger than what is read ahead, so read in its turn.
	if err := os.WriteFile(path, []byte(readyYAML+"#"+strings.Repeat("x", int(readAheadBytes))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := os.Remove(path); err != nil {
			t.Error(err)
		}
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Error(err)
		}
		_, _ = io.WriteString(w, readyYAML)
	}))
	defer srv.Close()
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCmd(t, "", "check", srv.URL+"/a.yaml", dir)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("check still runs after 10 s: it waits on the FIFO")
	}
	if want := "lbstatus: " + path + ": not a regular file; not read\n"; code != exitInput || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
