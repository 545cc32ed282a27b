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
	"strings"
	"testing"
)

// A List with one unreadable item (a name given twice) is checked the
// same whether it is JSON read whole, JSON read item by item, or YAML:
// its other Services are checked, and the item is one line on standard
// error naming the file, the item, the object and the problem (exit 2).
func TestCheck_ListWithAnUnreadableItem(t *testing.T) {
	svc := func(name string) string {
		return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `","namespace":"shop"},"spec":{"type":"LoadBalancer"}}`
	}
	json := `{"apiVersion":"v1","items":[` + svc("a") + `,{"apiVersion":"v1","kind":"Service","metadata":{"name":"b","name":"c"}},` + svc("d") + `],"kind":"List"}`
	yaml := "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: shop}\n  spec: {type: LoadBalancer}\n" +
		"- apiVersion: v1\n  kind: Service\n  metadata: {name: b, name: c}\n" +
		"- apiVersion: v1\n  kind: Service\n  metadata: {name: d, namespace: shop}\n  spec: {type: LoadBalancer}\nkind: List\n"
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, limit string }{
		{"list.json", json, "4194304"},
		{"list.json", json, "200"},
		{"list.yaml", yaml, "4194304"},
	} {
		path := write(t, dir, tc.name, tc.content)
		code, stdout, stderr := runCmd(t, "", "check", "--max-object-bytes", tc.limit, path)
		if code != exitInput || !strings.Contains(stdout, "shop/a") || !strings.Contains(stdout, "shop/d") || !strings.Contains(stdout, "2 observations of 2 Services, 1 input error") {
			t.Errorf("%s, limit %s: exit %d, stdout:\n%s", tc.name, tc.limit, code, stdout)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.name) || !strings.Contains(stderr, "items[1]") || !strings.Contains(stderr, "duplicate") {
			t.Errorf("%s, limit %s: stderr:\n%s", tc.name, tc.limit, stderr)
		}
	}
}
