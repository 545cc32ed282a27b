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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// TestProvider_R1_SpecFieldThroughREST: through a clientset on a server
// that serves spec.requiredLoadBalancerFeatures (a kube-apiserver with
// KEP-4631), the provider reads the field, and refuses a Service that
// requires a feature it cannot provide (R1) instead of serving it degraded,
// as client-go's typed Service, which has no field, would have it do. The
// annotation says nothing here.
func TestProvider_R1_SpecFieldThroughREST(t *testing.T) {
	const service = `{"kind": "Service", "apiVersion": "v1",
		"metadata": {"name": "web", "namespace": "ns", "uid": "u1", "resourceVersion": "5"},
		"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP", "ipFamilies": ["IPv4"],
			"ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}],
			"requiredLoadBalancerFeatures": ["SessionAffinity"]}}`
	applied := make(chan []byte, 10)
	var unexpected sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/ns/services" && r.URL.Query().Get("watch") != "true":
			fmt.Fprint(w, `{"kind": "ServiceList", "apiVersion": "v1", "metadata": {"resourceVersion": "5"}, "items": [`+service+`]}`)
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/ns/services":
			// A watch; a watch-list stream starts with what there is,
			// and a bookmark that says so.
			if r.URL.Query().Get("sendInitialEvents") == "true" {
				fmt.Fprint(w, `{"type": "ADDED", "object": `+service+"}\n")
				fmt.Fprint(w, `{"type": "BOOKMARK", "object": {"kind": "Service", "apiVersion": "v1", "metadata": {"resourceVersion": "5", "annotations": {"k8s.io/initial-events-end": "true"}}}}`+"\n")
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case r.Method == http.MethodPatch && r.URL.Path == "/api/v1/namespaces/ns/services/web/status":
			body, _ := io.ReadAll(r.Body)
			applied <- body
			fmt.Fprint(w, service)
		default:
			unexpected.Store(r.Method+" "+r.URL.String(), true)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close) // after the provider has stopped: its watch holds a request
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	run(t, New(client, Options{Namespace: "ns", Capabilities: ipv4TCP()}))

	var body []byte
	select {
	case body = <-applied:
	case <-time.After(20 * time.Second):
		t.Fatal("no status write in 20 s")
	}
	var apply struct {
		Status struct {
			Conditions []metav1.Condition `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(body, &apply); err != nil {
		t.Fatalf("the status write %s: %v", body, err)
	}
	serving := conditions.Get(apply.Status.Conditions, v1.LoadBalancerConditionServing)
	if serving == nil || serving.Status != metav1.ConditionFalse || serving.Reason != string(v1.LoadBalancerReasonUnsupported) {
		t.Errorf("Serving %+v, want False/Unsupported: SessionAffinity is required in the spec field; the write:\n%s", serving, body)
	}
	unexpected.Range(func(k, _ any) bool {
		t.Errorf("unexpected request %s", k)
		return true
	})
}

// TestProvider_AcceptUnknownFeaturesBug: the bug reads past unknown
// required features wherever the Service names them, the spec field and
// the annotation, so that the provider serves the Service and breaks R2;
// the Service in the informer's cache stays as it was.
func TestProvider_AcceptUnknownFeaturesBug(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1.RequiredFeaturesAnnotation: "Teleport, Ports"}}}
	svc.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{"Teleport", v1.LoadBalancerFeatureSessionAffinity}
	original := svc.DeepCopy()
	if got := New(nil, Options{}).withoutUnknownRequired(svc); got != svc {
		t.Errorf("without the bug, the Service changed: %+v", got)
	}
	got := New(nil, Options{Bugs: Bugs{AcceptUnknownFeatures: true}}).withoutUnknownRequired(svc)
	if want := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}; !slices.Equal(got.Spec.RequiredLoadBalancerFeatures, want) {
		t.Errorf("spec field %v, want %v", got.Spec.RequiredLoadBalancerFeatures, want)
	}
	if a := got.Annotations[v1.RequiredFeaturesAnnotation]; a != "Ports" {
		t.Errorf("annotation %q, want Ports", a)
	}
	if !apiequality.Semantic.DeepEqual(svc, original) {
		t.Errorf("the Service read was changed: %+v", svc)
	}
	svc.Annotations = nil
	if got := New(nil, Options{Bugs: Bugs{AcceptUnknownFeatures: true}}).withoutUnknownRequired(svc); len(got.Spec.RequiredLoadBalancerFeatures) != 1 {
		t.Errorf("with the field alone: %v, want SessionAffinity", got.Spec.RequiredLoadBalancerFeatures)
	}
}
