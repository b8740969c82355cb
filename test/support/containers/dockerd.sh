#!/usr/bin/env bash
# The Docker daemon the connectors' tests start their containers in (test/connectors/README.md),
# when the user named none in DOCKER_HOST: a dockerd of the project's own, started once and then
# reused by every run (it stays up; `dockerd.sh stop` ends it). Everything of it is its own:
#   socket, data root, pidfile, log  ${SVC_TEST_DOCKER_CACHE:-~/.cache/svc-test-docker}/
#   exec root                        /run/svc-tc-docker (holds unix sockets: the path must stay short)
#   bridge                           svc-tc0 with 10.213.0.1/24, made here (dockerd refuses a bridge
#                                    name of its own together with --bip: the address is set on it)
# No iptables rules, no masquerading, the host's ip_forward left alone: published ports go through
# docker-proxy, bound to 127.0.0.1 only (--ip), to the containers on the bridge. Never the system's
# /var/run/docker.sock dockerd, never images.sh's data root (two dockerds on one data root corrupt it).
# Prints `DOCKER_HOST=unix://…` on stdout. Needs root (a bridge, mounts) and Debian's docker.io.
set -euo pipefail

cache="${SVC_TEST_DOCKER_CACHE:-$HOME/.cache/svc-test-docker}"
exec_root=/run/svc-tc-docker
bridge=svc-tc0
address=10.213.0.1/24
socket="$cache/docker.sock"
export DOCKER_HOST="unix://$socket"
log() { echo "dockerd.sh: $*" >&2; }
mkdir -p "$cache"
# One start at a time (parallel test runs, bench).
exec 9>"$cache/dockerd.lock"
flock 9

# stop_old: ends a dockerd of ours that no longer answers (a crashed or killed run), with the
# containerd it started, and undoes what it leaves behind. The exec root and the bridge are one per
# machine, so a dockerd of ours started with another cache (another HOME: a cold CI run beside a warm
# one) is ended too. A killed daemon leaves its containers' network sandboxes: a namespace still
# mounted under the exec root with its veth on the bridge, answering ARP for the address (10.213.0.2)
# the next daemon hands to its first container. Two hosts with one address on one bridge reset each
# other's connections at random (the connectors' PostgreSQL lost its clients mid-run), so the
# processes still in those namespaces are killed and the namespaces unmounted.
stop_old() {
  local pid pids
  pids="$(pids_with_arg "--exec-root $exec_root")"
  for pidfile in "$cache/dockerd.pid" "$exec_root/containerd/containerd.pid"; do
    [[ -s "$pidfile" ]] && pids+=" $(cat "$pidfile")"
    rm -f "$pidfile"
  done
  for pid in $pids; do
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  local sandbox host_ns ns_id
  host_ns="$(readlink /proc/self/ns/net 2>/dev/null || true)"
  for sandbox in "$exec_root"/netns/*; do
    [[ -e "$sandbox" && "$(basename "$sandbox")" != default ]] || continue
    ns_id="net:[$(stat -L -c %i "$sandbox" 2>/dev/null || true)]"
    if [[ "$ns_id" != "$host_ns" ]]; then
      for pid in /proc/[0-9]*; do
        [[ "$(readlink "$pid/ns/net" 2>/dev/null)" == "$ns_id" ]] && kill -9 "${pid#/proc/}" 2>/dev/null
      done
    fi
    umount "$sandbox" 2>/dev/null || umount -l "$sandbox" 2>/dev/null || true
    rm -f "$sandbox"
  done
  local mount
  for mount in "$exec_root/netns/default" "$cache/docker"; do
    if grep -qF " $mount " /proc/mounts; then umount "$mount" 2>/dev/null || umount -l "$mount" || true; fi
  done
  rm -f "$socket"
}

# pids_with_arg TEXT: processes whose command line contains TEXT.
pids_with_arg() {
  local dir
  for dir in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null <"$dir/cmdline" | grep -qF -- "$1"; then echo "${dir#/proc/}"; fi
  done
}

if [[ "${1:-}" == stop ]]; then
  if docker info >/dev/null 2>&1; then
    ids="$(docker ps -aq --filter label=svc.test.container)"
    [[ -z "$ids" ]] || docker rm -f $ids >/dev/null
  fi
  stop_old
  ip link del "$bridge" 2>/dev/null || true
  log "stopped"
  exit 0
fi

if docker info >/dev/null 2>&1; then
  echo "DOCKER_HOST=$DOCKER_HOST"
  exit 0
fi
for tool in dockerd docker docker-proxy ip; do
  command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
  command -v "$tool" >/dev/null 2>&1 || {
    log "$tool is missing: install Debian's docker.io (and iproute2), or set DOCKER_HOST to a Docker of yours"
    exit 1
  }
done
[[ "$(id -u)" == 0 ]] || { log "starting a dockerd needs root; or set DOCKER_HOST to a Docker of yours"; exit 1; }
stop_old
# A bridge of its own, made anew: no port a killed daemon left stays on it.
ip link del "$bridge" 2>/dev/null || true
ip link add "$bridge" type bridge
ip addr show dev "$bridge" | grep -qF "inet $address " || ip addr add "$address" dev "$bridge"
ip link set "$bridge" up
log "starting dockerd (socket $socket, log $cache/dockerd.log)"
# setsid: the daemon outlives the test run that started it (the next run reuses it).
setsid nice -n 5 dockerd --host "$DOCKER_HOST" --data-root "$cache/docker" --exec-root "$exec_root" \
  --pidfile "$cache/dockerd.pid" --bridge "$bridge" --iptables=false --ip-masq=false \
  --ip-forward=false --ip 127.0.0.1 --userland-proxy=true </dev/null >"$cache/dockerd.log" 2>&1 9>&- &
pid=$!
for _ in $(seq 1 150); do
  docker info >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { tail -20 "$cache/dockerd.log" >&2; exit 1; }
  sleep 0.2
done
docker info >/dev/null || { tail -20 "$cache/dockerd.log" >&2; exit 1; }
echo "DOCKER_HOST=$DOCKER_HOST"
