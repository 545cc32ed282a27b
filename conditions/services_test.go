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
	"encoding/json"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// A Service as a kube-apiserver with KEP-4631 serves it. Its spec also
// carries a "RequiredLoadBalancerFeatures" that a case-insensitive decoder
// would take for the field, and which kube-apiserver would ignore.
const servedService = `{"kind": "Service", "apiVersion": "v1",
	"metadata": {"name": "web", "namespace": "ns", "resourceVersion": "%s"},
	"spec": {"type": "LoadBalancer", "requiredLoadBalancerFeatures": ["SessionAffinity"], "RequiredLoadBalancerFeatures": ["Ports"]}}`

// restServer serves servedService to get, list and watch, and records the
// requests.
type restServer struct {
	mu       sync.Mutex
	requests []*http.Request
	created  []map[string]any // the bodies of creates and updates
	// watch, when not empty, is the watch stream, in place of the
	// default's ADDED, ERROR and an event of unknown type.
	watch string
}

func (s *restServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost || r.Method == http.MethodPut:
		// As a server without the field would: the rest comes back.
		body, _ := io.ReadAll(r.Body)
		var sent, created map[string]any
		if json.Unmarshal(body, &sent) != nil || json.Unmarshal(body, &created) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.created = append(s.created, sent)
		s.mu.Unlock()
		delete(created["spec"].(map[string]any), "requiredLoadBalancerFeatures")
		json.NewEncoder(w).Encode(created)
	case r.URL.Path == "/api/v1/namespaces/ns/services/gone":
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404, "message": "services \"gone\" not found"}`)
	case r.URL.Path == "/api/v1/namespaces/ns/services/busy":
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "TooManyRequests", "code": 429, "message": "slow down"}`)
	case r.URL.Path == "/api/v1/namespaces/ns/services/web":
		fmt.Fprintf(w, servedService, "5")
	case r.URL.Path == "/api/v1/namespaces/ns/services/garbled":
		fmt.Fprint(w, `{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "garbled"}, "spec": "LoadBalancer"}`)
	case r.URL.Path == "/api/v1/namespaces/ns/services/private":
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Unauthorized", "code": 401, "message": "Unauthorized"}`)
	case r.URL.Query().Get("labelSelector") == "denied":
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403, "message": "services is forbidden: User \"u\" cannot watch"}`)
	case r.URL.Query().Get("watch") == "true" && s.watch != "":
		fmt.Fprint(w, s.watch)
	case r.URL.Query().Get("watch") == "true":
		fmt.Fprintf(w, `{"type": "ADDED", "object": `+servedService+"}\n", "6")
		fmt.Fprint(w, `{"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410, "message": "too old"}}`+"\n")
		fmt.Fprint(w, `{"type": "WEIRD", "object": {}}`+"\n")
	default:
		fmt.Fprintf(w, `{"kind": "ServiceList", "apiVersion": "v1", "metadata": {"resourceVersion": "5"}, "items": [`+servedService+`]}`, "4")
	}
}

// restServices returns RESTServices of namespace ns on a server s, through
// a clientset that prefers protobuf.
func restServices(t *testing.T, s *restServer) RESTServices {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}})
	if err != nil {
		t.Fatal(err)
	}
	return RESTServices{Client: cs.CoreV1().RESTClient(), Namespace: "ns"}
}

