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
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	yaml2 "go.yaml.in/yaml/v2"
	yaml3 "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// job is a value the splitter read whole (a JSON document, array element
// or List item, or a YAML document), or a problem it found instead.
type job struct {
	raw           []byte
	pos           Position
	yaml          bool   // raw is YAML, to be converted
	cut           bool   // an item, or a problem, of a YAML List the splitter cut into items
	containerKind string // the kind of the List the value is an item of
	depth         int    // how deep it is in the value the input holds
	err           *DecodeError
}

// result is an object or a problem.
type result struct {
	obj Object
	err *DecodeError
	// part is the document of a cut YAML document the result comes from;
	// bad marks a part that did not parse, after which the document's cuts
	// may be wrong: its later parts are dropped.
	part int
	bad  bool
	// kindless is where the item is, of a List of kind List or of one yet
	// to come, without a kind of its own, that the result was read from.
	kindless *Position
}

// resultChunk is how many results a batch hands on at a time: a document
// read whole may hold millions of items, each an object or a problem,
// which are handed on as they are decoded, not held together.
const resultChunk = 1024

// results collects the results of a batch, and hands them on in chunks.
type results struct {
	chunk   []result
	send    func([]result) bool // false: no more are wanted
	stopped bool
	// Of the job being decoded: its results' part (see result.part), and
	// whether it is YAML, where a value of the wrong type may be a scalar
	// left unquoted.
	part     int
	yaml     bool
	kindless *Position             // see result.kindless
	locate   func(de *DecodeError) // of a YAML job: see decodeJob
}

// errNotObject and errNotArray are a value of another kind where an
// object, or a List's items, are read; add words them for YAML.
var (
	errNotObject = errors.New("not a JSON object")
	errNotArray  = errors.New("not a JSON array")
)

// add adds a result of the job being decoded; in YAML, a problem of a
// value's kind is told in YAML's words, with the hint a wrong type needs.
func (r *results) add(x result) {
	var wt *wrongType
	switch de := x.err; {
	case !r.yaml || de == nil:
	case de.Err == errNotObject:
		de.Err = errors.New("not a mapping")
	case de.Err == errNotArray:
		de.Err = errors.New("not a sequence")
	case errors.As(de.Err, &wt):
		wt.yaml = true
		if wt.unquotedString() {
			de.Err = fmt.Errorf("%w (in YAML, a value such as no, on, 1.10 or 0755 is not a string unless quoted)", de.Err)
		}
	}
	if x.err != nil && x.err.pointer != "" && r.locate != nil {
		r.locate(x.err)
	}
	x.part, x.kindless = r.part, r.kindless
	if r.chunk = append(r.chunk, x); len(r.chunk) >= resultChunk {
		r.flush()
	}
}

// flush hands on the results collected, if any.
func (r *results) flush() {
	if len(r.chunk) > 0 && !r.stopped {
		r.stopped = !r.send(r.chunk)
	}
	r.chunk = nil
}

// maxNesting bounds how deep Lists and watch events may nest.
const maxNesting = 8

// wire is every member the reader needs of an object: a Service's, a
// List's and a watch event's. One decode into it checks the whole object,
// duplicate names at any depth included, before anything is decided about
// it, and makes member order irrelevant. A Service's metadata, spec and
// status are their own types; the members no rule reads and that cost the
// most to decode (labels, managed fields, selector, cluster IPs, target
// ports) are checked for syntax and duplicate names, not for their type,
// and skipped: decoding them whole took 14% longer, and kept them. The
// differential fuzz target holds the rest to what encoding/json decodes.
type wire struct {
	Kind       string  `json:"kind"`
	APIVersion string  `json:"apiVersion"`
	Items      located `json:"items"`
	Type       string  `json:"type"`
	Object     located `json:"object"`
	Metadata   struct {
		metav1.ObjectMeta
		Labels            skipped `json:"labels"`
		CreationTimestamp skipped `json:"creationTimestamp"`
		ManagedFields     skipped `json:"managedFields"`
	} `json:"metadata"`
	Spec struct {
		v1.ServiceSpec
		Selector    skipped `json:"selector"`
		ClusterIP   skipped `json:"clusterIP"`
		ClusterIPs  skipped `json:"clusterIPs"`
		ExternalIPs skipped `json:"externalIPs"`
	} `json:"spec"`
	Status v1.ServiceStatus `json:"status"`
}

// skipped is a member that is read, and so checked, but not kept.
type skipped struct{}

func (*skipped) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return dec.SkipValue() }

// unmarshalOptions decode as kube-apiserver does: names match
// case-sensitively, unknown members are ignored; a duplicate name and
// invalid UTF-8 are errors (json's defaults). A port's targetPort is
// skipped too, and times are read without a trip through encoding/json.
var unmarshalOptions = json.JoinOptions(json.MatchCaseInsensitiveNames(false), json.RejectUnknownMembers(false),
	json.WithUnmarshalers(json.JoinUnmarshalers(
		json.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ *intstr.IntOrString) error { return dec.SkipValue() }),
		json.UnmarshalFromFunc(unmarshalTime))))

