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
	"bytes"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

// The checker's cost is measured against two baselines in the same run:
// the floor, a bare jsontext ReadValue loop over the stream that only
// finds where each object ends (BenchmarkScan), and a plain decode of the
// stream with the same Decoder (BenchmarkDecode):
//
//	go test ./conformance -run '^$' -bench 'Scan$|Decode$|Check$' -benchmem
//
// The goals: checking (BenchmarkCheck) takes at most 3x the floor, and adds
// at most 25% to decoding. The Decoder decodes on every core it is given
// while the checker runs; the ratios are judged on wall time. The stream is
// what hack/bench-conformance.sh measures at scale: LoadBalancer Services
// through their lifecycle, as kubectl's watch prints them.

const (
	benchServices     = 1000
	benchObservations = 10000
)

var benchStream = func() []byte {
	var buf bytes.Buffer
	if err := conformancetest.WriteStream(&buf, conformancetest.StreamOptions{Services: benchServices, Observations: benchObservations}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}()

// cpuTime returns the CPU time the process has used, garbage collection
// included: on a shared machine it says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportPerObservation reports wall and CPU time per observation.
func reportPerObservation(b *testing.B, cpuStart time.Duration, observations int) {
	n := float64(b.N * observations)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/observation")
	b.ReportMetric(float64((cpuTime()-cpuStart).Nanoseconds())/n, "cpu-ns/observation")
}

func runStream(b *testing.B, check bool) {
	b.SetBytes(int64(len(benchStream)))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if n := checkAll(b, benchStream, check); n != benchObservations {
			b.Fatalf("decoded %d objects, want %d", n, benchObservations)
		}
	}
	reportPerObservation(b, cpu, benchObservations)
}

// checkAll decodes in and, if check is set, checks its objects with a
// Checker of their own; it returns how many objects it decoded.
func checkAll(b *testing.B, in []byte, check bool) int {
	d := NewDecoder(bytes.NewReader(in), "bench")
	c := NewChecker()
	n := 0
	for {
		obj, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if check {
			c.ObserveObject(obj)
		}
		n++
	}
	c.Finish()
	return n
}

// BenchmarkScan is the floor: the tokenizer the Decoder is built on,
// finding each object's end and nothing else.
func BenchmarkScan(b *testing.B) {
	b.SetBytes(int64(len(benchStream)))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		d := jsontext.NewDecoder(bytes.NewReader(benchStream))
		n := 0
		for {
			if _, err := d.ReadValue(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchObservations {
			b.Fatalf("read %d values, want %d", n, benchObservations)
		}
	}
	reportPerObservation(b, cpu, benchObservations)
}

// BenchmarkDecode is the baseline: decoding the stream, checking nothing.
func BenchmarkDecode(b *testing.B) { runStream(b, false) }

// BenchmarkCheck decodes the same stream and checks every observation.
func BenchmarkCheck(b *testing.B) { runStream(b, true) }

// Many small inputs, as "lbstatus check" reads a directory of manifests:
// each input is the first observation of one of benchServices Services, read
// by a Decoder and checked by a Checker of its own. BenchmarkScanInputs is
// their floor:
//
//	go test ./conformance -run '^$' -bench 'Inputs$' -benchmem
var benchInputs = func() [][]byte {
	d := jsontext.NewDecoder(bytes.NewReader(benchStream))
	var inputs [][]byte
	for len(inputs) < benchServices {
		v, err := d.ReadValue()
		if err != nil {
			panic(err)
		}
		inputs = append(inputs, bytes.Clone(v))
	}
	return inputs
}()

func BenchmarkScanInputs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range benchInputs {
			if _, err := jsontext.NewDecoder(bytes.NewReader(in)).ReadValue(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchInputs)), "ns/input")
}

func BenchmarkCheckInputs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range benchInputs {
			checkAll(b, in, true)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchInputs)), "ns/input")
}

// decodeBenchStream returns benchStream's objects, decoded.
func decodeBenchStream(b *testing.B) []Object {
	d := NewDecoder(bytes.NewReader(benchStream), "bench")
	var objs []Object
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

// BenchmarkObserve is the checker alone, on observations decoded
// beforehand: the part of BenchmarkCheck that BenchmarkDecode does not do.
func BenchmarkObserve(b *testing.B) {
	objs := decodeBenchStream(b)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		c := NewChecker()
		for _, obj := range objs {
			c.ObserveObject(obj)
		}
		c.Finish()
	}
	reportPerObservation(b, cpu, len(objs))
}

