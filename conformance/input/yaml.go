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
	"errors"
	"io"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// YAML is split into documents by apimachinery's YAMLReader, as kubectl
// splits it, reading from yamlSplitter: a filter that makes each item of a
// top-level "items:" block sequence (what `kubectl get -o yaml` prints) a
// document of its own, so that a List of any length is read item by item,
// and caps every document at the limit. It knows three things of YAML,
// line by line: document separators, a column-0 "items:" key, and the "- "
// that starts each entry below it. Anything else (a flow sequence, an
// anchor across items) stays one document, read whole.

// yamlDoc describes a document the filter wrote.
type yamlDoc struct {
	pos    Position
	kind   string // for an item, its List's kind, as far as read
	size   int
	header bool         // the List's own members: not handed out
	err    *DecodeError // a problem to hand out instead
}

type yamlSplitter struct {
	in     *bufio.Reader
	source string
	limit  int
	out    bytes.Buffer // written for the YAMLReader, not yet read
	docs   []*yamlDoc   // written, not yet read back, in order
	cur    *yamlDoc

	line, doc int  // line of the next input line; input document
	rest      bool // the next input is the rest of a long line
	items     bool // in the document's items
	seen      bool // the document's "items:" was read
	drop      bool // the items are a second "items:", not handed out
	indent    int  // column of the items' "- "; -1 before the first
	item      int
	kind      string // the document's "kind:"
	err       error  // what stopped reading the input
	eof       bool
}

// errBinary stops an input that holds a NUL byte, which no YAML or JSON
// text does: /dev/zero or a binary file is not read to its end.
var errBinary = errors.New("the input is not text (it holds a NUL byte); the rest of it is not read")

func newYAMLSplitter(in *bufio.Reader, source string, limit int) *yamlSplitter {
	return &yamlSplitter{in: in, source: source, limit: limit, line: 1, indent: -1}
}

func (s *yamlSplitter) buffered() bool { return s.out.Len() > 0 || s.in.Buffered() > 0 }

func (s *yamlSplitter) split(yield func(job) bool) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(s))
	for {
		raw, err := r.Read()
		if err != nil {
			if s.err != nil {
				err = s.err
			}
			if err != io.EOF {
				yield(job{err: &DecodeError{Position: Position{Source: s.source, Line: s.line, Offset: -1}, Err: err, Fatal: true}})
			}
			return
		}
		if len(s.docs) == 0 {
			continue // cannot happen: every document the filter starts is one
		}
		d := s.docs[0]
		s.docs = s.docs[1:]
		j := job{raw: raw, pos: d.pos, yaml: true, containerKind: d.kind, err: d.err}
		switch {
		case d.header && d.err == nil:
			continue
		case d.size > s.limit:
			j.err = tooBig(d.pos, s.limit)
		}
		if !yield(j) {
			return
		}
	}
}

// Read is the filter: it turns input lines into output until there is some.
func (s *yamlSplitter) Read(p []byte) (int, error) {
	for s.out.Len() == 0 {
		if s.eof {
			return 0, io.EOF
		}
		s.step()
	}
	return s.out.Read(p)
}

// step reads one input line, or a piece of a long one, and writes what it
// becomes.
func (s *yamlSplitter) step() {
	line, err := s.in.ReadSlice('\n')
	partial := err == bufio.ErrBufferFull
	if bytes.IndexByte(line, 0) >= 0 {
		err, partial = errBinary, false
	}
	if err != nil && !partial {
		s.eof = true
		if err != io.EOF {
			s.err = err
			return
		}
		if len(line) > 0 {
			line = append(line[:len(line):len(line)], '\n')
		}
	}
	if len(line) == 0 {
		return
	}
	lineNo, rest := s.line, s.rest
	s.rest = partial
	if !partial {
		s.line++
	}
	switch {
	case rest:
		s.emit(line)
	case bytes.HasPrefix(line, []byte("---")) && !partial && (len(line) == 4 || strings.ContainsRune(" \t\r", rune(line[3]))):
		s.cur, s.items, s.seen, s.drop, s.indent, s.kind = nil, false, false, false, -1, ""
		if rest := bytes.TrimSpace(line[3:]); len(rest) > 0 && rest[0] != '#' {
			s.body(append([]byte("   "), line[3:]...), lineNo) // "--- value"
		}
	default:
		s.body(line, lineNo)
	}
}

// body handles a line of a document's content.
func (s *yamlSplitter) body(line []byte, lineNo int) {
	t := bytes.TrimSpace(line)
	blank := len(t) == 0 || t[0] == '#'
	if s.cur == nil {
		if blank {
			return // comments and blank lines before a document
		}
		s.doc++
		s.start(yamlDoc{})
		s.cur.pos.Line = lineNo
	}
	col := len(line) - len(bytes.TrimLeft(line, " "))
	entry := len(line) >= col+2 && line[col] == '-' && strings.ContainsRune(" \t\r\n", rune(line[col+1]))
	if s.items && !blank {
		switch {
		case entry && (s.indent < 0 || col == s.indent):
			s.indent = col
			s.start(yamlDoc{kind: listKind(s.kind), header: s.drop})
			s.cur.pos.Line, s.cur.pos.Item = lineNo, "items["+strconv.Itoa(s.item)+"]"
			s.item++
			line = bytes.Clone(line)
			line[col] = ' ' // "- key: v" is "  key: v": the entry's mapping
			s.emit(line)
			return
		case col > max(s.indent, 0):
			s.emit(line)
			return
		}
		s.items = false // back to the List's own members
		s.start(yamlDoc{header: true})
	}
	if col == 0 && !blank {
		key, _, _ := bytes.Cut(line, []byte("#"))
		key = bytes.TrimRight(key, " \t\r\n")
		switch {
		case string(key) == "items:" && s.cur.pos.Item == "":
			if s.seen {
				s.cur.err = &DecodeError{Position: Position{Source: s.source, Document: s.doc, Line: lineNo, Offset: -1}, Field: "items",
					Err: errors.New(`duplicate key "items": the List is ambiguous; its second items were not checked`)}
			}
			s.items, s.indent, s.item, s.cur.header = true, -1, 0, true
			s.drop, s.seen = s.seen, true
			return
		case bytes.HasPrefix(key, []byte("kind:")):
			s.kind = strings.Trim(strings.TrimSpace(string(key[5:])), `"'`)
		}
	}
	s.emit(line)
}

// start begins a document in the output, at the current input document.
func (s *yamlSplitter) start(d yamlDoc) {
	d.pos = Position{Source: s.source, Document: s.doc, Offset: -1}
	s.cur = &d
	s.docs = append(s.docs, s.cur)
	// A comment after the separator: no document is empty, so the
	// YAMLReader returns each, and s.docs stays in step with it.
	s.out.WriteString("---\n#\n")
}

// emit writes a line of the current document, unless it is over the limit.
func (s *yamlSplitter) emit(line []byte) {
	s.cur.size += len(line)
	if s.cur.size <= s.limit {
		s.out.Write(line)
	}
}
