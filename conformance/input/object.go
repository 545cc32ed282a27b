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
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// wire is every member an object of the input may have that the reader
// needs: a Service's, a List's (items) and a watch event's (type, object).
// One decode into it checks the whole object, duplicate names at any depth
// included, before anything is decided about it, and makes member order
// irrelevant. The members of other kinds' objects are skipped, but still
// read: a duplicate name anywhere makes any object unreadable.
type wire struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Metadata   metaWire   `json:"metadata"`
	Spec       specWire   `json:"spec"`
	Status     statusWire `json:"status"`
	Items      located    `json:"items"`
	Type       string     `json:"type"`
	Object     located    `json:"object"`
	// Message is a Status's, for the object of an ERROR event.
	Message string `json:"message"`
}

// probe is what the reader looks at when an object does not decode as a
// Service: enough to name it and say whether it is one.
type probe struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Namespace       string `json:"namespace"`
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Type   string  `json:"type"`
	Object located `json:"object"`
	Items  located `json:"items"`
}

// located is a member's value, kept raw, and its offset in the object, so
// that what is found in it can be located in the input.
type located struct {
	v   jsontext.Value
	off int64
}

// UnmarshalJSONFrom keeps the value and where it starts.
func (l *located) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	l.off = dec.InputOffset()
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	l.v = bytes.Clone(v)
	return nil
}

// at returns the position of the value, in an object at pos.
func (l *located) at(pos Position, raw []byte) Position {
	if l.off < 0 || l.off > int64(len(raw)) {
		return pos
	}
	return at(pos, raw, l.off+int64(leadingDelims(raw[l.off:])))
}

// job is a value the splitter read whole: a JSON document, an item of a
// List, an element of an array, or a YAML document converted to JSON.
type job struct {
	raw []byte
	pos Position
	// yaml marks a job whose raw is YAML still to be converted; its
	// offsets then mean nothing.
	yaml bool
	// containerKind is the kind of the List the value is an item of, when
	// known; "" otherwise.
	containerKind string
	// err is a problem the splitter found instead of a value.
	err *DecodeError
}

// result is one outcome of a job: an object or a problem.
type result struct {
	obj Object
	err *DecodeError
}

// maxNesting bounds how deep Lists and watch events may nest inside one
// another: each level is decoded again.
const maxNesting = 8

// decodeJob turns one job into its objects and problems, in input order.
func decodeJob(j job, limit int, out []result) []result {
	if j.err != nil {
		return append(out, result{err: j.err})
	}
	raw := j.raw
	if j.yaml {
		var err error
		if raw, err = yamlToJSON(raw); err != nil {
			return append(out, result{err: &DecodeError{Position: j.pos, Err: err}})
		}
		if len(raw) == 0 || string(raw) == "null" {
			return out
		}
	}
	return decodeValue(raw, j.pos, j.containerKind, false, limit, 0, out)
}

// decodeValue decodes one value: an object (a Service, another kind, a List
// or a watch event) or, nested in a document, an array of such values.
// deleted marks the object of a DELETED event.
func decodeValue(raw []byte, pos Position, containerKind string, deleted bool, limit, depth int, out []result) []result {
	if len(raw) > limit {
		// A List is not one object: the limit applies to its items.
		var p probe
		err := json.Unmarshal(raw, &p)
		switch {
		case err == nil && p.Items.v != nil:
			return decodeElements(p.Items.v, p.Items.at(pos, raw), "items", listKind(p.Kind), limit, depth+1, out)
		case errors.Is(err, jsontext.ErrDuplicateName):
			de, _ := objectError(raw, pos, err)
			return append(out, result{err: de})
		}
		return append(out, result{err: &DecodeError{Position: pos,
			Err: fmt.Errorf("object of %d bytes is larger than the limit of %s; skipped", len(raw), formatBytes(limit))}})
	}
	if depth > maxNesting {
		return append(out, result{err: &DecodeError{Position: pos, Err: errors.New("Lists and watch events nested too deep; skipped")}})
	}
	switch kindOf(raw) {
	case '[':
		return decodeElements(raw, pos, "", listKind(containerKind), limit, depth+1, out)
	case '{':
	default:
		return append(out, result{err: &DecodeError{Position: pos, Err: errors.New("not a JSON object")}})
	}
	var w wire
	err := json.Unmarshal(raw, &w, unmarshalOptions)
	if err != nil {
		de, p := objectError(raw, pos, err)
		kind, apiVersion := resolveKind(p.Kind, p.APIVersion, containerKind)
		if de != nil && !(errors.As(err, new(*json.SemanticError)) && !isCoreService(kind, apiVersion)) {
			return append(out, result{err: de})
		}
		// Another kind that does not fit a Service's fields: skipped, as
		// any other kind is; what it holds is not the checker's business.
		ref := ObjectRef{Kind: kind, Namespace: p.Metadata.Namespace, Name: p.Metadata.Name, ResourceVersion: p.Metadata.ResourceVersion}
		return append(out, result{obj: Object{Position: pos, Kind: kind, APIVersion: apiVersion, Ref: ref}})
	}
	switch {
	case w.Items.v != nil:
		// A List: its items, one by one. An item carries its kind; a
		// ServiceList's items, as the API returns them, do not.
		return decodeElements(w.Items.v, w.Items.at(pos, raw), "items", listKind(w.Kind), limit, depth+1, out)
	case w.Object.v != nil || w.Type != "":
		return decodeEvent(raw, pos, &w, limit, depth, out)
	}
	kind, apiVersion := resolveKind(w.Kind, w.APIVersion, containerKind)
	ref := ObjectRef{Kind: kind, Namespace: w.Metadata.Namespace, Name: w.Metadata.Name, ResourceVersion: w.Metadata.ResourceVersion}
	obj := Object{Position: pos, Kind: kind, APIVersion: apiVersion, Ref: ref}
	if !isCoreService(kind, apiVersion) {
		return append(out, result{obj: obj})
	}
	obj.Service = w.service()
	obj.Deleted = deleted
	return append(out, result{obj: obj})
}

