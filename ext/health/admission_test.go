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

package health

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// policy is a ValidatingAdmissionPolicy of deploy/admission with its CEL
// compiled.
type policy struct {
	spec                   admissionregistrationv1.ValidatingAdmissionPolicySpec
	match, vars, validates []cel.Program
	// messages holds each validation's messageExpression, nil for none.
	messages []cel.Program
}

// loadPolicy compiles the policy name of deploy/admission/policies.yaml
// in an environment with what the apiserver's has and the policies use:
// the standard macros, the strings library (split, trim, join) and
// optional types, with object, oldObject, request and variables untyped.
// integration/admission_test.go runs the policies on a real apiserver;
// this runs them in go test, for rules that a stock server's admission
// alone decides.
func loadPolicy(t *testing.T, name string) policy {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "deploy", "admission", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := cel.NewEnv(cel.HomogeneousAggregateLiterals(), cel.DefaultUTCTimeZone(true), cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)), ext.Sets(),
		cel.Variable("object", cel.DynType), cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType), cel.Variable("variables", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	compile := func(src string) cel.Program {
		ast, iss := env.Compile(src)
		if iss.Err() != nil {
			t.Fatalf("policy %s: %v\n%s", name, iss.Err(), src)
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		return prg
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		if !strings.Contains(doc, "kind: ValidatingAdmissionPolicy\n") {
			continue
		}
		var p admissionregistrationv1.ValidatingAdmissionPolicy
		if err := yaml.Unmarshal([]byte(doc), &p); err != nil {
			t.Fatal(err)
		}
		if p.Name != name {
			continue
		}
		out := policy{spec: p.Spec}
		for _, m := range p.Spec.MatchConditions {
			out.match = append(out.match, compile(m.Expression))
		}
		for _, v := range p.Spec.Variables {
			out.vars = append(out.vars, compile(v.Expression))
		}
		for _, v := range p.Spec.Validations {
			out.validates = append(out.validates, compile(v.Expression))
			var msg cel.Program
			if v.MessageExpression != "" {
				msg = compile(v.MessageExpression)
			}
			out.messages = append(out.messages, msg)
		}
		return out
	}
	t.Fatalf("deploy/admission/policies.yaml has no policy %s", name)
	return policy{}
}

// refuses returns the rule IDs (the start of each message) of the
// validations that fail for an UPDATE of old to obj; none when the match
// conditions leave the write alone. An expression that cannot be
// evaluated fails the test.
func (p policy) refuses(t fataler, obj, old map[string]any) []string {
	t.Helper()
	var out []string
	for _, msg := range p.denials(t, obj, old) {
		rule, _, _ := strings.Cut(msg, ":")
		out = append(out, rule)
	}
	return out
}

// denials returns the message of each validation that fails for an
// UPDATE of old to obj, from its messageExpression where it has one, as
// the apiserver reports it; none when the match conditions leave the
// write alone. An expression that cannot be evaluated, or a
// messageExpression that gives no one-line string, fails the test.
func (p policy) denials(t fataler, obj, old map[string]any) []string {
	t.Helper()
	return p.denialsOf(t, "UPDATE", obj, old)
}

// denialsOf is denials for a request of the operation given: for a
// CREATE, old is nil, and oldObject null as the apiserver passes it.
func (p policy) denialsOf(t fataler, operation string, obj, old map[string]any) []string {
	t.Helper()
	variables := map[string]any{}
	var oldObject any
	if old != nil {
		oldObject = old
	}
	activation := map[string]any{"object": obj, "oldObject": oldObject, "request": map[string]any{"operation": operation}, "variables": variables}
	eval := func(prg cel.Program) any {
		out, _, err := prg.Eval(activation)
		if err != nil {
			t.Fatalf("evaluate a policy expression: %v", err)
		}
		return out
	}
	for _, m := range p.match {
		if eval(m).(interface{ Value() any }).Value() != true {
			return nil
		}
	}
	for i, v := range p.vars {
		variables[p.spec.Variables[i].Name] = eval(v)
	}
	var out []string
	for i, v := range p.validates {
		if eval(v).(interface{ Value() any }).Value() == true {
			continue
		}
		msg := p.spec.Validations[i].Message
		if p.messages[i] != nil {
			s, ok := eval(p.messages[i]).(interface{ Value() any }).Value().(string)
			if !ok || strings.TrimSpace(s) == "" || strings.Contains(s, "\n") {
				t.Fatalf("messageExpression of %q gives %q, which the apiserver would not use", msg, s)
			}
			// Each names what is at fault, in parentheses or between
			// colons: an empty list there names nothing.
			if strings.Contains(s, "()") || strings.Contains(s, ": :") {
				t.Fatalf("messageExpression of %q gives %q, which names nothing at fault", msg, s)
			}
			msg = s
		}
		out = append(out, msg)
	}
	return out
}

// fataler is what refuses needs of a *testing.T, so that a rapid
// property can call it too.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// policyService is a one-port LoadBalancer Service as a policy's CEL sees
// it, with the conditions given and, if ingress, an address.
func policyService(ingress bool, conds ...any) map[string]any {
	st := map[string]any{"loadBalancer": map[string]any{}, "conditions": conds}
	if ingress {
		st["loadBalancer"] = map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}
	}
	return map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "s", "namespace": "n", "generation": int64(1)},
		"spec":     map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
		"status":   st}
}

