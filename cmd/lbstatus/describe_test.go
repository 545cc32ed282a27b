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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// describeNow is the clock of the describe tests: ages are measured from it.
var describeNow = time.Date(2026, 5, 4, 12, 30, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(describeNow.Add(-d)) }

func lbCondition(t v1.LoadBalancerConditionType, status metav1.ConditionStatus, reason, msg string, age time.Duration) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: status, Reason: reason, Message: msg, LastTransitionTime: ago(age)}
}

func describeService(ns, name string, typ corev1.ServiceType) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: k8stypes.UID("uid-" + name), ResourceVersion: "7"},
		Spec: corev1.ServiceSpec{
			Type:  typ,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 31080}},
		},
	}
}

// describeObjects is the cluster of the describe tests: a Ready Service
// with required features from the annotation and the provider's Events, a
// Service no KEP-4631 provider handles, one that breaks L4, a ClusterIP
// Service, and one of the same name in another namespace.
func describeObjects() []runtime.Object {
	web := describeService("shop", "web", corev1.ServiceTypeLoadBalancer)
	web.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: "Ports, SessionAffinity"}
	web.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	web.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	web.Spec.LoadBalancerSourceRanges = []string{"198.51.100.0/24"}
	web.Status.Conditions = []metav1.Condition{
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, "Serving", "serving on 203.0.113.10", 25*time.Minute),
		lbCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, "Complete", "the load balancer\nis up", 25*time.Minute),
	}
	web.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}}

	legacy := describeService("shop", "legacy", corev1.ServiceTypeLoadBalancer)
	legacy.CreationTimestamp = ago(2 * time.Hour) // past L8's deadline without conditions
	legacy.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}

	broken := describeService("shop", "broken", corev1.ServiceTypeLoadBalancer)
	broken.Status.Conditions = []metav1.Condition{
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, "Serving", "serving", 3*time.Hour),
		lbCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, "Complete", "", 3*time.Hour),
	}

	plain := describeService("shop", "plain", corev1.ServiceTypeClusterIP)
	otherWeb := describeService("staging", "web", corev1.ServiceTypeLoadBalancer)

	event := func(name, svc, uid, typ, reason, msg string, age time.Duration, count int32) *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: name},
			InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: "shop", Name: svc, UID: k8stypes.UID(uid)},
			Type:           typ, Reason: reason, Message: msg, Count: count,
			LastTimestamp: ago(age), Source: corev1.EventSource{Component: "example-lb-controller"},
		}
	}
	return []runtime.Object{web, legacy, broken, plain, otherWeb,
		event("web.1", "web", "uid-web", "Normal", "EnsuringLoadBalancer", "Ensuring load balancer", 26*time.Minute, 1),
		event("web.2", "web", "uid-web", "Normal", "EnsuredLoadBalancer", "Ensured load balancer", 25*time.Minute, 3),
		event("web.old", "web", "uid-of-a-deleted-web", "Warning", "SyncFailed", "from an earlier Service of the same name", time.Hour, 1),
		event("broken.1", "broken", "uid-broken", "Warning", "NoIngress", "no address assigned yet", 2*time.Hour, 1),
	}
}

// runDescribeFake runs describe against a fake clientset holding objs.
func runDescribeFake(t *testing.T, client *fake.Clientset, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runDescribeFakeContext(t, context.Background(), client, args...)
}

// runDescribeFakeContext is runDescribeFake with a context, which Ctrl-C
// ends.
func runDescribeFakeContext(t *testing.T, ctx context.Context, client *fake.Clientset, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	e := describeEnv{
		now:      func() time.Time { return describeNow },
		services: func(conn *clusterConn) serviceReader { return typedServices{conn} },
		connect: func(f *clusterFlags) (*clusterConn, error) {
			if err := f.validate(); err != nil {
				return nil, err
			}
			ns := *f.config.Namespace
			switch {
			case f.allNamespaces:
				ns = ""
			case ns == "":
				ns = "default"
			}
			return &clusterConn{client: client, host: "https://cluster.test", namespace: ns, selector: f.selector, requestTimeout: time.Second}, nil
		},
	}
	var out, errOut bytes.Buffer
	code = runDescribe(ctx, args, &out, &errOut, e)
	return code, out.String(), errOut.String()
}

// typedServices reads Services through a fake clientset's typed client,
// which has no REST client; TestDescribe_ReadsTheSpecField covers the path
// a real apiserver is read by.
type typedServices struct{ conn *clusterConn }

