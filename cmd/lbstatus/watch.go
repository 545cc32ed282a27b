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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// watchFlags are the flags of watch.
type watchFlags struct {
	checkFlags
	cluster *clusterFlags
}

const watchUsage = `Usage: lbstatus watch [flags]

Checks the Services of a live cluster as they change: lists them, then
watches them, and prints each finding as it is made. Each Service's
observations form a trace, as in "lbstatus check", and each observation (uid
and resourceVersion) is checked once.

The watch survives a restarted apiserver and a lost connection: it resumes
from the last resourceVersion it saw, within a few seconds of the server
being back. When that resourceVersion has expired it must list again, and
what happened in between was not observed: a "gap" line names the window of
resourceVersions and the Services that changed in it, and the summary counts
gaps. The first list must answer within --request-timeout (default 30s),
and so must each watch request, or the watch is lost and tried again. The
server ends each watch after 5 to 10 minutes, as asked, and the watch
resumes; one still open 10s later, with nothing from the server
meanwhile, is lost too: its connection died unseen.

-l selects Services by label, as kubectl's -l does. A Service whose labels
stop matching leaves the watch as a deleted one does (the apiserver reports
it as DELETED, and a GET tells the two apart, as a list without the
selector does for those missing from the list after a gap: what its trace
still owes says that it stopped matching the selector); if it matches
again, its trace starts anew.

On interrupt (Ctrl-C, SIGTERM) it prints what is owed at the end of each
trace, an L8 notice for each LoadBalancer Service still without conditions
more than 30s after its creation, or after a conversion to LoadBalancer the
watch saw, or else after the last write that may have set the type, as in
describe (no KEP-aware provider handles it; time after the watch was lost
does not count), and a summary. Exit status: 0 no violation seen, 1 at least one, 2 the
cluster cannot be reached, refuses the first list or watch, or is
interrupted before the first list answered, findings that cannot be
written (the watch stops at once), or bad usage.

Installed as kubectl-lbstatus on the PATH, it is also "kubectl lbstatus watch".

Examples:
  lbstatus watch --context kind-kind -n shop --class example.com/lb
  lbstatus watch -A -o json --request-timeout 10s > findings.jsonl
  lbstatus watch -n shop -l app=web

Flags:
`

// serviceEvent is one thing a source saw: an observation of a Service, or
// a gap in what it saw.
type serviceEvent struct {
	// svc is the Service observed; nil for a gap.
	svc *v1.Service
	// deleted marks the Service as gone: its trace ends.
	deleted bool
	// left, of a deleted Service, says that it still exists but stopped
	// matching the label selector.
	left bool
	// gap, when set, is a stretch of history the source did not see.
	gap *watchGap
	// lost and back say that the source lost its watch, and that it
	// watches again: in between it sees nothing.
	lost, back bool
	// heard, of a lost event, is when the server was last heard from, as
	// a watch gone silent ends long after that; zero is now.
	heard time.Time
}

// watchGap is a stretch of a cluster's history that a watch did not see:
// it had to list again, and only the end states of the Services that
// changed in between were observed.
type watchGap struct {
	// From is the last resourceVersion the watch saw before the gap.
	From string `json:"from"`
	// To is the resourceVersion of the list that ended the gap.
	To string `json:"to"`
	// Reason says why the watch had to list again.
	Reason string `json:"reason"`
	// Changed counts the Services created, changed or deleted in the gap.
	Changed int `json:"changed"`
	// Services names them, as namespace/name, sorted.
	Services []string `json:"services,omitempty"`
}

// text is the gap as one line for people.
func (g *watchGap) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gap        resourceVersions after %s up to %s were not observed (%s); %s changed in it",
		input.Escape(g.From), input.Escape(g.To), input.Escape(g.Reason), plural(g.Changed, "Service"))
	const shown = 10
	if len(g.Services) > 0 {
		// The names are the server's words, as the resourceVersions are.
		for i, name := range g.Services[:min(len(g.Services), shown)] {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			b.WriteString(sep + input.Escape(name))
		}
		if len(g.Services) > shown {
			fmt.Fprintf(&b, " and %d more", len(g.Services)-shown)
		}
	}
	b.WriteString("; states written and undone inside it were not seen")
	return b.String()
}

// serviceSource delivers a cluster's Service observations.
type serviceSource interface {
	// describe says what is watched, for people.
	describe() string
	// run calls handle for each event, one at a time, until ctx ends, and
	// writes what people should know about the connection to log. It
	// returns an error only when the first list fails or the first watch
	// is refused, and returns only once it has stopped calling handle.
	run(ctx context.Context, log io.Writer, handle func(serviceEvent)) error
}

// observed identifies an observation: the same uid and resourceVersion is
// the same state of the same object.
type observed struct {
	uid             string
	resourceVersion string
}

