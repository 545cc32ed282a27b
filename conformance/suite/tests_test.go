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

package suite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
)

// fakeCluster is a fake clientset the suite can run on.
func fakeCluster(t *testing.T) *fake.Clientset {
	// The fake clientset serves no watch-list stream, and says so: the
	// tracker's informer lists and watches it with client-go's default,
	// watch-list on.
	client := fake.NewClientset()
	var n atomic.Int32
	client.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ns := a.(k8stesting.CreateAction).GetObject().(*corev1.Namespace)
		if ns.Name == "" { // the fake does not generate names
			ns.Name = fmt.Sprintf("%s%d", ns.GenerateName, n.Add(1))
		}
		return false, nil, nil
	})
	// Nor uids and creation times, which Recreate compares; the wire has
	// whole seconds.
	client.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service)
		svc.UID = types.UID(fmt.Sprintf("uid-%d", n.Add(1)))
		svc.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
		return false, nil, nil
	})
	return client
}

// TestUnknownRequiredFeature_RefusedByAdmission: on a cluster whose
// admission refuses a Service requiring an unknown feature, as
// deploy/admission's policies do (R4), the provider is never asked: the
// test is skipped, not failed for R2.
func TestUnknownRequiredFeature_RefusedByAdmission(t *testing.T) {
	client := fakeCluster(t)
	client.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service)
		if strings.Contains(svc.Annotations[v1.RequiredFeaturesAnnotation], string(UnknownFeature)) {
			return true, nil, apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{
				field.NotSupported(field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation), UnknownFeature, []string{"Ports"})})
		}
		return false, nil, nil
	})
	report, err := Run(t.Context(), client, Options{Run: []string{"UnknownRequiredFeature"}, ConditionsTimeout: time.Second, ProvisionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("UnknownRequiredFeature"); got.Result != TestSkipped || !strings.Contains(got.Reason, "refuses") {
		t.Errorf("UnknownRequiredFeature %s (%s), want skipped: the cluster refused the Service", got.Result, got.Reason)
	}
	// The fake clientset cannot send the spec field.
	if report.RequiredFeaturesSource != conditions.RequiredFeaturesSourceAnnotation {
		t.Errorf("required features through %q, want the annotation", report.RequiredFeaturesSource)
	}
}

// TestBasic_ProvisioningComplete: section 9's Basic passes on
// Serving=True, Provisioning=False/Complete and an address, and fails a
// provider that ends provisioning with a reason of its own, which a client
// waiting for Complete never sees.
func TestBasic_ProvisioningComplete(t *testing.T) {
	for _, reason := range []string{"Complete", "Done"} {
		t.Run(reason, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool { // serves in one write
				now := metav1.NewTime(time.Now().Truncate(time.Second))
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				svc.Status.Conditions = []metav1.Condition{
					{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: reason, Message: "done", LastTransitionTime: now},
					{Type: "LoadBalancerServing", Status: metav1.ConditionTrue, Reason: "Serving", Message: "serving", LastTransitionTime: now},
				}
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			basic := report.Test("Basic")
			switch {
			case reason == "Complete" && basic.Result != TestPassed:
				t.Errorf("Basic %s, want passed: %s %v", basic.Result, basic.Reason, basic.Findings)
			case reason != "Complete" && (basic.Result != TestFailed || !strings.Contains(basic.Reason, `reason "Done"`)):
				t.Errorf("Basic %s (%s), want failed for Provisioning=False/Done", basic.Result, basic.Reason)
			}
			if report.RequiredFeaturesSource != "" {
				t.Errorf("required features through %q, but Basic requires none", report.RequiredFeaturesSource)
			}
		})
	}
}

// lbService is a LoadBalancer Service named name with the given status
// conditions (type=status/reason) and ingress IPs.
func lbService(name string, conds []string, ips ...string) *v1.Service {
	svc := &v1.Service{}
	svc.Name, svc.Namespace = name, "t"
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Status.Conditions = conditionsAt(time.Time{}, conds...)
	for _, ip := range ips {
		svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
	}
	return svc
}

// conditionsAt returns the conditions written as type=status/reason, each
// with lastTransitionTime at.
func conditionsAt(at time.Time, conds ...string) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range conds {
		typ, rest, _ := strings.Cut(c, "=")
		status, reason, _ := strings.Cut(rest, "/")
		out = append(out, metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: "m", LastTransitionTime: metav1.NewTime(at)})
	}
	return out
}

