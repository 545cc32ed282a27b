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

// Package conformancetest generates realistic Service traces for tests and
// benchmarks of the conformance checker: Services of type LoadBalancer that
// a KEP-4631 provider takes through their lifecycle (seen, provisioning,
// serving, spec changes acknowledged with lastTransitionTime bumps), as a
// watch would show them. Every generated trace conforms to the
// specification; tests break it on purpose where they need a violation.
//
// Generation is deterministic: the same options give the same bytes.
package conformancetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Epoch is the creation time of the first generated Service.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Step returns observation step (0-based) of the lifecycle of Service i, a
// new object each call:
//
//   - 0: created, no status yet;
//   - 1: the provider has seen it: Provisioning=True, Serving=False
//     (reason Provisioning);
//   - 2: provisioned: Provisioning=False, Serving=True and an ingress IP;
//     one Service in ten also asks for ClientIP session affinity and is
//     Degraded in it;
//
// and then, repeating every four steps:
//
//   - a load-balancer-relevant spec change (a port added or removed);
//   - the provider acknowledges it: Provisioning=True, bumped, while
//     Serving stays True (L7);
//   - the provider is done: Provisioning=False, bumped again;
//   - a change of a label, which is not load-balancer-relevant.
//
// A negative step counts as 0.
func Step(i, step int) *v1.Service {
	if step < 0 {
		step = 0
	}
	created := Epoch.Add(time.Duration(i) * time.Second)
	at := func(s int) metav1.Time { return metav1.NewTime(created.Add(time.Duration(s) * time.Second)) }
	name := "svc-" + strconv.Itoa(i)
	svc := &v1.Service{
		TypeMeta: metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         "ns-" + strconv.Itoa(i%50),
			UID:               types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			ResourceVersion:   strconv.Itoa(1000 + i*1000 + step),
			CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				"app.kubernetes.io/name":    name,
				"app.kubernetes.io/part-of": "bench",
			},
			Annotations: map[string]string{
				"example.com/owner": "team-" + strconv.Itoa(i%7),
			},
		},
	}
	spec := &svc.Spec.ServiceSpec
	spec.Type = corev1.ServiceTypeLoadBalancer
	spec.Selector = map[string]string{"app.kubernetes.io/name": name}
	spec.ClusterIP = fmt.Sprintf("10.96.%d.%d", (i/250)%250, i%250+1)
	spec.ClusterIPs = []string{spec.ClusterIP}
	spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
	spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	spec.AllocateLoadBalancerNodePorts = ptr.To(true)
	spec.SessionAffinity = corev1.ServiceAffinityNone
	degraded := i%10 == 3
	if degraded {
		spec.SessionAffinity = corev1.ServiceAffinityClientIP
		spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](10800)}}
	}
	spec.Ports = []corev1.ServicePort{
		{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: int32(30000 + i%2000)},
	}

	// The spec changes of the repeating part: every other one adds a port.
	cycle, phase := 0, 0
	if step >= 3 {
		cycle, phase = (step-3)/4, (step-3)%4
	}
	changes := cycle
	if step >= 3 {
		changes++ // this cycle's change happened at its phase 0
	}
	if changes%2 == 1 {
		spec.Ports = append(spec.Ports, corev1.ServicePort{
			Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(8443), NodePort: int32(32000 + i%700),
		})
	}
	if step >= 6 {
		svc.Labels["example.com/revision"] = strconv.Itoa((step - 3) / 4)
	}
	if step == 0 {
		return svc
	}

	// Status.
	seen := at(1)
	cond := func(t v1.LoadBalancerConditionType, s metav1.ConditionStatus, r v1.LoadBalancerConditionReason, msg string, ltt metav1.Time) metav1.Condition {
		return metav1.Condition{Type: string(t), Status: s, Reason: string(r), Message: msg, LastTransitionTime: ltt}
	}
	if step == 1 {
		svc.Status.Conditions = []metav1.Condition{
			cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning, "creating the load balancer", seen),
			cond(v1.LoadBalancerConditionServing, metav1.ConditionFalse, v1.LoadBalancerReasonProvisioning, "the load balancer is being created", seen),
		}
		return svc
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{
		IP:     fmt.Sprintf("203.0.%d.%d", (i/250)%250, i%250+1),
		IPMode: ptr.To(corev1.LoadBalancerIPModeVIP),
	}}
	serving := cond(v1.LoadBalancerConditionServing, metav1.ConditionTrue, v1.LoadBalancerReasonServing, "", at(2))
	provisioning := cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, v1.LoadBalancerReasonComplete, "", at(2))
	if step >= 3 {
		// Each cycle starts at step 3+4c: the change (no status write),
		// then the acknowledgement at 4+4c and completion at 5+4c.
		base := 3 + 4*cycle
		switch {
		case phase == 0:
			if cycle > 0 {
				provisioning.LastTransitionTime = at(base - 2)
			}
		case phase == 1:
			provisioning = cond(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, v1.LoadBalancerReasonProvisioning,
				"updating the load balancer", at(base+1))
		default:
			provisioning.LastTransitionTime = at(base + 2)
		}
	}
	svc.Status.Conditions = []metav1.Condition{provisioning, serving}
	if degraded {
		svc.Status.Conditions = append(svc.Status.Conditions, cond(v1.LoadBalancerConditionDegraded, metav1.ConditionTrue,
			v1.LoadBalancerReasonSessionAffinityNotSupported, "session affinity is not implemented", at(2)))
	}
	return svc
}

// StreamOptions describes a generated stream.
type StreamOptions struct {
	// Services is the number of distinct Services; at least 1.
	Services int
	// Observations is the number of objects written; each Service is
	// observed in turn, round by round, so that every Service's trace
	// advances one step per round.
	Observations int
	// Compact writes one object per line instead of kubectl's indented
	// form.
	Compact bool
}

// WriteStream writes a stream of concatenated JSON Services to w, as
// `kubectl get services --watch -o json` prints them: Observations objects
// of Services Services, round after round, each round visiting the Services
// in a scrambled but fixed order.
func WriteStream(w io.Writer, opts StreamOptions) error {
	n := max(opts.Services, 1)
	bw := bufio.NewWriterSize(w, 1<<20)
	stride := coprimeStride(n)
	written := 0
	for round := 0; written < opts.Observations; round++ {
		for k := 0; k < n && written < opts.Observations; k++ {
			i := (k * stride) % n
			var (
				b   []byte
				err error
			)
			if opts.Compact {
				b, err = json.Marshal(Step(i, round))
			} else {
				b, err = json.MarshalIndent(Step(i, round), "", "    ")
			}
			if err != nil {
				return err
			}
			if _, err := bw.Write(b); err != nil {
				return err
			}
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
			written++
		}
	}
	return bw.Flush()
}

// coprimeStride returns a stride near n/φ that is coprime with n, so that
// (k*stride) mod n visits every index once.
func coprimeStride(n int) int {
	s := max(int(float64(n)*0.618), 1)
	for gcd(s, n) != 1 {
		s++
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
