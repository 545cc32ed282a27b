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

package v1_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
)

// TestRegisterValidations_R4_Subresources: an apiserver that runs the
// scheme's declarative validation for every write of a Service calls it
// for the main resource and for the status and proxy subresources, as
// k8s.io/api core/v1 Service declares them. Each must be validated, not
// answered with an internal error; a status write leaves the spec as it
// was, so a stored field is not judged again.
func TestRegisterValidations_R4_Subresources(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	opts := map[string]bool{string(features.LoadBalancerStatusImprovements): true}
	old := &v1.Service{}
	old.Spec.Type = corev1.ServiceTypeLoadBalancer
	old.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	svc := old.DeepCopy()
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	for _, sub := range [][]string{nil, {"status"}, {"proxy"}} {
		if errs := scheme.ValidateUpdate(context.Background(), opts, svc, old, sub...); len(errs) != 0 {
			t.Errorf("subresource %v: %v", sub, errs)
		}
	}
	// The main resource still judges the field.
	bad := old.DeepCopy()
	bad.Spec.RequiredLoadBalancerFeatures = append(bad.Spec.RequiredLoadBalancerFeatures, "Foo")
	if errs := scheme.ValidateUpdate(context.Background(), opts, bad, old); len(errs) != 1 || errs[0].Field != "spec.requiredLoadBalancerFeatures[1]" {
		t.Errorf("unknown feature: %v, want one error at spec.requiredLoadBalancerFeatures[1]", errs)
	}
}

// TestRegisterValidations_R5: with the gate off, the scheme's rule refuses
// spec.requiredLoadBalancerFeatures newly set on an update, and lets a
// Service that already has the field keep and change it, the field the
// drop-disabled-fields pattern keeps. A create is not refused: R5 has the
// apiserver drop the field before validating one (the package doc of
// validation says so).
func TestRegisterValidations_R5(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	off := map[string]bool{string(features.LoadBalancerStatusImprovements): false}
	service := func(fs ...v1.LoadBalancerFeature) *v1.Service {
		svc := &v1.Service{}
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		svc.Spec.RequiredLoadBalancerFeatures = fs
		return svc
	}
	ports, affinity := v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeatureSessionAffinity
	for name, tc := range map[string]struct {
		old, svc *v1.Service
		refused  bool
	}{
		"kept":                {service(ports), service(ports), false},
		"changed":             {service(ports), service(ports, affinity), false},
		"replaced":            {service(ports), service(affinity), false},
		"cleared":             {service(ports), service(), false},
		"newly set":           {service(), service(ports), true},
		"create, not refused": {nil, service(ports), false},
	} {
		errs := scheme.Validate(context.Background(), off, tc.svc)
		if tc.old != nil {
			errs = scheme.ValidateUpdate(context.Background(), off, tc.svc, tc.old)
		}
		if refused := len(errs) > 0; refused != tc.refused {
			t.Errorf("%s: errors %v, want refused %v", name, errs, tc.refused)
		}
	}
}
