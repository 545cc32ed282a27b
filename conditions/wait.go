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

package conditions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/clock"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

var (
	// ErrNoKEPProvider is the error a FailError of Wait wraps when neither
	// LoadBalancerServing nor LoadBalancerProvisioning appeared before the
	// first deadline of L8: no KEP-aware provider handles the Service. A
	// provider that predates the KEP may still serve it; the Service Wait
	// returns tells.
	ErrNoKEPProvider = errors.New("no KEP-aware provider handles the service")
	// ErrProvisionTimeout is the error a FailError of Wait wraps when the
	// conditions appeared but the verdict was still Pending at the second
	// deadline of L8.
	ErrProvisionTimeout = errors.New("the load balancer was not provisioned in time")
	// ErrInfrastructure is the error a FailError of Wait wraps when the
	// provider reported a failure in its infrastructure (T2).
	ErrInfrastructure = errors.New("provisioning failed in the provider's infrastructure")
	// ErrNotReleased is the error a FailError of WaitReleased wraps when
	// the provider had not released the load balancer (L9) at the
	// provisioning deadline of L8.
	ErrNotReleased = errors.New("the load balancer was not released in time")
	// ErrNoSpecChange is returned by Wait, at once, when the change of
	// WithSpecChangeFrom touched no load-balancer-relevant field (G3): no
	// provider acknowledges it (L6).
	ErrNoSpecChange = errors.New("the update changed no load-balancer-relevant field (G3), so no provider acknowledges it (L6)")
	// ErrNotLoadBalancer is returned by Wait, at once, when the Service of
	// WithSpecChange or WithSpecChangeFrom is not of type LoadBalancer: a
	// provider answers a change of the type away from LoadBalancer by
	// releasing the load balancer (L9), which WaitReleased waits for, and
	// acknowledges no change (L6).
	ErrNotLoadBalancer = errors.New("the service is not of type LoadBalancer, so no provider acknowledges the change (L6); after a change away from LoadBalancer, WaitReleased waits for the release (L9)")
	// ErrServiceDeleted is returned by Wait when the Service is deleted
	// before the verdict is final.
	ErrServiceDeleted = errors.New("the service was deleted")
)

// FailError is the error of every Fail verdict of Wait (T2): a failure in
// the provider's infrastructure or a deadline of L8; and of WaitReleased
// when its deadline passes (L9). Find it with errors.As; errors.Is tells
// the cause (ErrInfrastructure, ErrNoKEPProvider, ErrProvisionTimeout,
// ErrNotReleased).
type FailError struct {
	// Namespace and Name are the Service's; Namespace is empty when Wait
	// saw no Service.
	Namespace, Name string
	// Verdict is the Fail verdict, rule T2 (L9 for WaitReleased), with
	// its reason.
	Verdict Verdict
	// Err is the cause.
	Err error
}

// Error returns "service namespace/name: verdict", or "service name: ..."
// when Wait saw no Service and so no namespace.
func (e *FailError) Error() string {
	if e.Namespace == "" {
		return fmt.Sprintf("service %s: %s", e.Name, e.Verdict)
	}
	return fmt.Sprintf("service %s/%s: %s", e.Namespace, e.Name, e.Verdict)
}

// Unwrap returns the cause.
func (e *FailError) Unwrap() error { return e.Err }

