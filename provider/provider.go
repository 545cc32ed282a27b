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

package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// DefaultFieldManager is the field manager of the status writes of a
// provider of Services without a class when Options.FieldManager is
// empty; see FieldManagerFor.
const DefaultFieldManager = "lbstatus-reference-provider"

// FieldManagerFor returns the field manager of a provider with caps when
// Options.FieldManager is empty: DefaultFieldManager, followed for a
// provider of classes by "/" and its classes (sorted, comma-separated,
// "(default)" first when it also serves Services without a class), or by
// a hash of them where that would pass the apiserver's 128 characters.
// Providers of different classes must write under different field
// managers: a provider removes what it wrote on a Service it does not
// serve (L9, P1) by applying an empty status, which under a shared field
// manager would remove the other provider's conditions and ingress too.
// On its first write to a Service it serves or refuses, a provider takes
// over the status another reference provider's manager applied there: an
// earlier version, which wrote every class under DefaultFieldManager, or
// the same provider before its classes changed (see release).
func FieldManagerFor(caps conditions.Capabilities) string {
	if len(caps.Classes) == 0 {
		return DefaultFieldManager
	}
	names := slices.Sorted(slices.Values(caps.Classes))
	if caps.DefaultClass {
		names = append([]string{defaultClassName}, names...)
	}
	manager := DefaultFieldManager + "/" + strings.Join(names, ",")
	if len(manager) > 128 {
		h := fnv.New64a()
		h.Write([]byte(strings.Join(names, "\n")))
		manager = fmt.Sprintf("%s/%016x", DefaultFieldManager, h.Sum64())
	}
	return manager
}

// defaultClassName stands for Services without a class in the name
// FieldManagerFor gives.
const defaultClassName = "(default)"

// referenceClasses returns the classes a field manager of a reference
// provider names, as FieldManagerFor makes it ("(default)" for Services
// without a class; a name made with a hash gives the hash, which is no
// class), and whether manager is such a name: DefaultFieldManager, alone
// (the provider of Services without a class) or followed by "/" and a
// class set.
func referenceClasses(manager string) (classes []string, ok bool) {
	if manager == DefaultFieldManager {
		return []string{defaultClassName}, true
	}
	rest, ok := strings.CutPrefix(manager, DefaultFieldManager+"/")
	if !ok {
		return nil, false
	}
	return strings.Split(rest, ","), true
}

// Options configures a Provider. The zero value is a provider with no
// capabilities (conditions.Capabilities: it ignores every Service), one
// worker, all namespaces and no bugs.
type Options struct {
	// Capabilities says what the provider's load balancers can do; see
	// conditions.Decide.
	Capabilities conditions.Capabilities
	// Namespace limits the provider to one namespace; empty: all.
	Namespace string
	// FieldManager is the field manager of the status writes; empty:
	// FieldManagerFor(Capabilities).
	FieldManager string
	// Workers is how many Services are reconciled at once; less than one:
	// one.
	Workers int
	// ProvisionDelay is how long provisioning takes: the time between the
	// write of Provisioning=True and the write that ends it. Zero: the end
	// is written by the next reconcile, at once.
	ProvisionDelay time.Duration
	// Fail, when not nil, is asked at the end of each provisioning; a
	// non-empty answer makes the provisioning fail in the infrastructure
	// (Serving=False/Infrastructure) with that message. svc is a copy,
	// without spec.requiredLoadBalancerFeatures.
	Fail func(svc *corev1.Service) string
	// Bugs are deliberate mistakes; none by default.
	Bugs Bugs
	// Pool, when not nil, gives each served Service its addresses: one
	// per IP family the load balancer serves, kept while it serves, never
	// handed out twice, and recovered from the Services' status when Run
	// starts. A family with no free address, or a requested
	// spec.loadBalancerIP in use by another Service, fails the
	// provisioning in the infrastructure (Serving=False/Infrastructure).
	// A requested address the pool never hands out is one the provider
	// cannot honor: degraded or refused as Capabilities say (P3), refused
	// when required (R1). Nil: one made-up IPv4 address per Service
	// (Ingress), or the requested spec.loadBalancerIP when the
	// capabilities honor it.
	Pool *Pool
	// NoLatencies stops the recording of write latencies in Stats, for a
	// provider that runs for long: the list would grow without bound.
	NoLatencies bool
	// Faults makes the provider obey the fault annotations of a Service
	// (FailAnnotation, DelayAnnotation, DegradeAnnotation,
	// StopWritingAnnotation); off by default.
	Faults bool
}

