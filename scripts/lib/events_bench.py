#!/usr/bin/env python3
"""Helpers of scripts/bench-events.sh (standard library only).

  events_bench.py ids BASE KEY > ids.txt
      Pages through GET /api/v1/inventory (size 1000) and prints every item id
      of the organization, one a line, shuffled with a fixed seed (so the
      PATCH workload does not walk the table in creation order).
  events_bench.py feed BASE KEY LABEL
      Follows GET /api/v1/events?size=1000&after=... from the start of the
      feed to its end (the first empty page) on one kept-alive connection and
      prints a Markdown table row:
        | LABEL | events | pages | seconds | events/s | client share |
      "client share" is the part of the wall time spent in this client
      parsing JSON (the rest is the request, equip and the database). It
      checks that sequences strictly increase and that no page is an error;
      it exits non-zero otherwise.
"""
import http.client
import json
import random
import sys
import time
import urllib.parse


def connect(base):
    u = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=120)


def get(conn, path, key):
    conn.request("GET", path, headers={"Authorization": f"ApiKey {key}"})
    resp = conn.getresponse()
    body = resp.read()
    if resp.status != 200:
        sys.exit(f"events_bench: GET {path} answered {resp.status}: {body[:300]!r}")
    return body


def ids(base, key):
    conn = connect(base)
    out, page = [], 1
    while True:
        body = json.loads(get(conn, f"/api/v1/inventory?size=1000&page={page}", key))
        data = body["data"]
        out.extend(item["id"] for item in data)
        if len(data) < 1000:
            break
        page += 1
    random.Random(17).shuffle(out)
    print("\n".join(out))


def feed(base, key, label):
    conn = connect(base)
    events = pages = 0
    last = None
    after = None
    parse = 0.0
    start = time.perf_counter()
    while True:
        path = "/api/v1/events?size=1000"
        if after is not None:
            path += "&after=" + urllib.parse.quote(after, safe="")
        raw = get(conn, path, key)
        t = time.perf_counter()
        body = json.loads(raw)
        data = body["data"]
        for e in data:
            if last is not None and e["sequence"] <= last:
                sys.exit(f"events_bench: sequence {e['sequence']} after {last}")
            last = e["sequence"]
        parse += time.perf_counter() - t
        pages += 1
        if not data:
            break
        events += len(data)
        after = body["next"]
    secs = time.perf_counter() - start
    print(f"| {label} | {events:,} | {pages} | {secs:.2f} | {events / secs:,.0f} | {parse / secs:.0%} |")


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "ids" and len(sys.argv) == 4:
        ids(sys.argv[2], sys.argv[3])
    elif cmd == "feed" and len(sys.argv) == 5:
        feed(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
