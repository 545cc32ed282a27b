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
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// Tests of spec section 8, "Reading inputs": what the checker reads must
// mean one thing, or it is not checked.

func TestRead_DuplicateNamesCompareUnescaped(t *testing.T) {
	for name, in := range map[string]string{
		"escaped member":  `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{},"st\u0061tus":{"conditions":[]}}`,
		"escaped nested":  `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","n\u0061me":"b"}}`,
		"unknown member":  `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"x":{"y":1,"\u0079":2}}`,
		"kind repeated":   `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"kind":"Service"}`,
		"event, 2 object": `{"type":"ADDED","object":` + svcJSON("a") + `,"object":` + svcJSON("b") + `}`,
		"event, 2 type":   `{"type":"ADDED","object":` + svcJSON("a") + `,"type":"DELETED"}`,
		"List, 2 items":   `{"kind":"List","items":[` + svcJSON("a") + `],"items":[` + svcJSON("a") + `]}`,
		"items, object":   `{"kind":"List","items":{"0":{},"0":{}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			objs, errs := decodeAll(t, strings.NewReader(in+"\n"+svcJSON("next")))
			if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), "duplicate member name") {
				t.Fatalf("errors %v, want one about a duplicate name", errs)
			}
			// Nothing of the ambiguous object is handed out, not even as
			// a skipped object of some kind.
			if names(objs) != "next" {
				t.Errorf("objects %q, want only the next one", names(objs))
			}
		})
	}
}

// A List too large to read whole is read item by item; a second "items"
// is an error, and its items are not read again.
func TestRead_StreamedListWithItemsTwice(t *testing.T) {
	items := strings.Repeat(svcJSON("x")+",", 1000) + svcJSON("last")
	in := `{"kind":"List","items":[` + items + `],"items":[` + items + `]}`
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(1024))
	if len(objs) != 1001 {
		t.Errorf("%d objects, want the 1001 of the first items", len(objs))
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `duplicate member name "items"`) {
		t.Errorf("errors %v", errs)
	}

	// The same in YAML, where every List is read item by item.
	yamlItems := "- metadata: {name: a}\n- metadata: {name: b}\n"
	objs, errs = decodeAll(t, strings.NewReader("kind: List\nitems:\n"+yamlItems+"metadata: {}\nitems:\n"+yamlItems))
	if names(objs) != "a,b" {
		t.Errorf("YAML: objects %q, want the first items only", names(objs))
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `duplicate key "items"`) || errs[0].Position.Line != 6 {
		t.Errorf("YAML: errors %v, want one at line 6", errs)
	}
}

func TestRead_WatchEventMemberOrderIsFree(t *testing.T) {
	for name, in := range map[string]string{
		"type first": `{"type":"DELETED","object":` + svcJSON("a") + `}`,
		"type last":  `{"object":` + svcJSON("a") + `,"type":"DELETED"}`,
	} {
		objs, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 0 || len(objs) != 1 || !objs[0].Deleted || objs[0].Ref.Name != "a" {
			t.Errorf("%s: objects %+v, errors %v; want one deletion", name, objs, errs)
		}
	}
}

func TestRead_BookmarkAndErrorEvents(t *testing.T) {
	in := `{"type":"ADDED","object":` + svcJSON("a") + `}
{"type":"BOOKMARK","object":{"kind":"Service","apiVersion":"v1","metadata":{"resourceVersion":"12345"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (12345)","reason":"Expired","code":410}}
{"type":"MODIFIED","object":` + svcJSON("b") + `}`
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,b" {
		t.Errorf("objects %q: a bookmark is not an observation", names(objs))
	}
	if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), "too old resource version") || errs[0].Position.Document != 3 {
		t.Errorf("errors %v, want the ERROR event's message, at document 3", errs)
	}
}

// A Secret's and an Event's type, and those of a SecretList's kindless
// items, are theirs: such objects are skipped as other kinds, not read as
// watch events of an unknown type.
func TestRead_ObjectsWithATypeAreNotWatchEvents(t *testing.T) {
	in := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"Opaque","data":{}}
{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"type":"Warning","reason":"SyncLoadBalancerFailed"}
{"apiVersion":"v1","kind":"SecretList","items":[{"metadata":{"name":"t"},"type":"kubernetes.io/tls"}]}
{"kind":"WatchEvent","type":"DELETED","object":` + svcJSON("a") + `}`
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind+"/"+o.Ref.Name+"/"+strconv.FormatBool(o.Deleted))
	}
	if want := "Secret/s/false,Event/e/false,Secret/t/false,Service/a/true"; strings.Join(got, ",") != want {
		t.Errorf("objects %s, want %s", strings.Join(got, ","), want)
	}
	objs, errs = decodeAll(t, strings.NewReader("apiVersion: v1\nkind: Secret\nmetadata: {name: y}\ntype: Opaque\n"))
	if len(errs) != 0 || len(objs) != 1 || objs[0].Kind != "Secret" {
		t.Errorf("YAML: objects %+v, errors %v; want one Secret", objs, errs)
	}
}

// An object of another kind whose members do not fit a Service's is
// skipped, as other kinds are; a List or a watch event whose own members do
// not decode is an input error, and its items or object are not read: they
// are not skipped unseen.
func TestRead_ListOrEventThatDoesNotDecode(t *testing.T) {
	objs, errs := decodeAll(t, strings.NewReader(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ports":"many"},"status":"Ready"}`))
	if len(errs) != 0 || names(objs) != "Widget:w" {
		t.Errorf("another kind: objects %q, errors %v; want it skipped", names(objs), errs)
	}
	for name, in := range map[string]string{
		"List, metadata":    `{"kind":"List","metadata":{"name":5},"items":[` + svcJSON("a") + `]}`,
		"List, kind":        `{"kind":0,"items":[` + svcJSON("a") + `]}`,
		"List, apiVersion":  `{"apiVersion":0,"kind":"List","items":[` + svcJSON("a") + `]}`,
		"event, metadata":   `{"type":"ADDED","metadata":[],"object":` + svcJSON("a") + `}`,
		"YAML List, member": "apiVersion: v1\nitems:\n- kind: Service\n  metadata: {name: a}\nkind: List\nmetadata: {name: [x]}\n",
	} {
		objs, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 || errs[0].Fatal {
			t.Errorf("%s: errors %v, want one", name, errs)
		}
		if strings.HasPrefix(name, "YAML") {
			continue // read item by item: a is read before the List's own members
		}
		if len(objs) != 0 {
			t.Errorf("%s: objects %q, want none", name, names(objs))
		}
	}

	// A List read item by item has its own members decoded all the same.
	big := `{"kind":"List","items":[` + strings.Repeat(svcJSON("a")+",", 999) + svcJSON("a") + `],"metadata":{"name":5}}`
	objs, errs = decodeAll(t, strings.NewReader(big), MaxObjectBytes(1024))
	if len(objs) != 1000 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "metadata.name") {
		t.Errorf("JSON List read item by item: %d objects, errors %v; want 1000 and one naming metadata.name", len(objs), errs)
	}
	// Its members are not where the List is: the problem names no byte.
	if p := errs[0].Position; p.Offset != -1 || p.Line != 1 || p.Document != 1 {
		t.Errorf("JSON List read item by item: problem of its members at %+v, want document 1, line 1, no byte", p)
	}
	// Its kind is known even past the limit of its members.
	big = `{"metadata":{"annotations":{"pad":"` + strings.Repeat("p", 980) + `"}},"kind":"PodList","items":[{"metadata":{"name":"p"}}]}`
	objs, errs = decodeAll(t, strings.NewReader(big), MaxObjectBytes(1024))
	if names(objs) != "Pod:p" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "larger than the limit") {
		t.Errorf("JSON List with members over the limit: objects %q, errors %v; want Pod:p and one error", names(objs), errs)
	}
}

func TestRead_NestedContainers(t *testing.T) {
	event := func(typ, name string) string { return `{"type":"` + typ + `","object":` + svcJSON(name) + `}` }
	tests := []struct{ name, in, want, item string }{
		{"array of watch events", "[" + event("ADDED", "a") + "," + event("MODIFIED", "b") + "]", "a,b", "items[1].object"},
		{"List in a List", `{"kind":"List","items":[` + svcJSON("a") + `,{"kind":"List","items":[` + svcJSON("b") + `]}]}`, "a,b", "items[1].items[0]"},
		{"List in an array", `[{"kind":"ServiceList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}]`, "a,b", "items[0].items[1]"},
		{"array in an array", "[[" + svcJSON("a") + "],[" + svcJSON("b") + "]]", "a,b", "items[1].items[0]"},
		{"YAML sequence", "- " + svcJSON("a") + "\n- [" + svcJSON("b") + "]\n", "a,b", "items[1].items[0]"},
		{"event in an event", `{"type":"ADDED","object":` + event("MODIFIED", "a") + `}`, "a", "object.object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, errs := decodeAll(t, strings.NewReader(tc.in))
			if len(errs) != 0 || names(objs) != tc.want {
				t.Fatalf("objects %q, errors %v; want %q", names(objs), errs, tc.want)
			}
			if got := objs[len(objs)-1].Position.Item; got != tc.item {
				t.Errorf("last item at %q, want %q", got, tc.item)
			}
			if p := objs[len(objs)-1].Position; p.Offset != -1 && (p.Offset <= 0 || !strings.HasPrefix(tc.in[p.Offset:], "{")) {
				t.Errorf("offset %d does not point at the object", p.Offset)
			}
		})
	}
}

// kubectl get services -A -o yaml of a large cluster is one YAML document:
// its items are read one by one, the limit applies to each. One over it,
// not parsed, ends the List (see TestRead_YAMLListItemOverTheLimitEndsTheList):
// here the last.
func TestRead_YAMLListItemByItem(t *testing.T) {
	const items = 5000
	item := func(name string, pad int) string {
		return "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: " + name + "\n    annotations:\n      pad: \"" + strings.Repeat("p", pad) + "\"\n  spec:\n    type: LoadBalancer\n"
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := range items {
		pad := 10
		if i == items-1 {
			pad = 5000 // over the limit: skipped
		}
		b.WriteString(item(fmt.Sprintf("s%d", i), pad))
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	if b.Len() < 100*2048 {
		t.Fatalf("the List is too small to prove anything: %d bytes", b.Len())
	}
	objs, errs := decodeAll(t, strings.NewReader(b.String()), MaxObjectBytes(2048))
	if len(objs) != items-1 {
		t.Errorf("%d objects, want %d", len(objs), items-1)
	}
	if len(errs) != 1 || errs[0].Fatal || errs[0].Position.Item != fmt.Sprintf("items[%d]", items-1) || errs[0].Position.Line != 3+(items-1)*8 {
		t.Fatalf("errors %v, want the last item over the limit at line %d", errs, 3+(items-1)*8)
	}
	last := objs[len(objs)-1]
	if last.Ref.Name != fmt.Sprintf("s%d", items-2) || last.Position.Item != fmt.Sprintf("items[%d]", items-2) || last.Position.Line != 3+(items-2)*8 {
		t.Errorf("last object %+v at %+v", last.Ref, last.Position)
	}

	// Items indented under "items:", and items of a kind-less ServiceList.
	in := "kind: ServiceList\napiVersion: v1\nitems:\n  - metadata: {name: a}\n    spec: {type: LoadBalancer}\n  # a comment\n  - metadata:\n      name: b\n"
	objs, errs = decodeAll(t, strings.NewReader(in))
	if len(errs) != 0 || names(objs) != "a,b" {
		t.Errorf("indented items: objects %q, errors %v", names(objs), errs)
	}
	// A PodList's items are not Services.
	objs, _ = decodeAll(t, strings.NewReader("kind: PodList\nitems:\n- metadata: {name: p}\n"))
	if names(objs) != "Pod:p" {
		t.Errorf("PodList: objects %q", names(objs))
	}
	// A List whose own members after its items are over the limit has
	// its items read all the same, and is reported once. Over the limit
	// before them, where its kind may be, it is skipped whole.
	pad := "metadata:\n  annotations:\n    pad: " + strings.Repeat("p", 2000) + "\n"
	for in, want := range map[string]string{
		"kind: List\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n" + pad:    "a,b",
		pad + "kind: PodList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n": "",
	} {
		objs, errs = decodeAll(t, strings.NewReader(in), MaxObjectBytes(1024))
		if names(objs) != want || len(errs) != 1 || !strings.Contains(errs[0].Error(), "larger than the limit") || errs[0].Position.Line != 1 {
			t.Errorf("members over the limit: objects %q, errors %v; want %q and one error", names(objs), errs, want)
		}
	}

	// Items written as a flow sequence are not cut into items: such a
	// List over the limit is skipped whole, and the message says why,
	// whether the sequence starts on a line of its own or on a line over
	// the limit. The document after it is read.
	flow := "[" + strings.Repeat(svcJSON("a")+",", 20) + svcJSON("b") + "]"
	for _, in := range []string{"kind: List\nitems: " + flow + "\n", "kind: List\nitems:   [\n" + flow[1:] + "\n"} {
		objs, errs = decodeAll(t, strings.NewReader(in+"---\n"+svcYAML("next")), MaxObjectBytes(1024))
		if names(objs) != "next" || len(errs) != 1 || !strings.HasSuffix(errs[0].Error(),
			"a List whose items are a flow sequence (items: [...]) is read whole, not item by item: object larger than the limit of 1024 bytes; skipped") {
			t.Errorf("flow sequence over the limit: objects %q, errors %v", names(objs), errs)
		}
	}

	// A repeated key in a YAML item is as ambiguous as in JSON.
	_, errs = decodeAll(t, strings.NewReader("kind: List\nitems:\n- kind: Service\n  kind: ConfigMap\n  metadata: {name: a}\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "duplicate") {
		t.Errorf("duplicate key in an item: %v", errs)
	}
}

// The limit applies to the members before the items as to any text: at
// the limit they are all held, the List's kind is known and its items are
// read; the members, "items:" line included, are then over the limit, and
// reported.
func TestRead_YAMLListMembersBeforeItemsAtTheLimit(t *testing.T) {
	head := "kind: PodList\nmetadata:\n  annotations:\n    pad: \"" + strings.Repeat("p", 100) + "\"\n"
	in := head + "items:\n- metadata: {name: a}\n- metadata: {name: b}\n"
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(len(head)))
	if names(objs) != "Pod:a,Pod:b" || len(errs) != 1 || errs[0].Position.Line != 1 || !strings.Contains(errs[0].Error(), "larger than the limit") {
		t.Errorf("objects %q, errors %v; want Pod:a,Pod:b and the List's members over the limit", names(objs), errs)
	}
}

// An entry less indented than the List's first one is not one of its items
// (kubectl does not read such a document at all): it is never handed out.
func TestRead_YAMLListDedentedEntryIsNotAnItem(t *testing.T) {
	in := "kind: List\nitems:\n  - metadata: {name: a}\n- metadata: {name: evil}\n---\n" + svcYAML("next")
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,next" {
		t.Errorf("objects %q, want a and the next document's: the dedented entry is not an item", names(objs))
	}
	// kubectl refuses the document: it must not pass unnoticed.
	if len(errs) != 1 || errs[0].Position.Line != 4 || errs[0].Field != "items" || !strings.Contains(errs[0].Error(), "indented less than the first") {
		t.Errorf("errors %v, want one at line 4 saying the entry is indented less than the first", errs)
	}
}

// An item of a YAML List is read on its own: an alias of another item's
// anchor is an input error there, which says why. The List's later items
// are not read: after a part that does not parse, where the next one
// starts cannot be told (TestRead_YAMLListCutInsideAValue).
func TestRead_YAMLListAnchorAcrossItems(t *testing.T) {
	in := "kind: List\nitems:\n- kind: Service\n  metadata: &m {name: a}\n- kind: Service\n  metadata: *m\n- kind: Service\n  metadata: {name: c}\n---\n" + svcYAML("d")
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,d" {
		t.Errorf("objects %q, want a and the next document's d", names(objs))
	}
	if len(errs) != 1 || errs[0].Position.Item != "items[1]" || errs[0].Position.Line != 5 || !strings.Contains(errs[0].Error(), "read one by one") ||
		!strings.Contains(errs[0].Error(), "the rest of the List is not read: after an item that does not parse") {
		t.Errorf("errors %v, want one at items[1], line 5, saying why", errs)
	}
}

// The YAML filter cuts a List where a line looks like the start of an item
// or of the items, without parsing. What it takes for the start of the
// items is parsed with the document before it: an "items:" line inside a
// quoted value is none, and the document is read whole, as kubectl reads
// it; below a mapping that is indented, it is none either, and the parser
// would end the document's value before it: an input error (see
// TestRead_YAMLValueEndsBeforeTheDocument). A quoted value or a flow
// collection may run on across a line that looks like an item's start; the
// item cut there does not parse, so the items after it, which may have
// been cut anywhere, are not read: the reader never hands out an object
// the document does not hold ("What the checker reads must mean one
// thing", section 8). A line "..." ends a document, as it does for
// kubectl, which reads nothing after it up to the next "---": content
// there is an input error.
func TestRead_YAMLListCutInsideAValue(t *testing.T) {
	for name, tc := range map[string]struct{ in, objs, err string }{
		"item":             {"kind: List\nitems:\n- metadata:\n    name: a\n    annotations: {x: \"\n- metadata: {name: evil}\n  \"}\n", "next", "the rest of the List is not read"},
		"flow":             {"kind: List\nitems:\n- metadata: {name: a,\n}\n- metadata: {name: evil}\n", "next", "the rest of the List is not read"},
		"items in a value": {"kind: List\nmetadata:\n  annotations:\n    x: \"\nitems:\n- metadata: {name: evil}\n\"\n", "List:,next", ""},
		"indented mapping": {" kind: List\nitems:\n- metadata: {name: evil}\n", "next", `line 1: did not find expected <document start>: the document's value ends on that line, and YAML reads what follows as another document, which needs a "---" line before it`},
		"after ...":        {"kind: List\n...\nitems:\n- metadata: {name: evil}\n", "List:,next", `content after "..."`},
		"dedented":         {"kind: List\nitems:\n- metadata:\n    name: a\n spec: {type: LoadBalancer}\n- metadata: {name: evil}\n", "next", "line 4: did not find expected key; the rest of the List is not read"},
		"CR in a comment":  {"kind: List\nitems:\n# c\r- metadata: {name: a}\n", "a,next", ""},
		"CR in an item":    {"kind: List\nitems:\n- metadata: {name: a}\n\r {0}\n- metadata: {name: evil}\n", "next", "the rest of the List is not read"},
		"CR in items:":     {"kind: List\nitems: # c\r- metadata: {name: a}\n- metadata: {name: b}\n", "a,b,next", ""},
		"items a scalar":   {"kind: List\nitems:\n>\n  - metadata: {name: a}\n", "next", "items: not a sequence"},
		// A tab indents no line: one in an item's indentation is the
		// item's, which then does not parse, or goes on with a quoted
		// value, as YAML reads the List whole.
		"tab in an item":         {"kind: List\nitems:\n- metadata:\n\tname: a\n- metadata: {name: evil}\n", "next", "line 4: found character that cannot start any token (a tab in the line's indentation: YAML indents with spaces only); the rest of the List is not read"},
		"tab in a quoted value":  {"kind: List\nitems:\n- metadata:\n    name: \"a\n\tb\"\n- metadata: {name: c}\n", "a b,c,next", ""},
		"tab before the entries": {"kind: List\nitems:\n\t- metadata: {name: a}\n", "next", "line 3: found character that cannot start any token (a tab"},
		// The parser counts an LS or a PS as a line break, and so does
		// the hint, to find the line it names.
		"tab after an LS": {"kind: List\nitems:\n- metadata:\n    annotations: {x: \"a\u2028b\"}\n\tname: a\n- metadata: {name: evil}\n", "next", "line 6: found character that cannot start any token (a tab"},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in+"---\n"+svcYAML("next")))
		if names(objs) != tc.objs {
			t.Errorf("%s: objects %q, want %q", name, names(objs), tc.objs)
		}
		if tc.err == "" && len(errs) != 0 || tc.err != "" && (len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), tc.err)) {
			t.Errorf("%s: errors %v, want %q", name, errs, tc.err)
		}
	}
}

