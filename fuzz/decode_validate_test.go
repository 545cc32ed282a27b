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
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzDecodeAndValidate decodes arbitrary bytes as a Service in JSON and
// YAML, then runs every validation entry point with the gate on, off and
// absent: create, update to and from a copy changed by the edits the
// mutation argument picks, status update. Validation must not panic, must
// not change its input, must give the same errors twice, must keep its
// error conventions (every path under metadata, spec or status), must
// ratchet (an unchanged object reports nothing on update, an update
// reports nothing a create would not), and must report on a status write
// exactly what an update reports under status.
func FuzzDecodeAndValidate(f *testing.F) {
	for i, fx := range fixtures() {
		for _, format := range []struct {
			name string
			s    runtime.Encoder
		}{{"json", ours.json}, {"yaml", ours.yaml}} {
			data, err := encode(format.s, fx.svc)
			if err != nil {
				f.Fatalf("encoding fixture %s as %s: %v", fx.name, format.name, err)
			}
			if len(data) > maxSeed {
				continue
			}
			seed.Add(f, format.name+"-"+fx.name, data, spread(i))
		}
	}
	files := seedFiles(manifestDirs...)
	for i, name := range sortedKeys(files) {
		seed.Add(f, "file-"+name, files[name], spread(100+i))
	}
	for i, data := range edgeInputs {
		seed.Add(f, fmt.Sprintf("edge-%d", i), []byte(data), spread(200+i))
	}

	f.Fuzz(func(t *testing.T, data []byte, mutation uint64) {
		if len(data) > maxInput {
			return
		}
		first := decodeAndValidate(t, data, mutation)
		second := decodeAndValidate(t, data, mutation)
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("two runs on the same input differ:\n%v\n%v", first, second)
		}
	})
}

// decodeAndValidate decodes data with every decoder and checks validation
// on what it gets; it returns everything it saw, for the determinism check.
func decodeAndValidate(t *testing.T, data []byte, mutation uint64) []any {
	var seen []any
	for _, d := range decoders {
		svcs, err := d.decode(data)
		if err != nil {
			seen = append(seen, d.name+": "+err.Error())
			continue
		}
		for i, svc := range svcs {
			if i == 4 {
				// A list's first items exercise what its others would.
				break
			}
			old := mutate(svc, mutation)
			for _, g := range gates {
				label := fmt.Sprintf("%s item %d, %s", d.name, i, g.name)
				seen = append(seen, checkValidation(t, label+", update from the mutated copy", svc, old, g))
				seen = append(seen, checkValidation(t, label+", update to the mutated copy", old, svc, g))
			}
		}
	}
	return seen
}

// checkValidation runs validateAll(svc, old) under g and fails t on any
// broken property; it returns the results.
func checkValidation(t *testing.T, label string, svc, old *v1.Service, g gate) []result {
	t.Helper()
	svcBefore, oldBefore := svc.DeepCopy(), old.DeepCopy()
	results := validateAll(svc, old, g.opts)
	if !reflect.DeepEqual(svc, svcBefore) || !reflect.DeepEqual(old, oldBefore) {
		t.Fatalf("%s: validation changed its input", label)
	}
	byCall := map[string]result{}
	for _, r := range results {
		byCall[r.call] = r
		if bad := conventionErrors(r.errs); len(bad) > 0 {
			t.Fatalf("%s: %s breaks the error conventions: %v", label, r.call, bad)
		}
	}
	for _, call := range []string{"ValidateServiceUpdate(x, x)", "ValidateServiceStatusUpdate(x, x)"} {
		if errs := byCall[call].errs; len(errs) != 0 {
			t.Fatalf("%s: %s reports %v on an unchanged object", label, call, errs)
		}
	}
	update, create := byCall["ValidateServiceUpdate"].errs, byCall["ValidateService"].errs
	if status := byCall["ValidateServiceStatusUpdate"].errs; !reflect.DeepEqual(status, onlyUnder(update, "status")) {
		t.Fatalf("%s: ValidateServiceStatusUpdate = %v, but ValidateServiceUpdate reports %v under status", label, status, onlyUnder(update, "status"))
	}
	// Ratcheting only takes errors away. With the gate off, an old object
	// that uses the new field lets the update validate it as with the gate
	// on, so there the update may report what a gate-off create does not.
	if g.on || len(old.Spec.RequiredLoadBalancerFeatures) == 0 {
		createKeys := map[string]bool{}
		for _, k := range errorKeys(create) {
			createKeys[k] = true
		}
		for _, k := range errorKeys(update) {
			if !createKeys[k] {
				t.Fatalf("%s: the update reports %q, which a create of the same object does not (create: %v, update: %v)", label, k, create, update)
			}
		}
	}
	if !g.on {
		if errs := onlyUnder(byCall["ValidateService after DropDisabledFields"].errs, "spec"); len(errs) != 0 {
			t.Fatalf("%s: with the gate off a create still has spec errors after DropDisabledFields: %v", label, errs)
		}
	}
	return results
}

// edgeInputs are inputs at the edges of the decoders: empty, null, the
// wrong shape, a list, a YAML anchor, an explicit null field.
var edgeInputs = []string{
	"",
	"{}",
	"null",
	"[]",
	"kind: ServiceList\napiVersion: v1\nitems:\n- spec: {type: LoadBalancer}\n- spec: {type: ClusterIP, requiredLoadBalancerFeatures: [Ports]}\n",
	"spec: &a {type: LoadBalancer}\nstatus: {conditions: [{type: x}]}\n",
	`{"spec":{"requiredLoadBalancerFeatures":null},"status":{"conditions":null}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"generation":-1},"status":{"conditions":[{"type":"LoadBalancerServing","status":"Unknown","observedGeneration":-5}]}}`,
}
