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

package suite

import (
	"cmp"
	"context"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/lbstatus/lbstatus/conformance"
)

// RunT runs the suite from a go test and reports each test of section 9 as
// a subtest of t: failed tests fail with their reason and violations,
// skipped and not-run tests skip with their reason; a test's cleanup that
// left something on the cluster fails t, naming it. It returns the report,
// or nil when the run could not start (t has then failed). A nil client
// fails t. The run ends before the go test's -timeout, which would end
// the test binary without any cleanup: the tests under way stop, clean up
// and are reported as not run, and t fails.
func RunT(t *testing.T, client kubernetes.Interface, opts Options) *Report {
	t.Helper()
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		// Room for the cleanups: each has the cleanup timeout to delete
		// its namespace, as much again to find one whose creation got
		// no answer, and the run as much again for them all to go.
		grace := min(4*cmp.Or(opts.CleanupTimeout, DefaultCleanupTimeout), time.Until(deadline)/2)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-grace))
		defer cancel()
	}
	report, err := Run(ctx, client, opts)
	if err != nil {
		t.Fatal(err)
		return nil
	}
	if ctx.Err() != nil {
		t.Errorf("the run stopped before go test's -timeout, to clean up; the tests it stopped are not run: give go test a longer -timeout")
	}
	for _, tr := range report.Tests {
		t.Run(tr.Name, func(t *testing.T) {
			switch tr.Result {
			case TestPassed:
			case TestFailed:
				for _, f := range tr.Findings {
					if f.Severity == conformance.SeverityViolation {
						t.Errorf("%s %s %s: %s", f.Rule, f.Object.Name, f.Field, f.Message)
					}
				}
				t.Fatal(tr.Reason)
			default:
				t.Skip(tr.Reason)
			}
		})
	}
	// Whatever the tests showed, what they left on the cluster fails the
	// run: it holds load balancers no one will delete.
	for _, tr := range report.Tests {
		if tr.Cleanup != "" {
			t.Errorf("%s: %s", tr.Name, tr.Cleanup)
		}
	}
	return report
}
