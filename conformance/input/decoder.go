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
	"bufio"
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// DefaultMaxObjectBytes is the default size limit of one object: 4 MiB.
// kube-apiserver refuses requests over 3 MiB and etcd stores objects up to
// 1.5 MiB, so no real Service comes near it. A List is not one object: its
// items are read one at a time, each under the limit, however long the
// List, in JSON and in YAML.
const DefaultMaxObjectBytes = 4 << 20

// DecoderOption configures a Decoder.
type DecoderOption interface {
	applyDecoder(*Decoder)
}

// MaxObjectBytes is a DecoderOption: the size limit of one object (a JSON
// value read whole, a YAML document or a List item), in bytes. Zero or
// negative selects DefaultMaxObjectBytes. A larger object is reported as a
// DecodeError and skipped; in JSON, where skipping it would mean holding it,
// one that is not a List ends the input (a Fatal DecodeError).
type MaxObjectBytes int

func (m MaxObjectBytes) applyDecoder(d *Decoder) {
	if m > 0 {
		d.limit = int(m)
	} else {
		d.limit = DefaultMaxObjectBytes
	}
}

// Workers is a DecoderOption: how many goroutines decode objects while the
// caller consumes them. 1 decodes on the caller's goroutine, inside Next;
// zero or negative (the default) uses GOMAXPROCS. Objects come out in
// input order whatever the number.
type Workers int

func (w Workers) applyDecoder(d *Decoder) { d.workers = int(w) }

// splitter hands out the jobs of one input: JSON values or YAML documents.
type splitter interface {
	next() (job, bool)
	// buffered reports whether the next job can be read without waiting
	// for input: a batch is handed on when it cannot, so that a slow
	// stream (a watch) is checked as it comes.
	buffered() bool
}

// Decoder reads Kubernetes objects, one at a time, from JSON or YAML: a
// single object, a List or ServiceList, a top-level JSON array, a stream of
// concatenated JSON values (what `kubectl get -w -o json` prints), watch
// events ({"type": ..., "object": ...}, in any member order), or
// multi-document YAML, in UTF-8 with or without a byte order mark, or in
// UTF-16 with one. The format is chosen by the first byte that is not white
// space: '{' or '[' is JSON, anything else YAML.
//
// Objects are decoded as kube-apiserver decodes them: member names are
// case-sensitive, unknown members are ignored, and a name given twice at
// any depth (compared after unescaping) makes the object unreadable before
// its kind is looked at. Objects of other kinds are returned without a
// Service, for the caller to skip. BOOKMARK events are not observations
// and are not returned; an ERROR event is a DecodeError.
type Decoder struct {
	source  string
	limit   int
	workers int

	in      io.Reader
	s       splitter
	pending []result
	done    bool

	// The pipeline, when workers > 1.
	once    sync.Once
	batches chan *batch
	stop    chan struct{}
	cur     *batch
}

// NewDecoder returns a Decoder reading r. source names the input in
// positions and errors ("-" for standard input, by convention); it may be
// empty. A nil r is an empty input; a nil option is ignored.
func NewDecoder(r io.Reader, source string, opts ...DecoderOption) *Decoder {
	if r == nil {
		r = bytes.NewReader(nil)
	}
	d := &Decoder{in: r, source: source, limit: DefaultMaxObjectBytes}
	for _, o := range opts {
		if o != nil {
			o.applyDecoder(d)
		}
	}
	if d.workers <= 0 {
		d.workers = runtime.GOMAXPROCS(0)
	}
	return d
}

// Next returns the next object. It returns io.EOF at the end of the input,
// and a *DecodeError for an input problem; after one that is not Fatal the
// caller may call Next again for the objects that follow.
func (d *Decoder) Next() (Object, error) {
	return d.NextContext(context.Background())
}

// NextContext is Next that gives up when ctx is done, returning ctx.Err():
// an interrupted check need not wait for input that may never come. With
// Workers(1), a read under way finishes first. After ctx.Err(), call Close.
func (d *Decoder) NextContext(ctx context.Context) (Object, error) {
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	if d.workers > 1 {
		return d.nextParallel(ctx)
	}
	for len(d.pending) == 0 {
		if d.done {
			return Object{}, io.EOF
		}
		if d.s == nil {
			d.s = d.open()
		}
		j, ok := d.s.next()
		if !ok {
			d.done = true
			continue
		}
		d.pending = decodeJob(j, d.limit, d.pending[:0])
	}
	r := d.pending[0]
	d.pending = d.pending[1:]
	if r.err != nil {
		return Object{}, r.err
	}
	return r.obj, nil
}

// Close stops the decoding goroutines of a Decoder not read to its end. A
// read of the input already under way is not interrupted. Next must not be
// called after Close.
func (d *Decoder) Close() {
	d.once.Do(func() { d.stop = make(chan struct{}) })
	if d.stop != nil {
		select {
		case <-d.stop:
		default:
			close(d.stop)
		}
	}
}