// TestAwait_L1_L2_L4_WhatEndsEachWait: the first wait of a test (L1, L8)
// ends on Serving or Provisioning only, and a Service is settled (L2) when
// Provisioning is False and Serving False, or True with an address (L4):
// a Service still provisioning, or served without an address, is not.
func TestAwait_L1_L2_L4_WhatEndsEachWait(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		svc                    *v1.Service
		acknowledged, finished bool
	}{
		{"not there", nil, false, false},
		{"no conditions", lbService("s", nil), false, false},
		{"only Degraded", lbService("s", []string{"LoadBalancerDegraded=True/SessionAffinityNotSupported"}), false, false},
		{"provisioning", lbService("s", []string{"LoadBalancerProvisioning=True/Provisioning"}), true, false},
		{"provisioning again while serving", lbService("s", []string{"LoadBalancerProvisioning=True/Provisioning", "LoadBalancerServing=True/Serving"}, "192.0.2.1"), true, false},
		{"Serving alone", lbService("s", []string{"LoadBalancerServing=True/Serving"}, "192.0.2.1"), true, false},
		{"served", lbService("s", []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving"}, "192.0.2.1"), true, true},
		{"served without an address", lbService("s", []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving"}), true, false},
		{"refused", lbService("s", []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Unsupported"}), true, true},
		{"failed", lbService("s", []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Infrastructure"}), true, true},
		{"Serving unknown", lbService("s", []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=Unknown/Unknown"}), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hasConditions(tc.svc); got != tc.acknowledged {
				t.Errorf("hasConditions = %v, want %v", got, tc.acknowledged)
			}
			if got := settled(tc.svc); got != tc.finished {
				t.Errorf("settled = %v, want %v", got, tc.finished)
			}
		})
	}
}

// TestClassify_T2: Serving=False/Unsupported is a refusal, any other
// False an infrastructure failure that fails the test (T2); a Service
// served is degraded in f only when Degraded names f's reason.
func TestClassify_T2(t *testing.T) {
	settledAs := func(serving string, degraded ...string) *v1.Service {
		conds := []string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=" + serving}
		if len(degraded) > 0 {
			conds = append(conds, "LoadBalancerDegraded=True/"+degraded[0])
		}
		return lbService("s", conds, "192.0.2.1")
	}
	affinity := v1.LoadBalancerFeatureSessionAffinity
	for _, tc := range []struct {
		name    string
		svc     *v1.Service
		f       v1.LoadBalancerFeature
		want    served
		wantErr bool
	}{
		{"refused", settledAs("False/Unsupported"), affinity, servedRefused, false},
		{"failed", settledAs("False/Infrastructure"), affinity, servedNone, true},
		{"served", settledAs("True/Serving"), affinity, servedPlain, false},
		{"degraded in f", settledAs("True/Serving", "SessionAffinityNotSupported"), affinity, servedDegraded, false},
		{"degraded in another feature", settledAs("True/Serving", "LoadBalancerIPNotSupported"), affinity, servedPlain, false},
		{"no feature asked", settledAs("True/Serving", "SessionAffinityNotSupported"), "", servedPlain, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := classify(tc.svc, tc.f)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("classify = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "T2") {
				t.Errorf("error %q does not name T2", err)
			}
		})
	}
}

// TestHonored_P3: a loadBalancerIP served without degradation must be
// among the ingress addresses; one served degraded, or another feature,
// shows nothing a status can check.
func TestHonored_P3(t *testing.T) {
	at := func(ips ...string) *v1.Service {
		svc := lbService("asks", nil, ips...)
		svc.Spec.LoadBalancerIP = "198.18.255.100"
		return svc
	}
	lbIP := v1.LoadBalancerFeatureLoadBalancerIP
	for _, tc := range []struct {
		name    string
		svc     *v1.Service
		f       v1.LoadBalancerFeature
		how     served
		wantErr bool
	}{
		{"at the requested address", at("192.0.2.1", "198.18.255.100"), lbIP, servedPlain, false},
		{"elsewhere", at("192.0.2.1"), lbIP, servedPlain, true},
		{"at a hostname", func() *v1.Service {
			svc := at()
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
			return svc
		}(), lbIP, servedPlain, true},
		{"elsewhere, degraded", at("192.0.2.1"), lbIP, servedDegraded, false},
		{"elsewhere, refused", at(), lbIP, servedRefused, false},
		{"another feature", at("192.0.2.1"), v1.LoadBalancerFeatureSessionAffinity, servedPlain, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := honored(tc.svc, tc.f, tc.how)
			if (err != nil) != tc.wantErr {
				t.Errorf("honored = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "P3") {
				t.Errorf("error %q does not name P3", err)
			}
		})
	}
}

// TestExplain_DeadlinesAndViolations: a wait's deadline becomes the test's
// message, naming the rule; a violation stays errViolation, so the report
// names the checker's rule; a run stopped by the caller keeps the
// context's error, so the test is reported as not run, not failed.
func TestExplain_DeadlinesAndViolations(t *testing.T) {
	live := &testRun{ctx: t.Context()}
	if err := live.explain(context.DeadlineExceeded, "late (L8)"); err == nil || err.Error() != "late (L8)" {
		t.Errorf("deadline: %v, want the message", err)
	}
	if err := live.explain(errViolation, "late (L8)"); err != errViolation {
		t.Errorf("violation: %v, want errViolation", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	<-ctx.Done()
	stopped := &testRun{ctx: ctx}
	if err := stopped.explain(ctx.Err(), "late (L8)"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("stopped run: %v, want the context's error", err)
	}
}

// fakeProvider runs, until ctx ends, a provider on client's fake cluster
// that writes status(svc) on each Service created, when status returns
// true.
func fakeProvider(ctx context.Context, t *testing.T, client *fake.Clientset, status func(svc *corev1.Service) bool) {
	fakeReconciler(ctx, t, client, func(ev watch.EventType, svc *corev1.Service) bool {
		return ev == watch.Added && status(svc)
	})
}

// fakeReconciler is fakeProvider for a provider that also answers changes:
// it calls status on each Service added or modified, its own writes
// included, in the order of the watch, from one goroutine.
func fakeReconciler(ctx context.Context, t *testing.T, client *fake.Clientset, status func(ev watch.EventType, svc *corev1.Service) bool) {
	w, err := client.CoreV1().Services("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev := range w.ResultChan() {
			svc, ok := ev.Object.(*corev1.Service)
			if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) {
				continue
			}
			if svc = svc.DeepCopy(); status(ev.Type, svc) {
				_, _ = client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
			}
		}
	}()
}

// TestBasic_T1_RefusedIsSkipped: a provider that refuses a Service with
// one TCP port is not tested by Basic: the test is skipped (T1), not
// passed on a refusal that ends provisioning as Complete.
func TestBasic_T1_RefusedIsSkipped(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		now := metav1.NewTime(time.Now().Truncate(time.Second))
		svc.Status.Conditions = []metav1.Condition{
			{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: "Complete", Message: "done", LastTransitionTime: now},
			{Type: "LoadBalancerServing", Status: metav1.ConditionFalse, Reason: "Unsupported", Message: "no TCP here", LastTransitionTime: now},
		}
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if basic := report.Test("Basic"); basic.Result != TestSkipped || !strings.Contains(basic.Reason, "T1") {
		t.Errorf("Basic %s (%s), want skipped for T1", basic.Result, basic.Reason)
	}
}

// TestForeignClass_P1_IngressAlone: a provider that writes an ingress
// address, without any condition, on a Service of a class it does not
// handle breaks P1 too: ForeignClass fails.
func TestForeignClass_P1_IngressAlone(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		if ptr.Deref(svc.Spec.LoadBalancerClass, "") == "example.com/mine" { // its own class: served
			svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		}
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, LoadBalancerClass: "example.com/mine", SettlePeriod: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("ForeignClass"); got.Result != TestFailed || !strings.Contains(got.Reason, "P1") {
		t.Errorf("ForeignClass %s (%s), want failed for P1", got.Result, got.Reason)
	}
}

// TestForeignClass_P1_DefaultClassChecker: a provider of Services without
// a class is one of a class choice too (section 9): the checker of the
// run knows it, so a write on the foreign Service is the checker's P1
// violation in the report, as it is for a provider of a class, and not
// judged by the rules of a Service the provider handles.
func TestForeignClass_P1_DefaultClassChecker(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool { // serves every class
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, SettlePeriod: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := report.Test("ForeignClass")
	if got.Result != TestFailed || !strings.Contains(got.Reason, "P1") {
		t.Errorf("ForeignClass %s (%s), want failed for P1", got.Result, got.Reason)
	}
	if !slices.ContainsFunc(got.Findings, func(f conformance.Finding) bool {
		return f.Rule == "P1" && f.Severity == conformance.SeverityViolation && f.Object.Name == "foreign"
	}) {
		t.Errorf("no P1 violation on foreign among the findings %v", got.Findings)
	}
}

// TestForeignClass_P1_SlowProvider: the settling period starts once the
// provider has shown it is at work, by writing on a Service of its own
// class created after the foreign one: a provider that takes longer than
// the period to react, and then writes on the foreign Service too, fails
// ForeignClass (P1) instead of passing on a silence that only showed it
// had not got there yet.
func TestForeignClass_P1_SlowProvider(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		select { // each Service in turn, well after the settling period below
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		if ptr.Deref(svc.Spec.LoadBalancerClass, "") == "example.com/mine" { // its own class: served
			svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		}
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, LoadBalancerClass: "example.com/mine",
		SettlePeriod: time.Second, ConditionsTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("ForeignClass"); got.Result != TestFailed || !strings.Contains(got.Reason, "P1") {
		t.Errorf("ForeignClass %s (%s), want failed for P1", got.Result, got.Reason)
	}
}

// TestForeignClass_P1_NoProvider: with no provider at all, nothing is
// written on the foreign Service, but nothing on one of the provider's own
// class either: ForeignClass is skipped, not passed on a silence that
// shows nothing. A provider that serves its own class and leaves the
// foreign Service alone passes.
func TestForeignClass_P1_NoProvider(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider bool
		timeout  time.Duration
		want     TestResult
	}{
		{"no provider", false, 200 * time.Millisecond, TestSkipped},
		{"a provider of its own class", true, 5 * time.Second, TestPassed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.provider {
				fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
					if ptr.Deref(svc.Spec.LoadBalancerClass, "") != "example.com/mine" {
						return false
					}
					svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
					svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
					return true
				})
			}
			report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, LoadBalancerClass: "example.com/mine",
				SettlePeriod: 100 * time.Millisecond, ConditionsTimeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			got := report.Test("ForeignClass")
			if got.Result != tc.want || (tc.want == TestSkipped && !strings.Contains(got.Reason, "own class")) {
				t.Errorf("ForeignClass %s (%s), want %s", got.Result, got.Reason, tc.want)
			}
		})
	}
}

// TestForeignClass_P1_NoProviderSkipsAtOnce: once nothing was written on
// a Service of the provider's own class, there is no provider whose writes
// the settling period would wait for: ForeignClass is skipped at once, not
// after the period. Here the period outlasts the run, which a wait through
// it would leave with ForeignClass not run.
func TestForeignClass_P1_NoProviderSkipsAtOnce(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, LoadBalancerClass: "example.com/mine",
		SettlePeriod: time.Hour, ConditionsTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("ForeignClass"); got.Result != TestSkipped || !strings.Contains(got.Reason, "own class") {
		t.Errorf("ForeignClass %s (%s), want skipped: no provider wrote on own", got.Result, got.Reason)
	}
}

// TestForeignClass_P1_Interrupted: an interrupt, while ForeignClass waits
// for the provider's first write on its own Service or while it watches
// the foreign one, ends the test as not run: a silence cut short shows
// neither that the provider leaves other classes alone nor that no
// provider runs. The interrupt is a deadline, as RunT's is.
func TestForeignClass_P1_Interrupted(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider bool
	}{{"waiting for own", false}, {"settling", true}} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			if tc.provider {
				fakeProvider(t.Context(), t, client, func(svc *corev1.Service) bool {
					if ptr.Deref(svc.Spec.LoadBalancerClass, "") != "example.com/mine" {
						return false
					}
					svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
					svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
					return true
				})
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, LoadBalancerClass: "example.com/mine",
				SettlePeriod: time.Hour, ConditionsTimeout: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Test("ForeignClass"); got.Result != TestNotRun {
				t.Errorf("ForeignClass %s (%s), want notRun", got.Result, got.Reason)
			}
		})
	}
}

