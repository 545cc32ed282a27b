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
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// otherKinds returns every built-in kind a cluster serves but Service, with
// random contents, as JSON objects: what a manifest directory, `kubectl get
// all -o yaml` or an export of a namespace may hold beside Services. Lists
// and watch events, which the reader opens, are left out.
func otherKinds(t *testing.T) (kinds []string, objs [][]byte) {
	t.Helper()
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), scheme.Codecs)
	gvks := make([]schema.GroupVersionKind, 0, len(scheme.Scheme.AllKnownTypes()))
	for gvk := range scheme.Scheme.AllKnownTypes() {
		switch {
		case gvk.Version == runtime.APIVersionInternal, strings.HasSuffix(gvk.Kind, "List"), gvk.Kind == "WatchEvent",
			gvk.Group == "" && gvk.Kind == "Service":
			continue
		}
		gvks = append(gvks, gvk)
	}
	slices.SortFunc(gvks, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	for _, gvk := range gvks {
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		f.Fill(obj)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		kinds, objs = append(kinds, gvk.Kind), append(objs, data)
	}
	return kinds, objs
}

// TestRead_EveryOtherKindIsSkipped: an object of any other built-in kind,
// whatever its members (a Secret's type, a Deployment's selector, an
// Event's involvedObject), is read as that kind and skipped, never as an
// input problem or a watch event; in a JSON stream, and as the items of a
// YAML List as kubectl prints one, whose filter must find every item.
func TestRead_EveryOtherKindIsSkipped(t *testing.T) {
	kinds, objs := otherKinds(t)
	t.Logf("%d kinds", len(kinds))
	check := func(t *testing.T, in []byte, item bool) {
		got, errs := decodeAll(t, bytes.NewReader(in))
		for _, e := range errs {
			t.Errorf("%v", e)
		}
		if len(got) != len(kinds) {
			t.Fatalf("%d objects, want %d", len(got), len(kinds))
		}
		for i, o := range got {
			if o.Kind != kinds[i] || o.Service != nil {
				t.Errorf("object %d is a %s (Service %v), want a %s", i, o.Kind, o.Service != nil, kinds[i])
			}
			if want := "items[" + strconv.Itoa(i) + "]"; item && o.Position.Item != want {
				t.Errorf("object %d at %q, want %s", i, o.Position.Item, want)
			}
		}
	}
	t.Run("JSON", func(t *testing.T) { check(t, bytes.Join(objs, []byte("\n")), false) })
	t.Run("YAML List", func(t *testing.T) {
		items := make([]json.RawMessage, len(objs))
		for i, o := range objs {
			items[i] = o
		}
		list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		y, err := yaml.JSONToYAML(list)
		if err != nil {
			t.Fatal(err)
		}
		check(t, y, true)
	})
}
