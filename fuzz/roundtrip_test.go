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
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzRoundTrip decodes arbitrary bytes as a Service and checks that the
// wire keeps it: DeepCopy gives an equal value that shares no memory; a
// first trip through JSON only normalises (see firstPass); the normalised
// value then survives JSON (to the byte), YAML, sigs.k8s.io/yaml and CBOR
// unchanged; and conversion to core/v1 and back, in memory and through the
// wire, loses spec.requiredLoadBalancerFeatures and nothing else.
func FuzzRoundTrip(f *testing.F) {
	for _, fx := range fixtures() {
		for _, format := range []struct {
			name string
			s    runtime.Encoder
		}{{"json", ours.json}, {"yaml", ours.yaml}, {"cbor", ours.cbor}} {
			data, err := encode(format.s, fx.svc)
			if err != nil {
				f.Fatalf("encoding fixture %s as %s: %v", fx.name, format.name, err)
			}
			if len(data) > maxSeed {
				continue
			}
			seed.Add(f, format.name+"-"+fx.name, data)
		}
	}
	files := seedFiles(manifestDirs...)
	for _, name := range sortedKeys(files) {
		seed.Add(f, "file-"+name, files[name])
	}
	for i, data := range normalisingInputs {
		seed.Add(f, fmt.Sprintf("normalising-%d", i), []byte(data))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxInput {
			return
		}
		for _, d := range decoders {
			svcs, err := d.decode(data)
			if err != nil {
				continue
			}
			for i, svc := range svcs {
				if i == 4 {
					break
				}
				checkRoundTrip(t, fmt.Sprintf("%s item %d", d.name, i), svc)
			}
		}
	})
}

var coreServiceGVK = corev1.SchemeGroupVersion.WithKind("Service")

