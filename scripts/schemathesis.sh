#!/usr/bin/env bash
# API fuzzing: Schemathesis generates requests from the OpenAPI document that
# a real `equip serve` (over `equip demo` data on a temporary SQLite database;
# SCHEMATHESIS_POSTGRES=1: a fresh PostgreSQL database at EQUIP_TEST_POSTGRES_URL's
# server, dropped afterwards) serves at /openapi.json, and
# fails on any 5xx, any response the document does not describe (status,
# content type, headers, body schema), any schema-invalid input accepted, any
# schema-valid input refused (where validity does not depend on other fields
# or stored state), unsupported methods without 405 and Allow, an operation
# that ignores its key, and one organization's object served to another.
# Schemathesis lives in a venv cached outside the clone
# (${XDG_CACHE_HOME:-$HOME/.cache}/equip/schemathesis-venv), created on first use.
# Bounded: SCHEMATHESIS_MAX_EXAMPLES (default 100) cases per operation and
# phase; SCHEMATHESIS_TIMEOUT (default 600) seconds at most for the run.
# SCHEMATHESIS_SEED (default fixed) changes the generated cases.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib/venv.sh
ensure_venv schemathesis-venv "schemathesis==4.32.5" schemathesis
venv=$VENV

cargo build -q -p equip-server --bin equip
bin="${CARGO_TARGET_DIR:-target}/debug/equip"
work=$(mktemp -d)
server_pid=""
pg_admin="${EQUIP_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
pg_db=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  [ -n "$pg_db" ] && psql "$pg_admin" -qc "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "schemathesis: FAILED: $*" >&2; exit 1; }
if [ "${SCHEMATHESIS_POSTGRES:-0}" = 1 ]; then
  # A fresh PostgreSQL database for this run, dropped at the end.
  pg_db="equip_schemathesis_$$"
  psql "$pg_admin" -qc "CREATE DATABASE $pg_db" >/dev/null || fail "cannot create a PostgreSQL database at $pg_admin"
  export DATABASE_URL="${pg_admin%/*}/$pg_db"
else
  export DATABASE_URL="${DATABASE_URL:-$work/equip.db}"
fi

key=$("$bin" demo --name "Schemathesis" --items 60 2>"$work/demo.log" | head -n 1) \
  || { cat "$work/demo.log" >&2; fail "equip demo"; }
[[ "$key" =~ ^equip_ ]] || fail "equip demo printed no key"
# A second organization: Schemathesis replays what the first one reads as the
# second, which must not get it (object-level authorization).
other_key=$("$bin" demo --name "Schemathesis Other" --items 20 --seed 7 2>>"$work/demo.log" | head -n 1) \
  || { cat "$work/demo.log" >&2; fail "equip demo (second organization)"; }
[[ "$other_key" =~ ^equip_ ]] || fail "equip demo printed no second key"
# Both identities in a Web Fuzzing Commons auth file (private to this run).
umask 077
printf '{"auth": [{"name": "demo", "fixedHeaders": [{"name": "Authorization", "value": "ApiKey %s"}]}, {"name": "other", "fixedHeaders": [{"name": "Authorization", "value": "ApiKey %s"}]}]}\n' \
  "$key" "$other_key" >"$work/identities.json"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Without the per-key rate limit: the fuzzer sends faster than the default
# allows, and rate limits have tests of their own (tests/api/rate_limits.rs).
EQUIP_SPOOL_DIR="$work/spool" "$bin" serve --bind "127.0.0.1:$port" --rate-limit 0 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
url="http://127.0.0.1:$port"

# The served document must be the committed one.
curl -fsS "$url/openapi.json" >"$work/served.json" || fail "GET /openapi.json"
cmp -s "$work/served.json" docs/openapi.json || fail "the served document differs from docs/openapi.json"

started=$(date +%s)
status=0
# Real identifiers, so that generated requests reach past "404 not found":
# items, SKUs, warehouses, offices and people from the listing, new joiners
# from SCIM, levels from their listing. Schemathesis draws a parameter from
# these dictionaries with the given probability and generates it otherwise.
# The keys go through the environment and a private file, not the command line.
export EQUIP_AUTH="ApiKey $key" EQUIP_WFC="$work/identities.json"
python3 - "$url" >"$work/schemathesis.toml" <<'PY' || fail "collecting identifiers"
import datetime, json, os, sys, urllib.request
url = sys.argv[1]
def get(path):
    req = urllib.request.Request(url + path, headers={"Authorization": os.environ["EQUIP_AUTH"]})
    with urllib.request.urlopen(req) as r:
        return json.load(r)
items = get("/api/v1/inventory?size=1000")["data"]
ids = {"items": [], "skus": [], "PERSON": [], "WAREHOUSE": [], "OFFICE": [], "joiners": [], "levels": []}
for i in items:
    ids["items"].append(i["id"])
    ids["skus"].append(i["skuId"])
    if i["assignedTo"]:
        ids[i["assignedTo"]["type"]].append(i["assignedTo"]["id"])
