//! `GET /api/v1/api-key`, the key a request carries, on SQLite and
//! PostgreSQL: any valid key may ask, whatever its scopes (none included),
//! and sees exactly its own record, never the secret or the hash, never
//! another key's or organization's; without a valid key 401; the key's rate
//! limit applies; a key without scopes gets nothing else.
use std::collections::BTreeSet;

use crate::support::{revoke_key, Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::{DateTime, SecondsFormat, Utc};
use equip_domain::api_key::{ApiKey, PresentedKey, Scope, Scopes};
use equip_domain::ids::OrganizationId;
use equip_domain::ports::{ApiKeyRepository, OrganizationRepository};
use equip_domain::services::admin;
use serde_json::Value;

on_both_backends!(
    every_key_sees_exactly_its_own_record,
    without_a_valid_key_it_is_401,
    a_key_without_scopes_reads_itself_and_nothing_else,
    the_rate_limit_applies,
);

const PATH: &str = "/api/v1/api-key";

/// The stored record of the key `secret`.
fn record(app: &TestApp, secret: &str) -> ApiKey {
    let presented = PresentedKey::parse(secret).unwrap();
    app.store
        .find_api_key_by_prefix(presented.prefix())
        .unwrap()
        .unwrap()
}

/// A new key of `org` with `scopes` and `label`.
fn issue(app: &TestApp, org: OrganizationId, scopes: Scopes, label: Option<&str>) -> Client {
    let key = admin::issue_api_key(
        &*app.store,
        org,
        scopes,
        label.map(str::to_owned),
        Utc::now(),
    )
    .unwrap();
    Client { key: key.secret }
}

/// Checks the answer to `client` is exactly its record.
async fn assert_own_record(app: &TestApp, client: &Client) -> Value {
    let (status, body) = app.call(client.get(PATH)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let key = record(app, &client.key);
    let fields: BTreeSet<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        BTreeSet::from([
            "id",
            "prefix",
            "label",
            "organizationId",
            "organizationName",
            "scopes",
            "createdAt"
        ]),
        "{body}"
    );
    assert_eq!(body["id"], key.id.to_string());
    assert_eq!(body["prefix"], key.prefix);
    assert_eq!(&client.key[6..22], key.prefix, "the key's public part");
    assert_eq!(body["organizationId"], key.organization_id.to_string());
    let organization = app
        .store
        .find_organization(key.organization_id)
        .unwrap()
        .unwrap();
    assert_eq!(body["organizationName"], organization.name.as_str());
    assert_eq!(body["label"].as_str(), key.label.as_deref());
    let scopes: Vec<&str> = key.scopes.as_slice().iter().map(|s| s.as_str()).collect();
    assert_eq!(body["scopes"], serde_json::json!(scopes), "in stored order");
    let created = DateTime::parse_from_rfc3339(body["createdAt"].as_str().unwrap()).unwrap();
    assert_eq!(
        created.to_rfc3339_opts(SecondsFormat::Millis, true),
        key.created_at.to_rfc3339_opts(SecondsFormat::Millis, true)
    );
    let text = body.to_string();
    assert!(!text.contains(&client.key[23..]), "the secret");
    assert!(!text.contains(&key.hash), "the hash");
    body
}

async fn every_key_sees_exactly_its_own_record(app: TestApp) {
    let w = app.world();
    let none = issue(&app, w.a_org, Scopes::default(), Some("console"));
    let two = issue(
        &app,
        w.a_org,
        Scopes::from_list([Scope::WebhooksWrite, Scope::Scim, Scope::WarehousesRead]),
        None,
    );
    let b_narrow = issue(
        &app,
        w.b_org,
        Scopes::from_list([Scope::EventsRead]),
        Some("B reader"),
    );
    let mut seen = BTreeSet::new();
    for (client, org, scopes) in [
        (&w.a, w.a_org, Scope::ALL.to_vec()),
        (&w.limited, w.a_org, vec![Scope::InventoryRead]),
        (&none, w.a_org, vec![]),
        (
            &two,
            w.a_org,
            vec![Scope::WarehousesRead, Scope::Scim, Scope::WebhooksWrite],
        ),
        (&w.b, w.b_org, Scope::ALL.to_vec()),
        (&b_narrow, w.b_org, vec![Scope::EventsRead]),
    ] {
        let body = assert_own_record(&app, client).await;
        assert_eq!(body["organizationId"], org.to_string(), "{body}");
        let expected: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
        assert_eq!(body["scopes"], serde_json::json!(expected), "{body}");
        assert!(
            seen.insert(body["id"].as_str().unwrap().to_owned()),
            "one key each"
        );
    }
    let (_, body) = app.call(none.get(PATH)).await;
    assert_eq!(body["label"], "console");
    let (_, body) = app.call(two.get(PATH)).await;
    assert!(body["label"].is_null());
    // HEAD answers as GET does.
    let raw = app
        .call_raw(
            none.with(
                TestRequest::default()
                    .method(actix_web::http::Method::HEAD)
                    .uri(PATH),
            ),
        )
        .await;
    assert_eq!(raw.status, StatusCode::OK);
    // Query parameters change nothing: there is no other key to ask for.
    let other_id = record(&app, &w.b.key).id;
    let (status, body) = app
        .call(none.get(&format!("{PATH}?id={other_id}&prefix=x")))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["id"], record(&app, &none.key).id.to_string());
}