// ServiceListWatcher is what Wait needs of a client: to list and watch the
// Services of one namespace. client-go's typed client
// (kubernetes.Interface.CoreV1().Services(namespace)) and its fake
// implement it as they are; any other client (controller-runtime's
// client.WithWatch, say) needs a few lines of adapter.
type ServiceListWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.ServiceList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Wait watches the Service name through services (a client of one
// namespace) until its verdict for feature ("" for none) is final (Ready,
// Skip or Fail, see Evaluate), and returns the last Service it saw with that
// verdict. It relies on client-go's UntilWithSync: a watch that ends, fails
// or expires is resumed or relisted, so Wait survives apiserver restarts and
// "resource version too old". The Service need not exist yet when Wait
// starts; one that has not appeared by the first deadline fails with
// ErrNoKEPProvider too, its verdict saying that the Service never
// appeared.
//
// Every Fail is an error, a *FailError carrying the verdict: the provider
// failed in its infrastructure (ErrInfrastructure), or a deadline of L8
// passed. The deadlines run from Wait's start, or with
// WithDeadlinesFromCreation from the Service's creationTimestamp:
// WithConditionsTimeout (default 30 s) for LoadBalancerServing or
// LoadBalancerProvisioning to appear, else ErrNoKEPProvider;
// WithProvisionTimeout (default 15 minutes) for the verdict to become
// final, else ErrProvisionTimeout. After an update, WithSpecChange waits
// for the provider to acknowledge the change (L6) before a verdict counts,
// and fails at once, with ErrNotLoadBalancer, when the changed Service is
// not of type LoadBalancer (WaitReleased is the wait for that);
// WithSpecChangeFrom also fails at once, with ErrNoSpecChange, on an update
// that changed no load-balancer-relevant field.
// The clock of WithClock drives the deadlines when it is a clock.Clock.
// WithProgress sees every observation. Ready and Skip return a nil error: a
// test goes on, or skips (ShouldSkip).
//
// Other errors: ErrServiceDeleted, also when a relist shows a Service of
// the name with another uid (deleted and created again while the watch was
// down); the context's error, wrapped with the Service's name and the last
// verdict, which is returned too, when ctx ends first (with the last list's
// error instead when no Service was seen and that list failed, or the last
// watch's when it failed); a nil services, an empty name or a feature this
// version does not know, at once; the error of the last list, wrapped, when
// the first deadline passes before any Service was seen and that list
// failed (an RBAC refusal, say: the lists are retried until then, and no
// verdict on a provider follows); the error of the last watch, wrapped,
// when a deadline passes while the watch fails (a client that may list
// Services but not watch them: the lists that follow each refusal come ever
// further apart, and what the provider wrote since the last is not known).
// The returned Service is nil when none was seen.
func Wait(ctx context.Context, services ServiceListWatcher, name string, feature v1.LoadBalancerFeature, opts ...WaitOption) (*corev1.Service, Verdict, error) {
	return wait(ctx, services, name, feature, makeWaitOptions(opts))
}

// WaitReleased watches the Service name through services (a client of one
// namespace), after a change of its type away from LoadBalancer, until the
// provider has released the load balancer (L9): the Service is not of type
// LoadBalancer, and has none of LoadBalancerServing,
// LoadBalancerProvisioning and LoadBalancerDegraded (HasKEPConditions) and
// no status.loadBalancer.ingress (Released). It returns the last Service it
// saw, nil when none. No verdict of section 6 follows such a change: Wait
// would only end at the provisioning deadline, and with WithSpecChange
// fails at once with ErrNotLoadBalancer.
//
// The wait is bounded by the provisioning deadline of L8
// (WithProvisionTimeout, default 15 minutes), from the start of the wait;
// WithConditionsTimeout and WithDeadlinesFromCreation do not apply. When it
// passes, the error is a *FailError that wraps ErrNotReleased, naming the
// Service and what it still shows. WithProgress sees every observation with
// a verdict of rule L9: Pending until the Service is released, then Ready.
// WithSpecChange's Service, when given, only names the uid to wait on.
// Every other error is Wait's: ErrServiceDeleted, wrapped with the
// Service's name; the context's error; a failed list or watch; a nil
// services or an empty name, at once.
func WaitReleased(ctx context.Context, services ServiceListWatcher, name string, opts ...WaitOption) (*corev1.Service, error) {
	o := makeWaitOptions(opts)
	o.release, o.fromCreation = true, false
	svc, _, err := wait(ctx, services, name, "", o)
	return svc, err
}

func wait(ctx context.Context, services ServiceListWatcher, name string, feature v1.LoadBalancerFeature, o waitOptions) (*corev1.Service, Verdict, error) {
	verdict := Evaluate[*corev1.Service](nil, feature)
	if services == nil {
		return nil, verdict, errors.New("services client is nil")
	}
	if name == "" {
		// It would select no Service, and wait out L8's first deadline.
		return nil, verdict, errors.New("service name is empty")
	}
	if feature != "" && !feature.IsKnown() {
		// No Degraded reason names it, so it could never skip (T1): a
		// misspelt feature would pass a test of a feature the provider
		// does not have.
		return nil, verdict, fmt.Errorf("feature %q is not one this version knows (%v)", feature, v1.LoadBalancerFeatures())
	}
	if o.before != nil && !o.release {
		// Nothing for the provider to acknowledge: the wait could only
		// end at the provisioning deadline.
		var nothing error
		switch {
		case o.before.Spec.Type != corev1.ServiceTypeLoadBalancer:
			nothing = ErrNotLoadBalancer
		case o.old != nil && len(changedFields(view(o.old), view(o.before), o.oldAnnotations)) == 0:
			nothing = ErrNoSpecChange
		}
		if nothing != nil {
			if o.before.Namespace != "" {
				name = o.before.Namespace + "/" + name
			}
			return nil, verdict, fmt.Errorf("service %s: %w", name, nothing)
		}
	}
	clk, ok := o.clock.(clock.Clock)
	if !ok {
		clk = clock.RealClock{}
	}

	waitCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var seenConditions atomic.Bool
	if o.release || o.before != nil && Acknowledged(o.before.Status.Conditions) {
		// The provider has already shown it is KEP-aware on this
		// Service (L8's first deadline is for a creation or a
		// conversion): one that removes its conditions after a change
		// of the type away from LoadBalancer (L9) is not missing.
		seenConditions.Store(true)
	}
	origin, moved := make(chan time.Time), make(chan bool)
	go deadlines(waitCtx, cancel, clk, o, &seenConditions, origin, moved)

	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	// listErr is the error of the last list, nil once one succeeds: the
	// reflector retries a refused list without end, and a wait that never
	// saw the Service says why.
	var listErr atomic.Pointer[error]
	// watchErr is the error of the last attempt to watch, nil once one
	// succeeds: after a refused watch the reflector lists again, ever
	// further apart, and the Service is seen only then.
	var watchErr atomic.Pointer[error]
	// A plain list and watch: one Service gains nothing from watch-list
	// streams, and fakes do not serve them.
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			options.FieldSelector = selector
			list, err := services.List(ctx, options)
			switch {
			case err == nil:
				listErr.Store(nil)
			case ctx.Err() == nil: // not the end of the wait itself
				listErr.Store(&err)
			}
			return list, err
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			options.FieldSelector = selector
			w, err := services.Watch(ctx, options)
			switch {
			case err == nil, apierrors.IsResourceExpired(err), apierrors.IsGone(err):
				// An expired resourceVersion is relisted at once.
				watchErr.Store(nil)
			case ctx.Err() == nil:
				watchErr.Store(&err)
			}
			return w, err
		},
	}, plainListWatch{})

	var last *corev1.Service
	// changeSeen: the provider acknowledged the change of WithSpecChange.
	changeSeen := false
	namespace := ""
	since := "the start of the wait"
	_, err := watchtools.UntilWithSync(waitCtx, lw, &corev1.Service{}, nil, func(event watch.Event) (bool, error) {
		svc, ok := event.Object.(*corev1.Service)
		if !ok || svc.Name != name {
			return false, nil
		}
		if event.Type == watch.Deleted {
			return false, ErrServiceDeleted
		}
		if last != nil && last.UID != "" && svc.UID != "" && svc.UID != last.UID {
			// Deleted and created again while the watch was down: a
			// relist shows the new Service as an update of the old.
			return false, ErrServiceDeleted
		}
		if b := o.before; b != nil && b.UID != "" && svc.UID != "" && svc.UID != b.UID {
			// Not the Service whose change the caller waits for.
			return false, ErrServiceDeleted
		}
		if Acknowledged(svc.Status.Conditions) {
			seenConditions.Store(true)
		}
		if last == nil {
			namespace = svc.Namespace
		}
		if o.fromCreation && svc.Spec.Type != corev1.ServiceTypeLoadBalancer && (last == nil || last.Spec.Type == corev1.ServiceTypeLoadBalancer) {
			// Not a LoadBalancer (yet): L8's deadlines wait for the
			// conversion, whenever it comes.
			select {
			case origin <- time.Time{}:
				<-moved
			case <-waitCtx.Done():
			}
		}
		if o.fromCreation && svc.Spec.Type == corev1.ServiceTypeLoadBalancer && (last == nil || last.Spec.Type != corev1.ServiceTypeLoadBalancer) {
			// L8 counts from the creation, or from a conversion, which
			// only an observation before it shows.
			at, what := svc.CreationTimestamp.Time, "the service's creation"
			if last != nil {
				at, what = clk.Now(), "its conversion to type LoadBalancer"
				// Conditions seen before were the old load balancer's
				// (removed under L9): L8 asks for them afresh.
				seenConditions.Store(Acknowledged(svc.Status.Conditions))
			}
			if !at.IsZero() {
				// The deadlines move before the observation is reported,
				// and know whether it has conditions.
				select {
				case origin <- at:
					if <-moved {
						since = what
					}
				case <-waitCtx.Done():
				}
			}
		}
		last = svc
		verdict = Evaluate(svc, feature)
		if o.release {
			verdict = released(svc)
		} else if o.before != nil && !changeSeen {
			if changeSeen = ChangeSeen(o.before, svc); !changeSeen {
				verdict = Verdict{Result: ResultPending, Rule: "T4", Feature: feature, Reason: unacknowledged(o.before, svc)}
			}
		}
		if o.progress != nil {
			o.progress(svc, verdict)
		}
		return verdict.Result.IsFinal(), nil
	})
	fail := func(cause error, v Verdict) error {
		return &FailError{Namespace: namespace, Name: name, Verdict: v, Err: cause}
	}
	if err == nil {
		if verdict.Result == ResultFail {
			return last, verdict, fail(ErrInfrastructure, verdict)
		}
		return last, verdict, nil
	}
	// refused is why no Service was seen, when the last list failed.
	var refused error
	if failed := listErr.Load(); last == nil && failed != nil {
		refused = *failed
	}
	// unwatched is why what the provider wrote since the last list is not
	// known, when the last watch failed.
	var unwatched error
	if failed := watchErr.Load(); refused == nil && failed != nil {
		unwatched = *failed
	}
	subject := name // without a namespace when no Service was seen
	if namespace != "" {
		subject = namespace + "/" + name
	}
	switch cause := context.Cause(waitCtx); {
	case errors.Is(err, ErrServiceDeleted):
		return last, verdict, fmt.Errorf("service %s/%s: %w", namespace, name, err)
	case errors.Is(cause, ErrNoKEPProvider):
		// The earlier deadline ended the wait: a provision deadline
		// shorter than the conditions deadline judges the conditions too.
		within := min(o.conditionsTimeout, o.provisionTimeout)
		if refused != nil {
			// Not a verdict on any provider: the client could not list.
			return nil, verdict, fmt.Errorf("service %s: services could not be listed within %s of %s: %w", name, within, since, refused)
		}
		if unwatched != nil {
			// Not a verdict either: a stale list shows no conditions.
			return last, verdict, fmt.Errorf("service %s: services could not be watched within %s of %s, so what the provider wrote since the last list is not known: %w", subject, within, since, unwatched)
		}
		reason := fmt.Sprintf("no KEP-aware provider: neither LoadBalancerServing nor LoadBalancerProvisioning appeared within %s of %s (L8)", within, since)
		if last == nil {
			// Nothing to blame a provider for: the name or the
			// namespace may be wrong, or the Service never made.
			reason = fmt.Sprintf("no service named %q appeared within %s of %s, so no provider could write LoadBalancerServing or LoadBalancerProvisioning (L8)", name, within, since)
		}
		verdict = Verdict{Result: ResultFail, Rule: "T2", Feature: feature, Reason: reason}
		return last, verdict, fail(ErrNoKEPProvider, verdict)
	case errors.Is(cause, ErrProvisionTimeout) && unwatched != nil:
		return last, verdict, fmt.Errorf("service %s: services could not be watched at the end of %s after %s, so what the provider wrote since the last list is not known (last verdict %s): %w", subject, o.provisionTimeout, since, verdict, unwatched)
	case errors.Is(cause, ErrProvisionTimeout) && o.release:
		reason := fmt.Sprintf("no service named %q appeared within %s of %s (L9)", name, o.provisionTimeout, since)
		if last != nil {
			reason = fmt.Sprintf("the load balancer was not released within %s of %s: %s", o.provisionTimeout, since, verdict.Reason)
		}
		verdict = Verdict{Result: ResultFail, Rule: "L9", Reason: reason}
		return last, verdict, fail(ErrNotReleased, verdict)
	case errors.Is(cause, ErrProvisionTimeout):
		verdict = Verdict{Result: ResultFail, Rule: "T2", Feature: feature,
			Reason: fmt.Sprintf("the verdict was still pending %s after %s (L8): %s", o.provisionTimeout, since, verdict.Reason)}
		return last, verdict, fail(ErrProvisionTimeout, verdict)
	case ctx.Err() != nil:
		if refused != nil {
			// The caller gave up first; the list that failed says why
			// nothing was seen.
			return nil, verdict, fmt.Errorf("%w; the last list of services failed: %w", ctx.Err(), refused)
		}
		if unwatched != nil {
			return last, verdict, fmt.Errorf("%w; the last watch of services failed: %w", ctx.Err(), unwatched)
		}
		// Named, with the verdict so far: a suite that fails with the
		// error alone says which Service it gave up on, and why.
		return last, verdict, fmt.Errorf("service %s: %w while the verdict was %s", subject, ctx.Err(), verdict)
	default:
		return last, verdict, fmt.Errorf("service %s/%s: %w", namespace, name, err)
	}
}

