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
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// row is one line of a Service's timeline: an observation where something
// happened, or the end of the input.
type row struct {
	step    int
	end     bool
	version string
	cells   []string // one per lane: the lane's new state, or "" unchanged
	spec    []string
	pins    []Pin
	deleted bool
	gap     bool
}

// notes are the row's spec changes, then "gap" and "deleted" when the
// Service was unseen or deleted after it, joined by sep: a Service both
// was deleted in the gap, or created again with a new uid.
func (r *row) notes(sep string) string {
	notes := slices.Clone(r.spec)
	if r.gap {
		notes = append(notes, "gap")
	}
	if r.deleted {
		notes = append(notes, "deleted")
	}
	return strings.Join(notes, sep)
}

// rows lays out a Service's events, observation by observation; only
// observations where something happened get a row.
func rows(s *Service) []*row {
	byStep := map[int]*row{}
	get := func(step int, version string) *row {
		r := byStep[step]
		if r == nil {
			r = &row{step: step, version: version, cells: make([]string, len(s.Lanes))}
			byStep[step] = r
		}
		if r.version == "" {
			r.version = version
		}
		return r
	}
	for i, l := range s.Lanes {
		for _, p := range l.Points {
			get(p.Step, p.ResourceVersion).cells[i] = cell(l.Name, p)
		}
	}
	for _, c := range s.SpecChanges {
		r := get(c.Step, c.ResourceVersion)
		for _, f := range c.Fields {
			r.spec = append(r.spec, strings.TrimPrefix(f, "spec."))
		}
	}
	end := &row{end: true, cells: make([]string, len(s.Lanes))}
	for _, p := range s.Findings {
		if p.AtEnd {
			end.pins = append(end.pins, p)
			continue
		}
		r := get(p.Step, p.Finding.Object.ResourceVersion)
		r.pins = append(r.pins, p)
	}
	for _, d := range s.Deletions {
		get(d.Step, d.ResourceVersion).deleted = true
	}
	for _, g := range s.Gaps {
		get(g.Step, g.ResourceVersion).gap = true
	}
	out := make([]*row, 0, len(byStep)+1)
	for _, r := range byStep {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *row) int { return a.step - b.step })
	// Before the first point a lane kept, its state is not known.
	for i, l := range s.Lanes {
		if l.Dropped == 0 || len(l.Points) == 0 {
			continue
		}
		for _, r := range out {
			if r.step < l.Points[0].Step && r.cells[i] == "" {
				r.cells[i] = "?"
			}
		}
	}
	if len(end.pins) > 0 {
		out = append(out, end)
	}
	return out
}

// cell is a lane's new state as the text timeline shows it.
func cell(lane string, p Point) string {
	switch {
	case p.absent():
		return "-"
	case lane == LaneVerdict:
		rule, _, _ := strings.Cut(p.Reason, ":")
		return p.Status + " " + rule
	}
	s := state(p.Status, p.Reason)
	if p.Bumped {
		s += "*"
	}
	return s
}

// state is a condition's state as a table of text shows it:
// "Status/Reason", "/Reason" for an empty status, the status alone
// without a reason, quoted as Go quotes a string when quoted says so.
func state(status, reason string) string {
	s := status
	if reason != "" {
		s += "/" + reason
	}
	if quoted(status, s) {
		s = strconv.QuoteToGraphic(s)
	}
	return s
}

// StateCell is how a table of text shows a condition's status and reason
// in one of its cells, as WriteText shows a lane's state: "Status/Reason",
// or the status alone without a reason; a state that could read as one of
// the marks of a table ("-" for a condition absent, "|", "?", "*", "" for
// an empty state), or whose status holds "/", which would read as the one
// before the reason, is quoted as Go quotes a string, and a status or
// reason the API accepts never is. The cell is escaped and cut as
// ClipCell does, a quoted state outside its escapes; cut reports whether
// it cut.
func StateCell(status, reason string) (cell string, cut bool) {
	return clipState(state(status, reason))
}

// clipState cuts a lane's cell, or a state, as clipCell does; a state
// quoted by state is escaped already.
func clipState(c string) (string, bool) {
	if strings.HasPrefix(c, `"`) {
		return clip(c, true)
	}
	return clipCell(c)
}