async fn without_a_valid_key_it_is_401(app: TestApp) {
    let w = app.world();
    let missing = TestRequest::get().uri(PATH);
    let malformed = TestRequest::get()
        .uri(PATH)
        .insert_header(("Authorization", "Bearer abc"));
    let unknown = Client {
        key: format!("equip_{}_{}", "0".repeat(16), "0".repeat(64)),
    }
    .get(PATH);
    let revoked = Client {
        key: w.revoked_key.clone(),
    }
    .get(PATH);
    let head = TestRequest::default()
        .method(actix_web::http::Method::HEAD)
        .uri(PATH);
    for (what, req, detail) in [
        ("missing", missing, "missing Authorization header"),
        ("malformed", malformed, "malformed Authorization header"),
        ("unknown", unknown, "unknown API key"),
        ("revoked", revoked, "revoked API key"),
        ("HEAD", head, ""),
    ] {
        let raw = app.call_raw(req).await;
        assert_eq!(raw.status, StatusCode::UNAUTHORIZED, "{what}");
        assert_eq!(
            raw.header("www-authenticate"),
            Some("ApiKey realm=\"equip\""),
            "{what}"
        );
        if what == "HEAD" {
            continue;
        }
        let body: Value = serde_json::from_slice(&raw.body).unwrap();
        assert_eq!(body["errors"][0]["source"], "authorization", "{what}");
        assert!(
            body["errors"][0]["detail"]
                .as_str()
                .unwrap()
                .starts_with(detail),
            "{what}: {body}"
        );
    }

    // A key that worked stops working once revoked.
    let none = issue(&app, w.a_org, Scopes::default(), None);
    assert_eq!(app.call(none.get(PATH)).await.0, StatusCode::OK);
    revoke_key(&*app.store, &none.key);
    let (status, body) = app.call(none.get(PATH)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["errors"][0]["detail"], "revoked API key");
}

async fn a_key_without_scopes_reads_itself_and_nothing_else(app: TestApp) {
    let w = app.world();
    let none = issue(&app, w.a_org, Scopes::default(), None);
    assert_own_record(&app, &none).await;
    for (path, scope) in [
        ("/api/v1/warehouses".to_owned(), "warehouses:read"),
        (
            format!("/api/v1/warehouses/{}", w.a_warehouse),
            "warehouses:read",
        ),
        ("/api/v1/inventory".to_owned(), "inventory:read"),
        ("/api/inventory".to_owned(), "inventory:read"),
        ("/api/v1/inventory-levels".to_owned(), "inventory:read"),
        ("/api/v1/events".to_owned(), "events:read"),
        ("/api/v1/webhooks".to_owned(), "webhooks:write"),
        ("/scim/v2/Users".to_owned(), "scim"),
    ] {
        let (status, body) = app.call(none.get(&path)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        assert!(body.to_string().contains(scope), "{path}: {body}");
    }
    let (status, _) = app
        .call(none.post_json("/api/v1/inventory", &serde_json::json!({})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Other methods of the path: 405 with Allow, as everywhere.
    let raw = app.call_raw(none.with(TestRequest::post().uri(PATH))).await;
    assert_eq!(raw.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(raw.allow.as_deref(), Some("GET, HEAD"));
}

async fn the_rate_limit_applies(app: TestApp) {
    let w = app.world();
    let app = app.with_rate_limit(1);
    let none = issue(&app, w.a_org, Scopes::default(), None);
    // A burst of 2 (refilled at 1 a second), then 429 with the API error
    // body.
    let mut statuses = Vec::new();
    for _ in 0..20 {
        let raw = app.call_raw(none.get(PATH)).await;
        statuses.push(raw.status);
        if raw.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(raw.header("retry-after").is_some());
            let body: Value = serde_json::from_slice(&raw.body).unwrap();
            assert!(body["errors"][0]["detail"].is_string(), "{body}");
            return;
        }
        assert!(raw.header("ratelimit-remaining").is_some());
    }
    panic!("no 429 at 1 a second: {statuses:?}");
}
