#!/usr/bin/env bash
# Builds the etcd and kube-apiserver binaries pinned in hack/kube/go.mod from
# the Go module proxy (no prebuilt downloads) and caches them in
# $LBSTATUS_KUBE_BIN (default: hack/kube/.bin/) as `etcd` and `kube-apiserver`,
# which is the layout envtest expects in KUBEBUILDER_ASSETS. The build is
# skipped when the cached binaries already report the pinned versions.
#
# Logs go to stderr. The last line on stdout is the absolute path of the
# folder, so callers can do:
#   export KUBEBUILDER_ASSETS="$(hack/kube/build.sh | tail -1)"
#
# A cold build takes about 5 minutes and about 3 GB of RAM and GOCACHE,
# nearly all of it for kube-apiserver.
set -euo pipefail

# Keep stdout for the result line only; everything else goes to stderr.
exec 3>&1 1>&2

log() { printf '%s build.sh: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 1; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

# Resolve the output folder before changing directory, so a relative
# LBSTATUS_KUBE_BIN is taken relative to the caller's working directory.
bin="${LBSTATUS_KUBE_BIN:-$here/.bin}"
mkdir -p "$bin"
bin="$(cd "$bin" && pwd -P)"

command -v go >/dev/null || die "go is not on PATH"
cd "$here"

# The pinned versions, read from go.mod (both `require x v` and the
# block form `x v`).
modver() {
	awk -v m="$1" '
		$1 == "require" && $2 == m { print $3; exit }
		$1 == m && $2 ~ /^v/ { print $2; exit }
	' go.mod
}
etcd_mod=go.etcd.io/etcd/server/v3
kube_mod=k8s.io/kubernetes
etcd_ver="$(modver "$etcd_mod")"
kube_ver="$(modver "$kube_mod")"
[[ -n "$etcd_ver" ]] || die "no $etcd_mod version in $here/go.mod"
[[ -n "$kube_ver" ]] || die "no $kube_mod version in $here/go.mod"

# What the binaries print for --version when they match the pins.
# etcd:           "etcd Version: 3.7.0" (a constant in go.etcd.io/etcd/api/v3/version)
# kube-apiserver: "Kubernetes v1.37.2"   (set with -X below)
etcd_want="etcd Version: ${etcd_ver#v}"
kube_want="Kubernetes $kube_ver"

has_version() { # binary, expected line
	[[ -x "$1" ]] || return 1
	local out
	out="$("$1" --version 2>/dev/null)" || return 1
	grep -qxF -- "$2" <<<"$out"
}

# Build only from this module's go.mod/go.sum: no go.work from a parent
# folder, no go.mod edits, and static binaries (as upstream ships them; also
# needs no C compiler).
export GOWORK=off CGO_ENABLED=0

build() { # name, package, ldflags
	local name="$1" pkg="$2" ldflags="$3" start=$SECONDS
	local tmp="$bin/.$name.tmp.$$"
	log "building $name from $pkg ..."
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -f $(printf %q "$tmp")" EXIT
	go build -mod=readonly -trimpath -ldflags "$ldflags" -o "$tmp" "$pkg"
	mv -f "$tmp" "$bin/$name"
	trap - EXIT
	log "built $name in $((SECONDS - start)) s"
}

if has_version "$bin/etcd" "$etcd_want"; then
	log "etcd is up to date ($etcd_want)"
else
	build etcd "$etcd_mod" "-s -w"
	has_version "$bin/etcd" "$etcd_want" ||
		die "$bin/etcd --version does not report '$etcd_want': $("$bin/etcd" --version 2>&1 | head -1)"
fi

if has_version "$bin/kube-apiserver" "$kube_want"; then
	log "kube-apiserver is up to date ($kube_want)"
else
	v="${kube_ver#v}"
	major="${v%%.*}"
	minor="${v#*.}"
	minor="${minor%%.*}"
	pv=k8s.io/component-base/version
	build kube-apiserver "$kube_mod/cmd/kube-apiserver" \
		"-s -w -X $pv.gitVersion=$kube_ver -X $pv.gitMajor=$major -X $pv.gitMinor=$minor -X $pv.gitTreeState=clean"
	has_version "$bin/kube-apiserver" "$kube_want" ||
		die "$bin/kube-apiserver --version does not report '$kube_want': $("$bin/kube-apiserver" --version 2>&1 | head -1)"
fi

echo "$bin" >&3
