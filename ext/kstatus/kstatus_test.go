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

package kstatus

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/engine"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"
)

// readServices returns the Services of a YAML file, by name.
func readServices(t *testing.T, path string) map[string]*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*unstructured.Unstructured{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if obj == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		out[u.GetName()] = u
	}
	return out
}

func TestCompute_Examples(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "conformant")
	for _, c := range []struct {
		file string
		want status.Status
		rule string
	}{
		{"ready.yaml", status.CurrentStatus, "T3"},
		{"pending.yaml", status.InProgressStatus, "T4"},
		{"skip-unsupported.yaml", status.FailedStatus, "T1"},
		{"fail-infrastructure.yaml", status.FailedStatus, "T2"},
	} {
		t.Run(c.file, func(t *testing.T) {
			svcs := readServices(t, filepath.Join(dir, c.file))
			if len(svcs) != 1 {
				t.Fatalf("%s holds %d Services, want 1", c.file, len(svcs))
			}
			for _, u := range svcs {
				res, err := Compute(u)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != c.want || !strings.HasPrefix(res.Message, c.rule+": ") {
					t.Errorf("Compute = %s %q, want %s with a message starting %q", res.Status, res.Message, c.want, c.rule+": ")
				}
			}
		})
	}
	t.Run("degraded-and-legacy.yaml", func(t *testing.T) {
		for _, u := range readServices(t, filepath.Join(dir, "degraded-and-legacy.yaml")) {
			res, err := Compute(u)
			if err != nil {
				t.Fatal(err)
			}
			// Degraded in session affinity is still Current: no feature is
			// under test. The legacy provider's address makes it Current.
			if res.Status != status.CurrentStatus {
				t.Errorf("%s: Compute = %s %q, want Current", u.GetName(), res.Status, res.Message)
			}
		}
	})
}

// lbService returns a LoadBalancer Service with the given status.
func lbService(st map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "s", "namespace": "n"},
		"spec":     map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
		"status":   st,
	}}
}

