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

package conformance

import (
	"errors"
	"fmt"
	"io"
)

// This file splits a JSON text into objects without decoding them: the
// documents of a stream of concatenated values, the elements of a
// top-level array, the items of a List and the object of a watch event
// ({"type": ..., "object": ...}). It copies each object's bytes verbatim,
// so that offsets of a later decoding error map back to the input, and
// never holds more than one object (bounded by the size limit) in memory:
// the items of a List are handed out one by one, however long the List.
//
// The splitter checks the structure it walks (brackets, strings, the
// members of a top-level object) and finds duplicate keys at every depth;
// the rest of the syntax is checked when an object is decoded, by
// sigs.k8s.io/json, case-sensitively as kube-apiserver decodes.
//
// Why not k8s.io/apimachinery's YAMLOrJSONDecoder, or a json.Decoder: both
// buffer a whole top-level value before handing it out, with no size limit,
// so a 50 MB object or a List of 100,000 Services is held in memory at
// once; a json.Decoder also scans every byte through its state machine
// before Unmarshal scans it twice more. This splitter reads with one byte
// loop, drops an object's bytes as soon as it is over the limit, and hands
// out List items one at a time. YAML documents are still converted by
// sigs.k8s.io/yaml, as the apimachinery decoder does.

// maxDepth bounds the nesting of a JSON value, as encoding/json does.
const maxDepth = 10000

// readBufferSize is the size of the splitter's read buffer.
const readBufferSize = 64 << 10

// errTruncated is the cause of a document that ends before it is complete.
var errTruncated = errors.New("unexpected end of input: the document is truncated")

// byteReader is a buffered reader that tracks the offset and line of the
// next unread byte.
type byteReader struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	base int64 // offset of buf[0] in the input
	line int   // line of buf[pos], 1-based
	err  error // sticky error of r; io.EOF at the end
}

func newByteReader(r io.Reader) *byteReader {
	return &byteReader{r: r, buf: make([]byte, readBufferSize), line: 1}
}

// offset returns the offset of the next unread byte.
func (r *byteReader) offset() int64 { return r.base + int64(r.pos) }

// fill reads more input when the buffer is used up. It reports false when
// no byte is left; r.err then says why.
func (r *byteReader) fill() bool {
	for r.pos == r.end {
		if r.err != nil {
			return false
		}
		r.base += int64(r.end)
		r.pos, r.end = 0, 0
		n, err := r.r.Read(r.buf)
		r.end = n
		if err != nil {
			r.err = err
		}
		if n == 0 && err == nil {
			// A reader that returns nothing and no error is allowed to;
			// try again, as io.ReadFull does, but not forever.
			n, err = io.ReadAtLeast(r.r, r.buf, 1)
			r.end = n
			if err != nil {
				r.err = err
			}
		}
	}
	return true
}

// more reads more input after the unread bytes, moving them to the start
// of the buffer. It reports whether it read anything.
func (r *byteReader) more() bool {
	if r.err != nil {
		return false
	}
	n := copy(r.buf, r.buf[r.pos:r.end])
	r.base += int64(r.pos)
	r.pos, r.end = 0, n
	if r.end == len(r.buf) {
		return false
	}
	m, err := r.r.Read(r.buf[r.end:])
	r.end += m
	if err != nil {
		r.err = err
	}
	return m > 0
}

// skipBOM consumes a UTF-8 byte order mark, reporting whether there was one.
func (r *byteReader) skipBOM() bool {
	for r.end-r.pos < 3 && r.more() {
	}
	if r.end-r.pos >= 3 && r.buf[r.pos] == 0xEF && r.buf[r.pos+1] == 0xBB && r.buf[r.pos+2] == 0xBF {
		r.pos += 3
		return true
	}
	return false
}

// peek returns the next byte without consuming it.
func (r *byteReader) peek() (byte, bool) {
	if r.pos == r.end && !r.fill() {
		return 0, false
	}
	return r.buf[r.pos], true
}

