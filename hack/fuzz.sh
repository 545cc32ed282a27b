#!/usr/bin/env bash
# Runs the module's native Go fuzz targets, one `go test -fuzz` call per
# target, and fails on any finding. CI runs it with a short budget
# (FUZZTIME=15s); a long local run is the same command with a longer one.
#
#   hack/fuzz.sh [TARGET...]       check the seed corpora, then fuzz each
#                                  target (all, or the named ones) for FUZZTIME
#   hack/fuzz.sh --list            print "<package dir> <target>" per target
#   hack/fuzz.sh --check-seeds     fail if a committed seed corpus differs
#                                  from the seeds in the targets' source
#   hack/fuzz.sh --update-seeds    rewrite the committed seed corpora
#
# Environment: FUZZTIME (default 15s) is handed to -fuzztime, so "10m" or
# "100000x" work; FUZZ_PARALLEL, when set, to -parallel (the number of
# fuzzing workers; go's default is GOMAXPROCS); FUZZ_MINIMIZE_TIME (default
# 3s) to -fuzzminimizetime. Go minimizes every new interesting input for up
# to a minute by default, during which the target makes no progress: with
# short budgets that would eat most of the run. A failing input is still
# written, minimized for that long.
#
# A finding is written by `go test` to <package>/testdata/fuzz/<target>/,
# where plain `go test` replays it: commit it with the fix. A run that fails
# with "context deadline exceeded" alone and writes no input has hit a race
# in Go's fuzzing coordinator (golang/go#75804) and is run once more.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# The fuzz targets, as "<package dir> <function>". This is the only list:
# the OSS-Fuzz/ClusterFuzzLite build (hack/oss-fuzz/build.sh) reads it with
# --list, and hack/oss-fuzz/check.sh fails when a fuzz function in the
# source is missing here or an entry names none.
TARGETS=(
  "./fuzz FuzzDecodeAndValidate"
  "./fuzz FuzzRoundTrip"
  "./fuzz FuzzConditionsDifferential"
  "./conditions FuzzConditionsSequence"
  "./conditions FuzzConditionsStateMachine"
  "./conditions FuzzConditionsReadService"
  "./conformance FuzzConformanceStream"
  "./conformance FuzzCheckerGap"
  "./conformance/timeline FuzzTimelineRender"
  "./conformance/input FuzzDecode"
  "./conformance/input FuzzReaderDifferential"
  "./conformance/input FuzzYAMLListDifferential"
  "./conformance/input FuzzJSONListDifferential"
  "./cmd/lbstatus FuzzCheckCommand"
  "./cmd/lbstatus FuzzJSONEscaper"
)

FUZZTIME=${FUZZTIME:-15s}
FUZZ_MINIMIZE_TIME=${FUZZ_MINIMIZE_TIME:-3s}

die() { echo "hack/fuzz.sh: $*" >&2; exit 2; }

