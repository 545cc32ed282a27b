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
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// The watch stream of a real apiserver, through the typed client: each
// watch asks for bookmarks and a server-side timeout of 5 to 10 minutes,
// from the last resourceVersion seen; a bookmark moves it, an ERROR event
// with 410 Gone is a gap, and an event the decoder cannot read loses the
// watch, with a message that says what was wrong (in client-go's words,
// which blame the server).
func TestWatchAPI_EventStream(t *testing.T) {
	var mu sync.Mutex
	var watches []url.Values
	lists := 0
	accepts := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		mu.Lock()
		accepts[r.Header.Get("Accept")] = true
		if q.Get("watch") != "true" {
			lists++
			rv := strconv.Itoa(10 + 20*(lists-1))
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{
				"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": rv},
				"items": []any{pending("web", "5")},
			})
			return
		}
		watches = append(watches, q)
		n := len(watches)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		switch n {
		case 1:
			enc.Encode(map[string]any{"type": "BOOKMARK", "object": map[string]any{"kind": "Service", "apiVersion": "v1",
				"metadata": map[string]any{"resourceVersion": "15"}}})
		case 2:
			enc.Encode(map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
				"reason": "Expired", "code": 410, "message": "too old resource version: 15 (25)"}})
		case 3:
			enc.Encode(map[string]any{"type": "WEIRD", "object": map[string]any{}})
		case 4:
			// One event that decodes ends the outage the last began;
			// the next is a loss of its own, said with its own words.
			enc.Encode(map[string]any{"type": "MODIFIED", "object": pending("web", "31")})
			enc.Encode(map[string]any{"type": "MODIFIED", "object": map[string]any{"metadata": "not an object"}})
		default:
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	stdout, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(watches)
		mu.Unlock()
		if n >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d watches; stderr:\n%s", n, stderr)
		}
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	wantGap := "gap        resourceVersions after 15 up to 30 were not observed (the watch's resourceVersion expired (410 Gone: too old resource version: 15 (25))); 0 Services changed in it"
	if out := stdout.String(); strings.Count(out, "gap        ") != 1 || !strings.Contains(out, wantGap) {
		t.Errorf("want one gap line\n%s\ngot:\n%s", wantGap, out)
	}
	log := stderr.String()
	for _, want := range []string{
		`unable to decode an event from the watch stream: a watch event of unknown type \"WEIRD\"`,
		"unable to decode an event from the watch stream: decoding a MODIFIED watch event: ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// JSON, which the decoding reads, whatever the client would prefer.
	if len(accepts) != 1 || !accepts["application/json"] {
		t.Errorf("requests accepting %v, want only application/json", accepts)
	}
	var from []string
	timeouts := map[int]bool{}
	for i, q := range watches {
		from = append(from, q.Get("resourceVersion"))
		timeout, err := strconv.Atoi(q.Get("timeoutSeconds"))
		if q.Get("allowWatchBookmarks") != "true" || err != nil || timeout < 300 || timeout > 600 {
			t.Errorf("watch %d: %v, want bookmarks and a timeout of 300 to 600 s", i, q)
		}
		timeouts[timeout] = true
	}
	if len(timeouts) == 1 {
		t.Errorf("every watch asked for a timeout of %v s: watchers would all come back at once", timeouts)
	}
	if got := strings.Join(from, ","); got != "10,15,30,30,31" {
		t.Errorf("watched from %s, want 10, the bookmark's 15, the new list's 30, then the event's 31", got)
	}
}

// The first list is not retried inside client-go, even when the server
// asks for it with Retry-After: the command says at once that the server
// cannot be read.
func TestWatchAPI_FirstListNotRetried(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
			"reason": "ServiceUnavailable", "code": 503, "message": "the server is busy"})
	}))
	t.Cleanup(srv.Close)
	var out, errOut bytes.Buffer
	code := runContext(context.Background(), []string{"watch", "--kubeconfig", writeKubeconfig(t, srv.URL)}, nil, &out, &errOut, defaultEnv())
	if code != exitInput || !strings.HasPrefix(errOut.String(), "lbstatus: listing Services on "+srv.URL+": ") || !strings.Contains(errOut.String(), "the server is busy") {
		t.Errorf("exit %d, stderr %q; want 2 and the server's words", code, errOut.String())
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// --request-timeout 0 is no timeout, as with kubectl: the list is waited
// for.
func TestWatchAPI_RequestTimeoutZero(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			json.NewEncoder(w).Encode(map[string]any{
				"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "10"},
				"items": []any{pending("web", "5")},
			})
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	stdout, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL), "--request-timeout", "0")
	waitFor(t, stderr, "lbstatus: watching Services in namespace default of "+srv.URL)
	if code := stop(); code != exitOK || !strings.Contains(stdout.String(), "Watched 1 observation of 1 Service.") {
		t.Errorf("exit %d, want 0:\n%s", code, stdout)
	}
}

