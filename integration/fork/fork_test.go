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
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/integration/internal/rawservice"
)

// at is the lastTransitionTime of the test conditions.
var at = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

func condition(typ v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason v1.LoadBalancerConditionReason) metav1.Condition {
	return metav1.Condition{Type: string(typ), Status: status, Reason: string(reason), Message: "test", LastTransitionTime: at}
}

var (
	provisioningTrue  = condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning)
	provisioningFalse = condition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete)
	servingFalse      = condition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning)
	servingTrue       = condition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing)
	degradedAffinity  = condition(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue, v1.LoadBalancerReasonSessionAffinityNotSupported)
)

// createService creates a one-port LoadBalancer Service, changed by mods.
func createService(t *testing.T, client kubernetes.Interface, ns, name string, mods ...func(*corev1.Service)) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	for _, mod := range mods {
		mod(svc)
	}
	created, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// writeStatus replaces the conditions of the Service with conds through
// the status subresource, with an address in the ingress when one of them
// is Serving=True (L4), as a provider writes them.
func writeStatus(t *testing.T, client kubernetes.Interface, ns, name string, conds ...metav1.Condition) error {
	t.Helper()
	var ingress []corev1.LoadBalancerIngress
	if slices.ContainsFunc(conds, func(c metav1.Condition) bool {
		return c.Type == string(v1.LoadBalancerConditionServing) && c.Status == metav1.ConditionTrue
	}) {
		ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	}
	return writeStatusIngress(t, client, ns, name, ingress, conds...)
}

// writeStatusIngress replaces the conditions and the ingress of the
// Service through the status subresource.
func writeStatusIngress(t *testing.T, client kubernetes.Interface, ns, name string, ingress []corev1.LoadBalancerIngress, conds ...metav1.Condition) error {
	t.Helper()
	svc, err := client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.Conditions = conds
	svc.Status.LoadBalancer.Ingress = ingress
	_, err = client.CoreV1().Services(ns).UpdateStatus(context.Background(), svc, metav1.UpdateOptions{})
	return err
}

// assertRefused checks err is a 422 with a cause at field whose message
// names rule.
func assertRefused(t *testing.T, err error, field, rule string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the write was accepted; want 422 at %s for rule %s", field, rule)
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity {
		t.Fatalf("error %v; want 422", err)
	}
	details := status.Status().Details
	if details != nil {
		for _, c := range details.Causes {
			if c.Field == field && strings.Contains(c.Message, "KEP-4631 rule "+rule) {
				return
			}
		}
	}
	t.Errorf("422 %v has no cause at %s naming rule %s", err, field, rule)
}

func TestFork_C1_UnknownServingRefused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "c1")
	unknown := servingFalse
	unknown.Status = metav1.ConditionUnknown
	assertRefused(t, writeStatus(t, client, ns, "c1", provisioningTrue, unknown), "status.conditions[1].status", "C1")
}

func TestFork_C3_ReasonOfTheOtherStatusRefused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "c3")
	wrong := servingTrue
	wrong.Status = metav1.ConditionFalse
	assertRefused(t, writeStatus(t, client, ns, "c3", provisioningFalse, wrong), "status.conditions[1].reason", "C3")
}

func TestFork_L5_ProvisioningReasonWithoutProvisioningRefused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "l5")
	assertRefused(t, writeStatus(t, client, ns, "l5", provisioningFalse, servingFalse), "status.conditions[0].status", "L5")
}

// TestFork_L5_NotJudgedOnAnotherType: on a Service that is no longer a
// LoadBalancer the conditions are L9's to remove (a warning), so the write
// L5 refuses above passes there, and the same pair with Unknown is still
// C1's to refuse.
func TestFork_L5_NotJudgedOnAnotherType(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "l5-clusterip", func(svc *corev1.Service) { svc.Spec.Type = corev1.ServiceTypeClusterIP })
	if err := writeStatus(t, client, ns, "l5-clusterip", provisioningFalse, servingFalse); err != nil {
		t.Fatalf("write on a ClusterIP Service: %v, want accepted", err)
	}
	unknown := servingFalse
	unknown.Status = metav1.ConditionUnknown
	assertRefused(t, writeStatus(t, client, ns, "l5-clusterip", provisioningFalse, unknown), "status.conditions[1].status", "C1")
}

