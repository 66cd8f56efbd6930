#!/usr/bin/env bash
# Inventory listing benchmark (issue 3): generates an organization with ITEMS
# realistic items through `equip demo --items` (the product's own import path),
# serves it with `equip serve` in release mode, and drives it with wrk for a
# fixed mix of queries, on SQLite and on PostgreSQL. Prints requests/s and
# p50/p99 per query and the server's peak resident memory.
#
#   scripts/bench-inventory.sh [ITEMS]        # default 1000000
#   BACKENDS=sqlite DURATION=5s CONNS=32 scripts/bench-inventory.sh 100000
#   DATA_DIR=/var/tmp/equip-bench scripts/bench-inventory.sh   # keep the data sets and
#       reuse them on the next run (the SQLite file, the PostgreSQL database and the key)
#   EQUIP_LISTING_CACHE_MIB=0 scripts/bench-inventory.sh   # without the listing response
#       cache: each query repeats one URL, so by default every request after the first is a
#       cache hit (key and listing version still read from the database on each request)
#       Only binaries from before the cache's removal (23 November 2026) have the cache; a
#       current one ignores the variable (with a warning) and reads every page.
#
# A script, not a test: run it on a quiet machine; the load generator shares
# the machine with the server.
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."

ITEMS=${1:-1000000}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
BACKENDS=${BACKENDS:-"sqlite postgres"}
PG_ADMIN=${EQUIP_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }

cargo build --release -q -p equip-server --bin equip
bin="${CARGO_TARGET_DIR:-target}/release/equip"
work=$(mktemp -d)
DATA_DIR=${DATA_DIR:-}
[ -n "$DATA_DIR" ] && mkdir -p "$DATA_DIR"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; items: $ITEMS; wrk -t$THREADS -c$CONNS -d$DURATION; listing cache ${EQUIP_LISTING_CACHE_MIB:-16} MiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
for backend in $BACKENDS; do
  keyfile="${DATA_DIR:-$work}/$backend-$ITEMS.key"
  db=equip_bench_inventory_$ITEMS
  case $backend in
    sqlite) url="${DATA_DIR:-$work}/bench-$ITEMS.db" ;;
    postgres) url="${PG_ADMIN%/*}/$db" ;;
    *) echo "unknown backend $backend" >&2; exit 1 ;;
  esac
  if [ -n "$DATA_DIR" ] && [ -s "$keyfile" ]; then
    key=$(cat "$keyfile"); loaded="reused"
  else
    rm -f "${url}" "${url}-wal" "${url}-shm" 2>/dev/null || true
    if [ "$backend" = postgres ]; then
      psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
    fi
    started=$(date +%s)
    key=$("$bin" --database-url "$url" demo --items "$ITEMS" 2>"$work/demo.log")
    loaded="$(( $(date +%s) - started ))s"
    echo "$key" >"$keyfile"
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  RUST_LOG=warn "$bin" --database-url "$url" serve --bind "127.0.0.1:$port" --no-dispatcher 2>"$work/serve.log" &
  server=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 100); do curl -fs "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  auth="Authorization: ApiKey $key"
  sample=$(curl -fsS -H "$auth" "$base/api/v1/inventory?size=50&deployStatuses=DEPLOYED")
  # A deployed, serialized item: a fragment of its serial and its assignee's email.
  read -r fragment email < <(python3 -c '
import json, sys
item = next(i for i in json.loads(sys.argv[1])["data"] if i["serialNumber"])
print(item["serialNumber"][3:9], item["assignedTo"]["label"])' "$sample")
  echo
  echo "== $backend: $ITEMS items, loaded by equip demo in $loaded; serial fragment '$fragment', assignee $email"
  printf '%-28s %10s %9s %9s %9s\n' query "req/s" p50 p99 records
  peak=0
  for entry in \
    "first page (default order)|/api/v1/inventory" \
    "deployStatuses=AVAILABLE|/api/v1/inventory?deployStatuses=AVAILABLE" \
    "categories + sortBy=product|/api/v1/inventory?categories=LAPTOP&sortBy=product" \
    "searchString (serial)|/api/v1/inventory?searchString=$fragment" \
    "assignedEmail|/api/v1/inventory?assignedEmail=$email" \
    "page 5000, size 100|/api/v1/inventory?page=5000&size=100"; do
    name=${entry%%|*}; path=${entry#*|}
    records=$(curl -fsS -H "$auth" "$base$path" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pagination"]["totalRecords"])')
    ( while kill -0 "$server" 2>/dev/null; do ps -o rss= -p "$server"; sleep 0.5; done ) >"$work/rss" 2>/dev/null &
    sampler=$!
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "$auth" "$base$path" >"$work/wrk.out"
    kill "$sampler" 2>/dev/null || true
    rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
    p50=$(awk '$1=="50%" {print $2}' "$work/wrk.out")
    p99=$(awk '$1=="99%" {print $2}' "$work/wrk.out")
    errors=$(awk '/Non-2xx/ {print $NF}' "$work/wrk.out")
    [ -n "$errors" ] && echo "   ($errors non-2xx answers!)"
    rss=$(sort -n "$work/rss" | tail -1)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss
    printf '%-28s %10s %9s %9s %9s\n' "$name" "$rps" "$p50" "$p99" "$records"
  done
  echo "peak RSS of equip serve: $(( peak / 1024 )) MiB"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  if [ "$backend" = postgres ] && [ -z "$DATA_DIR" ]; then
    psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
  fi
done
