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
	"encoding/json"
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

// The resourceVersions that bound a gap come from the server's list and
// the watch: the gap's line, in JSON and in text, quotes the first KiB of
// each, marked as cut, and the watch still resumes from the whole one.
func TestWatch_GapLongResourceVersionsAreCut(t *testing.T) {
	from, to := strings.Repeat("1", 64<<10), strings.Repeat("2", 64<<10)
	for _, args := range [][]string{{"-o", "json"}, {"--timeline"}} {
		cluster := newFakeCluster(service("web", "5", nil))
		cluster.rv = from
		stdout, _, stop := startWatch(t, fakeEnv(cluster), args...)
		w := cluster.nextWatcher(t)
		cluster.set(to, service("web", "6", nil))
		w.Error(expired())
		cluster.nextWatcher(t)
		if code := stop(); code != exitOK {
			t.Errorf("%v: exit %d, want 0", args, code)
		}
		out := stdout.String()
		var gap string
		for line := range strings.Lines(out) {
			if strings.Contains(line, "gap") && strings.Contains(line, "default/web") {
				gap = line
			}
		}
		if len(out) > 32<<10 || len(gap) > 4<<10 || !strings.Contains(gap, from[:input.MaxTextBytes]+"… (") || !strings.Contains(gap, to[:input.MaxTextBytes]+"… (") {
			t.Errorf("%v: %d bytes of output, a gap line of %d; want its resourceVersions cut after %d, marked as cut:\n%.300s", args, len(out), len(gap), input.MaxTextBytes, gap)
		}
		if args[0] == "-o" {
			var g struct{ Gap watchGap }
			if err := json.Unmarshal([]byte(gap), &g); err != nil || g.Gap.To != input.Clip(to) {
				t.Errorf("the JSON gap %.300s (%v), want its end cut as input.Clip cuts it", gap, err)
			}
		}
		cluster.mu.Lock()
		if last := cluster.watchRVs[len(cluster.watchRVs)-1]; last != to {
			t.Errorf("%v: watched again from a resourceVersion of %d bytes, want the list's whole", args, len(last))
		}
		cluster.mu.Unlock()
	}
}
