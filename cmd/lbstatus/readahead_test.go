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
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lbstatus/lbstatus/conformance/input"
)

// manifestsDir writes a directory of every kind of input check reads
// from files: Services that pass and fail, a trace, other kinds, broken
// and empty files, and one file too large to read ahead.
func manifestsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "a/ready.yaml", readyYAML)
	write(t, dir, "a/no-ingress.json", noIngressJSON)
	write(t, dir, "b/trace.yaml", readyYAML+"---\n"+strings.Replace(readyYAML, `"7"`, `"8"`, 1))
	write(t, dir, "b/broken.yaml", "kind: Service\n  bad: [\n")
	write(t, dir, "b/cut.json", `{"kind":`)
	write(t, dir, "c/empty.yaml", "")
	write(t, dir, "c/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	var big strings.Builder
	for i := 0; int64(big.Len()) <= readAheadBytes; i++ {
		fmt.Fprintf(&big, "%s---\n", strings.Replace(readyYAML, "name: web", fmt.Sprintf("name: web-%d", i), 1))
	}
	write(t, dir, "c/large.yaml", big.String())
	for i := range 20 {
		write(t, dir, fmt.Sprintf("d/%02d.yaml", i), strings.Replace(readyYAML, "name: web", fmt.Sprintf("name: d-%d", i), 1))
	}
	return dir
}

// Reading files ahead changes nothing check reports, in any format, nor
// the order of what it says on standard error.
func TestCheck_ReadAheadGivesTheSameReport(t *testing.T) {
	dir := manifestsDir(t)
	for _, args := range [][]string{{}, {"-o", "json"}, {"-o", "html"}, {"--timeline", "-v"}, {"--decode-only"}} {
		args = append([]string{"check", dir}, args...)
		code, stdout, stderr := runCmd(t, "", args...)
		func() {
			defer func(n int64) { readAheadBytes = n }(readAheadBytes)
			readAheadBytes = -1 // no file is small enough
			wantCode, wantStdout, wantStderr := runCmd(t, "", args...)
			if code != wantCode || stdout != wantStdout || stderr != wantStderr {
				t.Errorf("%v read ahead: exit %d, stdout:\n%s\nstderr:\n%s\nwant, read in turn: exit %d, stdout:\n%s\nstderr:\n%s",
					args, code, stdout, stderr, wantCode, wantStdout, wantStderr)
			}
		}()
		if !strings.Contains(stderr, "broken.yaml") {
			t.Errorf("%v: the report misses an input:\n%s%s", args, stdout, stderr)
		}
	}
}

// The files after the one being checked are read before their turn: what
// they held then is what is checked.
func TestReadAhead_ReadsTheNextFiles(t *testing.T) {
	dir := manifestsDir(t)
	ins := expand([]string{dir}, nil)
	ctx := context.Background()
	ra := newReadAhead(ctx, ins, input.DefaultMaxObjectBytes)
	first, n := ra.take(0)
	if first == nil || n != len(noIngressJSON) {
		t.Fatalf("%s: read %d bytes ahead, want %d", ins[0].name, n, len(noIngressJSON))
	}
	if ra.next <= 1 || ra.files[1] == nil {
		t.Fatalf("after the first input, %d inputs were considered, want those after it read ahead", ra.next)
	}
	<-ra.files[1].done
	if err := os.Remove(ins[1].name); err != nil {
		t.Fatal(err)
	}
	f, _ := ra.take(1)
	if f == nil {
		t.Fatalf("%s was not read ahead", ins[1].name)
	}
	obj, err := f.NextContext(ctx)
	if err != nil || obj.Ref.Name != "web" {
		t.Errorf("%s, read ahead and removed: %+v, %v; want the Service it held", ins[1].name, obj.Ref, err)
	}
	if _, err := f.NextContext(ctx); err != io.EOF {
		t.Errorf("after its one Service: %v, want io.EOF", err)
	}
	// Beyond the window, nothing is read yet.
	if ra.next > 2+ra.window {
		t.Errorf("%d inputs considered after two were taken, want at most %d", ra.next, 2+ra.window)
	}
}

