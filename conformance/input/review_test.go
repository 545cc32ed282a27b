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
	"math"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A name given twice, or invalid UTF-8, in one item of a JSON List makes
// that item unreadable, not the List: the List's other Services are read
// the same whether it is read whole or item by item (over the limit), as
// when an item has a member of the wrong type; and an array nested in a
// document is an array even when one of its elements is unreadable.
func TestRead_UnreadableItemCostsTheItemAlone(t *testing.T) {
	for name, tc := range map[string]struct{ in, item string }{
		"name twice":   {`{"kind":"List","items":[` + svcJSON("a") + `,{"kind":"Service","metadata":{"name":"b","n\u0061me":"c"}},` + svcJSON("d") + `]}`, "items[1]"},
		"invalid utf8": {`{"kind":"List","items":[` + svcJSON("a") + `,{"kind":"Service","metadata":{"name":"b` + "\xff" + `"}},` + svcJSON("d") + `]}`, "items[1]"},
		"nested array": {`[[` + svcJSON("a") + `,{"kind":"Service","metadata":{"name":"b","name":"c"}},` + svcJSON("d") + `]]`, "items[0].items[1]"},
	} {
		for _, limit := range []int{DefaultMaxObjectBytes, 200} { // read whole, and item by item
			if name == "nested array" && limit == 200 {
				continue // an array in an array over the limit is skipped whole
			}
			objs, errs := decodeAll(t, strings.NewReader(tc.in), MaxObjectBytes(limit))
			if names(objs) != "a,d" || len(errs) != 1 || errs[0].Position.Item != tc.item {
				t.Errorf("%s, limit %d: objects %q, errors %v; want a,d and one error at %s", name, limit, names(objs), errs, tc.item)
			}
		}
	}
}

// A key given twice in one item of a YAML List makes that item unreadable,
// as a name given twice does in JSON; the item has parsed, so where the
// next one starts is known, and the later items are read.
func TestRead_YAMLItemWithKeyTwice(t *testing.T) {
	in := "kind: List\nitems:\n- metadata: {name: a}\n- metadata:\n    name: b\n    name: c\n- metadata: {name: d}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,d" || len(errs) != 1 || errs[0].Position.Item != "items[1]" || errs[0].Position.Line != 4 ||
		!strings.Contains(errs[0].Error(), `line 6: key "name" already set in map`) || strings.Contains(errs[0].Error(), "the rest of the List") {
		t.Errorf("objects %q, errors %v; want a,d and one error at items[1], line 4, naming line 6", names(objs), errs)
	}
}

// "items" given twice makes a List unreadable, also when the first is not
// an array and the List is too large to read whole: none of the second's
// items is handed out, as when the List is read whole.
func TestRead_StreamedListItemsTwiceFirstNotAnArray(t *testing.T) {
	items := strings.Repeat(svcJSON("x")+",", 20) + svcJSON("last")
	for _, first := range []string{"null", "{}", `"x"`} {
		in := `{"kind":"List","items":` + first + `,"items":[` + items + `]}`
		for _, limit := range []int{1024, DefaultMaxObjectBytes} { // streamed, and read whole
			objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
			if len(objs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), `duplicate member name "items"`) {
				t.Errorf("items %s first, limit %d: objects %q, errors %v; want none and one about items given twice", first, limit, names(objs), errs)
			}
		}
	}
}

// kubectl prints a string holding a line or paragraph separator (U+2028,
// U+2029) with the separator as a line break; YAML keeps it in the
// string, and so does the reader: the Service is read as from its JSON,
// whatever the read buffer, and the separator still cuts the lines that
// YAML cuts there.
func TestRead_YAMLLineSeparatorsKeptInStrings(t *testing.T) {
	const msg = "quota exceeded\u2028retrying\u2029in 5m"
	list := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","annotations":{"note":"` + msg + `"}},` +
		`"status":{"conditions":[{"type":"LoadBalancerServing","status":"False","reason":"Infrastructure","message":"` + msg + `","lastTransitionTime":"2024-01-01T00:00:00Z"}]}},` + svcJSON("b") + `]}`
	y, err := yaml.JSONToYAML([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "\u2028") {
		t.Fatalf("the YAML does not hold the separator:\n%s", y)
	}
	want, wantErrs := readAll(t, bytes.NewReader([]byte(list)))
	in := string(y) + "\u2029---\u2028" + svcYAML("c")
	for _, rb := range []int{0, 16, 17} {
		got, errs := readAll(t, bytes.NewReader([]byte(in)), readBuffer(rb))
		if len(errs) != 0 || len(wantErrs) != 0 || len(got) != 3 || !slices.Equal(got[:2], want) || !strings.Contains(got[0], `retrying\u2029in`) {
			t.Errorf("read buffer %d: objects\n%s\nerrors %v; want\n%s\nand c", rb, strings.Join(got, "\n"), errs, strings.Join(want, "\n"))
		}
	}
}

// An alias in an item of a YAML List of an anchor in the List's own
// members is an input error that says where such an anchor is not seen:
// not only in another item.
func TestRead_YAMLListAnchorInTheMembers(t *testing.T) {
	in := "kind: List\nmetadata: &m {name: x}\nitems:\n- kind: Service\n  metadata: *m\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(objs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "in its own members") {
		t.Errorf("objects %q, errors %v; want one error saying an anchor in the List's own members is not seen", names(objs), errs)
	}
}

