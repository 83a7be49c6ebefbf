#!/usr/bin/env bash
# Prints the path of HAProxy, installing Debian's package first when it is missing. The replica
# tests and make soak put it in front of the boxwatch replicas.
set -euo pipefail
if ! command -v haproxy >/dev/null; then
  "$(dirname "$0")/apt-install.sh" haproxy
fi
command -v haproxy
