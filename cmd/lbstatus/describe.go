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
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/duration"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
)

const describeUsage = `Usage: lbstatus describe [flags] [svc/NAME|NAME]...

Shows, for each Service, on one screen: its load-balancer-relevant spec (G3),
the features it requires and where they come from, the KEP-4631 conditions
with reasons, messages and ages, the ingress, the verdict a client concludes
and why (section 6), the checker's findings on this one observation, and the
Service's recent Events, in the provider's own words.

Without a name it describes every Service of the namespace (-n, else the
context's), or of every namespace with -A; names with -A are looked for in
every namespace; -l selects by label instead of by name. As with kubectl
describe, the type may come first ("svc web api"). "kubectl lbstatus
describe" runs it as a kubectl plugin.

Examples:
  lbstatus describe svc/web -n shop
  lbstatus describe svc web api -n shop
  kubectl lbstatus describe web api --context prod
  lbstatus describe -A -l app=web

Exit status: 0 every Service was described, 2 a Service not found, the
cluster unreachable, bad usage, or an interrupt (Ctrl-C stops after the
Service being described), one line per problem on standard error.

Flags:
`

// describeEnv is what describe takes from outside the command line: a
// client for the cluster flags, what reads its Services, and the clock ages
// are measured against. Tests replace all three.
type describeEnv struct {
	connect func(f *clusterFlags) (*clusterConn, error)
	// services reads the Services of conn's namespace that its selector
	// selects.
	services func(conn *clusterConn) serviceReader
	now      func() time.Time
}

// serviceReader reads Services as this project's v1.Service.
type serviceReader interface {
	get(ctx context.Context, name string) (*v1.Service, error)
	list(ctx context.Context) (*v1.ServiceList, error)
}

func defaultDescribeEnv() describeEnv {
	return describeEnv{connect: (*clusterFlags).connect, now: time.Now, services: func(conn *clusterConn) serviceReader {
		return &coreServices{client: conn.client.CoreV1().RESTClient(), namespace: conn.namespace, selector: conn.selector}
	}}
}

// maxDescribeEvents is how many Events describe shows per Service, the
// latest ones.
const maxDescribeEvents = 10

// runDescribe is the describe command.
func runDescribe(ctx context.Context, args []string, stdout, stderr io.Writer, e describeEnv) (code int) {
	var cf checkFlags
	fs := pflag.NewFlagSet("describe", pflag.ContinueOnError)
	fs.SetOutput(stdout) // --help; bad usage is one line on stderr
	addClassFlag(fs, &cf.classes)
	fs.BoolVar(&cf.requireConditions, "require-conditions", false, "report a LoadBalancer Service without KEP-4631 conditions as a violation (R3), not a notice")
	fs.StringSliceVar(&cf.annotations, "relevant-annotation", nil, "an annotation the provider reads, shown with the load-balancer spec (repeatable)")
	cluster := addClusterFlags(fs, true)
	cluster.addSelector(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), describeUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	names, err := describeNames(fs.Args())
	if err == nil && len(names) > 0 && cluster.selector != "" {
		err = errors.New("name Services or select them with --selector, not both")
	}
	if err == nil {
		err = cf.validateChecker()
	}
	if err == nil {
		err = cluster.validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	conn, err := e.connect(cluster)
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}
	d := &describer{conn: conn, services: e.services(conn), now: e.now(), flags: &cf}

	buffered := bufio.NewWriter(stdout)
	defer func() {
		// What could not be written was not described: said, as for
		// check, rather than exit 0. The buffer keeps the first error.
		if err := buffered.Flush(); err != nil {
			fmt.Fprintf(stderr, "lbstatus: writing the description: %s\n", pathMessage(err))
			code = exitInput
		}
	}()
	services, failed := d.fetch(ctx, names, stderr)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "lbstatus: interrupted while reading the Services on %s\n", input.Escape(conn.host))
		return exitInput
	}
	if len(services) == 0 && !failed {
		where := "namespace " + conn.namespace
		if conn.namespace == "" {
			where = "any namespace"
		}
		if conn.selector != "" {
			where += " matching " + conn.selector
		}
		fmt.Fprintf(stderr, "lbstatus: no Services found in %s\n", input.Escape(where))
	}
	for i, svc := range services {
		if i > 0 {
			fmt.Fprintln(buffered)
		}
		d.describe(ctx, buffered, svc)
		// Ctrl-C stops after this Service: the rest would be described
		// without their Events, and the exit status would say every
		// Service was described.
		if ctx.Err() != nil {
			buffered.Flush()
			fmt.Fprintf(stderr, "lbstatus: interrupted after describing %d of %s\n", i+1, plural(len(services), "Service"))
			return exitInput
		}
	}
	if failed {
		return exitInput
	}
	return exitOK
}

