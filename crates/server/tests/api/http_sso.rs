//! Console sign-in with an identity provider (docs/sso.md), black-box: the
//! real `equip` binary (`serve` and `org sso …`) against a real OpenID
//! provider (npm's `oidc-provider`, started by `scripts/oidc-provider.sh`),
//! on SQLite and on PostgreSQL. The sign-in is driven as a browser would:
//! equip's login redirect, the provider's login form, its redirect back,
//! equip's callback; cookies kept by name.
//!
//! Without Node the tests are skipped with a message, except in CI, where
//! that fails them.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

use equip_domain::api_key::Scopes;
use equip_domain::services::admin;

use crate::support::process::{request, Response, Serve};
use crate::support::{in_ci, repo_root};

/// A running test provider; killed on drop.
pub(crate) struct Provider {
    child: Child,
    pub(crate) issuer: String,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Provider {
    /// The provider, or `None` (skipped) without Node outside CI.
    pub(crate) fn start() -> Option<Provider> {
        let spawned = Command::new("bash")
            .arg(repo_root().join("scripts/oidc-provider.sh"))
            .env("OIDC_PORT", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                assert!(!in_ci(), "CI: the test OpenID provider did not start: {e}");
                eprintln!("skipping SSO test: the OpenID provider did not start ({e})");
                return None;
            }
        };
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let issuer = line.trim().to_owned();
        if !issuer.starts_with("http://127.0.0.1:") {
            let _ = child.kill();
            assert!(
                !in_ci(),
                "CI: the test OpenID provider did not start (needs node and npm)"
            );
            eprintln!("skipping SSO test: the OpenID provider did not start (needs node and npm)");
            return None;
        }
        Some(Provider { child, issuer })
    }

    /// Registers a client whose redirect URIs are the callbacks of `servers`;
    /// its id and secret.
    pub(crate) fn register(&self, servers: &[&Serve]) -> (String, String) {
        let uris: Vec<String> = servers
            .iter()
            .map(|s| format!("http://{}/sso/callback", s.addr))
            .collect();
        let body = json!({ "redirect_uris": uris }).to_string();
        let (addr, path) = split(&format!("{}/reg", self.issuer));
        let r = request(
            &addr,
            "POST",
            &path,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        )
        .unwrap();
        assert_eq!(r.status, 201, "{}", r.text());
        let client = r.json();
        (
            client["client_id"].as_str().unwrap().to_owned(),
            client["client_secret"].as_str().unwrap().to_owned(),
        )
    }

    pub(crate) fn hook(&self, name: &str) {
        let (addr, path) = split(&format!("{}/__test/{name}", self.issuer));
        let r = request(&addr, "POST", &path, &[], b"").unwrap();
        assert_eq!(r.status, 204, "{name}: {}", r.text());
    }
}

/// `http://host:port/path?q` → (`host:port`, `/path?q`).
fn split(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_once('/').unwrap_or((rest, ""));
    (addr.to_owned(), format!("/{path}"))
}

/// A browser's cookies, by name (equip's and the provider's never share a
/// name; both are on 127.0.0.1, where cookies ignore the port).
#[derive(Default, Clone)]
pub(crate) struct Browser {
    pub(crate) cookies: HashMap<String, String>,
}

impl Browser {
    fn header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, r: &Response) {
        for (name, value) in &r.headers {
            if name != "set-cookie" {
                continue;
            }
            let pair = value.split(';').next().unwrap_or("");
            if let Some((k, v)) = pair.split_once('=') {
                if v.is_empty() || value.contains("Max-Age=0") {
                    self.cookies.remove(k.trim());
                } else {
                    self.cookies.insert(k.trim().to_owned(), v.to_owned());
                }
            }
        }
    }

    pub(crate) fn go(
        &mut self,
        method: &str,
        url: &str,
        extra: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        let (addr, path) = split(url);
        let cookie = self.header();
        let mut headers: Vec<(&str, &str)> = extra.to_vec();
        if !cookie.is_empty() {
            headers.push(("Cookie", &cookie));
        }
        let r = request(&addr, method, &path, &headers, body).unwrap();
        self.keep(&r);
        r
    }

    pub(crate) fn get(&mut self, url: &str) -> Response {
        self.go("GET", url, &[], b"")
    }
}

fn location(r: &Response, base: &str) -> String {
    let to = r
        .header("location")
        .unwrap_or_else(|| panic!("no Location ({}): {}", r.status, r.text()))
        .to_owned();
    if to.starts_with('/') {
        format!("{base}{to}")
    } else {
        to
    }
}

