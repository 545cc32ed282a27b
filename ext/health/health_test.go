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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/ext/kstatus"
)

// The three outcomes every tool maps to.
const (
	current    = "current"
	inProgress = "inProgress"
	failed     = "failed"
)

var root = filepath.Join("..", "..")

// sample is a Service to judge, and where it comes from.
type sample struct {
	origin string
	obj    map[string]any
}

// fixtures returns every Service of examples/, violations/ and the golden
// fixtures: single objects, Lists and watch events, in YAML or JSON.
func fixtures(t *testing.T) []sample {
	t.Helper()
	var out []sample
	for _, dir := range []string{filepath.Join(root, "examples"), filepath.Join(root, "violations"), filepath.Join(root, "apis", "core", "v1", "testdata")} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext != ".yaml" && ext != ".json" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for i := 0; ; i++ {
				var raw json.RawMessage
				if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				// Integers as int64, as a client reads them from an
				// apiserver.
				var obj map[string]any
				if err := utiljson.Unmarshal(raw, &obj); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				for j, svc := range services(obj) {
					// A Service being deleted is in progress for every
					// tool (TestTools_DeletingService); the mapping is
					// about the rest (the golden fixtures set every
					// field).
					unstructured.RemoveNestedField(svc, "metadata", "deletionTimestamp")
					out = append(out, sample{fmt.Sprintf("%s#%d.%d", path, i, j), svc})
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d Services in the fixtures", len(out))
	}
	return out
}

// services returns the Services an object holds: itself, a List's items
// or a watch event's object.
func services(obj map[string]any) []map[string]any {
	if obj == nil {
		return nil
	}
	if items, ok := obj["items"].([]any); ok {
		var out []map[string]any
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				out = append(out, services(m)...)
			}
		}
		return out
	}
	if inner, ok := obj["object"].(map[string]any); ok && obj["type"] != nil {
		return services(inner)
	}
	if obj["kind"] == "Service" {
		return []map[string]any{obj}
	}
	return nil
}

// variants returns s and the Services derived from it that the tools must
// also agree on: without ingress, with an empty ingress list, with an
// ingress entry that has no address, with a hostname only, without
// conditions, without status, of type ClusterIP, and with conditions of
// an older generation (G6: Kubernetes does not bump a Service's
// generation on a spec change, so no verdict reads observedGeneration).
func variants(s sample) []sample {
	out := []sample{s}
	edit := func(name string, f func(obj map[string]any)) {
		obj := runtime.DeepCopyJSON(s.obj)
		f(obj)
		out = append(out, sample{s.origin + "/" + name, obj})
	}
	edit("no-ingress", func(o map[string]any) { unstructured.RemoveNestedField(o, "status", "loadBalancer") })
	edit("empty-ingress-list", func(o map[string]any) {
		_ = unstructured.SetNestedSlice(o, []any{}, "status", "loadBalancer", "ingress")
	})
	edit("empty-ingress-entry", func(o map[string]any) {
		_ = unstructured.SetNestedSlice(o, []any{map[string]any{"ipMode": "VIP"}}, "status", "loadBalancer", "ingress")
	})
	edit("hostname", func(o map[string]any) {
		_ = unstructured.SetNestedSlice(o, []any{map[string]any{"hostname": "lb.example"}}, "status", "loadBalancer", "ingress")
	})
	edit("no-conditions", func(o map[string]any) { unstructured.RemoveNestedField(o, "status", "conditions") })
	edit("no-status", func(o map[string]any) { unstructured.RemoveNestedField(o, "status") })
	edit("cluster-ip", func(o map[string]any) { _ = unstructured.SetNestedField(o, "ClusterIP", "spec", "type") })
	edit("stale-generation", func(o map[string]any) {
		_ = unstructured.SetNestedField(o, int64(7), "metadata", "generation")
		conds, _, _ := unstructured.NestedSlice(o, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok {
				m["observedGeneration"] = int64(6)
			}
		}
		_ = unstructured.SetNestedSlice(o, conds, "status", "conditions")
	})
	return out
}

