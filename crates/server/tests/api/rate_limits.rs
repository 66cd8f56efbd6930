//! Per-key rate limits (`equip serve --rate-limit N`, crates/http/src/rate_limit.rs),
//! on SQLite and PostgreSQL: N requests a second per API key with bursts of
//! 2N; past it 429 with `Retry-After` and `RateLimit-*` headers, in the
//! area's error body; one key's limit never touches another key of the same
//! organization; 0 turns the limit off. And through the real binary, that
//! the flag is wired.
use std::time::{Duration, Instant};

use crate::support::process::{organization_with_key, Serve};
use crate::support::{Client, Raw, TestApp};
use actix_web::http::StatusCode;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use serde_json::Value;

on_both_backends!(
    an_api_key_past_its_burst_gets_429_with_the_api_error_body,
    an_api_key_past_its_burst_gets_429_with_the_scim_error_body,
    the_limit_is_per_key_not_per_organization,
    after_retry_after_the_key_is_served_again,
    rate_limit_zero_limits_nothing,
    requests_without_a_valid_key_are_not_counted,
);

/// The limit of these tests: 5 a second, bursts of 10.
const RATE: u32 = 5;
const BURST: usize = 10;

const API_PATH: &str = "/api/v1/inventory";
const SCIM_PATH: &str = "/scim/v2/Users";

/// Sends GET `path` with `client`'s key until the first 429 (at most 60
/// requests); the successes before it and the 429.
async fn until_refused(app: &TestApp, client: &Client, path: &str) -> (usize, Raw) {
    let started = Instant::now();
    for served in 0..60 {
        let raw = app.call_raw(client.get(path)).await;
        if raw.status == StatusCode::TOO_MANY_REQUESTS {
            // The bucket starts full (the burst) and refills at RATE a
            // second while the requests are made.
            let refilled = (started.elapsed().as_secs_f64() * f64::from(RATE)).ceil() as usize;
            assert!(
                (BURST..=BURST + refilled + 1).contains(&served),
                "429 after {served} requests (burst {BURST}, {refilled} refilled)"
            );
            return (served, raw);
        }
        assert_eq!(raw.status, StatusCode::OK, "request {served}");
        // Within the limit: what is left of the burst.
        assert_eq!(
            raw.header("ratelimit-limit"),
            Some("10"),
            "request {served}"
        );
        assert!(
            raw.header("ratelimit-remaining").is_some(),
            "request {served}"
        );
    }
    panic!("no 429 in 60 requests at {RATE}/s");
}

/// The headers every 429 carries; its `Retry-After` in seconds.
fn assert_rate_limit_headers(raw: &Raw) -> u64 {
    let retry_after: u64 = raw
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("Retry-After in whole seconds");
    assert!(retry_after >= 1, "Retry-After {retry_after}");
    assert_eq!(raw.header("ratelimit-limit"), Some("10"));
    assert_eq!(raw.header("ratelimit-remaining"), Some("0"));
    let reset: u64 = raw
        .header("ratelimit-reset")
        .expect("RateLimit-Reset")
        .parse()
        .expect("RateLimit-Reset in whole seconds");
    assert!(
        reset >= retry_after,
        "reset {reset} < retry-after {retry_after}"
    );
    retry_after
}

fn json(raw: &Raw) -> Value {
    serde_json::from_slice(&raw.body).expect("JSON body")
}

async fn an_api_key_past_its_burst_gets_429_with_the_api_error_body(app: TestApp) {
    let app = app.with_rate_limit(RATE);
    let w = app.world();
    let (_, refused) = until_refused(&app, &w.a, API_PATH).await;
    assert_rate_limit_headers(&refused);
    assert_eq!(refused.content_type.as_deref(), Some("application/json"));
    let body = json(&refused);
    let errors = body["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{body}");
    assert!(errors[0]["detail"].as_str().unwrap().contains("rate limit"));
    assert_eq!(errors[0]["source"], "authorization");
    // The OpenAPI document declares it, with its headers.
    let doc = equip_http::openapi::document();
    let declared = &doc["paths"][API_PATH]["get"]["responses"]["429"]["$ref"];
    assert_eq!(declared, "#/components/responses/TooManyRequests");
    let headers = &doc["components"]["responses"]["TooManyRequests"]["headers"];
    for name in [
        "Retry-After",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
    ] {
        assert!(headers.get(name).is_some(), "{name} is not documented");
    }
}