// A namespace that does not exist is said to, when it holds no Service:
// a namespace misspelt was watched in silence. One that exists, or that
// the user may not read, is not.
func TestWatchAPI_MissingNamespace(t *testing.T) {
	for ns, want := range map[string]bool{"shopp": true, "shop": false, "secret": false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			status := map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure"}
			switch {
			case r.URL.Path == "/api/v1/namespaces/shopp":
				w.WriteHeader(http.StatusNotFound)
				status["reason"], status["code"] = "NotFound", 404
				json.NewEncoder(w).Encode(status)
			case r.URL.Path == "/api/v1/namespaces/secret":
				w.WriteHeader(http.StatusForbidden)
				status["reason"], status["code"] = "Forbidden", 403
				json.NewEncoder(w).Encode(status)
			case r.URL.Path == "/api/v1/namespaces/shop":
				json.NewEncoder(w).Encode(map[string]any{"kind": "Namespace", "apiVersion": "v1", "metadata": map[string]any{"name": "shop"}})
			case r.URL.Query().Get("watch") != "true":
				emptyList(w)
			default:
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}
		}))
		_, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL), "-n", ns)
		waitFor(t, stderr, "lbstatus: watching Services in namespace "+ns)
		stop()
		srv.Close()
		if got := strings.Contains(stderr.String(), "lbstatus: namespace "+ns+" does not exist; its Services are watched for should it be created\n"); got != want {
			t.Errorf("namespace %s: said missing %v, want %v:\n%s", ns, got, want, stderr)
		}
	}
}

// -A watches the Services of every namespace, at the cluster-wide path,
// and says so.
func TestWatchAPI_AllNamespaces(t *testing.T) {
	var paths sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths.Store(r.URL.Path, true)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			emptyList(w)
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	_, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL), "-A", "-l", "app=web")
	waitFor(t, stderr, "lbstatus: watching Services matching app=web in all namespaces of "+srv.URL+"; interrupt to stop")
	stop()
	var got []string
	paths.Range(func(k, _ any) bool { got = append(got, k.(string)); return true })
	if len(got) != 1 || got[0] != "/api/v1/services" {
		t.Errorf("requests to %v, want only /api/v1/services", got)
	}
}

// A watch given up after an ERROR event is closed, not left open on the
// server beside the next one.
func TestWatchAPI_WatchClosedAfterAnError(t *testing.T) {
	var watches atomic.Int32
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			emptyList(w)
			return
		}
		n := watches.Add(1)
		w.WriteHeader(http.StatusOK)
		if n == 1 {
			json.NewEncoder(w).Encode(map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "apiVersion": "v1",
				"status": "Failure", "reason": "InternalError", "code": 500, "message": "etcd is down"}})
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		if n == 1 {
			close(closed)
		}
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	_, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL))
	waitFor(t, stderr, "(etcd is down)")
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Error("the watch that failed is still open")
	}
	stop()
}

// A list the server answers with a body that does not decode as a list of
// Services, field names matched case-sensitively as kube-apiserver matches
// them, is an error that says so.
func TestWatchAPI_UndecodableList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind": "ServiceList", "apiVersion": "v1", "metadata": {"resourceVersion": "10"}, "items": "none"}`))
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := runContext(ctx, []string{"watch", "--kubeconfig", writeKubeconfig(t, srv.URL)}, nil, &out, &errOut, defaultEnv())
	if want := "lbstatus: listing Services on " + srv.URL + ": decoding the Service list: "; code != exitInput || !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}