// skipSpace consumes JSON whitespace, writing it to dst unless dst is nil,
// and returns the next byte without consuming it.
func (r *byteReader) skipSpace(dst *valueBuffer) (byte, bool) {
	for {
		if r.pos == r.end && !r.fill() {
			return 0, false
		}
		start := r.pos
		for r.pos < r.end {
			c := r.buf[r.pos]
			if c == '\n' {
				r.line++
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
			r.pos++
		}
		if dst != nil && r.pos > start {
			dst.write(r.buf[start:r.pos])
		}
		if r.pos < r.end {
			return r.buf[r.pos], true
		}
	}
}

// readErr returns the error for input that ended too early.
func (r *byteReader) readErr() error {
	if r.err == nil || r.err == io.EOF {
		return errTruncated
	}
	return fmt.Errorf("reading input: %w", r.err)
}

// valueBuffer collects the bytes of one value up to a limit. Past the limit
// it only counts: the value is reported as too large, and its bytes are
// dropped as they are read.
type valueBuffer struct {
	data  []byte
	limit int
	size  int64 // bytes seen, kept or not
}

func (b *valueBuffer) reset(limit int) {
	b.data = b.data[:0]
	b.limit = limit
	b.size = 0
}

func (b *valueBuffer) tooBig() bool { return b.size > int64(b.limit) }

func (b *valueBuffer) write(p []byte) {
	b.size += int64(len(p))
	if b.size > int64(b.limit) {
		b.data = b.data[:0]
		return
	}
	b.data = append(b.data, p...)
}

func (b *valueBuffer) writeByte(c byte) {
	b.size++
	if b.size > int64(b.limit) {
		b.data = b.data[:0]
		return
	}
	b.data = append(b.data, c)
}

// syntaxError is a structural error found by the splitter, at an offset and
// line of the input.
type syntaxError struct {
	msg    string
	offset int64
	line   int
}

func (e *syntaxError) Error() string { return e.msg }

func (r *byteReader) syntaxErr(format string, args ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, args...), offset: r.offset(), line: r.line}
}

// readValue consumes one JSON value (object, array, string or scalar) whose
// first byte is next, writing its bytes to dst. It checks brackets and
// strings only, and notes the first duplicate key in c.dup (see
// readComposite).
func (r *byteReader) readValue(dst *valueBuffer, comp *composite) error {
	c, ok := r.peek()
	if !ok {
		return r.readErr()
	}
	switch c {
	case '{', '[':
		return r.readComposite(dst, comp)
	case '"':
		r.pos++
		dst.writeByte('"')
		return r.readStringRest(dst)
	case ',', ':', '}', ']':
		return r.syntaxErr("invalid character %q looking for the beginning of a value", c)
	}
	// A scalar: a number, true, false or null. Its bytes run to the next
	// delimiter; decoding checks them.
	for {
		if r.pos == r.end && !r.fill() {
			return nil // a scalar may end the input
		}
		start := r.pos
		for r.pos < r.end {
			switch r.buf[r.pos] {
			case ' ', '\t', '\r', '\n', ',', ':', '}', ']', '{', '[', '"':
				dst.write(r.buf[start:r.pos])
				return nil
			}
			r.pos++
		}
		dst.write(r.buf[start:r.pos])
	}
}

// readStringRest consumes the rest of a string whose opening quote is
// already consumed, up to and including the closing quote.
func (r *byteReader) readStringRest(dst *valueBuffer) error {
	escaped := false
	for {
		if r.pos == r.end && !r.fill() {
			return r.readErr()
		}
		start := r.pos
		for r.pos < r.end {
			c := r.buf[r.pos]
			r.pos++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				dst.write(r.buf[start:r.pos])
				return nil
			case c < 0x20:
				r.pos--
				return r.syntaxErr("invalid character %q in string literal", c)
			}
		}
		dst.write(r.buf[start:r.pos])
	}
}

// duplicateKey is the first key found twice in one JSON object.
type duplicateKey struct {
	key    string
	offset int64
	line   int
}

// keySpan is where a key of an object, quotes included, is in a
// valueBuffer.
type keySpan struct{ start, end int }

// composite holds readComposite's scratch space, reused across values.
type composite struct {
	stack  []byte    // closing bracket of each open level
	keys   []keySpan // keys of the open objects, innermost last
	levels []int     // index in keys where each open level starts
	dup    *duplicateKey
}