// Bugs are deliberate mistakes a Provider can make, so that tests can show
// that the conformance checker catches them. The zero value makes none.
type Bugs struct {
	// SkipProvisioningBump: on a load-balancer-relevant spec change the
	// provider tells conditions.Reconcile it had already acted on the new
	// spec, so an in-place update of a serving load balancer, or a
	// refusal, is written without moving Provisioning's
	// lastTransitionTime (breaks L6).
	SkipProvisioningBump bool
	// ClaimForeignClasses: the provider takes a Service of any
	// loadBalancerClass for its own (breaks P1).
	ClaimForeignClasses bool
	// AcceptUnknownFeatures: the provider takes every required feature
	// for one it knows and serves the Service (breaks R2).
	AcceptUnknownFeatures bool
	// KeepConditionsOnTypeChange: the provider leaves its conditions on a
	// Service that stopped being a LoadBalancer (breaks L9).
	KeepConditionsOnTypeChange bool
	// IgnoreLoadBalancerIP: the provider claims to honor
	// spec.loadBalancerIP but serves at another address, without saying
	// it is degraded (breaks P3).
	IgnoreLoadBalancerIP bool
}

// Stats counts what a Provider did.
type Stats struct {
	// Writes is the number of successful status writes.
	Writes int
	// Conflicts is the number of status writes refused because the
	// Service had changed since it was read; each was retried.
	Conflicts int
	// Latencies are the durations of the successful status writes (one
	// request each), in the order they finished.
	Latencies []time.Duration
}

// Provider reconciles the KEP-4631 status of LoadBalancer Services. Create
// it with New and start it with Run.
type Provider struct {
	client  kubernetes.Interface
	opts    Options
	manager string

	mu sync.Mutex
	// acted holds, per namespace/name, what the provider knows of a
	// Service it handles, or a marker (letGo) of one it let go. Of the
	// Services it ignores (not LoadBalancers, other classes: most of a
	// cluster) it keeps nothing else.
	acted map[string]record
	// seen holds, per namespace/name, the resourceVersion of the latest
	// version the informer delivered, when that version is the
	// provider's to serve or refuse.
	seen map[string]string
	// changes counts, per namespace/name, the load-balancer-relevant
	// spec changes the informer delivered to or from a version the
	// provider serves or refuses: every one of them is owed an
	// acknowledgement (L6), even one that a later change undid before the
	// provider got to it.
	changes map[string]uint64
	stats   Stats
}

// record is what the provider remembers of a Service: the two inputs of
// conditions.Reconcile it cannot read from the Service.
type record struct {
	// acted is the Service as the provider last acted on it: the spec its
	// status describes.
	acted *v1.Service
	// changes is the count of spec changes (Provider.changes) the
	// provider had seen when it acted.
	changes uint64
	// lb is the provider's (made-up) load balancer.
	lb loadBalancer
	// letGo marks a Service the provider last acted on while ignoring it
	// (acted is then nil): its cleanup, if one was owed, is done (L9, P1).
	letGo bool
	// uid is the marked Service's: one created again under the name is
	// owed its own cleanup.
	uid types.UID
}

// loadBalancer is the provider's made-up load balancer of one Service.
type loadBalancer struct {
	state conditions.LoadBalancerState
	// ready is when the provisioning under way ends.
	ready time.Time
	// message says what failed.
	message string
}

// New returns a Provider that reads and writes Services through client.
// A nil client makes Run fail.
func New(client kubernetes.Interface, opts Options) *Provider {
	return &Provider{
		client:  client,
		opts:    opts,
		manager: cmp.Or(opts.FieldManager, FieldManagerFor(opts.Capabilities)),
		acted:   map[string]record{},
		seen:    map[string]string{},
		changes: map[string]uint64{},
	}
}

// Stats returns a copy of the provider's counters.
func (p *Provider) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Latencies = slices.Clone(s.Latencies)
	return s
}

