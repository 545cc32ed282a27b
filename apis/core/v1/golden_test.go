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

package v1_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// updateFixtures rewrites testdata/HEAD when set to "true". Do that only
// for a deliberate wire change, and review the diff.
const updateFixtures = "UPDATE_WIRE_FIXTURES"

// TestGolden_HEAD pins the wire format: a Service and a ServiceList with
// every field filled must encode to exactly the bytes in testdata/HEAD, and
// those bytes must decode to the same object. A renamed JSON field, a changed
// omitempty or a field gone missing fails here.
func TestGolden_HEAD(t *testing.T) {
	o := ours(t)
	for _, gvk := range []schema.GroupVersionKind{serviceGVK, serviceListGVK} {
		want, err := roundtrip.CompatibilityTestObject(o.scheme, gvk, wireFillFuncs())
		if err != nil {
			t.Fatalf("filling %v: %v", gvk.Kind, err)
		}
		for _, format := range []struct {
			ext string
			s   runtime.Serializer
		}{{"json", o.json}, {"yaml", o.yaml}} {
			t.Run(gvk.Kind+"."+format.ext, func(t *testing.T) {
				path := filepath.Join("testdata", "HEAD", "v1."+gvk.Kind+"."+format.ext)
				encoded := encode(t, format.s, want)
				if os.Getenv(updateFixtures) == "true" {
					if err := os.WriteFile(path, encoded, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				fixture, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("reading fixture (run with %s=true to create it): %v", updateFixtures, err)
				}
				if !bytes.Equal(fixture, encoded) {
					t.Errorf("encoding differs from %s (-fixture +now); if the change is deliberate, rerun with %s=true:\n%s",
						path, updateFixtures, cmp.Diff(string(fixture), string(encoded)))
				}
				got, err := o.scheme.New(gvk)
				if err != nil {
					t.Fatal(err)
				}
				decode(t, format.s, fixture, gvk, got)
				if !equality.Semantic.DeepEqual(want, got) {
					t.Errorf("fixture decodes to a different object (-want +got):\n%s", cmp.Diff(want, got))
				}
			})
		}
	}
}
