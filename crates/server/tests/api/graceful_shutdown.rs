//! Graceful shutdown of the real `equip serve`, on SQLite and PostgreSQL: a
//! SCIM create is held in flight (the test holds a write lock on `people`),
//! SIGTERM arrives, and the create still completes: its client gets the whole
//! 201, the user is stored, and the process exits 0 once the request is done.
use std::time::{Duration, Instant};

use crate::support::process::Serve;
use equip_persistence::test_support::TestDatabase;
use serde_json::json;

#[test]
fn sqlite_sigterm_lets_the_request_in_flight_finish() {
    sigterm_lets_the_request_in_flight_finish(TestDatabase::sqlite());
}

#[test]
fn postgres_sigterm_lets_the_request_in_flight_finish() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    sigterm_lets_the_request_in_flight_finish(db);
}

fn sigterm_lets_the_request_in_flight_finish(db: TestDatabase) {
    let key = crate::support::process::organization_with_key(&db, "Shutdown Org");

    let mut server = Serve::start(db.url(), &["--workers", "1", "--no-dispatcher"]);
    let api = server.client(&key);
    let lock = db.lock_writes();
    let create = std::thread::spawn(move || {
        api.scim_post(
            "/scim/v2/Users",
            &json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "userName": "in.flight@example.com",
                "name": {"givenName": "In", "familyName": "Flight"},
                "emails": [{"primary": true, "type": "work", "value": "in.flight@example.com"}]
            }),
        )
    });
    // The create reaches the server and waits for the lock; then SIGTERM
    // comes, and the lock is released 1 s later, while the server drains.
    std::thread::sleep(Duration::from_millis(700));
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        drop(lock);
    });
    let stopping = Instant::now();
    server.terminate(Duration::from_secs(20));
    let stopped_after = stopping.elapsed();
    release.join().unwrap();

    let response = create
        .join()
        .unwrap()
        .expect("the request in flight is answered in full");
    assert_eq!(response.status, 201, "{}", response.text());
    assert_eq!(response.json()["userName"], "in.flight@example.com");
    assert_eq!(db.count_rows("people"), 1);
    // The server waited for the request, not for its 30 s shutdown limit.
    assert!(
        stopped_after >= Duration::from_millis(900),
        "exited before the request finished: {stopped_after:?}"
    );
    assert!(stopped_after < Duration::from_secs(15), "{stopped_after:?}");
}
