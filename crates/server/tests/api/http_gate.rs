//! The gate in front of every route (`crates/http/src/gate.rs`), on SQLite and
//! PostgreSQL: a missing, unknown or revoked key, or one without the scope, is
//! answered before the body is read and before any input is validated; query
//! values that are not UTF-8 are 400; `HEAD` answers like `GET` without a
//! body; links are based on configuration, not on forwarded headers.
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::scim::{okta_user, SCIM};
use crate::support::TestApp;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};

on_both_backends!(
    without_a_valid_key_nothing_is_validated,
    without_the_scope_nothing_is_validated,
    an_upload_without_a_valid_key_is_refused_before_its_body,
    query_values_that_are_not_utf8_are_400_naming_the_parameter,
    head_answers_like_get_without_a_body,
    links_ignore_forwarded_headers_unless_configured,
);

/// Requests that are each invalid in some way besides their key.
fn invalid_requests() -> Vec<(&'static str, TestRequest)> {
    let id = uuid::Uuid::new_v4();
    vec![
        (
            "SCIM filter",
            TestRequest::get().uri("/scim/v2/Users?filter=(((((("),
        ),
        (
            "SCIM PATCH {}",
            TestRequest::patch()
                .uri(&format!("/scim/v2/Users/{id}"))
                .insert_header(("Content-Type", SCIM))
                .set_payload("{}"),
        ),
        (
            "SCIM unknown id",
            TestRequest::get().uri("/scim/v2/Users/xyz"),
        ),
        (
            "SCIM broken JSON",
            TestRequest::post()
                .uri("/scim/v2/Users")
                .insert_header(("Content-Type", SCIM))
                .set_payload("{\"userName\":"),
        ),
        (
            "Bulk broken JSON",
            TestRequest::post()
                .uri("/scim/v2/Bulk")
                .insert_header(("Content-Type", SCIM))
                .set_payload("[["),
        ),
        (
            "CSV not multipart",
            TestRequest::post()
                .uri("/scim/v2/Users/csv")
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        ),
        (
            "level broken JSON",
            TestRequest::post()
                .uri("/api/v1/inventory-levels")
                .insert_header(("Content-Type", "application/json"))
                .set_payload("{"),
        ),
        (
            "item PATCH bad id",
            TestRequest::patch()
                .uri("/api/v1/inventory/not-a-uuid")
                .insert_header(("Content-Type", "application/json"))
                .set_payload("{"),
        ),
        (
            "listing bad size",
            TestRequest::get().uri("/api/v1/inventory?size=abc&nope=1"),
        ),
        (
            "warehouse bad id",
            TestRequest::get().uri("/api/v1/warehouses/not-a-uuid"),
        ),
        (
            "level bad id",
            TestRequest::delete().uri("/api/v1/inventory-levels/x"),
        ),
        (
            "reminders bad id",
            TestRequest::get().uri("/api/v1/new-joiners/x/reminders"),
        ),
    ]
}

async fn without_a_valid_key_nothing_is_validated(app: TestApp) {
    let w = app.world();
    let forged = format!("ApiKey equip_{}_{}", "0".repeat(16), "0".repeat(64));
    let keys = [
        None,
        Some(forged),
        Some(format!("ApiKey {}", w.revoked_key)),
        Some(format!("Bearer {}", w.revoked_key)),
    ];
    for key in keys {
        for (what, req) in invalid_requests() {
            let req = match &key {
                Some(k) => req.insert_header(("Authorization", k.as_str())),
                None => req,
            };
            let raw = app.call_raw(req).await;
            assert_eq!(
                raw.status,
                StatusCode::UNAUTHORIZED,
                "{what} with {key:?}: {}",
                String::from_utf8_lossy(&raw.body)
            );
        }
    }
}

async fn without_the_scope_nothing_is_validated(app: TestApp) {
    // `limited` holds only inventory:read: everything but the listing and the
    // levels' GET is refused 403 before its input is looked at.
    let w = app.world();
    for (what, req) in invalid_requests() {
        let raw = app.call_raw(w.limited.with(req)).await;
        let readable = what.starts_with("listing");
        let expected = if readable {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::FORBIDDEN
        };
        assert_eq!(
            raw.status,
            expected,
            "{what}: {}",
            String::from_utf8_lossy(&raw.body)
        );
    }
}

/// Sends the head of a request announcing a 10 MiB body, and a few bytes of
/// it; the answer must come without the rest.
fn answer_to_a_slow_upload(addr: &str, path: &str, auth: &str, content_type: &str) -> String {
    let mut conn = TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {auth}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        10 * 1024 * 1024
    );
    conn.write_all(head.as_bytes()).unwrap();
    conn.write_all(b"userName,emails\r\n").unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    let n = conn
        .read(&mut buf)
        .unwrap_or_else(|e| panic!("no answer to {path} before its body: {e}"));
    assert!(started.elapsed() < Duration::from_secs(5));
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

