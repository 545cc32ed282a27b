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
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestResource_CoreGroup: the package's resources are of the core group,
// as k8s.io/api core/v1's are, so an apiserver's errors and RBAC name
// "services", not a group of their own.
func TestResource_CoreGroup(t *testing.T) {
	if got, want := v1.Resource("services"), (schema.GroupResource{Resource: "services"}); got != want {
		t.Errorf("Resource(services) = %#v, want %#v", got, want)
	}
}

// TestAddToScheme_KnownKinds: the scheme takes Service and ServiceList, and
// the meta kinds of the version (list options, watch events) that a client
// or apiserver using the scheme to list and watch Services needs.
func TestAddToScheme_KnownKinds(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"Service", "ServiceList", "ListOptions", "WatchEvent", "GetOptions", "DeleteOptions"} {
		if gvk := v1.SchemeGroupVersion.WithKind(kind); !scheme.Recognizes(gvk) {
			t.Errorf("AddToScheme does not register %s", gvk)
		}
	}
}