func (s typedServices) get(ctx context.Context, name string) (*v1.Service, error) {
	svc, err := s.conn.client.CoreV1().Services(s.conn.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return v1.FromCore(svc), nil
}

func (s typedServices) list(ctx context.Context) (*v1.ServiceList, error) {
	list, err := s.conn.client.CoreV1().Services(s.conn.namespace).List(ctx, metav1.ListOptions{LabelSelector: s.conn.selector})
	if err != nil {
		return nil, err
	}
	out := &v1.ServiceList{}
	for i := range list.Items {
		out.Items = append(out.Items, *v1.FromCore(&list.Items[i]))
	}
	return out, nil
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// TestDescribe_Golden: four Services of one namespace, as an operator sees
// them: a Ready one with its Events (not those of an earlier Service of the
// same name), one without KEP-4631 conditions (R3), one that breaks L4,
// and a ClusterIP Service.
func TestDescribe_Golden(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	code, out, errOut := runDescribeFake(t, client, "-n", "shop", "svc/web", "service/legacy", "broken", "services/plain")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	checkGolden(t, "describe-shop.txt", out)
}

// TestDescribe_AllNamespaces: -A with a name finds it in every namespace,
// sorted by namespace.
func TestDescribe_AllNamespaces(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	code, out, errOut := runDescribeFake(t, client, "-A", "web")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	shop, staging := strings.Index(out, "Namespace:                  shop"), strings.Index(out, "Namespace:                  staging")
	if shop < 0 || staging < 0 || shop > staging {
		t.Errorf("want shop/web then staging/web:\n%s", out)
	}
	if strings.Contains(out, "Name:                       legacy") {
		t.Errorf("a Service not named was described:\n%s", out)
	}
}

// TestDescribe_WholeNamespace: no name describes every Service of the
// namespace and none of another; so does the type alone, as in kubectl.
func TestDescribe_WholeNamespace(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	for _, args := range [][]string{{"--namespace=staging"}, {"--namespace=staging", "svc"}, {"services", "-n", "staging"}} {
		code, out, _ := runDescribeFake(t, client, args...)
		if code != exitOK || strings.Count(out, "Name:  ") != 1 || !strings.Contains(out, "Namespace:                  staging") {
			t.Errorf("%q: exit %d, want staging/web alone:\n%s", args, code, out)
		}
	}
}

// TestDescribe_TypeThenNames: "svc web legacy", as kubectl describe takes
// it, describes web and legacy; a Service named like the type is svc/svc.
func TestDescribe_TypeThenNames(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	_, want, _ := runDescribeFake(t, client, "-n", "shop", "web", "legacy")
	for _, args := range [][]string{{"-n", "shop", "svc", "web", "legacy"}, {"-n", "shop", "Service", "web", "svc/legacy"}} {
		code, out, errOut := runDescribeFake(t, client, args...)
		if code != exitOK || errOut != "" || out != want || !strings.Contains(out, "Name:                       legacy") {
			t.Errorf("%q: exit %d, stderr %q\n%s", args, code, errOut, out)
		}
	}
	code, _, errOut := runDescribeFake(t, client, "-n", "shop", "svc/svc")
	if code != exitInput || !strings.Contains(errOut, "shop/svc") {
		t.Errorf("svc/svc: exit %d, stderr %q; want the Service named svc looked for", code, errOut)
	}
}

// TestDescribe_Selector: -l describes the Services whose labels match, as
// kubectl describe -l does; names with it, or a selector that does not
// parse, are bad usage.
func TestDescribe_Selector(t *testing.T) {
	objs := describeObjects()
	for _, o := range objs {
		if svc, ok := o.(*corev1.Service); ok && svc.Name == "web" {
			svc.Labels = map[string]string{"app": "web"}
		}
	}
	client := fake.NewClientset(objs...)
	code, out, errOut := runDescribeFake(t, client, "-A", "-l", "app=web")
	if code != exitOK || strings.Count(out, "Name:  ") != 2 || strings.Count(out, "Name:                       web\n") != 2 {
		t.Errorf("-A -l app=web: exit %d, stderr %q, want both web Services alone:\n%s", code, errOut, out)
	}
	code, out, _ = runDescribeFake(t, client, "-n", "shop", "-l", "app")
	if code != exitOK || strings.Count(out, "Name:  ") != 1 || !strings.Contains(out, "Namespace:                  shop") {
		t.Errorf("-n shop -l app: exit %d, want shop/web alone:\n%s", code, out)
	}
	code, out, errOut = runDescribeFake(t, client, "-n", "shop", "-l", "app=api")
	if code != exitOK || out != "" || errOut != "lbstatus: no Services found in namespace shop matching app=api\n" {
		t.Errorf("-l app=api: exit %d, stderr %q\n%s", code, errOut, out)
	}
	code, _, errOut = runDescribeFake(t, client, "-A", "-l", "app=api")
	if code != exitOK || errOut != "lbstatus: no Services found in any namespace matching app=api\n" {
		t.Errorf("-A -l app=api: exit %d, stderr %q", code, errOut)
	}
	// Said as the selector means it, not as it was typed.
	code, _, errOut = runDescribeFake(t, client, "-A", "-l", " app = api\t")
	if code != exitOK || errOut != "lbstatus: no Services found in any namespace matching app=api\n" {
		t.Errorf("-A -l ' app = api\\t': exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"-n", "shop", "-l", "app=web", "web"}, {"-l", "app web"}} {
		if code, out, errOut := runDescribeFake(t, client, args...); code != exitInput || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errOut)
		}
	}
}

// TestDescribe_L8Deadline: a LoadBalancer Service without conditions, or
// provisioning, is Pending in a snapshot; past L8's 30 s from its creation,
// or 15 minutes of provisioning, describe says a test concludes Fail.
func TestDescribe_L8Deadline(t *testing.T) {
	for _, tc := range []struct {
		name         string
		age          time.Duration
		provisioning time.Duration // how long Provisioning has been True; 0: no conditions
		want         string
	}{
		{"young", 10 * time.Second, 0, ""},
		{"past the deadline", 31 * time.Second, 0, "passed: created 31s ago, and no condition within 30s:"},
		{"provisioning", time.Hour, 14 * time.Minute, ""},
		{"provisioning too long", 2 * time.Hour, 16 * time.Minute, "passed 60s ago: provisioning for 16m, past the provisioning deadline of 15m:"},
		// The age is rounded; when the deadline passed is not.
		{"provisioning just too long", 2 * time.Hour, 15*time.Minute + 30*time.Second, "passed 30s ago: provisioning for 15m, past the provisioning deadline of 15m:"},
	} {
		svc := describeService("shop", "lb", corev1.ServiceTypeLoadBalancer)
		svc.CreationTimestamp = ago(tc.age)
		if tc.provisioning > 0 {
			svc.Status.Conditions = []metav1.Condition{
				lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Provisioning", "", tc.provisioning),
				lbCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionTrue, "Provisioning", "", tc.provisioning),
			}
		}
		code, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "lb")
		if got := strings.Contains(out, "L8 deadline:"); code != exitOK || got != (tc.want != "") {
			t.Errorf("%s: exit %d, L8 deadline shown %v:\n%s", tc.name, code, got, out)
		}
		if want := "  L8 deadline:              " + tc.want; tc.want != "" && !strings.Contains(out, want) {
			t.Errorf("%s: want %q:\n%s", tc.name, want, out)
		}
	}
}

