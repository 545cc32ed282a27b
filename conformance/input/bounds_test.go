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
	"io"
	"math"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

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

// An item the splitter hands out (of a List read item by item, of a
// top-level JSON array, of a YAML List) is as deep as in its List read
// whole: watch events nested to the bound and past it are read, or
// refused, the same whatever the limit and the format.
func TestRead_NestingBoundItemByItem(t *testing.T) {
	for _, tc := range []struct {
		events, errs int
		want         string
	}{{maxNesting - 1, 0, "a,d"}, {maxNesting, 1, "a"}} {
		item := svcJSON("d")
		for range tc.events {
			item = `{"type":"ADDED","object":` + item + `}`
		}
		list := `{"kind":"List","items":[` + svcJSON("a") + `,` + item + `]}`
		for name, in := range map[string]string{
			"list": list, "array": `[` + svcJSON("a") + `,` + item + `]`, "yaml": "kind: List\nitems:\n- " + svcJSON("a") + "\n- " + item + "\n",
		} {
			for _, limit := range []int{DefaultMaxObjectBytes, len(list) - 10} { // read whole, and item by item
				objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
				if names(objs) != tc.want || len(errs) != tc.errs {
					t.Errorf("%s, %d events, limit %d: objects %q, errors %v; want %s", name, tc.events, limit, names(objs), errs, tc.want)
				}
			}
		}
	}
}

// membersReader is a List whose items come first, followed by n members
// after them, and notes the most heap in use while it is read.
type membersReader struct {
	n, i  int
	buf   []byte
	reads int
	peak  uint64
}

func (m *membersReader) Read(p []byte) (int, error) {
	if m.reads++; m.reads%8 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m.peak = max(m.peak, ms.HeapAlloc)
	}
	for len(m.buf) < len(p) && m.i <= m.n {
		switch {
		case m.i == 0:
			m.buf = append(m.buf, `{"kind":"List","items":[`+svcJSON("a")+`]`...)
		case m.i == m.n:
			m.buf = append(m.buf, '}')
		default:
			m.buf = fmt.Appendf(m.buf, `,"m%09d":0`, m.i)
		}
		m.i++
	}
	if len(m.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, m.buf)
	m.buf = m.buf[n:]
	return n, nil
}

// The members of a List read item by item are kept up to the limit, not
// past it however many there are: memory is bounded by the limit, not by
// the input. The List is reported as over the limit.
func TestRead_ListMembersPastTheLimitAreNotKept(t *testing.T) {
	const members = 1 << 20 // 16 MiB of them
	r := &membersReader{n: members}
	// Garbage collected often, the heap's peak is what is kept, whatever
	// other tests left live before this one.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	objs, errs := decodeAll(t, r, MaxObjectBytes(1000), Workers(1))
	if names(objs) != "a" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "larger than the limit") {
		t.Errorf("objects %q, errors %v; want a and the List over the limit", names(objs), errs)
	}
	if grown := r.peak - min(r.peak, ms.HeapAlloc); grown > 8<<20 {
		t.Errorf("the heap grew by %d MiB reading 16 MiB of a List's members under a limit of 1000 bytes", grown>>20)
	}
}

// A number exactly as long as the limit is not over it, though jsontext
// sees where it ends only at the byte after it: between objects, or as an
// item of a List read item by item, it is reported and what follows it is
// read.
func TestRead_NumberAtTheLimit(t *testing.T) {
	const limit = 200
	num := strings.Repeat("1", limit)
	for name, in := range map[string]string{
		"top level": svcJSON("a") + " " + num + " " + svcJSON("z"),
		"list item": `{"kind":"List","items":[` + svcJSON("a") + `,` + num + `,` + svcJSON("z") + `]}`,
	} {
		for _, rb := range []int{0, 16} {
			objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit), readBuffer(rb))
			if names(objs) != "a,z" || len(errs) != 1 || errs[0].Fatal {
				t.Errorf("%s, read buffer %d: objects %q, errors %v; want a,z and one error, not fatal", name, rb, names(objs), errs)
			}
		}
	}
}

// A number over the limit, which cannot be skipped without holding it
// either, ends the input as a string over it does, and is called a number.
func TestRead_NumberOverTheLimitIsNamed(t *testing.T) {
	in := `{"kind":"List","items":[` + svcJSON("a") + `,{"kind":"Foo","n":` + strings.Repeat("1", 300) + `}]}`
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(200))
	if names(objs) != "a" || len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "a number larger than the limit") {
		t.Errorf("objects %q, errors %v; want a and one fatal error naming a number", names(objs), errs)
	}
}

