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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	yaml2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"

	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzYAMLListDifferential: the YAML filter cuts a List into items by
// looking at lines, not by parsing. For any one YAML document, the objects
// read item by item must be those of the document read whole, as kubectl
// reads it (sigs.k8s.io/yaml), converted to JSON and read: the same, when
// reading reports no problem; when the document read whole has none, never
// an object it does not hold (after a problem in one part of a List, the
// rest of it is not read, since where its items start cannot be told).
func FuzzYAMLListDifferential(f *testing.F) {
	var items []json.RawMessage
	files, _ := filepath.Glob("../../examples/conformant/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			f.Fatal(err)
		}
		items = append(items, j)
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]string{"resourceVersion": ""}})
	if err != nil {
		f.Fatal(err)
	}
	kubectl, err := yaml.JSONToYAML(list)
	if err != nil {
		f.Fatal(err)
	}
	seed.Add(f, "kubectl-list", kubectl)
	for name, in := range map[string]string{
		"typed-list":       "kind: ServiceList\napiVersion: v1\nitems:\n  - metadata: {name: a}\n    spec: {type: LoadBalancer}\n  # a comment\n  - metadata:\n      name: b\n",
		"quoted-across":    "kind: List\nitems:\n- metadata:\n    name: a\n    annotations: {x: \"\n- metadata: {name: b}\n  \"}\n",
		"header-quoted":    "kind: List\nmetadata:\n  annotations:\n    x: \"\nitems:\n- metadata: {name: b}\n\"\n",
		"document-end":     "kind: List\n...\nitems:\n- {metadata: {name: x}}\n",
		"flow-across":      "kind: List\nitems:\n- metadata: {name: a,\nitems: x}\n",
		"block-scalar":     "kind: List\nitems:\n- metadata:\n    name: a\n    annotations:\n      k: |\n        - x\n        items:\n- metadata: {name: b}\n",
		"kind-after-items": "apiVersion: v1\nitems:\n- kind: Service\n  metadata: {name: a}\nkind: List\nmetadata: {}\n",
		"nested":           "kind: List\nitems:\n- kind: List\n  items:\n  - metadata: {name: a}\n- - metadata: {name: b}\n",
		"watch-events":     "kind: List\nitems:\n- type: ADDED\n  object: {metadata: {name: a}}\n- type: BOOKMARK\n  object: {}\n",
	} {
		seed.Add(f, name, []byte(in))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 || bytes.IndexByte(data, 0) >= 0 || !isYAML(data) || separator.Match(data) {
			return // not one YAML document
		}
		// Whole, as kubectl reads it, its last line ended as its document
		// reader ends every line; but that reader also drops a CR before
		// a CRLF, which YAML reads as a line break, and the reader keeps.
		doc := data
		if !bytes.HasSuffix(doc, []byte("\n")) {
			doc = append(bytes.Clone(doc), '\n')
		}
		whole, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return // a document kubectl refuses: reading it item by item may still check the good items
		}
		if yamlKindFollowsItems(data, whole) {
			return
		}
		want, wantErrs := readAll(t, bytes.NewReader(whole))
		got, gotErrs := readAll(t, bytes.NewReader(data))
		if len(gotErrs) == 0 && (len(wantErrs) != 0 || !slices.Equal(got, want)) {
			t.Fatalf("read item by item, with no problem:\n%s\nread whole:\n%s\nproblems read whole: %v", strings.Join(got, "\n"), strings.Join(want, "\n"), wantErrs)
		}
		if len(gotErrs) == 0 && readsMore(doc) {
			t.Fatalf("the YAML parser ends the document before its end, and reading it reported no problem:\n%s", strings.Join(got, "\n"))
		}
		if len(wantErrs) != 0 {
			return // read item by item, a List with a problem is read as far as it can be
		}
		subsequence(t, got, want, gotErrs)
	})
}

// readsMore reports whether the YAML parser, which reads the first
// document of what it is given, finds more after it in doc: what it
// drops, and what the reader must not drop in silence.
func readsMore(doc []byte) bool {
	d := yaml2.NewDecoder(bytes.NewReader(doc))
	var v any
	if d.Decode(&v) != nil {
		return false // a second Decode after an error panics
	}
	return d.Decode(&v) != io.EOF
}

// separator matches a line that would start another document, after any
// line break YAML knows: kubectl's reader splits documents at LFs only, and
// the YAML parser reads the first document of what it is given, so after a
// CR alone it would drop the rest, which the reader reads.
var separator = regexp.MustCompile("(?:^|[\n\r\u0085\u2028\u2029])---")

// isYAML reports whether the reader takes data for YAML in UTF-8.
func isYAML(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] != '{' && t[0] != '[' && t[0] != 0xEF && t[0] != 0xFE && t[0] != 0xFF
}

