#!/usr/bin/env bash
# Copies the repo's default pipeline template into the chart (Helm reads files inside the chart only).
# test/chart/lint.test.ts fails while the two differ. Usage: npm run chart:sync
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp "$root/templates/pipeline-template.yaml" "$root/charts/svc/files/pipeline-template.yaml"
echo "charts/svc/files/pipeline-template.yaml updated from templates/pipeline-template.yaml"
