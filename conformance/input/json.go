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

// errTooBig is what guard returns once a value outgrows its allowance.
var errTooBig = errors.New("value larger than the limit")

// guard sits between the input and the JSON tokenizer, which holds a
// whole value in its buffer before handing it out: it refuses to read
// further than a value's allowance, so that a value larger than the limit
// fails instead of being held. Between values the allowance is unlimited.
type guard struct {
	r     io.Reader
	read  int64 // bytes handed out: the offset of the next one
	limit int64 // offset at which reading stops; negative: no limit
}

func (g *guard) Read(p []byte) (int, error) {
	if g.limit >= 0 {
		left := g.limit - g.read
		if left <= 0 {
			return 0, errTooBig
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	return n, err
}

// guardSlack is what the tokenizer may read past the end of a value
// within the limit: a read ahead, not part of the value.
const guardSlack = 64 << 10

// splitState is where the JSON splitter is in the structure it streams.
type splitState int

const (
	atTop       splitState = iota // between documents
	inArray                       // in a top-level array: its elements are values
	inObject                      // in a document too large to read whole: a List, read member by member
	inItems                       // in that List's items
	inDiscarded                   // in an array whose elements are read and dropped
)

// jsonSplitter reads a stream of JSON documents with jsontext and hands
// out values that are read whole: each document, each element of a
// top-level array and, when a document is larger than the limit, each
// item of its "items" (a List read item by item, however long).
type jsonSplitter struct {
	dec    *jsontext.Decoder
	g      *guard
	source string
	limit  int

	base      int64 // input offset of the tokenizer's offset 0
	line      int   // line of the tokenizer's offset
	doc       int
	state     splitState
	index     int
	names     []string // member names of the List being streamed
	kind      string   // its kind, when read before its items
	itemsSeen bool
	done      bool
}

// jsonOptions read the stream's structure only: duplicate names and
// invalid UTF-8 inside a value are the value decoder's business, where
// they cost one object instead of the rest of the input.
var jsonOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func newJSONSplitter(r io.Reader, source string, limit int, base int64, line int) *jsonSplitter {
	g := &guard{r: r, limit: -1, read: base}
	return &jsonSplitter{dec: jsontext.NewDecoder(g, jsonOptions...), g: g, source: source, limit: limit,
		base: base, line: line}
}

// read reads the next value or token, bounded by the limit when bounded
// is set, and returns where it starts. A token is read when token is set.
func (s *jsonSplitter) read(bounded, token bool) (v []byte, tok jsontext.Token, pos Position, err error) {
	s.dec.PeekKind()
	ub := s.dec.UnreadBuffer()
	n := leadingDelims(ub)
	start := s.base + s.dec.InputOffset()
	pos = Position{Source: s.source, Document: s.doc, Line: s.line + bytes.Count(ub[:n], []byte{'\n'}), Offset: start + int64(n)}
	if bounded {
		s.g.limit = max(s.g.read, start+int64(n)+int64(s.limit)+guardSlack)
	}
	if token {
		tok, err = s.dec.ReadToken()
	} else {
		v, err = s.dec.ReadValue()
	}
	s.g.limit = -1
	if err != nil {
		return nil, tok, pos, err
	}
	s.line = pos.Line + bytes.Count(v, []byte{'\n'})
	return v, tok, pos, nil
}

// fatal turns a tokenizer error into the DecodeError that ends the input.
func (s *jsonSplitter) fatal(err error, pos Position) job {
	s.done = true
	de := &DecodeError{Position: pos, Fatal: true}
	var syn *jsontext.SyntacticError
	switch {
	case errors.Is(err, errTooBig):
		de.Err = fmt.Errorf("object larger than the limit of %s; the rest of the input is not read", formatBytes(s.limit))
	case errors.Is(err, io.ErrUnexpectedEOF):
		de.Err = errors.New("unexpected end of input: the document is truncated")
	case errors.As(err, &syn):
		if syn.ByteOffset >= s.dec.InputOffset() {
			ub := s.dec.UnreadBuffer()
			rel := syn.ByteOffset - s.dec.InputOffset()
			if rel <= int64(len(ub)) {
				de.Position.Line = s.line + bytes.Count(ub[:rel], []byte{'\n'})
			}
			de.Position.Offset = s.base + syn.ByteOffset
		}
		de.Err = fmt.Errorf("malformed JSON: %s", trimJSONError(syn.Err))
	default:
		de.Err = errors.New(trimJSONError(err))
	}
	return job{err: de}
}

// next returns the next job; false at the end of the input.
func (s *jsonSplitter) next() (job, bool) {
	for !s.done {
		switch s.state {
		case atTop:
			k := s.dec.PeekKind()
			if k == 0 {
				_, _, pos, err := s.read(false, true)
				if err == io.EOF {
					s.done = true
					return job{}, false
				}
				return s.fatal(err, pos), true
			}
			s.doc++
			switch k {
			case '[':
				if _, _, pos, err := s.read(false, true); err != nil {
					return s.fatal(err, pos), true
				}
				s.state, s.index = inArray, 0
			case '{':
				v, _, pos, err := s.read(true, false)
				if errors.Is(err, errTooBig) {
					if err := s.stream(); err != nil {
						return s.fatal(err, pos), true
					}
					continue
				}
				if err != nil {
					return s.fatal(err, pos), true
				}
				return job{raw: v, pos: pos}, true
			default:
				_, _, pos, _ := s.read(false, true)
				return s.fatal(errors.New("a document is not a JSON object or array"), pos), true
			}
		case inArray, inItems, inDiscarded:
			if s.dec.PeekKind() == ']' {
				if _, _, pos, err := s.read(false, true); err != nil {
					return s.fatal(err, pos), true
				}
				if s.state == inArray {
					s.state = atTop
				} else {
					s.state = inObject
				}
				continue
			}
			v, _, pos, err := s.read(true, false)
			if err != nil {
				return s.fatal(err, pos), true
			}
			i := s.index
			s.index++
			if s.state == inDiscarded {
				continue
			}
			// An element of a top-level array is named as a List's item
			// is: that is what such an array stands for.
			pos.Item = "items[" + strconv.Itoa(i) + "]"
			return job{raw: v, pos: pos, containerKind: listKind(s.kind)}, true
		case inObject:
			if s.dec.PeekKind() == '}' {
				if _, _, pos, err := s.read(false, true); err != nil {
					return s.fatal(err, pos), true
				}
				s.state = atTop
				continue
			}
			_, tok, pos, err := s.read(false, true)
			if err != nil {
				return s.fatal(err, pos), true
			}
			name := tok.String()
			dup := false
			for _, n := range s.names {
				dup = dup || n == name
			}
			s.names = append(s.names, name)
			if name == "items" && s.dec.PeekKind() == '[' {
				if _, _, pos, err := s.read(false, true); err != nil {
					return s.fatal(err, pos), true
				}
				s.state, s.index, s.itemsSeen = inItems, 0, true
				if dup {
					s.state = inDiscarded
					return job{err: &DecodeError{Position: pos, Field: "items",
						Err: errors.New(`duplicate member name "items": the List is ambiguous; its second items were not checked`)}}, true
				}
				continue
			}
			v, _, pos, err := s.read(true, false)
			if err != nil {
				return s.fatal(err, pos), true
			}
			switch {
			case dup:
				return job{err: &DecodeError{Position: pos, Field: name, Err: fmt.Errorf("duplicate member name %q in a List", name)}}, true
			case !jsontext.Value(v).IsValid():
				return job{raw: v, pos: pos}, true // the value decoder says what is wrong
			case name == "kind" && !s.itemsSeen:
				k, _ := jsontext.AppendUnquote(nil, v)
				s.kind = string(k)
			case name == "type" || name == "object":
				return s.fatal(errTooBig, pos), true
			}
		}
	}
	return job{}, false
}

// stream starts reading the document that the tokenizer has just refused
// to read whole member by member: a List larger than the limit.
func (s *jsonSplitter) stream() error {
	// The failed read consumed nothing: the document starts the unread
	// bytes. Read them again, then the rest, with a fresh tokenizer.
	// The old tokenizer is dropped: its buffer can be read in place.
	unread := s.dec.UnreadBuffer()
	s.base += s.dec.InputOffset()
	s.g.limit = -1
	s.dec = jsontext.NewDecoder(io.MultiReader(bytes.NewReader(unread), s.g), jsonOptions...)
	s.names, s.kind, s.index, s.itemsSeen = s.names[:0], "", 0, false
	if _, _, _, err := s.read(false, true); err != nil {
		return err
	}
	s.state = inObject
	return nil
}

func (s *jsonSplitter) buffered() bool {
	ub := s.dec.UnreadBuffer()
	return leadingDelims(ub) < len(ub)
}
