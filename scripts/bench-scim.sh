#!/usr/bin/env bash
# SCIM benchmark: equip (release build) on SQLite and on PostgreSQL against the
# Python reference server scim2-server, on the same machine, with the same requests.
#   1. USERS users created through the API of each server;
#   2. wrk for DURATION at CONNECTIONS connections on: GET /Users/{id}, a filter
#      userName eq "…", a list page of count=50, and POST /Users; equip first
#      with its SCIM cache off (EQUIP_SCIM_CACHE_MIB=0, the headline), then on;
#   3. CPU per request of equip and (PostgreSQL) of the database's backends
#      (/proc utime+stime over the run), and the resident memory of equip and
#      of scim2-server.
# Prints Markdown tables (requests/s, equip ÷ scim2-server). Needs wrk
# (apt-get install -y wrk); a venv for scim2-server under ~/.cache/equip (created when missing).
# USERS, DURATION and CONNECTIONS override the defaults; BACKENDS ("sqlite
# postgres") picks equip's backends, CACHE ("off on") the cache settings (only
# binaries from before the cache's removal, 23 November 2026, have the cache; a
# current one ignores EQUIP_SCIM_CACHE_MIB);
# PG_URL (postgres://postgres@127.0.0.1:5432) is the server in which a fresh
# database is created and dropped; BEFORE_BIN=<an older equip binary> runs it
# first, as "before", on a database of its own seeded the same way.
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."

users="${USERS:-10000}"
duration="${DURATION:-15s}"
connections="${CONNECTIONS:-32}"
backends="${BACKENDS:-sqlite postgres}"
caches="${CACHE:-off on}"
pg_url="${PG_URL:-postgres://postgres@127.0.0.1:5432}"
before_bin="${BEFORE_BIN:-}"
command -v wrk >/dev/null || { echo "bench-scim: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
. scripts/lib/venv.sh
ensure_venv scim2-server-venv "scim2-server==0.8.3" scim2-server
venv=$VENV

cargo build -q --release -p equip-server --bin equip
bin="${CARGO_TARGET_DIR:-target}/release/equip"
work=$(mktemp -d)
pids=()
pg_db=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$pg_db" ]; then sleep 0.5; psql -X -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-scim: $1 did not come up" >&2; exit 1; }
# CPU seconds (utime + stime) of the given processes.
cpu_of() { python3 -c '
import os, sys
t = 0
for p in sys.argv[1:]:
    try:
        f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
        t += int(f[11]) + int(f[12])
    except (OSError, IndexError, ValueError):
        pass
print(t / os.sysconf("SC_CLK_TCK"))' "$@"; }
# PIDs of the PostgreSQL backends connected to the bench database.
pg_pids() { [ -n "$pg_db" ] && psql -X -At "$pg_url/$pg_db" -c "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()" 2>/dev/null | tr '\n' ' '; }
pg_cpu() { local ps; ps=$(pg_pids); [ -n "$ps" ] && cpu_of $ps || echo 0; }

# Seeds USERS users (16 client threads); prints the ids, one a line.
seed() { python3 scripts/lib/seed_users.py "$1" "$2" "$users" >"$3"; }

cat >"$work/bench.lua" <<'LUA'
-- MODE: get | filter | list | post. IDS: a file of ids. AUTH: the Authorization header.
local mode = os.getenv("MODE")
local prefix = os.getenv("PREFIX")
local users = tonumber(os.getenv("USERS"))
local ids = {}
for line in io.lines(os.getenv("IDS")) do ids[#ids + 1] = line end
local auth = os.getenv("AUTH")
if auth ~= "" then wrk.headers["Authorization"] = auth end
wrk.headers["Content-Type"] = "application/scim+json"
local counter = 0
local threads = 0
-- Each wrk thread has its own Lua state: setup numbers them so POSTed names never collide.
function setup(thread) threads = threads + 1; thread:set("tno", threads) end
request = function()
  if mode == "get" then
    return wrk.format("GET", prefix .. "/Users/" .. ids[math.random(#ids)])
  elseif mode == "filter" then
    local f = 'userName eq "user' .. math.random(0, users - 1) .. '@bench.example"'
    f = f:gsub(" ", "%%20"):gsub('"', "%%22"):gsub("@", "%%40")
    return wrk.format("GET", prefix .. "/Users?filter=" .. f)
  elseif mode == "list" then
    local start = math.random(0, math.floor(users / 50) - 1) * 50 + 1
    return wrk.format("GET", prefix .. "/Users?startIndex=" .. start .. "&count=50")
  else
    counter = counter + 1
    local name = "new-" .. os.getenv("RUN") .. "-" .. tostring(tno) .. "-" .. counter .. "@bench.example"
    local body = '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"' .. name ..
      '","emails":[{"value":"' .. name .. '","primary":true}],"active":true}'
    return wrk.format("POST", prefix .. "/Users", nil, body)
  end
end
local non2xx = 0
response = function(status) if status >= 300 then non2xx = non2xx + 1 end end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.1f %.2f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(99) / 1000, summary.errors.status, summary.requests))
end
LUA

run() { # base prefix auth ids mode -> "rps p99ms non2xx requests"

  MODE="$5" PREFIX="$2" AUTH="$3" IDS="$4" USERS="$users" RUN="$(date +%s%N)" \
    wrk -t2 -c"$connections" -d"$duration" -s "$work/bench.lua" "$1" 2>&1 | sed -n 's/^RESULT //p'
}

ref_port=$(free_port)
"$venv/bin/scim2-server" --port "$ref_port" >"$work/ref.log" 2>&1 &
ref_pid=$!
pids+=("$ref_pid")
wait_up "http://127.0.0.1:$ref_port/ServiceProviderConfig"
echo "bench-scim: seeding $users users into scim2-server ..." >&2
start=$(date +%s.%N)
seed "http://127.0.0.1:$ref_port" "" "$work/ref.ids"
ref_seed=$(python3 -c "import time; print(round(time.time() - $start, 1))")
declare -A ref
for mode in get filter list post; do
  echo "bench-scim: scim2-server $mode ..." >&2
  ref[$mode]=$(run "http://127.0.0.1:$ref_port" "" "" "$work/ref.ids" "$mode")
done
ref_rss=$(awk '/VmRSS/ {print int($2/1024)}' "/proc/$ref_pid/status")
ref_hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$ref_pid/status")
kill "$ref_pid" 2>/dev/null || true

label_of() {
  case $1 in
    get) echo "GET /Users/{id}" ;;
    filter) echo 'GET /Users?filter=userName eq "…"' ;;
    list) echo "GET /Users?startIndex=…&count=50" ;;
    post) echo "POST /Users" ;;
  esac
}

