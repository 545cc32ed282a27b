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

// Command genstream writes a stream of Service observations for
// hack/bench-conformance.sh: concatenated JSON objects, as
// "kubectl get services --watch -o json" prints them, of LoadBalancer
// Services that a conformant provider takes through their lifecycle (see
// package conformancetest).
//
//	go run ./hack/genstream -services 100000 -observations 1000000 > stream.json
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/lbstatus/lbstatus/conformance/conformancetest"
)

func main() {
	var opts conformancetest.StreamOptions
	flag.IntVar(&opts.Services, "services", 100000, "distinct Services")
	flag.IntVar(&opts.Observations, "observations", 1000000, "observations written in all")
	flag.BoolVar(&opts.Compact, "compact", false, "one object per line instead of kubectl's indented JSON")
	flag.Parse()
	if opts.Services < 1 || opts.Observations < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: genstream [-services N] [-observations N] [-compact] > stream.json")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if err := conformancetest.WriteStream(w, opts); err != nil {
		fmt.Fprintln(os.Stderr, "genstream:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genstream:", err)
		os.Exit(1)
	}
}
