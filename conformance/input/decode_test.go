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
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/text/transform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"

	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

// decodeAll reads everything from input, returning the objects and the
// errors in order. It gives up after 10000 calls, so that a decoder that
// never ends fails the test instead of hanging it.
func decodeAll(t testing.TB, r io.Reader, opts ...DecoderOption) ([]Object, []*DecodeError) {
	t.Helper()
	d := NewDecoder(r, "in", opts...)
	var objs []Object
	var errs []*DecodeError
	for range 100000 {
		obj, err := d.Next()
		if err == io.EOF {
			return objs, errs
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Next returned %T %v, want a *DecodeError", err, err)
			}
			errs = append(errs, de)
			continue
		}
		objs = append(objs, obj)
	}
	t.Fatal("the decoder does not end")
	return nil, nil
}

func names(objs []Object) string {
	var out []string
	for _, o := range objs {
		n := o.Ref.Name
		if o.Service == nil {
			n = o.Kind + ":" + n
		}
		out = append(out, n)
	}
	return strings.Join(out, ",")
}

func svcYAML(name string) string {
	return "kind: Service\napiVersion: v1\nmetadata:\n  name: " + name + "\n  namespace: ns\nspec:\n  type: LoadBalancer\n"
}

func svcJSON(name string) string {
	return `{"kind":"Service","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"ns"},"spec":{"type":"LoadBalancer"}}`
}

func TestDecode_Formats(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"single JSON object", svcJSON("a"), "a"},
		{"concatenated JSON", svcJSON("a") + "\n" + svcJSON("b") + svcJSON("c"), "a,b,c"},
		{"top-level array", "[" + svcJSON("a") + ",\n " + svcJSON("b") + "]", "a,b"},
		{"List, kind after items as kubectl prints it", `{"apiVersion":"v1","items":[` + svcJSON("a") + `,` + svcJSON("b") + `],"kind":"List","metadata":{}}`, "a,b"},
		{"ServiceList from the API, items without kind", `{"kind":"ServiceList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`, "a,b"},
		{"PodList items are not Services", `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p"}}]}`, "Pod:p"},
		{"watch events", `{"type":"ADDED","object":` + svcJSON("a") + "}\n" + `{"type":"MODIFIED","object":{"metadata":{"name":"b"}}}`, "a,b"},
		{"other kinds", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"}}` + svcJSON("a"), "ConfigMap:cm,a"},
		{"a Service of another group", `{"kind":"Service","apiVersion":"serving.knative.dev/v1","metadata":{"name":"k"}}`, "Service:k"},
		{"no kind", `{"metadata":{"name":"x"}}`, ":x"},
		{"List with null items, as an empty List", `{"kind":"List","apiVersion":"v1","items":null}` + svcJSON("a"), "a"},
		{"YAML List with null items", "kind: List\nitems:\n---\nkind: List\nitems: ~\n---\n" + svcYAML("a"), "a"},
		{"byte order mark", "\xEF\xBB\xBF" + svcJSON("a"), "a"},
		{"empty", " \n\t", ""},
		{"YAML", "kind: Service\napiVersion: v1\nmetadata:\n  name: a\n", "a"},
		{"multi-document YAML", "# leading comment\n---\nkind: Service\napiVersion: v1\nmetadata:\n  name: a\n---\n# only a comment\n---\n\n--- # separator with a comment\nkind: Service\napiVersion: v1\nmetadata: {name: b}\n...\n", "a,b"},
		{"YAML List", "kind: List\napiVersion: v1\nitems:\n- kind: Service\n  apiVersion: v1\n  metadata: {name: a}\n- kind: Secret\n  apiVersion: v1\n  metadata: {name: s}\n", "a,Secret:s"},
		{"YAML with a byte order mark", "\xEF\xBB\xBFkind: Service\napiVersion: v1\nmetadata: {name: a}\n", "a"},
		{"YAML documents on their marker lines", "--- " + svcJSON("a") + "\n---\t" + svcJSON("b") + "\n", "a,b"},
		{"64 KiB of blank lines, then a JSON object, read as YAML", strings.Repeat("\n", 64<<10) + svcJSON("a"), "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, errs := decodeAll(t, strings.NewReader(tc.in))
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			if got := names(objs); got != tc.want {
				t.Errorf("objects %q, want %q", got, tc.want)
			}
			for _, o := range objs {
				if o.Service != nil && (o.Service.Kind != "Service" || o.Service.APIVersion != "v1") {
					t.Errorf("%s: kind/apiVersion %q/%q not filled in", o.Ref.Name, o.Service.Kind, o.Service.APIVersion)
				}
			}
		})
	}
}

func TestDecode_WatchEventDeleted(t *testing.T) {
	in := `{"type":"ADDED","object":` + svcJSON("a") + `}{"type":"DELETED","object":` + svcJSON("a") + `}`
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) > 0 || len(objs) != 2 {
		t.Fatalf("objects %v, errors %v", names(objs), errs)
	}
	if objs[0].Deleted || !objs[1].Deleted {
		t.Errorf("Deleted = %v, %v; want false, true", objs[0].Deleted, objs[1].Deleted)
	}
	if !objs[0].Added || objs[1].Added {
		t.Errorf("Added = %v, %v; want true, false", objs[0].Added, objs[1].Added)
	}
	if objs[1].Position.Item != "object" || objs[1].Position.Document != 2 {
		t.Errorf("position %+v", objs[1].Position)
	}
}

