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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// statusTest is one Service on the fake clientset, its status written by
// other field managers before the provider under test starts: what a
// provider finds after a restart or an upgrade.
type statusTest struct {
	t      *testing.T
	client *fake.Clientset
	p      *Provider
}

func newStatusTest(t *testing.T, caps conditions.Capabilities, class *string) *statusTest {
	t.Helper()
	caps.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	caps.Protocols = []corev1.Protocol{corev1.ProtocolTCP}
	caps.KnownFeatures = v1.LoadBalancerFeatures()
	pool, err := NewPool("198.18.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	svc := lbService("web")
	svc.Spec.LoadBalancerClass = class
	if _, err := client.CoreV1().Services("ns").Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &statusTest{t: t, client: client, p: New(client, Options{Pool: pool, Capabilities: caps, NoLatencies: true})}
}

var servedAt = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

func condition(t v1.LoadBalancerConditionType, s metav1.ConditionStatus, reason string) *metav1ac.ConditionApplyConfiguration {
	return metav1ac.Condition().WithType(string(t)).WithStatus(s).WithReason(reason).WithMessage("").WithLastTransitionTime(servedAt)
}

// served applies, under manager, the status of a served Service, with
// extra conditions.
func (s *statusTest) served(manager string, extra ...*metav1ac.ConditionApplyConfiguration) {
	s.t.Helper()
	st := corev1ac.ServiceStatus().
		WithConditions(
			condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, string(v1.LoadBalancerReasonComplete)),
			condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, string(v1.LoadBalancerReasonServing))).
		WithConditions(extra...).
		WithLoadBalancer(corev1ac.LoadBalancerStatus().WithIngress(corev1ac.LoadBalancerIngress().WithIP("198.18.0.1").
			WithIPMode(corev1.LoadBalancerIPModeVIP).WithPorts(corev1ac.PortStatus().WithPort(80).WithProtocol(corev1.ProtocolTCP))))
	apply := corev1ac.Service("web", "ns").WithStatus(st)
	if _, err := s.client.CoreV1().Services("ns").ApplyStatus(s.t.Context(), apply, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
		s.t.Fatal(err)
	}
}

// reconcile runs the provider's reconcile of the Service once, as a
// provider that has just started would, and returns the Service after it.
func (s *statusTest) reconcile() *corev1.Service {
	s.t.Helper()
	svc, err := s.tryReconcile()
	if err != nil {
		s.t.Fatalf("reconcile: %v", err)
	}
	return svc
}

// tryReconcile is reconcile, returning the reconcile's error.
func (s *statusTest) tryReconcile() (*corev1.Service, error) {
	s.t.Helper()
	ctx := s.t.Context()
	svc, err := s.client.CoreV1().Services("ns").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(v1.FromCore(svc)); err != nil {
		s.t.Fatal(err)
	}
	_, rerr := s.p.reconcile(ctx, "ns/web", indexer)
	svc, err = s.client.CoreV1().Services("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return svc, rerr
}

// owner reports whether manager holds an entry in svc's managed fields.
func owner(svc *corev1.Service, manager string) bool {
	for _, m := range svc.ManagedFields {
		if m.Manager == manager {
			return true
		}
	}
	return false
}

// P1 after a restart: a Service of another class whose status another
// provider wrote gets no write at all, not even an empty apply that
// would put this provider's manager in its managed fields.
func TestProvider_P1_NoWriteOnAnotherProvidersStatus(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("other.example/lb"))
	s.served("other-provider")
	svc := s.reconcile()
	if w := s.p.Stats().Writes; w != 0 || owner(svc, s.p.manager) {
		t.Errorf("%d writes, %s in the managed fields; want no write on another provider's Service", w, s.p.manager)
	}
	if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) || len(svc.Status.LoadBalancer.Ingress) == 0 {
		t.Errorf("the other provider's status changed: %+v", svc.Status)
	}
}

// L9, P1 after a restart: a Service this provider served and that moved
// to another class still carries what the provider applied under its own
// field manager, and the provider removes it.
func TestProvider_P1_CleanupOfItsOwnAfterAMove(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("other.example/lb"))
	s.served(s.p.manager)
	svc := s.reconcile()
	if conditions.HasKEPConditions(svc.Status.Conditions) || len(svc.Status.LoadBalancer.Ingress) > 0 {
		t.Errorf("the provider's own leftovers stayed: %+v", svc.Status)
	}
}

// P1 after a restart: where the other provider applied the same status
// as this one once did, the cleanup removes only this provider's share,
// and the other provider's status stays as it was.
func TestProvider_P1_CleanupLeavesTheOtherManagersShare(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, nil)
	s.served(s.p.manager)
	s.served(DefaultFieldManager) // the default class's provider
	svc := s.reconcile()
	if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) || len(svc.Status.LoadBalancer.Ingress) == 0 || !conditions.OwnsStatus(svc, DefaultFieldManager) {
		t.Errorf("the default class's provider lost its status: %+v, managers %v", svc.Status, managers(svc))
	}
}

