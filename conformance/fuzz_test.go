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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/fuzz/seed"
)

// FuzzConformanceStream feeds arbitrary bytes to the checker the way
// `lbstatus check` does (Decoder, Checker, Collector, Finish, report), with
// the decoder's size limit and the checker's options picked by the other
// arguments. It must not panic or hang, must keep its memory in proportion
// to the input, and must give the same transcript of objects, input
// errors, findings and report every time: run twice, run again on a
// Checker reused after Finish, and read through a reader that hands out
// the bytes in small chunks, as a pipe or a watch stream does. Every
// finding must name a known rule with one of its severities, a one-line
// message and a field under metadata, spec or status.
func FuzzConformanceStream(f *testing.F) {
	add := func(name string, data []byte, chunk uint8) {
		seed.Add(f, name, data, chunk, uint8(8), uint8(len(name)))
	}
	files := map[string][]byte{}
	for _, dir := range []string{"../examples", "../violations"} {
		_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				if data, err := os.ReadFile(path); err == nil && len(data) <= 16<<10 {
					files[filepath.ToSlash(strings.TrimPrefix(path, "../"))] = data
				}
			}
			return nil
		})
	}
	for name, data := range files {
		add("file-"+name, data, uint8(len(data)))
	}
	for _, opts := range []conformancetest.StreamOptions{
		{Services: 2, Observations: 8, Compact: true},
		{Services: 3, Observations: 7},
	} {
		var buf bytes.Buffer
		if err := conformancetest.WriteStream(&buf, opts); err != nil {
			f.Fatal(err)
		}
		name := fmt.Sprintf("stream-%d-%d-%v", opts.Services, opts.Observations, opts.Compact)
		add(name, buf.Bytes(), 0)
		// A stream cut off in the middle of an object, as an interrupted
		// watch leaves it.
		add(name+"-truncated", buf.Bytes()[:buf.Len()*2/3], 3)
	}
	for i, data := range streamEdges {
		add(fmt.Sprintf("edge-%d", i), []byte(data), uint8(i))
	}

	f.Fuzz(func(t *testing.T, data []byte, chunk, limitShift, options uint8) {
		if len(data) > 64<<10 {
			return
		}
		// A hang is a finding too: no input of this size takes seconds.
		watchdog := time.AfterFunc(time.Minute, func() {
			panic(fmt.Sprintf("the checker has not finished an input of %d bytes after a minute", len(data)))
		})
		defer watchdog.Stop()

		limit := conformance.MaxObjectBytes(1 << (8 + limitShift%9))
		var opts []conformance.Option
		if options&1 != 0 {
			opts = append(opts, conformance.RequireConditions(true))
		}
		if options&2 != 0 {
			opts = append(opts, conformance.Classes{"example.com/lb"})
		}
		if options&4 != 0 {
			opts = append(opts, conformance.RelevantAnnotations{"example.com/sku"})
		}

		checker := conformance.NewChecker(opts...)
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		first := checkStream(t, bytes.NewReader(data), limit, checker)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if used, bound := after.TotalAlloc-before.TotalAlloc, uint64(32<<20+2048*len(data)); used > bound {
			t.Fatalf("checking %d bytes allocated %d bytes, more than %d", len(data), used, bound)
		}
		if n := checker.Services(); n != 0 {
			t.Fatalf("the checker holds %d Services after Finish", n)
		}
		for name, again := range map[string][]byte{
			"a second run":                 checkStream(t, bytes.NewReader(data), limit, conformance.NewChecker(opts...)),
			"the checker reused":           checkStream(t, bytes.NewReader(data), limit, checker),
			"a reader of small chunks":     checkStream(t, &chunkReader{data: data, size: 1 + int(chunk%64)}, limit, conformance.NewChecker(opts...)),
			"a reader of one byte at once": checkStream(t, &chunkReader{data: data, size: 1}, limit, conformance.NewChecker(opts...)),
		} {
			if !bytes.Equal(normalizeMalformed(first), normalizeMalformed(again)) {
				t.Fatalf("%s gives another transcript:\n%s\n---\n%s", name, first, again)
			}
		}
	})
}

// checkStream runs what `lbstatus check` runs on one input and returns the
// transcript: every object read (position, kind, name, whether deleted)
// with its findings, every input error, the findings of Finish and the
// report, as JSON. It fails t on a broken finding or a decoder that does
// not end.
func checkStream(t *testing.T, r io.Reader, limit conformance.MaxObjectBytes, checker *conformance.Checker) []byte {
	t.Helper()
	type entry struct {
		Object   *conformance.Position `json:"object,omitempty"`
		Kind     string                `json:"kind,omitempty"`
		Ref      conformance.ObjectRef `json:"ref"`
		Deleted  bool                  `json:"deleted,omitempty"`
		Error    string                `json:"error,omitempty"`
		Fatal    bool                  `json:"fatal,omitempty"`
		Findings []conformance.Finding `json:"findings,omitempty"`
	}
	var transcript []entry
	dec := conformance.NewDecoder(r, "fuzz", limit)
	col := conformance.NewCollector()
	observations := 0
	for i := 0; ; i++ {
		if i > 1<<20 {
			t.Fatalf("the decoder returned more than %d results without reaching the end", i)
		}
		obj, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var de *conformance.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Next returned %T %q, not a *DecodeError", err, err)
			}
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("input error %q is not one line", msg)
			}
			col.Error(err)
			transcript = append(transcript, entry{Error: err.Error(), Fatal: de.Fatal})
			continue
		}
		if obj.Service != nil {
			observations++
		}
		found := checker.ObserveObject(obj)
		checkFindings(t, found)
		col.Observe(obj, found)
		pos := obj.Position
		transcript = append(transcript, entry{Object: &pos, Kind: obj.Kind, Ref: obj.Ref, Deleted: obj.Deleted, Findings: found})
		if n := checker.Services(); n > observations {
			t.Fatalf("the checker holds %d Services after %d observations", n, observations)
		}
	}
	end := checker.Finish()
	checkFindings(t, end)
	col.Findings(end)
	transcript = append(transcript, entry{Findings: end})
	out, err := json.Marshal(struct {
		Transcript []entry
		Report     conformance.Report
	}{transcript, col.Report()})
	if err != nil {
		t.Fatalf("the report does not encode as JSON: %v", err)
	}
	return out
}

