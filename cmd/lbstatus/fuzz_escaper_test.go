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

package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzJSONEscaper writes what `check -o json` and `watch -o json` write
// (JSON from encoding/json, a name and a message taken from the input)
// through jsonEscaper, whole and in writes of 1 to 16 bytes that split
// runes wherever they fall, and holds it to its promise: the same output
// however the writes fall, each Write taking all it was given, the same
// JSON value once decoded, and no control character but the line breaks
// between values, no DEL and no format character (a bidirectional
// override, a zero-width joiner) left raw. Written raw, s itself (bytes
// that may not be UTF-8) comes out valid UTF-8, however the writes fall.
func FuzzJSONEscaper(f *testing.F) {
	for name, s := range map[string]string{
		"plain":           "web",
		"rlo":             "\u202egnp.exe",
		"del-c1":          "a\x7fb\u0085c\u009b31m",
		"bom-zwj-tag":     "\ufeffx\u200dy\U000e0001z",
		"escape-sequence": "\x1b[2J\x1b]8;;http://x\x07",
		"markup":          "<script>alert(1)</script>&",
		"invalid-utf8":    "\xe2\x80\xff\xc3",
		"line-separators": "a\u2028b\u2029c\r\n",
		"astral":          "\U0001f600\U0001d173",
	} {
		seed.Add(f, name, s, uint64(0x123456789abcdef0))
	}
	f.Fuzz(func(t *testing.T, s string, splits uint64) {
		doc := map[string]any{"object": map[string]string{"name": s}, "message": "has " + s, "count": len(s)}
		var in bytes.Buffer
		if err := json.NewEncoder(&in).Encode(doc); err != nil {
			t.Fatal(err)
		}
		in.WriteString("{\"summary\": ")
		if err := json.NewEncoder(&in).Encode(s); err != nil {
			t.Fatal(err)
		}
		in.WriteString("}\n")

		raw := escapeJSON(t, []byte(s), func(int) int { return len(s) })
		if !utf8.Valid(raw) || !bytes.Equal(raw, escapeJSON(t, []byte(s), func(k int) int { return 1 + int(splits>>(4*(k%16))&15) })) {
			t.Fatalf("%q written raw: %q, not valid UTF-8 or not the same however the writes fall", s, raw)
		}

		whole := escapeJSON(t, in.Bytes(), func(int) int { return in.Len() })
		split := escapeJSON(t, in.Bytes(), func(k int) int { return 1 + int(splits>>(4*(k%16))&15) })
		if !bytes.Equal(whole, split) {
			t.Fatalf("the output depends on how the writes fall:\n%q\n%q", whole, split)
		}
		if !utf8.Valid(whole) {
			t.Fatalf("the output is not valid UTF-8: %q", whole)
		}
		for i, r := range string(whole) {
			if r != '\n' && (r == 0x7f || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("%U is raw at byte %d of %q", r, i, whole)
			}
		}
		want, got := json.NewDecoder(bytes.NewReader(in.Bytes())), json.NewDecoder(bytes.NewReader(whole))
		for {
			var a, b any
			errA, errB := want.Decode(&a), got.Decode(&b)
			if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
				t.Fatalf("the escaped JSON means another thing:\n%q (%v)\n%q (%v)", in.Bytes(), errA, whole, errB)
			}
			if errA != nil {
				break
			}
		}
	})
}

// escapeJSON writes p through a jsonEscaper in writes of size(k) bytes,
// k counting from 0, and returns what it wrote.
func escapeJSON(t *testing.T, p []byte, size func(k int) int) []byte {
	t.Helper()
	var out bytes.Buffer
	e := &jsonEscaper{w: &out}
	for k := 0; len(p) > 0; k++ {
		chunk := p[:min(len(p), size(k))]
		if n, err := e.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
		p = p[len(chunk):]
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The start of a rune whose end the next write does not bring is not
// UTF-8: it was written raw, and the output with it was not valid JSON.
// It is \ufffd, as encoding/json writes such a byte.
func TestJSONEscaper_IncompleteRuneThenMore(t *testing.T) {
	for _, writes := range [][]string{
		{`"a` + "\xe2\x80", `b"`},
		{`"a` + "\xe2", "\x80", `b"`},
		{`"a` + "\xe2\x80" + `b"`},
	} {
		var out bytes.Buffer
		e := &jsonEscaper{w: &out}
		for _, w := range writes {
			if _, err := e.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := `"a\ufffd\ufffdb"`; out.String() != want {
			t.Errorf("writes %q: got %q, want %q", writes, out.String(), want)
		}
	}
}
