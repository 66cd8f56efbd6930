#!/usr/bin/env bash
# Bulk and CSV throughput of equip (release build) on SQLite and PostgreSQL:
#   1. POST /scim/v2/Bulk with 1,000 creates (the Bulk limit), REPEAT times
#      (each with new userNames);
#   2. POST /scim/v2/Users/csv with a ROWS-row file (default 50,000, the CSV
#      limit): every row a create with a package slug, an address with a line
#      break, a phone number;
#   3. the same CSV again (every row now a 409: the cost of a re-run; only
#      when the first upload answered 200).
# PACKAGE=1 gives the package contents (one laptop, one phone) and imports
# STOCK (default ROWS) AVAILABLE items of each into one warehouse, so every
# row is a joiner whose order of two lines is allocated in the upload
# (STOCK=0: the lines are backordered); without it the package has no
# contents and no row orders anything. An upload answered other than 200
# (503 at --upload-timeout, 300 s) is a result: its line counts the rows
# written by the answer (people in the database; with PACKAGE=1 also the
# orders; so does every upload's line) and 5 s later (whether work went on
# after the answer).
# Prints rows/s per step and backend, and equip's peak resident memory
# (VmHWM). PostgreSQL: a scratch database on BENCH_POSTGRES_URL's server
# (default postgres://postgres@127.0.0.1:5432), dropped afterwards.
# BIN=path/to/equip measures that binary instead of building this tree's;
# BACKENDS="sqlite postgres" (the default) picks the backends. Before a
# PostgreSQL run the server is checkpointed, so that one run's dirty pages
# are not written during the next.
set -euo pipefail
# One key sends far more than `equip serve`'s default per-key rate limit:
# measure without it (older binaries ignore the variable).
export EQUIP_RATE_LIMIT=0
# …and one organization's throughput alone, without its share of the store
# calls (serve --max-store-calls-per-organization; older binaries ignore it).
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."

rows="${ROWS:-50000}"
package="${PACKAGE:-0}"
stock="${STOCK:-$rows}"
repeat="${REPEAT:-5}"
pg_server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"

if [ -n "${BIN:-}" ]; then
  bin="$(realpath "$BIN")"   # another build, e.g. the binary of an earlier commit
else
  cargo build -q --release -p equip-server --bin equip
  bin="$(realpath "${CARGO_TARGET_DIR:-target}")/release/equip"
fi
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_bulk WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-bulk: $1 did not come up" >&2; exit 1; }

# The inputs, generated once: REPEAT bulk bodies, one CSV and the import
# document of the package (with PACKAGE=1, its contents and their stock).
python3 - "$work" "$rows" "$repeat" "$package" "$stock" <<'PY'
import json, sys, uuid
work, rows, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
package, stock = sys.argv[4] == "1", int(sys.argv[5])
doc = {"packages": [{"id": str(uuid.uuid4()), "slug": "bench-kit", "name": "Bench kit"}]}
if package:
    warehouse, laptop, phone = (str(uuid.uuid4()) for _ in range(3))
    doc["warehouses"] = [{"id": warehouse, "name": "Joiners desk", "shared": False,
                          "address": {"countryCode": "US"}}]
    doc["skus"] = [
        {"id": laptop, "title": "ThinkPad X1 Carbon", "categoryCode": "LAPTOP",
         "categoryName": "Laptops", "vendorCode": "LENOVO", "vendorName": "Lenovo", "vendorSku": "21HM"},
        {"id": phone, "title": "iPhone 15", "categoryCode": "PHONE",
         "categoryName": "Phones", "vendorCode": "APPLE", "vendorName": "Apple", "vendorSku": "A3090"},
    ]
    doc["packages"][0]["items"] = [{"categoryCode": "LAPTOP", "skuIds": [laptop], "quantity": 1},
                                   {"categoryCode": "PHONE", "skuIds": [], "quantity": 1}]
    doc["inventory"] = [
        {"id": str(uuid.uuid4()), "skuId": sku, "serialNumber": f"{prefix}-{n}",
         "deployStatus": "AVAILABLE", "condition": "NEW",
         "assignedTo": {"type": "WAREHOUSE", "id": warehouse}}
        for sku, prefix in ((laptop, "LAP"), (phone, "PHO")) for n in range(stock)]
json.dump(doc, open(f"{work}/package.json", "w"))
for r in range(repeat):
    ops = []
    for i in range(1000):
        name = f"bulk{r}-{i}@bench.example"
        ops.append({"method": "POST", "bulkId": f"b{i}", "path": "/Users", "data": {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": name, "name": {"givenName": f"Given{i}", "familyName": f"Family{i}"},
            "emails": [{"value": name, "type": "work", "primary": True}], "active": True}})
    with open(f"{work}/bulk{r}.json", "w") as f:
        json.dump({"schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
                   "Operations": ops}, f)
