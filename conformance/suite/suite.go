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

package suite

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
)

// Defaults of Options.
const (
	// DefaultConditionsTimeout is L8's deadline for the first conditions,
	// as conditions.Wait has it.
	DefaultConditionsTimeout = conditions.DefaultConditionsTimeout
	// DefaultProvisionTimeout is L8's provisioning deadline: the e2e
	// suites' load-balancer create timeout, as conditions.Wait has it.
	DefaultProvisionTimeout = conditions.DefaultProvisionTimeout
	// DefaultSettlePeriod is how long ForeignClass watches for a write
	// that must not come, once the provider has written on a Service of
	// its own.
	DefaultSettlePeriod = 10 * time.Second
	// DefaultCleanupTimeout bounds a test's cleanup, and the wait for the
	// run's namespaces to go.
	DefaultCleanupTimeout = 30 * time.Second
	// DefaultParallelism bounds the tests that run at once.
	DefaultParallelism = 4
	// DefaultNamespacePrefix starts the name of every test's namespace.
	DefaultNamespacePrefix = "lbstatus-conformance"
	// DefaultLoadBalancerIP is the address Feature/LoadBalancerIP asks for
	// (and the next one, for its second Service).
	DefaultLoadBalancerIP = "198.18.255.100"
	// ForeignClass is the loadBalancerClass of the ForeignClass test's
	// Service: a class no provider handles.
	ForeignClass = "lbstatus.github.io/conformance-foreign"
	// UnknownFeature is the required feature of UnknownRequiredFeature: a
	// value no provider knows.
	UnknownFeature v1.LoadBalancerFeature = "ConformanceUnknownFeature"
)

// Options configures a run. The zero value tests a provider of Services
// without a class, with the defaults above.
type Options struct {
	// LoadBalancerClass selects the provider under test; empty: the
	// provider serves Services without a class.
	LoadBalancerClass string
	// Implementation names the provider in the report.
	Implementation Implementation
	// NoRequiredFeatures declares that the provider reads required
	// features neither from spec.requiredLoadBalancerFeatures nor from
	// v1.RequiredFeaturesAnnotation: the parts of tests that require a
	// feature are skipped. By default the suite requires features through
	// spec.requiredLoadBalancerFeatures where the cluster keeps the field,
	// else through the annotation, which every cluster keeps.
	NoRequiredFeatures bool
	// Run limits the run to the tests whose names equal one of these or
	// start with one ending in "/" ("Feature/" runs every feature test).
	// The others are reported as not run. Empty: every test.
	Run []string
	// Parallelism bounds the tests that run at once; below one:
	// DefaultParallelism.
	Parallelism int
	// ConditionsTimeout, ProvisionTimeout and SettlePeriod are the
	// deadlines of L8 and the ForeignClass period; zero: the defaults.
	// ProvisionTimeout also bounds the teardown of a load balancer, which
	// takes as long: the removal of the conditions on a type change (L9)
	// and the deletion of a Service.
	ConditionsTimeout time.Duration
	ProvisionTimeout  time.Duration
	SettlePeriod      time.Duration
	// NamespacePrefix starts every test namespace's name; empty:
	// DefaultNamespacePrefix.
	NamespacePrefix string
	// LoadBalancerIP is the address Feature/LoadBalancerIP requests for the
	// Service that asks for it; the Service that requires it requests the
	// next address, as both run at once and a provider hands out each
	// address once. Empty: DefaultLoadBalancerIP.
	LoadBalancerIP string
	// RelevantAnnotations are annotation keys the provider reads, whose
	// changes it must acknowledge like G3's fields (L6).
	RelevantAnnotations []string
	// CleanupTimeout bounds the deletion of each test's Services and
	// namespace, and then, once every test has ended, the wait for the
	// run's namespaces to go: one still there, held by a finalizer (a load
	// balancer its provider did not take down, say), is reported as left
	// on the cluster. Zero: DefaultCleanupTimeout.
	CleanupTimeout time.Duration
	// RequestTimeout bounds each request of the run that should end (the
	// watches go on); zero: only the context bounds them.
	RequestTimeout time.Duration
	// Started, when not nil, is called as each selected test starts, with
	// its name, from the goroutine that runs it: a test may take up to
	// the provisioning deadline, and a person watching sees what runs.
	Started func(name string)
	// Progress, when not nil, is called after each test with its report,
	// from the goroutine that ran it; whether its namespace went, which
	// the run waits for at its end, is only in the run's report.
	Progress func(TestReport)

	// run labels the namespaces of one Run, so that one whose creation
	// got no answer can be found and deleted.
	run string
}

