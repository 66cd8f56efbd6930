//! Request limits through the real application: URL and header sizes, the
//! request timeout, and a database pool that has no free connection (503 with
//! the area's body, within the pool's timeout, never a hang). Bodies over the
//! per-route limits are covered with their routes (http_foundation, Bulk, CSV).
use std::time::{Duration, Instant};

use crate::support::{Raw, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_http::Limits;
use equip_persistence::test_support::TestDatabase;
use equip_persistence::PoolOptions;
use serde_json::Value;

fn body(raw: &Raw) -> Value {
    serde_json::from_slice(&raw.body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&raw.body)))
}

/// The `/api/v1` error body naming `source`; its detail.
fn api_error(raw: &Raw, source: &str) -> String {
    assert_eq!(raw.content_type.as_deref(), Some("application/json"));
    let body = body(raw);
    assert_eq!(body["errors"][0]["source"], source, "{body}");
    body["errors"][0]["detail"].as_str().unwrap().to_owned()
}

/// The SCIM error body with `status`.
fn scim_error(raw: &Raw, status: u16) {
    assert_eq!(raw.content_type.as_deref(), Some("application/scim+json"));
    let body = body(raw);
    assert_eq!(body["status"], status.to_string(), "{body}");
    assert_eq!(
        body["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:Error"
    );
}

#[actix_web::test]
async fn a_url_over_8_kib_is_414_with_the_area_body() {
    let app = TestApp::sqlite().await;
    let w = app.world();
    // Just under the limit: the listing refuses the unknown parameter (400),
    // so the request got through the limit.
    let filler = "x".repeat(8 * 1024 - "/api/v1/inventory?pad=".len());
    let raw = app
        .call_raw(w.a.get(&format!("/api/v1/inventory?pad={filler}")))
        .await;
    assert_eq!(raw.status, StatusCode::BAD_REQUEST);

    let raw = app
        .call_raw(w.a.get(&format!("/api/v1/inventory?pad={filler}x")))
        .await;
    assert_eq!(raw.status, StatusCode::URI_TOO_LONG);
    let detail = api_error(&raw, "request");
    assert!(detail.contains("8192"), "{detail}");

    let long = "a".repeat(9 * 1024);
    let raw = app
        .call_raw(w.a.get(&format!(
            "/scim/v2/Users?filter=userName%20eq%20%22{long}%22"
        )))
        .await;
    assert_eq!(raw.status, StatusCode::URI_TOO_LONG);
    scim_error(&raw, 414);
}

#[actix_web::test]
async fn headers_over_32_kib_are_431_with_the_area_body() {
    let app = TestApp::sqlite().await;
    let w = app.world();
    let big = "v".repeat(4 * 1024);
    let mut req = w.a.get("/api/v1/inventory");
    for n in 0..7 {
        req = req.insert_header((format!("x-pad-{n}"), big.clone()));
    }
    // About 28 KiB: accepted.
    assert_eq!(app.call_raw(req).await.status, StatusCode::OK);

    let mut req = w.a.get("/api/v1/inventory");
    for n in 0..9 {
        req = req.insert_header((format!("x-pad-{n}"), big.clone()));
    }
    let raw = app.call_raw(req).await;
    assert_eq!(raw.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    api_error(&raw, "request");
}

/// A pool of one connection, held by a write session: requests wait the
/// pool's timeout, then get 503 with a body; once the connection is free they
/// succeed again.
async fn a_pool_without_a_free_connection_answers_503_in_time(db: TestDatabase) {
    let pool = PoolOptions {
        max_size: 1,
        connection_timeout: Duration::from_millis(300),
        min_idle: 1,
        statement_timeout: None,
        ..PoolOptions::default()
    };
    let app = TestApp::over_with(db, pool, Limits::default());
    let w = app.world();
    assert_eq!(
        app.call_raw(w.a.get("/api/v1/inventory")).await.status,
        StatusCode::OK
    );

    let held = app.store.session().unwrap();
    let started = Instant::now();
    let raw = app.call_raw(w.a.get("/api/v1/inventory")).await;
    let waited = started.elapsed();
    assert_eq!(raw.status, StatusCode::SERVICE_UNAVAILABLE);
    api_error(&raw, "server");
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");

    let raw = app.call_raw(w.a.get("/scim/v2/Users")).await;
    assert_eq!(raw.status, StatusCode::SERVICE_UNAVAILABLE);
    scim_error(&raw, 503);

    drop(held);
    assert_eq!(
        app.call_raw(w.a.get("/api/v1/inventory")).await.status,
        StatusCode::OK
    );
}

#[actix_web::test]
async fn sqlite_pool_without_a_free_connection_answers_503_in_time() {
    a_pool_without_a_free_connection_answers_503_in_time(TestDatabase::sqlite()).await;
}

#[actix_web::test]
async fn postgres_pool_without_a_free_connection_answers_503_in_time() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    a_pool_without_a_free_connection_answers_503_in_time(db).await;
}

/// A request still waiting when its time runs out is answered 503 with the
/// area's body at the time limit, not when the work would have ended; uploads
/// have their own, longer limit.
#[actix_web::test]
async fn a_request_over_its_time_limit_is_503_at_the_limit() {
    let pool = PoolOptions {
        max_size: 1,
        connection_timeout: Duration::from_secs(5),
        min_idle: 1,
        statement_timeout: None,
        ..PoolOptions::default()
    };
    let limits = Limits {
        request_timeout: Duration::from_millis(200),
        upload_timeout: Duration::from_secs(3),
        ..Limits::default()
    };
    let app = TestApp::over_with(TestDatabase::sqlite(), pool, limits);
    let w = app.world();
    let held = app.store.session().unwrap();

    let started = Instant::now();
    let raw = app.call_raw(w.a.get("/api/v1/inventory")).await;
    let waited = started.elapsed();
    assert_eq!(raw.status, StatusCode::SERVICE_UNAVAILABLE);
    let detail = api_error(&raw, "server");
    assert!(detail.contains("did not finish"), "{detail}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");

    let raw = app.call_raw(w.a.get("/scim/v2/Users")).await;
    assert_eq!(raw.status, StatusCode::SERVICE_UNAVAILABLE);
    scim_error(&raw, 503);

    // The Bulk endpoint waits longer than 200 ms: it gets the connection
    // once the session is released after 500 ms.
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        drop(held);
    });
    let bulk = serde_json::json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": []
    });
    let raw = app
        .call_raw(
            w.a.with(TestRequest::post().uri("/scim/v2/Bulk"))
                .insert_header(("content-type", "application/scim+json"))
                .set_payload(bulk.to_string()),
        )
        .await;
    release.join().unwrap();
    assert_eq!(
        raw.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&raw.body)
    );
}