rows="$work/rows.md"
notes="$work/notes.md"
: >"$rows"; : >"$notes"
for backend in $backends; do
  binaries="after:$bin"
  [ -n "$before_bin" ] && binaries="before:$before_bin $binaries"
  for entry in $binaries; do
    which=${entry%%:*}; exe=${entry#*:}
    # Each binary on a database of its own, made by itself: binaries whose
    # migrations differ cannot share one (docs/storage.md, "Migrations").
    case $backend in
      sqlite) export DATABASE_URL="$work/equip-$which.db" ;;
      postgres)
        pg_db="equip_bench_scim_$$_$which"
        psql -X -q "$pg_url/postgres" -c "CREATE DATABASE $pg_db" >/dev/null
        export DATABASE_URL="$pg_url/$pg_db" ;;
      *) echo "bench-scim: unknown backend $backend" >&2; exit 1 ;;
    esac
    org=$("$exe" org create --name "SCIM bench" 2>/dev/null)
    key=$("$exe" key create --org "$org" --scope scim 2>/dev/null)
    seeded=""
    for cache in $caches; do
      mib=0; [ "$cache" = on ] && mib=16
      equip_port=$(free_port)
      EQUIP_SCIM_CACHE_MIB=$mib RUST_LOG=warn "$exe" serve --bind "127.0.0.1:$equip_port" 2>"$work/equip.log" &
      equip_pid=$!
      pids+=("$equip_pid")
      wait_up "http://127.0.0.1:$equip_port/healthz"
      if [ -z "$seeded" ]; then
        echo "bench-scim: seeding $users users into equip ($backend, $which) ..." >&2
        start=$(date +%s.%N)
        seed "http://127.0.0.1:$equip_port/scim/v2" "ApiKey $key" "$work/equip.ids"
        seeded=$(python3 -c "import time; print(round(time.time() - $start, 1))")
        echo "Seeding $users users into equip on $backend ($which): ${seeded} s." >>"$notes"
      fi
      for mode in get filter list post; do
        echo "bench-scim: equip $backend $which cache $cache: $mode (load average $(cut -d' ' -f1-3 /proc/loadavg)) ..." >&2
        load=$(cut -d' ' -f1 /proc/loadavg)
        e0=$(cpu_of "$equip_pid"); p0=$(pg_cpu)
        result=$(run "http://127.0.0.1:$equip_port" /scim/v2 "ApiKey $key" "$work/equip.ids" "$mode")
        e1=$(cpu_of "$equip_pid"); p1=$(pg_cpu)
        read -r e_rps e_p99 e_err e_n <<<"$result"
        read -r r_rps _ r_err _ <<<"${ref[$mode]}"
        per() { python3 -c "print(round(($2 - $1) * 1e6 / max($3, 1)))"; }
        e_cpu=$(per "$e0" "$e1" "$e_n"); p_cpu="–"
        [ "$backend" = postgres ] && p_cpu=$(per "$p0" "$p1" "$e_n")
        ratio=$(python3 -c "print(f'{$e_rps / max($r_rps, 0.1):.1f}×')")
        note=""
        [ "$e_err" != 0 ] && note=" (equip non-2xx: $e_err)"
        [ "$r_err" != 0 ] && note="$note (scim2-server non-2xx: $r_err)"
        echo "| $backend | $which | $cache | $(label_of "$mode") | $e_rps | $e_p99 | $e_cpu | $p_cpu | $r_rps | $ratio$note | $load |" >>"$rows"
      done
      rss=$(awk '/VmRSS/ {print int($2/1024)}' "/proc/$equip_pid/status")
      hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$equip_pid/status")
      echo "equip on $backend ($which, cache $cache): resident ${rss} MB after the runs, peak ${hwm} MB." >>"$notes"
      kill "$equip_pid"; wait "$equip_pid" 2>/dev/null || true
    done
    if [ "$backend" = postgres ]; then
      psql -X -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null
      pg_db=""
    fi
  done
done

echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1048576)}' /proc/meminfo) GiB; equip release build; wrk -t2 -c$connections -d$duration; $users users; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Seeding $users users (16 client threads): scim2-server ${ref_seed} s."
echo
echo "| backend | binary | SCIM cache | request | equip req/s | equip p99 ms | equip CPU µs/req | PostgreSQL CPU µs/req | scim2-server req/s | ratio | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
cat "$rows"
echo
cat "$notes"
echo "scim2-server: resident ${ref_rss} MB after the runs, peak ${ref_hwm} MB."
