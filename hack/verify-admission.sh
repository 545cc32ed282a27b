#!/usr/bin/env bash
# Fails when deploy/admission/policies.yaml is not what hack/gen-admission
# makes from the current tables of apis/core/v1; the checkout is not touched.
#   hack/verify-admission.sh
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
go run ./hack/gen-admission -o "$TMP"
if ! diff -u deploy/admission/policies.yaml "$TMP" >&2; then
  echo "deploy/admission/policies.yaml is out of date; run hack/update-admission.sh" >&2
  exit 1
fi
echo "admission policies are up to date" >&2
