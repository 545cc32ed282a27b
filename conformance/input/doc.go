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

// Package input reads the objects the conformance checker judges: files
// and streams of Kubernetes objects in JSON or YAML, one object at a time.
//
// # Model
//
// An input is a sequence of documents: concatenated JSON values (what
// `kubectl get --watch -o json` prints), a top-level JSON array, or
// multi-document YAML. A document is an object, a List (items in any
// kind of List, a ServiceList's without kind), or a watch event
// ({"type": ..., "object": ...}); Lists and events nest. Decoder.Next
// hands out the objects one by one, in input order, each with its
// Position (source, document, item, line, byte offset).
//
// What is read must mean one thing, or it is not checked (section 8 of
// the specification, "Reading inputs"):
//
//   - each value is decoded once, with github.com/go-json-experiment/json,
//     into every member the reader needs; a member name given twice at any
//     depth, compared after unescaping, makes the object an input error
//     before its kind, or whether it is a List or an event, is decided;
//   - member order means nothing: an event's type may follow its object;
//   - names are matched case-sensitively and unknown members are ignored,
//     as kube-apiserver decodes;
//   - a BOOKMARK event is not an observation; an ERROR event is an input
//     error naming its status message.
//
// # Memory
//
// The reader holds one value at a time, at most MaxObjectBytes
// (DefaultMaxObjectBytes, 4 MiB) of it plus a read buffer. jsontext
// splits the stream; it would hold a value whole, so a value over the
// limit is refused as it is being read: a List is then read item by item,
// each item under the limit, and anything else ends the input, since
// skipping it would mean holding it. YAML documents come from
// k8s.io/apimachinery's YAMLReader, behind a line filter that turns the
// items of a top-level "items:" block sequence (`kubectl get -o yaml`) into
// documents of their own, so a YAML List of any length is read item by
// item too, and caps every document at the limit.
//
// # Speed
//
// Decoding, not reading, is what costs: Workers goroutines decode batches
// of values while the caller consumes the objects, in input order. Only
// the fields the checker reads are decoded (the metadata that names an
// observation, annotations, the load-balancer-relevant spec, the status).
//
// Every string an input holds may reach a terminal: Escape, and the String
// and Error methods of this package, escape control and format characters.
package input