func TestDecode_Positions(t *testing.T) {
	in := svcJSON("a") + "\n\n" + "{\n  \"kind\": \"Service\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\"name\": \"b\"}\n}\n" +
		`{"kind":"List","items":[` + "\n" + svcJSON("c") + "]}"
	objs, _ := decodeAll(t, strings.NewReader(in))
	want := []Position{
		{Source: "in", Document: 1, Line: 1, Offset: 0},
		{Source: "in", Document: 2, Line: 3, Offset: int64(len(svcJSON("a")) + 2)},
		{Source: "in", Document: 3, Item: "items[0]", Line: 9, Offset: int64(strings.Index(in, "\n"+svcJSON("c")) + 1)},
	}
	if len(objs) != len(want) {
		t.Fatalf("got %d objects", len(objs))
	}
	for i := range want {
		if objs[i].Position != want[i] {
			t.Errorf("object %d at %+v, want %+v", i, objs[i].Position, want[i])
		}
	}
	if s, w := want[2].String(), fmt.Sprintf("in:9 (document 3, items[0], byte %d)", want[2].Offset); s != w {
		t.Errorf("String() = %q, want %q", s, w)
	}
}

// White space before the first value is counted, and in YAML kept as the
// indentation it is.
func TestDecode_PositionAfterLeadingSpace(t *testing.T) {
	for in, want := range map[string]Position{
		"\xEF\xBB\xBF\r\n\n  " + svcJSON("a"):                            {Source: "in", Document: 1, Line: 3, Offset: 8},
		"\n\n  kind: Service\n  apiVersion: v1\n  metadata: {name: a}\n": {Source: "in", Document: 1, Line: 3, Offset: -1},
	} {
		objs, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 0 || names(objs) != "a" || objs[0].Position != want {
			t.Errorf("%q: objects %q at %+v, errors %v; want a at %+v", in, names(objs), objs, errs, want)
		}
	}
}

func TestDecode_MalformedJSON(t *testing.T) {
	// Invalid syntax: where one value ends is no longer known, so the
	// rest of the input cannot be read; the problem is located exactly.
	in := svcJSON("a") + "\n" + `{"kind":"Service","apiVersion":"v1",` + "\n" + `"metadata":{"name":"b",}}` + "\n" + svcJSON("c")
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "malformed JSON: invalid character '}'") ||
		!strings.HasSuffix(errs[0].Error(), "; the rest of the input is not read") {
		t.Fatalf("errors %v", errs)
	}
	if want := int64(strings.Index(in, ",}") + 1); errs[0].Position.Line != 3 || errs[0].Position.Offset != want {
		t.Errorf("position %+v, want line 3, byte %d", errs[0].Position, want)
	}
	if names(objs) != "a" {
		t.Errorf("objects %q, want a", names(objs))
	}

	// Structure the splitter cannot get past: the rest of the input is lost.
	for _, bad := range []string{
		svcJSON("a") + "\n]",
		svcJSON("a") + `{"metadata":{"name":"b"]}`,
		svcJSON("a") + `{"kind" "Service"}`,
		"[" + svcJSON("a") + " " + svcJSON("b") + "]",
		"{\"a\":\"\x01\"}",
	} {
		_, errs := decodeAll(t, strings.NewReader(bad))
		if len(errs) != 1 || !errs[0].Fatal {
			t.Errorf("%q: errors %v, want one fatal", bad, errs)
		}
	}
}

// A value that is not an object or an array ends where the tokenizer says:
// it is reported and skipped, and the values after it are read.
func TestDecode_ScalarDocumentsAreSkipped(t *testing.T) {
	in := svcJSON("a") + ` 42 "s"` + "\ntrue null " + svcJSON("b")
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,b" {
		t.Errorf("objects %q, want a,b", names(objs))
	}
	if len(errs) != 4 {
		t.Fatalf("errors %v, want 4", errs)
	}
	for i, e := range errs {
		if e.Fatal || !strings.Contains(e.Error(), "not a JSON object or array; skipped") || e.Position.Document != i+2 {
			t.Errorf("error %d: %v (%+v), want document %d skipped", i, e, e.Position, i+2)
		}
	}
	if p := errs[2].Position; p.Line != 2 || p.Offset != int64(strings.Index(in, "true")) {
		t.Errorf("true at %+v, want line 2, byte %d", p, strings.Index(in, "true"))
	}
}

