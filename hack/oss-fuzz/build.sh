#!/bin/bash -eu
# Builds every native Go fuzz target of lbstatus as a libFuzzer binary, for
# OSS-Fuzz and ClusterFuzzLite. It runs in their gcr.io/oss-fuzz-base/
# base-builder-go image, which provides $OUT, $WORK and the
# compile_native_go_fuzzer_v2 helper (compile_native_go_fuzzer in older
# images); .clusterfuzzlite/build.sh and an OSS-Fuzz project's build.sh
# call it. hack/oss-fuzz/check.sh runs it here, with a stand-in for the
# helper. See hack/oss-fuzz/README.md.
#
# The targets come from hack/fuzz.sh --list, the project's one list of them.
# For each target outside a main package it writes $OUT/<name> (name: the function without "Fuzz",
# in snake case, e.g. round_trip) and, for targets whose only argument is a
# []byte, $OUT/<name>_seed_corpus.zip with the target's seeds as raw
# libFuzzer inputs. Targets with several arguments start from an empty
# corpus: their libFuzzer encoding is the adapter's, not Go's.
#
# LBSTATUS_FUZZ_PREPARED=1 skips the toolchain preparation below (for
# hack/oss-fuzz/check.sh, which has neither the image nor the network).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

# prepare makes the image's tools fit this module.
prepare() {
  # go.mod may ask for a newer Go than the image has; the go command then
  # fetches that toolchain into the module cache (GOTOOLCHAIN=auto). The
  # v2 adapter overlays files of the testing package onto GOROOT, which go
  # refuses for a GOROOT inside the module cache: use a copy outside it.
  export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
  local goroot modcache
  goroot=$(go env GOROOT)
  modcache=$(go env GOMODCACHE)
  if [[ $goroot == "$modcache"/* ]]; then
    mkdir -p "$WORK/toolchain"
    cp -R "$goroot/." "$WORK/toolchain/"
    chmod -R u+w "$WORK/toolchain"
    export GOROOT=$WORK/toolchain PATH=$WORK/toolchain/bin:$PATH GOTOOLCHAIN=local
  fi
  # The adapter's testing shim has to be in the module graph of the build.
  go get github.com/AdamKorcz/go-118-fuzz-build/testing
}

# snake turns FuzzRoundTrip into round_trip.
snake() {
  local name=${1#Fuzz}
  sed -E -e 's/([a-z0-9])([A-Z])/\1_\2/g' -e 's/([A-Z])([A-Z][a-z])/\1_\2/g' <<<"$name" | tr '[:upper:]' '[:lower:]'
}

if [ "${LBSTATUS_FUZZ_PREPARED:-}" != 1 ]; then
  prepare
fi

compile=compile_native_go_fuzzer_v2
if ! command -v "$compile" >/dev/null; then
  compile=compile_native_go_fuzzer
fi

module=$(go list -m)
mapfile -t targets < <(hack/fuzz.sh --list)
[ ${#targets[@]} -gt 0 ] || { echo "hack/fuzz.sh lists no targets" >&2; exit 1; }
for target in "${targets[@]}"; do
  read -r dir fn <<<"$target"
  name=$(snake "$fn")
  # The adapter builds a target by importing its package, and a main
  # package cannot be imported: such a target (the whole command's) runs
  # under hack/fuzz.sh only.
  if [ "$(go list -f '{{.Name}}' "$dir")" = main ]; then
    echo "skipping $fn: package main cannot be imported by the fuzzing adapter" >&2
    continue
  fi

  seeds=$WORK/lbstatus-seeds
  rm -rf "${seeds:?}/$fn"
  LBSTATUS_FUZZ_RAW_SEED_DIR=$seeds go test -count=1 -run="^${fn}\$" "$dir" >/dev/null
  rm -f "$OUT/${name}_seed_corpus.zip"
  if [ -d "$seeds/$fn" ] && [ -n "$(ls -A "$seeds/$fn")" ]; then
    (cd "$seeds/$fn" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  fi

  "$compile" "$module/${dir#./}" "$fn" "$name"
done