// A provider of the default class writes under DefaultFieldManager: after
// a restart its write keeps what it serves, and it does not let go of it
// as it lets go of an older version's manager.
func TestProvider_DefaultClassKeepsItsStatus(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	s.served(DefaultFieldManager)
	svc := s.reconcile()
	if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) || len(svc.Status.LoadBalancer.Ingress) == 0 || !conditions.OwnsStatus(svc, DefaultFieldManager) {
		t.Errorf("after a restart: %+v, managers %v; want the Service still served under %s", svc.Status, managers(svc), DefaultFieldManager)
	}
}

// An upgrade from a version that wrote every class under
// DefaultFieldManager: the provider's first write takes over what the
// status still means, and the old manager lets go of the rest, so that a
// Degraded condition only the old manager owns goes (C3). A Service the
// old manager never wrote gets one write.
func TestProvider_ReleasesTheOldFieldManager(t *testing.T) {
	caps := conditions.Capabilities{Classes: []string{"example.com/lb"}}
	s := newStatusTest(t, caps, ptr.To("example.com/lb"))
	s.served(DefaultFieldManager, condition(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, string(v1.LoadBalancerReasonPortsNotSupported)))
	svc := s.reconcile()
	if conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded) != nil || !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
		t.Errorf("after the upgrade: %+v; want served and no Degraded", svc.Status)
	}
	if owner(svc, DefaultFieldManager) || !conditions.OwnsStatus(svc, s.p.manager) {
		t.Errorf("managers %v; want %s only", managers(svc), s.p.manager)
	}

	// Restarted again: the old manager is gone, nothing to release.
	s.p = New(s.client, Options{Pool: s.p.opts.Pool, Capabilities: s.p.opts.Capabilities, NoLatencies: true})
	s.reconcile()
	if w := s.p.Stats().Writes; w != 1 {
		t.Errorf("%d writes after a restart; want 1, the provider's own", w)
	}
}
func managers(svc *corev1.Service) []string {
	var out []string
	for _, m := range svc.ManagedFields {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	return out
}

// A release that fails is an error of the reconcile, retried as a failed
// write is: else the old manager would keep, for good, a Degraded
// condition the provider no longer writes.
func TestProvider_ReleaseFailureIsRetried(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("example.com/lb"))
	s.served(DefaultFieldManager, condition(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, string(v1.LoadBalancerReasonPortsNotSupported)))
	s.client.PrependReactor("patch", "services", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.PatchActionImpl).PatchOptions.FieldManager == DefaultFieldManager {
			return true, nil, apierrors.NewServiceUnavailable("down for a moment")
		}
		return false, nil, nil
	})
	if _, err := s.tryReconcile(); err == nil || !strings.Contains(err.Error(), "release") {
		t.Errorf("reconcile with a failing release: %v; want the release's error", err)
	}
}

// With faults on, a Service annotated to stop writing gets no status
// write, as from a provider that hangs; the others still do.
func TestProvider_StopWritingFault(t *testing.T) {
	for _, stop := range []string{"true", "false"} {
		s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
		s.p.opts.Faults = true
		svc, err := s.client.CoreV1().Services("ns").Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svc.Annotations = map[string]string{StopWritingAnnotation: stop}
		if _, err := s.client.CoreV1().Services("ns").Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		svc = s.reconcile()
		wrote := s.p.Stats().Writes > 0 || conditions.HasKEPConditions(svc.Status.Conditions)
		if wrote != (stop == "false") {
			t.Errorf("stop-writing %s: wrote %v (%d writes)", stop, wrote, s.p.Stats().Writes)
		}
	}
}

