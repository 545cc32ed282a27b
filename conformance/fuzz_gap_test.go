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

package conformance_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzCheckerGap reads its bytes as `lbstatus check` does and checks them
// twice: as they are, and with Checker.Gap called before and after the
// objects whose bits are set in gaps, two per object (spec section 8,
// "Live watches":
// the provider's writes in a gap are not judged), plus Gap calls on a
// Service never observed and on one just deleted, which change nothing.
// Whatever the input and the gaps, a gap only takes findings away: each
// observation's findings with gaps are those without, in the same order,
// less L1 and L4 violations (the trace halves a gap leaves alone), and the
// findings at the end of the input are the same. A gap never makes a
// finding of its own, never changes a finding's severity or text, and
// never ends a trace.
func FuzzCheckerGap(f *testing.F) {
	add := func(name string, data []byte, gaps uint64, options uint8) {
		seed.Add(f, name, data, gaps, options)
	}
	for _, path := range []string{"../examples/traces/provisioning.json", "timeline/testdata/l6-miss.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		name := "file-" + path[strings.LastIndexByte(path, '/')+1:]
		add(name, data, 0, 0)
		add(name+"-every-other", data, 0xaaaaaaaaaaaaaaaa, 1)
		add(name+"-ends", data, 1<<20|2<<10|2<<2, 2)
	}
	var stream bytes.Buffer
	if err := conformancetest.WriteStream(&stream, conformancetest.StreamOptions{Services: 2, Observations: 8, Compact: true}); err != nil {
		f.Fatal(err)
	}
	add("stream-2-8", stream.Bytes(), 0x55, 2)
	// A first write claiming reprovisioning while serving (L1), and an
	// ingress filled while Serving is not True (L4), each after a gap.
	const (
		svc  = `{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"test","uid":"u1","resourceVersion":"%d"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]},"status":{%s}}` + "\n"
		cond = `{"type":"%s","status":"%s","reason":"%s","message":"","lastTransitionTime":"2026-01-01T00:00:%02dZ"}`
	)
	conds := func(c ...string) string { return `"conditions":[` + strings.Join(c, ",") + `]` }
	l1 := fmt.Sprintf(svc, 1, "") + fmt.Sprintf(svc, 2, conds(
		fmt.Sprintf(cond, "LoadBalancerServing", "True", "Serving", 10),
		fmt.Sprintf(cond, "LoadBalancerProvisioning", "True", "Provisioning", 10)))
	add("l1-across-gap", []byte(l1), 1<<2, 0)
	add("l1-no-gap", []byte(l1), 0, 0)
	l4 := fmt.Sprintf(svc, 1, conds(
		fmt.Sprintf(cond, "LoadBalancerServing", "False", "Provisioning", 1),
		fmt.Sprintf(cond, "LoadBalancerProvisioning", "True", "Provisioning", 1))) +
		fmt.Sprintf(svc, 2, conds(
			fmt.Sprintf(cond, "LoadBalancerServing", "False", "Infrastructure", 5),
			fmt.Sprintf(cond, "LoadBalancerProvisioning", "False", "Infrastructure", 5))+`,"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}`) +
		`{"type":"DELETED","object":` + strings.TrimSuffix(fmt.Sprintf(svc, 3, ""), "\n") + "}\n" +
		fmt.Sprintf(svc, 4, "")
	add("l4-across-gap-then-deleted", []byte(l4), 2|1<<2|1<<4|2<<4, 3)

	f.Fuzz(func(t *testing.T, data []byte, gaps uint64, options uint8) {
		if len(data) > 32<<10 {
			return
		}
		var opts []conformance.Option
		if options&1 != 0 {
			opts = append(opts, conformance.RequireConditions(true))
		}
		if options&2 != 0 {
			opts = append(opts, conformance.Live(true))
		}
		objs := decodeForGaps(t, data)
		plain, gapped := conformance.NewChecker(opts...), conformance.NewChecker(opts...)
		for i, obj := range objs {
			bits := gaps >> (2 * (i % 32))
			gap := func() {
				if s := obj.Service; s != nil {
					gapped.Gap(s.Namespace, s.Name) // after a deletion: an unknown Service
					gapped.Gap(s.Namespace, s.Name+"-never-observed")
				}
			}
			if bits&1 != 0 {
				gap()
			}
			want, got := plain.ObserveObject(obj), gapped.ObserveObject(obj)
			if bits&2 != 0 {
				gap()
			}
			if !withoutFirstWrite(got, want) {
				t.Fatalf("object %d (%s): with a gap the findings are\n%s\nwithout\n%s\nwant those less some L1 or L4 violations",
					i, obj.Ref, dumpGapFindings(got), dumpGapFindings(want))
			}
			if plain.Services() != gapped.Services() {
				t.Fatalf("object %d: a gap changed the Services held from %d to %d", i, plain.Services(), gapped.Services())
			}
		}
		if want, got := plain.Finish(), gapped.Finish(); !reflect.DeepEqual(got, want) {
			t.Fatalf("at the end, with gaps:\n%s\nwithout:\n%s", dumpGapFindings(got), dumpGapFindings(want))
		}
	})
}

// decodeForGaps returns the objects of data, input errors left out.
func decodeForGaps(t *testing.T, data []byte) []conformance.Object {
	t.Helper()
	var out []conformance.Object
	dec := conformance.NewDecoder(bytes.NewReader(data), "fuzz", conformance.MaxObjectBytes(16<<10))
	for i := 0; ; i++ {
		if i > 1<<16 {
			t.Fatal("the decoder does not reach the end")
		}
		obj, err := dec.Next()
		if err == io.EOF {
			return out
		}
		var de *conformance.DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("Next returned %T %v", err, err)
		}
		if err == nil {
			out = append(out, obj)
		}
	}
}

// withoutFirstWrite reports whether got is want with some L1 and L4
// violations left out, the rest as they are and in the same order.
func withoutFirstWrite(got, want []conformance.Finding) bool {
	i := 0
	for _, w := range want {
		if i < len(got) && reflect.DeepEqual(got[i], w) {
			i++
			continue
		}
		if (w.Rule != "L1" && w.Rule != "L4") || w.Severity != conformance.SeverityViolation {
			return false
		}
	}
	return i == len(got)
}

func dumpGapFindings(found []conformance.Finding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "  %s %s %s %s: %s\n", f.Rule, f.Severity, f.Object, f.Field, f.Message)
	}
	return b.String()
}
