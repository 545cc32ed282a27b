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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// lbService returns a valid single-port IPv4 LoadBalancer Service, changed
// by the given functions.
func lbService(mutate ...func(*v1.Service)) *v1.Service {
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 1},
		Spec: v1.ServiceSpec{ServiceSpec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeLoadBalancer,
			Ports:      []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
		}},
	}
	for _, m := range mutate {
		m(svc)
	}
	return svc
}

func TestSpecChanged_G3(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*v1.Service)
		want   []string // nil: no change
	}{
		{"type", func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }, []string{"spec.type"}},
		{"port number", func(s *v1.Service) { s.Spec.Ports[0].Port = 8080 }, []string{"spec.ports"}},
		{"port protocol", func(s *v1.Service) { s.Spec.Ports[0].Protocol = corev1.ProtocolUDP }, []string{"spec.ports"}},
		{"port nodePort", func(s *v1.Service) { s.Spec.Ports[0].NodePort = 31000 }, []string{"spec.ports"}},
		{"port added", func(s *v1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 443})
		}, []string{"spec.ports"}},
		{"loadBalancerIP", func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.1" }, []string{"spec.loadBalancerIP"}},
		{"loadBalancerSourceRanges", func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }, []string{"spec.loadBalancerSourceRanges"}},
		{"source ranges annotation", func(s *v1.Service) {
			s.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "10.0.0.0/8"}
		}, []string{"metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]"}},
		{"loadBalancerClass", func(s *v1.Service) { s.Spec.LoadBalancerClass = ptr.To("example.com/lb") }, []string{"spec.loadBalancerClass"}},
		{"externalTrafficPolicy", func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal }, []string{"spec.externalTrafficPolicy"}},
		{"healthCheckNodePort", func(s *v1.Service) { s.Spec.HealthCheckNodePort = 32000 }, []string{"spec.healthCheckNodePort"}},
		{"sessionAffinity", func(s *v1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }, []string{"spec.sessionAffinity"}},
		{"sessionAffinity and its config", func(s *v1.Service) {
			s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](60)}}
		}, []string{"spec.sessionAffinity"}},
		{"ipFamilies", func(s *v1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		}, []string{"spec.ipFamilies"}},
		{"ipFamilyPolicy", func(s *v1.Service) { s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack) }, []string{"spec.ipFamilyPolicy"}},
		{"allocateLoadBalancerNodePorts", func(s *v1.Service) { s.Spec.AllocateLoadBalancerNodePorts = ptr.To(false) }, []string{"spec.allocateLoadBalancerNodePorts"}},
		{"trafficDistribution", func(s *v1.Service) { s.Spec.TrafficDistribution = ptr.To("PreferClose") }, []string{"spec.trafficDistribution"}},
		{"requiredLoadBalancerFeatures", func(s *v1.Service) {
			s.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
		}, []string{"spec.requiredLoadBalancerFeatures"}},
		{"required features annotation", func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports"}
		}, []string{"spec.requiredLoadBalancerFeatures"}},
		{"invalid required features annotation", func(s *v1.Service) {
			s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: ","}
		}, []string{"spec.requiredLoadBalancerFeatures"}},

		// Not load-balancer-relevant, or equal to the default.
		{"labels", func(s *v1.Service) { s.Labels = map[string]string{"a": "b"} }, nil},
		{"selector", func(s *v1.Service) { s.Spec.Selector = map[string]string{"app": "x"} }, nil},
		{"port name and targetPort", func(s *v1.Service) {
			s.Spec.Ports[0].Name = "web"
			s.Spec.Ports[0].TargetPort.IntVal = 8080
		}, nil},
		{"empty protocol is TCP", func(s *v1.Service) { s.Spec.Ports[0].Protocol = "" }, nil},
		{"defaulted policies", func(s *v1.Service) {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
			s.Spec.SessionAffinity = corev1.ServiceAffinityNone
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
			s.Spec.AllocateLoadBalancerNodePorts = ptr.To(true)
			s.Spec.LoadBalancerClass = ptr.To("")
		}, nil},
		{"affinity config without ClientIP", func(s *v1.Service) {
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](60)}}
		}, nil},
		{"provider annotation not declared", func(s *v1.Service) { s.Annotations = map[string]string{"vendor/x": "1"} }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := lbService()
			updated := lbService(tc.mutate)
			if got := ChangedFields(old, updated); !slices.Equal(got, tc.want) {
				t.Errorf("ChangedFields = %q, want %q", got, tc.want)
			}
			if got := SpecChanged(old, updated); got != (tc.want != nil) {
				t.Errorf("SpecChanged = %v, want %v", got, tc.want != nil)
			}
			if SpecChanged(updated, updated.DeepCopy()) {
				t.Error("SpecChanged of a Service and its copy")
			}
		})
	}
}