// Provisioning True without a lastTransitionTime says nothing of when it
// turned True: no provisioning deadline is claimed passed (L8).
func TestDescribe_L8ProvisioningWithoutATime(t *testing.T) {
	svc := describeService("shop", "lb", corev1.ServiceTypeLoadBalancer)
	svc.CreationTimestamp = ago(time.Hour)
	svc.Status.Conditions = []metav1.Condition{
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Provisioning", "", time.Minute),
		{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionTrue, Reason: "Provisioning"},
	}
	if code, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "lb"); code != exitOK || strings.Contains(out, "L8 deadline:") {
		t.Errorf("exit %d, want 0 and no L8 deadline:\n%s", code, out)
	}
}

// L8's first deadline runs from a write that may have converted the
// Service to LoadBalancer (a manager owning spec.type wrote after the
// creation), and not at all for a Service of a class --class leaves alone.
func TestDescribe_L8AfterConversionAndForOtherClasses(t *testing.T) {
	owning := func(manager string, age time.Duration) metav1.ManagedFieldsEntry {
		at := ago(age)
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Time: &at,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:type":{}}}`)}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*corev1.Service)
		flags []string
		want  string
	}{
		{"converted 5s ago", func(s *corev1.Service) {
			s.ManagedFields = []metav1.ManagedFieldsEntry{owning("kubectl-create", time.Hour), owning("kubectl-patch", 5*time.Second)}
		}, nil, ""},
		// The latest write counts, wherever its manager is listed.
		{"converted 5s ago, listed first", func(s *corev1.Service) {
			s.ManagedFields = []metav1.ManagedFieldsEntry{owning("kubectl-patch", 5*time.Second), owning("kubectl-create", time.Hour)}
		}, nil, ""},
		{"converted 40s ago", func(s *corev1.Service) {
			s.ManagedFields = []metav1.ManagedFieldsEntry{owning("kubectl-patch", 40*time.Second)}
		}, nil,
			"passed: type LoadBalancer since 40s ago at the latest, and no condition within 30s:"},
		{"status written since", func(s *corev1.Service) {
			at := ago(5 * time.Second)
			s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "lb", Operation: metav1.ManagedFieldsOperationUpdate, Time: &at,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:loadBalancer":{}}}`)}}}
		}, nil, "passed: created 60m ago, and no condition within 30s:"},
		{"another class", func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To("other.example/lb") }, []string{"--class", "example.com/lb"}, ""},
	} {
		svc := describeService("shop", "lb", corev1.ServiceTypeLoadBalancer)
		svc.CreationTimestamp = ago(time.Hour)
		tc.edit(svc)
		code, out, _ := runDescribeFake(t, fake.NewClientset(svc), append([]string{"-n", "shop", "lb"}, tc.flags...)...)
		if got := strings.Contains(out, "L8 deadline:"); code != exitOK || got != (tc.want != "") {
			t.Errorf("%s: exit %d, L8 deadline shown %v:\n%s", tc.name, code, got, out)
		}
		if want := "  L8 deadline:              " + tc.want; tc.want != "" && !strings.Contains(out, want) {
			t.Errorf("%s: want %q:\n%s", tc.name, want, out)
		}
	}
}