// BenchmarkObserveCore is the checker on client-go's Services, as an
// informer delivers them: ObserveCore, which reads each in place, against
// the baseline of Observe on a v1.FromCore copy of each, in alternating
// rounds. "x-copy" is the ratio of their CPU times: 0.7 means ObserveCore
// takes 70% of the baseline's time.
func BenchmarkObserveCore(b *testing.B) {
	var core []*corev1.Service
	for _, obj := range decodeBenchStream(b) {
		if obj.Service != nil && !obj.Deleted {
			core = append(core, v1.ToCore(obj.Service))
		}
	}
	b.ReportAllocs()
	var inPlace, copied time.Duration
	for b.Loop() {
		start := cpuTime()
		c := NewChecker()
		for _, svc := range core {
			c.ObserveCore(svc)
		}
		c.Finish()
		mid := cpuTime()
		c = NewChecker()
		for _, svc := range core {
			c.Observe(v1.FromCore(svc))
		}
		c.Finish()
		inPlace, copied = inPlace+mid-start, copied+cpuTime()-mid
	}
	b.ReportMetric(float64(inPlace)/float64(copied), "x-copy")
	b.ReportMetric(float64(inPlace.Nanoseconds())/float64(b.N*len(core)), "cpu-ns/observation")
}

// BenchmarkObserveScaling is the checker alone at the input of the goals
// of hack/bench-conformance.sh, 1,000,000 observations of 100,000
// Services, and at that input doubled, 2,000,000 of 200,000. The script's
// times are mostly decoding, which keeps no state; this is the part whose
// cost could grow with the number of Services the checker remembers. The
// checker scales linearly when ns/observation stays level from one size to
// the other. Below 100,000 Services its state still fits the caches in
// part, and the time per observation grows with the memory the state
// outgrows, not with the work: one sweep here gave 1,351 ns at 25,000
// Services, 1,418 at 50,000, 1,701 at 100,000, 1,769 at 200,000 and 1,818
// at 400,000. Run each size in a process of its own, taking turns: the
// second size in one process finds a heap the first has grown, and runs
// faster for it.
//
//	for i in 1 2 3 4 5 6; do for n in 100000 200000; do
//		go test ./conformance -run '^$' -bench "ObserveScaling/services=$n\$"
//	done; done > scaling.txt
//	benchstat -col /services scaling.txt
//
// The observations are BenchmarkObserve's, replayed once for every copy
// of its Services, each copy under namespaces of its own, so the input
// takes the memory of the small stream only.
func BenchmarkObserveScaling(b *testing.B) {
	objs := decodeBenchStream(b)
	if len(objs)%benchServices != 0 {
		b.Fatalf("%d observations are not whole rounds of %d Services", len(objs), benchServices)
	}
	namespaces := make([]string, len(objs))
	for i, obj := range objs {
		namespaces[i] = obj.Service.Namespace
	}
	for _, copies := range []int{100, 200} {
		b.Run(fmt.Sprintf("services=%d", copies*benchServices), func(b *testing.B) {
			// renamed[i][r] is the namespace of objs[i] in copy r.
			byNamespace := map[string][]string{}
			renamed := make([][]string, len(objs))
			for i, ns := range namespaces {
				if byNamespace[ns] == nil {
					for r := range copies {
						byNamespace[ns] = append(byNamespace[ns], fmt.Sprintf("%s-%d", ns, r))
					}
				}
				renamed[i] = byNamespace[ns]
			}
			defer func() {
				for i, obj := range objs {
					obj.Service.Namespace = namespaces[i]
				}
			}()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				c := NewChecker()
				// Round by round, as the stream goes: every copy of every
				// Service is observed once per round.
				for start := 0; start < len(objs); start += benchServices {
					for r := range copies {
						for i := start; i < start+benchServices; i++ {
							objs[i].Service.Namespace = renamed[i][r]
							c.ObserveObject(objs[i])
						}
					}
				}
				c.Finish()
				if got, want := c.Seen(), copies*benchServices; got != want {
					b.Fatalf("the checker saw %d Services, want %d", got, want)
				}
			}
			reportPerObservation(b, cpu, copies*len(objs))
		})
	}
}
