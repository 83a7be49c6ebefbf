#!/usr/bin/env bash
# Vendors axe-core, the accessibility engine the browser tests inject into pages, from the version
# pinned by internal/browsertest/package-lock.json (npm checks the tarball's integrity) into
# internal/browsertest/vendor/axe-core/: axe.min.js and its licence (MPL-2.0), then checks them
# against the committed vendor/SHA256SUMS. With --update, writes SHA256SUMS from the files instead
# (after a deliberate version change in package.json). Needs npm; go build and go test do not.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../internal/browsertest" && pwd)"
update=false
[ "${1:-}" = "--update" ] && update=true

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$dir/package.json" "$dir/package-lock.json" "$tmp/"
(cd "$tmp" && npm ci --silent --ignore-scripts --no-audit --no-fund >/dev/null)

out="$dir/vendor/axe-core"
mkdir -p "$out"
cp "$tmp/node_modules/axe-core/axe.min.js" "$tmp/node_modules/axe-core/LICENSE" "$out/"
version=$(sed -n 's/^ *"version": "\([^"]*\)".*/\1/p' "$tmp/node_modules/axe-core/package.json" | head -n 1)

cd "$dir/vendor"
if $update || [ ! -f SHA256SUMS ]; then
  sha256sum axe-core/axe.min.js axe-core/LICENSE > SHA256SUMS
  echo "axe-core $version vendored; wrote internal/browsertest/vendor/SHA256SUMS"
else
  sha256sum --quiet -c SHA256SUMS || { echo "vendored axe-core differs from SHA256SUMS (run scripts/axe.sh --update after changing the pin)" >&2; exit 1; }
  echo "axe-core $version vendored and matches SHA256SUMS"
fi
