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
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/provider"
)

const (
	providerManager = "lbstatus-test-provider"
	dnsManager      = "dns-controller"
	dnsReady        = "example.com/DNSReady"
)

// ssaCapabilities is a provider that serves TCP on IPv4 and degrades
// session affinity.
var ssaCapabilities = conditions.Capabilities{
	IPFamilies:    []corev1.IPFamily{corev1.IPv4Protocol},
	Protocols:     []corev1.Protocol{corev1.ProtocolTCP},
	DefaultClass:  true,
	KnownFeatures: v1.LoadBalancerFeatures(),
}

// TestSSA_ConditionsMergeAcrossFieldManagers: the provider applies
// Serving and Provisioning through the conditions apply configurations,
// a second field manager applies a condition of its own, and each
// manager's later applies leave the other's condition as it was: the
// conditions are a list-map keyed by type on the real server.
func TestSSA_ConditionsMergeAcrossFieldManagers(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	name := createLoadBalancer(t, client, ns, "web", nil)

	// The provider's first sight (L1): Provisioning=True, Serving=False.
	svc := getService(t, client, ns, name)
	applyTransition(t, client, conditions.Seen[*corev1.Service], svc)

	// Another controller adds its own condition.
	applyDNS(t, client, ns, name, metav1.ConditionTrue, "Published", false)
	svc = getService(t, client, ns, name)
	assertConditions(t, svc, map[string]string{
		string(v1.LoadBalancerConditionProvisioning): "True/Provisioning",
		string(v1.LoadBalancerConditionServing):      "False/Provisioning",
		dnsReady:                                     "True/Published",
	})
	dnsBefore := *conditions.Get(svc.Status.Conditions, dnsReady)

	// The provider finishes; its apply names only its own conditions.
	tr, err := conditions.Succeeded(svc, provider.Ingress(svc, ssaCapabilities), nil)
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, tr, providerManager, true)
	svc = getService(t, client, ns, name)
	assertConditions(t, svc, map[string]string{
		string(v1.LoadBalancerConditionProvisioning): "False/Complete",
		string(v1.LoadBalancerConditionServing):      "True/Serving",
		dnsReady:                                     "True/Published",
	})
	if dns := conditions.Get(svc.Status.Conditions, dnsReady); !dns.LastTransitionTime.Equal(&dnsBefore.LastTransitionTime) || dns.Message != dnsBefore.Message {
		t.Errorf("the provider's apply changed the other manager's condition: %+v, was %+v", *dns, dnsBefore)
	}
	if len(svc.Status.LoadBalancer.Ingress) != 1 {
		t.Errorf("ingress %v, want the provider's one point", svc.Status.LoadBalancer.Ingress)
	}

	// The other controller changes its condition; the provider's stay.
	applyDNS(t, client, ns, name, metav1.ConditionFalse, "Pending", false)
	svc = getService(t, client, ns, name)
	assertConditions(t, svc, map[string]string{
		string(v1.LoadBalancerConditionProvisioning): "False/Complete",
		string(v1.LoadBalancerConditionServing):      "True/Serving",
		dnsReady:                                     "False/Pending",
	})

	// Ownership as the server records it.
	assertOwned(t, svc, providerManager, []string{string(v1.LoadBalancerConditionProvisioning), string(v1.LoadBalancerConditionServing)})
	assertOwned(t, svc, dnsManager, []string{dnsReady})
}

