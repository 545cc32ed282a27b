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

package conformance

import (
	"strings"
	"testing"

	"github.com/lbstatus/lbstatus/conformance/input"
)

func TestObserveObject_OddConditionsWithPosition(t *testing.T) {
	// Well-formed JSON with odd conditions decodes; the checker judges
	// them (C5), with the position.
	in := `{"kind":"Service","apiVersion":"v1","metadata":{"name":"odd"},"spec":{"type":"LoadBalancer"},"status":{"conditions":[{"type":"LoadBalancerServing","status":"Maybe","reason":"","lastTransitionTime":null}]}}`
	d := NewDecoder(strings.NewReader(in), "in")
	obj, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	found := NewChecker().ObserveObject(obj)
	f := withRule(found, "C5")
	if len(f) == 0 || f[0].Position == nil || f[0].Position.Source != "in" {
		t.Fatalf("want C5 findings with a position, got:\n%s", dump(found))
	}
}

// A kind or apiVersion is the input's, and a YAML block scalar puts a line
// break or a control character in it: the skip notice escapes them, so that
// every message stays one line (section 8, "Nothing printed from an input
// is trusted").
func TestObserveObject_SkippedKindIsEscaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"kind: >\n  Config\n  Map\n", `skipped: a Config Map\n is not a Service`},
		{"kind: \"Config\\e[2JMap\"\n", `skipped: a Config\x1b[2JMap is not a Service`},
		{"kind: Service\napiVersion: |\n  x/v1\n", `skipped: a Service of x/v1\n is not a core/v1 Service`},
	} {
		obj, err := NewDecoder(strings.NewReader(tc.in), "in").Next()
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if f := NewChecker().ObserveObject(obj); len(f) != 1 || f[0].Message != tc.want {
			t.Errorf("%q: got %+v, want the message %q", tc.in, f, tc.want)
		}
	}
}

// A kind or apiVersion is any string the input holds: the skip notice
// quotes, and names as its object's kind, the first KiB of each, marked as
// cut, so that a 64 KiB kind costs no 64 KiB per notice, nor per kind a
// report counts.
func TestObserveObject_LongKindIsCut(t *testing.T) {
	long := strings.Repeat("K", 64<<10)
	for _, obj := range []Object{
		{Kind: long, Ref: ObjectRef{Kind: long, Name: "a"}},
		{Kind: "Service", APIVersion: long, Ref: ObjectRef{Kind: "Service", Name: "b"}},
		{Kind: "Service", APIVersion: long + "/v1", Ref: ObjectRef{Kind: "Service", Name: "c"}},
	} {
		f := NewChecker().ObserveObject(obj)
		if len(f) != 1 || len(f[0].Message) > 2*input.MaxTextBytes || len(f[0].Object.Kind) > 2*input.MaxTextBytes ||
			!strings.Contains(f[0].Message, long[:input.MaxTextBytes]+"… (") || !strings.Contains(f[0].Object.Kind, long[:input.MaxTextBytes]+"… (") {
			t.Errorf("%s: a notice of %d findings, want one whose message and kind quote the first %d bytes, marked as cut", obj.Ref.Name, len(f), input.MaxTextBytes)
		}
	}
}
