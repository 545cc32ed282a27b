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
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// Fault annotations: with Options.Faults, a Service asks the provider to
// misbehave in ways a real load balancer does, so that clients and suites
// can be tested against failures (the proposal's test plan asks for a
// provider that fails on purpose, based on annotations). A value that does
// not parse (a delay that is no duration, a stop-writing that is no
// boolean) is ignored, without a word: check the value when a fault does
// not happen.
const (
	// FailAnnotation: provisioning fails in the infrastructure
	// (Serving=False/Infrastructure) with the annotation's value as message.
	// Removing or changing it provisions again, as a spec change does.
	FailAnnotation = "provider.lbstatus.github.io/fail"
	// DelayAnnotation: provisioning takes this long (a Go duration, "45s")
	// instead of Options.ProvisionDelay.
	DelayAnnotation = "provider.lbstatus.github.io/delay"
	// DegradeAnnotation: the load balancer is served degraded in these
	// features (comma-separated LoadBalancerFeature values), besides those
	// the capabilities call for. A feature the Service does not ask for
	// (P5) or requires (R1) is not degraded: the provider never breaks a
	// rule on a fault's account.
	DegradeAnnotation = "provider.lbstatus.github.io/degrade"
	// StopWritingAnnotation: "true" stops every status write for the
	// Service, as a provider that hangs would.
	StopWritingAnnotation = "provider.lbstatus.github.io/stop-writing"
)

// faults are the fault annotations of one Service.
type faults struct {
	fail        string
	delay       time.Duration
	hasDelay    bool
	degrade     []v1.LoadBalancerFeature
	stopWriting bool
}

// faultsOf reads svc's fault annotations; values that do not parse are
// ignored, so that a typo never stops the provider. Without Options.Faults
// there are none.
func (p *Provider) faultsOf(svc *v1.Service) faults {
	if !p.opts.Faults || svc == nil {
		return faults{}
	}
	a := svc.Annotations
	f := faults{fail: strings.TrimSpace(a[FailAnnotation])}
	if d, err := time.ParseDuration(strings.TrimSpace(a[DelayAnnotation])); err == nil && d >= 0 {
		f.delay, f.hasDelay = d, true
	}
	for _, s := range strings.Split(a[DegradeAnnotation], ",") {
		if s = strings.TrimSpace(s); s != "" {
			f.degrade = append(f.degrade, v1.LoadBalancerFeature(s))
		}
	}
	f.stopWriting, _ = strconv.ParseBool(strings.TrimSpace(a[StopWritingAnnotation]))
	return f
}

// degraded returns the degradations of a Ready load balancer: the
// decision's, plus the fault's that the Service asks for and does not
// require.
func degraded(svc *v1.Service, decision conditions.Decision, f faults) []v1.LoadBalancerFeature {
	out := append([]v1.LoadBalancerFeature{}, decision.Degraded...)
	if len(f.degrade) == 0 {
		return out
	}
	required, _, _ := conditions.RequiredFeatures(svc)
	for _, feat := range v1.LoadBalancerFeatures() {
		want := false
		for _, d := range f.degrade {
			want = want || d == feat
		}
		already := false
		for _, d := range out {
			already = already || d == feat
		}
		isRequired := false
		for _, r := range required {
			isRequired = isRequired || r == feat
		}
		if want && !already && !isRequired && conditions.AsksFor(svc, feat) {
			out = append(out, feat)
		}
	}
	slices.SortFunc(out, func(a, b v1.LoadBalancerFeature) int {
		return slices.Index(v1.LoadBalancerFeatures(), a) - slices.Index(v1.LoadBalancerFeatures(), b)
	})
	return out
}