func observedOf(svc *v1.Service) observed {
	return observed{uid: string(svc.UID), resourceVersion: svc.ResourceVersion}
}

func keyOf(svc *v1.Service) string { return svc.Namespace + "/" + svc.Name }

// runWatch is the watch command.
func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer, e env) int {
	var f watchFlags
	fs := pflag.NewFlagSet("watch", pflag.ContinueOnError)
	fs.SetOutput(stdout) // --help; bad usage is one line on stderr
	addCheckerFlags(fs, &f.checkFlags)
	// check's words for these would mislead here: watch prints a line per
	// finding, every notice included, and has no HTML page. -v stays
	// accepted, for scripts that pass check's flags.
	fs.Lookup("output").Usage = `output format: "text" (a line per finding, then a summary) or "json" (a JSON object per line)`
	_ = fs.MarkHidden("verbose")
	f.cluster = addClusterFlags(fs, true)
	f.cluster.addSelector(fs)
	story := addWatchTimeline(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), watchUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbstatus: watch takes no arguments, got %q\n", fs.Args())
		return exitInput
	}
	if f.output != "text" && f.output != "json" {
		fmt.Fprintf(stderr, "lbstatus: unknown output format %q: use text or json\n", f.output)
		return exitInput
	}
	if err := f.validateChecker(); err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	if err := f.cluster.validate(); err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	if err := story.start(&f.checkFlags); err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	src, err := e.newSource(&f)
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	// Findings that cannot be written (a full disk) are lost: the watch
	// stops at the first write error rather than run on unheard.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &stopOnError{w: stdout, stop: cancel}
	stdout = out

	// JSON lines go through the escaper check -o json uses: a name or a
	// message may hold what a terminal interprets (section 8).
	jsonOut := &jsonEscaper{w: stdout}
	checker := conformance.NewChecker(append(f.checkerOptions(), conformance.Live(true))...)
	col := conformance.NewCollector(conformance.SummaryOnly(true))
	emit := func(found []conformance.Finding) {
		for _, fd := range found {
			if f.output == "json" {
				b, _ := json.Marshal(shownFinding(fd))
				fmt.Fprintf(jsonOut, "%s\n", b)
			} else {
				fmt.Fprintln(stdout, findingLine(fd, true))
			}
		}
	}
	// checked holds the last observation checked per Service, so that one
	// delivered again (by a list after a gap, or by any source that
	// resyncs) is not checked, counted or reported twice.
	checked := map[string]observed{}
	// unhandled holds the LoadBalancer Services last seen without either
	// condition, for L8 at the end: a watch has the clock a check lacks.
	unhandled := map[string]unhandledService{}
	// otherType holds the uids of the Services last seen of a type other
	// than LoadBalancer: L8 runs from the observation that shows one
	// converted.
	otherType := map[string]types.UID{}
	var blind time.Time // when the source lost its watch; zero while it watches
	gaps := 0
	err = src.run(ctx, stderr, func(ev serviceEvent) {
		switch {
		case ev.lost && blind.IsZero():
			blind = cmp.Or(ev.heard, time.Now())
		case ev.back:
			blind = time.Time{}
		}
		if ev.gap != nil {
			gaps++
			// The Services it names are compared with their last state
			// before it, but the provider's writes inside it are not
			// judged.
			for _, ref := range ev.gap.Services {
				namespace, name, _ := strings.Cut(ref, "/")
				checker.Gap(namespace, name)
			}
			story.gap(ev.gap)
			if f.output == "json" {
				b, _ := json.Marshal(struct {
					Gap *watchGap `json:"gap"`
				}{ev.gap})
				fmt.Fprintf(jsonOut, "%s\n", b)
			} else {
				fmt.Fprintln(stdout, ev.gap.text())
			}
			return
		}
		if ev.svc == nil {
			return
		}
		key := keyOf(ev.svc)
		// A Service created again under the name (a new uid, as a list
		// after a gap shows it) starts afresh: its clock is its own.
		prev, wasUnhandled := unhandled[key]
		wasUnhandled = wasUnhandled && prev.uid == ev.svc.UID
		delete(unhandled, key)
		uid, wasOtherType := otherType[key]
		converted := wasOtherType && uid == ev.svc.UID && ev.svc.Spec.Type == corev1.ServiceTypeLoadBalancer
		delete(otherType, key)
		if ev.deleted {
			delete(checked, key)
		} else {
			if u, ok := unhandledOf(ev.svc, f.classes); ok {
				switch {
				case wasUnhandled:
					u.since, u.typeWrite, u.converted = prev.since, prev.typeWrite, prev.converted
				case converted:
					u.since, u.converted = time.Now(), true
				}
				unhandled[key] = u
			}
			if ev.svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
				otherType[key] = ev.svc.UID
			}
			o := observedOf(ev.svc)
			if prev, ok := checked[key]; ok && prev == o && o.resourceVersion != "" {
				return
			}
			checked[key] = o
		}
		obj := conformance.Object{Kind: "Service", APIVersion: "v1", Service: ev.svc, Deleted: ev.deleted,
			Ref: conformance.ObjectRef{Kind: "Service", Namespace: ev.svc.Namespace, Name: ev.svc.Name, ResourceVersion: ev.svc.ResourceVersion}}
		var found []conformance.Finding
		if ev.left {
			found = checker.Leave(ev.svc.Namespace, ev.svc.Name)
		} else {
			found = checker.ObserveObject(obj)
		}
		story.observe(obj, found)
		col.Observe(obj, found)
		emit(found)
	})
	if out.err != nil {
		fmt.Fprintf(stderr, "lbstatus: writing the findings: %s; the watch stopped\n", pathMessage(out.err))
		return exitInput
	}
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %s\n", input.Escape(err.Error())) // the server's words
		return exitInput
	}

	// What happened while the watch was lost was not seen: L8's clock
	// stops where the watch did.
	end := append(checker.Finish(), l8Findings(unhandled, cmp.Or(blind, time.Now()))...)
	col.Findings(end)
	emit(end)
	story.finish(stdout, end)
	summary := col.Report().Summary
	ws := watchSummary{Result: checkResult(&summary, false, false), Summary: summary, Gaps: gaps}
	if !blind.IsZero() {
		ws.LostSince = &blind
	}
	if f.output == "json" {
		b, _ := json.Marshal(struct {
			Summary watchSummary `json:"summary"`
		}{ws})
		fmt.Fprintf(jsonOut, "%s\n", b)
		jsonOut.Flush()
	} else {
		fmt.Fprintf(stdout, "Watched %s of %s.\n", plural(summary.Observations, "observation"), plural(summary.Services, "Service"))
		if gaps > 0 {
			fmt.Fprintf(stdout, "The watch had %s: transient states inside %s were not observed, so a clean result covers only what was seen.\n",
				plural(gaps, "gap"), map[bool]string{true: "it", false: "them"}[gaps == 1])
		}
		if !blind.IsZero() {
			fmt.Fprintf(stdout, "The watch was lost at %s and not back at the end: nothing after it was observed, so a clean result covers only what was seen.\n",
				blind.Format(time.DateTime))
		}
		printTotals(stdout, &summary)
	}
	if out.err != nil {
		fmt.Fprintf(stderr, "lbstatus: writing the findings: %s\n", pathMessage(out.err))
		return exitInput
	}
	if summary.Failed() {
		return exitViolation
	}
	return exitOK
}

