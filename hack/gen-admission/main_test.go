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
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestGenerate_FollowsTheTables: every (type, reason) pair of the reason
// table is in C3's map with its status, and every feature has a P5 and a
// P6 rule and is an allowed annotation value. The real-apiserver tests in
// integration/admission_test.go judge what the CEL does.
func TestGenerate_FollowsTheTables(t *testing.T) {
	data, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	// Read the YAML back: the CEL, not its YAML quoting, is what counts.
	var out string
	for _, doc := range strings.Split(string(data), "\n---\n")[1:] {
		if !strings.Contains(doc, "kind: ValidatingAdmissionPolicy\n") {
			continue // a binding
		}
		var p admissionregistrationv1.ValidatingAdmissionPolicy
		if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Spec.Variables {
			out += v.Name + ": " + v.Expression + "\n"
		}
		for _, v := range p.Spec.Validations {
			out += v.Expression + "\n" + v.Message + "\n"
		}
	}
	table := reasonStatusMap()
	if !strings.Contains(out, "reasonStatus: "+table) {
		t.Errorf("the output lacks the reason table %s", table)
	}
	pairs := 0
	for _, typ := range types {
		for _, r := range reasons() {
			if s, ok := v1.ReasonStatus(typ, r); ok {
				pairs++
				if !strings.Contains(table, "'"+string(r)+"': '"+string(s)+"'") {
					t.Errorf("%s/%s: status %s is not in the table %s", typ, r, s, table)
				}
			}
		}
	}
	if pairs < 13 {
		t.Errorf("only %d (type, reason) pairs found; the specification's table has 13", pairs)
	}
	// C3's refusal spells out which reasons go with which status, both
	// statuses of each type, so that whoever wrote the condition can fix it.
	for _, want := range []string{
		"LoadBalancerServing=True: Serving;",
		"LoadBalancerServing=False: Provisioning, Unsupported, Infrastructure;",
		"LoadBalancerProvisioning=True: Provisioning;",
		"LoadBalancerProvisioning=False: Complete;",
		"LoadBalancerDegraded=True: Multiple, ",
	} {
		if !strings.Contains(out, "C3: status.conditions: ") || !strings.Contains(out, want) {
			t.Errorf("C3's message does not say %q", want)
		}
	}
	for _, f := range v1.LoadBalancerFeatures() {
		r, _ := v1.DegradedReason(f)
		if !strings.Contains(out, "P5: status.conditions: LoadBalancerDegraded names "+string(r)) {
			t.Errorf("no P5 rule for %s", r)
		}
		if !strings.Contains(out, "P6: status.conditions: LoadBalancerDegraded names "+string(r)+" while LoadBalancerServing is True, but the Service requires "+string(f)) {
			t.Errorf("no P6 rule for %s", f)
		}
		if !strings.Contains(out, "'"+string(f)+"'") {
			t.Errorf("feature %s is not an allowed annotation value", f)
		}
	}
}

// TestConditionsPolicy_RefusesAFeatureWithoutP5Expression: a feature the
// generator cannot judge stops the generation instead of shipping a policy
// that lets its degradation through.
func TestConditionsPolicy_RefusesAFeatureWithoutP5Expression(t *testing.T) {
	saved := asksFor[v1.LoadBalancerFeaturePorts]
	delete(asksFor, v1.LoadBalancerFeaturePorts)
	defer func() { asksFor[v1.LoadBalancerFeaturePorts] = saved }()
	if _, err := conditionsPolicy(); err == nil || !strings.Contains(err.Error(), "Ports") {
		t.Errorf("conditionsPolicy() without Ports' expression: %v, want an error naming Ports", err)
	}
}

// TestGenerate_FailsClosed: the two policies that refuse writes deny the
// write when their CEL cannot be evaluated (failurePolicy Fail), and their
// bindings deny, not warn or audit; the L9 and C4 policies only warn, and fail
// open, so that they never stop a write. A refusing policy that fails open
// lets any write through that makes its CEL fail; a warning policy that
// fails closed refuses writes the specification allows.
func TestGenerate_FailsClosed(t *testing.T) {
	data, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		failure admissionregistrationv1.FailurePolicyType
		action  admissionregistrationv1.ValidationAction
	}{
		ConditionsPolicy: {admissionregistrationv1.Fail, admissionregistrationv1.Deny},
		FeaturesPolicy:   {admissionregistrationv1.Fail, admissionregistrationv1.Deny},
		LeftoversPolicy:  {admissionregistrationv1.Ignore, admissionregistrationv1.Warn},
		DeprecatedPolicy: {admissionregistrationv1.Ignore, admissionregistrationv1.Warn},
	}
	policies := map[string]bool{}
	var bindings []admissionregistrationv1.ValidatingAdmissionPolicyBinding
	for _, doc := range strings.Split(string(data), "\n---\n")[1:] {
		switch {
		case strings.Contains(doc, "kind: ValidatingAdmissionPolicy\n"):
			var p admissionregistrationv1.ValidatingAdmissionPolicy
			if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
				t.Fatal(err)
			}
			policies[p.Name] = true
			w, ok := want[p.Name]
			if !ok {
				t.Errorf("policy %s is not one the test knows", p.Name)
				continue
			}
			if p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != w.failure {
				t.Errorf("policy %s: failurePolicy %v, want %s", p.Name, p.Spec.FailurePolicy, w.failure)
			}
		case strings.Contains(doc, "kind: ValidatingAdmissionPolicyBinding\n"):
			var b admissionregistrationv1.ValidatingAdmissionPolicyBinding
			if err := yaml.UnmarshalStrict([]byte(doc), &b); err != nil {
				t.Fatal(err)
			}
			bindings = append(bindings, b)
		}
	}
	if len(policies) != len(want) || len(bindings) != len(want) {
		t.Fatalf("%d policies and %d bindings, want %d and %d", len(policies), len(bindings), len(want), len(want))
	}
	for _, b := range bindings {
		if !policies[b.Spec.PolicyName] {
			t.Errorf("binding %s binds %q, which is not a policy of the file", b.Name, b.Spec.PolicyName)
			continue
		}
		if w := want[b.Spec.PolicyName].action; len(b.Spec.ValidationActions) != 1 || b.Spec.ValidationActions[0] != w {
			t.Errorf("binding %s: validationActions %v, want [%s]", b.Name, b.Spec.ValidationActions, w)
		}
	}
}