// TestRESTServices_R1_FieldSurvives: get, list and watch all keep
// spec.requiredLoadBalancerFeatures, which client-go's typed client
// drops, and read it case-sensitively; each request asks for JSON,
// whatever the clientset prefers, and passes the options on.
func TestRESTServices_R1_FieldSurvives(t *testing.T) {
	server := &restServer{}
	services := restServices(t, server)
	want := []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}

	svc, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil || !slices.Equal(svc.Spec.RequiredLoadBalancerFeatures, want) {
		t.Errorf("Get: %v, %v; want %v", svc, err, want)
	}
	list, err := services.List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(list.Items) != 1 || !slices.Equal(list.Items[0].Spec.RequiredLoadBalancerFeatures, want) || list.ResourceVersion != "5" {
		t.Errorf("List: %v, %v; want one Service requiring %v at resourceVersion 5", list, err, want)
	}
	w, err := services.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "5", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var events []watch.Event
	for ev := range w.ResultChan() {
		events = append(events, ev)
	}
	if len(events) != 3 {
		t.Fatalf("%d events, want ADDED, ERROR and the error that ends the watch: %v", len(events), events)
	}
	if svc, ok := events[0].Object.(*v1.Service); events[0].Type != watch.Added || !ok || !slices.Equal(svc.Spec.RequiredLoadBalancerFeatures, want) || svc.ResourceVersion != "6" {
		t.Errorf("first event %s %#v, want ADDED of a Service requiring %v", events[0].Type, events[0].Object, want)
	}
	if st, ok := events[1].Object.(*metav1.Status); events[1].Type != watch.Error || !ok || st.Code != 410 {
		t.Errorf("second event %s %#v, want the server's 410 Status", events[1].Type, events[1].Object)
	}
	if st, ok := events[2].Object.(*metav1.Status); events[2].Type != watch.Error || !ok || !strings.Contains(st.Message, `a watch event of unknown type \"WEIRD\"`) {
		t.Errorf("third event %s %#v, want an error naming the unknown event type", events[2].Type, events[2].Object)
	}

	server.mu.Lock()
	defer server.mu.Unlock()
	if len(server.requests) != 3 {
		t.Fatalf("%d requests, want 3", len(server.requests))
	}
	for _, r := range server.requests {
		if accept := r.Header.Get("Accept"); accept != "application/json" {
			t.Errorf("%s asked for %q, want application/json", r.URL, accept)
		}
	}
	if q := server.requests[1].URL.Query(); q.Get("labelSelector") != "app=web" || q.Has("watch") {
		t.Errorf("list query %v, want the label selector and no watch", q)
	}
	if q := server.requests[2].URL.Query(); q.Get("watch") != "true" || q.Get("resourceVersion") != "5" || q.Get("allowWatchBookmarks") != "true" {
		t.Errorf("watch query %v, want watch from resourceVersion 5 with bookmarks", q)
	}
}

