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

package timeline_test

import (
	"cmp"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/timeline"
)

// A Service's story, fed as a checker sees it: provisioning, then serving.
// Each lane keeps the observations where it changed; WriteText and
// WriteHTML draw them.
func ExampleTimeline() {
	checker := conformance.NewChecker()
	tl := timeline.New()
	start := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	observe := func(rv string, minute int, provisioning, serving metav1.ConditionStatus, reason string, ip string) {
		at := metav1.NewTime(start.Add(time.Duration(minute) * time.Minute)) // when the conditions last changed
		svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "u1", ResourceVersion: rv}}
		svc.Spec.Type = "LoadBalancer"
		provReason := map[metav1.ConditionStatus]string{metav1.ConditionTrue: "Provisioning", metav1.ConditionFalse: "Complete"}[provisioning]
		svc.Status.Conditions = []metav1.Condition{
			{Type: string(v1.LoadBalancerConditionProvisioning), Status: provisioning, Reason: provReason, LastTransitionTime: at},
			{Type: string(v1.LoadBalancerConditionServing), Status: serving, Reason: reason, LastTransitionTime: at},
		}
		if ip != "" {
			svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
		}
		tl.Observe(svc, checker.Observe(svc))
	}
	observe("1", 0, metav1.ConditionTrue, metav1.ConditionFalse, "Provisioning", "")
	observe("2", 0, metav1.ConditionTrue, metav1.ConditionFalse, "Provisioning", "")
	observe("3", 2, metav1.ConditionFalse, metav1.ConditionTrue, "Serving", "203.0.113.10")
	tl.Findings(checker.Finish())

	for _, s := range tl.Services() {
		fmt.Printf("%s: %d observations, %d findings\n", s.Ref(), s.Observations, len(s.Findings))
		for _, lane := range s.Lanes {
			fmt.Printf("  %s:", lane.Name)
			for _, p := range lane.Points { // observation=state, where the lane changed
				fmt.Printf(" %d=%s", p.Step, cmp.Or(p.Status, "-"))
			}
			fmt.Println()
		}
	}
	// Output:
	// shop/web: 3 observations, 0 findings
	//   LoadBalancerProvisioning: 1=True 3=False
	//   LoadBalancerServing: 1=False 3=True
	//   LoadBalancerDegraded: 1=-
	//   Verdict: 1=Pending 3=Ready
}
