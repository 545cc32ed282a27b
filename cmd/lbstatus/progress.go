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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// Progress of a long check on a terminal: one status line on standard
// error, redrawn at most every progressEvery and only once the check has
// run for progressAfter, so that a short check prints nothing. It is drawn
// from the checking loop itself (no goroutine, no lock): a check that waits
// on its input has nothing new to say.
const (
	progressAfter = time.Second
	progressEvery = 250 * time.Millisecond
)

// progress counts objects and bytes and draws the status line. A nil
// *progress does nothing, which is what a pipe or -o json gets.
type progress struct {
	w       io.Writer
	now     func() time.Time
	start   time.Time
	next    time.Time // the earliest time of the next redraw
	objects int64
	bytes   atomic.Int64 // counted as the Decoder's goroutine reads
	shown   bool         // a status line is on the terminal
}

// newProgress returns a progress that draws on w, or nil when w is not a
// terminal, quiet is set, or TERM=dumb: the status line is redrawn with
// escape sequences such a terminal (an editor's shell buffer) shows raw.
func newProgress(w io.Writer, quiet bool) *progress {
	if quiet || !isTerminal(w) || os.Getenv("TERM") == "dumb" {
		return nil
	}
	return newProgressAt(w, time.Now)
}

// newProgressAt returns a progress on w with a clock; tests use it to draw
// on a buffer.
func newProgressAt(w io.Writer, now func() time.Time) *progress {
	start := now()
	return &progress{w: w, now: now, start: start, next: start.Add(progressAfter)}
}

// reader counts the bytes read through r.
func (p *progress) reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	return &countingReader{r: r, n: &p.bytes}
}

// object counts one object read, and redraws when it is time.
func (p *progress) object() {
	if p == nil {
		return
	}
	p.objects++
	// The clock is read once per 256 objects: cheap enough for streams
	// of millions.
	if p.objects&0xff != 0 {
		return
	}
	if now := p.now(); !now.Before(p.next) {
		p.draw(now)
		p.next = now.Add(progressEvery)
	}
}

// draw writes the status line: objects, bytes and rates so far.
func (p *progress) draw(now time.Time) {
	secs := now.Sub(p.start).Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	mib := float64(p.bytes.Load()) / (1 << 20)
	fmt.Fprintf(p.w, "\r\x1b[Kchecked %d objects, %.1f MiB (%.0f objects/s, %.1f MiB/s)",
		p.objects, mib, float64(p.objects)/secs, mib/secs)
	p.shown = true
}

// clear removes the status line, before other output on the terminal and
// at the end.
func (p *progress) clear() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.shown = false
}

// stderr returns a writer for the check's output or messages that first
// clears the status line, so that nothing is written over it.
func (p *progress) stderr(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return writerFunc(func(b []byte) (int, error) {
		p.clear()
		return w.Write(b)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// countingReader adds the bytes read to *n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// Stat is the file's, if the input is one: the decoder sizes its buffer to
// a small file (see input.NewDecoder).
func (c *countingReader) Stat() (fs.FileInfo, error) {
	if f, ok := c.r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		return f.Stat()
	}
	return nil, errors.ErrUnsupported
}