// stopOnError writes to w until a write fails, then calls stop once and
// fails every later write with that error.
type stopOnError struct {
	w    io.Writer
	stop func()
	err  error
}

func (s *stopOnError) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
		s.stop()
	}
	return n, err
}

// unhandledService is what L8 needs of a LoadBalancer Service without
// either condition.
type unhandledService struct {
	ref conformance.ObjectRef
	uid types.UID
	// since is when L8's clock started: the Service's creation, a later
	// write that may have set its type (typeWrite; see typeSetAt), or the
	// observation that showed it converted to LoadBalancer (converted).
	since                time.Time
	typeWrite, converted bool
}

// unhandledOf returns svc's entry when it is a LoadBalancer Service with
// neither Serving nor Provisioning, and a creation time; not for one of a
// class other than those --class names, which the checker leaves alone
// (P1), and L8 too. L8's clock runs from the creation or, when a later
// write may have converted the Service (a Service listed as LoadBalancer
// may have been so for seconds only), from that write, as describe has it.
func unhandledOf(svc *v1.Service, classes []string) (unhandledService, bool) {
	if conformance.Classes(classes).Foreign(svc) || svc.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.CreationTimestamp.IsZero() ||
		conditions.Acknowledged(svc.Status.Conditions) {
		return unhandledService{}, false
	}
	// Cut as the checker cuts its findings' (see conformance.Finding).
	ref := conformance.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, ResourceVersion: input.Clip(svc.ResourceVersion)}
	at := typeSetAt(svc)
	return unhandledService{ref: ref, uid: svc.UID, since: at.Time, typeWrite: at != svc.CreationTimestamp}, true
}