// request bounds one request by RequestTimeout.
func (o Options) request(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.RequestTimeout > 0 {
		return context.WithTimeout(ctx, o.RequestTimeout)
	}
	return context.WithCancel(ctx)
}

func (o Options) withDefaults() Options {
	if o.Parallelism < 1 {
		o.Parallelism = DefaultParallelism
	}
	o.ConditionsTimeout = cmp.Or(o.ConditionsTimeout, DefaultConditionsTimeout)
	o.ProvisionTimeout = cmp.Or(o.ProvisionTimeout, DefaultProvisionTimeout)
	o.SettlePeriod = cmp.Or(o.SettlePeriod, DefaultSettlePeriod)
	o.CleanupTimeout = cmp.Or(o.CleanupTimeout, DefaultCleanupTimeout)
	o.NamespacePrefix = cmp.Or(o.NamespacePrefix, DefaultNamespacePrefix)
	o.LoadBalancerIP = cmp.Or(o.LoadBalancerIP, DefaultLoadBalancerIP)
	return o
}

// OptionError is a field of Options whose value every test would fail on
// alike.
type OptionError struct {
	// Field is the Options field, such as "NamespacePrefix".
	Field string
	// Value is the field's value, or the element of it, as given.
	Value string
	// Detail says what is wrong with it.
	Detail string
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Detail) }

// Validate returns an error naming the first field of o that the run could
// only fail on, every test alike, an *OptionError but for a Run entry that
// names no test (CheckRun's error): a negative duration (zero is the
// default), a LoadBalancerClass the apiserver would refuse or that
// ForeignClass uses, a NamespacePrefix that makes no namespace name, a
// LoadBalancerIP that is not an address with a next one, a
// RelevantAnnotations entry that is not an annotation key. It returns nil
// for the zero Options.
func (o Options) Validate() error {
	if err := CheckRun(o.Run); err != nil {
		return err
	}
	for _, d := range []struct {
		field string
		value time.Duration
	}{
		{"ConditionsTimeout", o.ConditionsTimeout}, {"ProvisionTimeout", o.ProvisionTimeout}, {"SettlePeriod", o.SettlePeriod},
		{"CleanupTimeout", o.CleanupTimeout}, {"RequestTimeout", o.RequestTimeout},
	} {
		if d.value < 0 {
			return &OptionError{d.field, d.value.String(), "want a positive duration, or zero for the default"}
		}
	}
	if class := o.LoadBalancerClass; class != "" {
		if err := conformance.ValidateOptions(conformance.Classes{class}); err != nil {
			return checkerOptionError("LoadBalancerClass", err)
		}
		if class == ForeignClass && o.Selects("ForeignClass") {
			return &OptionError{"LoadBalancerClass", class, "ForeignClass uses that class as one no provider handles; give the provider another"}
		}
	}
	d := o.withDefaults()
	for _, t := range Tests() {
		if !o.Selects(t.Name) {
			continue
		}
		generate := t.NamespaceGenerateName(d.NamespacePrefix)
		if errs := apivalidation.ValidateNamespaceName(generate, true); len(errs) > 0 {
			return &OptionError{"NamespacePrefix", o.NamespacePrefix, fmt.Sprintf("the namespace of %s would start %q, which is not a namespace name: %s",
				t.Name, generate, strings.Join(errs, "; "))}
		}
	}
	if a, err := netip.ParseAddr(d.LoadBalancerIP); err != nil || a.Zone() != "" || !a.Next().IsValid() {
		return &OptionError{"LoadBalancerIP", o.LoadBalancerIP, "want an IPv4 or IPv6 address that has a next one (the second Service of Feature/LoadBalancerIP asks for it)"}
	}
	if err := conformance.ValidateOptions(conformance.RelevantAnnotations(o.RelevantAnnotations)); err != nil {
		return checkerOptionError("RelevantAnnotations", err)
	}
	return nil
}

