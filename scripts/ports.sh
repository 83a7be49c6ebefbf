#!/usr/bin/env bash
# Rebuilds data/ports/ports.json and data/ports/LICENSE.sea-ports from the npm package
# sea-ports@0.0.9 (MIT), with time zones checked against the IANA database of Debian's tzdata
# (installed when missing). Needs npm and go; the download goes to a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f /usr/share/zoneinfo/zone.tab ] || scripts/apt-install.sh tzdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent sea-ports@0.0.9 >/dev/null && tar -xzf sea-ports-0.0.9.tgz)
go run ./data/ports/gen -package "$tmp/package" -out data/ports
