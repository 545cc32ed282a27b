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

// Command lbstatus-provider runs the reference load-balancer provider of
// lbstatus (package provider) against a cluster. It has no data plane:
// the addresses it writes are not reachable; it exists for control-plane
// and client-logic tests.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/cmd/internal/flagerror"
	"github.com/lbstatus/lbstatus/cmd/internal/kubeconfig"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/provider"
)

const usage = `lbstatus-provider runs the reference KEP-4631 load-balancer provider.

It writes the LoadBalancerServing, LoadBalancerProvisioning and
LoadBalancerDegraded conditions and an ingress address from its IP pools on
the LoadBalancer Services of its class. It has NO DATA PLANE: the addresses
are not reachable. It exists for control-plane and client-logic tests
(e2e suites, lbstatus conformance, lbstatus watch).

Usage: lbstatus-provider [flags]

It watches every namespace, unless -n/--namespace (a kubeconfig flag) names
one: then it serves that namespace's Services only. The Lease's namespace is
--leader-election-namespace.

Capabilities are all on by default; each --no-* flag or --unsupported value
takes one away, so that each refusal and degradation of the rules can be
produced. With --faults, a Service's annotations make it fail on purpose:
  provider.lbstatus.github.io/fail: "message"     provisioning fails (Infrastructure)
  provider.lbstatus.github.io/delay: "45s"        provisioning takes that long
  provider.lbstatus.github.io/degrade: "Ports"    served degraded in these features
  provider.lbstatus.github.io/stop-writing: "true" no more status writes

Exit status: 0 stopped by a signal, 1 lost the lease or failed, 2 bad usage,
or a kubeconfig that cannot be loaded or names no cluster.

Examples:
  # Serve Services of class example.com/lb with the default pools.
  lbstatus-provider --class example.com/lb
  # Serve Services without a class, IPv4 only, with faults on demand.
  lbstatus-provider --default-class --ip-families IPv4 --faults
  # Refuse session affinity, degrade source ranges, leader election on.
  lbstatus-provider --class example.com/lb --unsupported SessionAffinity,LoadBalancerSourceRanges \
      --refuse SessionAffinity --leader-elect

Flags:
`

// bugs maps --bug values to the provider's deliberate mistakes.
var bugs = map[string]func(*provider.Bugs){
	"SkipProvisioningBump":       func(b *provider.Bugs) { b.SkipProvisioningBump = true },
	"ClaimForeignClasses":        func(b *provider.Bugs) { b.ClaimForeignClasses = true },
	"AcceptUnknownFeatures":      func(b *provider.Bugs) { b.AcceptUnknownFeatures = true },
	"KeepConditionsOnTypeChange": func(b *provider.Bugs) { b.KeepConditionsOnTypeChange = true },
	"IgnoreLoadBalancerIP":       func(b *provider.Bugs) { b.IgnoreLoadBalancerIP = true },
}