func servingConditions() []any {
	return []any{
		map[string]any{"type": "LoadBalancerServing", "status": "True", "reason": "Serving", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
		map[string]any{"type": "LoadBalancerProvisioning", "status": "False", "reason": "Complete", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
	}
}

func TestCompute_Edges(t *testing.T) {
	for _, c := range []struct {
		name string
		obj  *unstructured.Unstructured
		want status.Status
	}{
		{"serving without ingress is not Current (L4)", lbService(map[string]any{"conditions": servingConditions()}), status.InProgressStatus},
		{"serving with an entry that has no address is not Current (L4)", lbService(map[string]any{
			"conditions": servingConditions(), "loadBalancer": map[string]any{"ingress": []any{map[string]any{"ipMode": "VIP"}}}}), status.InProgressStatus},
		{"serving with a hostname is Current", lbService(map[string]any{
			"conditions": servingConditions(), "loadBalancer": map[string]any{"ingress": []any{map[string]any{"hostname": "lb.example"}}}}), status.CurrentStatus},
		{"no conditions and no ingress is InProgress (stock kstatus says Current)", lbService(map[string]any{}), status.InProgressStatus},
		{"no conditions with an address is Current (R3)", lbService(map[string]any{
			"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}}), status.CurrentStatus},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Compute(c.obj)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.want {
				t.Errorf("Compute = %s %q, want %s", res.Status, res.Message, c.want)
			}
		})
	}
}

func TestCompute_OtherServicesAsStock(t *testing.T) {
	for _, typ := range []string{"ClusterIP", "NodePort"} {
		u := lbService(map[string]any{})
		_ = unstructured.SetNestedField(u.Object, typ, "spec", "type")
		res, err := Compute(u)
		if err != nil {
			t.Fatal(err)
		}
		stock, _ := status.Compute(u)
		if res.Status != stock.Status || res.Status != status.CurrentStatus {
			t.Errorf("%s Service: %s, want stock kstatus's %s", typ, res.Status, stock.Status)
		}
	}
	// The error names the Service, for a poller that reports many.
	bad := lbServiceWithBadPorts()
	bad.SetNamespace("shop")
	bad.SetName("web")
	if _, err := Compute(bad); err == nil || !strings.Contains(err.Error(), bad.GetNamespace()+"/"+bad.GetName()) {
		t.Errorf("a Service that does not convert: error %v, want one naming %s/%s", err, bad.GetNamespace(), bad.GetName())
	}
	// Stock status.Compute panics on nil; ours says so.
	if res, err := Compute(nil); err == nil {
		t.Errorf("a nil object gave %+v and no error", res)
	}
}

func lbServiceWithBadPorts() *unstructured.Unstructured {
	u := lbService(map[string]any{})
	_ = unstructured.SetNestedField(u.Object, "eighty", "spec", "ports")
	return u
}

func TestStatusReader_SupportsServicesOnly(t *testing.T) {
	r := NewStatusReader(nil)
	if !r.Supports(schema.GroupKind{Kind: "Service"}) {
		t.Error("does not support core Service")
	}
	for _, gk := range []schema.GroupKind{{Group: "apps", Kind: "Deployment"}, {Group: "example.com", Kind: "Service"}} {
		if r.Supports(gk) {
			t.Errorf("supports %s", gk)
		}
	}
}

func TestCompute_DeletingServiceIsTerminating(t *testing.T) {
	u := lbService(map[string]any{"conditions": servingConditions(),
		"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}})
	_ = unstructured.SetNestedField(u.Object, "2026-01-01T00:00:00Z", "metadata", "deletionTimestamp")
	res, err := Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.TerminatingStatus {
		t.Errorf("a Service being deleted: %s, want Terminating as stock kstatus says", res.Status)
	}
}

// TestStatusReader_NilMapperIsAnError: ReadStatus needs a mapper;
// ReadStatusForObject does not, and judges a LoadBalancer Service by its
// conditions where stock kstatus would not.
func TestStatusReader_NilMapperIsAnError(t *testing.T) {
	id := object.ObjMetadata{Namespace: "n", Name: "s", GroupKind: schema.GroupKind{Kind: "Service"}}
	rs, err := NewStatusReader(nil).ReadStatus(context.Background(), nil, id)
	if err != nil || rs == nil || rs.Error == nil || rs.Status != status.UnknownStatus {
		t.Fatalf("ReadStatus with no mapper: %+v, %v; want Unknown with an error", rs, err)
	}
	rs, err = NewStatusReader(nil).ReadStatusForObject(context.Background(), nil, lbService(map[string]any{}))
	if err != nil || rs.Status != status.InProgressStatus {
		t.Fatalf("ReadStatusForObject with no mapper: %+v, %v; want InProgress", rs, err)
	}
	// A nil object is an error, not a panic.
	if rs, err := NewStatusReader(nil).ReadStatusForObject(context.Background(), nil, nil); err == nil {
		t.Errorf("ReadStatusForObject(nil) gave %+v and no error", rs)
	}
	// Refused (T1) with an address: stock kstatus would say Current.
	refused := lbService(map[string]any{
		"conditions":   []any{map[string]any{"type": "LoadBalancerServing", "status": "False", "reason": "Unsupported", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
		"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}})
	_ = unstructured.SetNestedField(refused.Object, "10.0.0.1", "spec", "clusterIP")
	rs, err = NewStatusReader(nil).ReadStatusForObject(context.Background(), nil, refused)
	if err != nil || rs.Status != status.FailedStatus {
		t.Fatalf("ReadStatusForObject of a refused Service: %+v, %v; want Failed (T1)", rs, err)
	}
}

// TestCompute_LegacyOnlyWithoutEitherCondition: the R3 fallback (Current
// on an address alone) is for a provider that writes neither Serving nor
// Provisioning; one that writes only one of them is judged by section 6
// and is still InProgress.
func TestCompute_LegacyOnlyWithoutEitherCondition(t *testing.T) {
	ingress := map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}
	for name, cond := range map[string]map[string]any{
		"only Serving":      servingConditions()[0].(map[string]any),
		"only Provisioning": servingConditions()[1].(map[string]any),
	} {
		res, err := Compute(lbService(map[string]any{"conditions": []any{cond}, "loadBalancer": ingress}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != status.InProgressStatus {
			t.Errorf("%s with an address: %s %q, want InProgress", name, res.Status, res.Message)
		}
	}
}

// TestCompute_ServiceOfAnotherGroup: a kind named Service outside the core
// group is not a Service; stock kstatus judges it.
func TestCompute_ServiceOfAnotherGroup(t *testing.T) {
	u := lbService(map[string]any{})
	u.SetAPIVersion("example.com/v1")
	res, err := Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.CurrentStatus {
		t.Errorf("example.com Service: %s %q, want stock kstatus's Current", res.Status, res.Message)
	}
}

// TestServiceStatus_Nil: a nil Service is InProgress and has no address.
func TestServiceStatus_Nil(t *testing.T) {
	if st, _ := ServiceStatus(nil); st != status.InProgressStatus {
		t.Errorf("ServiceStatus(nil) = %s, want InProgress", st)
	}
	if HasAddress(nil) {
		t.Error("HasAddress(nil) = true")
	}
}

// noClusterReader is a cluster reader that must not be used.
type noClusterReader struct{ engine.ClusterReader }

// TestStatusReader_NeedsMapperAndReader: a missing mapper or a missing
// cluster reader is reported in the status, each on its own, without a
// call to the other.
func TestStatusReader_NeedsMapperAndReader(t *testing.T) {
	id := object.ObjMetadata{Namespace: "n", Name: "s", GroupKind: schema.GroupKind{Kind: "Service"}}
	for name, tc := range map[string]struct {
		mapper meta.RESTMapper
		reader engine.ClusterReader
	}{
		"no mapper": {nil, noClusterReader{}},
		"no reader": {meta.NewDefaultRESTMapper(nil), nil},
	} {
		rs, err := NewStatusReader(tc.mapper).ReadStatus(context.Background(), tc.reader, id)
		if err != nil || rs == nil || rs.Error == nil || rs.Status != status.UnknownStatus {
			t.Errorf("%s: %+v, %v; want Unknown with an error", name, rs, err)
		} else if !strings.Contains(rs.Error.Error(), "needs a RESTMapper and a cluster reader") {
			t.Errorf("%s: error %q does not say what the reader needs", name, rs.Error)
		}
	}
}

// TestCompute_NoR3FallbackForRequiredFeatures: the R3 fallback (Current on
// an address alone) is not for a Service that requires features, through
// the spec field or the annotation: R3 says a provider that writes no
// conditions never saw the request, so the address does not say the
// requirement was honored, and the Service stays InProgress as
// conditions.Evaluate says (T4). An annotation that lists nothing
// requires nothing.
func TestCompute_NoR3FallbackForRequiredFeatures(t *testing.T) {
	ingress := map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}
	for _, c := range []struct {
		name string
		edit func(u *unstructured.Unstructured)
		want status.Status
	}{
		{"annotation", func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"lbstatus.github.io/required-load-balancer-features": "SessionAffinity"})
		}, status.InProgressStatus},
		{"annotation with a value no provider knows", func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"lbstatus.github.io/required-load-balancer-features": " ,Teleport"})
		}, status.InProgressStatus},
		{"spec field", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedStringSlice(u.Object, []string{"Ports"}, "spec", "requiredLoadBalancerFeatures")
		}, status.InProgressStatus},
		{"annotation that lists nothing", func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"lbstatus.github.io/required-load-balancer-features": " , "})
		}, status.CurrentStatus},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := lbService(map[string]any{"loadBalancer": ingress})
			c.edit(u)
			res, err := Compute(u)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.want {
				t.Errorf("Compute = %s %q, want %s", res.Status, res.Message, c.want)
			}
		})
	}
}

