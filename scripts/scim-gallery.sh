#!/usr/bin/env bash
# Microsoft's Entra gallery validation, its SCIM-direct tests (scripts/scim-gallery/validate.py,
# docs/scim-gallery.md), against a real `equip serve`: first on a fresh SQLite database, then on a
# fresh PostgreSQL database (a scratch database on the server at $EQUIP_TEST_POSTGRES_SERVER,
# default postgres://postgres@127.0.0.1:5432, dropped afterwards). Each backend runs the
# `equip` profile (the Entra mapping docs/scim.md gives) in both PATCH formats Entra uses, then
# Entra's default mapping without its email target (`entra-default-without-email`).
#
#   EQUIP_BIN=path                use this binary instead of building one (cargo build, debug);
#   SCIM_GALLERY_REPORT_ONLY=1    print the results, exit 0 even when a test fails;
#   SCIM_GALLERY_BACKENDS="sqlite postgres"   the backends to run (default both);
#   SCIM_GALLERY_TRACE=1          print every request under its test.
# Exits non-zero when a test fails on any backend (unless report-only) or a step cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${EQUIP_BIN:-}" ]; then
  bin=$EQUIP_BIN
else
  cargo build -q -p equip-server --bin equip
  bin="${CARGO_TARGET_DIR:-target}/debug/equip"
fi
[ -x "$bin" ] || { echo "scim-gallery: no equip binary at $bin" >&2; exit 1; }
pg_server=${EQUIP_TEST_POSTGRES_SERVER:-postgres://postgres@127.0.0.1:5432}
backends=${SCIM_GALLERY_BACKENDS:-sqlite postgres}
trace=()
[ "${SCIM_GALLERY_TRACE:-0}" = 1 ] && trace=(--trace)

work=$(mktemp -d)
server_pid=""
pg_db=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
cleanup() {
  stop_server
  if [ -n "$pg_db" ]; then
    psql -X -q "$pg_server/postgres" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "scim-gallery: FAILED: $*" >&2; exit 1; }

failures=0
for backend in $backends; do
  case $backend in
    sqlite) export DATABASE_URL="$work/equip.db" ;;
    postgres)
      scripts/ensure-postgres.sh >/dev/null || fail "PostgreSQL is not reachable at $pg_server"
      pg_db="equip_scim_gallery_$$"
      psql -X -q "$pg_server/postgres" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" -c "CREATE DATABASE $pg_db" >/dev/null \
        || fail "could not create the scratch database $pg_db"
      export DATABASE_URL="$pg_server/$pg_db" ;;
    *) fail "unknown backend $backend (sqlite or postgres)" ;;
  esac
  org=$("$bin" org create --name "SCIM Gallery" 2>"$work/org.log") || { cat "$work/org.log" >&2; fail "org create ($backend)"; }
  key=$("$bin" key create --org "$org" --scope scim 2>/dev/null)
  [[ "$key" =~ ^equip_ ]] || fail "key create printed no key ($backend)"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # Without the per-key rate limit: the validation sends its requests back to back, and rate
  # limits have tests of their own.
  "$bin" serve --bind "127.0.0.1:$port" --rate-limit 0 2>"$work/serve-$backend.log" &
  server_pid=$!
  for _ in $(seq 1 150); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 || { cat "$work/serve-$backend.log" >&2; fail "equip serve did not start ($backend)"; }
  for variant in equip:default equip:verbose entra-default-without-email:default; do
    profile=${variant%%:*} format=${variant##*:}
    flags=()
    [ "$format" = verbose ] && flags=(--verbose-patch)
    # What is known to fail, and why (docs/scim-gallery.md, "Results"): a listed test that passes
    # fails the run, so this list has to follow the code.
    if [ "$profile" = equip ]; then
      why="the workflow sends a userName other than the work email it maps, and equip's userName is the primary email (docs/scim.md: for the validation, map no email target)"
      flags+=(--expect-fail "SCIM_Null_Update_Test=$why" --expect-fail "SCIM_User_Create_Test=$why"
              --expect-fail "SCIM_User_Update_Test=$why" --expect-fail "SCIM_User_Pagination_Test=$why")
    else
      flags+=(--expect-fail "Schema_Discoverability_Test=the enterprise extension (employeeNumber, department, manager) is not stored yet, and addresses.formatted is not kept (docs/scim.md)"
              --expect-fail "SCIM_User_Update_Test=it replaces userName with a value that is not an email address (docs/scim.md: take userName out of the update targets)"
              --expect-fail "SCIM_Update_Manager_Test=the enterprise extension's manager is not stored yet")
    fi
    echo "== Microsoft gallery validation (SCIM-direct tests), $backend, profile $profile, PATCH format $format"
    # The key goes through the environment, not the command line.
    status=0
    SCIM_GALLERY_TOKEN=$key python3 scripts/scim-gallery/validate.py --url "http://127.0.0.1:$port/scim/v2" \
      --profile "$profile" "${flags[@]}" "${trace[@]}" || status=$?
    [ "$status" -le 1 ] || fail "validate.py could not run ($backend, $format)"
    [ "$status" = 0 ] || failures=$((failures + 1))
  done
  stop_server
  grep -q "$key" "$work/serve-$backend.log" && fail "the key appears in the server log ($backend)"
  if [ "$backend" = postgres ]; then
    psql -X -q "$pg_server/postgres" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null
    pg_db=""
  fi
done

if [ "$failures" != 0 ]; then
  if [ "${SCIM_GALLERY_REPORT_ONLY:-0}" = 1 ]; then
    echo "scim-gallery: $failures run(s) with failed tests (report only)"
    exit 0
  fi
  fail "$failures run(s) with failed tests"
fi
echo "scim-gallery: ok"