// bugNames lists the --bug values, sorted, for messages.
func bugNames() string {
	names := make([]string, 0, len(bugs))
	for n := range bugs {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

type flags struct {
	cluster        *genericclioptions.ConfigFlags
	classes        []string
	defaultClass   bool
	pools          []string
	families       []string
	noDualStack    bool
	protocols      []string
	noMixed        bool
	needNodePorts  bool
	unsupported    []string
	refuse         []string
	unknown        []string
	delay          time.Duration
	workers        int
	fieldManager   string
	faults         bool
	bugs           []string
	leaderElect    bool
	leaseNamespace string
	leaseName      string
	healthAddr     string
	metricsAddr    string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it parses args, then runs the provider
// until ctx ends. --help goes to stdout; bad usage is one line on stderr and
// exit status 2.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, opts, code, done := parse(args, stdout, stderr)
	if done {
		return code
	}
	return connectAndServe(ctx, f, opts, stderr)
}

// parse parses args into flags and the provider's options. done says the
// program is over, with code its exit status: help (0, or 2 when it could
// not be written) or bad usage (2, one line on stderr).
func parse(args []string, stdout, stderr io.Writer) (f flags, opts provider.Options, code int, done bool) {
	fs := pflag.NewFlagSet("lbstatus-provider", pflag.ContinueOnError)
	help := bufio.NewWriter(stdout) // --help, flushed to see that it was written
	fs.SetOutput(help)
	f.cluster = genericclioptions.NewConfigFlags(true)
	f.cluster.AddFlags(fs)
	fs.StringSliceVar(&f.classes, "class", nil, "loadBalancerClass the provider handles; repeatable")
	fs.BoolVar(&f.defaultClass, "default-class", false, "also handle Services without a loadBalancerClass")
	fs.StringSliceVar(&f.pools, "pool", []string{"198.18.0.0/16", "fd00:1b::/112"}, "IPv4 and IPv6 CIDRs the addresses come from")
	fs.StringSliceVar(&f.families, "ip-families", []string{"IPv4", "IPv6"}, "IP families the load balancers serve")
	fs.BoolVar(&f.noDualStack, "no-dual-stack", false, "serve a dual-stack Service on one family only (Degraded IPFamiliesNotSupported)")
	fs.StringSliceVar(&f.protocols, "protocols", []string{"TCP", "UDP", "SCTP"}, "L4 protocols the load balancers serve")
	fs.BoolVar(&f.noMixed, "no-mixed-protocols", false, "serve one protocol per Service (Degraded PortsNotSupported)")
	fs.BoolVar(&f.needNodePorts, "need-node-ports", false, "refuse Services with allocateLoadBalancerNodePorts false")
	fs.StringSliceVar(&f.unsupported, "unsupported", nil, "features not implemented: SessionAffinity, LoadBalancerIP, LoadBalancerSourceRanges, ExternalTrafficPolicy (no source-IP preservation)")
	fs.StringSliceVar(&f.refuse, "refuse", nil, "features of P3 given to --unsupported to refuse rather than degrade")
	fs.StringSliceVar(&f.unknown, "unknown-features", nil, "features of this version to act as if not known, as an older provider would: a Service that requires one is refused (R2)")
	fs.DurationVar(&f.delay, "provision-delay", 2*time.Second, "how long provisioning takes")
	fs.IntVar(&f.workers, "workers", 4, "Services reconciled at once")
	fs.StringVar(&f.fieldManager, "field-manager", "", "field manager of the status writes; default: "+provider.DefaultFieldManager+", followed by /CLASSES with --class (providers of different classes must not share one)")
	fs.BoolVar(&f.faults, "faults", false, "obey the fault annotations of Services")
	fs.StringSliceVar(&f.bugs, "bug", nil, "deliberate rule-breaking mistakes, for testing checkers and suites: SkipProvisioningBump (L6), ClaimForeignClasses (P1), AcceptUnknownFeatures (R2), KeepConditionsOnTypeChange (L9), IgnoreLoadBalancerIP (P3)")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "run only while holding a Lease, for several replicas")
	fs.StringVar(&f.leaseNamespace, "leader-election-namespace", "", "namespace of the Lease; default: the kubeconfig's")
	fs.StringVar(&f.leaseName, "leader-election-id", "", "name of the Lease; default: "+defaultLease+", followed with --class by the classes and a hash of them, so that providers of different classes do not share one")
	fs.StringVar(&f.healthAddr, "health-addr", ":8081", "address of /healthz and /readyz; empty: none")
	fs.StringVar(&f.metricsAddr, "metrics-addr", ":8080", "address of /metrics; empty: none")
	fs.Usage = func() {
		fmt.Fprint(help, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			if err := help.Flush(); err != nil {
				// Not printed: as for any output, not exit status 0.
				fmt.Fprintf(stderr, "lbstatus-provider: writing the help: %v\n", err)
				return f, opts, 2, true
			}
			return f, opts, 0, true
		}
		fmt.Fprintf(stderr, "lbstatus-provider: %s\n", flagerror.Message(err))
		return f, opts, 2, true
	}
	if fs.NArg() > 0 {
		// First: a stray word ("lbstatus-provider help") is the problem,
		// not the flags it came without.
		fmt.Fprintf(stderr, "lbstatus-provider: no arguments expected, got %q (run \"lbstatus-provider --help\")\n", fs.Args())
		return f, opts, 2, true
	}
	if fs.Changed("class") && (len(f.classes) == 0 || slices.Contains(f.classes, "")) {
		// As lbstatus check takes --class '': here that is a flag of its own.
		fmt.Fprintln(stderr, `lbstatus-provider: --class "": for the Services without a class, give --default-class`)
		return f, opts, 2, true
	}
	opts, err := f.options()
	if timeout, terr := clientcmd.ParseTimeout(*f.cluster.Timeout); err == nil && (terr != nil || timeout < 0) {
		// clientcmd takes a negative timeout as no limit at all.
		err = fmt.Errorf("--request-timeout %q: want a duration of zero (no limit) or more, such as 30s", *f.cluster.Timeout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus-provider: %v\n", err)
		return f, opts, 2, true
	}
	return f, opts, 0, false
}

// connectAndServe builds a client from the cluster flags and serves until
// ctx ends.
func connectAndServe(ctx context.Context, f flags, opts provider.Options, stderr io.Writer) int {
	cfg, err := f.cluster.ToRESTConfig()
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus-provider: %v\n", kubeconfig.LoadError(f.cluster, err))
		return 2
	}
	if err := kubeconfig.Missing(f.cluster, cfg.Host); err != nil {
		fmt.Fprintf(stderr, "lbstatus-provider: %v\n", err)
		return 2
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "lbstatus-provider"
	}
	if cfg.Timeout > 0 {
		// client-go makes the request timeout the HTTP client's, which
		// also cuts every watch after that long; it bounds the requests
		// that end instead.
		timeout := cfg.Timeout
		cfg.Timeout = 0
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &boundedTransport{rt: rt, timeout: timeout} })
	}
	reach := &reachTransport{host: cfg.Host, stderr: stderr}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { reach.rt = rt; return reach })
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus-provider: %v\n", err)
		return 2
	}
	if err := serve(ctx, f, client, opts, reach, stderr); err != nil {
		fmt.Fprintf(stderr, "lbstatus-provider: %v\n", err)
		return 1
	}
	return 0
}