async fn an_api_key_past_its_burst_gets_429_with_the_scim_error_body(app: TestApp) {
    let app = app.with_rate_limit(RATE);
    let w = app.world();
    let (_, refused) = until_refused(&app, &w.a, SCIM_PATH).await;
    assert_rate_limit_headers(&refused);
    assert_eq!(
        refused.content_type.as_deref(),
        Some("application/scim+json")
    );
    let body = json(&refused);
    assert_eq!(
        body["schemas"],
        serde_json::json!(["urn:ietf:params:scim:api:messages:2.0:Error"])
    );
    assert_eq!(body["status"], "429");
    assert!(body["detail"].as_str().unwrap().contains("rate limit"));
    assert!(body.get("errors").is_none(), "{body}");
}

async fn the_limit_is_per_key_not_per_organization(app: TestApp) {
    let app = app.with_rate_limit(RATE);
    let w = app.world();
    let other_key = Client {
        key: admin::issue_api_key(&*app.store, w.a_org, Scopes::all(), None, Utc::now())
            .unwrap()
            .secret,
    };
    until_refused(&app, &w.a, API_PATH).await;
    // A has just been refused; B, of the same organization, has its whole
    // burst (with one bucket per organization, it would have what A left).
    for n in 0..BURST {
        let raw = app.call_raw(other_key.get(API_PATH)).await;
        assert_eq!(raw.status, StatusCode::OK, "key B, request {n}");
    }
}

async fn after_retry_after_the_key_is_served_again(app: TestApp) {
    let app = app.with_rate_limit(RATE);
    let w = app.world();
    let (_, refused) = until_refused(&app, &w.a, SCIM_PATH).await;
    let retry_after = assert_rate_limit_headers(&refused);
    actix_web::rt::time::sleep(Duration::from_secs(retry_after)).await;
    let raw = app.call_raw(w.a.get(SCIM_PATH)).await;
    assert_eq!(raw.status, StatusCode::OK);
    // And on the other area: the key's bucket is shared by both.
    assert_eq!(app.call_raw(w.a.get(API_PATH)).await.status, StatusCode::OK);
}

async fn rate_limit_zero_limits_nothing(app: TestApp) {
    let app = app.with_rate_limit(0);
    let w = app.world();
    for n in 0..300 {
        let raw = app.call_raw(w.a.get(API_PATH)).await;
        assert_eq!(raw.status, StatusCode::OK, "request {n}");
        assert!(raw.header("ratelimit-limit").is_none());
    }
}

async fn requests_without_a_valid_key_are_not_counted(app: TestApp) {
    let app = app.with_rate_limit(RATE);
    let w = app.world();
    // A key of A's shape with the wrong secret, and a revoked key of A: 401
    // however many, never 429.
    let mut wrong_secret = w.a.key.clone();
    let last = if wrong_secret.ends_with('a') {
        "b"
    } else {
        "a"
    };
    wrong_secret.pop();
    wrong_secret.push_str(last);
    let unknown = Client { key: wrong_secret };
    let revoked = Client {
        key: w.revoked_key.clone(),
    };
    for n in 0..3 * BURST {
        for client in [&unknown, &revoked] {
            let raw = app.call_raw(client.get(API_PATH)).await;
            assert_eq!(raw.status, StatusCode::UNAUTHORIZED, "request {n}");
            assert!(raw.header("retry-after").is_none());
        }
    }
    // The valid key of the same organization still has its whole burst.
    for n in 0..BURST {
        let raw = app.call_raw(w.a.get(API_PATH)).await;
        assert_eq!(raw.status, StatusCode::OK, "request {n}");
    }
}

/// `equip serve --rate-limit 2`: bursts of 4, then 429 with the headers.
#[test]
fn the_serve_flag_sets_the_limit() {
    let db = TestDatabase::sqlite();
    let key = organization_with_key(&db, "Limited");
    let server = Serve::start(db.url(), &["--no-dispatcher", "--rate-limit", "2"]);
    let api = server.client(&key);
    let started = Instant::now();
    let mut statuses = Vec::new();
    for _ in 0..12 {
        statuses.push(api.get(API_PATH).unwrap());
    }
    let refilled = (started.elapsed().as_secs_f64() * 2.0).ceil() as usize;
    let served = statuses.iter().take_while(|r| r.status == 200).count();
    assert!(
        (4..=4 + refilled + 1).contains(&served),
        "served {served} before the first 429 (burst 4, {refilled} refilled): {:?}",
        statuses.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert_eq!(statuses[0].header("RateLimit-Limit"), Some("4"));
    let refused = statuses
        .iter()
        .find(|r| r.status == 429)
        .expect("a 429 in 12 requests at 2/s");
    assert!(
        refused
            .header("Retry-After")
            .unwrap()
            .parse::<u64>()
            .unwrap()
            >= 1
    );
    assert_eq!(refused.header("RateLimit-Limit"), Some("4"));
    assert_eq!(refused.header("RateLimit-Remaining"), Some("0"));
    assert!(refused.header("RateLimit-Reset").is_some());
    assert_eq!(refused.json()["errors"][0]["source"], "authorization");
}