// checkerOptionError is the *OptionError of field for err, the
// *conformance.OptionError of the checker option the field becomes.
func checkerOptionError(field string, err error) error {
	var oe *conformance.OptionError
	if errors.As(err, &oe) {
		return &OptionError{field, oe.Value, oe.Detail}
	}
	return err
}

// Test describes one test of the suite.
type Test struct {
	// Name is the test's name in reports, as section 9 spells it.
	Name string
	// Rules are the rule IDs the test exercises.
	Rules []string
	// Feature is the feature a Feature/<F> test is about; "" otherwise.
	Feature v1.LoadBalancerFeature
	run     func(*testRun) (outcome, error)
}

// NamespaceGenerateName is the generateName of the namespace t runs in,
// under prefix (Options.NamespacePrefix); the apiserver appends a random
// suffix.
func (t Test) NamespaceGenerateName(prefix string) string {
	return prefix + "-" + slug(t.Name) + "-"
}

// Tests returns the tests of section 9 in the order reports list them.
func Tests() []Test {
	out := []Test{{Name: "Basic", Rules: []string{"L1", "L2", "L4", "L8"}, run: (*testRun).basic}}
	for _, f := range v1.LoadBalancerFeatures() {
		rule := "P4"
		if p3Feature(f) {
			rule = "P3"
		}
		out = append(out, Test{Name: "Feature/" + string(f), Rules: []string{rule, "P5", "R1", "P6"}, Feature: f, run: (*testRun).feature})
	}
	return append(out,
		Test{Name: "UnknownRequiredFeature", Rules: []string{"R2"}, run: (*testRun).unknownRequired},
		Test{Name: "SpecChange", Rules: []string{"L6"}, run: (*testRun).specChange},
		Test{Name: "ForeignClass", Rules: []string{"P1"}, run: (*testRun).foreignClass},
		Test{Name: "TypeChange", Rules: []string{"L9"}, run: (*testRun).typeChange},
		Test{Name: "Recreate", Rules: []string{"C6", "C7"}, run: (*testRun).recreate},
	)
}

// p3Feature reports whether P3 (refuse or degrade) rather than P4 (degrade)
// governs f.
func p3Feature(f v1.LoadBalancerFeature) bool {
	return f == v1.LoadBalancerFeatureSessionAffinity || f == v1.LoadBalancerFeatureLoadBalancerIP ||
		f == v1.LoadBalancerFeatureLoadBalancerSourceRanges
}

// Selects reports whether the run includes the test named name: every test
// when Run is empty, else those it names or whose name starts with one of
// its prefixes ending in "/".
func (o Options) Selects(name string) bool {
	if len(o.Run) == 0 {
		return true
	}
	for _, r := range o.Run {
		if r == name || (strings.HasSuffix(r, "/") && strings.HasPrefix(name, r)) {
			return true
		}
	}
	return false
}

// CheckRun returns an error naming the first entry of an Options.Run that
// selects no test, and the tests there are; nil when each selects one.
func CheckRun(run []string) error {
	tests := Tests()
	for _, r := range run {
		if !slices.ContainsFunc(tests, func(t Test) bool { return Options{Run: []string{r}}.Selects(t.Name) }) {
			names := make([]string, len(tests))
			for i, t := range tests {
				names[i] = t.Name
			}
			return fmt.Errorf("%q names no test; the tests are %s; a prefix ending in \"/\" (such as Feature/) selects those whose names start with it", r, strings.Join(names, ", "))
		}
	}
	return nil
}