// A YAML document that is a scalar says what it is, and that it is YAML:
// JSON after a "//" comment does not start with '{', so it is read as YAML.
func TestDecode_ScalarYAMLDocumentsAreSkipped(t *testing.T) {
	in := "// comment\n" + svcJSON("a") + "\n---\n42\n---\n" + svcYAML("b") + "---\ntrue\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "b" {
		t.Errorf("objects %q, want b", names(objs))
	}
	want := []string{"string", "number", "boolean"}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, e := range errs {
		msg := "a YAML document that is a " + want[i] + ", not a mapping; skipped"
		if i == 0 {
			msg += ": an input is read as JSON only when it starts with { or [, and the JSON in it was not read"
		}
		if e.Fatal || !strings.HasSuffix(e.Error(), msg) {
			t.Errorf("error %d: %v, want one ending %q", i, e, msg)
		}
	}
	// What "kubectl get" prints without -o is one long string in YAML.
	for _, table := range []string{
		"NAME   TYPE           CLUSTER-IP   EXTERNAL-IP   PORT(S)        AGE\nweb    LoadBalancer   10.0.0.7     198.18.0.1    80:30472/TCP   5m\n",
		"NAMESPACE   NAME   TYPE           CLUSTER-IP   EXTERNAL-IP   PORT(S)        AGE\nshop        web    LoadBalancer   10.0.0.7     <pending>     80:30472/TCP   5m\n",
	} {
		_, errs = decodeAll(t, strings.NewReader(table))
		if msg := `a YAML document that is a string, not a mapping; skipped: it looks like the table "kubectl get" prints; give it -o yaml or -o json`; len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), msg) {
			t.Errorf("kubectl's table: %v, want one error ending %q", errs, msg)
		}
	}
	// A JSON stream that starts with a string or a number is YAML, one
	// scalar: the error says why the objects in it were not read.
	for _, in := range []string{`"x" {"kind":"Service","metadata":{"name":"a"}}`, "5\n{\"kind\":\"Service\"}\n"} {
		_, errs = decodeAll(t, strings.NewReader(in))
		if msg := "not a mapping; skipped: an input is read as JSON only when it starts with { or [, and the JSON in it was not read"; len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), msg) {
			t.Errorf("%q: %v, want one error ending %q", in, errs, msg)
		}
	}
	if _, errs = decodeAll(t, strings.NewReader("a: 1\n---\njust a {string}\n")); len(errs) != 1 || strings.Contains(errs[0].Error(), "JSON") {
		t.Errorf("a YAML string in a later document: %v, want no word of JSON", errs)
	}
	// A JSON array after a number is JSON not read too; a first document
	// with neither an object nor an array in it has no JSON to speak of.
	if _, errs = decodeAll(t, strings.NewReader("0 [1, 2]\n")); len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), "and the JSON in it was not read") {
		t.Errorf("a number then an array: %v, want the hint about JSON", errs)
	}
	if _, errs = decodeAll(t, strings.NewReader("just a string\n")); len(errs) != 1 || strings.Contains(errs[0].Error(), "JSON") {
		t.Errorf("a YAML string alone: %v, want no word of JSON", errs)
	}
	// kubectl's table with a list in a custom column gets the table's hint
	// only: it is not JSON.
	table := "NAME   CONDITIONS\nweb    [map[reason:Provisioning status:False type:LoadBalancerServing]]\n"
	if _, errs = decodeAll(t, strings.NewReader(table)); len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), "give it -o yaml or -o json") {
		t.Errorf("kubectl's table with a list in it: %v, want the table's hint alone", errs)
	}
}

func TestDecode_Truncated(t *testing.T) {
	in := svcJSON("a") + "\n" + `{"kind":"Service","metadata":{"name":"b"`
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a" || len(errs) != 1 || !errs[0].Fatal {
		t.Fatalf("objects %q errors %v", names(objs), errs)
	}
	if msg := errs[0].Error(); !strings.Contains(msg, "truncated") || !strings.Contains(msg, "document 2") {
		t.Errorf("message %q", msg)
	}
	_, errs = decodeAll(t, strings.NewReader("kind: Service\nmetadata:\n  name: [a, b\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "YAML") {
		t.Errorf("truncated YAML: %v", errs)
	}
}

func TestDecode_DuplicateKeys(t *testing.T) {
	for name, in := range map[string]string{
		"top level": `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"spec":{},"spec":{"type":"LoadBalancer"}}`,
		"nested":    `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","namespace":"x","namespace":"y"}}`,
		"in a list": `{"kind":"List","items":[{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{"conditions":[{"type":"A","type":"B"}]}}]}`,
		"YAML":      "kind: Service\napiVersion: v1\nmetadata:\n  name: a\n  name: b\n",
	} {
		t.Run(name, func(t *testing.T) {
			sep := "\n"
			if !strings.HasPrefix(in, "{") {
				sep = "\n---\n"
			}
			objs, errs := decodeAll(t, strings.NewReader(in+sep+svcJSON("next")+"\n"))
			if len(errs) != 1 || errs[0].Fatal || !strings.Contains(strings.ToLower(errs[0].Error()), "duplicate") {
				t.Fatalf("errors %v, want one about a duplicate key", errs)
			}
			if names(objs) != "next" {
				t.Errorf("objects %q: want only the one after the ambiguous one", names(objs))
			}
		})
	}
	// Keys that differ in case are different keys, as for the apiserver.
	_, errs := decodeAll(t, strings.NewReader(`{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","Name":"b"}}`))
	if len(errs) != 0 {
		t.Errorf("case-different keys: %v", errs)
	}
}

// A YAML object with a key given twice is named in its one line, as a JSON
// one is: the line says which object of the file to fix.
func TestDecode_DuplicateYAMLKeysNameTheObject(t *testing.T) {
	for name, in := range map[string]string{
		"document":         "kind: Service\napiVersion: v1\nmetadata:\n  name: web\n  namespace: shop\nspec: {}\nspec: {}\n",
		"item of a List":   "kind: List\nitems:\n- kind: Service\n  apiVersion: v1\n  metadata: {name: web, namespace: shop}\n  spec: {}\n  spec: {}\n",
		"keys 1 and \"1\"": "kind: Service\napiVersion: v1\nmetadata:\n  name: web\n  namespace: shop\n  labels:\n    1: a\n    \"1\": b\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, errs := decodeAll(t, strings.NewReader(in))
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), ": shop/web: duplicate key") {
				t.Errorf("errors %v, want one naming shop/web", errs)
			}
		})
	}
}

