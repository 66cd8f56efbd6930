#!/usr/bin/env bash
# What recording events costs item writes, and how fast the event feed reads
# (release builds, SQLite and PostgreSQL):
#   1. for each binary (BIN_BEFORE: a build without events, BIN_AFTER: a build
#      with them), a fresh database loaded by `equip demo --items ITEMS` (the
#      import path; its time is reported too: with events it records one
#      event per item, person, group, membership and level);
#   2. ROUNDS rounds, each running the binaries in turn (before, after,
#      before, after, ...) on their own database: start `equip serve`, then
#      wrk with CONNS connections for DURATION sending PATCH
#      /api/v1/inventory/{id} of distinct items (scripts/lib/patch_items.lua:
#      the ids shuffled, every request a new description, so every PATCH
#      changes its item and records one event); prints requests/s, latency
#      and the non-2xx count;
#   3. on the "after" database (if its binary has the feed): restart equip,
#      follow GET /api/v1/events?size=1000&after=... from the start to the end
#      with wrk (scripts/lib/follow_feed.lua: one connection, the cursor cut
#      out of each answer, no JSON parsing) (cold: the first pass after the
#      start), then again (warm); prints events/s; then a third pass with
#      a Python client that parses every page and checks that sequences
#      increase (scripts/lib/events_bench.py feed).
#
#   BIN_BEFORE=/path/to/old/equip BIN_AFTER=target/release/equip scripts/bench-events.sh
#   BACKENDS=sqlite ITEMS=10000 DURATION=10s ROUNDS=3 scripts/bench-events.sh
#
# Without BIN_AFTER, this tree's release binary is built (CARGO_TARGET_DIR is
# honoured). Without BIN_BEFORE, commit BASE (default 38a94d6, the last one
# before events) is checked out in a temporary git worktree and built with
# CARGO_TARGET_DIR=${BASE_TARGET_DIR:-target-base}; the worktree is removed
# afterwards. Each binary gets its own database (one binary's migrations may
# refuse the other's): PostgreSQL scratch databases equip_bench_events_before
# and _after on BENCH_POSTGRES_URL's server (default
# postgres://postgres@127.0.0.1:5432), dropped at the end.
#
# A script, not a test: run it on a quiet machine, one benchmark at a time;
# wrk shares the machine's cores with equip and the database.
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."
root=$(pwd)