// A value jsontext had read ahead whole, though over the limit, is read
// as one it had not: a string over the limit in it ends the input with
// the same message, at the string, not at the value.
func TestRead_StringOverTheLimitInAValueReadAhead(t *testing.T) {
	const limit = 1000
	first := `{"kind":"Foo","p":"` + strings.Repeat("x", limit-21) + `"}` // exactly the limit
	in := first + `{"kind":"Foo","p":"` + strings.Repeat("y", limit+2) + `"}` + svcJSON("z")
	for _, rb := range []int{0, 16} {
		_, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit), readBuffer(rb))
		if len(errs) != 1 || !errs[0].Fatal || errs[0].Position.Offset != int64(len(first))+18 || !strings.Contains(errs[0].Error(), "a string larger than the limit") {
			t.Errorf("read buffer %d: errors %v; want one, fatal, naming a string at byte %d", rb, errs, len(first)+18)
		}
	}
}

// A member of the wrong type before the items of a List read item by item
// drops the items also when a later member, still before them, is over the
// limit: the members kept up to it are checked when the items begin.
func TestRead_ListMemberOfTheWrongTypeBeforeAMemberOverTheLimit(t *testing.T) {
	pad := `"metadata":{"annotations":{"p":"` + strings.Repeat("x", 200) + `"}}`
	in := `{"kind":"List","apiVersion":5,` + pad + `,"items":[` + svcJSON("a") + `,` + svcJSON("b") + `]}`
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(250))
	if len(objs) != 0 || len(errs) != 1 {
		t.Errorf("objects %q, errors %v; want none and one error", names(objs), errs)
	}
}

// White space between values is held by the tokenizer while it looks for
// the next one, so it is bounded as a value is: up to the limit it is
// read through, past it the input ends with an error that says so, instead
// of the reader holding all of it (section 8, memory bounded).
func TestRead_WhiteSpaceBetweenValuesIsBounded(t *testing.T) {
	const limit = 1000
	for _, tc := range []struct {
		spaces    int
		names     string
		whiteOver bool
	}{{limit - 10, "a,b", false}, {limit + 10, "a", true}, {1 << 20, "a", true}} {
		for _, rb := range []int{0, 16} {
			in := svcJSON("a") + strings.Repeat(" ", tc.spaces) + svcJSON("b")
			objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit), readBuffer(rb))
			over := len(errs) == 1 && errs[0].Fatal && strings.Contains(errs[0].Error(), "white space larger than the limit")
			if names(objs) != tc.names || over != tc.whiteOver || !over && len(errs) != 0 {
				t.Errorf("%d spaces, read buffer %d: objects %q, errors %v; want %s and white space over the limit: %v", tc.spaces, rb, names(objs), errs, tc.names, tc.whiteOver)
			}
		}
	}
}

// A kind given twice before the items of a List read item by item drops
// the items, as when the List is read whole, also when the second kind is
// past the limit and so not kept: which one is the items' kind is in doubt.
// The error says why, where the second kind is.
func TestRead_ListKindTwiceBeforeTheItemsPastTheLimit(t *testing.T) {
	pad := `"metadata":{"annotations":{"p":"` + strings.Repeat("x", 150) + `","q":"` + strings.Repeat("x", 150) + `"}}`
	for _, tc := range []struct{ second, value string }{
		{`"kind"`, `"List"`},
		{`"k\u0069nd"`, `"List"`},
		{`"kind"`, `"` + strings.Repeat("L", 230) + `"`}, // the second kind's own value goes past the limit
	} {
		head := `{"kind":"ConfigMapList",` + pad + `,`
		if len(tc.value) > 100 {
			head = `{"kind":"ConfigMapList",`
		}
		in := head + tc.second + `:` + tc.value + `,"items":[` + svcJSON("a") + `,` + svcJSON("b") + `]}`
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(250))
		if len(objs) != 0 || len(errs) != 1 || errs[0].Field != "kind" || errs[0].Position.Offset != int64(len(head)) ||
			!strings.Contains(errs[0].Error(), `duplicate member name "kind"`) {
			t.Errorf("second kind %s: objects %q, errors %v; want none and one naming the duplicate kind at byte %d", tc.second, names(objs), errs, len(head))
		}
	}
	// Once the items have begun, they are the first kind's, as documented.
	in := `{"kind":"List","items":[` + svcJSON("a") + `],` + pad + `,"kind":"ConfigMapList"}`
	if objs, _ := decodeAll(t, strings.NewReader(in), MaxObjectBytes(250)); names(objs) != "a" {
		t.Errorf("kind after the items: objects %q; want a", names(objs))
	}
}