// TestRESTServices_StatusErrors: a refused request is the error of the
// server's Status, which names the Service; a request is not retried.
func TestRESTServices_StatusErrors(t *testing.T) {
	server := &restServer{}
	services := restServices(t, server)
	_, err := services.Get(t.Context(), "gone", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `services "gone" not found` {
		t.Errorf("Get of a missing Service: %v, want the server's NotFound", err)
	}
	// client-go would retry after the server's Retry-After.
	if _, err := services.Get(t.Context(), "busy", metav1.GetOptions{}); !apierrors.IsTooManyRequests(err) {
		t.Errorf("Get of a busy server: %v, want the server's TooManyRequests", err)
	}
	if w, err := services.Watch(t.Context(), metav1.ListOptions{LabelSelector: "denied"}); !apierrors.IsForbidden(err) || w != nil {
		t.Errorf("refused watch: %v, %v; want the server's Forbidden", w, err)
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	if len(server.requests) != 3 {
		t.Errorf("%d requests, want 3: none retried", len(server.requests))
	}
}

// TestServiceListWatch_R1_EitherClient: an informer's source reads the
// project's Services through a clientset's REST client, spec field and
// all, and through the typed client of a clientset without one (the fake),
// converting its lists and watch events.
func TestServiceListWatch_R1_EitherClient(t *testing.T) {
	rc := restServices(t, &restServer{}).Client
	lw := ServiceListWatch(corev1client.New(rc), "ns")
	obj, err := lw.List(metav1.ListOptions{})
	list, ok := obj.(*v1.ServiceList)
	if err != nil || !ok || len(list.Items) != 1 || len(list.Items[0].Spec.RequiredLoadBalancerFeatures) != 1 {
		t.Errorf("through REST: %#v, %v; want a v1.ServiceList whose Service requires SessionAffinity", obj, err)
	}

	fc := fake.NewClientset(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "listed"}})
	lw = ServiceListWatch(fc.CoreV1(), "ns")
	obj, err = lw.List(metav1.ListOptions{})
	if list, ok := obj.(*v1.ServiceList); err != nil || !ok || len(list.Items) != 1 || list.Items[0].Name != "listed" {
		t.Errorf("through the fake: %#v, %v; want a v1.ServiceList of listed", obj, err)
	}
	w, err := lw.Watch(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := fc.CoreV1().Services("ns").Create(t.Context(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "watched"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake's watch may start with what it holds.
	for ev := range w.ResultChan() {
		svc, ok := ev.Object.(*v1.Service)
		if ev.Type != watch.Added || !ok {
			t.Fatalf("event %s of %T, want ADDED of a v1.Service", ev.Type, ev.Object)
		}
		if svc.Name == "watched" {
			break
		}
	}
}

// TestRESTServices_CreateSendsTheField: Create sends the spec field, as
// JSON with its kind and apiVersion, passes the options on, and returns
// what the server made of the Service; the caller's Service is left as it
// was.
func TestRESTServices_CreateSendsTheField(t *testing.T) {
	server := &restServer{}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	got, err := restServices(t, server).Create(t.Context(), svc, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "web" || got.Spec.Type != corev1.ServiceTypeLoadBalancer || len(got.Spec.RequiredLoadBalancerFeatures) != 0 {
		t.Errorf("created %+v, want the server's answer: web, without the field", got)
	}
	if svc.Kind != "" || len(svc.Spec.RequiredLoadBalancerFeatures) != 1 {
		t.Errorf("the caller's Service changed: %+v", svc)
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	if len(server.created) != 1 {
		t.Fatalf("%d creates, want 1", len(server.created))
	}
	body := server.created[0]
	if body["kind"] != "Service" || body["apiVersion"] != "v1" || fmt.Sprint(body["spec"].(map[string]any)["requiredLoadBalancerFeatures"]) != "[Ports]" {
		t.Errorf("sent %v, want a v1 Service requiring Ports in the spec field", body)
	}
	r := server.requests[0]
	if r.URL.Path != "/api/v1/namespaces/ns/services" || r.URL.Query().Get("dryRun") != "All" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("sent %s %s with Content-Type %q, want a JSON POST to the namespace's services with dryRun=All", r.Method, r.URL, r.Header.Get("Content-Type"))
	}
	// The clientset prefers protobuf, which Create could not decode.
	if accept := r.Header.Get("Accept"); accept != "application/json" {
		t.Errorf("create asked for %q, want application/json", accept)
	}
}

// TestRESTServices_UpdateSendsTheField: Update puts the Service, the spec
// field included, to its own path, passes the options on, and returns what
// the server made of it; a nil Service, or one without a name, is an error
// before any request.
func TestRESTServices_UpdateSendsTheField(t *testing.T) {
	server := &restServer{}
	services := restServices(t, server)
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: "7"}}
	svc.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeaturePorts}
	got, err := services.Update(t.Context(), svc, metav1.UpdateOptions{FieldManager: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "web" || got.ResourceVersion != "7" {
		t.Errorf("updated %+v, want the server's answer", got)
	}
	for _, bad := range []*v1.Service{nil, {}} {
		if _, err := services.Update(t.Context(), bad, metav1.UpdateOptions{}); err == nil {
			t.Errorf("Update(%v): no error", bad)
		}
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	if len(server.requests) != 1 {
		t.Fatalf("%d requests, want 1: the bad updates send none", len(server.requests))
	}
	r, body := server.requests[0], server.created[0]
	if r.Method != http.MethodPut || r.URL.Path != "/api/v1/namespaces/ns/services/web" || r.URL.Query().Get("fieldManager") != "e2e" {
		t.Errorf("sent %s %s, want a PUT to the Service's path with fieldManager=e2e", r.Method, r.URL)
	}
	if body["kind"] != "Service" || fmt.Sprint(body["spec"].(map[string]any)["requiredLoadBalancerFeatures"]) != "[Ports]" ||
		body["metadata"].(map[string]any)["resourceVersion"] != "7" {
		t.Errorf("sent %v, want the Service requiring Ports, at resourceVersion 7", body)
	}
}

// TestRESTServices_CreateNotRetried: a create the server refuses is the
// error of the server's Status, at once: client-go would retry a 429.
func TestRESTServices_CreateNotRetried(t *testing.T) {
	var mu sync.Mutex
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posts++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "TooManyRequests", "code": 429, "message": "slow down"}`)
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	services := RESTServices{Client: cs.CoreV1().RESTClient(), Namespace: "ns"}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}}
	if _, err := services.Create(t.Context(), svc, metav1.CreateOptions{}); !apierrors.IsTooManyRequests(err) || err.Error() != "slow down" {
		t.Errorf("Create on a busy server: %v, want the server's TooManyRequests", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if posts != 1 {
		t.Errorf("%d creates sent, want 1: none retried", posts)
	}
}

// TestRESTServices_Namespace: requests go to the Services of the namespace
// asked for, or of every namespace when it is empty.
func TestRESTServices_Namespace(t *testing.T) {
	server := &restServer{}
	services := restServices(t, server)
	services.Namespace = "other"
	if _, err := services.List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "other"}}
	if _, err := services.Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	services.Namespace = ""
	if _, err := services.List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	var paths []string
	for _, r := range server.requests {
		paths = append(paths, r.URL.Path)
	}
	if want := []string{"/api/v1/namespaces/other/services", "/api/v1/namespaces/other/services", "/api/v1/services"}; !slices.Equal(paths, want) {
		t.Errorf("requests to %v, want %v", paths, want)
	}
}

// TestRESTServices_ListNeverWatches: List lists, whatever opts.Watch says;
// a watch stream is not a ServiceList.
func TestRESTServices_ListNeverWatches(t *testing.T) {
	server := &restServer{}
	list, err := restServices(t, server).List(t.Context(), metav1.ListOptions{Watch: true})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("List: %v, %v; want the one Service", list, err)
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	if q := server.requests[0].URL.Query(); q.Has("watch") {
		t.Errorf("list query %v, want no watch", q)
	}
}

// TestRESTServices_Unauthorized: for a 401, whose Status says no more than
// "Unauthorized", the error is client-go's, which says that credentials
// are wanted.
func TestRESTServices_Unauthorized(t *testing.T) {
	_, err := restServices(t, &restServer{}).Get(t.Context(), "private", metav1.GetOptions{})
	if !apierrors.IsUnauthorized(err) || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("Get without credentials: %v, want an Unauthorized error that asks for credentials", err)
	}
}

// TestRESTServices_UndecodableService: a Service that does not decode is an
// error that says so, not a Service half read.
func TestRESTServices_UndecodableService(t *testing.T) {
	svc, err := restServices(t, &restServer{}).Get(t.Context(), "garbled", metav1.GetOptions{})
	if err == nil || svc != nil || !strings.Contains(err.Error(), "decoding the Service") {
		t.Errorf("Get of a garbled Service: %v, %v; want an error decoding the Service", svc, err)
	}
}

// TestRESTServices_R1_EveryEventType: a watch delivers MODIFIED, DELETED and
// BOOKMARK events as Services, spec field and all; an event whose object
// does not decode ends the watch with an error that says which.
func TestRESTServices_R1_EveryEventType(t *testing.T) {
	event := func(typ, rv string) string {
		return `{"type": "` + typ + `", "object": ` + fmt.Sprintf(servedService, rv) + "}\n"
	}
	server := &restServer{watch: event("MODIFIED", "7") + event("DELETED", "8") + event("BOOKMARK", "9") +
		`{"type": "ADDED", "object": {"kind": "Service", "apiVersion": "v1", "spec": "LoadBalancer"}}` + "\n" +
		event("ADDED", "10")}
	w, err := restServices(t, server).Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for ev := range w.ResultChan() {
		switch obj := ev.Object.(type) {
		case *v1.Service:
			got = append(got, fmt.Sprintf("%s %s %v", ev.Type, obj.ResourceVersion, obj.Spec.RequiredLoadBalancerFeatures))
		case *metav1.Status:
			got = append(got, fmt.Sprintf("%s %v", ev.Type, strings.Contains(obj.Message, "decoding a ADDED watch event")))
		default:
			got = append(got, fmt.Sprintf("%s %T", ev.Type, ev.Object))
		}
	}
	want := []string{"MODIFIED 7 [SessionAffinity]", "DELETED 8 [SessionAffinity]", "BOOKMARK 9 [SessionAffinity]", "ERROR true"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestRESTServices_WatchStopCloses: stopping a watch closes its stream, so
// that an informer that stops a watch leaves no request open on the server.
func TestRESTServices_WatchStopCloses(t *testing.T) {
	closed, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"type": "ADDED", "object": `+servedService+"}\n", "6")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(closed)
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release) // before the server's Close, which waits for the handler
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	w, err := RESTServices{Client: cs.CoreV1().RESTClient(), Namespace: "ns"}.Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Fatalf("first event %s, want ADDED", ev.Type)
	}
	w.Stop()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Error("the stream is still open 5s after the watch stopped")
	}
}

