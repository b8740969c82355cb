#!/usr/bin/env bash
# Builds the test cluster's control plane (etcd, kube-apiserver, kube-controller-manager) from the
# wrapper Go modules beside this script, once, into a cache directory outside the repo:
#   ${SVC_CLUSTER_CACHE:-$HOME/.cache/svc-test-cluster}/<version>/bin
# A binary that is already there is reused, so later runs (and CI after a warm-up) cost nothing.
# Go's module and build caches stay at their defaults (outside the repo) so they are reused too.
# Prints the bin directory as its last line.
# `build.sh --node` also builds the kubelet, kube-scheduler, kube-proxy, the pause binary, CoreDNS and
# kube-router (NetworkPolicy) for the real node (test/cluster/node/README.md).
#
# Env: SVC_CLUSTER_CACHE (cache root), SVC_CLUSTER_BUILD_JOBS (go build -p, default 2; the
# machine has 2 cores and builds run under nice so interactive work keeps priority).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Go is used only here; the machine image installs it under /usr/local/go.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

# Versions come from the wrapper modules themselves, so the cache key follows go.mod.
# mod_version MODULE GO_MOD: the required version of MODULE (in a require block or a one-line require).
mod_version() {
  awk -v m="$1" '$1 == "require" { $1 = "" ; $0 = $0 } $1 == m && $2 ~ /^v/ { print $2; exit }' "$2"
}
kube_version="$(mod_version k8s.io/kubernetes "$here/kube/go.mod")"
etcd_version="$(mod_version go.etcd.io/etcd/server/v3 "$here/etcd/go.mod")"
if [[ -z "$kube_version" || -z "$etcd_version" ]]; then
  echo "build.sh: cannot read versions from kube/go.mod or etcd/go.mod" >&2
  exit 1
fi
version="kube-${kube_version}_etcd-${etcd_version}"
cache_root="${SVC_CLUSTER_CACHE:-$HOME/.cache/svc-test-cluster}"
bin="$cache_root/$version/bin"
jobs="${SVC_CLUSTER_BUILD_JOBS:-2}"
mkdir -p "$bin"

# One build at a time per version (CI's pre-build and the vitest global setup may overlap).
exec 9>"$cache_root/$version/build.lock"
flock 9

minor="${kube_version#v1.}"
minor="${minor%%.*}"
build_date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
# Upstream sets these through hack/lib/version.sh; without them /version reports v0.0.0-master.
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done

# build NAME MODULE_DIR PACKAGE LDFLAGS
build() {
  local name="$1" dir="$2" pkg="$3" ldflags="$4"
  if [[ -x "$bin/$name" ]]; then
    echo "build.sh: reusing $bin/$name" >&2
    return
  fi
  echo "build.sh: building $name ($pkg) into $bin with go build -p $jobs ..." >&2
  local start=$SECONDS
  # Build to a temporary name and rename, so an interrupted build never looks finished.
  (cd "$here/$dir" && nice -n 10 go build -buildvcs=false -p "$jobs" -ldflags "$ldflags" \
    -o "$bin/.$name.tmp" "$pkg")
  mv "$bin/.$name.tmp" "$bin/$name"
  echo "build.sh: built $name in $((SECONDS - start)) s" >&2
}

total_start=$SECONDS
build etcd etcd go.etcd.io/etcd/server/v3 "-s -w"
build kube-apiserver kube ./cmd/kube-apiserver "$kube_ldflags"
build kube-controller-manager kube ./cmd/kube-controller-manager "$kube_ldflags"
if [[ "${1:-}" == "--node" ]]; then
  build kubelet kube ./cmd/kubelet "$kube_ldflags"
  build kube-scheduler kube ./cmd/kube-scheduler "$kube_ldflags"
  build kube-proxy kube ./cmd/kube-proxy "$kube_ldflags"
  # The pod sandbox image's only file, so static.
  CGO_ENABLED=0 build pause kube ./cmd/pause "-s -w"
  # The node's cluster DNS; its version is not in the cache key, so it is in the binary's name.
  coredns_version="$(mod_version github.com/coredns/coredns "$here/coredns/go.mod")"
  build "coredns-$coredns_version" coredns . "-s -w"
  # NetworkPolicy enforcement (kube-router's firewall only): its version is in the binary's name too.
  router_version="$(mod_version github.com/cloudnativelabs/kube-router/v2 "$here/kube-router/go.mod")"
  build "kube-router-$router_version" kube-router github.com/cloudnativelabs/kube-router/v2/cmd/kube-router "-s -w"
fi
echo "build.sh: binaries ready in $((SECONDS - total_start)) s" >&2
echo "$bin"
