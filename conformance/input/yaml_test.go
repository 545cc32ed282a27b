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
	"maps"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

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

// An item of a YAML List with a key given twice is named in its error
// however close it is to the size limit: it is parsed as the one entry of
// an "items:", whose few more bytes do not make it larger than the limit.
func TestRead_YAMLItemWithKeyTwiceAtTheLimitIsNamed(t *testing.T) {
	const limit = 1000
	for _, short := range []int{0, 6, 7} {
		item := "- kind: Service\n  apiVersion: v1\n  metadata: {name: web, namespace: shop}\n  spec: {}\n  spec: {}\n  pad: \n"
		item = strings.Replace(item, "pad: ", "pad: "+strings.Repeat("p", limit-short-len(item)), 1)
		in := "kind: List\nitems:\n" + item + "- {kind: Service, apiVersion: v1, metadata: {name: next}}\n"
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
		if names(objs) != "next" || len(errs) != 1 || !strings.Contains(errs[0].Error(), ": shop/web: duplicate key") {
			t.Errorf("item of %d bytes: objects %q, errors %v; want next and one error naming shop/web", len(item), names(objs), errs)
		}
	}
}

// Keys of different types with one name (1 and "1") in an item of a YAML
// List make it an input error however close its JSON is to the size
// limit: the bytes around it, as the one item of a List, do not count.
func TestRead_YAMLItemWithKeysOfDifferentTypesAtTheLimit(t *testing.T) {
	const limit = 1000
	tried := 0
	for n := 300; n < limit/2; n++ { // a quote, one byte in YAML, is two in JSON
		item := "- kind: Service\n  apiVersion: v1\n  metadata:\n    name: web\n    namespace: shop\n    annotations: {1: a, \"1\": b, pad: '" + strings.Repeat(`"`, n) + "'}\n"
		j, err := yaml.YAMLToJSON([]byte("items:\n" + item))
		if err != nil {
			t.Fatal(err)
		}
		if size := len(j) - len(`{"items":[]}`); len(item) > limit || size > limit || len(j) <= limit {
			continue
		}
		tried++
		in := "kind: List\nitems:\n" + item + "- {kind: Service, apiVersion: v1, metadata: {name: next}}\n"
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
		if names(objs) != "next" || len(errs) != 1 || !strings.Contains(errs[0].Error(), ": shop/web: duplicate key") {
			t.Errorf("item of %d bytes, %d as a List in JSON: objects %q, errors %v; want next and one error naming shop/web", len(item), len(j), names(objs), errs)
		}
	}
	if tried == 0 {
		t.Fatal("no item's JSON is within a few bytes of the limit, over it as a List")
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
	for _, keys := range []string{`{"1": v, 1: w}`, `{"true": v, true: "w"}`, `{yes: v, "true": w}`, `{1.0: v, "1": w}`, `{0x10: v, "16": w}`, `{off: v, "false": w}`} {
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
		{"not a sequence", "kind: List\nitems:\n  a: 1\n", "", "items: not a sequence"},
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

// Bytes that are not UTF-8 past where the YAML parser stops reading (after
// a scalar, whose document ends there) are found as well: whether the
// parser reads as far depends on its read-ahead, which depends on the
// line breaks.
func TestRead_YAMLNotUTF8PastTheParsersEnd(t *testing.T) {
	for _, brk := range []string{"\n", "\r\n"} {
		in := strings.ReplaceAll("0\n:\n0\xea", "\n", brk)
		_, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), "malformed YAML: invalid UTF-8 (byte 0xea) at line 3") {
			t.Errorf("line breaks %q: errors %v, want one naming byte 0xea at line 3", brk, errs)
		}
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

// A value of the wrong type in YAML is named as YAML names it: a string,
// a mapping, a sequence, not a JSON string or object, which the file does
// not hold.
func TestRead_YAMLWrongTypeNamedAsYAML(t *testing.T) {
	for in, says := range map[string]string{
		svcYAML("a") + "  ports:\n  - port: eighty\n":             "spec.ports[0].port: a string where an integer is expected",
		svcYAML("a") + "  ports: {port: 80}\n":                    "spec.ports: a mapping where a list is expected",
		"kind: Service\napiVersion: v1\nmetadata: {name: [a]}\n":  "metadata.name: a sequence where a string is expected",
		"kind: Service\napiVersion: v1\nmetadata: {name: true}\n": "metadata.name: a boolean where a string is expected",
	} {
		_, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), says) || strings.Contains(errs[0].Error(), "JSON") {
			t.Errorf("%q: errors %v; want one saying %q, and nothing of JSON", in, errs, says)
		}
	}
}

// The YAML parser ends a document's value where an indented mapping meets
// a line less indented, or where a flow collection or a quoted scalar
// closes, and reads what follows as another document: it never reads it,
// and says nothing. The Service after such a value was dropped in silence;
// now the document is an input error naming the line the value ends on,
// also after a second byte order mark (iconv keeps a UTF-8 file's own).
// A document whose value starts at column 0, as every manifest's does,
// reads as before.
func TestRead_YAMLValueEndsBeforeTheDocument(t *testing.T) {
	indented := " kind: Service\n apiVersion: v1\n metadata: {name: a, namespace: ns}\n spec: {type: LoadBalancer}\n"
	for name, in := range map[string]string{
		"indented":                     indented + svcYAML("b"),
		"flow":                         "# a Service\n" + svcJSON("a") + "\n" + svcYAML("b"),
		"flow after a byte order mark": "\uFEFF\uFEFF" + svcJSON("a") + "\n" + svcYAML("b"),
		"quoted key":                   `"kind": Service` + "\nmetadata: {name: a}\n",
		"block mapping":                svcYAML("a") + "# the end\n",
		"--- value":                    "--- " + svcJSON("a") + "\n",
	} {
		objs, errs := decodeAll(t, strings.NewReader(in))
		switch name {
		case "indented", "flow", "flow after a byte order mark":
			line := map[string]string{"indented": "line 4", "flow": "line 2", "flow after a byte order mark": "line 1"}[name]
			if len(objs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), line+`: did not find expected <document start>: the document's value ends on that line`) {
				t.Errorf("%s: objects %q, errors %v; want none, and the error saying where the value ends", name, names(objs), errs)
			}
		default:
			if len(objs) != 1 || len(errs) != 0 {
				t.Errorf("%s: objects %q, errors %v; want one object, no error", name, names(objs), errs)
			}
		}
	}
}

