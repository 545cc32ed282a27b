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
	"fmt"
	"strings"
	"testing"
)

// An object whose name holds invalid UTF-8 is an input error that names
// it with the bytes it holds, escaped, next to what its escapes spell:
// not with U+FFFD, which would make two such objects look alike.
func TestRead_InvalidUTF8InANameIsShownAsItsBytes(t *testing.T) {
	in := `{"kind":"Service","apiVersion":"v1","metadata":{"name":"\u0061` + "\xff" + `"}}` + "\n" +
		`{"kind":"Service","apiVersion":"v1","metadata":{"name":"\u0061` + "\xfe" + `","namespace":"caf\u00e9` + "\xc3" + `"}}`
	_, errs := decodeAll(t, strings.NewReader(in))
	want := []struct{ ref, text string }{{"a\xff", `a\xff: metadata.name: `}, {"caf\u00e9\xc3/a\xfe", `café\xc3/a\xfe: metadata.name: `}}
	if len(errs) != len(want) {
		t.Fatalf("errors %v; want %d", errs, len(want))
	}
	for i, w := range want {
		if ref := errs[i].Object.Namespace + "/" + errs[i].Object.Name; strings.TrimPrefix(ref, "/") != w.ref || !strings.Contains(errs[i].Error(), w.text) {
			t.Errorf("error %d: object %q, %q; want %q and the text %q", i, ref, errs[i].Error(), w.ref, w.text)
		}
	}
}

// A CR alone ends a line in JSON as it does in YAML (and in editors): the
// lines of a file saved with CR line endings are counted, whether a List
// is read whole or item by item, and so is the line of a malformed value.
func TestRead_JSONLinesEndedByCR(t *testing.T) {
	in := `{"kind":"List","items":[` + "\r" + svcJSON("a") + ",\r\r" + svcJSON("b") + "]}\r" + svcJSON("c") + "\r\n" +
		`{"kind":"Service","apiVersion":"v1",` + "\r" + `"metadata":{"name":5}}` + "\r" + `{"kind":"Service",` + "\r\r" + `x`
	for _, limit := range []int{DefaultMaxObjectBytes, 200} { // read whole, and item by item
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
		var lines []int
		for _, o := range objs {
			lines = append(lines, o.Position.Line)
		}
		for _, e := range errs {
			lines = append(lines, e.Position.Line)
		}
		if fmt.Sprint(lines) != "[2 4 5 7 10]" {
			t.Errorf("limit %d: objects %q at lines %v, errors %v; want a, b, c at lines 2, 4, 5 and errors at lines 7 and 10", limit, names(objs), lines, errs)
		}
	}
}

// A YAML directive ("%YAML 1.1") is for the document that the next "---"
// starts, at the top of the input or after a "...": that document is read,
// under the directive, and nothing is reported. One inside a document ends
// it for the parser, which would not read what follows: that is an input
// error, not silently dropped.
func TestRead_YAMLDirectives(t *testing.T) {
	for _, tc := range []struct{ name, in, objs, errLines string }{
		{"top", "%YAML 1.1\n# a comment\n--- # a\n" + svcYAML("a"), "a", ""},
		{"after end", svcYAML("a") + "...\n%YAML 1.1\n%TAG !k! tag:lbstatus.io,2026:\n---\n" + strings.Replace(svcYAML("b"), "name: b", "name: !k!name b", 1), "a,b", ""},
		{"1.2", "%YAML 1.2\n---\n" + svcYAML("a") + "---\n" + svcYAML("b"), "b", "1"},
		{"inside", svcYAML("a") + "%YAML 1.1\nspec: {type: ClusterIP}\n---\n" + svcYAML("b"), "a,b", "8"},
		{"inside a List", "kind: List\nitems:\n- " + strings.ReplaceAll(svcYAML("a"), "\n", "\n  ") + "\n%YAML 1.1\n- kind: Service\n---\n" + svcYAML("b"), "a,b", "11"},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in))
		var lines []string
		for _, e := range errs {
			lines = append(lines, fmt.Sprint(e.Position.Line))
		}
		if names(objs) != tc.objs || strings.Join(lines, ",") != tc.errLines {
			t.Errorf("%s: objects %q, errors %v; want %s and errors at lines %q", tc.name, names(objs), errs, tc.objs, tc.errLines)
		}
	}
}

