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

package input

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// The reader decodes what the checker reads, not whole Services: the
// metadata that names an observation and carries annotations (required
// features, provider annotations), the load-balancer-relevant spec fields
// of G3 and the required features, and the whole status. Labels, the
// selector, cluster IPs and the rest are skipped: still read by the
// tokenizer (a duplicate name there is still an error), never
// materialised. Measured on a watch stream this decodes in two thirds of
// the time of a whole core/v1 Service; a differential fuzz target holds
// the fields it keeps to what encoding/json decodes.

// metaWire is the part of metadata the checker reads.
type metaWire struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace"`
	UID             types.UID         `json:"uid"`
	ResourceVersion string            `json:"resourceVersion"`
	Generation      int64             `json:"generation"`
	Annotations     map[string]string `json:"annotations"`
}

// specWire is the part of spec the checker reads.
type specWire struct {
	Type                          corev1.ServiceType                  `json:"type"`
	Ports                         []portWire                          `json:"ports"`
	LoadBalancerIP                string                              `json:"loadBalancerIP"`
	LoadBalancerSourceRanges      []string                            `json:"loadBalancerSourceRanges"`
	LoadBalancerClass             *string                             `json:"loadBalancerClass"`
	ExternalTrafficPolicy         corev1.ServiceExternalTrafficPolicy `json:"externalTrafficPolicy"`
	HealthCheckNodePort           int32                               `json:"healthCheckNodePort"`
	SessionAffinity               corev1.ServiceAffinity              `json:"sessionAffinity"`
	SessionAffinityConfig         *corev1.SessionAffinityConfig       `json:"sessionAffinityConfig"`
	IPFamilies                    []corev1.IPFamily                   `json:"ipFamilies"`
	IPFamilyPolicy                *corev1.IPFamilyPolicy              `json:"ipFamilyPolicy"`
	AllocateLoadBalancerNodePorts *bool                               `json:"allocateLoadBalancerNodePorts"`
	TrafficDistribution           *string                             `json:"trafficDistribution"`
	RequiredLoadBalancerFeatures  []v1.LoadBalancerFeature            `json:"requiredLoadBalancerFeatures"`
}

// portWire is a port without its targetPort, which no rule reads and
// whose IntOrString would go through encoding/json.
type portWire struct {
	Name        string          `json:"name"`
	Protocol    corev1.Protocol `json:"protocol"`
	AppProtocol *string         `json:"appProtocol"`
	Port        int32           `json:"port"`
	NodePort    int32           `json:"nodePort"`
}

// statusWire is the status, whole.
type statusWire struct {
	LoadBalancer corev1.LoadBalancerStatus `json:"loadBalancer"`
	Conditions   []conditionWire           `json:"conditions"`
}

// conditionWire is a metav1.Condition whose time is parsed directly.
type conditionWire struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	ObservedGeneration int64                  `json:"observedGeneration"`
	LastTransitionTime wireTime               `json:"lastTransitionTime"`
	Reason             string                 `json:"reason"`
	Message            string                 `json:"message"`
}

// wireTime is a metav1.Time decoded as its UnmarshalJSON does (RFC 3339,
// null is the zero time, the result in local time), without a trip
// through encoding/json for every timestamp.
type wireTime metav1.Time

// UnmarshalJSONFrom decodes the time.
func (t *wireTime) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		*t = wireTime{}
		return nil
	case '"':
		pt, err := time.Parse(time.RFC3339, tok.String())
		if err != nil {
			return err
		}
		*t = wireTime(metav1.NewTime(pt.Local()))
		return nil
	}
	return fmt.Errorf("a JSON %s where a time (RFC 3339) is expected", tok.Kind())
}

// service builds the Service the checker is given.
func (w *wire) service() *v1.Service {
	m, s := &w.Metadata, &w.Spec
	var ports []corev1.ServicePort
	if s.Ports != nil {
		ports = make([]corev1.ServicePort, len(s.Ports))
		for i, p := range s.Ports {
			ports[i] = corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, AppProtocol: p.AppProtocol, Port: p.Port, NodePort: p.NodePort}
		}
	}
	var conds []metav1.Condition
	if w.Status.Conditions != nil {
		conds = make([]metav1.Condition, len(w.Status.Conditions))
		for i, c := range w.Status.Conditions {
			conds[i] = metav1.Condition{Type: c.Type, Status: c.Status, ObservedGeneration: c.ObservedGeneration,
				LastTransitionTime: metav1.Time(c.LastTransitionTime), Reason: c.Reason, Message: c.Message}
		}
	}
	return &v1.Service{
		TypeMeta: metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
			Generation: m.Generation, Annotations: m.Annotations,
		},
		Spec: v1.ServiceSpec{
			ServiceSpec: corev1.ServiceSpec{
				Type: s.Type, Ports: ports, LoadBalancerIP: s.LoadBalancerIP,
				LoadBalancerSourceRanges: s.LoadBalancerSourceRanges, LoadBalancerClass: s.LoadBalancerClass,
				ExternalTrafficPolicy: s.ExternalTrafficPolicy, HealthCheckNodePort: s.HealthCheckNodePort,
				SessionAffinity: s.SessionAffinity, SessionAffinityConfig: s.SessionAffinityConfig,
				IPFamilies: s.IPFamilies, IPFamilyPolicy: s.IPFamilyPolicy,
				AllocateLoadBalancerNodePorts: s.AllocateLoadBalancerNodePorts, TrafficDistribution: s.TrafficDistribution,
			},
			RequiredLoadBalancerFeatures: s.RequiredLoadBalancerFeatures,
		},
		Status: v1.ServiceStatus{LoadBalancer: w.Status.LoadBalancer, Conditions: conds},
	}
}

// unmarshalOptions decode as kube-apiserver does: names are matched
// case-sensitively and unknown members are ignored. Duplicate names and
// invalid UTF-8 are errors, json's defaults.
var unmarshalOptions = json.JoinOptions(
	json.MatchCaseInsensitiveNames(false),
	json.RejectUnknownMembers(false),
)