// checkRoundTrip checks every round trip of svc, decoded by label.
func checkRoundTrip(t *testing.T, label string, svc *v1.Service) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: %s", label, fmt.Sprintf(format, args...))
	}

	copied := svc.DeepCopy()
	if diff := cmp.Diff(svc, copied); diff != "" {
		fail("DeepCopy differs (-original +copy):\n%s", diff)
	}
	if p := aliased(svc, copied); p != "" {
		fail("DeepCopy shares %s with the original", p)
	}

	// The first trip normalises.
	first, err := encode(ours.json, svc)
	if err != nil {
		fail("a decoded Service does not encode as JSON: %v", err)
	}
	normal, err := decodeOne(ours.json, first, serviceGVK, &v1.Service{})
	if err != nil {
		fail("our own JSON does not decode: %v\n%s", err, first)
	}
	if diff := cmp.Diff(svc, normal, firstPass); diff != "" {
		fail("the first JSON trip changed more than it normalises (-decoded +after the trip):\n%s", diff)
	}

	// From here on nothing may change.
	second, err := encode(ours.json, normal)
	if err != nil {
		fail("JSON encode after one trip: %v", err)
	}
	again, err := decodeOne(ours.json, second, serviceGVK, &v1.Service{})
	if err != nil {
		fail("JSON decode after one trip: %v\n%s", err, second)
	}
	if diff := cmp.Diff(normal, again, exact); diff != "" {
		fail("JSON trip of a normalised Service changed it (-before +after):\n%s", diff)
	}
	if third, err := encode(ours.json, again); err != nil || !bytes.Equal(second, third) {
		fail("JSON encoding is not stable (err %v):\n%s\n%s", err, second, third)
	}

	for _, trip := range []struct {
		name string
		s    runtime.Serializer
	}{{"YAML", ours.yaml}, {"CBOR", ours.cbor}} {
		data, err := encode(trip.s, normal)
		if err != nil {
			if trip.name == "YAML" && yamlUnreadable(second) && strings.Contains(err.Error(), "control characters are not allowed") {
				continue
			}
			fail("%s encode: %v", trip.name, err)
		}
		back, err := decodeOne(trip.s, data, serviceGVK, &v1.Service{})
		if err != nil {
			fail("%s decode of our own %s: %v\n%q", trip.name, trip.name, err, data)
		}
		if diff := cmp.Diff(normal, back, exact); diff != "" {
			fail("%s trip changed a normalised Service (-before +after):\n%s", trip.name, diff)
		}
	}
	if sigsYAML, err := yaml.Marshal(normal); err != nil {
		if !yamlUnreadable(second) || !strings.Contains(err.Error(), "control characters are not allowed") {
			fail("sigs.k8s.io/yaml encode: %v", err)
		}
	} else {
		var sigsBack v1.Service
		if err := yaml.Unmarshal(sigsYAML, &sigsBack); err != nil {
			fail("sigs.k8s.io/yaml decode of its own YAML: %v\n%s", err, sigsYAML)
		}
		if diff := cmp.Diff(normal, &sigsBack, exact); diff != "" {
			fail("sigs.k8s.io/yaml trip changed a normalised Service (-before +after):\n%s", diff)
		}
	}

	// core/v1 has no field for the new spec field and nothing else new.
	want := normal.DeepCopy()
	want.Spec.RequiredLoadBalancerFeatures = nil
	coreSvc := v1.ToCore(normal)
	fromCore := v1.FromCore(coreSvc)
	if diff := cmp.Diff(want, fromCore); diff != "" {
		fail("FromCore(ToCore(x)) lost more than requiredLoadBalancerFeatures (-want +got):\n%s", diff)
	}
	if p := aliased(normal, fromCore); p != "" {
		fail("FromCore(ToCore(x)) shares %s with x", p)
	}
	for _, trip := range []struct {
		name       string
		ours, core runtime.Serializer
	}{{"JSON", ours.json, core.json}, {"CBOR", ours.cbor, core.cbor}} {
		coreData, err := encode(trip.core, coreSvc)
		if err != nil {
			fail("core/v1 %s encode: %v", trip.name, err)
		}
		ourSvc, err := decodeOne(trip.ours, coreData, serviceGVK, &v1.Service{})
		if err != nil {
			fail("core/v1 %s does not decode as our Service: %v", trip.name, err)
		}
		if diff := cmp.Diff(want, ourSvc, exact); diff != "" {
			fail("core/v1 %s of ToCore(x) decodes as more than x without requiredLoadBalancerFeatures (-want +got):\n%s", trip.name, diff)
		}
		ourData, err := encode(trip.ours, normal)
		if err != nil {
			fail("%s encode: %v", trip.name, err)
		}
		coreBack, err := decodeOne(trip.core, ourData, coreServiceGVK, &corev1.Service{})
		if err != nil {
			fail("our %s does not decode as a core/v1 Service: %v", trip.name, err)
		}
		if diff := cmp.Diff(coreSvc, coreBack, exact); diff != "" {
			fail("our %s decodes in core/v1 as other than ToCore(x) (-want +got):\n%s", trip.name, diff)
		}
	}
}

// normalisingInputs hold what the first trip through the wire may change:
// fractions of a second, empty maps and lists, FieldsV1 with whitespace and
// characters JSON escapes, a time within the zero second, both halves of
// IntOrString.
var normalisingInputs = []string{
	`{"metadata":{"creationTimestamp":"2026-01-02T03:04:05.999999999+02:00","labels":{},"annotations":{"a":""},"finalizers":[]},"spec":{"type":"LoadBalancer","ports":[],"requiredLoadBalancerFeatures":[]}}`,
	`{"metadata":{"managedFields":[{"manager":"m","fieldsType":"FieldsV1","fieldsV1":{ "f:spec" : { "f:x<&>" : {} } },"time":"2026-01-02T03:04:05.5Z"}]}}`,
	`{"metadata":{"creationTimestamp":"0001-01-01T00:00:00.5Z","deletionTimestamp":null},"status":{"conditions":[{"type":"LoadBalancerServing","status":"True","lastTransitionTime":"1970-01-01T00:00:00.1Z","reason":"Serving","message":"\u00e9\ud83d\ude00"}]}}`,
	`{"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}],"sessionAffinityConfig":{"clientIP":{}}}}`,
	"metadata:\n  name: web\n  labels: {}\nspec:\n  type: LoadBalancer\n  requiredLoadBalancerFeatures: [Ports, Ports, Unknown]\nstatus:\n  loadBalancer:\n    ingress:\n    - ip: 192.0.2.1\n      ports: []\n",
}