/// Signs `login` in at `serve` through the provider's form; the callback's
/// URL and equip's answer to it.
pub(crate) fn sign_in(
    browser: &mut Browser,
    serve: &Serve,
    org: &str,
    provider: &Provider,
    login: &str,
) -> (String, Response) {
    let equip = format!("http://{}", serve.addr);
    let start = browser.get(&format!("{equip}/sso/{org}/login"));
    assert_eq!(start.status, 303, "{}", start.text());
    let authorize = location(&start, &equip);
    assert!(authorize.starts_with(&provider.issuer), "{authorize}");
    for needed in [
        "code_challenge_method=S256",
        "state=",
        "nonce=",
        "response_type=code",
    ] {
        assert!(authorize.contains(needed), "{needed} in {authorize}");
    }
    let to_form = browser.get(&authorize);
    let form = location(&to_form, &provider.issuer);
    let body = format!("login={login}&password={login}");
    let posted = browser.go(
        "POST",
        &form,
        &[("Content-Type", "application/x-www-form-urlencoded")],
        body.as_bytes(),
    );
    assert_eq!(posted.status, 303, "{}", posted.text());
    let resume = location(&posted, &provider.issuer);
    let back = browser.get(&resume);
    let callback = location(&back, &provider.issuer);
    assert!(
        callback.starts_with(&format!("{equip}/sso/callback?")),
        "{callback}"
    );
    let answer = browser.get(&callback);
    (callback, answer)
}