// TestDescribe_ReadsTheSpecField: against an apiserver that serves
// spec.requiredLoadBalancerFeatures (a fork with the field), describe shows
// it, whether it gets the Service by name or lists the namespace: Services
// are read as this project's type, not client-go's, which has no field.
func TestDescribe_ReadsTheSpecField(t *testing.T) {
	web := map[string]any{
		"kind": "Service", "apiVersion": "v1",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "uid": "uid-web", "resourceVersion": "7"},
		"spec": map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": 80, "protocol": "TCP"}},
			"requiredLoadBalancerFeatures": []string{"Ports"}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/namespaces/shop/services/web":
			_ = json.NewEncoder(w).Encode(web)
		case "/api/v1/namespaces/shop/services":
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{}, "items": []any{web}})
		case "/api/v1/namespaces/shop/events":
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "EventList", "apiVersion": "v1", "metadata": map[string]any{}, "items": []any{}})
		default:
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
				"code": 404, "message": "services \"nope\" not found"})
		}
	}))
	defer srv.Close()
	kubeconfig := writeKubeconfig(t, srv.URL)
	for _, args := range [][]string{{"web"}, {}} {
		var out, errOut bytes.Buffer
		code := runDescribe(context.Background(), append([]string{"--kubeconfig", kubeconfig, "-n", "shop"}, args...), &out, &errOut, defaultDescribeEnv())
		if want := "Required features:          Ports (from spec.requiredLoadBalancerFeatures)\n"; code != exitOK || !strings.Contains(out.String(), want) {
			t.Errorf("describe %q: exit %d, stderr %q, want %q:\n%s", args, code, errOut.String(), want, out.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := runDescribe(context.Background(), []string{"--kubeconfig", kubeconfig, "-n", "shop", "nope"}, &out, &errOut, defaultDescribeEnv()); code != exitInput || !strings.Contains(errOut.String(), `shop/nope: services "nope" not found`) {
		t.Errorf("describe nope: exit %d, stderr %q", code, errOut.String())
	}
}

// TestDescribe_NotFound: a missing Service is one line on stderr naming it
// and exit status 2; the others are still described.
func TestDescribe_NotFound(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	code, out, errOut := runDescribeFake(t, client, "-n", "shop", "nope", "web")
	if code != exitInput {
		t.Errorf("exit %d, want %d", code, exitInput)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "shop/nope") || !strings.Contains(lines[0], "not found") {
		t.Errorf("stderr = %q, want one line naming shop/nope", errOut)
	}
	if !strings.Contains(out, "Verdict:                    Ready (T3)") {
		t.Errorf("web was not described:\n%s", out)
	}
	code, _, errOut = runDescribeFake(t, client, "-A", "nope")
	if code != exitInput || !strings.Contains(errOut, "nope: not found in any namespace") {
		t.Errorf("-A nope: exit %d, stderr %q", code, errOut)
	}
}

// TestDescribe_BadUsage: another kind, an empty name, or -n with -A is
// exit status 2 with one line.
func TestDescribe_BadUsage(t *testing.T) {
	client := fake.NewClientset()
	for _, args := range [][]string{{"pod/web"}, {"svc/"}, {"-n", "a", "-A"}, {"--no-such-flag"}} {
		code, out, errOut := runDescribeFake(t, client, args...)
		if code != exitInput || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errOut)
		}
	}
	// An empty name, or one with a slash, is bad usage, not a request for
	// a Service that cannot exist.
	for _, arg := range []string{"svc/", "svc/a/b"} {
		if _, _, errOut := runDescribeFake(t, client, arg); errOut != "lbstatus: \""+arg+"\" is not a Service name\n" {
			t.Errorf("%s: stderr %q", arg, errOut)
		}
	}
}

// TestDescribe_Help: --help shows an example and exits 0.
func TestDescribe_Help(t *testing.T) {
	code, out, _ := runDescribeFake(t, fake.NewClientset(), "--help")
	if code != exitOK || !strings.Contains(out, "lbstatus describe svc/web -n shop") || !strings.Contains(out, "--kubeconfig") {
		t.Errorf("exit %d, help %q", code, out)
	}
}

// TestDescribe_EventsForbidden: when Events cannot be listed the Service
// is still described, and the problem shown where the Events would be.
func TestDescribe_EventsForbidden(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	client.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New("no RBAC"))
	})
	code, out, _ := runDescribeFake(t, client, "-n", "shop", "web")
	if code != exitOK || !strings.Contains(out, "Events:                     cannot be listed:") || !strings.Contains(out, "Verdict:") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestDescribe_Interrupted: Ctrl-C while the first Service's Events are
// read stops describe after that Service, with exit status 2 and a line
// saying how far it got, not with the rest described without Events and
// exit status 0; and before the Services are read, no Service at all.
func TestDescribe_Interrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(describeObjects()...)
	client.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		cancel() // the fake client ignores its context: the request is done anyway
		return true, nil, context.Canceled
	})
	code, out, errOut := runDescribeFakeContext(t, ctx, client, "-n", "shop")
	if code != exitInput || errOut != "lbstatus: interrupted after describing 1 of 4 Services\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if n := strings.Count(out, "Name:"); n != 1 || !strings.Contains(out, "Events:                     not listed: interrupted\n") {
		t.Errorf("%d Services described, want 1 with its Events not listed:\n%s", n, out)
	}

	for _, args := range [][]string{{"-n", "shop"}, {"-n", "shop", "web", "legacy"}} {
		ctx, cancel := context.WithCancel(context.Background())
		client := fake.NewClientset(describeObjects()...)
		client.PrependReactor("*", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
			cancel()
			return true, nil, context.Canceled
		})
		code, out, errOut := runDescribeFakeContext(t, ctx, client, args...)
		if code != exitInput || out != "" || errOut != "lbstatus: interrupted while reading the Services on https://cluster.test\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestDescribe_ListFails: a cluster that cannot list Services is exit
