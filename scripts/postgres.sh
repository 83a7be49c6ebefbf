#!/usr/bin/env bash
# Makes sure the PostgreSQL server named by the URL in $1 answers, starting (or installing and
# starting) the local Debian cluster when it does not. Exits non-zero if it still cannot be reached.
set -euo pipefail
url="${1:?usage: scripts/postgres.sh postgres://user@host:port/db}"
hostport="${url#*://}"; hostport="${hostport#*@}"; hostport="${hostport%%/*}"
host="${hostport%%:*}"; port="${hostport##*:}"; [ "$port" = "$hostport" ] && port=5432

answers() { (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; }

if answers; then exit 0; fi
case "$host" in 127.0.0.1|localhost|::1) ;; *) echo "PostgreSQL at $host:$port does not answer" >&2; exit 1;; esac

if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  "$(dirname "$0")/apt-install.sh" postgresql
fi
version=$(ls /etc/postgresql | sort -V | tail -n 1)
conf="/etc/postgresql/$version/main"
# Tests connect as postgres without a password over TCP: trust local connections only.
if ! grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$conf/pg_hba.conf"; then
  sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$conf/pg_hba.conf"
fi
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 30); do answers && break; sleep 1; done
answers || { echo "PostgreSQL at $host:$port still does not answer" >&2; exit 1; }
db="${url##*/}"; db="${db%%\?*}"
if [ -n "$db" ] && command -v psql >/dev/null; then
  psql -h "$host" -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 \
    || psql -h "$host" -p "$port" -U postgres -c "CREATE DATABASE \"$db\"" >/dev/null
fi