func TestSpecChanged_G3_SessionAffinityTimeout(t *testing.T) {
	clientIP := func(timeout *int32) func(*v1.Service) {
		return func(s *v1.Service) {
			s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			if timeout != nil {
				s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: timeout}}
			}
		}
	}
	if got, want := ChangedFields(lbService(clientIP(nil)), lbService(clientIP(ptr.To[int32](60)))), []string{"spec.sessionAffinityConfig"}; !slices.Equal(got, want) {
		t.Errorf("timeout change: ChangedFields = %q, want %q", got, want)
	}
	if got := ChangedFields(lbService(clientIP(nil)), lbService(clientIP(ptr.To(corev1.DefaultClientIPServiceAffinitySeconds)))); got != nil {
		t.Errorf("unset timeout against the default: ChangedFields = %q, want none", got)
	}
}

func TestSpecChanged_G3_OrderInsensitiveSets(t *testing.T) {
	old := lbService(func(s *v1.Service) {
		s.Spec.Ports = []corev1.ServicePort{{Port: 80}, {Port: 53, Protocol: corev1.ProtocolUDP}}
		s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8", "192.0.2.0/24"}
		s.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureIPFamilies}
	})
	updated := lbService(func(s *v1.Service) {
		s.Spec.Ports = []corev1.ServicePort{{Port: 53, Protocol: corev1.ProtocolUDP}, {Port: 80}}
		s.Spec.LoadBalancerSourceRanges = []string{"192.0.2.0/24", "10.0.0.0/8"}
		// The same set, moved to the annotation fallback.
		s.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "IPFamilies, Ports"}
	})
	if got := ChangedFields(old, updated); got != nil {
		t.Errorf("reordered sets reported as changes: %q", got)
	}
}

// The source-ranges annotation is a set too, as Kubernetes reads it, and
// the field replaces it when set on both sides.
func TestSpecChanged_G3_SourceRangesAnnotation(t *testing.T) {
	key := corev1.AnnotationLoadBalancerSourceRangesKey
	annotated := func(value string, field ...string) *v1.Service {
		return lbService(func(s *v1.Service) {
			s.Annotations = map[string]string{key: value}
			s.Spec.LoadBalancerSourceRanges = field
		})
	}
	path := "metadata.annotations[" + key + "]"
	for _, tc := range []struct {
		name     string
		old, new *v1.Service
		want     []string
	}{
		{"reordered, with spaces", annotated("10.0.0.0/8,192.168.0.0/16"), annotated("192.168.0.0/16, 10.0.0.0/8"), nil},
		{"a range added", annotated("10.0.0.0/8"), annotated("10.0.0.0/8,192.168.0.0/16"), []string{path}},
		{"beside the field, which wins", annotated("", "10.0.0.0/8"), annotated("192.168.0.0/16", "10.0.0.0/8"), nil},
		// The field goes, and the annotation, changed, is what counts now.
		{"the field removed, the annotation changed", annotated("10.0.0.0/8", "10.0.0.0/8"), annotated("192.168.0.0/16"),
			[]string{"spec.loadBalancerSourceRanges", path}},
	} {
		if got := ChangedFields(tc.old, tc.new); !slices.Equal(got, tc.want) {
			t.Errorf("%s: changed %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSpecChanged_G3_DeclaredAnnotations(t *testing.T) {
	old := lbService()
	updated := lbService(func(s *v1.Service) { s.Annotations = map[string]string{"vendor.example/lb-sku": "premium"} })
	got := ChangedFields(old, updated, WithRelevantAnnotations("vendor.example/lb-sku"))
	if want := []string{"metadata.annotations[vendor.example/lb-sku]"}; !slices.Equal(got, want) {
		t.Errorf("ChangedFields = %q, want %q", got, want)
	}
	empty := lbService(func(s *v1.Service) { s.Annotations = map[string]string{"vendor.example/lb-sku": ""} })
	if ChangedFields(old, empty, WithRelevantAnnotations("vendor.example/lb-sku")) == nil {
		t.Error("an annotation added with an empty value is a change")
	}
}

func TestSpecChanged_Nil(t *testing.T) {
	if SpecChanged[*v1.Service](nil, nil) {
		t.Error("nil, nil reported a change")
	}
	if !SpecChanged(nil, lbService()) || !SpecChanged(lbService(), nil) {
		t.Error("nil against a Service must be a change")
	}
}