items="${ITEMS:-30000}"
duration="${DURATION:-15s}"
conns="${CONNS:-16}"
threads="${THREADS:-2}"
rounds="${ROUNDS:-2}"
backends="${BACKENDS:-sqlite postgres}"
base_commit="${BASE:-38a94d6}"
pg_server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
command -v wrk >/dev/null || { echo "bench-events: wrk is needed (apt-get install -y wrk)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
base_tree=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for label in before after; do
    psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_events_$label WITH (FORCE)" >/dev/null 2>&1 || true
  done
  if [ -n "$base_tree" ]; then git -C "$root" worktree remove --force "$base_tree" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${BIN_AFTER:-}" ]; then
  bin_after="$(realpath "$BIN_AFTER")"
else
  cargo build -q --release -p equip-server --bin equip
  bin_after="$(realpath "${CARGO_TARGET_DIR:-target}")/release/equip"
fi
if [ -n "${BIN_BEFORE:-}" ]; then
  bin_before="$(realpath "$BIN_BEFORE")"
else
  base_tree="$work/base"
  git worktree add --detach "$base_tree" "$base_commit" >/dev/null
  target_base="$(realpath -m "${BASE_TARGET_DIR:-target-base}")"
  (cd "$base_tree" && CARGO_TARGET_DIR="$target_base" cargo build -q --release -p equip-server --bin equip)
  bin_before="$target_base/release/equip"
fi
declare -A bins=([before]="$bin_before" [after]="$bin_after")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-events: $1 did not come up" >&2; exit 1; }

server="" port=""
start_server() { # label url
  port=$(free_port)
  DATABASE_URL="$2" RUST_LOG=warn "${bins[$1]}" serve --no-dispatcher --bind "127.0.0.1:$port" \
    2>>"$work/serve-$1.log" &
  server=$!
  pids+=("$server")
  wait_up "http://127.0.0.1:$port/healthz"
}
stop_server() { kill "$server"; wait "$server" 2>/dev/null || true; server=""; }

echo "## Events benchmark: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); items $items; wrk -t$threads -c$conns -d$duration; rounds $rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before: $bin_before"
echo "after:  $bin_after"

for backend in $backends; do
  declare -A urls=() keys=()
  echo
  echo "### $backend"
  echo
  echo "| load | binary | seconds | items/s |"
  echo "|---|---|---:|---:|"
  for label in before after; do
    case $backend in
      sqlite) urls[$label]="$work/$label.db" ;;
      postgres)
        psql "$pg_server/postgres" -qc "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS equip_bench_events_$label WITH (FORCE)" \
          -c "CREATE DATABASE equip_bench_events_$label" >/dev/null
        urls[$label]="$pg_server/equip_bench_events_$label" ;;
      *) echo "bench-events: unknown backend $backend" >&2; exit 1 ;;
    esac
    started=$(date +%s.%N)
    keys[$label]=$(DATABASE_URL="${urls[$label]}" "${bins[$label]}" demo --items "$items" 2>"$work/demo-$label.log")
    ended=$(date +%s.%N)
    python3 -c 'import sys; s = float(sys.argv[3]) - float(sys.argv[2]); print(f"| equip demo --items {sys.argv[4]} | {sys.argv[1]} | {s:.1f} | {int(sys.argv[4]) / s:,.0f} |")' \
      "$label" "$started" "$ended" "$items"
    start_server "$label" "${urls[$label]}"
    python3 scripts/lib/events_bench.py ids "http://127.0.0.1:$port" "${keys[$label]}" >"$work/ids-$label.txt"
    stop_server
  done
  echo
  echo "| PATCH, distinct items | binary | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---:|---:|---:|---:|"
  for r in $(seq 1 "$rounds"); do
    for label in before after; do
      start_server "$label" "${urls[$label]}"
      wrk -t"$threads" -c"$conns" -d"$duration" --latency -H "Authorization: ApiKey ${keys[$label]}" \
        -s scripts/lib/patch_items.lua "http://127.0.0.1:$port" -- "$work/ids-$label.txt" "$backend$r" "$threads" \
        >"$work/wrk.out"
      stop_server
      rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
      p50=$(awk '$1=="50%" {print $2}' "$work/wrk.out")
      p99=$(awk '$1=="99%" {print $2}' "$work/wrk.out")
      errors=$(awk '/Non-2xx/ {print $NF}' "$work/wrk.out")
      echo "| round $r | $label | $rps | $p50 | $p99 | ${errors:-0} |"
    done
  done
  echo
  start_server after "${urls[after]}"
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: ApiKey ${keys[after]}" \
    "http://127.0.0.1:$port/api/v1/events?size=1")
  if [ "$code" = 200 ]; then
    # The server was started just now and has answered nothing but the probe
    # above. wrk follows `next` (cold, then warm) without parsing the JSON;
    # then a Python client that parses every page checks the order.
    echo "| feed, size 1000, start to end, wrk (after) | events | pages | seconds | events/s |"
    echo "|---|---:|---:|---:|---:|"
    for pass in "cold (first pass after a start)" "warm (second pass)"; do
      wrk -t1 -c1 -d"${FEED_SECONDS:-20}s" -H "Authorization: ApiKey ${keys[after]}" -s scripts/lib/follow_feed.lua \
        "http://127.0.0.1:$port" -- "$pass" | grep '^|'
    done
    echo
    echo "| feed, size 1000, Python client (after) | events | pages | seconds | events/s | client share |"
    echo "|---|---:|---:|---:|---:|---:|"
    python3 scripts/lib/events_bench.py feed "http://127.0.0.1:$port" "${keys[after]}" "third pass, parsing every page"
    echo
    echo "equip peak RSS (after, feed): $(awk '/VmHWM/ {printf "%.0f MiB", $2/1024}' "/proc/$server/status")"
  else
    echo "(the after binary has no event feed: GET /api/v1/events answered $code)"
  fi
  stop_server
  if [ "$backend" = postgres ]; then
    for label in before after; do
      psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_events_$label WITH (FORCE)" >/dev/null
    done
  fi
  unset urls keys
done
