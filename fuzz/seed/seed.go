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

package seed

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
)

// Environment variables that make Add write corpus files; see the package
// documentation.
const (
	CorpusDirEnv = "LBSTATUS_FUZZ_SEED_DIR"
	RawDirEnv    = "LBSTATUS_FUZZ_RAW_SEED_DIR"
)

// CorpusPrefix starts the file name of every seed written in Go's corpus
// format, so that seeds can be told from the minimised failures that
// `go test -fuzz` writes next to them (those are named by a hash).
const CorpusPrefix = "seed-"

// Target is the part of *testing.F that Add uses. *testing.F satisfies it,
// and so do the testing shims that OSS-Fuzz's build tools substitute for
// it, which is why Add does not take a *testing.F.
type Target interface {
	Add(args ...any)
	Name() string
	Helper()
	Fatalf(format string, args ...any)
}

// written remembers, per run of a target, the seed names already added,
// so that two seeds never write the same file. A run is its Target value:
// each run of `go test -count=N` has a *testing.F of its own, and adds the
// same seeds again.
var (
	mu      sync.Mutex
	written = map[any]map[string]bool{}
)

// run is the key of f's run in written: f itself, or its name when its
// type cannot be compared.
func run(f Target) any {
	if reflect.TypeOf(f).Comparable() {
		return f
	}
	return f.Name()
}

// Add adds args as a seed input of f and, when the environment asks for
// it, writes them as a corpus file named after name. name must be unique
// within the target; characters other than ASCII letters, digits, '.', '_'
// and '-' are replaced with '-'. An argument of a type Go's fuzzing does
// not support, a repeated name, or a failed write fails f. With no
// arguments Add does nothing.
func Add(f Target, name string, args ...any) {
	f.Helper()
	if len(args) == 0 {
		return
	}
	name = fileName(name)
	mu.Lock()
	key := run(f)
	names := written[key]
	if names == nil {
		names = map[string]bool{}
		written[key] = names
	}
	dup := names[name]
	names[name] = true
	mu.Unlock()
	if dup {
		f.Fatalf("seed %q of %s added twice", name, f.Name())
		return
	}
	data, err := Marshal(args...)
	if err != nil {
		f.Fatalf("seed %q of %s: %v", name, f.Name(), err)
		return
	}
	f.Add(args...)
	if dir := os.Getenv(CorpusDirEnv); dir != "" {
		if err := write(filepath.Join(dir, f.Name()), CorpusPrefix+name, data); err != nil {
			f.Fatalf("seed %q of %s: %v", name, f.Name(), err)
		}
	}
	if dir := os.Getenv(RawDirEnv); dir != "" {
		if raw, ok := args[0].([]byte); ok && len(args) == 1 {
			if err := write(filepath.Join(dir, f.Name()), name, raw); err != nil {
				f.Fatalf("seed %q of %s: %v", name, f.Name(), err)
			}
		}
	}
}

func write(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), data, 0o644)
}

// fileName maps name to a portable file name; an empty name becomes "_".
func fileName(name string) string {
	if name == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, name)
}

// Marshal encodes args in Go's fuzz corpus file format, version 1, as
// `go test -fuzz` writes it (an int32 always as a number, never as a rune
// literal), so that `go test` reads the file back as the same values. Supported are the types testing.F.Add accepts except
// floating-point numbers: []byte, string, bool and the sized and unsized
// integer types. No arguments, or another type, is an error.
func Marshal(args ...any) ([]byte, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no values to encode")
	}
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for i, arg := range args {
		switch v := arg.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case string:
			fmt.Fprintf(&b, "string(%q)\n", v)
		case byte:
			// Go writes a uint8 as a character literal.
			fmt.Fprintf(&b, "byte(%q)\n", v)
		case int, int8, int16, int64, uint, uint16, uint32, uint64, bool:
			fmt.Fprintf(&b, "%T(%v)\n", v, v)
		case int32:
			// Go writes an int32 that is a valid rune as a rune literal;
			// both forms read back, so the plain one is always safe.
			fmt.Fprintf(&b, "int32(%d)\n", v)
		default:
			return nil, fmt.Errorf("argument %d: unsupported type %T", i, arg)
		}
	}
	return b.Bytes(), nil
}
