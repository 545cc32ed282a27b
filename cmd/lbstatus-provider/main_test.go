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
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/lbstatus/lbstatus/provider"
)

func TestRun_Usage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help shows an example", []string{"--help"}, 0, "lbstatus-provider --class example.com/lb"},
		{"no class", nil, 2, "give --class, --default-class or both"},
		{"bad pool", []string{"--class", "c", "--pool", "198.18.0.1/24"}, 2, "--pool"},
		{"bad family", []string{"--class", "c", "--ip-families", "IPv5"}, 2, `unknown family "IPv5"`},
		{"bad protocol", []string{"--class", "c", "--protocols", "QUIC"}, 2, `unknown protocol "QUIC"`},
		{"bad unsupported", []string{"--class", "c", "--unsupported", "Ports"}, 2, "--unsupported"},
		{"refuse outside P3", []string{"--class", "c", "--refuse", "ExternalTrafficPolicy"}, 2, "not a feature of P3"},
		{"refuse what is supported", []string{"--class", "c", "--unsupported", "LoadBalancerIP", "--refuse", "LoadBalancerIP,SessionAffinity"}, 2,
			"--refuse: SessionAffinity is supported, so there is nothing to refuse: give --unsupported SessionAffinity too"},
		{"bad class", []string{"--class", "c", "--class", "example.com/Bad!"}, 2, `--class "example.com/Bad!": not a loadBalancerClass the apiserver accepts`},
		{"negative delay", []string{"--class", "c", "--provision-delay", "-1s"}, 2, "--provision-delay -1s: want zero or more"},
		{"no workers", []string{"--class", "c", "--workers", "0"}, 2, "--workers 0: want at least 1"},
		// Said as what the flag wants, not in the words of Go's strconv.
		{"workers that is no number", []string{"--class", "c", "--workers", "x"}, 2, `invalid argument "x" for "--workers" flag: want a whole number`},
		{"workers out of range", []string{"--class", "c", "--workers", "99999999999999999999"}, 2, `invalid argument "99999999999999999999" for "--workers" flag: out of range`},
		{"default class that is no boolean", []string{"--default-class=maybe"}, 2, `invalid argument "maybe" for "--default-class" flag: want true or false`},
		{"unknown feature that is none", []string{"--class", "c", "--unknown-features", "Teleport"}, 2, `--unknown-features: "Teleport" is not a feature`},
		{"bad bug", []string{"--class", "c", "--bug", "Everything"}, 2, `unknown bug "Everything"`},
		{"empty pool", []string{"--class", "c", "--pool="}, 2, "--pool: no CIDR given"},
		{"malformed health address", []string{"--class", "c", "--health-addr", "bad"}, 2, `--health-addr "bad": address bad: missing port`},
		{"unknown metrics port", []string{"--class", "c", "--metrics-addr", ":nope"}, 2, `--metrics-addr ":nope"`},
		{"arguments", []string{"--class", "c", "extra"}, 2, "no arguments expected"},
		// lbstatus check takes --class '' for the Services without a
		// class; the provider has --default-class for them, and says so.
		{"empty class", []string{"--class", ""}, 2, `--class "": for the Services without a class, give --default-class`},
		{"empty class in a list", []string{"--class", "a,"}, 2, `--class "": for the Services without a class, give --default-class`},
		// A word where none is taken is named first, whatever else is
		// missing: "help" is no reason to ask for --class.
		{"help as an argument", []string{"help"}, 2, `no arguments expected, got ["help"] (run "lbstatus-provider --help")`},
		// Without --leader-elect no Lease is held: two replicas given a
		// Lease's name would both write, each believing the other waits.
		// clientcmd would take it as no limit at all.
		{"negative request timeout", []string{"--class", "c", "--request-timeout", "-5s"}, 2, `--request-timeout "-5s": want a duration of zero`},
		{"request timeout that is no duration", []string{"--class", "c", "--request-timeout", "soon"}, 2, `--request-timeout "soon"`},
		{"lease name without leader election", []string{"--class", "c", "--leader-election-id", "lb"}, 2, "give --leader-elect too"},
		{"lease namespace without leader election", []string{"--class", "c", "--leader-election-namespace", "kube-system"}, 2, "give --leader-elect too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			out, name := stderr.String(), "stderr"
			if code == 0 {
				out, name = stdout.String(), "stdout" // help, where a pager reads it
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("%s %q does not say %q", name, out, tc.want)
			}
			if code == 2 && strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
				t.Errorf("more than one line: %q", stderr.String())
			}
		})
	}
}

