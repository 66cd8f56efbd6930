//! Black-box tests of item writes (`GET`/`POST`/`PATCH /api/v1/inventory…`)
//! on SQLite and PostgreSQL: the domain rules, 400/404/409, and that the
//! listing, its counts and its search see every change.
use crate::support::inventory::{organization, seed, Seeded};
use crate::support::{url_encode, Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};

on_both_backends!(
    create_then_read_and_list,
    create_rejects_bad_input,
    status_moves_follow_the_rules,
    other_changes_and_the_listing_follow,
    another_organizations_items_are_404,
    concurrent_changes_never_lose_an_update_silently,
    a_renamed_person_is_listed_under_the_new_name,
    the_listing_shows_every_change_to_an_item_its_sku_and_its_holder,
    pages_follow_every_write_on_every_instance,
    a_key_that_may_only_write_gets_no_item_back,
    a_patch_that_changes_nothing_keeps_updated_at,
    levels_show_available_stock_and_record_each_crossing_once,
    an_item_an_order_holds_moves_only_through_the_order,
);

fn seeded(app: &TestApp) -> Seeded {
    seed(&app.store, &organization(app.world().a_org), 6)
}

fn patch(client: &Client, id: &str, body: &Value) -> TestRequest {
    client
        .with(TestRequest::patch().uri(&format!("/api/v1/inventory/{id}")))
        .set_json(body)
}

async fn total(app: &TestApp, query: &str) -> u64 {
    let (_, body) = app
        .call(app.world().a.get(&format!("/api/v1/inventory?{query}")))
        .await;
    body["pagination"]["totalRecords"].as_u64().unwrap()
}

