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
	"context"
	"io"
	"os"
	"runtime"
	"syscall"

	"github.com/lbstatus/lbstatus/conformance/input"
)

// readAheadFiles bounds, per core, how many files are read ahead of the
// one being checked, and readAheadBytes is the size of the largest (a
// variable for tests). Together they bound the memory reading ahead takes,
// whatever the number of files.
const readAheadFiles = 2

var readAheadBytes int64 = 128 << 10

// source is what check reads an input's objects from: the input's
// Decoder, or what a file read ahead held (aheadFile).
type source interface {
	NextContext(ctx context.Context) (input.Object, error)
	Close()
}

// readAhead reads and decodes small regular files ahead of their turn, a
// few at a time, on the cores that checking the current input leaves idle.
// Each input is still checked on its own and in turn, so the output is the
// same; but a directory of many small manifests is no longer read one file
// at a time, on one core. On 20,000 one-Service YAML files, where decoding
// YAML is most of the work, it takes 0.6 of the time on two cores
// (BenchmarkCheckDirectory).
type readAhead struct {
	ctx    context.Context
	ins    []inputPath
	limit  int // the size limit of one object
	files  []*aheadFile
	next   int // the next input to consider
	window int // how many inputs after the current one are read ahead
}

// newReadAhead returns a readAhead of ins; its reads stop when ctx ends.
func newReadAhead(ctx context.Context, ins []inputPath, limit int) *readAhead {
	return &readAhead{ctx: ctx, ins: ins, limit: limit, files: make([]*aheadFile, len(ins)), window: readAheadFiles * runtime.GOMAXPROCS(0)}
}

// take returns the objects of input i, and how many bytes it read, when
// it was read ahead, waiting for the read to end; and starts reading the
// inputs after it. It returns nil for an input not read ahead (large, not
// a regular file, or one that could not be read: its problem is found in
// its turn, as without reading ahead), or when the check is interrupted
// first.
func (a *readAhead) take(i int) (*aheadFile, int) {
	if a == nil {
		return nil, 0
	}
	for ; a.next < len(a.ins) && a.next <= i+a.window; a.next++ {
		if a.ins[a.next].small {
			f := &aheadFile{done: make(chan struct{}), read: -1}
			a.files[a.next] = f
			go f.load(a.ctx, a.ins[a.next].name, a.limit)
		}
	}
	f := a.files[i]
	if f == nil {
		return nil, 0
	}
	a.files[i] = nil
	select {
	case <-f.done:
	case <-a.ctx.Done():
		return nil, 0
	}
	if f.read < 0 {
		return nil, 0
	}
	return f, f.read
}

// aheadFile is a file read ahead: what its Decoder handed out, in order.
type aheadFile struct {
	done  chan struct{} // closed once the file is read
	read  int           // bytes read; -1 if the file is left to its turn
	items []aheadItem
}

// aheadItem is an object, or a problem, as the Decoder handed it out.
type aheadItem struct {
	obj input.Object
	err error
}

// load reads and decodes the file name, unless it has grown past
// readAheadBytes, or is no longer a regular file, since it was listed.
// It is opened without waiting: opening a FIFO would wait for a writer,
// and take the writer's bytes from the FIFO's turn.
func (f *aheadFile) load(ctx context.Context, name string, limit int) {
	defer close(f.done)
	file, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || !isSmall(fi) {
		return
	}
	data, err := io.ReadAll(io.LimitReader(file, readAheadBytes+1))
	if err != nil || int64(len(data)) > readAheadBytes {
		return
	}
	dec := input.NewDecoder(bytes.NewReader(data), name, input.MaxObjectBytes(limit), input.Workers(1))
	defer dec.Close()
	for {
		obj, err := dec.NextContext(ctx)
		switch {
		case ctx.Err() != nil:
			return // interrupted: left to its turn, which sees the interrupt
		case err == io.EOF:
			f.read = len(data)
			return
		}
		f.items = append(f.items, aheadItem{obj, err})
	}
}

// NextContext hands out the next object or problem the file held.
func (f *aheadFile) NextContext(ctx context.Context) (input.Object, error) {
	if err := ctx.Err(); err != nil {
		return input.Object{}, err
	}
	if len(f.items) == 0 {
		return input.Object{}, io.EOF
	}
	it := f.items[0]
	f.items[0] = aheadItem{} // checked: not kept
	f.items = f.items[1:]
	return it.obj, it.err
}

// Close drops what is left.
func (f *aheadFile) Close() { f.items = nil }