func TestFork_P5_DegradationNotAskedForRefused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "p5")
	assertRefused(t, writeStatus(t, client, ns, "p5", provisioningFalse, servingTrue, degradedAffinity), "status.conditions[2].reason", "P5")
}

func TestFork_L4_ServingWithoutAddressRefused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "l4")
	assertRefused(t, writeStatusIngress(t, client, ns, "l4", nil, provisioningFalse, servingTrue), "status.conditions[1].status", "L4")
	noAddress := []corev1.LoadBalancerIngress{{Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
	assertRefused(t, writeStatusIngress(t, client, ns, "l4", noAddress, provisioningFalse, servingTrue), "status.conditions[1].status", "L4")
	if err := writeStatus(t, client, ns, "l4", provisioningFalse, servingTrue); err != nil {
		t.Fatalf("Serving=True with an address: %v", err)
	}
	// The address removed under an unchanged Serving=True.
	assertRefused(t, writeStatusIngress(t, client, ns, "l4", nil, provisioningFalse, servingTrue), "status.conditions[1].status", "L4")
}

// TestFork_P6_DegradedInRequiredFeatureRefused: the fork has
// spec.requiredLoadBalancerFeatures, so P6 judges what the field requires,
// which admission policies on a stock server cannot see.
func TestFork_P6_DegradedInRequiredFeatureRefused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	if err := rawservice.Post(t, client, rawservice.Requiring(ns, "p6", v1.LoadBalancerFeatureSessionAffinity), "").Error(); err != nil {
		t.Fatal(err)
	}
	assertRefused(t, writeStatus(t, client, ns, "p6", provisioningFalse, degradedAffinity, servingTrue), "status.conditions[1].reason", "P6")
	// The refusal the Service is owed instead passes.
	refused := condition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonUnsupported)
	if err := writeStatus(t, client, ns, "p6", provisioningFalse, refused); err != nil {
		t.Errorf("the refusal: %v", err)
	}
}

// TestFork_ValidStatusWritesAccepted: the writes a provider makes (L1, L2)
// pass, so the refusals above are the rules', not the strategy's.
func TestFork_ValidStatusWritesAccepted(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "valid", func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP })
	for _, conds := range [][]metav1.Condition{
		{provisioningTrue, servingFalse},
		{provisioningFalse, servingTrue},
		{provisioningFalse, servingTrue, degradedAffinity},
	} {
		if err := writeStatus(t, client, ns, "valid", conds...); err != nil {
			t.Errorf("write of %v: %v", conds, err)
		}
	}
}

// TestFork_P5_UnchangedInvalidConditionRatchets: a Degraded condition that
// was valid when written breaks P5 once the spec stops asking for the
// feature. A status write that leaves it as it is passes; one that changes
// it is judged.
func TestFork_P5_UnchangedInvalidConditionRatchets(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	createService(t, client, ns, "ratchet", func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP })
	if err := writeStatus(t, client, ns, "ratchet", provisioningFalse, servingTrue, degradedAffinity); err != nil {
		t.Fatal(err)
	}
	svc, err := client.CoreV1().Services(ns).Get(context.Background(), "ratchet", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.SessionAffinity = corev1.ServiceAffinityNone
	svc.Spec.SessionAffinityConfig = nil
	if _, err := client.CoreV1().Services(ns).Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	moved := provisioningFalse
	moved.LastTransitionTime = metav1.NewTime(at.Add(time.Minute))
	if err := writeStatus(t, client, ns, "ratchet", moved, servingTrue, degradedAffinity); err != nil {
		t.Errorf("a write that leaves the now invalid Degraded condition unchanged: %v", err)
	}
	changed := degradedAffinity
	changed.Message = "still"
	assertRefused(t, writeStatus(t, client, ns, "ratchet", moved, servingTrue, changed), "status.conditions[2].reason", "P5")
}
