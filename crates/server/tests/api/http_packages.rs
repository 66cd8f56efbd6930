//! Black-box tests of packages (`/api/v1/packages`) on SQLite and
//! PostgreSQL: the listing by name with every package's contents, one
//! package, the replacement of its contents (the same JSON answered and
//! read back), bad contents (400 naming the field: quantity 0 and 21, an
//! unknown SKU, another category's SKU, an unknown category, unknown
//! members, too many entries), another organization's package (404), the
//! scopes (403), and contents given by an import (the sample document).
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_domain::catalog::{Package, Sku};
use equip_domain::ids::{OrganizationId, PackageId, SkuId};
use equip_domain::import::ImportBatch;
use equip_domain::services::import;
use serde_json::{json, Value};

use crate::support::{Client, TestApp};

on_both_backends!(
    packages_are_listed_by_name_with_their_contents,
    contents_are_replaced_and_read_back,
    bad_contents_are_refused_naming_the_field,
    another_organizations_package_is_not_found,
    scopes_decide_who_reads_and_writes,
    an_import_gives_packages_contents,
);

const PATH: &str = "/api/v1/packages";

fn put(client: &Client, id: &str, body: &Value) -> TestRequest {
    client
        .with(TestRequest::put().uri(&format!("{PATH}/{id}")))
        .set_json(body)
}

fn package(org: OrganizationId, slug: &str, name: &str) -> Package {
    Package {
        id: PackageId::new(),
        organization_id: org,
        slug: slug.into(),
        name: name.into(),
        items: Vec::new(),
    }
}

fn phone(org: OrganizationId) -> Sku {
    Sku {
        id: SkuId::new(),
        organization_id: org,
        title: "iPhone 15".into(),
        category_code: "PHONE".into(),
        category_name: "Phones".into(),
        vendor_code: "APPLE".into(),
        vendor_name: "Apple".into(),
        vendor_sku: "MTP03".into(),
    }
}

/// Stores `packages` and `skus` for `org` through the import.
fn store(app: &TestApp, org: OrganizationId, packages: Vec<Package>, skus: Vec<Sku>) {
    let batch = ImportBatch {
        packages,
        skus,
        ..ImportBatch::default()
    };
    import::run_import(&*app.store, org, &batch, &mut |_| {}).unwrap();
}

async fn list(app: &TestApp, client: &Client) -> Value {
    let (status, body) = app.call(client.get(PATH)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body.as_object().unwrap().len(), 1, "only data: {body}");
    body
}

