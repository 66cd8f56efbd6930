#!/usr/bin/env bash
# Webhook delivery throughput of equip (release build) on SQLite and PostgreSQL:
#   1. a local receiver (Python, HTTP/1.1 keep-alive) that answers 204 and
#      counts deliveries and the time of the last one;
#   2. `equip serve --allow-private-webhooks`, one webhook for every event
#      type pointing at the receiver;
#   3. POST /scim/v2/Users/csv with a ROWS-row file (default 50,000): one
#      person.created event per row;
#   4. the seconds from the end of the upload to the last delivery, and the
#      deliveries made while the upload ran.
# Prints a Markdown table per backend. PostgreSQL: a scratch database on
# BENCH_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432),
# dropped afterwards. BASELINE=1 runs the same upload with `--no-webhooks`
# (nothing delivered: the upload's own time, for comparison). BIN=path/to/equip measures that binary instead of
# building this tree's (CARGO_TARGET_DIR is honoured).
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."

rows="${ROWS:-50000}"
backends="${BACKENDS:-sqlite postgres}"
baseline="${BASELINE:-0}"
extra=()
[ "$baseline" = 1 ] && extra=(--no-webhooks)
pg_server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"

if [ -n "${BIN:-}" ]; then
  bin="$(realpath "$BIN")"
else
  cargo build -q --release -p equip-server --bin equip
  bin="$(realpath "${CARGO_TARGET_DIR:-target}")/release/equip"
fi
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_webhooks WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-webhooks: $1 did not come up" >&2; exit 1; }

python3 - "$work" "$rows" <<'PY'
import sys
work, rows = sys.argv[1], int(sys.argv[2])
with open(f"{work}/users.csv", "w", newline="") as f:
    f.write("id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,"
            "state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number\r\n")
    for i in range(rows):
        f.write(f',First{i},Last{i},hook{i}@bench.example,,,"{i} Main St",,CA,'
                f'San Francisco,US,94105,+1 555 {i % 10000:04},yes,\r\n')
PY

# The receiver: POST anything -> 204 (counted); GET /stats -> "<count> <unix time of the last>".
cat >"$work/receiver.py" <<'PY'
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock = threading.Lock()
state = {"count": 0, "last": 0.0}
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with lock:
            state["count"] += 1
            state["last"] = time.time()
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def do_GET(self):
        with lock:
            body = f"{state['count']} {state['last']:.3f}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY

run_backend() { # name database-url
  local name=$1 url=$2 port rport org key pid rpid
  export DATABASE_URL="$url"
  "$bin" migrate >/dev/null 2>&1
  org=$("$bin" org create --name "Webhook bench" 2>/dev/null)
  key=$("$bin" key create --org "$org" --scope scim,webhooks:write 2>/dev/null)
  rport=$(free_port)
  python3 "$work/receiver.py" "$rport" &
  rpid=$!
  pids+=("$rpid")
  port=$(free_port)
  RUST_LOG=warn "$bin" serve --no-dispatcher --allow-private-webhooks "${extra[@]}" \
    --bind "127.0.0.1:$port" 2>"$work/equip-$name.log" &
  pid=$!
  pids+=("$pid")
  wait_up "http://127.0.0.1:$port/healthz"
  wait_up "http://127.0.0.1:$rport/stats"
  curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: ApiKey $key" \
    -H "Content-Type: application/json" \
    --data "{\"url\": \"http://127.0.0.1:$rport/hook\"}" \
    "http://127.0.0.1:$port/api/v1/webhooks" | grep -q 201
  local start end
  start=$(date +%s.%N)
  curl -sS -o /dev/null -H "Authorization: ApiKey $key" \
    -F "file=@$work/users.csv;type=text/csv" "http://127.0.0.1:$port/scim/v2/Users/csv"
  end=$(date +%s.%N)
  local during
  during=$(curl -s "http://127.0.0.1:$rport/stats" | cut -d' ' -f1)
  # Until every event is delivered (one per row), at most 10 minutes.
  local stats count last
  for _ in $(seq 1 6000); do
    [ "$baseline" = 1 ] && { stats="0 $end"; count=0; break; }
    stats=$(curl -s "http://127.0.0.1:$rport/stats")
    count=${stats% *}
    [ "$count" -ge "$rows" ] && break
    sleep 0.1
  done
  last=${stats#* }
  python3 - "$name" "$rows" "$start" "$end" "$during" "$count" "$last" <<'PY'
import sys
name, rows, start, end, during, count, last = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:5]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
after = last - end
print(f"| {name} | {rows:,} | {end - start:.1f} | {during:,} | {count:,} | {after:.1f} | {count / (last - start):,.0f} |")
PY
  kill "$pid" "$rpid"
  wait "$pid" 2>/dev/null || true
}

echo "## Webhook delivery ($(nproc) cores, $(date -u +%Y-%m-%d))"
echo
echo "| backend | CSV rows | upload s | delivered during upload | delivered | s from upload end to last delivery | deliveries/s overall |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for b in $backends; do
  case $b in
    sqlite) run_backend sqlite "$work/bench.db" ;;
    postgres)
      psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_webhooks WITH (FORCE)" >/dev/null
      psql "$pg_server/postgres" -qc "CREATE DATABASE equip_bench_webhooks" >/dev/null
      run_backend postgres "$pg_server/equip_bench_webhooks"
      ;;
  esac
done