// utf16Text encodes parts, each a string or UTF-16 code units as they
// are, as UTF-16 (big-endian when big is set) after a byte order mark.
func utf16Text(big bool, parts ...any) []byte {
	b := []byte{0xFF, 0xFE}
	if big {
		b = []byte{0xFE, 0xFF}
	}
	for _, p := range parts {
		units, ok := p.([]uint16)
		if !ok {
			units = utf16.Encode([]rune(p.(string)))
		}
		for _, u := range units {
			if big {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
	}
	return b
}

func TestRead_Encodings(t *testing.T) {
	yaml := "kind: Service\napiVersion: v1\nmetadata: {name: a}\n---\nkind: Service\napiVersion: v1\nmetadata: {name: b}\n"
	for name, in := range map[string][]byte{
		"UTF-16LE JSON":  utf16Text(false, svcJSON("a")+svcJSON("b")),
		"UTF-16BE YAML":  utf16Text(true, yaml),
		"CRLF YAML":      []byte(strings.ReplaceAll(yaml, "\n", "\r\n")),
		"CRLF JSON":      []byte(svcJSON("a") + "\r\n" + svcJSON("b") + "\r\n"),
		"BOM and spaces": []byte("\xEF\xBB\xBF\r\n  " + svcJSON("a") + svcJSON("b")),
	} {
		objs, errs := decodeAll(t, bytes.NewReader(in))
		if len(errs) != 0 || names(objs) != "a,b" {
			t.Errorf("%s: objects %q, errors %v", name, names(objs), errs)
		}
	}
	// Without a byte order mark, UTF-16 is not read, and the error says why.
	for name, in := range map[string][]byte{
		"UTF-16LE JSON": utf16Text(false, svcJSON("a"))[2:],
		"UTF-16BE YAML": utf16Text(true, yaml)[2:],
	} {
		objs, errs := decodeAll(t, bytes.NewReader(in))
		if len(objs) != 0 || len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "UTF-16 is read only with a byte order mark") {
			t.Errorf("%s without a byte order mark: objects %q, errors %v", name, names(objs), errs)
		}
	}
}

// A surrogate without its pair is not UTF-16: it used to become U+FFFD
// in silence, rewriting a name. It ends the input, as malformed UTF-8
// between values does; what came before it is read.
func TestRead_UTF16SurrogateWithoutItsPair(t *testing.T) {
	a := svcJSON("a")
	at := strconv.Itoa(2 + 2*len(a) + 2*len(`{"metadata":{"name":"`))
	svc := "kind: Service\napiVersion: v1\nmetadata: {name: "
	yamlAt := strconv.Itoa(2 + 2*len(svc+"a}\n---\n"+svc+`"`))
	for name, tc := range map[string]struct {
		in   []byte
		want string
	}{
		"high alone":    {utf16Text(false, a, `{"metadata":{"name":"`, []uint16{0xD800}, `x"}}`), "a surrogate (0xD800) without its pair, at byte " + at + " of the UTF-16 text"},
		"low alone":     {utf16Text(true, a, `{"metadata":{"name":"`, []uint16{0xDC00}, `x"}}`), "a surrogate (0xDC00) without its pair, at byte " + at + " of the UTF-16 text"},
		"high at end":   {utf16Text(false, a, []uint16{0xD800}), "it ends inside a character"},
		"odd byte":      {append(utf16Text(true, a), 'x'), "it ends inside a character"},
		"YAML":          {utf16Text(true, svc+"a}\n---\n"+svc+`"`, []uint16{0xDBFF}, "x\"}\n"), "a surrogate (0xDBFF) without its pair, at byte " + yamlAt + " of the UTF-16 text"},
		"a pair splits": {utf16Text(false, a, strings.Replace(svcJSON("b"), `"b"`, `"b😀"`, 1)), ""},
	} {
		for _, rb := range []int{0, 1, 3} {
			objs, errs := decodeAll(t, bytes.NewReader(tc.in), readBuffer(rb))
			switch {
			case tc.want == "" && (len(errs) != 0 || names(objs) != "a,b😀"):
				t.Errorf("%s, read buffer %d: objects %q, errors %v", name, rb, names(objs), errs)
			case tc.want != "" && (names(objs) != "a" || len(errs) != 1 || !errs[0].Fatal ||
				!strings.Contains(errs[0].Error(), "the input is not UTF-16: "+tc.want+"; the rest of it is not read")):
				t.Errorf("%s, read buffer %d: objects %q, errors %v; want a, then %q", name, rb, names(objs), errs, tc.want)
			}
		}
	}
}

// A byte order mark before a JSON value, as where files that begin with
// one were joined with cat, is dropped as at the start of the input: it
// ended the input. However the reads cut the mark, the value after it is
// where it is. Inside an array, a mark is no file's start: malformed.
func TestRead_ByteOrderMarkBetweenJSONValues(t *testing.T) {
	const bom = "\uFEFF"
	a := svcJSON("a")
	for _, rb := range []int{0, 1, 2, 3, 7} {
		objs, errs := decodeAll(t, strings.NewReader(bom+a+"\n"+bom+"\n"+svcJSON("b")+bom+a), readBuffer(rb))
		if len(errs) != 0 || names(objs) != "a,b,a" {
			t.Fatalf("read buffer %d: objects %q, errors %v", rb, names(objs), errs)
		}
		if p := objs[1].Position; p.Line != 3 || p.Offset != int64(3+len(a)+1+3+1) || p.Document != 2 {
			t.Errorf("read buffer %d: b at %v", rb, p)
		}
		if p := objs[2].Position; p.Line != 3 || p.Offset != objs[1].Position.Offset+int64(len(svcJSON("b"))+3) {
			t.Errorf("read buffer %d: the second a at %v", rb, p)
		}
		objs, errs = decodeAll(t, strings.NewReader("["+a+","+bom+a+"]"), readBuffer(rb))
		if len(errs) != 1 || !errs[0].Fatal || names(objs) != "a" {
			t.Errorf("read buffer %d, in an array: objects %q, errors %v", rb, names(objs), errs)
		}
	}
}

// Every Workers setting gives the same objects in the same order.
func TestRead_WorkersKeepInputOrder(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		if i%100 == 0 {
			b.WriteString(`{"kind":"Service","apiVersion":"v1","metadata":{"name":"bad","name":"x"}}`)
		}
		b.WriteString(svcJSON(fmt.Sprintf("s%d", i)))
	}
	var want string
	for _, w := range []Workers{1, 2, 7} {
		objs, errs := decodeAll(t, strings.NewReader(b.String()), w)
		got := fmt.Sprint(names(objs), len(errs))
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("Workers(%d) gives another sequence", w)
		}
		if len(objs) != 3000 || len(errs) != 30 {
			t.Errorf("Workers(%d): %d objects, %d errors", w, len(objs), len(errs))
		}
	}
}

