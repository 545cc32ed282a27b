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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestConversion_CoreRoundTrip: random core/v1 Services survive FromCore
// then ToCore exactly, and the results share no memory with the input.
// FromCoreShallow holds what FromCore's copy holds, and shares it with the
// input rather than copy it.
func TestConversion_CoreRoundTrip(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), core(t).factory)
	for range 200 {
		var in corev1.Service
		f.Fill(&in)
		orig := in.DeepCopy()
		ours := v1.FromCore(&in)
		if len(ours.Spec.RequiredLoadBalancerFeatures) != 0 {
			t.Fatalf("FromCore invented required features: %v", ours.Spec.RequiredLoadBalancerFeatures)
		}
		back := v1.ToCore(ours)
		if diff := cmp.Diff(orig, back); diff != "" {
			t.Fatalf("core -> ours -> core lost data (-in +out):\n%s", diff)
		}
		shallow := v1.FromCoreShallow(&in)
		if diff := cmp.Diff(ours, shallow); diff != "" {
			t.Fatalf("FromCoreShallow differs from FromCore (-copy +shallow):\n%s", diff)
		}
		if len(in.Status.Conditions) > 0 && &shallow.Status.Conditions[0] != &in.Status.Conditions[0] {
			t.Fatalf("FromCoreShallow copied the conditions")
		}
		if len(ours.Spec.Ports) > 0 {
			if &shallow.Spec.Ports[0] != &in.Spec.Ports[0] {
				t.Fatalf("FromCoreShallow copied the ports")
			}
			ours.Spec.Ports[0].Name = "changed-" + ours.Spec.Ports[0].Name
			if in.Spec.Ports[0].Name == ours.Spec.Ports[0].Name {
				t.Fatalf("FromCore shares the ports slice with its input")
			}
		}
	}
}

// TestConversion_ToCoreDropsOnlyNewField: our Service converted to core/v1
// and back differs from the original only in requiredLoadBalancerFeatures.
func TestConversion_ToCoreDropsOnlyNewField(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, featureFuzzFuncs), rand.NewSource(seed), ours(t).factory)
	for range 200 {
		var in v1.Service
		f.Fill(&in)
		back := v1.FromCore(v1.ToCore(&in))
		want := in.DeepCopy()
		want.Spec.RequiredLoadBalancerFeatures = nil
		if diff := cmp.Diff(want, back); diff != "" {
			t.Fatalf("ours -> core -> ours lost more than the new field (-want +got):\n%s", diff)
		}
	}
}

// TestConversion_KeepsTypeMeta: apiVersion and kind survive both ways
// (the fuzzer of the round trips leaves them empty), so a converted
// Service still encodes as what it is.
func TestConversion_KeepsTypeMeta(t *testing.T) {
	tm := metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}
	for name, got := range map[string]metav1.TypeMeta{
		"FromCore":        v1.FromCore(&corev1.Service{TypeMeta: tm}).TypeMeta,
		"FromCoreShallow": v1.FromCoreShallow(&corev1.Service{TypeMeta: tm}).TypeMeta,
		"ToCore":          v1.ToCore(&v1.Service{TypeMeta: tm}).TypeMeta,
	} {
		if got != tm {
			t.Errorf("%s: TypeMeta %+v, want %+v", name, got, tm)
		}
	}
}

func TestConversion_Nil(t *testing.T) {
	if v1.FromCore(nil) != nil || v1.FromCoreShallow(nil) != nil || v1.ToCore(nil) != nil {
		t.Errorf("nil must convert to nil")
	}
}

// TestConversion_ToCoreCopies: ToCore's result shares no memory with its
// input: a caller that edits the core/v1 Service (to send it to a stock
// cluster, say) leaves the Service it came from as it was.
func TestConversion_ToCoreCopies(t *testing.T) {
	in := &v1.Service{}
	in.Labels = map[string]string{"app": "web"}
	in.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80}}
	in.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	in.Status.Conditions = []metav1.Condition{{Type: string(v1.LoadBalancerConditionServing), Reason: string(v1.LoadBalancerReasonServing)}}
	orig := in.DeepCopy()
	out := v1.ToCore(in)
	out.Labels["app"] = "changed"
	out.Spec.Ports[0].Name = "changed"
	out.Status.LoadBalancer.Ingress[0].IP = "192.0.2.2"
	out.Status.Conditions[0].Reason = "Changed"
	if diff := cmp.Diff(orig, in); diff != "" {
		t.Errorf("editing ToCore's result changed its input (-before +after):\n%s", diff)
	}
}
