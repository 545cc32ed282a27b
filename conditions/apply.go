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

package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// StatusApply returns the server-side apply configuration of the part of
// svc's status this package owns, as Transition.Apply does: the KEP-4631
// conditions, in status order, and the ingress, with svc's resourceVersion
// as a precondition. It is for a provider that changes the conditions
// itself with Set, Bump and Remove rather than through Reconcile, and
// applies the result with ApplyStatus and its own field manager. A nil svc
// gives nil.
func StatusApply[S Object](svc S) *corev1ac.ServiceApplyConfiguration {
	v := view(svc)
	if v == nil {
		return nil
	}
	return applyConfiguration(v, v.Status)
}

// applyConfiguration returns the server-side-apply configuration of the
// part of status this package owns: the KEP-4631 conditions, in status
// order, and the ingress. Everything else is left to its own managers.
//
// It carries svc's resourceVersion, a precondition of the apply: the
// lastTransitionTimes were stamped from svc's status, and applied over a
// newer one (svc read from an informer's cache that has not yet seen the
// provider's previous write, say) they could move a time backwards (C7)
// or keep it across a change of status (C6). The apiserver refuses such a
// write with a conflict, and the provider reads the Service again.
func applyConfiguration(svc *v1.Service, status v1.ServiceStatus) *corev1ac.ServiceApplyConfiguration {
	st := corev1ac.ServiceStatus()
	for i := range status.Conditions {
		if c := status.Conditions[i]; isKEPType(c.Type) {
			st.WithConditions(conditionApply(c))
		}
	}
	if len(status.LoadBalancer.Ingress) > 0 {
		lb := corev1ac.LoadBalancerStatus()
		for _, in := range status.LoadBalancer.Ingress {
			ing := corev1ac.LoadBalancerIngress()
			if in.IP != "" {
				ing.WithIP(in.IP)
			}
			if in.Hostname != "" {
				ing.WithHostname(in.Hostname)
			}
			if in.IPMode != nil {
				ing.WithIPMode(*in.IPMode)
			}
			for _, p := range in.Ports {
				ps := corev1ac.PortStatus().WithPort(p.Port).WithProtocol(p.Protocol)
				if p.Error != nil {
					ps.WithError(*p.Error)
				}
				ing.WithPorts(ps)
			}
			lb.WithIngress(ing)
		}
		st.WithLoadBalancer(lb)
	}
	ac := corev1ac.Service(svc.Name, svc.Namespace).WithStatus(st)
	if svc.ResourceVersion != "" {
		ac.WithResourceVersion(svc.ResourceVersion)
	}
	return ac
}

func conditionApply(c metav1.Condition) *metav1ac.ConditionApplyConfiguration {
	return metav1ac.Condition().
		WithType(c.Type).
		WithStatus(c.Status).
		WithReason(c.Reason).
		WithMessage(c.Message).
		WithLastTransitionTime(c.LastTransitionTime).
		WithObservedGeneration(c.ObservedGeneration)
}
