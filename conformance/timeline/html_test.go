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

package timeline

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
)

// node helpers over golang.org/x/net/html.

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	return n.Type == html.ElementNode && strings.Contains(" "+v+" ", " "+class+" ")
}

// findAll returns the descendants of n (n included) that match.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func renderHTML(t *testing.T, p Page) (string, *html.Node) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, p); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return buf.String(), doc
}

// TestWriteHTML_EveryServiceLaneAndFinding parses the page of the L6 trace
// and finds, for every Service of the model, its section; for every lane a
// group whose segments follow the lane's points, in the lane's colours; a
// mark per spec change; and every finding both as a pin and as a table row,
// in order.
func TestWriteHTML_EveryServiceLaneAndFinding(t *testing.T) {
	tl := build(t, "testdata/l6-miss.json")
	services := tl.Services()
	summary := conformance.Summary{Services: 3, Observations: 11}
	summary.Findings.Violations = 1
	page, doc := renderHTML(t, Page{Title: "L6 trace", Sources: []string{"l6-miss.json"}, Summary: &summary, Services: services})

	sections := findAll(doc, func(n *html.Node) bool { return hasClass(n, "service") })
	if len(sections) != len(services) {
		t.Fatalf("%d service sections, want %d", len(sections), len(services))
	}
	for i, s := range services {
		sec := sections[i]
		if got, _ := attr(sec, "data-service"); got != s.Ref() {
			t.Errorf("section %d is %q, want %q", i, got, s.Ref())
		}
		lanes := findAll(sec, func(n *html.Node) bool { return hasClass(n, "lane") })
		if len(lanes) != len(Lanes) {
			t.Fatalf("%s: %d lanes, want %d", s.Ref(), len(lanes), len(Lanes))
		}
		for j, l := range s.Lanes {
			if got, _ := attr(lanes[j], "data-lane"); got != l.Name {
				t.Errorf("%s: lane %d is %q, want %q", s.Ref(), j, got, l.Name)
			}
			var gotStatus, wantStatus, gotFill, wantFill []string
			for _, r := range findAll(lanes[j], func(n *html.Node) bool { return hasClass(n, "segment") }) {
				st, _ := attr(r, "data-status")
				fill, _ := attr(r, "fill")
				gotStatus, gotFill = append(gotStatus, st), append(gotFill, fill)
			}
			for _, p := range l.Points {
				wantStatus, wantFill = append(wantStatus, p.Status), append(wantFill, StateColour(l.Name, p.Status))
			}
			if !cmp.Equal(gotStatus, wantStatus) || !cmp.Equal(gotFill, wantFill) {
				t.Errorf("%s %s: segments %v %v, want %v %v", s.Ref(), l.Name, gotStatus, gotFill, wantStatus, wantFill)
			}
		}
		bumps := 0
		for _, p := range s.Lanes[0].Points {
			if p.Bumped {
				bumps++
			}
		}
		if got := len(findAll(lanes[0], func(n *html.Node) bool { return hasClass(n, "bump") })); got != bumps {
			t.Errorf("%s: %d bump marks on Provisioning, want %d", s.Ref(), got, bumps)
		}
		if got := len(findAll(sec, func(n *html.Node) bool { return hasClass(n, "spec-change") })); got != len(s.SpecChanges) {
			t.Errorf("%s: %d spec-change marks, want %d", s.Ref(), got, len(s.SpecChanges))
		}
		var pins, rows, want []string
		for _, n := range findAll(sec, func(n *html.Node) bool { return hasClass(n, "finding") }) {
			rule, _ := attr(n, "data-rule")
			sev, _ := attr(n, "data-severity")
			if n.Data == "g" {
				pins = append(pins, rule+" "+sev)
			} else {
				rows = append(rows, rule+" "+sev)
			}
		}
		for _, p := range s.Findings {
			want = append(want, string(p.Finding.Rule)+" "+string(p.Finding.Severity))
		}
		if !cmp.Equal(pins, want) || !cmp.Equal(rows, want) {
			t.Errorf("%s: pins %v, rows %v, want %v", s.Ref(), pins, rows, want)
		}
	}
	for _, want := range []string{"<title>L6 trace</title>", "11 observations of 3 Services", "FAIL", "l6-miss.json"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestWriteHTML_SelfContained: nothing is loaded from anywhere: no script,
// no external style sheet, image or font, no URL at all but the SVG
// namespace, and no value html/template refused (ZgotmplZ).
func TestWriteHTML_SelfContained(t *testing.T) {
	tl := build(t, "testdata/l6-miss.json")
	page, doc := renderHTML(t, Page{Services: tl.Services()})
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
		switch n.Data {
		case "script", "link", "img", "iframe", "object", "embed":
			t.Errorf("the page has a <%s>", n.Data)
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
	}
	rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"http:", "https:", "url(", "@import", "ZgotmplZ"} {
		if strings.Contains(rest, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if !strings.Contains(page, "<title>lbstatus report</title>") {
		t.Error("an empty title does not default to lbstatus report")
	}
}

// TestWriteHTML_ContentSecurityPolicy: the page shows what tenants wrote on
// their Services; should anything ever slip past the escaping, its policy
// lets a browser run no script and load nothing, only the page's own
// styles.
func TestWriteHTML_ContentSecurityPolicy(t *testing.T) {
	_, doc := renderHTML(t, Page{})
	metas := findAll(doc, func(n *html.Node) bool {
		v, _ := attr(n, "http-equiv")
		return n.Data == "meta" && strings.EqualFold(v, "Content-Security-Policy")
	})
	if len(metas) != 1 {
		t.Fatalf("the page has %d Content-Security-Policy metas, want 1", len(metas))
	}
	policy, _ := attr(metas[0], "content")
	if !strings.HasPrefix(policy, "default-src 'none';") || strings.Contains(policy, "script-src") {
		t.Errorf("policy %q: want default-src 'none' and no script-src", policy)
	}
}

// TestWriteHTML_Escapes: what a provider writes into a message cannot
// inject markup.
func TestWriteHTML_Escapes(t *testing.T) {
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Status.Conditions[0].Message = `</title><script>alert(1)</script>`
	svc.Name = `<b>x</b>`
	tl := New()
	tl.Observe(svc, []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation, Message: "<img src=x>",
		Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: svc.Name}}})
	page, doc := renderHTML(t, Page{Title: "<i>t</i>", Services: tl.Services()})
	if len(findAll(doc, func(n *html.Node) bool {
		return n.Data == "script" || n.Data == "img" || n.Data == "b" || n.Data == "i"
	})) > 0 {
		t.Errorf("markup from the input was not escaped:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Error("the message is missing, escaped")
	}
}

// TestWriteHTML_EscapesControls: html/template leaves control and format
// characters as they are; every string from the input or a caller is
// escaped as the text output escapes it (section 8: nothing printed from an
// input is trusted). U+202E would reverse the text after it on the page.
func TestWriteHTML_EscapesControls(t *testing.T) {
	const bad = "x\x1b[2J\u202e\nQQ"
	svc := lbService(bad, "1"+bad, metav1.ConditionTrue, time.Unix(0, 0))
	svc.Namespace = bad
	svc.Status.Conditions[0].Status = bad
	svc.Status.Conditions[0].Reason, svc.Status.Conditions[0].Message = bad, bad
	svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{Type: bad, Status: bad})
	tl := New()
	tl.Observe(svc, []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation, Field: bad, Message: bad,
		Object: conformance.ObjectRef{Kind: "Service", Namespace: bad, Name: bad}}})
	page, _ := renderHTML(t, Page{Title: bad, Sources: []string{bad}, Errors: []string{bad}, Services: tl.Services(),
		Tables: []Table{{Caption: bad, Header: []string{bad}, Rows: [][]string{{bad}}}}})
	if i := strings.IndexAny(page, "\x1b\u202e"); i >= 0 {
		t.Errorf("a control or format character reached the page: %q", page[max(0, i-60):min(len(page), i+20)])
	}
	if strings.Contains(page, "\nQQ") {
		t.Error("a line break from the input reached the page")
	}
	if n := strings.Count(page, `x\x1b[2J\u202e\nQQ`); n < 10 {
		t.Errorf("the strings are shown, escaped, %d times; want every one of them", n)
	}
}

