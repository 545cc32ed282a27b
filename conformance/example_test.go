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

package conformance_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lbstatus/lbstatus/conformance"
)

// A trace, as "kubectl get services --watch -o json" records it: the ports
// change, then the provider writes status without acknowledging the change
// (L6). Verdict notices are left out here.
func ExampleChecker() {
	trace := `
{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"1"},
 "spec":{"type":"LoadBalancer","ports":[{"port":80,"protocol":"TCP"}]},
 "status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.10"}]},"conditions":[
  {"type":"LoadBalancerProvisioning","status":"False","reason":"Complete","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"},
  {"type":"LoadBalancerServing","status":"True","reason":"Serving","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"}]}}
{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"2"},
 "spec":{"type":"LoadBalancer","ports":[{"port":80,"protocol":"TCP"},{"port":443,"protocol":"TCP"}]},
 "status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.10"}]},"conditions":[
  {"type":"LoadBalancerProvisioning","status":"False","reason":"Complete","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"},
  {"type":"LoadBalancerServing","status":"True","reason":"Serving","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"}]}}
{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"3"},
 "spec":{"type":"LoadBalancer","ports":[{"port":80,"protocol":"TCP"},{"port":443,"protocol":"TCP"}]},
 "status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.11"}]},"conditions":[
  {"type":"LoadBalancerProvisioning","status":"False","reason":"Complete","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"},
  {"type":"LoadBalancerServing","status":"True","reason":"Serving","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"}]}}
`
	dec := conformance.NewDecoder(strings.NewReader(trace), "trace.json")
	checker := conformance.NewChecker()
	show := func(found []conformance.Finding) {
		for _, f := range found {
			if f.Verdict == nil {
				fmt.Printf("%s %s %s: %s\n", f.Severity, f.Rule, f.Object.ResourceVersion, f.Field)
			}
		}
	}
	for {
		obj, err := dec.Next()
		if err == io.EOF {
			break
		}
		var de *conformance.DecodeError
		if errors.As(err, &de) { // an object that cannot be read; reading goes on unless Fatal
			fmt.Println(de)
			if de.Fatal {
				break
			}
			continue
		}
		show(checker.ObserveObject(obj))
	}
	show(checker.Finish())
	// Output:
	// violation L6 3: status.conditions[0].lastTransitionTime
}
