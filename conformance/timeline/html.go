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
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// Page is what WriteHTML renders: a title, what was read, the totals, and
// the Services' timelines.
type Page struct {
	// Title heads the page; empty gives "lbstatus report".
	Title string
	// Sources names the inputs (files, a cluster); may be empty.
	Sources []string
	// Summary holds the totals; nil leaves them out.
	Summary *conformance.Summary
	// Result is the word shown after the totals, such as PASS, FAIL or
	// ERROR; empty shows FAIL for a Summary with a violation, else PASS.
	Result string
	// Errors are input problems, one sentence each; may be empty.
	Errors []string
	// Tables are shown before the timelines, such as a suite's results;
	// may be empty.
	Tables []Table
	// Services are the timelines, in the order shown; empty shows a line
	// saying there is nothing to show.
	Services []*Service
	// MaxServices bounds the timelines drawn, so that the page of a
	// large cluster still opens in a browser; zero or less draws all.
	// Past it, those with a violation are chosen first, then those with a
	// warning, then the others, by every finding counted (Service.Counts),
	// kept or not; they are drawn in the order given, and the page says
	// how many of how many it drew.
	MaxServices int
	// Undrawn counts Services whose timelines a caller left out of
	// Services beforehand, as Worst does, since they would not be drawn:
	// the page counts them among those it did not draw.
	Undrawn int
}

// Table is a table of text shown on the page. Every cell is escaped.
type Table struct {
	// Caption heads the table; may be empty.
	Caption string
	// Header names the columns; may be empty.
	Header []string
	// Rows are the cells, row by row; a row may have fewer cells than
	// Header.
	Rows [][]string
}

// Colours of the lanes, by what a state means for the Service rather than
// by the condition's raw status: Provisioning=False is good news, Serving=
// False bad news. The browser test looks for these exact colours.
const (
	ColourGood    = "#2e7d32" // serving, provisioned, not degraded, Ready
	ColourBusy    = "#f9a825" // provisioning, degraded, Pending
	ColourBad     = "#c62828" // not serving, Fail
	ColourSkip    = "#8e24aa" // the verdict Skip
	ColourUnknown = "#9e9e9e" // status Unknown, or an unexpected value
	ColourAbsent  = "#e0e0e0" // the condition is not set
	ColourUnseen  = "#f5f5f5" // before the first kept point (MaxPoints)
	ColourSpec    = "#00838f" // a load-balancer-relevant spec change
)

// SeverityColour is the colour of a finding's pin.
var SeverityColour = map[conformance.Severity]string{
	conformance.SeverityViolation: "#b71c1c",
	conformance.SeverityWarning:   "#ef6c00",
	conformance.SeverityNotice:    "#1565c0",
}

// Geometry of the SVG, in pixels.
const (
	slotWidth   = 56  // one row of the text timeline; "Pending" fits in one
	labelWidth  = 130 // lane names
	laneHeight  = 22
	laneGap     = 6
	topBand     = 26 // spec-change labels
	bottomBand  = 44 // finding pins and step numbers
	rightMargin = 12
	charWidth   = 7 // of the 11-pixel monospace text, rounded up
)

// StateColour returns the colour of a lane's state: see the Colour
// constants. An empty status (condition not set) is ColourAbsent.
func StateColour(lane, status string) string {
	if status == "" {
		return ColourAbsent
	}
	switch lane {
	case LaneVerdict:
		switch status {
		case "Ready":
			return ColourGood
		case "Pending":
			return ColourBusy
		case "Fail":
			return ColourBad
		case "Skip":
			return ColourSkip
		}
		return ColourUnknown
	}
	good, bad := "True", "False" // Serving
	switch lane {
	case string(v1.LoadBalancerConditionProvisioning), string(v1.LoadBalancerConditionDegraded), string(v1.LoadBalancerConditionPortsError):
		good, bad = "False", "True"
	}
	switch status {
	case good:
		return ColourGood
	case bad:
		if lane == string(v1.LoadBalancerConditionServing) {
			return ColourBad
		}
		return ColourBusy
	}
	return ColourUnknown
}

// The view the template draws: geometry computed here, text escaped by
// html/template. Every string from the input is escaped first (see
// input.Escape), as in the text output: html/template leaves control and
// format characters alone, and U+202E would reverse the text after it.
type pageView struct {
	Page
	Drawn      int // when fewer than Total: how many Views hold
	Total      int // Services, those left out beforehand (Undrawn) too
	Views      []serviceView
	Legend     []legendItem
	SpecColour string
}

type legendItem struct{ Colour, Text string }

type serviceView struct {
	S             *Service
	Ref           string
	Source        string
	FirstVersion  string
	LastVersion   string
	Width, Height int
	Lanes         []laneView
	Specs         []markView
	Pins          []pinView
	Steps         []stepView
	Rows          []rowView
	Dropped       int
	Findings      []findingView
}