// ChangeSeen reports whether svc shows that the provider saw a change of a
// load-balancer-relevant field made after before was read (L6): svc has
// LoadBalancerProvisioning, and before had none or one of another
// lastTransitionTime. before is the Service the update or patch returned,
// or the one an Update was made with (see WithSpecChange: not one read
// before a patch). A nil svc gives false; a nil before counts as one without
// conditions. WithSpecChange makes Wait wait for it.
func ChangeSeen[S Object](before, svc S) bool {
	s := view(svc)
	if s == nil {
		return false
	}
	now := Get(s.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	if now == nil {
		return false
	}
	var old *metav1.Condition
	if b := view(before); b != nil {
		old = Get(b.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	}
	return old == nil || !now.LastTransitionTime.Equal(&old.LastTransitionTime)
}

// Released reports whether the provider has released svc's load balancer
// (L9): svc is not of type LoadBalancer, and has none of
// LoadBalancerServing, LoadBalancerProvisioning and LoadBalancerDegraded
// (HasKEPConditions) and no status.loadBalancer.ingress. WaitReleased
// waits for it. The deprecated LoadBalancerPortsError and other
// controllers' conditions do not count. A nil svc gives false.
func Released[S Object](svc S) bool {
	s := view(svc)
	return s != nil && s.Spec.Type != corev1.ServiceTypeLoadBalancer &&
		!HasKEPConditions(s.Status.Conditions) && len(s.Status.LoadBalancer.Ingress) == 0
}

// released is the verdict of WaitReleased on svc: Ready once the provider
// has released the load balancer (Released), else Pending with what svc
// still shows.
func released(svc *corev1.Service) Verdict {
	v := Verdict{Result: ResultPending, Rule: "L9"}
	if Released(svc) {
		v.Result, v.Reason = ResultReady, "the provider removed its conditions and the ingress (L9)"
		return v
	}
	var kept []string
	for _, c := range svc.Status.Conditions {
		if isKEPType(c.Type) {
			kept = append(kept, c.Type)
		}
	}
	switch {
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer:
		v.Reason = "the service is still of type LoadBalancer"
	case len(kept) > 0:
		v.Reason = fmt.Sprintf("the service still has %s (L9)", strings.Join(kept, ", "))
	default:
		v.Reason = "the service still has a status.loadBalancer.ingress (L9)"
	}
	return v
}

// unacknowledged is the reason of the Pending verdict of svc while
// ChangeSeen(before, svc) is false: what svc shows instead.
func unacknowledged(before, svc *corev1.Service) string {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		// A Service without a type is a ClusterIP one.
		typ := cmp.Or(svc.Spec.Type, corev1.ServiceTypeClusterIP)
		return fmt.Sprintf("the service is of type %s, which a provider answers by removing its conditions (L9, what WaitReleased waits for), not by acknowledging the change (L6)", typ)
	}
	old := Get(before.Status.Conditions, v1.LoadBalancerConditionProvisioning)
	if old == nil || Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) == nil {
		return "the provider has not acknowledged the spec change yet: there is no LoadBalancerProvisioning (L6)"
	}
	return "the provider has not acknowledged the spec change yet: LoadBalancerProvisioning's lastTransitionTime is still " +
		old.LastTransitionTime.UTC().Format(time.RFC3339) + " (L6)"
}