// l8Findings notes each Service still without conditions past L8's first
// deadline from its creation or conversion, in namespace/name order: no
// KEP-aware provider handles it. The checker, which has no clock, says
// only that it has no conditions (R3).
func l8Findings(unhandled map[string]unhandledService, now time.Time) []conformance.Finding {
	var out []conformance.Finding
	for _, key := range slices.Sorted(maps.Keys(unhandled)) {
		u := unhandled[key]
		what := "the Service's creation"
		switch {
		case u.converted:
			what = "its conversion to type LoadBalancer"
		case u.typeWrite:
			what = "the last write that may have set its type LoadBalancer"
		}
		if age := now.Sub(u.since); age > conditions.DefaultConditionsTimeout {
			out = append(out, conformance.Finding{Rule: "L8", Severity: conformance.SeverityNotice, Object: u.ref, Field: "status.conditions",
				Message: fmt.Sprintf("no KEP-4631 condition %s after %s, past L8's %s: no KEP-aware provider handles it, and a test concludes Fail (T2)",
					duration.HumanDuration(age), what, conditions.DefaultConditionsTimeout)})
		}
	}
	return out
}

// watchSummary is the checker's summary with the watch's gaps.
type watchSummary struct {
	// Result is PASS or FAIL, as the text summary ends, and as check's
	// JSON summary says it.
	Result string `json:"result"`
	conformance.Summary
	// Gaps counts the times the watch had to list again.
	Gaps int `json:"gaps"`
	// LostSince is when the watch was lost (for one gone silent, when the
	// server was last heard from), if it was still lost at the end:
	// nothing after it was observed.
	LostSince *time.Time `json:"lostSince,omitempty"`
}

// serviceAPI lists and watches Services as this project's v1.Service.
type serviceAPI interface {
	// list returns the Services and the list's resourceVersion.
	list(ctx context.Context) (*v1.ServiceList, error)
	// watch watches the Services from resourceVersion on, asking the
	// server to end the watch after timeout. The watch ends when ctx does.
	watch(ctx context.Context, resourceVersion string, timeout time.Duration) (watch.Interface, error)
}

// selecting is a serviceAPI with a label selector. A Service whose labels
// stop matching comes as DELETED, with its labels from before the change:
// only the server can tell it from a deleted one.
type selecting interface {
	// stillThere reports whether svc, the object of a DELETED event, still
	// exists (the same uid) and so only left the selector.
	stillThere(ctx context.Context, svc *v1.Service) bool
	// listUnselected lists a page, as opts asks, of the Services of
	// namespace (of every namespace when empty) whatever their labels.
	// Without a selector it returns nil: the watch's own list holds them.
	listUnselected(ctx context.Context, namespace string, opts metav1.ListOptions) (*v1.ServiceList, error)
}

// namespaced is a serviceAPI of one namespace that can tell whether it
// exists.
type namespaced interface {
	// namespaceMissing returns the namespace, and reports whether the
	// server said it does not exist; anything else, such as a user who
	// may not read namespaces, is not missing.
	namespaceMissing(ctx context.Context) (string, bool)
}

// Retry timing. A watch resumes within about retryCap of the server being
// back (client-go's informers wait up to 30 s), and a server that is still
// down gets one request every retryCap or so.
const (
	retryFirst = 250 * time.Millisecond
	retryCap   = 2 * time.Second
	// healthyWatch is how long a watch that delivered nothing must have
	// stayed open to count as working, which resets the retry delay.
	healthyWatch = time.Second
	// closedAtOnceLost is how many watches in a row the server may end at
	// once, with no error and nothing delivered, before the watch counts
	// as lost: one is a server restarting, several a server (or a proxy
	// before it) that watches nothing.
	closedAtOnceLost = 3
)

// listWatchSource lists Services, then watches them from the list's
// resourceVersion, resuming from the last resourceVersion seen whenever the
// watch ends. Only when that resourceVersion has expired (410 Gone) does it
// list again, and that is a gap: it reports the window and delivers only
// the Services that changed in it.
type listWatchSource struct {
	api serviceAPI
	// what says what is watched ("Services in namespace shop of URL"),
	// server says where: for messages.
	what, server string
	// requestTimeout bounds each list, and the wait for a watch's answer;
	// zero is no bound.
	requestTimeout time.Duration
	// pause waits between attempts; nil is sleep. Tests record the delays.
	pause func(ctx context.Context, d time.Duration)
	// watchTimeout is the least time a watch asks the server to stay
	// open; zero is defaultWatchTimeout. Tests shorten it.
	watchTimeout time.Duration
}

func (s *listWatchSource) describe() string { return s.what }

func (s *listWatchSource) wait(ctx context.Context, d time.Duration) {
	if s.pause != nil {
		s.pause(ctx, d)
		return
	}
	sleep(ctx, d)
}

// newRetry returns the delays between attempts while the server is down:
// retryFirst, doubling up to retryCap, each with up to a fifth more at
// random so that many watchers do not come back in step.
func (s *listWatchSource) newRetry() wait.Backoff {
	return wait.Backoff{Duration: retryFirst, Factor: 2, Jitter: 0.2, Steps: 1 << 30, Cap: retryCap}
}

