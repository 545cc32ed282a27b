#!/usr/bin/env bash
# Regenerates every generated file of the module: deepcopy, declarative
# validation, OpenAPI definitions and model names, and apply configurations.
# The generators are pinned by the tool lines of go.mod and run with `go tool`.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

MODULE=github.com/lbstatus/lbstatus
HEADER=hack/boilerplate.go.txt
APIS=./apis/core/v1

# Upstream packages that our types reach. Generators must read them but never
# write into them (they live in the module cache).
READONLY=(
  k8s.io/apimachinery/pkg/apis/meta/v1
  k8s.io/apimachinery/pkg/api/resource
  k8s.io/apimachinery/pkg/runtime
  k8s.io/apimachinery/pkg/types
  k8s.io/apimachinery/pkg/util/intstr
  k8s.io/apimachinery/pkg/version
  k8s.io/api/core/v1
  time
)
RO_FLAGS=()
for pkg in "${READONLY[@]}"; do RO_FLAGS+=(--readonly-pkg "$pkg"); done

echo "deepcopy-gen" >&2
go tool deepcopy-gen --go-header-file "$HEADER" \
  --output-file zz_generated.deepcopy.go "$APIS"

echo "validation-gen" >&2
# meta/v1 is left out on purpose: its Condition carries alpha declarative
# tags whose hand-written halves validation-gen cannot find from a read-only
# package. The types mark TypeMeta, ObjectMeta, ListMeta and each condition
# opaque instead; package validation checks conditions with
# metav1validation.ValidateConditions.
VALIDATION_RO=()
for pkg in "${READONLY[@]}"; do
  [ "$pkg" = k8s.io/apimachinery/pkg/apis/meta/v1 ] || VALIDATION_RO+=(--readonly-pkg "$pkg")
done
go tool validation-gen --go-header-file "$HEADER" \
  --output-file zz_generated.validations.go \
  --lint-rules=known-tags-only,require-explicit-disablement \
  "${VALIDATION_RO[@]}" "$APIS"

echo "openapi-gen" >&2
rm -rf generated/openapi
go tool openapi-gen --go-header-file "$HEADER" \
  --output-file zz_generated.openapi.go \
  --output-dir ./generated/openapi --output-pkg "$MODULE/generated/openapi" \
  --output-model-name-file zz_generated.model_name.go \
  --report-filename hack/api-violations.report \
  "${RO_FLAGS[@]}" \
  k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/runtime \
  k8s.io/apimachinery/pkg/version k8s.io/apimachinery/pkg/api/resource \
  k8s.io/apimachinery/pkg/util/intstr k8s.io/api/core/v1 "$APIS"

echo "models-schema" >&2
go run ./hack/models-schema > hack/openapi-schema.json

echo "applyconfiguration-gen" >&2
# Embedded upstream types reuse client-go's apply configurations; meta/v1's
# are built in and must not be repeated.
CORE=k8s.io/client-go/applyconfigurations/core/v1
EXTERNAL=""
for t in ServiceSpec ServicePort SessionAffinityConfig ClientIPConfig \
         LoadBalancerStatus LoadBalancerIngress PortStatus; do
  EXTERNAL+="${EXTERNAL:+,}k8s.io/api/core/v1.$t:$CORE"
done
rm -rf generated/applyconfiguration
go tool applyconfiguration-gen --go-header-file "$HEADER" \
  --output-dir ./generated/applyconfiguration \
  --output-pkg "$MODULE/generated/applyconfiguration" \
  --external-applyconfigurations "$EXTERNAL" \
  --openapi-schema hack/openapi-schema.json \
  "$APIS"