// describeNames turns the arguments into Service names: "svc/NAME",
// "service/NAME", "services/NAME" or a bare NAME; or, as kubectl describe
// takes them, the type first and then the names ("svc web api"; "svc"
// alone is every Service). Other kinds are an error.
func describeNames(args []string) ([]string, error) {
	if len(args) > 0 && isServiceType(args[0]) {
		args = args[1:]
	}
	var names []string
	for _, a := range args {
		kind, name, found := strings.Cut(a, "/")
		if !found {
			kind, name = "svc", a
		}
		if !isServiceType(kind) {
			return nil, fmt.Errorf("describe shows Services only, got %q", a)
		}
		if name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%q is not a Service name", a)
		}
		names = append(names, name)
	}
	return names, nil
}

// isServiceType reports whether kubectl would read s as the type Service.
func isServiceType(s string) bool {
	switch strings.ToLower(s) {
	case "svc", "service", "services":
		return true
	}
	return false
}

// describer holds what every Service's description needs.
type describer struct {
	conn     *clusterConn
	services serviceReader
	now      time.Time
	flags    *checkFlags
}

// requestContext bounds one request by --request-timeout.
func (d *describer) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return requestContext(ctx, d.conn.requestTimeout)
}

// requestContext bounds one request by timeout (--request-timeout); zero
// is no bound, as with kubectl.
func requestContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return context.WithCancel(ctx)
}

// requestError says why a request failed, on one line: a server that did
// not answer in time by the flag that says how long it had, rather than
// as Go's "context deadline exceeded"; else the error. Interrupts are told
// apart by the caller.
func (d *describer) requestError(err error) string {
	if errors.Is(err, context.DeadlineExceeded) && d.conn.requestTimeout > 0 {
		return fmt.Sprintf("no answer within %s (--request-timeout)", d.conn.requestTimeout)
	}
	return oneLine(err.Error())
}

// fetch reads the Services to describe, sorted by namespace and name;
// failed reports a problem, already written to stderr.
//
// They are read as this project's v1.Service, not client-go's, so that
// spec.requiredLoadBalancerFeatures shows where a cluster serves it.
func (d *describer) fetch(ctx context.Context, names []string, stderr io.Writer) (out []*v1.Service, failed bool) {
	if len(names) > 0 && d.conn.namespace != "" {
		for _, name := range names {
			rctx, cancel := d.requestContext(ctx)
			svc, err := d.services.get(rctx, name)
			cancel()
			if err != nil && ctx.Err() != nil { // the caller says so
				return out, true
			}
			if err != nil {
				fmt.Fprintf(stderr, "lbstatus: Service %s/%s: %s\n", input.Escape(d.conn.namespace), input.Escape(name), d.requestError(err))
				failed = true
				continue
			}
			out = append(out, svc)
		}
		return out, failed
	}
	rctx, cancel := d.requestContext(ctx)
	list, err := d.services.list(rctx)
	cancel()
	if err != nil && ctx.Err() != nil { // the caller says so
		return nil, true
	}
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: listing Services on %s: %s\n", input.Escape(d.conn.host), d.requestError(err))
		return nil, true
	}
	found := map[string]bool{}
	for i := range list.Items {
		svc := &list.Items[i]
		if len(names) > 0 && !slices.Contains(names, svc.Name) {
			continue
		}
		found[svc.Name] = true
		out = append(out, svc)
	}
	for _, name := range names {
		if !found[name] {
			fmt.Fprintf(stderr, "lbstatus: Service %s: not found in any namespace\n", input.Escape(name))
			failed = true
		}
	}
	slices.SortFunc(out, func(a, b *v1.Service) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out, failed
}