// list lists with the request timeout. timedOut reports that the timeout,
// not ctx, ended it.
func (s *listWatchSource) list(ctx context.Context) (list *v1.ServiceList, timedOut bool, err error) {
	lctx, cancel := requestContext(ctx, s.requestTimeout)
	defer cancel()
	list, err = s.api.list(lctx)
	if err == nil && list == nil {
		err = errors.New("the server returned no list")
	}
	return list, err != nil && ctx.Err() == nil && lctx.Err() != nil, err
}

func (s *listWatchSource) run(ctx context.Context, log io.Writer, handle func(serviceEvent)) error {
	list, timedOut, err := s.list(ctx)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted while listing Services on %s", s.server)
	case timedOut:
		return fmt.Errorf("listing Services on %s: no answer within %s (--request-timeout)", s.server, s.requestTimeout)
	default:
		return fmt.Errorf("listing Services on %s: %w", s.server, err)
	}
	known := map[string]observed{}
	for i := range list.Items {
		svc := &list.Items[i]
		known[keyOf(svc)] = observedOf(svc)
		handle(serviceEvent{svc: svc})
	}
	if ns, ok := s.api.(namespaced); ok && len(list.Items) == 0 {
		// A namespace misspelt would be watched in silence for ever.
		rctx, cancel := requestContext(ctx, s.requestTimeout)
		name, missing := ns.namespaceMissing(rctx)
		cancel()
		if missing {
			fmt.Fprintf(log, "lbstatus: namespace %s does not exist; its Services are watched for should it be created\n", input.Escape(name))
		}
	}
	fmt.Fprintf(log, "lbstatus: watching %s; interrupt to stop\n", s.what)

	rv := list.ResourceVersion
	retry := s.newRetry()
	down := false // the watch is lost, and log said so
	lost := func(err error) {
		if !down {
			fmt.Fprintf(log, "lbstatus: lost the watch on %s (%s); trying again every few seconds\n", input.Escape(s.server), input.Escape(err.Error()))
			down = true
			var heard time.Time
			if silent, ok := errors.AsType[*silentWatch](err); ok {
				heard = silent.heard
			}
			handle(serviceEvent{lost: true, heard: heard})
		}
	}
	back := func() {
		if down {
			fmt.Fprintf(log, "lbstatus: watching again from resourceVersion %s\n", input.Escape(rv))
			down = false
			handle(serviceEvent{back: true})
		}
	}
	relisted := false // the last thing done was a list after a gap
	watched := false  // a watch request was accepted
	closedAtOnce := 0 // watches in a row ended at once without an error
	for ctx.Err() == nil {
		// Each watch asks for up to twice the least timeout, so that many
		// watchers do not all come back at once.
		least := cmp.Or(s.watchTimeout, defaultWatchTimeout)
		timeout := least + rand.N(least)
		wctx, cancel := context.WithCancel(ctx)
		w, err := s.watch(wctx, cancel, rv, timeout)
		if err != nil && !watched && (apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err)) {
			// As for the first list: a user who may list but not watch
			// is refused every 2 s for ever, and a watch that never
			// watched would end with a clean summary. Once a watch was
			// accepted, a refusal is retried: credentials are refreshed.
			return fmt.Errorf("watching Services on %s: %w", s.server, err)
		}
		healthy := false
		if err == nil {
			watched = true
			// Back once the watch works: a server that accepts each
			// watch and ends it at once is still down.
			rv, healthy, err = s.consume(ctx, w, rv, timeout, known, handle, back)
		}
		cancel()
		if ctx.Err() != nil {
			break
		}
		if healthy {
			retry = s.newRetry()
			relisted = false
			closedAtOnce = 0
		}
		if err == nil && !healthy {
			// Ended at once, and nothing said why: as lost as an
			// error says, once it keeps happening.
			if closedAtOnce++; closedAtOnce >= closedAtOnceLost {
				err = fmt.Errorf("the server ended %d watches in a row at once, without an event", closedAtOnce)
			}
		}
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			if relisted {
				// Expired again at once: do not list in a tight loop.
				s.wait(ctx, retry.Step())
			}
			next, ok := s.relist(ctx, lost, rv, err, known, handle, &retry)
			if ok {
				rv, relisted = next, true
				back()
			}
			continue
		}
		if err != nil {
			lost(err)
		}
		if !healthy {
			s.wait(ctx, retry.Step())
		}
	}
	return nil
}

// watch starts a watch from rv on ctx, which cancel ends. The server must
// answer (send the headers) within the request timeout, as it must a list:
// a watch sent on a connection that died unseen would otherwise wait for
// ever, the watch lost without a word.
func (s *listWatchSource) watch(ctx context.Context, cancel func(), rv string, timeout time.Duration) (watch.Interface, error) {
	if s.requestTimeout <= 0 {
		return s.api.watch(ctx, rv, timeout)
	}
	timer := time.AfterFunc(s.requestTimeout, cancel)
	w, err := s.api.watch(ctx, rv, timeout)
	if !timer.Stop() {
		if err == nil {
			w.Stop()
		}
		// As for a list: the flag to raise, not Go's words.
		return nil, fmt.Errorf("watching Services: no answer within %s (--request-timeout)", s.requestTimeout)
	}
	return w, err
}