// yamlKindFollowsItems reports whether whole is a List of a kind of its
// own that its YAML text, data, may give only after the "items:" line:
// kindless items are read as Services then (see resolveKind). The text
// before that line must give the kind, parsed: the kind's name may stand
// there as something else ("i: " before "kind: i").
func yamlKindFollowsItems(data, whole []byte) bool {
	var l, b struct{ Kind string }
	_ = json.Unmarshal(whole, &l)
	before := data
	if loc := itemsLine.FindIndex(data); loc != nil {
		before = data[:loc[0]]
	}
	j, err := yaml.YAMLToJSON(before)
	return ownKind(l.Kind) && (err != nil || json.Unmarshal(j, &b) != nil || b.Kind != l.Kind)
}

// itemsLine matches an "items:" line, after any line break YAML knows.
var itemsLine = regexp.MustCompile("(?:^|[\n\r\u0085\u2028\u2029])items:")

// ownKind reports whether a List of this kind gives its kindless items a
// kind other than Service.
func ownKind(kind string) bool { return kind != "" && kind != "List" && kind != "ServiceList" }

// jsonKindFollowsItems reports whether data is a JSON List of a kind of
// its own that follows its items, by the order of its members: kindless
// items are read as Services then (see resolveKind).
func jsonKindFollowsItems(data []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	items := false
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		name := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return false
		}
		switch name {
		case "items":
			items = true
		case "kind":
			var kind string
			_ = json.Unmarshal(v, &kind)
			if items && ownKind(kind) {
				return true
			}
		}
	}
	return false
}

// subsequence fails t unless every object of got is one of want, in order.
func subsequence(t *testing.T, got, want []string, gotErrs []*DecodeError) {
	rest := want
	for _, o := range got {
		i := slices.Index(rest, o)
		if i < 0 {
			t.Fatalf("read item by item, an object the input does not hold:\n%s\nread whole:\n%s\nproblems item by item: %v", o, strings.Join(want, "\n"), gotErrs)
		}
		rest = rest[i+1:]
	}
}

// readAll reads r and returns its objects as comparable strings (not
// their positions, which differ between JSON and YAML), and its problems.
func readAll(t *testing.T, r *bytes.Reader, opts ...DecoderOption) ([]string, []*DecodeError) {
	objs, errs := decodeAll(t, r, opts...)
	var out []string
	for _, o := range objs {
		s, err := json.Marshal(o.Service)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %s deleted=%t %s", o.Kind, o.APIVersion, o.Ref, o.Deleted, s))
	}
	return out, errs
}

// FuzzJSONListDifferential: a JSON List larger than the limit is read
// token by token, its items handed out one by one. For any input, what is
// read under a limit below the input's size (a List read item by item) must
// be what is read with no limit in the way: the same, when reading reports
// no problem; when reading with no limit reports none, never an object
// that reading does not give.
func FuzzJSONListDifferential(f *testing.F) {
	seed.Add(f, "list", []byte(`{"apiVersion":"v1","items":[`+svcJSON("a")+`,`+svcJSON("b")+`],"kind":"List","metadata":{"resourceVersion":""}}`))
	seed.Add(f, "typed", []byte(`{"kind":"ServiceList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`))
	seed.Add(f, "secrets", []byte(`{"kind":"SecretList","items":[{"metadata":{"name":"s"},"type":"Opaque"}]}`))
	seed.Add(f, "nested", []byte(`{"kind":"List","items":[{"kind":"List","items":[`+svcJSON("a")+`]},{"type":"ADDED","object":`+svcJSON("b")+`}]}`))
	seed.Add(f, "twice", []byte(`{"kind":"List","items":[`+svcJSON("a")+`],"items":[`+svcJSON("b")+`]}`))
	seed.Add(f, "array-of-lists", []byte(`[{"kind":"List","items":[`+svcJSON("a")+`,`+svcJSON("b")+`]},{"kind":"List","items":[`+svcJSON("c")+`]}]`))
	seed.Add(f, "event", []byte(`{"type":"MODIFIED","object":`+svcJSON("a")+`}`))
	seed.Add(f, "bad-members", []byte(`{"kind":"List","metadata":{"name":5},"items":[`+svcJSON("a")+`,`+svcJSON("b")+`]}`))
	seed.Add(f, "kind-after-items", []byte(`{"metadata":{"name":"Foo"},"items":[{"metadata":{"name":"a"}}],"kind":"Foo","apiVersion":"v1"}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 || len(data) < 32 || isYAML(data) || jsonKindFollowsItems(data) {
			return
		}
		want, wantErrs := readAll(t, bytes.NewReader(data))
		got, gotErrs := readAll(t, bytes.NewReader(data), MaxObjectBytes(len(data)/2))
		if len(gotErrs) == 0 && (len(wantErrs) != 0 || !slices.Equal(got, want)) {
			t.Fatalf("read item by item, with no problem:\n%s\nread whole:\n%s\nproblems read whole: %v", strings.Join(got, "\n"), strings.Join(want, "\n"), wantErrs)
		}
		if len(wantErrs) == 0 {
			subsequence(t, got, want, gotErrs)
		}
	})
}
