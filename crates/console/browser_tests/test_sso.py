"""Single sign-on in the console (issue 37), in a real Chromium, against a real
OpenID provider (scripts/oidc-provider.sh: npm `oidc-provider` with test
accounts and hooks) and real `equip serve` processes, on each backend.

One provider serves the whole module; per backend, the fixture `sso` starts two
more `equip serve` on the database of the `server` fixture (one plain, one with
a 4-second idle timeout), registers one client at the provider with the
callback of each, and configures the demo organization with `equip org sso set`
and its groups with `equip org sso role`. Each test has its own browser
context: its own cookies, at equip and at the provider.

Cookies do not tell ports apart: every `equip serve` here is on 127.0.0.1, so
a session made on one is sent to the others (as to instances behind one
name), and the provider's cookies sit beside equip's.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import DESKTOP, Console, run_equip, start_equip
from test_console import HEADER as CSV_HEADER
from test_console import accessible

ROOT = Path(__file__).resolve().parents[3]
PROVIDER_SCRIPT = ROOT / "scripts" / "oidc-provider.sh"
IN_CI = os.environ.get("CI") == "true" or os.environ.get("EQUIP_REQUIRE_NODE") == "1"
IDLE_SECONDS = 4

# The provider's default accounts (scripts/oidc-provider/accounts.json).
ADMIN = {"login": "admin", "password": "admin", "sub": "admin-sub", "email": "admin@example.com"}
READER = {"login": "reader", "password": "reader", "sub": "reader-sub", "email": "reader@example.com"}
NOBODY = {"login": "nobody", "password": "nobody", "sub": "nobody-sub", "email": "nobody@example.com"}

SESSION_COOKIE = "equip_session"
CSRF_DETAIL = "a request signed in with a session must carry the X-Equip-CSRF header"


# --------------------------------------------------------------------------
# The provider and the organization's configuration


@dataclass
class Provider:
    issuer: str
    proc: subprocess.Popen
    log: list = field(default_factory=list)

    def hook(self, name: str) -> None:
        """A test hook of the provider (`POST {issuer}/__test/<name>`)."""
        req = urllib.request.Request(f"{self.issuer}/__test/{name}", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=10) as res:
            assert res.status == 204, res.status


@pytest.fixture(scope="module")
def provider():
    """The test OpenID provider, once for the module (its issuer from its
    first stdout line). Without node and npm: skipped, except in CI."""
    missing = [tool for tool in ("node", "npm", "bash") if not shutil.which(tool)]
    if missing or not PROVIDER_SCRIPT.exists():
        what = f"{', '.join(missing)} missing" if missing else f"{PROVIDER_SCRIPT} missing"
        if IN_CI:
            pytest.fail(f"the SSO tests need the test OpenID provider ({what}); CI requires them")
        pytest.skip(f"the SSO tests need the test OpenID provider ({what}: apt-get install nodejs npm)")
    proc = subprocess.Popen(
        ["bash", str(PROVIDER_SCRIPT)],
        env=dict(os.environ, OIDC_PORT="0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(proc.stderr), daemon=True).start()
    first: list[str] = []
    reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()), daemon=True)
    reader.start()
    # The first run installs the provider's npm dependencies (npm ci).
    reader.join(300)
    issuer = (first[0] if first else "").strip()
    if not issuer.startswith("http://127.0.0.1:"):
        proc.kill()
        pytest.fail(f"the test OpenID provider did not start (first line {issuer!r}):\n" + "".join(log))
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    yield Provider(issuer, proc, log)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@dataclass
class Sso:
    """The demo organization signing in through the provider, served by the
    `server` fixture's equip (`a`), a second instance on the same database
    (`b`) and a third whose sessions end after IDLE_SECONDS idle (`short`)."""

    server: object
    provider: Provider
    a: str
    b: str
    short: str
    client_id: str
    cookies: list = field(default_factory=list)
    logs: list = field(default_factory=list)

    @property
    def org(self) -> str:
        return self.server.org

    def equip(self, *args: str) -> subprocess.CompletedProcess:
        return run_equip(self.server.database_url, *args)


def register_client(issuer: str, redirect_uris: list[str]) -> dict:
    """A client of the provider (open dynamic registration)."""
    body = json.dumps(
        {
            "redirect_uris": redirect_uris,
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "client_name": "equip console tests",
        }
    ).encode()
    req = urllib.request.Request(f"{issuer}/reg", data=body, method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        assert res.status == 201, res.status
        return json.load(res)


@pytest.fixture(scope="module")
def sso(server, provider):
    workdir = Path(tempfile.mkdtemp(prefix=f"equip-sso-{server.backend}-"))
    b = start_equip(server.database_url, workdir)
    short = start_equip(server.database_url, workdir, "--session-idle-timeout", f"{IDLE_SECONDS}s")
    bases = [server.base, b.base, short.base]
    client = register_client(provider.issuer, [f"{base}/sso/callback" for base in bases])
    secret = workdir / "client-secret"
    secret.write_text(client["client_secret"] + "\n", encoding="utf-8")
    secret.chmod(0o600)
    org = server.org
    done = run_equip(
        server.database_url,
        "org", "sso", "set", "--org", org, "--issuer", provider.issuer,
        "--client-id", client["client_id"], "--client-secret-file", str(secret),
    )  # fmt: skip
    assert client["client_secret"] not in done.stdout + done.stderr, "the secret is never printed"
    run_equip(server.database_url, "org", "sso", "role", "--org", org, "--group", "IT Admins", "--all-scopes")
    run_equip(server.database_url, "org", "sso", "role", "--org", org, "--group", "Inventory Readers", "--scope", "inventory:read")
    state = Sso(server=server, provider=provider, a=server.base, b=b.base, short=short.base, client_id=client["client_id"])
    state.logs = [server.log, b.log, short.log]
    yield state
    run_equip(server.database_url, "org", "sso", "clear", "--org", org)
    b.stop()
    short.stop()
    # Neither a session's token nor the client secret ever appears in a log.
    text = "".join("".join(log) for log in state.logs) + "".join(provider.log)
    for token in state.cookies:
        assert token not in text, "a session token appears in a log"
    assert client["client_secret"] not in "".join("".join(log) for log in state.logs), "the client secret appears in equip's log"
    shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------
# Browser helpers


@pytest.fixture
def tab(sso, browser):
    """A fresh browser context (no cookie at equip nor at the provider), its
    tab watched like the key tests' (script errors, keys in URLs)."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB", timezone_id="UTC")
    page = context.new_page()
    page.set_default_timeout(15_000)
    c = Console(sso.server, page)
    yield c
    for cookie in context.cookies():
        if cookie["name"] == SESSION_COOKIE:
            sso.cookies.append(cookie["value"])
    context.close()
    assert not c.problems, "\n".join(c.problems)


