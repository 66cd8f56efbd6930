//! Black-box tests of a joiner's order on SQLite and PostgreSQL, the worked
//! example of docs/api.md ("Orders"): a SCIM create with a package makes the
//! order and allocates it, a shipment sends it, the delivery deploys the
//! item to the person; a joiner without stock is backordered and filled by
//! an item created later; offboarding cancels what has not shipped; another
//! organization sees none of it.
use actix_web::http::StatusCode;
use equip_domain::catalog::PackageItem;
use equip_domain::ports::CatalogRepository;
use serde_json::{json, Value};

use crate::support::scim::{package, EXT};
use crate::support::TestApp;

on_both_backends!(
    a_joiner_gets_an_order_that_ships_and_delivers,
    a_backordered_joiner_is_filled_and_offboarding_cancels,
);

/// A package of A holding one unit of the world's SKU's category; its id.
fn laptop_package(app: &TestApp, slug: &str) -> String {
    let w = app.world();
    let id = package(&app.store, w.a_org, slug);
    // The world's SKUs are laptops.
    let items = [PackageItem {
        category_code: "LAPTOP".into(),
        sku_ids: vec![w.a_sku],
        quantity: 1,
    }];
    app.store
        .replace_package_contents(w.a_org, id, &items)
        .unwrap()
        .unwrap();
    id.to_string()
}

/// An AVAILABLE item of the world's SKU in A's warehouse; its id.
async fn stock(app: &TestApp, serial: &str) -> String {
    let w = app.world();
    let body = json!({"skuId": w.a_sku, "deployStatus": "AVAILABLE", "condition": "NEW",
        "serialNumber": serial, "assignedTo": {"type": "WAREHOUSE", "id": w.a_warehouse}});
    let (status, item) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    item["id"].as_str().unwrap().to_owned()
}

/// A joiner of A with `package`, starting next year; their id.
async fn joiner(app: &TestApp, user_name: &str, package: &str) -> String {
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
        "userName": user_name,
        "emails": [{"value": user_name, "primary": true}],
        "addresses": [{"type": "work", "primary": true, "country": "DE"}],
        "active": true,
        EXT: {"packageId": package, "startDate": "2031-02-03"},
    });
    let (status, body) = app
        .call(app.world().a.scim_post("/scim/v2/Users", &user))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

async fn order_of(app: &TestApp, person: &str) -> Value {
    let (status, page) = app
        .call(
            app.world()
                .a
                .get(&format!("/api/v1/orders?personId={person}")),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["pagination"]["totalRecords"], 1, "{page}");
    page["data"][0].clone()
}

async fn item(app: &TestApp, id: &str) -> Value {
    let (status, body) = app
        .call(app.world().a.get(&format!("/api/v1/inventory/{id}")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn event_types(app: &TestApp) -> Vec<String> {
    let (status, body) = app
        .call(app.world().a.get("/api/v1/events?size=1000"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

async fn a_joiner_gets_an_order_that_ships_and_delivers(app: TestApp) {
    let w = app.world();
    let kit = laptop_package(&app, "kit");
    let laptop = stock(&app, "JOIN-1").await;
    let ada = joiner(&app, "ada@acme.example", &kit).await;

    // The order, made by the create and allocated in it.
    let order = order_of(&app, &ada).await;
    assert_eq!(order["status"], "ALLOCATED", "{order}");
    assert_eq!(order["packageId"], kit.as_str());
    let line = order["lines"][0].clone();
    assert_eq!(line["status"], "ALLOCATED");
    assert_eq!(line["itemId"], laptop.as_str());
    let held = item(&app, &laptop).await;
    assert_eq!(held["deployStatus"], "UNAVAILABLE");
    assert_eq!(held["deployReason"], "PENDING_FULFILLMENT");
    let id = order["id"].as_str().unwrap().to_owned();
    let (status, read) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, order);
    // Another organization's key sees no such order.
    let (status, _) = app.call(w.b.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Shipped with tracking: the item is in transit.
    let (status, shipment) = app
        .call(w.a.post_json(
            &format!("/api/v1/orders/{id}/shipments"),
            &json!({"lineIds": [line["id"]], "carrier": "DHL", "trackingCode": "JD0001",
                "trackingLink": "https://track.example/JD0001"}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{shipment}");
    assert_eq!(shipment["status"], "SHIPPED");
    assert_eq!(item(&app, &laptop).await["deployReason"], "IN_TRANSIT");
    assert_eq!(order_of(&app, &ada).await["status"], "SHIPPED");

    // Delivered: the item is DEPLOYED to the joiner.
    let sid = shipment["id"].as_str().unwrap();
    let (status, delivered) = app
        .call(
            w.a.with(
                actix_web::test::TestRequest::patch()
                    .uri(&format!("/api/v1/orders/{id}/shipments/{sid}")),
            )
            .set_json(json!({"status": "DELIVERED"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{delivered}");
    let deployed = item(&app, &laptop).await;
    assert_eq!(deployed["deployStatus"], "DEPLOYED");
    assert_eq!(deployed["deployReason"], Value::Null);
    assert_eq!(deployed["assignedTo"]["id"], ada.as_str());
    assert_eq!(order_of(&app, &ada).await["status"], "DELIVERED");

    let types = event_types(&app).await;
    assert_eq!(types.iter().filter(|t| *t == "order.created").count(), 1);
    assert_eq!(types.iter().filter(|t| *t == "order.updated").count(), 2);
    assert!(!types.iter().any(|t| t == "order.backordered"));
}

async fn a_backordered_joiner_is_filled_and_offboarding_cancels(app: TestApp) {
    let w = app.world();
    let kit = laptop_package(&app, "kit");
    let grace = joiner(&app, "grace@acme.example", &kit).await;
    let order = order_of(&app, &grace).await;
    assert_eq!(order["status"], "PENDING", "{order}");
    assert_eq!(order["lines"][0]["status"], "BACKORDERED");
    assert!(event_types(&app)
        .await
        .iter()
        .any(|t| t == "order.backordered"));

    // Stock arrives: the create fills the backorder.
    let laptop = stock(&app, "JOIN-2").await;
    let order = order_of(&app, &grace).await;
    assert_eq!(order["status"], "ALLOCATED", "{order}");
    assert_eq!(order["lines"][0]["itemId"], laptop.as_str());

    // Offboarding cancels the order and gives the laptop back.
    let (status, _) = app
        .call(w.a.delete(&format!("/scim/v2/Users/{grace}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let order = order_of(&app, &grace).await;
    assert_eq!(order["status"], "CANCELLED");
    assert_eq!(order["lines"][0]["status"], "CANCELLED");
    let back = item(&app, &laptop).await;
    assert_eq!(back["deployStatus"], "AVAILABLE");
    assert_eq!(back["deployReason"], Value::Null);
}