// A YAML List whose items are not entries below "items:" but a flow
// sequence on the next line, or one given a tag there, is a List: read
// whole, as "items: [...]" is, and not refused as not a list. A value that
// is not a sequence is still refused.
func TestRead_YAMLListItemsOnTheNextLine(t *testing.T) {
	flow := "[ " + svcJSON("a") + ",\n    " + svcJSON("b") + " ]"
	for _, tc := range []struct{ name, in, objs, errs string }{
		{"flow", "kind: List\nitems:\n  " + flow + "\nmetadata: {resourceVersion: \"1\"}\n", "a,b", ""},
		{"empty", "kind: List\nitems:\n  []\n", "", ""},
		{"tagged", "kind: List\nitems:\n  !!seq\n- " + svcJSON("a") + "\n", "a", ""},
		{"not a sequence", "kind: List\nitems:\n  a: 1\n", "", "items: not a JSON array"},
	} {
		for _, limit := range []int{DefaultMaxObjectBytes, 80} {
			objs, errs := decodeAll(t, strings.NewReader(tc.in), MaxObjectBytes(limit))
			want, wantErrs := tc.objs, tc.errs
			if limit == 80 && tc.objs != "" {
				want, wantErrs = "", "larger than the limit" // read whole: over the limit
			}
			errOK := len(errs) == 0 && wantErrs == "" || len(errs) == 1 && wantErrs != "" && strings.Contains(errs[0].Error(), wantErrs)
			if names(objs) != want || !errOK {
				t.Errorf("%s, limit %d: objects %q, errors %v; want %q and %q", tc.name, limit, names(objs), errs, want, wantErrs)
			}
		}
	}
}

// Bytes that are not UTF-8 in one item of a YAML List (a file saved in
// Latin-1) cost that item alone, as in JSON: the item parses but for them,
// so where the next one starts is known. The problem says which byte and
// on what line, which the YAML parser does not.
func TestRead_YAMLItemNotUTF8(t *testing.T) {
	item := func(name, annotations string) string {
		return "- kind: Service\n  apiVersion: v1\n  metadata:\n    name: " + name + "\n    annotations: " + annotations + "\n"
	}
	in := "kind: List\nitems:\n" + item("a", "{}") + item("b", "{note: caf\xe9}") + item("c", "{}") +
		"---\n" + svcYAML("d") + "  note: caf\xe9\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,c" || len(errs) != 2 ||
		!strings.HasSuffix(errs[0].Error(), "items[1]): malformed YAML: invalid UTF-8 (byte 0xe9) at line 12") ||
		!strings.HasSuffix(errs[1].Error(), "(document 2): malformed YAML: invalid UTF-8 (byte 0xe9) at line 26") {
		t.Errorf("objects %q, errors %v; want a,c and errors naming byte 0xe9 at lines 12 and 26", names(objs), errs)
	}
}

// Files saved with a byte order mark and concatenated ("cat *.yaml") have
// one before the "---" or "..." of each: YAML allows one at the start of
// any document, and the marker is still a marker.
func TestRead_YAMLByteOrderMarkBeforeAMarker(t *testing.T) {
	const bom = "\uFEFF"
	in := bom + svcYAML("a") + bom + "---\n" + svcYAML("b") + bom + "...\n" + bom + "--- # c\nkind: List\nitems:\n- " + svcJSON("c") + "\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,b,c" || len(errs) != 0 || objs[2].Position.Line != 20 {
		t.Errorf("objects %q, errors %v; want a, b and c, at line 20", names(objs), errs)
	}
}

// A name given twice makes an object unreadable before its kind is
// decided, also when a value of the wrong type comes first: such an
// object was taken for one of another kind, by its last "kind", and
// skipped. The same holds for invalid UTF-8; an object of another kind
// whose values do not fit a Service's fields is still skipped.
func TestRead_NameTwiceAfterAValueOfTheWrongType(t *testing.T) {
	in := `{"spec":{"ports":"x"},"kind":"Service","apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"}}` + "\n" +
		`{"kind":"Foo","apiVersion":"x/v1","metadata":{"name":5},"spec":{"a":1,"a":2}}` + "\n" +
		`{"kind":"Foo","apiVersion":"x/v1","metadata":{"name":5,"namespace":"a` + "\xff" + `"}}` + "\n" +
		`{"kind":"Foo","apiVersion":"x/v1","metadata":{"name":"f"},"spec":{"ports":"x"}}`
	objs, errs := decodeAll(t, strings.NewReader(in))
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	if names(objs) != "Foo:f" || strings.Join(fields, ",") != "kind,spec.a,metadata.namespace" ||
		!strings.Contains(errs[0].Error(), `duplicate member name "kind"`) || !strings.Contains(errs[2].Error(), "invalid UTF-8") {
		t.Errorf("objects %q, errors %v; want Foo:f and errors about kind and spec.a given twice and invalid UTF-8", names(objs), errs)
	}
}

