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
	"strings"
	"testing"
)

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
