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

package validation_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/validation"
)

// genOptions draws the gate: on, off, or absent, and on with the
// cross-condition rules.
func genOptions() *rapid.Generator[validation.Options] {
	return rapid.SampledFrom([]validation.Options{on, off, {}, cross})
}

// allEntryPoints runs every entry point on svc and old (DropDisabledFields
// on copies) and returns their results in order.
func allEntryPoints(svc, old *v1.Service, opts validation.Options) []field.ErrorList {
	dropped := svc.DeepCopy()
	validation.DropDisabledFields(dropped, old, opts)
	droppedCreate := svc.DeepCopy()
	validation.DropDisabledFields(droppedCreate, nil, opts)
	return []field.ErrorList{
		validation.ValidateService(svc, opts),
		validation.ValidateServiceUpdate(svc, old, opts),
		validation.ValidateServiceStatusUpdate(svc, old, opts),
		validation.ValidateService(droppedCreate, opts),
		validation.ValidateServiceUpdate(dropped, old, opts),
	}
}

// TestProperties_NoPanics checks no input makes an entry point panic or
// break the error conventions (checkErrorConventions), and that no entry
// point changes its inputs.
func TestProperties_NoPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pair := genOldAndNew().Draw(t, "services")
		svc, old := pair[0], pair[1]
		if rapid.Bool().Draw(t, "nilOld") {
			old = nil
		}
		opts := genOptions().Draw(t, "options")
		svcCopy, oldCopy := svc.DeepCopy(), old.DeepCopy()
		for _, got := range allEntryPoints(svc, old, opts) {
			checkErrorConventions(t, got)
		}
		if !reflect.DeepEqual(svc, svcCopy) || !reflect.DeepEqual(old, oldCopy) {
			t.Fatal("validation changed its input")
		}
	})
}

// TestProperties_Deterministic checks the same input gives the same errors,
// in the same order.
func TestProperties_Deterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pair := genOldAndNew().Draw(t, "services")
		opts := genOptions().Draw(t, "options")
		first := allEntryPoints(pair[0], pair[1], opts)
		second := allEntryPoints(pair[0].DeepCopy(), pair[1].DeepCopy(), opts)
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("two runs differ:\n%v\n%v", first, second)
		}
	})
}

// TestProperties_Ratcheting checks an update never newly rejects data that
// did not change: an unchanged object gives no error at all (so nothing
// ValidateService would not report), and a status write that adds a valid
// condition, or one that changes only status.loadBalancer, is accepted
// whatever the old conditions were.
func TestProperties_Ratcheting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genService().Draw(t, "service")
		opts := genOptions().Draw(t, "options")
		create := validation.ValidateService(x, opts)
		for name, got := range map[string]field.ErrorList{
			"ValidateServiceUpdate(x, x)":       validation.ValidateServiceUpdate(x, x.DeepCopy(), opts),
			"ValidateServiceStatusUpdate(x, x)": validation.ValidateServiceStatusUpdate(x, x.DeepCopy(), opts),
		} {
			for _, err := range got {
				if !containsMatch(create, err) {
					t.Errorf("%s reports %v, which ValidateService(x) does not", name, err)
				}
			}
			if len(got) != 0 {
				t.Errorf("%s = %v, want no errors", name, got)
			}
		}

		// A provider's valid write on top of whatever was there, under
		// types the old object does not use.
		y := x.DeepCopy()
		for _, c := range genValidKEPConditions(x.Generation).Draw(t, "provider") {
			if !hasConditionType(x, c.Type) {
				y.Status.Conditions = append(y.Status.Conditions, c)
			}
		}
		// The cross-condition rules judge the write against the spec and
		// the ingress (L4, P5, P6), which a valid set of conditions alone
		// does not satisfy.
		plain := opts
		plain.CrossConditionRules = false
		if got := validation.ValidateServiceStatusUpdate(y, x, plain); len(got) != 0 {
			t.Errorf("a valid status write on top of old conditions is rejected: %v", got)
		}

		// A write of status.loadBalancer alone, which really changes it:
		// whatever the old conditions, none of them changed, so none is
		// judged again (ratcheting is per condition, not per status).
		z := x.DeepCopy()
		z.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: fmt.Sprintf("192.0.2.%d", rapid.IntRange(1, 254).Draw(t, "ip"))}}
		if reflect.DeepEqual(z.Status.LoadBalancer, x.Status.LoadBalancer) {
			z.Status.LoadBalancer.Ingress = append(z.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{Hostname: "lb.example"})
		}
		if got := validation.ValidateServiceStatusUpdate(z, x, opts); len(got) != 0 {
			t.Errorf("a write of status.loadBalancer alone is rejected: %v", got)
		}
	})
}

func hasConditionType(svc *v1.Service, typ string) bool {
	for _, c := range svc.Status.Conditions {
		if c.Type == typ {
			return true
		}
	}
	return false
}

// containsMatch reports whether list holds an error matching err by type
// and field.
func containsMatch(list field.ErrorList, err *field.Error) bool {
	for _, e := range list {
		if matcher.Matches(err, e) {
			return true
		}
	}
	return false
}

