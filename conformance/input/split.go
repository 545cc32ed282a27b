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
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// splitter cuts an input into jobs: JSON values or YAML documents.
type splitter interface {
	// split hands the jobs to yield, in order, until yield returns false.
	split(yield func(job) bool)
	// unfinished is where the document being read starts; nil between
	// documents.
	unfinished() *Position
}

// readSize is how much of the input is asked for at a time: the objects
// split so far are handed on before each read (see feed), so it bounds a
// batch about as batchBytes does. lineBytes is the YAML splitter's buffer,
// past which a line comes in pieces; as much white space before the first
// value makes an input YAML.
const (
	readSize  = 256 << 10
	lineBytes = 64 << 10
)

// open detects the encoding and the format, and returns the splitter; none
// for an empty input. Before each read of the input, flush hands on the
// jobs split so far (see feed). Nothing but a byte order mark is consumed:
// white space before the first value is the splitters' to count in lines,
// and in YAML it may be indentation.
func (d *Decoder) open(flush func() bool) (splitter, *DecodeError) {
	br := bufio.NewReaderSize(feed{d.in, d.stop, flush}, bufferSize(d.in))
	var base int64
	switch b, _ := br.Peek(4); {
	case bytes.HasPrefix(b, []byte("\xFF\xFE\x00\x00")), bytes.HasPrefix(b, []byte("\x00\x00\xFE\xFF")):
		return nil, &DecodeError{Position: Position{Source: d.source}, Err: errors.New("the input is UTF-32 (its byte order mark says so), which is not read: convert it to UTF-8"), Fatal: true}
	case bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")):
		_, _ = br.Discard(3)
		base = 3
	case bytes.HasPrefix(b, []byte("\xFF\xFE")), bytes.HasPrefix(b, []byte("\xFE\xFF")):
		// UTF-16, read as UTF-8: offsets are the UTF-8 text's.
		in := &utf16Check{r: br, big: b[0] == 0xFE, first: -1}
		br = bufio.NewReaderSize(transform.NewReader(in, unicode.BOMOverride(unicode.UTF8.NewDecoder())), min(br.Size(), lineBytes))
	}
	// The first byte that is not white space decides; after lineBytes of
	// white space, the input is YAML.
	isJSON := false
	for n := 1; n <= lineBytes; n++ {
		if n > br.Size() { // a file that has grown since its size was read
			br = bufio.NewReaderSize(br, lineBytes)
		}
		b, err := br.Peek(n)
		if err == io.EOF {
			return nil, nil
		} else if err != nil {
			return nil, &DecodeError{Position: Position{Source: d.source, Offset: base}, Err: err, Fatal: true}
		}
		if c := b[n-1]; bytes.IndexByte([]byte(" \t\r\n"), c) < 0 {
			isJSON = c == '{' || c == '['
			break
		}
	}
	if d.readBuffer > 0 {
		br = bufio.NewReaderSize(struct{ io.Reader }{br}, d.readBuffer)
	}
	if isJSON {
		g := &guard{r: br, limit: base + int64(d.limit), read: base}
		return &jsonSplitter{dec: jsontext.NewDecoder(g, jsonOptions...), g: g, source: d.source, limit: d.limit, base: base, line: 1}, nil
	}
	kept := &separators{at: map[int64]string{}}
	in := bufio.NewReaderSize(transform.NewReader(br, lineBreaks{kept: kept}), min(br.Size(), lineBytes))
	return &yamlSplitter{in: in, source: d.source, limit: d.limit, kept: kept, line: 1, indent: -1}, nil
}

// bufferSize is how much of the input open asks for at a time: readSize,
// or less for an input known to hold less (a regular file, by its size; a
// bytes or strings Reader), but at least 4 KiB. A check of many small files
// would otherwise allocate and clear readSize for each: of a directory of
// 100,000 one-Service manifests, that was half the time.
func bufferSize(r io.Reader) int {
	n := int64(readSize)
	switch r := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			n = fi.Size()
		}
	case interface{ Len() int }:
		n = int64(r.Len())
	}
	return int(min(max(n, 4<<10), readSize))
}

// feed is the input as the splitters read it. A read may wait for input
// yet to come, as in a watch: before each, the jobs split so far are handed
// on (flush), so that an object whose end was read is checked, and
// reported if the check is interrupted, without waiting for the next one.
// After Close every read fails, so that a splitter that reads on without
// handing anything out (a YAML line that never ends) stops there.
type feed struct {
	r     io.Reader
	stop  <-chan struct{}
	flush func() bool // false once the consumer wants no more
}

func (f feed) Read(p []byte) (int, error) {
	select {
	case <-f.stop:
		return 0, errStop
	default:
	}
	if !f.flush() {
		return 0, errStop
	}
	return f.r.Read(p)
}

