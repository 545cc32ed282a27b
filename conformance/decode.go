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
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// DefaultMaxObjectBytes is the default size limit of one object, and of one
// YAML document: 4 MiB. kube-apiserver refuses requests over 3 MiB and etcd
// stores objects up to 1.5 MiB, so no real Service comes near it. A List is
// not one object: its items are read one at a time, each under the limit,
// however long the List (in JSON; a YAML document is converted whole, so a
// YAML List must fit the limit).
const DefaultMaxObjectBytes = 4 << 20

// DecoderOption configures a Decoder.
type DecoderOption interface {
	applyDecoder(*Decoder)
}

// MaxObjectBytes is a DecoderOption: the size limit of one object (and one
// YAML document), in bytes. Zero or negative selects
// DefaultMaxObjectBytes. A larger object is skipped and reported as a
// DecodeError; the rest of the input is still read.
type MaxObjectBytes int

func (m MaxObjectBytes) applyDecoder(d *Decoder) {
	if m > 0 {
		d.limit = int(m)
	} else {
		d.limit = DefaultMaxObjectBytes
	}
}

// Position says where an object, or a problem, is in the input.
type Position struct {
	// Source names the input: a file name, or "-" for standard input.
	Source string `json:"source,omitempty"`
	// Document is the 1-based index of the document in the input: a JSON
	// value of a stream of concatenated values, or a YAML document.
	Document int `json:"document,omitempty"`
	// Item locates the object inside its document: "items[3]" for an item
	// of a List or an element of a top-level array, "object" for the object
	// of a watch event; empty for a document that is the object itself.
	Item string `json:"item,omitempty"`
	// Line is the 1-based line. For YAML it is the line a document starts
	// at, since a decoding problem cannot be traced further.
	Line int `json:"line,omitempty"`
	// Offset is the 0-based byte offset in the input; -1 when unknown (YAML).
	Offset int64 `json:"offset"`
}

// String returns "source:line (document N, item, byte offset)", leaving out
// what is unknown.
func (p Position) String() string {
	var b strings.Builder
	b.WriteString(p.Source)
	if p.Source == "" {
		b.WriteString("(input)")
	}
	if p.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
	}
	var parts []string
	if p.Document > 0 {
		parts = append(parts, "document "+strconv.Itoa(p.Document))
	}
	if p.Item != "" {
		parts = append(parts, p.Item)
	}
	if p.Offset >= 0 && (p.Document > 0 || p.Offset > 0) {
		parts = append(parts, "byte "+strconv.FormatInt(p.Offset, 10))
	}
	if len(parts) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(parts, ", "))
		b.WriteByte(')')
	}
	return b.String()
}

// DecodeError is an input problem: malformed JSON or YAML, a truncated
// stream, an object over the size limit, a field of the wrong type, a
// duplicate key. After a DecodeError that is not Fatal, the Decoder goes on
// with the next object; after a Fatal one, the input cannot be read further
// and Next returns io.EOF.
type DecodeError struct {
	// Position is where the problem is: the object's start, or the byte
	// the problem was found at when that is known.
	Position Position
	// Object names the object when its metadata could be read; empty
	// otherwise.
	Object ObjectRef
	// Err says what is wrong.
	Err error
	// Fatal reports that nothing after the problem can be read.
	Fatal bool
}

