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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/timeline"
)

// l6Trace is a trace where web misses L6, api acknowledges its spec change
// and db never writes again.
const l6Trace = "../../conformance/timeline/testdata/l6-miss.json"

// TestCheck_TimelineGolden: check --timeline prints the input's table,
// then its timelines, where the L6 violation sits on web's 5th observation
// after the ports change on its 4th.
func TestCheck_TimelineGolden(t *testing.T) {
	code, out, errOut := runCmd(t, "", "check", "--timeline", l6Trace)
	if code != exitViolation || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	table, timelines, ok := strings.Cut(out, "Timeline:")
	if !ok || !strings.Contains(table, "shop/web  LoadBalancer") || !strings.Contains(timelines, "FAIL: 1 violation") {
		t.Fatalf("want the table, then the timelines, then the totals:\n%s", out)
	}
	checkGolden(t, "check-timeline.txt", out)
}

// TestCheck_TimelineStdin: a timeline of standard input.
func TestCheck_TimelineStdin(t *testing.T) {
	code, out, _ := runCmd(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"type":"LoadBalancer"}}`, "check", "--timeline")
	if code != exitOK || !strings.Contains(out, "a: 1 observation") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestCheck_HTMLOfManyInputs: -o html of a directory keeps, past twice
// --html-services, only the timelines the page will draw: those with a
// violation first, then those with a warning, in input order. The page
// draws them and counts every Service.
func TestCheck_HTMLOfManyInputs(t *testing.T) {
	dir := t.TempDir()
	degraded := strings.Replace(readyYAML, "  conditions:\n", "  conditions:\n  - {type: LoadBalancerDegraded, status: \"False\", reason: Ports, message: \"\", lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n", 1)
	for i := range 9 {
		name := fmt.Sprintf("svc-%d", i)
		content := strings.Replace(readyYAML, "name: web", "name: "+name, 1)
		switch i {
		case 3, 7: // L4: serving without an ingress
			content = strings.Replace(noIngressJSON, `"name":"no-ingress"`, `"name":"`+name+`"`, 1)
		case 5: // C2: Degraded=False
			content = strings.Replace(degraded, "name: web", "name: "+name, 1)
		}
		write(t, dir, fmt.Sprintf("f%d.yaml", i), content)
	}
	for n, want := range map[string]string{"1": "shop/svc-3", "2": "shop/svc-3 shop/svc-7", "3": "shop/svc-3 shop/svc-5 shop/svc-7", "4": "shop/svc-0 shop/svc-3 shop/svc-5 shop/svc-7"} {
		code, out, errOut := runCmd(t, "", "check", "-o", "html", "--html-services", n, dir)
		if code != exitViolation || errOut != "" {
			t.Fatalf("--html-services %s: exit %d, stderr %q", n, code, errOut)
		}
		var drawn []string
		for _, part := range strings.Split(out, `data-service="`)[1:] {
			drawn = append(drawn, part[:strings.IndexByte(part, '"')])
		}
		if got := strings.Join(drawn, " "); got != want || !strings.Contains(out, n+" of 9 Services are drawn") {
			t.Errorf("--html-services %s: drawn %q, want %q, and %q", n, got, want, n+" of 9 Services are drawn")
		}
	}

	// The reporter keeps at most twice the limit, and counts the others.
	r := &htmlReporter{hooks: &checkHooks{htmlServices: new(3)}}
	for i := range 100 {
		r.add([]*timeline.Service{{Name: fmt.Sprint(i), LoadBalancer: true}})
		if len(r.services) > 6 || len(r.services)+r.undrawn != i+1 {
			t.Fatalf("after %d inputs: %d timelines kept, %d counted", i+1, len(r.services), r.undrawn)
		}
	}
}

// TestCheck_HTMLNamesEachServicesInput: the page of two inputs that each
// hold shop/web draws two sections of that name; each says which input it
// was read from, or the reader cannot tell whose story is whose.
func TestCheck_HTMLNamesEachServicesInput(t *testing.T) {
	dir := t.TempDir()
	monday := write(t, dir, "monday.yaml", readyYAML)
	tuesday := write(t, dir, "tuesday.json", strings.Replace(noIngressJSON, `"name":"no-ingress"`, `"name":"web"`, 1))
	code, out, errOut := runCmd(t, "", "check", "-o", "html", monday, tuesday)
	if code != exitViolation || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	sections := strings.Split(out, "<section ")[1:]
	if len(sections) != 2 {
		t.Fatalf("%d sections, want 2:\n%s", len(sections), out)
	}
	for i, want := range []string{monday, tuesday} {
		if !strings.Contains(sections[i], `data-service="shop/web"`) || !strings.Contains(sections[i], "<code>"+want+"</code>") {
			t.Errorf("section %d does not name its input %s:\n%s", i+1, want, sections[i])
		}
	}
}

