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
	"strconv"
	"strings"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Position says where an object, or a problem, is in the input.
type Position struct {
	// Source names the input: a file name, or "-" for standard input.
	Source string `json:"source,omitempty"`
	// Document is the 1-based index of the document in the input: a JSON
	// value of a stream of concatenated values, or a YAML document.
	Document int `json:"document,omitempty"`
	// Item locates the object inside its document: "items[3]" for an item
	// of a List or an element of a top-level array, "object" for the object
	// of a watch event, joined by "." when nested ("items[1].items[0]",
	// "items[2].object"); empty for a document that is the object itself.
	Item string `json:"item,omitempty"`
	// Line is the 1-based line. For YAML it is the line a document, or a
	// List item, starts at, since a decoding problem cannot be traced
	// further.
	Line int `json:"line,omitempty"`
	// Offset is the 0-based byte offset in the input; -1 when unknown (YAML).
	Offset int64 `json:"offset"`
}

// String returns "source:line (document N, item, byte offset)", leaving out
// what is unknown. The source and item are escaped (see Escape), since
// they come from the input or the command line.
func (p Position) String() string {
	var b strings.Builder
	b.WriteString(Escape(p.Source))
	if p.Source == "" {
		b.WriteString("(input)")
	}
	if p.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
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
		b.WriteString(" (")
		b.WriteString(strings.Join(parts, ", "))
		b.WriteByte(')')
	}
	return b.String()
}

// ObjectRef identifies an object read from the input. Namespace is empty
// for cluster-scoped objects and for manifests that leave it out.
type ObjectRef struct {
	// Kind is the object's kind; "Service" for every finding but the
	// notices about skipped objects.
	Kind string `json:"kind,omitempty"`
	// Namespace is metadata.namespace as observed.
	Namespace string `json:"namespace,omitempty"`
	// Name is metadata.name as observed.
	Name string `json:"name,omitempty"`
	// ResourceVersion is metadata.resourceVersion of the observation;
	// empty for manifests.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// String returns "namespace/name", or "name" without a namespace, and
// "(unnamed)" when both are empty. Control characters are escaped (see
// Escape): names come from the input and reach terminals.
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
// stream, an object over the size limit, a field of the wrong type, a
// member name given twice, a watch event of type ERROR. After a DecodeError
// that is not Fatal, the Decoder goes on with the next object; after a
// Fatal one, the input cannot be read further and Next returns io.EOF.
type DecodeError struct {
	// Position is where the problem is: the object's start, or the byte
	// the problem was found at when that is known.
	Position Position
	// Object names the object when its metadata could be read; empty
	// otherwise.
	Object ObjectRef
	// Field is the JSON path of the member the problem is in, such as
	// "status.conditions[0].lastTransitionTime"; empty when the problem is
	// not in one member.
	Field string
	// Err says what is wrong.
	Err error
	// Fatal reports that nothing after the problem can be read.
	Fatal bool
}

// Error returns "position: [object: ][field: ]problem" on one line, with
// control characters escaped.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString(e.Position.String())
	b.WriteString(": ")
	if e.Object.Name != "" {
		b.WriteString(e.Object.String())
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(Escape(e.Field))
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(Escape(e.Err.Error()))
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Object is one object read from the input.
type Object struct {
	// Position is where the object starts.
	Position Position
	// Kind and APIVersion are the object's; for an item of a ServiceList
	// or a watch event, which carry none, "Service" and "v1".
	Kind, APIVersion string
	// Ref names the object.
	Ref ObjectRef
	// Service is the decoded Service; nil for objects of other kinds.
	Service *v1.Service
	// Deleted marks the object of a DELETED watch event: the Service is
	// gone, and a later one of the same name is a new Service.
	Deleted bool
}