// quoted reports whether a lane's state s could read as one of the
// table's marks ("|", "-", "?", the "*" of a bump, "" for an empty state,
// which only a quote shows), as a state quoted for that, or as another
// state: a "/" in its status would read as the one before its reason, and
// "True/X" with reason Y as True with reason X/Y. Such a state is shown
// quoted as Go quotes a string, and a state the API accepts never is (a
// status is True, False or Unknown, and a reason ends in a letter, a digit
// or "_").
func quoted(status, s string) bool {
	return s == "" || s == "|" || s == "-" || s == "?" || strings.HasSuffix(s, "*") || strings.Contains(s, `"`) ||
		strings.Contains(status, "/")
}

// laneTitle is a lane's column title: the condition type without its
// LoadBalancer prefix, which every one shares.
func laneTitle(name string) string {
	return strings.ToUpper(strings.TrimPrefix(name, "LoadBalancer"))
}

// MaxTextCell is how many characters a cell of the text timeline shows of
// a lane's state or a resourceVersion: a reason may be 1 KiB long, and a
// column is as wide as its widest cell. It fits every status and reason
// KEP-4631 defines with the "*" of a bump, with room to spare.
const MaxTextCell = 48

// clipCell escapes c as input.Escape does and cuts the result to
// MaxTextCell characters, the last one "…", keeping a trailing "*" (a
// bump) after it; it reports whether it cut. The cut never splits an
// escape (\x1b, \u202e), which would read as other text.
func clipCell(c string) (string, bool) {
	e := input.Escape(c)
	return clip(e, e != c)
}

// clip cuts e as clipCell does; escaped says that e is escaped text, whose
// escapes a cut must not split.
func clip(e string, escaped bool) (string, bool) {
	if utf8.RuneCountInString(e) <= MaxTextCell {
		return e, false
	}
	body, bump := strings.CutSuffix(e, "*")
	room := MaxTextCell - 1 // "…"
	if bump {
		room--
	}
	kept, chars := 0, 0 // of body, in bytes and in characters
	for kept < len(body) {
		size, n := unit(body[kept:], escaped)
		if chars+n > room {
			break
		}
		kept, chars = kept+size, chars+n
	}
	out := body[:kept] + "…"
	if bump {
		out += "*"
	}
	return out, true
}

// ClipCell is how a table of text shows a string from the input in one of
// its cells: escaped as input.Escape does, and cut to MaxTextCell
// characters, the last one "…", with a trailing "*" kept after it; cut
// reports whether it cut. The cut never splits an escape. WriteText cuts
// its cells so; the caller of another table says, under it, that "…"
// marks a cut, as WriteText does.
func ClipCell(s string) (clipped string, cut bool) { return clipCell(s) }

// unit returns the length in bytes and in characters of the first
// character of s, or, when s is escaped text, of the escape it starts
// (strconv.QuoteToGraphic's: \n, \\, \x1b, \u202e, \U0010ffff).
func unit(s string, escaped bool) (int, int) {
	if escaped && len(s) > 1 && s[0] == '\\' {
		n := 2
		switch s[1] {
		case 'x':
			n = 4
		case 'u':
			n = 6
		case 'U':
			n = 10
		}
		n = min(n, len(s))
		return n, n
	}
	_, size := utf8.DecodeRuneInString(s)
	return size, 1
}

// WriteText writes the timelines of services as text: per Service a table
// whose columns are the lanes and whose rows are the observations where
// something happened, time flowing down. A lane's cell shows its new state
// where it changed, with "*" after it when only lastTransitionTime moved
// (a bump), and "|" where it goes on unchanged; a state that could read as
// one of these marks, or as "-" (absent) or "?" (not known), and one whose
// status holds "/", which would read as the one before the reason, is
// quoted as Go quotes a string (a status or reason the API accepts never
// is). A state or a resourceVersion longer than MaxTextCell characters is cut,
// with "…" where it is, and a line below the table says so (WriteHTML
// shows it whole). Below each table come the findings in full. What the input says
// (names, reasons, messages) is escaped as check's text output escapes it
// (input.Escape), so that it cannot drive the terminal. Nil or empty
// services writes a line saying there is nothing to show. The only error
// is the writer's.
func WriteText(w io.Writer, services []*Service) error {
	ew := &errWriter{w: w}
	if len(services) == 0 {
		fmt.Fprintln(ew, "Timeline: no LoadBalancer Service and no finding to show.")
		return ew.err
	}
	fmt.Fprintln(ew, "Timeline: one row per observation where something happened; \"|\" a lane unchanged,")
	fmt.Fprintln(ew, "\"-\" a condition absent, \"?\" not known (earlier events not kept), \"*\" lastTransitionTime")
	fmt.Fprintln(ew, "moved with the status unchanged (how a provider acknowledges a spec change, L6).")
	fmt.Fprintln(ew, "A state that could read as a mark, or whose status holds \"/\", is quoted as Go quotes it:")
	fmt.Fprintln(ew, "\"False/Odd*\" is no bump of False/Odd, \"True/X/Y\" no status True with reason X/Y.")
	for _, s := range services {
		writeService(ew, s)
	}
	return ew.err
}

