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
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The status line is first drawn once the check has run for exactly
// progressAfter, and redrawn once progressEvery has passed since, with
// the new counts and rates.
func TestProgress_DrawnOnTheDot(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	var buf bytes.Buffer
	p := newProgressAt(&buf, func() time.Time { return now })
	step := func(at time.Duration, want string) {
		t.Helper()
		now = start.Add(at)
		buf.Reset()
		for range 256 {
			p.object()
		}
		if buf.String() != want {
			t.Errorf("at %s: drew %q, want %q", at, buf.String(), want)
		}
	}
	step(progressAfter-time.Nanosecond, "")
	step(progressAfter, "\r\x1b[Kchecked 512 objects, 0.0 MiB (512 objects/s, 0.0 MiB/s)")
	step(progressAfter+progressEvery-time.Nanosecond, "")
	step(progressAfter+progressEvery, "\r\x1b[Kchecked 1024 objects, 0.0 MiB (819 objects/s, 0.0 MiB/s)")
}

// The input's bytes are counted by the goroutine that reads it, the
// Decoder's, while the check loop draws them: the race detector holds the
// count to being shared safely.
func TestProgress_BytesCountedWhileDrawn(t *testing.T) {
	var clock atomic.Int64
	p := newProgressAt(io.Discard, func() time.Time { return time.Unix(0, clock.Add(int64(progressEvery))) })
	r := p.reader(strings.NewReader(strings.Repeat("x", 1<<20)))
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1<<10)
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
		}
	}()
	for range 1 << 16 {
		p.object()
	}
	<-done
	if n := p.bytes.Load(); n != 1<<20 {
		t.Errorf("counted %d bytes, want %d", n, 1<<20)
	}
}

// TestProgress_ReaderKeepsTheFileSize: counting the bytes of a file does not
// hide its size from the decoder, which sizes its buffer to a small file;
// a reader that is no file has none.
func TestProgress_ReaderKeepsTheFileSize(t *testing.T) {
	name := t.TempDir() + "/svc.json"
	if err := os.WriteFile(name, []byte(`{"kind":"Service"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := newProgressAt(io.Discard, time.Now)
	r := p.reader(f).(interface{ Stat() (fs.FileInfo, error) })
	if info, err := r.Stat(); err != nil || info.Size() != 18 {
		t.Errorf("Stat through the progress reader: %v, %v; want the file's 18 bytes", info, err)
	}
	r = p.reader(strings.NewReader("{}")).(interface{ Stat() (fs.FileInfo, error) })
	if _, err := r.Stat(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Stat of a reader that is no file: %v; want ErrUnsupported", err)
	}
}
