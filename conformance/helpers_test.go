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

package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// t0 is the time the test Services' conditions start from.
var t0 = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 plus s seconds, as a condition time.
func at(s int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(s) * time.Second)) }

func cond(t v1.LoadBalancerConditionType, s metav1.ConditionStatus, r v1.LoadBalancerConditionReason, ltt metav1.Time) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, Reason: string(r), LastTransitionTime: ltt}
}

// newLB returns a LoadBalancer Service with no status: just created.
func newLB(name string) *v1.Service {
	svc := &v1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "test", UID: types.UID("uid-" + name), ResourceVersion: "1"},
	}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}
	return svc
}

// ready returns a LoadBalancer Service that is provisioned and serving,
// conditions written at second s: a conformant snapshot.
func ready(name string, s int) *v1.Service {
	svc := newLB(name)
	setReady(svc, s)
	return svc
}

// setReady makes svc provisioned and serving, as written at second s.
func setReady(svc *v1.Service, s int) {
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, at(s)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, at(s)),
	}
}

// setProvisioning makes svc provisioning, as written at second s.
func setProvisioning(svc *v1.Service, s int) {
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, at(s)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, at(s)),
	}
}

// setRefused makes svc refused as unsupported (R1, R2), as written at
// second s: no ingress.
func setRefused(svc *v1.Service, s int) {
	svc.Status.LoadBalancer.Ingress = nil
	svc.Status.Conditions = []metav1.Condition{
		cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, at(s)),
		cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported, at(s)),
	}
}

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// getCond returns the condition of type t of svc; it fails the test when
// there is none.
func getCond(t tb, svc *v1.Service, ct v1.LoadBalancerConditionType) *metav1.Condition {
	t.Helper()
	for i := range svc.Status.Conditions {
		if svc.Status.Conditions[i].Type == string(ct) {
			return &svc.Status.Conditions[i]
		}
	}
	t.Fatalf("no %s condition", ct)
	return nil
}

// next returns a copy of svc with the resourceVersion increased: the next
// observation, to be modified.
func next(svc *v1.Service) *v1.Service {
	n := svc.DeepCopy()
	var rv int
	fmt.Sscan(n.ResourceVersion, &rv)
	n.ResourceVersion = fmt.Sprint(rv + 1)
	return n
}

// toClusterIP makes svc a ClusterIP Service, as a user's write does: the
// type changes, and its port gives up the node port it had as a
// LoadBalancer. Its status is left as it was.
func toClusterIP(svc *v1.Service) {
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	svc.Spec.Ports[0].NodePort = 0
}

// observed feeds a trace to a new Checker and returns the findings of its
// observations, without what the end of the trace owes (Finish's).
func observed(trace ...*v1.Service) []Finding {
	c := NewChecker()
	var out []Finding
	for _, svc := range trace {
		out = append(out, c.Observe(svc)...)
	}
	return out
}

// observeAll feeds a trace to a new Checker and returns all findings,
// Finish's included.
func observeAll(opts []Option, trace ...*v1.Service) []Finding {
	c := NewChecker(opts...)
	var out []Finding
	for _, svc := range trace {
		out = append(out, c.Observe(svc)...)
	}
	return append(out, c.Finish()...)
}

// check is observeAll without options.
func check(trace ...*v1.Service) []Finding { return observeAll(nil, trace...) }

// withRule returns the findings of a rule.
func withRule(found []Finding, rule RuleID) []Finding {
	var out []Finding
	for _, f := range found {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// wantFinding fails unless found has exactly one finding of rule, with the
// given severity and field (field "" matches any).
func wantFinding(t *testing.T, found []Finding, rule RuleID, sev Severity, field string) Finding {
	t.Helper()
	got := withRule(found, rule)
	if len(got) != 1 {
		t.Fatalf("want one %s finding, got %d:\n%s", rule, len(got), dump(found))
	}
	f := got[0]
	if f.Severity != sev {
		t.Errorf("%s: severity %s, want %s", rule, f.Severity, sev)
	}
	if field != "" && f.Field != field {
		t.Errorf("%s: field %q, want %q", rule, f.Field, field)
	}
	if f.Message == "" || strings.Contains(f.Message, "\n") {
		t.Errorf("%s: message %q is not one sentence on one line", rule, f.Message)
	}
	if f.Object.Name == "" {
		t.Errorf("%s: finding names no object", rule)
	}
	return f
}

// noFinding fails if found has a finding of rule.
func noFinding(t *testing.T, found []Finding, rule RuleID) {
	t.Helper()
	if got := withRule(found, rule); len(got) > 0 {
		t.Fatalf("want no %s finding, got:\n%s", rule, dump(got))
	}
}

// noViolations fails if found has a violation or a warning.
func noViolations(t *testing.T, found []Finding) {
	t.Helper()
	for _, f := range found {
		if f.Severity != SeverityNotice {
			t.Fatalf("want no violation or warning, got:\n%s", dump(found))
		}
	}
}

func dump(found []Finding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "  %s %s %s %s: %s\n", f.Severity, f.Rule, f.Object, f.Field, f.Message)
	}
	return b.String()
}
