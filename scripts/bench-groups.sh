#!/usr/bin/env bash
# SCIM Groups benchmark: equip (release build) on SQLite and on PostgreSQL
# against the Python reference server scim2-server 0.8.3, in the same run, with
# the same requests.
#   1. USERS users (MEMBERS of them in one group "bench-big", the rest a pool
#      for PATCHes), then TEAMS groups "team-<i>" of 3 members each;
#   2. PATCH timing: ROUNDS times, a new group of MEMBERS members, then one
#      PATCH adding BATCH members to it (median and max milliseconds);
#   3. wrk for DURATION at CONNECTIONS connections: GET /Users/{random id}
#      (the yardstick), GET /Groups/{random team}?excludedAttributes=members,
#      GET of the big group with excludedAttributes=members, the full GET of
#      the big group, a filter displayName eq "team-<random>", and the mix an
#      identity provider's group push produces (filter by name, GET without
#      members, PATCH adding and removing one member of a random team).
# Each server starts fresh (cold) for its runs; every wrk run but the big
# group's picks a distinct resource per request.
# Prints a Markdown table (requests/s, equip ÷ scim2-server). Needs wrk
# (apt-get install -y wrk); a venv for scim2-server under ~/.cache/equip.
# USERS, MEMBERS, TEAMS, BATCH, ROUNDS, DURATION, CONNECTIONS, BACKENDS
# ("sqlite postgres") and PG_URL override the defaults; BIN=path/to/equip
# measures that binary instead of building this tree's (e.g. an earlier
# commit's, to compare before and after).
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."

