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

if ! diff -ruN --exclude=.git --exclude=.bin --exclude=integration "$ROOT" "$COPY" >"$COPY.diff"; then
  echo "generated code is out of date; run hack/update-codegen.sh. Differences:" >&2
  head -100 "$COPY.diff" >&2
  rm -f "$COPY.diff"
  exit 1
fi
rm -f "$COPY.diff"
echo "generated code is up to date" >&2