func TestDecode_WrongFieldTypes(t *testing.T) {
	tests := []struct {
		name, in, want string
		line           int
		says           string // in the message, when set
	}{
		{"port as a string", "{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},\n\"spec\":{\"ports\":[{\"port\":\"eighty\"}]}}", "spec.ports[0].port", 2, "a JSON string where an integer is expected"},
		{"condition status as a number", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{"conditions":[{"type":"LoadBalancerServing","status":5}]}}`, "status.conditions[0].status", 1, "a JSON number where a string is expected"},
		{"conditions as an object", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{"conditions":{"type":"x"}}}`, "status.conditions", 1, "a JSON object where a list is expected"},
		{"time that is no time", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{"conditions":[{"type":"x","lastTransitionTime":"yesterday"}]}}`, "status.conditions[0].lastTransitionTime", 1, `this value is not a time (RFC 3339): "yesterday"; a time is written as 2026-05-04T12:00:00Z`},
		{"time as a number", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{"conditions":[{"type":"x","lastTransitionTime":5}]}}`, "status.conditions[0].lastTransitionTime", 1, "a JSON number where a time (RFC 3339) is expected"},
		// A kind that is not a string is not "no kind": the object is not
		// skipped as one without a kind, but cannot be read.
		{"kind as a number", `{"kind":5,"apiVersion":"v1","metadata":{"name":"a"},"spec":{"type":"LoadBalancer"}}`, "kind", 1, "a JSON number where a string is expected"},
		{"kind as a list", `{"apiVersion":"v1","kind":["Service"],"metadata":{"name":"a"}}`, "kind", 1, "a JSON array where a string is expected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, errs := decodeAll(t, strings.NewReader(tc.in+svcJSON("next")))
			if len(errs) != 1 || errs[0].Fatal {
				t.Fatalf("errors %v", errs)
			}
			if msg := errs[0].Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "in:") {
				t.Errorf("message %q does not name %q and the input", msg, tc.want)
			}
			if !strings.Contains(errs[0].Error(), tc.says) {
				t.Errorf("message %q does not say %q", errs[0].Error(), tc.says)
			}
			if errs[0].Position.Line != tc.line {
				t.Errorf("line %d, want %d", errs[0].Position.Line, tc.line)
			}
			if !strings.Contains(errs[0].Field, tc.want) && tc.want != "yesterday" {
				t.Errorf("field %q, want %q", errs[0].Field, tc.want)
			}
			if off := errs[0].Position.Offset; off <= 0 || off >= int64(len(tc.in)) {
				t.Errorf("offset %d does not point into the object", off)
			}
			if errs[0].Object.Name != "a" {
				t.Errorf("object %+v, want a", errs[0].Object)
			}
			if names(objs) != "next" {
				t.Errorf("objects %q, want the next one", names(objs))
			}
		})
	}
}

// A YAML object with a field of the wrong type is named at the field's
// line, as a JSON one is, not at the line the object starts: in a long
// manifest or List, the line says what to fix. Where the field is merged
// in, the line is the deepest member on the way to it that the text holds.
func TestDecode_YAMLWrongFieldTypeNamesItsLine(t *testing.T) {
	const svc = "kind: Service\napiVersion: v1\nmetadata:\n  name: web\n  namespace: shop\n"
	for _, tc := range []struct {
		name, in, field string
		line            int
	}{
		{"port", "# web\n\n" + svc + "spec:\n  ports:\n  - port: 80\n  - name: b\n    port: eighty\n", "spec.ports[1].port", 12},
		{"time", svc + "status:\n  conditions:\n  - type: LoadBalancerServing\n    lastTransitionTime: yesterday\n", "status.conditions[0].lastTransitionTime", 9},
		{"item of a List", "kind: List\nitems:\n- kind: Service\n  metadata: {name: a}\n" + indent("- ", svc+"spec:\n  ports:\n  - port: eighty\n"), "spec.ports[0].port", 12},
		{"merged", "base: &b {port: eighty}\n" + svc + "spec:\n  ports:\n  - name: b\n    <<: *b\n", "spec.ports[0].port", 9},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in))
		if len(errs) != 1 || errs[0].Field != tc.field || errs[0].Position.Line != tc.line || !strings.Contains(errs[0].Error(), fmt.Sprintf("in:%d (document 1", tc.line)) ||
			!strings.Contains(errs[0].Error(), ": shop/web: "+tc.field+": ") {
			t.Errorf("%s: objects %q, errors %v; want one naming shop/web and %s at line %d", tc.name, names(objs), errs, tc.field, tc.line)
		}
	}
}

// genReader produces a stream on the fly, so that tests of large inputs
// hold none of it in memory.
type genReader struct {
	parts []func(w *bytes.Buffer) bool // each writes a piece; false when done
	buf   bytes.Buffer
}

func (g *genReader) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && len(g.parts) > 0 {
		if !g.parts[0](&g.buf) {
			g.parts = g.parts[1:]
		}
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

func once(s string) func(*bytes.Buffer) bool {
	done := false
	return func(w *bytes.Buffer) bool {
		if !done {
			w.WriteString(s)
			done = true
		}
		return false
	}
}

func repeat(s string, n int) func(*bytes.Buffer) bool {
	return func(w *bytes.Buffer) bool {
		for i := 0; i < 1024 && n > 0; i++ {
			w.WriteString(s)
			n--
		}
		return n > 0
	}
}

func TestDecode_ObjectOverTheLimit(t *testing.T) {
	// A 200 MB string, as a value, a member name or an element: reported
	// without being held. Skipping it would mean holding it, so the rest
	// of the input is not read.
	blob := func() func(*bytes.Buffer) bool { return repeat(strings.Repeat("x", 1000), 200_000) }
	for name, parts := range map[string][]func(*bytes.Buffer) bool{
		"value": {once(`{"kind":"Service","apiVersion":"v1","metadata":{"name":"huge","annotations":{"blob":"`), blob(), once(`"}}}`)},
		"name":  {once(`{"kind":"List","items":[],"`), blob(), once(`":1}`)},
		"array": {once(`["`), blob(), once(`"]`)},
	} {
		r := &genReader{parts: append(parts, once("\n"+svcJSON("after")))}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		objs, errs := decodeAll(t, r)
		runtime.ReadMemStats(&after)
		if len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "larger than the limit of 4 MiB") {
			t.Fatalf("%s: errors %v, want one, fatal", name, errs)
		}
		if names(objs) != "" {
			t.Errorf("%s: objects %q, want none", name, names(objs))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: decoding allocated %d MiB for a 200 MB string; it must not hold it", name, alloc>>20)
		}
	}

	// The limit is an option, and applies to YAML documents too.
	_, errs := decodeAll(t, strings.NewReader("kind: Service\nmetadata:\n  name: a\n  annotations: {x: "+strings.Repeat("y", 2000)+"}\n"), MaxObjectBytes(1000))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "1000 bytes") {
		t.Errorf("YAML over the limit: %v", errs)
	}
}

