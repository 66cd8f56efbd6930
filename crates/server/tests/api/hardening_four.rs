//! Issue 47, "Hardening 4" (items 12 to 16), black-box on SQLite and
//! PostgreSQL: a flood of sign-in starts from one client address does not
//! keep the organization's other people out; receipt and hold-release
//! events name the hold's fields; a key that may only write returns gets
//! back only what it may read; ID tokens from a clock more than 60 s ahead
//! are refused; `equip index rebuild` brings rows changed in the database
//! directly into the listing.

use std::process::Command;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

use crate::http_receipts::{item, leaver, put_json, receive};
use crate::http_sso::{organization_with_items, sign_in, sign_in_configured, Browser, Provider};
use crate::support::process::{request, Serve};
use crate::support::{Client, TestApp};

on_both_backends!(
    receipt_and_release_events_name_the_hold_fields,
    a_key_that_may_only_write_returns_gets_back_what_it_may_read,
);

// ---------------------------------------------------------------------------
// Item 13: the hold's fields in the item's events.

/// The item's last event in the feed.
async fn last_event_of(app: &TestApp, client: &Client, item: &str) -> Value {
    let (status, feed) = app
        .call(client.get(&format!("/api/v1/events?subjectId={item}&size=1000")))
        .await;
    assert_eq!(status, StatusCode::OK, "{feed}");
    feed["data"].as_array().unwrap().last().unwrap().clone()
}