// TestFeature_IPFamilies_SingleStackClusterSkips: a cluster that cannot
// create a dual-stack Service leaves Feature/IPFamilies skipped, not failed
// against the provider.
func TestFeature_IPFamilies_SingleStackClusterSkips(t *testing.T) {
	client := fakeCluster(t)
	client.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service)
		if len(svc.Spec.IPFamilies) > 1 {
			return true, nil, apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "ipFamilies"), svc.Spec.IPFamilies, "this cluster is single-stack")})
		}
		return false, nil, nil
	})
	report, err := Run(t.Context(), client, Options{Run: []string{"Feature/IPFamilies"}, ConditionsTimeout: time.Second, ProvisionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("Feature/IPFamilies"); got.Result != TestSkipped || !strings.Contains(got.Reason, "dual-stack") {
		t.Errorf("Feature/IPFamilies %s (%s), want skipped: the cluster is single-stack", got.Result, got.Reason)
	}
}

// TestFeature_NoRequiredFeatures_ClaimsNoSupport: with NoRequiredFeatures
// declared, no Service requires the feature, so a feature served when
// asked is Untested, never Supported, and the evidence says why.
func TestFeature_NoRequiredFeatures_ClaimsNoSupport(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var required atomic.Int32
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		if _, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]; ok {
			required.Add(1)
		}
		now := metav1.NewTime(time.Now().Truncate(time.Second))
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = []metav1.Condition{
			{Type: "LoadBalancerProvisioning", Status: metav1.ConditionFalse, Reason: "Complete", Message: "done", LastTransitionTime: now},
			{Type: "LoadBalancerServing", Status: metav1.ConditionTrue, Reason: "Serving", Message: "serving", LastTransitionTime: now},
		}
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Feature/SessionAffinity"}, NoRequiredFeatures: true, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("Feature/SessionAffinity"); got.Result != TestPassed {
		t.Fatalf("Feature/SessionAffinity %s (%s), want passed", got.Result, got.Reason)
	}
	if f := report.Feature(v1.LoadBalancerFeatureSessionAffinity); f.Support != SupportUntested || !strings.Contains(f.Evidence, v1.RequiredFeaturesAnnotation) {
		t.Errorf("SessionAffinity %+v, want Untested, saying the provider reads no required features", f)
	}
	if n := required.Load(); n > 0 {
		t.Errorf("%d Services required the feature, want none", n)
	}
}