// utf16Check passes UTF-16 on, and fails the read at a surrogate without
// its pair, which the decoder would turn into U+FFFD in silence.
type utf16Check struct {
	r     io.Reader
	big   bool   // big-endian
	off   int64  // offset of the next byte
	first int    // the first byte of a unit cut by a read; -1 for none
	high  uint16 // the last unit, if a high surrogate; 0 if not
}

func (c *utf16Check) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := range n {
		if c.first < 0 {
			c.first = int(p[i])
			continue
		}
		u := uint16(c.first) | uint16(p[i])<<8
		if c.big {
			u = uint16(c.first)<<8 | uint16(p[i])
		}
		unpaired, at := c.high, c.off+int64(i)-3
		if low := u >= 0xDC00 && u < 0xE000; low == (c.high != 0) {
			unpaired = 0
		} else if low {
			unpaired, at = u, at+2
		}
		if unpaired != 0 {
			return max(i-1, 0), notUTF16(fmt.Sprintf("a surrogate (0x%04X) without its pair, at byte %d of the UTF-16 text", unpaired, at))
		}
		c.first, c.high = -1, 0
		if u >= 0xD800 && u < 0xDC00 {
			c.high = u
		}
	}
	c.off += int64(n)
	if err == io.EOF && (c.first >= 0 || c.high != 0) {
		err = notUTF16("it ends inside a character")
	}
	return n, err
}

// notUTF16 says where UTF-16 is broken.
type notUTF16 string

func (e notUTF16) Error() string {
	return "the input is not UTF-16: " + string(e) + "; the rest of it is not read"
}

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
	limit int64 // the offset reading stops at
}

func (g *guard) Read(p []byte) (int, error) {
	left := g.limit - g.read
	if left <= 0 {
		return 0, errTooBig
	}
	n, err := g.r.Read(p[:min(int64(len(p)), left)])
	g.read += int64(n)
	return n, err
}

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
	last   jsontext.Kind // kind of what read read last
	open   *Position     // where the value being read starts: the top-level one, or an item read alone
	item   string        // the Item of the next value read, an item read alone
}

func (s *jsonSplitter) unfinished() *Position { return s.open }

func (s *jsonSplitter) split(yield func(job) bool) {
	var pos Position
	var err error
	for err == nil {
		s.open = nil
		pos, err = s.document(yield)
	}
	if err != io.EOF && err != errStop {
		yield(s.fatal(err, pos))
	}
}

// document hands out the jobs of the next top-level value.
func (s *jsonSplitter) document(yield func(job) bool) (Position, error) {
	k := s.dec.PeekKind()
	if k == 0 && s.byteOrderMark() {
		k = s.dec.PeekKind()
	}
	if k == 0 { // the end, or a syntax error
		_, pos, err := s.read(true)
		return pos, err
	}
	s.doc++
	switch k {
	case '[':
		// A top-level array stands for a List: its elements are items.
		return s.array("List", Position{}, 1, false, yield)
	case '{':
		v, pos, err := s.read(false)
		switch {
		case errors.Is(err, errTooBig):
			return s.large(pos, 0, yield)
		case err == nil && !yield(job{raw: v, pos: pos}):
			return pos, errStop
		}
		return pos, err
	}
	// A string, a number, true, false or null: where the next value
	// starts is known, so reading goes on.
	_, pos, err := s.read(true)
	if err == nil && !yield(job{err: &DecodeError{Position: pos, Err: errors.New("not a JSON object or array; skipped")}}) {
		return pos, errStop
	}
	return pos, err
}

// byteOrderMark reports whether the next top-level value, which the
// tokenizer refused to begin, starts with a byte order mark, as where files
// were joined with cat, and if so drops it: a new tokenizer starts after
// it. jsontext may hold only the mark's first byte: the rest are read.
func (s *jsonSplitter) byteOrderMark() bool {
	ub := s.dec.UnreadBuffer()
	n := len(ub) - len(bytes.TrimLeft(ub, " \t\r\n"))
	rest := bytes.Clone(ub[n:])
	if len(rest) == 0 || !bytes.HasPrefix([]byte("\uFEFF"), rest[:min(len(rest), 3)]) {
		return false
	}
	if len(rest) < 3 {
		more := make([]byte, 3-len(rest))
		s.g.limit = max(s.g.limit, s.g.read+3)
		m, _ := io.ReadFull(s.g, more)
		rest = append(rest, more[:m]...) // given back to the tokenizer, a mark or not
	}
	s.line += newlines(ub[:n])
	s.base += s.dec.InputOffset() + int64(n)
	mark := bytes.HasPrefix(rest, []byte("\uFEFF"))
	if mark {
		rest, s.base = rest[3:], s.base+3
	}
	s.dec = jsontext.NewDecoder(io.MultiReader(bytes.NewReader(rest), s.g), jsonOptions...)
	return mark
}