// l8 says which deadline of L8 a LoadBalancer Service is past, if any: a
// snapshot says Pending for ever, L8 says when a client stops waiting.
// Without conditions the first deadline runs from the creation or the
// conversion to LoadBalancer (see typeSetAt); while Provisioning is True,
// the provisioning deadline runs from when it turned True (its
// lastTransitionTime), which after a spec change is later. A Service of a
// class --class leaves alone (P1) has no deadline here.
func (d *describer) l8(svc *v1.Service) string {
	if conformance.Classes(d.flags.classes).Foreign(svc) {
		return ""
	}
	created := svc.CreationTimestamp
	provisioning := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	switch {
	case !conditions.Acknowledged(svc.Status.Conditions):
		if at := typeSetAt(svc); !at.IsZero() && d.now.Sub(at.Time) > conditions.DefaultConditionsTimeout {
			if at != created {
				return fmt.Sprintf("passed: type LoadBalancer since %s ago at the latest, and no condition within %s: no KEP-aware provider handles the Service; a test concludes Fail (T2)",
					d.age(at), conditions.DefaultConditionsTimeout)
			}
			return fmt.Sprintf("passed: created %s ago, and no condition within %s: no KEP-aware provider handles the Service; a test concludes Fail (T2)",
				d.age(created), conditions.DefaultConditionsTimeout)
		}
	case provisioning != nil && provisioning.Status == metav1.ConditionTrue:
		since := provisioning.LastTransitionTime
		if past := d.now.Sub(since.Time) - conditions.DefaultProvisionTimeout; !since.IsZero() && past > 0 {
			// When it passed, since ages are rounded: "for 15m" may be 15m30s.
			return fmt.Sprintf("passed %s ago: provisioning for %s, past the provisioning deadline of %s: a test waiting for it concludes Fail (T2)",
				duration.HumanDuration(past), d.age(since), duration.HumanDuration(conditions.DefaultProvisionTimeout))
		}
	}
	return ""
}

// typeSetAt is when L8's first deadline starts at the earliest that the
// Service shows: its creation or, when a write after it may have set
// spec.type (a managedFields entry owning the field is newer), that
// write's time. The API records no conversion time, and a manager's time
// is that of its last write, so this errs late: never a deadline passed
// that has not.
func typeSetAt(svc *v1.Service) metav1.Time {
	at := svc.CreationTimestamp
	for _, m := range svc.ManagedFields {
		if m.Time == nil || !m.Time.After(at.Time) || m.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		if json.Unmarshal(m.FieldsV1.Raw, &fields) == nil && fields.Spec["f:type"] != nil {
			at = *m.Time
		}
	}
	return at
}

