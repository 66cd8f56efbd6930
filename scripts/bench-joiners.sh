#!/usr/bin/env bash
# The cost of ordering for joiners (release build, SQLite and PostgreSQL),
# docs/performance.md "Joiners: orders from provisioning":
#   1. a fresh database loaded by `equip import`: two SKUs (LAPTOP, PHONE),
#      one warehouse with STOCK AVAILABLE items of each, a package `kit`
#      with contents (one laptop, one phone) and a package `bare` without;
#   2. `equip serve`;
#   3. POST /scim/v2/Users/csv with ROWS joiners of package `bare` (no
#      order: the baseline), then ROWS joiners of package `kit` (each gets
#      an order of two lines, allocated), timed; while the `kit` CSV runs, a
#      probe on another connection alternates a listing page and a SCIM
#      create of a person without a package and reports their p50, p99 and
#      max (scripts/lib/returns_bench.py probe; also alone, and during the
#      `bare` CSV);
#   4. the orders and allocated lines counted, so the figures are checked.
#
#   scripts/bench-joiners.sh
#   BACKENDS=sqlite ROWS=5000 scripts/bench-joiners.sh
#
# Without BIN, this tree's release binary is built (CARGO_TARGET_DIR is
# honoured). PostgreSQL: a scratch database equip_bench_joiners on
# BENCH_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432),
# dropped at the end. A script, not a test: run it on a quiet machine.
set -euo pipefail
export EQUIP_RATE_LIMIT=0
export EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION=0
cd "$(dirname "$0")/.."
root=$(pwd)

rows="${ROWS:-5000}"
stock="${STOCK:-$rows}"
backends="${BACKENDS:-sqlite postgres}"
pg_server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
probe_py="$root/scripts/lib/returns_bench.py"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  psql "$pg_server/postgres" -qc "DROP DATABASE IF EXISTS equip_bench_joiners WITH (FORCE)" >/dev/null 2>&1 || true
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
wait_up() { for _ in $(seq 1 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench-joiners: $1 did not come up" >&2; exit 1; }

python3 - "$work" "$rows" "$stock" <<'PY'
import json, sys, uuid
work, rows, stock = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
warehouse, laptop, phone = (str(uuid.uuid4()) for _ in range(3))
items = []
for sku, prefix in ((laptop, "LAP"), (phone, "PHO")):
    for n in range(stock):
        items.append({"id": str(uuid.uuid4()), "skuId": sku, "serialNumber": f"{prefix}-{n}",
                      "deployStatus": "AVAILABLE", "condition": "NEW",
                      "assignedTo": {"type": "WAREHOUSE", "id": warehouse}})
doc = {
    "warehouses": [{"id": warehouse, "name": "Joiners desk", "shared": False,
                    "address": {"countryCode": "US"}}],
    "skus": [
        {"id": laptop, "title": "ThinkPad X1 Carbon", "categoryCode": "LAPTOP",
         "categoryName": "Laptops", "vendorCode": "LENOVO", "vendorName": "Lenovo", "vendorSku": "21HM"},
        {"id": phone, "title": "iPhone 15", "categoryCode": "PHONE",
         "categoryName": "Phones", "vendorCode": "APPLE", "vendorName": "Apple", "vendorSku": "A3090"},
    ],
    "packages": [
        {"id": str(uuid.uuid4()), "slug": "kit", "name": "Joiner kit",
         "items": [{"categoryCode": "LAPTOP", "skuIds": [laptop], "quantity": 1},
                   {"categoryCode": "PHONE", "skuIds": [], "quantity": 1}]},
        {"id": str(uuid.uuid4()), "slug": "bare", "name": "Nothing to order"},
    ],
    "inventory": items,
}
json.dump(doc, open(f"{work}/doc.json", "w"))
header = ("id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,"
          "state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number\r\n")
for slug in ("bare", "kit"):
    with open(f"{work}/{slug}.csv", "w", newline="") as f:
        f.write(header)
        for i in range(rows):
            f.write(f",First{i},Last{i},{slug}{i}@bench.example,,{slug},{i} Main St,,CA,"
                    f"San Francisco,US,94105,+1 555 {i % 10000:04},yes,\r\n")
PY

timed_csv() { # base key file -> seconds and status summary
  local start end code
  start=$(date +%s.%N)
  code=$(curl -sS -o "$work/resp.json" -w '%{http_code}' -H "Authorization: ApiKey $2" \
    -F "file=@$3;type=text/csv" "$1/scim/v2/Users/csv")
  end=$(date +%s.%N)
  python3 - "$start" "$end" "$code" "$work/resp.json" <<'PY'
import collections, json, sys
start, end, code, path = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
ops = json.load(open(path)).get("Operations", []) if code == "200" else []
print(f"{end - start:.2f} HTTP {code} {dict(collections.Counter(o['status'] for o in ops))}")
PY
}

echo "## Joiners benchmark: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); CSV of $rows joiners; $stock laptops and $stock phones AVAILABLE; load $(cut -d' ' -f1-3 /proc/loadavg)"

for backend in $backends; do
  case $backend in
    sqlite) url="$work/joiners.db" ;;
    postgres)
      psql "$pg_server/postgres" -qc "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS equip_bench_joiners WITH (FORCE)" \
        -c "CREATE DATABASE equip_bench_joiners" -c "CHECKPOINT" >/dev/null
      url="$pg_server/equip_bench_joiners" ;;
  esac
  echo
  echo "### $backend"
  echo
  export DATABASE_URL="$url"
  org=$("$bin" org create --name "Joiners bench" 2>/dev/null)
  key=$("$bin" key create --org "$org" 2>/dev/null)
  "$bin" import --org "$org" "$work/doc.json" >/dev/null 2>"$work/import-$backend.log"
  port=$(free_port)
  RUST_LOG=warn "$bin" serve --no-dispatcher --no-hold-release --bind "127.0.0.1:$port" \
    2>"$work/serve-$backend.log" &
  server=$!
  pids+=("$server")
  base="http://127.0.0.1:$port"
  wait_up "$base/healthz"

  python3 "$probe_py" probe "$base" "$key" 4 "$work/probe-quiet"
  echo "- probe alone: $(cat "$work/probe-quiet")"
  python3 "$probe_py" probe "$base" "$key" 6 "$work/probe-bare" &
  probe=$!
  sleep 1
  read -r bare_s bare_rest < <(timed_csv "$base" "$key" "$work/bare.csv")
  wait "$probe"
  echo "- CSV of $rows joiners without package contents: $bare_s s ($bare_rest)"
  echo "  - meanwhile: $(cat "$work/probe-bare")"
  python3 "$probe_py" probe "$base" "$key" 8 "$work/probe-kit" &
  probe=$!
  sleep 1
  read -r kit_s kit_rest < <(timed_csv "$base" "$key" "$work/kit.csv")
  wait "$probe"
  echo "- CSV of $rows joiners with a two-item package: $kit_s s ($kit_rest)"
  python3 -c 'import sys; b, k, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print(f"- ordering costs {(k - b) * 1000 / n:.2f} ms per joiner ({k / b:.2f}x the CSV without contents)")' "$bare_s" "$kit_s" "$rows"
  echo "  - meanwhile: $(cat "$work/probe-kit")"
  orders=$(curl -sS -H "Authorization: ApiKey $key" "$base/api/v1/orders?size=1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["pagination"]["totalRecords"])' 2>/dev/null || echo "?")
  echo "  - orders listed: $orders"
  kill "$server"; wait "$server" 2>/dev/null || true
done
