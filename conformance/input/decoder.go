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

package input

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// DefaultMaxObjectBytes is the default size limit of one object: 4 MiB,
// over kube-apiserver's 3 MiB request limit. A List is not one object: the
// limit applies to each of its items.
const DefaultMaxObjectBytes = 4 << 20

// DecoderOption configures a Decoder.
type DecoderOption interface{ applyDecoder(*Decoder) }

// MaxObjectBytes is the size limit of one object (a JSON value, a YAML
// document, a List item); zero or less selects DefaultMaxObjectBytes. A
// larger object is skipped and reported as a DecodeError. In JSON it is
// skipped token by token, so one string or number over the limit, which
// could not be skipped without holding it, ends the input (Fatal).
type MaxObjectBytes int

func (m MaxObjectBytes) applyDecoder(d *Decoder) { d.limit = int(m) }

// Workers is how many goroutines decode objects while the caller consumes
// them; zero or less (the default) is GOMAXPROCS. Objects come out in
// input order whatever the number.
type Workers int

func (w Workers) applyDecoder(d *Decoder) { d.workers = int(w) }

// readBuffer sets the size of the buffer the splitters read from, for
// tests: what is read must not depend on it.
type readBuffer int

func (b readBuffer) applyDecoder(d *Decoder) { d.readBuffer = int(b) }

// Decoder reads Kubernetes objects, one at a time and in input order, from
// JSON (one object, concatenated values as `kubectl get -w -o json`
// prints them, a top-level array, Lists, watch events) or YAML (multi-
// document, Lists), in UTF-8 with or without a byte order mark, or UTF-16
// with one. The first byte that is not white space decides: '{' or '[' is
// JSON, anything else YAML. See the package documentation for what is
// refused and why.
type Decoder struct {
	in      io.Reader
	source  string
	limit   int
	workers int

	readBuffer int // see readBuffer; zero is open's buffer

	start    sync.Once
	stop     chan struct{}
	stopped  sync.Once
	pending  chan chan []result // each batch's results, in chunks, in input order
	next     chan []result      // the batch being handed out; closed after its last chunk
	cur      []result           // the chunk being handed out
	dropped  int                // the cut YAML document whose later parts are dropped
	kindless Position           // the last result.kindless

	unfinished atomic.Pointer[Position] // see Unfinished
}

// NewDecoder returns a Decoder reading r (nil is an empty input); source
// names it in positions ("-" for standard input, by convention). An r with
// a Stat method (an *os.File) or a Len method (a bytes.Reader) is read with
// a buffer no larger than it needs.
func NewDecoder(r io.Reader, source string, opts ...DecoderOption) *Decoder {
	if r == nil {
		r = strings.NewReader("")
	}
	d := &Decoder{in: r, source: source, stop: make(chan struct{})}
	for _, o := range opts {
		if o != nil {
			o.applyDecoder(d)
		}
	}
	if d.limit <= 0 {
		d.limit = DefaultMaxObjectBytes
	}
	d.limit = min(d.limit, math.MaxInt/2) // an offset plus the limit does not overflow
	if d.workers <= 0 {
		d.workers = runtime.GOMAXPROCS(0)
	}
	return d
}

// Next returns the next object, io.EOF at the end of the input, or a
// *DecodeError; after one that is not Fatal, Next goes on.
func (d *Decoder) Next() (Object, error) { return d.NextContext(context.Background()) }

// NextContext is Next that returns ctx.Err() once ctx is done, without
// waiting for input that may never come. Call Close after it.
func (d *Decoder) NextContext(ctx context.Context) (Object, error) {
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	d.start.Do(d.run)
	for {
		for len(d.cur) == 0 {
			if d.next == nil {
				select {
				case next, ok := <-d.pending:
					if !ok {
						return Object{}, io.EOF
					}
					d.next = next
				case <-ctx.Done():
					return Object{}, ctx.Err()
				}
			}
			select {
			case cur, ok := <-d.next:
				if d.cur = cur; !ok {
					d.next = nil
				}
			case <-ctx.Done():
				return Object{}, ctx.Err() // the batch is still waited for
			}
		}
		r := d.cur[0]
		d.cur = d.cur[1:]
		switch {
		case r.part != 0 && r.part == d.dropped:
			continue // a YAML List cut in the wrong place: see result.bad
		case r.err != nil && errors.Is(r.err, errKindless) && (d.kindless.Document != r.err.Position.Document ||
			!strings.HasPrefix(d.kindless.Item, nest(r.err.Position, "items[").Item)):
			continue // no item of this List was read without a kind of its own
		case r.kindless != nil:
			d.kindless = *r.kindless
		case r.bad:
			d.dropped = r.part
		}
		if r.err != nil {
			return Object{}, r.err
		}
		return r.obj, nil
	}
}