// describe writes one Service's description.
func (d *describer) describe(ctx context.Context, w io.Writer, svc *v1.Service) {
	// Labels and values in two fixed columns; the tables below get their
	// own tabwriter each, so that a long condition type does not push
	// every value to the right.
	line := func(indent int, label string, value any) {
		// At least one space after the colon: an annotation's key may be
		// wider than the column.
		fmt.Fprintf(w, "%-*s %s\n", labelWidth-1, strings.Repeat("  ", indent)+input.Escape(label)+":", input.Escape(fmt.Sprint(value)))
	}
	spec := &svc.Spec.ServiceSpec
	typ := cmp.Or(string(spec.Type), string(corev1.ServiceTypeClusterIP))
	line(0, "Name", svc.Name)
	line(0, "Namespace", orNone(svc.Namespace))
	line(0, "Type", typ)
	line(0, "Load balancer class", orNone(ptrString(spec.LoadBalancerClass)))

	fmt.Fprintln(w, "Load-balancer spec (G3):")
	line(1, "Ports", orNone(describePorts(spec.Ports)))
	line(1, "IP families", orNone(joinStrings(spec.IPFamilies))+" ("+cmp.Or(string(ptrValue(spec.IPFamilyPolicy)), string(corev1.IPFamilyPolicySingleStack))+")")
	line(1, "External traffic policy", cmp.Or(string(spec.ExternalTrafficPolicy), "Cluster"))
	if spec.HealthCheckNodePort != 0 {
		line(1, "Health check node port", spec.HealthCheckNodePort)
	}
	affinity := cmp.Or(string(spec.SessionAffinity), string(corev1.ServiceAffinityNone))
	if c := spec.SessionAffinityConfig; spec.SessionAffinity == corev1.ServiceAffinityClientIP && c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
		affinity += fmt.Sprintf(" (timeout %ds)", *c.ClientIP.TimeoutSeconds)
	}
	line(1, "Session affinity", affinity)
	if spec.LoadBalancerIP != "" {
		line(1, "Load balancer IP", spec.LoadBalancerIP)
	}
	if len(spec.LoadBalancerSourceRanges) > 0 {
		line(1, "Source ranges", strings.Join(spec.LoadBalancerSourceRanges, ", "))
	}
	if spec.AllocateLoadBalancerNodePorts != nil && !*spec.AllocateLoadBalancerNodePorts {
		line(1, "Node ports", "not allocated (allocateLoadBalancerNodePorts false)")
	}
	if spec.TrafficDistribution != nil {
		line(1, "Traffic distribution", *spec.TrafficDistribution)
	}
	for _, key := range d.flags.annotations {
		if value, ok := svc.Annotations[key]; ok {
			line(1, "Annotation "+key, value)
		}
	}

	features, source, errs := conditions.RequiredFeatures(svc)
	required := "none"
	switch source {
	case conditions.RequiredFeaturesSourceSpec:
		required = joinStrings(features) + " (from spec.requiredLoadBalancerFeatures)"
	case conditions.RequiredFeaturesSourceAnnotation:
		required = orNone(joinStrings(features)) + " (from the annotation " + v1.RequiredFeaturesAnnotation + ")"
	}
	line(0, "Required features", required)
	for _, err := range errs {
		line(1, "Problem", err.Error())
	}

	lb := spec.Type == corev1.ServiceTypeLoadBalancer
	portsError := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionPortsError) != nil
	fmt.Fprintln(w, "Conditions:")
	if !conditions.HasKEPConditions(svc.Status.Conditions) && !portsError && !lb {
		fmt.Fprintln(w, "  none: KEP-4631 conditions are written on LoadBalancer Services only")
	} else {
		tw := newTable(w)
		fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tAGE\tMESSAGE")
		for _, t := range []v1.LoadBalancerConditionType{
			v1.LoadBalancerConditionProvisioning, v1.LoadBalancerConditionServing,
			v1.LoadBalancerConditionDegraded, v1.LoadBalancerConditionPortsError,
		} {
			// Every condition of the type, not just the first: one set
			// twice (C5) shows both, as the object holds them.
			set := false
			for i := range svc.Status.Conditions {
				if c := &svc.Status.Conditions[i]; c.Type == string(t) {
					set = true
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", t, input.Escape(string(c.Status)), input.Escape(orDash(c.Reason)), d.age(c.LastTransitionTime), oneLine(c.Message))
				}
			}
			if !set && t != v1.LoadBalancerConditionPortsError {
				fmt.Fprintf(tw, "  %s\t-\t\t\t(not set)\n", t)
			}
		}
		tw.Flush()
		if portsError {
			fmt.Fprintln(w, "  (LoadBalancerPortsError is deprecated, not one of KEP-4631's three: read as LoadBalancerDegraded/PortsNotSupported, C4)")
		}
	}
	var ingress []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		// An entry with neither is no address (L4), but it is there.
		ingress = append(ingress, cmp.Or(in.IP, in.Hostname, "(an entry with neither ip nor hostname)"))
	}
	line(0, "Ingress", orNone(strings.Join(ingress, ", ")))
	if lb {
		v := conditions.Evaluate(svc, "")
		line(0, "Verdict", v.String())
		if deadline := d.l8(svc); deadline != "" {
			line(1, "L8 deadline", deadline)
		}
	}

	checker := conformance.NewChecker(d.flags.checkerOptions()...)
	var found []conformance.Finding
	for _, f := range append(checker.Observe(svc), checker.Finish()...) {
		if f.Verdict == nil { // the verdict is shown above
			found = append(found, f)
		}
	}
	if len(found) == 0 {
		line(0, "Findings", "none")
	} else {
		fmt.Fprintln(w, "Findings:")
		tw := newTable(w)
		for _, f := range found {
			msg := f.Message
			if f.Field != "" {
				msg = f.Field + ": " + msg
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Severity, f.Rule, oneLine(msg))
		}
		tw.Flush()
	}
	d.events(ctx, w, svc)
}

