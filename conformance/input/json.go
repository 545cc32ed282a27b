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
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// errTooBig is what guard returns once a value outgrows its allowance;
// errStop ends a split whose consumer wants no more.
var (
	errTooBig = errors.New("value larger than the limit")
	errStop   = errors.New("stopped")
)

// guard sits between the input and jsontext, which holds a whole value
// before handing it out: past a value's allowance it fails the read, so
// that a value over the limit is refused instead of held.
type guard struct {
	r     io.Reader
	read  int64 // bytes handed out: the offset of the next one
	limit int64 // the offset reading stops at; negative: no limit
}

func (g *guard) Read(p []byte) (int, error) {
	if g.limit >= 0 {
		left := g.limit - g.read
		if left <= 0 {
			return 0, errTooBig
		}
		p = p[:min(int64(len(p)), left)]
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	return n, err
}

// guardSlack is what jsontext may read ahead past a value's limit.
const guardSlack = 64 << 10

// jsonOptions split the stream only: a duplicate name or invalid UTF-8
// inside a value is the value decoder's to report, costing one object
// instead of the rest of the input.
var jsonOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// jsonSplitter cuts a JSON stream into values read whole: each document,
// each element of a top-level array, and each item of a List too large to
// read whole.
type jsonSplitter struct {
	dec    *jsontext.Decoder
	g      *guard
	source string
	limit  int
	base   int64 // input offset of the tokenizer's offset 0
	line   int   // line of the tokenizer's offset
	doc    int
}

func newJSONSplitter(r io.Reader, source string, limit int, base int64) *jsonSplitter {
	g := &guard{r: r, limit: -1, read: base}
	return &jsonSplitter{dec: jsontext.NewDecoder(g, jsonOptions...), g: g, source: source, limit: limit, base: base, line: 1}
}

func (s *jsonSplitter) buffered() bool {
	ub := s.dec.UnreadBuffer()
	return leadingDelims(ub) < len(ub)
}

func (s *jsonSplitter) split(yield func(job) bool) {
	for {
		pos, err := s.document(yield)
		if err != nil {
			if err != io.EOF && err != errStop {
				yield(s.fatal(err, pos))
			}
			return
		}
	}
}

// document hands out the jobs of the next top-level value.
func (s *jsonSplitter) document(yield func(job) bool) (Position, error) {
	k := s.dec.PeekKind()
	if k == 0 { // the end, or a syntax error
		_, _, pos, err := s.read(true)
		return pos, err
	}
	s.doc++
	switch k {
	case '[':
		// A top-level array stands for a List: its elements are items.
		return s.array("List", false, yield)
	case '{':
		v, _, pos, err := s.read(false)
		switch {
		case errors.Is(err, errTooBig):
			return s.large(pos, yield)
		case err == nil && !yield(job{raw: v, pos: pos}):
			return pos, errStop
		}
		return pos, err
	}
	_, _, pos, _ := s.read(true)
	return pos, errors.New("a document is not a JSON object or array")
}

// array hands out, as items[i], the elements of the array the tokenizer is
// at, or drops them when discard is set.
func (s *jsonSplitter) array(kind string, discard bool, yield func(job) bool) (Position, error) {
	if _, _, pos, err := s.read(true); err != nil {
		return pos, err
	}
	for i := 0; s.dec.PeekKind() != ']'; i++ {
		v, _, pos, err := s.read(false)
		pos = nest(pos, "items["+strconv.Itoa(i)+"]")
		j := job{raw: v, pos: pos, containerKind: kind}
		if errors.Is(err, errTooBig) {
			j, err = job{err: tooBig(pos, s.limit)}, s.skip()
		}
		if err != nil {
			return pos, err
		}
		if !discard && !yield(j) {
			return pos, errStop
		}
	}
	_, _, pos, err := s.read(true)
	return pos, err
}

// large reads, member by member, the document at pos that the tokenizer
// refused to read whole. A List's items are handed out one by one, each
// under the limit, however many; anything else is skipped and reported.
func (s *jsonSplitter) large(start Position, yield func(job) bool) (Position, error) {
	_, _, pos, err := s.read(true)
	kind, items, other, seen := "", false, false, map[string]bool{}
	for err == nil && s.dec.PeekKind() != '}' {
		var tok jsontext.Token
		if _, tok, pos, err = s.read(true); err != nil {
			break
		}
		name := tok.String()
		dup := seen[name]
		seen[name] = true
		if name == "items" && s.dec.PeekKind() == '[' {
			if dup && !yield(job{err: &DecodeError{Position: pos, Field: name,
				Err: errors.New(`duplicate member name "items": the List is ambiguous; its second items were not checked`)}}) {
				return pos, errStop
			}
			pos, err = s.array(listKind(kind), dup, yield)
			items = true
			continue
		}
		var v []byte
		if v, _, pos, err = s.read(false); errors.Is(err, errTooBig) {
			other, err = true, s.skip() // no List member but items is that large
			continue
		} else if err != nil {
			break
		}
		j := job{pos: pos}
		switch {
		case dup:
			j.err = &DecodeError{Position: pos, Field: name, Err: fmt.Errorf("duplicate member name %q in a List", name)}
		case !jsontext.Value(v).IsValid():
			j.raw = v // for the value decoder to say what is wrong
		case name == "type" || name == "object":
			other = true // a watch event, not a List
		case name == "kind" && !items:
			k, _ := jsontext.AppendUnquote(nil, v)
			kind = string(k)
		}
		if (j.err != nil || j.raw != nil) && !yield(j) {
			return pos, errStop
		}
	}
	if err == nil {
		_, _, pos, err = s.read(true)
	}
	if err == nil && (other || !items) && !yield(job{err: tooBig(start, s.limit)}) {
		return pos, errStop
	}
	return pos, err
}

// skip reads the value the tokenizer refused to read whole, token by token,
// each under the limit: only a single string over the limit is held, and
// fails.
func (s *jsonSplitter) skip() error {
	depth := s.dec.StackDepth()
	for {
		if _, _, _, err := s.read(true); err != nil || s.dec.StackDepth() == depth {
			return err
		}
	}
}

// read reads the next value, or the next token when token is set, and
// says where it starts. Whichever it is, it may be at most the limit.
func (s *jsonSplitter) read(token bool) (v []byte, tok jsontext.Token, pos Position, err error) {
	s.dec.PeekKind()
	ub := s.dec.UnreadBuffer()
	n := leadingDelims(ub)
	start := s.base + s.dec.InputOffset() + int64(n)
	pos = Position{Source: s.source, Document: s.doc, Line: s.line + bytes.Count(ub[:n], []byte{'\n'}), Offset: start}
	s.g.limit = max(s.g.read, start+int64(s.limit)+guardSlack)
	if token {
		tok, err = s.dec.ReadToken()
	} else {
		v, err = s.dec.ReadValue()
	}
	s.g.limit = -1
	if err == nil {
		s.line = pos.Line + bytes.Count(v, []byte{'\n'})
	}
	return v, tok, pos, err
}

// fatal turns a tokenizer error into the DecodeError that ends the input.
func (s *jsonSplitter) fatal(err error, pos Position) job {
	de := &DecodeError{Position: pos, Fatal: true}
	var syn *jsontext.SyntacticError
	switch {
	case errors.Is(err, errTooBig):
		de.Err = fmt.Errorf("a string larger than the limit of %s, which cannot be skipped without holding it; the rest of the input is not read", formatBytes(s.limit))
	case errors.Is(err, io.ErrUnexpectedEOF):
		de.Err = errors.New("unexpected end of input: the document is truncated")
	case errors.As(err, &syn):
		if rel := syn.ByteOffset - s.dec.InputOffset(); rel >= 0 && rel <= int64(len(s.dec.UnreadBuffer())) {
			de.Position.Line = s.line + bytes.Count(s.dec.UnreadBuffer()[:rel], []byte{'\n'})
			de.Position.Offset = s.base + syn.ByteOffset
		}
		de.Err = fmt.Errorf("malformed JSON: %s", trimJSONError(syn.Err))
	default:
		de.Err = errors.New(trimJSONError(err))
	}
	return job{err: de}
}
