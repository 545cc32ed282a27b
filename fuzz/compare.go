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

package fuzz

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fieldsV1Semantic compares managed-fields sets as the JSON values they
// are. FieldsV1 holds an opaque JSON document that each wire form
// re-serializes in its own way (JSON compacts and escapes it, YAML and
// CBOR rebuild it with sorted keys), so only its meaning can survive a
// trip; bytes that are not JSON at all are compared as bytes.
var fieldsV1Semantic = cmp.Comparer(func(a, b metav1.FieldsV1) bool {
	var av, bv any
	aErr, bErr := json.Unmarshal(a.Raw, &av), json.Unmarshal(b.Raw, &bv)
	if aErr != nil || bErr != nil {
		return aErr != nil && bErr != nil && string(a.Raw) == string(b.Raw)
	}
	return reflect.DeepEqual(av, bv)
})

// firstPass is what a first trip through the wire may change without
// losing anything: times lose their fraction of a second (the wire has
// one-second resolution), empty lists and maps become absent ones
// (omitempty), and FieldsV1 is re-serialized. Anything else is data lost.
var firstPass = cmp.Options{
	cmpopts.EquateEmpty(),
	cmp.Comparer(sameSecond),
	// *metav1.Time has an Equal method of its own, which cmp would use
	// before looking at the value.
	cmp.Comparer(func(a, b *metav1.Time) bool {
		if a == nil || b == nil {
			return a == b
		}
		return sameSecond(*a, *b)
	}),
	fieldsV1Semantic,
}

// sameSecond reports whether a and b fall in the same second.
func sameSecond(a, b metav1.Time) bool {
	return a.Time.Truncate(time.Second).Equal(b.Time.Truncate(time.Second))
}

// exact is how a value that has been through the wire once must compare
// after another trip: equal, except for FieldsV1's bytes. Times compare
// with time.Time.Equal, so their location does not matter.
var exact = cmp.Options{fieldsV1Semantic}

// aliased returns the path of the first pointer, slice or map that a and b
// share, or "" when they share none: a deep copy shares nothing with its
// original, or writing to one would change the other. Strings are
// immutable and not counted; a and b must have the same type.
func aliased(a, b any) string {
	return aliasedValue(reflect.ValueOf(a), reflect.ValueOf(b), "")
}

func aliasedValue(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return aliasedValue(a.Elem(), b.Elem(), path)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		return aliasedValue(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() == 0 || b.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for i := 0; i < a.Len() && i < b.Len(); i++ {
			if p := aliasedValue(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		iter := a.MapRange()
		for iter.Next() {
			if bv := b.MapIndex(iter.Key()); bv.IsValid() {
				if p := aliasedValue(iter.Value(), bv, fmt.Sprintf("%s[%v]", path, iter.Key())); p != "" {
					return p
				}
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				// time.Time's location pointer is shared by design.
				continue
			}
			if p := aliasedValue(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// yamlUnreadable reports whether data holds a character that go-yaml's
// reader rejects anywhere, even inside a quoted scalar where JSON and YAML
// 1.2 allow it: DEL and the C1 controls other than NEL. apimachinery's
// YAML serializer and sigs.k8s.io/yaml turn JSON into YAML by reading the
// JSON as YAML, so they cannot encode a string holding one
// (go-yaml/yaml#737, #872). That limits core/v1 Services as much as ours:
// the YAML trips accept exactly that failure, and only for such data.
func yamlUnreadable(data []byte) bool {
	for _, r := range string(data) {
		if r == 0x7F || (r >= 0x80 && r <= 0x9F && r != 0x85) {
			return true
		}
	}
	return false
}
