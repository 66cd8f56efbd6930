"""Fixtures of the console's browser tests.

A real `equip serve` (the binary in EQUIP_BIN) over demo data, on each backend
in EQUIP_CONSOLE_BACKENDS (default "sqlite,postgres"), and a real Chromium
(Debian's, at CHROMIUM, default /usr/bin/chromium) driven by Playwright.
scripts/console-tests.sh sets these up; see docs/console.md.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

EQUIP_BIN = os.environ.get("EQUIP_BIN", "")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BACKENDS = [b for b in os.environ.get("EQUIP_CONSOLE_BACKENDS", "sqlite,postgres").split(",") if b]
POSTGRES_ADMIN = os.environ.get("EQUIP_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
SCREENSHOTS = os.environ.get("EQUIP_CONSOLE_SCREENSHOTS", "")

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 375, "height": 760}


@dataclass
class Server:
    """A running `equip serve` with demo data and keys of several scopes."""

    backend: str
    base: str
    database_url: str
    org: str
    keys: dict = field(default_factory=dict)
    key_ids: dict = field(default_factory=dict)
    log: list = field(default_factory=list)
    workdir: Path | None = None

    def api(self, method: str, path: str, key: str | None = None, body=None, query=None):
        """Calls the API; answers (status, JSON or None)."""
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"ApiKey {key or self.keys['all']}")
        if data is not None:
            req.add_header("Content-Type", "application/scim+json" if path.startswith("/scim/") else "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                text = res.read().decode()
                return res.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            return e.code, (json.loads(text) if text else None)

    def equip(self, *args: str) -> subprocess.CompletedProcess:
        return run_equip(self.database_url, *args)


def run_equip(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DATABASE_URL=database_url, RUST_LOG="warn")
    done = subprocess.run([EQUIP_BIN, *args], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"equip {' '.join(args)} failed: {done.stderr}")
    return done


def create_key(database_url: str, org: str, label: str, *scope_args: str) -> tuple[str, str]:
    done = run_equip(database_url, "key", "create", "--org", org, "--label", label, *scope_args)
    key = done.stdout.strip().splitlines()[0]
    key_id = re.search(r"key id: ([0-9a-f-]{36})", done.stderr).group(1)
    return key, key_id


class Equip:
    """A running `equip serve` process: its base URL and its log lines."""

    def __init__(self, proc: subprocess.Popen, base: str, log: list):
        self.proc = proc
        self.base = base
        self.log = log

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_equip(database_url: str, workdir: Path, *args: str) -> Equip:
    """`equip serve` on 127.0.0.1 (a free port) over `database_url`, with
    `args` added; answers once it listens (fails the test if it does not)."""
    env = dict(
        os.environ,
        DATABASE_URL=database_url,
        EQUIP_RATE_LIMIT="0",
        RUST_LOG="info",
    )
    proc = subprocess.Popen(
        [EQUIP_BIN, "serve", "--bind", "127.0.0.1:0", "--log-format", "text", *args],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log: list[str] = []
    ready = threading.Event()
    address: list[str] = []

    def read():
        for line in proc.stdout:
            log.append(line)
            m = re.search(r"equip listening on (http://\S+)", line)
            if m and not address:
                address.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    ready.wait(60)
    if not address:
        proc.kill()
        pytest.fail("equip serve did not start:\n" + "".join(log))
    return Equip(proc, address[0], log)


def psql(sql: str) -> None:
    subprocess.run(["psql", POSTGRES_ADMIN, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True, capture_output=True)


@pytest.fixture(scope="session", params=BACKENDS)
def server(request):
    if not EQUIP_BIN or not Path(EQUIP_BIN).exists():
        pytest.fail("EQUIP_BIN must name the equip binary (scripts/console-tests.sh builds it)")
    backend = request.param
    workdir = Path(tempfile.mkdtemp(prefix=f"equip-console-{backend}-"))
    database = None
    if backend == "sqlite":
        database_url = str(workdir / "equip.db")
    else:
        database = f"equip_console_{uuid.uuid4().hex[:12]}"
        psql(f"CREATE DATABASE {database}")
        parsed = urllib.parse.urlparse(POSTGRES_ADMIN)
        database_url = urllib.parse.urlunparse(parsed._replace(path=f"/{database}"))
    demo = run_equip(database_url, "demo", "--items", os.environ.get("EQUIP_DEMO_ITEMS", "400"))
    all_key = demo.stdout.strip().splitlines()[0]
    org = re.search(r"demo organization '[^']*': ([0-9a-f-]{36})", demo.stderr).group(1)
    reader, reader_id = create_key(database_url, org, "Inventory reader", "--scope", "inventory:read")
    nothing, nothing_id = create_key(database_url, org, "No scopes", "--no-scopes")
    equip = start_equip(database_url, workdir)
    log = equip.log
    srv = Server(backend=backend, base=equip.base, database_url=database_url, org=org, log=log)
    srv.keys = {"all": all_key, "reader": reader, "none": nothing}
    srv.key_ids = {"reader": reader_id, "none": nothing_id}
    srv.workdir = workdir
    yield srv
    equip.stop()
    # No key ever appears in the server's log.
    text = "".join(log)
    for name, key in srv.keys.items():
        assert key not in text, f"the {name} key appears in the server log"
    if database:
        psql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


class Console:
    """A browser tab on the console, recording what would be a defect: a
    script error, a CSP violation, or a request whose URL carries a key."""

    def __init__(self, server: Server, page):
        self.server = server
        self.page = page
        self.problems: list[str] = []
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        # The browser logs every 4xx answer as an error; the API's are
        # expected (a refused key, a 409); a file of the console's is not.
        page.on(
            "console",
            lambda m: self.problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" and "the server responded with a status of 4" not in m.text
            else None,
        )
        page.on("request", self._request)
        page.on(
            "response",
            lambda r: self.problems.append(f"{r.status} for {r.url}")
            if "/console/" in r.url and r.status >= 400
            else None,
        )

    def _request(self, req):
        for key in self.server.keys.values():
            if key in req.url:
                self.problems.append(f"a key in a URL: {req.url[:80]}")

    def open(self, fragment: str = ""):
        self.page.goto(f"{self.server.base}/console/{fragment}")
        return self

    def sign_in(self, key: str | None = None):
        self.open()
        self.page.get_by_label("API key").fill(key or self.server.keys["all"])
        self.page.get_by_role("button", name="Sign in").click()
        self.page.locator("#session").wait_for(state="visible")
        return self

    def go(self, fragment: str):
        self.page.evaluate("f => { location.hash = f; }", fragment)

    def heading(self):
        return self.page.locator("#view-title")

    def shoot(self, name: str):
        """Screenshots of the current screen at desktop and phone widths (when
        EQUIP_CONSOLE_SCREENSHOTS names a directory, and on the first backend)."""
        if not SCREENSHOTS or self.server.backend != BACKENDS[0]:
            return
        out = Path(SCREENSHOTS)
        out.mkdir(parents=True, exist_ok=True)
        size = self.page.viewport_size
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            self.page.set_viewport_size(viewport)
            self.page.wait_for_timeout(150)
            self.page.screenshot(path=str(out / f"{name}-{label}.png"), full_page=label == "phone")
        self.page.set_viewport_size(size)


def _tab(server, browser, **options):
    """A new browser context's tab on the console; fails the test on any
    problem the page reported (script errors, CSP violations, keys in URLs)."""
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True, locale="en-GB", timezone_id="UTC", **options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    c = Console(server, page)
    yield c
    context.close()
    assert not c.problems, "\n".join(c.problems)


@pytest.fixture
def console(server, browser):
    yield from _tab(server, browser)


@pytest.fixture
def dark(server, browser):
    """A tab whose system asks for dark colours."""
    yield from _tab(server, browser, color_scheme="dark")
