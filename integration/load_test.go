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

package integration

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/integration/internal/runprovider"
	"github.com/lbstatus/lbstatus/provider"
)

// loadCapabilities is the provider of the load tests: IPv4 only, TCP and
// UDP but not both on one load balancer, no session affinity. So ports of
// both protocols degrade Ports, ClientIP affinity degrades SessionAffinity,
// and requiring either of them (or an unknown feature) gets the Service
// refused.
var loadCapabilities = conditions.Capabilities{
	IPFamilies:               []corev1.IPFamily{corev1.IPv4Protocol},
	Protocols:                []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP},
	LoadBalancerSourceRanges: true,
	PreserveSourceIP:         true,
	DefaultClass:             true,
	KnownFeatures:            v1.LoadBalancerFeatures(),
}

// loadScenario is one run of the provider under load.
type loadScenario struct {
	services  int
	mutations int
	bugs      provider.Bugs
	// restart stops the provider after a third of the mutations, makes
	// another third while no provider runs, and starts a new provider,
	// which remembers nothing, for the rest.
	restart bool
}

// loadResult is what a load scenario observed.
type loadResult struct {
	findings []conformance.Finding
	events   int
	stats    provider.Stats
	converge time.Duration
}

// TestProvider_UnderLoad: the reference provider reconciles 200
// LoadBalancer Services while their specs change at random (ports, session
// affinity, required features through the annotation fallback, type). The
// conformance checker reads the real watch stream of all of them and must
// report no violation and no unacknowledged change (L6), and every Service
// must end in the state its final spec implies.
func TestProvider_UnderLoad(t *testing.T) {
	res := runLoad(t, loadScenario{services: 200, mutations: 600})
	if t.Failed() {
		return
	}
	if v := res.violations(t); len(v) > 0 {
		logFindings(t, v, 20)
		t.Errorf("the checker reports %d violations on the watch stream of a correct provider", len(v))
	}
	if w := byRule(res.findings, "L6", conformance.SeverityWarning); len(w) > 0 {
		logFindings(t, w, 10)
		t.Errorf("%d spec changes were never acknowledged (L6)", len(w))
	}
}

// TestProvider_UnderLoad_L6BugIsCaught runs a smaller load with a provider
// that forgets the Provisioning bump on spec changes: the checker must see
// it (L6 violations), so the load test demonstrably fails on a buggy
// provider, and must blame nothing else.
func TestProvider_UnderLoad_L6BugIsCaught(t *testing.T) {
	res := runLoad(t, loadScenario{services: 40, mutations: 160, bugs: provider.Bugs{SkipProvisioningBump: true}})
	if t.Failed() {
		return
	}
	violations := res.violations(t)
	l6 := byRule(violations, "L6", conformance.SeverityViolation)
	if len(l6) == 0 {
		t.Fatalf("a provider that skips the Provisioning bump went unnoticed: no L6 violation in %d events", res.events)
	}
	logFindings(t, l6, 3)
	for _, f := range violations {
		if f.Rule != "L6" {
			t.Errorf("a violation other than the injected bug's: %s %s: %s", f.Rule, f.Object, f.Message)
		}
	}
}

// TestProvider_UnderLoad_RestartKeepsL6: the provider is stopped in the
// middle of the load, specs change while it is down, and a new provider
// that remembers nothing takes over. conditions.Reconcile, given no
// acted-on Service, moves Provisioning for every Service it finds with
// conditions, so no spec change goes unacknowledged (L6) and nothing else
// breaks.
func TestProvider_UnderLoad_RestartKeepsL6(t *testing.T) {
	res := runLoad(t, loadScenario{services: 60, mutations: 240, restart: true})
	if t.Failed() {
		return
	}
	if v := res.violations(t); len(v) > 0 {
		logFindings(t, v, 20)
		t.Errorf("the checker reports %d violations on the watch stream of a restarted provider", len(v))
	}
	if w := byRule(res.findings, "L6", conformance.SeverityWarning); len(w) > 0 {
		logFindings(t, w, 10)
		t.Errorf("%d spec changes were never acknowledged across the restart (L6)", len(w))
	}
}

// violations logs the counts of the checker's findings and returns its
// violations.
func (r loadResult) violations(t *testing.T) []conformance.Finding {
	t.Helper()
	t.Logf("checker findings: %s", countRules(r.findings))
	return bySeverity(r.findings, conformance.SeverityViolation)
}