// Without a kubeconfig the provider stops at once, saying so, instead of
// retrying http://localhost:8080 for ever.
func TestRun_NoKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "nope"))
	t.Setenv("KUBERNETES_MASTER", "")
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"--class", "c"}, io.Discard, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "lbstatus-provider: no cluster to talk to: ") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// A context the kubeconfig does not have is one line naming the kubeconfig.
func TestRun_MissingContextNamesTheKubeconfig(t *testing.T) {
	kubeconfig := kubeconfigFor(t, "https://127.0.0.1:1")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--kubeconfig", kubeconfig, "--class", "c", "--context", "nope"}, io.Discard, &stderr)
	if want := "lbstatus-provider: loading kubeconfig " + kubeconfig + ": context \"nope\" does not exist\n"; code != 2 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
	}
}

// An address already taken, as by a second provider on the same machine,
// stops the provider with a line naming the flag and what to do.
func TestRun_AddressInUse(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler()) // never reached
	defer srv.Close()
	kubeconfig := kubeconfigFor(t, srv.URL)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--kubeconfig", kubeconfig, "--class", "c", "--metrics-addr", "", "--health-addr", taken.Addr().String()}, io.Discard, &stderr)
	want := "lbstatus-provider: --health-addr \"" + taken.Addr().String() + "\": "
	if code != 1 || !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "give --health-addr another address") {
		t.Errorf("exit %d, stderr %q, want it to start %q and say what to do", code, stderr.String(), want)
	}
}

func TestOptions_CapabilitiesFromFlags(t *testing.T) {
	f := flags{
		cluster:     nil,
		classes:     []string{"example.com/lb"},
		pools:       []string{"198.18.0.0/24"},
		families:    []string{"IPv4"},
		noDualStack: true,
		protocols:   []string{"tcp"},
		unsupported: []string{"SessionAffinity", "ExternalTrafficPolicy"},
		refuse:      []string{"SessionAffinity"},
		unknown:     []string{"Ports"},
		workers:     2,
		bugs:        []string{"SkipProvisioningBump"},
	}
	empty := ""
	f.cluster = newConfigFlagsForTest(&empty)
	opts, err := f.options()
	if err != nil {
		t.Fatal(err)
	}
	c := opts.Capabilities
	if c.SessionAffinity || c.PreserveSourceIP || !c.LoadBalancerIP || c.DualStack || len(c.IPFamilies) != 1 ||
		len(c.Protocols) != 1 || c.Protocols[0] != "TCP" || len(c.RefuseUnsupported) != 1 || len(c.KnownFeatures) != 5 {
		t.Errorf("capabilities %+v do not follow the flags", c)
	}
	if !opts.Bugs.SkipProvisioningBump || opts.Pool == nil || opts.Bugs == (provider.Bugs{}) {
		t.Errorf("options %+v: want the bug and a pool", opts)
	}
}

func newConfigFlagsForTest(namespace *string) *genericclioptions.ConfigFlags {
	cf := genericclioptions.NewConfigFlags(false)
	cf.Namespace = namespace
	return cf
}

// TestDeployment_ArgsParse: the shipped Deployment's arguments are ones the
// program accepts, with leader election and both endpoints on.
func TestDeployment_ArgsParse(t *testing.T) {
	data, err := os.ReadFile("../../deploy/provider/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatalf("deployment.yaml: %v", err)
	}
	args := d.Spec.Template.Spec.Containers[0].Args
	var stderr bytes.Buffer
	f, opts, code, done := parse(args, io.Discard, &stderr)
	if done {
		t.Fatalf("args %q: exit %d: %s", args, code, stderr.String())
	}
	if !f.leaderElect || f.healthAddr == "" || f.metricsAddr == "" || len(opts.Capabilities.Classes) != 1 || opts.Pool == nil {
		t.Errorf("args %q: flags %+v, want a class, a pool, leader election and both endpoints", args, f)
	}
}