// requiring returns s with each way a Service can require features, or
// seem to and require nothing: the annotation with known, unknown and
// spaced values, the spec field (which wins over the annotation), and
// annotations whose items are all blank, ASCII or Unicode spaces, which
// require nothing (conditions.RequiredFeatures).
func requiring(s sample) []sample {
	var out []sample
	annotate := func(name, value string, field []any) {
		obj := runtime.DeepCopyJSON(s.obj)
		if value != "-" {
			_ = unstructured.SetNestedField(obj, value, "metadata", "annotations", v1.RequiredFeaturesAnnotation)
		}
		if field != nil {
			_ = unstructured.SetNestedSlice(obj, field, "spec", "requiredLoadBalancerFeatures")
		}
		out = append(out, sample{s.origin + "/" + name, obj})
	}
	annotate("requires-annotation", "SessionAffinity", nil)
	annotate("requires-annotation-spaced", " , Ports ,", nil)
	annotate("requires-annotation-unknown", "Teleport", nil)
	annotate("requires-field", "-", []any{"IPFamilies"})
	annotate("requires-field-over-blank-annotation", " ", []any{"Ports"})
	annotate("requires-annotation-under-empty-field", "Ports", []any{})
	annotate("requires-nothing-empty", "", nil)
	annotate("requires-nothing-commas", " ,\t, ", nil)
	annotate("requires-nothing-unicode-spaces", "\u00a0,\u3000\u2009,\u0085", nil)
	return out
}

// degrading returns s with each kind of degradation added to its
// conditions: a Degraded=True reason, a Multiple list (with Unicode
// spaces and no text after it), the deprecated LoadBalancerPortsError,
// and a Degraded condition that is not True or that a first Degraded of
// another status hides.
func degrading(s sample) []sample {
	var out []sample
	add := func(name string, more ...map[string]any) {
		obj := runtime.DeepCopyJSON(s.obj)
		conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
		for _, c := range more {
			c["lastTransitionTime"] = "2026-01-01T00:00:00Z"
			conds = append(conds, c)
		}
		_ = unstructured.SetNestedSlice(obj, conds, "status", "conditions")
		out = append(out, sample{s.origin + "/" + name, obj})
	}
	degraded := func(status, reason, message string) map[string]any {
		return map[string]any{"type": "LoadBalancerDegraded", "status": status, "reason": reason, "message": message}
	}
	add("degraded-session-affinity", degraded("True", "SessionAffinityNotSupported", "no affinity"))
	add("degraded-multiple", degraded("True", "Multiple", "PortsNotSupported, SessionAffinityNotSupported: udp/53 and affinity"))
	add("degraded-multiple-unicode", degraded("True", "Multiple", "\u00a0IPFamiliesNotSupported,LoadBalancerIPNotSupported\u3000"))
	add("degraded-multiple-text-only", degraded("True", "Multiple", "Ports are not all served"))
	add("ports-error", map[string]any{"type": "LoadBalancerPortsError", "status": "True", "reason": "PortsError", "message": "udp/53"})
	add("degraded-unknown", degraded("Unknown", "SessionAffinityNotSupported", ""))
	add("degraded-hidden", degraded("False", "Complete", ""), degraded("True", "PortsNotSupported", ""))
	return out
}

