//! Black-box tests of warehouse receipts, early hold releases and the
//! organization's settings (`POST /api/v1/warehouses/{id}/receipts`,
//! `POST /api/v1/inventory/{id}/release-hold`,
//! `GET`/`PUT /api/v1/organization/settings`) on SQLite and PostgreSQL: each
//! entry answered on its own and in order, bad input refused before any
//! work, another organization's items and warehouses 404, two receipts of
//! one item at once receive it once, and a leaver's last item received
//! completes their offboarding.
use crate::support::{Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::{Days, Utc};
use serde_json::{json, Value};

on_both_backends!(
    a_receipt_answers_each_entry_in_the_order_sent,
    the_last_item_back_completes_the_offboarding,
    bad_receipts_are_refused_before_any_work,
    settings_set_the_hold_and_a_hold_is_released_early,
    two_receipts_of_one_item_at_once_receive_it_once,
    itad_asked_on_the_line_is_stamped_and_destroys_on_release,
);

fn receipts(warehouse: impl std::fmt::Display) -> String {
    format!("/api/v1/warehouses/{warehouse}/receipts")
}

pub(crate) fn put_json(client: &Client, path: &str, body: &Value) -> TestRequest {
    client.with(TestRequest::put().uri(path)).set_json(body)
}

/// A person of A with `n` items DEPLOYED to them (serials `{tag}-1`…),
/// offboarded over SCIM: each item is on an open return. Their id and the
/// items' ids.
pub(crate) async fn leaver(app: &TestApp, tag: &str, n: usize) -> (String, Vec<String>) {
    let w = app.world();
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": format!("{tag}@acme.example"),
        "name": {"givenName": "Ada", "familyName": "Lovelace"},
        "emails": [{"primary": true, "value": format!("{tag}@acme.example"), "type": "work"}],
        "active": true
    });
    let (status, created) = app.call(w.a.scim_post("/scim/v2/Users", &user)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let person = created["id"].as_str().unwrap().to_owned();
    let mut items = Vec::new();
    for k in 1..=n {
        let body = json!({"skuId": w.a_sku, "deployStatus": "DEPLOYED", "condition": "USED_GOOD",
            "serialNumber": format!("{tag}-{k}"), "assignedTo": {"type": "PERSON", "id": person}});
        let (status, item) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
        assert_eq!(status, StatusCode::CREATED, "{item}");
        items.push(item["id"].as_str().unwrap().to_owned());
    }
    let (status, body) = app
        .call(w.a.delete(&format!("/scim/v2/Users/{person}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    (person, items)
}

/// An item of A in `status` at A's warehouse, serial `serial`.
async fn stock(app: &TestApp, serial: &str, status: &str) -> String {
    let w = app.world();
    let body = json!({"skuId": w.a_sku, "deployStatus": status, "condition": "NEW",
        "serialNumber": serial, "assignedTo": {"type": "WAREHOUSE", "id": w.a_warehouse}});
    let (status, item) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    item["id"].as_str().unwrap().to_owned()
}

pub(crate) async fn item(app: &TestApp, client: &Client, id: &str) -> Value {
    let (status, item) = app
        .call(client.get(&format!("/api/v1/inventory/{id}")))
        .await;
    assert_eq!(status, StatusCode::OK, "{item}");
    item
}

pub(crate) async fn receive(
    app: &TestApp,
    client: &Client,
    warehouse: impl std::fmt::Display,
    items: Value,
) -> Vec<Value> {
    let (status, body) = app
        .call(client.post_json(&receipts(warehouse), &json!({ "items": items })))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["results"].as_array().unwrap().clone()
}

fn statuses(results: &[Value]) -> Vec<u64> {
    results
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect()
}

fn today_plus(days: u64) -> String {
    Utc::now()
        .date_naive()
        .checked_add_days(Days::new(days))
        .unwrap()
        .to_string()
}

async fn history_types(app: &TestApp, path: &str) -> Vec<String> {
    let (status, body) = app.call(app.world().a.get(path)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

async fn a_receipt_answers_each_entry_in_the_order_sent(app: TestApp) {
    let w = app.world();
    let (_, returned) = leaver(&app, "rcpt", 1).await;
    let arriving = stock(&app, "NEW-1", "AWAITING_ARRIVAL").await;
    stock(&app, "SHELF-1", "AVAILABLE").await;
    // B's item, by id and by serial.
    let body = json!({"skuId": w.b_sku, "deployStatus": "AWAITING_ARRIVAL", "condition": "NEW",
        "serialNumber": "THEIRS-1"});
    let (_, theirs) = app.call(w.b.post_json("/api/v1/inventory", &body)).await;
    let theirs = theirs["id"].as_str().unwrap();
    let results = receive(
        &app,
        &w.a,
        w.a_warehouse,
        json!([
            {"serialNumber": "rcpt-1", "condition": "USED_FAIR"},
            {"itemId": arriving},
            {"serialNumber": "SHELF-1"},
            {"serialNumber": "NO-SUCH-SERIAL"},
            {"itemId": theirs},
            {"serialNumber": "THEIRS-1"},
            {"serialNumber": "rcpt-1"},
        ]),
    )
    .await;
    assert_eq!(statuses(&results), [200, 200, 409, 404, 404, 404, 409]);
    assert_eq!(results[0]["itemId"], returned[0].as_str());
    assert_eq!(results[0]["serialNumber"], "rcpt-1");
    assert!(results[0].get("detail").is_none(), "{}", results[0]);
    assert_eq!(results[1]["itemId"], arriving.as_str());
    assert!(
        results[2]["detail"]
            .as_str()
            .unwrap()
            .contains("is AVAILABLE"),
        "{}",
        results[2]
    );
    assert_eq!(results[3]["itemId"], Value::Null);
    assert_eq!(results[3]["serialNumber"], "NO-SUCH-SERIAL");
    assert_eq!(
        results[4]["itemId"],
        Value::Null,
        "B's id is not named back"
    );
    assert!(
        results[6]["detail"]
            .as_str()
            .unwrap()
            .contains("is UNAVAILABLE"),
        "{}",
        results[6]
    );

    let got = item(&app, &w.a, &returned[0]).await;
    assert_eq!(got["deployStatus"], "UNAVAILABLE");
    assert_eq!(got["deployReason"], "PENDING_HOLD_RELEASE");
    assert_eq!(got["condition"], "USED_FAIR");
    assert_eq!(got["assignedTo"]["type"], "WAREHOUSE");
    assert_eq!(got["assignedTo"]["id"], w.a_warehouse.to_string());
    assert_eq!(got["holdStartDate"], today_plus(0));
    assert_eq!(got["unlockDate"], today_plus(30));
    assert_eq!(got["itadRequested"], false);
    assert_eq!(got["returnOrder"], Value::Null, "its return line is closed");
    let arrived = item(&app, &w.a, &arriving).await;
    assert_eq!(arrived["deployStatus"], "AVAILABLE");
    assert_eq!(arrived["holdStartDate"], Value::Null);
    // B's item did not move.
    let (_, still) = app
        .call(w.b.get(&format!("/api/v1/inventory/{theirs}")))
        .await;
    assert_eq!(still["deployStatus"], "AWAITING_ARRIVAL");
    // The item's history carries the receipt.
    let types = history_types(&app, &format!("/api/v1/inventory/{}/history", returned[0])).await;
    assert_eq!(types[0], "inventory.item.updated");
    // The listing shows the item where it is now.
    let (_, page) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=UNAVAILABLE&serialNumber=rcpt-1"))
        .await;
    assert_eq!(page["pagination"]["totalRecords"], 1, "{page}");
}

async fn the_last_item_back_completes_the_offboarding(app: TestApp) {
    let w = app.world();
    let (person, items) = leaver(&app, "last", 2).await;
    let person_history = format!("/api/v1/people/{person}/history");
    let results = receive(&app, &w.a, w.a_warehouse, json!([{"itemId": items[0]}])).await;
    assert_eq!(statuses(&results), [200]);
    let types = history_types(&app, &person_history).await;
    assert!(
        !types.contains(&"person.offboarded".to_owned()),
        "{types:?}"
    );
    // The second item, at a shared warehouse A was granted.
    let results = receive(
        &app,
        &w.a,
        w.shared_granted,
        json!([{"serialNumber": "last-2"}]),
    )
    .await;
    assert_eq!(statuses(&results), [200]);
    let got = item(&app, &w.a, &items[1]).await;
    assert_eq!(got["assignedTo"]["id"], w.shared_granted.to_string());
    let types = history_types(&app, &person_history).await;
    assert_eq!(types[0], "person.offboarded", "{types:?}");
    let (_, feed) = app
        .call(w.a.get("/api/v1/events?types=return_order.updated"))
        .await;
    assert_eq!(feed["data"].as_array().unwrap().len(), 2, "{feed}");
}

async fn bad_receipts_are_refused_before_any_work(app: TestApp) {
    let w = app.world();
    let (_, items) = leaver(&app, "bad", 1).await;
    let path = receipts(w.a_warehouse);
    let refused = |body: Value, status: StatusCode, source: &'static str| {
        let app = &app;
        let req = w.a.post_json(&path, &body);
        async move {
            let (got, answer) = app.call(req).await;
            assert_eq!(got, status, "{body} → {answer}");
            assert_eq!(answer["errors"][0]["source"], source, "{answer}");
        }
    };
    let good = json!({"serialNumber": "bad-1"});
    refused(
        json!({"items": [good], "note": 1}),
        StatusCode::BAD_REQUEST,
        "note",
    )
    .await;
    refused(
        json!({"items": [good, {"serialNumber": "x", "colour": "red"}]}),
        StatusCode::BAD_REQUEST,
        "items[1].colour",
    )
    .await;
    refused(
        json!({"items": [good, {"serialNumber": "x", "itemId": items[0]}]}),
        StatusCode::BAD_REQUEST,
        "items[1]",
    )
    .await;
    refused(
        json!({"items": [good, {"condition": "NEW"}]}),
        StatusCode::BAD_REQUEST,
        "items[1]",
    )
    .await;
    refused(
        json!({"items": [good, {"itemId": "not-a-uuid"}]}),
        StatusCode::BAD_REQUEST,
        "items[1].itemId",
    )
    .await;
    refused(
        json!({"items": [good, {"serialNumber": "x", "condition": "SHINY"}]}),
        StatusCode::BAD_REQUEST,
        "items[1].condition",
    )
    .await;
    refused(json!({"items": []}), StatusCode::BAD_REQUEST, "items").await;
    refused(json!({}), StatusCode::BAD_REQUEST, "items").await;
    let mut many = vec![good.clone()];
    many.extend((0..1000).map(|n| json!({"serialNumber": format!("S-{n}")})));
    refused(
        json!({ "items": many }),
        StatusCode::PAYLOAD_TOO_LARGE,
        "items",
    )
    .await;
    // None of that received anything.
    let got = item(&app, &w.a, &items[0]).await;
    assert_eq!(got["deployStatus"], "DEPLOYED");

    let body = json!({ "items": [good] });
    for (warehouse, status) in [
        (w.b_warehouse.to_string(), StatusCode::NOT_FOUND),
        (w.shared_not_granted.to_string(), StatusCode::NOT_FOUND),
        (uuid::Uuid::new_v4().to_string(), StatusCode::NOT_FOUND),
        ("nope".to_owned(), StatusCode::BAD_REQUEST),
    ] {
        let (got, answer) = app.call(w.a.post_json(&receipts(&warehouse), &body)).await;
        assert_eq!(got, status, "{warehouse}: {answer}");
    }
    // The key needs returns:write.
    let (got, _) = app.call(w.limited.post_json(&path, &body)).await;
    assert_eq!(got, StatusCode::FORBIDDEN);
    let got = item(&app, &w.a, &items[0]).await;
    assert_eq!(got["deployStatus"], "DEPLOYED");
    // 1,000 entries are taken.
    let mut thousand = vec![good];
    thousand.extend((0..999).map(|n| json!({"serialNumber": format!("S-{n}")})));
    let results = receive(&app, &w.a, w.a_warehouse, json!(thousand)).await;
    assert_eq!(results.len(), 1000);
    assert_eq!(results[0]["status"], 200);
    assert!(results[1..].iter().all(|r| r["status"] == 404));
}

async fn settings_set_the_hold_and_a_hold_is_released_early(app: TestApp) {
    let w = app.world();
    const SETTINGS: &str = "/api/v1/organization/settings";
    let (status, body) = app.call(w.a.get(SETTINGS)).await;
    assert_eq!(
        (status, &body),
        (StatusCode::OK, &json!({"holdPeriodDays": 30}))
    );
    for bad in [
        json!({"holdPeriodDays": 3651}),
        json!({"holdPeriodDays": -1}),
        json!({"holdPeriodDays": 1.5}),
        json!({"holdPeriodDays": "7"}),
        json!({"holdPeriodDays": 7, "other": true}),
        json!({}),
    ] {
        let (status, answer) = app.call(put_json(&w.a, SETTINGS, &bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad} → {answer}");
    }
    let (status, body) = app
        .call(put_json(&w.a, SETTINGS, &json!({"holdPeriodDays": 0})))
        .await;
    assert_eq!(
        (status, &body),
        (StatusCode::OK, &json!({"holdPeriodDays": 0}))
    );
    let (_, body) = app.call(w.b.get(SETTINGS)).await;
    assert_eq!(body, json!({"holdPeriodDays": 30}), "B's own");
    let (status, _) = app.call(w.limited.get(SETTINGS)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // No hold: the item is released at once.
    let (_, items) = leaver(&app, "nohold", 1).await;
    let results = receive(&app, &w.a, w.a_warehouse, json!([{"itemId": items[0]}])).await;
    assert_eq!(statuses(&results), [200]);
    let got = item(&app, &w.a, &items[0]).await;
    assert_eq!(got["deployStatus"], "AVAILABLE");
    assert_eq!(got["deployReason"], Value::Null);
    assert_eq!(got["unlockDate"], Value::Null);

    // A hold of 10 days, released early.
    app.call(put_json(&w.a, SETTINGS, &json!({"holdPeriodDays": 10})))
        .await;
    let (_, items) = leaver(&app, "early", 1).await;
    receive(&app, &w.a, w.a_warehouse, json!([{"itemId": items[0]}])).await;
    let got = item(&app, &w.a, &items[0]).await;
    assert_eq!(got["unlockDate"], today_plus(10));
    let release = format!("/api/v1/inventory/{}/release-hold", items[0]);
    let (status, _) = app.call(w.b.post_json(&release, &json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "B's key: not its item");
    let (status, released) = app.call(w.a.with(TestRequest::post().uri(&release))).await;
    assert_eq!(status, StatusCode::OK, "{released}");
    assert_eq!(released["deployStatus"], "AVAILABLE");
    assert_eq!(released["holdStartDate"], Value::Null);
    assert_eq!(released["unlockDate"], Value::Null);
    assert_eq!(released["itadRequested"], Value::Null);
    let (status, answer) = app.call(w.a.with(TestRequest::post().uri(&release))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{answer}");
    let (status, _) = app
        .call(w.a.with(TestRequest::post().uri(&format!(
            "/api/v1/inventory/{}/release-hold",
            uuid::Uuid::new_v4()
        ))))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The release names the key as its actor.
    let (_, history) = app
        .call(w.a.get(&format!("/api/v1/inventory/{}/history", items[0])))
        .await;
    assert_eq!(history["data"][0]["actor"]["type"], "API_KEY", "{history}");
}

async fn two_receipts_of_one_item_at_once_receive_it_once(app: TestApp) {
    let w = app.world();
    for round in 0..3 {
        let tag = format!("race{round}");
        let (_, items) = leaver(&app, &tag, 1).await;
        let body = json!({"items": [{"serialNumber": format!("{tag}-1")}]});
        let (one, two) = futures_util::future::join(
            app.call(w.a.post_json(&receipts(w.a_warehouse), &body)),
            app.call(w.a.post_json(&receipts(w.a_warehouse), &body)),
        )
        .await;
        let mut got = vec![
            one.1["results"][0]["status"].as_u64().unwrap(),
            two.1["results"][0]["status"].as_u64().unwrap(),
        ];
        got.sort_unstable();
        assert_eq!(got, [200, 409], "{} {}", one.1, two.1);
        let types = history_types(&app, &format!("/api/v1/inventory/{}/history", items[0])).await;
        let receipts_recorded = types
            .iter()
            .take_while(|t| *t == "inventory.item.updated")
            .count();
        // The offboarding's (return started) and the one receipt's.
        assert_eq!(receipts_recorded, 2, "{types:?}");
    }
}

async fn itad_asked_on_the_line_is_stamped_and_destroys_on_release(app: TestApp) {
    let w = app.world();
    let (_, items) = leaver(&app, "itad", 1).await;
    let before = item(&app, &w.a, &items[0]).await;
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
    let results = receive(
        &app,
        &w.a,
        w.a_warehouse,
        json!([{"serialNumber": "itad-1"}]),
    )
    .await;
    assert_eq!(statuses(&results), [200]);
    let held = item(&app, &w.a, &items[0]).await;
    assert_eq!(held["itadRequested"], true);
    assert_eq!(held["deployReason"], "PENDING_HOLD_RELEASE");
    // The order shows its line received at the warehouse.
    let (_, order_now) = app
        .call(w.a.get(&format!("/api/v1/return-orders/{order}")))
        .await;
    assert_eq!(order_now["status"], "COMPLETED", "{order_now}");
    assert_eq!(order_now["lines"][0]["status"], "RECEIVED_IN_WAREHOUSE");
    assert_eq!(
        order_now["lines"][0]["warehouseId"],
        w.a_warehouse.to_string()
    );
    let (status, released) =
        app.call(w.a.with(
            TestRequest::post().uri(&format!("/api/v1/inventory/{}/release-hold", items[0])),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{released}");
    assert_eq!(released["deployStatus"], "UNAVAILABLE");
    assert_eq!(released["deployReason"], "MARKED_FOR_DESTRUCTION");
    assert_eq!(released["itadRequested"], Value::Null);
}