// array hands out, as items[i] of the value at list, the elements of the
// array the tokenizer is at, nested depth deep, or drops them when discard
// is set. An element over the limit that is an object is read as large
// reads a document: a List in an array, or in a List, is read item by item.
func (s *jsonSplitter) array(kind string, list Position, depth int, discard bool, yield func(job) bool) (Position, error) {
	if _, pos, err := s.read(true); err != nil {
		return pos, err
	}
	open := s.open // between items, the value they are in is the one being read
	for i := 0; s.dec.PeekKind() != ']'; i, s.open = i+1, open {
		k := s.dec.PeekKind()
		s.item = nest(list, "items["+strconv.Itoa(i)+"]").Item
		v, pos, err := s.read(false)
		j := job{raw: v, pos: pos, containerKind: kind, depth: depth}
		switch {
		case errors.Is(err, errTooBig) && k == '{' && !discard && depth <= maxNesting:
			if pos, err = s.large(pos, depth, yield); err != nil {
				return pos, err
			}
			continue
		case errors.Is(err, errTooBig):
			j, err = job{err: tooBig(pos, s.limit)}, s.skip()
		}
		if err != nil {
			return pos, err
		}
		if !discard && !yield(j) {
			return pos, errStop
		}
	}
	_, pos, err := s.read(true)
	return pos, err
}

// large reads, member by member, the object at start, depth deep, that
// the tokenizer refused to read whole. A List's items are handed out one
// by one, each under the limit, however many, as items of the kind its
// members before them give. Its other members are kept, up to the limit, and decoded as
// if the List were read whole, for their problems: those before the items
// when the items begin, so that a problem there (a name given twice) drops
// the items, and otherwise all of them at the end. Past the limit they are
// neither kept nor checked, however many (those kept before the items still
// are, when the items begin), and the List is reported as over it; but a
// kind before the items that leaves their kind in doubt (given twice, too
// large to read, not a string) drops them, wherever it is. A value that is
// not a List is skipped and reported.
func (s *jsonSplitter) large(start Position, depth int, yield func(job) bool) (Position, error) {
	_, pos, err := s.read(true)
	membersPos := start
	membersPos.Offset = -1 // the members' problems are not where they are
	members, kind, itemsKind, items, over := []byte("{"), "", "", false, false
	var early *DecodeError // a problem of the members before the items
	var kinds int          // the kinds before the items, kept or not
	var secondKind Position
	var badKind *DecodeError // a kind before the items, not kept, that is not read as a string
	for err == nil && s.dec.PeekKind() != '}' {
		var name []byte // read as a value: kept as it is, invalid UTF-8 and all
		if name, pos, err = s.read(false); err != nil {
			break
		}
		unquoted, _ := jsontext.AppendUnquote(nil, name)
		if string(unquoted) == "kind" && !items {
			if kinds++; kinds == 2 {
				secondKind = pos
			}
		}
		mark := len(members)
		if !over { // past the limit, the members are no longer kept
			if len(members) > 1 {
				members = append(members, ',')
			}
			members = append(members, name...) // before name is overwritten by reading on
		}
		isItems := string(unquoted) == "items" && s.dec.PeekKind() == '['
		if isItems && !items {
			// A name given twice (or a value of the wrong type) before the
			// items, "items" itself included, makes the List unreadable
			// before any item is handed out, as when it is read whole;
			// past the limit, among those kept.
			kept := append(bytes.Clone(members), ":[]}"...)
			if over {
				kept = append(bytes.Clone(members), '}')
			}
			early, itemsKind = checkMembers(kept, membersPos, kind), kind
			if early == nil && kinds > 1 {
				// The kind decides the items' kind: given twice, the
				// List is ambiguous also when one of them is past the
				// limit, and so not kept.
				early = &DecodeError{Position: secondKind, Field: "kind", Err: errors.New(`the List's own members: duplicate member name "kind": the object is ambiguous and was not checked`)}
			}
			if early == nil {
				early = badKind
			}
		}
		if isItems {
			if !over {
				members = append(members, ":[]"...)
			}
			pos, err = s.array(listKind(kind), start, depth+1, items || early != nil, yield) // dropped when a second items, or after a problem
			items = true
			continue
		}
		var v []byte
		v, pos, err = s.read(false)
		if string(unquoted) == "kind" && kindOf(v) == '"' { // the last one, as when read whole
			kind = unquote(v)
		}
		if errors.Is(err, errTooBig) || err == nil && len(members)+len(v) > s.limit {
			// The kind decides the items' kind: one that is not kept,
			// and so not checked with the members, must still be one.
			if string(unquoted) == "kind" && !items && badKind == nil {
				switch {
				case err != nil:
					badKind = &DecodeError{Position: pos, Field: "kind", Err: fmt.Errorf("the List's kind is larger than the limit of %s and was not read: its items' kind is not known, and they were not checked", formatBytes(s.limit))}
				case json.Unmarshal(v, new(string)) != nil:
					badKind = &DecodeError{Position: pos, Field: "kind", Err: errors.New("the List's kind is not a string: its items' kind is not known, and they were not checked")}
				}
			}
			members = members[:mark] // without the name of the member not kept
			if over = true; err != nil {
				err = s.skip()
			}
		}
		if !over {
			members = append(append(members, ':'), v...)
		}
	}
	if err == nil {
		_, pos, err = s.read(true)
	}
	var de *DecodeError
	switch {
	case err != nil:
		return pos, err
	case early != nil: // why the items were dropped
		de = early
	case !items || over:
		de = tooBig(start, s.limit)
	default:
		de = checkMembers(append(members, '}'), membersPos, itemsKind)
	}
	if de != nil && !yield(job{err: de}) {
		return pos, errStop
	}
	return pos, nil
}