// TestBasic_L8_ConditionsAfterTheirDeadline: a provider whose first
// conditions come after L8's deadline for them fails Basic (L1, L8), even
// though it serves well within the provisioning deadline: a client has
// given up on it by then.
func TestBasic_L8_ConditionsAfterTheirDeadline(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		select { // far beyond the conditions' deadline below
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: time.Millisecond, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if basic := report.Test("Basic"); basic.Result != TestFailed || !strings.Contains(basic.Reason, "L8") {
		t.Errorf("Basic %s (%s), want failed: no conditions within L8's deadline", basic.Result, basic.Reason)
	}
}

// Started says which test runs before it ends, and only the tests the
// run selects; Progress follows it for each.
func TestRun_StartedBeforeProgress(t *testing.T) {
	client := fakeCluster(t)
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	_, err := Run(t.Context(), client, Options{Run: []string{"Basic", "SpecChange"}, ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond,
		Parallelism: 1,
		Started:     func(name string) { record("start " + name) },
		Progress:    func(tr TestReport) { record("end " + tr.Name) }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"start Basic", "end Basic", "start SpecChange", "end SpecChange"}; !slices.Equal(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
}

// TestFeature_P3_AskedLoadBalancerIP: the Service that asks for a
// loadBalancerIP without requiring it is held to P3 as well: served
// without a LoadBalancerIPNotSupported degradation, it must be served at
// the address it asked for, whatever the provider did with the Service
// that requires one (refused here, which is allowed).
func TestFeature_P3_AskedLoadBalancerIP(t *testing.T) {
	for _, tc := range []struct {
		name, at string
		want     TestResult
	}{
		{"at the requested address", DefaultLoadBalancerIP, TestPassed},
		{"elsewhere", "192.0.2.10", TestFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
				now := time.Now().Truncate(time.Second)
				if _, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]; ok {
					svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Unsupported")
					return true
				}
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: tc.at}}
				svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"Feature/LoadBalancerIP"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := report.Test("Feature/LoadBalancerIP")
			// A failure names the Service that asked, and P3.
			named := strings.HasPrefix(got.Reason, "asks ") && strings.Contains(got.Reason, "(P3)")
			if got.Result != tc.want || (tc.want == TestFailed && !named) {
				t.Errorf("Feature/LoadBalancerIP %s (%s), want %s", got.Result, got.Reason, tc.want)
			}
		})
	}
}

// TestSpecChange_L6_L2: SpecChange passes a provider that acknowledges the
// added port by bumping Provisioning (L6) and then settles again, and
// fails one that acknowledges it but never settles again (L2). A Service
// the provider refused never served, so there is no change after Serving
// to test: SpecChange is skipped (T1), not passed on a refusal that
// acknowledges the port.
func TestSpecChange_L6_L2(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		refuse, settle, quiet bool
		want                  TestResult
		reason                string
	}{
		{"reprovisions and settles", false, true, false, TestPassed, ""},
		{"never settles again", false, false, false, TestFailed, "after its spec changed (L2)"},
		{"refused", true, false, false, TestSkipped, "T1"},
		{"never acknowledges the change", false, true, true, TestFailed, "lastTransitionTime stayed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var created time.Time
			acknowledged := false
			fakeReconciler(ctx, t, client, func(ev watch.EventType, svc *corev1.Service) bool {
				// Each write a second after the last: lastTransitionTime
				// has whole seconds (G5).
				switch {
				case ev == watch.Added && tc.refuse:
					created = time.Now().Truncate(time.Second)
					svc.Status.Conditions = conditionsAt(created, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Unsupported")
				case ev == watch.Added:
					created = time.Now().Truncate(time.Second)
					svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
					svc.Status.Conditions = conditionsAt(created, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				case len(svc.Spec.Ports) > 1 && tc.quiet:
					return false
				case len(svc.Spec.Ports) > 1 && !acknowledged && tc.refuse:
					acknowledged = true
					svc.Status.Conditions = append(conditionsAt(created.Add(time.Second), "LoadBalancerProvisioning=False/Complete"),
						conditionsAt(created, "LoadBalancerServing=False/Unsupported")...)
				case len(svc.Spec.Ports) > 1 && !acknowledged:
					acknowledged = true
					svc.Status.Conditions = append(conditionsAt(created.Add(time.Second), "LoadBalancerProvisioning=True/Provisioning"),
						conditionsAt(created, "LoadBalancerServing=True/Serving")...)
				case tc.settle && meta.IsStatusConditionTrue(svc.Status.Conditions, "LoadBalancerProvisioning"):
					svc.Status.Conditions = append(conditionsAt(created.Add(2*time.Second), "LoadBalancerProvisioning=False/Complete"),
						conditionsAt(created, "LoadBalancerServing=True/Serving")...)
				default:
					return false
				}
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"SpecChange"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Test("SpecChange"); got.Result != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("SpecChange %s (%s), want %s (%s) %v", got.Result, got.Reason, tc.want, tc.reason, got.Findings)
			}
		})
	}
}

// TestRecreate_C6_C7: Recreate passes a provider that gives the Service
// created again conditions of its own, also when its cleanup holds up the
// old object's deletion, as the load-balancer-cleanup finalizer does: the
// test creates the Service again only once the old one is gone, which a
// server would otherwise refuse as already existing, and when its clock
// runs behind the apiserver's, which stamps the new object's creation. It
// fails a provider that copies the old object's conditions onto the new
// one (C6, C7 per uid), whatever its clock.
func TestRecreate_C6_C7(t *testing.T) {
	for _, tc := range []struct {
		name               string
		slowCleanup, stale bool
		skew               time.Duration // of the provider's clock
		want               TestResult
		reason             string
	}{
		{"fresh conditions", false, false, 0, TestPassed, ""},
		{"slow cleanup", true, false, 0, TestPassed, ""},
		{"clock behind", false, false, -3 * time.Second, TestPassed, ""},
		{"stale copy", false, true, 0, TestFailed, "stale copy of the old object's (C6, C7)"},
		{"stale copy, clock behind", false, true, -3 * time.Second, TestFailed, "stale copy of the old object's (C6, C7)"},
		{"stale copy, clock ahead", false, true, 3 * time.Second, TestFailed, "stale copy of the old object's (C6, C7)"},
		// Stamps ahead of the clock, as transitions in one second make
		// them (C7), and a clock ahead: the pause outlasts both.
		{"stamps ahead", false, false, 0, TestPassed, ""},
		{"clock ahead", false, false, 3 * time.Second, TestPassed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.slowCleanup {
				// The old object goes 1.2s after its deletion, later
				// than Recreate's pause to the next whole second can
				// end: only waiting for the deletion gets past it.
				var held atomic.Bool
				client.PrependReactor("delete", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
					if held.Swap(true) {
						return false, nil, nil
					}
					d := a.(k8stesting.DeleteAction)
					time.AfterFunc(1200*time.Millisecond, func() {
						if ctx.Err() == nil {
							_ = client.Tracker().Delete(d.GetResource(), d.GetNamespace(), d.GetName())
						}
					})
					return true, nil, nil
				})
			}
			var first []metav1.Condition // the provider's first write, which a stale copy repeats
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				if tc.stale && first != nil {
					svc.Status.Conditions = slices.Clone(first)
					return true
				}
				at := time.Now().Add(tc.skew).Truncate(time.Second)
				if tc.name == "stamps ahead" && first == nil {
					at = at.Add(2 * time.Second) // moved on twice in its second
				}
				svc.Status.Conditions = conditionsAt(at, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				first = slices.Clone(svc.Status.Conditions)
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"Recreate"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Test("Recreate"); got.Result != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Recreate %s (%s), want %s (%s)", got.Result, got.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestRecreate_InterruptedInItsPause: an interrupt while Recreate waits
// to create the Service again ends the test there: it creates nothing
// more, and is not run rather than failed.
func TestRecreate_InterruptedInItsPause(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client.PrependReactor("delete", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		// The old object goes at once; the interrupt comes in the
		// second Recreate waits after that.
		time.AfterFunc(300*time.Millisecond, cancel)
		return false, nil, nil
	})
	var afterInterrupt atomic.Int32
	client.PrependReactor("create", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		if ctx.Err() != nil {
			afterInterrupt.Add(1)
		}
		return false, nil, nil
	})
	fakeProvider(t.Context(), t, client, func(svc *corev1.Service) bool {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Recreate"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("Recreate"); got.Result != TestNotRun {
		t.Errorf("Recreate %s (%s), want notRun", got.Result, got.Reason)
	}
	if n := afterInterrupt.Load(); n > 0 {
		t.Errorf("%d Services created after the interrupt, want none", n)
	}
}

// TestRecreate_DeletionTakesTheLoadBalancerDown: the old Service goes only
// once its provider has taken the load balancer down (the
// load-balancer-cleanup finalizer), which is no quicker than provisioning
// and has nothing to do with L8's deadline for the first conditions:
// Recreate waits for it as long as for a provisioning, and passes a
// provider whose cleanup outlasts the conditions' deadline.
func TestRecreate_DeletionTakesTheLoadBalancerDown(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client.PrependReactor("delete", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteAction)
		time.AfterFunc(1500*time.Millisecond, func() {
			if ctx.Err() == nil {
				_ = client.Tracker().Delete(d.GetResource(), d.GetNamespace(), d.GetName())
			}
		})
		return true, nil, nil
	})
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Recreate"}, ConditionsTimeout: 500 * time.Millisecond, ProvisionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("Recreate"); got.Result != TestPassed {
		t.Errorf("Recreate %s (%s), want passed", got.Result, got.Reason)
	}
}

