//! Black-box tests of return orders (`/api/v1/return-orders`) on SQLite and
//! PostgreSQL: from an offboarding to its completion (moves along the kit's
//! path, write-offs archiving items, `person.offboarded`), returns created
//! on request and cancelled, bad input (400/404/409), the listing's filters
//! and pages, and two changes of one order at once.
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_domain::ids::{InventoryItemId, PersonId};
use equip_domain::person::PersonStatus;
use equip_domain::ports::PersonRepository;
use serde_json::{json, Value};

use crate::support::scim::{deployed_item, okta_user};
use crate::support::{Client, TestApp};

on_both_backends!(
    an_offboarding_runs_to_completion,
    a_person_who_holds_nothing_is_offboarded_at_once,
    a_return_on_request_follows_the_rules_and_cancels,
    bad_changes_are_refused,
    the_listing_filters_and_pages_newest_first,
    two_changes_of_one_order_at_once_give_one_outcome,
);

fn patch(client: &Client, id: &str, body: &Value) -> TestRequest {
    client
        .with(TestRequest::patch().uri(&format!("/api/v1/return-orders/{id}")))
        .set_json(body)
}

/// A person of A created over SCIM; their id.
async fn person(app: &TestApp, user_name: &str) -> String {
    let w = app.world();
    let (status, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user(user_name)))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
    user["id"].as_str().unwrap().to_owned()
}

fn stored_status(app: &TestApp, id: &str) -> PersonStatus {
    app.store
        .find_person(app.world().a_org, PersonId::parse(id).unwrap())
        .unwrap()
        .unwrap()
        .status
}

