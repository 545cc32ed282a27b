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

package fork

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance/suite"
	"github.com/lbstatus/lbstatus/integration/internal/runprovider"
	"github.com/lbstatus/lbstatus/provider"
)

// TestFork_SuiteRequiresThroughTheField (section 9): on a server that
// keeps spec.requiredLoadBalancerFeatures, the suite requires a feature
// through the field, and the reference provider, which reads it, refuses
// the Service it cannot serve as required (R1): SessionAffinity shows as
// Degraded. UnknownRequiredFeature, whose value the server refuses in the
// field (R4), is required through the annotation instead, and passes.
func TestFork_SuiteRequiresThroughTheField(t *testing.T) {
	const class = "lbstatus.github.io/fork-suite"
	runprovider.Start(t, provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
		Capabilities: conditions.Capabilities{
			IPFamilies:    []corev1.IPFamily{corev1.IPv4Protocol},
			Protocols:     []corev1.Protocol{corev1.ProtocolTCP},
			Classes:       []string{class},
			KnownFeatures: v1.LoadBalancerFeatures(),
		},
		Workers: 2, ProvisionDelay: 200 * time.Millisecond,
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Every Service the suite creates, as first seen, with the field.
	var mu sync.Mutex
	seen := map[string]*v1.Service{}
	informer := cache.NewSharedInformer(conditions.ServiceListWatch(clientset(t, "lbstatus-fork-test").CoreV1(), ""), &v1.Service{}, 0)
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if svc, ok := obj.(*v1.Service); ok {
			mu.Lock()
			defer mu.Unlock()
			seen[svc.Name] = svc
		}
	}}); err != nil {
		t.Fatal(err)
	}
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}

	report, err := suite.Run(context.Background(), clientset(t, "lbstatus-conformance"), suite.Options{
		LoadBalancerClass: class,
		Run:               []string{"Feature/SessionAffinity", "UnknownRequiredFeature"},
		ConditionsTimeout: 30 * time.Second,
		ProvisionTimeout:  60 * time.Second,
	})
	if err != nil {
		t.Fatalf("suite: %v", err)
	}
	for _, tr := range report.Tests {
		if tr.Result != suite.TestPassed && tr.Result != suite.TestNotRun {
			t.Errorf("%s: %s: %s", tr.Name, tr.Result, tr.Reason)
		}
	}
	if report.RequiredFeaturesSource != conditions.RequiredFeaturesSourceSpec {
		t.Errorf("the report says features were required through %q, want Spec", report.RequiredFeaturesSource)
	}
	for _, f := range report.Features {
		if f.Name == v1.LoadBalancerFeatureSessionAffinity && f.Support != suite.SupportDegraded {
			t.Errorf("SessionAffinity: %s (%s), want Degraded: served degraded when asked for, refused when required", f.Support, f.Evidence)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	requires, unknown := seen["requires"], seen["unknown"]
	if requires == nil || !slices.Equal(requires.Spec.RequiredLoadBalancerFeatures, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}) ||
		requires.Annotations[v1.RequiredFeaturesAnnotation] != "" {
		t.Errorf("the Service requiring SessionAffinity: %+v, want it required in the spec field alone", requires)
	}
	if unknown == nil || len(unknown.Spec.RequiredLoadBalancerFeatures) != 0 || unknown.Annotations[v1.RequiredFeaturesAnnotation] != string(suite.UnknownFeature) {
		t.Errorf("the Service requiring an unknown feature: %+v, want it required in the annotation", unknown)
	}
}