// TestSSA_ForceApplyTakesOnlyOwnConditions: a second manager that claims
// the provider's Serving condition gets a conflict, and after forcing it,
// the provider's own force apply takes Serving back and nothing else: the
// other manager keeps its condition and its ownership of it. When the
// Service stops being a LoadBalancer, the provider's apply of an empty
// status removes its conditions and ingress (L9) and leaves the other's.
func TestSSA_ForceApplyTakesOnlyOwnConditions(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	ctx := context.Background()
	name := createLoadBalancer(t, client, ns, "web", func(svc *corev1.Service) {
		svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	})

	svc := getService(t, client, ns, name)
	applyTransition(t, client, conditions.Seen[*corev1.Service], svc)
	svc = getService(t, client, ns, name)
	tr, err := conditions.Succeeded(svc, provider.Ingress(svc, ssaCapabilities), []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity})
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, tr, providerManager, true)
	applyDNS(t, client, ns, name, metav1.ConditionTrue, "Published", false)

	// The other manager claims Serving: a conflict, naming the provider.
	claim := dnsApply(ns, name, metav1.ConditionTrue, "Published").WithStatus(corev1ac.ServiceStatus().
		WithConditions(dnsCondition(metav1.ConditionTrue, "Published"), metav1ac.Condition().
			WithType(string(v1.LoadBalancerConditionServing)).WithStatus(metav1.ConditionFalse).
			WithReason(string(v1.LoadBalancerReasonInfrastructure)).WithMessage("claimed by another controller").
			WithLastTransitionTime(metav1.Now()).WithObservedGeneration(svc.Generation)))
	_, err = client.CoreV1().Services(ns).ApplyStatus(ctx, claim, metav1.ApplyOptions{FieldManager: dnsManager})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), providerManager) {
		t.Fatalf("apply of the provider's Serving condition by another manager without force: got %v, want a conflict naming %s", err, providerManager)
	}
	// Forced, it wins for now.
	if _, err := client.CoreV1().Services(ns).ApplyStatus(ctx, claim, metav1.ApplyOptions{FieldManager: dnsManager, Force: true}); err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	svc = getService(t, client, ns, name)
	assertConditions(t, svc, map[string]string{
		string(v1.LoadBalancerConditionProvisioning): "False/Complete",
		string(v1.LoadBalancerConditionServing):      "False/Infrastructure",
		string(v1.LoadBalancerConditionDegraded):     "True/SessionAffinityNotSupported",
		dnsReady:                                     "True/Published",
	})

	// The provider forces its own view back.
	tr, err = conditions.Succeeded(svc, provider.Ingress(svc, ssaCapabilities), []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity})
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, tr, providerManager, true)
	svc = getService(t, client, ns, name)
	assertConditions(t, svc, map[string]string{
		string(v1.LoadBalancerConditionProvisioning): "False/Complete",
		string(v1.LoadBalancerConditionServing):      "True/Serving",
		string(v1.LoadBalancerConditionDegraded):     "True/SessionAffinityNotSupported",
		dnsReady:                                     "True/Published",
	})
	assertOwned(t, svc, providerManager, []string{string(v1.LoadBalancerConditionDegraded), string(v1.LoadBalancerConditionProvisioning), string(v1.LoadBalancerConditionServing)})
	if owned := ownedConditionFields(t, svc, providerManager)[dnsReady]; len(owned) > 0 {
		t.Errorf("the provider's force apply took fields of the other manager's condition: %v", owned)
	}
	if owned := ownedConditionFields(t, svc, dnsManager); len(owned[dnsReady]) == 0 || slices.Contains(owned[string(v1.LoadBalancerConditionServing)], "f:status") {
		t.Errorf("after the provider's force apply the other manager owns %v; want its own condition, and not Serving's status", owned)
	}

	// The other manager goes back to its own condition only.
	applyDNS(t, client, ns, name, metav1.ConditionTrue, "Published", false)

	// The Service stops being a LoadBalancer: the provider removes what
	// it wrote, and only that.
	svc = getService(t, client, ns, name)
	core := svc.DeepCopy()
	core.Spec.Type = corev1.ServiceTypeClusterIP
	updated, err := client.CoreV1().Services(ns).Update(ctx, core, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("change type: %v", err)
	}
	tr, err = conditions.NotLoadBalancer(updated)
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, tr, providerManager, true)
	svc = getService(t, client, ns, name)
	assertConditions(t, svc, map[string]string{dnsReady: "True/Published"})
	if len(svc.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("ingress %v left after the provider removed its load balancer", svc.Status.LoadBalancer.Ingress)
	}
}

