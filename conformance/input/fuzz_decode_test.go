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
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzDecode: the reader does not panic or loop on any input, every
// problem is a one-line DecodeError, every object is what it says, and the
// transcript is the same whether objects are decoded by one goroutine
// or by several, whatever the size of the read buffer or of each read of
// the input (before each, the objects split so far are handed on),
// whatever the line breaks (LF, CRLF or CR: only offsets change), and
// whatever the encoding of valid UTF-8: UTF-16 reads the same (offsets
// are the UTF-8 text's), and so does UTF-8 after a byte order mark, three
// bytes on.
func FuzzDecode(f *testing.F) {
	seed.Add(f, "case-0", []byte(svcJSON("a")+svcJSON("b")))
	seed.Add(f, "case-1", []byte(`{"kind":"List","items":[{"metadata":{"name":"a"}}]}`))
	seed.Add(f, "case-2", []byte(`{"type":"DELETED","object":{"kind":"Service","metadata":{"name":"a"}}}`))
	seed.Add(f, "case-3", []byte("kind: Service\napiVersion: v1\nmetadata: {name: a}\n---\nkind: List\nitems: []\n"))
	seed.Add(f, "case-4", []byte(`[{"a":1},{"b":[1,2,{"c":"\"}"}]}]`))
	seed.Add(f, "case-5", []byte(`{"kind":"Service","apiVersion":"v1","status":{"conditions":[{"type":"LoadBalancerServing","status":"True"}]}}`))
	seed.Add(f, "yaml-list", []byte("apiVersion: v1\nitems:\n- kind: Service\n  apiVersion: v1\n  metadata: {name: a}\n- metadata:\n    name: b\nkind: List\n"))
	seed.Add(f, "events", []byte(`[{"object":{"metadata":{"name":"a"}},"type":"DELETED"},{"type":"BOOKMARK","object":{}},{"type":"ERROR","object":{"message":"gone"}}]`))
	seed.Add(f, "utf16", []byte("\xff\xfe{\x00}\x00"))
	seed.Add(f, "lines", []byte("{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"metadata\": {\"name\": \"a\"}},\n    {\"metadata\": {\"name\": 1}}\n  ]\n}\n{\n  \"kind\": \"Service\",\n  \"metadata\": {\"name\": \"b\"}\n}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		one := transcript(t, in, Workers(1))
		if several := transcript(t, in, Workers(3)); several != one {
			t.Fatalf("the transcript depends on the number of decoding goroutines:\n%s\nagainst\n%s", one, several)
		}
		if pieces := transcript(t, in, Workers(1), readBuffer(16)); pieces != one {
			t.Fatalf("the transcript depends on the size of the read buffer:\n%s\nagainst\n%s", one, pieces)
		}
		if bytewise := transcript(t, in, Workers(3), oneByteReads{}); bytewise != one {
			t.Fatalf("the transcript depends on how much each read of the input returns:\n%s\nagainst\n%s", one, bytewise)
		}
		// Line breaks do not matter but for offsets, in a text without CRs
		// that is not UTF-16, whose units they would change.
		isUTF16 := bytes.HasPrefix(in, []byte("\xFF\xFE")) || bytes.HasPrefix(in, []byte("\xFE\xFF"))
		if bytes.IndexByte(in, '\r') < 0 && !isUTF16 {
			want := offsets.ReplaceAllString(one, "(offset)")
			for _, brk := range []string{"\r\n", "\r"} {
				got := transcript(t, bytes.ReplaceAll(in, []byte("\n"), []byte(brk)), Workers(1))
				// A message may quote the break, escaped.
				got = strings.ReplaceAll(strings.ReplaceAll(got, `\r\n`, `\n`), `\r`, `\n`)
				if got = offsets.ReplaceAllString(got, "(offset)"); got != want {
					t.Fatalf("the transcript with line breaks %q differs from LF's, but for offsets:\n%s\nagainst\n%s", brk, got, want)
				}
			}
		}
		// A text that starts with a byte order mark or a NUL is left out:
		// in UTF-16, after the mark, it would start with two (or read as
		// UTF-32, whose mark is UTF-16's and a NUL).
		if !utf8.Valid(in) || bytes.HasPrefix(in, []byte("\uFEFF")) || bytes.HasPrefix(in, []byte{0}) {
			return
		}
		for _, big := range []bool{false, true} {
			if got := transcript(t, utf16Text(big, string(in)), Workers(1)); got != one {
				t.Fatalf("the transcript of UTF-16 (big-endian: %v) differs from UTF-8's:\n%s\nagainst\n%s", big, got, one)
			}
		}
		want := offsets.ReplaceAllStringFunc(one, func(m string) string {
			i := strings.LastIndexAny(m, ": ") + 1
			n, _ := strconv.Atoi(m[i:])
			return m[:i] + strconv.Itoa(n+3)
		})
		if got := transcript(t, append([]byte("\uFEFF"), in...), Workers(1)); got != want {
			t.Fatalf("the transcript after a byte order mark is not three bytes on:\n%s\nagainst\n%s", got, want)
		}
	})
}

// oneByteReads makes each read of the input return one byte, as a slow
// pipe may: the objects split so far are then handed on at every byte.
type oneByteReads struct{}

func (oneByteReads) applyDecoder(d *Decoder) { d.in = iotest.OneByteReader(d.in) }

// offsets are the byte offsets in a transcript.
var offsets = regexp.MustCompile(`Offset:\d+|byte \d+\b`)

// transcript decodes in with the given options and returns what came out,
// object by object and error by error.
func transcript(t *testing.T, in []byte, opts ...DecoderOption) string {
	var b strings.Builder
	d := NewDecoder(bytes.NewReader(in), "fuzz", append([]DecoderOption{MaxObjectBytes(1 << 16)}, opts...)...)
	for i := 0; ; i++ {
		if i > len(in)+10 {
			t.Fatalf("more results than bytes: the decoder does not end")
		}
		obj, err := d.Next()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Error() == "" || strings.Contains(de.Error(), "\n") {
				t.Fatalf("error %T %q is not a one-line DecodeError", err, err)
			}
			b.WriteString(de.Error() + "\n")
			continue
		}
		if obj.Service != nil && (obj.Kind != "Service" || obj.Ref.Name != obj.Service.Name) {
			t.Fatalf("object %+v does not match its Service", obj.Ref)
		}
		fmt.Fprintf(&b, "%s %s %+v %v\n", obj.Kind, obj.Ref, obj.Position, obj.Deleted)
	}
}