// Error returns "position: [object: ]problem" on one line.
func (e *DecodeError) Error() string {
	msg := e.Err.Error()
	if e.Object.Name != "" {
		msg = e.Object.String() + ": " + msg
	}
	return e.Position.String() + ": " + msg
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Object is one object read from the input.
type Object struct {
	// Position is where the object starts.
	Position Position
	// Kind and APIVersion are the object's; for an item of a ServiceList
	// or a watch event, which carry none, "Service" and "v1".
	Kind, APIVersion string
	// Ref names the object.
	Ref ObjectRef
	// Service is the decoded Service; nil for objects of other kinds.
	Service *v1.Service
	// Deleted marks the object of a DELETED watch event: the Service is
	// gone, and a later one of the same name is a new Service.
	Deleted bool
}

// splitter hands out raw objects; jsonSplitter and yamlSplitter implement
// it.
type splitter interface {
	next() (rawObject, error)
}

// Decoder reads Kubernetes objects, one at a time, from JSON or YAML: a
// single object, a List or ServiceList, a top-level JSON array, a stream of
// concatenated JSON values (what `kubectl get -w -o json` prints), watch
// events ({"type": ..., "object": ...}), or multi-document YAML. The format
// is chosen by the first byte that is not white space: '{' or '[' is JSON,
// anything else YAML.
//
// Services are decoded strictly, as kube-apiserver's strict field
// validation would: field names are case-sensitive and a duplicate field is
// an error. Unknown fields are ignored. Objects of other kinds are returned
// without a Service, for the caller to skip.
type Decoder struct {
	in     *byteReader
	source string
	limit  int
	s      splitter
	done   bool
}

// NewDecoder returns a Decoder reading r. source names the input in
// positions and errors ("-" for standard input, by convention); it may be
// empty.
func NewDecoder(r io.Reader, source string, opts ...DecoderOption) *Decoder {
	d := &Decoder{in: newByteReader(r), source: source, limit: DefaultMaxObjectBytes}
	for _, o := range opts {
		if o != nil {
			o.applyDecoder(d)
		}
	}
	return d
}

// Next returns the next object. It returns io.EOF at the end of the input,
// and a *DecodeError for an input problem; after one that is not Fatal the
// caller may call Next again for the objects that follow.
func (d *Decoder) Next() (Object, error) {
	for {
		raw, err := d.nextRaw()
		if err != nil {
			return Object{}, err
		}
		obj, skip, err := d.decode(raw)
		if skip {
			continue
		}
		return obj, err
	}
}

// peekNonSpace returns the first byte after JSON white space without
// consuming anything. It reports false when the input ends, fails, or the
// read buffer fills, before such a byte.
func (r *byteReader) peekNonSpace() (byte, bool) {
	i := 0
	for {
		for ; r.pos+i < r.end; i++ {
			if c := r.buf[r.pos+i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				return c, true
			}
		}
		if !r.more() {
			return 0, false
		}
	}
}

// nextRaw splits the input and returns the next object's bytes, valid
// until the next call, and its position.
func (d *Decoder) nextRaw() (rawObject, error) {
	if d.done {
		return rawObject{}, io.EOF
	}
	if d.s == nil {
		// Peek rather than consume: a YAML document may start indented,
		// and its splitter must see that indentation.
		c, ok := d.in.peekNonSpace()
		if !ok {
			c, ok = d.in.skipSpace(nil)
		}
		if !ok {
			d.done = true
			if d.in.err != nil && d.in.err != io.EOF {
				return rawObject{}, &DecodeError{Position: Position{Source: d.source, Line: d.in.line, Offset: d.in.offset()}, Err: d.in.readErr(), Fatal: true}
			}
			return rawObject{}, io.EOF
		}
		if c == 0xEF && d.in.skipBOM() {
			return d.nextRaw()
		}
		if c == '{' || c == '[' {
			d.s = newJSONSplitter(d.in, d.source, d.limit)
		} else {
			d.s = newYAMLSplitter(d.in, d.source, d.limit)
		}
	}
	raw, err := d.s.next()
	if err == io.EOF {
		d.done = true
	}
	return raw, err
}

// decode turns a raw object into an Object. skip reports a raw object that
// is nothing to the caller (an empty YAML document).
func (d *Decoder) decode(raw rawObject) (obj Object, skip bool, err error) {
	obj.Position = raw.pos
	if raw.tooBig {
		return obj, false, &DecodeError{Position: raw.pos,
			Err: fmt.Errorf("object of %d bytes or more is larger than the limit of %s; skipped", raw.size, formatBytes(d.limit))}
	}
	kind, apiVersion := raw.kind, raw.apiVersion
	if !raw.probed {
		var perr error
		kind, apiVersion, perr = probeKind(raw.data)
		if perr != nil {
			return obj, false, &DecodeError{Position: raw.pos, Err: perr}
		}
	}
	if kind == "" && raw.containerKind != "" {
		switch raw.containerKind {
		case "ServiceList", "List", "WatchEvent", "array", "":
			// Items of a ServiceList, and objects of watch events, carry no
			// kind of their own on the wire. A List's kind may come after
			// its items (kubectl sorts keys), so an unknown one counts as
			// a List.
			kind, apiVersion = "Service", "v1"
		default:
			kind = strings.TrimSuffix(raw.containerKind, "List")
		}
	}
	obj.Kind, obj.APIVersion = kind, apiVersion
	if kind != "Service" || (apiVersion != "v1" && apiVersion != "") {
		obj.Ref = objectRefOf(raw.data, kind)
		return obj, false, nil
	}

	svc := &v1.Service{}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw.data, svc); err != nil {
		return obj, false, d.decodeError(raw, err)
	}
	if svc.Kind == "" {
		svc.Kind, svc.APIVersion = "Service", "v1"
	}
	obj.Ref = ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, ResourceVersion: svc.ResourceVersion}
	if dup := raw.dup; dup != nil {
		pos := raw.pos
		pos.Line, pos.Offset = dup.line, dup.offset
		if raw.pos.Offset < 0 {
			pos = raw.pos // YAML: the converted JSON's offsets mean nothing
		}
		return obj, false, &DecodeError{Position: pos, Object: obj.Ref,
			Err: fmt.Errorf("duplicate key %q: the object is ambiguous and was not checked", dup.key)}
	}
	obj.Service = svc
	obj.Deleted = raw.deleted
	return obj, false, nil
}