// TestLeaseName: providers of different classes get different Leases by
// default, so that each runs; replicas of one provider share one, whatever
// the order of their classes. A Lease name the apiserver would refuse is
// bad usage.
func TestLeaseName(t *testing.T) {
	lease := func(args ...string) string {
		t.Helper()
		var stderr bytes.Buffer
		f, _, code, done := parse(append(args, "--kubeconfig", "/nonexistent"), io.Discard, &stderr)
		if done {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
		return f.leaseName
	}
	a := lease("--class", "example.com/lb")
	b := lease("--class", "other.example/lb")
	if a == b || !strings.HasPrefix(a, "lbstatus-provider-example.com-lb-") || !strings.HasPrefix(b, "lbstatus-provider-other.example-lb-") {
		t.Errorf("two classes: %q and %q, want two Leases named after them", a, b)
	}
	if got := lease("--default-class"); got != "lbstatus-provider" {
		t.Errorf("the default class: %q, want lbstatus-provider", got)
	}
	both := lease("--class", "b.example/x,a.example/y", "--default-class")
	if got := lease("--default-class", "--class", "a.example/y", "--class", "b.example/x"); got != both || !strings.HasPrefix(both, "lbstatus-provider-default-a.example-y-b.example-x-") {
		t.Errorf("the same classes in another order: %q and %q, want one Lease", got, both)
	}
	if upper := lease("--class", "example.com/LB"); upper == a {
		t.Errorf("classes that differ in case share the Lease %q", a)
	}
	// A class whose readable form is no name: the hash alone.
	if got := lease("--class", "a.b/c.-d"); len(validation.IsDNS1123Subdomain(got)) > 0 || !strings.HasPrefix(got, "lbstatus-provider-") {
		t.Errorf("class a.b/c.-d: Lease %q, want a valid name", got)
	}
	if got := lease("--class", "example.com/lb", "--leader-elect", "--leader-election-id", "mine"); got != "mine" {
		t.Errorf("--leader-election-id mine: %q", got)
	}
	var stderr bytes.Buffer
	if _, _, code, _ := parse([]string{"--class", "example.com/lb", "--leader-elect", "--leader-election-id", "Not_A_Name"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), `--leader-election-id "Not_A_Name": not a name a Lease can have`) {
		t.Errorf("an invalid Lease name: exit %d, %q; want 2 naming the flag", code, stderr.String())
	}
}

// TestLeaseName_Stable: the default Lease name is fixed for given classes,
// since during a rolling upgrade the replicas of the old and the new
// version must still share one Lease: the classes, lower-cased, as a name
// (letters, digits, dots and dashes kept, anything else a dash), and the
// hash in eight hex digits, leading zeros too; the hash alone where the
// classes make no valid name.
func TestLeaseName_Stable(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--class", "zone9-14.example/LB_0"}, "lbstatus-provider-zone9-14.example-lb-0-00568278"},
		{[]string{"--class", "example.com/LB"}, "lbstatus-provider-example.com-lb-647b3f25"},
		{[]string{"--class", "a.b/c.-d"}, "lbstatus-provider-fe3b05a9"},
		{[]string{"--default-class"}, "lbstatus-provider"},
	} {
		var stderr bytes.Buffer
		f, _, code, done := parse(append(tc.args, "--kubeconfig", "/nonexistent"), io.Discard, &stderr)
		if done {
			t.Fatalf("%q: exit %d: %s", tc.args, code, stderr.String())
		}
		if f.leaseName != tc.want {
			t.Errorf("%q: Lease %q, want %q", tc.args, f.leaseName, tc.want)
		}
	}
}

// --request-timeout bounds a request that ends, as kubectl's does; it must
// not cut the provider's watch of Services, which is meant to stay open:
// cut every few seconds, the provider would list and watch again and
// again, and miss nothing only by luck.
func TestRun_RequestTimeoutLeavesTheWatchOpen(t *testing.T) {
	var watches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
			watches.Add(1)
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, `{"kind":"ServiceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`)
	}))
	defer srv.Close()
	kubeconfig := kubeconfigFor(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, []string{"--kubeconfig", kubeconfig, "--class", "c", "--metrics-addr", "", "--health-addr", "", "--request-timeout", "500ms"}, io.Discard, &stderr)
	if code != 0 || watches.Load() != 1 {
		t.Errorf("exit %d, %d watches in 3s with --request-timeout 500ms, want one that stays open; stderr:\n%s", code, watches.Load(), stderr.String())
	}
}

// boundedTransport still bounds a request that should end: a list the
// server does not answer fails after the timeout.
func TestBoundedTransport_BoundsAList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	client := &http.Client{Transport: &boundedTransport{rt: http.DefaultTransport, timeout: 200 * time.Millisecond}}
	start := time.Now()
	resp, err := client.Get(srv.URL + "/api/v1/services")
	if err == nil {
		resp.Body.Close()
	}
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("a list without an answer: error %v after %v, want one after about 200ms", err, time.Since(start))
	}
}

// boundedTransport leaves a watch unbounded however the request spells
// it: watch=true, as client-go does, or watch=1, which the apiserver takes
// as well.
func TestBoundedTransport_LeavesAWatchOpen(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	client := &http.Client{Transport: &boundedTransport{rt: http.DefaultTransport, timeout: 50 * time.Millisecond}}
	for _, watch := range []string{"true", "1"} {
		resp, err := client.Get(srv.URL + "/api/v1/services?watch=" + watch)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err != nil {
			t.Errorf("a watch (watch=%s) answered after 300ms: %v; want it left open past the 50ms timeout", watch, err)
		}
	}
}

