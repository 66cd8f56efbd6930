//! Black-box tests of a joiner's order on SQLite and PostgreSQL, the worked
//! example of docs/api.md ("Orders"): a SCIM create with a package makes the
//! order and allocates it, a shipment sends it, the delivery deploys the
//! item to the person; a joiner without stock is backordered and filled by
//! an item created later; offboarding cancels what has not shipped; another
//! organization sees none of it. SCIM Bulk and CSV uploads make the orders
//! of the joiners they create; a SCIM PATCH that removes the package or
//! deactivates the person cancels the unshipped order and frees its items.
use actix_web::http::StatusCode;
use equip_domain::catalog::PackageItem;
use equip_domain::ports::CatalogRepository;
use serde_json::{json, Value};

use crate::support::scim::{package, EXT, PATCH_OP};
use crate::support::TestApp;

on_both_backends!(
    a_joiner_gets_an_order_that_ships_and_delivers,
    a_backordered_joiner_is_filled_and_offboarding_cancels,
    bulk_creates_of_joiners_make_their_orders,
    a_csv_upload_of_joiners_makes_their_orders,
    a_patch_removing_the_package_or_deactivating_cancels_and_frees,
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

/// The persons' orders' statuses and their lines' (status, item), by
/// person, in the order given.
async fn orders_of(app: &TestApp, people: &[&str]) -> Vec<(String, Vec<(String, Value)>)> {
    let mut out = Vec::new();
    for person in people {
        let order = order_of(app, person).await;
        let lines = order["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["status"].as_str().unwrap().to_owned(),
                    l["itemId"].clone(),
                )
            })
            .collect();
        out.push((order["status"].as_str().unwrap().to_owned(), lines));
    }
    out
}

/// Of two joiners created in one request against one item, one order holds
/// the item and the other waits for stock (which one depends on the order
/// the write takes them in).
fn one_allocated_one_backordered(orders: &[(String, Vec<(String, Value)>)], laptop: &str) {
    let mut seen: Vec<(&str, Vec<(&str, &Value)>)> = orders
        .iter()
        .map(|(status, lines)| {
            (
                status.as_str(),
                lines.iter().map(|(s, i)| (s.as_str(), i)).collect(),
            )
        })
        .collect();
    seen.sort_by_key(|(status, _)| *status);
    let held = json!(laptop);
    assert_eq!(
        seen,
        [
            ("ALLOCATED", vec![("ALLOCATED", &held)]),
            ("PENDING", vec![("BACKORDERED", &Value::Null)]),
        ],
        "{orders:?}"
    );
}

async fn count_of(app: &TestApp, kind: &str) -> usize {
    event_types(app).await.iter().filter(|t| *t == kind).count()
}

async fn bulk_creates_of_joiners_make_their_orders(app: TestApp) {
    let w = app.world();
    let kit = laptop_package(&app, "kit");
    let laptop = stock(&app, "BULK-1").await;
    let user = |name: &str, package: Option<&str>| {
        let mut u = json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
            "userName": name,
            "emails": [{"value": name, "primary": true}],
            "active": true,
        });
        if let Some(p) = package {
            u[EXT] = json!({"packageId": p, "startDate": "2031-02-03"});
        }
        u
    };
    let body = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": [
            {"method": "POST", "bulkId": "ada", "path": "/Users",
             "data": user("ada@acme.example", Some(&kit))},
            {"method": "POST", "bulkId": "bob", "path": "/Users",
             "data": user("bob@acme.example", Some(&kit))},
            {"method": "POST", "bulkId": "cy", "path": "/Users",
             "data": user("cy@acme.example", None)},
        ]
    });
    let (status, resp) = app.call(w.a.scim_post("/scim/v2/Bulk", &body)).await;
    assert_eq!(status, StatusCode::OK, "{resp}");
    let ids: Vec<String> = resp["Operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            assert_eq!(o["status"], "201", "{o}");
            o["location"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    let orders = orders_of(&app, &[&ids[0], &ids[1]]).await;
    one_allocated_one_backordered(&orders, &laptop);
    let held = item(&app, &laptop).await;
    assert_eq!(held["deployReason"], "PENDING_FULFILLMENT");
    // Without a package: no order.
    let (status, page) = app
        .call(w.a.get(&format!("/api/v1/orders?personId={}", ids[2])))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["pagination"]["totalRecords"], 0, "{page}");
    assert_eq!(count_of(&app, "order.created").await, 2);
    assert_eq!(count_of(&app, "order.backordered").await, 1);
}

