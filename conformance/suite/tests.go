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
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// testRun is one test's context: its namespace, its watch, the options.
type testRun struct {
	ctx    context.Context
	client kubernetes.Interface
	opts   Options
	ns     string
	tr     *tracker
	test   Test
	field  *requiredField // shared by the run's tests
}

// served is how a provider ended with a Service.
type served string

const (
	servedNone     served = ""
	servedPlain    served = "served"
	servedDegraded served = "served degraded"
	servedRefused  served = "refused"
)

// outcome is what a passed Feature/<F> test showed: how the provider
// ended with the Service asking for F, and with the one requiring it.
type outcome struct {
	asked, required served
	// requiredSkipped says why the required half did not run.
	requiredSkipped string
}

// support derives a feature's support from its test (section 9). A test
// that did not pass claims nothing.
func support(t Test, rep TestReport, out outcome) FeatureReport {
	fr := FeatureReport{Name: t.Feature, Support: SupportUntested, Evidence: t.Name}
	switch {
	case rep.Result != TestPassed:
		fr.Evidence = fmt.Sprintf("%s %s: %s", t.Name, rep.Result, rep.Reason)
	case out.required == servedPlain:
		fr.Support = SupportSupported
	case out.required == servedRefused && out.asked == servedRefused:
		fr.Support = SupportRefused
	case out.required == servedRefused:
		// Served (degraded or not) when asked, refused when required:
		// the provider does not promise the feature.
		fr.Support = SupportDegraded
	case out.asked == servedRefused:
		fr.Support = SupportRefused
	default:
		fr.Evidence = fmt.Sprintf("%s: %s", t.Name, out.requiredSkipped)
	}
	return fr
}

// service returns a LoadBalancer Service of the test's class with one TCP
// port; mutate, when not nil, changes it further.
func (r *testRun) service(name string, mutate func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.ns},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: map[string]string{"app": "lbstatus-conformance"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	if r.opts.LoadBalancerClass != "" {
		svc.Spec.LoadBalancerClass = ptr.To(r.opts.LoadBalancerClass)
	}
	if mutate != nil {
		mutate(svc)
	}
	return svc
}

// requiredField is whether a run's cluster keeps
// spec.requiredLoadBalancerFeatures, found once, by the first test that
// requires a feature, and how the run's tests required features.
type requiredField struct {
	once sync.Once
	kept bool

	mu     sync.Mutex
	source conditions.RequiredFeaturesSource
}

// used records how a test required a feature.
func (f *requiredField) used(source conditions.RequiredFeaturesSource) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.source = source
}

// usedSource returns how the run's tests required features; none when no
// test required one.
func (f *requiredField) usedSource() conditions.RequiredFeaturesSource {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.source
}

// fieldKept reports whether the cluster keeps
// spec.requiredLoadBalancerFeatures: a Service that requires
// SessionAffinity through it, created with dryRun, comes back with it. A
// stock kube-apiserver prunes the field, one with the feature gate off
// drops it (R5), and a clientset without a REST client (client-go's fake)
// cannot send it; a refusal of any kind counts as not kept.
func (r *testRun) fieldKept() bool {
	r.field.once.Do(func() {
		services, ok := conditions.RESTServicesOf(r.client.CoreV1(), r.ns)
		if !ok {
			return
		}
		probe := v1.FromCore(r.service("required-field-probe", r.asks(v1.LoadBalancerFeatureSessionAffinity, false)))
		probe.Spec.RequiredLoadBalancerFeatures = []v1.LoadBalancerFeature{v1.LoadBalancerFeatureSessionAffinity}
		ctx, cancel := r.opts.request(r.ctx)
		defer cancel()
		// fieldValidation=Ignore: a stock server would warn of an
		// unknown field, and client-go would log the warning.
		got, err := services.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Ignore"})
		r.field.kept = err == nil && len(got.Spec.RequiredLoadBalancerFeatures) > 0
	})
	return r.field.kept
}

// createRequiring creates svc requiring features, as section 9 asks:
// through spec.requiredLoadBalancerFeatures where the cluster keeps it,
// else through the annotation.
func (r *testRun) createRequiring(svc *corev1.Service, features ...v1.LoadBalancerFeature) error {
	services, ok := conditions.RESTServicesOf(r.client.CoreV1(), r.ns)
	if !ok || !r.fieldKept() {
		r.field.used(conditions.RequiredFeaturesSourceAnnotation)
		conditions.SetRequiredFeaturesAnnotation(svc, features...)
		return r.create(svc)
	}
	r.field.used(conditions.RequiredFeaturesSourceSpec)
	withField := v1.FromCore(svc)
	withField.Spec.RequiredLoadBalancerFeatures = features
	ctx, cancel := r.opts.request(r.ctx)
	defer cancel()
	if _, err := services.Create(ctx, withField, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Service %s: %w", svc.Name, err)
	}
	return nil
}

