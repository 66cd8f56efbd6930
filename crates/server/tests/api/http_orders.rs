//! Black-box tests of joiners' orders (`/api/v1/orders`) on SQLite and
//! PostgreSQL: the listing's filters and pages, reading one order, shipping
//! (items IN_TRANSIT) and delivering (items DEPLOYED to the person), the
//! shipment's moves, bad input (400 naming the field), lines that cannot
//! ship (409), another organization's orders and shipments (404), missing
//! scopes (403), and two shipments of one line at once. Orders are set up
//! through the store as provisioning writes them
//! (`Store::put_order_for_tests`).
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::{Duration, Utc};
use equip_domain::ids::{InventoryItemId, OrderId, OrderLineId, PersonId, ShipmentId};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, InventoryItem,
    SuppliedBy,
};
use equip_domain::orders::order::{Order, OrderLine};
use equip_domain::orders::{LineStatus, OrderStatus};
use equip_domain::ports::InventoryRepository;
use serde_json::{json, Value};

use crate::support::scim::okta_user;
use crate::support::{Client, TestApp};

on_both_backends!(
    the_listing_filters_and_pages_newest_first,
    an_order_is_read_with_its_lines_and_shipments,
    shipping_then_delivery_deploy_the_items_to_the_person,
    bad_input_is_refused_naming_the_field,
    another_organization_and_missing_scopes_are_refused,
    two_shipments_of_one_line_at_once_give_one_shipment,
);

/// A person of A created over SCIM; their id.
async fn person(app: &TestApp, user_name: &str) -> String {
    let w = app.world();
    let (status, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user(user_name)))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
    user["id"].as_str().unwrap().to_owned()
}

/// An order of A for `person` (created `age_hours` ago) with `held`
/// ALLOCATED lines (each holding a new item of A's warehouse) and one
/// BACKORDERED line; its id and its lines' ids.
fn order(app: &TestApp, person: &str, held: usize, age_hours: i64) -> (String, Vec<String>) {
    let w = app.world();
    let created = Utc::now() - Duration::hours(age_hours);
    let mut lines = Vec::new();
    for position in 0..=held {
        let item = (position < held).then(|| {
            let it = InventoryItem {
                id: InventoryItemId::new(),
                organization_id: w.a_org,
                sku_id: w.a_sku,
                serial_number: Some(format!("SN-{}", uuid::Uuid::new_v4().simple())),
                imei: vec![],
                // Created already held: an AVAILABLE item would fill the
                // BACKORDERED line of an earlier order (docs/orders.md).
                deploy_status: DeployStatus::Unavailable,
                deploy_reason: Some(DeployReason::PendingFulfillment),
                condition: Condition::New,
                renewal_date: None,
                renewal_date_updated_by: None,
                billing_start_date: None,
                billing_end_date: None,
                procurement_method: None,
                assignment: Some(Assignment {
                    assignee: Assignee::new(AssigneeType::Warehouse, *w.a_warehouse.as_uuid()),
                    assigned_at: Some(created),
                }),
                tags: vec![],
                pricing: None,
                description: None,
                erp_invoice_id: None,
                hold_start_date: None,
                unlock_date: None,
                itad_requested: None,
                device_program: None,
                supplied_by: SuppliedBy::Organization,
                return_order: None,
                created_at: created,
                updated_at: created,
            };
            app.store.insert_inventory_item(&it).unwrap();
            it.id
        });
        lines.push(OrderLine {
            id: OrderLineId::new(),
            position: u32::try_from(position).unwrap(),
            category_code: "LAPTOP".into(),
            sku_ids: vec![w.a_sku],
            status: if item.is_some() {
                LineStatus::Allocated
            } else {
                LineStatus::Backordered
            },
            item_id: item,
            shipment_id: None,
            created_at: created,
            updated_at: created,
        });
    }
    let order = Order {
        id: OrderId::new(),
        organization_id: w.a_org,
        person_id: PersonId::parse(person).unwrap(),
        package_id: None,
        status: OrderStatus::Pending,
        lines,
        shipments: vec![],
        created_at: created,
        updated_at: created,
    }
    .restated();
    app.store.put_order_for_tests(&order).unwrap();
    (
        order.id.to_string(),
        order.lines.iter().map(|l| l.id.to_string()).collect(),
    )
}

