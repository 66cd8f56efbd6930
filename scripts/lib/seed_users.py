"""Seeds N users into a SCIM server with 16 client threads; prints their ids,
one a line, in the order of their numbers (user<i>@bench.example).
Usage: seed_users.py BASE_URL AUTH_HEADER N   (AUTH_HEADER may be empty)."""
import http.client
import json
import sys
import threading
import urllib.parse

base, auth, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
u = urllib.parse.urlparse(base)
ids, lock, errors = {}, threading.Lock(), []


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
        for _ in range(5):
            try:
                c.request("POST", u.path + "/Users", body, h)
                r = c.getresponse()
                data = r.read()
                break
            except (ConnectionError, http.client.HTTPException):
                # scim2-server's development server drops kept-alive connections now and then.
                c.close()
                c = http.client.HTTPConnection(u.hostname, u.port)
        else:
            errors.append("connection kept failing")
            return
        if r.status != 201:
            errors.append(f"{r.status} {data[:200]!r}")
            return
        with lock:
            ids[i] = json.loads(data)["id"]


threads = [threading.Thread(target=work, args=(s,)) for s in range(16)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if errors:
    sys.exit(f"seeding failed: {errors[0]}")
print("\n".join(ids[i] for i in range(n)))
