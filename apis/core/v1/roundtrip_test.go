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
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// featureFuzzFuncs draws feature values from the known ones plus one this
// version does not know: the wire must carry both unchanged.
func featureFuzzFuncs(runtimeserializer.CodecFactory) []interface{} {
	all := append([]v1.LoadBalancerFeature{"FutureFeature"}, v1.LoadBalancerFeatures()...)
	return []interface{}{
		func(f *v1.LoadBalancerFeature, c randfill.Continue) {
			*f = all[c.Intn(len(all))]
		},
	}
}

// TestRoundTrip runs apimachinery's round-trip fuzzer over Service and
// ServiceList: random objects encoded as JSON and YAML decode back to the
// same object.
func TestRoundTrip(t *testing.T) {
	c := ours(t)
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, featureFuzzFuncs), rand.NewSource(seed), c.factory)
	for _, gvk := range []schema.GroupVersionKind{serviceGVK, serviceListGVK} {
		t.Run(gvk.Kind, func(t *testing.T) {
			for range 50 {
				roundtrip.RoundTripSpecificKindWithoutProtobuf(t, gvk, c.scheme, c.factory, f, nil)
			}
		})
	}
}