ext = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"
today = datetime.date.today().isoformat()
start = 1
while True:
    page = get(f"/scim/v2/Users?startIndex={start}&count=50")
    for u in page.get("Resources", []):
        if (u.get(ext, {}).get("startDate") or "") > today:
            ids["joiners"].append(u["id"])
        else:
            ids["PERSON"].append(u["id"])
    start += page["itemsPerPage"]
    if page["itemsPerPage"] == 0 or start > page["totalResults"]:
        break
ids["levels"] = [l["id"] for l in get("/api/v1/inventory-levels?includeInactive=true")["data"]]
ids["packages"] = [p["id"] for p in get("/api/v1/packages")["data"]]
# Joiners' orders, when the demo data has some (optional: bound only then).
orders = sorted(o["id"] for o in get("/api/v1/orders?size=1000")["data"])[:40]
for name in list(ids):
    ids[name] = sorted(set(ids[name]))[:40]
    if not ids[name]:
        sys.exit(f"the demo data has no {name}")
q = lambda values: json.dumps(values)
print(f'[auth.wfc]\npath = "{os.environ["EQUIP_WFC"]}"\npeers = ["demo", "other"]\n')
# A request past equip's limits is refused by them before its parameters are
# read: 413 (a body too large) or 414 (a URL over 8 KiB; docs/reliability.md,
# "Limits").
# Both are rejections, which Schemathesis does not count as such by default:
# a generated invalid request with hundreds of values of a repeated
# parameter gets 414.
print('[checks.negative_data_rejection]\nexpected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "5xx"]\n')
# The stateful phase chains operations by links it infers from the response
# schemas; a nullable id (a return line's warehouseId before its receipt) is
# then sent as the text "None" (GET /api/v1/warehouses/None: 400), which is
# no fault of the server. Stateful sequences are still checked for server
# errors and for answers that break the document.
print('[phases.stateful.checks.positive_data_acceptance]\nenabled = false\n')
for name, values in ids.items():
    print(f"[dictionaries.{name}]\nvalues = {q(values)}\n")
if orders:
    print(f"[dictionaries.orders]\nvalues = {q(orders)}\n")
# Where validity also depends on other fields or on stored state (updatedAtFrom
# not after updatedAtTo, personId not with assignedEmail, a deployReason that
# fits the deployStatus, minimumQuantity not above targetQuantity), a valid
# schema does not make a valid request: "valid input accepted" is not checked.
# The same for a cursor of the feed or of a history (it must be one that the
# organization's feed gave, not merely well-formed) and for a webhook's URL
# (its host must resolve to a public address: the network decides), and for
# returns: a return's items must be DEPLOYED to its person and given once, a
# cancel comes alone, a receipt entry names its item by itemId or by
# serialNumber (one of them); a package's contents name categories and SKUs
# the organization has; and shipments: a shipment's lines must be ALLOCATED
# lines of its order, a delivery's shipment one of the order's.
cross_field = {"GET /api/v1/inventory", "GET /api/inventory", "POST /api/v1/inventory",
               "PATCH /api/v1/inventory/{id}", "POST /api/v1/inventory-levels",
               "GET /api/v1/events", "GET /api/v1/inventory/{id}/history",
               "GET /api/v1/people/{id}/history", "POST /api/v1/webhooks",
               "GET /api/v1/webhooks/{id}/deliveries", "POST /api/v1/return-orders",
               "PATCH /api/v1/return-orders/{id}", "POST /api/v1/warehouses/{id}/receipts",
               "PUT /api/v1/packages/{id}", "POST /api/v1/orders/{id}/shipments",
               "PATCH /api/v1/orders/{id}/shipments/{shipmentId}"}
# A body may name another resource (an item's new holder, a sender, a SKU);
# one the organization lacks is 404 naming that field (the contract), while
# the resource in the path exists. The stateful phase's "created resource not
# found" check cannot tell the two apart: on these operations it is off, and
# the path's own resource is still checked by every other phase (an unknown
# or another organization's id must be 404, a known one must not).
body_refs = {"PATCH /api/v1/inventory/{id}", "PATCH /api/v1/return-orders/{id}",
             "POST /api/v1/new-joiners/{personId}/remind", "PUT /api/v1/packages/{id}",
             "POST /api/v1/orders/{id}/shipments",
             "PATCH /api/v1/orders/{id}/shipments/{shipmentId}",
             "POST /api/v1/warehouses/{id}/receipts"}
def bind(op, params):
    print("[[operations]]")
    print(f'include-name = "{op}"')
    if op in cross_field:
        print("checks.positive_data_acceptance.enabled = false")
    if op in body_refs:
        print("checks.ensure_resource_availability.enabled = false")
    print("parameters = {" + ", ".join(f'"{k}" = {{ dictionary = "{d}", probability = 0.6 }}' for k, d in params.items()) + "}\n")