type laneView struct {
	Name, Title string
	Y, TextY    int
	Segments    []segmentView
	Bumps       []bumpView
}

type segmentView struct {
	X, Width        int
	Colour, Status  string
	Label, Tooltip  string
	LabelX, LabelY  int
	ShowLabel, Dark bool
}

type bumpView struct {
	Points, Tooltip string
}

type markView struct {
	X, Y1, Y2, TextY int
	Label, Tooltip   string
}

type pinView struct {
	X, Y, TextY    int
	Colour, Rule   string
	Severity       string
	Tooltip, Label string
}

type stepView struct {
	X, Y  int
	Label string
}

type rowView struct {
	Step, Version, Spec string
	Cells               []string
	Findings            string
}

type findingView struct {
	Place, Severity, Rule, Field, Message, Colour string
}

// WriteHTML writes one self-contained HTML page: per Service an inline SVG
// with a lane per condition and one for the verdict drawn left to right
// over the observations where something happened (the rows of WriteText),
// spec changes as vertical marks, findings as pins, and below it the same
// facts as tables, so that the page reads without scripts, style sheets
// or images from anywhere. The only error is the writer's.
func WriteHTML(w io.Writer, p Page) error {
	if p.Title == "" {
		p.Title = "lbstatus report"
	}
	p.Title, p.Sources, p.Errors, p.Result = esc(p.Title), escAll(p.Sources), escAll(p.Errors), esc(p.Result)
	tables := make([]Table, len(p.Tables))
	for i, t := range p.Tables {
		tables[i] = Table{Caption: esc(t.Caption), Header: escAll(t.Header)}
		for _, r := range t.Rows {
			tables[i].Rows = append(tables[i].Rows, escAll(r))
		}
	}
	p.Tables = tables
	v := pageView{Page: p, SpecColour: ColourSpec}
	drawn := Worst(p.Services, p.MaxServices)
	if total := len(p.Services) + max(p.Undrawn, 0); len(drawn) < total {
		v.Drawn, v.Total = len(drawn), total
	}
	for _, s := range drawn {
		v.Views = append(v.Views, layout(s))
	}
	v.Legend = []legendItem{
		{ColourGood, "serving, provisioned, not degraded; verdict Ready"},
		{ColourBusy, "provisioning or degraded; verdict Pending"},
		{ColourBad, "not serving; verdict Fail"},
		{ColourSkip, "verdict Skip"},
		{ColourUnknown, "status Unknown, empty or unexpected"},
		{ColourAbsent, "condition not set; no verdict (not a LoadBalancer Service)"},
		{ColourUnseen, "not known: earlier events were not kept"},
		{ColourSpec, "load-balancer-relevant spec change (G3), or a deletion or gap after an observation"},
	}
	return pageTemplate.Execute(w, v)
}

// esc escapes a string from the input for the page; escAll, each of them,
// in a new slice.
func esc(s string) string { return input.Escape(s) }

func escAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, esc(s))
	}
	return out
}

// Worst returns the n of services that WriteHTML draws with MaxServices
// n, in their order: those with a violation first, then those with a
// warning, then the others. Every finding counts (Service.Counts), not only
// those kept: a Service whose violation was followed by more findings than
// MaxPoints keeps still has one. It returns services itself when they are
// n or fewer, or when n is zero or less, as MaxServices draws all then.
//
// A caller gathering finished timelines, such as those of one input after
// another, may keep only Worst of them as it goes and count the others in
// Page.Undrawn: Worst of what it kept followed by the next ones is Worst
// of them all, and the page is the same.
func Worst(services []*Service, n int) []*Service {
	if n <= 0 || len(services) <= n {
		return services
	}
	ranks := make([]int, len(services)) // 0 a violation, 1 a warning, 2 neither
	for i, s := range services {
		switch {
		case s.Counts.Violations > 0:
			ranks[i] = 0
		case s.Counts.Warnings > 0:
			ranks[i] = 1
		default:
			ranks[i] = 2
		}
		// A Service a caller built by hand may have findings and no
		// counts.
		for _, p := range s.Findings {
			switch {
			case p.Finding.Severity == conformance.SeverityViolation:
				ranks[i] = 0
			case p.Finding.Severity == conformance.SeverityWarning && ranks[i] == 2:
				ranks[i] = 1
			}
		}
	}
	keep := make([]bool, len(services))
	for rank, left := 0, n; rank <= 2 && left > 0; rank++ {
		for i := range services {
			if left > 0 && ranks[i] == rank {
				keep[i], left = true, left-1
			}
		}
	}
	var out []*Service
	for i, s := range services {
		if keep[i] {
			out = append(out, s)
		}
	}
	return out
}