// A key given beside a YAML merge key ("<<: *base") overrides the merged
// one: the object means one thing, as kubectl reads it, though the strict
// parser takes the key for one given twice. It is read, in a document and
// in an item of a List. A key given twice in one mapping is still an input
// error, merge key or not, and so is a key given before a merge key that
// merges it too: YAML keeps that key, kubectl's parser the merged one.
func TestRead_YAMLMergeKeys(t *testing.T) {
	const conds = "  conditions:\n" +
		"  - &cond\n    type: LoadBalancerProvisioning\n    status: \"False\"\n    reason: Complete\n    message: done\n    lastTransitionTime: \"2026-05-04T10:00:12Z\"\n" +
		"  - <<: *cond\n    type: LoadBalancerServing\n    status: \"True\"\n    reason: Serving\n"
	doc := svcYAML("a") + "status:\n" + conds
	item := "kind: List\nitems:\n" + indent("- ", svcYAML("b")+"status:\n"+conds) + indent("- ", svcYAML("c"))
	objs, errs := decodeAll(t, strings.NewReader(doc+"---\n"+item))
	if names(objs) != "a,b,c" || len(errs) != 0 {
		t.Fatalf("objects %q, errors %v; want a,b,c", names(objs), errs)
	}
	for _, o := range objs[:2] {
		c := o.Service.Status.Conditions
		if len(c) != 2 || c[1].Type != "LoadBalancerServing" || c[1].Status != "True" || c[1].Reason != "Serving" ||
			c[1].Message != "done" || !c[1].LastTransitionTime.Equal(&c[0].LastTransitionTime) {
			t.Errorf("%s: conditions %+v; want Serving True/Serving with the merged message and time", o.Ref.Name, c)
		}
	}

	for name, bad := range map[string]string{
		"key twice beside a merge key": strings.Replace(doc, "    reason: Serving\n", "    reason: Serving\n    reason: Other\n", 1),
		"key before the merge key":     strings.Replace(doc, "  - <<: *cond\n    type: LoadBalancerServing\n", "  - type: LoadBalancerServing\n    <<: *cond\n", 1),
		"key before a merged sequence": strings.Replace(doc, "  - <<: *cond\n    type: LoadBalancerServing\n", "  - type: LoadBalancerServing\n    <<: [{kind: x}, *cond]\n", 1),
		"a second merge key":           strings.Replace(doc, "    reason: Serving\n", "    reason: Serving\n    <<: {message: other}\n", 1),
	} {
		objs, errs := decodeAll(t, strings.NewReader(bad+"---\n"+svcYAML("z")))
		if names(objs) != "z" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "already set in map") || !strings.Contains(errs[0].Error(), "ambiguous") {
			t.Errorf("%s: objects %q, errors %v; want z and the object an input error, ambiguous", name, names(objs), errs)
		}
	}
}

