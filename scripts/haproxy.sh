#!/usr/bin/env bash
# Prints the path of HAProxy, installing Debian's package first when it is missing (with sudo
# when not root). The replica tests and make soak put it in front of the boxwatch replicas.
set -euo pipefail
if ! command -v haproxy >/dev/null; then
  echo "installing HAProxy from Debian's packages" >&2
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq >&2
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends haproxy >&2
fi
command -v haproxy