// An object over the limit that is not one string over it is skipped token
// by token, and what follows it is read: a document, a List item, an
// element of an array, a watch event.
func TestDecode_ObjectOverTheLimitIsSkipped(t *testing.T) {
	// Larger than the limit with what the tokenizer may read ahead.
	var data strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&data, `"k%d":"%s",`, i, strings.Repeat("v", 100))
	}
	big := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"big"},"data":{` + data.String() + `"last":"v"}}`
	event := `{"type":"ADDED","object":` + strings.Replace(big, "ConfigMap", "Service", 1) + `}`
	for name, tc := range map[string]struct{ in, item string }{
		"document":    {big + svcJSON("after"), ""},
		"List item":   {`{"kind":"List","items":[` + big + "," + svcJSON("after") + `]}`, "items[0]"},
		"array":       {"[" + big + "," + svcJSON("after") + "]", "items[0]"},
		"watch event": {event + svcJSON("after"), ""},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in), MaxObjectBytes(4096))
		if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), "larger than the limit of 4096 bytes; skipped") {
			t.Errorf("%s: errors %v, want one, not fatal", name, errs)
			continue
		}
		if p := errs[0].Position; p.Item != tc.item || p.Document != 1 || p.Offset != int64(strings.Index(tc.in, "{\"")) && tc.item == "" {
			t.Errorf("%s: error at %+v", name, p)
		}
		if names(objs) != "after" {
			t.Errorf("%s: objects %q, want the one after", name, names(objs))
		}
	}
}

// Whether a value over the limit is held whole depends on how far the
// tokenizer has read ahead, which depends on the sizes of the reads: the
// result must not. An element of an array that is a List over the limit is
// read item by item, read ahead or not, its items named in the array's; a
// Service over the limit is skipped.
func TestDecode_ReadAheadKeepsTheLimit(t *testing.T) {
	const limit = 1024
	var in strings.Builder
	var want []string
	over := 0
	in.WriteString("[")
	for i := range 200 {
		if i > 0 {
			in.WriteString(",")
		}
		name := fmt.Sprintf("s%d", i)
		switch i % 5 {
		case 2:
			// A List of i/5 Services: over the limit from i = 47 on. Some of
			// them the tokenizer holds whole before it is asked for them.
			in.WriteString(`{"kind":"List","items":[`)
			for k := range max(1, i/5) {
				if k > 0 {
					in.WriteString(",")
				}
				in.WriteString(svcJSON(fmt.Sprintf("l%d-%d", i, k)))
				want = append(want, fmt.Sprintf("l%d-%d items[%d].items[%d]", i, k, i, k))
			}
			in.WriteString("]}")
		case 4:
			// A Service of i annotations: over the limit from i = 69 on.
			var a []string
			for k := range i {
				a = append(a, fmt.Sprintf(`"a%d":"x"`, k))
			}
			svc := strings.Replace(svcJSON(name), `"namespace"`, `"annotations":{`+strings.Join(a, ",")+`},"namespace"`, 1)
			in.WriteString(svc)
			if len(svc) > limit {
				over++
				continue
			}
			fallthrough
		default:
			if i%5 != 4 {
				in.WriteString(svcJSON(name))
			}
			want = append(want, fmt.Sprintf("%s items[%d]", name, i))
		}
	}
	in.WriteString("]")
	if over < 15 {
		t.Fatalf("only %d elements over the limit", over)
	}
	objs, errs := decodeAll(t, strings.NewReader(in.String()), MaxObjectBytes(limit))
	var got []string
	for _, o := range objs {
		got = append(got, o.Ref.Name+" "+o.Position.Item)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%d objects, want %d; first difference at %d", len(got), len(want), firstDifference(got, want))
	}
	if len(errs) != over {
		t.Fatalf("%d errors, want one per Service over the limit (%d): %v", len(errs), over, errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "larger than the limit") {
			t.Errorf("error %v, want the element skipped for its size", e)
		}
	}
}

func TestDecode_LongListIsStreamed(t *testing.T) {
	// A List far over the object limit: its items are read one by one.
	const items = 20000
	item := svcJSON("item") + ","
	r := &genReader{parts: []func(*bytes.Buffer) bool{
		once(`{"apiVersion":"v1","items":[`),
		repeat(item, items-1),
		once(svcJSON("last") + `],"kind":"List","metadata":{}}`),
	}}
	objs, errs := decodeAll(t, r, MaxObjectBytes(4096))
	if len(errs) != 0 || len(objs) != items || objs[items-1].Ref.Name != "last" {
		t.Fatalf("%d objects, errors %v", len(objs), errs)
	}
	if objs[items-1].Position.Item != fmt.Sprintf("items[%d]", items-1) {
		t.Errorf("position %+v", objs[items-1].Position)
	}
}

func TestDecode_YAMLSeparatorAcrossBuffer(t *testing.T) {
	// Documents sized so that some separator lines straddle the read
	// buffer's boundary.
	var b strings.Builder
	want := 0
	for b.Len() < 3*(64<<10) {
		fmt.Fprintf(&b, "kind: Service\napiVersion: v1\nmetadata:\n  name: s%d\n  annotations: {pad: %q}\n---\n", want, strings.Repeat("p", 997+want%13))
		want++
	}
	objs, errs := decodeAll(t, strings.NewReader(b.String()))
	if len(errs) != 0 || len(objs) != want {
		t.Fatalf("%d objects, want %d; errors %v", len(objs), want, errs)
	}
}

// kubectl reads nothing between "..." and the next "---", YAML 1.2 a new
// document: what is there is reported, once, and not read. Two files
// concatenated, the first ended by "...", are the common case.
func TestDecode_ContentAfterDocumentEnd(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		line int
	}{
		"next line":         {svcYAML("a") + "...\n# a comment\n\n" + svcYAML("b") + "---\n" + svcYAML("c"), 11},
		"on the same line":  {svcYAML("a") + "... kind: Service\n" + svcYAML("b") + "---\n" + svcYAML("c"), 8},
		"after a long line": {svcYAML("a") + "...\n" + strings.Repeat(" ", 100<<10) + "kind: Service\n" + svcYAML("b") + "---\n" + svcYAML("c"), 9},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in))
		if names(objs) != "a,c" || len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Error(), `content after "...", which ends the document, and before the next "---": not read`) {
			t.Errorf("%s: objects %q, errors %v; want a, c and one error", name, names(objs), errs)
			continue
		}
		if p := errs[0].Position; p.Line != tc.line || p.Document != 1 {
			t.Errorf("%s: error at %+v, want line %d of document 1", name, p, tc.line)
		}
	}
	// Comments and blank lines after "..." are not content.
	objs, errs := decodeAll(t, strings.NewReader(svcYAML("a")+"... # end\n  \n# c\n---\n"+svcYAML("b")+"...\n"))
	if names(objs) != "a,b" || len(errs) != 0 {
		t.Errorf("comments after ...: objects %q, errors %v", names(objs), errs)
	}
}

// YAML ends lines at a CR alone, NEL, LS and PS too, and so does the
// splitter: a document marker after one is a marker. kubectl's reader,
// which cuts at line feeds only, hands the parser such documents as one,
// and the parser reads the first and drops the rest.
func TestDecode_YAMLLineBreaks(t *testing.T) {
	cr := func(s string) string { return strings.ReplaceAll(s, "\n", "\r") }
	for name, tc := range map[string]struct{ in, objs, err string }{
		"CR line ends":        {cr(svcYAML("a") + "---\n" + svcYAML("b")), "a,b", ""},
		"NEL after ---":       {svcYAML("a") + "---\u0085" + svcYAML("b"), "a,b", ""},
		"PS before ---":       {svcYAML("a") + "\u2029--- # c\u2029" + svcYAML("b"), "a,b", ""},
		"LS before ...":       {svcYAML("a") + "\u2028...\n" + svcYAML("b"), "a", `content after "..."`},
		"CR alone, then CRLF": {"kind: Service\rapiVersion: v1\r\nmetadata: {name: a}\r\r\n---\r" + svcYAML("b"), "a,b", ""},
		"NEL in a value":      {"kind: Service\napiVersion: v1\nmetadata: {name: a, annotations: {x: \"1\u00852\"}}\n", "a", ""},
		"CR at the end":       {svcYAML("a") + "---\r", "a", ""},
	} {
		objs, errs := decodeAll(t, strings.NewReader(tc.in))
		if names(objs) != tc.objs || tc.err == "" && len(errs) != 0 || tc.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err)) {
			t.Errorf("%s: objects %q, errors %v; want %q and %q", name, names(objs), errs, tc.objs, tc.err)
		}
	}
}

// The line breaks are found whatever the reads cut them into.
func TestDecode_YAMLLineBreaksAcrossReads(t *testing.T) {
	in := "a\rb\r\nc\u0085d\u2028e\u2029f\u00a0\u2027\r"
	want := "a\nb\r\nc\nd\ne\nf\u00a0\u2027\n"
	if got, _, err := transform.String(lineBreaks{}, in); err != nil || got != want {
		t.Errorf("whole: %q, %v; want %q", got, err, want)
	}
	got, err := io.ReadAll(transform.NewReader(iotest.OneByteReader(strings.NewReader(in)), lineBreaks{}))
	if err != nil || string(got) != want {
		t.Errorf("a byte at a time: %q, %v; want %q", got, err, want)
	}
}

// A YAML document whose text passes the limit only with its last lines is
// over the limit, and skipped: it is not read without them.
func TestDecode_YAMLObjectOverTheLimitByItsLastLine(t *testing.T) {
	// Exactly the limit, and more than the object in JSON.
	head := "kind: Service\napiVersion: v1\nmetadata: {name: a}\n# " + strings.Repeat("c", 60) + "\n"
	in := head + "spec: {type: LoadBalancer}\n---\nkind: Service\nmetadata: {name: next}\n"
	objs, errs := decodeAll(t, strings.NewReader(in), MaxObjectBytes(len(head)))
	if names(objs) != "next" || len(errs) != 1 || errs[0].Position.Line != 1 || !strings.Contains(errs[0].Error(), "larger than the limit") {
		t.Errorf("objects %q, errors %v; want only next, and a over the limit at line 1", names(objs), errs)
	}
	// At the limit, the document is read.
	objs, errs = decodeAll(t, strings.NewReader(head), MaxObjectBytes(len(head)))
	if names(objs) != "a" || len(errs) != 0 {
		t.Errorf("at the limit: objects %q, errors %v; want a", names(objs), errs)
	}
}

// A YAML document that is null is no object and no problem, as for kubectl,
// which skips it; a YAML scalar of another kind is an error (above).
func TestDecode_NullYAMLDocumentsAreNothing(t *testing.T) {
	in := svcYAML("a") + "---\n~\n---\nnull\n---\n" + svcYAML("b")
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,b" || len(errs) != 0 {
		t.Errorf("objects %q, errors %v; want a,b and no error", names(objs), errs)
	}
}

// The YAML parser counts lines from the start of the text it is given;
// messages name the input's lines instead, as positions do.
func TestDecode_YAMLErrorsNameInputLines(t *testing.T) {
	doc := svcYAML("a") + "---\n# c\n" // the next document starts at line 10
	for name, tc := range map[string]struct{ in, want string }{
		"document":      {doc + "kind: Service\nmetadata: {name: b\n", "yaml: line 11: did not find expected ',' or '}'"},
		"duplicate key": {doc + "kind: Service\nmetadata:\n  line 2: x\n  line 2: y\n", `unmarshal errors: line 13: key "line 2" already set in map`},
		"item":          {doc + "kind: List\nitems:\n- metadata: {name: a}\n- metadata:\n    name: b\n   x: 1\n", "yaml: line 14: did not find expected key"},
		"List members":  {doc + "kind: List\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\nmetadata:\n  a: 1\n   b: 2\n", "the List's own members: malformed YAML: yaml: line 16: mapping values are not allowed"},
		// The members resume on the line right after the items: that line
		// is the first of their second stretch, not the items' last.
		"members after items": {doc + "kind: List\nitems:\n- metadata: {name: a}\nkind: List\n", `the List's own members: duplicate key: yaml: unmarshal errors: line 13: key "kind" already set in map`},
	} {
		_, errs := decodeAll(t, strings.NewReader(tc.in))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%s: errors %v, want %q", name, errs, tc.want)
		}
	}
}

