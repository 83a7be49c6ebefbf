#!/usr/bin/env bash
# Times boxwatch's sea router against npm searoute-js 0.1.0 on the same pairs, in the same run.
# searoute-js is a benchmark dependency only: it is installed here, into node_modules (ignored by
# git), never into the product. REPEAT (default 21) is how many times each query runs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
repeat="${REPEAT:-21}"
pairs=searoute/testdata/pairs.json
if [ ! -d "$here/node_modules/searoute-js" ]; then
  (cd "$here" && npm install --silent --no-package-lock --no-audit --no-fund >/dev/null)
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go run ./cmd/boxwatch route --pairs "$pairs" --repeat "$repeat" >"$out"
node "$here/bench.js" "$pairs" "$out" "$repeat"
go test -run '^$' -bench 'Load' -benchtime 5x -count 3 ./searoute | grep -E '^Benchmark' | go run ./internal/benchreport
