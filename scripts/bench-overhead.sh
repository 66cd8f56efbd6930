#!/usr/bin/env bash
# What the per-key rate limit and the Prometheus metrics cost (issue 18's
# budget: at most 5 %), on SQLite and PostgreSQL, "off" and "on" interleaved
# in the same run with the same binary and data:
#   off: --rate-limit 0, no --metrics-bind;
#   on:  --rate-limit 1000000 (checked on every request, never reached) and
#        --metrics-bind 127.0.0.1:0, scraped every second during the run as a
#        Prometheus server would.
# Two workloads per round, wrk -t2 -cCONNS for DURATION each:
#   inventory: the listing mix users produce (scripts/lib/listing_mix.py: 2,000
#              distinct URLs of pages, sort orders, status and category
#              filters and searches), each wrk thread walking its own share
#              in order from a fresh server start (cold first, then warm
#              as it wraps);
#   scim:      GET /scim/v2/Users/{id} over the organization's users, drawn at
#              random (what an identity provider's sync reads).
# Prints requests/s per round and the on/off ratio of the means.
#
#   BIN=target/release/equip ITEMS=20000 DURATION=10s ROUNDS=3 scripts/bench-overhead.sh
#   BACKENDS=sqlite scripts/bench-overhead.sh
#
# A script, not a test: run it on a quiet machine (wrk shares the cores).
set -euo pipefail
cd "$(dirname "$0")/.."

items="${ITEMS:-20000}"
duration="${DURATION:-10s}"
conns="${CONNS:-16}"
rounds="${ROUNDS:-3}"
backends="${BACKENDS:-sqlite postgres}"
pg_server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
command -v wrk >/dev/null || { echo "bench-overhead: wrk is needed (apt-get install -y wrk)" >&2; exit 1; }
if [ -n "${BIN:-}" ]; then
  bin="$(realpath "$BIN")"
else
  cargo build -q --release -p equip-server --bin equip
  bin="$(realpath "${CARGO_TARGET_DIR:-target}")/release/equip"
fi
unset EQUIP_RATE_LIMIT EQUIP_METRICS_BIND

work=$(mktemp -d)
server=""
scraper=""
cleanup() {
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_overhead WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-overhead: $1 did not come up" >&2; exit 1; }

cat >"$work/urls.lua" <<'LUA'
local n = 0
function setup(thread) n = n + 1; thread:set("tid", n) end
local urls = {}
local i = 0
function init(args)
  for line in io.lines(args[1]) do if #line > 0 then urls[#urls + 1] = line end end
  i = (tid - 1) * math.floor(#urls / 2)
end
function request()
  i = i % #urls + 1
  return wrk.format("GET", urls[i])
end
LUA

cat >"$work/users.lua" <<'LUA'
local ids = {}
function init(args)
  for line in io.lines(args[1]) do if #line > 0 then ids[#ids + 1] = line end end
  math.randomseed(os.time() + (tonumber(args[2]) or 0))
end
function request()
  return wrk.format("GET", "/scim/v2/Users/" .. ids[math.random(#ids)])
end
LUA

port=""
start() { # url mode
  port=$(free_port)
  local extra=()
  if [ "$2" = on ]; then
    local mport; mport=$(free_port)
    extra=(--rate-limit 1000000 --metrics-bind "127.0.0.1:$mport")
    DATABASE_URL="$1" RUST_LOG=warn "$bin" serve --no-dispatcher --bind "127.0.0.1:$port" "${extra[@]}" 2>>"$work/serve.log" &
    server=$!
    wait_up "http://127.0.0.1:$port/healthz"
    (while true; do curl -s -o /dev/null "http://127.0.0.1:$mport/metrics"; sleep 1; done) &
    scraper=$!
  else
    DATABASE_URL="$1" RUST_LOG=warn "$bin" serve --no-dispatcher --bind "127.0.0.1:$port" --rate-limit 0 2>>"$work/serve.log" &
    server=$!
    wait_up "http://127.0.0.1:$port/healthz"
  fi
}
stop() {
  [ -n "$scraper" ] && { kill "$scraper" 2>/dev/null; wait "$scraper" 2>/dev/null || true; scraper=""; }
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
}

echo "## Rate limit and metrics overhead: $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), items $items, wrk -t2 -c$conns -d$duration, rounds $rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
for backend in $backends; do
  case $backend in
    sqlite) url="$work/bench.db" ;;
    postgres)
      psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_overhead WITH (FORCE)" -c "CREATE DATABASE equip_bench_overhead" >/dev/null
      url="$pg_server/equip_bench_overhead" ;;
    *) echo "bench-overhead: unknown backend $backend" >&2; exit 1 ;;
  esac
  key=$(DATABASE_URL="$url" "$bin" demo --items "$items" 2>/dev/null)
  start "$url" off
  curl -s -H "Authorization: ApiKey $key" "http://127.0.0.1:$port/scim/v2/Users?count=1000" |
    python3 -c 'import json,sys; print("\n".join(r["id"] for r in json.load(sys.stdin)["Resources"]))' >"$work/ids.txt"
  python3 scripts/lib/listing_mix.py urls "http://127.0.0.1:$port" "$key" 2000 18 >"$work/urls.txt"
  stop
  echo
  echo "### $backend ($(wc -l <"$work/ids.txt") users)"
  echo
  echo "| round | mode | inventory mix req/s | SCIM GET req/s |"
  echo "|---|---|---:|---:|"
  for r in $(seq 1 "$rounds"); do
    for mode in off on; do
      start "$url" "$mode"
      inv=$(wrk -t2 -c"$conns" -d"$duration" -H "Authorization: ApiKey $key" -s "$work/urls.lua" \
        "http://127.0.0.1:$port" -- "$work/urls.txt" | awk '/Requests\/sec/ {print $2}')
      scim=$(wrk -t2 -c"$conns" -d"$duration" -H "Authorization: ApiKey $key" -s "$work/users.lua" \
        "http://127.0.0.1:$port" -- "$work/ids.txt" "$r" | awk '/Requests\/sec/ {print $2}')
      stop
      echo "| $r | $mode | $inv | $scim |" | tee -a "$work/rows-$backend"
    done
  done
  python3 - "$work/rows-$backend" <<'PY'
import sys, statistics
rows = [l.strip().strip("|").split("|") for l in open(sys.argv[1])]
by = {}
for r in rows:
    mode = r[1].strip()
    by.setdefault(mode, []).append((float(r[2]), float(r[3])))
for i, name in ((0, "inventory mix"), (1, "SCIM GET")):
    off = statistics.mean(v[i] for v in by["off"]); on = statistics.mean(v[i] for v in by["on"])
    print(f"\n{name}: off {off:,.0f} req/s, on {on:,.0f} req/s, on/off {on / off:.3f}", end="")
print()
PY
  if [ "$backend" = postgres ]; then
    psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_overhead WITH (FORCE)" >/dev/null
  fi
done