// status 2 with one line naming the server.
func TestDescribe_ListFails(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	code, _, errOut := runDescribeFake(t, client, "-A")
	if code != exitInput || !strings.Contains(errOut, "https://cluster.test") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestDescribe_NoAnswer: a server that does not answer within
// --request-timeout is named so, as watch names it, not as Go's "context
// deadline exceeded".
func TestDescribe_NoAnswer(t *testing.T) {
	timedOut := func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf(`Get "https://cluster.test/api/v1/namespaces/shop/services": %w`, context.DeadlineExceeded)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "shop", "web"}, "lbstatus: Service shop/web: no answer within 1s (--request-timeout)\n"},
		{[]string{"-n", "shop"}, "lbstatus: listing Services on https://cluster.test: no answer within 1s (--request-timeout)\n"},
	} {
		client := fake.NewClientset(describeObjects()...)
		client.PrependReactor("*", "services", timedOut)
		if code, _, errOut := runDescribeFake(t, client, tc.args...); code != exitInput || errOut != tc.want {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	client := fake.NewClientset(describeObjects()...)
	client.PrependReactor("list", "events", timedOut)
	if _, out, _ := runDescribeFake(t, client, "-n", "shop", "web"); !strings.Contains(out, "Events:                     cannot be listed: no answer within 1s (--request-timeout)\n") {
		t.Errorf("Events:\n%s", out)
	}
}

// TestDescribe_ConditionSetTwice: a condition type set twice (C5, which
// a stock apiserver lets through) shows both rows, not the first alone,
// which would hide what the finding is about.
func TestDescribe_ConditionSetTwice(t *testing.T) {
	svc := describeService("shop", "twice", corev1.ServiceTypeLoadBalancer)
	svc.Status.Conditions = []metav1.Condition{
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, "Serving", "first", 2*time.Minute),
		lbCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, "Complete", "done", 2*time.Minute),
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionFalse, "Infrastructure", "second", time.Minute),
	}
	code, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "twice")
	if code != exitOK || !regexp.MustCompile(`(?m)^  LoadBalancerServing +True +Serving +2m +first\n  LoadBalancerServing +False +Infrastructure +60s +second$`).MatchString(out) ||
		!strings.Contains(out, "C5") {
		t.Errorf("exit %d; want both Serving rows and C5:\n%s", code, out)
	}
}

// TestDescribe_IngressWithoutAddress: an ingress entry with neither ip
// nor hostname is shown as such, not as an empty item of the list (", ")
// or as no ingress at all.
func TestDescribe_IngressWithoutAddress(t *testing.T) {
	for _, tc := range []struct {
		ingress []corev1.LoadBalancerIngress
		want    string
	}{
		{[]corev1.LoadBalancerIngress{{}}, "(an entry with neither ip nor hostname)"},
		{[]corev1.LoadBalancerIngress{{}, {IP: "192.0.2.9"}}, "(an entry with neither ip nor hostname), 192.0.2.9"},
	} {
		svc := describeService("shop", "lb", corev1.ServiceTypeLoadBalancer)
		svc.Status.LoadBalancer.Ingress = tc.ingress
		_, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "lb")
		if want := "\nIngress:                    " + tc.want + "\n"; !strings.Contains(out, want) {
			t.Errorf("want %q:\n%s", want, out)
		}
	}
}

// TestRun_DescribeDispatch: the command line reaches describe.
func TestRun_DescribeDispatch(t *testing.T) {
	code, _, errOut := runCmd(t, "", "describe", "pod/x")
	if code != exitInput || !strings.Contains(errOut, "describe shows Services only") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestDescribe_EscapesInput: messages, reasons and Events written by
// controllers cannot drive the terminal of whoever runs describe.
func TestDescribe_EscapesInput(t *testing.T) {
	svc := describeService("shop", "web", corev1.ServiceTypeLoadBalancer)
	svc.Status.Conditions = []metav1.Condition{
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, "Serving\x1b[2J", "up\x1b]0;pwned\x07", time.Minute),
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: "e"},
		InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: "shop", Name: "web"},
		Type:           "Warning", Reason: "X\x1b[31m", Message: "red\u202e", LastTimestamp: ago(time.Minute),
	}
	code, out, _ := runDescribeFake(t, fake.NewClientset(svc, ev), "-n", "shop", "web")
	if code != exitOK || strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("exit %d; control characters reach the terminal:\n%q", code, out)
	}
	if !strings.Contains(out, `Serving\x1b[2J`) || !strings.Contains(out, `X\x1b[31m`) {
		t.Errorf("the escaped values are missing:\n%s", out)
	}
}