// TestCompute_DegradedInARequiredFeatureIsFailed: a Service served while
// degraded in a feature it requires (violations/required-feature-degraded.yaml,
// P6) is Failed with the verdict for that feature (T1): the provider had to
// refuse it (R1), and waiting does not give the Service what it requires.
// Degraded in a feature it does not require, it is Current.
func TestCompute_DegradedInARequiredFeatureIsFailed(t *testing.T) {
	svcs := readServices(t, filepath.Join("..", "..", "violations", "required-feature-degraded.yaml"))
	u := svcs["must-stick"]
	if u == nil {
		t.Fatal("violations/required-feature-degraded.yaml has no Service must-stick")
	}
	check := func(name string, u *unstructured.Unstructured, want status.Status, prefix string) {
		t.Helper()
		res, err := Compute(u)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != want || !strings.HasPrefix(res.Message, prefix) {
			t.Errorf("%s: Compute = %s %q, want %s %q...", name, res.Status, res.Message, want, prefix)
		}
	}
	check("spec field", u, status.FailedStatus, "T1: the load balancer is degraded in feature SessionAffinity")

	// The same through the annotation, as on a stock apiserver.
	annotated := u.DeepCopy()
	unstructured.RemoveNestedField(annotated.Object, "spec", "requiredLoadBalancerFeatures")
	annotated.SetAnnotations(map[string]string{"lbstatus.github.io/required-load-balancer-features": "Ports, SessionAffinity"})
	check("annotation", annotated, status.FailedStatus, "T1: the load balancer is degraded in feature SessionAffinity")

	// Nothing required: degraded in SessionAffinity is what the provider
	// may do (P3), and the Service is deployed.
	free := annotated.DeepCopy()
	free.SetAnnotations(nil)
	check("nothing required", free, status.CurrentStatus, "T3: ")
}