// skip reads, token by token, the value the tokenizer refused to read
// whole: each token is held up to the limit, so only a string or a number
// over it fails.
func (s *jsonSplitter) skip() error {
	depth := s.dec.StackDepth()
	for {
		if _, _, err := s.read(true); err != nil || s.dec.StackDepth() == depth {
			return err
		}
	}
}

// read reads the next value, or the next token when token is set, and
// says where it starts. Whichever it is, it may be at most the limit.
func (s *jsonSplitter) read(token bool) (v []byte, pos Position, err error) {
	s.last = s.dec.PeekKind()
	ub := s.dec.UnreadBuffer()
	n := leadingDelims(ub)
	start := s.base + s.dec.InputOffset() + int64(n)
	pos = Position{Source: s.source, Document: s.doc, Item: s.item, Line: s.line + newlines(ub[:n]), Offset: start}
	if s.last != 0 && (s.dec.StackDepth() == 0 || s.item != "") {
		p := pos
		s.open = &p
	}
	s.item = ""
	end := start + int64(s.limit)
	if token {
		end++ // a number ends only at the byte after it, which jsontext must see
	}
	s.g.limit = max(s.g.read, end)
	if token {
		_, err = s.dec.ReadToken()
	} else {
		v, err = s.dec.ReadValue()
	}
	// Between values, jsontext holds the white space it skips: as much
	// of it as of a value. So it never holds more than the limit past the
	// start of the value it is asked for next, and no value read whole is
	// over the limit.
	s.g.limit = max(s.g.read, s.base+s.dec.InputOffset()+int64(s.limit))
	if err == nil {
		s.line = pos.Line + newlines(v)
	}
	return v, pos, err
}

// invalidChar is how jsontext names a character it did not expect.
var invalidChar = regexp.MustCompile(`invalid character '(?:\\.|[^'\\])*'`)

// fatal turns a tokenizer error into the DecodeError that ends the input.
func (s *jsonSplitter) fatal(err error, pos Position) job {
	de := &DecodeError{Position: pos, Fatal: true}
	var syn *jsontext.SyntacticError
	var nu notUTF16
	switch {
	case errors.As(err, &nu):
		de.Err = nu
	case errors.Is(err, errTooBig):
		what := "a " + kindName(s.last)
		if s.last == 0 {
			what = "white space" // between values, where none was expected
		}
		de.Err = fmt.Errorf("%s larger than the limit of %s, which cannot be skipped without holding it; the rest of the input is not read", what, formatBytes(s.limit))
	case errors.Is(err, io.ErrUnexpectedEOF):
		de.Err = errors.New("unexpected end of input: the document is truncated")
	case errors.As(err, &syn):
		// Whether jsontext says "at start of value" or "at start of string"
		// there depends on how much it had read: say neither.
		msg := strings.TrimSuffix(strings.TrimSuffix(trimJSONError(syn.Err), ` at start of string (expecting '"')`), " at start of value")
		if ub, rel := s.dec.UnreadBuffer(), syn.ByteOffset-s.dec.InputOffset(); rel >= 0 && rel <= int64(len(ub)) {
			de.Position.Line = s.line + newlines(ub[:rel])
			de.Position.Offset = s.base + syn.ByteOffset
			if rel < int64(len(ub)) && ub[rel] >= utf8.RuneSelf {
				// Not the character, which may be cut short by the end
				// of what was read so far, but its first byte.
				msg = invalidChar.ReplaceAllString(msg, fmt.Sprintf("invalid character (byte 0x%02x)", ub[rel]))
			}
			if rel < int64(len(ub)) && ub[rel] == 0 {
				msg += noBOM
			}
			if rel > 0 && rel < int64(len(ub)) && string(ub[rel-1:rel+1]) == "{{" {
				msg += "; " + templateHint(de.Position.Line)
			}
		}
		// Where the next value starts is not known.
		de.Err = fmt.Errorf("malformed JSON: %s; the rest of the input is not read", msg)
	default:
		de.Err = errors.New(trimJSONError(err))
	}
	return job{err: de}
}

