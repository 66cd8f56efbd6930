#!/usr/bin/env bash
# Smoke test of the real binary, as a new user would try it from a shell:
# create an organization and a key, import the sample file, serve, and read a
# warehouse with curl; a broken import must fail, name the entry and change nothing.
# Uses SQLite by default; pass DATABASE_URL=postgres://... to run on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q -p equip-server --bin equip
bin="${CARGO_TARGET_DIR:-target}/debug/equip"
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export DATABASE_URL="${DATABASE_URL:-$work/equip.db}"
fail() { echo "smoke: FAILED: $*" >&2; exit 1; }

org=$("$bin" org create --name "Smoke Org" 2>/dev/null)
[[ "$org" =~ ^[0-9a-f-]{36}$ ]] || fail "org create printed '$org'"
key=$("$bin" key create --org "$org" 2>/dev/null)
[[ "$key" =~ ^equip_ ]] || fail "key create printed no key"
"$bin" import --org "$org" docs/sample-import.json 2>"$work/import.log" || { cat "$work/import.log" >&2; fail "import of the sample failed"; }

# A broken copy: the second warehouse gets an empty name. It must fail and name it.
python3 - "$work/broken.json" <<'PY'
import json, sys
doc = json.load(open("docs/sample-import.json"))
doc["warehouses"][-1]["name"] = ""
doc["warehouses"][0]["name"] = "SHOULD NOT BE WRITTEN"
json.dump(doc, open(sys.argv[1], "w"))
PY
if "$bin" import --org "$org" "$work/broken.json" 2>"$work/broken.log"; then fail "broken import succeeded"; fi
grep -q "warehouses\[" "$work/broken.log" || { cat "$work/broken.log" >&2; fail "broken import did not name the entry"; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" serve --bind "127.0.0.1:$port" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null || fail "readyz"

wid=$(python3 -c 'import json; print(json.load(open("docs/sample-import.json"))["warehouses"][0]["id"])')
body=$(curl -fsS -H "Authorization: ApiKey $key" "http://127.0.0.1:$port/api/v1/warehouses/$wid") || fail "GET warehouse"
grep -q "\"id\":\"$wid\"" <<<"$body" || fail "warehouse body: $body"
grep -q "SHOULD NOT BE WRITTEN" <<<"$body" && fail "the broken import wrote something"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v1/warehouses/$wid")
[ "$status" = 401 ] || fail "no key gave $status"
grep -q "$key" "$work/serve.log" && fail "the key appears in the server log"
echo "smoke: ok (org, key, import, broken import refused, serve, GET warehouse, 401 without key)"