// readComposite consumes an object or an array, checking that brackets
// match and strings end, and finding duplicate keys: the first one is left
// in c.dup unless c.dup is already set. Keys are compared as written, escapes and all, and only while
// dst keeps the bytes (below its limit).
func (r *byteReader) readComposite(dst *valueBuffer, c *composite) error {
	c.stack, c.keys, c.levels = c.stack[:0], c.keys[:0], c.levels[:0]
	inString, escaped, expectKey, inKey := false, false, false, false
	keyStart := 0
	for {
		if r.pos == r.end && !r.fill() {
			return r.readErr()
		}
		buf, p, start := r.buf[:r.end], r.pos, r.pos
		for p < len(buf) {
			b := buf[p]
			p++
			if inString {
				if stringClass[b] == 0 && !escaped {
					continue
				}
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
					if inKey {
						inKey = false
						dst.write(buf[start:p])
						start = p
						r.pos = p
						r.checkKey(dst, c, keyStart)
					}
				default: // a control character
					r.pos = p - 1
					dst.write(buf[start:r.pos])
					return r.syntaxErr("invalid character %q in string literal", b)
				}
				continue
			}
			if structClass[b] == 0 {
				continue
			}
			switch b {
			case '"':
				inString = true
				if expectKey {
					inKey = true
					expectKey = false
					keyStart = len(dst.data) + (p - 1 - start)
				}
			case ':':
				expectKey = false
			case ',':
				expectKey = len(c.stack) > 0 && c.stack[len(c.stack)-1] == '}'
			case '{', '[':
				if len(c.stack) >= maxDepth {
					r.pos = p
					dst.write(buf[start:p])
					return r.syntaxErr("exceeded max depth of %d", maxDepth)
				}
				closer := byte('}')
				if b == '[' {
					closer = ']'
				}
				c.stack = append(c.stack, closer)
				c.levels = append(c.levels, len(c.keys))
				expectKey = b == '{'
			case '}', ']':
				if len(c.stack) == 0 || c.stack[len(c.stack)-1] != b {
					r.pos = p - 1
					dst.write(buf[start:r.pos])
					return r.syntaxErr("invalid character %q: brackets do not match", b)
				}
				c.stack = c.stack[:len(c.stack)-1]
				c.keys = c.keys[:c.levels[len(c.levels)-1]]
				c.levels = c.levels[:len(c.levels)-1]
				expectKey = false
				if len(c.stack) == 0 {
					r.pos = p
					dst.write(buf[start:p])
					return nil
				}
			case '\n':
				r.line++
			}
		}
		r.pos = p
		dst.write(buf[start:p])
	}
}

// stringClass marks the bytes that end or escape a JSON string, and the
// control characters a string may not hold.
var stringClass = func() (t [256]byte) {
	for b := 0; b < 0x20; b++ {
		t[b] = 1
	}
	t['"'], t['\\'] = 1, 1
	return t
}()

// structClass marks the bytes outside strings that readComposite acts on.
var structClass = func() (t [256]byte) {
	for _, b := range []byte("\"{}[],:\n") {
		t[b] = 1
	}
	return t
}()

// checkKey records the key that just ended at the end of dst, starting at
// keyStart, and notes it in c.dup if the innermost object already has it.
func (r *byteReader) checkKey(dst *valueBuffer, c *composite, keyStart int) {
	if dst.tooBig() || c.dup != nil || len(c.levels) == 0 {
		return
	}
	k := keySpan{start: keyStart, end: len(dst.data)}
	key := dst.data[k.start:k.end]
	for _, other := range c.keys[c.levels[len(c.levels)-1]:] {
		if other.end-other.start == len(key) && string(dst.data[other.start:other.end]) == string(key) {
			c.dup = &duplicateKey{key: unquote(key), offset: r.offset() - int64(len(key)), line: r.line}
			return
		}
	}
	c.keys = append(c.keys, k)
}

// rawObject is one object found by a splitter, not decoded yet.
type rawObject struct {
	data []byte // verbatim bytes; valid until the next call of next
	pos  Position
	// size is the object's length in bytes, kept or not.
	size int64
	// tooBig reports an object over the size limit; data is empty then.
	tooBig bool
	// kind and apiVersion are the object's own, when the splitter saw
	// them (top-level documents), else empty.
	kind, apiVersion string
	// containerKind is the kind of the List that holds the object, or
	// "WatchEvent"; empty for a document of its own.
	containerKind string
	// deleted marks the object of a DELETED watch event.
	deleted bool
	// probed reports whether kind and apiVersion were looked for.
	probed bool
	// dup is the first duplicate key of the object, if any.
	dup *duplicateKey
}

// States of jsonSplitter.
const (
	stateTop     = iota // between documents
	stateMembers        // inside a top-level object, between members
	stateItems          // inside the items array of a top-level object, or a top-level array
)

// jsonSplitter hands out the objects of a JSON text one at a time.
type jsonSplitter struct {
	r      *byteReader
	source string
	limit  int
	state  int
	doc    int // documents started, 1-based index of the current one
	done   bool

	// The current top-level object (the envelope).
	env          valueBuffer
	envPos       Position
	envKind      string
	envAPI       string
	envEvent     string    // value of "type", for watch events
	envContainer bool      // the envelope held items or a watch event object
	envKeys      []keySpan // top-level keys, in env.data
	envComp      composite
	needComma    bool

	// The current element of an items array or top-level array.
	topArray bool
	item     int
	itemBuf  valueBuffer
	itemComp composite
	key      valueBuffer
}