// malformed matches an input error for JSON syntax, which ends the input,
// to the end of the string that holds it in a transcript: the message may
// quote the input, escaped.
var malformed = regexp.MustCompile(`fuzz:\d+ \(document (\d+)[^)]*\): malformed JSON: (?:[^"\\]|\\.)*`)

// normalizeMalformed leaves only the document of each JSON syntax error in
// a transcript. jsontext words such an error, and places it within a byte
// or so, by how much of the input it had read when it met it: a stream in
// small chunks may get another text than the same bytes read whole, though
// what is read, and where reading ends, is the same.
func normalizeMalformed(transcript []byte) []byte {
	return malformed.ReplaceAll(transcript, []byte("fuzz (document $1): malformed JSON"))
}

// checkFindings fails t on a finding that breaks section 8's form.
func checkFindings(t *testing.T, found []conformance.Finding) {
	t.Helper()
	for _, f := range found {
		rule, ok := conformance.LookupRule(string(f.Rule))
		switch {
		case !ok:
			t.Fatalf("finding of unknown rule %q: %+v", f.Rule, f)
		case f.Severity != conformance.SeverityViolation && f.Severity != conformance.SeverityWarning && f.Severity != conformance.SeverityNotice:
			t.Fatalf("finding with severity %q: %+v", f.Severity, f)
		case len(rule.Severities) > 0 && !containsSeverity(rule.Severities, f.Severity):
			t.Fatalf("rule %s is reported as %s, which its description does not list (%v): %+v", f.Rule, f.Severity, rule.Severities, f)
		case f.Message == "" || strings.Contains(f.Message, "\n"):
			t.Fatalf("finding message %q is not one line: %+v", f.Message, f)
		case input.Escape(f.Message) != f.Message:
			t.Fatalf("finding message %q holds what a terminal acts on: %+v", f.Message, f)
		case f.Field != "" && !underRoot(f.Field):
			t.Fatalf("finding field %q is not under metadata, spec or status: %+v", f.Field, f)
		}
	}
}

func containsSeverity(list []conformance.Severity, s conformance.Severity) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// underRoot reports whether path is metadata, spec or status, or below one.
func underRoot(path string) bool {
	for _, root := range []string{"metadata", "spec", "status"} {
		if rest, ok := strings.CutPrefix(path, root); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return true
		}
	}
	return false
}

// chunkReader hands out data at most size bytes per Read.
type chunkReader struct {
	data []byte
	size int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.size, len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// streamEdges are inputs at the edges of the decoder's formats.
var streamEdges = []string{
	"",
	" \n\t",
	"null",
	"[]",
	"{}",
	`{"kind":"List","apiVersion":"v1","items":[{"metadata":{"name":"a"},"spec":{"type":"LoadBalancer"}},{"kind":"ConfigMap"}]}`,
	`{"type":"ADDED","object":{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","uid":"1"},"spec":{"type":"LoadBalancer"}}}` +
		`{"type":"DELETED","object":{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","uid":"1"}}}` +
		`{"type":"ADDED","object":{"kind":"Service","apiVersion":"v1","metadata":{"name":"a","uid":"2"}}}`,
	"kind: Service\napiVersion: v1\nmetadata: {name: a}\nspec: {type: LoadBalancer}\n---\n---\nkind: ServiceList\napiVersion: v1\nitems: [{metadata: {name: b}}]\n...\n",
	`{"kind":"Service","metadata":{"name":"a","name":"b"}}`,
	`{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"status":{"conditions":[{"type":"LoadBalancerServing","status":"True","reason":"Serving","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}` + "\n{\"kind\":",
	"a: &a [*a, *a]\nb: *a\n",
	`[{"kind":"Service","apiVersion":"v2"},1,"x",null,{"kind":"Service","metadata":{"name":"\u0000"}}]`,
	// Values validation refuses, which its messages quote: a line break,
	// an escape sequence, a character that reverses the text after it.
	`{"kind":"Service","apiVersion":"v1","metadata":{"name":"a"},"spec":{"type":"LoadBalancer","requiredLoadBalancerFeatures":["\u202e\n"]},"status":{"conditions":[{"type":"LoadBalancerServing","status":"\u001b[2J","reason":"\u202e","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
	"kind: >\n 0",
}