// TestDescribe_OrderAcrossNamespaces: -A describes the Services by
// namespace, then name, whatever order the names alone would give.
func TestDescribe_OrderAcrossNamespaces(t *testing.T) {
	client := fake.NewClientset(describeService("zeta", "api", corev1.ServiceTypeClusterIP), describeService("alpha", "web", corev1.ServiceTypeClusterIP))
	code, out, errOut := runDescribeFake(t, client, "-A")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	alpha, zeta := strings.Index(out, "Namespace:                  alpha"), strings.Index(out, "Namespace:                  zeta")
	if alpha < 0 || zeta < 0 || alpha > zeta {
		t.Errorf("want alpha/web then zeta/api:\n%s", out)
	}
}

// TestDescribe_ClientIPWithoutConfig: ClientIP affinity without a
// sessionAffinityConfig (the apiserver defaults one, a manifest may lack
// it) is shown without a timeout.
func TestDescribe_ClientIPWithoutConfig(t *testing.T) {
	svc := describeService("shop", "sticky", corev1.ServiceTypeClusterIP)
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	code, out, errOut := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "sticky")
	if code != exitOK || errOut != "" || !regexp.MustCompile(`(?m)^  Session affinity: +ClientIP$`).MatchString(out) {
		t.Errorf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestDescribe_SpecLines: the G3 lines shown only when set say what they
// hold; node ports not allocated, a traffic distribution, and an empty
// list of required features in the annotation.
func TestDescribe_SpecLines(t *testing.T) {
	svc := describeService("shop", "lean", corev1.ServiceTypeLoadBalancer)
	svc.Spec.AllocateLoadBalancerNodePorts = ptr.To(false)
	svc.Spec.TrafficDistribution = ptr.To("PreferClose")
	svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: ""}
	code, out, errOut := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "lean")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		`(?m)^  Node ports: +not allocated \(allocateLoadBalancerNodePorts false\)$`,
		`(?m)^  Traffic distribution: +PreferClose$`,
		`(?m)^Required features: +<none> \(from the annotation ` + regexp.QuoteMeta(v1.RequiredFeaturesAnnotation) + `\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no line matches %s:\n%s", want, out)
		}
	}
	// Allocated node ports, the default, are not a line of their own.
	svc.Spec.AllocateLoadBalancerNodePorts = ptr.To(true)
	if _, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "lean"); strings.Contains(out, "Node ports:") {
		t.Errorf("allocateLoadBalancerNodePorts true is shown:\n%s", out)
	}
}

// TestDescribe_RecentEvents: describe shows the latest maxDescribeEvents
// Events, oldest first, says how many earlier ones it left out, and how
// often a repeated Event happened.
func TestDescribe_RecentEvents(t *testing.T) {
	objs := []runtime.Object{describeService("shop", "busy", corev1.ServiceTypeClusterIP)}
	for i := range maxDescribeEvents + 1 {
		objs = append(objs, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("busy.%d", i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: "shop", Name: "busy", UID: "uid-busy"},
			Type:           "Normal", Reason: fmt.Sprintf("Step%d", i), Message: "step", Count: int32(1 + i%2),
			LastTimestamp: ago(time.Duration(100-i) * time.Minute), Source: corev1.EventSource{Component: "example-lb-controller"},
		})
	}
	code, out, errOut := runDescribeFake(t, fake.NewClientset(objs...), "-n", "shop", "busy")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "\nEvents:\n  (1 earlier not shown)\n") || strings.Contains(out, "Step0 ") {
		t.Errorf("the oldest Event is not left out and counted:\n%s", out)
	}
	step1, step10 := strings.Index(out, "Step1 "), strings.Index(out, "Step10 ")
	if step1 < 0 || step10 < step1 {
		t.Errorf("want Step1 to Step10, oldest first:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  Normal +Step3 +97m \(x2\) +example-lb-controller +step$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  Normal +Step2 +98m +example-lb-controller +step$`).MatchString(out) {
		t.Errorf("repeats are not counted, or single Events are:\n%s", out)
	}
}

// Ten Events, the most shown, are all shown, without a count of none left
// out.
func TestDescribe_AsManyEventsAsShown(t *testing.T) {
	objs := []runtime.Object{describeService("shop", "busy", corev1.ServiceTypeClusterIP)}
	for i := range maxDescribeEvents {
		objs = append(objs, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("busy.%d", i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: "shop", Name: "busy", UID: "uid-busy"},
			Type:           "Normal", Reason: fmt.Sprintf("Step%d", i), LastTimestamp: ago(time.Duration(100-i) * time.Minute),
		})
	}
	code, out, _ := runDescribeFake(t, fake.NewClientset(objs...), "-n", "shop", "busy")
	if code != exitOK || strings.Contains(out, "earlier not shown") || !strings.Contains(out, "Step0 ") {
		t.Errorf("exit %d, want every Event and no count of those left out:\n%s", code, out)
	}
}