func newJSONSplitter(r *byteReader, source string, limit int) *jsonSplitter {
	return &jsonSplitter{r: r, source: source, limit: limit}
}

// fatal ends the splitter with err, located at the reader's position or at
// the position a syntaxError carries.
func (s *jsonSplitter) fatal(err error) error {
	s.done = true
	pos := Position{Source: s.source, Document: s.doc, Line: s.r.line, Offset: s.r.offset()}
	var se *syntaxError
	if errors.As(err, &se) {
		pos.Line, pos.Offset = se.line, se.offset
	}
	if errors.Is(err, errTruncated) && s.doc > 0 {
		err = fmt.Errorf("%w (document %d starts at line %d)", errTruncated, s.doc, s.envPos.Line)
	}
	return &DecodeError{Position: pos, Err: err, Fatal: true}
}

// next returns the next object, io.EOF at the end, or a *DecodeError.
func (s *jsonSplitter) next() (rawObject, error) {
	if s.done {
		return rawObject{}, io.EOF
	}
	for {
		switch s.state {
		case stateTop:
			c, ok := s.r.skipSpace(nil)
			if !ok {
				s.done = true
				if s.r.err != nil && s.r.err != io.EOF {
					return rawObject{}, s.fatal(s.r.readErr())
				}
				return rawObject{}, io.EOF
			}
			s.doc++
			s.envPos = Position{Source: s.source, Document: s.doc, Line: s.r.line, Offset: s.r.offset()}
			switch c {
			case '{':
				s.r.pos++
				s.env.reset(s.limit)
				s.env.writeByte('{')
				s.envKind, s.envAPI, s.envEvent, s.envContainer = "", "", "", false
				s.envKeys = s.envKeys[:0]
				s.envComp.dup = nil
				s.needComma = false
				s.state = stateMembers
			case '[':
				s.r.pos++
				s.topArray = true
				s.item = -1
				s.needComma = false
				s.envKind = ""
				s.state = stateItems
			default:
				return rawObject{}, s.fatal(s.r.syntaxErr("invalid character %q looking for the beginning of an object", c))
			}

		case stateMembers:
			obj, ok, err := s.member()
			if err != nil {
				return rawObject{}, s.fatal(err)
			}
			if ok {
				return obj, nil
			}

		case stateItems:
			obj, ok, err := s.element()
			if err != nil {
				return rawObject{}, s.fatal(err)
			}
			if ok {
				return obj, nil
			}
		}
	}
}