// runLoad runs a load scenario to its end: the Services have converged and
// the checker has read every event up to their final versions.
func runLoad(t *testing.T, sc loadScenario) loadResult {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LBSTATUS_LOAD_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("LBSTATUS_LOAD_SEED: %v", err)
		}
	}
	t.Logf("seed %d (set LBSTATUS_LOAD_SEED to repeat)", seed)

	ns := namespace(t)
	client := clientset(t, "lbstatus-load-mutator")
	str := watchServices(t, client, ns)

	newProvider := func() *provider.Provider {
		return provider.New(clientset(t, "lbstatus-reference-provider"), provider.Options{
			Capabilities:   loadCapabilities,
			Namespace:      ns,
			Workers:        4,
			ProvisionDelay: 20 * time.Millisecond,
			Bugs:           sc.bugs,
		})
	}
	p := newProvider()
	stop := runprovider.Start(t, p)

	start := time.Now()
	names := make([]string, sc.services)
	for i := range names {
		names[i] = fmt.Sprintf("lb-%03d", i)
	}
	parallel(t, 8, len(names), seed, func(r *rand.Rand, i int) error {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: names[i], Namespace: ns}}
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		svc.Spec.Ports = randomPorts(r, nil)
		if r.IntN(4) == 0 {
			setAffinity(svc, corev1.ServiceAffinityClientIP)
		}
		if a := randomRequired(r); a != "-" {
			svc.Annotations = map[string]string{v1.RequiredFeaturesAnnotation: a}
		}
		_, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
		return err
	})
	created := time.Since(start)
	mutations := func(n int, seed uint64, keepType bool) {
		parallel(t, 4, n, seed, func(r *rand.Rand, _ int) error {
			return mutate(client, ns, names[r.IntN(len(names))], r, keepType)
		})
	}
	if sc.restart {
		// No type changes in this scenario: the apiserver clears the
		// ingress of a Service that stops being a LoadBalancer, and the
		// conditions wait for a provider to remove them (L9). A Service
		// that goes to ClusterIP and back before a provider gets to it
		// (one that is stopped, or busy acknowledging every Service
		// after its start) shows Serving=True without ingress (L4),
		// which no provider can prevent. TestProvider_UnderLoad covers
		// type changes with a provider that keeps running.
		mutations(sc.mutations/3, seed+1, true)
		stop()
		t.Logf("provider stopped after %d writes", p.Stats().Writes)
		mutations(sc.mutations/3, seed+2, true)
		p = newProvider()
		runprovider.Start(t, p)
		mutations(sc.mutations-2*(sc.mutations/3), seed+3, true)
	} else {
		mutations(sc.mutations, seed+1, false)
	}
	mutated := time.Since(start)
	if t.Failed() {
		return loadResult{}
	}

	// Convergence: every Service in the state its final spec implies.
	var final *corev1.ServiceList
	var problems []string
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		// What the provider knows, read before the list, so that the
		// list holds every write the provider made for it.
		views := map[string]provider.View{}
		for _, name := range names {
			views[name] = p.View(ns, name)
		}
		list, err := client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		final, problems = list, nil
		for i := range list.Items {
			svc := &list.Items[i]
			problems = append(problems, checkFinalState(svc)...)
			// Quiescence: the provider has seen this version and acted
			// on every change of the spec, so it owes no more writes. (A
			// change the final state does not show, such as a required
			// feature the provider supports, or one undone by the next,
			// still owes its L6 bump.)
			if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && !views[svc.Name].Settled(svc) {
				problems = append(problems, svc.Name+": the provider has not acted on the latest spec yet")
			}
		}
		return len(problems) == 0, nil
	})
	converge := time.Since(start)
	if err != nil {
		for _, p := range problems[:min(len(problems), 20)] {
			t.Log(p)
		}
		t.Fatalf("%d problems left after %s (last list): %v", len(problems), converge.Round(time.Millisecond), err)
	}
	if len(final.Items) != sc.services {
		t.Fatalf("%d services at the end, want %d", len(final.Items), sc.services)
	}
	want := map[string]string{}
	for _, svc := range final.Items {
		want[svc.Name] = svc.ResourceVersion
	}
	if behind := str.caughtUp(t, want, 30*time.Second); len(behind) > 0 {
		for i := range final.Items {
			svc := &final.Items[i]
			if last := behind[svc.Name]; last != nil {
				t.Logf("%s: converged at resourceVersion %s:\n%s\nlast watched at %s:\n%s", svc.Name, svc.ResourceVersion, dump(v1.FromCore(svc)), last.ResourceVersion, dump(last))
				t.Logf("%s: the provider last acted on:\n%s", svc.Name, dump(v1.FromCore(p.View(ns, svc.Name).Acted)))
				t.Logf("%s: observations:\n%s", svc.Name, str.historyOf(svc.Name))
			}
		}
		t.Fatalf("the watch stream did not end at the converged version of %d services", len(behind))
	}
	// Nothing may change once the provider is quiescent.
	after, err := client.CoreV1().Services(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range after.Items {
		if svc := &after.Items[i]; svc.ResourceVersion != want[svc.Name] {
			t.Errorf("%s changed after the provider was quiescent: resourceVersion %s, then %s; managedFields %s", svc.Name, want[svc.Name], svc.ResourceVersion, managedSummary(svc))
		}
	}
	findings, events := str.finish()
	stats := p.Stats()

	t.Logf("%d services created in %s, %d spec changes done at %s, converged at %s; %d watch events checked",
		sc.services, created.Round(time.Millisecond), sc.mutations, mutated.Round(time.Millisecond), converge.Round(time.Millisecond), events)
	t.Logf("status writes: %d (%d conflicts retried); write latency p50 %s, p90 %s, p99 %s, max %s",
		stats.Writes, stats.Conflicts,
		percentile(stats.Latencies, 50).Round(10*time.Microsecond), percentile(stats.Latencies, 90).Round(10*time.Microsecond),
		percentile(stats.Latencies, 99).Round(10*time.Microsecond), percentile(stats.Latencies, 100).Round(10*time.Microsecond))
	return loadResult{findings: findings, events: events, stats: stats, converge: converge}
}