with open(f"{work}/users.csv", "w", newline="") as f:
    f.write("id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,"
            "state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number\r\n")
    for i in range(rows):
        f.write(f',First{i},Last{i},csv{i}@bench.example,,bench-kit,"{i} Main St\nUnit {i}",,CA,'
                f'San Francisco,US,94105,+1 555 {i % 10000:04},yes,\r\n')
PY

# SQL against the run's database (reading beside equip).
q() {
  case $DATABASE_URL in
    postgres*) psql "$DATABASE_URL" -Atqc "$1" ;;
    *) sqlite3 -cmd ".timeout 10000" "$DATABASE_URL" "$1" ;;
  esac
}
written() { # what the rows wrote so far
  local people orders
  people=$(q "SELECT count(*) FROM people")
  if [ "$package" = 1 ]; then
    orders=$(q "SELECT count(*) FROM orders")
    echo "$people people, $orders orders"
  else
    echo "$people people"
  fi
}
# Stops equip serve: TERM, and KILL if it is still busy (an earlier binary
# goes on with an upload after answering it) 10 s later.
stop() {
  kill "$1" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# Times one upload; prints "| label | rows | seconds | rows/s | result |"
# and leaves the HTTP status in $work/code.
timed() { # label rows curl-args...
  local label=$1 n=$2; shift 2
  local start end
  start=$(date +%s.%N)
  curl -sS -o "$work/resp.json" -w '%{http_code}' "$@" >"$work/code" || true
  end=$(date +%s.%N)
  local extra="; at the answer $(written)"
  if [ "$(cat "$work/code")" != 200 ]; then
    sleep 5
    extra="$extra, 5 s later $(written)"
  fi
  python3 - "$label" "$n" "$start" "$end" "$(cat "$work/code")" "$work/resp.json" "$extra" <<'PY'
import collections, json, sys
label, n, start, end, code, path, extra = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
try:
    ops = json.load(open(path)).get("Operations", [])
except (ValueError, OSError, AttributeError):
    ops = []
statuses = collections.Counter(o["status"] for o in ops)
secs = end - start
print(f"| {label} | {n} | {secs:.2f} | {n / secs:,.0f} | HTTP {code}, {dict(statuses)}{extra} |")
PY
}

run_backend() { # name database-url
  local name=$1 url=$2 port org key pid
  export DATABASE_URL="$url"
  "$bin" migrate >/dev/null 2>&1
  org=$("$bin" org create --name "Bulk bench" 2>/dev/null)
  key=$("$bin" key create --org "$org" --scope scim 2>/dev/null)
  # The package the CSV rows name (and its stock), through the import path.
  local t0=$SECONDS
  "$bin" import --org "$org" "$work/package.json" >/dev/null 2>"$work/import-$name.log"
  [ "$package" = 1 ] && echo "(import of the package and $((2 * stock)) items: $((SECONDS - t0)) s)" && echo
  port=$(free_port)
  RUST_LOG=warn "$bin" serve --no-dispatcher --bind "127.0.0.1:$port" 2>"$work/equip-$name.log" &
  pid=$!
  pids+=("$pid")
  wait_up "http://127.0.0.1:$port/healthz"
  local auth=(-H "Authorization: ApiKey $key")
  echo "### $name"
  echo
  echo "| step | rows | seconds | rows/s | result |"
  echo "|---|---:|---:|---:|---|"
  for r in $(seq 0 $((repeat - 1))); do
    timed "Bulk, 1,000 creates (#$((r + 1)))" 1000 "${auth[@]}" \
      -H "Content-Type: application/scim+json" --data-binary "@$work/bulk$r.json" \
      "http://127.0.0.1:$port/scim/v2/Bulk"
  done
  timed "CSV, $rows creates" "$rows" "${auth[@]}" -F "file=@$work/users.csv;type=text/csv" \
    "http://127.0.0.1:$port/scim/v2/Users/csv"
  if [ "$(cat "$work/code")" = 200 ]; then
    timed "CSV again (all 409)" "$rows" "${auth[@]}" -F "file=@$work/users.csv;type=text/csv" \
      "http://127.0.0.1:$port/scim/v2/Users/csv"
  fi
  echo
  echo "equip peak RSS: $(awk '/VmHWM/ {printf "%.0f MiB", $2/1024}' "/proc/$pid/status")"
  echo
  stop "$pid"
}

echo "## Bulk and CSV throughput ($(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg); PACKAGE=$package)"
echo
for backend in ${BACKENDS:-sqlite postgres}; do
  case $backend in
    sqlite) run_backend sqlite "$work/bench.db" ;;
    postgres)
      psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_bulk WITH (FORCE)" >/dev/null
      psql "$pg_server/postgres" -qc "CREATE DATABASE equip_bench_bulk" -c "CHECKPOINT" >/dev/null
      run_backend postgres "$pg_server/equip_bench_bulk" ;;
    *) echo "bench-bulk: unknown backend $backend" >&2; exit 1 ;;
  esac
done
