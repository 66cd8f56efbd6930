//! What the log holds, through the real binary: with `--log-format json`
//! every line is one JSON object, a request's line has its facts as fields
//! (`method`, `route`, `status`, `latency_ms`, `request_id`, and `org_id`
//! and `key_id` once its key is verified), and nothing private is ever
//! written: not the API key (nor its prefix or secret part), not a webhook's
//! signing secret nor a token in its URL, not a person's email address, name
//! or password, not a query string. Every command, not only `serve`, honours
//! `--log-format` and `EQUIP_LOG_FORMAT`.
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

use crate::support::process::{request, Response, Serve};
use crate::support::scratch::Scratch;

const EMAIL: &str = "wilhelmina.quistgaard@privacy.example";
const GIVEN: &str = "Wilhelmina";
const FAMILY: &str = "Quistgaard";
const PASSWORD: &str = "Pa55word-never-logged";
const URL_TOKEN: &str = "urltoken7c1e9b";

/// The log's lines, each parsed as a JSON object (panics on one that is not).
fn objects(log: &str) -> Vec<Value> {
    log.lines()
        .map(|line| {
            let object: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON object ({e}): {line}"));
            for field in ["time", "level", "target", "message"] {
                assert!(object[field].is_string(), "{field} missing in {line}");
            }
            object
        })
        .collect()
}

/// The line of the request answered with `resp` (by its `X-Request-Id`).
fn request_line<'a>(lines: &'a [Value], resp: &Response) -> &'a Value {
    let id = resp.header("x-request-id").expect("X-Request-Id");
    let mut found = lines
        .iter()
        .filter(|l| l["request_id"] == id && l.get("status").is_some());
    let line = found
        .next()
        .unwrap_or_else(|| panic!("no request line for {id} in {lines:#?}"));
    assert!(found.next().is_none(), "two request lines for {id}");
    line
}

fn json_log_has_fields_and_nothing_private(db: &TestDatabase) {
    let (key, org_id, key_id) = {
        let store = db.store();
        let now = Utc::now();
        let org = admin::create_organization(&store, "Log Org", now)
            .unwrap()
            .id;
        let key = admin::issue_api_key(&store, org, Scopes::all(), None, now).unwrap();
        (key.secret, org.to_string(), key.record.id.to_string())
    };
    let mut server = Serve::start(
        db.url(),
        &[
            "--no-dispatcher",
            "--log-format",
            "json",
            "--allow-private-webhooks",
            "--webhook-timeout-ms",
            "500",
        ],
    );
    let api = server.client(&key);

    // A webhook (its secret is in the answer) to an address that refuses
    // connections, with a token in its URL: its deliveries fail and are
    // logged.
    let hook = api
        .post(
            "/api/v1/webhooks",
            "application/json",
            json!({"url": format!("http://127.0.0.1:9/hook?token={URL_TOKEN}")})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    assert_eq!(hook.status, 201, "{}", hook.text());
    let hook_secret = hook.json()["secret"].as_str().unwrap().to_owned();
    assert!(hook_secret.len() >= 16, "{}", hook.text());

    // A person provisioned, with an email, a name and a password.
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": EMAIL,
        "name": {"givenName": GIVEN, "familyName": FAMILY},
        "displayName": format!("{GIVEN} {FAMILY}"),
        "emails": [{"primary": true, "type": "work", "value": EMAIL}],
        "password": PASSWORD,
    });
    let created = api.scim_post("/scim/v2/Users", &user).unwrap();
    assert_eq!(created.status, 201, "{}", created.text());
    let user_id = created.json()["id"].as_str().unwrap().to_owned();
    let fetched = api.get(&format!("/scim/v2/Users/{user_id}")).unwrap();
    assert_eq!(fetched.status, 200, "{}", fetched.text());
    // The email in a query string.
    let filter = format!("/scim/v2/Users?filter=userName%20eq%20%22{EMAIL}%22");
    let listed = api.get(&filter).unwrap();
    assert_eq!(listed.status, 200, "{}", listed.text());

    // Failing requests: the same userName again (its answer names it), a
    // path no route matches that holds the email, a wrong key.
    let conflict = api.scim_post("/scim/v2/Users", &user).unwrap();
    assert_eq!(conflict.status, 409, "{}", conflict.text());
    let unmatched = api.get(&format!("/api/v1/no-such-area/{EMAIL}")).unwrap();
    assert_eq!(unmatched.status, 404, "{}", unmatched.text());
    let (prefix, secret) = {
        let mut parts = key.splitn(3, '_').skip(1);
        (parts.next().unwrap(), parts.next().unwrap())
    };
    let wrong = format!("equip_{prefix}_{}", "0".repeat(secret.len()));
    let refused = request(
        &server.addr,
        "GET",
        "/api/v1/inventory",
        &[("Authorization", &format!("ApiKey {wrong}"))],
        b"",
    )
    .unwrap();
    assert_eq!(refused.status, 401, "{}", refused.text());

    // The user's creation is delivered to the webhook and fails, logged.
    let start = Instant::now();
    while !server.log().contains("attempt 1 failed") {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no failed delivery logged:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server.terminate(Duration::from_secs(30));
    let log = server.log();

    for (what, private) in [
        ("the API key", key.as_str()),
        ("the key's prefix", prefix),
        ("the key's secret part", secret),
        ("the webhook's secret", hook_secret.as_str()),
        ("the token in the webhook's URL", URL_TOKEN),
        ("the email address", EMAIL),
        ("the email's local part", "wilhelmina.quistgaard"),
        ("the given name", GIVEN),
        ("the family name", FAMILY),
        ("the password", PASSWORD),
        ("a query string", "filter="),
    ] {
        assert!(!log.contains(private), "{what} is in the log:\n{log}");
    }

    let lines = objects(&log);
    let line = request_line(&lines, &created);
    assert_eq!(line["level"], "INFO", "{line}");
    assert_eq!(line["message"], "POST /scim/v2/Users 201", "{line}");
    assert_eq!(line["method"], "POST", "{line}");
    assert_eq!(line["route"], "/scim/v2/Users", "{line}");
    assert_eq!(line["status"], 201, "{line}");
    assert!(
        line["latency_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{line}"
    );
    assert_eq!(line["org_id"], org_id.as_str(), "{line}");
    assert_eq!(line["key_id"], key_id.as_str(), "{line}");

    // The route is the template, never the path as sent.
    let line = request_line(&lines, &fetched);
    assert_eq!(line["route"], "/scim/v2/Users/{id}", "{line}");
    assert_eq!(line["key_id"], key_id.as_str(), "{line}");
    let line = request_line(&lines, &listed);
    assert_eq!(line["route"], "/scim/v2/Users", "{line}");
    let line = request_line(&lines, &conflict);
    assert_eq!(line["status"], 409, "{line}");
    assert_eq!(line["org_id"], org_id.as_str(), "{line}");
    let line = request_line(&lines, &unmatched);
    assert_eq!(line["route"], "unmatched", "{line}");
    assert_eq!(line["status"], 404, "{line}");
    let line = request_line(&lines, &refused);
    assert_eq!(line["status"], 401, "{line}");
    assert!(line.get("org_id").is_none(), "{line}");
    assert!(line.get("key_id").is_none(), "{line}");
    let line = request_line(&lines, &hook);
    assert_eq!(line["route"], "/api/v1/webhooks", "{line}");
    assert_eq!(line["status"], 201, "{line}");

    // Lines outside requests carry no request's fields; the failed delivery
    // is a warning of the webhook dispatcher.
    let delivery = lines
        .iter()
        .find(|l| {
            l["message"]
                .as_str()
                .is_some_and(|m| m.contains("attempt 1 failed"))
        })
        .unwrap();
    assert_eq!(delivery["level"], "WARN", "{delivery}");
    assert!(
        delivery["target"]
            .as_str()
            .is_some_and(|t| t.starts_with("equip_delivery::webhooks")),
        "{delivery}"
    );
    assert!(delivery.get("request_id").is_none(), "{delivery}");
}

#[test]
fn sqlite_json_log_has_fields_and_nothing_private() {
    json_log_has_fields_and_nothing_private(&TestDatabase::sqlite());
}

#[test]
fn postgres_json_log_has_fields_and_nothing_private() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    json_log_has_fields_and_nothing_private(&db);
}