// YAML is split by yamlSplitter, line by line, into documents at "---"
// lines, as kubectl's YAMLReader splits it (but at every line break YAML
// knows, where kubectl cuts at line feeds only), and a document that is a
// List (what `kubectl get -o yaml` prints) into its items, so that a List
// of any length is read item by item, each under the limit. It knows four
// things of YAML: document markers and directives, a column-0 "items:"
// line, the "- " that starts each entry below it, and that a line starting
// with neither ends the entries (but for a line after an LS or a PS,
// where a quoted value goes on, and one indented by a tab, which YAML
// reads in a quoted value or not at all). A flow sequence ("items:
// [...]", or on the line after "items:") stays one document, read whole;
// a List that is an item of a List stays one item, read whole, the limit
// applying to it whole, though section 8 would have its items read one by one.
//
// Lines are not YAML: whether a line is what it looks like is settled by
// parsing. The document up to an "items:" line is parsed with it, to know
// whether it is the key of the document's mapping (and not, say, inside a
// quoted value), and the List's kind; if it is not, or if the document up
// to it is over the limit and so not all held, the document is read whole
// (and, over the limit, skipped). A quoted value or a flow collection that
// runs on across a line starting with "- " makes the item cut there fail
// to parse: the items after it are then not read (see result.bad). The
// List's own members, the document less its items, are parsed whole at the
// end, as kubectl would read them; those before the items also when the
// items begin, so that a problem there drops them. An item is parsed as
// the one entry of an "items:", indented as it is in the List, but without
// the others: an alias of an anchor elsewhere in the document is an input
// error at that item.
type yamlSplitter struct {
	in      *bufio.Reader
	source  string
	limit   int
	yield   func(job) bool
	stopped bool // yield wants no more

	line, doc   int    // line of the next input line; input document
	start       int    // line the input document starts at
	rest        bool   // the next input is the rest of a line over the limit
	long        []byte // a line longer than the read buffer, read whole
	ended       bool   // after "...": the rest of the document is not read
	directives  bool   // the document holds directives only: a "---" begins it
	kept        *separators
	off         int64  // offset of the next line, LS and PS turned into LFs
	brk         string // the LS or PS that ends the current line, if one does
	sep         bool   // the line before ended with an LS or a PS
	endReported bool   // content after "..." was reported

	cur  *job         // the document or item being read; nil for none
	text bytes.Buffer // its text, up to a line past the limit

	// The members of a List: the input document less its items, in
	// stretches of lines: [members line, input line] where each starts.
	members   bytes.Buffer
	stretches [][2]int
	counted   int    // bytes of members counted into lines
	lines     int    // the line breaks in them
	list      bool   // "items:" was read: the document is cut into items
	items     bool   // in the entries of an "items:"
	drop      bool   // its entries are not handed out
	early     bool   // its members before the items did not decode: reported
	indent    int    // column of the entries' "- "; -1 before the first
	item      int    // index of the next entry
	kind      string // the List's kind, as its members before the items say
	inline    bool   // a column-0 "items: [": the List is read whole
	parsed    int    // bytes of the document parsed by entries, all lines together
}

// lineBreaks turns the line breaks YAML knows besides LF and CRLF (a CR
// alone, NEL, LS, PS) into LFs, so that the splitter's lines are YAML's:
// a "---" after one is a marker, and a "- " after one starts an entry. The
// parser reads a CR or a NEL as an LF, but keeps an LS or a PS in a
// scalar, as kubectl does: those are noted in kept, when set, for the
// splitter to put back.
type lineBreaks struct {
	transform.NopResetter
	kept *separators
}

// separators are the LSs and PSs that lineBreaks turned into LFs, by
// where the LF is in its output.
type separators struct {
	out int64 // bytes written so far
	at  map[int64]string
}

func (lb lineBreaks) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	if lb.kept != nil {
		defer func() { lb.kept.out += int64(nDst) }()
	}
	for nSrc < len(src) {
		c, n := src[nSrc], 1
		switch rest := src[nSrc:]; {
		case c != '\r' && c != 0xC2 && c != 0xE2:
		case len(rest) < 3 && !atEOF:
			return nDst, nSrc, transform.ErrShortSrc // maybe a break cut short
		case c == '\r' && (len(rest) == 1 || rest[1] != '\n'):
			c = '\n'
		case bytes.HasPrefix(rest, []byte("\u0085")):
			c, n = '\n', 2
		case bytes.HasPrefix(rest, []byte("\u2028")), bytes.HasPrefix(rest, []byte("\u2029")):
			c, n = '\n', 3
		}
		if nDst == len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		if n == 3 && lb.kept != nil {
			lb.kept.at[lb.kept.out+int64(nDst)] = string(src[nSrc : nSrc+3])
		}
		dst[nDst] = c
		nDst, nSrc = nDst+1, nSrc+n
	}
	return nDst, nSrc, nil
}