// A nil reader and an input of white space are empty inputs, not errors.
func TestRead_EmptyInputs(t *testing.T) {
	for name, d := range map[string]*Decoder{
		"nil":         NewDecoder(nil, "in"),
		"white space": NewDecoder(strings.NewReader(" \r\n\t  "), "in"),
		"comments":    NewDecoder(strings.NewReader("# nothing\n---\n# here\n"), "in"),
	} {
		if obj, err := d.Next(); err != io.EOF {
			t.Errorf("%s: got %+v, %v; want io.EOF", name, obj, err)
		}
	}
}

// Escaped output: what would make a terminal act, or hide or reorder text,
// comes out as a Go escape; anything else, backslashes included, as it is.
// An object is named as kubectl names it, escaped; one without a name (a
// manifest with generateName) read "shop/" in tables and findings.
func TestObjectRef_String(t *testing.T) {
	for _, tc := range []struct {
		ref  ObjectRef
		want string
	}{
		{ObjectRef{Namespace: "shop", Name: "web"}, "shop/web"},
		{ObjectRef{Name: "web"}, "web"},
		{ObjectRef{Namespace: "shop"}, "shop/(unnamed)"},
		{ObjectRef{}, "(unnamed)"},
		{ObjectRef{Namespace: "a\x1b", Name: "b\u202e"}, `a\x1b/b\u202e`},
		// Cut each, as Clip cuts: a name in a file may be any string.
		{ObjectRef{Namespace: strings.Repeat("n", MaxTextBytes+1), Name: strings.Repeat("m", MaxTextBytes+2)},
			strings.Repeat("n", MaxTextBytes) + "… (1 more bytes)/" + strings.Repeat("m", MaxTextBytes) + "… (2 more bytes)"},
	} {
		if got := tc.ref.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// An input error about an object with a namespace and no name (a manifest
// with generateName) names it as its findings do: the namespace is what
// tells it from the other unnamed objects of the input.
func TestDecodeError_NamesAnUnnamedObjectsNamespace(t *testing.T) {
	for name, in := range map[string]string{
		"JSON": `{"kind":"Service","apiVersion":"v1","metadata":{"namespace":"shop","generateName":"web-"},"spec":{"ports":[{"port":"eighty"}]}}`,
		"YAML": "kind: Service\napiVersion: v1\nmetadata:\n  namespace: shop\n  generateName: web-\nspec:\n  ports:\n  - port: eighty\n",
	} {
		_, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), ": shop/(unnamed): spec.ports[0].port: ") {
			t.Errorf("%s: errors %v, want one naming shop/(unnamed)", name, errs)
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"svc-1":                 "svc-1",
		`a\b "c" ünï 名前 \uFFFD`: `a\b "c" ünï 名前 \uFFFD`,
		"\uFFFD":                "\uFFFD",
		"clear\x1b[2J":          `clear\x1b[2J`,
		"csi\u009b1m":           `csi\u009b1m`,
		"rtl\u202eevil":         `rtl\u202eevil`,
		"zero\u200dwidth":       `zero\u200dwidth`,
		"line\u2028sep":         `line\u2028sep`,
		"tab\tnl\n":             `tab\tnl\n`,
		"bad\xffbyte":           `bad\xffbyte`,
		"path\\x\x07":           `path\\x\a`,
		"quote\"\x00":           `quote\"\x00`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// An interrupt stops a read promptly and loses nothing: NextContext, ended
// by its context again and again while batches are read and decoded, hands
// out every object once, in input order.
func TestRead_NextContextLosesNothing(t *testing.T) {
	const n = 5000
	var in strings.Builder
	for i := range n {
		in.WriteString(svcJSON(strconv.Itoa(i)))
	}
	d := NewDecoder(strings.NewReader(in.String()), "in", Workers(2))
	defer d.Close()
	next, ended := 0, 0
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%40)*time.Microsecond)
		obj, err := d.NextContext(ctx)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			ended++
			continue
		case err == io.EOF && next == n:
			if ended == 0 {
				t.Log("no call was ended by its context; nothing was tested")
			}
			return
		case err != nil:
			t.Fatalf("after %d objects: %v", next, err)
		case obj.Ref.Name != strconv.Itoa(next):
			t.Fatalf("object %q after %d objects, want %d (%d calls ended by their context)", obj.Ref.Name, next, next, ended)
		}
		next++
	}
}

