#!/usr/bin/env bash
# Checks the OSS-Fuzz/ClusterFuzzLite build here, without their images:
#
#   1. hack/fuzz.sh lists exactly the fuzz functions of the source (every
#      `func FuzzX(f *testing.F)` in a _test.go file), so no target is left
#      out of CI or out of the OSS-Fuzz build, and no entry is stale;
#   2. hack/oss-fuzz/build.sh, run through .clusterfuzzlite/build.sh in a
#      copy of the module, calls the engine's compile helper once per
#      target outside a main package, with a unique name. A stand-in for
#      compile_native_go_fuzzer_v2 checks what the real helper relies on
#      (the package path resolves and is not main, exactly one file of the package names the function, and declares it
#      as a native fuzz target) and then runs the target with `go test
#      -fuzz` for CHECK_FUZZTIME (default 100x: a hundred calls);
#   3. every target whose seeds have a raw form got a seed corpus zip.
#
# The checkout is never touched: the build edits go.mod, so it runs in a
# copy.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# A count, not a duration: with a duration, Go's fuzzing coordinator can
# fail a healthy target with "context deadline exceeded" as the time runs
# out (golang/go#75804, fixed in Go 1.27). A count sets no deadline.
CHECK_FUZZTIME=${CHECK_FUZZTIME:-100x}

fail() { echo "hack/oss-fuzz/check.sh: $*" >&2; exit 1; }

echo "== hack/fuzz.sh --list against the source"
listed=$(hack/fuzz.sh --list | sort)
declared=$(git ls-files -co --exclude-standard -- '*_test.go' ':!:integration/**' |
  xargs grep -H -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' |
  sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#./\1 \2#' | sort)
if [ "$listed" != "$declared" ]; then
  diff <(echo "$listed") <(echo "$declared") >&2 || true
  fail "hack/fuzz.sh's TARGETS (<) differ from the fuzz functions in the source (>)"
fi
echo "$listed" | sed 's/^/  /'

COPY=$(mktemp -d)
trap 'rm -rf "$COPY"' EXIT
mkdir -p "$COPY/src/lbstatus" "$COPY/out" "$COPY/work" "$COPY/bin"
tar -C "$ROOT" --exclude=./.git --exclude=./hack/kube/.bin --exclude=./integration -cf - . |
  tar -C "$COPY/src/lbstatus" -xf -

# The stand-in for OSS-Fuzz's compile helper: compile_native_go_fuzzer_v2
# <package> <function> <name>.
cat >"$COPY/bin/compile_native_go_fuzzer_v2" <<'STANDIN'
#!/usr/bin/env bash
set -o errexit -o nounset -o pipefail
pkg=$1 fn=$2 name=$3
say() { echo "compile_native_go_fuzzer_v2 $pkg $fn $name: $*" >&2; }
dir=$(go list -f '{{.Dir}}' "$pkg") || { say "the package does not resolve"; exit 1; }
# The adapter imports the package: a main package cannot be.
[ "$(go list -f '{{.Name}}' "$pkg")" != main ] || { say "a main package cannot be imported"; exit 1; }
# The helper finds the target's file with grep -r -l over the directory,
# corpora included; more than one file naming the function breaks it.
mapfile -t files < <(grep -r -l -s "$fn" "$dir")
if [ ${#files[@]} -ne 1 ]; then
  say "want exactly one file naming $fn, have: ${files[*]:-none}"
  exit 1
fi
if ! grep -q -E "^func $fn\((f|[a-z]+) \*testing\.F\)" "${files[0]}"; then
  say "${files[0]} does not declare func $fn(f *testing.F)"
  exit 1
fi
[ ! -e "$OUT/$name" ] || { say "the name $name is taken"; exit 1; }
go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$CHECK_FUZZTIME" -fuzzminimizetime=100x -parallel=1 "$pkg" >"$WORK/$name.log" 2>&1 ||
  { cat "$WORK/$name.log" >&2; say "the target fails"; exit 1; }
echo "$pkg $fn" >"$OUT/$name"
echo "  $name: $(grep '^fuzz: elapsed' "$WORK/$name.log" | tail -1)"
STANDIN
chmod +x "$COPY/bin/compile_native_go_fuzzer_v2"

echo "== .clusterfuzzlite/build.sh with a stand-in compile helper (-fuzztime $CHECK_FUZZTIME per target)"
SRC=$COPY/src OUT=$COPY/out WORK=$COPY/work CHECK_FUZZTIME=$CHECK_FUZZTIME LBSTATUS_FUZZ_PREPARED=1 \
  PATH=$COPY/bin:$PATH bash "$COPY/src/lbstatus/.clusterfuzzlite/build.sh"

echo "== outputs"
# has_raw_seeds DIR reports whether a seed corpus holds a seed of one []byte.
has_raw_seeds() {
  local f
  for f in "$1"/seed-*; do
    [ -f "$f" ] || continue
    if [ "$(wc -l <"$f")" -eq 2 ] && sed -n 2p "$f" | grep -q '^\[\]byte('; then
      return 0
    fi
  done
  return 1
}
built=0 skipped=0
while read -r dir fn; do
  if [ "$(go list -f '{{.Name}}' "$dir")" = main ]; then
    skipped=$((skipped + 1)) # hack/fuzz.sh runs it; the adapter cannot build it
    continue
  fi
  pkgpath=$(go list "$dir")
  marker=$(find "$COPY/out" -type f ! -name '*.zip' -exec grep -l -x -F "$pkgpath $fn" {} + || true)
  [ -n "$marker" ] || fail "$fn was not built"
  name=$(basename "$marker")
  built=$((built + 1))
  if has_raw_seeds "$dir/testdata/fuzz/$fn"; then
    [ -s "$COPY/out/${name}_seed_corpus.zip" ] || fail "$fn has raw seeds but no ${name}_seed_corpus.zip"
    echo "  $name: $(unzip -Z1 "$COPY/out/${name}_seed_corpus.zip" | wc -l) raw seeds"
  fi
done < <(hack/fuzz.sh --list)
echo "ok: $built targets build and run; $skipped in a main package left to hack/fuzz.sh"