// oneObjectReader is a cluster reader that holds one object.
type oneObjectReader struct {
	engine.ClusterReader
	obj *unstructured.Unstructured
}

func (r oneObjectReader) Get(_ context.Context, key types.NamespacedName, obj *unstructured.Unstructured) error {
	if key.Namespace != r.obj.GetNamespace() || key.Name != r.obj.GetName() {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, key.Name)
	}
	r.obj.DeepCopyInto(obj)
	return nil
}

// TestStatusReader_ReadStatus: with a mapper and a cluster reader,
// ReadStatus fetches the Service and judges it by its conditions (a
// refused Service with an address is Failed, T1, where stock kstatus
// would say Current); a Service that is not there is NotFound.
func TestStatusReader_ReadStatus(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Service"}, meta.RESTScopeNamespace)
	refused := lbService(map[string]any{
		"conditions":   []any{map[string]any{"type": "LoadBalancerServing", "status": "False", "reason": "Unsupported", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
		"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}})
	reader := oneObjectReader{obj: refused}
	id := object.ObjMetadata{Namespace: "n", Name: "s", GroupKind: schema.GroupKind{Kind: "Service"}}
	rs, err := NewStatusReader(mapper).ReadStatus(context.Background(), reader, id)
	if err != nil || rs.Status != status.FailedStatus || !strings.HasPrefix(rs.Message, "T1: ") {
		t.Errorf("ReadStatus of a refused Service: %+v, %v; want Failed (T1)", rs, err)
	}
	id.Name = "gone"
	rs, err = NewStatusReader(mapper).ReadStatus(context.Background(), reader, id)
	if err != nil || rs.Status != status.NotFoundStatus {
		t.Errorf("ReadStatus of a Service that is not there: %+v, %v; want NotFound", rs, err)
	}
}
