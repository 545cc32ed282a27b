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

// Command lbstatus checks that the status a load-balancer provider writes on
// Services conforms to KEP-4631, as the project's specification states it.
// It is a thin command line over package conformance.
//
//	lbstatus check [flags] [PATH|-]...   files, directories, standard input
//	lbstatus watch [flags]               a live cluster's watch stream
//	lbstatus describe [flags] [svc/NAME]...  one screen per Service of a cluster
//	lbstatus explain [RULE]...           what rules require
//	lbstatus conformance [flags]         the conformance suite against a cluster
//	lbstatus version                     the version, commit and rules version
//
// check reads single objects, Lists (in JSON and YAML, item by item),
// multi-document YAML, watch events and streams of concatenated JSON objects
// ("kubectl get services --watch -o json"), and prints a table per input (-o
// text), a JSON report (-o json) or one HTML page of timelines (-o html).
// Its exit status is 0 when nothing violates the specification, 1 when
// something does, and 2 when an input cannot be read or parsed (one line per
// problem on standard error, naming the file and the position), when
// --require-services found no Service, when the check was interrupted
// without a violation, when the report could not be written, or when the
// command line is wrong; a bad input does not stop the others from being
// checked. SIGINT and SIGTERM stop it with a report of what was read, which
// names the document the interrupt cut short, not checked.
//
// watch lists and watches the Services of a cluster selected by kubectl's
// cluster flags (cluster.go: --kubeconfig, --context, -n, -A, -l,
// --request-timeout, ...), prints each finding as it is made and checks each
// observation (uid and resourceVersion) once. A broken watch resumes from
// the last resourceVersion seen; an expired one lists again and prints a gap
// record naming what it did not see. It prints a summary when interrupted,
// with an L8 notice for each Service no KEP-aware provider handles.
//
// conformance runs the suite of package conformance/suite against a
// cluster's provider and writes its report, YAML or JSON, and an HTML page.
//
// describe shows, per Service of a cluster, its load-balancer-relevant spec,
// required features, conditions with ages, ingress, verdict, findings and
// latest Events. check --timeline, check -o html and watch --timeline tell
// the story of a trace per Service (package conformance/timeline).
//
// # kubectl plugin
//
// kubectl runs any executable named kubectl-NAME on the PATH as
// "kubectl NAME". Install lbstatus under that name to use it as a plugin:
//
//	go build -o "$(go env GOPATH)/bin/kubectl-lbstatus" ./cmd/lbstatus
//	kubectl lbstatus watch -A
//	kubectl get services -A -o json | kubectl lbstatus check
//
// kubectl passes the arguments through unchanged, so the flags are the
// same; "kubectl plugin list" shows it once the directory is on the PATH.
package main