// TestSSA_ReconcileSteadyStateWritesNothing: the apiserver fills in ipMode
// VIP on an ingress entry with an ip; a provider that reconciles a served
// Service with the same ingress, without ipMode, has nothing to write, and
// Serving's lastTransitionTime stays (L6).
func TestSSA_ReconcileSteadyStateWritesNothing(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	name := createLoadBalancer(t, client, ns, "web", nil)
	ingress := []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	var acted *corev1.Service
	reconcile := func(lb conditions.LoadBalancer) conditions.Reconciliation[*corev1.Service] {
		t.Helper()
		svc := getService(t, client, ns, name)
		r, err := conditions.Reconcile(svc, ssaCapabilities, acted, lb)
		if err != nil {
			t.Fatal(err)
		}
		if r.Apply != nil {
			if _, err := client.CoreV1().Services(ns).ApplyStatus(context.Background(), r.Apply, metav1.ApplyOptions{FieldManager: providerManager, Force: true}); err != nil {
				t.Fatal(err)
			}
		}
		acted = svc
		return r
	}
	reconcile(conditions.LoadBalancer{State: conditions.LoadBalancerProvisioning})
	reconcile(conditions.LoadBalancer{State: conditions.LoadBalancerReady, Ingress: ingress})
	served := getService(t, client, ns, name)
	if in := served.Status.LoadBalancer.Ingress; len(in) != 1 || in[0].IPMode == nil {
		t.Logf("the apiserver did not fill in ipMode: %+v", in)
	}
	before := conditions.Get(served.Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
	for i := 1; i <= 2; i++ {
		r := reconcile(conditions.LoadBalancer{State: conditions.LoadBalancerReady, Ingress: ingress})
		after := conditions.Get(getService(t, client, ns, name).Status.Conditions, v1.LoadBalancerConditionServing).LastTransitionTime
		if r.Apply != nil || r.Changed || !after.Equal(&before) {
			t.Errorf("steady reconcile %d: changed %v, Serving lastTransitionTime %v -> %v; want no write", i, r.Changed, before, after)
		}
	}
}

// TestSSA_StaleTransitionIsAConflict: a provider that reconciles from a
// copy older than its own last write (an informer's cache that lags)
// makes a transition whose times follow from a status that is no longer
// stored. Its apply carries the copy's resourceVersion, so the real
// apiserver refuses it with a conflict instead of moving
// Provisioning back to True with its old time (C6, C7), and the status
// stays as the newer write left it. Made again from a fresh read, the
// transition is applied.
func TestSSA_StaleTransitionIsAConflict(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-integration")
	ctx := context.Background()
	name := createLoadBalancer(t, client, ns, "web", nil)
	applyTransition(t, client, conditions.Seen[*corev1.Service], getService(t, client, ns, name))
	stale := getService(t, client, ns, name)

	// The provider's newer write, which the stale copy has not seen.
	served, err := conditions.Succeeded(stale, provider.Ingress(stale, ssaCapabilities), nil)
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, served, providerManager, true)
	want := getService(t, client, ns, name)

	// A spec change read from the stale copy: Provisioning bumped (L6)
	// over a status that is no longer there.
	tr, err := conditions.SpecUpdated(nil, stale)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Apply == nil {
		t.Fatal("the spec change wrote nothing; the test needs a write")
	}
	if got := tr.Apply.ResourceVersion; got == nil || *got != stale.ResourceVersion {
		t.Fatalf("apply resourceVersion %v, want the stale copy's %q", got, stale.ResourceVersion)
	}
	_, err = client.CoreV1().Services(ns).ApplyStatus(ctx, tr.Apply, metav1.ApplyOptions{FieldManager: providerManager, Force: true})
	if !apierrors.IsConflict(err) {
		t.Fatalf("apply of a transition made from resourceVersion %s, after %s was stored: got %v, want a conflict", stale.ResourceVersion, want.ResourceVersion, err)
	}
	if got := getService(t, client, ns, name); got.ResourceVersion != want.ResourceVersion {
		t.Errorf("the refused apply changed the Service: resourceVersion %s, was %s", got.ResourceVersion, want.ResourceVersion)
	}

	// Read again and made again, the transition goes through.
	fresh := getService(t, client, ns, name)
	tr, err = conditions.ProvisioningStarted(fresh, conditions.KeepServing)
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, tr, providerManager, true)
	assertConditions(t, getService(t, client, ns, name), map[string]string{
		string(v1.LoadBalancerConditionProvisioning): "True/Provisioning",
		string(v1.LoadBalancerConditionServing):      "True/Serving",
	})
}

// createLoadBalancer creates a LoadBalancer Service with one TCP port,
// changed by edit when not nil, and returns its name.
func createLoadBalancer(t *testing.T, client kubernetes.Interface, ns, name string, edit func(*corev1.Service)) string {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	}
	if edit != nil {
		edit(svc)
	}
	if _, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service %s: %v", name, err)
	}
	return name
}

