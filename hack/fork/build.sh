#!/usr/bin/env bash
# Builds a kube-apiserver that calls lbstatus from its Service status
# strategy: k8s.io/kubernetes at the version go.mod pins, taken from the Go
# module cache (downloaded from the module proxy if needed), copied to
# .cache/kubernetes with lbstatus.patch applied, with k8s.io/api copied to
# .cache/api with api.patch applied (the versioned type of
# spec.requiredLoadBalancerFeatures), and built against this checkout of
# lbstatus. The binary is cached in $LBSTATUS_FORK_BIN (default:
# hack/fork/.bin/) beside a link to hack/kube's etcd, which is the layout
# envtest expects in KUBEBUILDER_ASSETS. The build is skipped when the cached
# binary was built from the same patches, go.mod/go.sum and lbstatus sources.
#
# Logs go to stderr. The last line on stdout is the absolute path of the
# folder, so callers can do:
#   export KUBEBUILDER_ASSETS="$(hack/fork/build.sh | tail -1)"
#
# Needs etcd from hack/kube/build.sh ($LBSTATUS_KUBE_BIN, default
# hack/kube/.bin), which it runs first. A cold build takes about 5 minutes
# and 3 GB of RAM and GOCACHE; with hack/kube's build cache warm, under a
# minute.
set -euo pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
	sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
	echo "Example: hack/fork/build.sh   (prints the folder holding etcd and kube-apiserver)"
	exit 0
fi

# Keep stdout for the result line only; everything else goes to stderr.
exec 3>&1 1>&2

log() { printf '%s fork/build.sh: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 1; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"

bin="${LBSTATUS_FORK_BIN:-$here/.bin}"
mkdir -p "$bin"
bin="$(cd "$bin" && pwd -P)"

command -v go >/dev/null || die "go is not on PATH"
command -v patch >/dev/null || die "patch is not on PATH"
export GOWORK=off CGO_ENABLED=0

# etcd comes from hack/kube, which builds it once for both.
kube_bin="$("$root/hack/kube/build.sh" | tail -n 1)"
[[ -x "$kube_bin/etcd" ]] || die "hack/kube/build.sh gave '$kube_bin', which has no etcd"
ln -sfn "$kube_bin/etcd" "$bin/etcd"

cd "$here"
kube_ver="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" { print $3; exit }' go.mod)"
[[ -n "$kube_ver" ]] || die "no k8s.io/kubernetes version in $here/go.mod"

# The cache key: everything the binary is built from that this checkout
# can change. The module cache is content-addressed and needs no key.
key="$(
	{
		cat lbstatus.patch api.patch go.mod go.sum "$root/go.mod" "$root/go.sum"
		cd "$root" && find apis validation -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat
	} | sha256sum | cut -d' ' -f1
)"
if [[ -x "$bin/kube-apiserver" && "$(cat "$bin/kube-apiserver.key" 2>/dev/null)" == "$key" ]]; then
	log "kube-apiserver fork is up to date ($kube_ver + api.patch, lbstatus.patch)"
	echo "$bin" >&3
	exit 0
fi

# A fresh patched copy of the pinned module.
# copy MODULE@VERSION DIR PATCH: a patched copy of a module in .cache/DIR.
copy() {
	local src
	src="$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	[[ -d "$src" ]] || die "go mod download $1@$2 gave no directory"
	log "copying $src to .cache/$3 and applying $4 ..."
	rm -rf ".cache/$3.tmp"
	mkdir -p .cache
	cp -R "$src" ".cache/$3.tmp"
	chmod -R u+w ".cache/$3.tmp"
	patch --quiet -p1 -d ".cache/$3.tmp" <"$4" || die "$4 does not apply to $1@$2"
	rm -rf ".cache/$3"
	mv ".cache/$3.tmp" ".cache/$3"
}
copy k8s.io/kubernetes "$kube_ver" kubernetes lbstatus.patch
# The versioned type of spec.requiredLoadBalancerFeatures lives in the
# staging module k8s.io/api, which go.mod maps to this copy; its release
# is k8s.io/kubernetes's, v1.N.P as v0.N.P.
copy k8s.io/api "v0.${kube_ver#v1.}" api api.patch

v="${kube_ver#v}"
major="${v%%.*}"
minor="${v#*.}"
minor="${minor%%.*}"
pv=k8s.io/component-base/version
start=$SECONDS
tmp="$bin/.kube-apiserver.tmp.$$"
# shellcheck disable=SC2064 # expand $tmp now
trap "rm -f $(printf %q "$tmp")" EXIT
log "building kube-apiserver $kube_ver with api.patch and lbstatus.patch ..."
go build -mod=readonly -trimpath \
	-ldflags "-s -w -X $pv.gitVersion=$kube_ver -X $pv.gitMajor=$major -X $pv.gitMinor=$minor -X $pv.gitTreeState=clean" \
	-o "$tmp" k8s.io/kubernetes/cmd/kube-apiserver
mv -f "$tmp" "$bin/kube-apiserver"
trap - EXIT
echo "$key" >"$bin/kube-apiserver.key"
log "built kube-apiserver fork in $((SECONDS - start)) s"
echo "$bin" >&3
