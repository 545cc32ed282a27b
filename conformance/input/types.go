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

package input

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Object is one object read from the input.
type Object struct {
	// Position is where the object starts.
	Position Position
	// Kind and APIVersion are the object's; "Service" and "v1" for an
	// item of a ServiceList or the object of a watch event, which carry
	// none.
	Kind, APIVersion string
	Ref              ObjectRef
	// Service is the decoded Service; nil for objects of other kinds.
	Service *v1.Service
	// Deleted marks the object of a DELETED watch event: a later Service
	// of the same name is a new one.
	Deleted bool
}

// Position says where an object, or a problem, is in the input.
type Position struct {
	// Source names the input: a file name, or "-" for standard input.
	Source string `json:"source,omitempty"`
	// Document is the 1-based index of the JSON value or YAML document.
	Document int `json:"document,omitempty"`
	// Item locates the object in its document: "items[3]" in a List or a
	// top-level array, "object" in a watch event, joined by "." when
	// nested ("items[2].object"); empty for the document itself.
	Item string `json:"item,omitempty"`
	// Line is the 1-based line; in YAML, the line the document or item
	// starts at.
	Line int `json:"line,omitempty"`
	// Offset is the 0-based byte offset; -1 when unknown (YAML).
	Offset int64 `json:"offset"`
}

// String returns "source:line (document N, item, byte offset)", leaving out
// what is unknown, escaped (see Escape).
func (p Position) String() string {
	s := Escape(p.Source)
	if s == "" {
		s = "(input)"
	}
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	var parts []string
	if p.Document > 0 {
		parts = append(parts, "document "+strconv.Itoa(p.Document))
	}
	if p.Item != "" {
		parts = append(parts, Escape(p.Item))
	}
	if p.Offset >= 0 && (p.Document > 0 || p.Offset > 0) {
		parts = append(parts, "byte "+strconv.FormatInt(p.Offset, 10))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// ObjectRef names the object an observation or a finding is about.
type ObjectRef struct {
	// Kind is "Service" for every finding but notices of skipped objects.
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// ResourceVersion is the observation's; empty for manifests.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// String returns "namespace/name", "name", or "(unnamed)", escaped.
func (o ObjectRef) String() string {
	switch {
	case o.Namespace != "":
		return Escape(o.Namespace) + "/" + Escape(o.Name)
	case o.Name != "":
		return Escape(o.Name)
	}
	return "(unnamed)"
}

// DecodeError is an input problem: malformed JSON or YAML, a truncated
// input, an object over the size limit, a field of the wrong type, a name
// given twice, an ERROR watch event. The Decoder goes on after one that is
// not Fatal.
type DecodeError struct {
	Position Position
	// Object names the object when its metadata could be read.
	Object ObjectRef
	// Field is the path of the member at fault, such as
	// "status.conditions[0].lastTransitionTime", when there is one.
	Field string
	Err   error
	// Fatal reports that nothing after the problem can be read.
	Fatal bool
}

// Error returns "position: [object: ][field: ]problem" on one escaped line.
func (e *DecodeError) Error() string {
	s := e.Position.String() + ": "
	if e.Object.Name != "" {
		s += e.Object.String() + ": "
	}
	if e.Field != "" {
		s += Escape(e.Field) + ": "
	}
	if e.Err != nil {
		s += Escape(e.Err.Error())
	}
	return s
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Escape returns s with what a terminal would act on escaped as in a Go
// string literal (\x1b, \u202e): invalid UTF-8 and every rune that is not
// graphic, such as controls and the format characters that reorder or
// hide text. Backslashes and double quotes are escaped too, but only when
// something else is. Names and messages come from untrusted input:
// unescaped, an object named "\x1b[2J" would clear the screen of whoever
// runs the check.
func Escape(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsGraphic(r) }) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// formatBytes renders n as MiB when it is a whole number of them.
func formatBytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