def session_cookie(page) -> dict | None:
    return next((c for c in page.context.cookies() if c["name"] == SESSION_COOKIE), None)


def remember_cookie(sso, page) -> dict:
    cookie = session_cookie(page)
    assert cookie, "signed in: the browser holds the session cookie"
    sso.cookies.append(cookie["value"])
    return cookie


def go_to_provider(sso, page, base: str, view: str = ""):
    """The sign-in screen at `base` (at `view`, a fragment), the organization
    from the link (`?org=`), on to the provider."""
    page.goto(f"{base}/console/?org={sso.org}{view}")
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(page.get_by_label("Organization id")).to_have_value(sso.org)
    page.get_by_role("button", name="Continue to your identity provider").click()


def log_in_at_provider(sso, page, account: dict, base: str):
    """The provider's login page (unless the provider still knows this
    browser, when it sends it straight back): `login`, `password`, Sign in."""
    page.wait_for_url(lambda url: not url.startswith(f"{base}/console/?org="))
    if page.url.startswith(sso.provider.issuer + "/interaction/"):
        page.locator("input[name=login]").fill(account["login"])
        page.locator("input[name=password]").fill(account["password"])
        page.get_by_role("button", name="Sign in").click()


def sso_sign_in(sso, page, account: dict, base: str | None = None, view: str = ""):
    """Signs `account` in at `base` (default: the `server` fixture's equip),
    starting at `view`; answers the URL of the callback the provider sent the
    browser to."""
    callbacks: list[str] = []
    listener = lambda req: callbacks.append(req.url) if "/sso/callback?" in req.url and req.is_navigation_request() else None  # noqa: E731
    page.on("request", listener)
    go_to_provider(sso, page, base or sso.a, view)
    log_in_at_provider(sso, page, account, base or sso.a)
    page.locator("#session").wait_for(state="visible")
    page.remove_listener("request", listener)
    assert callbacks, "the provider sent the browser to equip's callback"
    return callbacks[-1]