// located is a member's value, kept raw, and its offset in the object.
type located struct {
	v   jsontext.Value
	off int64
}

func (l *located) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	l.off = dec.InputOffset()
	v, err := dec.ReadValue()
	l.v = bytes.Clone(v)
	return err
}

// unmarshalTime decodes a metav1.Time as its UnmarshalJSON does (RFC 3339,
// null is the zero time, in local time).
func unmarshalTime(dec *jsontext.Decoder, t *metav1.Time) error {
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		return err
	case tok.Kind() == 'n':
		*t = metav1.Time{}
		return nil
	case tok.Kind() != '"':
		return &json.SemanticError{JSONKind: tok.Kind()} // "a JSON number where a time is expected"
	}
	pt, err := time.Parse(time.RFC3339, tok.String())
	if err != nil {
		// time's own message speaks in its layout ("cannot parse
		// \"bogus\" as \"2006\""): show the value and a time instead.
		return fmt.Errorf("%q; a time is written as 2026-05-04T12:00:00Z", tok.String())
	}
	*t = metav1.NewTime(pt.Local())
	return nil
}

// decodeJob turns one job into its objects and problems, in input order,
// and adds them to r; r.stopped reports that no more are wanted.
func decodeJob(j job, limit int, r *results) {
	r.part, r.yaml, r.locate = 0, j.yaml, nil
	if j.cut {
		r.part = j.pos.Document
	}
	if j.err != nil {
		r.add(result{err: j.err})
		return
	}
	raw := j.raw
	if j.yaml {
		// An item is parsed where it stands, as the one entry of a List's
		// items, so that its lines are indented for YAML as in the List.
		var err error
		first, wrap := j.pos.Line, 0 // wrap: the bytes around an item's JSON
		if j.cut {
			raw, first, wrap = append([]byte("items:\n"), raw...), first-1, len(`{"items":[]}`)
		}
		text := raw
		fail := func(err error, bad bool) {
			if bad {
				err = fmt.Errorf("%w; the rest of the List is not read: after an item that does not parse, where the next one starts cannot be told", err)
			}
			r.add(result{err: &DecodeError{Position: j.pos, Err: err}, bad: bad})
		}
		if !utf8.Valid(text) {
			i := validPrefix(text)
			// Whether the parser reads as far as the byte depends on how
			// far it reads ahead: the text is refused wherever it is. An
			// item that would parse but for it, or only for a key given
			// twice, is cut right: the next one is read.
			_, err = yaml.YAMLToJSONStrict(bytes.ToValidUTF8(text, []byte("\uFFFD")))
			fail(fmt.Errorf("malformed YAML: invalid UTF-8 (byte 0x%02x) at line %d", text[i], lineOf(text, i, first)),
				j.cut && err != nil && !duplicateKey(err))
			return
		}
		if raw, err = yamlToJSON(raw, j.cut); err == nil && len(raw)-wrap <= limit && ambiguousKeys(text, raw) { // over the limit: skipped
			r.add(result{err: &DecodeError{Position: j.pos, Object: refOf(raw, j.cut),
				Err: fmt.Errorf(`%w: two keys of different types, such as 1 and "1", give one member name; the object is ambiguous and was not checked`, errDuplicateKey)}})
			return
		} else if err != nil {
			// A key given twice is found once the item has parsed: where
			// the next one starts is known.
			err = yamlError(err, text, j.cut, func(n int) int { return first + n - 1 })
			if errors.Is(err, errDuplicateKey) { // of an object under the limit: one over it is not parsed
				// Named as in JSON, from a reading that lets the
				// later key win: the line says which object to fix.
				lax, _ := yaml.YAMLToJSON(text)
				r.add(result{err: &DecodeError{Position: j.pos, Object: refOf(lax, j.cut), Err: err}})
				return
			}
			fail(err, j.cut && !errors.Is(err, errDuplicateKey))
			return
		}
		switch item, ok := bytes.CutPrefix(raw, []byte(`{"items":[`)); {
		case j.cut && ok && bytes.HasSuffix(item, []byte("]}")):
			raw = item[:len(item)-2]
		case j.cut:
			r.add(result{err: &DecodeError{Position: j.pos, Err: errors.New("not one item of a List; the rest of the List is not read")}, bad: true})
			return
		case string(raw) == "null":
			return // a document of comments only
		case kindOf(raw) != '{' && kindOf(raw) != '[':
			// Such as JSON after a "//" comment, which makes the input YAML,
			// or the table "kubectl get" prints without -o.
			err := fmt.Errorf("a YAML document that is a %s, not a mapping; skipped", kindName(jsontext.Value(raw).Kind()))
			if s := unquote(raw); strings.HasPrefix(s, "NAME ") || strings.HasPrefix(s, "NAMESPACE ") {
				err = fmt.Errorf(`%w: it looks like the table "kubectl get" prints; give it -o yaml or -o json`, err)
			} else if j.pos.Document == 1 && bytes.ContainsAny(text, "{[") {
				// JSON values after a string or a number, read as YAML.
				err = fmt.Errorf("%w: an input is read as JSON only when it starts with { or [, and the JSON in it was not read", err)
			}
			fail(err, false)
			return
		}
		// A member at fault in the object is named at its own line, as in
		// JSON, as far as the path to it can be followed in the text.
		r.locate = func(de *DecodeError) {
			ptr := de.pointer
			if j.cut {
				ptr = "/items/0" + ptr
			}
			if de.Position.Item != j.pos.Item {
				return // an object nested in it, whose lines are not known
			}
			if n := memberLine(text, ptr); n > 0 {
				de.Position.Line = first + n - 1
			}
		}
	}
	// An item a splitter handed out is as deep as in its List read whole.
	decodeValue(raw, j.pos, j.containerKind, "", limit, j.depth, r)
}