func (r *testRun) create(svc *corev1.Service) error {
	ctx, cancel := r.opts.request(r.ctx)
	defer cancel()
	if _, err := r.client.CoreV1().Services(r.ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Service %s: %w", svc.Name, err)
	}
	return nil
}

// update changes the Service name as mutate says, on its latest version,
// and returns the Service the update made.
func (r *testRun) update(name string, mutate func(*corev1.Service)) (*corev1.Service, error) {
	services := r.client.CoreV1().Services(r.ns)
	var updated *corev1.Service
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ctx, cancel := r.opts.request(r.ctx)
		defer cancel()
		svc, err := services.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(svc)
		updated, err = services.Update(ctx, svc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("updating Service %s: %w", name, err)
	}
	return updated, nil
}

// hasConditions: the provider has written Serving or Provisioning.
func hasConditions(svc *v1.Service) bool {
	return svc != nil && conditions.Acknowledged(svc.Status.Conditions)
}

// settled: the provider finished trying (L2): Provisioning=False, and
// Serving False, or True with an address (L4).
func settled(svc *v1.Service) bool {
	if svc == nil || !conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) {
		return false
	}
	switch {
	case conditions.IsFalse(svc.Status.Conditions, v1.LoadBalancerConditionServing):
		return true
	case conditions.IsTrue(svc.Status.Conditions, v1.LoadBalancerConditionServing):
		return conditions.HasAddress(svc.Status.LoadBalancer.Ingress)
	}
	return false
}

// await waits for the first conditions within L8's deadline, then for the
// provider to finish trying within the provisioning deadline, and returns
// the Service as it then was.
func (r *testRun) await(name string) (*v1.Service, error) {
	if _, err := r.tr.wait(r.ctx, name, r.opts.ConditionsTimeout, hasConditions); err != nil {
		return nil, r.explain(err, fmt.Sprintf("no Serving or Provisioning condition on %s within %s of its creation (L1, L8)", name, r.opts.ConditionsTimeout))
	}
	svc, err := r.tr.wait(r.ctx, name, r.opts.ProvisionTimeout, settled)
	if err != nil {
		return nil, r.explain(err, fmt.Sprintf("%s did not settle within %s (L2): last status %s", name, r.opts.ProvisionTimeout, describe(svc)))
	}
	return svc, nil
}

// explain turns a wait's error into the test's: a violation stays one (the
// report names it), a deadline becomes msg.
func (r *testRun) explain(err error, msg string) error {
	switch {
	case errors.Is(err, errViolation):
		return err
	case errors.Is(err, context.DeadlineExceeded) && r.ctx.Err() == nil:
		if werr := r.tr.watchError(); werr != nil {
			// Seen only at the relists between failed watches, the
			// provider may have written in time.
			return fmt.Errorf("%s, but Services could not be watched, so what the provider wrote since the last list is not known: %w", msg, werr)
		}
		return errors.New(msg)
	}
	return err
}

// finalizersOf returns the finalizers of svc, nil for none or no Service.
func finalizersOf(svc *v1.Service) []string {
	if svc == nil {
		return nil
	}
	return svc.Finalizers
}

// describe summarizes a Service's conditions for a message.
func describe(svc *v1.Service) string {
	if svc == nil {
		return "(not observed)"
	}
	out := ""
	for _, c := range svc.Status.Conditions {
		out += fmt.Sprintf("%s=%s/%s ", c.Type, c.Status, c.Reason)
	}
	if out == "" {
		return "(no conditions)"
	}
	return out[:len(out)-1]
}

// classify says how the provider ended with a settled Service, for the
// feature f ("" for none). Infrastructure failures are errors (T2).
func classify(svc *v1.Service, f v1.LoadBalancerFeature) (served, error) {
	serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing)
	if serving.Status == metav1.ConditionFalse {
		if serving.Reason == string(v1.LoadBalancerReasonUnsupported) {
			return servedRefused, nil
		}
		return servedNone, fmt.Errorf("%s failed: Serving=False/%s: %s (T2)", svc.Name, serving.Reason, serving.Message)
	}
	if reason, ok := v1.DegradedReason(f); ok && slices.Contains(conditions.DegradedReasons(svc.Status.Conditions), reason) {
		return servedDegraded, nil
	}
	return servedPlain, nil
}