// shorten returns s cut to n characters, its last one "…", when it is
// longer than that.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string(r[:n-1]) + "…"
}

// layout computes a Service's drawing.
func layout(s *Service) serviceView {
	rs := rows(s)
	if len(rs) == 0 {
		rs = []*row{{step: 1, cells: make([]string, len(s.Lanes))}}
	}
	slots := len(rs)
	v := serviceView{S: s, Ref: esc(s.Ref()), Source: esc(s.Source), FirstVersion: esc(s.FirstVersion), LastVersion: esc(s.LastVersion), Dropped: dropped(s)}
	v.Width = labelWidth + slots*slotWidth + rightMargin
	lanesTop := topBand
	lanesBottom := lanesTop + len(s.Lanes)*(laneHeight+laneGap) - laneGap
	v.Height = lanesBottom + bottomBand
	x := func(slot int) int { return labelWidth + slot*slotWidth }

	for i, l := range s.Lanes {
		y := lanesTop + i*(laneHeight+laneGap)
		name := esc(l.Name)
		lv := laneView{Name: name, Title: strings.TrimPrefix(name, "LoadBalancer"), Y: y, TextY: y + laneHeight/2 + 4}
		// The state in each slot: the latest point at or before its step.
		next := 0
		var cur *Point
		start := 0
		flush := func(end int) {
			if end <= start {
				return
			}
			seg := segmentView{X: x(start), Width: x(end) - x(start) - 1, LabelX: x(start) + 4, LabelY: y + laneHeight/2 + 4}
			switch {
			case cur == nil && l.Dropped > 0:
				seg.Colour, seg.Label, seg.Tooltip = ColourUnseen, "?", "not known: earlier events were not kept"
			case cur == nil || cur.absent():
				seg.Colour, seg.Label, seg.Tooltip = ColourAbsent, "", name+" is not set"
				if l.Name == LaneVerdict && cur != nil {
					seg.Tooltip = "no verdict: the Service is not of type LoadBalancer"
				}
				if cur != nil {
					seg.Tooltip += " (from observation " + strconv.Itoa(cur.Step) + ")"
				}
			default:
				seg.Status = esc(cur.Status)
				seg.Colour = StateColour(l.Name, cur.Status)
				seg.Label = seg.Status
				if cur.Status == "" { // set, with an empty status
					seg.Colour, seg.Label = ColourUnknown, `""`
				}
				seg.Tooltip = tooltip(l.Name, cur)
			}
			seg.ShowLabel = seg.Width >= charWidth*utf8.RuneCountInString(seg.Label)+6
			seg.Dark = seg.Colour == ColourBusy || seg.Colour == ColourAbsent || seg.Colour == ColourUnseen
			lv.Segments = append(lv.Segments, seg)
		}
		for slot, r := range rs {
			if r.end {
				continue
			}
			var latest *Point
			for next < len(l.Points) && l.Points[next].Step <= r.step {
				latest = &l.Points[next]
				next++
			}
			changed := latest != nil
			if changed {
				if slot > 0 {
					flush(slot)
					start = slot
				}
				cur = latest
			}
			if changed && cur.Bumped {
				cx, cy := x(slot)+2, y
				lv.Bumps = append(lv.Bumps, bumpView{
					Points:  fmt.Sprintf("%d,%d %d,%d %d,%d", cx, cy, cx+10, cy, cx, cy+10),
					Tooltip: fmt.Sprintf("observation %d: %s's lastTransitionTime moved to %s with the status unchanged (an acknowledgement, L6)", cur.Step, name, cur.LastTransitionTime.UTC().Format("2006-01-02T15:04:05Z")),
				})
			}
		}
		lanesEnd := slots
		if rs[len(rs)-1].end {
			lanesEnd--
		}
		flush(lanesEnd)
		v.Lanes = append(v.Lanes, lv)
	}

	// mark draws a vertical mark at x; marks at the same x (a deletion
	// after one observation, a spec change at the next) are one.
	mark := func(x int, label, tip string) {
		if n := len(v.Specs); n > 0 && v.Specs[n-1].X == x {
			v.Specs[n-1].Label += ", " + label
			v.Specs[n-1].Tooltip += "; " + tip
			return
		}
		v.Specs = append(v.Specs, markView{X: x, Y1: 4, Y2: lanesBottom + 4, TextY: 14, Label: label, Tooltip: tip})
	}
	for slot, r := range rs {
		label := strconv.Itoa(r.step)
		if r.end {
			label = "end"
		}
		v.Steps = append(v.Steps, stepView{X: x(slot) + slotWidth/2, Y: v.Height - 6, Label: label})
		// A spec change is made by its observation: marked where the
		// slot begins. A deletion or a gap follows the observation:
		// marked where the slot ends.
		if len(r.spec) > 0 {
			what := esc(strings.Join(r.spec, ", "))
			mark(x(slot), what, "observation "+label+": spec changed ("+what+")")
		}
		if r.gap {
			mark(x(slot+1), "gap", "after observation "+label+": the watch saw nothing of the Service until it listed again")
		}
		if r.deleted {
			mark(x(slot+1), "deleted", "after observation "+label+": the Service was deleted")
		}
		for i, p := range r.pins {
			f := p.Finding
			v.Pins = append(v.Pins, pinView{
				X: x(slot) + 8 + 14*(i%3), Y: lanesBottom + 14 + 12*(i/3), TextY: lanesBottom + 18 + 12*(i/3),
				Colour: SeverityColour[f.Severity], Rule: esc(string(f.Rule)), Severity: esc(string(f.Severity)),
				Tooltip: label + ": " + esc(findingText(f)),
			})
		}
	}
	// A spec-change label runs up to the next mark, shortened there (its
	// tooltip has it whole); the last one widens the drawing to fit.
	for i := range v.Specs {
		m := &v.Specs[i]
		if i+1 < len(v.Specs) {
			m.Label = shorten(m.Label, (v.Specs[i+1].X-m.X-6)/charWidth)
			continue
		}
		v.Width = max(v.Width, m.X+4+charWidth*utf8.RuneCountInString(m.Label)+rightMargin)
	}
	// Pins in a crowded slot are stacked; make room for them.
	for _, p := range v.Pins {
		if p.Y+bottomBand/2 > v.Height {
			v.Height = p.Y + bottomBand/2
		}
	}
	for i := range v.Steps {
		v.Steps[i].Y = v.Height - 6
	}

	for _, r := range rs {
		rv := rowView{Step: strconv.Itoa(r.step), Version: esc(r.version), Spec: esc(r.notes(", "))}
		if r.end {
			rv.Step = "end"
		}
		for _, c := range r.cells {
			switch {
			case c != "":
			case r.end:
			default:
				c = "|"
			}
			rv.Cells = append(rv.Cells, esc(c))
		}
		var pins []string
		for _, p := range r.pins {
			pins = append(pins, string(p.Finding.Rule)+" "+string(p.Finding.Severity))
		}
		rv.Findings = esc(strings.Join(pins, ", "))
		v.Rows = append(v.Rows, rv)
	}
	for _, p := range s.Findings {
		place := "observation " + strconv.Itoa(p.Step)
		if p.AtEnd {
			place = "end"
		}
		f := p.Finding
		// A report read back (conformance --render) may hold any rule
		// and severity: escaped as the rest.
		v.Findings = append(v.Findings, findingView{Place: place, Severity: esc(string(f.Severity)), Rule: esc(string(f.Rule)),
			Field: esc(f.Field), Message: esc(f.Message), Colour: SeverityColour[f.Severity]})
	}
	return v
}