async fn a_csv_upload_of_joiners_makes_their_orders(app: TestApp) {
    let w = app.world();
    let _ = laptop_package(&app, "eng-kit");
    let laptop = stock(&app, "CSV-1").await;
    const HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";
    let file = format!(
        "{HEADER}\n\
         ,Ada,Lovelace,ada@acme.example,,eng-kit,,,,,DE,,,no,\n\
         ,Bob,Byte,bob@acme.example,,eng-kit,,,,,DE,,,no,\n\
         ,Cy,Nopkg,cy@acme.example,,,,,,,DE,,,no,\n"
    );
    const BOUNDARY: &str = "equip-joiners-boundary-3x9";
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"users.csv\"\r\n\
         Content-Type: text/csv\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(file.as_bytes());
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    let request =
        w.a.with(actix_web::test::TestRequest::post().uri("/scim/v2/Users/csv"))
            .insert_header((
                "Content-Type",
                format!("multipart/form-data; boundary={BOUNDARY}"),
            ))
            .set_payload(body);
    let (status, resp) = app.call(request).await;
    assert_eq!(status, StatusCode::OK, "{resp}");
    let ids: Vec<String> = resp["Operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            assert_eq!(o["status"], "201", "{o}");
            o["location"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 3);
    let orders = orders_of(&app, &[&ids[0], &ids[1]]).await;
    one_allocated_one_backordered(&orders, &laptop);
    let (status, page) = app
        .call(w.a.get(&format!("/api/v1/orders?personId={}", ids[2])))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["pagination"]["totalRecords"], 0, "{page}");
    assert_eq!(count_of(&app, "order.created").await, 2);
}

async fn a_patch_removing_the_package_or_deactivating_cancels_and_frees(app: TestApp) {
    let w = app.world();
    let kit = laptop_package(&app, "kit");
    let first = stock(&app, "PATCH-1").await;
    let second = stock(&app, "PATCH-2").await;
    let ada = joiner(&app, "ada@acme.example", &kit).await;
    let bob = joiner(&app, "bob@acme.example", &kit).await;
    let held: Vec<Value> = orders_of(&app, &[&ada, &bob])
        .await
        .into_iter()
        .map(|(status, lines)| {
            assert_eq!(status, "ALLOCATED");
            lines[0].1.clone()
        })
        .collect();
    let mut items = held.clone();
    items.sort_by_key(|v| v.as_str().unwrap().to_owned());
    let mut expected = vec![json!(first), json!(second)];
    expected.sort_by_key(|v| v.as_str().unwrap().to_owned());
    assert_eq!(items, expected, "each holds one of the two laptops");

    let patch = |person: &str, op: Value| {
        w.a.scim_patch(
            &format!("/scim/v2/Users/{person}"),
            &json!({"schemas": [PATCH_OP], "Operations": [op]}),
        )
    };
    // The package taken away before anything shipped: the order is
    // CANCELLED and its laptop AVAILABLE again.
    let (status, body) = app
        .call(patch(
            &ada,
            json!({"op": "remove", "path": format!("{EXT}:packageId")}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body[EXT].get("packageId").cloned(), None, "{body}");
    let order = order_of(&app, &ada).await;
    assert_eq!(order["status"], "CANCELLED", "{order}");
    assert_eq!(order["lines"][0]["status"], "CANCELLED");
    let freed = item(&app, held[0].as_str().unwrap()).await;
    assert_eq!(freed["deployStatus"], "AVAILABLE", "{freed}");
    assert_eq!(freed["deployReason"], Value::Null);

    // Deactivated: the same.
    let (status, body) = app
        .call(patch(
            &bob,
            json!({"op": "replace", "path": "active", "value": false}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["active"], false);
    let order = order_of(&app, &bob).await;
    assert_eq!(order["status"], "CANCELLED", "{order}");
    assert_eq!(order["lines"][0]["status"], "CANCELLED");
    let freed = item(&app, held[1].as_str().unwrap()).await;
    assert_eq!(freed["deployStatus"], "AVAILABLE", "{freed}");
    assert_eq!(freed["deployReason"], Value::Null);
    assert_eq!(
        count_of(&app, "order.updated").await,
        2,
        "one per cancellation"
    );
}
