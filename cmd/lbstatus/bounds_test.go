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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/input"
)

// watch names a Service in each finding as check does: its namespace and
// name cut after the first KiB, in JSON as in text, while the two
// Services whose names differ past that KiB only stay two.
func TestWatch_LongNamesAreCut(t *testing.T) {
	long := strings.Repeat("a", 64<<10)
	old := func(s *v1.Service) { s.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour)) }
	for _, format := range []string{"json", "text"} {
		cluster := newFakeCluster(service(long+"1", "10", old), service(long+"2", "11", old))
		stdout, _, stop := startWatch(t, fakeEnv(cluster), "-o", format)
		cluster.nextWatcher(t)
		if code := stop(); code != exitOK {
			t.Errorf("-o %s: exit %d, want 0", format, code)
		}
		out := stdout.String()
		if len(out) > 32<<10 || !strings.Contains(out, long[:input.MaxTextBytes]+"… (") || strings.Count(out, "past L8's 30s") != 2 {
			t.Errorf("-o %s: %d bytes of output; want two L8 notices, each name cut after %d, marked as cut:\n%.3000s", format, len(out), input.MaxTextBytes, out)
		}
		if format == "json" && !strings.Contains(out, `"services":2`) {
			t.Errorf("-o json: want two Services in the summary:\n%.3000s", out)
		}
	}
}
