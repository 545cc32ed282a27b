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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/suite"
)

// htmlTables returns the title of an HTML page and its tables, each as
// its caption then its rows, cells joined by "|".
func htmlTables(t *testing.T, path string) (title string, tables [][]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	var text func(*html.Node) string
	text = func(n *html.Node) string {
		if n.Type == html.TextNode {
			return n.Data
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(text(c))
		}
		return b.String()
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "title":
				if title == "" { // the page's, not a tooltip's
					title = strings.TrimSpace(text(n))
				}
			case "table":
				tables = append(tables, nil)
			case "caption":
				tables[len(tables)-1] = append(tables[len(tables)-1], strings.TrimSpace(text(n)))
			case "tr":
				var cells []string
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
						cells = append(cells, strings.TrimSpace(text(c)))
					}
				}
				tables[len(tables)-1] = append(tables[len(tables)-1], strings.Join(cells, "|"))
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return title, tables
}

// The suite page's title says the result; its tables come in order (the
// provider under test, the tests, the features); the provider's table
// names each field given, the contacts joined, and says when no class was
// tested; the tests' table gives each test's rules, duration and count of
// findings; each Service's lanes hold its last state.
func TestWriteSuiteHTML_Tables(t *testing.T) {
	r := &suite.Report{
		Result: suite.ResultSuccess, Date: "2026-05-04T12:00:00Z", KubernetesVersion: "v1.37.2", SpecVersion: "v0.4",
		RequiredFeaturesSource: conditions.RequiredFeaturesSourceSpec,
		Implementation: suite.Implementation{Organization: "Example", Project: "ref-lb", Version: "v0.3.0",
			URL: "https://lb.example", Contact: []string{"@alice", "@bob"}},
		Statistics: suite.Statistics{Passed: 1, Skipped: 2, Failed: 3, NotRun: 4},
		Tests: []suite.TestReport{{Name: "Lifecycle", Rules: []string{"L1", "L2"}, Result: suite.TestPassed, Namespace: "lbs-a", Duration: "12s",
			LastObserved: []suite.ObservedService{{Name: "web", ResourceVersion: "9", Status: v1.ServiceStatus{Conditions: []metav1.Condition{
				{Type: string(v1.LoadBalancerConditionProvisioning), Status: metav1.ConditionTrue, Reason: "Provisioning"}}}}},
			Findings: []conformance.Finding{{Rule: "T4", Severity: conformance.SeverityNotice, Message: "pending",
				Object: conformance.ObjectRef{Kind: "Service", Namespace: "lbs-a", Name: "web"}}}}},
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := writeSuiteHTML(path, r); err != nil {
		t.Fatal(err)
	}
	// The last state observed, with its resourceVersion, on the Service's lanes.
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "LoadBalancerProvisioning from observation 1 (resourceVersion 9): True, Provisioning") {
		t.Errorf("the last state of lbs-a/web is not on its lanes (%v)", err)
	}
	title, tables := htmlTables(t, path)
	if want := "lbstatus conformance: " + string(suite.ResultSuccess); title != want {
		t.Errorf("title %q, want %q", title, want)
	}
	if len(tables) < 3 {
		t.Fatalf("tables %q, want three", tables)
	}
	want := [][]string{
		{"Provider under test", "organization|Example", "project|ref-lb", "version|v0.3.0", "url|https://lb.example",
			"contact|@alice, @bob", "loadBalancerClass|(none: the provider of Services without a class)",
			"required features through|Spec", "Kubernetes|v1.37.2", "rules|v0.4"},
		{string(suite.ResultSuccess) + " on 2026-05-04T12:00:00Z: 1 passed, 2 skipped, 3 failed, 4 not run",
			"test|rules|result|reason|namespace|duration|findings|left on the cluster", "Lifecycle|L1, L2|" + string(suite.TestPassed) + "||lbs-a|12s|1|"},
		{"Features", "feature|support|evidence"},
	}
	for i := range want {
		if got := strings.Join(tables[i], "\n"); got != strings.Join(want[i], "\n") {
			t.Errorf("table %d:\n%s\nwant\n%s", i, got, strings.Join(want[i], "\n"))
		}
	}
}

