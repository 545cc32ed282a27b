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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// Stats counts each successful write, with its latency unless
// NoLatencies, and each write refused as a conflict.
func TestProvider_Stats(t *testing.T) {
	for _, noLatencies := range []bool{true, false} {
		s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
		s.p.opts.NoLatencies = noLatencies
		s.reconcile()
		want := 1
		if noLatencies {
			want = 0
		}
		if st := s.p.Stats(); st.Writes != 1 || len(st.Latencies) != want {
			t.Errorf("NoLatencies %v: %+v; want one write and %d latencies", noLatencies, st, want)
		}
	}
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true}, nil)
	s.client.PrependReactor("patch", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(corev1.Resource("services"), "web", nil)
	})
	if _, err := s.tryReconcile(); !apierrors.IsConflict(err) {
		t.Errorf("reconcile with a conflicting write: %v; want the conflict", err)
	}
	if st := s.p.Stats(); st.Writes != 0 || st.Conflicts != 1 {
		t.Errorf("after a conflict: %+v; want no write and one conflict", st)
	}
}

// A Degraded fault on a Service that asks for the feature is served
// degraded in it, besides what the capabilities call for.
func TestFaults_DegradeAnnotationIsServed(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{DefaultClass: true, SessionAffinity: true}, nil)
	s.p.opts.Faults = true
	svc, err := s.client.CoreV1().Services("ns").Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Annotations = map[string]string{DegradeAnnotation: string(v1.LoadBalancerFeatureSessionAffinity)}
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	if _, err := s.client.CoreV1().Services("ns").Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.reconcile() // provisioning, done at once
	svc = s.reconcile()
	if got := conditions.DegradedReasons(svc.Status.Conditions); !conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing) ||
		!slices.Equal(got, []v1.LoadBalancerConditionReason{v1.LoadBalancerReasonSessionAffinityNotSupported}) {
		t.Errorf("served %+v, degraded in %v; want served degraded in SessionAffinity", svc.Status, got)
	}
}

// A reference manager that only updated the status (no apply) has
// nothing an apply can let go of: the provider writes once, and releases
// nothing under it.
func TestProvider_ReleasesOnlyWhatAnOldManagerApplied(t *testing.T) {
	s := newStatusTest(t, conditions.Capabilities{Classes: []string{"example.com/lb"}}, ptr.To("example.com/lb"))
	svc, err := s.client.CoreV1().Services("ns").Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.Conditions = []metav1.Condition{{Type: "example.com/DNSReady", Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: servedAt}}
	if _, err := s.client.CoreV1().Services("ns").UpdateStatus(t.Context(), svc, metav1.UpdateOptions{FieldManager: DefaultFieldManager}); err != nil {
		t.Fatal(err)
	}
	svc = s.reconcile()
	if w := s.p.Stats().Writes; w != 1 || !owner(svc, DefaultFieldManager) {
		t.Errorf("%d writes, managers %v; want one write and %s's update kept", w, managers(svc), DefaultFieldManager)
	}
}