/// Runs `equip args` in `dir` on its database with `envs` and `RUST_LOG`
/// at `info`; its success and standard error.
fn equip(dir: &Scratch, args: &[&str], envs: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(args)
        .current_dir(dir.path(""))
        .env("DATABASE_URL", dir.db())
        .env("RUST_LOG", "info")
        .env_remove("EQUIP_LOG_FORMAT")
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_command_writes_json_lines_when_asked() {
    let dir = Scratch::new();
    // The first command on a fresh database applies the migrations and logs
    // each (the persistence crate's lines), then says what it did.
    let (ok, org, stderr) = equip(
        &dir,
        &["org", "create", "--name", "Acme"],
        &[("EQUIP_LOG_FORMAT", "json")],
    );
    assert!(ok, "{stderr}");
    let lines = objects(&stderr);
    assert!(
        lines.iter().any(|l| l["target"]
            .as_str()
            .is_some_and(|t| t.starts_with("equip_persistence"))
            && l["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("applied migration "))),
        "{stderr}"
    );
    assert!(
        lines.iter().any(|l| l["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("created organization 'Acme'"))),
        "{stderr}"
    );
    let org = org.trim().to_owned();

    // The flag, after the command: the key on stdout, only its id in the log.
    let (ok, key, stderr) = equip(
        &dir,
        &["key", "create", "--org", &org, "--log-format", "json"],
        &[],
    );
    assert!(ok, "{stderr}");
    let lines = objects(&stderr);
    assert!(
        lines.iter().any(|l| l["message"]
            .as_str()
            .is_some_and(|m| m.contains("key id: "))),
        "{stderr}"
    );
    assert!(!stderr.contains(key.trim()), "{stderr}");

    // A failure is a JSON line too, at ERROR.
    let (ok, _, stderr) = equip(
        &dir,
        &["--log-format", "json", "key", "revoke", "not-a-key-id"],
        &[],
    );
    assert!(!ok);
    let lines = objects(&stderr);
    assert!(
        lines
            .iter()
            .any(|l| l["level"] == "ERROR" && l["target"] == "equip"),
        "{stderr}"
    );

    // Text by default: no JSON, the failure as `error: …`.
    let (ok, _, stderr) = equip(&dir, &["key", "revoke", "not-a-key-id"], &[]);
    assert!(!ok);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains('{'), "{stderr}");
}