// TestServiceListWatch_R1_RESTNamespaceAndWatch: through a REST client, the
// source lists and watches the namespace asked for, with the options the
// informer gives, and its watch keeps the spec field.
func TestServiceListWatch_R1_RESTNamespaceAndWatch(t *testing.T) {
	server := &restServer{}
	lw := ServiceListWatch(corev1client.New(restServices(t, server).Client), "other")
	if _, err := lw.List(metav1.ListOptions{LabelSelector: "app=web"}); err != nil {
		t.Fatal(err)
	}
	w, err := lw.Watch(metav1.ListOptions{LabelSelector: "app=web", ResourceVersion: "5"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := <-w.ResultChan()
	if svc, ok := ev.Object.(*v1.Service); ev.Type != watch.Added || !ok || len(svc.Spec.RequiredLoadBalancerFeatures) != 1 {
		t.Errorf("first event %s %#v, want ADDED of a Service requiring SessionAffinity", ev.Type, ev.Object)
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	for _, r := range server.requests {
		if r.URL.Path != "/api/v1/namespaces/other/services" || r.URL.Query().Get("labelSelector") != "app=web" {
			t.Errorf("request %s, want one of namespace other's Services labelled app=web", r.URL)
		}
	}
	if len(server.requests) != 2 || server.requests[1].URL.Query().Get("watch") != "true" || server.requests[1].URL.Query().Get("resourceVersion") != "5" {
		t.Errorf("%d requests, want a list, then a watch from resourceVersion 5", len(server.requests))
	}
}

// TestServiceListWatch_TypedClient: through the typed client, the source
// lists and watches the namespace asked for, with the informer's options;
// a list keeps its resourceVersion and continue token, which the informer
// watches and pages from, and deletions are delivered converted.
func TestServiceListWatch_TypedClient(t *testing.T) {
	fc := fake.NewClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "listed", Labels: map[string]string{"app": "web"}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "elsewhere", Labels: map[string]string{"app": "web"}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "unlabelled"}},
	)
	var mu sync.Mutex
	var watches []k8stesting.WatchRestrictions
	fc.PrependWatchReactor("services", func(a k8stesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		watches = append(watches, a.(k8stesting.WatchAction).GetWatchRestrictions())
		return false, nil, nil
	})
	lw := ServiceListWatch(fc.CoreV1(), "ns")
	obj, err := lw.List(metav1.ListOptions{LabelSelector: "app=web"})
	if list, ok := obj.(*v1.ServiceList); err != nil || !ok || len(list.Items) != 1 || list.Items[0].Name != "listed" {
		t.Errorf("list: %#v, %v; want a v1.ServiceList of listed alone", obj, err)
	}
	fc.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &corev1.ServiceList{ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "more"}}, nil
	})
	obj, err = lw.List(metav1.ListOptions{})
	if list, ok := obj.(*v1.ServiceList); err != nil || !ok || list.ResourceVersion != "7" || list.Continue != "more" {
		t.Errorf("list: %#v, %v; want resourceVersion 7 and continue token more", obj, err)
	}

	w, err := lw.Watch(metav1.ListOptions{LabelSelector: "app=web", ResourceVersion: "7"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	services := fc.CoreV1().Services
	if _, err := services("other").Create(t.Context(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "foreign"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := services("ns").Delete(t.Context(), "listed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake's watch may start with what it holds.
	for deleted := false; !deleted; {
		select {
		case ev := <-w.ResultChan():
			svc, ok := ev.Object.(*v1.Service)
			if !ok || svc.Namespace != "ns" {
				t.Fatalf("event %s of %#v, want a v1.Service of namespace ns", ev.Type, ev.Object)
			}
			deleted = ev.Type == watch.Deleted && svc.Name == "listed"
		case <-time.After(5 * time.Second):
			t.Fatal("no DELETED event of listed")
		}
	}
	mu.Lock()
	if len(watches) != 1 || watches[0].Labels.String() != "app=web" || watches[0].ResourceVersion != "7" {
		t.Errorf("watches %+v, want one of app=web from resourceVersion 7", watches)
	}
	mu.Unlock()

	// The informer retries a refused list or watch: the error is the
	// clientset's.
	refused := apierrors.NewForbidden(corev1.Resource("services"), "", fmt.Errorf("no"))
	fc.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, refused })
	fc.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) { return true, nil, refused })
	if obj, err := lw.List(metav1.ListOptions{}); !apierrors.IsForbidden(err) || obj != nil {
		t.Errorf("refused list: %#v, %v; want the refusal", obj, err)
	}
	if w, err := lw.Watch(metav1.ListOptions{}); !apierrors.IsForbidden(err) || w != nil {
		t.Errorf("refused watch: %v, %v; want the refusal", w, err)
	}
}

