#!/usr/bin/env bash
# The inventory listing as users use it (the headline listing benchmark; see
# docs/performance.md, "Inventory listing"). An organization of ITEMS items (`equip demo --items`),
# served by `equip serve` (release), on SQLite and on PostgreSQL, driven by a
# mix of 2,000 distinct listing URLs generated from the data
# (scripts/lib/listing_mix.py: pages 1-50, five sort keys both ways, status,
# category and search filters). For each backend and each binary it reports:
#   - first request after a start: page 1,000 sorted by product;
#   - one connection, every response cache off: p50/p90/p99/max over the
#     2,000 URLs (each sent once);
#   - page 1,000 in every sort order (cache off): p50 of 3 tries each;
#   - wrk at CONNS connections over the mix, cache off (60 s client time-out)
#     and cache on;
#   - the same with a 2 s client time-out (goodput: answers that arrived), and
#     at four times CONNS connections with that time-out (overload);
#   - idle CPU of the process over 20 s.
# The cache settings (EQUIP_LISTING_CACHE_MIB, EQUIP_SCIM_CACHE_MIB) reach
# binaries from before the response caches were removed (23 November 2026); a
# current binary ignores them, so its "cache on" run reads every page too.
#
#   scripts/bench-listing.sh [ITEMS]                 # default 200000
#   BINS="before=/path/to/equip after=target/release/equip" scripts/bench-listing.sh
#   BACKENDS=sqlite DURATION=10s scripts/bench-listing.sh 200000
#   PARTS=wrk BINS=... scripts/bench-listing.sh      # only the wrk runs
#   DATA_DIR=/var/tmp/equip-bench (default) keeps the data sets between runs;
#   PG_DB names the PostgreSQL data set (default equip_bench_listing_ITEMS).
#   Binaries whose migrations differ (a database made by one is refused by
#   the other) each need their own DATA_DIR and PG_DB: run the script once per
#   binary.
#
# A script, not a test: run it on a quiet machine; wrk and the server share
# its cores.
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."

