"""Group set-up and PATCH timing for scripts/bench-groups.sh.

  groups_bench.py setup BASE AUTH IDS MEMBERS GROUPS WORKDIR
      one group "bench-big" with the first MEMBERS users of IDS (one POST),
      then GROUPS groups "team-<i>" of 3 members each (8 client threads);
      writes WORKDIR/big.id and WORKDIR/groups.ids.
  groups_bench.py patch BASE AUTH IDS MEMBERS ROUNDS BATCH
      ROUNDS times: a new group of the first MEMBERS users, then one PATCH
      adding BATCH users from the rest of IDS, timed; prints
      "PATCH add <median ms> <max ms> <rounds>".
AUTH may be empty."""
import http.client
import json
import statistics
import sys
import threading
import time
import urllib.parse

GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


def conn(base):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=120), u.path


def call(c, method, path, auth, body=None):
    h = {"Content-Type": "application/scim+json"}
    if auth:
        h["Authorization"] = auth
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    data = r.read()
    return r.status, data


def setup(base, auth, ids_file, members, groups, workdir):
    ids = open(ids_file).read().split()
    c, prefix = conn(base)
    body = {"schemas": [GROUP], "displayName": "bench-big",
            "members": [{"value": i} for i in ids[:members]]}
    status, data = call(c, "POST", prefix + "/Groups", auth, body)
    if status != 201:
        sys.exit(f"creating the big group: {status} {data[:300]!r}")
    open(f"{workdir}/big.id", "w").write(json.loads(data)["id"])
    out, lock, errors = [], threading.Lock(), []

    def work(start):
        c, prefix = conn(base)
        for g in range(start, groups, 8):
            body = {"schemas": [GROUP], "displayName": f"team-{g}",
                    "members": [{"value": ids[(g * 3 + k) % len(ids)]} for k in range(3)]}
            for _ in range(5):
                try:
                    status, data = call(c, "POST", prefix + "/Groups", auth, body)
                    break
                except (ConnectionError, http.client.HTTPException):
                    c.close()
                    c, prefix = conn(base)
            else:
                errors.append("connection kept failing")
                return
            if status != 201:
                errors.append(f"{status} {data[:200]!r}")
                return
            with lock:
                out.append(json.loads(data)["id"])

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        sys.exit(f"creating groups: {errors[0]}")
    open(f"{workdir}/groups.ids", "w").write("\n".join(out) + "\n")


def patch(base, auth, ids_file, members, rounds, batch):
    ids = open(ids_file).read().split()
    pool = ids[members:]
    c, prefix = conn(base)
    times = []
    for r in range(rounds):
        # A fresh group of MEMBERS members each round, so every PATCH adds to
        # a group of exactly that size.
        body = {"schemas": [GROUP], "displayName": f"bench-patch-{r}",
                "members": [{"value": i} for i in ids[:members]]}
        status, data = call(c, "POST", prefix + "/Groups?excludedAttributes=members", auth, body)
        if status != 201:
            sys.exit(f"creating a group to patch: {status} {data[:300]!r}")
        group = json.loads(data)["id"]
        start = (r * batch) % max(len(pool) - batch + 1, 1)
        values = [{"value": i} for i in pool[start:start + batch]]
        # As Okta and Entra send it: one op with a value array.
        body = {"schemas": [PATCH_OP],
                "Operations": [{"op": "add", "path": "members", "value": values}]}
        t0 = time.perf_counter()
        status, data = call(c, "PATCH", f"{prefix}/Groups/{group}?excludedAttributes=members", auth, body)
        times.append((time.perf_counter() - t0) * 1000)
        if status not in (200, 204):
            sys.exit(f"PATCH add: {status} {data[:300]!r}")
    print(f"PATCH add {statistics.median(times):.1f} {max(times):.1f} {len(times)}")


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "setup":
        setup(a[0], a[1], a[2], int(a[3]), int(a[4]), a[5])
    elif cmd == "patch":
        patch(a[0], a[1], a[2], int(a[3]), int(a[4]), int(a[5]))
    else:
        sys.exit(f"unknown command {cmd}")