async fn create(app: &TestApp, s: &Seeded, extra: Value) -> Value {
    let mut body = json!({"skuId": s.skus[1].id, "deployStatus": "AVAILABLE", "condition": "NEW",
        "serialNumber": "PF-NEW-001", "assignedTo": {"type": "WAREHOUSE", "id": s.warehouse}});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (status, item) = app
        .call(app.world().a.post_json("/api/v1/inventory", &body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    item
}

async fn create_then_read_and_list(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let before = total(&app, "deployStatuses=AVAILABLE").await;
    let body = json!({"skuId": s.skus[2].id, "deployStatus": "AVAILABLE", "condition": "USED_GOOD",
        "serialNumber": "IPH-778899", "imei": ["356600000000001"], "tags": ["loaner", {"label": "eu"}],
        "renewalDate": "2028-03-01", "description": "Fresh spare", "suppliedBy": "OPERATOR",
        "assignedTo": {"type": "WAREHOUSE", "id": s.warehouse}});
    let resp = app
        .call_raw(w.a.post_json("/api/v1/inventory", &body))
        .await;
    assert_eq!(resp.status, StatusCode::CREATED);
    let item: Value = serde_json::from_slice(&resp.body).unwrap();
    let id = item["id"].as_str().unwrap();
    assert_eq!(
        resp.location.as_deref(),
        Some(format!("/api/v1/inventory/{id}").as_str())
    );
    assert_eq!(item["skuTitle"], "iPhone 15");
    assert_eq!(item["assignedTo"]["label"], "Berlin Central");
    assert!(item["assignedTo"]["assignedAt"].is_string());
    assert_eq!(item["tags"].as_array().unwrap().len(), 2);
    assert_eq!(
        item["renewalDateUpdatedBy"],
        "RENEWAL_DATE_MANUALLY_UPDATED"
    );
    assert_eq!(item["createdAt"], item["updatedAt"]);
    let (status, read) = app.call(w.a.get(&format!("/api/v1/inventory/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, item);
    // The listing, its counts and its search see it at once.
    assert_eq!(total(&app, "deployStatuses=AVAILABLE").await, before + 1);
    let (_, found) = app
        .call(w.a.get("/api/v1/inventory?searchString=778899"))
        .await;
    assert_eq!(found["data"][0]["id"], id);
    let (_, first) = app.call(w.a.get("/api/v1/inventory?size=1")).await;
    assert_eq!(first["data"][0]["id"], id, "newest first");
}

async fn create_rejects_bad_input(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let b = seed(&app.store, &organization(w.b_org), 1);
    let ok = json!({"skuId": s.skus[0].id, "deployStatus": "AVAILABLE", "condition": "NEW"});
    let with = |k: &str, v: Value| {
        let mut b = ok.clone();
        b[k] = v;
        b
    };
    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (
            json!({"deployStatus": "AVAILABLE", "condition": "NEW"}),
            StatusCode::BAD_REQUEST,
            "skuId",
        ),
        (
            with("skuId", json!("nope")),
            StatusCode::BAD_REQUEST,
            "skuId",
        ),
        (
            with("deployStatus", json!("GIFTED")),
            StatusCode::BAD_REQUEST,
            "deployStatus",
        ),
        (
            with("condition", json!("SHINY")),
            StatusCode::BAD_REQUEST,
            "condition",
        ),
        (
            with("colour", json!("red")),
            StatusCode::BAD_REQUEST,
            "colour",
        ),
        (with("imei", json!("123")), StatusCode::BAD_REQUEST, "imei"),
        (
            with("renewalDate", json!("01/02/2027")),
            StatusCode::BAD_REQUEST,
            "renewalDate",
        ),
        (
            with("assignedTo", json!({"type": "DESK", "id": s.office})),
            StatusCode::BAD_REQUEST,
            "assignedTo",
        ),
        (
            with("deployReason", json!("OTHER")),
            StatusCode::BAD_REQUEST,
            "deployReason",
        ),
        (
            with("deployStatus", json!("UNAVAILABLE")),
            StatusCode::BAD_REQUEST,
            "deployReason",
        ),
        (
            with("deployStatus", json!("DEPLOYED")),
            StatusCode::BAD_REQUEST,
            "assignedTo",
        ),
        (
            with("skuId", json!(b.skus[0].id)),
            StatusCode::NOT_FOUND,
            "skuId",
        ),
        (
            with(
                "assignedTo",
                json!({"type": "PERSON", "id": b.people[0].id}),
            ),
            StatusCode::NOT_FOUND,
            "assignedTo.id",
        ),
        (
            with(
                "assignedTo",
                json!({"type": "WAREHOUSE", "id": b.warehouse}),
            ),
            StatusCode::NOT_FOUND,
            "assignedTo.id",
        ),
        (
            with(
                "assignedTo",
                json!({"type": "OFFICE", "id": uuid::Uuid::new_v4()}),
            ),
            StatusCode::NOT_FOUND,
            "assignedTo.id",
        ),
    ];
    for (body, status, source) in cases {
        let (got, err) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
        assert_eq!(got, status, "{body}: {err}");
        assert_eq!(err["errors"][0]["source"], source, "{body}: {err}");
    }
    let (status, _) = app
        .call(w.limited.post_json("/api/v1/inventory", &ok))
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "inventory:read is not enough to write"
    );
    assert_eq!(total(&app, "").await, 6, "nothing was created");
}

async fn status_moves_follow_the_rules(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create(&app, &s, json!({})).await;
    let id = item["id"].as_str().unwrap();
    let step = |body: Value| patch(&w.a, id, &body);

    let (status, err) = app.call(step(json!({"deployStatus": "UNAVAILABLE"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(err["errors"][0]["source"], "deployReason");
    let (status, v) = app
        .call(step(
            json!({"deployStatus": "UNAVAILABLE", "deployReason": "REQUIRES_REPAIR"}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["deployReason"], "REQUIRES_REPAIR");
    assert!(v["updatedAt"].as_str() > item["updatedAt"].as_str());

    let (status, err) = app.call(step(json!({"deployStatus": "DEPLOYED"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "DEPLOYED needs a PERSON");
    assert_eq!(err["errors"][0]["source"], "assignedTo");
    let person = &s.people[1];
    let deployed_before = total(&app, "deployStatuses=DEPLOYED").await;
    let (status, v) = app
        .call(step(
            json!({"deployStatus": "DEPLOYED", "assignedTo": {"type": "PERSON", "id": person.id}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["deployReason"], Value::Null, "DEPLOYED clears the reason");
    assert_eq!(v["assignedTo"]["label"], person.user_name.as_str());
    assert_eq!(
        total(&app, "deployStatuses=DEPLOYED").await,
        deployed_before + 1
    );
    let (_, mine) = app
        .call(w.a.get(&format!(
            "/api/v1/inventory?assignedEmail={}",
            person.user_name
        )))
        .await;
    assert!(mine["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["id"] == id));

    let (status, _) = app
        .call(step(
            json!({"deployStatus": "AVAILABLE", "deployReason": "OTHER"}),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "AVAILABLE takes no reason");
    let (status, _) = app.call(step(json!({"deployStatus": "ARCHIVED"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, v) = app
        .call(step(
            json!({"deployStatus": "ARCHIVED", "deployReason": "STOLEN", "assignedTo": null}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["assignedTo"], Value::Null);
    let (status, err) = app.call(step(json!({"deployStatus": "AVAILABLE"}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "ARCHIVED is final");
    assert_eq!(err["errors"][0]["source"], "deployStatus");
    for field in ["deployStatus", "condition"] {
        let (status, err) = app.call(step(json!({ field: null }))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{field} cannot be cleared");
        assert_eq!(err["errors"][0]["source"], field, "{err}");
    }
    let (status, _) = app.call(step(json!({"serialNumber": "x"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not a patchable field");
}

async fn other_changes_and_the_listing_follow(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create(&app, &s, json!({"tags": ["old"], "description": "Before"})).await;
    let id = item["id"].as_str().unwrap();
    let (status, v) = app
        .call(patch(
            &w.a,
            id,
            &json!({"tags": ["new", "vip"], "renewalDate": "2029-12-31",
            "description": "Quarantined by SECURITY", "condition": "USED_FAIR",
            "assignedTo": {"type": "OFFICE", "id": s.office}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let labels: Vec<&str> = v["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["new", "vip"]);
    assert_eq!(v["renewalDate"], "2029-12-31");
    assert_eq!(v["condition"], "USED_FAIR");
    assert_eq!(v["assignedTo"]["label"], "Lisbon Office");
    let (_, found) = app
        .call(w.a.get("/api/v1/inventory?searchString=quarantined"))
        .await;
    assert_eq!(found["data"][0]["id"], id);
    let (_, gone) = app
        .call(w.a.get("/api/v1/inventory?searchString=before"))
        .await;
    assert!(
        gone["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["id"] != id),
        "old text no longer matches"
    );
    let (_, office) = app
        .call(w.a.get(&format!("/api/v1/inventory?officeId={}", s.office)))
        .await;
    assert!(office["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["id"] == id));

    let (status, v) = app
        .call(patch(
            &w.a,
            id,
            &json!({"renewalDate": null, "description": null, "tags": []}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["renewalDate"], Value::Null);
    assert_eq!(v["renewalDateUpdatedBy"], "CLEAR_RENEWAL_DATE_MANUALLY_SET");
    assert_eq!(v["description"], Value::Null);
    assert_eq!(v["tags"], json!([]));
}

async fn another_organizations_items_are_404(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let id = s.batch.inventory[0].id;
    let (status, _) = app.call(w.b.get(&format!("/api/v1/inventory/{id}"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = app
        .call(patch(
            &w.b,
            &id.to_string(),
            &json!({"description": "mine now"}),
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["errors"][0]["source"], "inventoryItem");
    let (_, body) = app.call(w.a.get(&format!("/api/v1/inventory/{id}"))).await;
    assert_ne!(body["description"], "mine now");
    let (status, body) = app.call(w.a.get("/api/v1/inventory/not-a-uuid")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["errors"][0]["source"], "id");
    let (status, _) = app
        .call(w.a.get(&format!("/api/v1/inventory/{}", uuid::Uuid::new_v4())))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn concurrent_changes_never_lose_an_update_silently(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create(&app, &s, json!({})).await;
    let id = item["id"].as_str().unwrap();
    let reqs = (0..8)
        .map(|i| patch(&w.a, id, &json!({"description": format!("writer {i}")})))
        .collect();
    let statuses = app.call_concurrently(reqs).await;
    let ok = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    let conflicts = statuses
        .iter()
        .filter(|s| **s == StatusCode::CONFLICT)
        .count();
    assert!(ok >= 1, "{statuses:?}");
    assert_eq!(ok + conflicts, 8, "{statuses:?}");
    let (_, v) = app.call(w.a.get(&format!("/api/v1/inventory/{id}"))).await;
    assert!(v["description"].as_str().unwrap().starts_with("writer "));
}

async fn a_renamed_person_is_listed_under_the_new_name(app: TestApp) {
    use equip_domain::person::Email;
    use equip_domain::ports::{PersonRepository, PersonWrite};
    let s = seeded(&app);
    let w = app.world();
    let mut person = s.people[0].clone();
    let (_, before) = app
        .call(w.a.get(&format!("/api/v1/inventory?personId={}", person.id)))
        .await;
    let theirs: Vec<Value> = before["data"].as_array().unwrap().clone();
    assert!(!theirs.is_empty());
    // The identity provider renames the person (as a SCIM PUT or PATCH does).
    let current = person.clone();
    person.user_name = "zoe.lovelace@example.com".into();
    person.emails = vec![Email {
        value: "zoe.lovelace@example.com".into(),
        kind: Some("work".into()),
        primary: true,
    }];
    person.version += 1;
    assert_eq!(
        app.store.update_person(&current, &person).unwrap(),
        PersonWrite::Done
    );
    let (_, after) = app
        .call(w.a.get("/api/v1/inventory?assignedEmail=ZOE.LOVELACE@example.com"))
        .await;
    assert_eq!(after["data"].as_array().unwrap().len(), theirs.len());
    for item in after["data"].as_array().unwrap() {
        assert_eq!(item["assignedTo"]["label"], "zoe.lovelace@example.com");
    }
    let (_, old) = app
        .call(w.a.get("/api/v1/inventory?assignedEmail=ada@example.com"))
        .await;
    assert_eq!(old["data"], json!([]));
    // The assignee sort key follows the new label too: descending, "zoe…" now
    // comes before "lisbon office" and "berlin central" (as "ada…" it came after).
    let (_, sorted) = app
        .call(w.a.get("/api/v1/inventory?sortBy=assignee&sortDirection=DESC&size=1"))
        .await;
    assert_eq!(
        sorted["data"][0]["assignedTo"]["label"],
        "zoe.lovelace@example.com"
    );
}

/// Every item of the listing, as the listing shows it, equals the item as
/// `GET /api/v1/inventory/{id}` shows it (the listing serves pre-rendered
/// JSON; a stale rendering differs from the freshly read item).
async fn assert_listing_is_fresh(app: &TestApp, after: &str) {
    let w = app.world();
    let (status, page) = app.call(w.a.get("/api/v1/inventory?size=1000")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let listed = page["data"].as_array().unwrap();
    assert!(!listed.is_empty());
    for item in listed {
        let id = item["id"].as_str().unwrap();
        let (status, read) = app.call(w.a.get(&format!("/api/v1/inventory/{id}"))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(item, &read, "after {after}: listed item {id} is stale");
    }
}

async fn the_listing_shows_every_change_to_an_item_its_sku_and_its_holder(app: TestApp) {
    use equip_domain::ports::PersonRepository;
    use equip_domain::services::import::run_import;
    let s = seeded(&app);
    let w = app.world();
    let org = w.a_org;
    assert_listing_is_fresh(&app, "the import").await;

    // An item write.
    let item = create(&app, &s, json!({"tags": ["t1"]})).await;
    let id = item["id"].as_str().unwrap();
    let (status, _) = app
        .call(patch(
            &w.a,
            id,
            &json!({"tags": ["t2"], "description": "Patched", "condition": "USED_POOR",
            "assignedTo": {"type": "WAREHOUSE", "id": s.warehouse}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, listed) = app
        .call(w.a.get("/api/v1/inventory?searchString=patched"))
        .await;
    assert_eq!(listed["data"][0]["description"], "Patched");
    assert_eq!(listed["data"][0]["tags"][0]["label"], "t2");
    assert_listing_is_fresh(&app, "an item PATCH").await;

    // A SKU, the warehouse and the office renamed by a later import.
    let mut again = equip_domain::import::ImportBatch::default();
    let mut sku = s.skus[0].clone();
    sku.title = "Renamed Laptop 15".into();
    again.skus.push(sku);
    let mut warehouse = s
        .batch
        .warehouses
        .iter()
        .find(|x| x.id == s.warehouse)
        .unwrap()
        .clone();
    warehouse.name = "Renamed Warehouse".into();
    again.warehouses.push(warehouse);
    let mut office = s.batch.offices[0].clone();
    office.name = "Renamed Office".into();
    again.offices.push(office);
    run_import(&*app.store, org, &again, &mut |_| {}).unwrap();
    let (_, renamed) = app
        .call(w.a.get(&format!("/api/v1/inventory?skuIds={}", s.skus[0].id)))
        .await;
    assert!(!renamed["data"].as_array().unwrap().is_empty());
    for i in renamed["data"].as_array().unwrap() {
        assert_eq!(i["skuTitle"], "Renamed Laptop 15");
    }
    let (_, held) = app
        .call(w.a.get(&format!("/api/v1/inventory?warehouseId={}", s.warehouse)))
        .await;
    assert_eq!(held["data"][0]["assignedTo"]["label"], "Renamed Warehouse");
    assert_listing_is_fresh(&app, "renames by import").await;

    // Offboarding a person opens return orders for their deployed items.
    let person = s
        .people
        .iter()
        .find(|p| {
            s.batch.inventory.iter().any(|i| {
                i.deploy_status == equip_domain::inventory::DeployStatus::Deployed
                    && i.return_order.is_none()
                    && i.assignment
                        .is_some_and(|a| a.assignee.id() == *p.id.as_uuid())
            })
        })
        .expect("a person holding a deployed item without a return");
    app.store
        .offboard_person(org, person.id, None, chrono::Utc::now())
        .unwrap();
    let (_, theirs) = app
        .call(w.a.get(&format!(
            "/api/v1/inventory?personId={}&deployStatuses=DEPLOYED",
            person.id
        )))
        .await;
    assert!(theirs["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["returnOrder"]["status"] == "PENDING"));
    assert_listing_is_fresh(&app, "offboarding").await;
}

/// A write is seen by the next read of the same URL, on the application that
/// wrote and on another one over the same store; a key revoked after its pages
/// were read is refused. (Two processes over one PostgreSQL database:
/// `change_notifications.rs`.)
async fn pages_follow_every_write_on_every_instance(app: TestApp) {
    use actix_web::test;
    use equip_domain::person::Email;
    use equip_domain::ports::{PersonRepository, PersonWrite};
    let s = seeded(&app);
    let w = app.world();
    let other = test::init_service(equip_http::app(equip_http::AppState::with_write_sessions(
        std::sync::Arc::clone(&app.store),
    )))
    .await;
    // Reads a URL twice on this instance and once on the other; all three
    // must agree.
    let read = |url: String| {
        let (app, other, a) = (&app, &other, w.a.clone());
        async move {
            let (status, first) = app.call(a.get(&url)).await;
            assert_eq!(status, StatusCode::OK, "{first}");
            let (_, again) = app.call(a.get(&url)).await;
            assert_eq!(again, first, "{url}: a repeated read differs");
            let there: Value = test::call_and_read_body_json(other, a.get(&url).to_request()).await;
            assert_eq!(there, first, "{url}: the other instance differs");
            first
        }
    };
    let first_page = "/api/v1/inventory?size=5".to_owned();
    let available = "/api/v1/inventory?deployStatuses=AVAILABLE&size=3".to_owned();
    let zoe = "/api/v1/inventory?assignedEmail=zoe@example.com".to_owned();
    let before = read(first_page.clone()).await;
    let available_before = read(available.clone()).await["pagination"]["totalRecords"]
        .as_u64()
        .unwrap();
    assert_eq!(read(zoe.clone()).await["data"], json!([]));

    // An item PATCH: the first page shows it everywhere.
    let id = before["data"][0]["id"].as_str().unwrap();
    let (status, _) = app
        .call(patch(
            &w.a,
            id,
            &json!({"description": "Seen by every instance"}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    let after = read(first_page.clone()).await;
    assert_eq!(after["data"][0]["description"], "Seen by every instance");

    // A new item: first in the default order, and counted.
    let item = create(&app, &s, json!({})).await;
    let after = read(first_page.clone()).await;
    assert_eq!(after["data"][0]["id"], item["id"]);
    assert_eq!(
        read(available.clone()).await["pagination"]["totalRecords"],
        available_before + 1
    );

    // A person gains an address (a SCIM write): assignedEmail finds their items.
    let mut person = s.people[0].clone();
    let current = person.clone();
    person.emails.push(Email {
        value: "zoe@example.com".into(),
        kind: Some("home".into()),
        primary: false,
    });
    person.version += 1;
    assert_eq!(
        app.store.update_person(&current, &person).unwrap(),
        PersonWrite::Done
    );
    let theirs = read(format!("/api/v1/inventory?personId={}", person.id)).await;
    let found = read(zoe).await;
    assert!(!found["data"].as_array().unwrap().is_empty());
    assert_eq!(found["data"], theirs["data"]);

    // A revoked key is refused.
    crate::support::revoke_key(&*app.store, &w.a.key);
    let (status, _) = app.call(w.a.get(&first_page)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn a_key_that_may_only_write_gets_no_item_back(app: TestApp) {
    use equip_domain::api_key::{Scope, Scopes};
    let s = seeded(&app);
    let w = app.world();
    let writer = Client {
        key: equip_domain::services::admin::issue_api_key(
            &*app.store,
            w.a_org,
            Scopes::from_list([Scope::InventoryWrite]),
            None,
            chrono::Utc::now(),
        )
        .unwrap()
        .secret,
    };
    let body = json!({"skuId": s.skus[1].id, "deployStatus": "AVAILABLE", "condition": "NEW",
        "serialNumber": "WO-001", "assignedTo": {"type": "WAREHOUSE", "id": s.warehouse},
        "description": "kept from write-only keys"});
    let raw = app
        .call_raw(writer.post_json("/api/v1/inventory", &body))
        .await;
    assert_eq!(raw.status, StatusCode::CREATED);
    let created: Value = serde_json::from_slice(&raw.body).unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(
        created.as_object().unwrap().len(),
        1,
        "only the id: {created}"
    );
    assert_eq!(
        raw.location.as_deref(),
        Some(format!("/api/v1/inventory/{id}").as_str())
    );
    let (status, _) = app
        .call(writer.get(&format!("/api/v1/inventory/{id}")))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let raw = app
        .call_raw(patch(&writer, &id, &json!({"condition": "USED"})))
        .await;
    assert_eq!(raw.status, StatusCode::NO_CONTENT);
    assert!(raw.body.is_empty());
    // The change happened, and a key that may read gets the item.
    let (status, item) = app
        .call(patch(&w.a, &id, &json!({"description": "read back"})))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(item["condition"], "USED");
    assert_eq!(item["description"], "read back");
}

async fn a_patch_that_changes_nothing_keeps_updated_at(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create(
        &app,
        &s,
        json!({"description": "as it is", "tags": ["loaner"]}),
    )
    .await;
    let id = item["id"].as_str().unwrap().to_owned();
    std::thread::sleep(std::time::Duration::from_millis(20));
    for same in [
        json!({}),
        json!({"description": "as it is", "condition": item["condition"], "tags": ["loaner"]}),
    ] {
        let (status, after) = app.call(patch(&w.a, &id, &same)).await;
        assert_eq!(status, StatusCode::OK, "{after}");
        assert_eq!(after["updatedAt"], item["updatedAt"], "{same}");
    }
    let since = url_encode(item["updatedAt"].as_str().unwrap());
    let (_, page) = app
        .call(w.a.get(&format!("/api/v1/inventory?updatedAtFrom={since}&size=100")))
        .await;
    let (status, changed) = app
        .call(patch(&w.a, &id, &json!({"description": "changed"})))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(changed["updatedAt"], item["updatedAt"]);
    // The listing's updatedAt agrees with the item's.
    let listed = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == item["id"])
        .map(|i| i["updatedAt"].clone());
    assert_eq!(listed, Some(item["updatedAt"].clone()));
}

/// The level of `id` as `GET /api/v1/inventory-levels` lists it.
async fn listed_level(app: &TestApp, id: &str) -> Value {
    let (status, list) = app
        .call(
            app.world()
                .a
                .get("/api/v1/inventory-levels?includeInactive=true"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap()
        .clone()
}

/// The organization's `inventory_level.below_minimum` events.
async fn crossings(app: &TestApp) -> Vec<Value> {
    let (status, page) = app
        .call(
            app.world()
                .a
                .get("/api/v1/events?size=1000&types=inventory_level.below_minimum"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["data"].as_array().unwrap().clone()
}

async fn levels_show_available_stock_and_record_each_crossing_once(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let sku = s.skus[1].id;
    let mut items = Vec::new();
    for n in 0..3 {
        let item = create(&app, &s, json!({"serialNumber": format!("LV-{n}")})).await;
        items.push(item["id"].as_str().unwrap().to_owned());
    }
    // Whatever the seed left of this SKU in the warehouse, plus three.
    let (status, created) = app
        .call(w.a.post_json(
            "/api/v1/inventory-levels",
            &json!({"skuId": sku, "warehouseId": s.warehouse,
                "minimumQuantity": 0, "targetQuantity": 0}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let base = created["availableQuantity"].as_i64().unwrap() - 3;
    assert!(base >= 0, "{created}");
    assert_eq!(created["belowMinimum"], false);
    let id = created["id"].as_str().unwrap().to_owned();
    let (status, _) = app
        .call(w.a.delete(&format!("/api/v1/inventory-levels/{id}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    // A level whose minimum is the stock less one: at or above.
    let (status, level) = app
        .call(w.a.post_json(
            "/api/v1/inventory-levels",
            &json!({"skuId": sku, "warehouseId": s.warehouse,
                "minimumQuantity": base + 2, "targetQuantity": base + 10}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{level}");
    assert_eq!(level["availableQuantity"], base + 3);
    assert_eq!(level["belowMinimum"], false);
    let id = level["id"].as_str().unwrap().to_owned();

    let take = |item: &str| {
        patch(
            &w.a,
            item,
            &json!({"deployStatus": "UNAVAILABLE", "deployReason": "AWAITING_INFORMATION"}),
        )
    };
    let (status, body) = app.call(take(&items[0])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let now = listed_level(&app, &id).await;
    assert_eq!(
        (
            now["availableQuantity"].as_i64(),
            now["belowMinimum"].as_bool()
        ),
        (Some(base + 2), Some(false))
    );
    assert!(crossings(&app).await.is_empty());

    let (status, _) = app.call(take(&items[1])).await;
    assert_eq!(status, StatusCode::OK);
    let now = listed_level(&app, &id).await;
    assert_eq!(
        (
            now["availableQuantity"].as_i64(),
            now["belowMinimum"].as_bool()
        ),
        (Some(base + 1), Some(true))
    );
    let events = crossings(&app).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["subject"]["type"], "INVENTORY_LEVEL");
    assert_eq!(events[0]["subject"]["id"], id.as_str());
    assert_eq!(events[0]["changes"]["availableQuantity"]["to"], base + 1);
    assert_eq!(events[0]["changes"]["belowMinimum"]["to"], true);

    // Down again: still one; back up, then down: a second.
    let (status, _) = app.call(take(&items[2])).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(crossings(&app).await.len(), 1);
    for item in &items {
        let (status, _) = app
            .call(patch(&w.a, item, &json!({"deployStatus": "AVAILABLE"})))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    assert_eq!(listed_level(&app, &id).await["belowMinimum"], false);
    let (status, _) = app.call(take(&items[0])).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.call(take(&items[1])).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(crossings(&app).await.len(), 2);
}

async fn an_item_an_order_holds_moves_only_through_the_order(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create(&app, &s, json!({"serialNumber": "HELD-1"})).await;
    let id = item["id"].as_str().unwrap().to_owned();
    let (status, _) = app
        .call(patch(
            &w.a,
            &id,
            &json!({"deployStatus": "UNAVAILABLE", "deployReason": "PENDING_FULFILLMENT"}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    // An order's rows, as an allocation writes them.
    let order = uuid::Uuid::new_v4();
    let (org, person) = (w.a_org, s.people[0].id);
    app.db().execute(&format!(
        "INSERT INTO orders (id, organization_id, person_id, package_id, status, created_at, \
         updated_at) VALUES ('{order}', '{org}', '{person}', NULL, 'ALLOCATED', \
         CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
    ));
    app.db().execute(&format!(
        "INSERT INTO order_lines (id, organization_id, order_id, position, category_code, \
         sku_ids, status, inventory_item_id, shipment_id, created_at, updated_at) VALUES \
         ('{}', '{org}', '{order}', 0, 'LAPTOP', '[]', 'ALLOCATED', '{id}', NULL, \
         CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
        uuid::Uuid::new_v4()
    ));
    for body in [
        json!({"deployStatus": "AVAILABLE"}),
        json!({"deployReason": "AWAITING_INFORMATION"}),
        json!({"assignedTo": {"type": "OFFICE", "id": s.office}}),
    ] {
        let (status, err) = app.call(patch(&w.a, &id, &body)).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}: {err}");
        assert_eq!(err["errors"][0]["source"], "deployStatus", "{err}");
        let detail = err["errors"][0]["detail"].as_str().unwrap();
        assert!(detail.contains(&order.to_string()), "{detail}");
        assert!(
            detail.contains("ship or cancel through the order"),
            "{detail}"
        );
    }
    // Its other fields may change.
    let (status, body) = app
        .call(patch(&w.a, &id, &json!({"description": "scratched lid"})))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, got) = app.call(w.a.get(&format!("/api/v1/inventory/{id}"))).await;
    assert_eq!(got["deployStatus"], "UNAVAILABLE");
    assert_eq!(got["deployReason"], "PENDING_FULFILLMENT");
}