// A restart with other classes changes the provider's field manager
// (FieldManagerFor). On a Service it still serves or now refuses, its first
// write takes over from the manager of its earlier configuration, which
// lets go of the rest: a Degraded condition or an ingress the provider no
// longer writes goes. What another controller applied stays.
func TestProvider_ReleasesItsManagerOfOtherClasses(t *testing.T) {
	for _, tc := range []struct {
		name, old, required string
		want                string // Serving after the reconcile
	}{
		{"served", DefaultFieldManager + "/(default),example.com/lb", "", string(v1.LoadBalancerReasonServing)},
		{"refused", DefaultFieldManager + "/(default),example.com/lb", "Teleport", string(v1.LoadBalancerReasonUnsupported)},
		{"served, a hashed manager", DefaultFieldManager + "/0123456789abcdef", "", string(v1.LoadBalancerReasonServing)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("example.com/lb"))
			s.served(tc.old, condition(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, string(v1.LoadBalancerReasonPortsNotSupported)))
			dns := corev1ac.Service("web", "ns").WithStatus(corev1ac.ServiceStatus().WithConditions(
				metav1ac.Condition().WithType("example.com/DNSReady").WithStatus(metav1.ConditionTrue).WithReason("Ready").WithMessage("").WithLastTransitionTime(servedAt)))
			if _, err := s.client.CoreV1().Services("ns").ApplyStatus(t.Context(), dns, metav1.ApplyOptions{FieldManager: "dns-controller"}); err != nil {
				t.Fatal(err)
			}
			if tc.required != "" {
				svc, err := s.client.CoreV1().Services("ns").Get(t.Context(), "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: tc.required}
				if _, err := s.client.CoreV1().Services("ns").Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			svc := s.reconcile()
			if c := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing); c == nil || c.Reason != tc.want {
				t.Errorf("Serving %+v, want reason %s", c, tc.want)
			}
			if conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionDegraded) != nil {
				t.Errorf("the old manager's Degraded stayed: %+v", svc.Status.Conditions)
			}
			if tc.want == string(v1.LoadBalancerReasonUnsupported) && len(svc.Status.LoadBalancer.Ingress) > 0 {
				t.Errorf("a refused Service kept the old manager's ingress %v", svc.Status.LoadBalancer.Ingress)
			}
			if owner(svc, tc.old) || !conditions.OwnsStatus(svc, s.p.manager) {
				t.Errorf("managers %v; want %s, not %s", managers(svc), s.p.manager, tc.old)
			}
			if conditions.Get(svc.Status.Conditions, "example.com/DNSReady") == nil || !owner(svc, "dns-controller") {
				t.Errorf("another controller's condition went: %+v, managers %v", svc.Status.Conditions, managers(svc))
			}
		})
	}
}

// An address a Service of another class still shows is not handed out
// again when the provider's earlier configuration wrote it, one that
// shared a class with it (here it served Services without a class too),
// though the provider now leaves that Service alone (P1). Written by a
// provider of other classes alone, whose pool may overlap, the address is
// that provider's business.
func TestProvider_AddressShownByAnIgnoredService(t *testing.T) {
	for manager, taken := range map[string]bool{
		DefaultFieldManager + "/(default),example.com/lb": true,
		DefaultFieldManager + "/other.example/lb":         false,
	} {
		s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, nil)
		s.served(manager)
		svc := s.reconcile()
		if w := s.p.Stats().Writes; w != 0 || len(svc.Status.LoadBalancer.Ingress) == 0 {
			t.Fatalf("%s: %d writes, ingress %v; want no write on a Service of no class of the provider's", manager, w, svc.Status.LoadBalancer.Ingress)
		}
		want := "198.18.0.1, the first address of the pool"
		if taken {
			want = "an address other than the 198.18.0.1 ns/web shows"
		}
		if a, err := s.p.opts.Pool.Allocate("ns/new", corev1.IPv4Protocol, ""); err != nil || (a.String() == "198.18.0.1") == taken {
			t.Errorf("written by %s: a new Service got %v, %v; want %s", manager, a, err, want)
		}
	}
}

// A Service deleted after the provider's cache read it, and before its
// write, is no failed reconcile: the write finds it gone (NotFound), and
// nothing is retried or reported.
func TestProvider_WriteToADeletedServiceIsNoError(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	s.client.PrependReactor("patch", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(corev1.Resource("services"), "web")
	})
	if _, err := s.tryReconcile(); err != nil {
		t.Errorf("reconcile of a Service deleted before the write: %v; want no error", err)
	}
}

// L9, P1 across a stopped Run: the provider let go of a Service of another
// class (a marker, since it showed another provider's conditions); while
// it was stopped the Service was deleted and created again under the name,
// and served meanwhile under this provider's field manager (another
// replica, leader then) before it too moved to another class. The marker
// is the old Service's: the new one still gets its cleanup.
func TestProvider_P1_MarkerOfADeletedServiceIsForgotten(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("other.example/lb"))
	s.served("other-provider")
	s.reconcile()
	if rec, ok := s.p.record("ns/web"); !ok || !rec.letGo {
		t.Fatalf("no marker for a Service of another class with conditions: %+v", rec)
	}
	services := s.client.CoreV1().Services("ns")
	old, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := services.Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: old.UID + "-again"}, Spec: old.Spec}
	if _, err := services.Create(t.Context(), again, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.served(s.p.manager)
	// Run again: the informer lists the new Service.
	got, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	if err := store.Add(v1.FromCore(got)); err != nil {
		t.Fatal(err)
	}
	s.p.forgetGone(store)
	svc := s.reconcile()
	if conditions.HasKEPConditions(svc.Status.Conditions) || len(svc.Status.LoadBalancer.Ingress) > 0 {
		t.Errorf("the provider's own leftovers on the new Service stayed: %+v", svc.Status)
	}
}
