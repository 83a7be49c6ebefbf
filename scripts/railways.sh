#!/usr/bin/env bash
# Rebuilds data/railways/railways.json from data/railways/railways.csv (kept by hand, every row
# with the public page that gives the railway's reporting mark).
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./data/railways/gen -dir data/railways
