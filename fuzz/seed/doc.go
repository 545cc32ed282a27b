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

// Package seed gives native Go fuzz targets one list of seed inputs that
// serves three consumers: `go test`, which replays them through
// testing.F.Add; the committed corpus under testdata/fuzz/<Target>/, which
// `go test` replays as well and which survives engines that ignore F.Add;
// and OSS-Fuzz or ClusterFuzzLite, whose libFuzzer binaries start from a
// zip of raw seeds.
//
// A target calls Add for each seed. Nothing else happens in a plain test
// run. Two environment variables turn the same calls into corpus writers,
// so that a seed list and its files cannot drift apart unnoticed
// (hack/fuzz.sh --check-seeds regenerates and compares them):
//
//   - LBSTATUS_FUZZ_SEED_DIR=dir writes each seed in Go's corpus file
//     format ("go test fuzz v1") to dir/<Target>/seed-<name>.
//   - LBSTATUS_FUZZ_RAW_SEED_DIR=dir writes each seed whose only argument
//     is a []byte as raw bytes to dir/<Target>/<name>, the libFuzzer form.
//     Seeds of other shapes have no raw form and are skipped.
package seed
