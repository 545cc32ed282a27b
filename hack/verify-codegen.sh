#!/usr/bin/env bash
# Fails when a generated file is not what hack/update-codegen.sh makes from
# the current sources: it regenerates into a copy of the module and compares
# the copy with the checkout, so the checkout itself is never touched.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COPY=$(mktemp -d)
trap 'rm -rf "$COPY"' EXIT

# Copy the module's own tree; skip git data and cached build outputs.
tar -C "$ROOT" --exclude=./.git --exclude=./hack/kube/.bin --exclude=./integration \
  -cf - . | tar -C "$COPY" -xf -

"$COPY/hack/update-codegen.sh"

# The generated files of a tree: what update-codegen.sh writes.
generated_files() {
  (cd "$1" && {
    find . -path ./.git -prune -o -path ./hack/kube -prune -o -path ./integration -prune -o \
      -name 'zz_generated.*' -print
    find ./generated -type f
    echo ./hack/openapi-schema.json
    echo ./hack/api-violations.report
  } | sort -u)
}

status=0
if ! diff <(generated_files "$ROOT") <(generated_files "$COPY") >&2; then
  echo "the set of generated files differs (< checkout, > regenerated)" >&2
  status=1
fi
for f in $(generated_files "$COPY"); do
  if ! diff -u "$ROOT/$f" "$COPY/$f" >"$COPY.diff" 2>&1; then
    echo "$f is out of date:" >&2
    head -40 "$COPY.diff" >&2
    status=1
  fi
done
rm -f "$COPY.diff"
if [ "$status" -ne 0 ]; then
  echo "generated code is out of date; run hack/update-codegen.sh" >&2
  exit 1
fi
echo "generated code is up to date" >&2
