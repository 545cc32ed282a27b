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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzTimelineRender reads its bytes as `lbstatus check` does, feeds the
// checker and a Timeline as the command does, with a gap (Checker.Gap and
// Timeline.Gap, as a watch that listed again) before each observation
// whose bit is set in gaps, and renders the Services as text and as a
// page. Whatever the input:
//
//   - nothing panics, and the same input gives the same text and page;
//   - every lane, spec-change, finding, deletion and gap list keeps at most
//     MaxPoints entries, in step order within the Service's observations,
//     and the findings counted are those kept plus those dropped;
//   - the text holds no control or format character but its line breaks,
//     and a cell cut to MaxTextCell (ClipCell) is a prefix of the escaped
//     text that ends between two escapes, never inside one;
//   - the page holds no such character either, is valid UTF-8, and has
//     only the elements and attributes of its template: a name, reason,
//     message or input problem cannot add a <script> or an onload, and no
//     value was refused by html/template (ZgotmplZ).
func FuzzTimelineRender(f *testing.F) {
	add := func(name string, data []byte, gaps uint64, options uint8) {
		seed.Add(f, name, data, gaps, options)
	}
	for _, path := range []string{
		"testdata/l6-miss.json",
		"../../examples/traces/provisioning.json",
		"../../examples/conformant/degraded-and-legacy.yaml",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		name := "file-" + filepath.Base(path)
		add(name, data, 0, 0)
		add(name+"-gaps", data, 0x5a5a, 3|1<<3|1<<5)
	}
	const hostile = `<script>alert(1)</script>\u202e\u001b[2J`
	add("hostile", []byte(`{"kind":"Service","apiVersion":"v1","metadata":{"name":"`+hostile+`","namespace":"<b onload=x>","uid":"1","resourceVersion":"1\"><script>"},`+
		`"spec":{"type":"LoadBalancer","ports":[{"port":80}]},`+
		`"status":{"conditions":[{"type":"LoadBalancerServing","status":"`+hostile+`","reason":"`+hostile+`","message":"</title><script>x</script>","lastTransitionTime":"2026-01-01T00:00:00Z"},`+
		`{"type":"LoadBalancerProvisioning","status":"True","reason":"Provisioning","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`+"\n"+
		`{"kind":"Service","apiVersion":"v1","metadata":{"name":"`+hostile+`","namespace":"<b onload=x>","uid":"1","resourceVersion":"2"},`+
		`"spec":{"type":"LoadBalancer","ports":[{"port":81}],"requiredLoadBalancerFeatures":["<script>"]},`+
		`"status":{"conditions":[{"type":"LoadBalancerServing","status":"False","reason":"Unsupported","message":"<img src=x onerror=y>","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`+"\n"+
		`{"kind":"<script>","metadata":{"name":"<script>"}}`+"\n{\"kind\":\"Service\",\"metadata\":{\"name\":\"\\u003cscript\\u003e\"}"), 2, 1)

	// Reasons and messages whose escapes fall about where a cell is cut.
	var long bytes.Buffer
	for i, esc := range []string{`\u202e`, `\n`, `\u001b`, `\"\u0000`, `\udbff\udfff`, `\\x41\u0007`} {
		pad := strings.Repeat("a", 36+i*2)
		fmt.Fprintf(&long, `{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","uid":"1","resourceVersion":"%d"},"spec":{"type":"LoadBalancer"},`+
			`"status":{"conditions":[{"type":"LoadBalancerServing","status":"False","reason":"%s%s%s","message":"%s%s","lastTransitionTime":"2026-01-01T00:00:%02dZ"}]}}`+"\n",
			i+1, pad, esc, pad, pad, esc, i)
	}
	add("escapes-at-the-cut", long.Bytes(), 0, 7)

	f.Fuzz(func(t *testing.T, data []byte, gaps uint64, options uint8) {
		if len(data) > 32<<10 {
			return
		}
		maxPoints := 1 + int(options&7)
		first, firstPage := renderTimeline(t, data, gaps, options)
		again, againPage := renderTimeline(t, data, gaps, options)
		if !bytes.Equal(first.text, again.text) || !bytes.Equal(firstPage, againPage) {
			t.Fatalf("the same input renders two ways:\n%s\n---\n%s", first.text, again.text)
		}
		for _, s := range first.services {
			checkTimelineService(t, s, maxPoints)
		}
		checkTextRunes(t, "the text timeline", first.text)
		checkTextRunes(t, "the page", firstPage)
		checkPageMarkup(t, firstPage)
	})
}

// rendered is what renderTimeline made of an input.
type rendered struct {
	services []*Service
	text     []byte
}

// renderTimeline checks data as `lbstatus check --timeline -o html` does,
// with gaps, and returns the Services, their text and their page.
func renderTimeline(t *testing.T, data []byte, gaps uint64, options uint8) (rendered, []byte) {
	t.Helper()
	opts := []Option{MaxPoints(1 + int(options&7))}
	if options&(1<<5) != 0 {
		opts = append(opts, RelevantAnnotations{"example.com/sku"})
	}
	tl := New(opts...)
	checker := conformance.NewChecker()
	col := conformance.NewCollector()
	dec := conformance.NewDecoder(bytes.NewReader(data), "fuzz", conformance.MaxObjectBytes(16<<10))
	var problems []string
	for i := 0; ; i++ {
		if i > 1<<16 {
			t.Fatal("the decoder does not reach the end")
		}
		obj, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var de *conformance.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Next returned %T %v", err, err)
			}
			col.Error(err)
			problems = append(problems, err.Error())
			continue
		}
		if s := obj.Service; s != nil && gaps&(1<<(i%64)) != 0 {
			checker.Gap(s.Namespace, s.Name)
			tl.Gap(s.Namespace, s.Name)
		}
		found := checker.ObserveObject(obj)
		col.Observe(obj, found)
		tl.ObserveObject(obj, found)
	}
	end := checker.Finish()
	col.Findings(end)
	tl.Findings(end)
	services := tl.Services()

	var text, page bytes.Buffer
	if err := WriteText(&text, services); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	title := ""
	if len(services) > 0 {
		title = services[0].Name // a caller's string, from the input
	}
	summary := col.Report().Summary
	if err := WriteHTML(&page, Page{
		Title:       title,
		Sources:     []string{"fuzz"},
		Summary:     &summary,
		Errors:      problems,
		Services:    services,
		MaxServices: int(options>>3) & 3,
	}); err != nil {
		t.Fatalf("WriteHTML: %v", err)
	}
	return rendered{services, text.Bytes()}, page.Bytes()
}

