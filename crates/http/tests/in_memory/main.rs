//! The whole HTTP app over the domain's in-memory store: the handlers, the
//! gate and the error mapping, without a database. The same behaviour over the
//! real store, on SQLite and PostgreSQL, is proven by `crates/server/tests`;
//! these show that any store implementing the domain's ports runs the app.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::test;
use chrono::Utc;
use serde_json::{json, Value};

use equip_domain::api_key::{Scope, Scopes};
use equip_domain::services::admin::issue_api_key;
use equip_domain::testing::{fixtures, InMemoryStore};
use equip_http::AppState;

mod groups;

/// A store with one seeded organization, and a key of it with `scopes`.
fn world(scopes: Scopes) -> (Arc<InMemoryStore>, fixtures::Seeded, String) {
    let store = Arc::new(InMemoryStore::default());
    let seeded = fixtures::seed(&store);
    let key = issue_api_key(&*store, seeded.org.id, scopes, None, Utc::now())
        .unwrap_or_else(|e| panic!("issuing a key: {e}"));
    (store, seeded, key.secret)
}

fn auth(key: &str) -> (&'static str, String) {
    ("Authorization", format!("ApiKey {key}"))
}

#[actix_web::test]
async fn a_key_is_checked_before_anything_else() {
    let (store, seeded, _) = world(Scopes::all());
    let reader = issue_api_key(
        &*store,
        seeded.org.id,
        Scopes::from_list([Scope::InventoryRead]),
        None,
        Utc::now(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .secret;
    let app = test::init_service(equip_http::app(AppState::new(store))).await;
    let url = format!("/api/v1/warehouses/{}", seeded.warehouse.id);
    let missing = test::TestRequest::get().uri(&url).to_request();
    let res = test::call_service(&app, missing).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let wrong_scope = test::TestRequest::get()
        .uri(&url)
        .insert_header(auth(&reader))
        .to_request();
    let res = test::call_service(&app, wrong_scope).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[actix_web::test]
async fn another_organizations_warehouse_is_not_found() {
    let (store, seeded, key) = world(Scopes::all());
    let other = fixtures::seed(&store);
    let app = test::init_service(equip_http::app(AppState::new(store))).await;
    let get = |id: String| {
        test::TestRequest::get()
            .uri(&format!("/api/v1/warehouses/{id}"))
            .insert_header(auth(&key))
            .to_request()
    };
    let res = test::call_service(&app, get(seeded.warehouse.id.to_string())).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = test::read_body_json(res).await;
    assert_eq!(body["name"], "Berlin");
    let res = test::call_service(&app, get(other.warehouse.id.to_string())).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[actix_web::test]
async fn the_warehouse_list_and_the_own_key_over_the_in_memory_store() {
    let (store, seeded, key) = world(Scopes::all());
    let other = fixtures::seed(&store);
    let no_scopes = issue_api_key(&*store, seeded.org.id, Scopes::default(), None, Utc::now())
        .unwrap_or_else(|e| panic!("{e}"))
        .secret;
    let app = test::init_service(equip_http::app(AppState::new(store))).await;
    let get = |path: &str, key: &str| {
        test::TestRequest::get()
            .uri(path)
            .insert_header(auth(key))
            .to_request()
    };
    let res = test::call_service(&app, get("/api/v1/warehouses", &key)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = test::read_body_json(res).await;
    assert_eq!(
        body,
        json!({"data": [{"id": seeded.warehouse.id, "name": "Berlin", "address": null}]})
    );
    assert!(!body.to_string().contains(&other.warehouse.id.to_string()));
    let res = test::call_service(&app, get("/api/v1/warehouses", &no_scopes)).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = test::call_service(&app, get("/api/v1/api-key", &no_scopes)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = test::read_body_json(res).await;
    assert_eq!(body["organizationId"], json!(seeded.org.id));
    assert_eq!(body["scopes"], json!([]));
}

#[actix_web::test]
async fn a_created_item_is_listed_and_bad_input_is_a_400_naming_the_field() {
    let (store, seeded, key) = world(Scopes::all());
    let app = test::init_service(equip_http::app(AppState::new(store))).await;
    let create = test::TestRequest::post()
        .uri("/api/v1/inventory")
        .insert_header(auth(&key))
        .set_json(json!({
            "skuId": seeded.sku.id,
            "serialNumber": "C02MEMORY",
            "deployStatus": "AVAILABLE",
            "condition": "NEW",
            "assignedTo": {"type": "WAREHOUSE", "id": seeded.warehouse.id},
        }))
        .to_request();
    let res = test::call_service(&app, create).await;
    assert_eq!(res.status(), StatusCode::CREATED);

    let list = test::TestRequest::get()
        .uri("/api/v1/inventory?searchString=memory")
        .insert_header(auth(&key))
        .to_request();
    let res = test::call_service(&app, list).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = test::read_body_json(res).await;
    assert_eq!(body["pagination"]["totalRecords"], 1);
    assert_eq!(body["data"][0]["serialNumber"], "C02MEMORY");

    let bad = test::TestRequest::get()
        .uri("/api/v1/inventory?size=0")
        .insert_header(auth(&key))
        .to_request();
    let res = test::call_service(&app, bad).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body: Value = test::read_body_json(res).await;
    assert_eq!(body["errors"][0]["source"], "size");
}

#[actix_web::test]
async fn scim_bulk_runs_over_a_store_without_write_sessions() {
    let (store, _, key) = world(Scopes::all());
    let app = test::init_service(equip_http::app(AppState::new(Arc::clone(&store)))).await;
    let bulk = test::TestRequest::post()
        .uri("/scim/v2/Bulk")
        .insert_header(auth(&key))
        .insert_header(("Content-Type", "application/scim+json"))
        .set_payload(
            json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
                "Operations": [{
                    "method": "POST",
                    "path": "/Users",
                    "bulkId": "ada",
                    "data": {
                        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                        "userName": "ada@example.com",
                        "active": true,
                    },
                }],
            })
            .to_string(),
        )
        .to_request();
    let res = test::call_service(&app, bulk).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = test::read_body_json(res).await;
    assert_eq!(body["Operations"][0]["status"], "201", "{body}");
    assert_eq!(store.state().people.len(), 1);
}