// Run runs the suite against the cluster client talks to and returns its
// report. It returns an error, and no report, only when the run cannot
// start (nil client, options that Validate refuses, a server that does not
// answer, an account that may not create the tests' namespaces or watch
// the Services in them); what the provider does, however bad, is in the
// report. Each test creates its Services in a namespace of its own,
// deleted afterwards.
func Run(ctx context.Context, client kubernetes.Interface, opts Options) (*Report, error) {
	if client == nil {
		return nil, errors.New("conformance suite: client is nil")
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("conformance suite: %w", err)
	}
	opts = opts.withDefaults()
	opts.run = strings.ToLower(rand.Text())
	tests := Tests()
	report := &Report{
		APIVersion:        ReportAPIVersion,
		Kind:              ReportKind,
		Date:              time.Now().UTC().Format(time.RFC3339),
		SpecVersion:       SpecVersion,
		Implementation:    opts.Implementation,
		LoadBalancerClass: opts.LoadBalancerClass,
	}
	rctx, cancel := opts.request(ctx)
	version, err := client.Discovery().ServerVersionWithContext(rctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("conformance suite: asking the server's version: %w", err)
	}
	report.KubernetesVersion = version.GitVersion

	report.Tests = make([]TestReport, len(tests))
	field := &requiredField{}
	outcomes := make([]outcome, len(tests))
	denied := make([]error, len(tests))
	sem := make(chan struct{}, opts.Parallelism)
	var wg sync.WaitGroup
	for i, t := range tests {
		if !opts.Selects(t.Name) {
			report.Tests[i] = TestReport{Name: t.Name, Rules: t.Rules, Result: TestNotRun, Reason: "not selected by the run's filter"}
			continue
		}
		// Slots are taken here, in turn: tests start in the order listed.
		// A select picks at random among what is ready, so a free slot
		// after an interrupt is checked again: no test starts then.
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			report.Tests[i] = TestReport{Name: t.Name, Rules: t.Rules, Result: TestNotRun, Reason: "the run was interrupted before the test started"}
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if opts.Started != nil {
				opts.Started(t.Name)
			}
			report.Tests[i], outcomes[i], denied[i] = runTest(ctx, client, opts, t, field)
			if opts.Progress != nil {
				opts.Progress(report.Tests[i])
			}
		})
	}
	wg.Wait()
	// An account that may not create the tests' namespaces, or watch
	// their Services, runs no test: that says nothing of the provider, so
	// it is no report of failures.
	for _, err := range denied {
		if err != nil {
			return nil, fmt.Errorf("conformance suite: %w", err)
		}
	}
	waitNamespacesGone(client, opts, tests, report.Tests)
	for i, t := range tests {
		if t.Feature != "" {
			report.Features = append(report.Features, support(t, report.Tests[i], outcomes[i]))
		}
	}
	report.RequiredFeaturesSource = field.usedSource()
	report.summarize()
	return report, nil
}

// skipError makes a test skipped rather than failed.
type skipError struct{ reason string }

func (e skipError) Error() string { return e.reason }

func skipf(format string, args ...any) error { return skipError{fmt.Sprintf(format, args...)} }

