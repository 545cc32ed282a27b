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
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/conformance/timeline"
)

// checkHooks is what check does besides checking: the timeline of each
// input (--timeline prints it after the input's table; -o html draws it),
// and progress on a terminal. check calls it at a few points of its loop;
// a nil *checkHooks does nothing.
type checkHooks struct {
	textTimeline bool
	maxPoints    int
	htmlServices *int // -o html: the most Services drawn
	stdout       io.Writer
	progress     *progress
	html         *htmlReporter
	annotations  []string
	// current is the timeline of the input being checked; nil when no
	// timeline is wanted.
	current *timeline.Timeline
	// flags are check's, to tell a flag given from its default.
	flags *pflag.FlagSet
}

// addCheckHooks adds the flags of the hooks to check's flags.
func addCheckHooks(fs *pflag.FlagSet) *checkHooks {
	h := &checkHooks{}
	fs.BoolVar(&h.textTimeline, "timeline", false, "text output: after each input's table, print each LoadBalancer Service's timeline: a lane per condition and the verdict, spec changes and findings where they happened")
	fs.IntVar(&h.maxPoints, "timeline-points", timeline.DefaultMaxPoints, "timelines: the latest events kept per lane and per Service's findings")
	h.htmlServices = fs.Int("html-services", defaultHTMLServices, "-o html: the most Services drawn, so that the page opens in a browser; those with violations first, then warnings (0: all)")
	h.flags = fs
	return h
}

// defaultHTMLServices keeps the page of a large cluster to a few MiB: a
// drawing and its tables take about 8 KiB.
const defaultHTMLServices = 500

// start sets the hooks up once the flags are parsed: progress on stderr
// when it is a terminal and the output is not JSON. It returns check's
// stdout and stderr, which clear the progress line before they write, so
// that nothing is written over it. check then sets stdout to the writer
// the reports go to, where --timeline prints too.
func (h *checkHooks) start(f *checkFlags, stdout, stderr io.Writer) (io.Writer, io.Writer, error) {
	if h.textTimeline && f.output != "text" {
		return stdout, stderr, errors.New("--timeline goes with -o text; -o html draws the timelines anyway")
	}
	switch {
	case h.flags.Changed("html-services") && f.output != "html":
		return stdout, stderr, errors.New("--html-services goes with -o html")
	case *h.htmlServices < 0:
		return stdout, stderr, errors.New("--html-services must not be negative (0 draws every Service)")
	case h.flags.Changed("timeline-points") && !h.textTimeline && f.output != "html":
		return stdout, stderr, errors.New("--timeline-points goes with --timeline or -o html")
	case h.maxPoints <= 0:
		return stdout, stderr, errors.New("--timeline-points must be positive")
	}
	h.annotations = f.annotations
	h.progress = newProgress(stderr, f.output == "json")
	return h.progress.stderr(stdout), h.progress.stderr(stderr), nil
}

// newHTMLReporter returns the reporter of -o html.
func (h *checkHooks) newHTMLReporter(w io.Writer) reporter {
	h.html = &htmlReporter{w: w, hooks: h}
	return h.html
}

func (h *checkHooks) wantTimeline() bool {
	return h != nil && (h.textTimeline || h.html != nil)
}

// readAhead counts the bytes of an input read ahead (see readAhead).
func (h *checkHooks) readAhead(n int) {
	if h != nil && h.progress != nil {
		h.progress.bytes.Add(int64(n))
	}
}

// reader wraps an input to count its bytes.
func (h *checkHooks) reader(r io.Reader) io.Reader {
	if h == nil {
		return r
	}
	return h.progress.reader(r)
}

// startInput begins an input's timeline.
func (h *checkHooks) startInput() {
	if h.wantTimeline() {
		h.current = timeline.New(timeline.MaxPoints(h.maxPoints), timeline.RelevantAnnotations(h.annotations))
	}
}

// observe records an object and the checker's findings on it.
func (h *checkHooks) observe(obj conformance.Object, found []conformance.Finding) {
	if h == nil {
		return
	}
	h.progress.object()
	if h.current != nil {
		h.current.ObserveObject(obj, found)
	}
}

// repeated counts an object that gave the previous observation of its
// Service again: read, but no new point of a timeline.
func (h *checkHooks) repeated() {
	if h != nil {
		h.progress.object()
	}
}

// endInput records the findings owed at the end of the input name, and
// prints its timeline (--timeline) or keeps it for the page (-o html).
func (h *checkHooks) endInput(name string, end []conformance.Finding) {
	if h == nil || h.current == nil {
		return
	}
	h.current.Findings(end)
	services := h.current.Services()
	h.current = nil
	if h.html != nil {
		// The page draws every input's Services one after another: a
		// Service of the same name in two files would be two sections
		// that nothing tells apart. The text prints each input's
		// timelines under its table, which names it.
		for _, s := range services {
			s.Source = displayName(name)
		}
		h.html.add(services)
		return
	}
	h.progress.clear()
	if err := timeline.WriteText(h.stdout, services); err == nil {
		fmt.Fprintln(h.stdout)
	}
}

// done removes the progress line before the summary.
func (h *checkHooks) done() {
	if h != nil {
		h.progress.clear()
	}
}

// htmlReporter writes one self-contained HTML page at the end: the totals,
// the input problems and every input's timelines.
type htmlReporter struct {
	w        io.Writer
	hooks    *checkHooks
	sources  []string
	errors   []string
	omitted  int // input problems past maxJSONErrors, counted only
	services []*timeline.Service
	undrawn  int // timelines left out, as the page would not draw them
}