// NextContext with a context already done reads nothing, even an object
// already decoded: an interrupted check reports what was read before the
// interrupt, not more. The object is not lost: the next call hands it out.
func TestRead_NextContextDoneReadsNothing(t *testing.T) {
	d := NewDecoder(strings.NewReader(svcJSON("a")+svcJSON("b")), "in")
	defer d.Close()
	if obj, err := d.Next(); err != nil || obj.Ref.Name != "a" {
		t.Fatalf("first: %+v, %v", obj.Ref, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 3 {
		if obj, err := d.NextContext(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("with a done context: %+v, %v; want context.Canceled", obj.Ref, err)
		}
	}
	if obj, err := d.Next(); err != nil || obj.Ref.Name != "b" {
		t.Errorf("after: %+v, %v; want b", obj.Ref, err)
	}
}

// A List read item by item whose items are not an array has no items: the
// values of an object there are not handed out as items.
func TestRead_StreamedListWithItemsNotAnArray(t *testing.T) {
	pad := strings.Repeat(`"p":"`+strings.Repeat("p", 100)+`",`, 20)
	in := `{"kind":"List","items":{"a":` + svcJSON("evil") + `},"metadata":{"annotations":{` + pad + `"q":""}}}` + svcJSON("next")
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(1024))
	if names(objs) != "next" || len(errs) != 1 || errs[0].Fatal {
		t.Errorf("objects %q, errors %v; want next and one problem", names(objs), errs)
	}
}

// A watch is checked as it comes: an object whose end has been read is
// handed out while the input stays open, in JSON and in YAML (where a
// document ends at the next "---"), also when the next object has begun
// (section 8: an interrupted check reports what was read). Under a reader
// that waits for more, Next would never return.
func TestRead_WatchIsReadAsItComes(t *testing.T) {
	json, yaml := svcJSON("b"), svcYAML("b")
	for name, tc := range map[string]struct{ first, second string }{
		"JSON":                   {svcJSON("a"), json},
		"YAML":                   {svcYAML("a") + "---\n", yaml},
		"JSON, the next begun":   {svcJSON("a") + "\n" + json[:30], json[30:]},
		"YAML, the next begun":   {svcYAML("a") + "---\n" + yaml[:30], yaml[30:]},
		"a List, the next begun": {`{"kind":"List","items":[` + svcJSON("a") + "," + json[:30], json[30:] + "]}"},
	} {
		r, w := io.Pipe()
		read := make(chan struct{})
		go func() {
			_, _ = io.WriteString(w, tc.first)
			<-read // no more until the first object is handed out
			_, _ = io.WriteString(w, tc.second)
			_ = w.Close()
		}()
		objs := make([]string, 0, 2)
		d := NewDecoder(r, "in", MaxObjectBytes(150)) // the List read item by item
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			obj, err := d.NextContext(ctx)
			cancel()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if objs = append(objs, obj.Ref.Name); len(objs) == 1 {
				close(read)
			}
		}
		d.Close()
		if strings.Join(objs, ",") != "a,b" {
			t.Errorf("%s: objects %q, want a,b", name, objs)
		}
	}
}

