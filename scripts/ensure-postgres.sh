#!/usr/bin/env bash
# Makes sure the local PostgreSQL answers at $EQUIP_TEST_POSTGRES_URL (default
# postgres://postgres@127.0.0.1:5432/postgres), starting the Debian cluster if
# it is down. Exits non-zero, loudly, when it cannot.
set -uo pipefail
url=${EQUIP_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}

answers() { pg_isready -d "$url" -q 2>/dev/null || psql "$url" -Atc 'select 1' >/dev/null 2>&1; }

if answers; then echo "postgres: up ($url)"; exit 0; fi
if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  for version in $(ls /etc/postgresql); do
    echo "postgres: starting cluster $version/main" >&2
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
  done
  for _ in $(seq 1 30); do answers && { echo "postgres: up ($url)"; exit 0; }; sleep 1; done
fi
echo "postgres: NOT reachable at $url and could not be started" >&2
exit 1
