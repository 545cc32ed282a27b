#!/usr/bin/env bash
# Runs the integration tests (integration/, a module of its own) against a
# real etcd and kube-apiserver: builds both from the Go module proxy with
# hack/kube/build.sh (about 5 minutes once; cached in hack/kube/.bin after
# that), points envtest at them with KUBEBUILDER_ASSETS, then vets and tests
# the module. Extra arguments go to `go test`, e.g.
#   hack/integration.sh -run TestSSA -v
# LBSTATUS_INTEGRATION_TIMEOUT overrides the test timeout (default 8m; the
# tests take about a minute on two cores, plus the first compile).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

# build.sh logs to stderr and prints the binaries' folder last on stdout.
KUBEBUILDER_ASSETS=$("$ROOT/hack/kube/build.sh" | tail -n 1)
for bin in etcd kube-apiserver; do
  if [[ ! -x "$KUBEBUILDER_ASSETS/$bin" ]]; then
    echo "integration.sh: hack/kube/build.sh gave '$KUBEBUILDER_ASSETS', which has no $bin" >&2
    exit 1
  fi
done
export KUBEBUILDER_ASSETS

cd "$ROOT/integration"
# The module is tied to this checkout by a replace directive; a go.work
# from a parent folder must not change that.
export GOWORK=off
go vet ./...
# -count=1: the results depend on the binaries, which the test cache does
# not track.
go test -count=1 -timeout "${LBSTATUS_INTEGRATION_TIMEOUT:-8m}" "$@" ./...