// A request that fails because its caller gave up (the provider is
// stopping) says nothing of an outage: the apiserver was not found
// unreachable.
func TestReachTransport_CallerGaveUp(t *testing.T) {
	var stderr bytes.Buffer
	failing := roundTripFunc(func(r *http.Request) (*http.Response, error) { return nil, r.Context().Err() })
	reach := &reachTransport{rt: failing, host: "https://apiserver", stderr: &stderr}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://apiserver/api/v1/services", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reach.RoundTrip(req); err == nil {
		t.Fatal("a request of a context that ended did not fail")
	}
	if stderr.Len() > 0 || reach.down {
		t.Errorf("a request its caller gave up: stderr %q, down %v; want nothing said", stderr.String(), reach.down)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// lockedBuffer is a bytes.Buffer written by the provider's goroutines and
// read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An apiserver that refuses connections was retried without a word: the
// operator saw nothing for as long as it was down. The provider says so at
// once, one line for the outage however many retries, and one line when
// the apiserver answers again.
func TestRun_SaysWhenTheAPIServerCannotBeReached(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // refused until the server below starts
	kubeconfig := kubeconfigFor(t, "http://"+addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--kubeconfig", kubeconfig, "--class", "c", "--metrics-addr", "", "--health-addr", ""}, io.Discard, stderr)
	}()
	waitFor := func(what string, within time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(within); !strings.Contains(stderr.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				cancel()
				<-done
				t.Fatalf("no %q in %v; stderr %q", what, within, stderr.String())
			}
		}
	}
	down := "lbstatus-provider: cannot reach the apiserver http://" + addr + ": dial tcp " + addr + ": connect: connection refused; retrying\n"
	waitFor(down, 2*time.Second)
	time.Sleep(3 * time.Second) // retries
	if n := strings.Count(stderr.String(), "cannot reach"); n != 1 {
		t.Errorf("%d lines for one outage, want 1; stderr %q", n, stderr.String())
	}

	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, `{"kind":"ServiceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	waitFor("lbstatus-provider: the apiserver http://"+addr+" answers again\n", 30*time.Second)
	cancel()
	if code := <-done; code != 0 || strings.Count(stderr.String(), "\n") != 2 {
		t.Errorf("exit %d, stderr %q; want 0 and the two lines alone", code, stderr.String())
	}
}

// With --leader-elect, client-go's leader election logged an error on
// every retry of the Lease (every 2 s) while the apiserver refused
// connections, beside the provider's own line for the outage: the one
// line must stay one.
func TestRun_LeaderElectionSaysNothingMoreWhenTheAPIServerCannotBeReached(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // refused
	kubeconfig := kubeconfigFor(t, "http://"+addr)
	logged := &lockedBuffer{}
	// Through the context, not klog's global logger, which the informers
	// of earlier tests may still read.
	logger := funcr.New(func(prefix, args string) { logged.Write([]byte(prefix + " " + args + "\n")) }, funcr.Options{})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--kubeconfig", kubeconfig, "--class", "c", "--leader-elect", "--leader-election-namespace", "ns", "--metrics-addr", "", "--health-addr", ""}, io.Discard, stderr)
	}()
	time.Sleep(5 * time.Second) // the first try, and two retries
	cancel()
	<-done
	if n := strings.Count(stderr.String(), "cannot reach"); n != 1 {
		t.Errorf("%d lines for one outage, want 1; stderr %q", n, stderr.String())
	}
	if strings.Contains(logged.String(), "connection refused") {
		t.Errorf("the leader election logged the outage too:\n%s", logged.String())
	}
	if !strings.Contains(logged.String(), "Attempting to acquire leader lease") {
		t.Errorf("the leader election's other messages went too:\n%s", logged.String())
	}
}

// kubeconfigFor writes a kubeconfig whose one context is server, without
// credentials, and returns its path.
func kubeconfigFor(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"" + server + "\"}}]\n" +
		"users: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fullDisk is standard output on a full disk.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) {
	return 0, errors.New("write /dev/stdout: no space left on device")
}

// Help that could not be written was not printed: "lbstatus-provider
// --help > /dev/full" exited 0.
func TestRun_HelpNotWrittenIsAnError(t *testing.T) {
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--help"}, fullDisk{}, &stderr)
	if want := "lbstatus-provider: writing the help: write /dev/stdout: no space left on device\n"; code != 2 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
	}
}