// A quoted "<<" is an ordinary key, beside a merge key too, as it is for
// kubectl and kube-apiserver (sigs.k8s.io/yaml): only a plain or a !!merge
// "<<" merges. A mapping with both, whose keys override merged ones, is
// read, the quoted key kept as a member, in a document and in an item.
func TestRead_YAMLQuotedMergeKeyIsAKey(t *testing.T) {
	for _, quoted := range []string{`"<<"`, `'<<'`} {
		svc := "kind: Service\napiVersion: v1\nmetadata:\n  name: a\n  labels: &l {app: web, tier: front}\n  annotations:\n    <<: *l\n    " + quoted + ": kept\n    tier: back\n"
		objs, errs := decodeAll(t, strings.NewReader(svc+"---\nkind: List\nitems:\n"+indent("- ", svc)))
		want := map[string]string{"app": "web", "tier": "back", "<<": "kept"}
		if len(objs) != 2 || len(errs) != 0 {
			t.Fatalf("%s: objects %q, errors %v; want a twice", quoted, names(objs), errs)
		}
		for _, o := range objs {
			if got := o.Service.Annotations; !maps.Equal(got, want) {
				t.Errorf("%s: annotations %q, want %q", quoted, got, want)
			}
		}
	}
}

// A List's kind merged in before its items ("<<:") yields to a kind given
// after them, as kubectl reads the List whole: its kindless items were read
// as Endpoints, and the Service the List holds was dropped in silence. They
// are now read as a List's; a merged kind that stands is then an input
// error, as a sorted List's kind after its items is.
func TestRead_YAMLListKindMergedBeforeItsItems(t *testing.T) {
	const list = "<<: {kind: EndpointsList}\napiVersion: v1\nitems:\n- metadata: {name: a}\n"
	if objs, errs := decodeAll(t, strings.NewReader(list+"kind: List\n")); names(objs) != "a" || len(errs) != 0 {
		t.Errorf("kind List after the items: objects %q, errors %v; want a and none", names(objs), errs)
	}
	if _, errs := decodeAll(t, strings.NewReader(list)); len(errs) != 1 || errs[0].Field != "kind" {
		t.Errorf("merged kind alone: errors %v; want one at the kind", errs)
	}
}

// Only a merge key of the List's own, plain or !!merge, merges in a kind
// that one after its items may override, and not beside a kind of its own.
// Any "<<" before the items did: a quoted key, a value, a merge key deeper
// in, made an EndpointsList's kindless items Services, and its kind an input
// error. They are Endpoints, as when the List is read whole.
func TestRead_YAMLListKindMergedOnlyByItsOwnMergeKey(t *testing.T) {
	for _, members := range []string{`"<<": x`, `'<<': x`, `!!str <<: x`, `metadata: {annotations: {a: "<<"}}`, "metadata:\n  <<: {name: x}", `<<: {apiVersion: v1}`} {
		in := "kind: EndpointsList\n" + members + "\nitems:\n- metadata: {name: a}\n"
		if objs, errs := decodeAll(t, strings.NewReader(in)); names(objs) != "Endpoints:a" || len(errs) != 0 {
			t.Errorf("%q: objects %q, errors %v; want Endpoints:a and none", members, names(objs), errs)
		}
	}
	in := "!!merge <<: {kind: EndpointsList}\napiVersion: v1\nitems:\n- metadata: {name: a}\nkind: List\n"
	if objs, errs := decodeAll(t, strings.NewReader(in)); names(objs) != "a" || len(errs) != 0 {
		t.Errorf("!!merge: objects %q, errors %v; want a and none", names(objs), errs)
	}
}

// indent makes text an entry of a YAML sequence: first before its first
// line, as many spaces before the others.
func indent(first, text string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	return first + strings.Join(lines, strings.Repeat(" ", len(first))) + "\n"
}

// An item of a YAML List over the limit is not parsed, so nothing says
// where it ends: a quoted value in it may run on across lines that look
// like the starts of items, as kubectl reads the List whole. Those were
// read as items, Services the List does not hold; now, as after an item
// that does not parse, the rest of the List is not read. The next
// document is.
func TestRead_YAMLListItemOverTheLimitEndsTheList(t *testing.T) {
	in := "kind: List\nitems:\n- metadata:\n    annotations: {x: \"" + strings.Repeat("x", 2000) + "\n- metadata: {name: evil}\n- {b: c\"}\n"
	if _, err := yaml.YAMLToJSONStrict([]byte(in)); err != nil {
		t.Fatalf("the List read whole: %v", err)
	}
	objs, errs := decodeAll(t, strings.NewReader(in+"---\n"+svcYAML("next")), MaxObjectBytes(1000))
	if names(objs) != "next" || len(errs) != 1 || errs[0].Position.Item != "items[0]" ||
		!strings.Contains(errs[0].Error(), "larger than the limit of 1000 bytes; skipped; the rest of the List is not read") {
		t.Errorf("objects %q, errors %v; want next, and items[0] over the limit, the rest of the List not read", names(objs), errs)
	}
}

