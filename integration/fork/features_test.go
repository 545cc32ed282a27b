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
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	lbac "github.com/lbstatus/lbstatus/generated/applyconfiguration/core/v1"
	"github.com/lbstatus/lbstatus/integration/internal/rawservice"
	"github.com/lbstatus/lbstatus/integration/internal/watchcmd"
)

// TestFork_RequiredFeatures_Kept: the fork has spec.requiredLoadBalancerFeatures.
// A create that sets it, strict field validation included, stores it, and a
// reader of lbstatus's type sees the requirement from the field, not from
// the annotation. A stock kube-apiserver prunes it
// (TestStockCluster_RequiredFeaturesPrunedByDefault).
func TestFork_RequiredFeatures_Kept(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	for _, validation := range []string{"", metav1.FieldValidationStrict} {
		svc := rawservice.Requiring(ns, "kept-"+strings.ToLower(cmp.Or(validation, "default")), v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts)
		res := rawservice.Post(t, client, svc, validation)
		if err := res.Error(); err != nil {
			t.Fatalf("create with fieldValidation=%q: %v", validation, err)
		}
		if len(res.Warnings()) > 0 {
			t.Errorf("create with fieldValidation=%q: warnings %v, want none", validation, res.Warnings())
		}
		stored := rawservice.Get(t, client, ns, svc.Name)
		got, source, err := conditions.RequiredFeatures(stored)
		if err != nil || source != conditions.RequiredFeaturesSourceSpec ||
			!slices.Equal(got, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeaturePorts}) {
			t.Errorf("stored Service requires %v from %q (%v); want SessionAffinity and Ports from the field", got, source, err)
		}
		// An update that leaves the field as it is keeps it.
		stored.Labels = map[string]string{"touched": "yes"}
		if err := rawservice.Put(t, client, stored); err != nil {
			t.Fatalf("update of %s: %v", svc.Name, err)
		}
		if got := rawservice.Get(t, client, ns, svc.Name).Spec.RequiredLoadBalancerFeatures; len(got) != 2 {
			t.Errorf("after an update that kept it, requiredLoadBalancerFeatures is %v", got)
		}
	}
}

// TestFork_RequiredFeatures_R4Refused: lbstatus's spec validation runs in
// the fork's strategy: a create or an update that breaks R4 gets 422 with a
// cause at the field that names the rule, and nothing is stored.
func TestFork_RequiredFeatures_R4Refused(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	for _, c := range []struct {
		name  string
		svc   *v1.Service
		field string
	}{
		{"unknown", rawservice.Requiring(ns, "unknown", "Teleport"), "spec.requiredLoadBalancerFeatures[0]"},
		{"duplicate", rawservice.Requiring(ns, "duplicate", v1.LoadBalancerFeaturePorts, v1.LoadBalancerFeaturePorts), "spec.requiredLoadBalancerFeatures[1]"},
		{"clusterip", func() *v1.Service {
			svc := rawservice.Requiring(ns, "clusterip", v1.LoadBalancerFeaturePorts)
			svc.Spec.Type = corev1.ServiceTypeClusterIP
			return svc
		}(), "spec.requiredLoadBalancerFeatures"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assertRefused(t, rawservice.Post(t, client, c.svc, "").Error(), c.field, "R4")
			if _, err := client.CoreV1().Services(ns).Get(context.Background(), c.svc.Name, metav1.GetOptions{}); err == nil {
				t.Errorf("service %s stored after a refused create", c.svc.Name)
			}
		})
	}
	// A type change away from LoadBalancer clears the field when the write
	// leaves it as it was, as kube-apiserver clears loadBalancerClass; a
	// write that also changes the field is refused.
	t.Run("type-change", func(t *testing.T) {
		svc := rawservice.Requiring(ns, "type-change", v1.LoadBalancerFeaturePorts)
		if err := rawservice.Post(t, client, svc, "").Error(); err != nil {
			t.Fatal(err)
		}
		stored := rawservice.Get(t, client, ns, svc.Name)
		stored.Spec.Type = corev1.ServiceTypeClusterIP
		stored.Spec.SessionAffinity = corev1.ServiceAffinityNone
		changed := stored.DeepCopy()
		changed.Spec.RequiredLoadBalancerFeatures = append(changed.Spec.RequiredLoadBalancerFeatures, v1.LoadBalancerFeatureIPFamilies)
		assertRefused(t, rawservice.Put(t, client, changed), "spec.requiredLoadBalancerFeatures", "R4")
		if err := rawservice.Put(t, client, stored); err != nil {
			t.Fatalf("type change that leaves the field alone: %v", err)
		}
		got := rawservice.Get(t, client, ns, svc.Name)
		if got.Spec.Type != corev1.ServiceTypeClusterIP || got.Spec.RequiredLoadBalancerFeatures != nil {
			t.Errorf("after the type change: type %s, requiredLoadBalancerFeatures %v; want ClusterIP and none", got.Spec.Type, got.Spec.RequiredLoadBalancerFeatures)
		}
	})
}