users="${USERS:-15000}"
members="${MEMBERS:-10000}"
teams="${TEAMS:-1000}"
batch="${BATCH:-1000}"
rounds="${ROUNDS:-5}"
duration="${DURATION:-10s}"
connections="${CONNECTIONS:-16}"
backends="${BACKENDS:-sqlite postgres}"
pg_url="${PG_URL:-postgres://postgres@127.0.0.1:5432}"
command -v wrk >/dev/null || { echo "bench-groups: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
. scripts/lib/venv.sh
ensure_venv scim2-server-venv "scim2-server==0.8.3" scim2-server
venv=$VENV

if [ -n "${BIN:-}" ]; then
  bin="$(realpath "$BIN")"
else
  cargo build -q --release -p equip-server --bin equip
  bin="${CARGO_TARGET_DIR:-target}/release/equip"
fi
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
wait_up() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-groups: $1 did not come up" >&2; exit 1; }

cat >"$work/bench.lua" <<'LUA'
-- MODE: user | group | big | bigfull | filter | mix. USERS, GROUPS: files of ids.
local mode = os.getenv("MODE")
local prefix = os.getenv("PREFIX")
local function lines(f) local t = {} for l in io.lines(f) do t[#t + 1] = l end return t end
local users = lines(os.getenv("USERS_FILE"))
local groups = lines(os.getenv("GROUPS_FILE"))
local big = os.getenv("BIG")
local auth = os.getenv("AUTH")
if auth ~= "" then wrk.headers["Authorization"] = auth end
wrk.headers["Content-Type"] = "application/scim+json"
local function filter_by_name()
  local f = 'displayName eq "team-' .. math.random(0, #groups - 1) .. '"'
  f = f:gsub(" ", "%%20"):gsub('"', "%%22")
  return wrk.format("GET", prefix .. "/Groups?filter=" .. f .. "&excludedAttributes=members")
end
local function member_patch()
  local op = math.random(2) == 1 and "add" or "remove"
  local u = users[math.random(#users)]
  local body
  if op == "add" then
    body = '{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","path":"members","value":[{"value":"' .. u .. '"}]}]}'
  else
    body = '{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"remove","path":"members[value eq \\"' .. u .. '\\"]"}]}'
  end
  return wrk.format("PATCH", prefix .. "/Groups/" .. groups[math.random(#groups)] .. "?excludedAttributes=members", nil, body)
end
request = function()
  if mode == "user" then
    return wrk.format("GET", prefix .. "/Users/" .. users[math.random(#users)])
  elseif mode == "group" then
    return wrk.format("GET", prefix .. "/Groups/" .. groups[math.random(#groups)] .. "?excludedAttributes=members")
  elseif mode == "big" then
    return wrk.format("GET", prefix .. "/Groups/" .. big .. "?excludedAttributes=members")
  elseif mode == "bigfull" then
    return wrk.format("GET", prefix .. "/Groups/" .. big)
  elseif mode == "filter" then
    return filter_by_name()
  else
    local r = math.random(10)
    if r <= 4 then return filter_by_name()
    elseif r <= 8 then return wrk.format("GET", prefix .. "/Groups/" .. groups[math.random(#groups)] .. "?excludedAttributes=members")
    else return member_patch() end
  end
end
response = function(status) end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.1f %.2f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(99) / 1000, summary.errors.status, summary.requests))
end
LUA

run() { # base prefix auth mode -> "rps p99ms non2xx requests"
  MODE="$4" PREFIX="$2" AUTH="$3" USERS_FILE="$work/$5.ids" GROUPS_FILE="$work/$5/groups.ids" BIG="$(cat "$work/$5/big.id")" \
    wrk -t2 -c"$connections" -d"$duration" -s "$work/bench.lua" "$1" 2>&1 | sed -n 's/^RESULT //p'
}
modes="user group big bigfull filter mix"
label_of() {
  case $1 in
    user) echo "GET /Users/{id} (yardstick)" ;;
    group) echo "GET /Groups/{id}?excludedAttributes=members (3-member groups)" ;;
    big) echo "GET /Groups/{id}?excludedAttributes=members ($members members)" ;;
    bigfull) echo "GET /Groups/{id} ($members members, full)" ;;
    filter) echo 'GET /Groups?filter=displayName eq "…"' ;;
    mix) echo "group push mix (40% filter, 40% GET, 20% PATCH one member)" ;;
  esac
}

# prepare NAME BASE PREFIX AUTH: seeds users and groups, times the PATCHes.
prepare() {
  local name=$1 base=$2 prefix=$3 auth=$4
  mkdir -p "$work/$name"
  echo "bench-groups: $name: seeding $users users ..." >&2
  python3 scripts/lib/seed_users.py "$base$prefix" "$auth" "$users" >"$work/$name.ids"
  echo "bench-groups: $name: creating groups ..." >&2
  local t0; t0=$(date +%s.%N)
  python3 scripts/lib/groups_bench.py setup "$base$prefix" "$auth" "$work/$name.ids" "$members" "$teams" "$work/$name"
  python3 -c "import time; print(f'$name: creating the $members-member group and $teams groups: {time.time() - $t0:.1f} s')" >>"$work/notes"
  echo "bench-groups: $name: PATCH timing ..." >&2
  python3 scripts/lib/groups_bench.py patch "$base$prefix" "$auth" "$work/$name.ids" "$members" "$rounds" "$batch" >"$work/$name/patch"
}

: >"$work/notes"
declare -A ref
ref_port=$(free_port)
"$venv/bin/scim2-server" --port "$ref_port" >"$work/ref.log" 2>&1 &
ref_pid=$!; pids+=("$ref_pid")
wait_up "http://127.0.0.1:$ref_port/ServiceProviderConfig"
prepare ref "http://127.0.0.1:$ref_port" "" ""
for mode in $modes; do
  echo "bench-groups: scim2-server $mode ..." >&2
  ref[$mode]=$(run "http://127.0.0.1:$ref_port" "" "" "$mode" ref)
done
kill "$ref_pid" 2>/dev/null || true

rows="$work/rows.md"; : >"$rows"
patch_rows="$work/patch.md"; : >"$patch_rows"
patch_row() { # who file
  while read -r _ op med max n; do
    echo "| $1 | PATCH $op $batch members, group of $members | $med | $max | $n |" >>"$patch_rows"
  done <"$2"
}
patch_row "scim2-server" "$work/ref/patch"
for backend in $backends; do
  case $backend in
    sqlite) export DATABASE_URL="$work/equip.db" ;;
    postgres)
      pg_db="equip_bench_groups_$$"
      psql -X -q "$pg_url/postgres" -c "CREATE DATABASE $pg_db" >/dev/null
      export DATABASE_URL="$pg_url/$pg_db" ;;
    *) echo "bench-groups: unknown backend $backend" >&2; exit 1 ;;
  esac
  org=$("$bin" org create --name "Groups bench" 2>/dev/null)
  key=$("$bin" key create --org "$org" --scope scim 2>/dev/null)
  port=$(free_port)
  RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" 2>"$work/equip.log" &
  equip_pid=$!; pids+=("$equip_pid")
  wait_up "http://127.0.0.1:$port/healthz"
  prepare "$backend" "http://127.0.0.1:$port" /scim/v2 "ApiKey $key"
  patch_row "equip on $backend" "$work/$backend/patch"
  # Cold again for the read runs: a fresh process (PostgreSQL keeps its own cache).
  kill "$equip_pid"; wait "$equip_pid" 2>/dev/null || true
  RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" 2>"$work/equip.log" &
  equip_pid=$!; pids+=("$equip_pid")
  wait_up "http://127.0.0.1:$port/healthz"
  for mode in $modes; do
    echo "bench-groups: equip $backend $mode (load average $(cut -d' ' -f1-3 /proc/loadavg)) ..." >&2
    load=$(cut -d' ' -f1 /proc/loadavg)
    read -r e_rps e_p99 e_err _ <<<"$(run "http://127.0.0.1:$port" /scim/v2 "ApiKey $key" "$mode" "$backend")"
    read -r r_rps r_p99 r_err _ <<<"${ref[$mode]}"
    ratio=$(python3 -c "print(f'{$e_rps / max($r_rps, 0.1):.1f}×')")
    note=""
    [ "$e_err" != 0 ] && note=" (equip non-2xx: $e_err)"
    [ "$r_err" != 0 ] && note="$note (scim2-server non-2xx: $r_err)"
    echo "| $backend | $(label_of "$mode") | $e_rps | $e_p99 | $r_rps | $r_p99 | $ratio$note | $load |" >>"$rows"
  done
  rss=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$equip_pid/status")
  echo "equip on $backend: peak resident ${rss} MB." >>"$work/notes"
  kill "$equip_pid"; wait "$equip_pid" 2>/dev/null || true
  if [ "$backend" = postgres ]; then
    psql -X -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null
    pg_db=""
  fi
done

echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1048576)}' /proc/meminfo) GiB; equip release build; wrk -t2 -c$connections -d$duration; $users users, a group of $members members, $teams groups of 3; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| server | request | median ms | max ms | rounds |"
echo "|---|---|---|---|---|"
cat "$patch_rows"
echo
echo "| backend | request | equip req/s | equip p99 ms | scim2-server req/s | scim2-server p99 ms | ratio | load |"
echo "|---|---|---|---|---|---|---|---|"
cat "$rows"
echo
cat "$work/notes"
