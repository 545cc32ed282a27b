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
	"fmt"
	"io"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// YAML input is split into documents by apimachinery's YAMLReader, as
// kubectl splits it. One document is held at a time, so a List would be
// held whole: yamlItems, a filter in front of the reader, turns the items
// of a top-level "items:" block sequence (what `kubectl get -o yaml`
// prints) into documents of their own, and caps every document at the
// limit. The filter works on lines and knows only three things of YAML:
// document separators, a column-0 "items:" key, and the "- " that starts
// each entry of the sequence below it. Anything else (a flow sequence, an
// anchor across items) is left as one document and read whole.

// docInfo describes a document the filter hands to the YAMLReader.
type docInfo struct {
	doc, line int
	item      int  // index in the List's items; -1 for a document
	header    bool // the List's own members, around its items
	tooBig    int  // size reached when over the limit; 0 otherwise
	kind      string
}

// docMarker starts every document the filter writes, followed by the
// document's number; a YAML comment, invisible to the parser.
const docMarker = "#lbstatus-doc "

// yamlItems is the filter: an io.Reader of YAML that rewrites its input as
// described above. It reads the input line by line.
type yamlItems struct {
	in    *bufio.Reader
	limit int
	out   bytes.Buffer
	infos map[int]*docInfo
	next  int // number of the next document written

	line     int // line of the next input line
	doc      int // input document number (1-based, counting documents with content)
	cur      *docInfo
	size     int
	items    bool // in the input document's items
	indent   int  // column of the items' "- "; -1 before the first
	item     int
	lastKind string
	err      error // fatal: the input cannot be read further
	eof      bool
}

func newYAMLItems(in *bufio.Reader, limit, line int) *yamlItems {
	return &yamlItems{in: in, limit: limit, line: line, infos: map[int]*docInfo{}, indent: -1}
}

func (f *yamlItems) Read(p []byte) (int, error) {
	for f.out.Len() == 0 {
		if f.eof || f.err != nil {
			return 0, io.EOF
		}
		f.step()
	}
	return f.out.Read(p)
}

// start begins a document in the output.
func (f *yamlItems) start(info docInfo) {
	f.cur = &info
	f.infos[f.next] = f.cur
	f.out.WriteString("---\n" + docMarker + strconv.Itoa(f.next) + "\n")
	f.next++
	f.size = 0
}

// emit writes a line of the current document, unless it is over the limit.
func (f *yamlItems) emit(line []byte) {
	f.size += len(line)
	if f.cur.tooBig > 0 || f.size > f.limit {
		f.cur.tooBig = f.size
		return
	}
	f.out.Write(line)
}

// readLine returns the next input line, '\n' included; a line longer than
// the buffer comes in pieces, each but the last reported as partial.
func (f *yamlItems) readLine() (line []byte, partial bool) {
	line, err := f.in.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return line, true
	case err == io.EOF:
		f.eof = true
	case err != nil:
		f.err = err
		f.eof = true
	}
	return line, false
}

// step reads one input line and writes what it becomes.
func (f *yamlItems) step() {
	line, partial := f.readLine()
	if bytes.IndexByte(line, 0) >= 0 {
		f.err = errBinary
		return
	}
	if len(line) == 0 {
		return
	}
	lineNo := f.line
	if partial {
		// A long line: the first piece decides what it is; the rest is
		// more of the same document.
		f.body(line, lineNo)
		for partial && f.err == nil {
			line, partial = f.readLine()
			if bytes.IndexByte(line, 0) >= 0 {
				f.err = errBinary
				return
			}
			f.emit(line)
		}
		f.line++
		return
	}
	if line[len(line)-1] == '\n' {
		f.line++
	} else {
		line = append(line[:len(line):len(line)], '\n')
	}
	if bytes.HasPrefix(line, []byte("---")) && (len(line) == 4 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r') {
		f.cur, f.items, f.indent, f.lastKind = nil, false, -1, ""
		rest := bytes.TrimSpace(line[3:])
		if len(rest) > 0 && rest[0] != '#' {
			// "--- value": the document starts on the separator line.
			f.body(append([]byte("   "), line[3:]...), lineNo)
		}
		return
	}
	f.body(line, lineNo)
}

