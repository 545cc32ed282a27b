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
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/provider"
)

// waitCapabilities serves TCP on IPv4 and degrades session affinity.
var waitCapabilities = ssaCapabilities

// The deadlines of the wait tests: short, so that the tests are quick,
// and far enough apart that a wait that ends on the wrong one shows.
const (
	shortConditionsTimeout = 2 * time.Second
	longConditionsTimeout  = 30 * time.Second
	shortProvisionTimeout  = 3 * time.Second
	longProvisionTimeout   = 60 * time.Second
)

// TestWait_Verdicts runs conditions.Wait against the real server with the
// reference provider and checks that it returns the final verdict of
// section 6 when, and only when, the provider has written it.
func TestWait_Verdicts(t *testing.T) {
	t.Run("T3_Ready", func(t *testing.T) {
		t.Parallel()
		const delay = time.Second
		client, ns, _ := waitSetup(t, provider.Options{ProvisionDelay: delay})
		name := createLoadBalancer(t, client, ns, "ready", nil)
		start := time.Now()
		svc, verdict, err := waitFor(t, client, ns, name, "", longConditionsTimeout, longProvisionTimeout)
		elapsed := time.Since(start)
		if err != nil || verdict.Result != conditions.ResultReady || verdict.Rule != "T3" {
			t.Fatalf("Wait: %v, %v; want Ready (T3)", verdict, err)
		}
		// Ready only once provisioning is complete: on the provider's
		// second write, not its first (Provisioning=True), which came a
		// provisioning delay earlier.
		if !conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) || len(svc.Status.LoadBalancer.Ingress) == 0 {
			t.Errorf("Wait returned Ready on %v with ingress %v", svc.Status.Conditions, svc.Status.LoadBalancer.Ingress)
		}
		if elapsed < delay {
			t.Errorf("Wait returned Ready after %s, before the provider could have ended provisioning (%s)", elapsed, delay)
		}
	})
	t.Run("T3_ReadyWhenDegradedInAnotherFeature", func(t *testing.T) {
		t.Parallel()
		client, ns, _ := waitSetup(t, provider.Options{})
		name := createLoadBalancer(t, client, ns, "affinity", func(svc *corev1.Service) {
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
		})
		_, verdict, err := waitFor(t, client, ns, name, v1.LoadBalancerFeatureLoadBalancerSourceRanges, longConditionsTimeout, longProvisionTimeout)
		if err != nil || verdict.Result != conditions.ResultReady {
			t.Fatalf("Wait for a feature the load balancer is not degraded in: %v, %v; want Ready", verdict, err)
		}
	})
	t.Run("T1_SkipWhenDegradedInTheFeature", func(t *testing.T) {
		t.Parallel()
		client, ns, _ := waitSetup(t, provider.Options{})
		name := createLoadBalancer(t, client, ns, "affinity", func(svc *corev1.Service) {
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
		})
		svc, verdict, err := waitFor(t, client, ns, name, v1.LoadBalancerFeatureSessionAffinity, longConditionsTimeout, longProvisionTimeout)
		if err != nil || verdict.Result != conditions.ResultSkip || verdict.Rule != "T1" {
			t.Fatalf("Wait: %v, %v; want Skip (T1)", verdict, err)
		}
		if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) {
			t.Errorf("Skip for a degradation before the load balancer serves: %v", svc.Status.Conditions)
		}
	})
	t.Run("T1_SkipWhenRefused", func(t *testing.T) {
		t.Parallel()
		client, ns, _ := waitSetup(t, provider.Options{})
		name := createLoadBalancer(t, client, ns, "refused", func(svc *corev1.Service) {
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: string(v1.LoadBalancerFeatureSessionAffinity)}
		})
		svc, verdict, err := waitFor(t, client, ns, name, "", longConditionsTimeout, longProvisionTimeout)
		if err != nil || verdict.Result != conditions.ResultSkip || verdict.Rule != "T1" {
			t.Fatalf("Wait: %v, %v; want Skip (T1)", verdict, err)
		}
		serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing)
		if serving == nil || serving.Reason != string(v1.LoadBalancerReasonUnsupported) || !strings.Contains(serving.Message, string(v1.LoadBalancerFeatureSessionAffinity)) {
			t.Errorf("Serving is %+v, want Unsupported naming SessionAffinity", serving)
		}
	})
	t.Run("T2_FailInInfrastructure", func(t *testing.T) {
		t.Parallel()
		client, ns, _ := waitSetup(t, provider.Options{
			ProvisionDelay: 500 * time.Millisecond,
			Fail:           func(*corev1.Service) string { return "quota exceeded for load balancers" },
		})
		name := createLoadBalancer(t, client, ns, "quota", nil)
		svc, verdict, err := waitFor(t, client, ns, name, "", longConditionsTimeout, longProvisionTimeout)
		var fail *conditions.FailError
		if !errors.As(err, &fail) || !errors.Is(err, conditions.ErrInfrastructure) || fail.Verdict != verdict ||
			verdict.Result != conditions.ResultFail || verdict.Rule != "T2" || !strings.Contains(verdict.Reason, "quota exceeded") {
			t.Fatalf("Wait: %v, %v; want Fail (T2) with the provider's message, as a *conditions.FailError", verdict, err)
		}
		if !conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) {
			t.Errorf("Fail before provisioning ended: %v", svc.Status.Conditions)
		}
	})
	t.Run("L8_NoKEPProvider", func(t *testing.T) {
		t.Parallel()
		// No provider runs in this namespace.
		client := clientset(t, "lbstatus-wait")
		ns := namespace(t)
		name := createLoadBalancer(t, client, ns, "orphan", nil)
		start := time.Now()
		svc, verdict, err := waitFor(t, client, ns, name, "", shortConditionsTimeout, longProvisionTimeout)
		elapsed := time.Since(start)
		if !errors.Is(err, conditions.ErrNoKEPProvider) || verdict.Result != conditions.ResultFail || verdict.Rule != "T2" {
			t.Fatalf("Wait: %v, %v; want Fail (T2) with ErrNoKEPProvider", verdict, err)
		}
		if !strings.Contains(verdict.Reason, "no KEP-aware provider") {
			t.Errorf("verdict reason %q does not say there is no KEP-aware provider", verdict.Reason)
		}
		// The first deadline ended the wait, not the second.
		if elapsed < shortConditionsTimeout || elapsed >= longProvisionTimeout {
			t.Errorf("Wait returned after %s; want the first deadline, %s", elapsed, shortConditionsTimeout)
		}
		if svc == nil || svc.Name != name || conditions.HasKEPConditions(svc.Status.Conditions) {
			t.Errorf("Wait returned %v; want the Service as last seen, without conditions", svc)
		}
	})
	t.Run("L8_ProvisionTimeout", func(t *testing.T) {
		t.Parallel()
		// The provider starts provisioning and never ends it.
		client, ns, _ := waitSetup(t, provider.Options{ProvisionDelay: time.Hour})
		name := createLoadBalancer(t, client, ns, "slow", nil)
		svc, verdict, err := waitFor(t, client, ns, name, "", longConditionsTimeout, shortProvisionTimeout)
		if !errors.Is(err, conditions.ErrProvisionTimeout) || verdict.Result != conditions.ResultFail || verdict.Rule != "T2" {
			t.Fatalf("Wait: %v, %v; want Fail (T2) with ErrProvisionTimeout", verdict, err)
		}
		if errors.Is(err, conditions.ErrNoKEPProvider) {
			t.Errorf("the provider wrote its conditions, yet Wait says there is none: %v", err)
		}
		if !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) {
			t.Errorf("Wait returned %v; want the provisioning Service", svc.Status.Conditions)
		}
	})
}