// A position at byte 0 of the input says so: the offset is known.
func TestRead_PositionAtByteZero(t *testing.T) {
	_, errs := decodeAll(t, strings.NewReader(`{"object":`+svcJSON("a")+`}`))
	if want := "in:1 (document 1, byte 0): watch event without a type"; len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors %v, want %q", errs, want)
	}
}

// A watch event that is neither an observation, a BOOKMARK nor an ERROR is
// an input error, and the input goes on.
func TestRead_MalformedWatchEvents(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"ADDED"}`:                                 "watch event ADDED without an object",
		`{"object":` + svcJSON("a") + `}`:                  "watch event without a type",
		`{"kind":"WatchEvent"}`:                            "watch event without a type",
		`{"type":"SYNC","object":` + svcJSON("a") + `}`:    `type: unknown watch event type "SYNC"`,
		`{"type":"ADDED","object":null}`:                   "object, byte 25): not a JSON object",
		`{"type":"ADDED","object":[]}`:                     "object, byte 25): not a JSON object",
		`{"type":"ADDED","object":[` + svcJSON("a") + `]}`: "object, byte 25): not a JSON object",
	} {
		objs, errs := decodeAll(t, strings.NewReader(in+"\n"+svcJSON("next")))
		if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), want) || names(objs) != "next" {
			t.Errorf("%s: objects %q, errors %v; want the next object and %q", in, names(objs), errs, want)
		}
	}
}

// Lists and watch events nest at most maxNesting deep. Each level decodes
// the value it holds again, so deeper nesting is an input error rather
// than work that grows with the square of the depth.
func TestRead_NestingLimit(t *testing.T) {
	nested := func(depth int) string {
		s := svcJSON("deep")
		for i := range depth {
			if i%2 == 0 {
				s = `{"type":"ADDED","object":` + s + `}`
			} else {
				s = `{"kind":"List","items":[` + s + `]}`
			}
		}
		return s
	}
	objs, errs := decodeAll(t, strings.NewReader(nested(maxNesting)))
	if len(errs) != 0 || names(objs) != "deep" {
		t.Errorf("%d deep: objects %q, errors %v; want the Service", maxNesting, names(objs), errs)
	}
	objs, errs = decodeAll(t, strings.NewReader(nested(maxNesting+1)+svcJSON("next")))
	if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), "nested too deep") || names(objs) != "next" {
		t.Errorf("%d deep: objects %q, errors %v; want one error and the next object", maxNesting+1, names(objs), errs)
	}
}

// The limit is on the object, not on its text: a YAML document under it
// whose aliases make it larger is skipped as over the limit.
func TestRead_YAMLAliasesOverTheLimit(t *testing.T) {
	x := strings.Repeat("x", 1000)
	in := "kind: Service\napiVersion: v1\nmetadata:\n  name: grown\n  annotations:\n    a: &x " + x + "\n    b: *x\n    c: *x\n    d: *x\n    e: *x\n---\n" + svcYAML("next")
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(4096))
	if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), "larger than the limit") || errs[0].Position.Line != 1 {
		t.Errorf("errors %v, want one at line 1 about the limit", errs)
	}
	if names(objs) != "next" {
		t.Errorf("objects %q, want the next one", names(objs))
	}
}

// A YAML line longer than the read buffer (64 KiB), in a document and in a
// List's item, is read whole, and the lines after it are counted right.
func TestRead_YAMLLinesLongerThanTheBuffer(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "kind: Service\napiVersion: v1\nmetadata:\n  name: a\n  annotations: {long: " + long + "}\n---\n" +
		"kind: List\nitems:\n- kind: Service\n  apiVersion: v1\n  metadata:\n    name: b\n    annotations: {long: " + long + "}\n" +
		"- kind: Service\n  apiVersion: v1\n  metadata: {name: c}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 0 || names(objs) != "a,b,c" {
		t.Fatalf("objects %q, errors %v", names(objs), errs)
	}
	for _, o := range objs[:2] {
		if got := o.Service.Annotations["long"]; got != long {
			t.Errorf("%s: the long annotation has %d bytes, want %d", o.Ref.Name, len(got), len(long))
		}
	}
	if p := objs[2].Position; p.Line != 14 || p.Item != "items[1]" {
		t.Errorf("c at %+v, want line 14, items[1]", p)
	}

	// Lines of 100 KiB that begin with white space or a marker. Under the
	// limit they are read whole, as any line is. Over it they come in
	// pieces, and what holds them is over the limit: it is reported, and
	// the rest is read.
	indent := strings.Repeat(" ", 100<<10)
	for _, tc := range []struct {
		name, in, under, over string
		overErrs              int
	}{
		{"indented documents", "# c\n" + indent + "kind: Service\n" + indent + "metadata:\n" + indent + "  name: d\n" +
			"---\n" + indent + "\nkind: Service\nmetadata:\n" + indent + "name: e\n", "d,e", "", 2},
		{"markers", svcYAML("g") + "---" + indent + "\n" + svcYAML("h") + "---" + indent + svcJSON("i") + "\n" +
			"--- #" + indent + "\n" + svcYAML("j") + "..." + indent + "\n---\n" + svcYAML("k"), "g,h,i,j,k", "g,j,k", 2},
		{"items line", "kind: List\nitems:" + indent + "[" + svcJSON("h") + "]\n", "h", "", 1},
		{"indented Lists", "kind: List\nitems:\n- kind: Service\n  metadata:\n" + indent + "name: f\n---\n" +
			"kind: List\nitems:\n" + indent + "- kind: Service\n" + indent + "  metadata: {name: g}\n", "f,g", "", 2},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in))
		if len(errs) != 0 || names(objs) != tc.under {
			t.Errorf("%s: objects %q, errors %v; want %q", tc.name, names(objs), errs, tc.under)
		}
		objs, errs = decodeAll(t, strings.NewReader(tc.in), MaxObjectBytes(16<<10))
		if names(objs) != tc.over || len(errs) != tc.overErrs {
			t.Errorf("%s, over the limit: objects %q, errors %v; want %q and %d errors", tc.name, names(objs), errs, tc.over, tc.overErrs)
		}
		for _, e := range errs {
			if msg := e.Error(); !strings.Contains(msg, "larger than the limit") {
				t.Errorf("%s, over the limit: error %v, want the object skipped for its size", tc.name, e)
			}
		}
	}
}

// Section 8: a name given twice is found before anything else is decided,
// also in a List too large to read whole, when it comes before the items:
// none is handed out, as when the List is read whole. (A name given twice
// after the items cannot be known before they are handed out.)
func TestRead_StreamedListDuplicateBeforeItems(t *testing.T) {
	items := strings.Repeat(svcJSON("x")+",", 20) + svcJSON("last")
	for name, in := range map[string]string{
		"kind twice":    `{"kind":"ConfigMapList","kind":"List","items":[` + items + `]}`,
		"metadata.name": `{"kind":"List","metadata":{"name":"a","name":"b"},"items":[` + items + `]}`,
		"wrong type":    `{"kind":"List","metadata":{"name":5},"items":[` + items + `]}`,
	} {
		for _, limit := range []int{1024, DefaultMaxObjectBytes} { // streamed, and read whole
			objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
			if len(objs) != 0 || len(errs) != 1 {
				t.Errorf("%s, limit %d: objects %q, errors %v; want none and one problem", name, limit, names(objs), errs)
			}
		}
	}
}

// endless is an input that never ends: prefix, then unit again and again.
type endless struct {
	prefix, unit []byte
	read         int64 // bytes handed out
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		src := e.prefix[min(e.read, int64(len(e.prefix))):]
		if len(src) == 0 {
			src = e.unit[(e.read-int64(len(e.prefix)))%int64(len(e.unit)):]
		}
		m := copy(p[n:], src)
		n, e.read = n+m, e.read+int64(m)
	}
	return n, nil
}

// Close stops a Decoder not read to its end: a check interrupted on an
// input that never ends (a pipe, /dev/zero) leaves no goroutine reading it,
// in every form a splitter hands out, from a value read whole to an item
// of a List read token by token, and also where the input never ends what
// the splitter reads, which then hands nothing out. Its splitter closes the
// queue of batches when it returns; without Close it would read forever.
func TestRead_CloseStopsTheReading(t *testing.T) {
	// nothing marks the inputs that hand nothing out: a YAML document ends
	// at a line that never comes; the items of a List whose kind is given
	// twice are dropped, and the problem reported at its end. The others
	// hand out "a" first.
	for name, tc := range map[string]struct {
		in      *endless
		nothing bool
	}{
		"concatenated JSON":      {in: &endless{unit: []byte(svcJSON("a") + "\n")}},
		"top-level array":        {in: &endless{prefix: []byte("["), unit: []byte(svcJSON("a") + ",")}},
		"JSON List item by item": {in: &endless{prefix: []byte(`{"kind":"List","items":[`), unit: []byte(svcJSON("a") + ",")}},
		"JSON scalars":           {in: &endless{prefix: []byte(svcJSON("a")), unit: []byte(" 1")}},
		"YAML documents":         {in: &endless{unit: []byte(svcYAML("a") + "---\n")}},
		"YAML List item by item": {in: &endless{prefix: []byte("kind: List\nitems:\n"), unit: []byte("- metadata: {name: a}\n")}},
		"a YAML line":            {in: &endless{unit: []byte("a ")}, nothing: true},
		"YAML blank lines":       {in: &endless{unit: []byte("\n")}, nothing: true},
		"YAML comments":          {in: &endless{prefix: []byte(svcYAML("a")), unit: []byte("# more\n")}, nothing: true},
		"a List's dropped items": {in: &endless{prefix: []byte(`{"kind":"List","kind":"List","items":[`), unit: []byte(svcJSON("a") + ",")}, nothing: true},
	} {
		d := NewDecoder(tc.in, "in", MaxObjectBytes(4096), Workers(2))
		wait := 10 * time.Second // for "a": however slow the machine
		if tc.nothing {
			wait = 100 * time.Millisecond // for nothing: long enough to be reading
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		obj, err := d.NextContext(ctx)
		cancel()
		switch {
		case tc.nothing && err == context.DeadlineExceeded:
		case !tc.nothing && err == nil && obj.Ref.Name == "a":
		default:
			t.Fatalf("%s: first: %+v, %v", name, obj.Ref, err)
		}
		d.Close()
		done := make(chan struct{})
		go func() {
			for range d.pending { // the batches queued: drained so that none blocks
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the Decoder still reads its input 10 s after Close", name)
		}
	}
}

// A List read whole, under the limit, may hold millions of items, each an
// object or a problem. Its results are handed on in chunks, as they are
// decoded: held together, a 4 MiB List of 2,000,000 numbers took 1.3 GB.
func TestRead_ListReadWholeHandsItsResultsOnInChunks(t *testing.T) {
	const n = 2*resultChunk + 100
	list := `{"kind":"List","items":[` + strings.Repeat(`0,`, n-1) + svcJSON("last") + `]}`
	var chunks []int
	r := &results{send: func(rs []result) bool { chunks = append(chunks, len(rs)); return true }}
	if decodeJob(job{raw: []byte(list), pos: Position{Source: "in", Document: 1, Line: 1}}, DefaultMaxObjectBytes, r); r.stopped {
		t.Fatal("decodeJob stopped, with a send that wants more")
	}
	r.flush()
	total := 0
	for _, c := range chunks {
		total += c
		if c > resultChunk {
			t.Errorf("a chunk of %d results, over %d", c, resultChunk)
		}
	}
	if total != n || len(chunks) != 3 {
		t.Errorf("%d results in chunks %v, want %d in 3", total, chunks, n)
	}

	// A send that wants no more stops the decoding.
	chunks = nil
	r = &results{send: func(rs []result) bool { chunks = append(chunks, len(rs)); return false }}
	if decodeJob(job{raw: []byte(list), pos: Position{Source: "in", Document: 1, Line: 1}}, DefaultMaxObjectBytes, r); !r.stopped {
		t.Error("decodeJob goes on after its send wanted no more")
	}
	r.flush()
	if len(chunks) != 1 {
		t.Errorf("chunks %v after the first was refused", chunks)
	}
}

// The lines of a List's items read whole are counted from one item to the
// next, once, across line breaks of every kind; the items come out in
// order, whatever the number of workers, across the chunks of results.
func TestRead_ListReadWholeItemLines(t *testing.T) {
	const n = 3*resultChunk + 7
	var b strings.Builder
	b.WriteString("{\"kind\":\"List\",\"items\":[\r\n")
	breaks := []string{"\n", "\r\n", "\r"}
	wantLine, wantOffset := make([]int, n), make([]int64, n)
	line := 2
	for i := range n {
		if i > 0 {
			b.WriteString(",")
			if i%3 == 0 {
				b.WriteString(breaks[i%len(breaks)] + "  ")
				line++
			}
		}
		wantLine[i], wantOffset[i] = line, int64(b.Len())
		if i%2 == 0 {
			b.WriteString(`{"kind":"Service","apiVersion":"v1",` + breaks[i%len(breaks)] + `"metadata":{"name":"s` + strconv.Itoa(i) + `"}}`)
			line++
		} else {
			b.WriteString("0")
		}
	}
	b.WriteString("]}\n")
	for _, w := range []Workers{1, 2} {
		d := NewDecoder(strings.NewReader(b.String()), "in", w)
		for i := range n {
			obj, err := d.Next()
			var pos Position
			switch de := (*DecodeError)(nil); {
			case i%2 == 0 && err == nil && obj.Ref.Name == "s"+strconv.Itoa(i):
				pos = obj.Position
			case i%2 == 1 && errors.As(err, &de):
				pos = de.Position
			default:
				t.Fatalf("Workers(%d): item %d: %+v, %v", w, i, obj.Ref, err)
			}
			if pos.Line != wantLine[i] || pos.Offset != wantOffset[i] || pos.Item != "items["+strconv.Itoa(i)+"]" {
				t.Fatalf("Workers(%d): item %d at %+v, want line %d, byte %d", w, i, pos, wantLine[i], wantOffset[i])
			}
		}
		if _, err := d.Next(); err != io.EOF {
			t.Errorf("Workers(%d): after the items: %v", w, err)
		}
		d.Close()
	}
}

// Close ends the goroutine decoding a List read whole whose results the
// caller stopped taking: it does not wait to hand on its next chunk.
func TestRead_CloseEndsADecodingLeftWaiting(t *testing.T) {
	before := runtime.NumGoroutine()
	list := `{"kind":"List","items":[` + strings.Repeat(`0,`, 4*resultChunk) + svcJSON("last") + `]}`
	d := NewDecoder(strings.NewReader(list), "in", Workers(1))
	if _, err := d.Next(); err == nil {
		t.Fatal("the first item, a number, read as an object")
	}
	d.Close()
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 10 s after Close, %d before the Decoder", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBufferSize: an input known to be small is read with a buffer of its
// size (at least 4 KiB), not readSize: a directory of many small manifests
// is many inputs. An input of unknown size, such as a pipe, gets readSize.
func TestBufferSize(t *testing.T) {
	dir := t.TempDir()
	small := dir + "/small.json"
	if err := os.WriteFile(small, []byte(svcJSON("a")), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(small)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	tests := []struct {
		name string
		in   io.Reader
		want int
	}{
		{"a small file", file, 4 << 10},
		{"a bytes.Reader", bytes.NewReader(make([]byte, 100<<10)), 100 << 10},
		{"a strings.Reader over readSize", strings.NewReader(strings.Repeat(" ", 2*readSize)), readSize},
		{"a pipe", pr, readSize},
		{"a reader of unknown size", io.MultiReader(strings.NewReader("{}")), readSize},
	}
	for _, tt := range tests {
		if got := bufferSize(tt.in); got != tt.want {
			t.Errorf("%s: bufferSize = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// grownFile is a file whose size, when it was read, was less than it holds
// now: one still being written.
type grownFile struct {
	io.Reader
	info fs.FileInfo
}

func (g grownFile) Stat() (fs.FileInfo, error) { return g.info, nil }

// TestRead_FileGrownSinceItsSize: the buffer sized to a file's size grows
// when the file has grown, also where the format is not yet known (white
// space past the buffer's size), and the input is read as it would be
// whole.
func TestRead_FileGrownSinceItsSize(t *testing.T) {
	small := t.TempDir() + "/small"
	if err := os.WriteFile(small, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(small)
	if err != nil {
		t.Fatal(err)
	}
	space := strings.Repeat(" ", 10000)
	for _, in := range []string{space + svcJSON("a") + svcJSON("b"), strings.Repeat(" \n", 5000) + svcYAML("a") + "---\n" + svcYAML("b")} {
		objs, errs := decodeAll(t, grownFile{strings.NewReader(in), info})
		if got := names(objs); got != "a,b" || len(errs) > 0 {
			t.Errorf("%.20q...: objects %q, errors %v; want a,b and none", strings.TrimSpace(in), got, errs)
		}
	}
}

// stalling hands out data, then waits for more, as a watch does, until
// release is closed: waiting is closed once the Decoder asks for more.
type stalling struct {
	data             string
	waiting, release chan struct{}
}

func (s *stalling) Read(p []byte) (int, error) {
	if s.data == "" {
		select {
		case <-s.waiting:
		default:
			close(s.waiting)
		}
		<-s.release
		return 0, io.EOF
	}
	n := copy(p, s.data)
	s.data = s.data[n:]
	return n, nil
}

// readInterrupted reads in, which then waits for more, as an interrupted
// check does: it takes the objects handed out until the Decoder waits for
// the input with nothing left to hand out, and returns their names and what
// Unfinished says then.
func readInterrupted(t *testing.T, in string) (string, *Position) {
	t.Helper()
	r := &stalling{data: in, waiting: make(chan struct{}), release: make(chan struct{})}
	d := NewDecoder(r, "-", MaxObjectBytes(150)) // a List of JSON read item by item
	defer func() { close(r.release); d.Close() }()
	var objs []Object
	for range 1000 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		obj, err := d.NextContext(ctx)
		cancel()
		switch {
		case err == nil:
			objs = append(objs, obj)
		case !errors.Is(err, context.DeadlineExceeded):
			t.Fatalf("%q: %v", in, err)
		}
		select {
		case <-r.waiting:
			if err != nil && d.next == nil && len(d.pending) == 0 {
				return names(objs), d.Unfinished()
			}
		default:
		}
	}
	t.Fatalf("%q: the Decoder never waited for more", in)
	return "", nil
}

// An interrupt ends a read with a document begun and not ended (section 8:
// an interrupted check reports what was read): Unfinished says where it
// starts, so that the check can say it did not check it. A YAML document
// is ended only by the next "---" (or "...", or the end of the input): so
// is the last of "kubectl get -w -o yaml". White space, comments and a
// "---" alone begin nothing. Objects not yet handed out come first. Of a
// JSON List read item by item, or a top-level array, the item being read
// is named, as a YAML List's is, and between items the List.
func TestRead_InterruptedDocumentIsNamed(t *testing.T) {
	json := svcJSON("b")
	list := "apiVersion: v1\nkind: List\nitems:\n- kind: Service\n  apiVersion: v1\n  metadata:\n    name: a\n- kind: Service\n"
	for _, tc := range []struct {
		name, in, objs string
		want           *Position
	}{
		{"YAML, the first", svcYAML("a"), "", &Position{Source: "-", Document: 1, Line: 1, Offset: -1}},
		{"YAML, the next", svcYAML("a") + "---\n" + svcYAML("b"), "a", &Position{Source: "-", Document: 2, Line: 9, Offset: -1}},
		{"YAML, the next after comments", svcYAML("a") + "---\n# b\n\n" + svcYAML("b"), "a", &Position{Source: "-", Document: 2, Line: 11, Offset: -1}},
		{"YAML, a List's item", list, "a", &Position{Source: "-", Document: 1, Item: "items[1]", Line: 8, Offset: -1}},
		{"YAML, none after ---", svcYAML("a") + "---\n", "a", nil},
		{"YAML, none after --- and a comment", svcYAML("a") + "---\n# next\n\n", "a", nil},
		{"YAML, none after ...", svcYAML("a") + "...\n", "a", nil},
		{"JSON, the next", svcJSON("a") + "\n\n" + json[:30], "a", &Position{Source: "-", Document: 2, Line: 3, Offset: int64(len(json) + 2)}},
		{"JSON, one brace", svcJSON("a") + " {", "a", &Position{Source: "-", Document: 2, Line: 1, Offset: int64(len(json) + 1)}},
		{"JSON, a List's item", `{"kind":"List","items":[` + svcJSON("a") + "," + json[:30], "a", &Position{Source: "-", Document: 1, Item: "items[1]", Line: 1, Offset: int64(len(json) + 25)}},
		{"JSON, a List's items' item", `{"kind":"List","items":[{"kind":"List","items":[` + svcJSON("a") + ",\n" + json[:30], "a", &Position{Source: "-", Document: 1, Item: "items[0].items[1]", Line: 2, Offset: int64(len(json) + 50)}},
		{"JSON, an array's item", "[" + svcJSON("a") + "," + json[:30], "a", &Position{Source: "-", Document: 1, Item: "items[1]", Line: 1, Offset: int64(len(json) + 2)}},
		{"JSON, a List between items", `{"kind":"List","items":[` + svcJSON("a") + "," + svcJSON("a") + ",", "a,a", &Position{Source: "-", Document: 1, Line: 1, Offset: 0}},
		{"JSON, none after the last", svcJSON("a") + "\n \n", "a", nil},
		{"white space", "\n \n", "", nil},
	} {
		objs, got := readInterrupted(t, tc.in)
		if objs != tc.objs || positionOf(got) != positionOf(tc.want) {
			t.Errorf("%s: objects %q, Unfinished %s; want %q, %s", tc.name, objs, positionOf(got), tc.objs, positionOf(tc.want))
		}
	}
}

func positionOf(p *Position) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%+v", *p)
}

// The objects read before an unfinished document are handed out first:
// until they are, Unfinished says nothing, since it would not name the
// first object that an interrupted check did not check. Once the input
// has ended, nothing is unfinished.
func TestRead_UnfinishedAfterTheObjectsBefore(t *testing.T) {
	r := &stalling{data: svcYAML("a") + "---\n" + svcYAML("b"), waiting: make(chan struct{}), release: make(chan struct{})}
	d := NewDecoder(r, "-")
	defer d.Close()
	d.start.Do(d.run)
	<-r.waiting
	if p := d.Unfinished(); p != nil {
		t.Errorf("with a not handed out: Unfinished %s, want none", positionOf(p))
	}
	close(r.release) // the end of the input ends b
	for _, want := range []string{"a", "b"} {
		if obj, err := d.Next(); err != nil || obj.Ref.Name != want {
			t.Fatalf("%+v, %v; want %s", obj.Ref, err, want)
		}
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("%v, want io.EOF", err)
	}
	if p := d.Unfinished(); p != nil {
		t.Errorf("at the end of the input: Unfinished %s, want none", positionOf(p))
	}
}

// What an input error quotes from the input, a watch ERROR's message or
// the name of the field at fault, is escaped, as names are.
func TestDecodeError_EscapesWhatItQuotes(t *testing.T) {
	for name, in := range map[string]string{
		"message": `{"type":"ERROR","object":{"kind":"Status","message":"\u001b[2J"}}`,
		"field":   `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"spec":{"\u001b[2J":1,"\u001b[2J":2}}`,
	} {
		_, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 || strings.Contains(errs[0].Error(), "\x1b") || !strings.Contains(errs[0].Error(), `\x1b[2J`) {
			t.Errorf("%s: errors %q, want one quoting \\x1b[2J escaped", name, errs)
		}
	}
}

// A MODIFIED watch event is neither an ADDED nor a DELETED one: its object
// is marked neither, for only an ADDED one can say that the watch listed
// again.
func TestDecode_WatchEventModifiedIsNotAdded(t *testing.T) {
	objs, errs := decodeAll(t, strings.NewReader(`{"type":"MODIFIED","object":`+svcJSON("a")+`}`))
	if len(errs) != 0 || len(objs) != 1 || objs[0].Added || objs[0].Deleted {
		t.Errorf("objects %+v, errors %v; want a, neither added nor deleted", objs, errs)
	}
}

// Characters on either side of the range UTF-16 keeps for its surrogate
// pairs are no surrogates: UTF-16 that holds them is read.
func TestRead_UTF16NextToTheSurrogates(t *testing.T) {
	const name = "\uD7FF\uE000"
	for _, big := range []bool{false, true} {
		objs, errs := decodeAll(t, bytes.NewReader(utf16Text(big, svcJSON(name))))
		if len(errs) != 0 || names(objs) != name {
			t.Errorf("big-endian %t: objects %q, errors %v; want %q", big, names(objs), errs, name)
		}
	}
}