// Two keys of a YAML mapping of different types that JSON names alike (1
// and "1", true and "true", 1.0 and "1") are a name given twice: kubectl
// keeps one of them, which one by chance, so that the same input could be
// read one way or another. The object is an input error, whatever the
// keys' values, and the List's later items are read; keys that JSON names
// apart, quoted numbers among them, are no problem.
func TestRead_YAMLKeysOfDifferentTypesWithOneName(t *testing.T) {
	item := func(name, annotations string) string {
		return "- kind: Service\n  apiVersion: v1\n  metadata:\n    name: " + name + "\n    annotations: " + annotations + "\n"
	}
	for _, keys := range []string{`{"1": v, 1: w}`, `{"true": v, true: "w"}`, `{yes: v, "true": w}`, `{1.0: v, "1": w}`, `{0x10: v, "16": w}`} {
		in := "kind: List\nitems:\n" + item("a", `{"8080": v, "true1": w, a: "1"}`) + item("b", keys) + item("c", "{}")
		for range 20 { // which key kubectl keeps is by chance
			objs, errs := decodeAll(t, strings.NewReader(in))
			if names(objs) != "a,c" || len(errs) != 1 || errs[0].Position.Item != "items[1]" || !strings.Contains(errs[0].Error(), "ambiguous") {
				t.Fatalf("annotations %s: objects %q, errors %v; want a,c and one error at items[1]", keys, names(objs), errs)
			}
		}
	}
}

// kubectl prints a string that ends with a line or paragraph separator
// single-quoted, its closing quote at column 0 of the line after the
// separator ('quota exceeded<LS>'), which YAML reads: in a List, that line
// does not end the items, and the items after it are read.
func TestRead_YAMLListQuoteClosedAfterASeparator(t *testing.T) {
	for _, sep := range []string{"\u2028", "\u2029"} {
		list := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},` +
			`"status":{"conditions":[{"type":"LoadBalancerServing","status":"False","reason":"Infrastructure","message":"quota exceeded` + sep + `","lastTransitionTime":"2024-01-01T00:00:00Z"}]}},` + svcJSON("b") + `]}`
		y, err := yaml.JSONToYAML([]byte(list))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(y), sep+"'\n") {
			t.Fatalf("the YAML does not close the quote after the separator:\n%q", y)
		}
		want, _ := readAll(t, bytes.NewReader([]byte(list)))
		got, errs := readAll(t, bytes.NewReader(y))
		if len(errs) != 0 || !slices.Equal(got, want) {
			t.Errorf("%q: objects\n%s\nerrors %v; want\n%s", sep, strings.Join(got, "\n"), errs, strings.Join(want, "\n"))
		}
	}
}

// A value that goes on after an LS or a PS, which break the line for
// YAML, is read as YAML reads it: the same quote closed at column 0,
// double-quoted, as a hand or another emitter may write it; and the rest of
// a flow mapping after a double-quoted value holding one, at column 0. The
// items after it are read, not dropped behind an item cut where it does
// not parse.
func TestRead_YAMLListValueGoesOnAfterASeparator(t *testing.T) {
	for _, sep := range []string{"\u2028", "\u2029"} {
		for _, in := range []string{
			"kind: List\nitems:\n- kind: Service\n  metadata:\n    name: a\n    annotations:\n      note: \"quota exceeded" + sep + "\"\n- kind: Service\n  metadata:\n    name: b\n",
			"kind: List\nitems:\n- kind: Service\n  metadata: {name: a, annotations: {note: \"quota" + sep + "exceeded\"}}\n- kind: Service\n  metadata: {name: b}\n",
		} {
			whole, err := yaml.YAMLToJSONStrict([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := readAll(t, bytes.NewReader(whole))
			got, errs := readAll(t, bytes.NewReader([]byte(in)))
			if len(errs) != 0 || len(want) != 2 || !slices.Equal(got, want) {
				t.Errorf("%q: objects\n%s\nerrors %v; want\n%s", in, strings.Join(got, "\n"), errs, strings.Join(want, "\n"))
			}
		}
	}
}

// A limit as large as an int can be, as one may give to mean none, reads
// what any large limit reads: the limit added to an offset must not wrap
// around.
func TestRead_LargestLimit(t *testing.T) {
	in := svcJSON("a") + "\n" + `{"type":"ADDED","object":` + svcJSON("b") + "}\n" + svcYAML("c")
	for _, limit := range []int{math.MaxInt, math.MaxInt - 100} {
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
		if names(objs) != "a,b" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "malformed JSON") {
			t.Errorf("limit %d: objects %q, errors %v; want a,b and the YAML after them refused", limit, names(objs), errs)
		}
	}
}