// errBinary stops an input that holds a NUL byte, which no YAML or JSON
// text does: /dev/zero or a binary file is not read to its end.
var errBinary = errors.New("the input is not text (it holds a NUL byte" + noBOM + "); the rest of it is not read")

// noBOM says why a NUL byte may be in a text file.
const noBOM = "; UTF-16 is read only with a byte order mark"

func (s *yamlSplitter) split(yield func(job) bool) {
	s.yield = yield
	var err error
	for err == nil && !s.stopped {
		err = s.step()
	}
	if err != io.EOF && !s.stopped {
		yield(job{err: &DecodeError{Position: Position{Source: s.source, Line: s.line, Offset: -1}, Err: err, Fatal: true}})
	}
}

// readLine returns the next input line, whole if it is at most the limit.
// A longer one, which no object under the limit holds, comes in pieces
// (partial): the first, of the limit or more, tells what the line is.
func (s *yamlSplitter) readLine() (line []byte, partial bool, err error) {
	line, err = s.in.ReadSlice('\n')
	if err == bufio.ErrBufferFull && !s.rest {
		s.long = append(s.long[:0], line...)
		for err == bufio.ErrBufferFull && len(s.long) <= s.limit && bytes.IndexByte(line, 0) < 0 {
			line, err = s.in.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	// The break that ends the line, or piece: an LS or a PS, which
	// lineBreaks turned into an LF, is put back in the parser's text (write).
	s.off += int64(len(line))
	s.sep, s.brk = s.brk != "", s.kept.at[s.off-1]
	delete(s.kept.at, s.off-1)
	if err == bufio.ErrBufferFull {
		return line, true, nil
	}
	return line, false, err
}

// write adds line to b, with the LS or PS that ends it put back.
func (s *yamlSplitter) write(b *bytes.Buffer, line []byte) {
	if s.brk != "" && bytes.HasSuffix(line, []byte("\n")) {
		b.Write(line[:len(line)-1])
		b.WriteString(s.brk)
		return
	}
	b.Write(line)
}

// step reads one input line, or a piece of one over the limit, and hands
// out what it ends; io.EOF at the end.
func (s *yamlSplitter) step() error {
	line, partial, err := s.readLine()
	switch {
	case bytes.IndexByte(line, 0) >= 0:
		return errBinary
	case err == io.EOF && len(line) > 0:
		line = append(line[:len(line):len(line)], '\n')
		fallthrough
	case err == io.EOF:
		defer s.end()
	case err != nil:
		return err
	}
	if len(line) == 0 {
		return err
	}
	if m := bytes.TrimPrefix(line, []byte("\uFEFF")); !s.rest && (marker(m, "---") || marker(m, "...")) {
		line = m // a byte order mark may begin any document: in files concatenated
	}
	lineNo, rest := s.line, s.rest
	s.rest = partial
	if !partial {
		s.line++
	}
	switch {
	case rest && s.ended:
		s.afterEnd(line, lineNo)
	case rest:
		s.emit(line)
	case s.directives && marker(line, "---"):
		s.directives = false // the start of the document the directives are for
		s.emit(line)
	case marker(line, "---"):
		s.end()
		if rest := bytes.Trim(line[3:], " \t\r\n"); partial || len(rest) > 0 && rest[0] != '#' {
			// "--- value": the value, where it is, after spaces.
			n := len(line) - len(bytes.TrimLeft(line[3:], " \t"))
			s.body(append(bytes.Repeat([]byte(" "), n), line[n:]...), lineNo, partial)
		}
	case marker(line, "..."):
		s.end()
		s.ended = true // what follows, up to the next "---", is not read
		s.afterEnd(line[3:], lineNo)
	case line[0] == '%' && !s.directives:
		// A directive ("%YAML 1.1") is the next document's, which a "---"
		// must then start. In a document, the parser would end it there
		// and read no further: what follows is not dropped unread.
		s.end()
		s.body(line, lineNo, partial)
	case s.ended:
		s.afterEnd(line, lineNo)
	default:
		s.body(line, lineNo, partial)
	}
	return err
}

// afterEnd reports, once, content between a "..." line and the next "---",
// which is not read: kubectl ignores it, YAML 1.2 would read a new document.
func (s *yamlSplitter) afterEnd(line []byte, lineNo int) {
	if t := bytes.Trim(line, " \t\r\n"); len(t) > 0 && t[0] != '#' && !s.endReported {
		s.endReported = true
		s.send(job{err: &DecodeError{Position: s.at(lineNo), Err: errors.New(`content after "...", which ends the document, and before the next "---": not read`)}})
	}
}

// unfinished is the item being read, or else the document.
func (s *yamlSplitter) unfinished() *Position {
	p := s.at(s.start)
	if s.cur != nil {
		p = s.cur.pos
	} else if !s.list {
		return nil
	}
	return &p
}

// marker reports whether line is the document marker m, alone or followed
// by white space and more.
func marker(line []byte, m string) bool {
	return bytes.HasPrefix(line, []byte(m)) && len(line) > len(m) && strings.ContainsRune(" \t\r\n", rune(line[len(m)]))
}

// body handles a line of a document's content, or the first piece of one
// over the limit (partial).
func (s *yamlSplitter) body(line []byte, lineNo int, partial bool) {
	t := bytes.Trim(line, " \t\r\n") // YAML white space, not Unicode's
	// A line over the limit whose first piece is white space may be
	// content indented that far: it is not blank.
	blank := len(t) == 0 && !partial || len(t) > 0 && t[0] == '#'
	if s.cur == nil && !s.list {
		if blank {
			return // comments and blank lines before a document
		}
		s.doc++
		s.start = lineNo
		s.begin(job{}, lineNo)
		s.directives = line[0] == '%' // "%YAML 1.1": for the parser, up to "---"
	}
	s.directives = s.directives && (blank || line[0] == '%')
	col := len(line) - len(bytes.TrimLeft(line, " "))
	// YAML indents with spaces only: a line whose indentation holds a tab
	// goes on with a quoted value, or does not parse. Either way it is
	// not the List's next member.
	tab := col < len(line) && line[col] == '\t'
	if s.items && !blank {
		entry := len(line) >= col+2 && line[col] == '-' && strings.ContainsRune(" \t\r\n", rune(line[col+1]))
		switch {
		case entry && (s.indent < 0 || col == s.indent):
			s.flush()
			s.indent, s.item = col, s.item+1
			if !s.drop {
				s.begin(job{containerKind: listKind(s.kind), depth: 1, cut: true}, lineNo)
				s.cur.pos.Item = "items[" + strconv.Itoa(s.item-1) + "]"
				s.emit(line)
			}
			return
		case entry && col < s.indent:
			// YAML ends the entries there, and then refuses the line.
			s.fail(&DecodeError{Position: s.at(lineNo), Field: "items", Err: errors.New("malformed YAML: an entry indented less than the first; the rest of the List is not read")})
			s.indent, s.drop = col, true
			return
		case s.indent < 0 && (col > 0 || tab) && !s.drop:
			// "items:" holds no entries but something else, such as a
			// flow sequence ("items:\n  [...]"): the document is read
			// whole, as "items: [" is, and its items are what it says.
			s.list, s.items = false, false
			s.begin(job{}, s.start)
			s.text.Write(s.members.Bytes())
			s.members.Reset()
			s.emit(line)
			return
		case col > max(s.indent, 0) || s.sep || tab:
			// A line after an LS or a PS goes on with a quoted value:
			// kubectl prints 'message<LS>' with its end at column 0, and
			// a value such as "a<LS>b" in a flow mapping goes on there
			// with the rest of the mapping. (An LS or a PS as the line
			// break of a file, which no editor writes, would glue the
			// List's members after its items to its last item, which
			// then does not parse: an error, never a misreading.)
			s.emit(line)
			return
		}
		s.flush()
		s.items = false // back to the List's own members
		s.lines += bytes.Count(s.members.Bytes()[s.counted:], []byte("\n"))
		s.counted = s.members.Len()
		if s.members.Len() <= s.limit { // past it, members are neither held nor parsed
			s.stretches = append(s.stretches, [2]int{s.lines + 1, lineNo})
		}
	}
	if col == 0 && !blank {
		key, _, _ := bytes.Cut(bytes.ReplaceAll(line, []byte("\t"), []byte(" ")), []byte(" #"))
		// An "items:" line over the limit may hold a value past the piece.
		if !partial && string(bytes.TrimRight(key, " \r\n")) == "items:" && s.entries(line, lineNo) {
			return
		}
		value, ok := bytes.CutPrefix(key, []byte("items:"))
		s.inline = s.inline || ok && bytes.HasPrefix(bytes.TrimLeft(value, " "), []byte("["))
	}
	s.emit(line)
}

// entries reports whether the "items:" line at lineNo is the key of the
// document's mapping, parsing the document up to it, and if so begins its
// entries, for a List of the kind the document gives so far. A second one
// is a problem, its entries not handed out.
func (s *yamlSplitter) entries(line []byte, lineNo int) bool {
	if s.list {
		s.fail(&DecodeError{Position: s.at(lineNo), Field: "items", Err: errors.New(`duplicate key "items": the List is ambiguous; its second items were not checked`)})
		s.items, s.indent, s.drop = true, -1, true
		return true
	}
	n := s.text.Len() + len(line)
	if s.text.Len() > s.limit || s.parsed > n {
		// Cut short, the kind may be lost: the document is over the
		// limit. Past parsed, the document is not parsed again until it
		// has grown as long as all it was parsed for, so that "items:"
		// lines in a quoted value, each parsed in vain, cost at most twice
		// the document, not the square of its lines.
		return false
	}
	s.parsed += n
	var p probe
	j, err := yamlToJSON(append(bytes.Clone(s.text.Bytes()), line...), false)
	if err != nil || json.Unmarshal(j, &p) != nil || p.Items == nil {
		return false
	}
	// The members so far, parsed at the end, and the key: what follows it,
	// when no entry does, may be its value.
	s.members.Write(s.text.Bytes())
	s.write(&s.members, line)
	s.stretches, s.counted, s.lines = append(s.stretches[:0], [2]int{1, s.start}), 0, 0
	s.text.Reset()
	s.list, s.cur, s.kind = true, nil, unquote(p.Kind)
	s.items, s.indent, s.item = true, -1, 0
	// A member before the items that does not decode drops them, as in
	// a JSON List, read whole or token by token; it is reported once.
	if de := checkMembers(j, s.at(s.start), s.kind); de != nil {
		s.fail(de)
		s.drop, s.early = true, true
	}
	// A kind merged in ("<<: *base") yields to one given after the items:
	// they are read as a List's, and end checks the kind that comes.
	if mergesKind(s.members.Bytes()) {
		s.kind = ""
	}
	return true
}

// end ends the input document, and hands out what is wrong with a List's
// own members, parsed whole.
func (s *yamlSplitter) end() {
	s.flush()
	if s.list {
		if s.members.Len() > s.limit {
			s.fail(tooBig(s.at(s.start), s.limit))
		} else if j, err := yamlToJSON(s.members.Bytes(), false); err != nil {
			s.fail(&DecodeError{Position: s.at(s.start), Err: fmt.Errorf("the List's own members: %w", yamlError(err, s.members.Bytes(), false, s.inputLine))})
		} else if de := checkMembers(j, s.at(s.start), s.kind); de != nil && !s.early {
			s.fail(de)
		}
	}
	s.list, s.items, s.drop, s.ended, s.endReported, s.inline, s.directives, s.early = false, false, false, false, false, false, false, false
	s.indent, s.kind, s.parsed = -1, "", 0
	s.members.Reset()
}

// inputLine is the input line of line n of the List's members.
func (s *yamlSplitter) inputLine(n int) int {
	i := len(s.stretches) - 1
	for i > 0 && s.stretches[i][0] > n {
		i--
	}
	return s.stretches[i][1] + n - s.stretches[i][0]
}

// fail hands out a problem of the input document.
func (s *yamlSplitter) fail(de *DecodeError) {
	s.flush()
	s.send(job{err: de, pos: de.Position, cut: true, yaml: true})
}

// at is line lineNo of the input document.
func (s *yamlSplitter) at(lineNo int) Position {
	return Position{Source: s.source, Document: s.doc, Line: lineNo, Offset: -1}
}

// begin hands out the document or item being read, and begins the next
// at line lineNo.
func (s *yamlSplitter) begin(j job, lineNo int) {
	s.flush()
	j.pos, j.yaml = s.at(lineNo), true
	s.cur = &j
}

// flush hands out the document or item being read.
func (s *yamlSplitter) flush() {
	if s.cur != nil {
		j := *s.cur
		j.raw = s.text.Bytes()
		if s.text.Len() > s.limit {
			j.err = tooBig(j.pos, s.limit)
			if s.inline && !j.cut {
				j.err.Err = fmt.Errorf("a List whose items are a flow sequence (items: [...]) is read whole, not item by item: %w", j.err.Err)
			} else if j.cut { // not parsed: a quoted value in it may run on across what looks like the next items
				j.err.Err, s.drop = fmt.Errorf("%w; the rest of the List is not read: where the next item starts cannot be told", j.err.Err), true
			}
		}
		s.send(j)
	}
	s.cur = nil
	s.text.Reset()
}

func (s *yamlSplitter) send(j job) {
	if !s.stopped {
		s.stopped = !s.yield(j)
	}
}

// emit adds a line to the document or item being read or, outside the
// items of a List, to its members; up to a line past the limit, which
// tells it is over.
func (s *yamlSplitter) emit(line []byte) {
	b := &s.text
	switch {
	case s.list && !s.items:
		b = &s.members
	case s.cur == nil:
		return
	}
	if b.Len() <= s.limit {
		s.write(b, line)
	}
}
