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
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// createdService is what a Service create sent: its query and body.
type createdService struct {
	dryRun, fieldValidation string
	field                   []string
	required                string // the required-features annotation
	annotated               bool   // whether the annotation is there
}

// TestCreateRequiring_FieldWhereKept (section 9, R1): the suite requires a
// feature through spec.requiredLoadBalancerFeatures where a dry-run create
// shows that the cluster keeps the field, else through the annotation; it
// asks once per run.
func TestCreateRequiring_FieldWhereKept(t *testing.T) {
	for _, keeps := range []bool{true, false} {
		c := &cluster{keeps: keeps}
		r := c.run(t)
		for _, name := range []string{"a", "b"} {
			if err := r.createRequiring(r.service(name, nil), v1.LoadBalancerFeatureSessionAffinity); err != nil {
				t.Fatal(err)
			}
		}
		// The dry run ignores unknown fields: else a stock server warns,
		// and client-go logs the warning.
		creates := c.sent()
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
		// The report says how.
		if got, want := r.field.usedSource(), map[bool]conditions.RequiredFeaturesSource{true: conditions.RequiredFeaturesSourceSpec, false: conditions.RequiredFeaturesSourceAnnotation}[keeps]; got != want {
			t.Errorf("keeps %v: required through %q, want %q", keeps, got, want)
		}
	}
}

// cluster is an apiserver that answers Service creates alone: keeps says
// whether it keeps spec.requiredLoadBalancerFeatures, refuse whether it
// refuses a create, and with what.
type cluster struct {
	keeps  bool
	refuse func(createdService) *apierrors.StatusError
	// before, when not nil, is called with each request, its body read.
	before func(*http.Request)

	mu      sync.Mutex
	creates []createdService
}

func (c *cluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if c.before != nil {
		c.before(r)
	}
	var svc v1.Service
	if r.Method != http.MethodPost || json.Unmarshal(body, &svc) != nil {
		http.Error(w, "unexpected", http.StatusBadRequest)
		return
	}
	q := r.URL.Query()
	created := createdService{dryRun: q.Get("dryRun"), fieldValidation: q.Get("fieldValidation"), required: svc.Annotations[v1.RequiredFeaturesAnnotation]}
	_, created.annotated = svc.Annotations[v1.RequiredFeaturesAnnotation]
	for _, f := range svc.Spec.RequiredLoadBalancerFeatures {
		created.field = append(created.field, string(f))
	}
	c.mu.Lock()
	c.creates = append(c.creates, created)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if c.refuse != nil {
		if err := c.refuse(created); err != nil {
			w.WriteHeader(int(err.ErrStatus.Code))
			json.NewEncoder(w).Encode(&err.ErrStatus)
			return
		}
	}
	if !c.keeps {
		svc.Spec.RequiredLoadBalancerFeatures = nil
	}
	json.NewEncoder(w).Encode(&svc)
}

// sent returns the creates the cluster was sent, in order.
func (c *cluster) sent() []createdService {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.creates)
}

// run returns a testRun of namespace ns on c, whose waits end at once: no
// provider serves c.
func (c *cluster) run(t *testing.T) *testRun {
	t.Helper()
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{ConditionsTimeout: time.Millisecond, ProvisionTimeout: time.Millisecond}.withDefaults()
	return &testRun{ctx: t.Context(), client: client, opts: opts, ns: "ns", tr: newTracker(), field: &requiredField{}}
}

// invalid is a 422 a cluster answers a Service it does not validate.
func invalid(c createdService) *apierrors.StatusError {
	return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "unknown",
		field.ErrorList{field.NotSupported(field.NewPath("spec", "requiredLoadBalancerFeatures").Index(0), c.field, v1.LoadBalancerFeatures())})
}

// TestCreateRequiring_R1_RefusedProbeIsNotKept: a cluster that refuses the
// dry run (an admission webhook without dry-run support, RBAC) does not
// show that it keeps the field: the suite requires through the
// annotation.
func TestCreateRequiring_R1_RefusedProbeIsNotKept(t *testing.T) {
	c := &cluster{keeps: true, refuse: func(c createdService) *apierrors.StatusError {
		if c.dryRun == "" {
			return nil
		}
		return apierrors.NewForbidden(corev1.Resource("services"), "required-field-probe", errors.New("no dry run"))
	}}
	r := c.run(t)
	if err := r.createRequiring(r.service("a", nil), v1.LoadBalancerFeatureSessionAffinity); err != nil {
		t.Fatal(err)
	}
	sent := c.sent()
	if len(sent) != 2 || len(sent[1].field) != 0 || sent[1].required != "SessionAffinity" {
		t.Errorf("sent %+v, want the dry run, then SessionAffinity in the annotation alone", sent)
	}
	if got := r.field.usedSource(); got != conditions.RequiredFeaturesSourceAnnotation {
		t.Errorf("required through %q, want the annotation", got)
	}
}

