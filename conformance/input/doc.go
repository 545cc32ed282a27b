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

// Package input reads the objects the conformance checker judges, one at a
// time and in input order, each with its Position, from files and streams
// of JSON or YAML: concatenated values, arrays, Lists and watch events,
// nested in any way, and multi-document YAML.
//
// What is read must mean one thing, or it is not checked (section 8 of the
// specification, "Reading inputs"). Each value is decoded once, with
// github.com/go-json-experiment/json, so that a name given twice at any
// depth (compared unescaped) makes the object an input error before its
// kind is decided (in a List, the item: its other items are read, whether
// the List is read whole or item by item), and member order means nothing:
// an event's type may follow its object. Names match case-sensitively and
// unknown members are ignored, as in kube-apiserver. A BOOKMARK event is not an observation; an
// ERROR event is an input error.
//
// Memory is bounded by the size limit of one object, not by the input.
// jsontext splits JSON, behind a reader that refuses to let it hold a value
// over the limit; such a value is read token by token instead, a List's
// items handed out one by one and anything else skipped. YAML is split
// line by line into documents, as kubectl splits it, and the List that
// "kubectl get -o yaml" prints into its items; sigs.k8s.io/yaml parses
// each, as kubectl does, and a document whose value ends before its text
// does, the rest of which the parser would drop, is an input error. A List
// cut where a line only looked like an item's start is noticed, and not
// read on. Batches of values are decoded in parallel while the caller
// consumes the objects, and their results handed on in chunks as they are
// decoded, so that a List read whole is not held as all its items' results.
// A read that is interrupted, as a watch is, does not hand out the document
// it was in the middle of, which what was to come might change: Unfinished
// says where that document starts.
//
// Every string from the input may reach a terminal: Escape, and the String
// and Error methods of this package, escape what a terminal would act on;
// Clip, which Error uses too, cuts one that a message quotes or a report
// keeps to what a valid one may hold.
package input