// decodeEvent handles a watch event: {"type": ..., "object": ...}, members
// in any order.
func decodeEvent(raw []byte, pos Position, w *wire, limit, depth int, out []result) []result {
	objPos := nest(w.Object.at(pos, raw), "object")
	switch w.Type {
	case "ADDED", "MODIFIED", "DELETED":
		if w.Object.v == nil {
			return append(out, result{err: &DecodeError{Position: pos, Err: fmt.Errorf("watch event %s without an object", w.Type)}})
		}
		return decodeValue(w.Object.v, objPos, "WatchEvent", w.Type == "DELETED", limit, depth+1, out)
	case "BOOKMARK":
		// A bookmark only carries a resourceVersion: not an observation.
		return out
	case "ERROR":
		var st struct {
			Message string `json:"message"`
			Reason  string `json:"reason"`
			Code    int    `json:"code"`
		}
		_ = json.Unmarshal(w.Object.v, &st)
		msg := st.Message
		if msg == "" {
			msg = "no message"
		}
		detail := ""
		if st.Code != 0 || st.Reason != "" {
			detail = fmt.Sprintf(" (%s, %d)", st.Reason, st.Code)
		}
		return append(out, result{err: &DecodeError{Position: pos, Err: fmt.Errorf("watch event ERROR%s: %s", detail, msg)}})
	case "":
		return append(out, result{err: &DecodeError{Position: pos, Err: errors.New("watch event without a type")}})
	}
	return append(out, result{err: &DecodeError{Position: pos, Field: "type", Err: fmt.Errorf("unknown watch event type %q", w.Type)}})
}

// decodeElements decodes the elements of an array: the items of a List, or
// an array nested in a document.
func decodeElements(raw []byte, pos Position, name, containerKind string, limit, depth int, out []result) []result {
	if kindOf(raw) != '[' {
		if string(raw) == "null" {
			return out
		}
		return append(out, result{err: &DecodeError{Position: pos, Field: name, Err: errors.New("not a JSON array")}})
	}
	d := jsontext.NewDecoder(bytes.NewBuffer(raw))
	if _, err := d.ReadToken(); err != nil {
		return append(out, result{err: &DecodeError{Position: pos, Err: err}})
	}
	for i := 0; d.PeekKind() != ']'; i++ {
		start := d.InputOffset()
		v, err := d.ReadValue()
		if err != nil {
			// The array was read whole before: this cannot happen.
			return append(out, result{err: &DecodeError{Position: pos, Err: err}})
		}
		p := pos
		if p.Offset >= 0 {
			skip := int64(leadingDelims(raw[start:]))
			p.Line += bytes.Count(raw[:start+skip], []byte{'\n'})
			p.Offset += start + skip
		}
		item := "[" + strconv.Itoa(i) + "]"
		if name != "" {
			item = name + item
		}
		out = decodeValue(v, nest(p, item), containerKind, false, limit, depth, out)
	}
	return out
}

// nest appends item to pos's Item.
func nest(pos Position, item string) Position {
	if pos.Item != "" {
		item = pos.Item + "." + item
	}
	pos.Item = item
	return pos
}

// at returns the position of byte off of raw, which is at pos.
func at(pos Position, raw []byte, off int64) Position {
	if pos.Offset < 0 || off < 0 || off > int64(len(raw)) {
		return pos
	}
	pos.Line += bytes.Count(raw[:off], []byte{'\n'})
	pos.Offset += off
	return pos
}