// consume reads a watch until it ends and returns the last resourceVersion
// seen, whether the watch worked (delivered events or stayed open), and the
// error it ended with, if any. works is called once the watch works: at
// its first event, once it has stayed open for healthyWatch, or when ctx
// ends while it is open. Events are handled in the order they came; under
// a label selector, the GETs after DELETED events (see left) overlap.
//
// The server ends the watch after timeout, which the watch asked for. One
// still open silentGrace (a tenth of a shorter timeout) past that, with
// nothing from the server meanwhile, is lost: its connection died unseen
// (one cut without a word shows only to TCP keepalives or HTTP/2 pings, if
// they are on), and the watch would hang without saying so.
func (s *listWatchSource) consume(ctx context.Context, w watch.Interface, rv string, timeout time.Duration, known map[string]observed, handle func(serviceEvent), works func()) (string, bool, error) {
	defer w.Stop()
	start := time.Now()
	open := time.NewTimer(healthyWatch)
	defer open.Stop()
	end, grace := start.Add(timeout), min(timeout/10, silentGrace)
	silent := time.NewTimer(timeout + grace)
	defer silent.Stop()
	events := 0
	heard := start // the watch's start, its last event or bookmark
	// queue holds, in order, the events read and not yet handled: a
	// DELETED one whose GET (see left) has not answered, and those after.
	var queue []queuedEvent
	// finish handles what queue holds, each once its GET answers, and
	// returns what consume does.
	finish := func(worked bool, err error) (string, bool, error) {
		for _, q := range queue {
			if q.left != nil {
				select {
				case q.ev.left = <-q.left:
				case <-ctx.Done():
				}
				if ctx.Err() != nil {
					// Interrupted while asking: whether it was deleted
					// was not learnt, and its trace ends as the watch's.
					return rv, true, nil
				}
			}
			handle(q.ev)
		}
		return rv, worked, err
	}
	for {
		// Silence counts from the last event handled: time spent on it
		// (a slow output, a GET that holds the queue) is not the server's.
		silent.Reset(max(time.Until(end), 0) + grace)
		results := w.ResultChan()
		if len(queue) >= leftAhead {
			results = nil // until the oldest GET answers
		}
		var oldest chan bool
		if len(queue) > 0 {
			oldest = queue[0].left
		}
		select {
		case <-ctx.Done():
			works()
			return rv, true, nil
		case <-open.C:
			works()
		case <-silent.C:
			return finish(true, &silentWatch{timeout: timeout, heard: heard, silence: time.Since(heard)})
		case left := <-oldest:
			if ctx.Err() != nil {
				works()
				return rv, true, nil // as in finish
			}
			queue[0].ev.left, queue[0].left = left, nil
			queue = flush(queue, handle)
		case ev, ok := <-results:
			heard = time.Now()
			worked := events > 0 || time.Since(start) >= healthyWatch
			if !ok {
				return finish(worked, nil)
			}
			if ev.Type == watch.Error {
				return finish(worked, apierrors.FromObject(ev.Object))
			}
			svc, ok := ev.Object.(*v1.Service)
			if !ok || svc == nil {
				continue
			}
			if events++; events == 1 {
				works()
			}
			if svc.ResourceVersion != "" {
				rv = svc.ResourceVersion
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				key, o := keyOf(svc), observedOf(svc)
				if known[key] == o {
					continue
				}
				known[key] = o
				queue = append(queue, queuedEvent{ev: serviceEvent{svc: svc}})
			case watch.Deleted:
				delete(known, keyOf(svc))
				q := queuedEvent{ev: serviceEvent{svc: svc, deleted: true}}
				if _, ok := s.api.(selecting); ok {
					q.left = make(chan bool, 1)
					go func() { q.left <- s.left(ctx, svc) }()
				}
				queue = append(queue, q)
			}
			queue = flush(queue, handle)
		}
	}
}

// queuedEvent is an event a watch read and has not handled yet.
type queuedEvent struct {
	ev serviceEvent
	// left, of a DELETED event under a label selector, gives the answer
	// of the GET that tells whether the Service only left the selector;
	// nil once given, and for any other event.
	left chan bool
}

// leftAhead is how many events a watch reads ahead of the oldest DELETED
// one whose GET has not answered, and so how many GETs may be under way
// at once: a burst of deletions under a label selector waits for about
// one GET's time per leftAhead of them, not for each in turn.
const leftAhead = 16