// events writes the Service's latest Events. A failure to list them is
// shown in their place: the rest of the description still stands.
func (d *describer) events(ctx context.Context, w io.Writer, svc *v1.Service) {
	selector := fields.Set{"involvedObject.kind": "Service", "involvedObject.name": svc.Name}
	rctx, cancel := d.requestContext(ctx)
	list, err := d.conn.client.CoreV1().Events(svc.Namespace).List(rctx, metav1.ListOptions{FieldSelector: selector.String()})
	cancel()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(w, "%-*snot listed: interrupted\n", labelWidth, "Events:")
		return
	}
	if err != nil {
		fmt.Fprintf(w, "%-*scannot be listed: %s\n", labelWidth, "Events:", d.requestError(err))
		return
	}
	var events []*corev1.Event
	for i := range list.Items {
		ev := &list.Items[i]
		// The selector again: not every server (nor the fake clientset)
		// applies field selectors, and a Service deleted and created again
		// has a new uid.
		if ev.InvolvedObject.Kind != "Service" || ev.InvolvedObject.Name != svc.Name ||
			(ev.InvolvedObject.UID != "" && svc.UID != "" && ev.InvolvedObject.UID != svc.UID) {
			continue
		}
		events = append(events, ev)
	}
	if len(events) == 0 {
		fmt.Fprintf(w, "%-*s<none>\n", labelWidth, "Events:")
		return
	}
	slices.SortStableFunc(events, func(a, b *corev1.Event) int { return eventTime(a).Compare(eventTime(b)) })
	fmt.Fprintln(w, "Events:")
	if n := len(events) - maxDescribeEvents; n > 0 {
		fmt.Fprintf(w, "  (%d earlier not shown)\n", n)
		events = events[n:]
	}
	tw := newTable(w)
	defer tw.Flush()
	fmt.Fprintln(tw, "  TYPE\tREASON\tAGE\tFROM\tMESSAGE")
	for _, ev := range events {
		age := d.age(metav1.NewTime(eventTime(ev)))
		count := ev.Count
		if ev.Series != nil { // written through events.k8s.io, which counts here
			count = ev.Series.Count
		}
		if count > 1 {
			age += " (x" + strconv.Itoa(int(count)) + ")"
		}
		from := cmp.Or(ev.Source.Component, ev.ReportingController, "-")
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", oneLine(orDash(ev.Type)), oneLine(orDash(ev.Reason)), age, oneLine(from), oneLine(ev.Message))
	}
}

// labelWidth is the width of describe's label column.
const labelWidth = 28

// newTable returns a tabwriter for one of describe's tables.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
}

// eventTime is when an Event last happened, whichever of its times is set:
// an Event repeated through events.k8s.io keeps its first time in
// eventTime and its latest in series.lastObservedTime.
func eventTime(ev *corev1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.Time
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	}
	return ev.FirstTimestamp.Time
}

// age says how long ago t was, as kubectl does ("5m", "3h12m"); "<unknown>"
// for a zero time. A time more than a second ahead of the clock, where
// kubectl says "<invalid>", is "in 5s (clock skew?)": the writer's clock
// or ours is off, and by how much is worth knowing.
func (d *describer) age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	if ahead := t.Sub(d.now); ahead >= 2*time.Second { // kubectl's tolerance
		return "in " + duration.HumanDuration(ahead) + " (clock skew?)"
	}
	return duration.HumanDuration(d.now.Sub(t.Time))
}

func describePorts(ports []corev1.ServicePort) string {
	var parts []string
	for _, p := range ports {
		s := fmt.Sprintf("%d/%s", p.Port, cmp.Or(p.Protocol, corev1.ProtocolTCP))
		if p.Name != "" {
			s = p.Name + " " + s
		}
		if p.NodePort != 0 {
			s += fmt.Sprintf(" (node port %d)", p.NodePort)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func joinStrings[S ~string](list []S) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func orNone(s string) string { return cmp.Or(s, "<none>") }
func orDash(s string) string { return cmp.Or(s, "-") }

// oneLine keeps a message on its table row, and escapes what would drive
// the terminal: messages come from the provider and other controllers.
func oneLine(s string) string {
	return input.Escape(strings.Join(strings.Fields(s), " "))
}