fn ship(client: &Client, order: &str, body: &Value) -> TestRequest {
    client.post_json(&format!("/api/v1/orders/{order}/shipments"), body)
}

fn patch(client: &Client, order: &str, shipment: &str, body: &Value) -> TestRequest {
    client
        .with(TestRequest::patch().uri(&format!("/api/v1/orders/{order}/shipments/{shipment}")))
        .set_json(body)
}

async fn item(app: &TestApp, id: &Value) -> Value {
    let id = id.as_str().unwrap();
    let (status, body) = app
        .call(app.world().a.get(&format!("/api/v1/inventory/{id}")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn events(app: &TestApp) -> Vec<Value> {
    let (status, body) = app
        .call(app.world().a.get("/api/v1/events?size=1000"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

async fn the_listing_filters_and_pages_newest_first(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let bob = person(&app, "bob@acme.example").await;
    let cy = person(&app, "cy@acme.example").await;
    let (oldest, _) = order(&app, &ada, 1, 3);
    let (middle, middle_lines) = order(&app, &bob, 1, 2);
    let (newest, _) = order(&app, &cy, 0, 1);
    let (status, _) = app
        .call(ship(&w.a, &middle, &json!({"lineIds": [middle_lines[0]]})))
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let ids = |page: &Value| -> Vec<String> {
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, all) = app.call(w.a.get("/api/v1/orders")).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(
        ids(&all),
        [newest.as_str(), middle.as_str(), oldest.as_str()]
    );
    assert_eq!(
        all["pagination"],
        json!({"totalRecords": 3, "totalPages": 1, "currentPage": 1, "pageSize": 100})
    );
    let (_, shipped) = app.call(w.a.get("/api/v1/orders?status=SHIPPED")).await;
    assert_eq!(ids(&shipped), [middle.as_str()]);
    let (_, pending) = app.call(w.a.get("/api/v1/orders?status=pending")).await;
    assert_eq!(ids(&pending), [newest.as_str(), oldest.as_str()]);
    let (_, of_ada) = app
        .call(w.a.get(&format!("/api/v1/orders?personId={ada}")))
        .await;
    assert_eq!(ids(&of_ada), [oldest.as_str()]);
    let (_, page2) = app.call(w.a.get("/api/v1/orders?page=2&size=2")).await;
    assert_eq!(ids(&page2), [oldest.as_str()]);
    assert_eq!(
        page2["pagination"],
        json!({"totalRecords": 3, "totalPages": 2, "currentPage": 2, "pageSize": 2})
    );
    let (_, beyond) = app.call(w.a.get("/api/v1/orders?page=9")).await;
    assert_eq!(ids(&beyond), Vec::<String>::new());
    for (query, source) in [
        ("status=LOST", "status"),
        ("personId=nope", "personId"),
        ("size=0", "size"),
        ("page=0", "page"),
        ("itemId=x", "itemId"),
    ] {
        let (status, body) = app.call(w.a.get(&format!("/api/v1/orders?{query}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["errors"][0]["source"], source, "{query}: {body}");
    }
    // B has none of them.
    let (_, of_b) = app.call(w.b.get("/api/v1/orders")).await;
    assert_eq!(of_b["pagination"]["totalRecords"], 0);
}

async fn an_order_is_read_with_its_lines_and_shipments(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let (id, lines) = order(&app, &ada, 2, 1);
    let (status, read) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["id"], id.as_str());
    assert_eq!(read["personId"], ada.as_str());
    assert_eq!(read["packageId"], Value::Null);
    assert_eq!(read["status"], "PENDING");
    assert!(read["createdAt"].is_string() && read["updatedAt"].is_string());
    assert_eq!(read["shipments"], json!([]));
    let got = read["lines"].as_array().unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[0]["id"], lines[0].as_str());
    assert_eq!(got[0]["categoryCode"], "LAPTOP");
    assert_eq!(got[0]["skuIds"], json!([w.a_sku]));
    assert_eq!(got[0]["status"], "ALLOCATED");
    assert!(got[0]["itemId"].is_string());
    assert_eq!(got[0]["shipmentId"], Value::Null);
    assert_eq!(got[2]["status"], "BACKORDERED");
    assert_eq!(got[2]["itemId"], Value::Null);
    // The allocated item waits in its warehouse.
    let held = item(&app, &got[0]["itemId"]).await;
    assert_eq!(held["deployStatus"], "UNAVAILABLE");
    assert_eq!(held["deployReason"], "PENDING_FULFILLMENT");
    // The listing shows the same order.
    let (_, page) = app.call(w.a.get("/api/v1/orders")).await;
    assert_eq!(page["data"][0], read);
    for (path, want) in [
        (
            "/api/v1/orders/not-a-uuid".to_owned(),
            StatusCode::BAD_REQUEST,
        ),
        (
            format!("/api/v1/orders/{}", OrderId::new()),
            StatusCode::NOT_FOUND,
        ),
    ] {
        let (status, body) = app.call(w.a.get(&path)).await;
        assert_eq!(status, want, "{path}: {body}");
    }
}

async fn shipping_then_delivery_deploy_the_items_to_the_person(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let (id, lines) = order(&app, &ada, 2, 1);
    let raw = app
        .call_raw(ship(
            &w.a,
            &id,
            &json!({"lineIds": [lines[1], lines[0]], "carrier": "DHL", "trackingCode": "JD0146",
                "trackingLink": "https://track.example/JD0146"}),
        ))
        .await;
    assert_eq!(raw.status, StatusCode::CREATED);
    assert_eq!(
        raw.location.as_deref(),
        Some(format!("/api/v1/orders/{id}").as_str())
    );
    let shipment: Value = serde_json::from_slice(&raw.body).unwrap();
    let sid = shipment["id"].as_str().unwrap().to_owned();
    assert_eq!(
        shipment["lineIds"],
        json!([lines[0], lines[1]]),
        "by position"
    );
    assert_eq!(shipment["status"], "SHIPPED");
    assert_eq!(shipment["carrier"], "DHL");
    assert_eq!(shipment["trackingCode"], "JD0146");
    assert_eq!(shipment["trackingLink"], "https://track.example/JD0146");
    assert!(shipment["shippedAt"].is_string());
    assert_eq!(shipment["deliveredAt"], Value::Null);
    let (_, now) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(now["status"], "SHIPPED");
    assert_eq!(now["shipments"], json!([shipment]));
    let held: Vec<Value> = now["lines"].as_array().unwrap()[..2].to_vec();
    for line in &held {
        assert_eq!(line["status"], "SHIPPED");
        assert_eq!(line["shipmentId"], sid.as_str());
        let it = item(&app, &line["itemId"]).await;
        assert_eq!(it["deployStatus"], "UNAVAILABLE");
        assert_eq!(it["deployReason"], "IN_TRANSIT");
    }
    let (_, listed) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=UNAVAILABLE"))
        .await;
    assert_eq!(
        listed["pagination"]["totalRecords"], 2,
        "the listing follows"
    );

    // A delivery exception, then the delivery.
    let (status, x) = app
        .call(patch(
            &w.a,
            &id,
            &sid,
            &json!({"status": "DELIVERY_EXCEPTION"}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{x}");
    assert_eq!(x["status"], "DELIVERY_EXCEPTION");
    assert_eq!(x["deliveredAt"], Value::Null);
    let (status, done) = app
        .call(patch(&w.a, &id, &sid, &json!({"status": "DELIVERED"})))
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["status"], "DELIVERED");
    let delivered_at = done["deliveredAt"].as_str().unwrap().to_owned();
    for line in &held {
        let it = item(&app, &line["itemId"]).await;
        assert_eq!(it["deployStatus"], "DEPLOYED");
        assert_eq!(it["deployReason"], Value::Null);
        assert_eq!(it["assignedTo"]["type"], "PERSON");
        assert_eq!(it["assignedTo"]["id"], ada.as_str());
        assert_eq!(it["assignedTo"]["assignedAt"], delivered_at.as_str());
    }
    let (_, now) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(now["lines"][0]["status"], "DELIVERED");
    assert_eq!(now["lines"][2]["status"], "BACKORDERED");
    assert_eq!(now["status"], "SHIPPED", "a line still waits for stock");
    let (_, of_ada) = app
        .call(w.a.get(&format!("/api/v1/inventory?personId={ada}")))
        .await;
    assert_eq!(of_ada["pagination"]["totalRecords"], 2);

    // The same status again: 200, nothing changes; DELIVERED is final.
    let before = events(&app).await.len();
    let (status, again) = app
        .call(patch(&w.a, &id, &sid, &json!({"status": "DELIVERED"})))
        .await;
    assert_eq!((status, &again), (StatusCode::OK, &done));
    assert_eq!(events(&app).await.len(), before);
    let (status, body) = app
        .call(patch(
            &w.a,
            &id,
            &sid,
            &json!({"status": "DELIVERY_EXCEPTION"}),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["errors"][0]["source"], "status");

    // The events: the order's updates and each item's.
    let all = events(&app).await;
    let of = |kind: &str| all.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(of("order.created"), 1);
    assert_eq!(of("order.updated"), 3, "shipped, exception, delivered");
    // 2 shipped, 2 delivered (the fixture creates its items already held).
    assert_eq!(of("inventory.item.updated"), 4);
}

async fn bad_input_is_refused_naming_the_field(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let (id, lines) = order(&app, &ada, 1, 1);
    let cases = [
        (json!({"lineIds": []}), StatusCode::BAD_REQUEST, "lineIds"),
        (json!({}), StatusCode::BAD_REQUEST, "lineIds"),
        (json!({"lineIds": "x"}), StatusCode::BAD_REQUEST, "lineIds"),
        (
            json!({"lineIds": ["nope"]}),
            StatusCode::BAD_REQUEST,
            "lineIds[0]",
        ),
        (
            json!({"lineIds": [lines[0], lines[0]]}),
            StatusCode::BAD_REQUEST,
            "lineIds[1]",
        ),
        (
            json!({"lineIds": [lines[0], OrderLineId::new()]}),
            StatusCode::BAD_REQUEST,
            "lineIds[1]",
        ),
        (
            json!({"lineIds": [lines[0]], "priority": "high"}),
            StatusCode::BAD_REQUEST,
            "priority",
        ),
        (
            json!({"lineIds": [lines[0]], "carrier": ""}),
            StatusCode::BAD_REQUEST,
            "carrier",
        ),
        (
            json!({"lineIds": [lines[0]], "trackingCode": "x".repeat(257)}),
            StatusCode::BAD_REQUEST,
            "trackingCode",
        ),
        (
            json!({"lineIds": [lines[0]], "trackingLink": "javascript:alert(1)"}),
            StatusCode::BAD_REQUEST,
            "trackingLink",
        ),
        (
            json!({"lineIds": [lines[0], lines[1]]}),
            StatusCode::CONFLICT,
            "lineIds[1]",
        ),
    ];
    for (body, want, source) in cases {
        let (status, err) = app.call(ship(&w.a, &id, &body)).await;
        assert_eq!(status, want, "{body}: {err}");
        assert_eq!(err["errors"][0]["source"], source, "{body}: {err}");
    }
    let (_, unchanged) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(unchanged["shipments"], json!([]), "nothing was written");
    let (status, _) = app
        .call(ship(&w.a, "not-a-uuid", &json!({"lineIds": [lines[0]]})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = app
        .call(ship(
            &w.a,
            &OrderId::new().to_string(),
            &json!({"lineIds": [lines[0]]}),
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (status, shipment) = app
        .call(ship(&w.a, &id, &json!({"lineIds": [lines[0]]})))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{shipment}");
    assert_eq!(shipment["carrier"], Value::Null);
    let sid = shipment["id"].as_str().unwrap().to_owned();
    // Shipped once: not again.
    let (status, body) = app
        .call(ship(&w.a, &id, &json!({"lineIds": [lines[0]]})))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body.to_string().contains("SHIPPED"), "{body}");
    for (body, source) in [
        (json!({"status": "SHIPPED"}), "status"),
        (json!({"status": "LOST"}), "status"),
        (json!({}), "status"),
        (json!({"status": "DELIVERED", "at": "now"}), "at"),
    ] {
        let (status, err) = app.call(patch(&w.a, &id, &sid, &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {err}");
        assert_eq!(err["errors"][0]["source"], source, "{body}: {err}");
    }
    let delivered = json!({"status": "DELIVERED"});
    for (order, shipment, want) in [
        (id.clone(), "nope".to_owned(), StatusCode::BAD_REQUEST),
        (
            id.clone(),
            ShipmentId::new().to_string(),
            StatusCode::NOT_FOUND,
        ),
        (
            OrderId::new().to_string(),
            sid.clone(),
            StatusCode::NOT_FOUND,
        ),
    ] {
        let (status, body) = app.call(patch(&w.a, &order, &shipment, &delivered)).await;
        assert_eq!(status, want, "{order}/{shipment}: {body}");
    }
}

async fn another_organization_and_missing_scopes_are_refused(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let (id, lines) = order(&app, &ada, 2, 1);
    let (_, shipment) = app
        .call(ship(&w.a, &id, &json!({"lineIds": [lines[0]]})))
        .await;
    let sid = shipment["id"].as_str().unwrap().to_owned();
    // B: A's order and shipment do not exist.
    let (status, _) = app.call(w.b.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .call(ship(&w.b, &id, &json!({"lineIds": [lines[1]]})))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .call(patch(&w.b, &id, &sid, &json!({"status": "DELIVERED"})))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, now) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
    assert_eq!(now["lines"][1]["status"], "ALLOCATED");
    assert_eq!(now["shipments"][0]["status"], "SHIPPED");
    // Without orders:read / orders:write (a key with inventory:read only).
    for req in [
        w.limited.get("/api/v1/orders"),
        w.limited.get(&format!("/api/v1/orders/{id}")),
        ship(&w.limited, &id, &json!({"lineIds": [lines[1]]})),
        patch(&w.limited, &id, &sid, &json!({"status": "DELIVERED"})),
    ] {
        let (status, body) = app.call(req).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    }
}

async fn two_shipments_of_one_line_at_once_give_one_shipment(app: TestApp) {
    let w = app.world();
    for round in 0..3 {
        let joiner = person(&app, &format!("joiner{round}@acme.example")).await;
        let (id, lines) = order(&app, &joiner, 1, 1);
        let body = json!({"lineIds": [lines[0]], "trackingCode": format!("R{round}")});
        let statuses = app
            .call_concurrently(vec![ship(&w.a, &id, &body), ship(&w.a, &id, &body)])
            .await;
        let mut sorted = statuses.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            [StatusCode::CREATED, StatusCode::CONFLICT],
            "{statuses:?}"
        );
        let (_, now) = app.call(w.a.get(&format!("/api/v1/orders/{id}"))).await;
        assert_eq!(now["shipments"].as_array().unwrap().len(), 1, "{now}");
        assert_eq!(now["lines"][0]["status"], "SHIPPED");
    }
    let all = events(&app).await;
    let updated = all.iter().filter(|e| e["type"] == "order.updated").count();
    assert_eq!(updated, 3, "one shipment per round");
}