def refused_sign_in(sso, page, account: dict):
    """Signs `account` in and answers the callback's status and page (a refusal)."""
    answers: list = []
    page.on("response", lambda r: answers.append(r) if "/sso/callback" in r.url else None)
    go_to_provider(sso, page, sso.a)
    log_in_at_provider(sso, page, account, sso.a)
    page.wait_for_url(re.compile(r"/sso/callback\?"))
    page.wait_for_load_state()
    assert answers, "the browser reached equip's callback"
    return answers[-1]


def page_fetch(page, path: str, method: str = "GET", headers: dict | None = None, body=None) -> dict:
    """A request from the page's own origin with its cookies (as the console's)."""
    return page.evaluate(
        """async ([path, method, headers, body]) => {
            const r = await fetch(path, {method, headers, credentials: "same-origin", body: body === null ? undefined : JSON.stringify(body)});
            const text = await r.text();
            let json = null;
            try { json = JSON.parse(text); } catch {}
            return {status: r.status, json, text, acao: r.headers.get("access-control-allow-origin")};
        }""",
        [path, method, headers or {}, body],
    )


def session_status(page, base: str) -> int:
    """`GET /sso/session` with the browser's cookies (from outside the page:
    equip's refusal pages allow no script to connect anywhere)."""
    return page.context.request.get(f"{base}/sso/session").status


def raw(method: str, url: str, headers: dict | None = None, body: bytes | None = None):
    """A request outside the browser: (status, headers, text)."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=15) as res:
            return res.status, res.headers, res.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def with_cookie(url: str, cookie: dict, method: str = "GET"):
    return raw(method, url, {"Cookie": f"{SESSION_COOKIE}={cookie['value']}", "Accept": "application/json"})


def free_item(server) -> dict:
    """An available item held by a warehouse that no other test took."""
    status, answer = server.api("GET", "/api/v1/inventory", query={"deployStatuses": "AVAILABLE", "sortBy": "serialNumber", "sortDirection": "DESC", "size": "200"})
    assert status == 200
    taken = getattr(server, "_taken", set())
    for item in answer["data"]:
        if item["serialNumber"] and item["assignedTo"] and item["assignedTo"]["type"] == "WAREHOUSE" and item["id"] not in taken:
            taken.add(item["id"])
            server._taken = taken
            return item
    raise AssertionError("the demo data has free items")


def sessions(sso) -> list[dict]:
    """`equip org sso sessions --org ORG --json`: the live sessions."""
    listed = json.loads(sso.equip("org", "sso", "sessions", "--org", sso.org, "--json").stdout)
    return listed["sessions"] if isinstance(listed, dict) else listed


# --------------------------------------------------------------------------
# The tests


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_the_sign_in_link_sends_the_browser_to_the_provider(sso):
    """`GET /sso/{org}/login`: 303 to the provider's authorization endpoint
    with PKCE, the attempt bound to the browser by a Lax cookie on the
    callback's path; an organization without SSO is a 404 page."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(f"{sso.a}/sso/{sso.org}/login?next=/console/%23/levels", timeout=10)
        raise AssertionError("a redirect was expected")
    except urllib.error.HTTPError as e:
        assert e.code == 303, e.code
        location, cookies = e.headers["Location"], e.headers.get_all("Set-Cookie")
    target = urllib.parse.urlparse(location)
    query = dict(urllib.parse.parse_qsl(target.query))
    assert location.startswith(sso.provider.issuer + "/"), location
    assert query["response_type"] == "code" and query["client_id"] == sso.client_id
    assert query["redirect_uri"] == f"{sso.a}/sso/callback"
    assert set(query["scope"].split()) >= {"openid", "email", "profile", "groups"}
    assert query["state"] and query["nonce"] and query["code_challenge"] and query["code_challenge_method"] == "S256"
    state = next(c for c in cookies if c.startswith("equip_sso_state="))
    attributes = {a.strip().split("=")[0].lower(): a.strip() for a in state.split(";")[1:]}
    assert "httponly" in attributes and attributes["samesite"].lower() == "samesite=lax" and attributes["path"] == "Path=/sso/callback", state
    status, headers, text = raw("GET", f"{sso.a}/sso/{uuid.uuid4()}/login")
    assert status == 404 and headers["Content-Type"].startswith("text/html"), (status, text[:200])


