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

package timeline

import (
	"bytes"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/lbstatus/lbstatus/conformance"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

// What a timeline costs on top of the check it comes with (check
// --timeline, -o html), measured against that check in the same process:
//
//	go test ./conformance/timeline -run '^$' -bench Timeline -benchmem
//
// The stream is the checker's benchmark stream: LoadBalancer Services
// through their lifecycle, as kubectl's watch prints them.
const (
	benchServices     = 1000
	benchObservations = 10000
)

func benchObjects(b *testing.B) []conformance.Object {
	var buf bytes.Buffer
	if err := conformancetest.WriteStream(&buf, conformancetest.StreamOptions{Services: benchServices, Observations: benchObservations}); err != nil {
		b.Fatal(err)
	}
	d := conformance.NewDecoder(&buf, "bench")
	var objs []conformance.Object
	for {
		obj, err := d.Next()
		if err == io.EOF {
			return objs
		}
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, obj)
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// checkStream checks objs, feeding a Timeline when tl is not nil.
func checkStream(objs []conformance.Object, tl *Timeline) {
	c := conformance.NewChecker()
	for _, obj := range objs {
		found := c.ObserveObject(obj)
		if tl != nil {
			tl.ObserveObject(obj, found)
		}
	}
	end := c.Finish()
	if tl != nil {
		tl.Findings(end)
	}
}

// BenchmarkTimeline runs, in every iteration, the check alone (the
// baseline) and the check feeding a Timeline, and reports the ratio of
// their times ("x-check": 1.3 means the timeline adds 30%) and the heap a
// Timeline keeps per Service.
func BenchmarkTimeline(b *testing.B) {
	objs := benchObjects(b)
	// CPU time, garbage collection included: on a shared machine the
	// wall clock says more about the neighbours than about the code.
	var base, with time.Duration
	for b.Loop() {
		runtime.GC()
		start := cpuTime()
		checkStream(objs, nil)
		runtime.GC()
		mid := cpuTime()
		checkStream(objs, New())
		runtime.GC()
		base, with = base+mid-start, with+cpuTime()-mid
	}
	b.ReportMetric(float64(with)/float64(base), "x-check")
	b.ReportMetric(float64(with.Nanoseconds())/float64(b.N*len(objs)), "cpu-ns/observation")

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tl := New()
	checkStream(objs, tl)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := len(tl.services); n != benchServices {
		b.Fatalf("the timeline holds %d Services, want %d", n, benchServices)
	}
	b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/benchServices, "heap-B/Service")
	runtime.KeepAlive(tl)
	runtime.KeepAlive(objs)
}
