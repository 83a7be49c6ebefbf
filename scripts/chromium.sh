#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is installed for the browser tests and prints its path.
# Uses $BOXWATCH_CHROMIUM when it names an executable, else Debian's chromium, installing the
# package with apt-get when it is missing (through sudo when not root). Exits non-zero with the
# reason when no Chromium can be had; the browser tests then fail under make test and .ci/run.
set -euo pipefail

if [ -n "${BOXWATCH_CHROMIUM:-}" ]; then
  if [ -x "$BOXWATCH_CHROMIUM" ]; then echo "$BOXWATCH_CHROMIUM"; exit 0; fi
  echo "BOXWATCH_CHROMIUM=$BOXWATCH_CHROMIUM is not an executable file" >&2; exit 1
fi
for path in /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)"; do
  if [ -n "$path" ] && [ -x "$path" ]; then echo "$path"; exit 0; fi
done

if ! command -v apt-get >/dev/null; then
  echo "Chromium is missing and this system has no apt-get: install Chromium and set BOXWATCH_CHROMIUM to its path" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "Chromium is missing: install it with 'sudo apt-get install chromium' (this script needs root or password-less sudo to do it)" >&2
  exit 1
fi
echo "installing chromium from Debian's packages (once; about 100 MB)" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
if [ -x /usr/bin/chromium ]; then echo /usr/bin/chromium; exit 0; fi
echo "apt-get installed chromium but /usr/bin/chromium is missing" >&2
exit 1