// combinations returns a LoadBalancer Service for every combination of
// Serving (absent, each reason of the table, Unknown, and a reason of
// section 6 with the other status), Provisioning (absent, True, False,
// Unknown), ingress (none, an entry without address, one with empty
// strings, an ip, an address in the second entry only) and condition
// messages (some or empty).
func combinations() []sample {
	servings := [][2]string{{}, {"True", "Serving"}, {"False", "Provisioning"}, {"False", "Unsupported"}, {"False", "Infrastructure"}, {"False", "QuotaExceeded"},
		{"Unknown", "Provisioning"}, {"True", "Unsupported"}, {"True", "Infrastructure"}}
	provisionings := [][2]string{{}, {"True", "Provisioning"}, {"False", "Complete"}, {"Unknown", "Provisioning"}}
	ingresses := [][]any{nil, {map[string]any{"ipMode": "VIP"}}, {map[string]any{"ip": "", "hostname": ""}}, {map[string]any{"ip": "192.0.2.1"}},
		{map[string]any{"ipMode": "VIP"}, map[string]any{"hostname": "lb.example"}}}
	var out []sample
	for _, s := range servings {
		for _, p := range provisionings {
			for k, in := range ingresses {
				for _, message := range []string{"details", ""} {
					var conds []any
					for _, c := range []struct{ typ, status, reason string }{
						{"LoadBalancerServing", s[0], s[1]}, {"LoadBalancerProvisioning", p[0], p[1]},
					} {
						if c.status != "" {
							conds = append(conds, map[string]any{"type": c.typ, "status": c.status, "reason": c.reason,
								"message": message, "lastTransitionTime": "2026-01-01T00:00:00Z"})
						}
					}
					st := map[string]any{}
					if conds != nil {
						st["conditions"] = conds
					}
					if in != nil {
						st["loadBalancer"] = map[string]any{"ingress": in}
					}
					out = append(out, sample{
						origin: fmt.Sprintf("serving=%v provisioning=%v ingress=%d message=%q", s, p, k, message),
						obj: map[string]any{
							"apiVersion": "v1", "kind": "Service",
							"metadata": map[string]any{"name": "s", "namespace": "n"},
							"spec":     map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
							"status":   st,
						},
					})
				}
			}
		}
	}
	return out
}

// doubled returns s with a second condition of a type it has, for every
// status and reason that type takes: C5 forbids it, a stock apiserver
// stores it, and every tool reads only the first of each type, as
// conditions.Get does.
func doubled(s sample) []sample {
	var out []sample
	conds, _, _ := unstructured.NestedSlice(s.obj, "status", "conditions")
	for _, c := range conds {
		typ := c.(map[string]any)["type"].(string)
		for _, alt := range [][2]string{{"True", "Serving"}, {"False", "Provisioning"}, {"False", "Unsupported"}, {"False", "Infrastructure"}, {"True", "Provisioning"}, {"False", "Complete"}} {
			obj := runtime.DeepCopyJSON(s.obj)
			more := append(conds[:len(conds):len(conds)], map[string]any{"type": typ, "status": alt[0], "reason": alt[1],
				"message": "a second " + typ, "lastTransitionTime": "2026-01-01T00:00:00Z"})
			_ = unstructured.SetNestedSlice(obj, runtime.DeepCopyJSONValue(more).([]any), "status", "conditions")
			out = append(out, sample{fmt.Sprintf("%s/second %s=%s/%s", s.origin, typ, alt[0], alt[1]), obj})
		}
	}
	return out
}

// want is the mapping every tool must implement, from conditions.Evaluate
// for each feature the Service requires (a Skip for one of them, T1, is
// the verdict) and then with no feature under test, and the rule the
// message must start with.
func want(t *testing.T, obj map[string]any) (string, string) {
	t.Helper()
	// lbstatus's Service, which keeps spec.requiredLoadBalancerFeatures.
	svc := &v1.Service{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, svc); err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return current, ""
	}
	required, _, _ := conditions.RequiredFeatures(svc)
	v := conditions.Evaluate(svc, "")
	for _, f := range required {
		if vf := conditions.Evaluate(svc, f); vf.Result == conditions.ResultSkip {
			v = vf
			break
		}
	}
	switch v.Result {
	case conditions.ResultReady:
		return current, v.Rule
	case conditions.ResultSkip, conditions.ResultFail:
		return failed, v.Rule
	}
	// R3: a provider that writes neither condition never saw a
	// requirement, so the address alone says the Service is deployed only
	// when it requires nothing.
	if kstatus.HasAddress(svc) && len(required) == 0 && conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing) == nil &&
		conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) == nil {
		return current, "R3"
	}
	return inProgress, v.Rule
}

