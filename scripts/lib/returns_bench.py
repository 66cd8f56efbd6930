#!/usr/bin/env python3
"""Data and probes for scripts/bench-returns.sh.

  returns_bench.py document RECEIPT HOLDS > doc.json
      An import document: one warehouse, one SKU; RECEIPT people being
      offboarded, each with one DEPLOYED item (serial RET-n) on a PENDING
      return; HOLDS items UNAVAILABLE PENDING_HOLD_RELEASE at the warehouse
      with unlockDate tomorrow (not due yet; every fifth with itadRequested).
      Prints the warehouse id on standard error.
  returns_bench.py receipt BASE KEY WAREHOUSE RECEIPT
      Sends one receipt of the RECEIPT serials RET-0..; prints its time in ms,
      the HTTP status and the count of each entry status (also of a 503).
  returns_bench.py probe BASE KEY SECONDS OUT
      For SECONDS, one request after another on one kept-alive connection,
      alternating a listing page (GET /api/v1/inventory?size=20) and a SCIM
      user create (a write, which waits for any write lock); writes
      "listing p50 p99 max / scim p50 p99 max" in ms to OUT.
"""
import http.client
import json
import sys
import time
import urllib.parse
import uuid
from datetime import date, timedelta

EXT = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"


def document(receipt, holds, lines=1):
    """`lines` items per leaver, on one return order (a big leaver: every
    entry of the receipt is a line of a `lines`-line order)."""
    warehouse = str(uuid.uuid4())
    sku = str(uuid.uuid4())
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    today = date.today().isoformat()
    people, items = [], []
    person = order = None
    for n in range(receipt):
        if n % lines == 0:
            person, order = str(uuid.uuid4()), str(uuid.uuid4())
            name = f"leaver{n}@bench.example"
            people.append({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
                "id": person, "userName": name,
                "emails": [{"value": name, "type": "work", "primary": True}],
                "active": True, EXT: {"status": "OFFBOARDING"},
            })
        items.append({
            "id": str(uuid.uuid4()), "skuId": sku, "serialNumber": f"RET-{n}",
            "deployStatus": "DEPLOYED", "condition": "USED_GOOD",
            "assignedTo": {"type": "PERSON", "id": person},
            "returnOrder": {
                "id": order, "status": "PENDING",
                "returnOrderItemId": str(uuid.uuid4()), "returnOrderItemStatus": "PENDING",
            },
        })
    for n in range(holds):
        items.append({
            "id": str(uuid.uuid4()), "skuId": sku, "serialNumber": f"HOLD-{n}",
            "deployStatus": "UNAVAILABLE", "deployReason": "PENDING_HOLD_RELEASE",
            "condition": "USED_GOOD", "assignedTo": {"type": "WAREHOUSE", "id": warehouse},
            "holdStartDate": today, "unlockDate": tomorrow, "itadRequested": n % 5 == 0,
        })
    doc = {
        "warehouses": [{"id": warehouse, "name": "Returns desk", "address": None, "shared": False}],
        "skus": [{"id": sku, "title": "ThinkPad X1 Carbon", "categoryCode": "LAPTOP",
                  "categoryName": "Laptops", "vendorCode": "LENOVO", "vendorName": "Lenovo",
                  "vendorSku": "21HM"}],
        "people": people, "inventory": items,
    }
    json.dump(doc, sys.stdout)
    print(warehouse, file=sys.stderr)


def connect(base, timeout=300):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def receipt(base, key, warehouse, n):
    """Prints "<ms> <HTTP status> <entry statuses as JSON>". A 503 at the
    time limit is a result too: the body lists every entry's result when the
    binary answers with them (ReceiptStopped), else the statuses are {}."""
    body = json.dumps({"items": [{"serialNumber": f"RET-{i}"} for i in range(n)]})
    # Longer than the server's --upload-timeout (300 s), so its answer is seen.
    c = connect(base, timeout=900)
    t = time.perf_counter()
    c.request("POST", f"/api/v1/warehouses/{warehouse}/receipts", body,
              {"Authorization": f"ApiKey {key}", "Content-Type": "application/json"})
    r = c.getresponse()
    answer = r.read()
    ms = (time.perf_counter() - t) * 1000
    counts = {}
    try:
        results = json.loads(answer).get("results", [])
    except ValueError:
        results = []
    for e in results:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    print(f"{ms:.0f} {r.status} {json.dumps(counts, separators=(',', ':'))}")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else 0.0


def probe(base, key, seconds, out):
    c = connect(base)
    listing, scim = [], []
    end = time.time() + float(seconds)
    n = 0
    while time.time() < end:
        t = time.perf_counter()
        c.request("GET", "/api/v1/inventory?size=20", headers={"Authorization": f"ApiKey {key}"})
        c.getresponse().read()
        listing.append((time.perf_counter() - t) * 1000)
        name = f"probe{uuid.uuid4().hex[:12]}@bench.example"
        user = json.dumps({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                           "userName": name, "emails": [{"value": name, "primary": True}],
                           "active": True})
        t = time.perf_counter()
        c.request("POST", "/scim/v2/Users", user,
                  {"Authorization": f"Bearer {key}", "Content-Type": "application/scim+json"})
        c.getresponse().read()
        scim.append((time.perf_counter() - t) * 1000)
        n += 1
    with open(out, "w") as f:
        f.write("listing p50 %.1f p99 %.1f max %.1f / scim create p50 %.1f p99 %.1f max %.1f (%d each)\n" % (
            pct(listing, .5), pct(listing, .99), max(listing, default=0),
            pct(scim, .5), pct(scim, .99), max(scim, default=0), n))


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "document":
        document(int(args[0]), int(args[1]), int(args[2]) if len(args) > 2 else 1)
    elif cmd == "receipt":
        receipt(args[0], args[1], args[2], int(args[3]))
    elif cmd == "probe":
        probe(*args)
    else:
        sys.exit(__doc__)
