#!/usr/bin/env bash
# The stand-in for the chart's `postgres` image, twice: for the node agent (test/cluster/images.json
# maps the image here, the machine's PostgreSQL 15 binaries) and as the entrypoint of the real node's
# image svc-local/postgres (test/cluster/node/postgres.Dockerfile, Debian's postgresql-15). It behaves
# like the official image's entrypoint for what the chart uses. PGDATA (rewritten by the node agent to the PVC's host directory), PGPORT, POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB: on first start initdb creates the cluster, the user and the
# database; later starts find PG_VERSION and reuse the data, as a restarted pod would.
#
# For the node agent it listens on the pod address and on 127.0.0.1:PGPORT: there is no kube-proxy, so
# 127.0.0.1 stands in for the Service (the tests pick a free port and set postgresql.host=127.0.0.1).
# In the image POSTGRES_LISTEN=* (every address of the pod, as the official image); the chart runs it
# as uid 999 with a read-only root, so it writes only PGDATA and /tmp, and makes no unix socket.
# PostgreSQL refuses to run as root: as root (CI) the server runs as the `postgres` user, which gets
# ownership of the data directory and permission to traverse to it.
set -euo pipefail

bin="${SVC_PG_BIN:-/usr/lib/postgresql/15/bin}"
data="${PGDATA:?PGDATA is not set}"
port="${PGPORT:-5432}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set}"

as_pg=()
mkdir -p "$data"
if [[ "$(id -u)" == 0 ]]; then
  as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups)
  chown postgres:postgres "$data"
  chmod 0700 "$data"
  # Let the postgres user traverse (not list) every ancestor, e.g. the provisioner's 0750 /tmp/hostpath_pv.
  dir="$(dirname "$data")"
  while [[ "$dir" != "/" ]]; do
    if ! "${as_pg[@]}" test -x "$dir"; then chmod o+x "$dir"; fi
    dir="$(dirname "$dir")"
  done
fi
run_pg() { "${as_pg[@]}" "$@"; }

if [[ ! -s "$data/PG_VERSION" ]]; then
  echo "postgres-image: initdb in $data (user $user, database $db)" >&2
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  [[ ${#as_pg[@]} -gt 0 ]] && chown postgres "$pwfile"
  run_pg "$bin/initdb" -D "$data" -U "$user" --pwfile="$pwfile" -A scram-sha-256 -E UTF8 --locale=C --no-sync
  rm -f "$pwfile"
  # As the official image: password logins from any address (the pod network).
  echo "host all all all scram-sha-256" | run_pg tee -a "$data/pg_hba.conf" >/dev/null
  if [[ "$db" != "postgres" ]]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | run_pg "$bin/postgres" --single -D "$data" postgres >/dev/null
  fi
fi

listen="${POD_IP:-127.0.0.1}"
[[ "$listen" != "127.0.0.1" ]] && listen="$listen,127.0.0.1"
listen="${POSTGRES_LISTEN:-$listen}"
echo "postgres-image: starting on $listen port $port" >&2
exec "${as_pg[@]}" "$bin/postgres" -D "$data" -p "$port" -h "$listen" -c unix_socket_directories= -c fsync=off "$@"