listing = {"query.personId": "PERSON", "query.warehouseId": "WAREHOUSE", "query.officeId": "OFFICE"}
bind("GET /api/v1/inventory", listing)
bind("GET /api/inventory", listing)
bind("POST /api/v1/inventory", {"body.skuId": "skus", "body.assignedTo.id": "WAREHOUSE"})
bind("GET /api/v1/inventory/{id}", {"path.id": "items"})
bind("PATCH /api/v1/inventory/{id}", {"path.id": "items", "body.assignedTo.id": "PERSON"})
bind("GET /api/v1/warehouses/{id}", {"path.id": "WAREHOUSE"})
bind("POST /api/v1/inventory-levels", {"body.skuId": "skus", "body.warehouseId": "WAREHOUSE"})
bind("DELETE /api/v1/inventory-levels/{id}", {"path.id": "levels"})
bind("POST /api/v1/new-joiners/{personId}/remind", {"path.personId": "joiners", "body.senderPersonId": "PERSON"})
bind("GET /api/v1/new-joiners/{personId}/reminders", {"path.personId": "joiners"})
bind("GET /api/v1/inventory/{id}/history", {"path.id": "items"})
bind("GET /api/v1/people/{id}/history", {"path.id": "PERSON"})
bind("GET /api/v1/events", {"query.subjectId": "items"})
bind("POST /api/v1/webhooks", {})
bind("POST /api/v1/return-orders", {"body.personId": "PERSON"})
bind("PATCH /api/v1/return-orders/{id}", {})
bind("POST /api/v1/warehouses/{id}/receipts", {"path.id": "WAREHOUSE"})
bind("GET /api/v1/webhooks/{id}/deliveries", {})
bind("GET /api/v1/packages/{id}", {"path.id": "packages"})
bind("PUT /api/v1/packages/{id}", {"path.id": "packages"})
bind("GET /api/v1/orders", {"query.personId": "PERSON"})
if orders:
    bind("GET /api/v1/orders/{id}", {"path.id": "orders"})
    bind("POST /api/v1/orders/{id}/shipments", {"path.id": "orders"})
    bind("PATCH /api/v1/orders/{id}/shipments/{shipmentId}", {"path.id": "orders"})
else:
    bind("POST /api/v1/orders/{id}/shipments", {})
    bind("PATCH /api/v1/orders/{id}/shipments/{shipmentId}", {})
PY
# Run from the temporary directory: Schemathesis keeps a cache in its working
# directory. One worker: with several threads, Hypothesis's lambda descriptions
# hit a CPython 3.11 bug ("AST constructor recursion depth mismatch").
(cd "$work" && timeout "${SCHEMATHESIS_TIMEOUT:-600}" "$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" \
  run "$url/openapi.json" \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-100}" \
  --seed "${SCHEMATHESIS_SEED:-20261121}" \
  --workers 1 \
  --generation-database none \
  --no-color \
  --report ndjson --report-dir "$work/report" \
  "$@") >"$work/schemathesis.txt" 2>&1 || status=$?
cat "$work/schemathesis.txt"

# What was sent and answered, per operation (from the NDJSON report).
echo "== responses by operation"
python3 - "$work"/report/*.ndjson <<'PY' || true
import collections, json, sys
counts = collections.defaultdict(collections.Counter)
total = 0
for path in sys.argv[1:]:
    for line in open(path):
        finished = json.loads(line).get("ScenarioFinished")
        if not finished:
            continue
        cases = finished["recorder"].get("cases", {})
        for case_id, interaction in finished["recorder"].get("interactions", {}).items():
            case = cases.get(case_id, {}).get("value", {})
            op = f'{case.get("method", interaction["request"]["method"])} {case.get("path", "?")}'
            response = interaction.get("response")
            counts[op][response["status_code"] if response else "none"] += 1
            total += 1
unsupported = {op: c for op, c in counts.items() if set(c) == {405}}
for op in sorted(set(counts) - set(unsupported)):
    print(f"  {op}: " + ", ".join(f"{s}x{n}" for s, n in sorted(counts[op].items(), key=lambda x: str(x[0]))))
print(f"  methods a path does not take: {sum(sum(c.values()) for c in unsupported.values())} requests, all 405")
print(f"  {total} requests")
PY

if grep -q "internal error\|panicked" "$work/serve.log"; then
  grep -n "internal error\|panicked" "$work/serve.log" | head -20 >&2
  fail "the server logged internal errors"
fi
grep -q -e "$key" -e "$other_key" "$work/serve.log" && fail "a key appears in the server log"
[ "$status" = 0 ] || fail "schemathesis exited with $status"
backend=SQLite; [ -n "$pg_db" ] && backend=PostgreSQL
echo "schemathesis: ok in $(( $(date +%s) - started ))s on $backend"
