#!/usr/bin/env bash
# Vendors the dashboard's third-party files into web/vendor from the npm packages pinned by
# web/package.json and web/package-lock.json, then checks every vendored file against
# web/vendor/SHA256SUMS. The install goes to a temporary directory; only the built files the
# dashboard serves, and each package's licence, are copied. go build needs none of this: the
# vendored files are committed.
#
#   scripts/assets.sh           install, copy, verify (what make assets runs)
#   scripts/assets.sh --check   verify the committed files only (no network)
#   scripts/assets.sh --update  install, copy and rewrite SHA256SUMS (after changing a version)
set -euo pipefail
cd "$(dirname "$0")/../web"

mode=${1:-}
sums=vendor/SHA256SUMS

# package → the files to copy from it, relative to the package's folder.
files() {
  cat <<'LIST'
maplibre-gl dist/maplibre-gl.mjs
maplibre-gl dist/maplibre-gl-worker.mjs
maplibre-gl dist/maplibre-gl.css
maplibre-gl LICENSE.txt
swagger-ui-dist swagger-ui-bundle.js
swagger-ui-dist swagger-ui.css
swagger-ui-dist LICENSE
swagger-ui-dist NOTICE
world-atlas land-50m.json
world-atlas LICENSE
LIST
}

verify() {
  if ! (cd vendor && sha256sum --quiet --strict -c SHA256SUMS); then
    echo "assets: web/vendor does not match web/vendor/SHA256SUMS" >&2
    exit 1
  fi
  local listed present
  listed=$(awk '{print $2}' "$sums" | sed 's/^\*//' | sort)
  present=$(cd vendor && find . -type f ! -name SHA256SUMS ! -name README.md | sed 's|^\./||' | sort)
  if [ "$listed" != "$present" ]; then
    echo "assets: files in web/vendor differ from those SHA256SUMS lists:" >&2
    diff <(echo "$listed") <(echo "$present") >&2 || true
    exit 1
  fi
  echo "assets: $(echo "$listed" | wc -l) vendored files match SHA256SUMS"
}

if [ "$mode" = "--check" ]; then
  verify
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp package.json package-lock.json "$tmp/"
echo "assets: npm ci (pinned by web/package-lock.json) in a temporary directory..."
(cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)

staged="$tmp/vendor"
while read -r pkg file; do
  mkdir -p "$staged/$pkg"
  cp "$tmp/node_modules/$pkg/$file" "$staged/$pkg/$(basename "$file")"
done < <(files)

# Replace the packages' folders whole, so a file dropped from the list does not linger.
for pkg in $(files | awk '{print $1}' | sort -u); do
  rm -rf "vendor/$pkg"
  mkdir -p vendor
  cp -R "$staged/$pkg" "vendor/$pkg"
done

if [ "$mode" = "--update" ]; then
  (cd vendor && find . -type f ! -name SHA256SUMS ! -name README.md | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) > "$sums"
  echo "assets: rewrote web/vendor/SHA256SUMS"
fi
verify