def test_an_admin_signs_in_and_a_change_is_theirs(sso, tab):
    page = tab.page
    # The organization id is checked before leaving equip.
    page.goto(f"{sso.a}/console/")
    box = page.get_by_label("Organization id")
    expect(box).to_have_value("")
    box.fill("acme")
    page.get_by_role("button", name="Continue to your identity provider").click()
    expect(page.locator("#sso-form .error")).to_contain_text("not an organization id")
    expect(box).to_have_attribute("aria-invalid", "true")
    assert "/sso/" not in page.url
    accessible(tab, "sign-in with single sign-on")

    requests: list = []
    page.on("request", lambda r: requests.append(r) if "/api/v1/" in r.url or "/scim/v2/" in r.url else None)
    sso_sign_in(sso, page, ADMIN)
    cookie = remember_cookie(sso, page)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    # The organization is remembered for the next sign-in; no key anywhere.
    assert page.evaluate("localStorage.getItem('equip.ssoOrg')") == sso.org
    assert page.evaluate("sessionStorage.getItem('equip.key')") is None
    expect(tab.heading()).to_have_text("Overview")
    expect(page.locator("#key-summary")).to_have_text(ADMIN["email"])
    for area in ["Inventory", "People", "CSV upload", "Warehouses", "Inventory levels"]:
        expect(page.get_by_role("link", name=area, exact=True)).to_be_visible()
    page.locator("#key-summary").click()
    expect(page.locator("#key-label")).to_contain_text(ADMIN["email"])
    _, all_key = sso.server.api("GET", "/api/v1/api-key")
    assert sorted(page.locator("#key-scopes li").all_inner_texts()) == sorted(all_key["scopes"])
    page.locator("#key-summary").click()
    accessible(tab, "overview, signed in with a session")
    # The session is no API key.
    assert page_fetch(page, "/api/v1/api-key")["status"] == 404
    page.get_by_role("link", name="People", exact=True).click()
    expect(page.locator("#result-count")).to_be_visible()
    page.get_by_role("link", name="Inventory", exact=True).click()
    expect(page.locator("#result-count")).to_be_visible()

    # A change in the console is the person's.
    item = free_item(sso.server)
    tab.go(f"#/inventory/{item['id']}")
    form = page.locator("#status-form")
    expect(form).to_be_visible()
    form.locator("#change-status").select_option("UNAVAILABLE")
    form.locator("#change-reason").select_option("REQUIRES_REPAIR")
    form.locator("#change-condition").select_option("USED_FAIR")
    form.get_by_role("button", name="Save status and condition").click()
    expect(page.locator(".item-message .notice")).to_contain_text("Status Available → Unavailable")
    first = page.locator(".history > li").first
    expect(first).to_contain_text("Item changed")
    expect(first).to_contain_text(f"by {ADMIN['email']}")
    status, feed = sso.server.api("GET", "/api/v1/events", query={"subjectId": item["id"], "size": "1000"})
    assert status == 200
    changed = [e for e in feed["data"] if e["type"] == "inventory.item.updated"]
    assert changed and changed[-1]["actor"] == {"type": "PERSON", "subject": ADMIN["sub"], "email": ADMIN["email"]}, changed[-1:]

    # Every request went with the cookie alone: no Authorization header, and
    # the header X-Equip-CSRF on the write.
    assert requests
    for r in requests:
        headers = r.all_headers()
        assert "authorization" not in headers, r.url
        if r.method not in ("GET", "HEAD"):
            assert headers.get("x-equip-csrf") == "1", r.url
    assert any(r.method == "PATCH" for r in requests)