func writeService(w io.Writer, s *Service) {
	fmt.Fprintf(w, "\n%s: %s", input.Escape(s.Ref()), plural(s.Observations, "observation"))
	// Cut as in the table's cells: a crafted resourceVersion may be long.
	first, firstCut := clipCell(s.FirstVersion)
	last, lastCut := clipCell(s.LastVersion)
	clipped := false
	switch {
	case s.FirstVersion != "" && s.LastVersion == "":
		// Read from a cluster, then from manifests: the first is known.
		fmt.Fprintf(w, ", resourceVersion %s at first, none at the last", first)
		clipped = firstCut
	case s.FirstVersion != "" && s.FirstVersion != s.LastVersion:
		fmt.Fprintf(w, ", resourceVersion %s to %s", first, last)
		clipped = firstCut || lastCut
	case s.LastVersion != "":
		fmt.Fprintf(w, ", resourceVersion %s", last)
		clipped = lastCut
	}
	fmt.Fprintln(w)
	if n := dropped(s); n > 0 {
		fmt.Fprintf(w, "  (%s not kept; the first row stands for the state before it)\n", plural(n, "earlier event"))
	}

	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	header := []string{"  OBS", "RV"}
	for _, l := range s.Lanes {
		header = append(header, laneTitle(l.Name))
	}
	header = append(header, "SPEC CHANGE", "FINDINGS")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows(s) {
		cols := []string{"  " + strconv.Itoa(r.step), r.version}
		if r.end {
			cols[0], cols[1] = "  end", ""
		}
		for _, c := range r.cells {
			switch {
			case c != "":
				cols = append(cols, c)
			case r.end:
				cols = append(cols, "")
			default:
				cols = append(cols, "|")
			}
		}
		spec := r.notes(",")
		var pins []string
		for _, p := range r.pins {
			pins = append(pins, string(p.Finding.Rule)+" "+string(p.Finding.Severity))
		}
		cols = append(cols, spec, strings.Join(pins, ","))
		// Every cell ends in a tab, the last ones too: tabwriter aligns
		// only cells that a tab terminates.
		for i, c := range cols {
			// The resourceVersion and the lanes' cells come from the
			// input, and one long reason would widen every row.
			if i >= 1 && i < 2+len(r.cells) {
				var cut bool
				if i >= 2 {
					cols[i], cut = clipState(c)
				} else {
					cols[i], cut = clipCell(c)
				}
				clipped = clipped || cut
				continue
			}
			cols[i] = input.Escape(c)
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t")+"\t")
	}
	tw.Flush()
	for line := range strings.Lines(table.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	if clipped {
		fmt.Fprintf(w, "  (\"…\" marks a cell cut at %d characters)\n", MaxTextCell)
	}

	if len(s.Findings) == 0 {
		return
	}
	fmt.Fprintln(w, "  findings:")
	if s.DroppedFindings > 0 {
		fmt.Fprintf(w, "    (%s not kept)\n", plural(s.DroppedFindings, "earlier finding"))
	}
	for _, p := range s.Findings {
		fmt.Fprintf(w, "    %s  %s\n", pinPlace(p), input.Escape(findingText(p.Finding)))
	}
}

// pinPlace says where a finding is pinned: "obs 3" or "end".
func pinPlace(p Pin) string {
	if p.AtEnd {
		return "end    "
	}
	return fmt.Sprintf("obs %-3d", p.Step)
}

// findingText is a finding on one line: severity, rule, field, message.
func findingText(f conformance.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %-4s ", f.Severity, f.Rule)
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// dropped counts the events of a Service's lanes, spec changes, deletions
// and gaps that MaxPoints dropped.
func dropped(s *Service) int {
	n := s.DroppedSpecChanges + s.DroppedDeletions + s.DroppedGaps
	for _, l := range s.Lanes {
		n += l.Dropped
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// errWriter keeps the first write error and writes nothing after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