// View is what a Provider knows of one Service: enough for a test to tell
// when the provider owes it nothing more.
type View struct {
	// ResourceVersion is that of the latest version of the Service the
	// provider's informer delivered; empty when none was, the Service
	// was deleted, or that version is one the provider ignores.
	ResourceVersion string
	// Acted is the Service as the provider last acted on it: the spec its
	// status describes, without spec.requiredLoadBalancerFeatures. Nil
	// when the provider has not acted on it yet, it was deleted, or the
	// provider ignores it (not a LoadBalancer, not its class).
	Acted *corev1.Service
	// ChangePending says that a load-balancer-relevant spec change was
	// delivered after the provider last acted: it owes an
	// acknowledgement (L6).
	ChangePending bool
}

// View returns what the provider knows of namespace/name. Taken before a
// read of the Service from the server, it tells whether the provider owes
// that version anything (see Settled).
func (p *Provider) View(namespace, name string) View {
	key := namespace + "/" + name
	p.mu.Lock()
	defer p.mu.Unlock()
	v := View{ResourceVersion: p.seen[key]}
	if rec, ok := p.acted[key]; ok && rec.acted != nil {
		v.Acted = v1.ToCore(rec.acted)
		v.ChangePending = rec.changes != p.changes[key]
	} else {
		v.ChangePending = p.changes[key] > 0
	}
	return v
}

// Settled reports whether a provider with view v, taken before svc was
// read from the server, owes svc no further write for its spec: it has
// seen this very version, acted on its load-balancer-relevant spec, and
// seen no change since. A provisioning under way is not covered: its end
// is still owed. A nil svc is never settled.
func (v View) Settled(svc *corev1.Service) bool {
	return svc != nil && v.ResourceVersion == svc.ResourceVersion && !v.ChangePending &&
		v.Acted != nil && len(conditions.ChangedFields(v.Acted, svc)) == 0
}

// delivered records an informer event: the latest resourceVersion, and a
// load-balancer-relevant spec change, of a Service the provider serves or
// refuses, or did before the change. Of a Service it ignores, it keeps
// nothing: the informer's cache holds it.
func (p *Provider) delivered(old, obj any) {
	svc, _ := obj.(*v1.Service)
	if svc == nil {
		return
	}
	key := svc.Namespace + "/" + svc.Name
	ignored := p.ignores(svc)
	changed := false
	if prev, ok := old.(*v1.Service); ok && !(ignored && p.ignores(prev)) {
		changed = len(conditions.ChangedFields(prev, svc)) > 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ignored {
		delete(p.seen, key)
	} else {
		p.seen[key] = svc.ResourceVersion
	}
	if changed {
		p.changes[key]++
	}
}

// ignores reports whether the provider leaves svc alone: not a
// LoadBalancer, or not of its classes.
func (p *Provider) ignores(svc *v1.Service) bool {
	return conditions.Decide(svc, p.capabilities(svc)).Action == conditions.ActionIgnore
}

// deleted records an informer deletion.
func (p *Provider) deleted(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.seen, key)
	}
}

func (p *Provider) changeCount(key string) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changes[key]
}

// Run reconciles Services until ctx ends, then stops its workers and
// returns. It returns an error when it cannot start (nil client, an
// informer that does not sync); errors of single reconciles are retried,
// not returned. Run may be called again once it has returned, as a leader
// election does after a lost Lease: the Services deleted meanwhile are
// forgotten, and their addresses freed.
func (p *Provider) Run(ctx context.Context) error {
	if p.client == nil {
		return errors.New("client is nil")
	}
	// An informer of Services alone, as the project's type, which keeps
	// spec.requiredLoadBalancerFeatures: the factory of package informers
	// would link in the informers of every API group.
	lw := cache.ToListWatcherWithWatchListSemantics(conditions.ServiceListWatch(p.client.CoreV1(), p.opts.Namespace), p.client)
	informer := cache.NewSharedIndexInformer(lw, &v1.Service{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	services := informer.GetIndexer()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "lbstatus-reference-provider"})
	defer queue.ShutDown()

	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			p.delivered(nil, obj)
			enqueue(obj)
		},
		UpdateFunc: func(old, obj any) {
			p.delivered(old, obj)
			enqueue(obj)
		},
		DeleteFunc: func(obj any) {
			p.deleted(obj)
			enqueue(obj)
		},
	}); err != nil {
		return fmt.Errorf("add event handler: %w", err)
	}
	informerDone := make(chan struct{})
	go func() {
		defer close(informerDone)
		informer.RunWithContext(ctx)
	}()
	// The informer stops with ctx; Run returns only after it has.
	defer func() { <-informerDone }()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return errors.New("service informer did not sync")
	}
	p.forgetGone(services)
	p.recover(services)

	var wg sync.WaitGroup
	for range max(p.opts.Workers, 1) {
		wg.Go(func() {
			for p.next(ctx, queue, services) {
			}
		})
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
	return nil
}

