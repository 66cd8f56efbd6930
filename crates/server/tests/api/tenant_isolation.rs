//! The tenant isolation matrix: organization A creates one of everything
//! (an inventory item, an inventory level, a SCIM user), then organization B's
//! key walks every route with A's ids. Each answer must be 404 (or, for lists,
//! a body without A's data), and no body B receives may contain any of A's ids
//! or names. A key revoked in the middle of the walk stops working at once.
//! Runs on SQLite and PostgreSQL.
use crate::support::scim::{okta_user, PATCH_OP};
use crate::support::{Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::ports::ApiKeyRepository;
use equip_domain::services::admin;
use serde_json::{json, Value};

on_both_backends!(
    another_organizations_ids_are_not_found_anywhere,
    a_key_revoked_mid_run_stops_at_once,
);

/// A's data: ids and names that must never reach B.
struct Secrets {
    item: String,
    level: String,
    user: String,
    words: Vec<String>,
}

async fn seed_a(app: &TestApp) -> Secrets {
    let w = app.world();
    let (status, item) = app
        .call(w.a.post_json(
            "/api/v1/inventory",
            &json!({"skuId": w.a_sku, "deployStatus": "AVAILABLE", "condition": "NEW",
                    "serialNumber": "SECRET-SERIAL-A1", "description": "secret laptop of A"}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    let (status, level) = app
        .call(w.a.post_json(
            "/api/v1/inventory-levels",
            &json!({"skuId": w.a_sku, "warehouseId": w.a_warehouse,
                    "minimumQuantity": 3, "targetQuantity": 12}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{level}");
    let (status, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("secret.ada@a.example")))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
    let s = |v: &Value| v.as_str().unwrap().to_owned();
    Secrets {
        item: s(&item["id"]),
        level: s(&level["id"]),
        user: s(&user["id"]),
        words: vec![
            s(&item["id"]),
            s(&level["id"]),
            s(&user["id"]),
            w.a_org.to_string(),
            w.a_warehouse.to_string(),
            w.a_sku.to_string(),
            "SECRET-SERIAL-A1".into(),
            "secret laptop of A".into(),
            "secret.ada@a.example".into(),
            "ThinkPad X1 Carbon".into(),
        ],
    }
}

/// The ids of A that B's request named `what` carries (in its path or body).
fn sent_ids(what: &str, a: &Secrets, w: &crate::support::World) -> Vec<String> {
    let ids: &[&str] = match what {
        "GET item" | "PATCH item" => &["item"],
        "POST item with A's SKU" => &["sku"],
        "GET A's warehouse" | "POST level in A's warehouse" | "inventory by A's warehouse" => {
            &["warehouse"]
        }
        "DELETE A's level" => &["level"],
        "remind A's person"
        | "A's person's reminders"
        | "GET user"
        | "PUT user"
        | "PATCH user"
        | "DELETE user"
        | "Bulk DELETE of A's user" => &["user"],
        // PUT also sends the userName.
        _ => &[],
    };
    let mut sent: Vec<String> = ids
        .iter()
        .map(|k| match *k {
            "item" => a.item.clone(),
            "level" => a.level.clone(),
            "user" => a.user.clone(),
            "sku" => w.a_sku.to_string(),
            _ => w.a_warehouse.to_string(),
        })
        .collect();
    if what == "PUT user" {
        sent.push("secret.ada@a.example".into());
    }
    sent
}

fn scim_json(c: &Client, req: TestRequest, body: &Value) -> TestRequest {
    c.with(req)
        .insert_header(("Content-Type", "application/scim+json"))
        .set_payload(body.to_string())
}

async fn another_organizations_ids_are_not_found_anywhere(app: TestApp) {
    let w = app.world();
    let a = seed_a(&app).await;
    let b = &w.b;
    let user = format!("/scim/v2/Users/{}", a.user);
    let deactivate = json!({"schemas": [PATCH_OP],
        "Operations": [{"op": "replace", "path": "active", "value": false}]});
    let filter = "/scim/v2/Users?filter=userName%20eq%20%22secret.ada%40a.example%22";
    let bulk = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": [{"method": "DELETE", "path": format!("/Users/{}", a.user)}]});
    // (what, request, the status B must get). An answer may echo an id B sent
    // itself (a 404 naming the id it asked for); nothing else of A may appear.
    let matrix: Vec<(String, TestRequest, StatusCode)> = vec![
        (
            "GET item".into(),
            b.get(&format!("/api/v1/inventory/{}", a.item)),
            StatusCode::NOT_FOUND,
        ),
        (
            "PATCH item".into(),
            b.with(TestRequest::patch().uri(&format!("/api/v1/inventory/{}", a.item)))
                .insert_header(("Content-Type", "application/json"))
                .set_payload(json!({"description": "stolen"}).to_string()),
            StatusCode::NOT_FOUND,
        ),
        (
            "POST item with A's SKU".into(),
            b.post_json(
                "/api/v1/inventory",
                &json!({"skuId": w.a_sku, "deployStatus": "AVAILABLE", "condition": "NEW"}),
            ),
            StatusCode::NOT_FOUND,
        ),
        (
            "GET A's warehouse".into(),
            b.get(&format!("/api/v1/warehouses/{}", w.a_warehouse)),
            StatusCode::NOT_FOUND,
        ),
        (
            "POST level in A's warehouse".into(),
            b.post_json(
                "/api/v1/inventory-levels",
                &json!({"skuId": w.b_sku, "warehouseId": w.a_warehouse,
                        "minimumQuantity": 1, "targetQuantity": 2}),
            ),
            StatusCode::NOT_FOUND,
        ),
        (
            "DELETE A's level".into(),
            b.delete(&format!("/api/v1/inventory-levels/{}", a.level)),
            StatusCode::NOT_FOUND,
        ),
        (
            "remind A's person".into(),
            b.with(TestRequest::post().uri(&format!("/api/v1/new-joiners/{}/remind", a.user))),
            StatusCode::NOT_FOUND,
        ),
        (
            "A's person's reminders".into(),
            b.get(&format!("/api/v1/new-joiners/{}/reminders", a.user)),
            StatusCode::NOT_FOUND,
        ),
        ("GET user".into(), b.get(&user), StatusCode::NOT_FOUND),
        (
            "PUT user".into(),
            scim_json(
                b,
                TestRequest::put().uri(&user),
                &okta_user("secret.ada@a.example"),
            ),
            StatusCode::NOT_FOUND,
        ),
        (
            "PATCH user".into(),
            scim_json(b, TestRequest::patch().uri(&user), &deactivate),
            StatusCode::NOT_FOUND,
        ),
        ("DELETE user".into(), b.delete(&user), StatusCode::NOT_FOUND),
        // Lists answer 200 without A's data (a filter naming A's warehouse: 404).
        (
            "list inventory".into(),
            b.get("/api/v1/inventory"),
            StatusCode::OK,
        ),
        (
            "search inventory".into(),
            b.get("/api/v1/inventory?searchString=SECRET"),
            StatusCode::OK,
        ),
        (
            "inventory by A's warehouse".into(),
            b.get(&format!("/api/v1/inventory?warehouseId={}", w.a_warehouse)),
            StatusCode::NOT_FOUND,
        ),
        (
            "list levels".into(),
            b.get("/api/v1/inventory-levels"),
            StatusCode::OK,
        ),
        ("list users".into(), b.get("/scim/v2/Users"), StatusCode::OK),
        ("filter users".into(), b.get(filter), StatusCode::OK),
        (
            "Bulk DELETE of A's user".into(),
            scim_json(b, TestRequest::post().uri("/scim/v2/Bulk"), &bulk),
            StatusCode::OK,
        ),
    ];
    for (what, req, expected) in matrix {
        let raw = app.call_raw(req).await;
        assert_eq!(
            raw.status,
            expected,
            "{what}: {}",
            String::from_utf8_lossy(&raw.body)
        );
        let body = String::from_utf8_lossy(&raw.body);
        let sent = sent_ids(&what, &a, &w);
        for secret in a.words.iter().filter(|s| !sent.contains(s)) {
            assert!(
                !body.contains(secret.as_str()),
                "{what}: B's answer holds A's {secret:?}: {body}"
            );
        }
    }
    // Nothing of A changed: its item, level and user are as A left them.
    let (status, item) = app
        .call(w.a.get(&format!("/api/v1/inventory/{}", a.item)))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(item["description"], "secret laptop of A");
    let (status, user) = app
        .call(w.a.get(&format!("/scim/v2/Users/{}", a.user)))
        .await;
    assert_eq!(status, StatusCode::OK, "B's DELETE and Bulk left A's user");
    assert_eq!(user["active"], true);
    assert_eq!(user["meta"]["version"], "W/\"1\"");
    let (_, levels) = app.call(w.a.get("/api/v1/inventory-levels")).await;
    assert!(levels.to_string().contains(&a.level), "A's level is active");
}

async fn a_key_revoked_mid_run_stops_at_once(app: TestApp) {
    let w = app.world();
    let now = Utc::now();
    let issued = admin::issue_api_key(&*app.store, w.a_org, Scopes::all(), None, now).unwrap();
    let c = Client {
        key: issued.secret.clone(),
    };
    for path in ["/api/v1/inventory", "/scim/v2/Users"] {
        let (status, _) = app.call(c.get(path)).await;
        assert_eq!(status, StatusCode::OK, "{path}");
    }
    app.store.revoke_api_key(issued.record.id, now).unwrap();
    for path in [
        "/api/v1/inventory",
        "/scim/v2/Users",
        "/api/v1/inventory-levels",
    ] {
        let (status, _) = app.call(c.get(path)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} after revocation");
    }
    let (status, _) = app
        .call(c.scim_post("/scim/v2/Users", &okta_user("late@a.example")))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