// wrongType is a value whose JSON kind does not fit its field.
type wrongType struct {
	sem  *json.SemanticError
	yaml bool // the value was YAML: its kind is not named as JSON's
}

func (e *wrongType) Error() string {
	var msg string
	switch k := kindName(e.sem.JSONKind); {
	case e.sem.JSONKind == 0:
		msg = "this value is not " + typeName(e.sem.GoType)
	case e.yaml:
		msg = map[string]string{"object": "a mapping", "array": "a sequence", "null": "null"}[k]
		msg = cmp.Or(msg, "a "+k) + " where " + typeName(e.sem.GoType) + " is expected"
	default:
		msg = "a JSON " + k + " where " + typeName(e.sem.GoType) + " is expected"
	}
	if e.sem.Err != nil {
		msg += ": " + e.sem.Err.Error()
	}
	return msg
}
func (e *wrongType) Unwrap() error { return e.sem }

// unquotedString reports whether a boolean or a number stands where a
// string is expected: in YAML, a scalar such as no or 1.10 left unquoted.
func (e *wrongType) unquotedString() bool {
	k := e.sem.JSONKind
	return (k == 't' || k == 'f' || k == '0') && typeName(e.sem.GoType) == "a string"
}

// ambiguousKeys reports whether two keys of a YAML mapping in text, of
// different types (1 and "1", true and "true"), gave one member name in
// j, its JSON: one of them is lost, which one by chance. Only a number, true
// or false as a name in j sends text to be parsed again.
func ambiguousKeys(text, j []byte) bool {
	typed := false
	for rest := j; !typed; {
		i := bytes.Index(rest, []byte(`":`))
		if i < 0 {
			return false
		}
		name := rest[bytes.LastIndexByte(rest[:i], '"')+1 : i]
		typed = string(name) == "true" || string(name) == "false" || len(name) > 0 && strings.IndexByte("+-.0123456789", name[0]) >= 0
		rest = rest[i+2:]
	}
	var y, v any
	return yaml2.Unmarshal(text, &y) == nil && json.Unmarshal(j, &v) == nil && entries(y) != entries(v)
}

// entries counts the entries of the mappings in v, a parsed YAML or JSON.
func entries(v any) (n int) {
	switch v := v.(type) {
	case map[any]any:
		for _, e := range v {
			n += 1 + entries(e)
		}
	case map[string]any:
		for _, e := range v {
			n += 1 + entries(e)
		}
	case []any:
		for _, e := range v {
			n += entries(e)
		}
	}
	return n
}

// yamlToJSON converts a YAML document, or an item of a List (cut), to
// JSON. The parser reads one document, which ends where its value ends:
// an indented mapping at the first line less indented, a flow collection
// or a quoted scalar at its end. What follows it there is another document
// to the parser, not read, and malformed without a "---" line before it:
// that is an error here, not content dropped in silence, when the value
// is an object or an array, which would be read, or null, which is taken
// for a document of comments only (and may be a "~" with lines after it).
// An object or an array whose first line of content begins at column 0 as
// a block mapping or sequence cannot end early, so it is not parsed on.
func yamlToJSON(text []byte, cut bool) ([]byte, error) {
	j, err := yaml.YAMLToJSONStrict(text)
	if err != nil && duplicateKey(err) && mergesOneWay(text) {
		j, err = yaml.YAMLToJSON(text) // keys given beside a merge key win
	}
	// A string, a number or a boolean is skipped, and reported, whole.
	if k := kindOf(j); err != nil || cut || k != 'n' && (k != '{' && k != '[' || !mayEndEarly(text)) {
		return j, err
	}
	d := yaml2.NewDecoder(bytes.NewReader(text))
	var v any
	if d.Decode(&v) != nil {
		return j, nil // read strictly, it parsed: the parsers differ in what they refuse, not in where a value ends
	}
	if err = d.Decode(&v); err == io.EOF {
		return j, nil
	} else if err == nil {
		err = errors.New("yaml: a second document")
	}
	return nil, fmt.Errorf(`%w: the document's value ends on that line, and YAML reads what follows as another document, which needs a "---" line before it`, err)
}

