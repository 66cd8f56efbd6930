#!/usr/bin/env bash
# SCIM benchmark: equip (release build, SQLite) against the Python reference
# server scim2-server, on the same machine, with the same requests.
#   1. 10,000 users created through the API of each server;
#   2. wrk for 15 s at 32 connections on: GET /Users/{id}, a filter
#      userName eq "…", a list page of count=50, and POST /Users;
#   3. equip's resident memory (VmRSS and peak VmHWM).
# Prints a Markdown table (requests/s, equip ÷ scim2-server). Needs wrk
# (apt-get install -y wrk); a venv for scim2-server under ~/.cache/equip (created when missing).
# USERS, DURATION and CONNECTIONS override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."

users="${USERS:-10000}"
duration="${DURATION:-15s}"
connections="${CONNECTIONS:-32}"
command -v wrk >/dev/null || { echo "bench-scim: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
. scripts/lib/venv.sh
ensure_venv scim2-server-venv "scim2-server==0.8.3" scim2-server
venv=$VENV

cargo build -q --release -p equip-server --bin equip
bin="${CARGO_TARGET_DIR:-target}/release/equip"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-scim: $1 did not come up" >&2; exit 1; }

export DATABASE_URL="$work/equip.db"
org=$("$bin" org create --name "SCIM bench" 2>/dev/null)
key=$("$bin" key create --org "$org" --scope scim 2>/dev/null)
equip_port=$(free_port)
RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$equip_port" 2>"$work/equip.log" &
equip_pid=$!
pids+=("$equip_pid")
wait_up "http://127.0.0.1:$equip_port/healthz"

ref_port=$(free_port)
"$venv/bin/scim2-server" --port "$ref_port" >"$work/ref.log" 2>&1 &
pids+=("$!")
wait_up "http://127.0.0.1:$ref_port/ServiceProviderConfig"

# Seeds USERS users with 16 client threads; prints the ids, one a line.
seed() { # base_url auth_header out_file
  python3 - "$1" "$2" "$users" >"$3" <<'PY'
import http.client, json, sys, threading, urllib.parse
base, auth, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
u = urllib.parse.urlparse(base)
ids, lock, errors = [], threading.Lock(), []
def work(start):
    c = http.client.HTTPConnection(u.hostname, u.port)
    for i in range(start, n, 16):
        name = f"user{i}@bench.example"
        body = json.dumps({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": name, "name": {"givenName": f"Given{i}", "familyName": f"Family{i}"},
            "emails": [{"value": name, "type": "work", "primary": True}], "active": True})
        h = {"Content-Type": "application/scim+json"}
        if auth:
            h["Authorization"] = auth
        for attempt in range(5):
            try:
                c.request("POST", u.path + "/Users", body, h)
                r = c.getresponse(); data = r.read()
                break
            except (ConnectionError, http.client.HTTPException):
                # scim2-server's development server drops kept-alive connections now and then.
                c.close(); c = http.client.HTTPConnection(u.hostname, u.port)
        else:
            errors.append("connection kept failing"); return
        if r.status != 201:
            errors.append(f"{r.status} {data[:200]!r}"); return
        with lock:
            ids.append(json.loads(data)["id"])
threads = [threading.Thread(target=work, args=(s,)) for s in range(16)]
[t.start() for t in threads]; [t.join() for t in threads]
if errors:
    sys.exit(f"seeding failed: {errors[0]}")
print("\n".join(ids))
PY
}

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
    local name = "new-" .. tostring(tno) .. "-" .. counter .. "@bench.example"
    local body = '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"' .. name ..
      '","emails":[{"value":"' .. name .. '","primary":true}],"active":true}'
    return wrk.format("POST", prefix .. "/Users", nil, body)
  end
end
local non2xx = 0
response = function(status) if status >= 300 then non2xx = non2xx + 1 end end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.1f %.2f %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(99) / 1000, summary.errors.status))
end
LUA

run() { # base prefix auth ids mode -> "rps p99ms non2xx"
  MODE="$5" PREFIX="$2" AUTH="$3" IDS="$4" USERS="$users" \
    wrk -t2 -c"$connections" -d"$duration" -s "$work/bench.lua" "$1" 2>&1 | sed -n 's/^RESULT //p'
}

echo "bench-scim: seeding $users users into equip and scim2-server ..." >&2
start=$(date +%s.%N)
seed "http://127.0.0.1:$equip_port/scim/v2" "ApiKey $key" "$work/equip.ids"
equip_seed=$(python3 -c "import time; print(round(time.time() - $start, 1))")
start=$(date +%s.%N)
seed "http://127.0.0.1:$ref_port" "" "$work/ref.ids"
ref_seed=$(python3 -c "import time; print(round(time.time() - $start, 1))")

mem() { awk -v k="$1" '$1 == k":" {print int($2/1024)}' "/proc/$equip_pid/status"; }
declare -A eq ref hwm_after
hwm_after[seed]=$(mem VmHWM)
for mode in get filter list post; do
  echo "bench-scim: $mode ..." >&2
  eq[$mode]=$(run "http://127.0.0.1:$equip_port" /scim/v2 "ApiKey $key" "$work/equip.ids" "$mode")
  hwm_after[$mode]=$(mem VmHWM)
  ref[$mode]=$(run "http://127.0.0.1:$ref_port" "" "" "$work/ref.ids" "$mode")
done
rss=$(awk '/VmRSS/ {print int($2/1024)}' "/proc/$equip_pid/status")
hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$equip_pid/status")

echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1048576)}' /proc/meminfo) GiB; equip release build on SQLite; wrk -t2 -c$connections -d$duration; $users users."
echo "Seeding $users users (16 client threads): equip ${equip_seed} s, scim2-server ${ref_seed} s."
echo
echo "| request | equip req/s | equip p99 ms | scim2-server req/s | ratio |"
echo "|---|---|---|---|---|"
for mode in get filter list post; do
  read -r e_rps e_p99 e_err <<<"${eq[$mode]}"
  read -r r_rps _ r_err <<<"${ref[$mode]}"
  label=$mode
  case $mode in
    get) label="GET /Users/{id}" ;;
    filter) label='GET /Users?filter=userName eq "…"' ;;
    list) label="GET /Users?startIndex=…&count=50" ;;
    post) label="POST /Users" ;;
  esac
  ratio=$(python3 -c "print(f'{$e_rps / max($r_rps, 0.1):.1f}×')")
  note=""
  [ "$e_err" != 0 ] && note=" (equip non-2xx: $e_err)"
  [ "$r_err" != 0 ] && note="$note (scim2-server non-2xx: $r_err)"
  echo "| $label | $e_rps | $e_p99 | $r_rps | $ratio$note |"
done
echo
echo "equip resident memory after the runs: ${rss} MB (peak ${hwm} MB; peak after seeding ${hwm_after[seed]}, after GET ${hwm_after[get]}, filter ${hwm_after[filter]}, list ${hwm_after[list]}, POST ${hwm_after[post]} MB)."