// checkTimelineService checks the bounds and the order of what s keeps.
func checkTimelineService(t *testing.T, s *Service, maxPoints int) {
	t.Helper()
	inSteps := func(what string, steps []int, from int) {
		t.Helper()
		if len(steps) > maxPoints {
			t.Fatalf("%s: %s keeps %d entries, more than MaxPoints %d", s.Ref(), what, len(steps), maxPoints)
		}
		for i, st := range steps {
			if st < from || st > s.Observations || (i > 0 && st < steps[i-1]) {
				t.Fatalf("%s: %s at steps %v of %d observations", s.Ref(), what, steps, s.Observations)
			}
		}
	}
	for _, l := range s.Lanes {
		var steps []int
		for _, p := range l.Points {
			steps = append(steps, p.Step)
			for _, text := range []string{p.Status, p.Reason, p.Message, p.Status + "/" + p.Reason + "*"} {
				checkClipped(t, text)
			}
		}
		inSteps("lane "+l.Name, steps, 1)
	}
	var specs, pins, deletions, gaps []int
	for _, c := range s.SpecChanges {
		specs = append(specs, c.Step)
	}
	for _, p := range s.Findings {
		pins = append(pins, p.Step)
	}
	for _, m := range s.Deletions {
		deletions = append(deletions, m.Step)
	}
	for _, m := range s.Gaps {
		gaps = append(gaps, m.Step)
	}
	inSteps("the spec changes", specs, 2)
	inSteps("the findings", pins, 1)
	inSteps("the deletions", deletions, 1)
	inSteps("the gaps", gaps, 1)
	if n := s.Counts.Violations + s.Counts.Warnings + s.Counts.Notices; n != len(s.Findings)+s.DroppedFindings {
		t.Fatalf("%s: %d findings counted, %d kept and %d dropped", s.Ref(), n, len(s.Findings), s.DroppedFindings)
	}
}

// checkClipped checks ClipCell(text): at most MaxTextCell characters and,
// when cut, a prefix of the escaped text, before a "…" and the "*" of a
// bump, that does not end inside an escape.
func checkClipped(t *testing.T, text string) {
	t.Helper()
	clipped, cut := ClipCell(text)
	escaped := input.Escape(text)
	if n := utf8.RuneCountInString(clipped); n > MaxTextCell || (!cut && clipped != escaped) {
		t.Fatalf("ClipCell(%q) = %q (%d characters), %v", text, clipped, n, cut)
	}
	if !cut {
		return
	}
	kept, ok := strings.CutSuffix(strings.TrimSuffix(clipped, "*"), "…")
	if !ok || !strings.HasPrefix(escaped, kept) {
		t.Fatalf("ClipCell(%q) = %q, not a cut of %q", text, clipped, escaped)
	}
	if escaped != text {
		if _, err := strconv.Unquote(`"` + kept + `"`); err != nil {
			t.Fatalf("ClipCell(%q) = %q cuts inside an escape of %q", text, clipped, escaped)
		}
	}
}

// checkTextRunes fails t on invalid UTF-8, or a rune that is neither
// graphic nor a line break: a terminal or a browser would act on it.
func checkTextRunes(t *testing.T, what string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("%s is not valid UTF-8", what)
	}
	for i, r := range string(out) {
		if r != '\n' && !strconv.IsGraphic(r) {
			t.Fatalf("%s holds %U at byte %d: %q", what, r, i, out[max(0, i-60):min(len(out), i+20)])
		}
	}
}

// templateMarkup is what the page's template itself holds: the elements
// and the attributes of each.
var templateMarkup = func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	z := html.NewTokenizer(strings.NewReader(pageSource))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if out[tok.Data] == nil {
				out[tok.Data] = map[string]bool{}
			}
			for _, a := range tok.Attr {
				out[tok.Data][a.Key] = true
			}
		}
	}
}()

// checkPageMarkup fails t on an element or an attribute the template does
// not write, and on a value html/template refused.
func checkPageMarkup(t *testing.T, page []byte) {
	t.Helper()
	if i := bytes.Index(page, []byte("ZgotmplZ")); i >= 0 {
		t.Fatalf("html/template refused a value: %q", page[max(0, i-80):min(len(page), i+20)])
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("the page does not tokenize: %v", z.Err())
			}
			return
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			attrs, ok := templateMarkup[tok.Data]
			if !ok {
				t.Fatalf("the page has a <%s>, which its template does not: %s", tok.Data, tok)
			}
			for _, a := range tok.Attr {
				if !attrs[a.Key] {
					t.Fatalf("the page has <%s %s=%q>, which its template does not: %s", tok.Data, a.Key, a.Val, tok)
				}
			}
		}
	}
}