// Unfinished returns where the document the input is in the middle of
// starts: a YAML document or List item that no "---", "..." or end of input
// has ended, or a JSON value not yet closed (an item of an array or List
// read item by item), which may yet mean something else and so is not handed
// out. It is nil when only white space, comments or a "---" came since the
// last object, at the end of the input, and while objects read before are
// yet to be handed out. Call it after NextContext returned ctx.Err().
func (d *Decoder) Unfinished() *Position {
	if len(d.cur) > 0 || d.next != nil || len(d.pending) > 0 {
		return nil
	}
	return d.unfinished.Load()
}

// Close stops the goroutines of a Decoder not read to its end: no read of
// the input starts after it, and one under way finishes first. Next must
// not be called after it.
func (d *Decoder) Close() { d.stopped.Do(func() { close(d.stop) }) }

// A batch of jobs, decoded by one goroutine, is handed on when it holds
// this much, or before the input is read again, which may wait: a watch is
// checked as it comes.
const (
	batchBytes = 256 << 10
	batchJobs  = 256
)

// run starts the pipeline: one goroutine splits the input into batches,
// at most d.workers at a time decode them, NextContext reads their results
// in the order the batches were queued.
func (d *Decoder) run() {
	d.pending = make(chan chan []result, 2*d.workers)
	decoding := make(chan struct{}, d.workers)
	go func() {
		defer close(d.pending)
		var jobs []job
		size := 0
		send := func() bool {
			out := make(chan []result, 1)
			select {
			case d.pending <- out: // queued before it is decoded: order is kept
			case <-d.stop:
				return false
			}
			select {
			case decoding <- struct{}{}:
			case <-d.stop:
				return false
			}
			go func(jobs []job) {
				defer func() { <-decoding }()
				defer close(out)
				r := &results{send: func(rs []result) bool {
					select {
					case out <- rs:
						return true
					case <-d.stop:
						return false
					}
				}}
				for i := 0; i < len(jobs) && !r.stopped; i++ {
					decodeJob(jobs[i], d.limit, r)
				}
				r.flush() // nothing, once stopped
			}(jobs)
			jobs, size = nil, 0
			return true
		}
		// Before each read: what the splitter is in the middle of, stored
		// ahead of the objects it has split, so as never to name one of them.
		var s splitter
		s, err := d.open(func() bool {
			if s != nil {
				d.unfinished.Store(s.unfinished())
			}
			return len(jobs) == 0 || send()
		})
		if err != nil {
			jobs = append(jobs, job{err: err})
		}
		if s != nil {
			s.split(func(j job) bool {
				j.raw = bytes.Clone(j.raw) // the splitter reuses its buffer
				jobs, size = append(jobs, j), size+len(j.raw)
				return len(jobs) < batchJobs && size < batchBytes || send()
			})
		}
		d.unfinished.Store(nil) // the input has ended, and so has every document
		if len(jobs) > 0 {
			send()
		}
	}()
}

// Object is one object read from the input.
type Object struct {
	// Position is where the object starts.
	Position Position
	// Kind and APIVersion are the object's; "Service" and "v1" for an item
	// of a ServiceList or a watch event's object, which carry none.
	Kind, APIVersion string
	Ref              ObjectRef
	// Service is the decoded Service; nil for objects of other kinds.
	Service *v1.Service
	// Deleted marks the object of a DELETED watch event: a later Service
	// of the same name is a new one.
	Deleted bool
	// Added marks the object of an ADDED watch event. Of a Service already
	// observed, and not deleted since, it says the watch listed again (a
	// restarted kubectl get -w): what happened since the Service's last
	// observation was not seen.
	Added bool
}