// TestCreateRequiring_R1_NoFeaturesNoAnnotation: the suite writes the
// annotation as conditions.SetRequiredFeaturesAnnotation does, so a
// Service that requires no feature goes without one, not with an empty
// value that RequiredFeatures would report as the annotation's.
func TestCreateRequiring_R1_NoFeaturesNoAnnotation(t *testing.T) {
	c := &cluster{}
	r := c.run(t)
	if err := r.createRequiring(r.service("a", nil)); err != nil {
		t.Fatal(err)
	}
	if sent := c.sent(); len(sent) != 2 || sent[1].annotated {
		t.Errorf("sent %+v, want the dry run, then a Service without %s", sent, v1.RequiredFeaturesAnnotation)
	}
}

// TestUnknownRequired_R4_AnnotationWhereTheFieldIsValidated: where the
// cluster keeps the field and, as R4 asks, refuses a value it does not
// know, UnknownRequiredFeature requires the unknown feature through the
// annotation instead; where the cluster also refuses the annotation's
// value, or prunes the field and refuses the annotation, the test is
// skipped, having asked once; where the cluster takes the unknown value in
// the field, the Service is created once, through the field.
func TestUnknownRequired_R4_AnnotationWhereTheFieldIsValidated(t *testing.T) {
	unknown := string(UnknownFeature)
	for _, tc := range []struct {
		name   string
		keeps  bool
		refuse func(createdService) *apierrors.StatusError
		// what the creates after the dry run sent: the field, or the
		// annotation
		want []string
		skip bool
	}{{
		name:  "field validated",
		keeps: true,
		refuse: func(c createdService) *apierrors.StatusError {
			if slices.Contains(c.field, unknown) {
				return invalid(c)
			}
			return nil
		},
		want: []string{"field " + unknown, "annotation " + unknown},
	}, {
		name:  "field and annotation validated",
		keeps: true,
		refuse: func(c createdService) *apierrors.StatusError {
			if slices.Contains(c.field, unknown) || c.required == unknown {
				return invalid(c)
			}
			return nil
		},
		want: []string{"field " + unknown, "annotation " + unknown},
		skip: true,
	}, {
		name: "field pruned, annotation validated",
		refuse: func(c createdService) *apierrors.StatusError {
			if c.required == unknown {
				return invalid(c)
			}
			return nil
		},
		want: []string{"annotation " + unknown},
		skip: true,
	}, {
		name:  "field not validated",
		keeps: true,
		want:  []string{"field " + unknown},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cluster{keeps: tc.keeps, refuse: tc.refuse}
			r := c.run(t)
			_, err := r.unknownRequired()
			if _, skipped := err.(skipError); skipped != tc.skip || err == nil {
				t.Errorf("unknownRequired: %v, want skipped %v (else no provider served it)", err, tc.skip)
			}
			var got []string
			for _, s := range c.sent()[1:] {
				switch {
				case len(s.field) > 0 && s.required == "":
					got = append(got, "field "+strings.Join(s.field, ","))
				case len(s.field) == 0 && s.required != "":
					got = append(got, "annotation "+s.required)
				default:
					got = append(got, fmt.Sprintf("%+v", s))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("creates after the dry run %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCreateRequiring_R1_SlowProbeIsNotKept: the probe is a request of the
// run, bounded by RequestTimeout: a cluster that does not answer it in
// time does not keep the field, and the run goes on.
func TestCreateRequiring_R1_SlowProbeIsNotKept(t *testing.T) {
	c := &cluster{keeps: true, before: func(r *http.Request) {
		if r.URL.Query().Get("dryRun") != "" {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}}
	r := c.run(t)
	r.opts.RequestTimeout = 50 * time.Millisecond
	if err := r.createRequiring(r.service("a", nil), v1.LoadBalancerFeatureSessionAffinity); err != nil {
		t.Fatal(err)
	}
	if got := r.field.usedSource(); got != conditions.RequiredFeaturesSourceAnnotation {
		t.Errorf("required through %q, want the annotation", got)
	}
}
