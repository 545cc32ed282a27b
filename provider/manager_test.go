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

package provider

import (
	"strings"
	"testing"

	"github.com/lbstatus/lbstatus/conditions"
)

// Providers of different classes get different field managers (so that
// one's cleanup of a Service it does not serve leaves the other's status,
// P1), the same class set the same one (the replicas of a Deployment), and
// every one fits the apiserver's 128 characters.
func TestFieldManagerFor_OnePerClassSet(t *testing.T) {
	long := "example.com/" + strings.Repeat("x", 120)
	for _, tc := range []struct {
		caps conditions.Capabilities
		want string
	}{
		{conditions.Capabilities{DefaultClass: true}, DefaultFieldManager},
		{conditions.Capabilities{Classes: []string{"example.com/lb"}}, DefaultFieldManager + "/example.com/lb"},
		{conditions.Capabilities{Classes: []string{"b.example/lb", "a.example/lb"}}, DefaultFieldManager + "/a.example/lb,b.example/lb"},
		{conditions.Capabilities{Classes: []string{"example.com/lb"}, DefaultClass: true}, DefaultFieldManager + "/(default),example.com/lb"},
	} {
		if got := FieldManagerFor(tc.caps); got != tc.want {
			t.Errorf("FieldManagerFor(%+v) = %q, want %q", tc.caps, got, tc.want)
		}
	}
	a := FieldManagerFor(conditions.Capabilities{Classes: []string{long}})
	b := FieldManagerFor(conditions.Capabilities{Classes: []string{long + "y"}})
	if len(a) > 128 || len(b) > 128 || a == b || !strings.HasPrefix(a, DefaultFieldManager+"/") {
		t.Errorf("long classes: %q and %q; want distinct managers of at most 128 characters", a, b)
	}
	if again := FieldManagerFor(conditions.Capabilities{Classes: []string{long}}); again != a {
		t.Errorf("the same classes gave %q, then %q", a, again)
	}
	if New(nil, Options{Capabilities: conditions.Capabilities{Classes: []string{"example.com/lb"}}}).manager != DefaultFieldManager+"/example.com/lb" {
		t.Error("New does not default to FieldManagerFor")
	}
	if m := New(nil, Options{FieldManager: "example-lb", Capabilities: conditions.Capabilities{Classes: []string{"example.com/lb"}}}).manager; m != "example-lb" {
		t.Errorf("Options.FieldManager example-lb: the provider writes under %q", m)
	}
}

// A field manager of exactly the apiserver's 128 characters still names
// its classes: only a longer one is replaced by a hash.
func TestFieldManagerFor_ClassesUpTo128Characters(t *testing.T) {
	prefix := DefaultFieldManager + "/example.com/"
	class := "example.com/" + strings.Repeat("x", 128-len(prefix))
	want := DefaultFieldManager + "/" + class
	if got := FieldManagerFor(conditions.Capabilities{Classes: []string{class}}); len(want) != 128 || got != want {
		t.Errorf("FieldManagerFor(%q) = %q, want %q (%d characters)", class, got, want, len(want))
	}
}