// TestWriteHTML_EscapesRuleAndSeverity: a finding read back from a report
// someone else wrote (conformance --render) may hold any rule and severity;
// they reach the page escaped, in the pins, the rows and the findings.
func TestWriteHTML_EscapesRuleAndSeverity(t *testing.T) {
	const bad = "x\x1b[2J\u202e"
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl := New()
	tl.Observe(svc, []conformance.Finding{{Rule: bad, Severity: bad,
		Object: conformance.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}}})
	page, _ := renderHTML(t, Page{Services: tl.Services()})
	if i := strings.IndexAny(page, "\x1b\u202e"); i >= 0 {
		t.Errorf("a control or format character reached the page: %q", page[max(0, i-60):min(len(page), i+20)])
	}
	if n := strings.Count(page, `x\x1b[2J\u202e`); n < 6 {
		t.Errorf("the rule and severity are shown, escaped, %d times; want 6", n)
	}
}

// TestWriteHTML_Empty: no Service gives a page that says so.
func TestWriteHTML_Empty(t *testing.T) {
	page, doc := renderHTML(t, Page{})
	if len(findAll(doc, func(n *html.Node) bool { return hasClass(n, "service") })) != 0 || !strings.Contains(page, "No LoadBalancer Service and no finding to show.") {
		t.Errorf("empty page:\n%s", page)
	}
}

// TestLayout_SpecLabelsFit: a spec-change label is shortened where the next
// mark begins, so that two do not overlap, and the drawing is wide enough
// for the last one whole; each mark's tooltip keeps the whole label.
func TestLayout_SpecLabelsFit(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.Observe(svc, nil)
	svc = svc.DeepCopy()
	svc.ResourceVersion, svc.Spec.ExternalTrafficPolicy = "2", corev1.ServiceExternalTrafficPolicyLocal
	tl.Observe(svc, nil)
	svc = svc.DeepCopy()
	svc.ResourceVersion, svc.Spec.LoadBalancerSourceRanges = "3", []string{"192.0.2.0/24"}
	tl.Observe(svc, nil)

	v := layout(tl.Services()[0])
	if len(v.Specs) != 2 {
		t.Fatalf("%d spec-change marks, want 2: %+v", len(v.Specs), v.Specs)
	}
	first, last := v.Specs[0], v.Specs[1]
	if first.Label != "extern…" || // a slot of 56 pixels: 7 characters
		!strings.Contains(first.Tooltip, "externalTrafficPolicy") {
		t.Errorf("first label %q (tooltip %q), want it shortened to the %d pixels before the next mark", first.Label, first.Tooltip, last.X-first.X)
	}
	if end := last.X + 4 + charWidth*len("loadBalancerSourceRanges"); last.Label != "loadBalancerSourceRanges" || v.Width < end {
		t.Errorf("last label %q in a drawing %d wide, want it whole, ending at %d", last.Label, v.Width, end)
	}
}