// A template (a Helm chart's) is YAML only once rendered: a problem of a
// text holding "{{" says so, and where the "{{" is.
func TestDecode_TemplatesAreNamed(t *testing.T) {
	const hint = `as a template does: render it first`
	for name, tc := range map[string]struct {
		in   string
		want string // the line the hint names; "" for no hint
	}{
		"JSON at its start":          {"{{- if .Values.enabled }}\nkind: Service\n", `"{{" (line 1)`},
		"JSON in a value":            {"{\n  \"kind\": {{ .Values.kind }}\n}\n", `"{{" (line 2)`},
		"YAML value":                 {svcYAML("a") + "---\nkind: Service\nmetadata:\n  name: {{ .Values.name }}\n", `"{{" (line 11)`},
		"YAML List item":             {"kind: List\nitems:\n- kind: Service\n- kind: Service\n  metadata:\n    labels:\n      {{- include \"labels\" . }}\n", `"{{" (line 7)`},
		"YAML List's members":        {"kind: List\nitems:\n- kind: Service\nmetadata:\n  labels:\n    {{- include \"labels\" . }}\n", `"{{" (line 6)`},
		"YAML duplicate key":         {"kind: Service\nmetadata:\n  name: a\n  name: \"{{ b }}\"\n", ""},
		"YAML comment line":          {"kind: Service\n# render with {{ .Values }}\nmetadata: {name: [\n", ""},
		"YAML comment after a value": {"kind: Service # {{ x }}\nmetadata: {name: [\n", ""},
		"YAML comment after an LS":   {"kind: Service\nmetadata: {name: [\n\u2028# {{ x }}\n", ""},
		"YAML comment, then a value": {"kind: Service\n  # {{ a }}\nmetadata:\n  name: {{ b }}\n", `"{{" (line 4)`},
	} {
		_, errs := decodeAll(t, strings.NewReader(tc.in))
		if len(errs) != 1 {
			t.Errorf("%s: errors %v, want one", name, errs)
			continue
		}
		msg := errs[0].Error()
		if got := strings.Contains(msg, hint); got != (tc.want != "") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q, want the hint naming %q", name, msg, tc.want)
		}
	}
	// A quoted "{{" is a string like any other.
	objs, errs := decodeAll(t, strings.NewReader("kind: Service\napiVersion: v1\nmetadata:\n  name: \"{{ x }}\"\n"))
	if len(errs) != 0 || names(objs) != "{{ x }}" {
		t.Errorf("objects %q, errors %v", names(objs), errs)
	}
}