// boundedTransport bounds each request but a watch to timeout, the body
// read included.
type boundedTransport struct {
	rt      http.RoundTripper
	timeout time.Duration
}

func (b *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if w := req.URL.Query().Get("watch"); w == "true" || w == "1" {
		return b.rt.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), b.timeout)
	resp, err := b.rt.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// reachTransport says on stderr, once per outage, that the apiserver
// cannot be reached, and once it answers again. client-go retries a
// refused connection quietly (the informer logs it only at -v=2), so the
// provider printed nothing while it could do nothing.
type reachTransport struct {
	rt     http.RoundTripper
	host   string
	stderr io.Writer
	mu     sync.Mutex
	down   bool
}

func (r *reachTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err != nil && req.Context().Err() != nil {
		return nil, err // the caller gave up: the provider is stopping
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil && !r.down:
		fmt.Fprintf(r.stderr, "lbstatus-provider: cannot reach the apiserver %s: %v; retrying\n", r.host, err)
	case err == nil && r.down:
		fmt.Fprintf(r.stderr, "lbstatus-provider: the apiserver %s answers again\n", r.host)
	}
	r.down = err != nil
	return resp, err
}

// unreachable reports whether err is that of a request that did not reach
// the apiserver, during an outage r has said on stderr.
func (r *reachTransport) unreachable(err error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var uerr *url.Error
	return r.down && errors.As(err, &uerr)
}

// quietSink is a log sink that drops the errors quiet tells.
type quietSink struct {
	logr.LogSink
	quiet func(error) bool
}

// Init does not pass info on: the sink it wraps was initialized already,
// and its WithCallDepth counts the frame of quietSink's methods.
func (q quietSink) Init(logr.RuntimeInfo) {}

func (q quietSink) Info(level int, msg string, keysAndValues ...any) {
	q.LogSink.Info(level, msg, keysAndValues...)
}

func (q quietSink) Error(err error, msg string, keysAndValues ...any) {
	if !q.quiet(err) {
		q.LogSink.Error(err, msg, keysAndValues...)
	}
}

func (q quietSink) WithValues(keysAndValues ...any) logr.LogSink {
	return quietSink{q.LogSink.WithValues(keysAndValues...), q.quiet}
}

func (q quietSink) WithName(name string) logr.LogSink {
	return quietSink{q.LogSink.WithName(name), q.quiet}
}