// Conditions left on a Service that is no longer a LoadBalancer (L9) are
// shown, as the object holds them, next to the checker's warning.
func TestDescribe_L9ConditionsLeftAreShown(t *testing.T) {
	svc := describeService("shop", "was-lb", corev1.ServiceTypeClusterIP)
	svc.Status.Conditions = []metav1.Condition{
		lbCondition(v1.LoadBalancerConditionProvisioning, metav1.ConditionFalse, "Complete", "", time.Hour),
		lbCondition(v1.LoadBalancerConditionServing, metav1.ConditionTrue, "Serving", "", time.Hour),
	}
	code, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "was-lb")
	if code != exitOK || strings.Contains(out, "written on LoadBalancer Services only") ||
		!regexp.MustCompile(`(?m)^  LoadBalancerServing +True +Serving +60m`).MatchString(out) || !regexp.MustCompile(`(?m)^  warning +L9 `).MatchString(out) {
		t.Errorf("exit %d, want the conditions left and L9:\n%s", code, out)
	}
}

// The deprecated LoadBalancerPortsError (C4) is a condition the object
// holds: shown, on a Service of any type, and said not to be one of
// KEP-4631's three, not "none" because none of the three is set.
func TestDescribe_PortsErrorIsShown(t *testing.T) {
	for _, typ := range []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer} {
		svc := describeService("shop", "old-lb", typ)
		svc.Status.Conditions = []metav1.Condition{
			lbCondition(v1.LoadBalancerConditionPortsError, metav1.ConditionTrue, "UDPNotSupported", "no UDP", time.Hour),
		}
		code, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "old-lb")
		if code != exitOK || strings.Contains(out, "none:") ||
			!regexp.MustCompile(`(?m)^  LoadBalancerPortsError +True +UDPNotSupported +60m +no UDP$`).MatchString(out) ||
			!strings.Contains(out, "LoadBalancerPortsError is deprecated, not one of KEP-4631's three") {
			t.Errorf("%s: exit %d, want LoadBalancerPortsError shown, said deprecated:\n%s", typ, code, out)
		}
	}
}

// TestDescribe_EventTimes: an Event written through events.k8s.io has an
// eventTime and no lastTimestamp, and is aged by it; one repeated there is
// aged by its series' last occurrence, counted by the series, and ordered
// by it among the latest; one with no time at all has an unknown age.
func TestDescribe_EventTimes(t *testing.T) {
	ref := corev1.ObjectReference{Kind: "Service", Namespace: "shop", Name: "web", UID: "uid-web"}
	client := fake.NewClientset(describeService("shop", "web", corev1.ServiceTypeClusterIP),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web.new"}, InvolvedObject: ref, Type: "Normal", Reason: "NewStyle",
			EventTime: metav1.NewMicroTime(describeNow.Add(-7 * time.Minute)), ReportingController: "example.com/lb"},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web.series"}, InvolvedObject: ref, Type: "Warning", Reason: "Repeated",
			EventTime:           metav1.NewMicroTime(describeNow.Add(-2 * time.Hour)),
			Series:              &corev1.EventSeries{Count: 40, LastObservedTime: metav1.NewMicroTime(describeNow.Add(-time.Minute))},
			ReportingController: "example.com/lb"},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web.none"}, InvolvedObject: ref, Type: "Normal", Reason: "Timeless"})
	_, out, _ := runDescribeFake(t, client, "-n", "shop", "web")
	if !regexp.MustCompile(`(?m)^  Normal +NewStyle +7m +example.com/lb +\n  Warning +Repeated +60s \(x40\) +example.com/lb +$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  Normal +Timeless +<unknown> +- +$`).MatchString(out) {
		t.Errorf("Event ages:\n%s", out)
	}
}

// TestDescribe_NotWritten: a description that cannot be written (a full
// disk) is exit status 2 with one line, not 0 as if every Service had
// been described.
func TestDescribe_NotWritten(t *testing.T) {
	client := fake.NewClientset(describeObjects()...)
	e := describeEnv{
		now:      func() time.Time { return describeNow },
		services: func(conn *clusterConn) serviceReader { return typedServices{conn} },
		connect: func(f *clusterFlags) (*clusterConn, error) {
			return &clusterConn{client: client, host: "https://cluster.test", namespace: "shop", requestTimeout: time.Second}, nil
		},
	}
	var stderr bytes.Buffer
	code := runDescribe(context.Background(), []string{"svc/web"}, fullDisk{}, &stderr, e)
	if want := "lbstatus: writing the description: write /dev/stdout: no space left on device\n"; code != exitInput || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
	}
}

// A time ahead of the clock (a writer's clock, or ours, is off) says by
// how much, where kubectl says "<invalid>"; within kubectl's tolerance of
// a second it is "0s".
func TestDescribe_AgeInTheFuture(t *testing.T) {
	d := &describer{now: describeNow}
	for _, tc := range []struct {
		ahead time.Duration
		want  string
	}{
		{-5 * time.Minute, "5m"},
		{1500 * time.Millisecond, "0s"},
		{5 * time.Second, "in 5s (clock skew?)"},
		{3 * time.Hour, "in 3h (clock skew?)"},
	} {
		if got := d.age(metav1.NewTime(describeNow.Add(tc.ahead))); got != tc.want {
			t.Errorf("age of a time %s ahead: %q, want %q", tc.ahead, got, tc.want)
		}
	}
}