// The parser prints a key that is a mapping or a sequence as a Go value:
// the message names what it is instead.
func TestDecode_YAMLKeyThatIsACollection(t *testing.T) {
	for in, want := range map[string]string{
		"kind: Service\n{a: b}: c\n":               "invalid map key: a mapping, where a member's name is a string",
		"kind: Service\n[a, \"\\e\"]: c\n":         "invalid map key: a sequence, where a member's name is a string",
		"kind: Service\nx:\n  ? [{a: 1}]\n  : c\n": "invalid map key: a sequence, where a member's name is a string",
	} {
		_, errs := decodeAll(t, strings.NewReader(in))
		if len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), "malformed YAML: yaml: "+want) {
			t.Errorf("%q: errors %v, want one ending %q", in, errs, want)
		}
	}
}

func TestDecode_MalformedYAMLGoesOn(t *testing.T) {
	in := "kind: Service\napiVersion: v1\nmetadata: {name: a}\n---\nkind: Service\n  bad indentation: [\n---\nkind: Service\napiVersion: v1\nmetadata: {name: c}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if names(objs) != "a,c" || len(errs) != 1 || errs[0].Position.Line != 5 || errs[0].Position.Document != 2 {
		t.Fatalf("objects %q, errors %v", names(objs), errs)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk on fire")
	}
	f.n--
	return copy(p, svcJSON("a")), nil
}