// A document whose column-0 "items:" lines sit in a quoted value is parsed
// for them in all at most twice its length, not once per line: 2,000 such
// lines took the square of that (0.2 s here, and hours for a document at
// the limit). A List whose true "items:" follows one of them is still read
// item by item.
func TestRead_YAMLItemsLinesInAQuotedValueParsedInLinearTime(t *testing.T) {
	in := "kind: List\nx: \"\n" + strings.Repeat("items:\n", 2000) + "\"\n"
	sp, de := NewDecoder(strings.NewReader(in), "in").open(func() bool { return true })
	if de != nil {
		t.Fatal(de)
	}
	ys := sp.(*yamlSplitter)
	most := 0
	ys.split(func(job) bool {
		most = max(most, ys.parsed)
		return true
	})
	if most > 2*len(in) {
		t.Errorf("parsed %d bytes for the \"items:\" lines of a document of %d; want at most twice its length", most, len(in))
	}

	list := "kind: List\nx: \"\nitems:\n\"\nitems:\n- " + svcJSON("a") + "\n- " + svcJSON("b") + "\n"
	objs, errs := decodeAll(t, strings.NewReader(list), MaxObjectBytes(len(list)-1))
	if names(objs) != "a,b" || len(errs) != 0 {
		t.Errorf("objects %q, errors %v; want a,b read item by item", names(objs), errs)
	}
}

// The YAML parser lists every problem of a document, a line each: a List
// whose own members held a key given 200,000 times made one error of 8 MB.
// A message names the first three, at their input lines, and counts the
// rest.
func TestRead_YAMLProblemsListedInAMessageAreBounded(t *testing.T) {
	in := "kind: List\nitems:\n- " + svcJSON("a") + "\n" + strings.Repeat("x: 1\n", 6)
	objs, errs := decodeAll(t, strings.NewReader(in))
	want := `line 5: key "x" already set in map line 6: key "x" already set in map line 7: key "x" already set in map (and 2 more);`
	if names(objs) != "a" || len(errs) != 1 || !strings.Contains(errs[0].Error(), want) {
		t.Errorf("objects %q, errors %v; want a, and one error holding %q", names(objs), errs, want)
	}
}

// A List read item by item whose kind, before its items, is itself over
// the limit cannot say its items' kind: they were handed out as Services.
// They are dropped, with an error at the kind; a kind under the limit, in
// members past it, still gives theirs.
func TestRead_ListKindOverTheLimitDropsTheItems(t *testing.T) {
	const limit = 40
	item := `{"metadata":{"name":"a"}}`
	for name, kind := range map[string]string{
		"string":        `"` + strings.Repeat("X", limit-1) + `"`, // read token by token, a string may be one byte over
		"object":        `{"k":"` + strings.Repeat("x", 30) + `"}`,
		"invalid UTF-8": `"` + strings.Repeat("X", 32) + "\xff" + `"`,
	} {
		in := `{"kind":` + kind + `,"items":[` + item + `]}`
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
		if len(objs) != 0 || len(errs) != 1 || errs[0].Field != "kind" || errs[0].Position.Offset != 8 || !strings.Contains(errs[0].Error(), "its items' kind is not known") {
			t.Errorf("%s: objects %q, errors %v; want none, and one error at the kind's value saying its items' kind is not known", name, names(objs), errs)
		}
	}
	x := `"` + strings.Repeat("x", 30) + `"`
	in := `{"kind":"ConfigMapList","metadata":{"annotations":{"a":` + x + `,"b":` + x + `}},"items":[` + item + `]}`
	objs, _ := decodeAll(t, strings.NewReader(in), MaxObjectBytes(limit))
	if len(objs) != 1 || objs[0].Kind != "ConfigMap" {
		t.Errorf("objects %+v; want one ConfigMap", objs)
	}
}