async fn receipt_and_release_events_name_the_hold_fields(app: TestApp) {
    let w = app.world();
    let (status, _) = app
        .call(put_json(
            &w.a,
            "/api/v1/organization/settings",
            &json!({"holdPeriodDays": 10}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, items) = leaver(&app, "heldevents", 1).await;
    let id = &items[0];
    // IT disposition asked on the line: the receipt stamps it on the item.
    let before = item(&app, &w.a, id).await;
    let order = before["returnOrder"]["id"].as_str().unwrap().to_owned();
    let line = before["returnOrder"]["returnOrderItemId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) = app
        .call(
            w.a.with(TestRequest::patch().uri(&format!("/api/v1/return-orders/{order}")))
                .set_json(json!({"lines": [{"id": line, "itadRequested": true}]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    receive(&app, &w.a, w.a_warehouse, json!([{"itemId": id}])).await;
    let held = item(&app, &w.a, id).await;
    let received = last_event_of(&app, &w.a, id).await;
    assert_eq!(received["type"], "inventory.item.updated", "{received}");
    let changes = &received["changes"];
    assert_eq!(
        changes["holdStartDate"],
        json!({"from": null, "to": held["holdStartDate"]}),
        "{received}"
    );
    assert_eq!(
        changes["unlockDate"],
        json!({"from": null, "to": held["unlockDate"]}),
        "{received}"
    );
    assert_eq!(
        changes["itadRequested"],
        json!({"from": null, "to": true}),
        "{received}"
    );

    let (status, _) = app
        .call(w.a.with(TestRequest::post().uri(&format!("/api/v1/inventory/{id}/release-hold"))))
        .await;
    assert_eq!(status, StatusCode::OK);
    let released = last_event_of(&app, &w.a, id).await;
    let changes = &released["changes"];
    assert_eq!(
        changes["holdStartDate"],
        json!({"from": held["holdStartDate"], "to": null}),
        "{released}"
    );
    assert_eq!(
        changes["unlockDate"],
        json!({"from": held["unlockDate"], "to": null}),
        "{released}"
    );
    assert_eq!(
        changes["itadRequested"],
        json!({"from": true, "to": null}),
        "{released}"
    );
    assert_eq!(
        changes["deployReason"],
        json!({"from": "PENDING_HOLD_RELEASE", "to": "MARKED_FOR_DESTRUCTION"}),
        "{released}"
    );
}

// ---------------------------------------------------------------------------
// Item 14: a key that may only write returns.

async fn a_key_that_may_only_write_returns_gets_back_what_it_may_read(app: TestApp) {
    let w = app.world();
    let key = |scopes| Client {
        key: admin::issue_api_key(&*app.store, w.a_org, scopes, None, Utc::now())
            .unwrap()
            .secret,
    };
    let writer = key(Scopes::from_list([Scope::ReturnsWrite]));
    let reader_writer = key(Scopes::from_list([Scope::ReturnsWrite, Scope::ReturnsRead]));

    // A person with two deployed items.
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": "repair@acme.example",
        "name": {"givenName": "Rita", "familyName": "Repair"},
        "emails": [{"primary": true, "value": "repair@acme.example", "type": "work"}],
        "active": true
    });
    let (status, created) = app.call(w.a.scim_post("/scim/v2/Users", &user)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let person = created["id"].as_str().unwrap().to_owned();
    let mut items = Vec::new();
    for k in 1..=2 {
        let body = json!({"skuId": w.a_sku, "deployStatus": "DEPLOYED", "condition": "USED_GOOD",
            "serialNumber": format!("repair-{k}"), "assignedTo": {"type": "PERSON", "id": person}});
        let (status, made) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
        assert_eq!(status, StatusCode::CREATED, "{made}");
        items.push(made["id"].as_str().unwrap().to_owned());
    }

    // Create: only the id (and where it is) to the key that may not read it.
    let raw = app
        .call_raw(writer.post_json(
            "/api/v1/return-orders",
            &json!({"personId": person, "itemIds": [items[0]]}),
        ))
        .await;
    assert_eq!(raw.status, StatusCode::CREATED);
    let answer: Value = serde_json::from_slice(&raw.body).unwrap();
    let order = answer["id"].as_str().unwrap().to_owned();
    assert_eq!(answer, json!({ "id": order }), "only the id");
    assert_eq!(
        raw.location.as_deref(),
        Some(format!("/api/v1/return-orders/{order}").as_str())
    );
    // The key that may read gets the order.
    let (status, full) = app
        .call(reader_writer.post_json(
            "/api/v1/return-orders",
            &json!({"personId": person, "itemIds": [items[1]]}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{full}");
    assert_eq!(full["status"], "PENDING", "{full}");
    assert!(full["lines"].is_array(), "{full}");

    // PATCH: 204 without a body to the key that may not read.
    let patch = |client: &Client, order: &str, body: Value| {
        client
            .with(TestRequest::patch().uri(&format!("/api/v1/return-orders/{order}")))
            .set_json(body)
    };
    let raw = app
        .call_raw(patch(
            &writer,
            &order,
            json!({"retrievalMethod": {"type": "PHYSICAL"}}),
        ))
        .await;
    assert_eq!(
        raw.status,
        StatusCode::NO_CONTENT,
        "{}",
        String::from_utf8_lossy(&raw.body)
    );
    assert!(raw.body.is_empty());
    // It was changed all the same.
    let (_, stored) = app
        .call(w.a.get(&format!("/api/v1/return-orders/{order}")))
        .await;
    assert_eq!(stored["retrievalMethod"]["type"], "PHYSICAL", "{stored}");
    let second = full["id"].as_str().unwrap();
    let (status, changed) = app
        .call(patch(
            &reader_writer,
            second,
            json!({"retrievalMethod": {"type": "PHYSICAL"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["retrievalMethod"]["type"], "PHYSICAL");
    // Refusals still say why.
    let (status, refused) = app
        .call(patch(
            &writer,
            &order,
            json!({"retrievalMethod": {"type": "TELEPORT"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");

    // Release-hold: the item only to a key that may read items.
    app.call(put_json(
        &w.a,
        "/api/v1/organization/settings",
        &json!({"holdPeriodDays": 10}),
    ))
    .await;
    let (_, held) = leaver(&app, "writeonly", 2).await;
    receive(
        &app,
        &w.a,
        w.a_warehouse,
        json!([{"itemId": held[0]}, {"itemId": held[1]}]),
    )
    .await;
    let release =
        |id: &str| TestRequest::post().uri(&format!("/api/v1/inventory/{id}/release-hold"));
    let raw = app.call_raw(writer.with(release(&held[0]))).await;
    assert_eq!(raw.status, StatusCode::NO_CONTENT);
    assert!(
        raw.body.is_empty(),
        "{}",
        String::from_utf8_lossy(&raw.body)
    );
    let after = item(&app, &w.a, &held[0]).await;
    assert_eq!(after["unlockDate"], Value::Null, "released: {after}");
    // returns:read does not read items: still no item.
    let raw = app.call_raw(reader_writer.with(release(&held[1]))).await;
    assert_eq!(raw.status, StatusCode::NO_CONTENT);
    // A key that may read items gets it.
    let (status, _) = app.call(writer.with(release(&held[1]))).await;
    assert_eq!(status, StatusCode::CONFLICT, "released already");
    let (_, more) = leaver(&app, "withread", 1).await;
    receive(&app, &w.a, w.a_warehouse, json!([{"itemId": more[0]}])).await;
    let (status, body) = app.call(w.a.with(release(&more[0]))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["id"], more[0].as_str());
}

// ---------------------------------------------------------------------------
// Items 12 and 15: sign-in, against the real OpenID provider.

/// The status of `GET /sso/{org}/login` at `serve` with `headers`.
fn login_start(serve: &Serve, org: &str, headers: &[(&str, &str)]) -> u16 {
    request(
        &serve.addr,
        "GET",
        &format!("/sso/{org}/login"),
        headers,
        b"",
    )
    .unwrap()
    .status
}

fn one_address_cannot_keep_an_organization_out(db: &TestDatabase) {
    let Some(provider) = Provider::start() else {
        return;
    };
    let (_, org) = organization_with_items(db, "Flooded");
    let proxied = Serve::start(db.url(), &["--trust-forwarded-headers"]);
    let direct = Serve::start(db.url(), &[]);
    sign_in_configured(db, &provider, &[&proxied, &direct], &org);

    // Behind a trusted proxy: 60 sign-in starts from one address, faster
    // than the organization's old limit (20 a second, bursts of 40) took.
    let flooder = [("X-Forwarded-For", "192.0.2.66")];
    let statuses: Vec<u16> = (0..60)
        .map(|_| login_start(&proxied, &org, &flooder))
        .collect();
    assert!(
        statuses.iter().all(|s| *s == 303 || *s == 429),
        "{statuses:?}"
    );
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert!(refused > 0, "the flooding address is limited: {statuses:?}");
    assert_eq!(statuses[0], 303, "{statuses:?}");
    // Other people of the organization, at other addresses, still sign in.
    for person in ["198.51.100.7", "198.51.100.8", "2001:db8:7::1"] {
        let status = login_start(&proxied, &org, &[("X-Forwarded-For", person)]);
        assert_eq!(status, 303, "{person} is not kept out by the flood");
    }
    // The 429 is a page that says so.
    let page = request(
        &proxied.addr,
        "GET",
        &format!("/sso/{org}/login"),
        &flooder,
        b"",
    )
    .unwrap();
    assert_eq!(page.status, 429);
    assert!(page.text().contains("Too many sign-ins"), "{}", page.text());

    // Without --trust-forwarded-headers a client cannot escape its limit
    // by naming other addresses: the peer counts.
    let statuses: Vec<u16> = (0..30)
        .map(|n| {
            let spoofed = format!("203.0.113.{n}");
            login_start(&direct, &org, &[("X-Forwarded-For", spoofed.as_str())])
        })
        .collect();
    assert!(
        statuses.contains(&429),
        "X-Forwarded-For is not trusted: {statuses:?}"
    );
}

#[test]
fn one_address_cannot_keep_an_organization_out_sqlite() {
    one_address_cannot_keep_an_organization_out(&TestDatabase::sqlite());
}

#[test]
fn one_address_cannot_keep_an_organization_out_postgres() {
    if let Some(db) = TestDatabase::postgres() {
        one_address_cannot_keep_an_organization_out(&db);
    }
}

fn id_tokens_from_the_future_are_refused(db: &TestDatabase) {
    let Some(provider) = Provider::start() else {
        return;
    };
    let (_, org) = organization_with_items(db, "Clocks");
    let serve = Serve::start(db.url(), &[]);
    sign_in_configured(db, &provider, &[&serve], &org);

    for (shift, why) in [
        ("iat=7200", "issued two hours ahead"),
        ("nbf=600", "not valid for ten minutes"),
        ("iat=90&nbf=90", "90 s ahead"),
    ] {
        provider.hook(&format!("shift-next-id-token?{shift}"));
        let mut browser = Browser::default();
        let (_, answer) = sign_in(&mut browser, &serve, &org, &provider, "admin");
        assert_eq!(answer.status, 401, "{why}: {}", answer.text());
        assert!(
            answer.text().contains("could not be verified"),
            "{why}: {}",
            answer.text()
        );
        assert!(!browser.cookies.contains_key("equip_session"), "{why}");
    }
    // Within the documented 60 s: signed in.
    provider.hook("shift-next-id-token?iat=30&nbf=30");
    let mut browser = Browser::default();
    let (_, answer) = sign_in(&mut browser, &serve, &org, &provider, "admin");
    assert_eq!(answer.status, 303, "{}", answer.text());
    assert!(browser.cookies.contains_key("equip_session"));
}

#[test]
fn id_tokens_from_the_future_are_refused_sqlite() {
    id_tokens_from_the_future_are_refused(&TestDatabase::sqlite());
}

#[test]
fn id_tokens_from_the_future_are_refused_postgres() {
    if let Some(db) = TestDatabase::postgres() {
        id_tokens_from_the_future_are_refused(&db);
    }
}

// ---------------------------------------------------------------------------
// Item 16: `equip index rebuild --org`.

fn equip(db: &TestDatabase, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(args)
        .env("DATABASE_URL", db.url())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn the_listing_follows_a_rebuild_after_direct_changes(db: &TestDatabase) {
    let (key, org) = organization_with_items(db, "Direct");
    let serve = Serve::start(db.url(), &[]);
    let api = serve.client(&key);
    let listed = api.get("/api/v1/inventory?size=100").unwrap().json();
    let first = listed["data"][0].clone();
    let id = first["id"].as_str().unwrap().to_owned();
    let total = listed["pagination"]["totalRecords"].as_u64().unwrap();

    // Changed behind equip's back: the listing (and its index in the
    // running server) does not know.
    db.execute(&format!(
        "UPDATE inventory_items SET description = 'Changed by hand' WHERE id = '{id}'"
    ));
    let search = "/api/v1/inventory?searchString=changed%20by%20hand";
    let stale = api.get(search).unwrap().json();
    assert_eq!(stale["pagination"]["totalRecords"], 0, "{stale}");
    let single = api.get(&format!("/api/v1/inventory/{id}")).unwrap().json();
    assert_eq!(
        single["description"], "Changed by hand",
        "the item itself is read"
    );

    let out = equip(db, &["index", "rebuild", "--org", &org]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains(&format!("{total} items")), "{said}");

    // The running server answers from the re-read rows: its search, the
    // page's rendered item and the total.
    let found = api.get(search).unwrap().json();
    assert_eq!(found["pagination"]["totalRecords"], 1, "{found}");
    assert_eq!(found["data"][0]["id"], id.as_str());
    assert_eq!(found["data"][0]["description"], "Changed by hand");
    let all = api.get("/api/v1/inventory?size=100").unwrap().json();
    assert_eq!(all["pagination"]["totalRecords"], total);
    // Rows nobody changed are as they were.
    let unchanged = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == listed["data"][1]["id"])
        .unwrap();
    assert_eq!(*unchanged, listed["data"][1]);

    // An unknown organization and a malformed id are said plainly.
    let unknown = uuid::Uuid::new_v4().to_string();
    let out = equip(db, &["index", "rebuild", "--org", &unknown]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains(&format!("no organization {unknown}")),
        "{said}"
    );
    let out = equip(db, &["index", "rebuild", "--org", "acme"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("--org"), "{said}");
}

#[test]
fn the_listing_follows_a_rebuild_after_direct_changes_sqlite() {
    the_listing_follows_a_rebuild_after_direct_changes(&TestDatabase::sqlite());
}

#[test]
fn the_listing_follows_a_rebuild_after_direct_changes_postgres() {
    if let Some(db) = TestDatabase::postgres() {
        the_listing_follows_a_rebuild_after_direct_changes(&db);
    }
}
