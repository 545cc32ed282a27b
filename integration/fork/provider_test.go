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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/integration/internal/rawservice"
	"github.com/lbstatus/lbstatus/integration/internal/runprovider"
	"github.com/lbstatus/lbstatus/provider"
)

// TestFork_ReferenceProviderAndCheckerClean: the reference provider's
// status writes all pass the fork's validation, for a Service it serves
// degraded and two it refuses (R1), one requiring the feature through the
// annotation and one through the spec field, and the conformance checker
// finds no violation in what is stored, read with the field.
func TestFork_ReferenceProviderAndCheckerClean(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	p := provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
		Capabilities: conditions.Capabilities{
			IPFamilies:    []corev1.IPFamily{corev1.IPv4Protocol},
			Protocols:     []corev1.Protocol{corev1.ProtocolTCP},
			DefaultClass:  true,
			KnownFeatures: v1.LoadBalancerFeatures(),
		},
		Namespace: ns, Workers: 2,
	})
	runprovider.Start(t, p)

	clientIP := func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }
	createService(t, client, ns, "served", clientIP)
	createService(t, client, ns, "refused", clientIP, func(s *corev1.Service) {
		s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: string(v1.LoadBalancerFeatureSessionAffinity)}
	})
	// R1 through the spec field, which client-go's typed Service would
	// lose on the way to the provider.
	if err := rawservice.Post(t, client, rawservice.Requiring(ns, "refused-field", v1.LoadBalancerFeatureSessionAffinity), "").Error(); err != nil {
		t.Fatal(err)
	}

	checker := conformance.NewChecker()
	services := conditions.RESTServices{Client: client.CoreV1().RESTClient(), Namespace: ns}
	for name, want := range map[string]v1.LoadBalancerConditionReason{
		"served": v1.LoadBalancerReasonServing, "refused": v1.LoadBalancerReasonUnsupported, "refused-field": v1.LoadBalancerReasonUnsupported,
	} {
		var svc *v1.Service
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			var err error
			svc, err = services.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing)
			return serving != nil && serving.Reason == string(want), nil
		})
		if err != nil {
			t.Fatalf("%s: no Serving with reason %s: %v; conditions %v", name, want, err, svc.Status.Conditions)
		}
		for _, f := range checker.Observe(svc) {
			if f.Severity == conformance.SeverityViolation {
				t.Errorf("%s: %s %s: %s", name, f.Rule, f.Field, f.Message)
			}
		}
	}
	// A write the fork refused would have left a Service short of its
	// final reason above; this checks the writes went through the fork.
	if s := p.Stats(); s.Writes < 3 {
		t.Errorf("the provider made %d status writes, want at least 3", s.Writes)
	}
}