// TestFork_RequiredFeatures_ServerSideApply: the fork's OpenAPI declares the
// field (a set), so lbstatus's apply configurations set it with
// server-side apply, where a stock server refuses the field as undeclared
// (TestStockCluster_StrictFieldValidationRejectsRequiredFeatures), and the
// applier owns it.
func TestFork_RequiredFeatures_ServerSideApply(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	apply := lbac.Service("applied", ns).WithSpec(lbac.ServiceSpec().
		WithType(corev1.ServiceTypeLoadBalancer).
		WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)).
		WithRequiredLoadBalancerFeatures(v1.LoadBalancerFeatureExternalTrafficPolicy))
	if _, err := rawservice.Apply(t, client, apply, metav1.FieldValidationStrict); err != nil {
		t.Fatalf("apply: %v", err)
	}
	stored := rawservice.Get(t, client, ns, "applied")
	if got := stored.Spec.RequiredLoadBalancerFeatures; !slices.Equal(got, []v1.LoadBalancerFeature{v1.LoadBalancerFeatureExternalTrafficPolicy}) {
		t.Errorf("stored requiredLoadBalancerFeatures %v, want [ExternalTrafficPolicy]", got)
	}
	owned := false
	for _, m := range stored.ManagedFields {
		if m.Manager == "lbstatus-integration" && m.Operation == metav1.ManagedFieldsOperationApply && m.FieldsV1 != nil &&
			strings.Contains(string(m.FieldsV1.Raw), `"f:requiredLoadBalancerFeatures"`) {
			owned = true
		}
	}
	if !owned {
		t.Errorf("managedFields %+v: the applier does not own spec.requiredLoadBalancerFeatures", stored.ManagedFields)
	}
}

// TestFork_RequiredFeatures_OpenAPIEnum: the fork's published schema lists
// the values the field takes, the features lbstatus knows, as lbstatus's
// own generated OpenAPI does: kubectl explain shows them.
func TestFork_RequiredFeatures_OpenAPIEnum(t *testing.T) {
	client := clientset(t, "lbstatus-fork-test")
	paths, err := client.Discovery().OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	gv, ok := paths["api/v1"]
	if !ok {
		t.Fatal("no OpenAPI v3 document for api/v1")
	}
	doc, err := gv.Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Items struct {
						Enum []string `json:"enum"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &schema); err != nil {
		t.Fatal(err)
	}
	got := schema.Components.Schemas["io.k8s.api.core.v1.ServiceSpec"].Properties["requiredLoadBalancerFeatures"].Items.Enum
	var want []string
	for _, f := range v1.LoadBalancerFeatures() {
		want = append(want, string(f))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ServiceSpec.requiredLoadBalancerFeatures items enum %v, want %v", got, want)
	}
}

// TestFork_RequiredFeatures_DescribeShows: lbstatus describe reads Services
// as lbstatus's own type, so on a server that has the field it shows where
// the requirement comes from.
func TestFork_RequiredFeatures_DescribeShows(t *testing.T) {
	ns := namespace(t)
	client := clientset(t, "lbstatus-fork-test")
	if err := rawservice.Post(t, client, rawservice.Requiring(ns, "described", v1.LoadBalancerFeatureSessionAffinity), "").Error(); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command(watchcmd.Build(t, "../.."), "describe", "--kubeconfig", kubeconfig, "-n", ns, "svc/described")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("lbstatus describe: %v\n%s", err, errOut.String())
	}
	if want := regexp.MustCompile(`(?m)^Required features: +SessionAffinity \(from spec\.requiredLoadBalancerFeatures\)$`); !want.MatchString(out.String()) {
		t.Errorf("describe output does not match %s:\n%s", want, out.String())
	}
}
