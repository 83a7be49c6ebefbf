#!/usr/bin/env bash
# Installs the Debian packages named as arguments with apt-get, as root or through password-less
# sudo; apt's output goes to stderr. Exits non-zero, naming the packages, when it cannot install
# them. The other scripts call it for what they find missing.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/apt-install.sh PACKAGE..." >&2; exit 2; }
if ! command -v apt-get >/dev/null; then
  echo "this system has no apt-get: install $* with its own package manager" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "install $* with 'sudo apt-get install $*' (this script needs root or password-less sudo to do it)" >&2
  exit 1
fi
echo "installing $* from Debian's packages" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