// cancelOnClose ends a request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// defaultLease is the Lease of a provider of Services without a class.
const defaultLease = "lbstatus-provider"

// leaseNameFor is the default Lease of a provider with caps: defaultLease,
// followed for a provider of classes by its classes, as a name, and a hash
// of them. Replicas of one provider share the Lease, and only the holder
// runs; providers of different classes in one namespace must not share
// one, or only one of them runs at a time. The classes are those of the
// field manager, so two providers share a Lease exactly when they share a
// field manager. Where the classes do not make a valid name, the hash
// stands alone.
func leaseNameFor(caps conditions.Capabilities) string {
	manager := provider.FieldManagerFor(caps)
	classes, ok := strings.CutPrefix(manager, provider.DefaultFieldManager+"/")
	if !ok {
		return defaultLease
	}
	h := fnv.New32a()
	h.Write([]byte(classes))
	sum := fmt.Sprintf("%08x", h.Sum32())
	readable := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(strings.ReplaceAll(classes, "(default)", "default")))
	if name := defaultLease + "-" + readable + "-" + sum; len(validation.IsDNS1123Subdomain(name)) == 0 {
		return name
	}
	return defaultLease + "-" + sum
}

// options turns the flags into the provider's options; a value it does not
// know is an error naming the flag.
func (f *flags) options() (provider.Options, error) {
	if len(f.classes) == 0 && !f.defaultClass {
		return provider.Options{}, errors.New("no Service to handle: give --class, --default-class or both")
	}
	for _, class := range f.classes {
		if errs := validation.IsQualifiedName(class); len(errs) > 0 {
			return provider.Options{}, fmt.Errorf("--class %q: not a loadBalancerClass the apiserver accepts, so no Service has it: %s", class, strings.Join(errs, "; "))
		}
	}
	if len(f.pools) == 0 {
		return provider.Options{}, errors.New("--pool: no CIDR given, so no address to hand out: every Service would fail")
	}
	pool, err := provider.NewPool(f.pools...)
	if err != nil {
		return provider.Options{}, fmt.Errorf("--pool: %w", err)
	}
	for _, a := range [][2]string{{"--health-addr", f.healthAddr}, {"--metrics-addr", f.metricsAddr}} {
		// Malformed is bad usage; an address in use is found when bound.
		if err := checkAddr(a[1]); err != nil {
			return provider.Options{}, fmt.Errorf("%s %q: %w: want host:port or :port, or \"\" for none", a[0], a[1], err)
		}
	}
	caps := conditions.Capabilities{
		DualStack:                !f.noDualStack,
		MixedProtocols:           !f.noMixed,
		WithoutNodePorts:         !f.needNodePorts,
		SessionAffinity:          true,
		LoadBalancerSourceRanges: true,
		LoadBalancerIP:           true,
		PreserveSourceIP:         true,
		Classes:                  f.classes,
		DefaultClass:             f.defaultClass,
	}
	for _, s := range f.families {
		fam := corev1.IPFamily(s)
		if fam != corev1.IPv4Protocol && fam != corev1.IPv6Protocol {
			return provider.Options{}, fmt.Errorf("--ip-families: unknown family %q: want IPv4 or IPv6", s)
		}
		caps.IPFamilies = append(caps.IPFamilies, fam)
	}
	for _, s := range f.protocols {
		proto := corev1.Protocol(strings.ToUpper(s))
		if proto != corev1.ProtocolTCP && proto != corev1.ProtocolUDP && proto != corev1.ProtocolSCTP {
			return provider.Options{}, fmt.Errorf("--protocols: unknown protocol %q: want TCP, UDP or SCTP", s)
		}
		caps.Protocols = append(caps.Protocols, proto)
	}
	for _, s := range f.unsupported {
		switch v1.LoadBalancerFeature(s) {
		case v1.LoadBalancerFeatureSessionAffinity:
			caps.SessionAffinity = false
		case v1.LoadBalancerFeatureLoadBalancerIP:
			caps.LoadBalancerIP = false
		case v1.LoadBalancerFeatureLoadBalancerSourceRanges:
			caps.LoadBalancerSourceRanges = false
		case v1.LoadBalancerFeatureExternalTrafficPolicy:
			caps.PreserveSourceIP = false
		default:
			return provider.Options{}, fmt.Errorf("--unsupported: %q is not one of SessionAffinity, LoadBalancerIP, LoadBalancerSourceRanges, ExternalTrafficPolicy (IPFamilies and Ports: see --ip-families, --no-dual-stack, --protocols, --no-mixed-protocols)", s)
		}
	}
	for _, s := range f.refuse {
		feat := v1.LoadBalancerFeature(s)
		if !slices.Contains([]v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity, v1.LoadBalancerFeatureLoadBalancerIP, v1.LoadBalancerFeatureLoadBalancerSourceRanges}, feat) {
			return provider.Options{}, fmt.Errorf("--refuse: %q is not a feature of P3 (SessionAffinity, LoadBalancerIP, LoadBalancerSourceRanges)", s)
		}
		if !slices.Contains(f.unsupported, s) {
			// Decide refuses only what the provider cannot honor:
			// alone, --refuse would change nothing.
			return provider.Options{}, fmt.Errorf("--refuse: %s is supported, so there is nothing to refuse: give --unsupported %s too", s, s)
		}
		caps.RefuseUnsupported = append(caps.RefuseUnsupported, feat)
	}
	for _, feat := range v1.LoadBalancerFeatures() {
		if !slices.Contains(f.unknown, string(feat)) {
			caps.KnownFeatures = append(caps.KnownFeatures, feat)
		}
	}
	for _, s := range f.unknown {
		if !v1.LoadBalancerFeature(s).IsKnown() {
			return provider.Options{}, fmt.Errorf("--unknown-features: %q is not a feature", s)
		}
	}
	if !f.leaderElect && (f.leaseName != "" || f.leaseNamespace != "") {
		// Without it no Lease is held: replicas meant to take turns
		// would all write.
		return provider.Options{}, errors.New("--leader-election-id and --leader-election-namespace name the Lease of --leader-elect: give --leader-elect too")
	}
	if f.leaseName == "" {
		f.leaseName = leaseNameFor(caps)
	} else if errs := validation.IsDNS1123Subdomain(f.leaseName); len(errs) > 0 {
		return provider.Options{}, fmt.Errorf("--leader-election-id %q: not a name a Lease can have: %s", f.leaseName, strings.Join(errs, "; "))
	}
	opts := provider.Options{
		Capabilities:   caps,
		Namespace:      *f.cluster.Namespace,
		FieldManager:   f.fieldManager,
		Workers:        f.workers,
		ProvisionDelay: f.delay,
		Pool:           pool,
		Faults:         f.faults,
		NoLatencies:    true,
	}
	for _, b := range f.bugs {
		set, ok := bugs[b]
		if !ok {
			return provider.Options{}, fmt.Errorf("--bug: unknown bug %q: want one of %s", b, bugNames())
		}
		set(&opts.Bugs)
	}
	if f.delay < 0 {
		return provider.Options{}, fmt.Errorf("--provision-delay %s: want zero or more", f.delay)
	}
	if f.workers < 1 {
		return provider.Options{}, fmt.Errorf("--workers %d: want at least 1", f.workers)
	}
	return opts, nil
}

