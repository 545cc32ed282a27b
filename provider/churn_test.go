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

package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// A provider left running for a week sees Services created, changed and
// deleted for ever, a few alive at a time: what it keeps per Service (what
// it acted on, the versions and spec changes delivered, pool addresses)
// must go with the Service, or its memory grows with every Service ever
// seen.
func TestProvider_MemoryFollowsLiveServices(t *testing.T) {
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	goneIsNotFound(client)
	p := New(client, Options{Pool: pool, Workers: 2, Capabilities: ipv4TCP(), NoLatencies: true})
	run(t, p)
	services := client.CoreV1().Services("ns")
	const live, total = 10, 300
	for i := range total {
		svc := lbService(fmt.Sprintf("svc-%d", i))
		created, err := services.Create(t.Context(), svc, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A load-balancer-relevant spec change, which the provider owes
		// an acknowledgement (L6).
		created.Spec.Ports = append(created.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP})
		created.Spec.Ports[0].Name = "http"
		if _, err := services.Update(t.Context(), created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if i >= live {
			if err := services.Delete(t.Context(), fmt.Sprintf("svc-%d", i-live), metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := total - live; i < total; i++ {
		if err := services.Delete(t.Context(), fmt.Sprintf("svc-%d", i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	held := func() string {
		p.mu.Lock()
		defer p.mu.Unlock()
		pool.mu.Lock()
		defer pool.mu.Unlock()
		return fmt.Sprintf("acted %d, seen %d, changes %d, pool owners %d, pool keys %d",
			len(p.acted), len(p.seen), len(p.changes), len(pool.owner), len(pool.byKey))
	}
	const none = "acted 0, seen 0, changes 0, pool owners 0, pool keys 0"
	for deadline := time.Now().Add(20 * time.Second); held() != none; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d Services came and went, and after 20 s the provider holds %s; want %s", total, held(), none)
		}
	}
}

// A Provider run again, as a library's leader election may do after a lost
// Lease, forgets the Services deleted while it was stopped: no delete
// event comes for them, and their addresses would stay handed out for
// ever. A Service created again under a name meanwhile is a new one: it is
// provisioned (L1), not served at once as the old one was.
func TestProvider_RunAgainForgetsServicesDeletedMeanwhile(t *testing.T) {
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	var mu sync.Mutex
	var applied []string // the status applies to api, in order
	client.PrependReactor("patch", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if pa := a.(k8stesting.PatchAction); a.GetSubresource() == "status" && pa.GetName() == "api" {
			mu.Lock()
			applied = append(applied, string(pa.GetPatch()))
			mu.Unlock()
		}
		return false, nil, nil
	})
	p := New(client, Options{Pool: pool, Workers: 1, Capabilities: ipv4TCP(), NoLatencies: true})
	services := client.CoreV1().Services("ns")
	lb := func(name, uid string) *corev1.Service {
		svc := lbService(name)
		svc.UID = types.UID(uid)
		return svc
	}
	for _, name := range []string{"web", "api"} {
		if _, err := services.Create(t.Context(), lb(name, "uid-"+name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	eventually(t, "not served", func() bool {
		for _, name := range []string{"web", "api"} {
			got, err := services.Get(t.Context(), name, metav1.GetOptions{})
			if err != nil || !p.View("ns", name).Settled(got) {
				return false
			}
		}
		return pool.InUse() == 2
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web", "api"} {
		if err := services.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := services.Create(t.Context(), lb("api", "uid-api-2"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	applied = nil
	mu.Unlock()
	run(t, p)
	eventually(t, "the Service deleted while the provider was stopped still holds its address, the provider remembers it, or the new api is not served", func() bool {
		got, err := services.Get(t.Context(), "api", metav1.GetOptions{})
		p.mu.Lock()
		defer p.mu.Unlock()
		_, web := p.acted["ns/web"]
		return !web && len(p.seen) == 1 && pool.InUse() == 1 && err == nil && conditions.IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing)
	})
	mu.Lock()
	defer mu.Unlock()
	if len(applied) == 0 || !strings.Contains(applied[0], `"type":"LoadBalancerProvisioning","status":"True"`) {
		t.Errorf("the new api's first status is not Provisioning=True (L1): %q", applied)
	}
}

// On a large cluster most Services are not the provider's: ClusterIP and
// NodePort ones, LoadBalancers of other classes (P1). What the provider
// keeps per Service must follow its own Services, and those it still owes
// something: not a copy of every Service it ever looked at. A Service
// that was its own and stopped being a LoadBalancer still gets its
// cleanup (L9) exactly once, and its address back in the pool; another
// provider's Service gets no write at all, however it changes (P1).
func TestProvider_P1_L9_StateOnlyForItsOwnServices(t *testing.T) {
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	var mu sync.Mutex
	writes := map[string]int{} // status applies per Service
	client.PrependReactor("patch", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if pa := a.(k8stesting.PatchActionImpl); a.GetSubresource() == "status" && pa.PatchOptions.FieldManager != "other-provider" {
			mu.Lock()
			writes[pa.GetName()]++
			mu.Unlock()
		}
		return false, nil, nil
	})
	ctx := t.Context()
	services := client.CoreV1().Services("ns")
	create := func(name string, typ corev1.ServiceType, class *string) {
		t.Helper()
		svc := lbService(name)
		svc.Spec.Type = typ
		svc.Spec.LoadBalancerClass = class
		if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update := func(name string, change func(*corev1.Service)) {
		t.Helper()
		svc, err := services.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		change(svc)
		if _, err := services.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	morePorts := func(svc *corev1.Service) {
		svc.Spec.Ports[0].Name = "http"
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP})
	}
	const clusterIPs, foreign, foreignServed, own = 300, 60, 10, 3
	for i := range clusterIPs {
		create(fmt.Sprintf("cip-%d", i), corev1.ServiceTypeClusterIP, nil)
	}
	other := "other.example/lb"
	for i := range foreign {
		create(fmt.Sprintf("theirs-%d", i), corev1.ServiceTypeLoadBalancer, &other)
	}
	// The other provider has served some of its Services already.
	for i := range foreignServed {
		st := corev1ac.ServiceStatus().WithConditions(
			condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, string(v1.LoadBalancerReasonComplete)),
			condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, string(v1.LoadBalancerReasonServing))).
			WithLoadBalancer(corev1ac.LoadBalancerStatus().WithIngress(corev1ac.LoadBalancerIngress().WithIP("203.0.113.1")))
		apply := corev1ac.Service(fmt.Sprintf("theirs-%d", i), "ns").WithStatus(st)
		if _, err := services.ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: "other-provider", Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range own {
		create(fmt.Sprintf("mine-%d", i), corev1.ServiceTypeLoadBalancer, nil)
	}
	create("leaver", corev1.ServiceTypeLoadBalancer, nil)

	// One worker: the queue hands out keys in the order they came, so a
	// Service acted on says every key queued before it was too.
	p := New(client, Options{Pool: pool, Workers: 1, Capabilities: ipv4TCP(), NoLatencies: true})
	run(t, p)
	settled := func(what, name string) {
		t.Helper()
		eventually(t, what, func() bool {
			got, err := services.Get(ctx, name, metav1.GetOptions{})
			return err == nil && conditions.IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing) && p.View("ns", name).Settled(got)
		})
	}
	for _, name := range []string{"mine-0", "mine-1", "mine-2", "leaver"} {
		settled(name+" not served", name)
	}
	// Changes to Services that are not its own, and the one that leaves.
	for i := range clusterIPs {
		update(fmt.Sprintf("cip-%d", i), morePorts)
	}
	for i := range foreign {
		update(fmt.Sprintf("theirs-%d", i), morePorts)
	}
	update("leaver", func(svc *corev1.Service) { svc.Spec.Type = corev1.ServiceTypeClusterIP })
	eventually(t, "the leaver's conditions and ingress stayed (L9), or its address is not free", func() bool {
		got, err := services.Get(ctx, "leaver", metav1.GetOptions{})
		return err == nil && !conditions.HasKEPConditions(got.Status.Conditions) && len(got.Status.LoadBalancer.Ingress) == 0 && pool.InUse() == own
	})
	// Changes after the cleanup: none may bring another write.
	update("leaver", func(svc *corev1.Service) { svc.Labels = map[string]string{"app": "web"} })
	update("leaver", func(svc *corev1.Service) { svc.Spec.Ports[0].Port = 8080 })
	update("theirs-0", func(svc *corev1.Service) { svc.Spec.Ports[0].Port = 8080 })
	update("mine-0", morePorts)
	settled("mine-0's change not acted on", "mine-0")

	mu.Lock()
	for name, n := range writes {
		switch {
		case strings.HasPrefix(name, "mine-"):
		case name == "leaver" && n == 3: // provisioning, served, cleanup
		default:
			t.Errorf("%s: %d status writes by the provider", name, n)
		}
	}
	mu.Unlock()
	// Owed nothing more, the provider holds a record of its own
	// Services, and at most a marker (no copy of a Service) for those
	// whose status it wrote or that show the conditions of KEP-4631.
	p.mu.Lock()
	defer p.mu.Unlock()
	may := func(key string) bool {
		var i int
		_, err := fmt.Sscanf(key, "ns/theirs-%d", &i)
		return key == "ns/leaver" || err == nil && i < foreignServed
	}
	for key, rec := range p.acted {
		if !strings.HasPrefix(key, "ns/mine-") && (!may(key) || rec.acted != nil) {
			t.Errorf("the provider keeps a record of %s (a copy of the Service: %v)", key, rec.acted != nil)
		}
	}
	for key := range p.seen {
		if !strings.HasPrefix(key, "ns/mine-") {
			t.Errorf("the provider keeps the resourceVersion of %s", key)
		}
	}
	for key := range p.changes {
		if !strings.HasPrefix(key, "ns/mine-") && key != "ns/leaver" {
			t.Errorf("the provider counts the spec changes of %s", key)
		}
	}
	if len(p.acted) > own+1+foreignServed || len(p.seen) != own || len(p.changes) > own+1 {
		t.Errorf("with %d Services of which %d its own: %d records, %d versions, %d change counts",
			clusterIPs+foreign+own+1, own, len(p.acted), len(p.seen), len(p.changes))
	}
}

// P1, L9: a Service the provider served that moves to another class (by
// way of ClusterIP: a LoadBalancer's class cannot change) gets its
// cleanup once, when it leaves; once the other provider has written its
// status there, nothing the Service goes through brings another write
// from this one.
func TestProvider_P1_NoWriteAfterTheCleanupOfAMove(t *testing.T) {
	client := fake.NewClientset()
	var mu sync.Mutex
	var writes []string // the provider's status applies to web
	client.PrependReactor("patch", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if pa := a.(k8stesting.PatchActionImpl); a.GetSubresource() == "status" && pa.GetName() == "web" && pa.PatchOptions.FieldManager != "other-provider" {
			mu.Lock()
			writes = append(writes, string(pa.GetPatch()))
			mu.Unlock()
		}
		return false, nil, nil
	})
	p := New(client, Options{Workers: 1, Capabilities: ipv4TCP(), NoLatencies: true})
	run(t, p)
	ctx := t.Context()
	services := client.CoreV1().Services("ns")
	svc := lbService("web")
	if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	update := func(change func(*corev1.Service)) {
		t.Helper()
		svc, err := services.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		change(svc)
		if _, err := services.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	status := func() corev1.ServiceStatus {
		got, err := services.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	eventually(t, "not served", func() bool { return conditions.IsTrue(status().Conditions, v1.LoadBalancerConditionServing) })
	update(func(svc *corev1.Service) { svc.Spec.Type = corev1.ServiceTypeClusterIP })
	eventually(t, "no cleanup (L9)", func() bool {
		st := status()
		return !conditions.HasKEPConditions(st.Conditions) && len(st.LoadBalancer.Ingress) == 0
	})
	mu.Lock()
	writes = nil
	mu.Unlock()
	update(func(svc *corev1.Service) {
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		svc.Spec.LoadBalancerClass = ptr.To("other.example/lb")
	})
	theirs := corev1ac.Service("web", "ns").WithStatus(corev1ac.ServiceStatus().WithConditions(
		condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, string(v1.LoadBalancerReasonComplete)),
		condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, string(v1.LoadBalancerReasonServing))))
	if _, err := services.ApplyStatus(ctx, theirs, metav1.ApplyOptions{FieldManager: "other-provider", Force: true}); err != nil {
		t.Fatal(err)
	}
	update(func(svc *corev1.Service) { svc.Spec.Ports[0].Port = 8080 })
	update(func(svc *corev1.Service) { svc.Labels = map[string]string{"app": "web"} })
	// Another Service of the provider's, acted on after these changes:
	// one worker takes the keys in the order they came.
	mine := svc.DeepCopy()
	mine.Name, mine.ResourceVersion = "mine", ""
	if _, err := services.Create(ctx, mine, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "mine not served", func() bool {
		got, err := services.Get(ctx, "mine", metav1.GetOptions{})
		return err == nil && conditions.IsTrue(got.Status.Conditions, v1.LoadBalancerConditionServing)
	})
	mu.Lock()
	defer mu.Unlock()
	if len(writes) > 0 {
		t.Errorf("status writes after the cleanup, on another provider's Service: %q", writes)
	}
	if !conditions.IsTrue(status().Conditions, v1.LoadBalancerConditionServing) {
		t.Errorf("the other provider's status changed: %+v", status())
	}
}