// forgetGone forgets the Services the provider knows of that store does
// not hold, or holds under another uid: when Run runs again (a leader
// election's after a lost Lease), those deleted while it was stopped get
// no delete event, and would hold their addresses and records for ever, or
// lend them to a Service created again under the name.
func (p *Provider) forgetGone(store cache.Store) {
	p.mu.Lock()
	keys := slices.Concat(slices.Collect(maps.Keys(p.acted)), slices.Collect(maps.Keys(p.seen)), slices.Collect(maps.Keys(p.changes)))
	p.mu.Unlock()
	for _, key := range keys {
		obj, exists, err := store.GetByKey(key)
		if err != nil {
			continue
		}
		svc, _ := obj.(*v1.Service)
		rec, _ := p.record(key)
		switch {
		case !exists || svc == nil:
			p.forget(key)
			p.mu.Lock()
			delete(p.seen, key)
			p.mu.Unlock()
		case rec.acted != nil && rec.acted.UID != svc.UID, rec.letGo && rec.uid != svc.UID:
			p.forget(key) // what its informer delivered is the new one's
		}
	}
}

// next reconciles one key from the queue; false when the queue is shut
// down.
func (p *Provider) next(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], services cache.Store) bool {
	key, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(key)
	after, err := p.reconcile(ctx, key, services)
	switch {
	case err != nil:
		if ctx.Err() == nil && !apierrors.IsConflict(err) {
			utilruntime.HandleErrorWithContext(ctx, err, "reconcile failed", "service", key)
		}
		queue.AddRateLimited(key)
	case after > 0:
		queue.Forget(key)
		queue.AddAfter(key, after)
	default:
		queue.Forget(key)
	}
	return true
}