// An ERROR watch event names its Status's message, also when another
// member of the Status has a value of the wrong type.
func TestRead_ErrorEventMessageBesideAValueOfTheWrongType(t *testing.T) {
	in := `{"type":"ERROR","object":{"kind":"Status","code":"410","message":"too old resource version"}}` + "\n" +
		`{"type":"ERROR","object":{"kind":"Status","reason":"Expired","details":[]}}`
	_, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 2 || !strings.HasSuffix(errs[0].Error(), "watch event ERROR: too old resource version") ||
		!strings.HasSuffix(errs[1].Error(), "watch event ERROR: Expired") {
		t.Errorf("errors %v; want the message of the first and the reason of the second", errs)
	}
}

// A member of a List before its items that does not decode (a number for
// a string) makes the List unreadable before any item is handed out: in
// YAML as in JSON, read whole or token by token. It is reported once.
func TestRead_ListMemberOfTheWrongTypeBeforeTheItems(t *testing.T) {
	items := strings.Repeat(svcJSON("x")+",", 10) + svcJSON("last")
	for name, tc := range map[string]struct {
		in    string
		limit int
	}{
		"yaml":          {"apiVersion: v1\nkind: List\nmetadata: {resourceVersion: 5}\nitems:\n- " + svcJSON("a") + "\n- " + svcJSON("b") + "\n", 0},
		"yaml kind":     {"kind: [List]\nitems:\n- " + svcJSON("a") + "\n", 0},
		"json":          {`{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":5},"items":[` + items + `]}`, 0},
		"json streamed": {`{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":5},"items":[` + items + `]}`, 1024},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in), MaxObjectBytes(tc.limit))
		if len(objs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "where a string is expected") {
			t.Errorf("%s: objects %q, errors %v; want none and one error", name, names(objs), errs)
		}
	}
}

// A flow sequence on the line after a second "items:", or after members
// that do not decode, is not read: the List is reported once, and none of
// those items is handed out.
func TestRead_YAMLListItemsOnTheNextLineOfAnUnreadableList(t *testing.T) {
	for _, tc := range []struct{ name, in, objs, err string }{
		{"second items", "kind: List\nitems:\n- " + svcJSON("a") + "\nitems:\n  [" + svcJSON("b") + "]\n", "a", `duplicate key "items"`},
		{"member before", "kind: List\nmetadata: {resourceVersion: 5}\nitems:\n  [" + svcJSON("a") + "]\n", "", "where a string is expected"},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in))
		if names(objs) != tc.objs || len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err) {
			t.Errorf("%s: objects %q, errors %v; want %q and one error: %s", tc.name, names(objs), errs, tc.objs, tc.err)
		}
	}
}

// A YAML scalar that YAML reads as a boolean or a number where a string is
// expected (name: no, a version 1.10) is refused, as kube-apiserver
// refuses it; the message says to quote it, and says so for YAML only.
func TestRead_YAMLUnquotedScalarWhereAStringIsExpected(t *testing.T) {
	for _, tc := range []struct{ in, hint string }{
		{"kind: Service\napiVersion: v1\nmetadata: {name: no}\n", "unless quoted"},
		{"kind: Service\napiVersion: v1\nmetadata: {name: a, resourceVersion: 1.10}\n", "unless quoted"},
		{`{"kind":"Service","apiVersion":"v1","metadata":{"name":false}}`, ""},
		{"kind: Service\napiVersion: v1\nmetadata: {name: [a]}\n", ""}, // not a scalar: quoting does not help
	} {
		_, errs := decodeAll(t, strings.NewReader(tc.in))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "where a string is expected") {
			t.Fatalf("%q: errors %v; want one, a string expected", tc.in, errs)
		}
		if got := strings.Contains(errs[0].Error(), "unless quoted"); got != (tc.hint != "") {
			t.Errorf("%q: %q; want the hint to quote: %v", tc.in, errs[0].Error(), tc.hint != "")
		}
	}
}

// A byte order mark of UTF-32 is not taken for UTF-16's, which it starts
// with: the input is refused, and the message says why.
func TestRead_UTF32IsRefusedByName(t *testing.T) {
	for _, bom := range []string{"\xff\xfe\x00\x00", "\x00\x00\xfe\xff"} {
		_, errs := decodeAll(t, strings.NewReader(bom+"{\x00\x00\x00}\x00\x00\x00"))
		if len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "UTF-32") {
			t.Errorf("BOM %q: errors %v; want one, fatal, naming UTF-32", bom, errs)
		}
	}
}