// What a test's cleanup could not delete is on the page too, in the
// test's row, as in the report it renders: a reader of the page alone
// learns what is left on the cluster.
func TestWriteSuiteHTML_CleanupLeftovers(t *testing.T) {
	left := "left on the cluster: namespace lbs-a (namespaces \"lbs-a\" is forbidden)"
	r := &suite.Report{Tests: []suite.TestReport{{Name: "Basic", Result: suite.TestPassed, Namespace: "lbs-a", Cleanup: left}}}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := writeSuiteHTML(path, r); err != nil {
		t.Fatal(err)
	}
	_, tables := htmlTables(t, path)
	if len(tables) < 2 || len(tables[1]) < 3 || !strings.HasSuffix(tables[1][2], "|"+left) {
		t.Errorf("the tests' table %q does not say %q", tables, left)
	}
}

// A nil suite report still writes a page, with its tables empty.
func TestWriteSuiteHTML_Nil(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	if err := writeSuiteHTML(path, nil); err != nil {
		t.Fatal(err)
	}
	title, tables := htmlTables(t, path)
	if title != "lbstatus conformance:" || len(tables) != 3 || len(tables[0]) != 2 {
		t.Errorf("title %q, tables %q", title, tables)
	}
}

// A Service a test turned into a ClusterIP one (TypeChange) is drawn as
// what it was: no verdict, not a LoadBalancer Service still waiting for
// its provider (T4). A report without the type, an earlier version's,
// still speaks of LoadBalancer Services.
func TestWriteSuiteHTML_TypeOfTheLastState(t *testing.T) {
	for _, tc := range []struct {
		name    string
		typ     corev1.ServiceType
		pending bool
	}{
		{"ClusterIP", corev1.ServiceTypeClusterIP, false},
		{"no type", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &suite.Report{Tests: []suite.TestReport{{Name: "TypeChange", Result: suite.TestPassed, Namespace: "lbs-t",
				LastObserved: []suite.ObservedService{{Name: "retype", ResourceVersion: "7", Type: tc.typ}}}}}
			if got := strings.Contains(suitePage(t, r), "Pending, T4"); got != tc.pending {
				t.Errorf("the page says Pending (T4): %v, want %v", got, tc.pending)
			}
		})
	}
}

// A Service whose last observation was its deletion is drawn as deleted
// there, not as a state it kept to the end.
func TestWriteSuiteHTML_DeletedLastState(t *testing.T) {
	for _, deleted := range []bool{true, false} {
		r := &suite.Report{Tests: []suite.TestReport{{Name: "Basic", Result: suite.TestPassed, Namespace: "lbs-t",
			LastObserved: []suite.ObservedService{{Name: "web", ResourceVersion: "7", Type: corev1.ServiceTypeLoadBalancer, Deleted: deleted}}}}}
		if got := strings.Contains(suitePage(t, r), "the Service was deleted"); got != deleted {
			t.Errorf("deleted %v: the page says the Service was deleted: %v", deleted, got)
		}
	}
}

// The page draws at most defaultHTMLServices Services, as check -o html
// does, and says how many of how many: a report crafted with thousands
// made a page of hundreds of MiB that no browser opens.
func TestWriteSuiteHTML_MaxServices(t *testing.T) {
	tr := suite.TestReport{Name: "Basic", Result: suite.TestPassed, Namespace: "ns"}
	for i := range defaultHTMLServices + 100 {
		tr.LastObserved = append(tr.LastObserved, suite.ObservedService{Name: fmt.Sprintf("s%d", i)})
	}
	page := suitePage(t, &suite.Report{Result: suite.ResultSuccess, Tests: []suite.TestReport{tr}})
	if n := strings.Count(page, `<section class="service"`); n != defaultHTMLServices {
		t.Errorf("%d Services drawn, want %d", n, defaultHTMLServices)
	}
	if want := fmt.Sprintf("%d of %d Services are drawn", defaultHTMLServices, defaultHTMLServices+100); !strings.Contains(page, want) {
		t.Errorf("the page does not say %q", want)
	}
}