// A RESTServices without a REST client (its zero value, or the typed nil
// that client-go's fake clientset gives as its RESTClient) and a nil
// Service to create are errors that say so, not panics.
func TestRESTServices_NoClientIsAnError(t *testing.T) {
	ctx := t.Context()
	fakeCore := fake.NewClientset().CoreV1()
	for name, s := range map[string]RESTServices{
		"zero value":         {},
		"fake's REST client": {Client: fakeCore.RESTClient(), Namespace: "ns"},
	} {
		t.Run(name, func(t *testing.T) {
			calls := map[string]func() error{
				"Get":  func() error { _, err := s.Get(ctx, "web", metav1.GetOptions{}); return err },
				"List": func() error { _, err := s.List(ctx, metav1.ListOptions{}); return err },
				"Watch": func() error {
					w, err := s.Watch(ctx, metav1.ListOptions{})
					if w != nil {
						w.Stop()
					}
					return err
				},
				"Create": func() error { _, err := s.Create(ctx, &v1.Service{}, metav1.CreateOptions{}); return err },
				"Update": func() error {
					_, err := s.Update(ctx, &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}}, metav1.UpdateOptions{})
					return err
				},
			}
			for call, f := range calls {
				err := func() (err error) {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("panic: %v", r)
						}
					}()
					return f()
				}()
				if err == nil || !strings.Contains(err.Error(), "no REST client") {
					t.Errorf("%s: %v; want an error saying there is no REST client", call, err)
				}
			}
		})
	}
	s := restServices(t, &restServer{})
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		_, err = s.Create(ctx, nil, metav1.CreateOptions{})
		return err
	}()
	if err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("Create(nil): %v; want an error", err)
	}
}