// honored checks what a status can show of a feature served without
// degradation: a requested loadBalancerIP is among the ingress addresses
// (P3: a provider that cannot honor it says so). The other features'
// effects are in the data plane, which a status does not show.
func honored(svc *v1.Service, f v1.LoadBalancerFeature, how served) error {
	if f != v1.LoadBalancerFeatureLoadBalancerIP || how != servedPlain {
		return nil
	}
	want := svc.Spec.LoadBalancerIP
	var got []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.IP == want {
			return nil
		}
		got = append(got, cmp.Or(in.IP, in.Hostname))
	}
	return fmt.Errorf("%s is served without a LoadBalancerIPNotSupported degradation, but at %v, not at the requested %s (P3)", svc.Name, got, want)
}

// basic: one TCP port, nothing required, served (L1, L2, L4, L8).
func (r *testRun) basic() (outcome, error) {
	if err := r.create(r.service("basic", nil)); err != nil {
		return outcome{}, err
	}
	svc, err := r.await("basic")
	if err != nil {
		return outcome{}, err
	}
	got, err := classify(svc, "")
	if err != nil {
		return outcome{}, err
	}
	if got == servedRefused {
		return outcome{}, skipf("the provider refused a Service with one TCP port (T1): %s",
			conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing).Message)
	}
	// Section 9 names the reason too: a client waits for Complete.
	if reason := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning).Reason; reason != string(v1.LoadBalancerReasonComplete) {
		return outcome{}, fmt.Errorf("basic is served, but LoadBalancerProvisioning=False has reason %q, not %s, which a client waits for (L2, C3)",
			reason, v1.LoadBalancerReasonComplete)
	}
	return outcome{}, nil
}

// asks makes svc ask for feature f; second says svc is the test's second
// Service, which asks for another address than the first.
func (r *testRun) asks(f v1.LoadBalancerFeature, second bool) func(*corev1.Service) {
	return func(svc *corev1.Service) {
		spec := &svc.Spec
		switch f {
		case v1.LoadBalancerFeatureIPFamilies:
			spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
			spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		case v1.LoadBalancerFeaturePorts:
			spec.Ports = append(spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(5353)})
		case v1.LoadBalancerFeatureSessionAffinity:
			spec.SessionAffinity = corev1.ServiceAffinityClientIP
		case v1.LoadBalancerFeatureLoadBalancerIP:
			spec.LoadBalancerIP = r.opts.LoadBalancerIP
			if a, err := netip.ParseAddr(r.opts.LoadBalancerIP); err == nil && second {
				spec.LoadBalancerIP = a.Next().String()
			}
		case v1.LoadBalancerFeatureExternalTrafficPolicy:
			spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		case v1.LoadBalancerFeatureLoadBalancerSourceRanges:
			spec.LoadBalancerSourceRanges = []string{"192.0.2.0/24"}
		}
	}
}