// needsStringLibrary reports whether the Argo CD check may need Lua's
// string library to judge obj: when obj carries the required-features
// annotation with a value to read, or a first LoadBalancerDegraded that
// is True with reason Multiple, whose message lists the reasons.
func needsStringLibrary(obj map[string]any) bool {
	value, _, _ := unstructured.NestedString(obj, "metadata", "annotations", v1.RequiredFeaturesAnnotation)
	if value != "" {
		return true
	}
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "LoadBalancerDegraded" {
			return m["status"] == "True" && m["reason"] == "Multiple"
		}
	}
	return false
}

// luaValue converts a JSON value to Lua as Argo CD hands objects to health
// scripts: objects and arrays become tables, arrays indexed from 1.
func luaValue(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case string:
		return lua.LString(x)
	case bool:
		return lua.LBool(x)
	case int64:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case []any:
		tb := L.NewTable()
		for _, e := range x {
			tb.Append(luaValue(L, e))
		}
		return tb
	case map[string]any:
		tb := L.NewTable()
		for k, e := range x {
			tb.RawSetString(k, luaValue(L, e))
		}
		return tb
	}
	return lua.LString(fmt.Sprint(v))
}

// compiledLua holds the compiled health script by its text: each run gets
// a fresh Lua state, as in Argo CD, but compiling the script is most of
// the work and does not depend on the state.
var compiledLua sync.Map

// runLua runs the health script on obj as Argo CD runs a health check of
// argocd-cm and returns Argo CD's status and message. Argo CD gives such a
// script a state with the package, base and table libraries only (and a
// reduced os library, which the script does not use); with openLibs, every
// standard library, as for a kind whose
// resource.customizations.useOpenLibs key is "true".
func runLua(t *testing.T, script string, obj map[string]any, openLibs bool) (string, string) {
	t.Helper()
	proto, ok := compiledLua.Load(script)
	if !ok {
		chunk, err := parse.Parse(strings.NewReader(script), "service-health.lua")
		if err != nil {
			t.Fatalf("load the health script: %v", err)
		}
		p, err := lua.Compile(chunk, "service-health.lua")
		if err != nil {
			t.Fatalf("load the health script: %v", err)
		}
		proto, _ = compiledLua.LoadOrStore(script, p)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: !openLibs})
	defer L.Close()
	if !openLibs {
		for _, lib := range []struct {
			name string
			open lua.LGFunction
		}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
			if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.open), Protect: true}, lua.LString(lib.name)); err != nil {
				t.Fatalf("open the Lua library %s: %v", lib.name, err)
			}
		}
	}
	L.SetGlobal("obj", luaValue(L, obj))
	L.Push(L.NewFunctionFromProto(proto.(*lua.FunctionProto)))
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatalf("run the health script: %v", err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("the health script returned %s, not a table", L.Get(-1).Type())
	}
	return hs.RawGetString("status").String(), hs.RawGetString("message").String()
}

var argoToOutcome = map[string]string{"Healthy": current, "Progressing": inProgress, "Degraded": failed}

// fluxExprs are the compiled healthCheckExprs for Service.
type fluxExprs struct{ failed, current cel.Program }

