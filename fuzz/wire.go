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
	"bytes"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// maxInput bounds the inputs the targets decode. Manifests are a few
// kilobytes; larger inputs only slow the fuzzer down.
const maxInput = 64 << 10

// maxSeed bounds the seeds made from fixtures. A fuzzer mutates a large
// seed slowly and every execution of it costs more; the one fixture above
// the bound (a condition message over metav1's 32768-byte limit) reaches
// the condition targets through their structured arguments instead.
const maxSeed = 8 << 10

var serviceGVK = v1.SchemeGroupVersion.WithKind("Service")

// wire holds the serializers of one scheme.
type wire struct {
	json, yaml, cbor runtime.Serializer
}

func newWire(add func(*runtime.Scheme) error) wire {
	scheme := runtime.NewScheme()
	if err := add(scheme); err != nil {
		// A fresh scheme rejects nothing a register.go adds; this runs
		// once, at start-up, on no input.
		panic(err)
	}
	return wire{
		json: json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{}),
		yaml: json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true}),
		cbor: cbor.NewSerializer(scheme, scheme),
	}
}

// ours serializes this project's Service; core serializes k8s.io/api's. A
// scheme cannot hold both: they register the same kind.
var (
	ours = newWire(v1.AddToScheme)
	core = newWire(corev1.AddToScheme)
)

// decoder turns bytes into the Services they hold.
type decoder struct {
	name   string
	decode func([]byte) ([]*v1.Service, error)
}

// decoders are the ways a Service reaches the library: apimachinery's JSON
// and YAML serializers (what an apiserver and client-go use), and
// sigs.k8s.io/yaml (what CLIs and tests use). A ServiceList yields its
// items.
var decoders = []decoder{
	{"json", func(b []byte) ([]*v1.Service, error) { return decodeServices(ours.json, b) }},
	{"yaml", func(b []byte) ([]*v1.Service, error) { return decodeServices(ours.yaml, b) }},
	{"sigs.k8s.io/yaml", func(b []byte) ([]*v1.Service, error) {
		var svc v1.Service
		if err := yaml.Unmarshal(b, &svc); err != nil {
			return nil, err
		}
		// sigs.k8s.io/yaml fills TypeMeta without judging it; accept what
		// the serializers accept as a Service.
		if (svc.APIVersion != "" && svc.APIVersion != "v1") || (svc.Kind != "" && svc.Kind != "Service") {
			return nil, fmt.Errorf("%w: %s %s", errNotService, svc.APIVersion, svc.Kind)
		}
		return []*v1.Service{&svc}, nil
	}},
}

// errNotService reports data that decodes to a kind other than Service and
// ServiceList.
var errNotService = errors.New("not a Service")

// decodeServices decodes data with s, defaulting the kind to v1 Service.
func decodeServices(s runtime.Decoder, data []byte) ([]*v1.Service, error) {
	obj, _, err := s.Decode(data, &serviceGVK, &v1.Service{})
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case *v1.Service:
		return []*v1.Service{o}, nil
	case *v1.ServiceList:
		out := make([]*v1.Service, len(o.Items))
		for i := range o.Items {
			out[i] = &o.Items[i]
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: %T", errNotService, obj)
}

// encode encodes obj with s.
func encode(s runtime.Encoder, obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := s.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeOne decodes data with s into a new object of into's type, which
// the data must hold.
func decodeOne[T runtime.Object](s runtime.Decoder, data []byte, gvk schema.GroupVersionKind, into T) (T, error) {
	obj, _, err := s.Decode(data, &gvk, into)
	if err != nil {
		var zero T
		return zero, err
	}
	out, ok := obj.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("decoded a %T, want %T", obj, into)
	}
	return out, nil
}