// flush handles the events at the head of queue that wait for no GET, and
// returns the rest.
func flush(queue []queuedEvent, handle func(serviceEvent)) []queuedEvent {
	for len(queue) > 0 && queue[0].left == nil {
		handle(queue[0].ev)
		queue[0] = queuedEvent{}
		queue = queue[1:]
	}
	return queue
}

// silentGrace is how long past its timeout a watch may stay open with
// nothing from the server before it counts as lost. An apiserver ends a
// watch at the timeoutSeconds it was asked for, which the watch rounds
// down: only the close's way back takes longer.
const silentGrace = 10 * time.Second

// silentWatch is the error of a watch that stayed open past its timeout
// with nothing from the server: it was lost when the server was last
// heard from, not when that was noticed.
type silentWatch struct {
	timeout, silence time.Duration
	heard            time.Time
}

func (e *silentWatch) Error() string {
	return fmt.Sprintf("the watch stayed open past its timeout of %s with nothing from the server for %s",
		duration.HumanDuration(e.timeout), duration.HumanDuration(e.silence))
}

// leftTimeout bounds the GET that tells a Service that left the label
// selector from a deleted one. The watch handles no later event while it
// waits, so a server that holds the GET would hold every later finding for
// as long as --request-timeout allows; an apiserver that answers at all
// answers a GET well within this.
const leftTimeout = 5 * time.Second