// feature: a Service asking for F, and one requiring it (P3, P4, P5, R1,
// P6). Both run at once.
func (r *testRun) feature() (outcome, error) {
	f := r.test.Feature
	asked := r.service("asks", r.asks(f, false))
	if err := r.create(asked); err != nil {
		if f == v1.LoadBalancerFeatureIPFamilies && apierrors.IsInvalid(err) {
			return outcome{}, skipf("the cluster cannot create a dual-stack Service: %v", err)
		}
		return outcome{}, err
	}
	var out outcome
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() {
		svc, err := r.await("asks")
		if err == nil {
			out.asked, err = classify(svc, f)
		}
		if err == nil {
			err = honored(svc, f, out.asked)
		}
		errs[0] = err
	})
	if r.opts.NoRequiredFeatures {
		out.requiredSkipped = "the provider reads neither spec.requiredLoadBalancerFeatures nor " + v1.RequiredFeaturesAnnotation
	} else {
		if err := r.createRequiring(r.service("requires", r.asks(f, true)), f); err != nil {
			wg.Wait()
			return outcome{}, err
		}
		wg.Go(func() {
			svc, err := r.await("requires")
			if err == nil {
				out.required, err = classify(svc, f)
				if out.required == servedDegraded {
					err = fmt.Errorf("requires serves %s degraded in the required feature %s (P6, R1)", describe(svc), f)
				}
			}
			if err == nil {
				err = honored(svc, f, out.required)
			}
			errs[1] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		if errors.Is(err, errViolation) {
			return outcome{}, errViolation
		}
		return outcome{}, err
	}
	if out.asked == servedRefused {
		if err := r.plainServed("asks", string(f)); err != nil {
			return outcome{}, err
		}
	}
	return out, nil
}

// plainServed returns nil when the provider takes on plain, a Service
// that asks for nothing, and a skip when it refuses it: a refusal of
// refused, a Service that asks for what, is what's only if the provider
// takes on the same Service without it, and one that refuses every
// Service of the cluster (its IP family, TCP) says nothing about what
// (T1). Taking on is enough, served or not: a provisioning under way
// (Provisioning=True), or one that failed, is no refusal, and how long
// provisioning takes is Basic's to judge (L2).
func (r *testRun) plainServed(refused, what string) error {
	if err := r.create(r.service("plain", nil)); err != nil {
		return err
	}
	if _, err := r.tr.wait(r.ctx, "plain", r.opts.ConditionsTimeout, hasConditions); err != nil {
		return r.explain(err, fmt.Sprintf("no Serving or Provisioning condition on plain within %s of its creation (L1, L8)", r.opts.ConditionsTimeout))
	}
	decided := func(s *v1.Service) bool {
		return s != nil && (settled(s) || conditions.IsTrue(s.Status.Conditions, v1.LoadBalancerConditionProvisioning))
	}
	svc, err := r.tr.wait(r.ctx, "plain", r.opts.ProvisionTimeout, decided)
	if err != nil {
		return r.explain(err, fmt.Sprintf("plain neither settled nor started provisioning within %s (L1, L2): last status %s", r.opts.ProvisionTimeout, describe(svc)))
	}
	if serving := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing); serving != nil &&
		serving.Status == metav1.ConditionFalse && serving.Reason == string(v1.LoadBalancerReasonUnsupported) {
		return skipf("the provider refused plain, a Service that asks for nothing, too (T1): %s; its refusal of %s says nothing about %s",
			serving.Message, refused, what)
	}
	return nil
}

// unknownRequired: a Service requiring a feature no provider knows is
// refused (R2): through the spec field where the cluster keeps it and
// takes the value, else through the annotation.
func (r *testRun) unknownRequired() (outcome, error) {
	if r.opts.NoRequiredFeatures {
		return outcome{}, skipf("the provider reads neither spec.requiredLoadBalancerFeatures nor %s", v1.RequiredFeaturesAnnotation)
	}
	err := r.createRequiring(r.service("unknown", nil), UnknownFeature)
	if apierrors.IsInvalid(err) && r.fieldKept() {
		// A cluster that keeps the field validates it (R4): no Service
		// requires through it a value the cluster does not know, which
		// a provider older than the cluster still may not know. The
		// annotation, which R4 does not judge, stands in for that.
		svc := r.service("unknown", nil)
		conditions.SetRequiredFeaturesAnnotation(svc, UnknownFeature)
		err = r.create(svc)
	}
	if err != nil {
		if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) {
			// Refused before any provider sees it, as deploy/admission's
			// policies (R4) do: the provider cannot be tested here.
			return outcome{}, skipf("the cluster refuses a Service requiring the unknown feature %s: %v", UnknownFeature, err)
		}
		return outcome{}, err
	}
	got, err := r.await("unknown")
	if err != nil {
		return outcome{}, err
	}
	if how, err := classify(got, ""); err != nil {
		// A failure where R2 asks for a refusal: R2's to report, not T2's.
		serving := conditions.Get(got.Status.Conditions, v1.LoadBalancerConditionServing)
		return outcome{}, failf("a Service requiring the unknown feature %s failed (Serving=False/%s: %s), not refused as Unsupported (R2)", UnknownFeature, serving.Reason, serving.Message)
	} else if how != servedRefused {
		return outcome{}, failf("a Service requiring the unknown feature %s was %s, not refused (R2)", UnknownFeature, how)
	}
	return outcome{}, r.plainServed("unknown", "the unknown feature "+string(UnknownFeature))
}