// mayEndEarly reports whether the first line of content of a YAML
// document is indented, or begins with a flow collection, a quoted or block
// scalar, a tag, an anchor, an alias, or follows "---" or a byte order mark.
func mayEndEarly(text []byte) bool {
	for line := range bytes.Lines(text) {
		t := bytes.TrimLeft(line, " \t\uFEFF")
		switch rest := bytes.Trim(t, " \t\r\n"); {
		case len(rest) == 0 || rest[0] == '#' || line[0] == '%':
			continue
		case marker(line, "---"):
			if rest = bytes.TrimLeft(rest[3:], " \t"); len(rest) == 0 || rest[0] == '#' {
				continue
			}
			return true
		}
		return len(t) < len(line) || bytes.IndexByte([]byte(`[{"'|>!&*`), t[0]) >= 0
	}
	return false
}

// lineOf is the input line of byte i of text, a YAML text whose first
// line is input line first: YAML breaks lines at LSs and PSs too.
func lineOf(text []byte, i, first int) int {
	b := text[:i]
	return first + bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\u2028")) + bytes.Count(b, []byte("\u2029"))
}

// templateHint says why a text holding "{{" at line n does not parse: it
// is a template, such as a Helm chart's, which is YAML only once rendered.
func templateHint(n int) string {
	return fmt.Sprintf(`it holds "{{" (line %d), as a template does: render it first, as in "helm template CHART | lbstatus check"`, n)
}

// comment is the start of a YAML comment: a "#" that begins a line, or
// follows white space.
var comment = regexp.MustCompile(`(^|[ \t\x{2028}\x{2029}])#`)

// templateAt is the index in text of the first "{{" outside a comment, or
// -1: a comment that mentions one does not make the text a template.
func templateAt(text []byte) int {
	off := 0
	for line := range bytes.Lines(text) {
		if i := bytes.Index(line, []byte("{{")); i >= 0 && !comment.Match(line[:i]) {
			return off + i
		}
		off += len(line)
	}
	return -1
}

// mergesKind reports whether the YAML mapping text may take its kind from
// a merge key: one of its own (not one nested deeper), plain or !!merge
// as mergesOneWay tells one, and no kind key of its own, which would win.
func mergesKind(text []byte) (merges bool) {
	var doc yaml3.Node
	if !bytes.Contains(text, []byte("<<")) || yaml3.Unmarshal(text, &doc) != nil || len(doc.Content) == 0 {
		return false
	}
	for m, i := doc.Content[0].Content, 0; i+1 < len(m); i += 2 {
		if m[i].Value == "kind" && m[i].ShortTag() == "!!str" {
			return false
		}
		merges = merges || m[i].Value == "<<" && m[i].ShortTag() == "!!merge"
	}
	return merges
}

// mergesOneWay reports whether the keys the strict parser takes for keys
// given twice are all keys that a mapping gives beside a merge key
// ("<<: *base", which the strict parser cannot tell from a key twice) and
// that override the merged ones, as they do in YAML and for kubectl alike.
// A key given twice in one mapping is no such key, nor is a second merge
// key; neither is a key given before a merge key that merges it too,
// which YAML keeps and kubectl's parser overrides: that object means two
// things. A quoted "<<" is a key like any other, as it is for kubectl and
// kube-apiserver (sigs.k8s.io/yaml): only a plain or !!merge one merges.
func mergesOneWay(text []byte) bool {
	var doc yaml3.Node
	if !bytes.Contains(text, []byte("<<")) || yaml3.Unmarshal(text, &doc) != nil {
		return false
	}
	var oneWay func(n *yaml3.Node) bool
	oneWay = func(n *yaml3.Node) bool {
		before, merges := map[string]bool{}, 0
		for i := 0; n.Kind == yaml3.MappingNode && i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind != yaml3.ScalarNode || k.Value != "<<" || k.ShortTag() != "!!merge" {
				if before[k.Value] {
					return false
				}
				before[k.Value] = true
				continue
			}
			if merges++; merges > 1 {
				return false
			}
			// What a merge key merges: a mapping, an alias of one, or a
			// sequence of those (the parser refuses anything else).
			ms := []*yaml3.Node{n.Content[i+1]}
			if ms[0].Kind == yaml3.SequenceNode {
				ms = ms[0].Content
			}
			for _, m := range ms {
				if m.Kind == yaml3.AliasNode {
					m = m.Alias
				}
				for j := 0; j+1 < len(m.Content); j += 2 {
					if before[m.Content[j].Value] {
						return false
					}
				}
			}
		}
		for _, c := range n.Content {
			if !oneWay(c) {
				return false
			}
		}
		return true
	}
	return oneWay(&doc)
}

// memberLine is the line, in text, of the member of its YAML that ptr points
// to, or of the deepest one on the way that is found: not one merged in,
// nor a key written otherwise than its JSON name (0x10). It is 0 when none is.
func memberLine(text []byte, ptr jsontext.Pointer) (line int) {
	var doc yaml3.Node
	if yaml3.Unmarshal(text, &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	n := doc.Content[0]
	for tok := range ptr.Tokens() {
		if n.Kind == yaml3.AliasNode {
			n = n.Alias
		}
		var next *yaml3.Node
		for i := 0; n.Kind == yaml3.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == tok {
				next, line = n.Content[i+1], n.Content[i].Line
			}
		}
		if i, err := strconv.Atoi(tok); n.Kind == yaml3.SequenceNode && err == nil && i >= 0 && i < len(n.Content) {
			next, line = n.Content[i], n.Content[i].Line
		}
		if n = next; n == nil {
			break
		}
	}
	return line
}

