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

package conformance

import (
	"io"

	"github.com/lbstatus/lbstatus/conformance/input"
)

// The input types live in package input, which reads files and streams;
// these names keep the checker's API whole for its users.
type (
	// Position says where an object, or a problem, is in the input; see
	// input.Position.
	Position = input.Position
	// ObjectRef identifies the observation a finding is about; see
	// input.ObjectRef.
	ObjectRef = input.ObjectRef
	// Object is one object read from the input; see input.Object.
	Object = input.Object
	// DecodeError is an input problem; see input.DecodeError.
	DecodeError = input.DecodeError
	// Decoder reads objects from JSON or YAML; see input.Decoder.
	Decoder = input.Decoder
	// DecoderOption configures a Decoder; see input.DecoderOption.
	DecoderOption = input.DecoderOption
	// MaxObjectBytes is the size limit of one object; see
	// input.MaxObjectBytes.
	MaxObjectBytes = input.MaxObjectBytes
)

// DefaultMaxObjectBytes is input.DefaultMaxObjectBytes.
const DefaultMaxObjectBytes = input.DefaultMaxObjectBytes

// NewDecoder is input.NewDecoder: a Decoder reading r, source naming it.
func NewDecoder(r io.Reader, source string, opts ...DecoderOption) *Decoder {
	return input.NewDecoder(r, source, opts...)
}