// specChange: after Serving, adding a port is acknowledged by the next
// write (L6), and the provider settles again.
func (r *testRun) specChange() (outcome, error) {
	if err := r.create(r.service("change", nil)); err != nil {
		return outcome{}, err
	}
	svc, err := r.await("change")
	if err != nil {
		return outcome{}, err
	}
	if how, err := classify(svc, ""); err != nil {
		return outcome{}, err
	} else if how == servedRefused {
		return outcome{}, skipf("the provider refused a Service with one TCP port (T1)")
	}
	changed, err := r.update("change", func(s *corev1.Service) {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "alt", Port: 8443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8443)})
	})
	if err != nil {
		return outcome{}, err
	}
	// What a client's Wait with WithSpecChange waits for: a write after
	// the change (an observation with the new port) that moved
	// Provisioning past the status the change was made on. A write the
	// provider made after await returned, but before the change, answers
	// nothing.
	before := v1.FromCoreShallow(changed)
	last, err := r.tr.wait(r.ctx, "change", r.opts.ProvisionTimeout, func(s *v1.Service) bool {
		return s != nil && len(s.Spec.Ports) == len(changed.Spec.Ports) && conditions.ChangeSeen(before, s)
	})
	if err != nil {
		return outcome{}, r.explain(err, fmt.Sprintf("no write acknowledged the new port within %s: Provisioning's lastTransitionTime stayed %s (L6); last status %s",
			r.opts.ProvisionTimeout, provisioningSince(before).UTC().Format(time.RFC3339), describe(last)))
	}
	if _, err := r.tr.wait(r.ctx, "change", r.opts.ProvisionTimeout, func(s *v1.Service) bool { return s != nil && settled(s) }); err != nil {
		return outcome{}, r.explain(err, fmt.Sprintf("change did not settle within %s after its spec changed (L2)", r.opts.ProvisionTimeout))
	}
	return outcome{}, nil
}

// provisioningSince is the lastTransitionTime of svc's Provisioning, zero
// without one.
func provisioningSince(svc *v1.Service) time.Time {
	if c := conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning); c != nil {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// foreignClass: a Service of a class the provider does not handle gets no
// conditions and no ingress (P1), while a Service of the provider's own,
// created after it, gets its conditions (L8): else the silence shows no
// more than that no provider is running, and the test is skipped. The
// settling period starts once the provider has written on its own
// Service: it has seen the foreign one by then, and a provider slower
// than the period would otherwise pass on a silence that only showed it
// had not got there yet.
func (r *testRun) foreignClass() (outcome, error) {
	svc := r.service("foreign", func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To(ForeignClass) })
	if err := r.create(svc); err != nil {
		return outcome{}, err
	}
	var ownErr error
	if err := r.create(r.service("own", nil)); err != nil {
		return outcome{}, err
	} else if _, err := r.tr.wait(r.ctx, "own", r.opts.ConditionsTimeout, hasConditions); err != nil {
		ownErr = r.explain(err, fmt.Sprintf("the provider wrote no Serving or Provisioning condition on own, a Service of its own class, within %s (L8): "+
			"that it left foreign alone shows nothing (P1)", r.opts.ConditionsTimeout))
		if errors.Is(ownErr, errViolation) || r.ctx.Err() != nil {
			return outcome{}, ownErr
		}
		ownErr = skipError{ownErr.Error()}
	}
	// Every write on foreign since its creation is judged; without a
	// provider at work, what was written so far.
	period := r.opts.SettlePeriod
	if ownErr != nil {
		period = 0
	}
	bad, err := r.tr.hold(r.ctx, "foreign", period, func(s *v1.Service) bool {
		return conditions.HasKEPConditions(s.Status.Conditions) || len(s.Status.LoadBalancer.Ingress) > 0
	})
	switch {
	case err != nil:
		return outcome{}, err
	case bad != nil:
		return outcome{}, failf("the provider wrote status on a Service of class %s, which it does not handle (P1): %s", ForeignClass, describe(bad))
	case ownErr == nil && r.tr.watchError() != nil:
		// Seen only at the relists between failed watches, a silence
		// shows nothing.
		return outcome{}, fmt.Errorf("foreign got no status for %s, but Services could not be watched, so what the provider wrote since the last list is not known (P1): %w",
			period, r.tr.watchError())
	}
	return outcome{}, ownErr
}