// body handles a line of a document's content.
func (f *yamlItems) body(line []byte, lineNo int) {
	blank := isBlank(line)
	if f.cur == nil {
		if blank {
			return // comments and blank lines before a document
		}
		f.doc++
		f.start(docInfo{doc: f.doc, line: lineNo, item: -1})
	}
	col := indentOf(line)
	if f.items && !blank {
		switch {
		case f.indent < 0 && isEntry(line[col:]):
			f.indent = col
			fallthrough
		case col == f.indent && isEntry(line[col:]):
			f.start(docInfo{doc: f.doc, line: lineNo, item: f.item, kind: f.lastKind})
			f.item++
			// "- key: v" becomes "  key: v": the entry's mapping, at
			// the same columns.
			l := bytes.Clone(line)
			l[col] = ' '
			f.emit(l)
			return
		case f.indent >= 0 && col > f.indent, f.indent < 0 && col > 0:
			f.emit(line)
			return
		default:
			// The sequence is over: back to the List's own members.
			f.items = false
			f.start(docInfo{doc: f.doc, line: lineNo, item: -1, header: true})
		}
	}
	if col == 0 && !blank {
		key := line
		if i := bytes.IndexByte(key, '#'); i >= 0 {
			key = key[:i]
		}
		key = bytes.TrimRight(key, " \t\r\n")
		switch {
		case string(key) == "items:" && f.cur.item < 0:
			f.items, f.indent, f.item = true, -1, 0
			f.cur.header = true
			return
		case bytes.HasPrefix(key, []byte("kind:")):
			f.lastKind = strings.Trim(strings.TrimSpace(string(key[5:])), `"'`)
		}
	}
	f.emit(line)
}

// isEntry reports whether s, after its indentation, starts a sequence
// entry: "-" followed by white space or the end of the line.
func isEntry(s []byte) bool {
	return len(s) >= 2 && s[0] == '-' && (s[1] == ' ' || s[1] == '\n' || s[1] == '\r' || s[1] == '\t')
}

func indentOf(line []byte) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

func isBlank(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || t[0] == '#'
}

// errBinary stops an input that holds a NUL byte, which no YAML or JSON
// text does: /dev/zero or a binary file is not read to its end.
var errBinary = errors.New("the input is not text (it holds a NUL byte); the rest of it is not read")

// yamlSplitter hands out the documents of YAML input.
type yamlSplitter struct {
	f      *yamlItems
	r      *utilyaml.YAMLReader
	source string
	done   bool
}

func newYAMLSplitter(in *bufio.Reader, source string, limit, line int) *yamlSplitter {
	f := newYAMLItems(in, limit, line)
	return &yamlSplitter{f: f, r: utilyaml.NewYAMLReader(bufio.NewReader(f)), source: source}
}

func (s *yamlSplitter) next() (job, bool) {
	for !s.done {
		doc, err := s.r.Read()
		if err != nil {
			s.done = true
			if err == io.EOF && s.f.err != nil {
				err = s.f.err
			}
			if err == io.EOF {
				return job{}, false
			}
			return job{err: &DecodeError{Position: Position{Source: s.source, Line: s.f.line, Offset: -1}, Err: err, Fatal: true}}, true
		}
		n, rest, ok := parseMarker(doc)
		info := s.f.infos[n]
		delete(s.f.infos, n)
		if !ok || info == nil || info.header {
			continue
		}
		pos := Position{Source: s.source, Document: info.doc, Line: info.line, Offset: -1}
		if info.item >= 0 {
			pos.Item = "items[" + strconv.Itoa(info.item) + "]"
		}
		if info.tooBig > 0 {
			what := "YAML document"
			if info.item >= 0 {
				what = "List item"
			}
			return job{err: &DecodeError{Position: pos,
				Err: fmt.Errorf("%s of %d bytes or more is larger than the limit of %s; skipped", what, info.tooBig, formatBytes(s.f.limit))}}, true
		}
		kind := ""
		if info.item >= 0 {
			kind = listKind(info.kind)
		}
		return job{raw: rest, pos: pos, yaml: true, containerKind: kind}, true
	}
	return job{}, false
}

// parseMarker reads the filter's marker line at the start of doc.
func parseMarker(doc []byte) (int, []byte, bool) {
	// The reader keeps a separator that opens the input.
	doc = bytes.TrimPrefix(doc, []byte("---\n"))
	if !bytes.HasPrefix(doc, []byte(docMarker)) {
		return 0, doc, false
	}
	rest := doc[len(docMarker):]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return 0, doc, false
	}
	n, err := strconv.Atoi(string(rest[:nl]))
	return n, rest[nl+1:], err == nil
}

// yamlToJSON converts a YAML document to JSON, as kubectl does; a key given
// twice is an error.
func yamlToJSON(doc []byte) ([]byte, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
		msg = strings.Join(strings.Fields(msg), " ")
		if strings.Contains(msg, "already set in map") {
			return nil, fmt.Errorf("duplicate key: %s; the object is ambiguous and was not checked", msg)
		}
		return nil, fmt.Errorf("malformed YAML: %s", msg)
	}
	return bytes.TrimSpace(js), nil
}

func (s *yamlSplitter) buffered() bool {
	return s.f.out.Len() > 0 || s.f.in.Buffered() > 0
}
