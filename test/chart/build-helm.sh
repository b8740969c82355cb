#!/usr/bin/env bash
# Builds Helm from the Go module proxy, once, into a cache directory outside the repo keyed by
# version (like test/cluster/build.sh does for the cluster binaries):
#   ${SVC_HELM_CACHE:-$HOME/.cache/svc-helm}/helm-<version>/bin/helm
# A binary that is already there is reused. Go's module and build caches stay at their defaults.
# Prints the bin directory as its last line.
#
# Env: SVC_HELM_CACHE (cache root), SVC_CLUSTER_BUILD_JOBS (go build -p, default 2; runs under nice).
set -euo pipefail

# The pinned Helm 3 release. Its go.mod requires k8s.io/client-go v0.37.x: upstream's Makefile then
# sets the default Kubernetes version of `helm template`/`helm lint` to 1.37 through ldflags, and so do we.
helm_version="v3.22.0"
k8s_major="1"
k8s_minor="37"

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

cache_root="${SVC_HELM_CACHE:-$HOME/.cache/svc-helm}"
dir="$cache_root/helm-$helm_version"
bin="$dir/bin"
jobs="${SVC_CLUSTER_BUILD_JOBS:-2}"
mkdir -p "$bin"

# One build at a time per version (CI's pre-build and a test's may overlap).
exec 9>"$dir/build.lock"
flock 9

if [[ -x "$bin/helm" ]]; then
  echo "build-helm.sh: reusing $bin/helm" >&2
  echo "$bin"
  exit 0
fi

ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags+=" -X $pkg.k8sVersionMajor=$k8s_major -X $pkg.k8sVersionMinor=$k8s_minor"
done

echo "build-helm.sh: go install helm.sh/helm/v3/cmd/helm@$helm_version into $bin (go build -p $jobs) ..." >&2
start=$SECONDS
# Install into a scratch GOBIN and rename, so an interrupted build never looks finished. Outside any
# module (cd /), so the repo has no say in it; CGO off like upstream's release builds.
tmp="$(mktemp -d "$dir/.gobin.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd / && CGO_ENABLED=0 GOBIN="$tmp" nice -n 10 go install -trimpath -p "$jobs" -ldflags "$ldflags" \
  "helm.sh/helm/v3/cmd/helm@$helm_version")
mv "$tmp/helm" "$bin/helm"
echo "build-helm.sh: built $("$bin/helm" version --short) in $((SECONDS - start)) s" >&2
echo "$bin"