// TestDescribe_LongLabelKeepsItsValueApart: an annotation the provider
// reads (--relevant-annotation) is shown under its key, which is often
// longer than the label column: its value still comes after a space, not
// glued to the colon.
func TestDescribe_LongLabelKeepsItsValueApart(t *testing.T) {
	const key = "service.beta.kubernetes.io/aws-load-balancer-type"
	svc := describeService("shop", "nlb", corev1.ServiceTypeLoadBalancer)
	svc.Annotations = map[string]string{key: "nlb"}
	code, out, errOut := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "--relevant-annotation", key, "nlb")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "\n  Annotation " + key + ": nlb\n"; !strings.Contains(out, want) {
		t.Errorf("want the line %q:\n%s", strings.Trim(want, "\n"), out)
	}
}

// TestDescribe_RequestErrorWithoutTimeout: without --request-timeout, a
// deadline passed is not blamed on the flag: the error is shown as it is.
func TestDescribe_RequestErrorWithoutTimeout(t *testing.T) {
	d := &describer{conn: &clusterConn{}}
	err := fmt.Errorf("Get \"https://cluster.test/api\": %w", context.DeadlineExceeded)
	if got, want := d.requestError(err), `Get "https://cluster.test/api": context deadline exceeded`; got != want {
		t.Errorf("requestError = %q, want %q", got, want)
	}
}

// TestDescribe_ClientIPConfigWithoutTimeout: a sessionAffinityConfig whose
// clientIP holds no timeout (a manifest may hold one) is shown without a
// timeout, not a crash.
func TestDescribe_ClientIPConfigWithoutTimeout(t *testing.T) {
	svc := describeService("shop", "sticky", corev1.ServiceTypeClusterIP)
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	svc.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{}}
	code, out, errOut := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "sticky")
	if code != exitOK || errOut != "" || !regexp.MustCompile(`(?m)^  Session affinity: +ClientIP$`).MatchString(out) {
		t.Errorf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestDescribe_SeriesWithoutLastObservedTime: an Event with a series but
// no lastObservedTime (as core/v1 Events written by an older recorder
// hold) is dated by its lastTimestamp, not shown as of unknown age.
func TestDescribe_SeriesWithoutLastObservedTime(t *testing.T) {
	ref := corev1.ObjectReference{Kind: "Service", Namespace: "shop", Name: "web", UID: "uid-web"}
	client := fake.NewClientset(describeService("shop", "web", corev1.ServiceTypeClusterIP),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web.series"}, InvolvedObject: ref, Type: "Warning", Reason: "Repeated",
			LastTimestamp: ago(5 * time.Minute), Series: &corev1.EventSeries{Count: 3}, Source: corev1.EventSource{Component: "lb"}})
	_, out, _ := runDescribeFake(t, client, "-n", "shop", "web")
	if !regexp.MustCompile(`(?m)^  Warning +Repeated +5m \(x3\) +lb +$`).MatchString(out) {
		t.Errorf("Event age:\n%s", out)
	}
}

// TestDescribe_PortWithoutNodePort: a port without a node port (none
// allocated, or not yet) shows none.
func TestDescribe_PortWithoutNodePort(t *testing.T) {
	svc := describeService("shop", "web", corev1.ServiceTypeLoadBalancer)
	svc.Spec.Ports[0].NodePort = 0
	_, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "web")
	if !regexp.MustCompile(`(?m)^  Ports: +http 80/TCP$`).MatchString(out) {
		t.Errorf("Ports:\n%s", out)
	}
}

// TestDescribe_AnnotationNotSet: a --relevant-annotation the Service does
// not carry gets no line, which would read as one set to "".
func TestDescribe_AnnotationNotSet(t *testing.T) {
	svc := describeService("shop", "web", corev1.ServiceTypeLoadBalancer)
	svc.Annotations = map[string]string{"lb.example.com/size": ""}
	_, out, _ := runDescribeFake(t, fake.NewClientset(svc), "-n", "shop", "--relevant-annotation", "lb.example.com/size,lb.example.com/zone", "web")
	if !regexp.MustCompile(`(?m)^  Annotation lb.example.com/size: *$`).MatchString(out) || strings.Contains(out, "lb.example.com/zone") {
		t.Errorf("want the size annotation's line alone:\n%s", out)
	}
}

// TestDescribe_EventsOfAnotherKind: an Event about another kind of object
// of the same name is not the Service's, whatever the server's field
// selector let through.
func TestDescribe_EventsOfAnotherKind(t *testing.T) {
	client := fake.NewClientset(describeService("shop", "web", corev1.ServiceTypeClusterIP),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web.pod"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web"},
			Type:           "Warning", Reason: "BackOff", LastTimestamp: ago(time.Minute)})
	_, out, _ := runDescribeFake(t, client, "-n", "shop", "web")
	if strings.Contains(out, "BackOff") || !strings.Contains(out, "Events:                     <none>") {
		t.Errorf("an Event about a Pod is shown:\n%s", out)
	}
}