// add keeps an input's timelines for the page. Past twice --html-services
// only those the page would draw are kept, the others counted, so that
// the timelines of a directory of many inputs take the memory of the
// Services drawn and of one input's, not of every Service.
func (r *htmlReporter) add(services []*timeline.Service) {
	r.services = append(r.services, services...)
	if n := *r.hooks.htmlServices; n > 0 && len(r.services) > 2*n {
		kept := timeline.Worst(r.services, n)
		r.undrawn += len(r.services) - len(kept)
		r.services = kept
	}
}

// The page needs counts only; the timelines carry the findings.
func (r *htmlReporter) collectorOptions() []conformance.CollectorOption {
	return []conformance.CollectorOption{conformance.SummaryOnly(true)}
}

func (r *htmlReporter) findings([]conformance.Finding) {}

// inputError keeps the first input problems for the page, as many as
// -o json lists: their number grows with the input, not with the Services.
func (r *htmlReporter) inputError(err error) {
	if len(r.errors) >= maxJSONErrors {
		r.omitted++
		return
	}
	r.errors = append(r.errors, errorText(err))
}

func (r *htmlReporter) input(name string, _ conformance.Report) {
	r.sources = append(r.sources, displayName(name))
}

func (r *htmlReporter) finish(total conformance.Summary, inputs int, interrupted bool, unfinished *input.Position, missing bool) {
	r.hooks.done()
	if r.omitted > 0 {
		r.errors = append(r.errors, fmt.Sprintf("... and %s, on standard error", plural(r.omitted, "more input problem")))
	}
	if interrupted {
		r.errors = append(r.errors, "the check was interrupted: what was read until then is shown, and the traces end there")
	}
	if unfinished != nil {
		r.errors = append(r.errors, unfinishedText(unfinished))
	}
	if missing {
		r.errors = append(r.errors, "no Service was read, and --require-services requires one")
	}
	_ = timeline.WriteHTML(r.w, timeline.Page{
		Title:       "lbstatus check",
		Sources:     r.sources,
		Summary:     &total,
		Result:      checkResult(&total, interrupted, missing),
		Errors:      r.errors,
		Services:    r.services,
		MaxServices: *r.hooks.htmlServices,
		Undrawn:     r.undrawn,
	})
}

// watchTimeline is watch's --timeline: the timelines of what the watch saw,
// printed on exit before the summary. A nil *watchTimeline does nothing.
type watchTimeline struct {
	on        bool
	maxPoints int
	flags     *pflag.FlagSet // to ask whether a flag was given
	tl        *timeline.Timeline
}

// addWatchTimeline adds watch's --timeline flags.
func addWatchTimeline(fs *pflag.FlagSet) *watchTimeline {
	w := &watchTimeline{flags: fs}
	fs.BoolVar(&w.on, "timeline", false, fmt.Sprintf("text output: on exit, print each LoadBalancer Service's timeline of what the watch saw; of the Services deleted meanwhile, only %d are kept: those with violations, then warnings, then the latest", watchEndedTimelines))
	fs.IntVar(&w.maxPoints, "timeline-points", timeline.DefaultMaxPoints, "timelines: the latest events kept per lane and per Service's findings")
	return w
}

// watchEndedTimelines is how many timelines of deleted Services a watch
// keeps: one left running sees Services come and go for ever, and its
// memory follows those alive (section 8).
const watchEndedTimelines = 200

// start checks the flags once parsed, as check does: the timeline goes
// with text output only, since it would break a stream of JSON lines, and
// --timeline-points with --timeline, and above zero.
func (w *watchTimeline) start(f *checkFlags) error {
	switch {
	case !w.on && w.flags.Changed("timeline-points"):
		return errors.New("--timeline-points goes with --timeline")
	case !w.on:
		return nil
	case f.output != "text":
		return errors.New("--timeline goes with -o text")
	case w.maxPoints <= 0:
		return errors.New("--timeline-points must be positive")
	}
	w.tl = timeline.New(timeline.MaxPoints(w.maxPoints), timeline.RelevantAnnotations(f.annotations), timeline.MaxEnded(watchEndedTimelines))
	return nil
}

// observe records an object the watch checked and its findings.
func (w *watchTimeline) observe(obj conformance.Object, found []conformance.Finding) {
	if w != nil && w.tl != nil {
		w.tl.ObserveObject(obj, found)
	}
}

// gap marks, on the timelines of the Services a gap names
// (namespace/name), that the watch did not see them for a while.
func (w *watchTimeline) gap(g *watchGap) {
	if w == nil || w.tl == nil {
		return
	}
	for _, ref := range g.Services {
		namespace, name, _ := strings.Cut(ref, "/")
		w.tl.Gap(namespace, name)
	}
}

// finish records the findings owed at the end and prints the timelines.
func (w *watchTimeline) finish(out io.Writer, end []conformance.Finding) {
	if w == nil || w.tl == nil {
		return
	}
	w.tl.Findings(end)
	fmt.Fprintln(out)
	if err := timeline.WriteText(out, w.tl.Services()); err == nil {
		fmt.Fprintln(out)
	}
	if n := w.tl.Forgotten(); n > 0 {
		fmt.Fprintf(out, "The timelines of %s deleted while watching are not shown: only the %d latest deleted are kept, those with violations, then warnings, first.\n\n",
			plural(n, "more Service"), watchEndedTimelines)
	}
}
