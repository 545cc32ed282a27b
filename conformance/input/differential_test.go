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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	sigsjson "sigs.k8s.io/json"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzReaderDifferential: for any single valid Service, what the reader
// hands the checker equals what encoding/json decodes, as kube-apiserver
// configures it (sigs.k8s.io/json: case-sensitive names), in every field
// the reader keeps. An input encoding/json accepts may be refused only for
// what the reader refuses on purpose: a member name given twice, or
// invalid UTF-8, such as a surrogate escaped alone ("\ud800"), which
// encoding/json would turn into U+FFFD.
func FuzzReaderDifferential(f *testing.F) {
	for i := range 6 {
		data, err := json.Marshal(conformancetest.Step(i, i))
		if err != nil {
			f.Fatal(err)
		}
		seed.Add(f, fmt.Sprintf("step-%d", i), data)
	}
	files, _ := filepath.Glob("../../examples/*/*.json")
	broken, _ := filepath.Glob("../../violations/*.json")
	traces, _ := filepath.Glob("../../violations/*/*.json")
	broken = append(broken, traces...)
	files = append(files, broken...)
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 16<<10 {
			seed.Add(f, "file-"+filepath.Base(name), data)
		}
	}
	seed.Add(f, "escaped-names", []byte(`{"kind":"Service","apiVersion":"v1","metadata":{"n\u0061me":"a"},"spec":{"type":"LoadBalancer"}}`))
	seed.Add(f, "case", []byte(`{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","Name":"b"},"Spec":{"type":"LoadBalancer"}}`))
	seed.Add(f, "metadata", []byte(`{"kind":"Service","metadata":{"name":"a","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["x"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}],"managedFields":[{"manager":"m"}]}}`))
	seed.Add(f, "nulls", []byte(`{"kind":"Service","metadata":{"name":null,"annotations":null,"deletionTimestamp":null},"spec":{"ports":null},"status":{"conditions":[{"type":"x","lastTransitionTime":null}]}}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		var ref v1.Service
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &ref); err != nil {
			return // not a valid object
		}
		var members map[string]json.RawMessage
		if sigsjson.UnmarshalCaseSensitivePreserveInts(data, &members) != nil {
			return
		}
		for _, m := range []string{"items", "type", "object"} {
			if _, ok := members[m]; ok {
				return // a List or a watch event: not a single object
			}
		}
		if ref.Kind != "Service" || (ref.APIVersion != "v1" && ref.APIVersion != "") {
			return // not a Service: the reader skips it
		}
		d := NewDecoder(bytes.NewReader(data), "fuzz", Workers(1))
		obj, err := d.Next()
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "duplicate member name") || strings.Contains(msg, "UTF-8") || strings.Contains(msg, "surrogate") {
				return
			}
			t.Fatalf("encoding/json reads the object, the reader does not: %v", err)
		}
		if obj.Service == nil {
			t.Fatalf("a Service read as a %s", obj.Kind)
		}
		ref.Kind, ref.APIVersion = "Service", "v1"
		if diff := cmp.Diff(kept(&ref), obj.Service, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("the reader's view differs from encoding/json's (-json +reader):\n%s", diff)
		}
	})
}