// plainListWatch tells client-go's reflector not to use watch-list
// streams.
type plainListWatch struct{}

func (plainListWatch) IsWatchListSemanticsUnSupported() bool { return true }

// deadlines cancels ctx with ErrNoKEPProvider or ErrProvisionTimeout when
// the corresponding deadline of L8 passes, and returns when ctx ends. The
// deadlines run from the start, or from each time received on origin (the
// Service's creation or conversion) that is not in the future; the zero
// time stops them (a Service not of type LoadBalancer) until the next.
// moved answers each, true when the deadlines moved. A deadline that has passed
// by the time the origin arrives acts at once rather than through a timer,
// so it does not depend on how a clock treats a timer reset to zero.
func deadlines(ctx context.Context, cancel context.CancelCauseFunc, clk clock.Clock, o waitOptions, seen *atomic.Bool, origin <-chan time.Time, moved chan<- bool) {
	first := clk.NewTimer(o.conditionsTimeout)
	defer first.Stop()
	second := clk.NewTimer(o.provisionTimeout)
	defer second.Stop()
	// conditionsDue acts on the first deadline and reports whether the
	// wait is over: it is when no conditions have appeared. Once they have,
	// it never is, so the deadline may pass again harmlessly.
	conditionsDue := func() bool {
		if !seen.Load() {
			cancel(ErrNoKEPProvider)
			return true
		}
		return false
	}
	provisionDue := func() {
		if !seen.Load() {
			cancel(ErrNoKEPProvider)
		} else {
			cancel(ErrProvisionTimeout)
		}
	}
	// stop stops timer, dropping a firing not yet received.
	stop := func(timer clock.Timer) {
		if !timer.Stop() {
			select {
			case <-timer.C():
			default:
			}
		}
	}
	// rearm moves timer to fire at at, and reports false, leaving the
	// timer stopped, when at has passed.
	rearm := func(timer clock.Timer, at time.Time) bool {
		stop(timer)
		d := at.Sub(clk.Now())
		if d <= 0 {
			return false
		}
		timer.Reset(d)
		return true
	}
	// fromCreation moves the deadlines to run from created (or converted),
	// and reports whether the wait is over.
	fromCreation := func(created time.Time) bool {
		if !rearm(first, created.Add(o.conditionsTimeout)) && conditionsDue() {
			return true
		}
		if !rearm(second, created.Add(o.provisionTimeout)) {
			provisionDue()
			return true
		}
		return false
	}
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-origin:
			if at.IsZero() { // not a LoadBalancer: no deadline runs
				stop(first)
				stop(second)
				moved <- true
				continue
			}
			move := !at.After(clk.Now()) // a time in the future is clock skew
			over := move && fromCreation(at)
			moved <- move
			if over {
				return
			}
		case <-first.C():
			if conditionsDue() {
				return
			}
		case <-second.C():
			provisionDue()
			return
		}
	}
}
