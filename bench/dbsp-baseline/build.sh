#!/usr/bin/env bash
# Builds bench:engine's baseline (the `dbsp` crate on the same workload) once, into a cache OUTSIDE
# the repository, and prints the binary's path on the last line of stdout. Rebuilds only when
# Cargo.toml, Cargo.lock or src/ changed (their hash is stored beside the binary). The cold build
# takes ~25 minutes on 2 cores (the dbsp crate and its ~300 dependencies), so it runs at low priority.
#
#   bench/dbsp-baseline/build.sh            # build if missing or stale, print the path
#   SVC_DBSP_BASELINE_CACHE=/elsewhere bench/dbsp-baseline/build.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${SVC_DBSP_BASELINE_CACHE:-$HOME/.cache/svc-dbsp-baseline}"
bin="$cache/bin/dbsp-baseline"
stamp="$cache/bin/dbsp-baseline.sha256"

hash="$(cd "$here" && find Cargo.toml Cargo.lock src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"

if [[ -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then
  echo "$bin"
  exit 0
fi

command -v cargo >/dev/null || { echo "build.sh: cargo not found (rustc 1.95 builds dbsp 0.349.0)" >&2; exit 1; }
echo "build.sh: building the dbsp baseline into $cache (cold: ~25 min on 2 cores)" >&2
mkdir -p "$cache/bin"
# --locked: the committed Cargo.lock is what is measured; stdout is for the path alone.
CARGO_TARGET_DIR="$cache/target" nice -n 15 cargo build --release --locked -j 2 \
  --manifest-path "$here/Cargo.toml" 1>&2
install -m 0755 "$cache/target/release/dbsp-baseline" "$bin"
echo "$hash" >"$stamp"
echo "$bin"