// leadingDelims counts the white space, commas and colons before a value.
func leadingDelims(b []byte) int {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n', ',', ':':
		default:
			return i
		}
	}
	return len(b)
}

// kindOf returns the first byte of a JSON value after white space.
func kindOf(raw []byte) byte {
	if i := leadingDelims(raw); i < len(raw) {
		return raw[i]
	}
	return 0
}

// objectError turns an error decoding raw into a DecodeError naming the
// object, the member and the byte.
func objectError(raw []byte, pos Position, err error) (*DecodeError, probe) {
	var p probe
	_ = json.Unmarshal(raw, &p, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	ref := ObjectRef{Kind: p.Kind, Namespace: p.Metadata.Namespace, Name: p.Metadata.Name, ResourceVersion: p.Metadata.ResourceVersion}
	de := &DecodeError{Position: pos, Object: ref}
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		de.Position = at(pos, raw, syn.ByteOffset)
		de.Field = fieldPath(syn.JSONPointer)
		switch {
		case errors.Is(err, jsontext.ErrDuplicateName):
			de.Err = fmt.Errorf("duplicate member name %q: the object is ambiguous and was not checked", lastToken(syn.JSONPointer, syn.Err))
		default:
			de.Err = fmt.Errorf("malformed JSON: %s", trimJSONError(syn.Err))
		}
	case errors.As(err, &sem):
		de.Position = at(pos, raw, sem.ByteOffset)
		de.Field = fieldPath(sem.JSONPointer)
		de.Err = semanticMessage(sem)
	default:
		de.Err = errors.New(trimJSONError(err))
	}
	return de, p
}

// resolveKind returns the kind of an object: its own, or for an object
// without one, what its container says. Items of a ServiceList, and
// objects of watch events, carry no kind on the wire; a List's kind may
// come after its items (kubectl sorts members), so no container kind
// counts as a List of Services.
func resolveKind(kind, apiVersion, containerKind string) (string, string) {
	if kind != "" {
		return kind, apiVersion
	}
	switch containerKind {
	case "":
		return "", apiVersion // a document: no kind is no kind
	case "List", "ServiceList", "WatchEvent":
		return "Service", "v1"
	}
	return strings.TrimSuffix(containerKind, "List"), apiVersion
}

// listKind is the container kind of a List's items: its kind, or "List"
// when it has none or it comes after the items.
func listKind(kind string) string {
	if kind == "" {
		return "List"
	}
	return kind
}

// isCoreService reports whether kind and apiVersion are core/v1 Service's.
func isCoreService(kind, apiVersion string) bool {
	return kind == "Service" && (apiVersion == "v1" || apiVersion == "")
}

// semanticMessage says what a manifest author did wrong, without Go types.
func semanticMessage(sem *json.SemanticError) error {
	what := "a JSON " + sem.JSONKind.String()
	if sem.JSONKind == 0 {
		what = "this value"
	}
	want := "another type"
	if sem.GoType != nil {
		want = goTypeName(sem.GoType.String())
	}
	msg := what + " where " + want + " is expected"
	if sem.Err != nil {
		msg += ": " + sem.Err.Error()
	}
	return errors.New(msg)
}

// goTypeName names a Go type the way a manifest author thinks of it.
func goTypeName(t string) string {
	switch t {
	case "string", "v1.ConditionStatus", "v1.ServiceType", "v1.Protocol", "v1.LoadBalancerFeature",
		"v1.ServiceAffinity", "v1.ServiceExternalTrafficPolicy", "v1.IPFamily", "v1.IPFamilyPolicy", "v1.UID", "types.UID":
		return "a string"
	case "int", "int32", "int64", "uint", "uint32", "uint64":
		return "an integer"
	case "bool":
		return "a boolean"
	case "v1.Time", "*v1.Time":
		return "a time (RFC 3339)"
	}
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "an object"
	}
	t = strings.TrimPrefix(t, "*")
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return "a " + t
}

// fieldPath turns a JSON pointer into the path a finding would name:
// "/status/conditions/0/type" is "status.conditions[0].type".
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// lastToken returns the duplicate name from a duplicate-name error.
func lastToken(p jsontext.Pointer, err error) string {
	// The error's pointer locates the object; its message names the member.
	msg := err.Error()
	if i := strings.IndexByte(msg, '"'); i >= 0 {
		if s, err := strconv.Unquote(msg[i : strings.LastIndexByte(msg, '"')+1]); err == nil {
			return s
		}
	}
	return p.LastToken()
}

// trimJSONError drops the package prefixes of a json error.
func trimJSONError(err error) string {
	msg := err.Error()
	for _, p := range []string{"jsontext: ", "json: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// formatBytes renders n as MiB when it is a whole number of them.
func formatBytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " bytes"
}
