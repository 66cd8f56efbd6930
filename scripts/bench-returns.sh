#!/usr/bin/env bash
# Warehouse receipts and the hold release (release build, SQLite and
# PostgreSQL), docs/performance.md "Returns: receipts and the hold release":
#   1. a fresh database loaded by `equip import` with a generated document
#      (scripts/lib/returns_bench.py document): RECEIPT people being
#      offboarded, each with one DEPLOYED item on a PENDING return (serials
#      RET-0…), and HOLDS items held at the warehouse with unlockDate
#      tomorrow;
#   2. `equip serve --hold-release-interval 1`;
#   3. one receipt of the RECEIPT serials (POST /api/v1/warehouses/{id}/receipts),
#      timed, while a probe on another connection alternates a listing page
#      and a SCIM user create, one after another, and reports their p50, p99
#      and max latency (a lock the receipt holds too long shows there);
#   4. every hold made due at once (one UPDATE of unlock_date), then the
#      time the release pass reports in the log ("released N holds in M ms"),
#      with the same probe running meanwhile.
#
#   scripts/bench-returns.sh
#   BACKENDS=sqlite RECEIPT=1000 HOLDS=10000 scripts/bench-returns.sh
#   RECEIPT=1000 LINES=1000 HOLDS=0 scripts/bench-returns.sh   # one leaver, one 1,000-line order
#
# The receipt's line gives its HTTP status (a 503 at --upload-timeout is a
# result: the entries done by then, and whether more were written 5 s after
# the answer), the entries done per second and the mean time an entry
# (every entry of a receipt shares its events' time, so no percentiles).
# HOLDS=0 skips the release step.
#
# Without BIN, this tree's release binary is built (CARGO_TARGET_DIR is
# honoured). PostgreSQL: a scratch database equip_bench_returns on
# BENCH_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432),
# dropped at the end. A script, not a test: run it on a quiet machine.
set -euo pipefail
export EQUIP_RATE_LIMIT=0
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."
root=$(pwd)

receipt="${RECEIPT:-1000}"
holds="${HOLDS:-10000}"
backends="${BACKENDS:-sqlite postgres}"
pg_server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
py="$root/scripts/lib/returns_bench.py"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_returns WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${BIN:-}" ]; then
  bin="$(realpath "$BIN")"
else
  cargo build -q --release -p equip-server --bin equip
  bin="$(realpath "${CARGO_TARGET_DIR:-target}")/release/equip"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# SQL against the run's database (reading beside equip).
q() {
  case $backend in
    sqlite) sqlite3 -cmd ".timeout 10000" "$url" "$1" ;;
    postgres) psql "$url" -Atqc "$1" ;;
  esac
}
# Stops equip serve: TERM, and KILL if it is still busy (an earlier binary
# goes on with a receipt after answering it) 10 s later.
stop() {
  kill "$1" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
wait_up() { for _ in $(seq 1 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-returns: $1 did not come up" >&2; exit 1; }

echo "## Returns benchmark: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); receipt of $receipt serials; $holds holds due at once; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$py" document "$receipt" "$holds" "${LINES:-1}" >"$work/doc.json" 2>"$work/warehouse"
warehouse=$(cat "$work/warehouse")

for backend in $backends; do
  case $backend in
    sqlite) url="$work/returns.db" ;;
    postgres)
      psql "$pg_server/postgres" -qc "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS equip_bench_returns WITH (FORCE)" \
        -c "CREATE DATABASE equip_bench_returns" >/dev/null
      url="$pg_server/equip_bench_returns" ;;
  esac
  echo
  echo "### $backend"
  echo
  export DATABASE_URL="$url"
  org=$("$bin" org create --name "Returns bench" 2>/dev/null)
  key=$("$bin" key create --org "$org" 2>/dev/null)
  t0=$(date +%s.%N)
  "$bin" import --org "$org" "$work/doc.json" >/dev/null 2>"$work/import-$backend.log"
  t1=$(date +%s.%N)
  python3 -c 'import sys; print(f"- import of {sys.argv[3]} items: {float(sys.argv[2]) - float(sys.argv[1]):.1f} s")' "$t0" "$t1" $((receipt + holds))
  port=$(free_port)
  RUST_LOG=info "$bin" serve --no-dispatcher --hold-release-interval 1 --bind "127.0.0.1:$port" \
    2>"$work/serve-$backend.log" &
  server=$!
  pids+=("$server")
  base="http://127.0.0.1:$port"
  wait_up "$base/healthz"

  # The receipt, with the probe alongside.
  python3 "$py" probe "$base" "$key" 6 "$work/probe-receipt" &
  probe=$!
  sleep 1
  read -r ms code counts < <(python3 "$py" receipt "$base" "$key" "$warehouse" "$receipt")
  done_then=$(q "SELECT count(*) FROM return_order_items WHERE status = 'RECEIVED_IN_WAREHOUSE'")
  wait "$probe"
  echo "- receipt of $receipt serials: HTTP $code in $ms ms; $done_then entries done at the answer: $(python3 -c "d, ms = $done_then, $ms; print(f'{d / (ms / 1000):,.1f} entries/s, {ms / d if d else 0:,.1f} ms an entry')"); statuses $counts"
  if [ "$code" != 200 ]; then
    # Whether the receipt goes on writing after its answer (issue 47, item 11).
    sleep 5
    done_later=$(q "SELECT count(*) FROM return_order_items WHERE status = 'RECEIVED_IN_WAREHOUSE'")
    echo "  - 5 s after the answer: $done_later entries done ($((done_later - done_then)) more)"
  fi
  echo "  - meanwhile: $(cat "$work/probe-receipt")"

  if [ "$holds" -eq 0 ]; then
    stop "$server"
    continue
  fi

  # Every hold due at once; the pass runs within a second.
  python3 "$py" probe "$base" "$key" 12 "$work/probe-release" &
  probe=$!
  sleep 1
  case $backend in
    sqlite) sqlite3 "$url" "PRAGMA busy_timeout = 10000; UPDATE inventory_items SET unlock_date = date('now', '-1 day') WHERE unlock_date IS NOT NULL AND deploy_reason = 'PENDING_HOLD_RELEASE' AND serial_number LIKE 'HOLD-%';" >/dev/null ;;
    postgres) psql "$url" -qc "UPDATE inventory_items SET unlock_date = CURRENT_DATE - 1 WHERE unlock_date IS NOT NULL AND serial_number LIKE 'HOLD-%'" >/dev/null ;;
  esac
  for _ in $(seq 1 600); do
    grep -q "released [0-9]* holds in" "$work/serve-$backend.log" && \
      [ "$(grep -o 'released [0-9]* holds' "$work/serve-$backend.log" | awk '{s += $2} END {print s}')" -ge "$holds" ] && break
    sleep 0.2
  done
  wait "$probe"
  grep -o 'released [0-9]* holds in [0-9]* ms' "$work/serve-$backend.log" | awk -v n="$holds" '
    { released += $2; ms += $5; passes++ }
    END { printf "- release pass: %d holds in %d ms (%d passes; %.0f holds/s)\n", released, ms, passes, released / (ms / 1000) }'
  echo "  - meanwhile: $(cat "$work/probe-release")"
  stop "$server"
done
