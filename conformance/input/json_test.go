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
	"slices"
	"strings"
	"testing"
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

// The items of a typed List carry no kind: the List's gives theirs. Read
// item by item (a YAML List always, a JSON one over the limit), a List
// whose kind follows its items, as when its members were sorted (jq -S),
// had them read as Services, where the same List read whole skips them as
// Endpoints: the input meant two things, and nothing said so. Now the kind
// is an input error; a kind of List or ServiceList there, as kubectl
// prints one, is none.
func TestRead_ListKindAfterItemsReadOneByOne(t *testing.T) {
	items := []string{`{"metadata":{"name":"a","namespace":"ns"}}`, `{"metadata":{"name":"b","namespace":"ns"}}`}
	for _, kind := range []string{"EndpointsList", "List", "ServiceList"} {
		for name, in := range map[string]string{
			"JSON": `{"apiVersion":"v1","items":[` + strings.Join(items, ",") + `],"kind":"` + kind + `","metadata":{}}`,
			"YAML": "apiVersion: v1\nitems:\n- " + items[0] + "\n- " + items[1] + "\nkind: " + kind + "\nmetadata: {}\n",
		} {
			objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(100))
			if kind != "EndpointsList" {
				if names(objs) != "a,b" || len(errs) != 0 {
					t.Errorf("%s %s: objects %q, errors %v; want a,b and none", name, kind, names(objs), errs)
				}
				continue
			}
			if len(errs) != 1 || errs[0].Field != "kind" || !strings.Contains(errs[0].Error(), `"EndpointsList" follows its items`) {
				t.Errorf("%s: errors %v; want one at the kind, saying it follows the items", name, errs)
			}
		}
	}
}

// Items that carry their own kind are read the same whatever the List's
// kind: a sorted List of them (jq -S puts "items" before "kind") is no
// input error. A kindless item, read as a Service or as a watch event,
// still makes the kind that follows one.
func TestRead_ListKindAfterSelfDescribingItems(t *testing.T) {
	own := []string{`{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"}}`, `{"kind":"Service","metadata":{"name":"b"}}`}
	for _, tc := range []struct {
		items []string
		want  string // the objects read
		err   bool   // the kind is an input error
	}{
		{own, "a,b", false},
		{[]string{own[0], `{"metadata":{"name":"b"}}`}, "a,b", true},
		{[]string{own[0], `{"type":"ADDED","object":` + own[1] + `}`}, "a,b", true},
		{[]string{own[0], `{"type":"Opaque","metadata":{"name":"s"}}`}, "a", true}, // a Secret, read as an event of no known type
	} {
		for name, in := range map[string]string{
			"JSON": `{"apiVersion":"v1","items":[` + strings.Join(tc.items, ",") + `],"kind":"EndpointsList","metadata":{}}`,
			"YAML": "apiVersion: v1\nitems:\n- " + strings.Join(tc.items, "\n- ") + "\nkind: EndpointsList\nmetadata: {}\n",
		} {
			objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(100))
			kindErr := slices.ContainsFunc(errs, func(e *DecodeError) bool { return e.Field == "kind" })
			if names(objs) != tc.want || kindErr != tc.err {
				t.Errorf("%s %v: objects %q, errors %v; want %s, and an error at the kind: %t", name, tc.items, names(objs), errs, tc.want, tc.err)
			}
		}
	}
}

// Member order never changes the meaning (section 8). A kindless item
// with a type and an object, in a ServiceList whose kind follows its items
// (jq -S), was read as a watch event item by item, before the kind, and as
// a Service without a name read whole: two objects. A ServiceList's kindless
// items are now read as a List's, whatever the order.
func TestRead_ServiceListOfEventsReadsTheSameInAnyOrder(t *testing.T) {
	item := `{"type":"ADDED","object":{"kind":"Service","metadata":{"name":"a"}}}`
	for name, in := range map[string]string{
		"sorted JSON": `{"apiVersion":"v1","items":[` + item + `],"kind":"ServiceList"}`,
		"JSON":        `{"kind":"ServiceList","apiVersion":"v1","items":[` + item + `]}`,
		"sorted YAML": "apiVersion: v1\nitems:\n- " + item + "\nkind: ServiceList\n",
		"YAML":        "kind: ServiceList\napiVersion: v1\nitems:\n- " + item + "\n",
	} {
		for _, limit := range []int{DefaultMaxObjectBytes, 80} {
			if objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit)); names(objs) != "a" || len(errs) != 0 {
				t.Errorf("%s, limit %d: objects %q, errors %v; want a and none", name, limit, names(objs), errs)
			}
		}
	}
}

// A List's kind that follows its items is an input error whenever, read
// before it, a kindless item was read other than that kind reads it: not
// only when that kind names its items' kind other than Service. Read whole,
// a "List" of kind Service holds a Service without a name, not an event.
func TestRead_ListKindAfterItemsReadAsEvents(t *testing.T) {
	item := `{"type":"ADDED","object":{"kind":"Service","metadata":{"name":"a"}}}`
	for name, in := range map[string]string{
		"JSON": `{"apiVersion":"v1","items":[` + item + `],"kind":"Service"}`,
		"YAML": "apiVersion: v1\nitems:\n- " + item + "\nkind: Service\n",
	} {
		_, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(80))
		if len(errs) != 1 || errs[0].Field != "kind" {
			t.Errorf("%s: errors %v; want one at the kind", name, errs)
		}
	}
}

// A List's kind that follows its items is no input error when every item
// carries its own kind, whatever came before it: a kindless item read
// earlier, in another document or in a List nested in it, belongs to a
// List without a kind whose items carry theirs.
func TestRead_ListKindAfterSelfDescribingItemsAfterKindlessOnes(t *testing.T) {
	for name, in := range map[string]string{
		"JSON, after a List": `{"kind":"List","items":[{"metadata":{"name":"k"}}]}` +
			`{"apiVersion":"v1","items":[{"kind":"Service","metadata":{"name":"a"}}],"kind":"EndpointsList","metadata":{}}`,
		"YAML, after a List": "kind: List\nitems:\n- metadata: {name: k}\n---\napiVersion: v1\nitems:\n- kind: Service\n  metadata: {name: a}\nkind: EndpointsList\n",
		"JSON, a List in it": `{"kind":"Service","metadata":{"name":"k"}}` +
			`{"apiVersion":"v1","items":[{"items":[{"kind":"Service","metadata":{"name":"a"}}]}],"kind":"EndpointsList","metadata":{}}`,
		"YAML, a List in it": "kind: Service\nmetadata: {name: k}\n---\napiVersion: v1\nitems:\n- items:\n  - kind: Service\n    metadata: {name: a}\nkind: EndpointsList\n",
	} {
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(100))
		if names(objs) != "k,a" || slices.ContainsFunc(errs, func(e *DecodeError) bool { return e.Field == "kind" }) {
			t.Errorf("%s: objects %q, errors %v; want k,a and no error at the kind", name, names(objs), errs)
		}
	}
}

// A null kind is no kind, as an absent one is: the object is read, of no
// kind, and is no input error.
func TestRead_NullKindIsNoKind(t *testing.T) {
	for _, kind := range []string{``, `"kind":null,`} {
		objs, errs := decodeAll(t, strings.NewReader(`{`+kind+`"metadata":{"name":"a"},"spec":{"type":5}}`))
		if names(objs) != ":a" || len(errs) != 0 {
			t.Errorf("%s: objects %q, errors %v; want a, of no kind, and none", kind, names(objs), errs)
		}
	}
}
