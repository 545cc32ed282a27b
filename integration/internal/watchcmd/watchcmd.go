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

// Package watchcmd builds the lbstatus binary for a test, and runs
// `lbstatus watch` and collects what it prints: each line of its JSON
// output decoded into the test's own line type, and its standard error.
package watchcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Build builds ./cmd/lbstatus of the root module at root (a path from the
// test's directory) into the test's temporary directory and returns the
// binary's path.
func Build(t testing.TB, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lbstatus")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/lbstatus")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/lbstatus: %v\n%s", err, out)
	}
	t.Logf("built lbstatus in %s", time.Since(start).Round(time.Millisecond))
	return bin
}

// Process is a running `lbstatus watch` and the lines it printed, each
// decoded into an L (lines that are not JSON are kept as text only).
type Process[L any] struct {
	cmd    *exec.Cmd
	stderr syncBuffer
	mu     sync.Mutex
	lines  []L
	raw    []string
	eof    bool
	// changed is signalled when a line arrives or stdout ends.
	changed chan struct{}
	// exited is closed when the process has exited, with err its status.
	exited chan struct{}
	err    error
}

// Start runs bin with args; the test's cleanup kills it if it still runs.
func Start[L any](t testing.TB, bin string, args ...string) *Process[L] {
	t.Helper()
	cmd := exec.Command(bin, args...)
	p := &Process[L]{cmd: cmd, changed: make(chan struct{}, 1), exited: make(chan struct{})}
	cmd.Stderr = &p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l L
			err := json.Unmarshal(sc.Bytes(), &l)
			p.mu.Lock()
			p.raw = append(p.raw, sc.Text())
			if err == nil {
				p.lines = append(p.lines, l)
			}
			p.mu.Unlock()
			p.signal()
		}
		p.mu.Lock()
		p.eof = true
		p.mu.Unlock()
		p.signal()
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

func (p *Process[L]) signal() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// WaitFor waits up to within for a line that match accepts, and fails the
// test, naming what, when none comes.
func (p *Process[L]) WaitFor(t testing.TB, within time.Duration, what string, match func(L) bool) {
	t.Helper()
	deadline := time.After(within)
	for {
		if p.Count(match) > 0 {
			return
		}
		p.mu.Lock()
		eof := p.eof
		p.mu.Unlock()
		if eof && p.Count(match) == 0 {
			t.Fatalf("lbstatus watch ended before printing %s; %s", what, p.Describe())
		}
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("lbstatus watch did not print %s within %s; %s", what, within, p.Describe())
		}
	}
}

// Count returns how many lines match accepts.
func (p *Process[L]) Count(match func(L) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.lines {
		if match(l) {
			n++
		}
	}
	return n
}

// Wait waits up to within for the process to exit by itself, all its
// output read, and returns its exit status.
func (p *Process[L]) Wait(t testing.TB, within time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(within):
		t.Fatalf("lbstatus watch did not exit within %s; stderr:\n%s", within, p.Stderr())
	}
	var exit *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exit) && exit.Exited():
		return exit.ExitCode()
	}
	t.Fatalf("lbstatus watch did not exit by itself: %v; stderr:\n%s", p.err, p.Stderr())
	return -1
}

// Signal sends sig to the process.
func (p *Process[L]) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Stop sends sig, waits up to 15 seconds for the exit, fails the test if
// the process crashed, and returns the exit status and every line.
func (p *Process[L]) Stop(t testing.TB, sig os.Signal) (int, []L) {
	t.Helper()
	if err := p.Signal(sig); err != nil {
		t.Fatal(err)
	}
	code := p.Wait(t, 15*time.Second)
	if s := p.Stderr(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
		t.Errorf("lbstatus watch crashed:\n%s", s)
	}
	return code, p.Lines()
}

// Lines returns the lines decoded so far.
func (p *Process[L]) Lines() []L {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

// Text returns standard output so far.
func (p *Process[L]) Text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.raw, "\n")
}

// Stderr returns standard error so far.
func (p *Process[L]) Stderr() string { return p.stderr.String() }

// Describe returns both outputs, for a failure message.
func (p *Process[L]) Describe() string {
	return "stdout:\n" + p.Text() + "\nstderr:\n" + p.Stderr()
}

// syncBuffer is a bytes.Buffer the process writes while tests read it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
