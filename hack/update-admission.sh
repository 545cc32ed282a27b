#!/usr/bin/env bash
# Regenerates deploy/admission/policies.yaml, the ValidatingAdmissionPolicies
# that enforce KEP-4631's single-write rules on a stock kube-apiserver, from
# the condition, reason and feature tables of apis/core/v1.
#   hack/update-admission.sh
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi
go run ./hack/gen-admission -o deploy/admission/policies.yaml