// cutAt matches text cut after a whole "é", saying how much more it had.
var cutAt = regexp.MustCompile(`é… \(\d+ more bytes\)`)

// What an error takes from the input is cut: an ERROR event's message, a
// name and a field of the size limit each made an error line, and a kept
// error of a report, of that size (300 such events took 1.5 GB with -o
// json).
func TestRead_ErrorTextFromTheInputIsCut(t *testing.T) {
	long := strings.Repeat("é", MaxTextBytes) // two bytes each: cut at a character
	for name, in := range map[string]string{
		"message": `{"type":"ERROR","object":{"kind":"Status","message":"` + long + `"}}`,
		"name":    `{"kind":"Service","apiVersion":"v1","metadata":{"name":"` + long + `","namespace":"` + long + `"},"spec":{"type":5}}`,
		"field":   `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"spec":{"` + long + `":1,"` + long + `":2}}`,
	} {
		_, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 {
			t.Fatalf("%s: errors %v, want one", name, errs)
		}
		msg := errs[0].Error()
		if len(msg) > 4*MaxTextBytes || !cutAt.MatchString(msg) || strings.Contains(msg, "\\x") {
			t.Errorf("%s: an error of %d bytes, want at most %d, each long part cut after a whole character saying how much more there was: %.300s", name, len(msg), 4*MaxTextBytes, msg)
		}
	}
}

// A YAML List whose items are followed by members, then by items again,
// over and over (each "items:" after the first an input error), notes
// where each stretch of its members starts only while it holds them: past
// the limit, where they are no longer held nor parsed, it noted 16 bytes a
// stretch, and its memory grew as the input did.
func TestRead_YAMLListMemberStretchesPastTheLimitAreNotKept(t *testing.T) {
	const stretches = 100_000
	in := "kind: List\n" + strings.Repeat("items:\n- {}\nx: 1\n", stretches)
	sp, _ := NewDecoder(strings.NewReader(in), "in", MaxObjectBytes(1000)).open(func() bool { return true })
	s := sp.(*yamlSplitter)
	most, over := 0, false
	s.split(func(j job) bool {
		most = max(most, len(s.stretches))
		over = j.err != nil && strings.Contains(j.err.Error(), "larger than the limit")
		return true
	})
	if most > 1000 || !over {
		t.Errorf("%d stretches noted at most, the List over the limit %v; want at most 1000, and the List over the limit", most, over)
	}
}

// Clip keeps a string as long as a valid reason may be whole.
func TestClip_KeepsMaxTextBytesWhole(t *testing.T) {
	s := strings.Repeat("a", MaxTextBytes)
	if got := Clip(s); got != s {
		t.Errorf("Clip of %d bytes cut it: %q", MaxTextBytes, got)
	}
	if got, want := Clip(s+"b"), s+"… (1 more bytes)"; got != want {
		t.Errorf("Clip of %d bytes = %q, want %q", MaxTextBytes+1, got, want)
	}
}

// Lists nested as deep as the reader goes, and one deeper, give the same
// objects and errors read item by item (a limit smaller than the List, which
// applies to each item, not to the List).
func TestRead_NestedListsItemByItemAsReadWhole(t *testing.T) {
	for _, depth := range []int{maxNesting, maxNesting + 1} {
		in := svcJSON("a") + "," + svcJSON("b")
		for range depth {
			in = `{"kind":"List","items":[` + in + `]}`
		}
		whole, wholeErrs := decodeAll(t, strings.NewReader(in))
		objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(len(svcJSON("a"))+10))
		if names(objs) != names(whole) || fmt.Sprint(errs) != fmt.Sprint(wholeErrs) {
			t.Errorf("%d deep: objects %q, errors %v; want as read whole: %q, %v", depth, names(objs), errs, names(whole), wholeErrs)
		}
	}
}

// An object read token by token, over the limit by the white space between
// its members alone, is reported as over the limit, not lost in silence.
func TestRead_ObjectOverTheLimitByItsWhiteSpace(t *testing.T) {
	gap := strings.Repeat(" ", 60)
	in := `{"kind":"Service",` + gap + `"apiVersion":"v1",` + gap + `"metadata":{"name":"a"},` + gap + `"spec":{}}` + svcJSON("next")
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(150))
	if names(objs) != "next" || len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), "larger than the limit") {
		t.Errorf("objects %q, errors %v; want next, and one error about the limit", names(objs), errs)
	}
}