// open detects the encoding and the format and returns the splitter.
// The splitter's values are valid until its next call.
func (d *Decoder) open() splitter {
	br := bufio.NewReaderSize(d.in, 64<<10)
	var base int64
	if b, _ := br.Peek(3); bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
		base = 3
	} else if bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		// UTF-16 with a byte order mark: read as UTF-8. Offsets are
		// then those of the UTF-8 text.
		br = bufio.NewReaderSize(transform.NewReader(br, unicode.BOMOverride(unicode.UTF8.NewDecoder())), 64<<10)
	}
	// Leading white space: whole lines of it are dropped (and counted),
	// so that YAML's first line keeps its indentation.
	line := 1
	for {
		// What has arrived, without waiting for more: a watch stream
		// may hold back its next byte for minutes.
		b, err := br.Peek(1)
		if err == nil {
			b, _ = br.Peek(br.Buffered())
		}
		if len(b) == 0 && err != nil {
			if err != io.EOF {
				return &failed{err: &DecodeError{Position: Position{Source: d.source, Line: line, Offset: base}, Err: err, Fatal: true}}
			}
			return &failed{}
		}
		i := leadingSpace(b)
		if i == len(b) {
			nl := bytes.LastIndexByte(b, '\n')
			if nl < 0 {
				// Spaces that may indent YAML: wait for what follows.
				more, err := br.Peek(len(b) + 1)
				switch {
				case err == bufio.ErrBufferFull:
					base += int64(len(b))
					_, _ = br.Discard(len(b))
				case len(more) == len(b) && err != nil:
					return &failed{}
				}
				continue
			}
			line += bytes.Count(b[:nl+1], []byte{'\n'})
			base += int64(nl + 1)
			_, _ = br.Discard(nl + 1)
			continue
		}
		if i < len(b) && (b[i] == '{' || b[i] == '[') {
			return newJSONSplitter(br, d.source, d.limit, base, line)
		}
		if nl := bytes.LastIndexByte(b[:i], '\n'); nl >= 0 {
			line += bytes.Count(b[:nl+1], []byte{'\n'})
			_, _ = br.Discard(nl + 1)
		}
		return newYAMLSplitter(br, d.source, d.limit, line)
	}
}

// leadingSpace counts the JSON white space at the start of b.
func leadingSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return i
		}
	}
	return len(b)
}

// failed is the splitter of an empty input, or one that cannot be read.
type failed struct{ err *DecodeError }

func (f *failed) buffered() bool { return true }

func (f *failed) next() (job, bool) {
	if f.err == nil {
		return job{}, false
	}
	j := job{err: f.err}
	f.err = nil
	return j, true
}

// batch is a run of jobs decoded by one worker; its results are read in
// input order, batch after batch.
type batch struct {
	jobs    []job
	results []result
	done    chan struct{}
}

// batchBytes and batchJobs bound a batch: big enough that handing it over
// costs little per object, small enough to keep both cores busy.
const (
	batchBytes = 256 << 10
	batchJobs  = 256
)

// nextParallel is Next with the pipeline: one goroutine splits the input
// into batches, workers decode them, and Next hands out the results of
// each batch in turn.
func (d *Decoder) nextParallel(ctx context.Context) (Object, error) {
	d.once.Do(d.startPipeline)
	for d.cur == nil || len(d.cur.results) == 0 {
		var b *batch
		var ok bool
		select {
		case b, ok = <-d.batches:
			if !ok {
				return Object{}, io.EOF
			}
		case <-ctx.Done():
			return Object{}, ctx.Err()
		}
		select {
		case <-b.done:
		case <-ctx.Done():
			return Object{}, ctx.Err()
		}
		d.cur = b
	}
	r := d.cur.results[0]
	d.cur.results = d.cur.results[1:]
	if r.err != nil {
		return Object{}, r.err
	}
	return r.obj, nil
}

func (d *Decoder) startPipeline() {
	d.batches = make(chan *batch, 2*d.workers)
	d.stop = make(chan struct{})
	work := make(chan *batch, d.workers)
	for range d.workers {
		go func() {
			for b := range work {
				var out []result
				for _, j := range b.jobs {
					out = decodeJob(j, d.limit, out)
				}
				b.jobs, b.results = nil, out
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(d.batches)
		defer close(work)
		s := d.open()
		for {
			b := &batch{done: make(chan struct{})}
			// The values of a batch are copied into one buffer: one
			// allocation per batch rather than one per object.
			var arena []byte
			for len(b.jobs) < batchJobs && len(arena) < batchBytes {
				j, ok := s.next()
				if !ok {
					break
				}
				if len(j.raw) > 0 {
					if arena == nil {
						arena = make([]byte, 0, max(batchBytes+batchBytes/4, len(j.raw)))
					}
					if len(arena)+len(j.raw) > cap(arena) {
						j.raw = bytes.Clone(j.raw)
					} else {
						start := len(arena)
						arena = append(arena, j.raw...)
						j.raw = arena[start:len(arena):len(arena)]
					}
				}
				b.jobs = append(b.jobs, j)
				if !s.buffered() {
					break
				}
			}
			if len(b.jobs) == 0 {
				return
			}
			// The batch is queued for the reader before a worker may
			// finish it, so that results keep the input's order.
			select {
			case d.batches <- b:
			case <-d.stop:
				return
			}
			select {
			case work <- b:
			case <-d.stop:
				return
			}
		}
	}()
}