// Position says where an object, or a problem, is in the input.
type Position struct {
	// Source names the input: a file name, or "-" for standard input.
	Source string `json:"source,omitempty"`
	// Document is the 1-based index of the JSON value or YAML document.
	Document int `json:"document,omitempty"`
	// Item locates the object in its document: "items[3]" in a List or a
	// top-level array, "object" in a watch event, joined by "." when
	// nested ("items[2].object"); empty for the document itself.
	Item string `json:"item,omitempty"`
	// Line is the 1-based line; in YAML, the line the document or item
	// starts at or, of a problem, the line of the member at fault when
	// it is found.
	Line int `json:"line,omitempty"`
	// Offset is the 0-based byte offset; -1 when unknown (YAML).
	Offset int64 `json:"offset"`
}

// String returns "source:line (document N, item, byte offset)", leaving out
// what is unknown, escaped (see Escape).
func (p Position) String() string {
	s := cmp.Or(Escape(p.Source), "(input)")
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	var parts []string
	if p.Document > 0 {
		parts = append(parts, "document "+strconv.Itoa(p.Document))
	}
	if p.Item != "" {
		parts = append(parts, Escape(p.Item))
	}
	if p.Offset >= 0 && (p.Document > 0 || p.Offset > 0) {
		parts = append(parts, "byte "+strconv.FormatInt(p.Offset, 10))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// ObjectRef names the object an observation or a finding is about.
type ObjectRef struct {
	// Kind is "Service" for every finding but notices of skipped objects.
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// ResourceVersion is the observation's; empty for manifests.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// String returns "namespace/name", "name", or "(unnamed)" for the name of
// one without (a manifest with generateName), each cut by Clip and
// escaped: the input may hold any string there, and every line that
// names an object would cost as much.
func (o ObjectRef) String() string {
	ns, name := Escape(Clip(o.Namespace)), cmp.Or(Escape(Clip(o.Name)), "(unnamed)")
	if ns != "" {
		return ns + "/" + name
	}
	return name
}

// DecodeError is an input problem: malformed JSON or YAML, a truncated
// input, an object over the size limit, a field of the wrong type, a name
// given twice, an ERROR watch event. The Decoder goes on after one that is
// not Fatal.
type DecodeError struct {
	Position Position
	// Object names the object when its metadata could be read.
	Object ObjectRef
	// Field is the path of the member at fault, such as
	// "status.conditions[0].lastTransitionTime", when there is one.
	Field   string
	pointer jsontext.Pointer // of Field, to find it in YAML (see decodeJob)
	Err     error
	// Fatal reports that nothing after the problem can be read.
	Fatal bool
}

// Error returns "position: [object: ][field: ]problem" on one escaped line.
// What it takes from the input (the object's namespace and name, as
// ObjectRef.String cuts them, the field, the problem, which may quote the
// input) is cut by Clip, each: an input of a few objects, each with a name
// or a message of the size limit, would otherwise print lines, and keep
// reports, of that size.
func (e *DecodeError) Error() string {
	s := e.Position.String() + ": "
	if e.Object.Name != "" || e.Object.Namespace != "" {
		s += e.Object.String() + ": "
	}
	if e.Field != "" {
		s += Escape(Clip(e.Field)) + ": "
	}
	if e.Err != nil {
		s += Escape(Clip(e.Err.Error()))
	}
	return s
}

// MaxTextBytes is how much of a string from the input Clip keeps: as much
// as an API object's reason may hold.
const MaxTextBytes = 1024

// Clip cuts s after MaxTextBytes, at a character's start, and says how
// many bytes were cut: a string from the input that a message quotes or a
// report keeps, so that it costs no more than a valid one, whatever the
// input holds.
func Clip(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	n := MaxTextBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:n], len(s)-n)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Escape returns s with what a terminal would act on escaped as in a Go
// string literal (\x1b, \u202e): invalid UTF-8 and every rune that is not
// graphic, such as controls and the format characters that reorder or
// hide text. Backslashes and double quotes are escaped too, but only when
// something else is. Names and messages come from untrusted input:
// unescaped, an object named "\x1b[2J" would clear the screen of whoever
// runs the check.
func Escape(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsGraphic(r) }) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// tooBig reports the object at pos, skipped for its size.
func tooBig(pos Position, limit int) *DecodeError {
	return &DecodeError{Position: pos, Err: fmt.Errorf("object larger than the limit of %s; skipped", formatBytes(limit))}
}

// formatBytes renders n as MiB when it is a whole number of them.
func formatBytes(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
