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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// The provider transitions, one call per event, on client-go's Service: a
// provider that cannot do session affinity takes a Service that asks for it
// from "seen" to "serving, degraded in session affinity" with three calls:
// Decide, Seen and Succeeded. Each transition comes with the apply
// configuration to send with Services(ns).ApplyStatus and the provider's
// field manager. Reconcile does the same in one call per reconcile.
func Example_provider() {
	clk := testingclock.NewFakePassiveClock(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Generation: 1},
		Spec: corev1.ServiceSpec{
			Type:            corev1.ServiceTypeLoadBalancer,
			Ports:           []corev1.ServicePort{{Port: 443, Protocol: corev1.ProtocolTCP}},
			IPFamilies:      []corev1.IPFamily{corev1.IPv4Protocol},
			SessionAffinity: corev1.ServiceAffinityClientIP,
		},
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
	printApply(tr.Apply)
	svc = tr.Service // what ApplyStatus returns

	// 3. The load balancer is up, without session affinity.
	clk.SetTime(clk.Now().Add(42 * time.Second))
	ingress := []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	tr, err = conditions.Succeeded(svc, ingress, d.Degraded, conditions.WithClock(clk))
	if err != nil {
		panic(err)
	}
	printApply(tr.Apply)
	svc = tr.Service

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
func printApply(apply *corev1ac.ServiceApplyConfiguration) {
	conds := apply.Status.Conditions
	apply.Status.Conditions = nil
	head, _ := json.Marshal(apply)
	apply.Status.Conditions = conds
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
	svc := &corev1.Service{Status: corev1.ServiceStatus{
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

// A load balancer reached by a hostname only: the Ready verdict names it,
// and a test resolves it before it connects, since its DNS record may lag
// the status (T3).
func ExampleEvaluate_hostname() {
	svc := &corev1.Service{Status: corev1.ServiceStatus{
		LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{Hostname: "web.lb.example.com"}}},
		Conditions: []metav1.Condition{
			{Type: "LoadBalancerServing", Status: "True", Reason: "Serving"},
			{Type: "LoadBalancerProvisioning", Status: "False", Reason: "Complete"},
		},
	}}
	v := conditions.Evaluate(svc, "")
	if v.Result == conditions.ResultReady && v.Hostname != "" {
		fmt.Println("resolve", v.Hostname)
	}
	fmt.Println(v)
	// Output:
	// resolve web.lb.example.com
	// Ready (T3): the load balancer serves the latest spec of the service, at hostname web.lb.example.com, with no ip: resolve it first, its DNS record may lag
}

// A whole provider loop on client-go's types, one Reconcile per reconcile:
// the provider keeps, per Service, the Service it last acted on and its
// load balancer, and writes at most one server-side apply each time. The
// clientset here is client-go's fake; a real provider runs the same code
// from an informer's work queue.
func ExampleReconcile() {
	ctx := context.Background()
	clk := testingclock.NewFakePassiveClock(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	services := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.ServiceSpec{
			Type:            corev1.ServiceTypeLoadBalancer,
			Ports:           []corev1.ServicePort{{Port: 443, Protocol: corev1.ProtocolTCP}},
			SessionAffinity: corev1.ServiceAffinityClientIP,
		},
	}).CoreV1().Services("shop")
	caps := conditions.Capabilities{
		IPFamilies:    []corev1.IPFamily{corev1.IPv4Protocol},
		Protocols:     []corev1.Protocol{corev1.ProtocolTCP},
		DefaultClass:  true,
		KnownFeatures: v1.LoadBalancerFeatures(),
	}

	// What the provider keeps across reconciles. After a restart acted is
	// nil (Reconcile then moves Provisioning once, so no L6 bump is lost);
	// lb is made up here, but a real provider finds its load balancer again
	// in its infrastructure: Absent or Provisioning for one that serves
	// would turn Serving False on every restart.
	var acted *corev1.Service
	var lb conditions.LoadBalancer
	const manager = "example-lb"

	reconcile := func() {
		svc, err := services.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			panic(err)
		}
		// The provider's own work: bring the load balancer in line with
		// the spec. Made up here: provisioning takes one reconcile.
		switch d := conditions.Decide(svc, caps); {
		case d.Action != conditions.ActionProvision:
			lb = conditions.LoadBalancer{} // delete it, if any
		case lb.State == conditions.LoadBalancerAbsent:
			lb = conditions.LoadBalancer{State: conditions.LoadBalancerProvisioning}
		default:
			lb = conditions.LoadBalancer{State: conditions.LoadBalancerReady, Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}}
		}
		// WithFieldManager: after a restart, a Service that moved to
		// another provider's class gets no cleanup unless this
		// manager wrote its status (P1).
		r, err := conditions.Reconcile(svc, caps, acted, lb, conditions.WithClock(clk), conditions.WithFieldManager(manager))
		if err != nil {
			panic(err)
		}
		if r.Apply != nil {
			if _, err := services.ApplyStatus(ctx, r.Apply, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
				panic(err)
			}
		}
		acted = svc
		fmt.Printf("%s, write %v:", r.Decision.Action, r.Apply != nil)
		for _, c := range r.Service.Status.Conditions {
			fmt.Printf(" %s=%s/%s@%s", strings.TrimPrefix(c.Type, "LoadBalancer"), c.Status, c.Reason, c.LastTransitionTime.Format("04:05"))
		}
		fmt.Println()
	}

	reconcile() // first sight: provisioning (L1)
	clk.SetTime(clk.Now().Add(30 * time.Second))
	reconcile() // ready, degraded in session affinity
	reconcile() // nothing new: no write

	// The user changes the port; the load balancer is updated in place.
	svc, _ := services.Get(ctx, "web", metav1.GetOptions{})
	svc.Spec.Ports[0].Port = 8443
	if _, err := services.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		panic(err)
	}
	clk.SetTime(clk.Now().Add(5 * time.Second))
	reconcile() // Provisioning and Serving move (L6), in the same write

	// The Service stops being a LoadBalancer: the conditions go (L9).
	svc, _ = services.Get(ctx, "web", metav1.GetOptions{})
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	if _, err := services.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		panic(err)
	}
	reconcile()
	// Output:
	// Provision, write true: Provisioning=True/Provisioning@06:07 Serving=False/Provisioning@06:07
	// Provision, write true: Provisioning=False/Complete@06:37 Serving=True/Serving@06:37 Degraded=True/SessionAffinityNotSupported@06:37
	// Provision, write false: Provisioning=False/Complete@06:37 Serving=True/Serving@06:37 Degraded=True/SessionAffinityNotSupported@06:37
	// Provision, write true: Provisioning=False/Complete@06:42 Serving=True/Serving@06:42 Degraded=True/SessionAffinityNotSupported@06:37
	// Ignore, write true:
}