// TestTypeChange_L9_RemovedWithTheLoadBalancer: a provider removes the
// conditions together with the load balancer (L9), once it has taken it
// down, which is no quicker than provisioning: TypeChange passes a
// provider that does so after L8's deadline for the first conditions, and
// fails one that never does, or leaves the ingress of the load balancer it
// took down, naming L9.
func TestTypeChange_L9_RemovedWithTheLoadBalancer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		remove      bool
		keepIngress bool
		want        TestResult
	}{
		{"removed after the teardown", true, false, TestPassed},
		{"never removed", false, false, TestFailed},
		{"conditions removed, ingress kept", true, true, TestFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeReconciler(ctx, t, client, func(ev watch.EventType, svc *corev1.Service) bool {
				switch {
				case ev == watch.Added:
					svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
					svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				case tc.remove && svc.Spec.Type == corev1.ServiceTypeClusterIP && len(svc.Status.Conditions) > 0:
					select { // taking the load balancer down
					case <-time.After(1500 * time.Millisecond):
					case <-ctx.Done():
						return false
					}
					svc.Status.Conditions = nil
					if !tc.keepIngress {
						svc.Status = corev1.ServiceStatus{}
					}
				default:
					return false
				}
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"TypeChange"}, ConditionsTimeout: 500 * time.Millisecond, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := report.Test("TypeChange")
			if got.Result != tc.want || (tc.want == TestFailed && !strings.Contains(got.Reason, "L9")) {
				t.Errorf("TypeChange %s (%s), want %s", got.Result, got.Reason, tc.want)
			}
		})
	}
}

// TestFeature_RefusalOfEveryService: a provider's refusal of the Service
// that asks for F counts against F only when it serves the same Service
// without F. One that refuses every Service (here: all of them, as one of
// another IP family or protocol would) leaves Feature/<F> skipped and F
// Untested, not Refused.
func TestFeature_RefusalOfEveryService(t *testing.T) {
	for _, tc := range []struct {
		name         string
		refusesPlain bool
		want         TestResult
		support      Support
	}{
		{"refuses every Service", true, TestSkipped, SupportUntested},
		{"refuses session affinity", false, TestPassed, SupportRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
				now := time.Now().Truncate(time.Second)
				if tc.refusesPlain || svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
					svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Unsupported")
					return true
				}
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"Feature/SessionAffinity"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := report.Test("Feature/SessionAffinity")
			if got.Result != tc.want || (tc.want == TestSkipped && !strings.Contains(got.Reason, "refused plain")) {
				t.Errorf("Feature/SessionAffinity %s (%s), want %s", got.Result, got.Reason, tc.want)
			}
			if f := report.Feature(v1.LoadBalancerFeatureSessionAffinity); f.Support != tc.support {
				t.Errorf("SessionAffinity %+v, want %s", f, tc.support)
			}
		})
	}
}