// serve runs the health and metrics endpoints, and the provider: at once,
// or while it holds the Lease. It returns nil when ctx ends.
// reach, when not nil, tells the outages of the apiserver it has said
// on stderr.
func serve(ctx context.Context, f flags, client kubernetes.Interface, opts provider.Options, reach *reachTransport, stderr io.Writer) error {
	p := provider.New(client, opts)
	var ready, leading atomic.Bool
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	errs := make(chan error, 3)
	if f.healthAddr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
		mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
			// Ready: reconciling, or a standby waiting for the Lease.
			if !ready.Load() {
				http.Error(w, "not started", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "ok")
		})
		if err := listen(ctx, f.healthAddr, mux, errs); err != nil {
			return listenError("--health-addr", f.healthAddr, err)
		}
	}
	if f.metricsAddr != "" {
		reg := prometheus.NewRegistry()
		reg.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "lbstatus_provider_status_writes_total", Help: "Status writes that succeeded."},
				func() float64 { return float64(p.Stats().Writes) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "lbstatus_provider_status_conflicts_total", Help: "Status writes refused for a stale read, then retried."},
				func() float64 { return float64(p.Stats().Conflicts) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "lbstatus_provider_pool_addresses_in_use", Help: "Pool addresses handed out."},
				func() float64 { return float64(opts.Pool.InUse()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "lbstatus_provider_leader", Help: "1 while this replica reconciles."},
				func() float64 {
					if leading.Load() {
						return 1
					}
					return 0
				}),
		)
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		if err := listen(ctx, f.metricsAddr, mux, errs); err != nil {
			return listenError("--metrics-addr", f.metricsAddr, err)
		}
	}

	runProvider := func(ctx context.Context) {
		leading.Store(true)
		defer leading.Store(false)
		if err := p.Run(ctx); err != nil {
			errs <- err
		}
	}
	if !f.leaderElect {
		ready.Store(true)
		go func() {
			runProvider(ctx)
			cancel()
		}()
	} else {
		ns := f.leaseNamespace
		if ns == "" {
			var err error
			if ns, _, err = f.cluster.ToRawKubeConfigLoader().Namespace(); err != nil {
				return fmt.Errorf("leader election namespace: %w", err)
			}
		}
		host, _ := os.Hostname()
		id := host + "_" + rand.String(8)
		lock := &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: f.leaseName},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id},
		}
		// The Lease is given up when this replica stops, so that a standby
		// need not wait out its duration, but only once the provider has
		// stopped writing: le.Run gives it up as soon as its context ends,
		// so that context is not ctx, and is ended after the provider.
		leCtx, leCancel := context.WithCancel(context.WithoutCancel(ctx))
		if sink := klog.FromContext(ctx).GetSink(); sink != nil && reach != nil {
			// The leader election logs an error on every retry (every
			// RetryPeriod) that does not reach the apiserver: said once
			// for the outage already.
			if cd, ok := sink.(logr.CallDepthLogSink); ok {
				sink = cd.WithCallDepth(1) // the caller of quietSink's
			}
			leCtx = klog.NewContext(leCtx, logr.New(quietSink{LogSink: sink, quiet: reach.unreachable}))
		}
		var mu sync.Mutex
		stopping, providerDone := false, chan struct{}(nil)
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   15 * time.Second,
			RenewDeadline:   10 * time.Second,
			RetryPeriod:     2 * time.Second,
			ReleaseOnCancel: true,
			Name:            f.leaseName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(held context.Context) {
					mu.Lock()
					if stopping {
						mu.Unlock()
						return
					}
					done := make(chan struct{})
					providerDone = done
					mu.Unlock()
					defer close(done)
					// Until the Lease is lost or this replica stops.
					run, stop := context.WithCancel(held)
					defer stop()
					defer context.AfterFunc(ctx, stop)()
					runProvider(run)
				},
				OnStoppedLeading: func() {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("lost the Lease %s/%s", ns, f.leaseName)
					}
				},
			},
		})
		if err != nil {
			leCancel()
			return fmt.Errorf("leader election: %w", err)
		}
		ready.Store(true)
		elected := make(chan struct{})
		go func() {
			le.Run(leCtx)
			close(elected)
		}()
		defer func() {
			cancel()
			mu.Lock()
			stopping = true
			done := providerDone
			mu.Unlock()
			if done != nil {
				<-done
			}
			leCancel()
			select {
			case <-elected:
			case <-time.After(5 * time.Second): // the apiserver does not answer: the Lease expires
			}
		}()
		fmt.Fprintf(stderr, "lbstatus-provider: %s waits for the Lease %s/%s\n", id, ns, f.leaseName)
	}
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
		return nil
	}
}

// listenError says which flag named an address that cannot be bound and,
// when it is taken, what to do.
func listenError(flag, addr string, err error) error {
	err = fmt.Errorf("%s %q: %w", flag, addr, err)
	if errors.Is(err, syscall.EADDRINUSE) {
		err = fmt.Errorf("%w; another program (another lbstatus-provider?) has it: give %s another address, or \"\" for none", err, flag)
	}
	return err
}

// checkAddr reports whether addr, unless empty, is host:port with a port
// number or service name.
func checkAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	return err
}

// listen serves handler on addr until ctx ends; an address that cannot be
// bound is an error at once, a server that fails later goes to errs.
func listen(ctx context.Context, addr string, handler http.Handler, errs chan<- error) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
	}()
	return nil
}
