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
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/clock"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

var (
	// ErrNoKEPProvider is returned by Wait when neither LoadBalancerServing
	// nor LoadBalancerProvisioning appeared before the first deadline of L8:
	// no KEP-aware provider handles the Service. A provider that predates
	// the KEP may still serve it; the Service Wait returns tells.
	ErrNoKEPProvider = errors.New("no KEP-aware provider handles the service")
	// ErrProvisionTimeout is returned by Wait when the conditions appeared
	// but the verdict was still Pending at the second deadline of L8.
	ErrProvisionTimeout = errors.New("the load balancer was not provisioned in time")
	// ErrServiceDeleted is returned by Wait when the Service is deleted
	// before the verdict is final.
	ErrServiceDeleted = errors.New("the service was deleted")
)

// Wait watches the Service namespace/name through client until its verdict
// for feature ("" for none) is final (Ready, Skip or Fail, see Evaluate),
// and returns the last Service it saw with that verdict. It relies on
// client-go's UntilWithSync: a watch that ends, fails or expires is resumed
// or relisted, so Wait survives apiserver restarts and "resource version
// too old". The Service need not exist yet when Wait starts.
//
// The deadlines of L8 run from Wait's start: ConditionsTimeout (default
// 30 s) for LoadBalancerServing or LoadBalancerProvisioning to appear, else
// ErrNoKEPProvider; ProvisionTimeout (default 15 minutes) for the verdict
// to become final, else ErrProvisionTimeout. On either, the verdict is Fail
// by rule T2 and the error wraps the sentinel. The clock of WithClock
// drives the deadlines when it is a clock.Clock. Progress sees every
// observation.
//
// Other errors: ErrServiceDeleted; the context's error, with the last
// verdict, when ctx ends first; a nil client. The returned Service is nil
// when none was seen.
func Wait(ctx context.Context, client kubernetes.Interface, namespace, name string, feature v1.LoadBalancerFeature, opts ...Option) (*v1.Service, Verdict, error) {
	if client == nil {
		return nil, Evaluate(nil, feature), errors.New("client is nil")
	}
	o := makeOptions(opts)
	clk, ok := o.clock.(clock.Clock)
	if !ok {
		clk = clock.RealClock{}
	}

	waitCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var seenConditions atomic.Bool
	go deadlines(waitCtx, cancel, clk, o.conditionsTimeout, o.provisionTimeout, &seenConditions)

	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	services := client.CoreV1().Services(namespace)
	// The wrapper keeps what the client says about watch-list support, so
	// that a client without it (the fake clientset) gets a plain list.
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			options.FieldSelector = selector
			return services.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			options.FieldSelector = selector
			return services.Watch(ctx, options)
		},
	}, client)

	var last *v1.Service
	verdict := Evaluate(nil, feature)
	_, err := watchtools.UntilWithSync(waitCtx, lw, &corev1.Service{}, nil, func(event watch.Event) (bool, error) {
		svc, ok := event.Object.(*corev1.Service)
		if !ok || svc.Name != name || svc.Namespace != namespace {
			return false, nil
		}
		if event.Type == watch.Deleted {
			return false, ErrServiceDeleted
		}
		last = v1.FromCore(svc)
		conds := last.Status.Conditions
		if Get(conds, v1.LoadBalancerConditionServing) != nil || Get(conds, v1.LoadBalancerConditionProvisioning) != nil {
			seenConditions.Store(true)
		}
		verdict = Evaluate(last, feature)
		if o.progress != nil {
			o.progress(last, verdict)
		}
		return verdict.Result.IsFinal(), nil
	})
	if err == nil {
		return last, verdict, nil
	}
	switch cause := context.Cause(waitCtx); {
	case errors.Is(err, ErrServiceDeleted):
		return last, verdict, err
	case errors.Is(cause, ErrNoKEPProvider):
		return last, Verdict{Result: ResultFail, Rule: "T2", Feature: feature,
				Reason: fmt.Sprintf("no KEP-aware provider: neither LoadBalancerServing nor LoadBalancerProvisioning appeared within %s (L8)", o.conditionsTimeout)},
			fmt.Errorf("service %s/%s: %w within %s", namespace, name, ErrNoKEPProvider, o.conditionsTimeout)
	case errors.Is(cause, ErrProvisionTimeout):
		return last, Verdict{Result: ResultFail, Rule: "T2", Feature: feature,
				Reason: fmt.Sprintf("the verdict was still pending after %s (L8): %s", o.provisionTimeout, verdict.Reason)},
			fmt.Errorf("service %s/%s: %w: still pending after %s", namespace, name, ErrProvisionTimeout, o.provisionTimeout)
	case ctx.Err() != nil:
		return last, verdict, ctx.Err()
	default:
		return last, verdict, fmt.Errorf("service %s/%s: %w", namespace, name, err)
	}
}

// deadlines cancels ctx with ErrNoKEPProvider or ErrProvisionTimeout when
// the corresponding deadline of L8 passes, and returns when ctx ends.
func deadlines(ctx context.Context, cancel context.CancelCauseFunc, clk clock.Clock, conditionsTimeout, provisionTimeout time.Duration, seen *atomic.Bool) {
	first := clk.NewTimer(conditionsTimeout)
	defer first.Stop()
	second := clk.NewTimer(provisionTimeout)
	defer second.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-first.C():
			if !seen.Load() {
				cancel(ErrNoKEPProvider)
				return
			}
		case <-second.C():
			if !seen.Load() {
				cancel(ErrNoKEPProvider)
			} else {
				cancel(ErrProvisionTimeout)
			}
			return
		}
	}
}