// left reports whether svc, of a DELETED event, only left the label
// selector: it is still there, as a GET within leftTimeout (or the request
// timeout, when shorter) shows.
func (s *listWatchSource) left(ctx context.Context, svc *v1.Service) bool {
	sel, ok := s.api.(selecting)
	if !ok {
		return false
	}
	bound := leftTimeout
	if s.requestTimeout > 0 {
		bound = min(bound, s.requestTimeout)
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	return sel.stillThere(ctx, svc)
}

// relist lists again after the watch's resourceVersion from expired
// (cause), until it succeeds or ctx ends. It reports the gap, then delivers
// the Services created or changed in it, then ends the traces of those
// deleted in it, or, under a label selector, of those that left it (see
// leftInGap). ok is false when ctx ended first.
func (s *listWatchSource) relist(ctx context.Context, lost func(error), from string, cause error, known map[string]observed, handle func(serviceEvent), retry *wait.Backoff) (string, bool) {
	var list *v1.ServiceList
	for {
		var err error
		var timedOut bool
		if list, timedOut, err = s.list(ctx); err == nil {
			break
		}
		if ctx.Err() != nil {
			return from, false
		}
		if timedOut {
			// As for the first list: the flag to raise, not Go's words.
			err = fmt.Errorf("listing Services: no answer within %s (--request-timeout)", s.requestTimeout)
		}
		lost(err)
		s.wait(ctx, retry.Step())
	}
	present := make(map[string]bool, len(list.Items))
	var changed []*v1.Service
	var names []string
	for i := range list.Items {
		svc := &list.Items[i]
		key := keyOf(svc)
		present[key] = true
		if prev, ok := known[key]; ok && prev == observedOf(svc) {
			continue
		}
		changed = append(changed, svc)
		names = append(names, key)
	}
	var gone []string
	for key := range known {
		if !present[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	left := s.leftInGap(ctx, gone, known)
	if ctx.Err() != nil {
		// Whether they were deleted was not learnt: their traces end
		// as the watch does.
		return from, false
	}
	names = append(names, gone...)
	slices.Sort(names)
	// Cut as a finding's: the server may hold any string there. The
	// watch goes on from the whole one.
	handle(serviceEvent{gap: &watchGap{From: input.Clip(from), To: input.Clip(list.ResourceVersion), Reason: gapReason(cause), Changed: len(names), Services: names}})
	for _, svc := range changed {
		known[keyOf(svc)] = observedOf(svc)
		handle(serviceEvent{svc: svc})
	}
	for _, key := range gone {
		namespace, name, _ := strings.Cut(key, "/")
		delete(known, key)
		handle(serviceEvent{svc: &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}, deleted: true, left: left[key]})
	}
	return list.ResourceVersion, true
}

// leftInGapPage is how many Services a page of leftInGap's list holds.
const leftInGapPage = 500

// leftInGap returns, of the Services missing from a list under a label
// selector after a gap (gone, as namespace/name, sorted), those still there
// with the uid known holds: they only left the selector. One list without
// the selector per namespace where Services went missing answers for all
// of them there, however many, where a GET each would hold the watch for
// as many round trips; the namespaces where none went missing are not
// read. Each comes in pages, each within the request timeout, until every
// one of the namespace is found. Those that a list that fails leaves
// unanswered count as deleted.
func (s *listWatchSource) leftInGap(ctx context.Context, gone []string, known map[string]observed) map[string]bool {
	sel, ok := s.api.(selecting)
	if !ok || len(gone) == 0 {
		return nil
	}
	uids := make(map[string]string, len(gone))
	for _, key := range gone {
		uids[key] = known[key].uid
	}
	left := map[string]bool{}
	for len(gone) > 0 && ctx.Err() == nil {
		// Sorted, the Services of a namespace come together.
		namespace, _, _ := strings.Cut(gone[0], "/")
		n := 1
		for n < len(gone) && strings.HasPrefix(gone[n], namespace+"/") {
			n++
		}
		want := len(left) + n
		gone = gone[n:]
		opts := metav1.ListOptions{Limit: leftInGapPage}
		for {
			lctx, cancel := requestContext(ctx, s.requestTimeout)
			list, err := sel.listUnselected(lctx, namespace, opts)
			cancel()
			if err != nil || list == nil {
				break
			}
			for i := range list.Items {
				key := keyOf(&list.Items[i])
				if uid, ok := uids[key]; ok && uid != "" && uid == string(list.Items[i].UID) {
					left[key] = true
				}
			}
			// A token given again would be asked again for ever.
			if list.Continue == "" || list.Continue == opts.Continue || len(left) == want {
				break
			}
			opts.Continue = list.Continue
		}
	}
	return left
}

// gapReason says why a watch had to list again, for people.
func gapReason(err error) string {
	msg := "expired"
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Message != "" {
		msg = st.Status().Message
	}
	return "the watch's resourceVersion expired (410 Gone: " + msg + ")"
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// newClusterSource returns the Services of the cluster the flags select.
// It does not talk to the cluster: a bad kubeconfig is an error now, an
// unreachable server at the first list.
func newClusterSource(f *watchFlags) (serviceSource, error) {
	conn, err := f.cluster.connect()
	if err != nil {
		return nil, err
	}
	what := "Services"
	if conn.selector != "" {
		what += " matching " + conn.selector // as validate spells it: nothing to escape
	}
	what += " in namespace " + conn.namespace
	if conn.namespace == "" {
		what = strings.TrimSuffix(what, "namespace ") + "all namespaces"
	}
	return &listWatchSource{
		api:            &coreServices{client: conn.client.CoreV1().RESTClient(), namespace: conn.namespace, selector: conn.selector},
		what:           what + " of " + conn.host,
		server:         conn.host,
		requestTimeout: conn.requestTimeout,
	}, nil
}

// coreServices reads Services as this project's v1.Service (see
// conditions.RESTServices), which keeps spec.requiredLoadBalancerFeatures
// where a cluster serves it. watch and describe read them so.
type coreServices struct {
	client    rest.Interface
	namespace string
	selector  string // a label selector; empty for every Service
}

// defaultWatchTimeout is the least a watch asks the server to stay open;
// each asks for up to twice as much. Resuming at the end is seamless.
const defaultWatchTimeout = 5 * time.Minute

func (c *coreServices) api() conditions.RESTServices {
	return conditions.RESTServices{Client: c.client, Namespace: c.namespace}
}

func (c *coreServices) namespaceMissing(ctx context.Context) (string, bool) {
	if c.namespace == "" {
		return "", false
	}
	err := c.client.Get().Resource("namespaces").Name(c.namespace).MaxRetries(0).Do(ctx).Error()
	return c.namespace, apierrors.IsNotFound(err)
}

// get reads the Service name of the namespace.
func (c *coreServices) get(ctx context.Context, name string) (*v1.Service, error) {
	return c.api().Get(ctx, name, metav1.GetOptions{})
}

func (c *coreServices) stillThere(ctx context.Context, svc *v1.Service) bool {
	if c.selector == "" || svc.DeletionTimestamp != nil {
		return false
	}
	got, err := conditions.RESTServices{Client: c.client, Namespace: svc.Namespace}.Get(ctx, svc.Name, metav1.GetOptions{})
	return err == nil && got.UID == svc.UID
}

func (c *coreServices) listUnselected(ctx context.Context, namespace string, opts metav1.ListOptions) (*v1.ServiceList, error) {
	if c.selector == "" {
		return nil, nil
	}
	return conditions.RESTServices{Client: c.client, Namespace: namespace}.List(ctx, opts)
}

func (c *coreServices) list(ctx context.Context) (*v1.ServiceList, error) {
	return c.api().List(ctx, metav1.ListOptions{LabelSelector: c.selector})
}

func (c *coreServices) watch(ctx context.Context, resourceVersion string, timeout time.Duration) (watch.Interface, error) {
	// Whole seconds, rounded down: the server ends the watch no later
	// than the source expects. Zero would be the server's default.
	seconds := max(int64(timeout.Seconds()), 1)
	return c.api().Watch(ctx, metav1.ListOptions{LabelSelector: c.selector, ResourceVersion: resourceVersion,
		AllowWatchBookmarks: true, TimeoutSeconds: &seconds})
}