// TestLayout_DeletionAndGapFollowTheirObservation: a deletion or a gap
// comes after the observation it is recorded at, so its mark is drawn where
// that observation's slot ends, not where it begins (which put a Service
// deleted after its only observation as deleted before it); a spec change
// at the next observation shares the mark.
func TestLayout_DeletionAndGapFollowTheirObservation(t *testing.T) {
	tl := New()
	gone := lbService("gone", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.ObserveObject(conformance.Object{Service: gone}, nil)
	tl.ObserveObject(conformance.Object{Service: gone, Deleted: true}, nil)
	unseen := lbService("unseen", "2", metav1.ConditionTrue, time.Unix(0, 0))
	tl.Observe(unseen, nil)
	tl.Gap("ns", "unseen")
	unseen = unseen.DeepCopy()
	unseen.ResourceVersion, unseen.Spec.Ports = "3", []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	tl.Observe(unseen, nil)

	end := labelWidth + slotWidth // the end of the first slot
	for _, tc := range []struct {
		svc   *Service
		label string
	}{
		{tl.Services()[0], "deleted"},
		{tl.Services()[1], "gap, ports"},
	} {
		v := layout(tc.svc)
		if len(v.Specs) != 1 || v.Specs[0].X != end || v.Specs[0].Label != tc.label ||
			!strings.HasPrefix(v.Specs[0].Tooltip, "after observation 1: ") {
			t.Errorf("%s: marks %+v, want one %q at x %d, after observation 1", tc.svc.Ref(), v.Specs, tc.label, end)
		}
	}
}

// TestTimeline_DeletedInAGap: a Service a watch lost sight of and, when
// it listed again, found gone was deleted in the gap: both renderings say
// "gap" before "deleted", the order they happened in.
func TestTimeline_DeletedInAGap(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	tl.ObserveObject(conformance.Object{Service: svc}, nil)
	tl.Gap("ns", "x")
	tl.ObserveObject(conformance.Object{Service: &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x"}}, Deleted: true}, nil)
	services := tl.Services()
	var text bytes.Buffer
	if err := WriteText(&text, services); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  1 .* gap,deleted$`).MatchString(text.String()) {
		t.Errorf("want the row of observation 1 to end in \"gap,deleted\":\n%s", text.String())
	}
	v := layout(services[0])
	if len(v.Specs) != 1 || v.Specs[0].Label != "gap, deleted" || v.Rows[0].Spec != "gap, deleted" {
		t.Errorf("marks %+v, row %+v; want \"gap, deleted\"", v.Specs, v.Rows[0])
	}
}

// TestTimeline_EmptyStatusIsSet: a condition written with an empty status
// (the API rejects it, a trace may hold it) is set, as check's table shows
// it ("/Reason"), and its removal is a change: neither renderer may draw it
// as absent ("-", "is not set").
func TestTimeline_EmptyStatusIsSet(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", "", time.Unix(0, 0))
	tl.Observe(svc, nil)
	svc = svc.DeepCopy()
	svc.ResourceVersion, svc.Status.Conditions[0].Reason = "2", ""
	tl.Observe(svc, nil)
	svc = svc.DeepCopy()
	svc.ResourceVersion, svc.Status.Conditions = "3", nil
	tl.Observe(svc, nil)
	s := tl.Services()[0]

	var cells []string
	for _, r := range rows(s) {
		cells = append(cells, r.cells[1])
	}
	if want := []string{"/Serving", `""`, "-"}; !cmp.Equal(cells, want) {
		t.Errorf("Serving's cells %q, want %q", cells, want)
	}
	v := layout(s)
	segs := v.Lanes[1].Segments
	if len(segs) != 3 || segs[0].Colour != ColourUnknown || strings.Contains(segs[0].Tooltip, "not set") ||
		!strings.Contains(segs[0].Tooltip, "an empty status") || segs[2].Colour != ColourAbsent {
		t.Errorf("Serving's segments %+v, want an empty status, set, then absent", segs)
	}
}

// TestTooltip_EscapesEachPartOnce: a reason with a format character does
// not make the message's quotes and backslashes escaped twice on the page,
// which made it unreadable (\"a \\\"b\\\" ...\").
func TestTooltip_EscapesEachPartOnce(t *testing.T) {
	tl := New()
	svc := lbService("x", "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Status.Conditions[0].Reason = "Serving\u202e"
	svc.Status.Conditions[0].Message = `a "b" \ c` + "\x1b"
	tl.Observe(svc, nil)
	got := layout(tl.Services()[0]).Lanes[1].Segments[0].Tooltip
	want := `LoadBalancerServing from observation 1 (resourceVersion 1): True, Serving\u202e, "a \"b\" \\ c\x1b", lastTransitionTime 1970-01-01T00:00:00Z`
	if got != want {
		t.Errorf("tooltip\n %s\nwant\n %s", got, want)
	}
}

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{{"ports", 5, "ports"}, {"ports", 4, "por…"}, {"ports", 1, "…"}, {"ports", 0, ""}, {"ports", -3, ""}, {"", 0, ""}} {
		if got := shorten(tc.s, tc.n); got != tc.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestWriteHTML_MaxServices: past the limit, the Services with a violation
// are drawn first, then those with a warning, then the others, in their
// order, and the page says how many of how many are drawn.
func TestWriteHTML_MaxServices(t *testing.T) {
	tl := New()
	finding := func(name string, sev conformance.Severity) []conformance.Finding {
		return []conformance.Finding{{Rule: "L4", Severity: sev, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: name}}}
	}
	tl.Observe(lbService("a-clean", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("b-warned", "2", metav1.ConditionTrue, time.Unix(0, 0)), finding("b-warned", conformance.SeverityWarning))
	tl.Observe(lbService("c-clean", "3", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("d-broken", "4", metav1.ConditionTrue, time.Unix(0, 0)), finding("d-broken", conformance.SeverityViolation))
	tl.Observe(lbService("e-noticed", "5", metav1.ConditionTrue, time.Unix(0, 0)), finding("e-noticed", conformance.SeverityNotice))
	for _, tc := range []struct {
		max  int
		want string
		note bool
	}{
		{0, "ns/a-clean ns/b-warned ns/c-clean ns/d-broken ns/e-noticed", false},
		{5, "ns/a-clean ns/b-warned ns/c-clean ns/d-broken ns/e-noticed", false},
		{1, "ns/d-broken", true},
		{3, "ns/a-clean ns/b-warned ns/d-broken", true},
	} {
		var page bytes.Buffer
		if err := WriteHTML(&page, Page{Services: tl.Services(), MaxServices: tc.max}); err != nil {
			t.Fatal(err)
		}
		var drawn []string
		for _, part := range strings.Split(page.String(), `data-service="`)[1:] {
			drawn = append(drawn, part[:strings.IndexByte(part, '"')])
		}
		if got := strings.Join(drawn, " "); got != tc.want {
			t.Errorf("MaxServices %d: drawn %q, want %q", tc.max, got, tc.want)
		}
		note := fmt.Sprintf("%d of 5 Services are drawn", len(drawn))
		if strings.Contains(page.String(), note) != tc.note {
			t.Errorf("MaxServices %d: the page says %q: %v, want %v", tc.max, note, !tc.note, tc.note)
		}
	}
}

// TestWorst_KeptAsTheyGo: the timelines of one input after another,
// pruned with Worst as they come and the others counted in Undrawn, make
// the page that all of them together make.
func TestWorst_KeptAsTheyGo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "max")
		var all, kept []*Service
		undrawn := 0
		for input := range rapid.IntRange(1, 5).Draw(t, "inputs") {
			tl := New()
			for i := range rapid.IntRange(0, 4).Draw(t, "services") {
				name := fmt.Sprintf("s%d-%d", input, i)
				sevs := rapid.SliceOfN(rapid.SampledFrom([]conformance.Severity{conformance.SeverityViolation, conformance.SeverityWarning, conformance.SeverityNotice}), 0, 2).Draw(t, "findings")
				tl.Observe(lbService(name, "1", metav1.ConditionTrue, time.Unix(0, 0)), l4Findings(name, sevs...))
			}
			services := tl.Services()
			all = append(all, services...)
			kept = append(kept, services...)
			if pruned := Worst(kept, n); len(pruned) < len(kept) {
				undrawn += len(kept) - len(pruned)
				kept = pruned
			}
		}
		if n > 0 && len(kept) > n {
			t.Fatalf("%d timelines kept, more than %d", len(kept), n)
		}
		var want, got bytes.Buffer
		if err := WriteHTML(&want, Page{Services: all, MaxServices: n}); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&got, Page{Services: kept, MaxServices: n, Undrawn: undrawn}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Fatalf("the page of the timelines kept as they came differs (-all at once +kept):\n%s", diff)
		}
	})
}