// typeChange: LoadBalancer to ClusterIP removes the conditions and the
// ingress, with the load balancer (L9).
func (r *testRun) typeChange() (outcome, error) {
	if err := r.create(r.service("retype", nil)); err != nil {
		return outcome{}, err
	}
	if _, err := r.await("retype"); err != nil {
		return outcome{}, err
	}
	if _, err := r.update("retype", func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeClusterIP
		s.Spec.LoadBalancerClass = nil
		s.Spec.AllocateLoadBalancerNodePorts = nil
		s.Spec.ExternalTrafficPolicy = ""
		s.Spec.LoadBalancerSourceRanges = nil
		for i := range s.Spec.Ports {
			s.Spec.Ports[i].NodePort = 0
		}
	}); err != nil {
		return outcome{}, err
	}
	// The conditions go together with the load balancer (L9): once the
	// provider has taken it down, which takes as long as provisioning.
	// L8's deadline for the first conditions is no bound.
	last, err := r.tr.wait(r.ctx, "retype", r.opts.ProvisionTimeout, func(s *v1.Service) bool {
		return s != nil && s.Spec.Type == corev1.ServiceTypeClusterIP && conditions.Released(s)
	})
	if err != nil {
		return outcome{}, r.explain(err, fmt.Sprintf("the conditions or the ingress were still there %s after the Service became ClusterIP (L9): %s", r.opts.ProvisionTimeout, describe(last)))
	}
	return outcome{}, nil
}

// recreate: a Service deleted and created again under the same name gets
// conditions of its own, not older than itself (C6, C7 per uid). Fresh
// conditions are told from a copy by the provider's own clock, not the
// apiserver's, which may run ahead of or behind it: each is later than
// every condition the provider wrote on the old object.
func (r *testRun) recreate() (outcome, error) {
	if err := r.create(r.service("again", nil)); err != nil {
		return outcome{}, err
	}
	old, err := r.await("again")
	if err != nil {
		return outcome{}, err
	}
	firstUID := old.UID
	ctx, cancel := r.opts.request(r.ctx)
	defer cancel()
	if err := r.client.CoreV1().Services(r.ns).Delete(ctx, "again", metav1.DeleteOptions{}); err != nil {
		return outcome{}, fmt.Errorf("deleting Service again: %w", err)
	}
	// The old object goes once the provider has taken its load balancer
	// down (the load-balancer-cleanup finalizer), which takes as long as
	// provisioning: L8's deadline for the first conditions is no bound.
	// Its last write before it went is what the new one is compared with.
	if last, err := r.tr.wait(r.ctx, "again", r.opts.ProvisionTimeout, func(s *v1.Service) bool {
		if s != nil && s.UID == firstUID {
			old = s
			return false
		}
		return true
	}); err != nil {
		return outcome{}, r.explain(err, fmt.Sprintf("Service again was still there %s after its deletion (finalizers %v): the provider did not take its load balancer down",
			r.opts.ProvisionTimeout, finalizersOf(last)))
	}
	var oldLatest metav1.Time // the old object's latest lastTransitionTime
	for _, c := range old.Status.Conditions {
		if oldLatest.Before(&c.LastTransitionTime) {
			oldLatest = c.LastTransitionTime
		}
	}
	// The provider wrote on the old object before it went: a second
	// later, what it writes on the new one has a later second on its own
	// clock, whatever that clock's offset from the apiserver's; a copy
	// has not. A stamp may run ahead of the provider's clock (one in the
	// second of the one before moves a second on, C7), and its clock
	// ahead of this one: the pause also lasts until this clock has passed
	// the old object's latest second, within ConditionsTimeout. An
	// interrupt ends the pause.
	wait := time.Second
	if ahead := time.Until(oldLatest.Add(time.Second)); ahead > wait {
		wait = min(ahead, r.opts.ConditionsTimeout)
	}
	pause := time.NewTimer(wait)
	defer pause.Stop()
	select {
	case <-pause.C:
	case <-r.ctx.Done():
		return outcome{}, fmt.Errorf("waiting to create Service again: %w", r.ctx.Err())
	}
	if err := r.create(r.service("again", nil)); err != nil {
		return outcome{}, err
	}
	second, err := r.await("again")
	if err != nil {
		return outcome{}, err
	}
	if second.UID == firstUID {
		return outcome{}, failf("the Service created again has the old uid %s", firstUID)
	}
	for _, c := range second.Status.Conditions {
		if !oldLatest.Before(&c.LastTransitionTime) {
			return outcome{}, failf("the new Service again carries %s with lastTransitionTime %s, no later than the old object's %s: a stale copy of the old object's (C6, C7)",
				c.Type, c.LastTransitionTime.UTC().Format(time.RFC3339), oldLatest.UTC().Format(time.RFC3339))
		}
	}
	return outcome{}, nil
}