fn ids(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {body}"))
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn packages_are_listed_by_name_with_their_contents(app: TestApp) {
    let w = app.world();
    // Nothing yet: an empty list.
    assert_eq!(list(&app, &w.a).await, json!({"data": []}));

    let mut twins = [
        package(w.a_org, "twin-1", "Twin"),
        package(w.a_org, "twin-2", "Twin"),
    ];
    twins.sort_by_key(|p| p.id);
    let sales = package(w.a_org, "a-sales", "Sales");
    let eng = package(w.a_org, "z-engineering", "Engineering");
    let lower = package(w.a_org, "lower", "engineering");
    store(
        &app,
        w.a_org,
        vec![
            sales.clone(),
            twins[1].clone(),
            lower.clone(),
            eng.clone(),
            twins[0].clone(),
        ],
        vec![],
    );
    store(
        &app,
        w.b_org,
        vec![package(w.b_org, "b-kit", "B's kit")],
        vec![],
    );
    let (status, _) = app
        .call(put(
            &w.a,
            &eng.id.to_string(),
            &json!({"items": [{"categoryCode": "LAPTOP", "skuIds": [w.a_sku], "quantity": 1}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);

    let body = list(&app, &w.a).await;
    // By name (byte order), then id.
    let expected: Vec<String> = [eng.id, sales.id, twins[0].id, twins[1].id, lower.id]
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(ids(&body), expected);
    assert_eq!(
        body["data"][0],
        json!({"id": eng.id, "slug": "z-engineering", "name": "Engineering",
               "items": [{"categoryCode": "LAPTOP", "skuIds": [w.a_sku], "quantity": 1}]})
    );
    assert_eq!(body["data"][1]["items"], json!([]));
    // Each listed package is what the read by id answers.
    for listed in body["data"].as_array().unwrap() {
        let id = listed["id"].as_str().unwrap();
        let (status, one) = app.call(w.a.get(&format!("{PATH}/{id}"))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(listed, &one);
    }
    // B sees only its own.
    let b = list(&app, &w.b).await;
    assert_eq!(b["data"].as_array().unwrap().len(), 1);
    assert_eq!(b["data"][0]["slug"], "b-kit");
}

async fn contents_are_replaced_and_read_back(app: TestApp) {
    let w = app.world();
    let kit = package(w.a_org, "kit", "Engineering kit");
    let iphone = phone(w.a_org);
    store(&app, w.a_org, vec![kit.clone()], vec![iphone.clone()]);
    let path = format!("{PATH}/{}", kit.id);

    let contents = json!([
        {"categoryCode": "LAPTOP", "skuIds": [w.a_sku], "quantity": 1},
        // skuIds may be left out; a whole number may be written 2.0.
        {"categoryCode": "PHONE", "quantity": 2.0},
        {"categoryCode": "LAPTOP", "skuIds": [], "quantity": 20}
    ]);
    let (status, written) = app
        .call(put(&w.a, &kit.id.to_string(), &json!({"items": contents})))
        .await;
    assert_eq!(status, StatusCode::OK, "{written}");
    assert_eq!(
        written,
        json!({"id": kit.id, "slug": "kit", "name": "Engineering kit", "items": [
            {"categoryCode": "LAPTOP", "skuIds": [w.a_sku], "quantity": 1},
            {"categoryCode": "PHONE", "skuIds": [], "quantity": 2},
            {"categoryCode": "LAPTOP", "skuIds": [], "quantity": 20}
        ]})
    );
    let (status, read) = app.call(w.a.get(&path)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, written);

    // Replaced whole.
    let (status, second) = app
        .call(put(
            &w.a,
            &kit.id.to_string(),
            &json!({"items": [{"categoryCode": "PHONE", "skuIds": [iphone.id], "quantity": 1}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_eq!(
        second["items"],
        json!([{"categoryCode": "PHONE", "skuIds": [iphone.id], "quantity": 1}])
    );
    assert_eq!(app.call(w.a.get(&path)).await.1, second);
    // Emptied.
    let (status, empty) = app
        .call(put(&w.a, &kit.id.to_string(), &json!({"items": []})))
        .await;
    assert_eq!(status, StatusCode::OK, "{empty}");
    assert_eq!(empty["items"], json!([]));
    assert_eq!(app.call(w.a.get(&path)).await.1, empty);
}

async fn bad_contents_are_refused_naming_the_field(app: TestApp) {
    let w = app.world();
    let kit = package(w.a_org, "kit", "Kit");
    let iphone = phone(w.a_org);
    store(&app, w.a_org, vec![kit.clone()], vec![iphone.clone()]);
    let id = kit.id.to_string();
    let good = json!({"categoryCode": "LAPTOP", "skuIds": [w.a_sku], "quantity": 1});
    let (status, before) = app.call(put(&w.a, &id, &json!({"items": [good]}))).await;
    assert_eq!(status, StatusCode::OK);

    let entry = |category: &str, skus: Value, quantity: Value| json!({"items": [good, {"categoryCode": category, "skuIds": skus, "quantity": quantity}]});
    let many: Vec<Value> = (0..21).map(|_| good.clone()).collect();
    let eleven: Vec<String> = (0..11).map(|_| SkuId::new().to_string()).collect();
    let cases = [
        (entry("LAPTOP", json!([]), json!(0)), "items[1].quantity"),
        (entry("LAPTOP", json!([]), json!(21)), "items[1].quantity"),
        (entry("LAPTOP", json!([]), json!(-3)), "items[1].quantity"),
        (entry("LAPTOP", json!([]), json!(1.5)), "items[1].quantity"),
        (entry("LAPTOP", json!([]), json!("1")), "items[1].quantity"),
        (
            entry("LAPTOP", json!([SkuId::new()]), json!(1)),
            "items[1].skuIds[0]",
        ),
        // B's SKU is unknown to A.
        (
            entry("LAPTOP", json!([w.a_sku, w.b_sku]), json!(1)),
            "items[1].skuIds[1]",
        ),
        // A phone in a laptop entry.
        (
            entry("LAPTOP", json!([iphone.id]), json!(1)),
            "items[1].skuIds[0]",
        ),
        (
            entry("LAPTOP", json!([w.a_sku, w.a_sku]), json!(1)),
            "items[1].skuIds[1]",
        ),
        (
            entry("LAPTOP", json!(["not-a-uuid"]), json!(1)),
            "items[1].skuIds[0]",
        ),
        (entry("LAPTOP", json!(eleven), json!(1)), "items[1].skuIds"),
        (
            entry("TABLET", json!([]), json!(1)),
            "items[1].categoryCode",
        ),
        (entry("", json!([]), json!(1)), "items[1].categoryCode"),
        (
            entry(&"C".repeat(257), json!([]), json!(1)),
            "items[1].categoryCode",
        ),
        (json!({"items": many}), "items"),
        (json!({"items": [good], "name": "renamed"}), "name"),
        (
            json!({"items": [{"categoryCode": "LAPTOP", "quantity": 1, "sku": "x"}]}),
            "items[0].sku",
        ),
        (
            json!({"items": [{"categoryCode": "LAPTOP"}]}),
            "items[0].quantity",
        ),
        (json!({}), "items"),
        (json!([]), "request"),
    ];
    for (body, field) in cases {
        let (status, answer) = app.call(put(&w.a, &id, &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["errors"][0]["source"], field, "{body}: {answer}");
    }
    // A malformed id.
    let (status, answer) = app.call(put(&w.a, "nope", &json!({"items": []}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    let (status, _) = app.call(w.a.get(&format!("{PATH}/nope"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Nothing changed.
    assert_eq!(app.call(w.a.get(&format!("{PATH}/{id}"))).await.1, before);
}

async fn another_organizations_package_is_not_found(app: TestApp) {
    let w = app.world();
    let theirs = package(w.b_org, "kit", "B's kit");
    store(&app, w.b_org, vec![theirs.clone()], vec![]);
    let path = format!("{PATH}/{}", theirs.id);
    let (status, _) = app.call(w.a.get(&path)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .call(put(
            &w.a,
            &theirs.id.to_string(),
            &json!({"items": [{"categoryCode": "LAPTOP", "quantity": 1}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .call(w.a.get(&format!("{PATH}/{}", PackageId::new())))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Unchanged for B.
    let (status, body) = app.call(w.b.get(&path)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["items"], json!([]));
}

async fn scopes_decide_who_reads_and_writes(app: TestApp) {
    let w = app.world();
    let kit = package(w.a_org, "kit", "Kit");
    store(&app, w.a_org, vec![kit.clone()], vec![]);
    let path = format!("{PATH}/{}", kit.id);
    // inventory:read reads ...
    let (status, _) = app.call(w.limited.get(PATH)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.call(w.limited.get(&path)).await;
    assert_eq!(status, StatusCode::OK);
    // ... but does not write: packages:write does.
    let (status, _) = app
        .call(put(
            &w.limited,
            &kit.id.to_string(),
            &json!({"items": [{"categoryCode": "LAPTOP", "quantity": 1}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = app.call(w.a.get(&path)).await;
    assert_eq!(status, StatusCode::OK);
    // No key: 401.
    let (status, _) = app.call(TestRequest::get().uri(PATH)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

const SAMPLE: &str = include_str!("../../../../docs/sample-import.json");

async fn an_import_gives_packages_contents(app: TestApp) {
    let w = app.world();
    let now = chrono::Utc::now();
    let batch = equip_server::import_document::parse_document(SAMPLE, w.a_org, now).unwrap();
    import::run_import(&*app.store, w.a_org, &batch, &mut |_| {}).unwrap();
    let body = list(&app, &w.a).await;
    assert_eq!(
        body["data"][0],
        json!({"id": "d4000000-0000-4000-8000-000000000001", "slug": "engineering-mac",
        "name": "Engineering (Mac)", "items": [
            {"categoryCode": "LAPTOP", "skuIds": ["c3000000-0000-4000-8000-000000000001"], "quantity": 1},
            {"categoryCode": "MONITOR", "skuIds": ["c3000000-0000-4000-8000-000000000003"], "quantity": 2}
        ]})
    );
    assert_eq!(
        body["data"][1]["items"],
        json!([{"categoryCode": "LAPTOP", "skuIds": [], "quantity": 1},
               {"categoryCode": "PHONE", "skuIds": ["c3000000-0000-4000-8000-000000000002"], "quantity": 1}])
    );

    // Bad contents in a document are named by entry and field.
    let mut doc: Value = serde_json::from_str(SAMPLE).unwrap();
    doc["packages"][1]["items"][0]["quantity"] = json!(21);
    let refused =
        equip_server::import_document::parse_document(&doc.to_string(), w.a_org, now).unwrap_err();
    assert_eq!(refused.entry, "packages[1].items[0].quantity", "{refused}");
    // A SKU unknown to the organization (B's), refused by the import's rules.
    let mut doc: Value = serde_json::from_str(SAMPLE).unwrap();
    doc["packages"][1]["items"][0]["skuIds"] = json!([w.b_sku]);
    let batch =
        equip_server::import_document::parse_document(&doc.to_string(), w.a_org, now).unwrap();
    let refused = import::run_import(&*app.store, w.a_org, &batch, &mut |_| {}).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("packages[1].items[0].skuIds[0]"),
        "{refused}"
    );
    // Unchanged.
    assert_eq!(list(&app, &w.a).await, body);
}
