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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

var (
	serviceGVK     = v1.SchemeGroupVersion.WithKind("Service")
	serviceListGVK = v1.SchemeGroupVersion.WithKind("ServiceList")
)

// codecs holds a JSON and a YAML serializer for one scheme.
type codecs struct {
	scheme  *runtime.Scheme
	factory serializer.CodecFactory
	json    *json.Serializer
	yaml    *json.Serializer
}

func newCodecs(t testing.TB, add func(*runtime.Scheme) error) codecs {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := add(scheme); err != nil {
		t.Fatalf("building scheme: %v", err)
	}
	return codecs{
		scheme:  scheme,
		factory: serializer.NewCodecFactory(scheme),
		json:    json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{}),
		yaml:    json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true}),
	}
}

// ours is a scheme with this package's types; core one with k8s.io/api's.
func ours(t testing.TB) codecs { return newCodecs(t, v1.AddToScheme) }
func core(t testing.TB) codecs { return newCodecs(t, corev1.AddToScheme) }

func encode(t testing.TB, s runtime.Encoder, obj runtime.Object) []byte {
	t.Helper()
	data, err := runtime.Encode(s, obj)
	if err != nil {
		t.Fatalf("encoding %T: %v", obj, err)
	}
	return data
}

func decode(t testing.TB, s runtime.Decoder, data []byte, gvk schema.GroupVersionKind, into runtime.Object) {
	t.Helper()
	if _, _, err := s.Decode(data, &gvk, into); err != nil {
		t.Fatalf("decoding into %T: %v\n%s", into, err, data)
	}
}