// TestWriteHTML_LegendNamesEveryColour: every colour a lane is drawn in,
// the slots before the first kept point (MaxPoints) included, is in the
// legend.
func TestWriteHTML_LegendNamesEveryColour(t *testing.T) {
	tl := New(MaxPoints(2))
	for i := range 6 {
		status := metav1.ConditionTrue
		if i%2 == 1 {
			status = metav1.ConditionFalse
		}
		tl.Observe(lbService("flap", strconv.Itoa(i+1), status, time.Unix(int64(i), 0)), nil)
	}
	_, doc := renderHTML(t, Page{Title: "flap", Services: tl.Services()})
	legend := map[string]bool{}
	for _, n := range findAll(doc, func(n *html.Node) bool { return hasClass(n, "swatch") }) {
		style, _ := attr(n, "style")
		legend[strings.TrimSpace(strings.TrimPrefix(style, "background:"))] = true
	}
	fills := map[string]bool{}
	for _, n := range findAll(doc, func(n *html.Node) bool { return hasClass(n, "segment") }) {
		fill, _ := attr(n, "fill")
		fills[fill] = true
		if !legend[fill] {
			t.Errorf("a segment is drawn in %s, which the legend %v does not name", fill, legend)
		}
	}
	if !fills[ColourUnseen] {
		t.Errorf("no segment in %s (%v): the flapping Service should have slots before its first kept point", ColourUnseen, fills)
	}
}

// TestWriteHTML_EdgesGolden: the page of the corners (edges): unknown
// slots before the first kept point, absent conditions, an acknowledging
// bump, marks for a deletion and a gap, end findings stacked past a row
// of pins, and the tooltips that say it all in words.
func TestWriteHTML_EdgesGolden(t *testing.T) {
	page, _ := renderHTML(t, Page{Title: "edges", Services: edges().Services()})
	golden(t, "edges.html", []byte(page))
}