// reconcile brings the status of one Service in line with its spec with
// one call of conditions.Reconcile. It returns how long to wait before the
// Service needs another look (a provisioning under way), or an error to
// retry.
//
// The provider keeps in memory only what Reconcile cannot read from the
// Service: the Service it last acted on, and its load balancer. After a
// restart it knows neither: it passes a nil acted, so that Reconcile moves
// Provisioning once for a change it may have missed (L6), and it finds its
// serving load balancer from the status it wrote; any other is provisioned
// again (see fromStatus).
func (p *Provider) reconcile(ctx context.Context, key string, services cache.Store) (time.Duration, error) {
	// The changes are counted before the Service is read, so that a
	// change delivered meanwhile is acted on by the next reconcile, not
	// counted as acted on now.
	changes := p.changeCount(key)
	obj, exists, err := services.GetByKey(key)
	if err != nil {
		return 0, err
	}
	svc, _ := obj.(*v1.Service)
	if !exists || svc == nil {
		p.forget(key)
		return 0, nil
	}
	svc = p.withoutUnknownRequired(svc)
	rec, known := p.record(key)
	acted := rec.acted
	if acted != nil && rec.changes != changes {
		// Changes that undid each other are still owed their
		// acknowledgement: not knowing what was acted on, Reconcile
		// counts the spec as changed.
		acted = nil
	}
	if !known {
		rec.lb = fromStatus(svc)
	}

	now := time.Now()
	caps := p.capabilities(svc)
	decision := conditions.Decide(svc, caps)
	if rec.letGo && decision.Action == conditions.ActionIgnore && rec.changes == changes {
		acted = svc // let go before, and ignored since
	}
	if p.opts.Bugs.KeepConditionsOnTypeChange && svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		p.letGo(key, svc, changes)
		return 0, nil
	}
	if p.opts.Bugs.SkipProvisioningBump && decision.Action != conditions.ActionIgnore {
		acted = svc
	}
	f := p.faultsOf(svc)
	var after time.Duration
	if decision.Action == conditions.ActionProvision {
		after = p.ensure(key, svc, rec, &rec.lb, now, f)
	} else {
		rec.lb = loadBalancer{} // nothing to serve: deleted, or never made
		p.opts.Pool.Release(key)
		// Until its status no longer shows them (the write below clears
		// the ingress of a Service this provider refuses), its addresses
		// are not handed out again.
		if p.ownAddresses(svc, decision.Action) {
			p.claimShown(key, svc)
		}
	}
	// With the field manager, a Service this provider leaves alone and
	// never applied a status to gets no cleanup write (P1).
	r, err := conditions.Reconcile(svc, caps, acted, p.state(key, svc, rec.lb, decision, f), conditions.WithFieldManager(p.manager))
	if err != nil {
		return 0, err
	}
	if r.Apply != nil && !f.stopWriting {
		if err := p.write(ctx, svc, r.Apply); apierrors.IsNotFound(err) {
			// Deleted since the cache read it: nothing to retry, and its
			// delete event forgets it.
			return 0, nil
		} else if err != nil {
			return 0, err
		}
		// A reference provider of other classes wrote this status before
		// (an earlier version wrote every class under
		// DefaultFieldManager; a restart may change the class set, and
		// with it the manager): the write took over what the status still
		// means, and each old manager lets go of the rest. The first
		// reconcile after a restart writes (acted is nil), so this
		// happens then, once per Service.
		if decision.Action != conditions.ActionIgnore {
			for _, old := range p.predecessors(svc) {
				if err := p.release(ctx, svc, old); err != nil {
					return 0, err
				}
			}
		}
	}
	if decision.Action == conditions.ActionIgnore {
		p.letGo(key, svc, changes)
		return 0, nil
	}
	p.remember(key, record{acted: svc, changes: changes, lb: rec.lb})
	return after, nil
}

// capabilities returns the provider's capabilities for svc: Options'
// own, without LoadBalancerIP when svc requests an address its load
// balancer can never take (takeable), which the provider then cannot
// honor (P3: degraded or refused; R1: refused when required), widened by
// the bugs that take what is not the provider's.
func (p *Provider) capabilities(svc *v1.Service) conditions.Capabilities {
	caps := p.opts.Capabilities
	if caps.LoadBalancerIP && svc.Spec.LoadBalancerIP != "" && !p.opts.Bugs.IgnoreLoadBalancerIP {
		if _, err := p.takeable(svc); err != nil {
			caps.LoadBalancerIP = false
		}
	}
	if p.opts.Bugs.ClaimForeignClasses && svc.Spec.LoadBalancerClass != nil {
		caps.Classes = append(slices.Clip(caps.Classes), *svc.Spec.LoadBalancerClass)
	}
	return caps
}

// withoutUnknownRequired returns svc, or with the AcceptUnknownFeatures bug
// a copy whose required features, in the spec field and the annotation,
// name only known ones: the provider reads past what it does not know.
func (p *Provider) withoutUnknownRequired(svc *v1.Service) *v1.Service {
	value, ok := svc.Annotations[v1.RequiredFeaturesAnnotation]
	if !p.opts.Bugs.AcceptUnknownFeatures || !ok && len(svc.Spec.RequiredLoadBalancerFeatures) == 0 {
		return svc
	}
	out := svc.DeepCopy()
	out.Spec.RequiredLoadBalancerFeatures = slices.DeleteFunc(out.Spec.RequiredLoadBalancerFeatures,
		func(f v1.LoadBalancerFeature) bool { return !f.IsKnown() })
	if !ok {
		return out
	}
	required, _ := v1.ParseRequiredFeatures(value, nil)
	known := slices.DeleteFunc(required, func(f v1.LoadBalancerFeature) bool { return !f.IsKnown() })
	out.Annotations[v1.RequiredFeaturesAnnotation] = conditions.FormatRequiredFeaturesAnnotation(known)
	if len(known) == 0 {
		delete(out.Annotations, v1.RequiredFeaturesAnnotation)
	}
	return out
}

