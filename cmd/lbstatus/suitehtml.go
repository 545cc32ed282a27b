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

package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/input"
	"github.com/lbstatus/lbstatus/conformance/suite"
	"github.com/lbstatus/lbstatus/conformance/timeline"
)

// suiteHTMLPath is where the HTML form of a suite report written to
// reportPath goes: beside it, its extension replaced by .html
// ("report.yaml" gives "report.html"; "report.html", which would be
// overwritten, gives "report.html.html"). An empty reportPath gives "".
func suiteHTMLPath(reportPath string) string {
	if reportPath == "" {
		return ""
	}
	html := strings.TrimSuffix(reportPath, filepath.Ext(reportPath)) + ".html"
	if html == reportPath {
		html += ".html"
	}
	return html
}

// renderSuiteHTML writes the HTML form of the report file at path beside
// it, as a run with --report does, and returns the exit status.
func renderSuiteHTML(path string, stderr io.Writer) int {
	html := suiteHTMLPath(path)
	if replacesInput(html, path) != "" {
		// r.html a link to r.yaml: the page would replace the report.
		fmt.Fprintf(stderr, "lbstatus: --render %s: writing %s would replace the report itself; render a copy of another name\n",
			input.Escape(path), input.Escape(html))
		return exitInput
	}
	// Opened without waiting, and read only if a regular file: a FIFO
	// would wait for a writer, and /dev/zero would be read until memory
	// ran out.
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		if info, serr := file.Stat(); serr != nil || !info.Mode().IsRegular() {
			file.Close()
			err = cmp.Or(serr, fmt.Errorf("%s: not a regular file; not read", path))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: --render: %s\n", pathMessage(err))
		return exitInput
	}
	report, err := suite.ReadReport(file)
	file.Close()
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: --render: %s: %s\n", input.Escape(path), input.Escape(err.Error()))
		return exitInput
	}
	if err := writeSuiteHTML(html, report); err != nil {
		fmt.Fprintf(stderr, "lbstatus: --render: %s\n", pathMessage(err))
		return exitInput
	}
	fmt.Fprintf(stderr, "lbstatus: wrote %s\n", input.Escape(html))
	return exitOK
}

// writeSuiteHTML writes a suite report as a self-contained HTML page at
// path: the run's result, a table of the provider under test, one of the
// tests (with what each one's cleanup left on the cluster) and one of the
// features, then, per Service of every test, the lanes
// of its last observed state with the test's findings pinned at the end. The
// suite keeps each Service's last state, not its trace, so each lane holds
// one state. A nil report writes a page that says it is empty.
func writeSuiteHTML(path string, r *suite.Report) error {
	if r == nil {
		r = &suite.Report{}
	}
	page := timeline.Page{Title: "lbstatus conformance: " + string(r.Result)}
	// What was tested, where: not inputs read, so a table of its own.
	impl := r.Implementation
	run := timeline.Table{Caption: "Provider under test"}
	for _, kv := range [][2]string{
		{"organization", impl.Organization}, {"project", impl.Project}, {"version", impl.Version}, {"url", impl.URL},
		{"contact", strings.Join(impl.Contact, ", ")},
		{"loadBalancerClass", cmp.Or(r.LoadBalancerClass, "(none: the provider of Services without a class)")},
		{"required features through", string(r.RequiredFeaturesSource)},
		{"Kubernetes", r.KubernetesVersion}, {"rules", r.SpecVersion},
	} {
		if kv[1] != "" {
			run.Rows = append(run.Rows, kv[:])
		}
	}
	st := r.Statistics
	tests := timeline.Table{
		Caption: fmt.Sprintf("%s on %s: %d passed, %d skipped, %d failed, %d not run",
			r.Result, r.Date, st.Passed, st.Skipped, st.Failed, st.NotRun),
		Header: []string{"test", "rules", "result", "reason", "namespace", "duration", "findings", "left on the cluster"},
	}
	tl := timeline.New()
	for _, t := range r.Tests {
		tests.Rows = append(tests.Rows, []string{t.Name, strings.Join(t.Rules, ", "), string(t.Result), t.Reason,
			t.Namespace, t.Duration, strconv.Itoa(len(t.Findings)), t.Cleanup})
		for _, o := range t.LastObserved {
			svc := &v1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: o.Name, ResourceVersion: o.ResourceVersion},
				Status:     o.Status,
			}
			// A report without the type (an earlier version's) speaks
			// of LoadBalancer Services: every test creates them so.
			svc.Spec.Type = cmp.Or(o.Type, corev1.ServiceTypeLoadBalancer)
			tl.Observe(svc, nil)
			if o.Deleted { // drawn as ended there, not as a state it kept
				tl.ObserveObject(conformance.Object{Service: svc, Deleted: true}, nil)
			}
		}
		tl.Findings(t.Findings)
	}
	features := timeline.Table{Caption: "Features", Header: []string{"feature", "support", "evidence"}}
	for _, f := range r.Features {
		features.Rows = append(features.Rows, []string{string(f.Name), string(f.Support), f.Evidence})
	}
	page.Tables = []timeline.Table{run, tests, features}
	page.Services = tl.Services()
	// As check -o html: a run has some twenty Services, but --render
	// draws whatever report it is given, and a crafted one of many
	// thousands made a page of hundreds of MiB.
	page.MaxServices = defaultHTMLServices

	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(file)
	err = timeline.WriteHTML(w, page)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}