func getService(t *testing.T, client kubernetes.Interface, ns, name string) *corev1.Service {
	t.Helper()
	svc, err := client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get service %s: %v", name, err)
	}
	return svc
}

// applyTransition decides with ssaCapabilities and applies the transition
// as the provider.
func applyTransition(t *testing.T, client kubernetes.Interface, event func(*corev1.Service, conditions.Decision, ...conditions.TransitionOption) (conditions.Transition[*corev1.Service], error), svc *corev1.Service) {
	t.Helper()
	tr, err := event(svc, conditions.Decide(svc, ssaCapabilities))
	if err != nil {
		t.Fatal(err)
	}
	applyStatus(t, client, tr, providerManager, true)
}

func applyStatus(t *testing.T, client kubernetes.Interface, tr conditions.Transition[*corev1.Service], manager string, force bool) {
	t.Helper()
	if tr.Apply == nil {
		t.Fatal("the transition has nothing to apply")
	}
	ns, name := *tr.Apply.Namespace, *tr.Apply.Name
	if _, err := client.CoreV1().Services(ns).ApplyStatus(context.Background(), tr.Apply, metav1.ApplyOptions{FieldManager: manager, Force: force}); err != nil {
		t.Fatalf("apply status of %s/%s as %s: %v", ns, name, manager, err)
	}
}

func dnsCondition(status metav1.ConditionStatus, reason string) *metav1ac.ConditionApplyConfiguration {
	return metav1ac.Condition().WithType(dnsReady).WithStatus(status).WithReason(reason).
		WithMessage("the DNS record is " + strings.ToLower(reason)).
		WithLastTransitionTime(metav1.NewTime(time.Now().Truncate(time.Second)))
}

func dnsApply(ns, name string, status metav1.ConditionStatus, reason string) *corev1ac.ServiceApplyConfiguration {
	return corev1ac.Service(name, ns).WithStatus(corev1ac.ServiceStatus().WithConditions(dnsCondition(status, reason)))
}

// applyDNS applies the other controller's condition, which only it writes.
func applyDNS(t *testing.T, client kubernetes.Interface, ns, name string, status metav1.ConditionStatus, reason string, force bool) {
	t.Helper()
	if _, err := client.CoreV1().Services(ns).ApplyStatus(context.Background(), dnsApply(ns, name, status, reason), metav1.ApplyOptions{FieldManager: dnsManager, Force: force}); err != nil {
		t.Fatalf("apply %s as %s: %v", dnsReady, dnsManager, err)
	}
}

// assertConditions checks that svc has exactly the conditions of want,
// type -> "status/reason".
func assertConditions(t *testing.T, svc *corev1.Service, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, c := range svc.Status.Conditions {
		got[c.Type] = string(c.Status) + "/" + c.Reason
	}
	if len(got) != len(want) {
		t.Errorf("conditions %v, want %v", got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("conditions %v, want %v", got, want)
			return
		}
	}
}

// assertOwned checks which condition types manager owns fields of in the
// status subresource.
func assertOwned(t *testing.T, svc *corev1.Service, manager string, want []string) {
	t.Helper()
	var got []string
	for typ := range ownedConditionFields(t, svc, manager) {
		got = append(got, typ)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s owns fields of conditions %v, want %v", manager, got, want)
	}
}

// ownedConditionFields returns, per condition type, the fields of
// status.conditions that manager owns through the status subresource,
// read from managedFields (FieldsV1: f:status / f:conditions /
// k:{"type":...} / f:<field>).
func ownedConditionFields(t *testing.T, svc *corev1.Service, manager string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, mf := range svc.ManagedFields {
		if mf.Manager != manager || mf.Subresource != "status" || mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]map[string]map[string]map[string]any
		if err := json.Unmarshal(mf.FieldsV1.Raw, &fields); err != nil {
			t.Fatalf("managedFields of %s: %v", manager, err)
		}
		for key, item := range fields["f:status"]["f:conditions"] {
			var k struct{ Type string }
			if err := json.Unmarshal([]byte(strings.TrimPrefix(key, "k:")), &k); err != nil {
				continue
			}
			for f := range item {
				out[k.Type] = append(out[k.Type], f)
			}
			slices.Sort(out[k.Type])
		}
	}
	return out
}