// duplicateKey reports whether the YAML parser's err is about a key given
// twice, which it finds once the text has parsed.
func duplicateKey(err error) bool { return strings.Contains(err.Error(), "already set in map") }

// errDuplicateKey is what a YAML mapping with a key given twice is: the
// document or item parsed, so in a List the next item is read.
var errDuplicateKey = errors.New("duplicate key")

// yamlLine is where the YAML parser says a problem is, at the start of
// each of its messages: "yaml: line 3: ...", or "  line 3: ..." in a list.
var yamlLine = regexp.MustCompile(`(?m)^(yaml: | +)line (\d+):`)

// noToken is the parser's message for a character no token starts with,
// as a tab that indents a line.
var noToken = regexp.MustCompile(`line (\d+): found character that cannot start any token`)

// indentedByTab reports whether line n (1-based, a string) of text starts
// with a tab, after spaces if any. Lines end at LSs and PSs too, as the
// parser counts them (lineOf).
func indentedByTab(text []byte, n string) bool {
	i, _ := strconv.Atoi(n)
	for line := range strings.Lines(strings.NewReplacer("\u2028", "\n", "\u2029", "\n").Replace(string(text))) {
		if i--; i == 0 {
			return strings.HasPrefix(strings.TrimLeft(line, " "), "\t")
		}
	}
	return false
}

// maxProblems is how many of the YAML parser's problems a message lists.
const maxProblems = 3

// yamlError says what is wrong with a YAML document, an item of a List or
// a List's own members; inputLine is the input line of a line of the text.
func yamlError(err error, text []byte, item bool, inputLine func(int) int) error {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	if sub := noToken.FindStringSubmatch(msg); sub != nil && indentedByTab(text, sub[1]) {
		msg += " (a tab in the line's indentation: YAML indents with spaces only)"
	}
	// A key that is a mapping or a sequence, which no member's name can be,
	// the parser prints as a Go value: "map[interface {}]interface {}{...}".
	if before, key, ok := strings.Cut(msg, "invalid map key: "); ok {
		what := "sequence"
		if strings.HasPrefix(key, "map[") {
			what = "mapping"
		}
		msg = before + "invalid map key: a " + what + ", where a member's name is a string"
	}
	// The parser lists every problem it found, a line each: the first
	// few say what is wrong, and a message stays one line of a terminal.
	if problems := strings.Split(msg, "\n"); len(problems) > maxProblems+1 {
		msg = strings.Join(problems[:maxProblems+1], "\n") + fmt.Sprintf("\n(and %d more)", len(problems)-maxProblems-1)
	}
	msg = yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		sub := yamlLine.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[2])
		return sub[1] + "line " + strconv.Itoa(inputLine(n)) + ":"
	})
	msg = strings.Join(strings.Fields(msg), " ")
	switch {
	case duplicateKey(err):
		return fmt.Errorf("%w: %s; the object is ambiguous and was not checked", errDuplicateKey, msg)
	case strings.Contains(msg, "unknown anchor") && item:
		msg += " (the items of a YAML List are read one by one: an anchor elsewhere in the List, in another item or in its own members, is not seen)"
	}
	if i := templateAt(text); i >= 0 {
		msg += "; " + templateHint(inputLine(lineOf(text, i, 1)))
	}
	return fmt.Errorf("malformed YAML: %s", msg)
}