// member reads one member of the envelope, or its closing brace. It returns
// an object when the envelope ends as an object of its own, or when the
// member is a watch event's object.
func (s *jsonSplitter) member() (rawObject, bool, error) {
	c, ok := s.r.skipSpace(&s.env)
	if !ok {
		return rawObject{}, false, s.r.readErr()
	}
	switch {
	case c == '}':
		s.r.pos++
		s.env.writeByte('}')
		s.state = stateTop
		if s.envContainer {
			return rawObject{}, false, nil
		}
		return rawObject{
			data: s.env.data, pos: s.envPos, size: s.env.size, tooBig: s.env.tooBig(),
			kind: s.envKind, apiVersion: s.envAPI, probed: true, dup: s.envComp.dup,
		}, true, nil
	case s.needComma:
		if c != ',' {
			return rawObject{}, false, s.r.syntaxErr("invalid character %q after object key:value pair", c)
		}
		s.r.pos++
		s.env.writeByte(',')
		s.needComma = false
		return rawObject{}, false, nil
	case c != '"':
		return rawObject{}, false, s.r.syntaxErr("invalid character %q looking for beginning of object key string", c)
	}

	// The key, kept both in the envelope and on its own.
	s.r.pos++
	s.key.reset(256)
	s.key.writeByte('"')
	if err := s.r.readStringRest(&s.key); err != nil {
		return rawObject{}, false, err
	}
	keyAt := len(s.env.data)
	s.env.write(s.key.data)
	if s.key.tooBig() {
		s.key.data = s.key.data[:0]
	}
	if s.envComp.dup == nil && !s.env.tooBig() {
		k := keySpan{start: keyAt, end: len(s.env.data)}
		for _, other := range s.envKeys {
			if string(s.env.data[other.start:other.end]) == string(s.env.data[k.start:k.end]) {
				s.envComp.dup = &duplicateKey{key: unquote(s.key.data), offset: s.r.offset() - int64(k.end-k.start), line: s.r.line}
				break
			}
		}
		s.envKeys = append(s.envKeys, k)
	}
	c, ok = s.r.skipSpace(&s.env)
	if !ok {
		return rawObject{}, false, s.r.readErr()
	}
	if c != ':' {
		return rawObject{}, false, s.r.syntaxErr("invalid character %q after object key", c)
	}
	s.r.pos++
	s.env.writeByte(':')
	c, ok = s.r.skipSpace(&s.env)
	if !ok {
		return rawObject{}, false, s.r.readErr()
	}
	s.needComma = true
	key := s.key.data

	switch {
	case string(key) == `"items"` && c == '[':
		// The items of a List: handed out one by one. The envelope keeps
		// an empty array in their place.
		s.r.pos++
		s.env.writeByte('[')
		s.envContainer = true
		s.item = -1
		s.needComma = false
		s.state = stateItems
		return rawObject{}, false, nil
	case string(key) == `"object"` && c == '{':
		// The object of a watch event.
		s.envContainer = true
		pos := s.posHere("object")
		s.itemBuf.reset(s.limit)
		s.itemComp.dup = nil
		if err := s.r.readComposite(&s.itemBuf, &s.itemComp); err != nil {
			return rawObject{}, false, err
		}
		s.env.write([]byte("{}"))
		return rawObject{
			data: s.itemBuf.data, pos: pos, size: s.itemBuf.size, tooBig: s.itemBuf.tooBig(),
			containerKind: "WatchEvent", deleted: s.envEvent == "DELETED", dup: s.itemComp.dup,
		}, true, nil
	}

	start := len(s.env.data)
	if err := s.r.readValue(&s.env, &s.envComp); err != nil {
		return rawObject{}, false, err
	}
	if !s.env.tooBig() {
		switch string(key) {
		case `"kind"`:
			s.envKind = unquote(s.env.data[start:])
		case `"apiVersion"`:
			s.envAPI = unquote(s.env.data[start:])
		case `"type"`:
			s.envEvent = unquote(s.env.data[start:])
		}
	}
	return rawObject{}, false, nil
}

// element reads one element of an items array or a top-level array, or its
// closing bracket.
func (s *jsonSplitter) element() (rawObject, bool, error) {
	c, ok := s.r.skipSpace(nil)
	if !ok {
		return rawObject{}, false, s.r.readErr()
	}
	switch {
	case c == ']':
		s.r.pos++
		if s.topArray {
			s.topArray = false
			s.state = stateTop
			return rawObject{}, false, nil
		}
		s.env.writeByte(']')
		s.needComma = true
		s.state = stateMembers
		return rawObject{}, false, nil
	case s.needComma:
		if c != ',' {
			return rawObject{}, false, s.r.syntaxErr("invalid character %q after array element", c)
		}
		s.r.pos++
		s.needComma = false
		return rawObject{}, false, nil
	}
	s.item++
	s.needComma = true
	pos := s.posHere(fmt.Sprintf("items[%d]", s.item))
	s.itemBuf.reset(s.limit)
	s.itemComp.dup = nil
	if err := s.r.readValue(&s.itemBuf, &s.itemComp); err != nil {
		return rawObject{}, false, err
	}
	container := s.envKind
	if s.topArray {
		container = "array"
	}
	return rawObject{
		data: s.itemBuf.data, pos: pos, size: s.itemBuf.size, tooBig: s.itemBuf.tooBig(),
		containerKind: container, dup: s.itemComp.dup,
	}, true, nil
}

// posHere returns the position of the next byte, as part of the current
// document.
func (s *jsonSplitter) posHere(item string) Position {
	return Position{Source: s.source, Document: s.doc, Item: item, Line: s.r.line, Offset: s.r.offset()}
}

// unquote returns the contents of a JSON string literal, or "" when b is
// not one. Escapes are rare in kinds and versions; a literal with any is
// decoded by the standard library.
func unquote(b []byte) string {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return ""
	}
	inner := b[1 : len(b)-1]
	switch string(inner) {
	case "Service":
		return "Service"
	case "v1":
		return "v1"
	}
	for _, c := range inner {
		if c == '\\' {
			var s string
			if err := stdjsonUnmarshal(b, &s); err != nil {
				return ""
			}
			return s
		}
	}
	return string(inner)
}