// runProvider runs p until the test ends.
func runProvider(t *testing.T, p *provider.Provider) {
	t.Helper()
	runprovider.Start(t, p)
}

// parallel runs n jobs on the given number of goroutines, each with a
// random source of its own derived from seed, and fails the test on the
// first error.
func parallel(t *testing.T, goroutines, n int, seed uint64, job func(r *rand.Rand, i int) error) {
	t.Helper()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for g := range goroutines {
		r := rand.New(rand.NewPCG(seed, uint64(g)))
		wg.Go(func() {
			for i := range jobs {
				if err := job(r, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// portPool are the ports the load tests choose from: three TCP, one UDP.
var portPool = []corev1.ServicePort{
	{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP},
	{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP},
	{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP},
	{Name: "alt", Port: 8443, Protocol: corev1.ProtocolTCP},
}

// randomPorts returns one to three ports of the pool, in pool order,
// keeping the node ports of the ports in old.
func randomPorts(r *rand.Rand, old []corev1.ServicePort) []corev1.ServicePort {
	var out []corev1.ServicePort
	for len(out) == 0 {
		out = out[:0]
		for _, p := range portPool {
			if r.IntN(2) == 0 && len(out) < 3 {
				for _, o := range old {
					if o.Port == p.Port && o.Protocol == p.Protocol {
						p.NodePort = o.NodePort
					}
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// requiredChoices are the annotation values the load tests choose from;
// "-" removes the annotation. Teleport is a feature no provider knows (R2).
var requiredChoices = []string{"-", "-", "-", "Ports", "SessionAffinity", "SessionAffinity,Ports", "LoadBalancerSourceRanges", "Teleport"}

func randomRequired(r *rand.Rand) string {
	return requiredChoices[r.IntN(len(requiredChoices))]
}

func setAffinity(svc *corev1.Service, a corev1.ServiceAffinity) {
	svc.Spec.SessionAffinity = a
	if a != corev1.ServiceAffinityClientIP {
		svc.Spec.SessionAffinityConfig = nil
	}
}

// mutate makes one random change to the spec of a Service, as a user
// would: read, change, update, again on a conflict.
func mutate(client kubernetes.Interface, ns, name string, r *rand.Rand, keepType bool) error {
	kind := r.IntN(20)
	if keepType {
		kind = r.IntN(16)
	}
	choice := r.Int()
	backoff := wait.Backoff{Steps: 100, Duration: 5 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Cap: 200 * time.Millisecond}
	return retry.OnError(backoff, apierrors.IsConflict, func() error {
		ctx := context.Background()
		svc, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(uint64(choice), 0))
		switch {
		case kind < 7: // ports
			svc.Spec.Ports = randomPorts(r, svc.Spec.Ports)
		case kind < 11: // session affinity
			if svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
				setAffinity(svc, corev1.ServiceAffinityNone)
			} else {
				setAffinity(svc, corev1.ServiceAffinityClientIP)
			}
		case kind < 16: // required features, through the annotation fallback
			if a := randomRequired(r); a == "-" {
				delete(svc.Annotations, v1.RequiredFeaturesAnnotation)
			} else {
				if svc.Annotations == nil {
					svc.Annotations = map[string]string{}
				}
				svc.Annotations[v1.RequiredFeaturesAnnotation] = a
			}
		default: // type
			types := []corev1.ServiceType{corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort}
			svc.Spec.Type = types[r.IntN(len(types))]
		}
		_, err = client.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{})
		return err
	})
}

// checkFinalState returns what is wrong with the status of svc, judged
// from its spec alone with the capabilities of loadCapabilities, written
// out here rather than taken from conditions.Decide so that the test
// checks the provider's decisions instead of repeating them.
func checkFinalState(core *corev1.Service) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, core.Name+": "+fmt.Sprintf(format, args...))
	}
	conds := core.Status.Conditions
	ingress := core.Status.LoadBalancer.Ingress
	serving := conditions.Get(conds, v1.LoadBalancerConditionServing)
	provisioning := conditions.Get(conds, v1.LoadBalancerConditionProvisioning)
	degraded := conditions.Get(conds, v1.LoadBalancerConditionDegraded)

	if core.Spec.Type != corev1.ServiceTypeLoadBalancer {
		if conditions.HasKEPConditions(conds) || len(ingress) > 0 {
			bad("type %s still has load-balancer status (L9): %d conditions, %d ingress points", core.Spec.Type, len(conds), len(ingress))
		}
		return problems
	}

	// What the Service asks for, and what the provider cannot give.
	var short []string
	protocols := map[corev1.Protocol]bool{}
	for _, p := range core.Spec.Ports {
		protocols[p.Protocol] = true
	}
	if len(protocols) > 1 {
		short = append(short, string(v1.LoadBalancerFeaturePorts))
	}
	if core.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		short = append(short, string(v1.LoadBalancerFeatureSessionAffinity))
	}
	refuse := false
	if a, ok := core.Annotations[v1.RequiredFeaturesAnnotation]; ok {
		for _, f := range strings.Split(a, ",") {
			if f == "Teleport" || slices.Contains(short, f) {
				refuse = true
			}
		}
	}

	if provisioning == nil || provisioning.Status != metav1.ConditionFalse || provisioning.Reason != string(v1.LoadBalancerReasonComplete) {
		bad("Provisioning is %s, want False/Complete", describe(provisioning))
	}
	if refuse {
		if serving == nil || serving.Status != metav1.ConditionFalse || serving.Reason != string(v1.LoadBalancerReasonUnsupported) {
			bad("Serving is %s, want False/Unsupported: a required feature is unsupported or unknown", describe(serving))
		}
		if degraded != nil || len(ingress) > 0 {
			bad("refused, yet Degraded is %s and there are %d ingress points", describe(degraded), len(ingress))
		}
		return problems
	}
	if serving == nil || serving.Status != metav1.ConditionTrue || serving.Reason != string(v1.LoadBalancerReasonServing) {
		bad("Serving is %s, want True/Serving", describe(serving))
	}
	var wantReasons []string
	for _, f := range short {
		r, _ := v1.DegradedReason(v1.LoadBalancerFeature(f))
		wantReasons = append(wantReasons, string(r))
	}
	slices.Sort(wantReasons)
	var got []string
	for _, r := range conditions.DegradedReasons(conds) {
		got = append(got, string(r))
	}
	if !slices.Equal(got, wantReasons) {
		bad("degraded in %v, want %v (Degraded is %s)", got, wantReasons, describe(degraded))
	}
	if len(ingress) != 1 || ingress[0].IP == "" {
		bad("ingress is %v, want one IP", ingress)
		return problems
	}
	// The load balancer serves the ports of the first port's protocol.
	var wantPorts []string
	for _, p := range core.Spec.Ports {
		if p.Protocol == core.Spec.Ports[0].Protocol {
			wantPorts = append(wantPorts, fmt.Sprintf("%d/%s", p.Port, p.Protocol))
		}
	}
	var gotPorts []string
	for _, p := range ingress[0].Ports {
		gotPorts = append(gotPorts, fmt.Sprintf("%d/%s", p.Port, p.Protocol))
	}
	if !slices.Equal(gotPorts, wantPorts) {
		bad("ingress ports %v, want %v", gotPorts, wantPorts)
	}
	return problems
}

func describe(c *metav1.Condition) string {
	if c == nil {
		return "absent"
	}
	return string(c.Status) + "/" + c.Reason
}

// managedSummary lists who wrote an object when, for failure messages.
func managedSummary(svc *corev1.Service) string {
	var parts []string
	for _, m := range svc.ManagedFields {
		parts = append(parts, fmt.Sprintf("%s/%s@%s", m.Manager, cmp.Or(m.Subresource, "main"), m.Time.UTC().Format(time.RFC3339)))
	}
	return strings.Join(parts, ", ")
}

// dump renders the spec, status and managed fields of svc for failure
// messages.
func dump(svc *v1.Service) string {
	if svc == nil {
		return "<nil>"
	}
	b, _ := json.MarshalIndent(struct {
		Annotations map[string]string
		Spec        v1.ServiceSpec
		Status      v1.ServiceStatus
		Managed     string
	}{svc.Annotations, svc.Spec, svc.Status, managedSummary(v1.ToCore(svc))}, "", "  ")
	return string(b)
}