// failf fails a test; the message names the rule broken.
func failf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// runTest runs one test in a namespace of its own and cleans up after it.
// The error is the apiserver's denial (forbidden, or not authenticated)
// of the test's namespace or of a watch of its Services, which the test's
// report also shows.
func runTest(ctx context.Context, client kubernetes.Interface, opts Options, t Test, field *requiredField) (rep TestReport, _ outcome, denied error) {
	start := time.Now()
	rep = TestReport{Name: t.Name, Rules: t.Rules}
	// On the named result: a deferred change to a local would come after
	// the return had copied it.
	defer func() {
		if rep.Result == TestFailed && ctx.Err() != nil && !strings.HasPrefix(rep.Reason, "violation") {
			// Stopped by the caller, not by the provider, whether the test
			// was under way or still making its namespace or listing its
			// Services: it claims nothing either way.
			rep.Result, rep.Reason = TestNotRun, "the run was interrupted: "+rep.Reason
		}
		rep.Duration = time.Since(start).Round(time.Millisecond).String()
	}()

	rctx, cancel := opts.request(ctx)
	ns, err := client.CoreV1().Namespaces().Create(rctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: t.NamespaceGenerateName(opts.NamespacePrefix),
		Labels:       map[string]string{testLabel: slug(t.Name), runLabel: opts.run},
	}}, metav1.CreateOptions{})
	cancel()
	if err != nil {
		rep.Result, rep.Reason = TestFailed, "creating the test namespace: "+err.Error()
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			denied = fmt.Errorf("the account cannot create the tests' namespaces: %w", err)
		}
		if unanswered(err) {
			// The server may have made it all the same (an interrupt or
			// a timeout while it answered): its name is not known, its
			// labels are.
			rep.Cleanup = cleanupUnanswered(client, t, opts)
		}
		return rep, outcome{}, denied
	}
	rep.Namespace = ns.Name
	// The class under test turns on P1, also when it is no class: a
	// provider of Services without a class handles no other class, so
	// status on ForeignClass's Service is P1's, not judged by the rules
	// of a Service the provider handles.
	checkerOpts := []conformance.Option{conformance.Classes{opts.LoadBalancerClass}}
	if len(opts.RelevantAnnotations) > 0 {
		checkerOpts = append(checkerOpts, conformance.RelevantAnnotations(opts.RelevantAnnotations))
	}
	tr := newTracker(checkerOpts...)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	// L8's first deadline: a test that cannot see its Services in that
	// time cannot see the provider's first conditions either.
	if err := tr.start(watchCtx, client, ns.Name, opts.ConditionsTimeout); err != nil {
		rep.Result, rep.Reason = TestFailed, oneLine(err.Error())
		rep.Cleanup = cleanup(client, ns.Name, opts.CleanupTimeout)
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			denied = fmt.Errorf("the account cannot watch Services in the tests' namespaces: %w", err)
		}
		return rep, outcome{}, denied
	}
	run := &testRun{ctx: ctx, client: client, opts: opts, ns: ns.Name, tr: tr, test: t, field: field}
	out, err := t.run(run)
	// The last states are kept before cleanup deletes the Services.
	stopWatch()
	rep.Findings, rep.LastObserved = tr.finish()
	rep.Cleanup = cleanup(client, ns.Name, opts.CleanupTimeout)
	if werr := tr.watchError(); werr != nil && (apierrors.IsForbidden(werr) || apierrors.IsUnauthorized(werr)) {
		// The provider's writes were seen only at the relists between
		// refusals: what the test concluded says nothing of it.
		rep.Result, rep.Reason = TestFailed, oneLine(fmt.Sprintf("watching Services in %s: %v", ns.Name, werr))
		return rep, outcome{}, fmt.Errorf("the account cannot watch Services in the tests' namespaces: %w", werr)
	}

	var skip skipError
	switch {
	case errors.As(err, &skip):
		rep.Result, rep.Reason = TestSkipped, skip.reason
	case err != nil && !errors.Is(err, errViolation):
		rep.Result, rep.Reason = TestFailed, oneLine(err.Error())
	default:
		rep.Result = TestPassed
	}
	// Any violation on the test's Services fails it, whatever else it
	// showed; the reason names the rule.
	for _, f := range rep.Findings {
		if f.Severity == conformance.SeverityViolation {
			rep.Result = TestFailed
			rep.Reason = oneLine(fmt.Sprintf("violation of %s on %s: %s", f.Rule, f.Object.Name, f.Message))
			break
		}
	}
	if rep.Result != TestPassed {
		out = outcome{}
	}
	return rep, out, nil
}

// cleanup deletes a test's Services and namespace within timeout, even
// after the run's context ended, and returns what it could not delete,
// left on the cluster with its load balancers, in one line; "" when
// nothing is left. A Service it could not delete goes with its namespace,
// which waitNamespacesGone waits for.
func cleanup(client kubernetes.Interface, namespace string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// One by one: Services have no collection delete.
	var services []string
	list, listErr := client.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{})
	if listErr == nil {
		for _, svc := range list.Items {
			if err := client.CoreV1().Services(namespace).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				services = append(services, fmt.Sprintf("Service %s (%v)", svc.Name, err))
			}
		}
	}
	err := client.CoreV1().Namespaces().Delete(ctx, namespace, metav1.DeleteOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		return ""
	}
	left := fmt.Sprintf("left on the cluster: namespace %s (%v)", namespace, err)
	switch {
	case listErr != nil:
		left += fmt.Sprintf(" and the Services in it (listing them: %v)", listErr)
	case len(services) > 0:
		left += ", " + strings.Join(services, ", ")
	}
	return oneLine(left)
}

// The labels of a test's namespace: the test, and the run.
const (
	testLabel = "lbstatus.github.io/conformance-test"
	runLabel  = "lbstatus.github.io/conformance-run"
)