// fromStatus finds the provider's load balancer of svc from the status it
// wrote, after a restart: serving, or absent. A failed one is absent, and
// so provisioned again: a failure stands until the spec changes, and a
// stock Service's status cannot say whether it changed while the provider
// was down, since its metadata.generation does not move (G6). A restart
// retries every failure, which then shows Provisioning again, and fails
// again when its cause is still there.
func fromStatus(svc *v1.Service) loadBalancer {
	serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing)
	if serving != nil && serving.Status == metav1.ConditionTrue && conditions.HasAddress(svc.Status.LoadBalancer.Ingress) {
		return loadBalancer{state: conditions.LoadBalancerReady}
	}
	return loadBalancer{}
}

// ensure brings the made-up load balancer lb of svc in line with its spec,
// and returns when to look again. A serving load balancer is updated in
// place at once; one that serves nothing is (re)provisioned, which takes
// Options.ProvisionDelay and may fail (Options.Fail).
func (p *Provider) ensure(key string, svc *v1.Service, rec record, lb *loadBalancer, now time.Time, f faults) time.Duration {
	changed := rec.acted == nil || len(conditions.ChangedFields(rec.acted, svc)) > 0
	switch lb.state {
	case conditions.LoadBalancerReady:
		// Updated in place, if changed; its addresses may have to change
		// with the spec (families, a requested address).
		if _, err := p.addresses(key, svc); err != nil {
			*lb = loadBalancer{state: conditions.LoadBalancerFailed, message: err.Error()}
		}
		return 0
	case conditions.LoadBalancerFailed:
		// Failed until the spec changes or, with Options.Faults, the
		// fail annotation that failed it is lifted or changed.
		if !changed && p.faultsOf(rec.acted).fail == f.fail {
			return 0
		}
	case conditions.LoadBalancerProvisioning:
		if wait := lb.ready.Sub(now); wait > 0 {
			return wait
		}
		msg := f.fail
		if p.opts.Fail != nil {
			msg = cmp.Or(p.opts.Fail(v1.ToCore(svc)), msg)
		}
		if msg == "" {
			if _, err := p.addresses(key, svc); err != nil {
				msg = err.Error()
			}
		}
		if msg != "" {
			*lb = loadBalancer{state: conditions.LoadBalancerFailed, message: msg}
			return 0
		}
		*lb = loadBalancer{state: conditions.LoadBalancerReady}
		return 0
	}
	delay := p.opts.ProvisionDelay
	if f.hasDelay {
		delay = f.delay
	}
	*lb = loadBalancer{state: conditions.LoadBalancerProvisioning, ready: now.Add(delay)}
	return max(delay, time.Nanosecond)
}

// state is lb as conditions.Reconcile reads it.
func (p *Provider) state(key string, svc *v1.Service, lb loadBalancer, decision conditions.Decision, f faults) conditions.LoadBalancer {
	out := conditions.LoadBalancer{State: lb.state, Message: lb.message, KeepServing: conditions.KeepServing}
	if lb.state == conditions.LoadBalancerReady {
		out.Ingress = Ingress(svc, p.opts.Capabilities)
		// ensure allocated them; asking again returns the same.
		addrs, _ := p.addresses(key, svc)
		out.Ingress = withAddresses(out.Ingress, addrs)
		out.Degraded = degraded(svc, decision, f)
	}
	return out
}

