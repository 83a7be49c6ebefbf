#!/usr/bin/env bash
# Installs, when they are missing, the programs the tests run other than HAProxy and Chromium
# (scripts/haproxy.sh and scripts/chromium.sh see to those): PostgreSQL's server programs initdb
# and pg_ctl, for the private clusters of internal/pgcluster; Node.js, for web/'s antimeridian
# tests and the AIS agreement test; npm, which fetches that test's data (scripts/aisdata.sh); the
# IANA time zone database's zone.tab (tzdata), against which data/ports/gen checks the ports' zones.
# make test runs it, and under make test those tests fail without them. Does nothing, quickly,
# when everything is there; exits non-zero naming what it could not install.
set -euo pipefail
cd "$(dirname "$0")"

# internal/pgcluster takes pg_ctl from PATH with initdb beside it, else Debian's
# /usr/lib/postgresql/VERSION/bin.
postgres_server() {
  local p
  if p=$(command -v pg_ctl) && [ -x "$(dirname "$(readlink -f "$p")")/initdb" ]; then return 0; fi
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

check() {
  missing=()
  postgres_server || missing+=(postgresql)
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
  [ -f /usr/share/zoneinfo/zone.tab ] || missing+=(tzdata)
}

check
[ ${#missing[@]} -eq 0 ] && exit 0
./apt-install.sh "${missing[@]}"
check
if [ ${#missing[@]} -gt 0 ]; then
  echo "still missing after installing: ${missing[*]}" >&2
  exit 1
fi
