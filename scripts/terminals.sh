#!/usr/bin/env bash
# Rebuilds data/terminals/terminals.json from data/terminals/terminals.csv (kept by hand) and SMDG's
# Master Terminal Facilities List: the extract data/terminals/smdg-us.csv, or the whole list
# given as the first argument (CSV as SMDG publishes it; CC BY 4.0, SMDG Secretariat).
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./data/terminals/gen -dir data/terminals -smdg "${1:-data/terminals/smdg-us.csv}"