async fn an_upload_without_a_valid_key_is_refused_before_its_body(app: TestApp) {
    let w = app.world();
    let addr = app.serve();
    let unknown = format!("Bearer equip_{}_{}", "0".repeat(16), "0".repeat(64));
    let limited = format!("ApiKey {}", w.limited.key);
    let cases = [
        (
            "/scim/v2/Users/csv",
            unknown.as_str(),
            "multipart/form-data; boundary=x",
            "401",
        ),
        ("/scim/v2/Bulk", unknown.as_str(), SCIM, "401"),
        ("/scim/v2/Users", unknown.as_str(), SCIM, "401"),
        (
            "/scim/v2/Users/csv",
            limited.as_str(),
            "multipart/form-data; boundary=x",
            "403",
        ),
        (
            "/api/v1/inventory-levels",
            limited.as_str(),
            "application/json",
            "403",
        ),
    ];
    for (path, auth, content_type, status) in cases {
        let (path, auth, content_type) =
            (path.to_owned(), auth.to_owned(), content_type.to_owned());
        let addr = addr.clone();
        let answer = actix_web::rt::task::spawn_blocking(move || {
            answer_to_a_slow_upload(&addr, &path, &auth, &content_type)
        })
        .await
        .unwrap();
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}"
        );
    }
}

async fn query_values_that_are_not_utf8_are_400_naming_the_parameter(app: TestApp) {
    let w = app.world();
    let (status, body) = app
        .call(w.a.get("/api/v1/inventory?size=5&searchString=%ff%fe"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["errors"][0]["source"], "searchString", "{body}");
    let (status, body) = app
        .call(w.a.get("/scim/v2/Users?filter=userName%20eq%20%22%ff%22"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("filter"),
        "{body}"
    );
    // Valid UTF-8, escaped, still works.
    let (status, _) = app
        .call(w.a.get("/api/v1/inventory?searchString=caf%C3%A9"))
        .await;
    assert_eq!(status, StatusCode::OK);
}

async fn head_answers_like_get_without_a_body(app: TestApp) {
    let w = app.world();
    let (status, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("head@example.com")))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let user_path = format!("/scim/v2/Users/{}", user["id"].as_str().unwrap());
    let addr = app.serve();
    let paths = [
        "/healthz".to_owned(),
        "/api/v1/inventory?size=5".to_owned(),
        format!("/api/v1/warehouses/{}", w.a_warehouse),
        "/api/v1/warehouses".to_owned(),
        "/api/v1/api-key".to_owned(),
        user_path,
    ];
    for path in paths {
        let request = |method: &str| {
            format!(
                "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: ApiKey {}\r\nConnection: close\r\n\r\n",
                w.a.key
            )
        };
        let (addr2, get_req, head_req) = (addr.clone(), request("GET"), request("HEAD"));
        let ((get_head, get_body), (head_head, head_body)) =
            actix_web::rt::task::spawn_blocking(move || {
                (
                    crate::support::raw_exchange(&addr2, &get_req),
                    crate::support::raw_exchange(&addr2, &head_req),
                )
            })
            .await
            .unwrap();
        assert!(
            head_head.starts_with("http/1.1 200"),
            "HEAD {path}: {head_head}"
        );
        assert!(head_body.is_empty(), "HEAD {path} sent a body");
        assert!(!get_body.is_empty());
        let header = |head: &str, name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_owned))
        };
        assert_eq!(
            header(&head_head, "content-type"),
            header(&get_head, "content-type"),
            "{path}"
        );
        assert_eq!(
            header(&head_head, "content-length"),
            Some(get_body.len().to_string()),
            "{path}"
        );
    }
    // HEAD needs the key as GET does, and is listed in Allow.
    let raw = app
        .call_raw(
            TestRequest::default()
                .method(actix_web::http::Method::HEAD)
                .uri("/api/v1/inventory"),
        )
        .await;
    assert_eq!(raw.status, StatusCode::UNAUTHORIZED);
    let raw = app
        .call_raw(w.a.with(TestRequest::put().uri("/api/v1/inventory")))
        .await;
    assert_eq!(raw.allow.as_deref(), Some("GET, HEAD, POST"));
}

async fn links_ignore_forwarded_headers_unless_configured(app: TestApp) {
    let w = app.world();
    let forwarded = |req: TestRequest| {
        req.insert_header(("Host", "equip.internal:8080"))
            .insert_header(("X-Forwarded-Host", "evil.example"))
            .insert_header(("X-Forwarded-Proto", "javascript"))
            .insert_header(("Forwarded", "proto=javascript;host=evil.example"))
    };
    let raw = app
        .call_raw(forwarded(
            w.a.scim_post("/scim/v2/Users", &okta_user("fwd1@example.com")),
        ))
        .await;
    assert_eq!(raw.status, StatusCode::CREATED);
    let location = raw.location.unwrap();
    assert!(
        location.starts_with("http://equip.internal:8080/scim/v2/Users/"),
        "{location}"
    );
    let body: Value = serde_json::from_slice(&raw.body).unwrap();
    assert_eq!(body["meta"]["location"], json!(location));
    let (_, list) = app
        .call(forwarded(w.a.get(
            "/scim/v2/Users?filter=userName%20eq%20%22fwd1@example.com%22",
        )))
        .await;
    let listed = list["Resources"][0]["meta"]["location"].as_str().unwrap();
    assert!(!listed.contains("evil"), "{listed}");

    let app = app
        .with_public_url(equip_http::PublicUrl::configured("https://equip.example.com/").unwrap());
    let raw = app
        .call_raw(forwarded(
            w.a.scim_post("/scim/v2/Users", &okta_user("fwd2@example.com")),
        ))
        .await;
    let location = raw.location.unwrap();
    assert!(
        location.starts_with("https://equip.example.com/scim/v2/Users/"),
        "{location}"
    );
}