// decodeError locates a decoding error of raw as precisely as it can.
func (d *Decoder) decodeError(raw rawObject, err error) error {
	pos := raw.pos
	ref := objectRefOf(raw.data, "Service")
	if ok, off := sigsjson.SyntaxErrorOffset(err); ok {
		pos = within(raw, off)
		return &DecodeError{Position: pos, Object: ref, Err: fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: ")), Fatal: false}
	}
	// The strict decoder does not export where a type error is; the
	// standard library does. This is the error path only.
	var te *stdjson.UnmarshalTypeError
	if e := stdjson.Unmarshal(raw.data, &v1.Service{}); errors.As(e, &te) {
		pos = within(raw, te.Offset)
		what := jsonPath(te.Field)
		if what == "" {
			what = "the object"
		}
		return &DecodeError{Position: pos, Object: ref,
			Err: fmt.Errorf("%s: a JSON %s where %s is expected", what, te.Value, goTypeName(te.Type.String()))}
	}
	return &DecodeError{Position: pos, Object: ref, Err: errors.New(strings.TrimPrefix(err.Error(), "json: "))}
}

// jsonPath drops from an encoding/json field path the names of embedded Go
// structs, which JSON does not see: "spec.ServiceSpec.ports.port" becomes
// "spec.ports.port". Kubernetes JSON names start with a lower-case letter.
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && (p[0] < 'A' || p[0] > 'Z') {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

// within returns the position of byte off of raw's data.
func within(raw rawObject, off int64) Position {
	pos := raw.pos
	if off < 0 || off > int64(len(raw.data)) || pos.Offset < 0 {
		return pos
	}
	pos.Line += bytes.Count(raw.data[:off], []byte{'\n'})
	pos.Offset += off
	return pos
}

// goTypeName names a Go type the way a manifest author thinks of it.
func goTypeName(t string) string {
	switch t {
	case "string", "v1.ConditionStatus", "v1.ServiceType", "v1.Protocol", "v1.LoadBalancerFeature":
		return "a string"
	case "int", "int32", "int64":
		return "an integer"
	case "bool":
		return "a boolean"
	}
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "an object"
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return "a " + t
}

// objectRefOf reads the metadata of an object leniently, for messages about
// objects that are skipped or broken. It returns what it finds.
func objectRefOf(data []byte, kind string) ObjectRef {
	var m struct {
		Metadata struct {
			Namespace       string `json:"namespace"`
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	_ = stdjson.Unmarshal(data, &m)
	return ObjectRef{Kind: kind, Namespace: m.Metadata.Namespace, Name: m.Metadata.Name, ResourceVersion: m.Metadata.ResourceVersion}
}

// probeKind returns the top-level kind and apiVersion of a JSON object
// without decoding the rest.
func probeKind(data []byte) (kind, apiVersion string, err error) {
	r := &byteReader{buf: data, end: len(data), err: io.EOF, line: 1}
	c, ok := r.skipSpace(nil)
	if !ok || c != '{' {
		return "", "", errors.New("not a JSON object")
	}
	r.pos++
	var key, val, discard valueBuffer
	var comp composite
	for {
		c, ok = r.skipSpace(nil)
		switch {
		case !ok:
			return kind, apiVersion, nil
		case c == '}':
			return kind, apiVersion, nil
		case c == ',':
			r.pos++
			continue
		case c != '"':
			// Malformed: decoding will say where.
			return kind, apiVersion, nil
		}
		r.pos++
		key.reset(64)
		key.writeByte('"')
		if r.readStringRest(&key) != nil {
			return kind, apiVersion, nil
		}
		if c, ok = r.skipSpace(nil); !ok || c != ':' {
			return kind, apiVersion, nil
		}
		r.pos++
		if _, ok = r.skipSpace(nil); !ok {
			return kind, apiVersion, nil
		}
		k := string(key.data)
		if !key.tooBig() && (k == `"kind"` || k == `"apiVersion"`) {
			val.reset(1024)
			if r.readValue(&val, &comp) != nil {
				return kind, apiVersion, nil
			}
			if k == `"kind"` {
				kind = unquote(val.data)
			} else {
				apiVersion = unquote(val.data)
			}
			continue
		}
		discard.reset(0)
		if r.readValue(&discard, &comp) != nil {
			return kind, apiVersion, nil
		}
	}
}

// stdjsonUnmarshal is encoding/json's Unmarshal, for the rare string
// literal with escapes.
func stdjsonUnmarshal(b []byte, v any) error { return stdjson.Unmarshal(b, v) }

// formatBytes renders n as MiB when it is a whole number of them.
func formatBytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// yamlSplitter hands out the objects of multi-document YAML. Documents are
// separated by lines of "---", as in k8s.io/apimachinery's YAMLReader; each
// is converted to JSON (duplicate keys are an error) and split like a JSON
// document, so a YAML List is handed out item by item too.
type yamlSplitter struct {
	r      *byteReader
	source string
	limit  int
	doc    int
	line   int // line the next document starts at
	done   bool
	buf    valueBuffer
	inner  *jsonSplitter
	docPos Position
}

func newYAMLSplitter(r *byteReader, source string, limit int) *yamlSplitter {
	return &yamlSplitter{r: r, source: source, limit: limit, line: r.line}
}

func (s *yamlSplitter) next() (rawObject, error) {
	for {
		if s.inner != nil {
			raw, err := s.inner.next()
			if err == io.EOF {
				s.inner = nil
				continue
			}
			if err != nil {
				s.inner = nil
				var de *DecodeError
				if errors.As(err, &de) {
					de.Position = s.docPos
					de.Fatal = false
				}
				return rawObject{}, err
			}
			item := raw.pos.Item
			raw.pos = s.docPos
			raw.pos.Item = item
			return raw, nil
		}
		if s.done {
			return rawObject{}, io.EOF
		}
		data, start, err := s.readDocument()
		if err != nil {
			return rawObject{}, err
		}
		if data == nil {
			continue // an empty document, or the end
		}
		s.doc++
		s.docPos = Position{Source: s.source, Document: s.doc, Line: start, Offset: -1}
		if s.buf.tooBig() {
			return rawObject{}, &DecodeError{Position: s.docPos,
				Err: fmt.Errorf("YAML document of %d bytes is larger than the limit of %s; skipped", s.buf.size, formatBytes(s.limit))}
		}
		js, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			return rawObject{}, &DecodeError{Position: s.docPos, Err: yamlError(err)}
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || string(js) == "null" {
			s.doc--
			continue
		}
		s.inner = newJSONSplitter(&byteReader{buf: js, end: len(js), err: io.EOF, line: 1}, s.source, s.limit)
	}
}

// yamlError rewords a YAML conversion error on one line.
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	msg = strings.Join(strings.Fields(msg), " ")
	if strings.Contains(msg, "already set in map") {
		return fmt.Errorf("duplicate key: %s; the object is ambiguous and was not checked", msg)
	}
	return fmt.Errorf("malformed YAML: %s", msg)
}

// readDocument reads the lines of the next document. It returns nil data for
// a document with nothing but blank lines and comments, and after the last
// document, and sets done at the end of the input. When the document is over
// the limit, data is not nil and s.buf reports it.
func (s *yamlSplitter) readDocument() (data []byte, startLine int, err error) {
	s.buf.reset(s.limit)
	startLine = s.line
	content := false
	lineStart := true
	for {
		if s.r.pos == s.r.end && !s.r.fill() {
			s.done = true
			if s.r.err != nil && s.r.err != io.EOF {
				return nil, 0, &DecodeError{Position: Position{Source: s.source, Line: s.line, Offset: -1}, Err: s.r.readErr(), Fatal: true}
			}
			break
		}
		chunk := s.r.buf[s.r.pos:s.r.end]
		n := bytes.IndexByte(chunk, '\n')
		var line []byte
		ended := n >= 0
		if ended {
			line = chunk[:n+1]
		} else {
			line = chunk
		}
		if lineStart && !ended && len(line) < 1024 {
			// Too little of the line to judge whether it is a separator.
			if s.r.more() {
				continue
			}
			// more moved the unread bytes to the start of the buffer even
			// though it read nothing new: slice the line again.
			line = s.r.buf[s.r.pos:s.r.end]
		}
		if lineStart && isSeparator(line) {
			s.r.pos += len(line)
			s.r.line++
			s.line = s.r.line
			if content {
				break
			}
			s.buf.reset(s.limit)
			startLine = s.line
			continue
		}
		lineNo := s.r.line
		s.r.pos += len(line)
		if ended {
			s.r.line++
			s.line = s.r.line
		}
		if lineStart && !content && !blankOrComment(line) {
			// The document is located by its first line of content, not
			// by the comments before it.
			content = true
			startLine = lineNo
		}
		s.buf.write(line)
		lineStart = ended
	}
	if !content {
		return nil, startLine, nil
	}
	if s.buf.tooBig() {
		return []byte{}, startLine, nil
	}
	return s.buf.data, startLine, nil
}

// isSeparator reports whether a line is a YAML document separator: "---"
// followed by nothing but white space or a comment.
func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := bytes.TrimSpace(line[3:])
	return len(rest) == 0 || rest[0] == '#'
}

// blankOrComment reports whether a line holds no YAML content.
func blankOrComment(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || t[0] == '#'
}