// TestPlainServed_T1_RefusalIsServingFalse: only Serving=False/Unsupported
// on plain is a refusal of every Service; the reason on another status is
// none. Through Run the checker fails such a status first (C1, C3), so
// plainServed is given its observations directly, past the checker.
func TestPlainServed_T1_RefusalIsServingFalse(t *testing.T) {
	for _, tc := range []struct {
		conds   []string
		refused bool
	}{
		{[]string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Unsupported"}, true},
		{[]string{"LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Unsupported"}, false},
		{[]string{"LoadBalancerProvisioning=True/Provisioning", "LoadBalancerServing=Unknown/Unsupported"}, false},
	} {
		r := &testRun{ctx: t.Context(), client: fakeCluster(t), ns: "t", tr: newTracker(),
			opts: Options{ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond}.withDefaults()}
		r.tr.history["plain"] = []*v1.Service{lbService("plain", tc.conds, "192.0.2.10")}
		var skip skipError
		if err := r.plainServed("asks", "F"); errors.As(err, &skip) != tc.refused || (!tc.refused && err != nil) {
			t.Errorf("%v: plainServed = %v, want a refusal: %v", tc.conds, err, tc.refused)
		}
	}
}

// TestUnknownRequiredFeature_R2_RefusalOfEveryService: the refusal R2 asks
// for is the unknown feature's only when the provider serves the same
// Service without it; one that refuses every Service leaves
// UnknownRequiredFeature skipped, not passed. One that fails the Service
// in its infrastructure, where R2 asks for a refusal, fails the test for
// R2, not for T2.
func TestUnknownRequiredFeature_R2_RefusalOfEveryService(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		refusesPlain, provisioning bool
		fails                      bool // Serving=False/Infrastructure for the unknown feature
		want                       TestResult
	}{
		{"refuses every Service", true, false, false, TestSkipped},
		{"refuses the unknown feature", false, false, false, TestPassed},
		// Taken on, still provisioning: no refusal, whatever the time
		// provisioning takes (Basic's to judge).
		{"refuses the unknown feature, provisions slowly", false, true, false, TestPassed},
		{"fails the unknown feature", false, false, true, TestFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
				now := time.Now().Truncate(time.Second)
				_, required := svc.Annotations[v1.RequiredFeaturesAnnotation]
				if required && tc.fails {
					svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Infrastructure")
					return true
				}
				if tc.refusesPlain || required {
					svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=False/Unsupported")
					return true
				}
				if tc.provisioning {
					svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=True/Provisioning", "LoadBalancerServing=False/Provisioning")
					return true
				}
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				svc.Status.Conditions = conditionsAt(now, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"UnknownRequiredFeature"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := report.Test("UnknownRequiredFeature")
			if got.Result != tc.want || (tc.want == TestSkipped && !strings.Contains(got.Reason, "refused plain")) ||
				(tc.want == TestFailed && (!strings.Contains(got.Reason, "(R2)") || strings.Contains(got.Reason, "T2"))) {
				t.Errorf("UnknownRequiredFeature %s (%s), want %s", got.Result, got.Reason, tc.want)
			}
		})
	}
}

// TestRun_InvalidOptions: options every test would fail on alike are one
// error of Run, naming the field, before anything is made on the cluster,
// not a report of failed tests; the zero Options, and a ForeignClass class
// in a run without ForeignClass, are fine.
func TestRun_InvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		field string // "" for valid options
	}{
		{"zero", Options{}, ""},
		{"foreign class, ForeignClass not run", Options{LoadBalancerClass: ForeignClass, Run: []string{"Basic"}}, ""},
		{"namespace prefix", Options{NamespacePrefix: "Conformance_"}, "NamespacePrefix"},
		{"class", Options{LoadBalancerClass: "example.com/no such class"}, "LoadBalancerClass"},
		{"foreign class", Options{LoadBalancerClass: ForeignClass}, "LoadBalancerClass"},
		{"load-balancer IP", Options{LoadBalancerIP: "198.18.0.300"}, "LoadBalancerIP"},
		{"last address", Options{LoadBalancerIP: "255.255.255.255"}, "LoadBalancerIP"},
		{"relevant annotation", Options{RelevantAnnotations: []string{"example.com/ok", "not a key"}}, "RelevantAnnotations"},
		{"negative deadline", Options{ProvisionTimeout: -time.Second}, "ProvisionTimeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var oe *OptionError
			if err := tc.opts.Validate(); (err == nil) != (tc.field == "") || (err != nil && (!errors.As(err, &oe) || oe.Field != tc.field)) {
				t.Fatalf("Validate: %v, want an error naming %q", err, tc.field)
			}
			if tc.field == "" {
				return
			}
			// Quick, were it to run.
			opts := tc.opts
			opts.ConditionsTimeout, opts.SettlePeriod = time.Millisecond, time.Millisecond
			opts.ProvisionTimeout = cmp.Or(opts.ProvisionTimeout, time.Millisecond)
			client := fakeCluster(t)
			report, err := Run(t.Context(), client, opts)
			if report != nil || !errors.As(err, &oe) || oe.Field != tc.field {
				t.Errorf("Run: %v, report %v; want the error alone, naming %s", err, report != nil, tc.field)
			}
			if a := client.Actions(); len(a) > 0 {
				t.Errorf("Run sent %d requests, first %s %s; want none", len(a), a[0].GetVerb(), a[0].GetResource().Resource)
			}
		})
	}
}

// TestRun_NamespacesForbidden: an account that may not create the tests'
// namespaces runs no test, which says nothing of the provider: Run returns
// an error naming the denial, not a report of failed tests. Another
// failure to create a namespace stays the test's.
// TestRun_InterruptedWhileATestStarts: a run stopped while a test makes
// its namespace or lists its Services claims nothing of that test: it is
// not run rather than failed, as when it is stopped later, and the run is
// partial, not a failure of the provider.
func TestRun_InterruptedWhileATestStarts(t *testing.T) {
	for _, step := range []struct{ verb, resource string }{{"create", "namespaces"}, {"list", "services"}} {
		t.Run(step.verb+" "+step.resource, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			client.PrependReactor(step.verb, step.resource, func(k8stesting.Action) (bool, runtime.Object, error) {
				cancel() // Ctrl-C, while the request is under way
				return true, nil, context.Canceled
			})
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := report.Test("Basic"); got.Result != TestNotRun || !strings.HasPrefix(got.Reason, "the run was interrupted: ") {
				t.Errorf("Basic %s (%s), want notRun: the run was interrupted", got.Result, got.Reason)
			}
			if report.Result != ResultPartial {
				t.Errorf("run %s, want partial", report.Result)
			}
		})
	}
}

