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

// Package rawservice writes Services of lbstatus's type, with
// spec.requiredLoadBalancerFeatures, as JSON through a typed clientset's
// REST client, and reads them with conditions.RESTServices: the typed
// core/v1 client has no field for it. The stock tests send them to a
// kube-apiserver without the field, the fork tests to one with it.
package rawservice

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	lbac "github.com/lbstatus/lbstatus/generated/applyconfiguration/core/v1"
)

// Requiring returns a one-port LoadBalancer Service of lbstatus's type,
// with ClientIP session affinity, that requires features in the spec field.
func Requiring(ns, name string, features ...v1.LoadBalancerFeature) *v1.Service {
	svc := &v1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}}
	svc.Name, svc.Namespace = name, ns
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	svc.Spec.RequiredLoadBalancerFeatures = features
	return svc
}

// Post creates svc from its JSON with the given fieldValidation ("" for
// the server's default).
func Post(t testing.TB, client kubernetes.Interface, svc *v1.Service, fieldValidation string) rest.Result {
	t.Helper()
	body, err := json.Marshal(svc)
	if err != nil {
		t.Fatal(err)
	}
	req := client.CoreV1().RESTClient().Post().Namespace(svc.Namespace).Resource("services").
		SetHeader("Content-Type", "application/json").Body(body)
	if fieldValidation != "" {
		req = req.Param("fieldValidation", fieldValidation)
	}
	return req.Do(context.Background())
}

// Put updates svc from its JSON and returns the error of the request.
func Put(t testing.TB, client kubernetes.Interface, svc *v1.Service) error {
	t.Helper()
	body, err := json.Marshal(svc)
	if err != nil {
		t.Fatal(err)
	}
	return client.CoreV1().RESTClient().Put().Namespace(svc.Namespace).Resource("services").Name(svc.Name).
		SetHeader("Content-Type", "application/json").Body(body).Do(context.Background()).Error()
}

// Apply server-side applies one of the project's apply configurations as
// the field manager lbstatus-integration, and returns the HTTP status code.
func Apply(t testing.TB, client kubernetes.Interface, apply *lbac.ServiceApplyConfiguration, fieldValidation string) (int, error) {
	t.Helper()
	apply.WithAPIVersion("v1").WithKind("Service")
	body, err := json.Marshal(apply)
	if err != nil {
		t.Fatal(err)
	}
	req := client.CoreV1().RESTClient().Patch(types.ApplyPatchType).Namespace(*apply.GetNamespace()).Resource("services").
		Name(*apply.GetName()).Param("fieldManager", "lbstatus-integration").Body(body)
	if fieldValidation != "" {
		req = req.Param("fieldValidation", fieldValidation)
	}
	var code int
	err = req.Do(context.Background()).StatusCode(&code).Error()
	return cmp.Or(code, http.StatusOK), err
}

// Get reads a Service as lbstatus's type, spec.requiredLoadBalancerFeatures
// included when the server keeps it.
func Get(t testing.TB, client kubernetes.Interface, ns, name string) *v1.Service {
	t.Helper()
	svc, err := conditions.RESTServices{Client: client.CoreV1().RESTClient(), Namespace: ns}.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get service %s: %v", name, err)
	}
	return svc
}

// HasWarning reports whether res carries a warning that holds text.
func HasWarning(res rest.Result, text string) bool {
	for _, w := range res.Warnings() {
		if strings.Contains(w.Text, text) {
			return true
		}
	}
	return false
}
