//! What a client needs to show names and an overview, on SQLite and
//! PostgreSQL: `GET /api/v1/skus` and `GET /api/v1/offices` (the
//! organization's own, in order, every field), `GET /api/v1/inventory-summary`
//! (the counts equal the in-memory reference's and the listing's
//! `totalRecords`; holds ending within a week counted with both ends of the
//! window), `GET /api/v1/api-keys` (the organization's keys with labels,
//! revoked ones included, never a secret or hash), and the scopes (403).
use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::{Days, Utc};
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::ids::InventoryItemId;
use equip_domain::import::ImportBatch;
use equip_domain::inventory::DeployStatus;
use equip_domain::services::{admin, import};
use serde_json::Value;

use crate::support::inventory::{organization, seed};
use crate::support::{revoke_key, Client, TestApp};

on_both_backends!(
    skus_and_offices_are_the_organizations_own_in_order,
    the_summary_counts_what_the_listing_counts,
    holds_ending_within_a_week_are_counted,
    the_keys_are_named_without_secrets,
    scopes_decide_who_reads_them,
);

async fn ok(app: &TestApp, client: &Client, path: &str) -> Value {
    let (status, body) = app.call(client.get(path)).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

fn data(body: &Value) -> &Vec<Value> {
    body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {body}"))
}

async fn skus_and_offices_are_the_organizations_own_in_order(app: TestApp) {
    let w = app.world();
    let mine = seed(&app.store, &organization(w.a_org), 0);
    seed(&app.store, &organization(w.b_org), 0);
    let body = ok(&app, &w.a, "/api/v1/skus").await;
    let listed: Vec<(String, String)> = data(&body)
        .iter()
        .map(|s| {
            (
                s["categoryName"].as_str().unwrap().to_owned(),
                s["title"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // The world's own SKU of A comes too; B's never.
    let mut expected: Vec<(String, String)> = mine
        .skus
        .iter()
        .map(|s| (s.category_name.clone(), s.title.clone()))
        .collect();
    let world_sku = data(&body)
        .iter()
        .find(|s| s["id"] == w.a_sku.to_string())
        .expect("the world's SKU of A");
    expected.push((
        world_sku["categoryName"].as_str().unwrap().into(),
        world_sku["title"].as_str().unwrap().into(),
    ));
    expected.sort();
    assert_eq!(listed, expected, "by category name, then title");
    assert!(data(&body).iter().all(|s| s["id"] != w.b_sku.to_string()));
    let sku = mine
        .skus
        .iter()
        .find(|s| s.title == "ThinkPad X1 Carbon")
        .unwrap();
    let laptop = data(&body)
        .iter()
        .find(|s| s["id"] == sku.id.to_string())
        .unwrap();
    assert_eq!(
        *laptop,
        serde_json::json!({
            "id": sku.id.to_string(), "title": "ThinkPad X1 Carbon",
            "categoryCode": "LAPTOP", "categoryName": "Laptops",
            "vendorCode": "LENOVO", "vendorName": "Lenovo", "vendorSku": "21HM",
        })
    );

    let body = ok(&app, &w.a, "/api/v1/offices").await;
    assert_eq!(
        *data(&body),
        vec![serde_json::json!({"id": mine.office.to_string(), "name": "Lisbon Office"})],
        "A's office only"
    );
}

async fn the_summary_counts_what_the_listing_counts(app: TestApp) {
    let w = app.world();
    let s = seed(&app.store, &organization(w.a_org), 40);
    seed(&app.store, &organization(w.b_org), 7);
    let body = ok(&app, &w.a, "/api/v1/inventory-summary").await;
    let mut expected: BTreeMap<(String, String), u64> = BTreeMap::new();
    for item in &s.batch.inventory {
        let sku = s.skus.iter().find(|k| k.id == item.sku_id).unwrap();
        *expected
            .entry((
                item.deploy_status.as_str().into(),
                sku.category_code.clone(),
            ))
            .or_default() += 1;
    }
    let counts = body["counts"].as_array().unwrap();
    let got: BTreeMap<(String, String), u64> = counts
        .iter()
        .map(|c| {
            (
                (
                    c["deployStatus"].as_str().unwrap().into(),
                    c["categoryCode"].as_str().unwrap().into(),
                ),
                c["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected, "{body}");
    // In the statuses' order, then by category.
    let order: Vec<(usize, String)> = counts
        .iter()
        .map(|c| {
            (
                DeployStatus::ALL
                    .iter()
                    .position(|s| s.as_str() == c["deployStatus"])
                    .unwrap(),
                c["categoryCode"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    // Each count is the listing's totalRecords for that status and category.
    for c in counts.iter().take(4) {
        let path = format!(
            "/api/v1/inventory?deployStatuses={}&categories={}&size=1",
            c["deployStatus"].as_str().unwrap(),
            c["categoryCode"].as_str().unwrap()
        );
        let listed = ok(&app, &w.a, &path).await;
        assert_eq!(listed["pagination"]["totalRecords"], c["count"], "{path}");
    }
    assert_eq!(body["holdsEndingWithin7Days"], 0);

    // A change of status moves one item between counts.
    let item = s
        .batch
        .inventory
        .iter()
        .find(|i| i.deploy_status == DeployStatus::Available)
        .unwrap();
    let sku = s.skus.iter().find(|k| k.id == item.sku_id).unwrap();
    let (status, patched) = app
        .call(
            w.a.with(TestRequest::patch().uri(&format!("/api/v1/inventory/{}", item.id)))
                .set_json(serde_json::json!({"deployStatus": "UNAVAILABLE", "deployReason": "AWAITING_INFORMATION"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let after = ok(&app, &w.a, "/api/v1/inventory-summary").await;
    let count = |body: &Value, status: &str| {
        body["counts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["deployStatus"] == status && c["categoryCode"] == sku.category_code)
            .map_or(0, |c| c["count"].as_u64().unwrap())
    };
    assert_eq!(count(&after, "AVAILABLE"), count(&body, "AVAILABLE") - 1);
    assert_eq!(
        count(&after, "UNAVAILABLE"),
        count(&body, "UNAVAILABLE") + 1
    );
}

async fn holds_ending_within_a_week_are_counted(app: TestApp) {
    let w = app.world();
    let s = seed(&app.store, &organization(w.a_org), 6);
    let today = Utc::now().date_naive();
    let day = |n: i64| {
        if n >= 0 {
            today.checked_add_days(Days::new(n.unsigned_abs())).unwrap()
        } else {
            today.checked_sub_days(Days::new(n.unsigned_abs())).unwrap()
        }
    };
    // Ends yesterday (past), today, in 7 days (both ends in), in 8 days (out).
    let mut items = Vec::new();
    for n in [-1, 0, 7, 8] {
        let mut item = s.batch.inventory[1].clone();
        item.id = InventoryItemId::new();
        item.serial_number = Some(format!("HOLD-{n}"));
        item.hold_start_date = Some(day(n - 30));
        item.unlock_date = Some(day(n));
        items.push(item);
    }
    let batch = ImportBatch {
        inventory: items,
        ..ImportBatch::default()
    };
    import::run_import(&*app.store, w.a_org, &batch, &mut |_| {}).unwrap();
    let body = ok(&app, &w.a, "/api/v1/inventory-summary").await;
    assert_eq!(body["holdsEndingWithin7Days"], 2, "{body}");
    // Another organization sees none of them.
    let theirs = ok(&app, &w.b, "/api/v1/inventory-summary").await;
    assert_eq!(theirs["holdsEndingWithin7Days"], 0);
}

async fn the_keys_are_named_without_secrets(app: TestApp) {
    let w = app.world();
    let labelled = admin::issue_api_key(
        &*app.store,
        w.a_org,
        Scopes::from_list([Scope::EventsRead]),
        Some("People team console".into()),
        Utc::now(),
    )
    .unwrap();
    let gone =
        admin::issue_api_key(&*app.store, w.a_org, Scopes::default(), None, Utc::now()).unwrap();
    revoke_key(&*app.store, &gone.secret);
    let theirs = admin::issue_api_key(
        &*app.store,
        w.b_org,
        Scopes::default(),
        Some("B".into()),
        Utc::now(),
    )
    .unwrap();

    let body = ok(&app, &w.a, "/api/v1/api-keys").await;
    let keys = data(&body);
    let ids: Vec<&str> = keys.iter().map(|k| k["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&labelled.record.id.to_string().as_str()));
    assert!(
        ids.contains(&gone.record.id.to_string().as_str()),
        "revoked keys name past actors"
    );
    assert!(
        !ids.contains(&theirs.record.id.to_string().as_str()),
        "B's key"
    );
    let named = keys
        .iter()
        .find(|k| k["id"] == labelled.record.id.to_string())
        .unwrap();
    assert_eq!(named["label"], "People team console");
    assert_eq!(named["prefix"], labelled.record.prefix);
    assert!(named["revokedAt"].is_null());
    let revoked = keys
        .iter()
        .find(|k| k["id"] == gone.record.id.to_string())
        .unwrap();
    assert!(revoked["revokedAt"].is_string());
    assert!(revoked["label"].is_null());
    for k in keys {
        let fields: Vec<&String> = k.as_object().unwrap().keys().collect();
        assert_eq!(
            fields.len(),
            5,
            "id, prefix, label, createdAt, revokedAt: {k}"
        );
    }
    let text = body.to_string();
    assert!(!text.contains(&labelled.secret[23..]), "a secret");
    assert!(!text.contains(&labelled.record.hash), "a hash");
    let created: Vec<&str> = keys
        .iter()
        .map(|k| k["createdAt"].as_str().unwrap())
        .collect();
    let mut sorted = created.clone();
    sorted.sort();
    assert_eq!(created, sorted, "oldest first");
}

async fn scopes_decide_who_reads_them(app: TestApp) {
    let w = app.world();
    let events_only = Client {
        key: admin::issue_api_key(
            &*app.store,
            w.a_org,
            Scopes::from_list([Scope::EventsRead]),
            None,
            Utc::now(),
        )
        .unwrap()
        .secret,
    };
    for path in [
        "/api/v1/skus",
        "/api/v1/offices",
        "/api/v1/inventory-summary",
    ] {
        assert_eq!(
            app.call(w.limited.get(path)).await.0,
            StatusCode::OK,
            "{path}"
        );
        let (status, body) = app.call(events_only.get(path)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
    }
    let (status, _) = app.call(w.limited.get("/api/v1/api-keys")).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "names of keys need events:read"
    );
    assert_eq!(
        app.call(events_only.get("/api/v1/api-keys")).await.0,
        StatusCode::OK
    );
}