def test_a_reader_gets_only_what_inventory_read_allows(sso, tab):
    page = tab.page
    sso_sign_in(sso, page, READER)
    remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("Overview")
    expect(page.locator("#key-summary")).to_have_text(READER["email"])
    assert page_fetch(page, "/sso/session")["json"]["scopes"] == ["inventory:read"]
    page.locator("#key-summary").click()
    assert page.locator("#key-scopes li").all_inner_texts() == ["inventory:read"]
    expect(page.locator("#scopes-title")).to_have_text("Scopes your groups give you:")
    page.locator("#key-summary").click()
    expect(page.get_by_role("link", name="Inventory", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Inventory levels", exact=True)).to_be_visible()
    for area in ["People", "CSV upload", "Warehouses", "Returns", "Orders"]:
        expect(page.get_by_role("link", name=area, exact=True)).to_be_hidden()
    page.get_by_role("link", name="Inventory levels", exact=True).click()
    expect(page.locator(".count")).to_be_visible()
    expect(page.locator("button[data-level]")).to_have_count(0)
    tab.go("#/people")
    expect(tab.heading()).to_have_text("Not available to you")
    expect(page.locator("main")).to_contain_text("needs the scope people:read or scim")
    tab.go("#/inventory")
    expect(page.locator("#result-count")).to_be_visible()
    expect(page.locator("input.select-item")).to_have_count(0)
    page.locator("a.item-link").first.click()
    expect(page.get_by_role("heading", name="History")).to_have_count(0)
    expect(page.locator("#status-form")).to_have_count(0)
    # The API decides too: a write the console does not offer is refused.
    item = free_item(sso.server)
    answer = page_fetch(page, f"/api/v1/inventory/{item['id']}", "PATCH", {"Content-Type": "application/json", "X-Equip-CSRF": "1"}, {"description": "reader"})
    assert answer["status"] == 403, answer


def test_someone_whose_groups_are_not_mapped_is_refused(sso, tab):
    page = tab.page
    answer = refused_sign_in(sso, page, NOBODY)
    assert answer.status == 403
    assert answer.headers["content-type"].startswith("text/html")
    expect(page.get_by_role("heading", name="Your groups do not give you access to equip")).to_be_visible()
    body = page.locator("body")
    expect(body).to_contain_text(NOBODY["email"])
    expect(body).to_contain_text("equip org sso role")
    assert session_cookie(page) is None
    assert session_status(page, sso.a) == 401
    # The page links back to the console, which offers the sign-in again.
    page.locator("a[href='/console/']").first.click()
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()


def test_a_tampered_id_token_is_refused(sso, tab):
    page = tab.page
    sso.provider.hook("tamper-next-id-token")
    answer = refused_sign_in(sso, page, ADMIN)
    assert answer.status == 401
    assert answer.headers["content-type"].startswith("text/html")
    expect(page.get_by_role("heading", name="The identity provider's answer could not be verified")).to_be_visible()
    assert session_cookie(page) is None
    assert session_status(page, sso.a) == 401


def test_a_callback_is_used_once(sso, tab, browser):
    page = tab.page
    callback = sso_sign_in(sso, page, ADMIN)
    remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("Overview")
    response = page.goto(callback)
    assert response.status == 400
    expect(page.get_by_role("heading", name="This sign-in link was already used or has expired")).to_be_visible()
    # Nor in another browser, which never started this sign-in.
    other = browser.new_context(viewport=DESKTOP)
    try:
        stranger = other.new_page()
        response = stranger.goto(callback)
        assert response.status == 400
        assert not [c for c in other.cookies() if c["name"] == SESSION_COOKIE]
    finally:
        other.close()


def test_an_idle_session_ends_and_a_revoked_one_at_once(sso, tab):
    page = tab.page
    # Idle past the timeout: the next screen is refused and the console says
    # so. (equip records a session's last use at most once a minute, so a
    # timeout of seconds also ends a session in use: the first screen is not
    # waited for.)
    sso_sign_in(sso, page, ADMIN, sso.short)
    remember_cookie(sso, page)
    time.sleep(IDLE_SECONDS + 1.5)
    tab.go("#/inventory")
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(page.locator(".notice")).to_contain_text("401")
    # And a reload after the timeout opens the sign-in.
    sso_sign_in(sso, page, ADMIN, sso.short)
    remember_cookie(sso, page)
    time.sleep(IDLE_SECONDS + 1.5)
    page.reload()
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    assert session_status(page, sso.short) == 401

    # (Each instance judges idleness by its own --session-idle-timeout: the
    # other instances, at 8 hours, would still take that session.)
    page.context.clear_cookies(name=SESSION_COOKIE)

    # A live session the operator revokes (`equip org sso sessions --revoke`).
    sso_sign_in(sso, page, ADMIN)
    cookie = remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("Overview")
    me = page_fetch(page, "/sso/session")["json"]
    live = [s for s in sessions(sso) if s.get("email") == ADMIN["email"]]
    assert live, "the session is listed"
    for s in live:
        assert s["subject"] == ADMIN["sub"]
        assert cookie["value"] not in json.dumps(s), "the listing never shows the cookie"
        assert re.fullmatch(r"[0-9a-f-]{36}", s["id"]), s
    assert me["email"] == ADMIN["email"]
    page.wait_for_load_state("networkidle")
    for s in live:
        sso.equip("org", "sso", "sessions", "--org", sso.org, "--revoke", s["id"])
    page.get_by_role("link", name="People", exact=True).click()
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(page.locator(".notice")).to_contain_text("401")
    assert with_cookie(f"{sso.a}/sso/session", cookie)[0] == 401

    # `--revoke-all` ends every session of the organization.
    sso_sign_in(sso, page, ADMIN)
    cookie = remember_cookie(sso, page)
    assert with_cookie(f"{sso.a}/api/v1/inventory?size=1", cookie)[0] == 200
    sso.equip("org", "sso", "sessions", "--org", sso.org, "--revoke-all")
    assert with_cookie(f"{sso.a}/api/v1/inventory?size=1", cookie)[0] == 401
    assert not [s for s in sessions(sso) if s.get("email") == ADMIN["email"]]


class _Attacker(http.server.BaseHTTPRequestHandler):
    """Serves `self.server.html` at /cats.html, a quiet page elsewhere."""

    def do_GET(self):
        page = self.server.html if self.path.startswith("/cats.html") else '<!doctype html><html lang="en"><title>Dogs</title><p>Dogs.</p></html>'
        body = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _attack_page(target: str, serial: str, sku: str) -> str:
    """A form that posts itself to `target` as soon as it loads: text/plain,
    shaped so that its body reads as JSON (the classic trick)."""
    name = json.dumps({"skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW", "serialNumber": serial, "description": "x"})[:-3]
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cute cats</title></head>
<body><form id="f" method="POST" action="{target}" enctype="text/plain"><input type="hidden" name='{name}' value='"}}'></form>
<script>document.getElementById("f").submit();</script></body></html>"""


def test_a_cross_site_request_is_refused(sso, tab):
    page = tab.page
    # Signing in from a view comes back to it (`next`).
    sso_sign_in(sso, page, ADMIN, view="#/warehouses")
    remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("Warehouses")
    assert page.url.endswith("/console/#/warehouses"), page.url
    sku = sso.server.api("GET", "/api/v1/inventory", query={"size": "1"})[1]["data"][0]["skuId"]

    # From the console's own page, with the session but without the header.
    item = free_item(sso.server)
    bare = page_fetch(page, f"/api/v1/inventory/{item['id']}", "PATCH", {"Content-Type": "application/json"}, {"description": "no header"})
    assert bare["status"] == 403 and CSRF_DETAIL in bare["text"], bare
    serial = f"CSRF-{uuid.uuid4().hex[:10]}"
    posted = page_fetch(page, "/api/v1/inventory", "POST", {"Content-Type": "application/json"}, {"skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW", "serialNumber": serial})
    assert posted["status"] == 403 and CSRF_DETAIL in posted["text"], posted
    # With it, the same write is the person's.
    ok = page_fetch(page, f"/api/v1/inventory/{item['id']}", "PATCH", {"Content-Type": "application/json", "X-Equip-CSRF": "1"}, {"description": "with the header"})
    assert ok["status"] == 200, ok
    assert sso.server.api("GET", f"/api/v1/inventory/{item['id']}")[1]["description"] == "with the header"

    # From other pages: a site of its own (localhost) and another origin of
    # the same site (127.0.0.1, another port: SameSite lets the cookie go).
    html_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    threading.Thread(target=html_server.serve_forever, daemon=True).start()
    port = html_server.server_address[1]
    evil = page.context.new_page()
    try:
        # Cross-site, the browser keeps the SameSite=Strict cookie to itself
        # (401); same-site, it sends it, and the missing header is refused (403).
        for origin, refusal in ((f"http://localhost:{port}", 401), (f"http://127.0.0.1:{port}", 403)):
            serial = f"CSRF-{uuid.uuid4().hex[:10]}"
            html_server.html = _attack_page(f"{sso.a}/api/v1/inventory", serial, sku)
            with evil.expect_response(lambda r: r.url == f"{sso.a}/api/v1/inventory" and r.request.method == "POST") as info:
                evil.goto(f"{origin}/cats.html")
            response = info.value
            assert response.status == refusal, (origin, response.status)
            assert not [h for h in response.headers if h.startswith("access-control-allow")], (origin, response.headers)
            # A script of that page may not read equip's answers, with or without cookies.
            evil.goto(f"{origin}/dogs.html")
            blocked = evil.evaluate(
                """async ([url, body]) => {
                    try {
                        const r = await fetch(url, {method: "POST", credentials: "include", headers: {"Content-Type": "application/json", "X-Equip-CSRF": "1"}, body});
                        return "read " + r.status;
                    } catch (e) { return "blocked"; }
                }""",
                [f"{sso.a}/api/v1/inventory", json.dumps({"skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW", "serialNumber": serial})],
            )
            assert blocked == "blocked", origin
            status, found = sso.server.api("GET", "/api/v1/inventory", query={"searchString": serial})
            assert status == 200 and found["pagination"]["totalRecords"] == 0, (origin, found)
    finally:
        evil.close()
        html_server.shutdown()
    # equip answers a preflight with no CORS at all.
    status, headers, _ = raw(
        "OPTIONS",
        f"{sso.a}/api/v1/inventory",
        {"Origin": f"http://localhost:{port}", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-equip-csrf"},
    )
    assert not [h for h in headers if h.lower().startswith("access-control-allow")], (status, dict(headers))


def test_signing_out_on_one_instance_ends_the_session_on_another(sso, tab):
    page = tab.page
    sso_sign_in(sso, page, ADMIN)
    cookie = remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("Overview")
    # The same browser at the second instance: signed in (the cookie is the host's).
    other = page.context.new_page()
    other.goto(f"{sso.b}/console/")
    expect(other.locator("#view-title")).to_have_text("Overview")
    expect(other.locator("#key-summary")).to_have_text(ADMIN["email"])
    assert with_cookie(f"{sso.b}/api/v1/inventory?size=1", cookie)[0] == 200
    other.wait_for_load_state("networkidle")
    # Sign out on A.
    logout: list = []
    page.on("request", lambda r: logout.append(r) if r.url.endswith("/sso/logout") else None)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(page.locator(".notice")).to_contain_text("Signed out")
    assert logout and logout[0].method == "POST" and logout[0].all_headers().get("x-equip-csrf") == "1"
    assert session_cookie(page) is None, "the cookie is cleared"
    # B refuses the same cookie at once, from a client...
    assert with_cookie(f"{sso.b}/api/v1/inventory?size=1", cookie)[0] == 401
    assert with_cookie(f"{sso.b}/sso/session", cookie)[0] == 401
    # ...and from the browser, whose console at B signs out.
    page.context.add_cookies([{k: cookie[k] for k in ("name", "value", "domain", "path", "httpOnly", "secure", "sameSite")}])
    other.get_by_role("link", name="People", exact=True).click()
    expect(other.get_by_role("heading", name="Sign in to equip")).to_be_visible()
    expect(other.locator(".notice")).to_contain_text("401")
    other.close()


def test_a_csv_upload_goes_with_the_session(sso, tab, tmp_path):
    """The upload (XMLHttpRequest, for its progress) carries the cookie and
    X-Equip-CSRF, not a key; the people it creates are the person's doing."""
    page = tab.page
    sso_sign_in(sso, page, ADMIN, view="#/upload")
    remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("CSV upload")
    email = f"sso.{uuid.uuid4().hex[:8]}@console.example"
    file = tmp_path / "joiners.csv"
    file.write_text(f"{CSV_HEADER}\r\n,Sam,Session,{email},,,,,,,,,,no,\r\n", encoding="utf-8")
    uploads: list = []
    page.on("request", lambda r: uploads.append(r) if r.url.endswith("/scim/v2/Users/csv") else None)
    page.set_input_files("#csv-file", str(file))
    page.get_by_role("button", name="Upload joiners.csv").click()
    expect(page.locator("#upload-status")).to_have_text("Done.")
    expect(page.locator(".upload-result .notice")).to_have_text("1 row: 1 created, 0 failed.")
    headers = uploads[0].all_headers()
    assert headers.get("x-equip-csrf") == "1" and "authorization" not in headers
    _, found = sso.server.api("GET", "/scim/v2/Users", query={"filter": f'userName eq "{email}"'})
    assert found["totalResults"] == 1
    status, feed = sso.server.api("GET", "/api/v1/events", query={"subjectId": found["Resources"][0]["id"]})
    assert status == 200
    created = [e for e in feed["data"] if e["type"] == "person.created"]
    assert created and created[0]["actor"] == {"type": "PERSON", "subject": ADMIN["sub"], "email": ADMIN["email"]}, created


def test_a_new_signing_key_of_the_provider_is_taken(sso, tab):
    """The provider rotates its signing key (new `kid`, the old one gone from
    its JWKS): equip reads the keys again and the next sign-in works. Last in
    the module: every later sign-in is signed with the new key."""
    page = tab.page
    sso.provider.hook("rotate-keys")
    sso_sign_in(sso, page, ADMIN)
    remember_cookie(sso, page)
    expect(tab.heading()).to_have_text("Overview")
    expect(page.locator("#key-summary")).to_have_text(ADMIN["email"])