// write applies apply, a transition of svc, to the status subresource:
// as of the resourceVersion svc was read at, which the transition carries.
func (p *Provider) write(ctx context.Context, svc *v1.Service, apply *corev1ac.ServiceApplyConfiguration) error {
	start := time.Now()
	_, err := p.client.CoreV1().Services(svc.Namespace).ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: p.manager, Force: true})
	elapsed := time.Since(start)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		p.stats.Writes++
		if !p.opts.NoLatencies {
			p.stats.Latencies = append(p.stats.Latencies, elapsed)
		}
	case apierrors.IsConflict(err):
		p.stats.Conflicts++
	}
	if err != nil {
		return fmt.Errorf("apply status of %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

// predecessors returns the field managers other than p's own that a
// reference provider writes under (DefaultFieldManager, alone or followed
// by a class set, see FieldManagerFor) and that applied to svc's status:
// on a Service p serves or refuses, those of an earlier configuration.
func (p *Provider) predecessors(svc *v1.Service) []string {
	var out []string
	for _, m := range svc.ManagedFields {
		if _, reference := referenceClasses(m.Manager); reference && m.Manager != p.manager &&
			!slices.Contains(out, m.Manager) && conditions.OwnsStatus(svc, m.Manager) {
			out = append(out, m.Manager)
		}
	}
	return out
}

// release removes manager's ownership of svc's status by applying nothing
// under it (not even an empty status, which would stay owned): the fields
// only it owns go, the rest stay with their other owners, and manager
// leaves the managed fields. The provider calls it for each of its
// predecessors on the Services it serves or refuses, right after its own
// write has taken over what the status still means: else a condition it
// no longer writes (a Degraded that ended) or an ingress it took away
// would stay, owned by the old manager. A Service of its classes is no
// other provider's (P1), so what an old manager owns there was written by
// an earlier version or configuration of this provider.
func (p *Provider) release(ctx context.Context, svc *v1.Service, manager string) error {
	apply := corev1ac.Service(svc.Name, svc.Namespace)
	if _, err := p.client.CoreV1().Services(svc.Namespace).ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: manager}); err != nil {
		return fmt.Errorf("release the status of %s/%s written under %s: %w", svc.Namespace, svc.Name, manager, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Writes++
	return nil
}

func (p *Provider) record(key string) (record, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.acted[key]
	return rec, ok
}

func (p *Provider) remember(key string, rec record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.acted[key] = rec
}

// letGo records that the provider acted on svc while ignoring it. Where
// its field manager applied to the status, or the status shows KEP-4631
// conditions, it keeps a marker, so that its cleanup is not written again
// (a later write by another provider is not removed) and the conditions
// are not read as its load balancer's should the Service be its own
// again. Of any other Service it keeps nothing: Reconcile writes there
// neither way.
func (p *Provider) letGo(key string, svc *v1.Service, changes uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if conditions.OwnsStatus(svc, p.manager) || conditions.HasKEPConditions(svc.Status.Conditions) {
		p.acted[key] = record{letGo: true, changes: changes, uid: svc.UID}
	} else {
		delete(p.acted, key)
	}
}

// forget lets go of a Service that is gone: its addresses, what the
// provider acted on, and its count of spec changes, which a Service
// created again under the name, with nothing acted on, does not need.
func (p *Provider) forget(key string) {
	p.opts.Pool.Release(key)
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.acted, key)
	delete(p.changes, key)
}

// Ingress returns the made-up ingress of svc's load balancer: one IP in
// 198.18.0.0/16 derived from namespace/name, in VIP mode, with the ports
// the load balancer serves: those whose protocol caps supports, and, when
// caps cannot mix protocols, only those of the first such port's protocol.
// A nil svc gives nil.
func Ingress[S conditions.Object](svc S, caps conditions.Capabilities) []corev1.LoadBalancerIngress {
	var meta *metav1.ObjectMeta
	var spec *corev1.ServiceSpec
	switch s := any(svc).(type) {
	case *corev1.Service:
		if s != nil {
			meta, spec = &s.ObjectMeta, &s.Spec
		}
	case *v1.Service:
		if s != nil {
			meta, spec = &s.ObjectMeta, &s.Spec.ServiceSpec
		}
	}
	if meta == nil {
		return nil
	}
	h := fnv.New32a()
	h.Write([]byte(meta.Namespace + "/" + meta.Name))
	sum := h.Sum32()
	in := corev1.LoadBalancerIngress{
		IP:     fmt.Sprintf("198.18.%d.%d", (sum>>8)&0xff, sum&0xff),
		IPMode: ptr.To(corev1.LoadBalancerIPModeVIP),
	}
	var first corev1.Protocol
	for _, port := range spec.Ports {
		proto := cmp.Or(port.Protocol, corev1.ProtocolTCP)
		if !slices.Contains(caps.Protocols, proto) {
			continue
		}
		if first == "" {
			first = proto
		}
		if !caps.MixedProtocols && proto != first {
			continue
		}
		in.Ports = append(in.Ports, corev1.PortStatus{Port: port.Port, Protocol: proto})
	}
	return []corev1.LoadBalancerIngress{in}
}