// TestProperties_DifferentialUpstream checks every condition list
// apimachinery's metav1validation.ValidateConditions rejects is rejected by
// this package too, with each of upstream's errors, gate on, on
// create and on a status write from a Service whose conditions share
// nothing with the new ones.
func TestProperties_DifferentialUpstream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		conds := genConditions().Draw(t, "conditions")
		// With the gate off no condition is validated (R5).
		opts := rapid.SampledFrom([]validation.Options{on, cross}).Draw(t, "options")
		upstream := metav1validation.ValidateConditions(conds, field.NewPath("status", "conditions"))
		svc := service(withConditions(conds...))
		old := service(withConditions(genValidKEPConditions(generation).Draw(t, "oldConditions")...))
		for _, c := range conds {
			if hasConditionType(old, c.Type) {
				// Keep old unrelated: no condition of new may be one of
				// old's.
				old.Status.Conditions = nil
				break
			}
		}
		for name, ours := range map[string]field.ErrorList{
			"ValidateService":             validation.ValidateService(svc, opts),
			"ValidateServiceStatusUpdate": validation.ValidateServiceStatusUpdate(svc, old, opts),
		} {
			if len(upstream) != 0 && len(ours) == 0 {
				t.Fatalf("%s accepts conditions upstream rejects: %v", name, upstream)
			}
			for _, err := range upstream {
				// Upstream's origins are its own ("minimum", or none);
				// ours name the rule, C5.
				if !containsMatch(ours, err.WithOrigin(validation.OriginC5)) {
					t.Errorf("%s misses upstream's %v", name, err)
				}
			}
		}
	})
}

// TestProperties_R5 checks that, with the gate off, what
// DropDisabledFields leaves is never rejected for the gate: no error on a
// create after the drop, and on an update only errors validation would also
// give with the gate on.
func TestProperties_R5(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pair := genOldAndNew().Draw(t, "services")
		svc, old := pair[0], pair[1]
		created := svc.DeepCopy()
		validation.DropDisabledFields(created, nil, off)
		if len(created.Spec.RequiredLoadBalancerFeatures) != 0 {
			t.Fatalf("create kept %v with the gate off", created.Spec.RequiredLoadBalancerFeatures)
		}
		if got := validation.ValidateService(created, off).Filter(under("status")); len(got) != 0 {
			t.Errorf("spec rejected after the drop: %v", got)
		}
		updated := svc.DeepCopy()
		validation.DropDisabledFields(updated, old, off)
		gateOnErrs := validation.ValidateServiceUpdate(updated, old, on)
		for _, err := range validation.ValidateServiceUpdate(updated, old, off).Filter(under("status")) {
			if !containsMatch(gateOnErrs, err) {
				t.Errorf("gate off rejects what DropDisabledFields kept: %v", err)
			}
		}
	})
}

// degradedReasonItems are the items genMultiple builds a Multiple message
// from: well-known reasons, spaced and not, a provider's own, and empty.
var degradedReasonItems = []string{
	"PortsNotSupported", " PortsNotSupported ", "SessionAffinityNotSupported", "IPFamiliesNotSupported",
	"LoadBalancerIPNotSupported", "ExternalTrafficPolicyNotSupported", "LoadBalancerSourceRangesNotSupported",
	"Multiple", "SlowDisks", "",
}

// genMultiple draws a LoadBalancerDegraded=True condition with reason
// Multiple whose message lists reasons, repeats included (G2).
func genMultiple() *rapid.Generator[metav1.Condition] {
	return rapid.Custom(func(t *rapid.T) metav1.Condition {
		items := rapid.SliceOfN(rapid.SampledFrom(degradedReasonItems), 0, 12).Draw(t, "items")
		c := degradedPorts
		c.Reason = string(v1.LoadBalancerReasonMultiple)
		c.Message = strings.Join(items, ",") + ": " + rapid.SampledFrom(messages).Draw(t, "text")
		return c
	})
}

// TestProperties_NoExactDuplicates checks no entry point reports the same
// error twice (field.ErrorMatcher.Test calls that a bug): each problem is
// one error, however often a list repeats it. An error on a condition's
// message carries the whole message, so a repeat per listed reason would
// also make the answer grow with the square of the message.
func TestProperties_NoExactDuplicates(t *testing.T) {
	exactly := field.ErrorMatcher{}.Exactly()
	rapid.Check(t, func(t *rapid.T) {
		pair := genOldAndNew().Draw(t, "services")
		svc, old := pair[0], pair[1]
		if rapid.Bool().Draw(t, "multiple") {
			svc.Status.Conditions = append(svc.Status.Conditions, genMultiple().Draw(t, "degraded"))
		}
		opts := rapid.SampledFrom([]validation.Options{on, off, cross}).Draw(t, "options")
		for i, got := range allEntryPoints(svc, old, opts) {
			seen := map[string]bool{}
			for _, e := range got {
				key := exactly.Render(e)
				if seen[key] {
					t.Fatalf("entry point %d reports twice: %s", i, key)
				}
				seen[key] = true
			}
		}
	})
}
