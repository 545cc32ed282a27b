#!/usr/bin/env bash
# Runs the integration tests (integration/, a module of its own) against a
# real etcd and kube-apiserver: builds both from the Go module proxy with
# hack/kube/build.sh (about 5 minutes once; cached in hack/kube/.bin after
# that) and the kube-apiserver fork of hack/fork/build.sh (cached in
# hack/fork/.bin, rebuilt when its patch or lbstatus's sources change), then
# vets the module and tests it three times:
#   1. the stock tests against the stock kube-apiserver;
#   2. the same stock tests against the fork, whose gate is off by default:
#      the fork must behave as stock, except that it knows
#      spec.requiredLoadBalancerFeatures and drops it (R5) where stock
#      prunes it as unknown (LBSTATUS_INTEGRATION_SERVER=fork tells the
#      tests);
#   3. integration/fork against the fork with LoadBalancerStatusImprovements
#      on.
# Extra arguments go to every `go test`, e.g.
#   hack/integration.sh -run TestSSA -v
# LBSTATUS_INTEGRATION_TIMEOUT overrides the test timeout of each run
# (default 8m; the stock tests take about a minute on two cores, plus the
# first compile). LBSTATUS_INTEGRATION_FORK=0 leaves out runs 2 and 3.
set -o errexit -o nounset -o pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

# The build scripts log to stderr and print the binaries' folder last on
# stdout.
assets() { # build script
  local dir
  dir=$("$1" | tail -n 1)
  for bin in etcd kube-apiserver; do
    if [[ ! -x "$dir/$bin" ]]; then
      echo "integration.sh: $1 gave '$dir', which has no $bin" >&2
      exit 1
    fi
  done
  echo "$dir"
}
STOCK=$(assets "$ROOT/hack/kube/build.sh")
fork=${LBSTATUS_INTEGRATION_FORK:-1}
if [[ "$fork" != 0 ]]; then
  FORK=$(assets "$ROOT/hack/fork/build.sh")
fi

cd "$ROOT/integration"
# The module is tied to this checkout by a replace directive; a go.work
# from a parent folder must not change that.
export GOWORK=off
go vet ./...
stock_pkgs=$(go list ./... | grep -v '/integration/fork$')
timeout=${LBSTATUS_INTEGRATION_TIMEOUT:-8m}
# -count=1: the results depend on the binaries, which the test cache does
# not track.
echo "integration.sh: stock tests, stock kube-apiserver" >&2
# shellcheck disable=SC2086 # one word per package
KUBEBUILDER_ASSETS=$STOCK go test -count=1 -timeout "$timeout" "$@" $stock_pkgs
if [[ "$fork" != 0 ]]; then
  echo "integration.sh: stock tests, the fork with its gate off" >&2
  # shellcheck disable=SC2086
  LBSTATUS_INTEGRATION_SERVER=fork KUBEBUILDER_ASSETS=$FORK go test -count=1 -timeout "$timeout" "$@" $stock_pkgs
  echo "integration.sh: fork tests, the fork with its gate on" >&2
  KUBEBUILDER_ASSETS=$FORK go test -count=1 -timeout "$timeout" "$@" ./fork/
fi