// An e2e test waits for the verdict of the Service it created, fails on a
// *FailError, and skips on T1 with ShouldSkip: no per-provider timeouts or
// skip lists.
func ExampleWait() {
	services := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "e2e"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{
			LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}},
			Conditions: []metav1.Condition{
				{Type: "LoadBalancerServing", Status: "True", Reason: "Serving"},
				{Type: "LoadBalancerProvisioning", Status: "False", Reason: "Complete"},
				{Type: "LoadBalancerDegraded", Status: "True", Reason: "SessionAffinityNotSupported"},
			},
		},
	}).CoreV1().Services("e2e")

	svc, verdict, err := conditions.Wait(context.Background(), services, "web", v1.LoadBalancerFeatureSessionAffinity,
		conditions.WithDeadlinesFromCreation())
	var fail *conditions.FailError
	if errors.As(err, &fail) {
		fmt.Println("fail:", fail.Verdict.Reason)
		return
	}
	if skip, why := conditions.ShouldSkip(svc, v1.LoadBalancerFeatureSessionAffinity); skip {
		fmt.Println("skip:", why)
	}
	fmt.Println(verdict.Result)
	// Output:
	// skip: the load balancer is degraded in feature SessionAffinity (SessionAffinityNotSupported)
	// Skip
}