async fn events(app: &TestApp) -> Vec<Value> {
    let (status, body) = app
        .call(app.world().a.get("/api/v1/events?size=1000"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

async fn item(app: &TestApp, id: &str) -> Value {
    let (status, body) = app
        .call(app.world().a.get(&format!("/api/v1/inventory/{id}")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn an_offboarding_runs_to_completion(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let laptop = deployed_item(&app.store, w.a_org, w.a_sku, &ada).to_string();
    let phone = deployed_item(&app.store, w.a_org, w.a_sku, &ada).to_string();
    let (status, _) = app.call(w.a.delete(&format!("/scim/v2/Users/{ada}"))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(stored_status(&app, &ada), PersonStatus::Offboarding);

    // The offboarding's order, found by person and by item.
    let (status, page) = app
        .call(w.a.get(&format!("/api/v1/return-orders?personId={ada}")))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["pagination"]["totalRecords"], 1);
    let order = page["data"][0].clone();
    let id = order["id"].as_str().unwrap().to_owned();
    assert_eq!(order["personId"], ada.as_str());
    assert_eq!(order["status"], "PENDING");
    assert_eq!(order["retrievalMethod"], Value::Null);
    assert_eq!(order["lines"].as_array().unwrap().len(), 2);
    let (_, by_item) = app
        .call(w.a.get(&format!("/api/v1/return-orders?itemId={phone}")))
        .await;
    assert_eq!(by_item["data"][0]["id"], id.as_str());
    let (status, read) = app
        .call(w.a.get(&format!("/api/v1/return-orders/{id}")))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, order);
    assert_eq!(
        of_type(&events(&app).await, "return_order.created").len(),
        1
    );

    // An OFFBOARDING person's order is written off, not cancelled.
    let (status, body) = app
        .call(patch(&w.a, &id, &json!({"status": "CANCELLED"})))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body.to_string().contains("write the lines off instead"),
        "{body}"
    );

    // A kit: chosen, then along its path.
    let (status, kit) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "RETURN_KIT", "inboundTrackingCode": "1Z-IN",
                "inboundTrackingLink": "https://track.example/1Z-IN"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{kit}");
    assert_eq!(kit["status"], "PROCESSING");
    assert_eq!(kit["retrievalMethod"]["type"], "RETURN_KIT");
    assert_eq!(kit["retrievalMethod"]["status"], "REQUESTED");
    assert_eq!(kit["retrievalMethod"]["inboundTrackingCode"], "1Z-IN");
    assert_eq!(kit["retrievalMethod"]["outboundTrackingCode"], Value::Null);
    let (status, sent) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "RETURN_KIT", "status": "SHIPPED"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{sent}");
    assert_eq!(sent["status"], "RETURN_KIT_SENT");
    assert_eq!(sent["retrievalMethod"]["inboundTrackingCode"], "1Z-IN");
    assert!(sent["lines"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["status"] == "RETURN_KIT_SENT"));
    // The item shows its return as the order does.
    let shown = item(&app, &laptop).await;
    assert_eq!(shown["returnOrder"]["status"], "RETURN_KIT_SENT");
    assert_eq!(shown["returnOrder"]["retrievalMethod"]["status"], "SHIPPED");
    // Off the path: 409 naming both statuses; nothing changed.
    let (status, body) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "RETURN_KIT", "status": "LABEL_CREATED"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let text = body.to_string();
    assert!(
        text.contains("SHIPPED") && text.contains("LABEL_CREATED"),
        "{text}"
    );
    assert!(text.contains("retrievalMethod.status"), "{text}");

    // One line written off: the item is ARCHIVED with the reason.
    let lines = sent["lines"].as_array().unwrap().clone();
    let line_of = |item: &str| {
        lines.iter().find(|l| l["itemId"] == item).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (status, partly) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"lines": [{"id": line_of(&laptop), "closedReason": "LOST_BY_WORKER"}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{partly}");
    assert_eq!(partly["status"], "RETURN_KIT_SENT");
    let written_off = partly["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["itemId"] == laptop.as_str())
        .unwrap()
        .clone();
    assert_eq!(written_off["status"], "NOT_RETURNED");
    assert_eq!(written_off["closedReason"], "LOST_BY_WORKER");
    let archived = item(&app, &laptop).await;
    assert_eq!(archived["deployStatus"], "ARCHIVED");
    assert_eq!(archived["deployReason"], "LOST_BY_WORKER");
    assert_eq!(archived["returnOrder"], Value::Null);
    let (_, listed) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=ARCHIVED"))
        .await;
    assert_eq!(
        listed["data"][0]["id"],
        laptop.as_str(),
        "the listing follows"
    );
    assert_eq!(stored_status(&app, &ada), PersonStatus::Offboarding);

    // The last line written off: NOT_COMPLETED, the offboarding completes.
    let (status, done) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"lines": [{"id": line_of(&phone), "closedReason": "BOUGHT_OUT"}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["status"], "NOT_COMPLETED");
    assert_eq!(stored_status(&app, &ada), PersonStatus::Offboarded);
    let (_, finished) = app
        .call(w.a.get("/api/v1/return-orders?status=NOT_COMPLETED"))
        .await;
    assert_eq!(finished["data"][0]["id"], id.as_str());

    // The feed carries the whole lifecycle, in order.
    let all = events(&app).await;
    let updates = of_type(&all, "return_order.updated");
    assert_eq!(updates.len(), 4, "method, move, two write-offs");
    assert!(updates
        .iter()
        .all(|e| e["subject"]["type"] == "RETURN_ORDER"));
    assert_eq!(
        updates[1]["changes"]["retrievalMethod.status"]["to"],
        "SHIPPED"
    );
    let line = line_of(&laptop);
    assert_eq!(
        updates[2]["changes"][format!("lines.{line}.closedReason")]["to"],
        "LOST_BY_WORKER"
    );
    let archived_events: Vec<&Value> = of_type(&all, "inventory.item.updated")
        .into_iter()
        .filter(|e| {
            e["subject"]["id"] == laptop.as_str() && e["changes"]["deployStatus"].is_object()
        })
        .collect();
    assert_eq!(archived_events.len(), 1);
    assert_eq!(
        archived_events[0]["changes"]["deployStatus"]["to"],
        "ARCHIVED"
    );
    let offboarded = of_type(&all, "person.offboarded");
    assert_eq!(offboarded.len(), 1);
    assert_eq!(offboarded[0]["subject"]["id"], ada.as_str());
    assert_eq!(
        all.last().unwrap()["type"],
        "person.offboarded",
        "completion is the last change"
    );
    // A finished order moves no more.
    let (status, _) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "RETURN_KIT", "status": "DELIVERED"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
}

async fn a_person_who_holds_nothing_is_offboarded_at_once(app: TestApp) {
    let w = app.world();
    let grace = person(&app, "grace@acme.example").await;
    let (status, _) = app
        .call(w.a.delete(&format!("/scim/v2/Users/{grace}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(stored_status(&app, &grace), PersonStatus::Offboarded);
    let all = events(&app).await;
    let theirs: Vec<&str> = all
        .iter()
        .filter(|e| e["subject"]["id"] == grace.as_str())
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        theirs,
        [
            "person.created",
            "person.offboarding_started",
            "person.offboarded"
        ]
    );
    let (_, page) = app
        .call(w.a.get(&format!("/api/v1/return-orders?personId={grace}")))
        .await;
    assert_eq!(page["pagination"]["totalRecords"], 0);
}

async fn a_return_on_request_follows_the_rules_and_cancels(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let grace = person(&app, "grace@acme.example").await;
    let laptop = deployed_item(&app.store, w.a_org, w.a_sku, &ada).to_string();
    let graces = deployed_item(&app.store, w.a_org, w.a_sku, &grace).to_string();
    let post = |body: Value| w.a.post_json("/api/v1/return-orders", &body);

    let resp = app
        .call_raw(post(
            json!({"personId": ada, "itemIds": [laptop], "itadRequested": true}),
        ))
        .await;
    assert_eq!(resp.status, StatusCode::CREATED);
    let order: Value = serde_json::from_slice(&resp.body).unwrap();
    let id = order["id"].as_str().unwrap().to_owned();
    assert_eq!(
        resp.location.as_deref(),
        Some(format!("/api/v1/return-orders/{id}").as_str())
    );
    assert_eq!(order["status"], "PENDING");
    assert_eq!(order["lines"][0]["itemId"], laptop.as_str());
    assert_eq!(order["lines"][0]["itadRequested"], true);
    assert_eq!(order["lines"][0]["receivedAt"], Value::Null);
    assert_eq!(order["lines"][0]["warehouseId"], Value::Null);
    assert_eq!(order["lines"][0]["closedReason"], Value::Null);
    assert_eq!(item(&app, &laptop).await["returnOrder"]["id"], id.as_str());
    assert_eq!(stored_status(&app, &ada), PersonStatus::Active);

    let cases = [
        // Already on an active return.
        (
            json!({"personId": ada, "itemIds": [laptop]}),
            StatusCode::CONFLICT,
            "itemIds[0]",
        ),
        // Deployed to someone else.
        (
            json!({"personId": ada, "itemIds": [graces]}),
            StatusCode::BAD_REQUEST,
            "itemIds[0]",
        ),
        (
            json!({"personId": ada, "itemIds": [InventoryItemId::new()]}),
            StatusCode::NOT_FOUND,
            "itemIds[0]",
        ),
        (
            json!({"personId": PersonId::new(), "itemIds": [laptop]}),
            StatusCode::NOT_FOUND,
            "personId",
        ),
        (
            json!({"personId": ada, "itemIds": []}),
            StatusCode::BAD_REQUEST,
            "itemIds",
        ),
        (
            json!({"personId": grace, "itemIds": [graces, graces]}),
            StatusCode::BAD_REQUEST,
            "itemIds[1]",
        ),
        (
            json!({"personId": ada, "itemIds": [laptop], "reason": "repair"}),
            StatusCode::BAD_REQUEST,
            "reason",
        ),
        (
            json!({"personId": ada, "itemIds": ["nope"]}),
            StatusCode::BAD_REQUEST,
            "itemIds[0]",
        ),
    ];
    for (body, want, source) in cases {
        let (status, err) = app.call(post(body.clone())).await;
        assert_eq!(status, want, "{body}: {err}");
        assert!(err.to_string().contains(source), "{body}: {err}");
    }
    // Another organization's person or item: 404.
    let (status, _) = app
        .call(w.b.post_json(
            "/api/v1/return-orders",
            &json!({"personId": grace, "itemIds": [graces]}),
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Cancelled: the lines end, the item stays DEPLOYED with the person.
    let (status, cancelled) = app
        .call(patch(&w.a, &id, &json!({"status": "CANCELLED"})))
        .await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["status"], "CANCELLED");
    assert_eq!(cancelled["lines"][0]["status"], "CANCELLED");
    let kept = item(&app, &laptop).await;
    assert_eq!(kept["deployStatus"], "DEPLOYED");
    assert_eq!(kept["assignedTo"]["id"], ada.as_str());
    assert_eq!(kept["returnOrder"], Value::Null);
    let all = events(&app).await;
    let ended: Vec<&Value> = of_type(&all, "inventory.item.updated")
        .into_iter()
        .filter(|e| e["subject"]["id"] == laptop.as_str())
        .collect();
    assert_eq!(
        ended.last().unwrap()["changes"]["returnOrder"]["to"],
        Value::Null
    );
    // A cancelled order changes no more; the item may get a new return.
    let (status, _) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "PHYSICAL"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, again) = app
        .call(post(json!({"personId": ada, "itemIds": [laptop]})))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
}

async fn bad_changes_are_refused(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let laptop = deployed_item(&app.store, w.a_org, w.a_sku, &ada).to_string();
    let (_, order) = app
        .call(w.a.post_json(
            "/api/v1/return-orders",
            &json!({"personId": ada, "itemIds": [laptop]}),
        ))
        .await;
    let id = order["id"].as_str().unwrap().to_owned();
    let line = order["lines"][0]["id"].as_str().unwrap().to_owned();
    let cases = [
        (
            json!({"retrievalMethod": {"type": "PIGEON"}}),
            StatusCode::BAD_REQUEST,
            "retrievalMethod.type",
        ),
        (
            json!({"retrievalMethod": {"type": "PHYSICAL", "colour": "red"}}),
            StatusCode::BAD_REQUEST,
            "colour",
        ),
        (
            json!({"priority": "high"}),
            StatusCode::BAD_REQUEST,
            "priority",
        ),
        (json!({}), StatusCode::BAD_REQUEST, "nothing to change"),
        (
            json!({"status": "COMPLETED"}),
            StatusCode::BAD_REQUEST,
            "status",
        ),
        (
            json!({"status": "CANCELLED", "lines": [{"id": line, "itadRequested": true}]}),
            StatusCode::BAD_REQUEST,
            "status",
        ),
        (
            json!({"retrievalMethod": {"type": "PHYSICAL", "inboundTrackingCode": "X"}}),
            StatusCode::BAD_REQUEST,
            "retrievalMethod.inboundTrackingCode",
        ),
        (
            json!({"retrievalMethod": {"type": "PHYSICAL", "status": "SHIPPED"}}),
            StatusCode::BAD_REQUEST,
            "retrievalMethod.status",
        ),
        (
            json!({"lines": [{"id": line, "closedReason": "EATEN"}]}),
            StatusCode::BAD_REQUEST,
            "closedReason",
        ),
        (
            json!({"lines": [{"id": InventoryItemId::new(), "itadRequested": true}]}),
            StatusCode::BAD_REQUEST,
            "lines[0].id",
        ),
    ];
    for (body, want, source) in cases {
        let (status, err) = app.call(patch(&w.a, &id, &body)).await;
        assert_eq!(status, want, "{body}: {err}");
        assert!(err.to_string().contains(source), "{body}: {err}");
    }
    // A physical pick-up cannot ship: 409 naming both statuses.
    let (status, _) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "PHYSICAL"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, err) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"retrievalMethod": {"type": "PHYSICAL", "status": "SHIPPED"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    assert!(
        err.to_string().contains("from REQUESTED to SHIPPED"),
        "{err}"
    );
    // Another organization's order, an unknown one, a malformed id.
    for (client, path, want) in [
        (
            &w.b,
            format!("/api/v1/return-orders/{id}"),
            StatusCode::NOT_FOUND,
        ),
        (
            &w.a,
            format!("/api/v1/return-orders/{}", InventoryItemId::new()),
            StatusCode::NOT_FOUND,
        ),
        (
            &w.a,
            "/api/v1/return-orders/nope".to_owned(),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let (status, _) = app.call(client.get(&path)).await;
        assert_eq!(status, want, "{path}");
    }
    let (status, _) = app
        .call(patch(&w.b, &id, &json!({"status": "CANCELLED"})))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, b_page) = app.call(w.b.get("/api/v1/return-orders")).await;
    assert_eq!(b_page["pagination"]["totalRecords"], 0);
    // Scopes: a key with inventory:read only.
    let (status, _) = app.call(w.limited.get("/api/v1/return-orders")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = app
        .call(patch(&w.limited, &id, &json!({"status": "CANCELLED"})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Nothing of it changed the order beyond the method.
    let (_, now) = app
        .call(w.a.get(&format!("/api/v1/return-orders/{id}")))
        .await;
    assert_eq!(now["status"], "PROCESSING");
    assert_eq!(now["lines"][0]["itadRequested"], false);
}

async fn the_listing_filters_and_pages_newest_first(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let mut ids = Vec::new();
    let mut items = Vec::new();
    for _ in 0..3 {
        let it = deployed_item(&app.store, w.a_org, w.a_sku, &ada).to_string();
        let (status, order) = app
            .call(w.a.post_json(
                "/api/v1/return-orders",
                &json!({"personId": ada, "itemIds": [it]}),
            ))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{order}");
        ids.push(order["id"].as_str().unwrap().to_owned());
        items.push(it);
    }
    app.call(patch(&w.a, &ids[0], &json!({"status": "CANCELLED"})))
        .await;
    let (status, first) = app.call(w.a.get("/api/v1/return-orders?size=2")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        first["pagination"],
        json!({"totalRecords": 3, "totalPages": 2, "currentPage": 1, "pageSize": 2})
    );
    let listed: Vec<&str> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()]);
    let (_, second) = app
        .call(w.a.get("/api/v1/return-orders?size=2&page=2"))
        .await;
    assert_eq!(second["data"][0]["id"], ids[0].as_str());
    for (query, want) in [
        ("status=cancelled".to_owned(), vec![ids[0].clone()]),
        (
            "status=PENDING".to_owned(),
            vec![ids[2].clone(), ids[1].clone()],
        ),
        (format!("itemId={}", items[1]), vec![ids[1].clone()]),
        (format!("personId={}", PersonId::new()), vec![]),
    ] {
        let (status, page) = app
            .call(w.a.get(&format!("/api/v1/return-orders?{query}")))
            .await;
        assert_eq!(status, StatusCode::OK, "{query}: {page}");
        let got: Vec<String> = page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, want, "{query}");
    }
    for query in ["status=LOST", "size=0", "itemId=x", "colour=red"] {
        let (status, _) = app
            .call(w.a.get(&format!("/api/v1/return-orders?{query}")))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}");
    }
}

async fn two_changes_of_one_order_at_once_give_one_outcome(app: TestApp) {
    let w = app.world();
    let ada = person(&app, "ada@acme.example").await;
    let laptop = deployed_item(&app.store, w.a_org, w.a_sku, &ada).to_string();
    for round in 0..3 {
        let (_, order) = app
            .call(w.a.post_json(
                "/api/v1/return-orders",
                &json!({"personId": ada, "itemIds": [laptop]}),
            ))
            .await;
        let id = order["id"].as_str().unwrap().to_owned();
        let line = order["lines"][0]["id"].as_str().unwrap().to_owned();
        if round < 2 {
            // A cancel racing a move: whichever comes first, the other
            // still applies or is refused, and the order ends CANCELLED.
            let statuses = app
                .call_concurrently(vec![
                    patch(&w.a, &id, &json!({"status": "CANCELLED"})),
                    patch(&w.a, &id, &json!({"retrievalMethod": {"type": "PHYSICAL"}})),
                ])
                .await;
            assert_eq!(statuses[0], StatusCode::OK);
            assert!(
                statuses[1] == StatusCode::OK || statuses[1] == StatusCode::CONFLICT,
                "{statuses:?}"
            );
            let (_, now) = app
                .call(w.a.get(&format!("/api/v1/return-orders/{id}")))
                .await;
            assert_eq!(now["status"], "CANCELLED");
            continue;
        }
        // Two write-offs of one line with different reasons: one wins.
        let statuses = app
            .call_concurrently(vec![
                patch(
                    &w.a,
                    &id,
                    &json!({"lines": [{"id": line, "closedReason": "STOLEN"}]}),
                ),
                patch(
                    &w.a,
                    &id,
                    &json!({"lines": [{"id": line, "closedReason": "LOST_BY_WORKER"}]}),
                ),
            ])
            .await;
        let ok = statuses.iter().filter(|s| **s == StatusCode::OK).count();
        let conflict = statuses
            .iter()
            .filter(|s| **s == StatusCode::CONFLICT)
            .count();
        assert_eq!((ok, conflict), (1, 1), "{statuses:?}");
        let archived = item(&app, &laptop).await;
        let (_, now) = app
            .call(w.a.get(&format!("/api/v1/return-orders/{id}")))
            .await;
        assert_eq!(now["lines"][0]["closedReason"], archived["deployReason"]);
        let all = events(&app).await;
        let archiving: Vec<&Value> = of_type(&all, "inventory.item.updated")
            .into_iter()
            .filter(|e| e["changes"]["deployStatus"]["to"] == "ARCHIVED")
            .collect();
        assert_eq!(archiving.len(), 1, "one outcome, one set of events");
        let written_off: Vec<&Value> = of_type(&all, "return_order.updated")
            .into_iter()
            .filter(|e| e["subject"]["id"] == id.as_str())
            .collect();
        assert_eq!(written_off.len(), 1);
    }
}
