//! Overload, black-box through a real socket (`equip_http::blocking`): past
//! capacity a new request is answered 503 with `Retry-After` at once, and a
//! request whose client has gone is not started. PostgreSQL only: a table
//! lock held by the test keeps a read in flight for as long as the test
//! needs, which SQLite cannot do for reads.

use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::support::TestApp;

/// `GET path` on a connection of its own; the status line and headers
/// (lower case) and the body.
fn get(addr: &str, path: &str, key: &str) -> (String, String) {
    let (head, body) = crate::support::raw_exchange(
        addr,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: ApiKey {key}\r\nConnection: close\r\n\r\n"
        ),
    );
    (head, String::from_utf8_lossy(&body).into_owned())
}

/// Waits without holding up the test's runtime (the server under test
/// shares it).
async fn pause(ms: u64) {
    actix_web::rt::time::sleep(Duration::from_millis(ms)).await;
}

/// The answer of a request sent by [`spawn_get`].
async fn answer(request: JoinHandle<(String, String)>) -> (String, String) {
    actix_web::rt::task::spawn_blocking(move || request.join().unwrap())
        .await
        .unwrap()
}

/// [`get`] off the test's runtime.
async fn get_async(addr: &str, path: &str, key: &str) -> (String, String) {
    answer(spawn_get(addr, path, key)).await
}

fn spawn_get(addr: &str, path: &str, key: &str) -> JoinHandle<(String, String)> {
    let (addr, path, key) = (addr.to_owned(), path.to_owned(), key.to_owned());
    std::thread::spawn(move || get(&addr, &path, &key))
}

#[actix_web::test]
async fn past_capacity_a_new_request_is_refused_at_once_with_retry_after() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let app = app.with_max_queue_wait(Duration::from_millis(50));
    // One blocking thread: store calls queue behind each other.
    let addr = app.serve_with_blocking_threads(1);
    let w = app.world();
    let key = w.a.key.clone();
    let warehouse = format!("/api/v1/warehouses/{}", w.a_warehouse);
    let db = app.db();
    let (status, _) = get_async(&addr, &warehouse, &key).await;
    assert!(status.starts_with("http/1.1 200"), "{status}");

    // A SCIM list holds the only thread, waiting for the table lock.
    let listing_lock = db.lock_table("people").unwrap();
    let listing = spawn_get(&addr, "/scim/v2/Users?count=5", &key);
    pause(300).await;
    // Two requests queue behind it.
    let first = spawn_get(&addr, &warehouse, &key);
    pause(100).await;
    let second = spawn_get(&addr, &warehouse, &key);
    pause(100).await;
    // When the list ends, both start after waits of 100 ms and more; the
    // first then holds the thread on a lock of its own, the second waits.
    let warehouses_lock = db.lock_table("warehouses").unwrap();
    drop(listing_lock);
    pause(300).await;

    let asked = Instant::now();
    let (refused, body) = get_async(&addr, &warehouse, &key).await;
    let waited = asked.elapsed();
    assert!(refused.starts_with("http/1.1 503"), "{refused}\n{body}");
    assert!(refused.contains("\r\nretry-after: 1"), "{refused}");
    assert!(body.contains("capacity"), "{body}");
    assert!(waited < Duration::from_secs(2), "refused after {waited:?}");

    // The admitted requests are answered in full.
    drop(warehouses_lock);
    for request in [listing, first, second] {
        let (head, body) = answer(request).await;
        assert!(head.starts_with("http/1.1 200"), "{head}\n{body}");
    }
    // Nothing waits any more: new requests are admitted again.
    let (head, _) = get_async(&addr, &warehouse, &key).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
}

#[actix_web::test]
async fn a_request_whose_client_has_gone_is_not_started() {
    let Some(app) = TestApp::postgres().await else {
        return;
    };
    let addr = app.serve_with_blocking_threads(1);
    let w = app.world();
    let key = w.a.key.clone();
    let listing_lock = app.db().lock_table("people").unwrap();
    let listing = spawn_get(&addr, "/scim/v2/Users?count=5", &key);
    pause(300).await;

    // A create queues behind the list, and its client gives up.
    let body = serde_json::json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": "gone@example.com",
        "name": {"givenName": "Gone", "familyName": "Away"},
        "emails": [{"value": "gone@example.com", "primary": true}],
        "active": true
    })
    .to_string();
    let mut conn = TcpStream::connect(&addr).unwrap();
    write!(
        conn,
        "POST /scim/v2/Users HTTP/1.1\r\nHost: {addr}\r\nAuthorization: ApiKey {key}\r\n\
         Content-Type: application/scim+json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    pause(100).await;
    conn.shutdown(Shutdown::Both).unwrap();
    drop(conn);
    pause(100).await;

    drop(listing_lock);
    let (head, _) = answer(listing).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    pause(300).await;
    let (head, found) = get_async(
        &addr,
        "/scim/v2/Users?filter=userName%20eq%20%22gone@example.com%22",
        &key,
    )
    .await;
    assert!(head.starts_with("http/1.1 200"), "{head}\n{found}");
    assert!(found.contains("\"totalResults\":0"), "{found}");
}