// Field names are matched case-sensitively, as kube-apiserver matches
// them, in a list as in a watch event: "Type" is not spec.type.
func TestWatchAPI_CaseSensitiveFields(t *testing.T) {
	// A LoadBalancer Service still pending, whose spec also carries a
	// "Type" that a case-insensitive decoder would take for spec.type.
	const item = `{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "%s", "namespace": "default", "uid": "uid-%[1]s", "resourceVersion": "%s"},
		"spec": {"type": "LoadBalancer", "Type": "ClusterIP", "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			fmt.Fprintf(w, `{"kind": "ServiceList", "apiVersion": "v1", "metadata": {"resourceVersion": "10"}, "items": [`+item+`]}`, "listed", "5")
			return
		}
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, `{"type": "ADDED", "object": `+item+"}\n", "watched", "11")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	stdout, _, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL))
	waitFor(t, stdout, "Service default/watched: status: verdict Pending (T4)")
	stop()
	if !strings.Contains(stdout.String(), "Service default/listed: status: verdict Pending (T4)") {
		t.Errorf("the listed Service was not taken for a LoadBalancer:\n%s", stdout)
	}
}

// An interrupt while a watch request waits for the server's answer ends
// the command quietly: that is no lost watch.
func TestWatchAPI_InterruptWhileWatchWaits(t *testing.T) {
	arrived := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", "application/json")
			emptyList(w)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done() // no answer, not even the headers
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the waiting watch
	_, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL))
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no watch request")
	}
	if code := stop(); code != exitOK || strings.Contains(stderr.String(), "lost the watch") {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and no lost watch", code, stderr)
	}
}

// A watch whose answer (even the headers) does not come within
// --request-timeout, as on a connection that died unseen, is lost, said
// in the flag's words; its request is closed, and the watch is back, from
// the same resourceVersion, once the server answers again.
func TestWatchAPI_WatchUnansweredWithinRequestTimeout(t *testing.T) {
	var watches atomic.Int32
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			emptyList(w)
			return
		}
		if watches.Add(1) == 1 {
			<-r.Context().Done() // no answer, not even the headers
			close(closed)
			return
		}
		w.WriteHeader(http.StatusOK)
		json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": pending("web", "11")})
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	stdout, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL), "--request-timeout", "500ms")
	waitFor(t, stderr, "lbstatus: lost the watch on "+srv.URL+" (watching Services: no answer within 500ms (--request-timeout)); trying again every few seconds\n"+
		"lbstatus: watching again from resourceVersion 10\n")
	waitFor(t, stdout, "Service default/web: status: verdict Pending (T4)")
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Error("the unanswered watch is still open")
	}
	if code := stop(); code != exitOK || strings.Contains(stdout.String(), "not back at the end") {
		t.Errorf("exit %d, want 0 and the watch back:\n%s", code, stdout)
	}
}

// A watch that goes silent once the server answered, as on a connection
// that died unseen, is lost once the server should have ended it (at the
// timeoutSeconds the watch asked for) and a grace (a tenth of so short a
// timeout) has passed with nothing from it: said once, its request closed,
// and the next watch resumes from the same resourceVersion. Watches the
// server ends at their timeout, as an apiserver does, are no loss.
func TestWatchAPI_SilentWatchIsLost(t *testing.T) {
	var watches atomic.Int32
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		if q.Get("watch") != "true" {
			emptyList(w)
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		if watches.Add(1) == 1 {
			<-r.Context().Done() // silent for ever
			close(closed)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": pending("web", "11")})
		w.(http.Flusher).Flush()
		timeout, _ := strconv.Atoi(q.Get("timeoutSeconds"))
		select {
		case <-r.Context().Done():
		case <-time.After(time.Duration(timeout) * time.Second):
		}
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	e := env{newSource: func(f *watchFlags) (serviceSource, error) {
		src, err := newClusterSource(f)
		if err == nil {
			src.(*listWatchSource).watchTimeout = time.Second
		}
		return src, err
	}}
	stdout, stderr, stop := startWatch(t, e, "--kubeconfig", writeKubeconfig(t, srv.URL))
	waitFor(t, stderr, "lbstatus: lost the watch on "+srv.URL+" (the watch stayed open past its timeout of ")
	waitFor(t, stderr, "lbstatus: watching again from resourceVersion 10\n")
	waitFor(t, stdout, "Service default/web: status: verdict Pending (T4)")
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Error("the silent watch is still open")
	}
	for deadline := time.Now().Add(30 * time.Second); watches.Load() < 4; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d watches; stderr:\n%s", watches.Load(), stderr)
		}
	}
	if code := stop(); code != exitOK || strings.Contains(stdout.String(), "not back at the end") {
		t.Errorf("exit %d, want 0 and the watch back:\n%s", code, stdout)
	}
	if n := strings.Count(stderr.String(), "lost the watch"); n != 1 {
		t.Errorf("the watch said lost %d times, want once:\n%s", n, stderr)
	}
}

// A server that answers every watch and ends it at once, with no event
// and no error (as a proxy before the apiserver may), is watching
// nothing: the watch is said lost, and the summary says it was lost at
// the end, rather than a clean result covering what was never watched.
func TestWatchAPI_WatchesEndedAtOnce(t *testing.T) {
	var watches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			emptyList(w)
			return
		}
		watches.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	stdout, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL))
	waitFor(t, stderr, fmt.Sprintf("(the server ended %d watches in a row at once, without an event); trying again", closedAtOnceLost))
	if code := stop(); code != exitOK || !strings.Contains(stdout.String(), "not back at the end") {
		t.Errorf("exit %d, want 0 and the summary to say the watch was lost:\n%s", code, stdout)
	}
	if n := watches.Load(); n < closedAtOnceLost {
		t.Errorf("%d watches, want at least %d", n, closedAtOnceLost)
	}
}

// With -l, a Service missing from the list after a gap may only have left
// the selector: one list without the selector, of the namespace they
// share, in pages, tells which. The trace of one still there with its uid
// ends as one that stopped matching the selector; of one gone, or another
// Service under its name, as a deleted one.
func TestWatchAPI_LeftTheSelectorInAGap(t *testing.T) {
	var mu sync.Mutex
	lists, watches := 0, 0
	var unselected []*url.URL
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		enc := json.NewEncoder(w)
		mu.Lock()
		switch {
		case q.Get("watch") == "true":
			watches++
			n := watches
			mu.Unlock()
			w.WriteHeader(http.StatusOK)
			if n == 1 {
				enc.Encode(map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
					"reason": "Expired", "code": 410, "message": "too old resource version"}})
				return
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		case q.Get("labelSelector") == "app=web":
			lists++
			rv, items := "10", []any{pending("web", "5"), pending("api", "6"), pending("old", "7")}
			if lists > 1 {
				rv, items = "30", []any{}
			}
			enc.Encode(map[string]any{"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": rv}, "items": items})
		default:
			unselected = append(unselected, r.URL)
			// web relabelled; api deleted and created again, without
			// the label; old deleted.
			items := []any{pending("web", "25"), service("api", "26", func(s *v1.Service) { s.UID = "uid-api-2" })}
			enc.Encode(map[string]any{"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "30"}, "items": items})
		}
		mu.Unlock()
	}))
	t.Cleanup(srv.Close) // after startWatch's cleanup, which ends the held watch
	stdout, stderr, stop := startWatch(t, defaultEnv(), "--kubeconfig", writeKubeconfig(t, srv.URL), "-n", "default", "-l", "app=web")
	waitFor(t, stdout, "gap        ")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := watches
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no watch after the gap; stderr:\n%s", stderr)
		}
	}
	stop()
	out := stdout.String()
	for name, want := range map[string]string{"web": "the Service stopped matching the selector", "api": "the Service was deleted", "old": "the Service was deleted"} {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "R3") && strings.Contains(l, "Service default/"+name+":") {
				line = l
			}
		}
		if !strings.Contains(line, want) {
			t.Errorf("%s's R3 %q does not say %q:\n%s", name, line, want, out)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unselected) != 1 || unselected[0].Path != "/api/v1/namespaces/default/services" ||
		unselected[0].Query().Get("limit") != strconv.Itoa(leftInGapPage) || unselected[0].Query().Has("labelSelector") {
		t.Errorf("lists without the selector %v, want one page of namespace default", unselected)
	}
}

// emptyList answers a list of Services with none, at resourceVersion 10.
func emptyList(w http.ResponseWriter) {
	json.NewEncoder(w).Encode(map[string]any{
		"kind": "ServiceList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "10"}, "items": []any{}})
}