// tooltip describes a lane's state in full, each part from the input
// escaped on its own: escaping the whole would escape again the quotes
// and backslashes of the quoted message when another part holds a control
// character.
func tooltip(lane string, p *Point) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s from observation %d", esc(lane), p.Step)
	if p.ResourceVersion != "" {
		fmt.Fprintf(&b, " (resourceVersion %s)", esc(p.ResourceVersion))
	}
	if p.Status == "" {
		b.WriteString(": an empty status")
	} else {
		fmt.Fprintf(&b, ": %s", esc(p.Status))
	}
	if p.Reason != "" {
		fmt.Fprintf(&b, ", %s", esc(p.Reason))
	}
	if p.Message != "" {
		// Quoted as Go quotes it, which escapes what Escape escapes.
		fmt.Fprintf(&b, ", %s", strconv.QuoteToGraphic(p.Message))
	}
	if !p.LastTransitionTime.IsZero() {
		fmt.Fprintf(&b, ", lastTransitionTime %s", p.LastTransitionTime.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return b.String()
}

//go:embed report.html.tmpl
var pageSource string

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"laneTitle": laneTitle,
	"long":      longCellText,
	"plural":    plural,
}).Parse(pageSource))

// longWord is the most characters without a space that a table cell keeps
// on one line: a Kubernetes name's 63 fit.
const longWord = 63

// longCellText reports whether a cell's text has a run of more than
// longWord characters without a space. Such a cell is of class "long",
// which breaks the run where it does not fit rather than widen the page.
// Not every cell is: a browser narrowing a table then takes each column's
// narrowest to be one character, and broke short words ("sever-ity").
// A table still wider than the window, with several such words in a row,
// scrolls sideways in a box of its own (class "scroll") instead.
func longCellText(s string) bool {
	n := 0
	for _, r := range s {
		if n++; r == ' ' {
			n = 0
		} else if n > longWord {
			return true
		}
	}
	return false
}