// TestWriteHTML_FirstObservationWithoutResourceVersion: a trace that
// starts with a manifest (no resourceVersion) and goes on with objects
// read from a cluster names the last resourceVersion, as the text does,
// not a range from nothing ("resourceVersion  to 6").
func TestWriteHTML_FirstObservationWithoutResourceVersion(t *testing.T) {
	tl := New()
	tl.Observe(lbService("manifest", "", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("manifest", "6", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	page, doc := renderHTML(t, Page{Services: tl.Services()})
	var text []string
	for _, p := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "p" }) {
		if c := p.FirstChild; c != nil && c.Type == html.TextNode && strings.HasPrefix(c.Data, "2 observations") {
			text = append(text, c.Data)
		}
	}
	if want := "2 observations, resourceVersion 6."; len(text) != 1 || text[0] != want {
		t.Errorf("the Service's line reads %q, want %q:\n%s", text, want, page)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil || !strings.Contains(buf.String(), "ns/manifest: 2 observations, resourceVersion 6\n") {
		t.Errorf("the text says otherwise (%v):\n%s", err, buf.String())
	}
}

// TestWriteHTML_LastObservationWithoutResourceVersion: a trace read from
// a cluster that goes on with a manifest (no resourceVersion) names the
// first resourceVersion and says the last has none, in the page and in
// the text, not a range to nothing ("resourceVersion 5 to ").
func TestWriteHTML_LastObservationWithoutResourceVersion(t *testing.T) {
	tl := New()
	tl.Observe(lbService("manifest", "5", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("manifest", "", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	page, doc := renderHTML(t, Page{Services: tl.Services()})
	var text []string
	for _, p := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "p" }) {
		if c := p.FirstChild; c != nil && c.Type == html.TextNode && strings.HasPrefix(c.Data, "2 observations") {
			text = append(text, c.Data)
		}
	}
	if want := "2 observations, resourceVersion 5 at first, none at the last."; len(text) != 1 || text[0] != want {
		t.Errorf("the Service's line reads %q, want %q:\n%s", text, want, page)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, tl.Services()); err != nil || !strings.Contains(buf.String(), "ns/manifest: 2 observations, resourceVersion 5 at first, none at the last\n") {
		t.Errorf("the text says otherwise (%v):\n%s", err, buf.String())
	}
}

// TestWriteHTML_MaxServicesViolationOutranksLaterWarning: a Service with
// a violation is drawn before one with only a warning, even when a
// warning follows its violation.
func TestWriteHTML_MaxServicesViolationOutranksLaterWarning(t *testing.T) {
	tl := New()
	tl.Observe(lbService("a-warned", "1", metav1.ConditionTrue, time.Unix(0, 0)), l4Findings("a-warned", conformance.SeverityWarning))
	tl.Observe(lbService("b-broken", "2", metav1.ConditionTrue, time.Unix(0, 0)), l4Findings("b-broken", conformance.SeverityViolation, conformance.SeverityWarning))
	page, _ := renderHTML(t, Page{Services: tl.Services(), MaxServices: 1})
	if !strings.Contains(page, `data-service="ns/b-broken"`) || strings.Contains(page, `data-service="ns/a-warned"`) {
		t.Errorf("MaxServices 1 does not draw the Service with the violation:\n%s", page)
	}
}

// TestWriteHTML_MaxServicesCountsFindingsNotKept: a Service whose
// violation was followed by more findings than MaxPoints keeps is still
// drawn before one with a warning only: the ranking counts every finding.
func TestWriteHTML_MaxServicesCountsFindingsNotKept(t *testing.T) {
	tl := New(MaxPoints(2))
	tl.Observe(lbService("b-warned", "1", metav1.ConditionTrue, time.Unix(0, 0)), l4Findings("b-warned", conformance.SeverityWarning))
	tl.Observe(lbService("z-broken", "2", metav1.ConditionTrue, time.Unix(0, 0)),
		l4Findings("z-broken", conformance.SeverityViolation, conformance.SeverityNotice, conformance.SeverityNotice))
	services := tl.Services()
	z := services[1]
	if want := (conformance.SeverityCounts{Violations: 1, Notices: 2}); z.Counts != want || z.DroppedFindings != 1 {
		t.Errorf("z-broken counts %+v, %d dropped; want %+v and the violation dropped", z.Counts, z.DroppedFindings, want)
	}
	page, _ := renderHTML(t, Page{Services: services, MaxServices: 1})
	if !strings.Contains(page, `data-service="ns/z-broken"`) || strings.Contains(page, `data-service="ns/b-warned"`) {
		t.Errorf("MaxServices 1 does not draw the Service whose violation was not kept:\n%s", page)
	}
}

// TestWriteHTML_MaxServicesCountsWarningsNotKept: a warning not kept
// (MaxPoints) still puts its Service before one with no finding.
func TestWriteHTML_MaxServicesCountsWarningsNotKept(t *testing.T) {
	tl := New(MaxPoints(2))
	tl.Observe(lbService("a-clean", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	tl.Observe(lbService("z-warned", "2", metav1.ConditionTrue, time.Unix(0, 0)),
		l4Findings("z-warned", conformance.SeverityWarning, conformance.SeverityNotice, conformance.SeverityNotice))
	services := tl.Services()
	if z := services[1]; z.Counts.Warnings != 1 || slices.ContainsFunc(z.Findings, func(p Pin) bool { return p.Finding.Severity == conformance.SeverityWarning }) {
		t.Fatalf("z-warned counts %+v, findings %v; want its one warning counted and not kept", z.Counts, z.Findings)
	}
	page, _ := renderHTML(t, Page{Services: services, MaxServices: 1})
	if !strings.Contains(page, `data-service="ns/z-warned"`) || strings.Contains(page, `data-service="ns/a-clean"`) {
		t.Errorf("MaxServices 1 does not draw the Service whose warning was not kept:\n%s", page)
	}
}

// TestWriteHTML_MaxServicesHandBuilt: a Service a caller builds by hand,
// with findings and no counts, is ranked by its findings.
func TestWriteHTML_MaxServicesHandBuilt(t *testing.T) {
	service := func(name string, sev conformance.Severity) *Service {
		s := &Service{Namespace: "ns", Name: name}
		for _, lane := range Lanes {
			s.Lanes = append(s.Lanes, &Lane{Name: lane})
		}
		if sev != "" {
			s.Findings = []Pin{{Step: 1, Finding: conformance.Finding{Rule: "L4", Severity: sev, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: name}}}}
		}
		return s
	}
	services := []*Service{service("a-clean", ""), service("b-warned", conformance.SeverityWarning), service("c-broken", conformance.SeverityViolation)}
	for max, want := range map[int]string{1: "ns/c-broken", 2: "ns/b-warned ns/c-broken"} {
		var page bytes.Buffer
		if err := WriteHTML(&page, Page{Services: services, MaxServices: max}); err != nil {
			t.Fatal(err)
		}
		var drawn []string
		for _, part := range strings.Split(page.String(), `data-service="`)[1:] {
			drawn = append(drawn, part[:strings.IndexByte(part, '"')])
		}
		if got := strings.Join(drawn, " "); got != want {
			t.Errorf("MaxServices %d: drawn %q, want %q", max, got, want)
		}
	}
}

// TestWriteHTML_ServiceWithoutObservations: a Service a caller builds by
// hand, with lanes but no points, is drawn as one slot of absent
// conditions, not a panic.
func TestWriteHTML_ServiceWithoutObservations(t *testing.T) {
	s := &Service{Namespace: "ns", Name: "bare"}
	for _, name := range Lanes {
		s.Lanes = append(s.Lanes, &Lane{Name: name})
	}
	_, doc := renderHTML(t, Page{Services: []*Service{s}})
	segments := findAll(doc, func(n *html.Node) bool { return hasClass(n, "segment") })
	if len(segments) != len(Lanes) {
		t.Fatalf("%d segments, want one per lane", len(segments))
	}
	for _, n := range segments {
		if fill, _ := attr(n, "fill"); fill != ColourAbsent {
			t.Errorf("segment drawn in %s, want %s (not set)", fill, ColourAbsent)
		}
	}
}

// TestStateColour: a lane's colour says what its state means for the
// Service: False is good news for Provisioning, Degraded and PortsError,
// bad news for Serving; the verdicts have a colour each.
func TestStateColour(t *testing.T) {
	for _, tc := range []struct{ lane, status, want string }{
		{"LoadBalancerServing", "True", ColourGood},
		{"LoadBalancerServing", "False", ColourBad},
		{"LoadBalancerServing", "Unknown", ColourUnknown},
		{"LoadBalancerServing", "", ColourAbsent},
		{"LoadBalancerProvisioning", "False", ColourGood},
		{"LoadBalancerProvisioning", "True", ColourBusy},
		{"LoadBalancerDegraded", "False", ColourGood},
		{"LoadBalancerDegraded", "True", ColourBusy},
		{"LoadBalancerPortsError", "False", ColourGood},
		{"LoadBalancerPortsError", "True", ColourBusy},
		{LaneVerdict, "Ready", ColourGood},
		{LaneVerdict, "Pending", ColourBusy},
		{LaneVerdict, "Fail", ColourBad},
		{LaneVerdict, "Skip", ColourSkip},
		{LaneVerdict, "Other", ColourUnknown},
		{LaneVerdict, "", ColourAbsent},
	} {
		if got := StateColour(tc.lane, tc.status); got != tc.want {
			t.Errorf("StateColour(%s, %q) = %s, want %s", tc.lane, tc.status, got, tc.want)
		}
	}
}

// TestLayout_LabelOnlyWhereItFits: a segment's status is written on it
// only where it fits; its tooltip has it anyway.
func TestLayout_LabelOnlyWhereItFits(t *testing.T) {
	tl := New()
	for i, status := range []metav1.ConditionStatus{"Unexpected", "Unexpected", "True", "Unexpected"} {
		svc := lbService("x", strconv.Itoa(i+1), status, time.Unix(0, 0))
		svc.Spec.Ports = []corev1.ServicePort{{Port: int32(80 + i), Protocol: corev1.ProtocolTCP}} // a row per observation
		tl.Observe(svc, nil)
	}
	var shown []bool
	for _, seg := range layout(tl.Services()[0]).Lanes[1].Segments {
		shown = append(shown, seg.ShowLabel)
	}
	// Serving: "Unexpected" over two slots, "True" over one, "Unexpected" over one.
	if want := []bool{true, true, false}; !cmp.Equal(shown, want) {
		t.Errorf("labels shown %v, want %v", shown, want)
	}
}

// text returns the text of n and its descendants.
func text(n *html.Node) string {
	var b strings.Builder
	for _, t := range findAll(n, func(n *html.Node) bool { return n.Type == html.TextNode }) {
		b.WriteString(t.Data)
	}
	return b.String()
}

// TestWriteHTML_Head: the totals end in PASS without a violation, in the
// caller's word when given; input errors are counted and listed; a
// caller's table shows its caption, header and every row.
func TestWriteHTML_Head(t *testing.T) {
	summary := conformance.Summary{Services: 1, Observations: 2, InputErrors: 1}
	summary.Findings.Warnings = 1
	for _, tc := range []struct{ result, want string }{{"", "PASS"}, {"ERROR", "ERROR"}} {
		_, doc := renderHTML(t, Page{Summary: &summary, Result: tc.result,
			Errors: []string{"trace.json: line 3: not JSON"},
			Tables: []Table{{Caption: "Suite", Header: []string{"case", "result"}, Rows: [][]string{{"Provision", "pass"}, {"SpecChange", "fail"}}}},
		})
		head := findAll(doc, func(n *html.Node) bool { return hasClass(n, "summary") })
		if len(head) != 1 {
			t.Fatalf("%d summaries, want 1", len(head))
		}
		got := strings.Join(strings.Fields(text(head[0])), " ")
		if want := "2 observations of 1 Service; 0 violations, 1 warning, 0 notices; 1 input error. " + tc.want; got != want {
			t.Errorf("summary %q, want %q", got, want)
		}
		if errs := findAll(doc, func(n *html.Node) bool { return hasClass(n, "errors") }); len(errs) != 1 || text(errs[0]) != "trace.json: line 3: not JSON" {
			t.Errorf("input errors not listed: %d lists", len(errs))
		}
		tables := findAll(doc, func(n *html.Node) bool { return hasClass(n, "extra") })
		if len(tables) != 1 {
			t.Fatalf("%d extra tables, want 1", len(tables))
		}
		var cells []string
		for _, c := range findAll(tables[0], func(n *html.Node) bool { return n.Data == "caption" || n.Data == "th" || n.Data == "td" }) {
			cells = append(cells, text(c))
		}
		if want := []string{"Suite", "case", "result", "Provision", "pass", "SpecChange", "fail"}; !cmp.Equal(cells, want) {
			t.Errorf("table cells %v, want %v", cells, want)
		}
	}
}

// l4Findings returns an L4 finding of each severity on the Service ns/name.
func l4Findings(name string, sevs ...conformance.Severity) (out []conformance.Finding) {
	for _, sev := range sevs {
		out = append(out, conformance.Finding{Rule: "L4", Severity: sev, Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: name}})
	}
	return out
}

// TestWriteHTML_LongWordsWrap: a name or message without a space (a
// generated name, a token, a URL in a provider's message) widened its
// table, and so the page, past the window: a table cell is at least as
// wide as its longest word. A cell with a word longer than a Kubernetes
// name is of class long, which breaks it anywhere (overflow-wrap:
// anywhere, which unlike break-word also lets its column narrow); the
// other cells keep their words whole, as a browser narrowing a table
// would otherwise break short ones too. Outside the tables, body breaks
// a long word anywhere.
func TestWriteHTML_LongWordsWrap(t *testing.T) {
	long := strings.Repeat("x", 2000)
	svc := lbService("web", "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Namespace = long[:63]
	svc.Status.Conditions[0].Reason = "Serving" + long
	tl := New()
	tl.Observe(svc, []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation, Message: "see " + long, Field: "status.conditions[0].reason",
		Object: conformance.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}}})
	_, doc := renderHTML(t, Page{Services: tl.Services(), Tables: []Table{{Header: []string{"name", long}, Rows: [][]string{{"name", long}}}}})
	styles := findAll(doc, func(n *html.Node) bool { return n.Data == "style" })
	if len(styles) != 1 {
		t.Fatalf("%d style elements, want 1", len(styles))
	}
	wraps := map[string]string{} // selector: its overflow-wrap, the last rule's
	for _, rule := range strings.Split(text(styles[0]), "}") {
		sel, body, _ := strings.Cut(rule, "{")
		for _, decl := range strings.Split(body, ";") {
			if prop, value, _ := strings.Cut(decl, ":"); strings.TrimSpace(prop) == "overflow-wrap" {
				for _, s := range strings.Split(sel, ",") {
					wraps[strings.TrimSpace(s)] = strings.TrimSpace(value)
				}
			}
		}
	}
	for sel, want := range map[string]string{"body": "anywhere", "th": "normal", "td": "normal", "th.long": "anywhere", "td.long": "anywhere"} {
		if wraps[sel] != want {
			t.Errorf("%s has overflow-wrap %q, want %s; the rules: %v", sel, wraps[sel], want, wraps)
		}
	}
	var longCells int
	for _, c := range findAll(doc, func(n *html.Node) bool { return n.Data == "td" || n.Data == "th" }) {
		class, _ := attr(c, "class")
		if got, want := class == "long", strings.Contains(text(c), long[:64]); got != want {
			t.Errorf("<%s class=%q>%.70s: want class long %v", c.Data, class, text(c), want)
		} else if got {
			longCells++
		}
	}
	if longCells != 4 { // the caller's header and cell, the lane's, the finding's message
		t.Errorf("%d cells of class long, want 4", longCells)
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"", false}, {long[:63], false}, {long[:64], true}, {long[:40] + " " + long[:40], false}, {"a " + long[:64], true},
	} {
		if got := longCellText(tc.s); got != tc.want {
			t.Errorf("long(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestWriteHTML_WideTablesScroll: words of up to 63 characters keep their
// cells' words whole (TestWriteHTML_LongWordsWrap), so several of them in
// one row made a table, and so the page, wider than the window. Every
// table is in a box of its own that scrolls sideways (overflow-x: auto),
// as a timeline's drawing is: the page keeps the window's width, and no
// cell breaks a short word to get there.
func TestWriteHTML_WideTablesScroll(t *testing.T) {
	word := func(c string) string { return strings.Repeat(c, 63) }
	svc := lbService(word("n"), "1", metav1.ConditionTrue, time.Unix(0, 0))
	svc.Namespace = word("s")
	svc.Status.Conditions[0].Reason = word("r")[5:] // the cell is "True/" and the reason
	tl := New()
	tl.Observe(svc, []conformance.Finding{{Rule: "C6", Severity: conformance.SeverityViolation, Message: word("m"), Field: "status." + word("f")[7:],
		Object: conformance.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}}})
	_, doc := renderHTML(t, Page{Services: tl.Services(), Tables: []Table{{Header: []string{"name", "severity"}, Rows: [][]string{{word("a"), word("b")}}}}})
	styles := findAll(doc, func(n *html.Node) bool { return n.Data == "style" })
	if len(styles) != 1 {
		t.Fatalf("%d style elements, want 1", len(styles))
	}
	scrolls := map[string]bool{} // the classes whose box scrolls sideways
	for _, rule := range strings.Split(text(styles[0]), "}") {
		sel, body, _ := strings.Cut(rule, "{")
		for _, decl := range strings.Split(body, ";") {
			if prop, value, _ := strings.Cut(decl, ":"); strings.TrimSpace(prop) == "overflow-x" && strings.TrimSpace(value) == "auto" {
				for _, s := range strings.Split(sel, ",") {
					if class, ok := strings.CutPrefix(strings.TrimSpace(s), "."); ok {
						scrolls[class] = true
					}
				}
			}
		}
	}
	tables := findAll(doc, func(n *html.Node) bool { return n.Data == "table" })
	if len(tables) != 3 { // the caller's, the observations', the findings'
		t.Fatalf("%d tables, want 3", len(tables))
	}
	for _, table := range tables {
		class, _ := attr(table, "class")
		box := table.Parent
		boxClass, _ := attr(box, "class")
		if box.Data != "div" || !scrolls[boxClass] {
			t.Errorf("table %q is in <%s class=%q>, which does not scroll sideways; the classes that do: %v", class, box.Data, boxClass, scrolls)
		}
	}
	for _, c := range findAll(doc, func(n *html.Node) bool { return hasClass(n, "long") }) {
		t.Errorf("<%s class=long>%.70s: no word is longer than 63 characters", c.Data, text(c))
	}
}

// TestWriteHTML_EscapesResultAndSource: the result word and a Service's
// source, which a caller may take from a report it read, reach the page
// escaped like the rest.
func TestWriteHTML_EscapesResultAndSource(t *testing.T) {
	const bad = "x\x1b[2J\u202eQQ"
	tl := New()
	tl.Observe(lbService("a", "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	services := tl.Services()
	services[0].Source = bad
	page, _ := renderHTML(t, Page{Summary: &conformance.Summary{}, Result: bad, Services: services})
	if i := strings.IndexAny(page, "\x1b\u202e"); i >= 0 {
		t.Errorf("a control or format character reached the page: %q", page[max(0, i-60):min(len(page), i+20)])
	}
	if n := strings.Count(page, `x\x1b[2J\u202eQQ`); n < 2 {
		t.Errorf("the result and the source are shown, escaped, %d times; want both", n)
	}
}

// TestWriteHTML_DrawnNote: the page says how many of how many Services it
// drew as soon as one is left out, counting those the caller left out
// (Undrawn); a negative Undrawn counts as none.
func TestWriteHTML_DrawnNote(t *testing.T) {
	tl := New()
	for _, name := range []string{"a", "b", "c"} {
		tl.Observe(lbService(name, "1", metav1.ConditionTrue, time.Unix(0, 0)), nil)
	}
	for _, tc := range []struct {
		max, undrawn int
		want         string
	}{
		{2, 0, "2 of 3 Services are drawn"},
		{2, -1, "2 of 3 Services are drawn"},
		{3, 1, "3 of 4 Services are drawn"},
		{3, -1, ""},
	} {
		page, _ := renderHTML(t, Page{Services: tl.Services(), MaxServices: tc.max, Undrawn: tc.undrawn})
		got := ""
		if i := strings.Index(page, " Services are drawn"); i >= 0 {
			got = page[strings.LastIndex(page[:i], ">")+1 : i+len(" Services are drawn")]
		}
		if got != tc.want {
			t.Errorf("MaxServices %d, Undrawn %d: the page says %q, want %q", tc.max, tc.undrawn, got, tc.want)
		}
	}
}

// TestWriteHTML_OnlyFindingsAtTheEnd: a Service a caller builds by hand
// with findings at the end and no observation draws no lane segment of
// negative width.
func TestWriteHTML_OnlyFindingsAtTheEnd(t *testing.T) {
	s := &Service{Namespace: "ns", Name: "end"}
	for _, name := range Lanes {
		s.Lanes = append(s.Lanes, &Lane{Name: name})
	}
	s.Findings = []Pin{{AtEnd: true, Finding: conformance.Finding{Rule: "L6", Severity: conformance.SeverityWarning,
		Object: conformance.ObjectRef{Kind: "Service", Namespace: "ns", Name: "end"}}}}
	_, doc := renderHTML(t, Page{Services: []*Service{s}})
	for _, n := range findAll(doc, func(n *html.Node) bool { return hasClass(n, "segment") }) {
		if w, _ := attr(n, "width"); strings.HasPrefix(w, "-") {
			t.Errorf("a segment of width %s", w)
		}
	}
}

// TestWriteHTML_EscapesSpecChangeMarks: a relevant annotation's key, which
// a spec change names, reaches the mark above the lanes escaped: the key
// may come from a flag or a file as any other input.
func TestWriteHTML_EscapesSpecChangeMarks(t *testing.T) {
	const key = "lb.example.com/x\x1b[2J\u202e"
	tl := New(RelevantAnnotations{key})
	for i, size := range []string{"small", "large"} {
		svc := lbService("x", strconv.Itoa(i+1), metav1.ConditionTrue, time.Unix(0, 0))
		svc.Annotations = map[string]string{key: size}
		tl.Observe(svc, nil)
	}
	s := tl.Services()[0]
	if len(s.SpecChanges) != 1 {
		t.Fatalf("spec changes %+v, want one", s.SpecChanges)
	}
	page, _ := renderHTML(t, Page{Services: []*Service{s}})
	if i := strings.IndexAny(page, "\x1b\u202e"); i >= 0 {
		t.Errorf("a control or format character reached the page: %q", page[max(0, i-60):min(len(page), i+20)])
	}
}
