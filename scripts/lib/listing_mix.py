#!/usr/bin/env python3
"""The inventory listing mix: URLs as users produce them, and a one-connection
latency run over them.

  listing_mix.py urls BASE KEY N SEED > urls.txt
      Reads a few pages of the organization's inventory and writes N distinct
      listing URLs (paths with query) made from what it found:
        - page 1 to 50, size 100;
        - sortBy one of createdAt, updatedAt, product, serialNumber,
          deployStatus, in either direction (85 % of URLs);
        - one or two deployStatuses (35 %);
        - one or two categories (30 %);
        - a searchString of 3 to 6 characters cut from a real serial number
          or product title (30 %).
  listing_mix.py latency BASE KEY URLS_FILE
      Sends every URL once, in file order, on one kept-alive connection, and
      prints the count, p50, p90, p99 and max in ms, and the non-200 count
      (and the SLOWEST=n slowest URLs with their times).
  listing_mix.py once BASE KEY PATH
      Sends one request and prints its time in ms (the first request after a
      start).
  listing_mix.py deep BASE KEY PAGE REPEAT
      Page PAGE (size 100) in every sort order, REPEAT times each on one
      connection; prints the p50 per order in ms.
"""
import http.client
import os
import random
import sys
import time
import urllib.parse

SORTS = ["createdAt", "updatedAt", "product", "serialNumber", "deployStatus"]
STATUSES = ["AVAILABLE", "DEPLOYED", "UNAVAILABLE", "ARCHIVED", "AWAITING_ARRIVAL", "ON_HOLD"]


def connect(base):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=60)


def get(conn, key, path):
    conn.request("GET", path, headers={"Authorization": f"ApiKey {key}"})
    resp = conn.getresponse()
    body = resp.read()
    return resp.status, body


def harvest(base, key):
    import json
    conn = connect(base)
    serials, titles, categories = [], [], set()
    status, body = get(conn, key, "/api/v1/inventory?size=1")
    total = json.loads(body)["pagination"]["totalPages"] if status == 200 else 1
    rng = random.Random(1)
    for page in sorted({rng.randint(1, max(1, total // 100)) for _ in range(12)} | {1}):
        status, body = get(conn, key, f"/api/v1/inventory?size=100&page={page}")
        if status != 200:
            continue
        for item in json.loads(body)["data"]:
            if item.get("serialNumber"):
                serials.append(item["serialNumber"])
            if item.get("skuTitle"):
                titles.append(item["skuTitle"])
            if item.get("categoryCode"):
                categories.add(item["categoryCode"])
    return serials, titles, sorted(categories)


def make_urls(base, key, n, seed):
    serials, titles, categories = harvest(base, key)
    rng = random.Random(seed)
    urls = set()
    while len(urls) < n:
        q = [("size", "100"), ("page", str(rng.randint(1, 50)))]
        if rng.random() < 0.85:
            q.append(("sortBy", rng.choice(SORTS)))
            q.append(("sortDirection", rng.choice(["ASC", "DESC"])))
        if rng.random() < 0.35:
            for s in rng.sample(STATUSES, rng.randint(1, 2)):
                q.append(("deployStatuses", s))
        if categories and rng.random() < 0.30:
            for c in rng.sample(categories, min(len(categories), rng.randint(1, 2))):
                q.append(("categories", c))
        if rng.random() < 0.30:
            source = rng.choice(serials if rng.random() < 0.5 and serials else titles or serials)
            length = rng.randint(3, 6)
            start = rng.randint(0, max(0, len(source) - length))
            q.append(("searchString", source[start:start + length]))
        urls.add("/api/v1/inventory?" + urllib.parse.urlencode(q))
    out = sorted(urls)
    rng.shuffle(out)
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def latency(base, key, path_file):
    paths = [line.strip() for line in open(path_file) if line.strip()]
    conn = connect(base)
    times, bad = [], 0
    for path in paths:
        t = time.perf_counter()
        status, _ = get(conn, key, path)
        times.append((time.perf_counter() - t) * 1000)
        bad += status != 200
    print(f"n={len(times)} p50={pct(times, 50):.1f} p90={pct(times, 90):.1f} "
          f"p99={pct(times, 99):.1f} max={max(times):.1f} ms non200={bad}")
    slowest = int(os.environ.get("SLOWEST", "0"))
    for ms, path in sorted(zip(times, paths), reverse=True)[:slowest]:
        print(f"  {ms:8.1f} ms  {path}")


def deep(base, key, page, repeat):
    conn = connect(base)
    parts = []
    for sort in SORTS + ["skuId", "category", "condition", "assignee", "renewalDate"]:
        for direction in ["ASC", "DESC"]:
            path = f"/api/v1/inventory?size=100&page={page}&sortBy={sort}&sortDirection={direction}"
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                status, _ = get(conn, key, path)
                times.append((time.perf_counter() - t) * 1000)
            parts.append(f"{sort}/{direction}={pct(times, 50):.0f}{'' if status == 200 else '!' + str(status)}")
    print("page", page, "p50 ms:", " ".join(parts))


def main():
    cmd = sys.argv[1]
    if cmd == "urls":
        for url in make_urls(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])):
            print(url)
    elif cmd == "latency":
        latency(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "once":
        conn = connect(sys.argv[2])
        t = time.perf_counter()
        status, _ = get(conn, sys.argv[3], sys.argv[4])
        print(f"{(time.perf_counter() - t) * 1000:.0f} ms (status {status})")
    elif cmd == "deep":
        deep(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