ITEMS=${1:-200000}
DURATION=${DURATION:-15s}
CONNS=${CONNS:-32}
BACKENDS=${BACKENDS:-"sqlite postgres"}
DATA_DIR=${DATA_DIR:-/var/tmp/equip-bench}
URLS=${URLS:-2000}
PARTS=${PARTS:-all}   # wrk: only the wrk runs (no cold start, one-connection, deep-page or idle parts)
PG_ADMIN=${EQUIP_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
mkdir -p "$DATA_DIR"

if [ -z "${BINS:-}" ]; then
  cargo build --release -q -p equip-server --bin equip
  BINS="current=${CARGO_TARGET_DIR:-target}/release/equip"
fi
first_bin=${BINS%% *}; first_bin=${first_bin#*=}
mix=scripts/lib/listing_mix.py
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

cat >"$work/mix.lua" <<'LUA'
local urls = {}
local key = os.getenv("KEY")
for line in io.lines(os.getenv("URLS_FILE")) do urls[#urls + 1] = line end
math.randomseed(os.time())
request = function()
  return wrk.format("GET", urls[math.random(#urls)], { ["Authorization"] = "ApiKey " .. key })
end
LUA

# start BIN URL CACHE_MIB: starts a server, sets $server and $base.
start() {
  local port; port=$(free_port)
  EQUIP_LISTING_CACHE_MIB=$3 EQUIP_SCIM_CACHE_MIB=$3 RUST_LOG=warn \
    "$1" --database-url "$2" serve --bind "127.0.0.1:$port" --no-dispatcher 2>>"$work/serve.log" &
  server=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do curl -sf -o /dev/null "$base/healthz" && return 0; sleep 0.1; done
  echo "server did not start:" >&2; tail -5 "$work/serve.log" >&2; exit 1
}
stop() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""; }
# CPU ticks: the whole machine (busy), equip, and this shell's finished children (wrk).
machine_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
server_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
# The shell's `times` (second line: its finished children's user and system
# time, as 0m1.234s) must run in this shell, not in a $(…) subshell.
children_seconds() { awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); print (u[1] * 60 + u[2]) + (s[1] * 60 + s[2]) }' "$1"; }
rss() { awk '/^RssAnon|^RssFile/ {printf "%s %d MB  ", $1, $2 / 1024}' "/proc/$server/status"; }
wrk_line() { # label extra-args...
  local label=$1; shift
  local busy0 srv0 kids0; busy0=$(machine_busy); srv0=$(server_ticks); times >"$work/times0"
  local out; out=$(KEY=$key URLS_FILE=$urls_file wrk -t2 -c"$CONNS" -d"$DURATION" --latency -s "$work/mix.lua" "$@" "$base" 2>&1)
  local busy1 srv1 kids1; busy1=$(machine_busy); srv1=$(server_ticks); times >"$work/times1"
  kids0=$(children_seconds "$work/times0"); kids1=$(children_seconds "$work/times1")
  local rps p50 p99 timeouts non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  timeouts=$(echo "$out" | sed -n 's/.*timeout \([0-9]*\).*/\1/p'); timeouts=${timeouts:-0}
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}'); non2xx=${non2xx:-0}
  local total; total=$(echo "$out" | awk '/requests in/ {print $1}')
  local secs=${DURATION%s}
  local good=$(( (total - non2xx) / secs ))
  echo "  $label: $rps req/s, p50 $p50, p99 $p99, timeouts $timeouts, non-2xx $non2xx, goodput ~$good/s"
  local hz; hz=$(getconf CLK_TCK)
  python3 - "$busy0" "$busy1" "$srv0" "$srv1" "$kids0" "$kids1" "$hz" "$secs" "$total" <<'PY'
import sys
b0, b1, s0, s1, hz, secs, total = (float(x) for x in sys.argv[1:5] + sys.argv[7:10])
k0, k1 = float(sys.argv[5]), float(sys.argv[6])
machine = (b1 - b0) / hz
equip = (s1 - s0) / hz
wrk = k1 - k0
other = max(0.0, machine - equip - wrk)
per = lambda x: f"{x / max(total, 1) * 1000:.2f} ms"
print(f"    CPU over the run: machine {machine / secs:.2f} cores busy; equip {equip / secs:.2f} ({per(equip)}/request), "
      f"wrk {wrk / secs:.2f}, the rest (PostgreSQL, others) {other / secs:.2f} ({per(other)}/request)")
PY
  echo "    memory of equip after the run: $(rss)"
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; items $ITEMS; $URLS URLs; wrk -c$CONNS -d$DURATION; load $(cut -d' ' -f1-3 /proc/loadavg)"
for backend in $BACKENDS; do
  db=${PG_DB:-equip_bench_listing_$ITEMS}
  case $backend in
    sqlite) url="$DATA_DIR/listing-$ITEMS.db" ;;
    postgres) url="${PG_ADMIN%/*}/$db" ;;
    *) echo "unknown backend $backend" >&2; exit 1 ;;
  esac
  keyfile="$DATA_DIR/listing-$backend-$ITEMS.key"
  if [ ! -s "$keyfile" ]; then
    rm -f "$url" "$url-wal" "$url-shm"
    [ "$backend" = postgres ] && psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
    started=$(date +%s)
    "$first_bin" --database-url "$url" demo --items "$ITEMS" >"$work/demo.out" 2>"$work/demo.log"
    head -1 "$work/demo.out" >"$keyfile"
    echo "$backend: loaded $ITEMS items in $(( $(date +%s) - started ))s"
  fi
  key=$(cat "$keyfile")
  urls_file="$DATA_DIR/listing-urls-$ITEMS-$URLS.txt"
  if [ ! -s "$urls_file" ]; then
    start "$first_bin" "$url" 0
    python3 "$mix" urls "$base" "$key" "$URLS" 7 >"$urls_file"
    stop
  fi
  for entry in $BINS; do
    label=${entry%%=*}; bin=${entry#*=}
    echo "== $backend, $label"
    # Each binary on its own copy of the data (its migrations may add indexes).
    case $backend in
      sqlite) run_url="$work/$label.db"; cp "$url" "$run_url"; sync ;;
      postgres) run_url="${PG_ADMIN%/*}/${db}_$label"
        psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS ${db}_$label" -c "CREATE DATABASE ${db}_$label TEMPLATE $db" >/dev/null ;;
    esac
    # Migrations (and their index builds) happen here, not in the timings.
    start "$bin" "$run_url" 0; stop
    # A fresh start: the first request (page 1,000 by product), then the rest cold.
    start "$bin" "$run_url" 0
    echo "  first request after start (page 1000 by product): $(python3 "$mix" once "$base" "$key" '/api/v1/inventory?size=100&page=1000&sortBy=product')"
    if [ "$PARTS" = all ]; then
      echo "  1 connection, cache off, each URL once: $(python3 "$mix" latency "$base" "$key" "$urls_file")"
      echo "  1 connection, cache off, again:          $(SLOWEST=${SLOWEST:-0} python3 "$mix" latency "$base" "$key" "$urls_file")"
      echo "  memory of equip after both passes: $(rss)"
      echo "  $(python3 "$mix" deep "$base" "$key" 1000 3)"
    fi
    # wrk's own time-out is 2 s: the run "without" a client time-out waits 60 s.
    wrk_line "mix, $CONNS connections, cache off" --timeout 60s
    wrk_line "mix, $CONNS connections, cache off, 2 s client time-out" --timeout 2s
    CONNS=$((CONNS * 4)) wrk_line "mix, $((CONNS * 4)) connections (overload), 2 s client time-out" --timeout 2s
    stop
    if [ "$PARTS" = all ]; then
      start "$bin" "$run_url" 16
      wrk_line "mix, $CONNS connections, cache on" --timeout 60s
      sleep 5 # requests whose clients gave up may still run
      ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
      before=$(ticks); sleep 20; after=$(ticks)
      echo "  idle CPU over 20 s: $(python3 -c "print(f'{($after - $before) / $(getconf CLK_TCK) / 20 * 100:.2f} % of a core')")"
      stop
    fi
    case $backend in
      sqlite) rm -f "$run_url" "$run_url-wal" "$run_url-shm" ;;
      postgres) psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS ${db}_$label WITH (FORCE)" >/dev/null ;;
    esac
  done
done