// A value of the wrong kind is told in the input's own words: a YAML user
// wrote no JSON object, and reads "mapping" where JSON's reader reads
// "object".
func TestRead_YAMLKindsInYAMLWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"- a\n- b\n", "(document 1, items[0]): not a mapping"},
		{"kind: List\nitems:\n- 5\n", "(document 1, items[0]): not a mapping"},
		{"kind: List\nitems: 5\n", "items: not a sequence"},
		{"[1]", "(document 1, items[0], byte 1): not a JSON object"},
	} {
		_, errs := decodeAll(t, strings.NewReader(tc.in))
		if len(errs) == 0 || !strings.HasSuffix(errs[0].Error(), tc.want) {
			t.Errorf("%q: errors %v, want the first to end %q", tc.in, errs, tc.want)
		}
	}
}

// A YAML List item that is not UTF-8 and has a key given twice costs that
// item only: the error names the byte, and an item that holds both is cut
// right: the next item is read.
func TestRead_YAMLItemNotUTF8WithAKeyTwice(t *testing.T) {
	in := "kind: List\nitems:\n- metadata: {name: \"a\xff\", name: b}\n- kind: Service\n  metadata: {name: c}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "c" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "invalid UTF-8 (byte 0xff) at line 3") {
		t.Errorf("objects %q, errors %v; want c, and an error naming byte 0xff at line 3", names(objs), errs)
	}
}

// A line after a line or paragraph separator (U+2028, U+2029), which YAML
// counts as a line break, counts in the line an error about invalid UTF-8
// names (section 8: a wrong position misleads whoever fixes the input).
func TestRead_YAMLNotUTF8LineAfterASeparator(t *testing.T) {
	in := "kind: Service\nmetadata:\n  name: 'a\u2028b\u2029c'\n  namespace: \xff\n"
	_, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), "invalid UTF-8 (byte 0xff) at line 6") {
		t.Errorf("errors %v, want one naming byte 0xff at line 6", errs)
	}
}

// A YAML List item with a key given twice, of the limit's size with the
// "items:" line it is parsed under, costs that item only, and not the one
// under: the next item is read.
func TestRead_YAMLItemWithKeyTwiceAtTheLimit(t *testing.T) {
	const limit = 100
	item := "- kind: Service\n  metadata: {name: a, name: b}\n"
	item += "#" + strings.Repeat("x", limit-len(item)-2) + "\n"
	objs, errs := decodeAll(t, strings.NewReader("kind: List\nitems:\n"+item+"- kind: Service\n  metadata: {name: c}\n"), MaxObjectBytes(limit))
	if len(item) != limit || names(objs) != "c" || len(errs) != 1 || !errors.Is(errs[0], errDuplicateKey) {
		t.Errorf("an item of %d bytes: objects %q, errors %v; want c, and one error about a key given twice", len(item), names(objs), errs)
	}
}

// An entry of a YAML List's items dedented by one column, as by two, is no
// item of the List: it is never handed out, and is an input error, once
// for all such entries.
func TestRead_YAMLListEntryDedentedByOneColumn(t *testing.T) {
	in := "kind: List\nitems:\n  - metadata: {name: a}\n - metadata: {name: evil}\n - metadata: {name: evil2}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a" || len(errs) != 1 || errs[0].Position.Line != 4 || !strings.Contains(errs[0].Error(), "indented less than the first") {
		t.Errorf("objects %q, errors %v; want a, and an error at line 4", names(objs), errs)
	}
}

// A YAML List's own members (its kind, metadata) as large as the limit are
// held and read: only past it are they over the limit.
func TestRead_YAMLListMembersAtTheLimit(t *testing.T) {
	head := "kind: PodList\nmetadata:\n  annotations:\n    pad: \"" + strings.Repeat("p", 100) + "\"\nitems:\n"
	in := head + "- metadata: {name: a}\n- metadata: {name: b}\n"
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(len(head)))
	if names(objs) != "Pod:a,Pod:b" || len(errs) != 0 {
		t.Errorf("objects %q, errors %v; want Pod:a,Pod:b and none", names(objs), errs)
	}
}

// A member after an item, on a line after a line separator (a line break
// to YAML, not to the splitter), is glued to the item: the item is not one
// item of a List, an input error, and the List is not read on, never read
// another way.
func TestRead_YAMLListMemberGluedToAnItem(t *testing.T) {
	in := "kind: List\nitems:\n- kind: Service\n  metadata: {name: a}\u2028x: 1\n- kind: Service\n  metadata: {name: b}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "not one item of a List") {
		t.Errorf("objects %q, errors %v; want none, and one error: not one item of a List", names(objs), errs)
	}
}
