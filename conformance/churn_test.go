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
	"fmt"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Section 8: memory is bounded by the number of distinct live Services. A
// live watch feeds a Checker and a summary-only Collector for ever, while
// Services come and go, a hundred alive at a time, each with messages of
// its own: the state of each goes with its deletion, the slab's slots are
// used again, and the memo of clean conditions stays within its bound.
func TestChecker_StateFollowsLiveServices(t *testing.T) {
	const live, total = 100, 50000
	c := NewChecker(Live(true))
	col := NewCollector(SummaryOnly(true))
	observe := func(obj Object) {
		col.Observe(obj, c.ObserveObject(obj))
	}
	for i := range total {
		svc := newLB("svc-" + strconv.Itoa(i))
		svc.CreationTimestamp = at(i)
		observe(Object{Service: svc})
		svc = svc.DeepCopy()
		svc.ResourceVersion = "2"
		setProvisioning(svc, i)
		svc.Status.Conditions[1].Message = fmt.Sprintf("provisioning %d", i)
		observe(Object{Service: svc})
		svc = svc.DeepCopy()
		svc.ResourceVersion = "3"
		setReady(svc, i+1)
		svc.Status.Conditions[1].Message = fmt.Sprintf("serving %d", i)
		svc.Status.Conditions[1].LastTransitionTime = metav1.NewTime(at(i + 1).Time)
		observe(Object{Service: svc})
		if i >= live {
			observe(Object{Service: newLB("svc-" + strconv.Itoa(i-live)), Deleted: true})
		}
	}
	if n := c.Services(); n != live {
		t.Errorf("the Checker holds %d Services, want the %d alive", n, live)
	}
	if c.states.used > live+1 || len(c.states.free) > live+1 {
		t.Errorf("the slab handed out %d slots and holds %d free, want at most %d: slots are not used again", c.states.used, len(c.states.free), live+1)
	}
	if len(c.cleanConds) > maxCleanConds {
		t.Errorf("%d clean conditions remembered, want at most %d", len(c.cleanConds), maxCleanConds)
	}
	if len(col.live) != live || len(col.services) != 0 || len(col.retired) != 0 {
		t.Errorf("the Collector holds %d live hashes, %d rows and %d retired rows; want %d, 0 and 0", len(col.live), len(col.services), len(col.retired), live)
	}
	if s := col.Report().Summary; s.Services != total {
		t.Errorf("Summary.Services = %d, want %d", s.Services, total)
	}
}
