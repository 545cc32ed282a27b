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

package seed_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbstatus/lbstatus/fuzz/seed"
)

func TestMarshal(t *testing.T) {
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{[]byte("a\x00\"\n")}, `[]byte("a\x00\"\n")`},
		{[]any{[]byte(nil)}, `[]byte("")`},
		{[]any{"é\xff"}, `string("é\xff")`},
		{[]any{byte('x'), byte(0)}, "byte('x')\nbyte('\\x00')"},
		{[]any{int64(-3), uint64(7), uint32(1), uint16(2), int(4), true}, "int64(-3)\nuint64(7)\nuint32(1)\nuint16(2)\nint(4)\nbool(true)"},
		{[]any{int32('a')}, "int32(97)"},
	} {
		got, err := seed.Marshal(tc.args...)
		if err != nil {
			t.Errorf("Marshal(%#v): %v", tc.args, err)
			continue
		}
		if want := "go test fuzz v1\n" + tc.want + "\n"; string(got) != want {
			t.Errorf("Marshal(%#v) =\n%s\nwant\n%s", tc.args, got, want)
		}
	}
	for _, args := range [][]any{nil, {1.5}, {[]int{1}}} {
		if _, err := seed.Marshal(args...); err == nil {
			t.Errorf("Marshal(%#v) succeeded, want an error", args)
		}
	}
}

// fakeF records what Add hands to a fuzz target.
type fakeF struct {
	name    string
	added   [][]any
	failure string
}

func (f *fakeF) Add(args ...any)                   { f.added = append(f.added, args) }
func (f *fakeF) Name() string                      { return f.name }
func (f *fakeF) Helper()                           {}
func (f *fakeF) Fatalf(format string, args ...any) { f.failure = fmt.Sprintf(format, args...) }

func TestAdd_WritesNothingByDefault(t *testing.T) {
	t.Setenv(seed.CorpusDirEnv, "")
	t.Setenv(seed.RawDirEnv, "")
	f := &fakeF{name: "FuzzDefault"}
	seed.Add(f, "one", []byte("x"))
	if f.failure != "" || len(f.added) != 1 {
		t.Fatalf("added %v, failure %q; want one seed and no failure", f.added, f.failure)
	}
}

func TestAdd_WritesCorpusAndRawFiles(t *testing.T) {
	corpus, raw := t.TempDir(), t.TempDir()
	t.Setenv(seed.CorpusDirEnv, corpus)
	t.Setenv(seed.RawDirEnv, raw)
	f := &fakeF{name: "FuzzWrites"}
	seed.Add(f, "a b/c", []byte("data"))
	seed.Add(f, "pair", "s", int64(1))
	if f.failure != "" {
		t.Fatal(f.failure)
	}
	got, err := os.ReadFile(filepath.Join(corpus, "FuzzWrites", "seed-a-b-c"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "go test fuzz v1\n[]byte(\"data\")\n"; string(got) != want {
		t.Errorf("corpus file = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(corpus, "FuzzWrites", "seed-pair")); err != nil {
		t.Errorf("two-argument seed has no corpus file: %v", err)
	}
	got, err = os.ReadFile(filepath.Join(raw, "FuzzWrites", "a-b-c"))
	if err != nil || string(got) != "data" {
		t.Errorf("raw file = %q, %v; want \"data\"", got, err)
	}
	if _, err := os.Stat(filepath.Join(raw, "FuzzWrites", "pair")); !os.IsNotExist(err) {
		t.Errorf("a two-argument seed was written raw (stat: %v)", err)
	}
}

func TestAdd_RejectsRepeatedNames(t *testing.T) {
	f := &fakeF{name: "FuzzRepeated"}
	seed.Add(f, "same", []byte("1"))
	seed.Add(f, "same", []byte("2"))
	if !strings.Contains(f.failure, "added twice") {
		t.Errorf("failure = %q, want a repeated-name failure", f.failure)
	}
	if len(f.added) != 1 {
		t.Errorf("%d seeds added, want 1", len(f.added))
	}
}

// Each run of a target, as `go test -count=2` makes, adds its seeds afresh.
func TestAdd_SameNamesInAnotherRun(t *testing.T) {
	for run := range 2 {
		f := &fakeF{name: "FuzzRerun"}
		seed.Add(f, "same", []byte("1"))
		if f.failure != "" || len(f.added) != 1 {
			t.Fatalf("run %d: added %v, failure %q; want one seed and no failure", run, f.added, f.failure)
		}
	}
}

func TestAdd_RejectsUnsupportedTypes(t *testing.T) {
	f := &fakeF{name: "FuzzUnsupported"}
	seed.Add(f, "float", 1.5)
	if f.failure == "" || len(f.added) != 0 {
		t.Errorf("added %v, failure %q; want a failure and nothing added", f.added, f.failure)
	}
}