// policyCondition is a condition as a policy's CEL sees it.
func policyCondition(typ, status, reason string) any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}
}

// TestConditionsPolicy_DuplicateTypes: a status write that adds a second
// condition of a KEP-4631 type is refused (C5), whatever the rest of the
// write: every reader takes the first of a type. The rules between
// conditions read the first of each type too, so a second
// Provisioning=True beside a first, False, under
// Serving=False/Provisioning does not hide the L5 break, and a second
// Serving=True beside a first Serving=False/Infrastructure is not read. A
// write that keeps as many of a type as it found is not refused for them
// (ratchet, as validation.ValidateServiceStatusUpdate has it), and one
// without duplicates is not refused at all.
func TestConditionsPolicy_DuplicateTypes(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	svc, cond := policyService, policyCondition
	const serving, provisioning = "LoadBalancerServing", "LoadBalancerProvisioning"
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"second Provisioning that hides an L5 break", svc(false),
			svc(false, cond(serving, "False", "Provisioning"), cond(provisioning, "False", "Complete"), cond(provisioning, "True", "Provisioning")),
			[]string{"C5", "L5"}},
		{"second Serving", svc(true),
			svc(true, cond(provisioning, "False", "Complete"), cond(serving, "False", "Infrastructure"), cond(serving, "True", "Serving")),
			[]string{"C5"}},
		{"second Degraded", svc(true, cond(provisioning, "False", "Complete"), cond(serving, "True", "Serving")),
			svc(true, cond(provisioning, "False", "Complete"), cond(serving, "True", "Serving"),
				cond("LoadBalancerDegraded", "Unknown", "Checking"), cond("LoadBalancerDegraded", "Unknown", "Checking")),
			[]string{"C5"}},
		{"duplicates kept from the stored object", svc(false, cond(serving, "False", "Provisioning"), cond(provisioning, "True", "Provisioning"), cond(provisioning, "True", "Provisioning")),
			svc(true, cond(serving, "True", "Serving"), cond(provisioning, "False", "Complete"), cond(provisioning, "False", "Complete")),
			nil},
		{"no duplicates", svc(false, cond(serving, "False", "Provisioning"), cond(provisioning, "True", "Provisioning")),
			svc(true, cond(serving, "True", "Serving"), cond(provisioning, "False", "Complete")),
			nil},
		// The harness reads refusals: a write that breaks C1 is one.
		{"Unknown Serving", svc(false),
			svc(false, cond(serving, "Unknown", "Provisioning"), cond(provisioning, "True", "Provisioning")),
			[]string{"C1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := p.refuses(t, c.new, c.old)
			slices.Sort(got)
			if !slices.Equal(slices.Compact(got), c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestConditionsPolicy_StoredDuplicatesReadFirst: on a Service stored
// with a KEP-4631 type twice (before the policies, which C5's ratchet
// lets stand), the rules between conditions read the first of each type,
// as readers, validation and the checker do, and judge it only when the
// write changes it: a write that drops a second Serving, leaving the first
// as it was, is not refused for an L4 break the first already had, and a
// second Serving=True behind a first Serving=False is not read when the
// write changes the ingress; a write that changes the first is judged.
func TestConditionsPolicy_StoredDuplicatesReadFirst(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	svc, cond := policyService, policyCondition
	servingTrue, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	later := cond("LoadBalancerServing", "True", "Serving")
	later.(map[string]any)["lastTransitionTime"] = "2026-01-01T00:00:01Z"
	infrastructure := cond("LoadBalancerServing", "False", "Infrastructure")
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"the second of two Serving=True dropped", svc(false, servingTrue, later, complete), svc(false, servingTrue, complete), nil},
		{"the second of two equal Serving=True dropped", svc(false, servingTrue, servingTrue, complete), svc(false, servingTrue, complete), nil},
		{"a Serving=True behind a Serving=False, the ingress dropped", svc(true, infrastructure, servingTrue, complete),
			svc(false, infrastructure, servingTrue, complete), nil},
		{"the first Serving changed", svc(false, infrastructure, servingTrue, complete), svc(false, later, servingTrue, complete), []string{"L4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.refuses(t, c.new, c.old); !slices.Equal(got, c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestConditionsPolicy_BumpIsNoChangeToThePair: the rules between
// conditions read the status and reason of Serving and Provisioning, as
// validation.ValidateServiceStatusUpdate has them: a write that only bumps
// their lastTransitionTime (L6) or changes a message is not refused for a
// pairing stored before; one that changes a status or reason is judged.
func TestConditionsPolicy_BumpIsNoChangeToThePair(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	svc, cond := policyService, policyCondition
	bumped := func(c any) any {
		m := maps.Clone(c.(map[string]any))
		m["lastTransitionTime"], m["message"] = "2026-01-01T00:00:01Z", "spec change seen"
		return m
	}
	servingTrue, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	servingProvisioning := cond("LoadBalancerServing", "False", "Provisioning")
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"L4 stored, both bumped", svc(false, servingTrue, complete), svc(false, bumped(servingTrue), bumped(complete)), nil},
		{"L5 stored, Provisioning bumped", svc(true, servingProvisioning, complete), svc(true, servingProvisioning, bumped(complete)), nil},
		{"L5 stored, Provisioning's reason changed", svc(true, servingProvisioning, complete),
			svc(true, servingProvisioning, cond("LoadBalancerProvisioning", "False", "Finished")), []string{"L5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.refuses(t, c.new, c.old); !slices.Equal(got, c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestConditionsPolicy_P5RatchetsPerCondition: P5 judges each
// degradation against the spec by itself, so a degradation the write
// leaves as it was is not judged again because another condition of
// Degraded or LoadBalancerPortsError changed (validation's P5 ratchets per
// condition too); one the write changes is judged.
func TestConditionsPolicy_P5RatchetsPerCondition(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	svc, cond := policyService, policyCondition
	serving, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	// The Service has one port: a degradation in Ports breaks P5.
	portsError, degradedPorts := cond("LoadBalancerPortsError", "True", "PortsError"), cond("LoadBalancerDegraded", "True", "PortsNotSupported")
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"a LoadBalancerPortsError kept, Degraded added", svc(true, serving, complete, portsError),
			svc(true, serving, complete, portsError, cond("LoadBalancerDegraded", "Unknown", "Checking")), nil},
		{"a Degraded kept, LoadBalancerPortsError added", svc(true, serving, complete, degradedPorts),
			svc(true, serving, complete, degradedPorts, cond("LoadBalancerPortsError", "False", "PortsError")), nil},
		{"a LoadBalancerPortsError added", svc(true, serving, complete), svc(true, serving, complete, portsError), []string{"P5"}},
		{"a Degraded added", svc(true, serving, complete), svc(true, serving, complete, degradedPorts), []string{"P5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.refuses(t, c.new, c.old); !slices.Equal(got, c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestDeprecatedPolicy_C4Warns: a status write that adds a
// LoadBalancerPortsError is warned about (C4, a warning in the
// specification) by the policy that only warns, and the refusing policy
// does not judge C4: a provider of KEP-1435 that writes the condition
// keeps getting its status, ingress and all, stored. A PortsError the
// Service already had, or none, gets no warning.
func TestDeprecatedPolicy_C4Warns(t *testing.T) {
	warns := loadPolicy(t, "lbstatus-deprecated-conditions.lbstatus.github.io")
	refuses := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	svc, cond := policyService, policyCondition
	serving, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	portsError := cond("LoadBalancerPortsError", "False", "PortsError")
	noStatus := svc(false)
	delete(noStatus, "status")
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"added", svc(true, serving, complete), svc(true, serving, complete, portsError), []string{"C4"}},
		{"added with the first conditions", svc(false), svc(true, serving, complete, portsError), []string{"C4"}},
		{"kept", svc(true, serving, complete, portsError), svc(true, serving, complete, portsError), nil},
		{"none", svc(false), svc(true, serving, complete), nil},
		{"added to a Service stored without a status", noStatus, svc(true, serving, complete, portsError), []string{"C4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := warns.refuses(t, c.new, c.old); !slices.Equal(got, c.want) {
				t.Errorf("the warning policy fails %v, want %v", got, c.want)
			}
			if got := refuses.refuses(t, c.new, c.old); len(got) > 0 {
				t.Errorf("the refusing policy refuses for %v", got)
			}
		})
	}
}

// TestFeaturesPolicy_R4MessagesNameTheItem: a refused required-features
// annotation is answered with the items at fault, quoted, as validation's
// NotSupported and Duplicate errors name them, after the rule ID: in a list
// of features a misspelt one is hard to find from the list of those
// allowed alone.
func TestFeaturesPolicy_R4MessagesNameTheItem(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	const prefix = "R4: metadata.annotations[lbstatus.github.io/required-load-balancer-features]: "
	for _, c := range []struct{ value, want string }{
		{"Ports, SessionAfinity,Teleport", prefix + `Unsupported value: "SessionAfinity", "Teleport": supported values: IPFamilies, Ports, ` +
			"SessionAffinity, LoadBalancerIP, ExternalTrafficPolicy, LoadBalancerSourceRanges"},
		// Quoted as Go quotes a value, so that the message stays on one
		// line whatever the item holds.
		{"Ports,Tele\nport", prefix + `Unsupported value: "Tele\nport": supported values: IPFamilies, Ports, ` +
			"SessionAffinity, LoadBalancerIP, ExternalTrafficPolicy, LoadBalancerSourceRanges"},
		{"Ports,\"Ports\",\"Ports\"", prefix + `Unsupported value: "\"Ports\"": supported values: IPFamilies, Ports, ` +
			"SessionAffinity, LoadBalancerIP, ExternalTrafficPolicy, LoadBalancerSourceRanges"},
		{"Ports,\"Ports\",\"Ports\"", prefix + `Duplicate value: "\"Ports\"": each feature may be listed once`},
		// An unknown item repeated is named once among those unknown.
		{"Teleport,Ports,Warp, Teleport", prefix + `Unsupported value: "Teleport", "Warp": supported values: IPFamilies, Ports, ` +
			"SessionAffinity, LoadBalancerIP, ExternalTrafficPolicy, LoadBalancerSourceRanges"},
		{"Ports, SessionAffinity ,SessionAffinity", prefix + `Duplicate value: "SessionAffinity": each feature may be listed once`},
		// Every repeated item, each once, in the order its first repeat
		// comes, as v1.ParseRequiredFeatures names them.
		{"Ports,SessionAffinity,,Teleport, SessionAffinity,Ports,Teleport,Ports,SessionAffinity", prefix +
			`Duplicate value: "SessionAffinity", "Ports", "Teleport": each feature may be listed once`},
		// As many items as may be, the repeat last.
		{"a,b,c,d,e,f,g,h,i,j,k,l,m,n,Ports,Ports", prefix + `Duplicate value: "Ports": each feature may be listed once`},
	} {
		svc := policyService(false)
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{"lbstatus.github.io/required-load-balancer-features": c.value}
		got := p.denials(t, svc, policyService(false))
		if !slices.Contains(got, c.want) {
			t.Errorf("%q: the policy says %q, want %q among them", c.value, got, c.want)
		}
	}
}

// TestFeaturesPolicy_R4TypeLoadBalancerOnly: an annotation that requires
// a feature is refused on a Service that is not a LoadBalancer (R4, as
// for the field), and a blank one, which requires nothing, is not.
func TestFeaturesPolicy_R4TypeLoadBalancerOnly(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	for value, want := range map[string][]string{"Ports": {"R4"}, "": nil, " \t": nil} {
		svc, old := policyService(false), policyService(false)
		for _, s := range []map[string]any{svc, old} {
			s["spec"].(map[string]any)["type"] = "ClusterIP"
		}
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{"lbstatus.github.io/required-load-balancer-features": value}
		if got := p.refuses(t, svc, old); !slices.Equal(got, want) {
			t.Errorf("annotation %q added to a ClusterIP Service: refused for %q, want %q", value, got, want)
		}
	}
}

// TestFeaturesPolicy_R4_NamesNoFeature: an annotation of commas and
// blanks names no feature, so it requires nothing (as
// conditions.RequiredFeatures reads it) and is not Forbidden on a Service
// of another type, nor on one the write changes away from LoadBalancer;
// its empty items are still malformed. On every type the policy says what
// v1.ParseRequiredFeatures says, after the rule ID, and nothing more.
func TestFeaturesPolicy_R4_NamesNoFeature(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	path := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	for _, value := range []string{" , ", ",", "\t,,"} {
		features, errs := v1.ParseRequiredFeatures(value, path)
		var want []string
		for _, e := range errs {
			want = append(want, "R4: "+e.Error())
		}
		if len(features) != 0 || len(want) != 1 {
			t.Fatalf("%q: ParseRequiredFeatures gives %q and %q, want no features and one error", value, features, errs)
		}
		for _, types := range [][2]string{{"ClusterIP", "ClusterIP"}, {"LoadBalancer", "LoadBalancer"}, {"ClusterIP", "LoadBalancer"}} {
			svc, old := policyService(false), policyService(false)
			svc["spec"].(map[string]any)["type"], old["spec"].(map[string]any)["type"] = types[0], types[1]
			svc["metadata"].(map[string]any)["annotations"] = map[string]any{v1.RequiredFeaturesAnnotation: value}
			if got := p.denials(t, svc, old); !slices.Equal(got, want) {
				t.Errorf("%q added to a %s Service, %s before: the policy says %q, want %q", value, types[0], types[1], got, want)
			}
			// Kept as it was, it is not judged again.
			old["metadata"].(map[string]any)["annotations"] = map[string]any{v1.RequiredFeaturesAnnotation: value}
			if got := p.denials(t, svc, old); len(got) > 0 {
				t.Errorf("%q kept on a %s Service, %s before: the policy says %q", value, types[0], types[1], got)
			}
		}
	}
}

// TestFeaturesPolicy_R4_EmptyItemsAsParseRequiredFeatures: an annotation
// with an empty item is refused with the error v1.ParseRequiredFeatures
// gives, after the rule ID: Invalid, with the whole value, quoted as Go
// quotes it, so the writer sees which value is at fault.
func TestFeaturesPolicy_R4_EmptyItemsAsParseRequiredFeatures(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	path := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	for _, value := range []string{"Ports,,SessionAffinity", "Ports,\n", " ,\tPorts", `Ports,,"IPFamilies\"`} {
		svc := policyService(false)
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{v1.RequiredFeaturesAnnotation: value}
		var want, got []string
		_, errs := v1.ParseRequiredFeatures(value, path)
		for _, e := range errs {
			if e.Type == field.ErrorTypeInvalid {
				want = append(want, "R4: "+e.Error())
			}
		}
		for _, m := range p.denials(t, svc, policyService(false)) {
			if strings.Contains(m, "empty items") {
				got = append(got, m)
			}
		}
		if len(want) != 1 || !slices.Equal(got, want) {
			t.Errorf("%q: the policy says %q, want %q", value, got, want)
		}
	}
}

// TestPolicies_StockComponentsWritesGoThrough: the writes a stock cluster
// makes to a Service that no load-balancer provider makes, on a Service
// stored before the policies with conditions that break C1, C5, L4 and
// P5 and a required-features annotation that breaks R4, are neither
// refused nor warned about: the service controller setting or dropping
// its finalizer (through services/status), the garbage collector dropping
// an owner reference, another controller adding its own condition, a
// user's kubectl apply of a new port, each leaving the KEP-4631
// conditions and the annotation as they were.
func TestPolicies_StockComponentsWritesGoThrough(t *testing.T) {
	var policies []policy
	for _, name := range []string{"lbstatus-service-conditions.lbstatus.github.io", "lbstatus-required-features.lbstatus.github.io",
		"lbstatus-conditions-left.lbstatus.github.io", "lbstatus-deprecated-conditions.lbstatus.github.io"} {
		policies = append(policies, loadPolicy(t, name))
	}
	cond := policyCondition
	stored := func(typ string) map[string]any {
		svc := policyService(false,
			cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerServing", "Unknown", "Provisioning"),
			cond("LoadBalancerProvisioning", "Unknown", "Provisioning"), cond("LoadBalancerDegraded", "True", "PortsNotSupported"),
			cond("LoadBalancerPortsError", "True", "PortsError"))
		svc["spec"].(map[string]any)["type"] = typ
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{"lbstatus.github.io/required-load-balancer-features": "Teleport,,Ports,Ports"}
		svc["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "u"}}
		return svc
	}
	for _, typ := range []string{"LoadBalancer", "ClusterIP"} {
		for name, edit := range map[string]func(old, svc map[string]any){
			"finalizer added": func(_, svc map[string]any) {
				svc["metadata"].(map[string]any)["finalizers"] = []any{"service.kubernetes.io/load-balancer-cleanup"}
			},
			"owner reference dropped": func(_, svc map[string]any) { delete(svc["metadata"].(map[string]any), "ownerReferences") },
			"finalizer dropped while being deleted": func(old, svc map[string]any) {
				for _, o := range []map[string]any{old, svc} {
					o["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
				}
				old["metadata"].(map[string]any)["finalizers"] = []any{"service.kubernetes.io/load-balancer-cleanup"}
			},
			"another controller's condition": func(_, svc map[string]any) {
				st := svc["status"].(map[string]any)
				st["conditions"] = append(st["conditions"].([]any), cond("example.com/Ready", "True", "Ready"))
			},
			"a port added": func(_, svc map[string]any) {
				spec := svc["spec"].(map[string]any)
				spec["ports"] = append(spec["ports"].([]any), map[string]any{"port": int64(443)})
			},
		} {
			old, svc := stored(typ), stored(typ)
			edit(old, svc)
			for _, p := range policies {
				if got := p.denials(t, svc, old); len(got) > 0 {
					t.Errorf("%s, %s: %v", typ, name, got)
				}
			}
		}
	}
}

// TestConditionsPolicy_MessagesNameTheCulprit: a C5 refusal names the
// condition type the write repeats and a C3 refusal the condition whose
// reason belongs to its other status, so the writer of a long list of
// conditions need not search it; the rule ID still comes first.
func TestConditionsPolicy_MessagesNameTheCulprit(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	svc, cond := policyService, policyCondition
	complete := cond("LoadBalancerProvisioning", "False", "Complete")
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     string
	}{
		{"C5", svc(true), svc(true, cond("LoadBalancerServing", "True", "Serving"), complete, complete),
			"C5: status.conditions: a condition type appears more than once (LoadBalancerProvisioning); "},
		{"C3", svc(true), svc(true, cond("LoadBalancerServing", "False", "Serving"), complete),
			"C3: status.conditions: LoadBalancerServing=False with reason Serving: the reason belongs to the other status"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := p.denials(t, c.new, c.old)
			if !slices.ContainsFunc(got, func(m string) bool { return strings.HasPrefix(m, c.want) }) {
				t.Errorf("the policy says %q, want a message starting %q", got, c.want)
			}
		})
	}
}

// TestFeaturesPolicy_R4_TooManyAsParseRequiredFeatures: the
// required-features policy refuses an annotation of more than
// v1.MaxRequiredFeatures items, repeats included and empty items not, as
// v1.ParseRequiredFeatures and the spec field do, with the same error
// after the rule ID, and then judges neither its values nor its repeats;
// as many items are not too many.
func TestFeaturesPolicy_R4_TooManyAsParseRequiredFeatures(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	path := field.NewPath("metadata", "annotations").Key(v1.RequiredFeaturesAnnotation)
	for _, n := range []int{v1.MaxRequiredFeatures, v1.MaxRequiredFeatures + 1} {
		items := []string{"Ports", "Ports"}
		for i := len(items); i < n; i++ {
			items = append(items, "Teleport"+strconv.Itoa(i))
		}
		value := strings.Join(items, ", ,")
		svc := policyService(false)
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{v1.RequiredFeaturesAnnotation: value}
		var want, got []string
		_, errs := v1.ParseRequiredFeatures(value, path)
		for _, e := range errs {
			if e.Type == field.ErrorTypeTooMany {
				want = append(want, "R4: "+e.Error())
			}
		}
		items = nil // what the policy says of the items
		for _, m := range p.denials(t, svc, policyService(false)) {
			switch {
			case strings.Contains(m, ": Too many: "):
				got = append(got, m)
			case strings.Contains(m, ": Unsupported value: ") || strings.Contains(m, ": Duplicate value: "):
				items = append(items, m)
			}
		}
		if n > v1.MaxRequiredFeatures && (len(want) == 0 || len(items) > 0) || n <= v1.MaxRequiredFeatures && len(items) != 2 {
			t.Errorf("%d items: ParseRequiredFeatures says %q; the policy says %q of the items", n, errs, items)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d items: the policy says %q, want %q", n, got, want)
		}
	}
}

// TestConditionsPolicy_P5ReadsTheSpecAsTheChecker: what a Service asks
// for, for P5, is what the checker reads (v1.AsksFor): one IP family does
// not ask for two, and the policy says so rather than failing to evaluate;
// PreferDualStack without ipFamilies asks for two; a source-ranges
// annotation of blanks asks for none.
func TestConditionsPolicy_P5ReadsTheSpecAsTheChecker(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	cond := policyCondition
	serving, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	for _, c := range []struct {
		name   string
		reason string
		spec   map[string]any
		ann    map[string]any
		want   []string
	}{
		{"one IP family", "IPFamiliesNotSupported", map[string]any{"ipFamilies": []any{"IPv4"}}, nil, []string{"P5"}},
		{"PreferDualStack, families not filled in", "IPFamiliesNotSupported", map[string]any{"ipFamilyPolicy": "PreferDualStack"}, nil, nil},
		{"RequireDualStack, families not filled in", "IPFamiliesNotSupported", map[string]any{"ipFamilyPolicy": "RequireDualStack"}, nil, nil},
		{"a blank source-ranges annotation", "LoadBalancerSourceRangesNotSupported", nil,
			map[string]any{"service.beta.kubernetes.io/load-balancer-source-ranges": "  "}, []string{"P5"}},
		{"a source-ranges annotation", "LoadBalancerSourceRangesNotSupported", nil,
			map[string]any{"service.beta.kubernetes.io/load-balancer-source-ranges": " 192.0.2.0/24 "}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := policyService(true, serving, complete)
			obj := policyService(true, serving, complete, cond("LoadBalancerDegraded", "True", c.reason))
			for _, o := range []map[string]any{old, obj} {
				maps.Copy(o["spec"].(map[string]any), c.spec)
				if c.ann != nil {
					o["metadata"].(map[string]any)["annotations"] = c.ann
				}
			}
			if got := p.refuses(t, obj, old); !slices.Equal(got, c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestConditionsPolicy_L1Ratchets: a Service stored with Serving and no
// Provisioning (from before the policy) may still take a write that
// leaves that pair as it is; a write that changes the pair is judged.
func TestConditionsPolicy_L1Ratchets(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	cond := policyCondition
	serving := cond("LoadBalancerServing", "True", "Serving")
	old := policyService(true, serving)
	for _, c := range []struct {
		name string
		new  map[string]any
		want []string
	}{
		{"Degraded added", policyService(true, serving, cond("LoadBalancerDegraded", "Unknown", "Checking")), nil},
		{"Serving changed", policyService(true, cond("LoadBalancerServing", "False", "Infrastructure")), []string{"L1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.refuses(t, c.new, old); !slices.Equal(got, c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestFeaturesPolicy_R4BlankAndTypeChange: a blank annotation requires
// nothing and is allowed on any Service, as v1.ParseRequiredFeatures
// reads it; a non-empty one kept while the type changes away from
// LoadBalancer is refused, though the write leaves it as it was.
func TestFeaturesPolicy_R4BlankAndTypeChange(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	const key = "lbstatus.github.io/required-load-balancer-features"
	service := func(typ, value string) map[string]any {
		svc := policyService(false)
		svc["spec"].(map[string]any)["type"] = typ
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{key: value}
		return svc
	}
	for _, c := range []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"blank, added", policyService(false), service("LoadBalancer", " "), nil},
		{"blank, on a ClusterIP Service", service("ClusterIP", ""), service("ClusterIP", "  "), nil},
		{"kept while the type changes", service("LoadBalancer", "Ports"), service("ClusterIP", "Ports"), []string{"R4"}},
		{"kept on a ClusterIP Service stored so", service("ClusterIP", "Ports"), service("ClusterIP", "Ports"), nil},
		{"empty items", policyService(false), service("LoadBalancer", "Ports,,"), []string{"R4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.refuses(t, c.new, c.old); !slices.Equal(got, c.want) {
				t.Errorf("the policy refuses for %v, want %v", got, c.want)
			}
		})
	}
}

// TestConditionsPolicy_P6ReadsTheAnnotationAsTheChecker: the features of
// the annotation are read as the checker reads them, blanks around each
// trimmed: Degraded in SessionAffinity while serving a Service that
// requires " SessionAffinity" is refused (P6).
func TestConditionsPolicy_P6ReadsTheAnnotationAsTheChecker(t *testing.T) {
	p := loadPolicy(t, "lbstatus-service-conditions.lbstatus.github.io")
	cond := policyCondition
	serving, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	old := policyService(true, serving, complete)
	obj := policyService(true, serving, complete, cond("LoadBalancerDegraded", "True", "SessionAffinityNotSupported"))
	for _, o := range []map[string]any{old, obj} {
		o["spec"].(map[string]any)["sessionAffinity"] = "ClientIP"
		o["metadata"].(map[string]any)["annotations"] = map[string]any{"lbstatus.github.io/required-load-balancer-features": "Ports, SessionAffinity"}
	}
	if got := p.refuses(t, obj, old); !slices.Equal(got, []string{"P6"}) {
		t.Errorf("the policy refuses for %v, want [P6]", got)
	}
}

// TestLeftoversPolicy_L9WarnsOnAnyOfTheThree: a status write on a Service
// that is no longer a LoadBalancer is warned about when it changes any of
// the three KEP-4631 conditions it leaves, Degraded alone too, and not
// when it leaves them as they were.
func TestLeftoversPolicy_L9WarnsOnAnyOfTheThree(t *testing.T) {
	p := loadPolicy(t, "lbstatus-conditions-left.lbstatus.github.io")
	cond := policyCondition
	serving, complete := cond("LoadBalancerServing", "True", "Serving"), cond("LoadBalancerProvisioning", "False", "Complete")
	clusterIP := func(conds ...any) map[string]any {
		svc := policyService(false, conds...)
		svc["spec"].(map[string]any)["type"] = "ClusterIP"
		return svc
	}
	old := clusterIP(serving, complete)
	for _, c := range []struct {
		name string
		new  map[string]any
		want []string
	}{
		{"Degraded added", clusterIP(serving, complete, cond("LoadBalancerDegraded", "True", "PortsNotSupported")), []string{"L9"}},
		{"Provisioning changed", clusterIP(serving, cond("LoadBalancerProvisioning", "True", "Provisioning")), []string{"L9"}},
		{"left as they were", clusterIP(serving, complete), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.refuses(t, c.new, old); !slices.Equal(got, c.want) {
				t.Errorf("the policy warns %v, want %v", got, c.want)
			}
		})
	}
}

// TestFeaturesPolicy_R4OnCreate: a Service created with the annotation is
// judged as any other write, oldObject being null: a known feature on a
// LoadBalancer Service goes through, one on a ClusterIP Service is
// refused.
func TestFeaturesPolicy_R4OnCreate(t *testing.T) {
	p := loadPolicy(t, "lbstatus-required-features.lbstatus.github.io")
	for typ, want := range map[string][]string{"LoadBalancer": nil, "ClusterIP": {"R4"}} {
		svc := policyService(false)
		svc["spec"].(map[string]any)["type"] = typ
		svc["metadata"].(map[string]any)["annotations"] = map[string]any{"lbstatus.github.io/required-load-balancer-features": "Ports"}
		var got []string
		for _, msg := range p.denialsOf(t, "CREATE", svc, nil) {
			rule, _, _ := strings.Cut(msg, ":")
			got = append(got, rule)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the policy refuses for %v, want %v", typ, got, want)
		}
	}
}
