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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

// Services as client-go delivers them, such as to an informer's event
// handler in an e2e suite: a provider that says the load balancer serves
// before it fills the ingress (L4), then fills it.
func ExampleChecker_ObserveCore() {
	at := metav1.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "u1", ResourceVersion: "1"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}},
		Status: corev1.ServiceStatus{Conditions: []metav1.Condition{
			{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: "Complete", LastTransitionTime: at},
			{Type: "LoadBalancerServing", Status: metav1.ConditionTrue, Reason: "Serving", LastTransitionTime: at},
		}},
	}
	checker := conformance.NewChecker()
	onUpdate := func(svc *corev1.Service) {
		for _, f := range checker.ObserveCore(svc) {
			if f.Verdict == nil {
				fmt.Printf("%s %s %s: %s\n", f.Severity, f.Rule, f.Object.ResourceVersion, f.Field)
			} else {
				fmt.Printf("verdict at %s: %s\n", f.Object.ResourceVersion, f.Verdict.Result)
			}
		}
	}
	onUpdate(svc)

	filled := svc.DeepCopy()
	filled.ResourceVersion = "2"
	filled.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}}
	onUpdate(filled)
	// Output:
	// violation L4 1: status.loadBalancer.ingress
	// verdict at 1: Pending
	// verdict at 2: Ready
}