// An e2e test that changed the type of its Service away from LoadBalancer
// waits for the provider to release the load balancer (L9): no verdict
// follows such a change. Here the provider has already removed its
// conditions and the ingress.
func ExampleWaitReleased() {
	services := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "e2e"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP},
	}).CoreV1().Services("e2e")

	svc, err := conditions.WaitReleased(context.Background(), services, "web")
	if err != nil {
		fmt.Println(err) // a *conditions.FailError wrapping ErrNotReleased at the deadline
		return
	}
	fmt.Println(svc.Spec.Type, conditions.HasKEPConditions(svc.Status.Conditions), len(svc.Status.LoadBalancer.Ingress))
	// Output:
	// ClusterIP false 0
}

// An e2e test that updates a Ready Service waits for the provider to
// acknowledge the change (L6). With the Service as it was before, Wait
// fails at once when the update changed nothing a provider acknowledges,
// here a label, instead of at the provisioning deadline.
func ExampleWithSpecChangeFrom() {
	services := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "e2e"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
	}).CoreV1().Services("e2e")
	svc, _ := services.Get(context.Background(), "web", metav1.GetOptions{})

	old := svc.DeepCopy() // before the change: svc itself is changed below
	svc.Labels = map[string]string{"tier": "gold"}
	updated, _ := services.Update(context.Background(), svc, metav1.UpdateOptions{})

	_, _, err := conditions.Wait(context.Background(), services, "web", "",
		conditions.WithSpecChangeFrom(old, updated))
	fmt.Println(errors.Is(err, conditions.ErrNoSpecChange))
	fmt.Println(err)
	// Output:
	// true
	// service e2e/web: the update changed no load-balancer-relevant field (G3), so no provider acknowledges it (L6)
}

// An e2e test that requires a feature of the provider (R1) on a stock
// cluster, which drops spec.requiredLoadBalancerFeatures: the annotation
// carries the request.
func ExampleSetRequiredFeaturesAnnotation() {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "e2e"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
			SessionAffinity: corev1.ServiceAffinityClientIP},
	}
	conditions.SetRequiredFeaturesAnnotation(svc, v1.LoadBalancerFeatureSessionAffinity)
	fmt.Println(svc.Annotations[v1.RequiredFeaturesAnnotation])
	features, source, _ := conditions.RequiredFeatures(svc)
	fmt.Println(features, source)
	// Output:
	// SessionAffinity
	// [SessionAffinity] Annotation
}

// An e2e test of session affinity on the Service it created, as client-go
// returned it: one call says whether to skip (T1), and why.
func ExampleShouldSkip() {
	svc := &corev1.Service{Status: corev1.ServiceStatus{
		Conditions: []metav1.Condition{
			{Type: "LoadBalancerServing", Status: "False", Reason: "Unsupported", Message: "required feature SessionAffinity is not supported"},
			{Type: "LoadBalancerProvisioning", Status: "False", Reason: "Complete"},
		},
	}}
	if skip, why := conditions.ShouldSkip(svc, v1.LoadBalancerFeatureSessionAffinity); skip {
		fmt.Println("skip:", why)
	}
	// Output:
	// skip: the provider refused the service as unsupported: required feature SessionAffinity is not supported
}

// A provider with a state machine of its own changes the conditions with
// Set and Bump and applies them with StatusApply: the KEP-4631 conditions
// and the ingress, with the read's resourceVersion as a precondition, for
// Services(ns).ApplyStatus with the provider's field manager.
func ExampleStatusApply() {
	clk := conditions.WithClock(testingclock.NewFakePassiveClock(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)))
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "812"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{Conditions: []metav1.Condition{
			{Type: "example.com/Healthy", Status: "True", Reason: "Probed"}, // another controller's
		}},
	}
	conditions.Set(&svc.Status.Conditions, metav1.Condition{Type: "LoadBalancerServing", Status: "True", Reason: "Serving"}, clk)
	conditions.Set(&svc.Status.Conditions, metav1.Condition{Type: "LoadBalancerProvisioning", Status: "False", Reason: "Complete"}, clk)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}

	out, err := json.Marshal(conditions.StatusApply(svc))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop","resourceVersion":"812"},"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.10"}]},"conditions":[{"type":"LoadBalancerServing","status":"True","observedGeneration":0,"lastTransitionTime":"2025-03-04T05:06:07Z","reason":"Serving","message":""},{"type":"LoadBalancerProvisioning","status":"False","observedGeneration":0,"lastTransitionTime":"2025-03-04T05:06:07Z","reason":"Complete","message":""}]}}
}
