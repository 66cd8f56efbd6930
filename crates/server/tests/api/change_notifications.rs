//! Two `equip serve` processes over one PostgreSQL database, both answering
//! API keys from memory (`equip_persistence::Store::watch_changes`): what is
//! written through one (or by another program) shows on the other, and a key
//! revoked elsewhere is refused as soon as the database's change notification
//! arrives, never later than the bound asserted here. SQLite has no such
//! memory (its reads are in-process), so this is PostgreSQL only.
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::process::{request, Serve};
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

/// Polls `read` until `done` holds for its answer; panics after 5 s.
fn eventually(
    what: &str,
    mut read: impl FnMut() -> (u16, Value),
    done: impl Fn(u16, &Value) -> bool,
) {
    let start = Instant::now();
    loop {
        let (status, body) = read();
        if done(status, &body) {
            eprintln!("{what}: seen after {:?}", start.elapsed());
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{what}: not seen within 5 s; last answer {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn writes_through_one_instance_show_on_the_other() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(["--database-url", db.url(), "demo", "--items", "30"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let a = Serve::start(db.url(), &["--no-dispatcher"]);
    let b = Serve::start(db.url(), &["--no-dispatcher"]);
    let auth = format!("ApiKey {key}");
    let get = |serve: &Serve, path: &str| {
        let r = request(&serve.addr, "GET", path, &[("Authorization", &auth)], b"").unwrap();
        let body = if r.body.is_empty() {
            Value::Null
        } else {
            r.json()
        };
        (r.status, body)
    };
    let page = "/api/v1/inventory?size=5";
    // Both instances read the page (and keep the key).
    let (status, first) = get(&b, page);
    assert_eq!(status, 200, "{first}");
    assert_eq!(get(&b, page).1, first);
    assert_eq!(get(&a, page).1, first);

    // An item changed through A shows on B.
    let id = first["data"][0]["id"].as_str().unwrap().to_owned();
    let body = json!({"description": "Changed on A"}).to_string();
    let r = request(
        &a.addr,
        "PATCH",
        &format!("/api/v1/inventory/{id}"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        body.as_bytes(),
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    // On A at once: its own write.
    assert_eq!(get(&a, page).1["data"][0]["description"], "Changed on A");
    eventually(
        "the change on B",
        || get(&b, page),
        |status, body| status == 200 && body["data"][0]["description"] == "Changed on A",
    );

    // A key revoked by another program (here the store of this test) is
    // refused by both.
    crate::support::revoke_key(&db.store(), &key);
    for (name, serve) in [("A", &a), ("B", &b)] {
        eventually(
            &format!("the revocation on {name}"),
            || get(serve, page),
            |status, _| status == 401,
        );
    }
}
