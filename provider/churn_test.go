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
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

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
	// As an apiserver does, and the fake does not: an apply of the status
	// of a Service that is gone is NotFound, not a new Service.
	client.PrependReactor("patch", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		_, err := client.Tracker().Get(a.GetResource(), a.GetNamespace(), a.(k8stesting.PatchAction).GetName())
		return err != nil, nil, err
	})
	p := New(client, Options{Pool: pool, Workers: 2, Capabilities: ipv4TCP(), NoLatencies: true})
	run(t, p)
	services := client.CoreV1().Services("ns")
	const live, total = 10, 300
	for i := range total {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("svc-%d", i)}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
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
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(uid)}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
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