func TestRun_NamespacesForbidden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		report bool
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "", errors.New("no RBAC")), false},
		{"unauthorized", apierrors.NewUnauthorized("no token"), false},
		{"another error", apierrors.NewInternalError(errors.New("etcd is down")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			client.PrependReactor("create", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			report, err := Run(t.Context(), client, Options{Run: []string{"Basic", "Recreate"}})
			switch {
			case tc.report && (err != nil || report.Test("Basic").Result != TestFailed):
				t.Errorf("Run: %v; want a report with Basic failed", err)
			case !tc.report && (report != nil || err == nil || !strings.Contains(err.Error(), "the account cannot create the tests' namespaces")):
				t.Errorf("Run: %v, report %v; want the error alone", err, report)
			}
		})
	}
}

// TestRun_CleanupFailureIsReported: a test whose Services or namespace
// cannot be deleted (an account that may create them but not delete them,
// a server that fails the request) leaves them on the cluster, load
// balancers and all: the report says so, naming what is left and why,
// instead of reading as a clean run.
func TestRun_CleanupFailureIsReported(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for _, resource := range []string{"services", "namespaces"} {
		client.PrependReactor("delete", resource, func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errors.New("no RBAC"))
		})
	}
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	basic := report.Test("Basic")
	var out strings.Builder
	if err := report.Write(&out, FormatYAML); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Service basic", "namespace " + basic.Namespace, "no RBAC"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q is left behind:\n%s", want, out.String())
		}
	}
}

// TestRun_NamespaceHeldIsReported: a test's namespace deleted without
// error may still not go, held by a finalizer (a load balancer the
// provider never took down): the run waits for it up to its cleanup
// timeout and reports it as left, with what the namespace's conditions
// say holds it, like a namespace it could not delete. One that goes
// within the timeout is not reported.
func TestRun_NamespaceHeldIsReported(t *testing.T) {
	const holds = "Some content in the namespace has finalizers remaining: service.kubernetes.io/load-balancer-cleanup in 1 resource instances"
	for _, tc := range []struct {
		name string
		goes time.Duration // after its deletion; 0: never
	}{
		{"held by a finalizer", 0},
		{"goes after a while", 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			namespaces := corev1.SchemeGroupVersion.WithResource("namespaces")
			client.PrependReactor("delete", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
				name := a.(k8stesting.DeleteAction).GetName()
				obj, err := client.Tracker().Get(namespaces, "", name)
				if err != nil {
					return true, nil, err
				}
				ns := obj.(*corev1.Namespace).DeepCopy()
				ns.DeletionTimestamp = ptr.To(metav1.Now())
				ns.Status.Phase = corev1.NamespaceTerminating
				ns.Status.Conditions = []corev1.NamespaceCondition{{Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Message: holds}}
				if tc.goes > 0 {
					time.AfterFunc(tc.goes, func() { _ = client.Tracker().Delete(namespaces, "", name) })
				}
				return true, nil, client.Tracker().Update(namespaces, ns, "")
			})
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				return true
			})
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 5 * time.Second, CleanupTimeout: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			basic := report.Test("Basic")
			if basic.Result != TestPassed {
				t.Errorf("Basic %s (%s), want passed", basic.Result, basic.Reason)
			}
			switch {
			case tc.goes == 0 && (!strings.Contains(basic.Cleanup, "namespace "+basic.Namespace) || !strings.Contains(basic.Cleanup, holds)):
				t.Errorf("cleanup %q, want namespace %s left, held by: %s", basic.Cleanup, basic.Namespace, holds)
			case tc.goes > 0 && basic.Cleanup != "":
				t.Errorf("cleanup %q, want nothing left", basic.Cleanup)
			}
		})
	}
}

// A namespace whose creation got no answer (an interrupt, a timeout, the
// server's timeout) may exist all the same: the run finds it by its labels
// and deletes it, and leaves another run's alone.
func TestRun_UnansweredNamespaceIsDeleted(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"no answer", context.DeadlineExceeded},
		{"timeout", apierrors.NewTimeoutError("the request timed out", 1)},
		{"server timeout", apierrors.NewServerTimeout(schema.GroupResource{Resource: "namespaces"}, "create", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			createsUnanswered(client, tc.err)
			other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "another-run", Labels: map[string]string{testLabel: "basic", runLabel: "another"}}}
			if err := client.Tracker().Add(other); err != nil {
				t.Fatal(err)
			}
			report, err := Run(t.Context(), client, Options{Run: []string{"Basic"}, ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if basic := report.Test("Basic"); basic.Result != TestFailed || !strings.Contains(basic.Reason, "creating the test namespace") || basic.Cleanup != "" {
				t.Errorf("Basic %s (%s), cleanup %q; want failed creating its namespace, nothing left", basic.Result, basic.Reason, basic.Cleanup)
			}
			list, err := client.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, ns := range list.Items {
				names = append(names, ns.Name)
			}
			if !slices.Equal(names, []string{"another-run"}) {
				t.Errorf("namespaces left %v, want only another run's", names)
			}
		})
	}
}

// TestRun_ServicesCannotBeListed: an account that may make the tests'
// namespaces but not list Services in them cannot watch what the provider
// writes. The informer retries the list without end, so the test must give
// up by L8's deadline for the first conditions and say why, not hang until
// the run is interrupted; a refusal is the account's, and like one of the
// namespaces it is the run's error, not a report on the provider.
func TestRun_ServicesCannotBeListed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		report bool
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "", errors.New("no RBAC")), false},
		{"unauthorized", apierrors.NewUnauthorized("no RBAC: the token expired"), false},
		{"another error", apierrors.NewInternalError(errors.New("etcd is down")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: time.Second, ProvisionTimeout: time.Second})
			if ctx.Err() != nil {
				t.Fatalf("Run waited for the first list until the run's end")
			}
			switch {
			case tc.report && (err != nil || report.Test("Basic").Result != TestFailed || !strings.Contains(report.Test("Basic").Reason, "etcd is down")):
				t.Errorf("Run: %v, report %+v; want Basic failed, naming the list's error", err, report.Test("Basic"))
			case !tc.report && (report != nil || err == nil || !strings.Contains(err.Error(), "no RBAC")):
				t.Errorf("Run: %v, report %v; want the error alone", err, report)
			}
		})
	}
}

