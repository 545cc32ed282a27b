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

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/engine"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/event"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	lbgomega "github.com/lbstatus/lbstatus/ext/gomega"
	lbkstatus "github.com/lbstatus/lbstatus/ext/kstatus"
	"github.com/lbstatus/lbstatus/provider"
)

// TestKstatus_PollerWithStatusReader runs the kstatus poller, with the
// lbstatus StatusReader registered, against Services the reference
// provider serves, refuses and fails: each ends Current or Failed with the
// verdict's rule in the message, and the served one is InProgress until it
// has an address, where stock kstatus says Current from the start.
func TestKstatus_PollerWithStatusReader(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-kstatus")
	runProvider(t, provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
		Capabilities: waitCapabilities, Namespace: ns, Workers: 2,
		ProvisionDelay: 2 * time.Second,
		Fail: func(svc *corev1.Service) string {
			if svc.Name == "quota" {
				return "quota exceeded for load balancers"
			}
			return ""
		},
	}))

	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := ctrlclient.New(cfg, ctrlclient.Options{HTTPClient: httpClient, Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	poller := polling.NewStatusPoller(reader, mapper, polling.Options{
		CustomStatusReaders: []engine.StatusReader{lbkstatus.NewStatusReader(mapper)},
	})

	web := createLoadBalancer(t, client, ns, "web", nil)
	// Stock kstatus on the Service as created: Current, with no address.
	created, err := client.CoreV1().Services(ns).Get(context.Background(), web, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stock := stockStatus(t, created); stock != status.CurrentStatus || len(created.Status.LoadBalancer.Ingress) > 0 {
		t.Fatalf("stock kstatus says %s for a Service with ingress %v; this test assumes Current with none", stock, created.Status.LoadBalancer.Ingress)
	}
	createLoadBalancer(t, client, ns, "refused", func(svc *corev1.Service) {
		svc.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}
	})
	createLoadBalancer(t, client, ns, "quota", nil)

	want := map[string]struct {
		status status.Status
		rule   string
	}{
		"web":     {status.CurrentStatus, "T3: "},
		"refused": {status.FailedStatus, "T1: "},
		"quota":   {status.FailedStatus, "T2: "},
	}
	var ids object.ObjMetadataSet
	for name := range want {
		ids = append(ids, object.ObjMetadata{Namespace: ns, Name: name, GroupKind: schema.GroupKind{Kind: "Service"}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seen := map[string][]status.Status{}
	final := map[string]*event.ResourceStatus{}
	for e := range poller.Poll(ctx, ids, polling.PollOptions{PollInterval: 100 * time.Millisecond}) {
		switch e.Type {
		case event.ErrorEvent:
			t.Fatalf("poller: %v", e.Error)
		case event.ResourceUpdateEvent:
			rs := e.Resource
			name := rs.Identifier.Name
			if rs.Error != nil {
				t.Fatalf("%s: %v", name, rs.Error)
			}
			if h := seen[name]; len(h) == 0 || h[len(h)-1] != rs.Status {
				seen[name] = append(seen[name], rs.Status)
			}
			if rs.Status == status.CurrentStatus || rs.Status == status.FailedStatus {
				final[name] = rs
			}
			if rs.Status == status.CurrentStatus {
				var svc corev1.Service
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(rs.Resource.Object, &svc); err != nil {
					t.Fatal(err)
				}
				if !lbkstatus.HasAddress(v1.FromCore(&svc)) {
					t.Errorf("%s is Current without an address: %+v", name, svc.Status)
				}
			}
		}
		if len(final) == len(want) {
			cancel()
		}
	}
	for name, w := range want {
		rs := final[name]
		if rs == nil {
			t.Errorf("%s never reached %s; statuses seen: %v", name, w.status, seen[name])
			continue
		}
		if rs.Status != w.status || !strings.HasPrefix(rs.Message, w.rule) {
			t.Errorf("%s: %s %q, want %s with a message starting %q", name, rs.Status, rs.Message, w.status, w.rule)
		}
	}
	if h := seen["web"]; len(h) < 2 || h[0] != status.InProgressStatus {
		t.Errorf("web went through %v; want InProgress while provisioning, then Current", h)
	}
	if !strings.Contains(final["quota"].Message, "quota exceeded") {
		t.Errorf("quota's message %q does not carry the provider's", final["quota"].Message)
	}
}

func stockStatus(t *testing.T, svc *corev1.Service) status.Status {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Service"})
	res, err := status.Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

// TestGomega_MatchersAgainstTheProvider asserts with the lbstatus gomega
// matchers on Services the reference provider serves, degrades and
// refuses, polling the real apiserver with Eventually.
func TestGomega_MatchersAgainstTheProvider(t *testing.T) {
	g := NewWithT(t)
	client, ns, _ := waitSetup(t, provider.Options{ProvisionDelay: 500 * time.Millisecond})
	get := func(name string) func() *corev1.Service {
		return func() *corev1.Service {
			svc, err := client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return nil
			}
			return svc
		}
	}
	web := createLoadBalancer(t, client, ns, "web", nil)
	g.Expect(get(web)()).NotTo(lbgomega.BeServing(), "served before the provider wrote anything")
	g.Eventually(get(web), 30*time.Second, 100*time.Millisecond).Should(lbgomega.BeServing())
	g.Expect(get(web)()).NotTo(lbgomega.BeDegradedIn(v1.LoadBalancerFeatureSessionAffinity))

	affinity := createLoadBalancer(t, client, ns, "affinity", func(svc *corev1.Service) {
		svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	})
	g.Eventually(get(affinity), 30*time.Second, 100*time.Millisecond).Should(lbgomega.BeDegradedIn(v1.LoadBalancerFeatureSessionAffinity))
	g.Expect(get(affinity)()).To(lbgomega.HaveVerdictFor(v1.LoadBalancerFeatureSessionAffinity, conditions.ResultSkip))

	refused := createLoadBalancer(t, client, ns, "refused", func(svc *corev1.Service) {
		svc.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}
	})
	g.Eventually(get(refused), 30*time.Second, 100*time.Millisecond).Should(lbgomega.BeRefused())
	g.Expect(get(refused)()).To(lbgomega.HaveVerdict(conditions.ResultSkip))

	// A failed assertion says which rule and what the provider wrote.
	m := lbgomega.BeServing()
	if ok, err := m.Match(get(refused)()); ok || err != nil {
		t.Fatalf("BeServing matched a refused Service (%v)", err)
	}
	msg := m.FailureMessage(nil)
	for _, want := range []string{"T1", ns + "/refused", "LoadBalancerServing=False/Unsupported"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, msg)
		}
	}
}