// decodeValue decodes an object (a Service, another kind, a List, a watch
// event) or, nested in a document, an array of them. event is the type of
// the watch event the object is of; "" for none.
func decodeValue(raw []byte, pos Position, containerKind, event string, limit, depth int, r *results) {
	fail := func(format string, args ...any) {
		r.add(result{err: &DecodeError{Position: pos, Err: fmt.Errorf(format, args...)}})
	}
	switch {
	case depth > maxNesting:
		fail("Lists and watch events nested too deep; skipped")
		return
	case kindOf(raw) == '[':
		decodeElements(raw, pos, listKind(containerKind), limit, depth+1, r)
		return
	case kindOf(raw) != '{':
		r.add(result{err: &DecodeError{Position: pos, Err: errNotObject}})
		return
	}
	var w wire
	if err := unmarshalWire(raw, &w); err != nil {
		de, p := objectError(raw, pos, err)
		ownKind, ownAPIVersion := de.Object.Kind, unquote(p.APIVersion) // objectError unquoted the kind
		kind, apiVersion := resolveKind(ownKind, ownAPIVersion, containerKind)
		if !errors.As(err, new(*json.SemanticError)) || isCoreService(kind, apiVersion) || p.Items != nil ||
			isEvent(ownKind, p.Type != nil || p.Object != nil, containerKind) ||
			kindOf(p.Kind) != 0 && kindOf(p.Kind) != '"' && kindOf(p.Kind) != 'n' { // a kind that cannot be read
			r.add(result{err: de})
			return
		}
		// json reports the first problem only: a name given twice, or
		// invalid UTF-8, after a value of the wrong type is still there.
		if _, err := jsontext.NewDecoder(bytes.NewReader(raw)).ReadValue(); err != nil {
			de, _ = objectError(raw, pos, err)
			r.add(result{err: de})
			return
		}
		// Another kind, not a List or a watch event, that does not fit a
		// Service's fields: skipped, as other kinds are.
		w = wire{Kind: ownKind, APIVersion: ownAPIVersion}
		w.Metadata.Name, w.Metadata.Namespace, w.Metadata.ResourceVersion = de.Object.Name, de.Object.Namespace, de.Object.ResourceVersion
	}
	if w.Kind == "" && containerKind == "List" && w.Items.v == nil {
		item := pos // not pos itself, which would escape on every call
		r.kindless = &item
		defer func() { r.kindless = nil }()
	}
	switch {
	case w.Items.v != nil: // a List; a ServiceList's items carry no kind
		decodeElements(w.Items.v, at(pos, raw, w.Items.off), listKind(w.Kind), limit, depth+1, r)
		return
	case isEvent(w.Kind, w.Type != "" || w.Object.v != nil, containerKind):
		decodeEvent(raw, pos, &w, limit, depth, r)
		return
	case len(raw) > limit: // YAML grown by its aliases
		r.add(result{err: tooBig(pos, limit)})
		return
	}
	kind, apiVersion := resolveKind(w.Kind, w.APIVersion, containerKind)
	m := &w.Metadata
	obj := Object{Position: pos, Kind: kind, APIVersion: apiVersion, Deleted: event == "DELETED", Added: event == "ADDED",
		Ref: ObjectRef{Kind: kind, Namespace: m.Namespace, Name: m.Name, ResourceVersion: m.ResourceVersion}}
	if isCoreService(kind, apiVersion) {
		obj.Service = &v1.Service{TypeMeta: metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
			ObjectMeta: m.ObjectMeta, Spec: w.Spec.ServiceSpec, Status: w.Status}
	}
	r.add(result{obj: obj})
}

// unmarshalWire decodes raw into w. A name given twice or invalid UTF-8 in
// an item of a List costs that item alone, as when the List is read item by
// item: the List's own members are then decoded with the items blanked out
// (lines and offsets kept), and its items are left to decodeElements.
func unmarshalWire(raw []byte, w *wire) error {
	err := json.Unmarshal(raw, w, unmarshalOptions)
	var syn *jsontext.SyntacticError
	if !errors.As(err, &syn) {
		return err
	}
	if p := strings.Split(string(syn.JSONPointer), "/"); len(p) < 3 || p[1] != "items" || strings.Trim(p[2], "0123456789") != "" {
		return err
	}
	var l wire
	if json.Unmarshal(raw, &l, lenient...) != nil || kindOf(l.Items.v) != '[' {
		return err
	}
	blank := bytes.Clone(raw)
	start := l.Items.off + int64(leadingDelims(raw[l.Items.off:]))
	for i := start + 1; i < start+int64(len(l.Items.v))-1; i++ {
		if blank[i] != '\n' {
			blank[i] = ' '
		}
	}
	*w = wire{}
	if err := json.Unmarshal(blank, w, unmarshalOptions); err != nil {
		return err
	}
	w.Items = l.Items
	return nil
}

// decodeEvent decodes a watch event, its members in any order.
func decodeEvent(raw []byte, pos Position, w *wire, limit, depth int, r *results) {
	de := &DecodeError{Position: pos}
	switch w.Type {
	case "ADDED", "MODIFIED", "DELETED":
		objPos := nest(at(pos, raw, w.Object.off), "object")
		switch kindOf(w.Object.v) {
		case '{':
			decodeValue(w.Object.v, objPos, "WatchEvent", w.Type, limit, depth+1, r)
			return
		case 0:
			de.Err = fmt.Errorf("watch event %s without an object", w.Type)
		default: // null, or an array, which would be read as a List's items
			de.Position, de.Err = objPos, errNotObject
		}
	case "BOOKMARK": // a resourceVersion, not an observation
		return
	case "ERROR":
		var st struct { // kept raw: read whatever type the Status's other members have
			Message jsontext.Value `json:"message"`
			Reason  jsontext.Value `json:"reason"`
		}
		_ = json.Unmarshal(w.Object.v, &st, unmarshalOptions)
		de.Err = fmt.Errorf("watch event ERROR: %s", cmp.Or(unquote(st.Message), unquote(st.Reason), "no message"))
	case "":
		de.Err = errors.New("watch event without a type")
	default:
		de.Field, de.Err = "type", fmt.Errorf("unknown watch event type %q", w.Type)
	}
	r.add(result{err: de})
}

// isEvent reports whether an object is a watch event: one of kind
// WatchEvent, or one with a type or an object member and no kind. Objects
// of other kinds have a type of their own (a Secret's, an Event's), and so
// do the kindless items of their Lists (a SecretList's).
func isEvent(kind string, typeOrObject bool, containerKind string) bool {
	return kind == "WatchEvent" || typeOrObject && kind == "" && untyped(containerKind)
}