pub(crate) fn equip_cmd(db: &TestDatabase, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(args)
        .env("DATABASE_URL", db.url())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "equip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Calls `path` at `serve` with `browser`'s cookies (no key).
fn call(
    browser: &mut Browser,
    serve: &Serve,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> Response {
    let body = if body.is_null() {
        Vec::new()
    } else {
        body.to_string().into_bytes()
    };
    let mut headers = headers.to_vec();
    if !body.is_empty() {
        headers.push(("Content-Type", "application/json"));
    }
    browser.go(
        method,
        &format!("http://{}{path}", serve.addr),
        &headers,
        &body,
    )
}

/// Organization `name` with a few items and a key of every scope: the key
/// and the organization's id.
pub(crate) fn organization_with_items(db: &TestDatabase, name: &str) -> (String, String) {
    let store = db.store();
    let now = chrono::Utc::now();
    let org = admin::create_organization(&store, name, now).unwrap();
    crate::support::inventory::seed(&store, &org, 3);
    let key = admin::issue_api_key(&store, org.id, Scopes::all(), None, now)
        .unwrap()
        .secret;
    (key, org.id.to_string())
}

/// The first item the key's organization lists.
fn first_item(serve: &Serve, key: &str) -> String {
    let listed = serve
        .client(key)
        .get("/api/v1/inventory?size=1")
        .unwrap()
        .json();
    listed["data"][0]["id"].as_str().unwrap().to_owned()
}

/// `org` signs in with `provider` (its client registered for `servers`);
/// the group "IT Admins" holds every scope. Returns the client secret.
pub(crate) fn sign_in_configured(
    db: &TestDatabase,
    provider: &Provider,
    servers: &[&Serve],
    org: &str,
) -> String {
    let (client_id, secret) = provider.register(servers);
    let secret_file =
        std::env::temp_dir().join(format!("equip-sso-secret-{}", uuid::Uuid::new_v4()));
    std::fs::write(&secret_file, format!("{secret}\n")).unwrap();
    equip_cmd(
        db,
        &[
            "org",
            "sso",
            "set",
            "--org",
            org,
            "--issuer",
            &provider.issuer,
            "--client-id",
            &client_id,
            "--client-secret-file",
            secret_file.to_str().unwrap(),
        ],
    );
    let _ = std::fs::remove_file(&secret_file);
    equip_cmd(
        db,
        &[
            "org",
            "sso",
            "role",
            "--org",
            org,
            "--group",
            "IT Admins",
            "--all-scopes",
        ],
    );
    secret
}

fn sign_in_with_the_provider(db: &TestDatabase) {
    let Some(provider) = Provider::start() else {
        return;
    };
    let (key, org) = organization_with_items(db, "Acme");
    let a = Serve::start(db.url(), &[]);
    let b = Serve::start(db.url(), &["--session-idle-timeout", "3s"]);
    let secret = sign_in_configured(db, &provider, &[&a, &b], &org);
    equip_cmd(
        db,
        &[
            "org",
            "sso",
            "role",
            "--org",
            &org,
            "--group",
            "Inventory Readers",
            "--scope",
            "inventory:read",
        ],
    );
    let shown: Value = serde_json::from_str(&equip_cmd(
        db,
        &["org", "sso", "show", "--org", &org, "--json"],
    ))
    .unwrap();
    assert_eq!(shown["clientSecret"], "set");
    assert!(
        !shown.to_string().contains(&secret),
        "the secret is never shown"
    );
    assert_eq!(shown["roles"].as_array().unwrap().len(), 2);

    // An item to change, made with the key.
    let item = first_item(&a, &key);

    // A mapped group signs in: a session cookie with its attributes.
    let mut admin = Browser::default();
    let (callback, answer) = sign_in(&mut admin, &a, &org, &provider, "admin");
    assert_eq!(answer.status, 303, "{}", answer.text());
    assert_eq!(answer.header("location"), Some("/console/"));
    let cookie = answer
        .headers
        .iter()
        .find(|(n, v)| n == "set-cookie" && v.starts_with("equip_session="))
        .map(|(_, v)| v.clone())
        .unwrap();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let me = call(&mut admin, &a, "GET", "/sso/session", &[], &Value::Null).json();
    assert_eq!(me["email"], "admin@example.com");
    assert_eq!(me["subject"], "admin-sub");
    assert_eq!(me["organizationId"], org.as_str());
    assert_eq!(
        me["scopes"].as_array().unwrap().len(),
        equip_domain::api_key::Scope::ALL.len(),
        "IT Admins hold every scope"
    );

    // Reads need no header; a change needs X-Equip-CSRF.
    let read = call(
        &mut admin,
        &a,
        "GET",
        &format!("/api/v1/inventory/{item}"),
        &[],
        &Value::Null,
    );
    assert_eq!(read.status, 200, "{}", read.text());
    let patch = json!({"description": "changed by a person"});
    let refused = call(
        &mut admin,
        &a,
        "PATCH",
        &format!("/api/v1/inventory/{item}"),
        &[],
        &patch,
    );
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert!(refused.text().contains("X-Equip-CSRF"));
    let changed = call(
        &mut admin,
        &a,
        "PATCH",
        &format!("/api/v1/inventory/{item}"),
        &[("X-Equip-CSRF", "1")],
        &patch,
    );
    assert_eq!(changed.status, 200, "{}", changed.text());
    // SCIM takes the session too.
    let scim = call(
        &mut admin,
        &a,
        "GET",
        "/scim/v2/Users?count=1",
        &[],
        &Value::Null,
    );
    assert_eq!(scim.status, 200, "{}", scim.text());
    // The event names the person.
    let history = a
        .client(&key)
        .get(&format!("/api/v1/inventory/{item}/history"))
        .unwrap()
        .json();
    assert_eq!(
        history["data"][0]["actor"],
        json!({"type": "PERSON", "subject": "admin-sub", "email": "admin@example.com"})
    );
    // No CORS, ever: a preflight from another site gets no permission.
    let preflight = call(
        &mut Browser::default(),
        &a,
        "OPTIONS",
        "/api/v1/inventory",
        &[
            ("Origin", "http://evil.example"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "x-equip-csrf"),
        ],
        &Value::Null,
    );
    assert!(preflight.header("access-control-allow-origin").is_none());

    // The callback's URL again: its state was taken.
    let replay = admin.get(&callback);
    assert_eq!(replay.status, 400, "{}", replay.text());
    assert!(replay.text().contains("already used or has expired"));

    // The session on the second instance, then idle past its 3 s there.
    let on_b = call(
        &mut admin,
        &b,
        "GET",
        "/api/v1/inventory?size=1",
        &[],
        &Value::Null,
    );
    assert_eq!(on_b.status, 200, "{}", on_b.text());
    std::thread::sleep(Duration::from_millis(3500));
    let idle = call(
        &mut admin,
        &b,
        "GET",
        "/api/v1/inventory?size=1",
        &[],
        &Value::Null,
    );
    assert_eq!(idle.status, 401, "{}", idle.text());
    assert_eq!(
        call(&mut admin, &a, "GET", "/sso/session", &[], &Value::Null).status,
        200
    );

    // Signed out on one instance: refused on the other at once.
    let mut again = Browser::default();
    let (_, answer) = sign_in(&mut again, &a, &org, &provider, "admin");
    assert_eq!(answer.status, 303);
    assert_eq!(
        call(&mut again, &b, "GET", "/sso/session", &[], &Value::Null).status,
        200
    );
    let session_cookie = again.cookies.get("equip_session").cloned().unwrap();
    let no_header = call(&mut again, &a, "POST", "/sso/logout", &[], &Value::Null);
    assert_eq!(no_header.status, 403, "sign-out needs the CSRF header too");
    assert_eq!(
        call(
            &mut again,
            &a,
            "POST",
            "/sso/logout",
            &[("X-Equip-CSRF", "1")],
            &Value::Null
        )
        .status,
        204
    );
    let mut stale = Browser::default();
    stale.cookies.insert("equip_session".into(), session_cookie);
    assert_eq!(
        call(
            &mut stale,
            &b,
            "GET",
            "/api/v1/inventory?size=1",
            &[],
            &Value::Null
        )
        .status,
        401
    );

    // A revoked session.
    let listed: Value = serde_json::from_str(&equip_cmd(
        db,
        &["org", "sso", "sessions", "--org", &org, "--json"],
    ))
    .unwrap();
    assert!(listed
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["email"] == "admin@example.com"));
    equip_cmd(
        db,
        &["org", "sso", "sessions", "--org", &org, "--revoke-all"],
    );
    assert_eq!(
        call(&mut admin, &a, "GET", "/sso/session", &[], &Value::Null).status,
        401
    );

    // A reader gets only inventory:read. (A fresh browser: the provider
    // remembers who signed in.)
    let mut reader = Browser::default();
    let (_, answer) = sign_in(&mut reader, &a, &org, &provider, "reader");
    assert_eq!(answer.status, 303);
    assert_eq!(
        call(
            &mut reader,
            &a,
            "GET",
            "/api/v1/inventory?size=1",
            &[],
            &Value::Null
        )
        .status,
        200
    );
    let forbidden = call(
        &mut reader,
        &a,
        "PATCH",
        &format!("/api/v1/inventory/{item}"),
        &[("X-Equip-CSRF", "1")],
        &patch,
    );
    assert_eq!(forbidden.status, 403, "{}", forbidden.text());
    assert_eq!(
        call(&mut reader, &a, "GET", "/api/v1/events", &[], &Value::Null).status,
        403
    );

    // An unmapped group is refused with the page saying why; no session.
    let mut nobody = Browser::default();
    let (_, refused) = sign_in(&mut nobody, &a, &org, &provider, "nobody");
    assert_eq!(refused.status, 403);
    assert!(
        refused.text().contains("nobody@example.com"),
        "{}",
        refused.text()
    );
    assert!(refused.text().contains("Sales"));
    assert!(!nobody.cookies.contains_key("equip_session"));

    // A tampered ID token is refused.
    provider.hook("tamper-next-id-token");
    let mut tampered = Browser::default();
    let (_, refused) = sign_in(&mut tampered, &a, &org, &provider, "admin");
    assert_eq!(refused.status, 401, "{}", refused.text());
    assert!(!tampered.cookies.contains_key("equip_session"));

    // The provider rotates its keys: equip reads them again and signs in.
    provider.hook("rotate-keys");
    // equip reads a provider's keys again at most once a second.
    std::thread::sleep(Duration::from_millis(1100));
    let mut rotated = Browser::default();
    let (_, answer) = sign_in(&mut rotated, &a, &org, &provider, "admin");
    assert_eq!(answer.status, 303, "{}", answer.text());

    // Another organization's item is not the session's to see.
    let (other_key, _) = organization_with_items(db, "Globex");
    let theirs = first_item(&a, &other_key);
    assert_eq!(
        call(
            &mut rotated,
            &a,
            "GET",
            &format!("/api/v1/inventory/{theirs}"),
            &[],
            &Value::Null
        )
        .status,
        404
    );

    // Cleared: no sign-in, no session.
    equip_cmd(db, &["org", "sso", "clear", "--org", &org]);
    assert_eq!(
        call(&mut rotated, &a, "GET", "/sso/session", &[], &Value::Null).status,
        401
    );
    assert_eq!(
        Browser::default()
            .get(&format!("http://{}/sso/{org}/login", a.addr))
            .status,
        404
    );
}

#[test]
fn sign_in_with_the_provider_sqlite() {
    sign_in_with_the_provider(&TestDatabase::sqlite());
}

#[test]
fn sign_in_with_the_provider_postgres() {
    if let Some(db) = TestDatabase::postgres() {
        sign_in_with_the_provider(&db);
    }
}