func loadFlux(t *testing.T) fluxExprs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "deploy", "flux", "service-health.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Spec struct {
			HealthCheckExprs []struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Current    string `json:"current"`
				Failed     string `json:"failed"`
				InProgress string `json:"inProgress"`
			} `json:"healthCheckExprs"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(data, &k); err != nil {
		// The Kustomization has fields this struct does not name.
		if err := yaml.Unmarshal(data, &k); err != nil {
			t.Fatal(err)
		}
	}
	i := slices.IndexFunc(k.Spec.HealthCheckExprs, func(e struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Current    string `json:"current"`
		Failed     string `json:"failed"`
		InProgress string `json:"inProgress"`
	}) bool {
		return e.APIVersion == "v1" && e.Kind == "Service"
	})
	if i < 0 {
		t.Fatal("deploy/flux/service-health.yaml has no healthCheckExprs entry for v1 Service")
	}
	e := k.Spec.HealthCheckExprs[i]
	if e.InProgress != "" {
		t.Fatal("an inProgress expression would be evaluated first by Flux; the mapping has none")
	}
	// Flux's environment for health expressions: these options and
	// libraries (the strings library gives split and trim), the
	// expression parsed, not checked, and evaluated with the object's
	// top-level fields as variables. The test also compiles it with those
	// variables declared, to catch an undeclared name or a result that
	// cannot be a bool before any object is judged.
	fluxOptions := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(), cel.EagerlyValidateDeclarations(true), cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true), cel.OptionalTypes(), ext.Strings(), ext.Sets(), ext.Encoders(),
	}
	env, err := cel.NewEnv(fluxOptions...)
	if err != nil {
		t.Fatal(err)
	}
	checkEnv, err := env.Extend(
		cel.Variable("apiVersion", cel.StringType), cel.Variable("kind", cel.StringType),
		cel.Variable("metadata", cel.DynType), cel.Variable("spec", cel.DynType), cel.Variable("status", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	compile := func(name, src string) cel.Program {
		checked, iss := checkEnv.Compile(src)
		if iss.Err() != nil {
			t.Fatalf("flux %s expression: %v", name, iss.Err())
		}
		if checked.OutputType() != cel.BoolType && checked.OutputType() != cel.DynType {
			t.Fatalf("flux %s expression yields %s, not bool", name, checked.OutputType())
		}
		ast, iss := env.Parse(src)
		if iss.Err() != nil {
			t.Fatalf("flux %s expression: %v", name, iss.Err())
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(100))
		if err != nil {
			t.Fatal(err)
		}
		return prg
	}
	return fluxExprs{failed: compile("failed", e.Failed), current: compile("current", e.Current)}
}

func (f fluxExprs) eval(t *testing.T, obj map[string]any) string {
	t.Helper()
	vars := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
	// An apiserver always returns metadata, spec and status.
	for _, k := range []string{"metadata", "spec", "status"} {
		if v, ok := obj[k]; ok {
			vars[k] = v
		} else {
			vars[k] = map[string]any{}
		}
	}
	run := func(p cel.Program) bool {
		out, _, err := p.Eval(vars)
		if err != nil {
			t.Fatalf("flux expression: %v", err)
		}
		b, ok := out.Value().(bool)
		if !ok {
			t.Fatalf("flux expression gave %v, not a bool", out.Value())
		}
		return b
	}
	isFailed, isCurrent := run(f.failed), run(f.current)
	switch {
	case isFailed && isCurrent:
		t.Fatal("flux: failed and current both hold; the result would depend on Flux's evaluation order")
	case isFailed:
		return failed
	case isCurrent:
		return current
	}
	return inProgress
}

var kstatusToOutcome = map[status.Status]string{status.CurrentStatus: current, status.InProgressStatus: inProgress, status.FailedStatus: failed}

// TestTools_AgreeWithEvaluate runs the kstatus reader, the Argo CD Lua
// health check and the Flux CEL expressions over every fixture, its
// variants and the generated combinations.
func TestTools_AgreeWithEvaluate(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root, "deploy", "argocd", "service-health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	flux := loadFlux(t)
	var samples []sample
	for _, s := range fixtures(t) {
		samples = append(samples, variants(s)...)
	}
	for _, s := range combinations() {
		samples = append(samples, s)
		samples = append(samples, doubled(s)...)
		if !strings.HasSuffix(s.origin, `message=""`) {
			// Messages do not change what a requirement does.
			samples = append(samples, requiring(s)...)
		}
		if strings.Contains(s.origin, "ingress=3 ") && !strings.HasSuffix(s.origin, `message=""`) {
			// Degradations, alone and under each requirement, on the
			// combinations with an address.
			for _, d := range degrading(s) {
				samples = append(samples, d)
				samples = append(samples, requiring(d)...)
			}
		}
	}
	seen := map[string]int{}
	for _, s := range samples {
		agree(t, script, flux, s, seen)
	}
	t.Logf("%d Services: %v", len(samples), seen)
	for _, o := range []string{current, inProgress, failed, "Unknown without useOpenLibs"} {
		if seen[o] == 0 {
			t.Errorf("no Service maps to %s; the samples do not cover the mapping", o)
		}
	}
}

// agree requires the kstatus reader, the Argo CD Lua health check (with
// and without useOpenLibs) and the Flux CEL expressions to map s as want
// does, with the same rule in their messages, and counts in seen the
// outcomes it met.
func agree(t *testing.T, script []byte, flux fluxExprs, s sample, seen map[string]int) {
	t.Helper()
	wantOutcome, rule := want(t, s.obj)
	seen[wantOutcome]++

	res, err := kstatus.Compute(&unstructured.Unstructured{Object: runtime.DeepCopyJSON(s.obj)})
	if err != nil {
		t.Fatalf("%s: kstatus: %v", s.origin, err)
	}
	if got := kstatusToOutcome[res.Status]; got != wantOutcome {
		t.Errorf("%s: kstatus says %s (%s), want %s", s.origin, res.Status, res.Message, wantOutcome)
	} else if rule != "" && !strings.HasPrefix(res.Message, rule+": ") {
		t.Errorf("%s: kstatus message %q does not start with %s", s.origin, res.Message, rule)
	}

	// With useOpenLibs, as the README installs the check.
	argo, msg := runLua(t, string(script), s.obj, true)
	if got := argoToOutcome[argo]; got != wantOutcome {
		t.Errorf("%s: Argo CD health %s (%s), want %s", s.origin, argo, msg, wantOutcome)
	} else if rule != "" && !strings.HasPrefix(msg, rule+": ") {
		t.Errorf("%s: Argo CD message %q does not start with %s", s.origin, msg, rule)
	} else if rule != "" && msg != res.Message {
		// A user sees the same Service in both tools.
		t.Errorf("%s: Argo CD message %q, kstatus message %q", s.origin, msg, res.Message)
	}
	// Without it: the same answer, or Unknown saying what is missing
	// for a Service whose answer needs the string library.
	bare, bareMsg := runLua(t, string(script), s.obj, false)
	switch {
	case bare == "Unknown" && strings.Contains(bareMsg, "resource.customizations.useOpenLibs.Service"):
		if !needsStringLibrary(s.obj) {
			t.Errorf("%s: Argo CD without useOpenLibs says %s (%s), but the Service needs no string library", s.origin, bare, bareMsg)
		}
		seen["Unknown without useOpenLibs"]++
	case bare != argo || bareMsg != msg:
		t.Errorf("%s: Argo CD without useOpenLibs says %s (%s), with it %s (%s)", s.origin, bare, bareMsg, argo, msg)
	}

	if got := flux.eval(t, s.obj); got != wantOutcome {
		t.Errorf("%s: Flux says %s, want %s", s.origin, got, wantOutcome)
	}
}

// TestTools_DegradedInEachRequiredFeature: for each of the six features, a
// serving Service that requires it, through the field or the annotation,
// and is degraded in it, alone or in a Multiple list (G2), is failed for
// every tool (T1: R1 and P6 forbid it); degraded only in another feature,
// it is current. The combinations of TestTools_AgreeWithEvaluate require
// only some features.
func TestTools_DegradedInEachRequiredFeature(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root, "deploy", "argocd", "service-health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	flux := loadFlux(t)
	all := v1.LoadBalancerFeatures()
	var samples []sample
	for i, f := range all {
		reason, _ := v1.DegradedReason(f)
		other, _ := v1.DegradedReason(all[(i+1)%len(all)])
		pair := []string{string(reason), string(other)}
		slices.Sort(pair)
		for _, d := range []struct{ name, reason, message string }{
			{"alone", string(reason), "not served"},
			{"in Multiple", "Multiple", strings.Join(pair, ",") + ": not served"},
			{"in another feature only", string(other), "not served"},
		} {
			conds := []any{
				map[string]any{"type": "LoadBalancerServing", "status": "True", "reason": "Serving", "lastTransitionTime": "2026-01-01T00:00:00Z"},
				map[string]any{"type": "LoadBalancerProvisioning", "status": "False", "reason": "Complete", "lastTransitionTime": "2026-01-01T00:00:00Z"},
				map[string]any{"type": "LoadBalancerDegraded", "status": "True", "reason": d.reason, "message": d.message, "lastTransitionTime": "2026-01-01T00:00:00Z"},
			}
			for _, how := range []string{"field", "annotation"} {
				obj := map[string]any{
					"apiVersion": "v1", "kind": "Service",
					"metadata": map[string]any{"name": "s", "namespace": "n"},
					"spec":     map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
					"status": map[string]any{
						"conditions":   runtime.DeepCopyJSONValue(conds),
						"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}},
					},
				}
				if how == "field" {
					_ = unstructured.SetNestedSlice(obj, []any{string(f)}, "spec", "requiredLoadBalancerFeatures")
				} else {
					_ = unstructured.SetNestedField(obj, string(f), "metadata", "annotations", v1.RequiredFeaturesAnnotation)
				}
				samples = append(samples, sample{fmt.Sprintf("requires %s by %s, degraded %s", f, how, d.name), obj})
			}
		}
	}
	seen := map[string]int{}
	for _, s := range samples {
		agree(t, script, flux, s, seen)
	}
	if want := 4 * len(all); seen[failed] != want || seen[current] != 2*len(all) {
		t.Errorf("outcomes %v, want %d failed and %d current", seen, want, 2*len(all))
	}
}

// TestTools_DeletingService: a Service being deleted is in progress for
// every tool, whatever its type and conditions, as each tool says without
// lbstatus: kstatus's Terminating (which the kstatus reader keeps and Flux
// would say without the expressions), Argo CD's Progressing "Pending
// deletion". Argo CD decides that before it runs a health script, except
// for a resource that carries its hook finalizer (a Service made a sync
// hook): that one reaches the Lua check, which must say the same.
func TestTools_DeletingService(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root, "deploy", "argocd", "service-health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	flux := loadFlux(t)
	var samples []sample
	for _, s := range fixtures(t) {
		samples = append(samples, variants(s)...)
	}
	samples = append(samples, combinations()...)
	for _, s := range samples {
		obj := runtime.DeepCopyJSON(s.obj)
		_ = unstructured.SetNestedField(obj, "2026-01-01T00:00:00Z", "metadata", "deletionTimestamp")
		res, err := kstatus.Compute(&unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)})
		if err != nil {
			t.Fatalf("%s: kstatus: %v", s.origin, err)
		}
		if res.Status != status.TerminatingStatus {
			t.Errorf("%s being deleted: kstatus says %s (%s), want Terminating", s.origin, res.Status, res.Message)
		}
		if got := flux.eval(t, obj); got != inProgress {
			t.Errorf("%s being deleted: Flux says %s, want %s", s.origin, got, inProgress)
		}
		_ = unstructured.SetNestedStringSlice(obj, []string{"argocd.argoproj.io/hook-finalizer"}, "metadata", "finalizers")
		for _, openLibs := range []bool{true, false} {
			if argo, msg := runLua(t, string(script), obj, openLibs); argo != "Progressing" || msg != "Pending deletion" {
				t.Errorf("%s being deleted (useOpenLibs %v): Argo CD health %s (%s), want Progressing (Pending deletion)", s.origin, openLibs, argo, msg)
			}
		}
	}
}
