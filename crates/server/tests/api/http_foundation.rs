//! Black-box tests of the foundation endpoints through the real application
//! (routes, extractors, error mapping, the Diesel store), on SQLite and on
//! PostgreSQL: warehouses, inventory levels, health, and the error bodies.
use crate::support::TestApp;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};

on_both_backends!(
    health_and_readiness_need_no_key,
    unknown_paths_and_methods_answer_with_the_area_body,
    missing_malformed_unknown_and_revoked_keys_are_401,
    a_key_without_the_scope_is_403,
    warehouse_is_returned_to_its_owner_and_to_granted_organizations,
    warehouse_of_another_organization_or_not_granted_is_404,
    malformed_ids_are_400_naming_the_parameter,
    inventory_level_lifecycle,
    inventory_level_creation_rejects_bad_input,
    inventory_level_of_another_organization_is_404,
    concurrent_deactivations_yield_one_204,
    concurrent_creates_of_one_level_yield_one_201,
);

fn assert_api_error(body: &Value, source: &str) {
    let errors = body["errors"].as_array().expect("errors array");
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["source"], source, "{body}");
    assert!(
        errors[0]["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{body}"
    );
}

async fn health_and_readiness_need_no_key(app: TestApp) {
    let (status, body) = app.call(TestRequest::get().uri("/healthz")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    let (status, body) = app.call(TestRequest::get().uri("/readyz")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ready");
}

async fn unknown_paths_and_methods_answer_with_the_area_body(app: TestApp) {
    let w = app.world();
    let (status, body) = app.call(w.a.get("/api/v1/nothing-here")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_api_error(&body, "path");

    let resp = app.call_raw(w.a.get("/scim/v2/NoSuchResource")).await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    assert_eq!(resp.content_type.as_deref(), Some("application/scim+json"));
    let body: Value = serde_json::from_slice(&resp.body).unwrap();
    assert_eq!(
        body["schemas"],
        json!(["urn:ietf:params:scim:api:messages:2.0:Error"])
    );
    assert_eq!(body["status"], "404");

    let path = format!("/api/v1/warehouses/{}", w.a_warehouse);
    let resp = app.call_raw(w.a.with(TestRequest::post().uri(&path))).await;
    assert_eq!(resp.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(resp.allow.as_deref(), Some("GET, HEAD"));
    let body: Value = serde_json::from_slice(&resp.body).unwrap();
    assert_api_error(&body, "method");
}

async fn missing_malformed_unknown_and_revoked_keys_are_401(app: TestApp) {
    let w = app.world();
    let path = format!("/api/v1/warehouses/{}", w.a_warehouse);
    let forged = format!("ApiKey equip_{}_{}", "0".repeat(16), "0".repeat(64));
    let headers: Vec<Option<String>> = vec![
        None,
        Some("Bearer abc".into()),
        Some("ApiKey".into()),
        Some(forged),
        Some(format!("ApiKey {}", w.revoked_key)),
        Some(format!("ApiKey {}x", w.a.key)),
    ];
    for header in headers {
        let mut req = TestRequest::get().uri(&path);
        if let Some(h) = &header {
            req = req.insert_header(("Authorization", h.as_str()));
        }
        let resp = app.call_raw(req).await;
        assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{header:?}");
        assert_eq!(resp.content_type.as_deref(), Some("application/json"));
        let body: Value = serde_json::from_slice(&resp.body).unwrap();
        assert_api_error(&body, "authorization");
        assert!(!String::from_utf8_lossy(&resp.body).contains(&w.a.key));
    }
    // The same key works before revocation: revocation, not the shape, refused it.
    let (status, _) = app.call(w.a.get(&path)).await;
    assert_eq!(status, StatusCode::OK);
}

async fn a_key_without_the_scope_is_403(app: TestApp) {
    let w = app.world();
    let (status, body) = app
        .call(
            w.limited
                .get(&format!("/api/v1/warehouses/{}", w.a_warehouse)),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_api_error(&body, "authorization");
    assert!(body["errors"][0]["detail"]
        .as_str()
        .unwrap()
        .contains("warehouses:read"));
    let (status, _) = app
        .call(w.limited.delete(&format!(
            "/api/v1/inventory-levels/{}",
            uuid::Uuid::new_v4()
        )))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = app
        .call(w.limited.post_json("/api/v1/inventory-levels", &json!({})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // The limited key holds inventory:read, so it may list levels.
    let (status, _) = app.call(w.limited.get("/api/v1/inventory-levels")).await;
    assert_eq!(status, StatusCode::OK);
}

async fn warehouse_is_returned_to_its_owner_and_to_granted_organizations(app: TestApp) {
    let w = app.world();
    let (status, body) = app
        .call(w.a.get(&format!("/api/v1/warehouses/{}", w.a_warehouse)))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["id"], w.a_warehouse.to_string());
    assert_eq!(body["name"], "Berlin Central");
    assert_eq!(body["address"]["city"], "Berlin");
    assert_eq!(body["address"]["countryCode"], "DE");
    assert_eq!(body["address"]["postalCode"], "10115");

    let (status, body) = app
        .call(w.a.get(&format!("/api/v1/warehouses/{}", w.shared_granted)))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["name"], "Operator EU Hub");
    assert_eq!(body["address"], Value::Null, "address not configured yet");
}

async fn warehouse_of_another_organization_or_not_granted_is_404(app: TestApp) {
    let w = app.world();
    for id in [
        w.b_warehouse,
        w.shared_not_granted,
        equip_domain::ids::WarehouseId::new(),
    ] {
        let (status, body) = app.call(w.a.get(&format!("/api/v1/warehouses/{id}"))).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{id}");
        assert_api_error(&body, "warehouse");
        assert!(!body.to_string().contains("Hamburg"), "nothing of B leaks");
    }
}

async fn malformed_ids_are_400_naming_the_parameter(app: TestApp) {
    let w = app.world();
    for path in ["/api/v1/warehouses/not-a-uuid", "/api/v1/warehouses/123"] {
        let (status, body) = app.call(w.a.get(path)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}");
        assert_api_error(&body, "id");
    }
    let (status, body) = app.call(w.a.delete("/api/v1/inventory-levels/xyz")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_api_error(&body, "id");
}

async fn inventory_level_lifecycle(app: TestApp) {
    let w = app.world();
    let body = json!({
        "skuId": w.a_sku, "warehouseId": w.a_warehouse,
        "minimumQuantity": 3, "targetQuantity": 12
    });
    let resp = app
        .call_raw(w.a.post_json("/api/v1/inventory-levels", &body))
        .await;
    assert_eq!(resp.status, StatusCode::CREATED);
    let created: Value = serde_json::from_slice(&resp.body).unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(
        resp.location.as_deref(),
        Some(format!("/api/v1/inventory-levels/{id}").as_str())
    );
    assert_eq!(created["active"], true);
    assert_eq!(created["minimumQuantity"], 3);
    assert_eq!(created["targetQuantity"], 12);
    assert_eq!(created["deactivatedAt"], Value::Null);

    // A second active level for the same SKU and warehouse is a conflict.
    let (status, err) = app
        .call(w.a.post_json("/api/v1/inventory-levels", &body))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_api_error(&err, "inventoryLevel");

    // A level in the shared, granted warehouse is fine.
    let shared = json!({
        "skuId": w.a_sku, "warehouseId": w.shared_granted,
        "minimumQuantity": 0, "targetQuantity": 0
    });
    let (status, _) = app
        .call(w.a.post_json("/api/v1/inventory-levels", &shared))
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let (status, list) = app.call(w.a.get("/api/v1/inventory-levels")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 2);

    let (status, _) = app
        .call(w.a.delete(&format!("/api/v1/inventory-levels/{id}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, err) = app
        .call(w.a.delete(&format!("/api/v1/inventory-levels/{id}")))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_api_error(&err, "inventoryLevel");

    // Kept, inactive, with its deactivation time.
    let (_, list) = app.call(w.a.get("/api/v1/inventory-levels")).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    let (_, all) = app
        .call(w.a.get("/api/v1/inventory-levels?includeInactive=true"))
        .await;
    let all = all["data"].as_array().unwrap();
    assert_eq!(all.len(), 2);
    let kept = all.iter().find(|l| l["id"] == id.as_str()).unwrap();
    assert_eq!(kept["active"], false);
    assert!(kept["deactivatedAt"].as_str().is_some());

    // Reactivation means a new configuration.
    let (status, _) = app
        .call(w.a.post_json("/api/v1/inventory-levels", &body))
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let (status, err) = app
        .call(w.a.get("/api/v1/inventory-levels?includeInactive=maybe"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_api_error(&err, "includeInactive");
}

async fn inventory_level_creation_rejects_bad_input(app: TestApp) {
    let w = app.world();
    let ok = json!({
        "skuId": w.a_sku, "warehouseId": w.a_warehouse,
        "minimumQuantity": 1, "targetQuantity": 2
    });
    let with = |key: &str, value: Value| {
        let mut b = ok.clone();
        b[key] = value;
        b
    };
    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (
            with("skuId", json!("nope")),
            StatusCode::BAD_REQUEST,
            "skuId",
        ),
        (with("skuId", Value::Null), StatusCode::BAD_REQUEST, "skuId"),
        (
            with("warehouseId", json!(17)),
            StatusCode::BAD_REQUEST,
            "warehouseId",
        ),
        (
            with("minimumQuantity", json!("3")),
            StatusCode::BAD_REQUEST,
            "minimumQuantity",
        ),
        (
            with("minimumQuantity", json!(-1)),
            StatusCode::BAD_REQUEST,
            "minimumQuantity",
        ),
        (
            with("targetQuantity", json!(0)),
            StatusCode::BAD_REQUEST,
            "targetQuantity",
        ),
        (
            with("targetQuantity", json!(1.5)),
            StatusCode::BAD_REQUEST,
            "targetQuantity",
        ),
        (
            with("skuId", json!(w.b_sku)),
            StatusCode::NOT_FOUND,
            "skuId",
        ),
        (
            with("skuId", json!(uuid::Uuid::new_v4())),
            StatusCode::NOT_FOUND,
            "skuId",
        ),
        (
            with("warehouseId", json!(w.b_warehouse)),
            StatusCode::NOT_FOUND,
            "warehouseId",
        ),
        (
            with("warehouseId", json!(w.shared_not_granted)),
            StatusCode::NOT_FOUND,
            "warehouseId",
        ),
        (json!([1, 2]), StatusCode::BAD_REQUEST, "request"),
        // A member the body does not have is refused, not ignored (a
        // misspelt field would otherwise go unnoticed).
        (
            with("colour", json!("red")),
            StatusCode::BAD_REQUEST,
            "colour",
        ),
        (
            with("minimumQuantity", json!(3_000_000_000_i64)),
            StatusCode::BAD_REQUEST,
            "minimumQuantity",
        ),
    ];
    for (body, status, source) in cases {
        let (got, err) = app
            .call(w.a.post_json("/api/v1/inventory-levels", &body))
            .await;
        assert_eq!(got, status, "{body}");
        assert_api_error(&err, source);
    }

    // Malformed JSON, wrong media type, oversized body.
    let req =
        w.a.with(TestRequest::post().uri("/api/v1/inventory-levels"))
            .insert_header(("Content-Type", "application/json"))
            .set_payload("{\"skuId\": ");
    let (status, err) = app.call(req).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_api_error(&err, "request");

    let req =
        w.a.with(TestRequest::post().uri("/api/v1/inventory-levels"))
            .insert_header(("Content-Type", "text/plain"))
            .set_payload(ok.to_string());
    let (status, err) = app.call(req).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_api_error(&err, "Content-Type");

    let huge = json!({"skuId": w.a_sku, "padding": "x".repeat(2 * 1024 * 1024)});
    let (status, err) = app
        .call(w.a.post_json("/api/v1/inventory-levels", &huge))
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_api_error(&err, "request");

    // Nothing was created by any of these.
    let (_, list) = app
        .call(w.a.get("/api/v1/inventory-levels?includeInactive=true"))
        .await;
    assert_eq!(list["data"], json!([]));
}

async fn inventory_level_of_another_organization_is_404(app: TestApp) {
    let w = app.world();
    let body = json!({
        "skuId": w.b_sku, "warehouseId": w.b_warehouse,
        "minimumQuantity": 1, "targetQuantity": 5
    });
    let (status, created) = app
        .call(w.b.post_json("/api/v1/inventory-levels", &body))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let id = created["id"].as_str().unwrap();

    let (status, err) = app
        .call(w.a.delete(&format!("/api/v1/inventory-levels/{id}")))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_api_error(&err, "inventoryLevel");
    let (_, list) = app
        .call(w.a.get("/api/v1/inventory-levels?includeInactive=true"))
        .await;
    assert_eq!(list["data"], json!([]), "A sees none of B's levels");

    // B's level is untouched.
    let (_, list) = app.call(w.b.get("/api/v1/inventory-levels")).await;
    assert_eq!(list["data"][0]["active"], true);
    let (status, _) = app
        .call(w.a.delete(&format!(
            "/api/v1/inventory-levels/{}",
            uuid::Uuid::new_v4()
        )))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn concurrent_deactivations_yield_one_204(app: TestApp) {
    let w = app.world();
    let body = json!({
        "skuId": w.a_sku, "warehouseId": w.a_warehouse,
        "minimumQuantity": 1, "targetQuantity": 5
    });
    let (_, created) = app
        .call(w.a.post_json("/api/v1/inventory-levels", &body))
        .await;
    let path = format!(
        "/api/v1/inventory-levels/{}",
        created["id"].as_str().unwrap()
    );
    let statuses = app
        .call_concurrently((0..8).map(|_| w.a.delete(&path)).collect())
        .await;
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::NO_CONTENT)
            .count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::CONFLICT)
            .count(),
        7,
        "{statuses:?}"
    );
}

async fn concurrent_creates_of_one_level_yield_one_201(app: TestApp) {
    let w = app.world();
    let body = json!({
        "skuId": w.a_sku, "warehouseId": w.a_warehouse,
        "minimumQuantity": 1, "targetQuantity": 5
    });
    let statuses = app
        .call_concurrently(
            (0..8)
                .map(|_| w.a.post_json("/api/v1/inventory-levels", &body))
                .collect(),
        )
        .await;
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::CREATED)
            .count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::CONFLICT)
            .count(),
        7,
        "{statuses:?}"
    );
    let (_, list) = app.call(w.a.get("/api/v1/inventory-levels")).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}