// A file that is no longer small, or no longer a regular file, when its
// read ahead starts is left to its turn, its bytes untouched: a FIFO is
// not opened so as to wait for a writer, which would give its bytes to the
// read ahead.
func TestReadAhead_LeavesChangedFilesToTheirTurn(t *testing.T) {
	dir := t.TempDir()
	grown := write(t, dir, "a.yaml", readyYAML)
	fifo := write(t, dir, "b.yaml", readyYAML)
	ins := expand([]string{dir}, nil)
	if !ins[0].small || !ins[1].small {
		t.Fatalf("inputs %+v, want both small", ins)
	}
	write(t, dir, "a.yaml", readyYAML+strings.Repeat("# padding\n", int(readAheadBytes/10)))
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, fifo)
	ctx := context.Background()
	ra := newReadAhead(ctx, ins, input.DefaultMaxObjectBytes)
	taken := make(chan *aheadFile, 2)
	go func() {
		for i := range ins {
			f, _ := ra.take(i)
			taken <- f
		}
	}()
	for _, name := range []string{grown, fifo} {
		select {
		case f := <-taken:
			if f != nil {
				t.Errorf("%s was read ahead, want it left to its turn", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the read ahead still waits after 10s", name)
		}
	}
	// The FIFO's bytes are its turn's.
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = w.WriteString(readyYAML)
			w.Close()
		}
	}()
	code, stdout, stderr := checkWithin(t, ctx, 10*time.Second, fifo)
	if code != exitOK || !strings.Contains(stdout, "1 observation of 1 Service") {
		t.Errorf("exit %d, want %d and the Service read:\n%s%s", code, exitOK, stdout, stderr)
	}
}

// Once the check is interrupted, an input read ahead is not handed out:
// its turn sees the interrupt.
func TestReadAhead_Interrupted(t *testing.T) {
	dir := manifestsDir(t)
	ins := expand([]string{dir}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	ra := newReadAhead(ctx, ins, input.DefaultMaxObjectBytes)
	cancel()
	if f, _ := ra.take(0); f != nil {
		t.Errorf("%s was handed out after the interrupt", ins[0].name)
	}
	// The reads the first take started end, with nothing to hand out.
	for i, f := range ra.files {
		if f == nil {
			continue
		}
		select {
		case <-f.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s is still read 10s after the interrupt", ins[i].name)
		}
		if f.read >= 0 {
			t.Errorf("%s was read whole after the interrupt", ins[i].name)
		}
	}
	for i := range ins {
		if f, _ := ra.take(i); f != nil {
			t.Errorf("%s was handed out after the interrupt", ins[i].name)
		}
	}
}

// BenchmarkCheckDirectory checks a directory of 2,000 one-Service YAML
// manifests with -o json, in alternating rounds with files read ahead and,
// the baseline, each read in its turn. It reports the time per file read
// ahead, and its ratio to the baseline's (x-in-turn).
//
//	go test ./cmd/lbstatus -run '^$' -bench 'Directory$' -benchmem
func BenchmarkCheckDirectory(b *testing.B) {
	dir := b.TempDir()
	const files = 2000
	for i := range files {
		write(b, dir, fmt.Sprintf("%04d.yaml", i), strings.Replace(readyYAML, "name: web", fmt.Sprintf("name: web-%d", i), 1))
	}
	check := func() time.Duration {
		start := time.Now()
		if code := run([]string{"check", "-o", "json", dir}, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d, want %d", code, exitOK)
		}
		return time.Since(start)
	}
	defer func(n int64) { readAheadBytes = n }(readAheadBytes)
	var ahead, inTurn time.Duration
	b.ResetTimer()
	for range b.N {
		readAheadBytes = 128 << 10
		ahead += check()
		readAheadBytes = -1
		inTurn += check()
	}
	b.ReportMetric(float64(ahead.Nanoseconds())/float64(b.N*files), "ns/file")
	b.ReportMetric(float64(ahead)/float64(inTurn), "x-in-turn")
}