// untyped reports whether the kindless items of a List of this kind are
// read as those of a List: Services, or watch events. A Service has no type
// or object member, so a ServiceList's are; and a List read item by item,
// whose kind may follow its items, reads them so before it (checkMembers).
func untyped(containerKind string) bool {
	return slices.Contains([]string{"", "List", "ServiceList", "WatchEvent"}, containerKind)
}

// decodeElements decodes the elements of an array at pos, in an object
// already read whole: the items of a List, or an array nested in a document
// or at the top of a YAML one, whose elements are items too. Each is
// decoded as it is read, and its line counted from the one before it: a
// List of a million items is neither held as a million values nor has its
// lines counted a million times.
func decodeElements(raw []byte, pos Position, containerKind string, limit, depth int, r *results) {
	if kindOf(raw) == 'n' {
		return
	}
	// Read in place: each value, valid until the next is read, is not kept.
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), jsonOptions...)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		r.add(result{err: &DecodeError{Position: pos, Field: "items", Err: errNotArray}})
		return
	}
	var prev int64 // the offset in raw that pos is at
	for i := 0; dec.PeekKind() != ']' && !r.stopped; i++ {
		start := dec.InputOffset()
		start += int64(leadingDelims(raw[start:]))
		v, err := dec.ReadValue()
		if err != nil { // not expected: raw was read whole before
			de, _ := objectError(raw, pos, err)
			r.add(result{err: de})
			return
		}
		pos, prev = at(pos, raw[prev:], start-prev), start
		decodeValue(v, nest(pos, "items["+strconv.Itoa(i)+"]"), containerKind, "", limit, depth, r)
	}
}

// checkMembers returns what is wrong with the members of a List read item
// by item, raw, decoded as they would be were the List read whole; its
// items were read as those of a List of kind itemsKind.
func checkMembers(raw []byte, pos Position, itemsKind string) *DecodeError {
	var w wire
	if err := json.Unmarshal(raw, &w, unmarshalOptions); err != nil {
		de, _ := objectError(raw, pos, err)
		de.Err = fmt.Errorf("the List's own members: %w", de.Err)
		return de
	}
	if k := kindOf(w.Items.v); k != '[' && k != 'n' && k != 0 { // a YAML "items:" whose value is on the next line
		return &DecodeError{Position: pos, Field: "items", Err: errNotArray}
	}
	if !untyped(w.Kind) && itemsKind == "" { // as in a sorted List (jq -S)
		return &DecodeError{Position: pos, Field: "kind", Err: fmt.Errorf("the List's kind %q follows its items, which were read before it: %w", w.Kind, errKindless)}
	}
	return nil
}

// errKindless is a problem only after an item without a kind of its own
// (see Decoder.NextContext): items that carry theirs mean the same either way.
var errKindless = errors.New("those without a kind of their own were read as a List's, as Services or watch events")

// objectError turns an error decoding raw into a DecodeError naming the
// object, the member and the byte; it also returns the object's metadata.
func objectError(raw []byte, pos Position, err error) (*DecodeError, *probe) {
	p := probeOf(raw)
	de := &DecodeError{Position: pos, Object: p.ref()}
	de.Object.ResourceVersion = unquote(p.Metadata.ResourceVersion)
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		de.Position, de.Field, de.pointer = at(pos, raw, syn.ByteOffset), fieldPath(syn.JSONPointer), syn.JSONPointer
		de.Err = fmt.Errorf("malformed JSON: %s", trimJSONError(syn.Err))
		if errors.Is(err, jsontext.ErrDuplicateName) {
			de.Err = fmt.Errorf("duplicate member name %q: the object is ambiguous and was not checked", syn.JSONPointer.LastToken())
		}
	case errors.As(err, &sem):
		de.Position, de.Field, de.pointer = at(pos, raw, sem.ByteOffset), fieldPath(sem.JSONPointer), sem.JSONPointer
		de.Err = &wrongType{sem: sem}
	default:
		de.Err = errors.New(trimJSONError(err))
	}
	return de, p
}

// refOf names the object of a YAML document's JSON, or of the item of a
// List cut from its text (the JSON then is {"items":[ITEM]}), whatever the
// types of its members; the zero ObjectRef when it names none.
func refOf(raw []byte, cut bool) ObjectRef {
	if cut {
		var l struct {
			Items []jsontext.Value `json:"items"`
		}
		if json.Unmarshal(raw, &l, lenient...) != nil || len(l.Items) != 1 {
			return ObjectRef{}
		}
		raw = l.Items[0]
	}
	return probeOf(raw).ref()
}

// lenient reads what does not decode as far as it names anything: names
// given twice and bytes that are not UTF-8 are let through.
var lenient = []json.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), unmarshalOptions}

// probeOf is the probe of raw, read leniently.
func probeOf(raw []byte) *probe {
	var p probe
	_ = json.Unmarshal(raw, &p, lenient...)
	return &p
}

// ref names the object p probed, without its resourceVersion.
func (p *probe) ref() ObjectRef {
	return ObjectRef{Kind: unquote(p.Kind), Namespace: unquote(p.Metadata.Namespace), Name: unquote(p.Metadata.Name)}
}

