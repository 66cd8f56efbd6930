//! `GET /api/v1/warehouses`, on SQLite and PostgreSQL: the warehouses an
//! organization owns and the shared ones it was granted, exactly those
//! `GET /api/v1/warehouses/{id}` answers, in the same JSON, by name then id;
//! never another organization's or an ungranted shared one; 403 without
//! `warehouses:read`, 401 without a valid key.
use crate::support::{Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::ids::WarehouseId;
use equip_domain::import::ImportBatch;
use equip_domain::location::{Warehouse, WarehouseOwner};
use equip_domain::ports::WarehouseGrants;
use equip_domain::services::{admin, import};
use serde_json::Value;

on_both_backends!(
    the_list_is_what_each_warehouse_read_answers,
    grants_decide_what_shared_warehouses_are_listed,
    the_list_needs_warehouses_read,
);

const PATH: &str = "/api/v1/warehouses";

/// The listed warehouses' ids, in order.
fn ids(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {body}"))
        .iter()
        .map(|w| w["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn list(app: &TestApp, client: &Client) -> Value {
    let (status, body) = app.call(client.get(PATH)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body.as_object().unwrap().len(), 1, "only data: {body}");
    body
}

async fn the_list_is_what_each_warehouse_read_answers(app: TestApp) {
    let w = app.world();
    let a = list(&app, &w.a).await;
    // "Berlin Central" (owned), "Operator EU Hub" (shared, granted).
    assert_eq!(
        ids(&a),
        [w.a_warehouse.to_string(), w.shared_granted.to_string()]
    );
    for listed in a["data"].as_array().unwrap() {
        let id = listed["id"].as_str().unwrap();
        let (status, one) = app.call(w.a.get(&format!("{PATH}/{id}"))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(listed, &one, "the same JSON as the read by id");
    }
    assert_eq!(a["data"][0]["name"], "Berlin Central");
    assert_eq!(a["data"][0]["address"]["city"], "Berlin");
    assert!(a["data"][1]["address"].is_null(), "not configured: null");

    let b = list(&app, &w.b).await;
    assert_eq!(
        ids(&b),
        [w.b_warehouse.to_string(), w.shared_not_granted.to_string()]
    );
    // Neither sees the other's.
    for id in [w.b_warehouse, w.shared_not_granted] {
        assert!(!a.to_string().contains(&id.to_string()));
    }
    for id in [w.a_warehouse, w.shared_granted] {
        assert!(!b.to_string().contains(&id.to_string()));
    }

    // More of A's own: by name (byte order), then id.
    let mk = |name: &str| Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(w.a_org),
        name: name.into(),
        address: None,
    };
    let mut twins = [mk("Twin"), mk("Twin")];
    twins.sort_by_key(|t| t.id);
    let (aachen, lower) = (mk("Aachen"), mk("aachen"));
    let batch = ImportBatch {
        warehouses: vec![
            lower.clone(),
            twins[1].clone(),
            aachen.clone(),
            twins[0].clone(),
        ],
        ..ImportBatch::default()
    };
    import::run_import(&*app.store, w.a_org, &batch, &mut |_| {}).unwrap();
    let a = list(&app, &w.a).await;
    let expected: Vec<String> = [
        aachen.id,
        w.a_warehouse,
        w.shared_granted,
        twins[0].id,
        twins[1].id,
        lower.id,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(ids(&a), expected);
    // B's list did not change.
    assert_eq!(ids(&list(&app, &w.b).await), ids(&b));
}

async fn grants_decide_what_shared_warehouses_are_listed(app: TestApp) {
    let w = app.world();
    let before = [w.a_warehouse.to_string(), w.shared_granted.to_string()];
    assert_eq!(ids(&list(&app, &w.a).await), before);
    // The operator grants A the hub B uses: listed, and readable by id.
    assert!(app
        .store
        .grant_warehouse(w.shared_not_granted, w.a_org, Utc::now())
        .unwrap());
    let a = list(&app, &w.a).await;
    assert_eq!(
        ids(&a),
        [
            w.a_warehouse.to_string(),
            w.shared_granted.to_string(),
            w.shared_not_granted.to_string()
        ]
    );
    let (status, _) = app
        .call(w.a.get(&format!("{PATH}/{}", w.shared_not_granted)))
        .await;
    assert_eq!(status, StatusCode::OK);
    // Taken back: gone from the list, and 404 by id.
    assert!(app
        .store
        .revoke_warehouse_grant(w.shared_not_granted, w.a_org)
        .unwrap());
    assert_eq!(ids(&list(&app, &w.a).await), before);
    let (status, _) = app
        .call(w.a.get(&format!("{PATH}/{}", w.shared_not_granted)))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // B still has it.
    assert!(ids(&list(&app, &w.b).await).contains(&w.shared_not_granted.to_string()));

    // An organization without warehouses: an empty list.
    let now = Utc::now();
    let c = admin::create_organization(&*app.store, "Org C", now).unwrap();
    let key = admin::issue_api_key(
        &*app.store,
        c.id,
        Scopes::from_list([Scope::WarehousesRead]),
        None,
        now,
    )
    .unwrap();
    let body = list(&app, &Client { key: key.secret }).await;
    assert_eq!(body, serde_json::json!({"data": []}));
}

async fn the_list_needs_warehouses_read(app: TestApp) {
    let w = app.world();
    // inventory:read only: 403 naming the scope, before anything is read.
    let (status, body) = app.call(w.limited.get(PATH)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["errors"][0]["source"], "authorization");
    assert_eq!(
        body["errors"][0]["detail"],
        "this API key lacks the 'warehouses:read' scope"
    );
    // Only warehouses:read: enough.
    let now = Utc::now();
    let reader = admin::issue_api_key(
        &*app.store,
        w.a_org,
        Scopes::from_list([Scope::WarehousesRead]),
        None,
        now,
    )
    .unwrap();
    let body = list(&app, &Client { key: reader.secret }).await;
    assert_eq!(
        ids(&body),
        [w.a_warehouse.to_string(), w.shared_granted.to_string()]
    );
    // Without a key, or with a revoked one: 401.
    for req in [
        TestRequest::get().uri(PATH),
        Client {
            key: w.revoked_key.clone(),
        }
        .get(PATH),
    ] {
        let (status, body) = app.call(req).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert_eq!(body["errors"][0]["source"], "authorization");
    }
    // Other methods: 405.
    let raw = app
        .call_raw(w.a.post_json(PATH, &serde_json::json!({"name": "x"})))
        .await;
    assert_eq!(raw.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(raw.allow.as_deref(), Some("GET, HEAD"));
}