// TestRun_InterruptedBeforeTestsStart: once the run is interrupted, no
// further test starts: each would make a request that fails, then look for
// a namespace it might have made, on a cluster perhaps out of reach, and
// hold up the end of the run.
func TestRun_InterruptedBeforeTestsStart(t *testing.T) {
	client := fakeCluster(t)
	var created atomic.Int32
	client.PrependReactor("create", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		created.Add(1)
		return false, nil, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	report, err := Run(ctx, client, Options{Parallelism: 100})
	if err != nil {
		t.Fatal(err)
	}
	if n := created.Load(); n > 0 {
		t.Errorf("%d tests made a namespace after the interrupt, want none", n)
	}
	for _, tr := range report.Tests {
		if tr.Result != TestNotRun {
			t.Errorf("%s %s (%s), want notRun", tr.Name, tr.Result, tr.Reason)
		}
	}
}

// TestSpecChange_L6_WriteBeforeTheChange: a provider's write made just
// before the port is added (a resync that moves Provisioning's
// lastTransitionTime, say) acknowledges nothing: SpecChange judges the
// writes after the change, against the status the change was made on, and
// fails a provider that never answers the change (L6).
func TestSpecChange_L6_WriteBeforeTheChange(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	created := time.Now().Truncate(time.Second)
	fakeReconciler(ctx, t, client, func(ev watch.EventType, svc *corev1.Service) bool {
		if ev != watch.Added {
			return false // never answers the change
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(created, "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
		return true
	})
	var resynced atomic.Bool
	services := corev1.SchemeGroupVersion.WithResource("services")
	client.PrependReactor("get", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		// The suite reads the Service to change it: the provider's
		// resync lands first.
		g := a.(k8stesting.GetAction)
		if resynced.Swap(true) {
			return false, nil, nil
		}
		obj, err := client.Tracker().Get(services, g.GetNamespace(), g.GetName())
		if err != nil {
			return true, nil, err
		}
		svc := obj.(*corev1.Service).DeepCopy()
		svc.Status.Conditions = append(conditionsAt(created.Add(time.Second), "LoadBalancerProvisioning=False/Complete"),
			conditionsAt(created, "LoadBalancerServing=True/Serving")...)
		return false, nil, client.Tracker().Update(services, svc, g.GetNamespace())
	})
	report, err := Run(ctx, client, Options{Run: []string{"SpecChange"}, ConditionsTimeout: 5 * time.Second, ProvisionTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("SpecChange"); got.Result != TestFailed || !strings.Contains(got.Reason, "no write acknowledged the new port") {
		t.Errorf("SpecChange %s (%s), want failed: the provider never answered the change (L6)", got.Result, got.Reason)
	}
}

// TestRun_ServicesCannotBeWatched: an account that may list Services but
// not watch them sees the provider's writes only at the relists that
// follow each refusal, ever further apart: a provider that writes its
// conditions at once would miss L8's deadline in the suite's eyes. A
// refusal is the account's, and the run's error, not a failure of Basic
// (L8) laid on the provider; a watch that fails otherwise is named in the
// reason of a deadline missed (here by a provider that writes nothing).
func TestRun_ServicesCannotBeWatched(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		report bool
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "", errors.New("no RBAC to watch")), false},
		{"unauthorized", apierrors.NewUnauthorized("no RBAC to watch: the token expired"), false},
		{"another error", apierrors.NewInternalError(errors.New("etcd is down")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeCluster(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
				if tc.report {
					return false
				}
				select { // after the first list
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					return false
				}
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
				svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
				return true
			})
			// Prepended after the provider's own watch: only the suite's fail.
			client.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) {
				return true, nil, tc.err
			})
			report, err := Run(ctx, client, Options{Run: []string{"Basic"}, ConditionsTimeout: time.Second, ProvisionTimeout: time.Second})
			switch {
			case tc.report && (err != nil || !strings.Contains(report.Test("Basic").Reason, "could not be watched")):
				t.Errorf("Run: %v, report %+v; want Basic's reason to say the Services could not be watched", err, report.Test("Basic"))
			case !tc.report && (report != nil || err == nil || !strings.Contains(err.Error(), "no RBAC to watch")):
				t.Errorf("Run: %v, report %+v; want the watch's refusal alone", err, report.Test("Basic"))
			}
		})
	}
}

// TestForeignClass_P1_Unwatched: while the watch of the test's Services
// fails, the suite sees the foreign Service only at the relists between
// failures, ever further apart: a settling period that ends between two
// of them showed nothing, and ForeignClass does not pass on it.
func TestForeignClass_P1_Unwatched(t *testing.T) {
	client := fakeCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	write := func(svc *corev1.Service) {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
		svc.Status.Conditions = conditionsAt(time.Now().Truncate(time.Second), "LoadBalancerProvisioning=False/Complete", "LoadBalancerServing=True/Serving")
	}
	fakeProvider(ctx, t, client, func(svc *corev1.Service) bool {
		if svc.Name != "own" {
			return false
		}
		write(svc)
		return true
	})
	// The suite's watch fails; its lists go through. After the list that
	// shows own served, the provider writes on foreign too.
	client.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	var lists atomic.Int32
	services := corev1.SchemeGroupVersion.WithResource("services")
	client.PrependReactor("list", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if lists.Add(1) == 2 {
			ns := a.GetNamespace()
			time.AfterFunc(100*time.Millisecond, func() {
				obj, err := client.Tracker().Get(services, ns, "foreign")
				if err != nil || ctx.Err() != nil {
					return
				}
				svc := obj.(*corev1.Service).DeepCopy()
				write(svc)
				_ = client.Tracker().Update(services, svc, ns)
			})
		}
		return false, nil, nil
	})
	report, err := Run(ctx, client, Options{Run: []string{"ForeignClass"}, SettlePeriod: 300 * time.Millisecond, ConditionsTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Test("ForeignClass"); got.Result != TestFailed {
		t.Errorf("ForeignClass %s (%s), want failed: the settling period was not watched", got.Result, got.Reason)
	}
}

// createsUnanswered makes client's server create each namespace, named
// after its generateName with "unanswered", and answer the request with
// answer, as a server that made it but whose answer was lost.
func createsUnanswered(client *fake.Clientset, answer error) {
	client.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ns := a.(k8stesting.CreateAction).GetObject().(*corev1.Namespace).DeepCopy()
		ns.Name = ns.GenerateName + "unanswered"
		if err := client.Tracker().Create(corev1.SchemeGroupVersion.WithResource("namespaces"), ns, ""); err != nil {
			return true, nil, err
		}
		return true, nil, answer
	})
}