func TestDecode_ReadError(t *testing.T) {
	_, errs := decodeAll(t, &failingReader{n: 1})
	if len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "disk on fire") {
		t.Fatalf("errors %v", errs)
	}
	// In YAML too: the documents read to their end are handed out, then
	// the error; the one it cuts short, which may mean another thing, is not.
	objs, errs := decodeAll(t, io.MultiReader(strings.NewReader(svcYAML("a")+"---\n"+svcYAML("b")), iotest.ErrReader(errors.New("disk on fire"))))
	if names(objs) != "a" || len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error(), "disk on fire") {
		t.Fatalf("YAML: objects %q, errors %v", names(objs), errs)
	}
	// Failing before a line is read, the error names no line.
	_, errs = decodeAll(t, &failingReader{n: 0})
	if len(errs) != 1 || !errs[0].Fatal || errs[0].Error() != "in: disk on fire" {
		t.Fatalf("at once: errors %v, want \"in: disk on fire\"", errs)
	}
}

// The decoder hands out what the generator wrote, object for object.
func TestDecode_RoundTripsGeneratedStream(t *testing.T) {
	var buf bytes.Buffer
	opts := conformancetest.StreamOptions{Services: 7, Observations: 40}
	if err := conformancetest.WriteStream(&buf, opts); err != nil {
		t.Fatal(err)
	}
	objs, errs := decodeAll(t, &buf)
	if len(errs) != 0 || len(objs) != 40 {
		t.Fatalf("%d objects, errors %v", len(objs), errs)
	}
	want, _ := json.Marshal(kept(conformancetest.Step(0, 1)))
	got, _ := json.Marshal(objs[7].Service)
	if !bytes.Equal(got, want) {
		t.Errorf("second observation of svc-0:\n got %s\nwant %s", got, want)
	}
	if objs[7].Service.Status.Conditions[0].LastTransitionTime.Equal(&metav1.Time{}) {
		t.Error("times were not decoded")
	}
}

// TestDecode_YAMLLastLineWithoutNewline: a final line without a newline,
// longer than its offset in the read buffer, must reach the YAML parser
// intact whether the input arrives in one piece or byte by byte. The
// splitter once kept slicing the line at its old offset after the reader
// had moved the unread bytes to the start of its buffer.
func TestDecode_YAMLLastLineWithoutNewline(t *testing.T) {
	in := "\n\nkind: Service\nmetadata: {name: web}"
	for name, r := range map[string]io.Reader{
		"whole":        strings.NewReader(in),
		"byte by byte": iotest.OneByteReader(strings.NewReader(in)),
	} {
		objs, errs := decodeAll(t, r)
		if len(errs) != 0 || names(objs) != "web" {
			t.Errorf("%s: objects %q, errors %v", name, names(objs), errs)
		}
	}
}

// TestDecode_IndentedYAML: a YAML document whose every line is indented is
// valid; telling YAML from JSON must not eat the first line's indentation.
func TestDecode_IndentedYAML(t *testing.T) {
	in := "\n  kind: Service\n  apiVersion: v1\n  metadata: {name: web}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 0 || names(objs) != "web" {
		t.Errorf("objects %q, errors %v", names(objs), errs)
	}
}

func TestDecode_YAMLPositionSkipsComments(t *testing.T) {
	in := "# a comment\n\n---\n# another\nkind: Service\napiVersion: v1\nmetadata: {name: a}\n"
	objs, errs := decodeAll(t, strings.NewReader(in))
	if len(errs) != 0 || len(objs) != 1 {
		t.Fatalf("objects %q, errors %v", names(objs), errs)
	}
	if p := objs[0].Position; p.Line != 5 || p.Document != 1 || p.Offset != -1 {
		t.Errorf("position %+v, want line 5 of document 1", p)
	}
}

// kept is what the reader keeps of a Service (see wire), taken from a
// whole one: the fields the checker reads.
func kept(s *v1.Service) *v1.Service {
	spec := s.Spec
	spec.Ports = withoutTargetPort(spec.Ports)
	spec.Selector, spec.ClusterIP, spec.ClusterIPs, spec.ExternalIPs = nil, "", nil, nil
	meta := s.ObjectMeta
	meta.Labels, meta.CreationTimestamp, meta.ManagedFields = nil, metav1.Time{}, nil
	return &v1.Service{TypeMeta: s.TypeMeta, ObjectMeta: meta, Spec: spec, Status: s.Status}
}

func withoutTargetPort(ports []corev1.ServicePort) []corev1.ServicePort {
	if ports == nil {
		return nil
	}
	out := make([]corev1.ServicePort, len(ports))
	for i, p := range ports {
		p.TargetPort = intstr.IntOrString{}
		out[i] = p
	}
	return out
}

// firstDifference returns the first index at which a and b differ.
func firstDifference(a, b []string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