// probe is what names an object that does not decode, and says whether it
// is a List or a watch event, whatever the types of its members: each is
// kept raw.
type probe struct {
	Items      jsontext.Value `json:"items"`
	Type       jsontext.Value `json:"type"`
	Object     jsontext.Value `json:"object"`
	Kind       jsontext.Value `json:"kind"`
	APIVersion jsontext.Value `json:"apiVersion"`
	Metadata   struct {
		Name            jsontext.Value `json:"name"`
		Namespace       jsontext.Value `json:"namespace"`
		ResourceVersion jsontext.Value `json:"resourceVersion"`
	} `json:"metadata"`
}

// unquote returns the string v holds, or "" when v is not a JSON string.
// Invalid UTF-8 is kept, not turned into U+FFFD, so that Escape shows the
// bytes: "a\xff" and "a\xfe" name two objects, and must look apart.
func unquote(v jsontext.Value) string {
	if kindOf(v) != '"' {
		return ""
	}
	s, err := jsontext.AppendUnquote(nil, v)
	if err == nil || utf8.Valid(v) {
		return string(s)
	}
	s = s[:0]
	for in := v[1 : len(v)-1]; len(in) > 0; {
		n := validPrefix(in) // unquoted alone: escapes hold no invalid byte
		s, _ = jsontext.AppendUnquote(s, append(append([]byte{'"'}, in[:n]...), '"'))
		if n < len(in) {
			s, n = append(s, in[n]), n+1
		}
		in = in[n:]
	}
	return string(s)
}

// validPrefix returns the length of the longest prefix of b that is UTF-8.
func validPrefix(b []byte) int {
	n := 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		n += size
	}
	return n
}

// jsonKinds name the JSON kinds that jsontext.Kind names by a character.
var jsonKinds = map[jsontext.Kind]string{'{': "object", '[': "array", 't': "boolean", 'f': "boolean"}

// kindName names a JSON kind: "string", "number", "boolean", "null", ...
func kindName(k jsontext.Kind) string { return cmp.Or(jsonKinds[k], k.String()) }

// typeNames name kinds of Go types as a manifest author thinks of them.
var typeNames = map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "a boolean", reflect.Int32: "an integer",
	reflect.Int64: "an integer", reflect.Slice: "a list", reflect.Map: "an object", reflect.Struct: "an object"}

func typeName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil:
		return "another type"
	case t == reflect.TypeFor[metav1.Time]():
		return "a time (RFC 3339)"
	case typeNames[t.Kind()] != "":
		return typeNames[t.Kind()]
	}
	return "a " + t.Name()
}

// fieldPath turns a JSON pointer into the path a finding names:
// "/status/conditions/0/type" is "status.conditions[0].type".
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			tok = "[" + tok + "]"
		} else if b.Len() > 0 {
			tok = "." + tok
		}
		b.WriteString(tok)
	}
	return b.String()
}

// resolveKind returns an object's kind: its own or, for an item of a
// ServiceList or a watch event's object (which carry none), what its
// container says. A List's kind may follow its items (kubectl sorts
// members), so a List of unknown kind counts as one of Services.
func resolveKind(kind, apiVersion, containerKind string) (string, string) {
	switch {
	case kind != "" || containerKind == "":
		return kind, apiVersion
	case containerKind == "List" || containerKind == "ServiceList" || containerKind == "WatchEvent":
		return "Service", "v1"
	}
	return strings.TrimSuffix(containerKind, "List"), apiVersion
}

// listKind is the container kind of a List's items: the List's own kind,
// or "List" when it has none (yet).
func listKind(kind string) string { return cmp.Or(kind, "List") }

func isCoreService(kind, apiVersion string) bool {
	return kind == "Service" && (apiVersion == "v1" || apiVersion == "")
}

// nest appends item to pos's Item.
func nest(pos Position, item string) Position {
	if pos.Item != "" {
		item = pos.Item + "." + item
	}
	pos.Item = item
	return pos
}

// at returns the position of the value at byte off of raw, which is at pos.
func at(pos Position, raw []byte, off int64) Position {
	if pos.Offset < 0 || off < 0 || off > int64(len(raw)) {
		return pos
	}
	off += int64(leadingDelims(raw[off:]))
	pos.Line += newlines(raw[:off])
	pos.Offset += off
	return pos
}

// newlines counts the line breaks in b: LF, CRLF, and a CR alone, which
// YAML and editors take for one too.
func newlines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if cr := bytes.Count(b, []byte{'\r'}); cr > 0 { // rare: spare JSON's hot path a third pass
		n += cr - bytes.Count(b, []byte("\r\n"))
	}
	return n
}

// leadingDelims counts the white space, commas and colons before a value.
func leadingDelims(b []byte) int { return len(b) - len(bytes.TrimLeft(b, " \t\r\n,:")) }

// kindOf returns the first byte of a JSON value.
func kindOf(raw []byte) byte {
	if i := leadingDelims(raw); i < len(raw) {
		return raw[i]
	}
	return 0
}

// trimJSONError drops the package prefix of a json error.
func trimJSONError(err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "jsontext: "), "json: ")
}