// waitSetup returns a client, a namespace of the test's own and a provider
// with waitCapabilities and the given options, running in that namespace.
func waitSetup(t *testing.T, opts provider.Options) (kubernetes.Interface, string, *provider.Provider) {
	t.Helper()
	ns := namespace(t)
	opts.Capabilities = waitCapabilities
	opts.Namespace = ns
	opts.Workers = 1
	p := provider.New(clientset(t, "lbstatus-reference-provider"), opts)
	runProvider(t, p)
	return clientset(t, "lbstatus-wait"), ns, p
}

// waitFor runs conditions.Wait with the given deadlines, bounded by a
// context that ends well after both, so a Wait that misses its deadlines
// fails the test instead of hanging it.
func waitFor(t *testing.T, client kubernetes.Interface, ns, name string, feature v1.LoadBalancerFeature, conditionsTimeout, provisionTimeout time.Duration) (*corev1.Service, conditions.Verdict, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*max(conditionsTimeout, provisionTimeout))
	defer cancel()
	svc, verdict, err := conditions.Wait(ctx, client.CoreV1().Services(ns), name, feature,
		conditions.WithConditionsTimeout(conditionsTimeout), conditions.WithProvisionTimeout(provisionTimeout))
	if ctx.Err() != nil {
		t.Fatalf("Wait missed its deadlines: %v, %v", verdict, err)
	}
	if svc == nil && err == nil {
		t.Fatalf("Wait returned no Service and no error: %v", verdict)
	}
	return svc, verdict, err
}

// TestWait_ControllerRuntimeClient: Wait works with controller-runtime's
// client.WithWatch through the few lines of adapter below, against the
// real server and the reference provider.
func TestWait_ControllerRuntimeClient(t *testing.T) {
	client, ns, _ := waitSetup(t, provider.Options{ProvisionDelay: 200 * time.Millisecond})
	name := createLoadBalancer(t, client, ns, "controller-runtime", nil)
	c, err := crclient.NewWithWatch(rest.CopyConfig(cfg), crclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*longProvisionTimeout)
	defer cancel()
	svc, verdict, err := conditions.Wait(ctx, crServices{c, ns}, name, "",
		conditions.WithConditionsTimeout(longConditionsTimeout), conditions.WithProvisionTimeout(longProvisionTimeout))
	if err != nil || verdict.Result != conditions.ResultReady || svc == nil || svc.Name != name {
		t.Fatalf("Wait through controller-runtime: %v, %v; want Ready", verdict, err)
	}
}

// crServices adapts a controller-runtime client to
// conditions.ServiceListWatcher for one namespace.
type crServices struct {
	c  crclient.WithWatch
	ns string
}

func (s crServices) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ServiceList, error) {
	list := &corev1.ServiceList{}
	err := s.c.List(ctx, list, crclient.InNamespace(s.ns), &crclient.ListOptions{Raw: &opts})
	return list, err
}

func (s crServices) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.c.Watch(ctx, &corev1.ServiceList{}, crclient.InNamespace(s.ns), &crclient.ListOptions{Raw: &opts})
}
