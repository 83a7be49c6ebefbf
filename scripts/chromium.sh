#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is installed for the browser tests and prints its path.
# Uses $BOXWATCH_CHROMIUM when it names an executable, else Debian's chromium, installing the
# package (once; about 100 MB) with scripts/apt-install.sh when it is missing. Exits non-zero with
# the reason when no Chromium can be had; the browser tests then fail under make test and .ci/run.
set -euo pipefail

if [ -n "${BOXWATCH_CHROMIUM:-}" ]; then
  if [ -x "$BOXWATCH_CHROMIUM" ]; then echo "$BOXWATCH_CHROMIUM"; exit 0; fi
  echo "BOXWATCH_CHROMIUM=$BOXWATCH_CHROMIUM is not an executable file" >&2; exit 1
fi
for path in /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)"; do
  if [ -n "$path" ] && [ -x "$path" ]; then echo "$path"; exit 0; fi
done

"$(dirname "$0")/apt-install.sh" chromium fonts-dejavu-core
if [ -x /usr/bin/chromium ]; then echo /usr/bin/chromium; exit 0; fi
echo "apt-get installed chromium but /usr/bin/chromium is missing" >&2
exit 1