// unanswered reports whether err leaves unknown whether a create took
// effect: no answer came (an interrupt, a timeout, a broken connection),
// or the server timed out. Any other answer of the server refused it.
func unanswered(err error) bool {
	var status apierrors.APIStatus
	return !errors.As(err, &status) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
}

// cleanupUnanswered deletes the namespace of test t in the run, if the
// server made one, as cleanup does, and returns what it left, "" for
// nothing.
func cleanupUnanswered(client kubernetes.Interface, t Test, opts Options) string {
	ctx, cancel := context.WithTimeout(context.Background(), opts.CleanupTimeout)
	defer cancel()
	selector := labels.SelectorFromSet(labels.Set{testLabel: slug(t.Name), runLabel: opts.run}).String()
	list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return oneLine(fmt.Sprintf("perhaps left on the cluster: a namespace labelled %s, whose creation got no answer (listing them: %v)", selector, err))
	}
	var left []string
	for _, ns := range list.Items {
		if l := cleanup(client, ns.Name, opts.CleanupTimeout); l != "" {
			left = append(left, l)
		}
	}
	return strings.Join(left, "; ")
}

// waitNamespacesGone waits, up to the cleanup timeout, for the namespaces
// of the run to go, all at once so that a slow namespace controller holds
// up no test, and adds to the Cleanup of each test's report (reports, in
// the order of tests) a namespace still there: a finalizer holds it and
// the Services in it, load balancers and all, and its conditions say what
// holds it. A namespace its cleanup could not delete is reported already.
func waitNamespacesGone(client kubernetes.Interface, opts Options, tests []Test, reports []TestReport) {
	ctx, cancel := context.WithTimeout(context.Background(), opts.CleanupTimeout)
	defer cancel()
	owner := func(ns corev1.Namespace) *TestReport {
		i := slices.IndexFunc(tests, func(t Test) bool { return ns.Labels[testLabel] == slug(t.Name) })
		if i < 0 || strings.Contains(reports[i].Cleanup, ns.Name) {
			return nil
		}
		return &reports[i]
	}
	selector := labels.SelectorFromSet(labels.Set{runLabel: opts.run}).String()
	var left []corev1.Namespace
	var listErr error // when no list answered
	_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err == nil {
			left = slices.DeleteFunc(list.Items, func(ns corev1.Namespace) bool { return owner(ns) == nil })
			listErr = nil
			return len(left) == 0, nil
		}
		if left == nil {
			listErr = err
		}
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return false, err // an account that may not list namespaces never will
		}
		return false, nil
	})
	add := func(rep *TestReport, line string) {
		rep.Cleanup = oneLine(strings.TrimPrefix(rep.Cleanup+"; "+line, "; "))
	}
	for _, ns := range left {
		add(owner(ns), fmt.Sprintf("left on the cluster: namespace %s, still there %s after the last test ended%s", ns.Name, opts.CleanupTimeout, heldBy(ns)))
	}
	for i := range reports {
		if rep := &reports[i]; listErr != nil && rep.Namespace != "" && rep.Cleanup == "" {
			add(rep, fmt.Sprintf("perhaps left on the cluster: namespace %s, deleted, but whether it went is not known (listing namespaces: %v)", rep.Namespace, listErr))
		}
	}
}

// heldBy says what keeps ns from going: the messages of its conditions
// that hold, such as the namespace controller's NamespaceFinalizersRemaining,
// else its finalizers; "" when it has neither.
func heldBy(ns corev1.Namespace) string {
	var why []string
	for _, c := range ns.Status.Conditions {
		if c.Status == corev1.ConditionTrue && c.Message != "" {
			why = append(why, c.Message)
		}
	}
	if len(why) > 0 {
		return ": " + strings.Join(why, "; ")
	}
	finalizers := slices.Clone(ns.Finalizers)
	for _, f := range ns.Spec.Finalizers {
		finalizers = append(finalizers, string(f))
	}
	if len(finalizers) > 0 {
		return " (finalizers " + strings.Join(finalizers, ", ") + ")"
	}
	return ""
}

// slug turns a test name into a piece of a namespace name.
func slug(name string) string {
	return strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(name))
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
