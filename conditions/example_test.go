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

package conditions_test

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// A provider that cannot do session affinity takes a Service that asks for
// it from "seen" to "serving, degraded in session affinity" with three
// calls: Decide, Seen and Succeeded. Each transition comes with the apply
// configuration to send with Services(ns).ApplyStatus and the provider's
// field manager.
func Example_provider() {
	clk := testingclock.NewFakePassiveClock(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Generation: 1},
		Spec: v1.ServiceSpec{ServiceSpec: corev1.ServiceSpec{
			Type:            corev1.ServiceTypeLoadBalancer,
			Ports:           []corev1.ServicePort{{Port: 443, Protocol: corev1.ProtocolTCP}},
			IPFamilies:      []corev1.IPFamily{corev1.IPv4Protocol},
			SessionAffinity: corev1.ServiceAffinityClientIP,
		}},
	}
	caps := conditions.Capabilities{
		IPFamilies:    []corev1.IPFamily{corev1.IPv4Protocol},
		Protocols:     []corev1.Protocol{corev1.ProtocolTCP},
		DefaultClass:  true,
		KnownFeatures: v1.LoadBalancerFeatures(),
	}

	// 1. What to do with it.
	d := conditions.Decide(svc, caps)
	fmt.Println("decision:", d.Action, d.Degraded)

	// 2. First sight: both conditions at once (L1).
	tr, err := conditions.Seen(svc, d, conditions.WithClock(clk))
	if err != nil {
		panic(err)
	}
	printApply(tr)
	svc.Status = tr.Status // what ApplyStatus returns

	// 3. The load balancer is up, without session affinity.
	clk.SetTime(clk.Now().Add(42 * time.Second))
	ingress := []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	tr, err = conditions.Succeeded(svc, ingress, d.Degraded, conditions.WithClock(clk))
	if err != nil {
		panic(err)
	}
	printApply(tr)
	svc.Status = tr.Status

	fmt.Println(conditions.Evaluate(svc, v1.LoadBalancerFeatureSessionAffinity))
	fmt.Println(conditions.Evaluate(svc, ""))
	// Output:
	// decision: Provision [SessionAffinity]
	// {"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop"},"status":{"conditions":[
	//   {"type":"LoadBalancerProvisioning","status":"True","observedGeneration":1,"lastTransitionTime":"2025-03-04T05:06:07Z","reason":"Provisioning","message":"the load balancer is being provisioned"},
	//   {"type":"LoadBalancerServing","status":"False","observedGeneration":1,"lastTransitionTime":"2025-03-04T05:06:07Z","reason":"Provisioning","message":"the load balancer is being provisioned"}]}}
	// {"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop"},"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.10"}]},"conditions":[
	//   {"type":"LoadBalancerProvisioning","status":"False","observedGeneration":1,"lastTransitionTime":"2025-03-04T05:06:49Z","reason":"Complete","message":"provisioning is complete"},
	//   {"type":"LoadBalancerServing","status":"True","observedGeneration":1,"lastTransitionTime":"2025-03-04T05:06:49Z","reason":"Serving","message":"the load balancer serves the service at the addresses in status.loadBalancer.ingress"},
	//   {"type":"LoadBalancerDegraded","status":"True","observedGeneration":1,"lastTransitionTime":"2025-03-04T05:06:49Z","reason":"SessionAffinityNotSupported","message":"the load balancer does not implement sessionAffinity ClientIP"}]}}
	// Skip (T1): the load balancer is degraded in feature SessionAffinity (SessionAffinityNotSupported)
	// Ready (T3): the load balancer serves the latest spec of the service
}

// printApply prints an apply configuration as JSON, one condition a line.
func printApply(tr conditions.Transition) {
	conds := tr.Apply.Status.Conditions
	tr.Apply.Status.Conditions = nil
	head, _ := json.Marshal(tr.Apply)
	tr.Apply.Status.Conditions = conds
	// Reopen the status object to list the conditions one per line.
	s := string(head)
	s = s[:len(s)-2]
	if s[len(s)-1] != '{' {
		s += ","
	}
	fmt.Print(s + `"conditions":[`)
	for i, c := range conds {
		line, _ := json.Marshal(c)
		sep := ","
		if i == len(conds)-1 {
			sep = "]}}"
		}
		fmt.Printf("\n  %s%s", line, sep)
	}
	fmt.Println()
}

// A test suite asks whether to skip a test of session affinity in one call.
func ExampleEvaluate() {
	svc := &v1.Service{Status: v1.ServiceStatus{
		LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}},
		Conditions: []metav1.Condition{
			{Type: "LoadBalancerServing", Status: "True", Reason: "Serving"},
			{Type: "LoadBalancerProvisioning", Status: "False", Reason: "Complete"},
			{Type: "LoadBalancerDegraded", Status: "True", Reason: "Multiple",
				Message: "PortsNotSupported,SessionAffinityNotSupported: UDP is not served; no affinity"},
		},
	}}
	if v := conditions.Evaluate(svc, v1.LoadBalancerFeatureSessionAffinity); v.Result == conditions.ResultSkip {
		fmt.Println("skip:", v.Reason)
	}
	// Output:
	// skip: the load balancer is degraded in feature SessionAffinity (SessionAffinityNotSupported)
}
