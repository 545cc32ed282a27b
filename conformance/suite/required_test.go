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
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// createdService is what a Service create sent: its query and body.
type createdService struct {
	dryRun, fieldValidation string
	field                   []string
	required                string // the required-features annotation
}

// TestCreateRequiring_FieldWhereKept (section 9, R1): the suite requires a
// feature through spec.requiredLoadBalancerFeatures where a dry-run create
// shows that the cluster keeps the field, else through the annotation; it
// asks once per run.
func TestCreateRequiring_FieldWhereKept(t *testing.T) {
	for _, keeps := range []bool{true, false} {
		var mu sync.Mutex
		var creates []createdService
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var svc v1.Service
			if r.Method != http.MethodPost || json.Unmarshal(body, &svc) != nil {
				http.Error(w, "unexpected", http.StatusBadRequest)
				return
			}
			q := r.URL.Query()
			c := createdService{dryRun: q.Get("dryRun"), fieldValidation: q.Get("fieldValidation"), required: svc.Annotations[v1.RequiredFeaturesAnnotation]}
			for _, f := range svc.Spec.RequiredLoadBalancerFeatures {
				c.field = append(c.field, string(f))
			}
			mu.Lock()
			creates = append(creates, c)
			mu.Unlock()
			if !keeps {
				svc.Spec.RequiredLoadBalancerFeatures = nil // pruned, as stock kube-apiserver does
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(&svc)
		}))
		defer srv.Close()
		client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
		if err != nil {
			t.Fatal(err)
		}
		r := &testRun{ctx: t.Context(), client: client, opts: Options{}.withDefaults(), ns: "ns", field: &requiredField{}}
		for _, name := range []string{"a", "b"} {
			if err := r.createRequiring(r.service(name, nil), v1.LoadBalancerFeatureSessionAffinity); err != nil {
				t.Fatal(err)
			}
		}
		mu.Lock()
		// The dry run ignores unknown fields: else a stock server warns,
		// and client-go logs the warning.
		if len(creates) != 3 || creates[0].dryRun != "All" || creates[0].fieldValidation != "Ignore" || creates[1].dryRun != "" || creates[2].dryRun != "" {
			t.Fatalf("keeps %v: creates %+v, want one dry run ignoring unknown fields, then the two Services", keeps, creates)
		}
		for _, c := range creates[1:] {
			if keeps && (len(c.field) != 1 || c.field[0] != "SessionAffinity" || c.required != "") {
				t.Errorf("a cluster that keeps the field: sent %+v, want SessionAffinity in the field alone", c)
			}
			if !keeps && (len(c.field) != 0 || c.required != "SessionAffinity") {
				t.Errorf("a cluster that prunes the field: sent %+v, want SessionAffinity in the annotation alone", c)
			}
		}
		mu.Unlock()
	}
}