// TestCheck_TimelineNeedsText: --timeline with -o json would corrupt the
// JSON; it is bad usage.
func TestCheck_TimelineNeedsText(t *testing.T) {
	code, out, errOut := runCmd(t, "", "check", "--timeline", "-o", "json", l6Trace)
	if code != exitInput || out != "" || !strings.Contains(errOut, "--timeline goes with -o text") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestCheck_HTML: -o html writes one page, nothing else, with a section
// per LoadBalancer Service and the L6 finding pinned on web; the exit
// status is check's.
func TestCheck_HTML(t *testing.T) {
	code, out, errOut := runCmd(t, "", "check", "-o", "html", l6Trace, "does-not-exist.json")
	if code != exitInput || !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Fatalf("exit %d, stderr %q, stdout starts %.40q", code, errOut, out)
	}
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var services, pins []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			switch {
			case a.Key == "data-service":
				services = append(services, a.Val)
			case a.Key == "data-rule" && n.Data == "g":
				pins = append(pins, a.Val)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if strings.Join(services, " ") != "shop/api shop/db shop/web" || strings.Join(pins, " ") != "L6 L6" {
		t.Errorf("services %v, pins %v", services, pins)
	}
	// The missing file makes it ERROR, as the exit status, with the
	// violation still counted.
	for _, want := range []string{"does-not-exist.json", "11 observations of 3 Services", "<strong>ERROR</strong>", "1 violation"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	// --html-services: web's violation, then db's warning, before api.
	for n, want := range map[string]string{"1": "shop/web", "2": "shop/db shop/web"} {
		_, out, _ := runCmd(t, "", "check", "-o", "html", "--html-services", n, l6Trace)
		var drawn []string
		for _, part := range strings.Split(out, `data-service="`)[1:] {
			drawn = append(drawn, part[:strings.IndexByte(part, '"')])
		}
		if got := strings.Join(drawn, " "); got != want || !strings.Contains(out, n+" of 3 Services are drawn") {
			t.Errorf("--html-services %s: drawn %q, want %q", n, got, want)
		}
	}
	// A flag for another format, or a value out of range, is bad usage
	// (one line, exit 2), the default value given too.
	for _, tc := range []struct{ args, want string }{
		{"--html-services 9", "--html-services goes with -o html"},
		{"--html-services 500 -o json", "--html-services goes with -o html"},
		{"--html-services -1 -o html", "--html-services must not be negative"},
		{"--timeline-points 5", "--timeline-points goes with --timeline or -o html"},
		{"--timeline-points 200 -o json", "--timeline-points goes with --timeline or -o html"},
		{"--timeline-points 0 --timeline", "--timeline-points must be positive"},
		{"--timeline-points -3 -o html", "--timeline-points must be positive"},
	} {
		args := append(append([]string{"check"}, strings.Fields(tc.args)...), l6Trace)
		if code, out, errOut := runCmd(t, "", args...); code != exitInput || out != "" || errOut != "lbstatus: "+tc.want+"\n" && !strings.HasPrefix(errOut, "lbstatus: "+tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", tc.args, code, out, errOut, tc.want)
		}
	}
	for _, args := range []string{"--timeline-points 5 --timeline", "--timeline-points 5 -o html", "--html-services 0 -o html"} {
		if code, _, errOut := runCmd(t, "", append(append([]string{"check"}, strings.Fields(args)...), l6Trace)...); code == exitInput {
			t.Errorf("%s: exit 2, stderr %q", args, errOut)
		}
	}
}

// TestProgress_Drawing: nothing in the first second; then a status line
// with objects, bytes and rates, at most every progressEvery; cleared
// before a message and at the end.
func TestProgress_Drawing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := newProgressAt(&buf, func() time.Time { return now })
	r := p.reader(strings.NewReader(strings.Repeat("x", 3<<20)))
	if _, err := r.Read(make([]byte, 2<<20)); err != nil {
		t.Fatal(err)
	}
	for range 1024 {
		p.object()
	}
	if buf.Len() != 0 {
		t.Fatalf("drawn before progressAfter: %q", buf.String())
	}
	now = now.Add(2 * time.Second)
	for range 256 {
		p.object()
	}
	want := "\r\x1b[Kchecked 1280 objects, 2.0 MiB (640 objects/s, 1.0 MiB/s)"
	if buf.String() != want {
		t.Fatalf("status line %q, want %q", buf.String(), want)
	}
	for range 256 {
		p.object() // within progressEvery: no redraw
	}
	if buf.String() != want {
		t.Errorf("redrawn within progressEvery: %q", buf.String())
	}
	buf.Reset()
	var msgs bytes.Buffer
	stderr := p.stderr(&msgs)
	stderr.Write([]byte("lbstatus: a problem\n"))
	if buf.String() != "\r\x1b[K" || msgs.String() != "lbstatus: a problem\n" {
		t.Errorf("a message did not clear the line first: %q, %q", buf.String(), msgs.String())
	}
	buf.Reset()
	p.clear()
	if buf.Len() != 0 {
		t.Errorf("clearing a line already cleared wrote %q", buf.String())
	}
}

// TestProgress_QuietWhenPiped: on a buffer (a pipe, a file) or with -o
// json there is no progress at all, and a nil progress is safe to use.
func TestProgress_QuietWhenPiped(t *testing.T) {
	var buf bytes.Buffer
	if p := newProgress(&buf, false); p != nil {
		t.Fatal("progress on a writer that is not a terminal")
	}
	var p *progress
	p.object()
	p.clear()
	if r := strings.NewReader("x"); p.reader(r) != r || p.stderr(&buf) != &buf {
		t.Error("a nil progress wraps")
	}
	big := strings.Repeat(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"type":"ClusterIP"}}`+"\n", 5000)
	code, _, errOut := runCmd(t, big, "check")
	if code != exitOK || errOut != "" {
		t.Errorf("exit %d, stderr %q: a piped check must print nothing on stderr", code, errOut)
	}
}

// TestWatch_TimelineOnExit: watch --timeline prints, on exit, the timeline
// of what it saw: the spec change of web and the L6 warning owed at its end.
func TestWatch_TimelineOnExit(t *testing.T) {
	ready := service("web", "10", func(s *v1.Service) {
		s.Status.Conditions = lbConditions(metav1.ConditionFalse, metav1.ConditionTrue, "Serving", 1)
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	})
	cluster := newFakeCluster(ready)
	stdout, _, stop := startWatch(t, fakeEnv(cluster), "--timeline")
	w := cluster.nextWatcher(t)
	changed := ready.DeepCopy()
	changed.ResourceVersion = "11"
	changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Port: 443, Protocol: corev1.ProtocolTCP, NodePort: 30443})
	w.Modify(changed)
	// Events are handled in order: once the marker's verdict is out, so
	// is web's change.
	w.Add(service("marker", "12", nil))
	waitFor(t, stdout, "Service default/marker")
	if code := stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	out := stdout.String()
	_, story, ok := strings.Cut(out, "Timeline:")
	if !ok {
		t.Fatalf("no timeline on exit:\n%s", out)
	}
	for _, want := range []string{"default/web: 2 observations, resourceVersion 10 to 11", "ports", "end", "L6 warning"} {
		if !strings.Contains(story, want) {
			t.Errorf("timeline lacks %q:\n%s", want, story)
		}
	}
	if !strings.Contains(story, "Watched 3 observations") {
		t.Errorf("the summary does not follow the timeline:\n%s", out)
	}
}

// TestWatch_TimelineNeedsText: --timeline with -o json is bad usage.
func TestWatch_TimelineNeedsText(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runContext(context.Background(), []string{"watch", "--timeline", "-o", "json"}, nil, &out, &errOut, fakeEnv(newFakeCluster()))
	if code != exitInput || !strings.Contains(errOut.String(), "--timeline goes with -o text") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// -o html says on its page why a check ended in ERROR or INTERRUPTED
// without a finding: no Service where one is required, or an interrupt.
func TestCheck_HTMLSaysWhyNotPassed(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
	code, stdout, _ := runCmd(t, cm, "check", "-o", "html", "--require-services")
	if code != exitInput || !strings.Contains(stdout, "no Service was read, and --require-services requires one") {
		t.Errorf("no Service, required: exit %d, the page does not say why", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, stdout, _ = runCmdContext(ctx, strings.NewReader(readyYAML), "check", "-o", "html")
	if code != exitInput || !strings.Contains(stdout, "the check was interrupted") {
		t.Errorf("interrupted: exit %d, the page does not say so", code)
	}
}

// TestCheck_TimelineCutsLongCells: check --timeline cuts a reason of 1 KiB
// in the timeline, where it would widen every row, and says so, while the
// finding that names it keeps it whole; the shipped examples and
// violations have no cell cut.
func TestCheck_TimelineCutsLongCells(t *testing.T) {
	reason := "Waiting" + strings.Repeat("A", 1017)
	trace := filepath.Join(t.TempDir(), "long.json")
	obj := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"RV"},` +
		`"spec":{"type":"LoadBalancer"},"status":{"conditions":[` +
		`{"type":"LoadBalancerProvisioning","status":"True","reason":"REASON","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"},` +
		`{"type":"LoadBalancerServing","status":"False","reason":"Provisioning","message":"","lastTransitionTime":"2026-05-04T12:00:00Z"}]}}`
	first := strings.NewReplacer("RV", "10", "REASON", "Provisioning").Replace(obj)
	second := strings.NewReplacer("RV", "11", "REASON", reason).Replace(obj)
	if err := os.WriteFile(trace, []byte(first+"\n"+second+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", "check", "--timeline", trace)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, story, _ := strings.Cut(out, "shop/web: 2 observations")
	for _, want := range []string{
		"\n  2    11  True/" + reason[:timeline.MaxTextCell-6] + "…  |",
		"\n  (\"…\" marks a cell cut at 48 characters)\n",
		"obs 2    warning   C3   status.conditions[0].reason: LoadBalancerProvisioning=True has reason \"" + reason + "\"",
	} {
		if !strings.Contains(story, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, story)
		}
	}

	code, out, errOut = runCmd(t, "", "check", "--timeline", "../../examples", "../../violations")
	if code != exitViolation || !strings.Contains(out, "Timeline:") || strings.Contains(out, "…") {
		t.Errorf("exit %d, stderr %q; want 1 and timelines without a cut:\n%s", code, errOut, out)
	}
}