# selected prints the targets named on the command line, or all of them.
selected() {
  local entry
  if [ $# -eq 0 ]; then
    printf '%s\n' "${TARGETS[@]}"
    return
  fi
  local name found
  for name in "$@"; do
    found=
    for entry in "${TARGETS[@]}"; do
      if [ "${entry#* }" = "$name" ]; then
        echo "$entry"
        found=1
      fi
    done
    [ -n "$found" ] || die "unknown target $name (see --list)"
  done
}

# TMP holds the seed corpora written for a comparison.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# write_seeds DIR PKG FUNC runs FUNC's seeds and writes them as corpus files
# under DIR/FUNC.
write_seeds() {
  local dir=$1 pkg=$2 fn=$3
  if ! LBSTATUS_FUZZ_SEED_DIR=$dir go test -count=1 -run="^${fn}\$" "$pkg" >"$TMP/out" 2>&1; then
    cat "$TMP/out" >&2
    die "the seed corpus of $fn fails"
  fi
  if [ ! -d "$dir/$fn" ]; then
    echo "hack/fuzz.sh: warning: $fn adds no seeds through fuzz/seed; it has no committed seed corpus" >&2
    return 1
  fi
}

check_seeds() {
  local status=0 pkg fn
  while read -r pkg fn; do
    write_seeds "$TMP/want" "$pkg" "$fn" || mkdir -p "$TMP/want/$fn"
    mkdir -p "$TMP/have/$fn"
    if compgen -G "$pkg/testdata/fuzz/$fn/seed-*" >/dev/null; then
      cp "$pkg/testdata/fuzz/$fn"/seed-* "$TMP/have/$fn/"
    fi
    if ! diff -r -q "$TMP/want/$fn" "$TMP/have/$fn" >&2; then
      echo "the seed corpus in $pkg/testdata/fuzz/$fn differs from the seeds in $fn's source: run hack/fuzz.sh --update-seeds $fn" >&2
      status=1
    fi
  done < <(selected "$@")
  return $status
}

update_seeds() {
  local pkg fn
  while read -r pkg fn; do
    rm -f "$pkg/testdata/fuzz/$fn"/seed-*
    write_seeds "$ROOT/$pkg/testdata/fuzz" "$pkg" "$fn" || continue
    echo "wrote $(compgen -G "$pkg/testdata/fuzz/$fn/seed-*" | wc -l) seeds to $pkg/testdata/fuzz/$fn"
  done < <(selected "$@")
}

# fuzz_one PKG FUNC fuzzes FUNC once, for FUZZTIME; its output is kept in
# $TMP/fuzz.out and the corpus files it found before in $TMP/corpus.
fuzz_one() {
  local pkg=$1 fn=$2 parallel=()
  if [ -n "${FUZZ_PARALLEL:-}" ]; then
    parallel=(-parallel="$FUZZ_PARALLEL")
  fi
  corpus_files "$pkg" "$fn" >"$TMP/corpus"
  go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="$FUZZ_MINIMIZE_TIME" \
    "${parallel[@]}" "$pkg" 2>&1 | tee "$TMP/fuzz.out"
}

corpus_files() { find "$1/testdata/fuzz/$2" -type f 2>/dev/null | sort; }

# fuzz_raced PKG FUNC is called after fuzz_one failed. A failure whose
# whole reason is "context deadline exceeded", with no failing input
# written, is a race in Go's fuzzing coordinator as -fuzztime runs out
# (golang/go#75804, fixed in Go 1.27), not a finding: the target is
# fuzzed once more, and that run decides. Anything else is a finding.
fuzz_raced() {
  local pkg=$1 fn=$2
  if ! grep -qx '    context deadline exceeded' "$TMP/fuzz.out" ||
    [ "$(corpus_files "$pkg" "$fn")" != "$(cat "$TMP/corpus")" ]; then
    return 1
  fi
  echo "hack/fuzz.sh: $fn stopped on Go's fuzztime race (golang/go#75804) and wrote no input; fuzzing it once more" >&2
  fuzz_one "$pkg" "$fn"
}

fuzz() {
  local pkg fn failed=()
  check_seeds "$@" || die "commit the seed corpora first"
  while read -r pkg fn; do
    echo "== $fn ($pkg, $FUZZTIME)"
    if ! fuzz_one "$pkg" "$fn" && ! fuzz_raced "$pkg" "$fn"; then
      failed+=("$fn")
    fi
  done < <(selected "$@")
  if [ ${#failed[@]} -gt 0 ]; then
    echo "hack/fuzz.sh: findings in ${failed[*]}; the failing inputs are under <package>/testdata/fuzz/<target>/" >&2
    exit 1
  fi
}

case "${1:-}" in
  --list)
    shift
    selected "$@"
    ;;
  --check-seeds)
    shift
    check_seeds "$@"
    ;;
  --update-seeds)
    shift
    update_seeds "$@"
    ;;
  -h | --help)
    sed -n '2,/^set -o/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    ;;
  -*)
    die "unknown option $1 (see --help)"
    ;;
  *)
    fuzz "$@"
    ;;
esac
