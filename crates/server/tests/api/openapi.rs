//! The OpenAPI document (`GET /openapi.json`, `docs/openapi.json`) against the
//! running application, on SQLite and PostgreSQL:
//! - every documented method of every documented path is routed, and every
//!   other method answers 405 with an `Allow` header listing the documented ones;
//! - a walk through every operation over `equip demo` data (successes and the
//!   documented errors) gets only documented statuses, and every body validates
//!   against its schema (JSON Schema 2020-12, formats asserted), including items
//!   with every kind of assignee, return order, retrieval, pricing and device
//!   program.
//!
//! That the route table and the document name the same paths and methods, and
//! that `docs/openapi.json` is current, is checked in `equip_http::openapi`.
use std::collections::{BTreeSet, HashMap};

use crate::support::{Client, Raw, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::services::admin;
use equip_server::demo::{self, DemoConfig, Generator};
use jsonschema::{Draft, Validator};
use serde_json::{json, Value};

on_both_backends!(
    every_documented_method_is_routed_and_no_other,
    every_operation_answers_as_documented,
);

const LEVELS: &str = "/api/v1/inventory-levels";

const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"];

/// The document and a validator per response schema.
struct Contract {
    doc: Value,
    validators: HashMap<String, Validator>,
    /// (method, path template, status) seen, for the coverage check.
    seen: BTreeSet<(String, String, u16)>,
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

impl Contract {
    fn new() -> Self {
        Self {
            doc: equip_http::openapi::document(),
            validators: HashMap::new(),
            seen: BTreeSet::new(),
        }
    }

    /// A validator for the schema at `pointer` in the document: the document
    /// itself is the root schema (so `#/components/...` references resolve),
    /// with a `$ref` to the pointer.
    fn validator(&mut self, pointer: &str) -> &Validator {
        let doc = &self.doc;
        self.validators
            .entry(pointer.to_owned())
            .or_insert_with(|| {
                let mut root = doc.clone();
                root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
                // A URI fragment: the braces of path templates are percent-encoded.
                let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
                root["$ref"] = json!(format!("#{fragment}"));
                jsonschema::options()
                    .with_draft(Draft::Draft202012)
                    .should_validate_formats(true)
                    .build(&root)
                    .unwrap_or_else(|e| panic!("schema at {pointer}: {e}"))
            })
    }

    /// Checks one exchange against the document; the JSON body (or `Null`).
    fn check(&mut self, method: &str, template: &str, raw: &Raw) -> Value {
        let lower = method.to_ascii_lowercase();
        let status = raw.status.as_u16();
        let text = String::from_utf8_lossy(&raw.body).into_owned();
        let op_pointer = format!("/paths/{}/{lower}", escape(template));
        assert!(
            self.doc.pointer(&op_pointer).is_some(),
            "{method} {template} is not documented"
        );
        let mut pointer = format!("{op_pointer}/responses/{status}");
        let mut response = self.doc.pointer(&pointer).unwrap_or_else(|| {
            panic!(
                "{method} {template} answered {status}, which the document does not list: {text}"
            )
        });
        if let Some(target) = response.get("$ref").and_then(Value::as_str) {
            pointer = target.trim_start_matches('#').to_owned();
            response = self.doc.pointer(&pointer).unwrap();
        }
        let response = response.clone();
        self.seen
            .insert((method.to_owned(), template.to_owned(), status));
        if let Some(headers) = response.get("headers").and_then(Value::as_object) {
            if headers.contains_key("Location") {
                assert!(
                    raw.location.is_some(),
                    "{method} {template} {status}: no Location"
                );
            }
        }
        let Some(content) = response.get("content") else {
            assert!(
                raw.body.is_empty(),
                "{method} {template} {status}: a body where none is documented: {text}"
            );
            return Value::Null;
        };
        assert!(content.get("application/json").is_some());
        let content_type = raw.content_type.clone().unwrap_or_default();
        assert!(
            content_type.starts_with("application/json"),
            "{method} {template} {status}: Content-Type {content_type}"
        );
        let body: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {template} {status}: not JSON ({e}): {text}"));
        let schema_pointer = format!("{pointer}/content/application~1json/schema");
        let errors: Vec<String> = self
            .validator(&schema_pointer)
            .iter_errors(&body)
            .take(5)
            .map(|e| format!("{e} (at {})", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {template} {status}: the body does not match {schema_pointer}:\n{}\n{}",
            errors.join("\n"),
            &text[..text.len().min(2000)]
        );
        body
    }

    /// Every (method, path) the document lists, and their documented statuses.
    fn operations(&self) -> Vec<(String, String, BTreeSet<u16>)> {
        let mut out = Vec::new();
        for (path, item) in self.doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                if method == "parameters" {
                    continue;
                }
                let statuses = op["responses"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(|s| s.parse().unwrap())
                    .collect();
                out.push((method.to_ascii_uppercase(), path.clone(), statuses));
            }
        }
        out
    }
}

/// `template` with every `{parameter}` replaced by `value`.
fn fill(template: &str, value: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').unwrap() + open;
        out.push_str(value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

async fn every_documented_method_is_routed_and_no_other(app: TestApp) {
    let contract = Contract::new();
    let mut documented: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (method, path, _) in contract.operations() {
        documented.entry(path).or_default().insert(method);
    }
    let id = uuid::Uuid::new_v4().to_string();
    for (template, methods) in &documented {
        let uri = fill(template, &id);
        for method in METHODS {
            let req = TestRequest::default()
                .method(method.parse().unwrap())
                .uri(&uri);
            let raw = app.call_raw(req).await;
            let body = String::from_utf8_lossy(&raw.body).into_owned();
            if methods.contains(method) {
                assert_ne!(
                    raw.status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {template} is documented but not routed"
                );
                assert!(
                    !(raw.status == StatusCode::NOT_FOUND && body.contains("\"source\":\"path\"")),
                    "{method} {template} is documented but the path is unknown: {body}"
                );
            } else {
                assert_eq!(
                    raw.status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {template} is not documented but answered: {body}"
                );
                let allow: BTreeSet<String> = raw
                    .allow
                    .unwrap_or_default()
                    .split(',')
                    .map(|m| m.trim().to_owned())
                    .collect();
                // Every GET also answers HEAD (not listed in the document).
                let mut expected = methods.clone();
                if methods.contains("GET") {
                    expected.insert("HEAD".to_owned());
                }
                assert_eq!(allow, expected, "Allow of {template}");
            }
        }
    }
}

/// The demo organization's data, as the walk needs it.
struct Demo {
    a: Client,
    /// A key of the demo organization with only `warehouses:read`.
    narrow: Client,
    /// A key of the demo organization with only `inventory:read`.
    reader: Client,
    /// A key of the demo organization with only `inventory:write`.
    writer: Client,
    /// A key of the demo organization with only `returns:write`.
    returns_writer: Client,
    new_joiner: String,
    not_a_joiner: String,
    org: equip_domain::ids::OrganizationId,
}

fn load_demo(app: &TestApp) -> Demo {
    let now = Utc::now();
    let org = admin::create_organization(&*app.store, "OpenAPI Demo", now)
        .unwrap()
        .id;
    let key = |scopes| {
        admin::issue_api_key(&*app.store, org, scopes, None, now)
            .unwrap()
            .secret
    };
    let config = DemoConfig {
        organization: org,
        organization_name: "OpenAPI Demo".into(),
        seed: 7,
        items: 300,
        now,
    };
    let people = Generator::new(config.clone()).base().people;
    let today = now.date_naive();
    let new_joiner = people.iter().find(|p| p.is_new_joiner(today)).unwrap();
    let not_a_joiner = people
        .iter()
        .find(|p| !p.is_new_joiner(today) && p.status == equip_domain::person::PersonStatus::Active)
        .unwrap();
    demo::load(&*app.store, config, demo::CHUNK, &mut |_| {}).unwrap();
    Demo {
        a: Client {
            key: key(Scopes::all()),
        },
        narrow: Client {
            key: key(Scopes::from_list([Scope::WarehousesRead])),
        },
        reader: Client {
            key: key(Scopes::from_list([Scope::InventoryRead])),
        },
        writer: Client {
            key: key(Scopes::from_list([Scope::InventoryWrite])),
        },
        returns_writer: Client {
            key: key(Scopes::from_list([Scope::ReturnsWrite])),
        },
        new_joiner: new_joiner.id.to_string(),
        not_a_joiner: not_a_joiner.id.to_string(),
        org,
    }
}

/// Receives `item` at the receipts URI `at`; its entry answered 200.
async fn receive_ok(app: &TestApp, client: &Client, at: &str, item: &str) {
    let (status, body) = app
        .call(client.post_json(at, &json!({"items": [{"itemId": item}]})))
        .await;
    assert_eq!(status.as_u16(), 200, "{body}");
    assert_eq!(body["results"][0]["status"], 200, "{body}");
}

fn patch(client: &Client, uri: &str, body: &Value) -> TestRequest {
    client.with(TestRequest::patch().uri(uri)).set_json(body)
}

#[allow(clippy::too_many_lines)] // one walk, read top to bottom
async fn every_operation_answers_as_documented(app: TestApp) {
    let d = load_demo(&app);
    let mut c = Contract::new();
    let missing = uuid::Uuid::new_v4();

    // Operations endpoints and the document itself.
    for path in ["/healthz", "/readyz", "/openapi.json"] {
        let raw = app.call_raw(TestRequest::get().uri(path)).await;
        c.check("GET", path, &raw);
    }
    let served = app.call_raw(TestRequest::get().uri("/openapi.json")).await;
    assert_eq!(
        served.body.as_ref(),
        equip_http::openapi::document_text().as_bytes()
    );

    // The whole listing, every item validated; then what it holds.
    let mut items = Vec::new();
    for page in 1..=3 {
        let uri = format!("/api/v1/inventory?size=100&page={page}");
        let body = c.check(
            "GET",
            "/api/v1/inventory",
            &app.call_raw(d.a.get(&uri)).await,
        );
        items.extend(body["data"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(items.len(), 300);
    let kinds = |f: &dyn Fn(&Value) -> Option<String>| -> BTreeSet<String> {
        items.iter().filter_map(f).collect()
    };
    assert_eq!(
        kinds(&|i| i["assignedTo"]["type"].as_str().map(str::to_owned)),
        ["OFFICE", "PERSON", "WAREHOUSE"].map(str::to_owned).into()
    );
    assert_eq!(
        kinds(&|i| i["returnOrder"]["retrievalMethod"]["type"]
            .as_str()
            .map(str::to_owned)),
        ["INBOUND_LABEL", "PHYSICAL", "RETURN_KIT"]
            .map(str::to_owned)
            .into(),
        "the demo data should hold every kind of retrieval"
    );
    for field in [
        "pricing",
        "deviceProgram",
        "returnOrder",
        "renewalDate",
        "holdStartDate",
    ] {
        assert!(
            items.iter().any(|i| !i[field].is_null()),
            "no item with {field}"
        );
    }
    assert!(items
        .iter()
        .any(|i| !i["tags"].as_array().unwrap().is_empty()));
    let item = |pred: &dyn Fn(&Value) -> bool| items.iter().find(|i| pred(i)).unwrap().clone();
    let in_warehouse = item(&|i| i["assignedTo"]["type"] == "WAREHOUSE");
    let warehouse = in_warehouse["assignedTo"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let sku = in_warehouse["skuId"].as_str().unwrap().to_owned();
    let available = item(&|i| i["deployStatus"] == "AVAILABLE");
    let available_id = available["id"].as_str().unwrap().to_owned();

    // Listing and its alias: filters and the documented errors.
    for template in ["/api/v1/inventory", "/api/inventory"] {
        // (query, the `source` of the expected error, if one is expected)
        let queries = [
            ("?page=2&size=7&sortBy=assignee".to_owned(), None),
            (format!("?warehouseId={warehouse}&deployStatuses=AVAILABLE,UNAVAILABLE&sortBy=condition&sortDirection=desc"), None),
            ("?deployStatuses=VOIDED".into(), None),
            ("?deployStatuses=GIFTED".into(), Some("deployStatuses")),
            ("?personId=".into(), Some("personId")),
            ("?searchString=%00".into(), Some("searchString")),
            ("?colour=red".into(), Some("colour")),
            (format!("?personId={missing}"), Some("personId")),
        ];
        for (query, error) in queries {
            let body = c.check(
                "GET",
                template,
                &app.call_raw(d.a.get(&format!("{template}{query}"))).await,
            );
            assert_eq!(
                body["errors"][0]["source"].as_str(),
                error,
                "{query}: {body}"
            );
        }
    }

    // One item: read, create, change.
    let one = "/api/v1/inventory/{id}";
    for uri in [
        format!("/api/v1/inventory/{available_id}"),
        format!("/api/v1/inventory/{missing}"),
        "/api/v1/inventory/not-a-uuid".into(),
    ] {
        c.check("GET", one, &app.call_raw(d.a.get(&uri)).await);
    }
    let create = |body: Value| d.a.post_json("/api/v1/inventory", &body);
    let created = c.check(
        "POST",
        "/api/v1/inventory",
        &app.call_raw(create(json!({
            "skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW",
            "serialNumber": "OPENAPI-1", "imei": ["356938035643809"],
            "assignedTo": {"type": "WAREHOUSE", "id": warehouse},
            "tags": ["openapi", {"label": "contract"}], "renewalDate": "2030-01-31",
            "description": "created by the contract test", "procurementMethod": "Purchase",
            "suppliedBy": "OPERATOR",
        })))
        .await,
    );
    let created_id = created["id"].as_str().unwrap().to_owned();
    for (body, source) in [
        (
            json!({"skuId": sku, "deployStatus": "DEPLOYED", "condition": "NEW"}),
            "assignedTo",
        ),
        (
            json!({"skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW", "colour": "red"}),
            "colour",
        ),
        // PostgreSQL cannot store a NUL: refused on both backends, never a 500.
        (
            json!({"skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW", "description": "a\u{0}b"}),
            "description",
        ),
        (
            json!({"skuId": missing, "deployStatus": "AVAILABLE", "condition": "NEW"}),
            "skuId",
        ),
    ] {
        let answer = c.check(
            "POST",
            "/api/v1/inventory",
            &app.call_raw(create(body)).await,
        );
        assert_eq!(answer["errors"][0]["source"], source, "{answer}");
    }
    c.check(
        "POST",
        "/api/v1/inventory",
        &app.call_raw(
            d.a.with(TestRequest::post().uri("/api/v1/inventory"))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("{}"),
        )
        .await,
    );
    let created_uri = format!("/api/v1/inventory/{created_id}");
    // A key that may only write gets no item back.
    c.check(
        "PATCH",
        one,
        &app.call_raw(patch(&d.writer, &created_uri, &json!({"description": "w"})))
            .await,
    );
    for body in [
        json!({"deployStatus": "UNAVAILABLE", "deployReason": "REQUIRES_REPAIR", "tags": null, "renewalDate": null}),
        json!({"deployStatus": "ARCHIVED", "deployReason": "END_OF_USEFUL_LIFE_DESTROYED"}),
        json!({"deployStatus": "AVAILABLE"}),
        json!({"deployStatus": null}),
    ] {
        c.check(
            "PATCH",
            one,
            &app.call_raw(patch(&d.a, &created_uri, &body)).await,
        );
    }
    c.check(
        "PATCH",
        one,
        &app.call_raw(patch(
            &d.a,
            &format!("/api/v1/inventory/{missing}"),
            &json!({"description": "x"}),
        ))
        .await,
    );

    c.check(
        "PATCH",
        one,
        &app.call_raw(
            d.a.with(TestRequest::patch().uri(&created_uri))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("{}"),
        )
        .await,
    );
    c.check(
        "POST",
        LEVELS,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(LEVELS))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("{}"),
        )
        .await,
    );

    // Warehouses.
    let wh = "/api/v1/warehouses/{id}";
    for (uri, client) in [
        (format!("/api/v1/warehouses/{warehouse}"), &d.a),
        (format!("/api/v1/warehouses/{missing}"), &d.a),
        ("/api/v1/warehouses/x".into(), &d.a),
    ] {
        c.check("GET", wh, &app.call_raw(client.get(&uri)).await);
    }
    let listed = c.check(
        "GET",
        "/api/v1/warehouses",
        &app.call_raw(d.a.get("/api/v1/warehouses")).await,
    );
    assert!(listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["id"] == warehouse.as_str()));

    // The key a request carries, to a key with every scope and to one
    // with a single scope (any valid key may ask).
    for client in [&d.a, &d.narrow] {
        c.check(
            "GET",
            "/api/v1/api-key",
            &app.call_raw(client.get("/api/v1/api-key")).await,
        );
    }
    // What ids name, the summary and the organization's keys.
    for path in [
        "/api/v1/skus",
        "/api/v1/offices",
        "/api/v1/inventory-summary",
        "/api/v1/api-keys",
    ] {
        c.check("GET", path, &app.call_raw(d.a.get(path)).await);
    }

    // Inventory levels: create, list, deactivate.
    let level_body =
        json!({"skuId": sku, "warehouseId": warehouse, "minimumQuantity": 1, "targetQuantity": 3});
    // The demo may already hold an active level for this pair: deactivate it first.
    let listed = c.check("GET", LEVELS, &app.call_raw(d.a.get(LEVELS)).await);
    for l in listed["data"].as_array().unwrap() {
        if l["skuId"] == level_body["skuId"] && l["warehouseId"] == level_body["warehouseId"] {
            let uri = format!("/api/v1/inventory-levels/{}", l["id"].as_str().unwrap());
            c.check(
                "DELETE",
                "/api/v1/inventory-levels/{id}",
                &app.call_raw(d.a.delete(&uri)).await,
            );
        }
    }
    let level = c.check(
        "POST",
        LEVELS,
        &app.call_raw(d.a.post_json(LEVELS, &level_body)).await,
    );
    assert!(!level.is_null(), "the level was not created");
    for body in [
        level_body.clone(),
        json!({"skuId": sku, "warehouseId": warehouse, "minimumQuantity": 5, "targetQuantity": 3}),
        json!({"skuId": missing, "warehouseId": warehouse, "minimumQuantity": 1, "targetQuantity": 3}),
    ] {
        c.check(
            "POST",
            LEVELS,
            &app.call_raw(d.a.post_json(LEVELS, &body)).await,
        );
    }
    let level_uri = format!("/api/v1/inventory-levels/{}", level["id"].as_str().unwrap());
    for _ in 0..2 {
        c.check(
            "DELETE",
            "/api/v1/inventory-levels/{id}",
            &app.call_raw(d.a.delete(&level_uri)).await,
        );
    }
    for uri in [
        format!("/api/v1/inventory-levels/{missing}"),
        "/api/v1/inventory-levels/1".into(),
    ] {
        c.check(
            "DELETE",
            "/api/v1/inventory-levels/{id}",
            &app.call_raw(d.a.delete(&uri)).await,
        );
    }
    for uri in [
        "/api/v1/inventory-levels?includeInactive=TRUE",
        "/api/v1/inventory-levels?includeInactive=maybe",
    ] {
        c.check("GET", LEVELS, &app.call_raw(d.a.get(uri)).await);
    }

    // New joiners: remind (with and without a body), list.
    let remind = "/api/v1/new-joiners/{personId}/remind";
    let reminders = "/api/v1/new-joiners/{personId}/reminders";
    let remind_uri = |p: &str| format!("/api/v1/new-joiners/{p}/remind");
    c.check(
        "POST",
        remind,
        &app.call_raw(d.a.with(TestRequest::post().uri(&remind_uri(&d.new_joiner))))
            .await,
    );
    for (person, body) in [
        (
            d.new_joiner.as_str(),
            json!({"senderPersonId": d.not_a_joiner}),
        ),
        (d.new_joiner.as_str(), json!({"senderPersonId": "nope"})),
        (d.not_a_joiner.as_str(), json!({})),
        (&missing.to_string(), json!({})),
    ] {
        c.check(
            "POST",
            remind,
            &app.call_raw(d.a.post_json(&remind_uri(person), &body))
                .await,
        );
    }
    c.check(
        "POST",
        remind,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(&remind_uri(&d.new_joiner)))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    let listed = c.check(
        "GET",
        reminders,
        &app.call_raw(d.a.get(&format!("/api/v1/new-joiners/{}/reminders", d.new_joiner)))
            .await,
    );
    assert_eq!(listed["data"].as_array().unwrap().len(), 2);
    for uri in [
        format!("/api/v1/new-joiners/{missing}/reminders"),
        "/api/v1/new-joiners/x/reminders".into(),
    ] {
        c.check("GET", reminders, &app.call_raw(d.a.get(&uri)).await);
    }

    // Events: the feed (a page, a bad parameter) and the two histories
    // (found, unknown, malformed).
    let events = "/api/v1/events";
    // ev1.1: a cursor of the earlier form, refused with 410 (resynchronize).
    for uri in [
        "/api/v1/events?size=2",
        "/api/v1/events?size=0",
        "/api/v1/events?after=ev1.1",
    ] {
        c.check("GET", events, &app.call_raw(d.a.get(uri)).await);
    }
    for (path, id) in [
        ("/api/v1/inventory/{id}/history", available_id.to_string()),
        ("/api/v1/people/{id}/history", d.new_joiner.clone()),
    ] {
        for id in [id, missing.to_string(), "x".into()] {
            let uri = path.replace("{id}", &id);
            c.check("GET", path, &app.call_raw(d.a.get(&uri)).await);
        }
    }

    // Webhooks: create (good, bad, not JSON, one too many), list, read, the
    // delivery log, delete.
    let hooks = "/api/v1/webhooks";
    let hook = "/api/v1/webhooks/{id}";
    let hook_log = "/api/v1/webhooks/{id}/deliveries";
    let created = c.check(
        "POST",
        hooks,
        &app.call_raw(d.a.post_json(
            hooks,
            &json!({"url": "https://8.8.8.8/hook", "types": ["person.created"]}),
        ))
        .await,
    );
    let hook_id = created["id"].as_str().unwrap().to_owned();
    for body in [
        json!({"url": "http://127.0.0.1/hook"}),
        json!({"url": "https://8.8.8.8/", "types": ["nope"]}),
        json!({}),
    ] {
        c.check(
            "POST",
            hooks,
            &app.call_raw(d.a.post_json(hooks, &body)).await,
        );
    }
    c.check(
        "POST",
        hooks,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(hooks))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    for _ in 1..equip_domain::webhook::MAX_WEBHOOKS_PER_ORGANIZATION {
        let raw = app
            .call_raw(d.a.post_json(hooks, &json!({"url": "https://8.8.8.8/more"})))
            .await;
        assert_eq!(raw.status.as_u16(), 201);
    }
    c.check(
        "POST",
        hooks,
        &app.call_raw(d.a.post_json(hooks, &json!({"url": "https://8.8.8.8/one-too-many"})))
            .await,
    );
    c.check("GET", hooks, &app.call_raw(d.a.get(hooks)).await);
    for id in [hook_id.as_str(), &missing.to_string(), "x"] {
        c.check(
            "GET",
            hook,
            &app.call_raw(d.a.get(&format!("/api/v1/webhooks/{id}")))
                .await,
        );
        c.check(
            "GET",
            hook_log,
            &app.call_raw(d.a.get(&format!("/api/v1/webhooks/{id}/deliveries")))
                .await,
        );
    }
    c.check(
        "GET",
        hook_log,
        &app.call_raw(d.a.get(&format!("/api/v1/webhooks/{hook_id}/deliveries?size=0")))
            .await,
    );
    // Rotating its secret: good (with an overlap and with the default),
    // a bad overlap, unknown, not a UUID, not JSON.
    let rotate = "/api/v1/webhooks/{id}/rotate-secret";
    for (id, body) in [
        (hook_id.as_str(), json!({"overlapSeconds": 60})),
        (hook_id.as_str(), json!({})),
        (hook_id.as_str(), json!({"overlapSeconds": -1})),
        (&missing.to_string(), json!({})),
        ("x", json!({})),
    ] {
        c.check(
            "POST",
            rotate,
            &app.call_raw(d.a.post_json(&format!("/api/v1/webhooks/{id}/rotate-secret"), &body))
                .await,
        );
    }
    c.check(
        "POST",
        rotate,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(&format!("/api/v1/webhooks/{hook_id}/rotate-secret")))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    for id in [hook_id.as_str(), hook_id.as_str(), "x"] {
        c.check(
            "DELETE",
            hook,
            &app.call_raw(d.a.delete(&format!("/api/v1/webhooks/{id}")))
                .await,
        );
    }

    // Return orders: the listing, create (good, taken, unknown, bad, not
    // JSON), read, change (good, off the path, bad, unknown, not JSON).
    // Packages: the listing, one package, its contents replaced.
    let listed = c.check(
        "GET",
        "/api/v1/packages",
        &app.call_raw(d.a.get("/api/v1/packages")).await,
    );
    let package_id = listed["data"][0]["id"].as_str().unwrap().to_owned();
    let package = "/api/v1/packages/{id}";
    for uri in [
        format!("/api/v1/packages/{package_id}"),
        format!("/api/v1/packages/{missing}"),
        "/api/v1/packages/not-a-uuid".into(),
    ] {
        c.check("GET", package, &app.call_raw(d.a.get(&uri)).await);
    }
    let put_package = |id: &str, body: Value| {
        d.a.with(TestRequest::put().uri(&format!("/api/v1/packages/{id}")))
            .set_json(body)
    };
    let contents = json!({"items": [{"categoryCode": in_warehouse["categoryCode"],
        "skuIds": [sku], "quantity": 2}]});
    let written = c.check(
        "PUT",
        package,
        &app.call_raw(put_package(&package_id, contents.clone()))
            .await,
    );
    assert_eq!(written["items"], contents["items"], "{written}");
    for (id, body) in [
        (
            package_id.clone(),
            json!({"items": [{"categoryCode": "LAPTOP", "quantity": 0}]}),
        ),
        (missing.to_string(), json!({"items": []})),
        ("not-a-uuid".into(), json!({"items": []})),
    ] {
        c.check("PUT", package, &app.call_raw(put_package(&id, body)).await);
    }
    c.check(
        "PUT",
        package,
        &app.call_raw(
            d.a.with(TestRequest::put().uri(&format!("/api/v1/packages/{package_id}")))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );

    let orders = "/api/v1/return-orders";
    let order = "/api/v1/return-orders/{id}";
    for uri in [
        "/api/v1/return-orders?size=5",
        "/api/v1/return-orders?status=PENDING&page=2&size=1",
        "/api/v1/return-orders?status=LOST",
    ] {
        c.check("GET", orders, &app.call_raw(d.a.get(uri)).await);
    }
    let deployed = item(&|i| {
        i["deployStatus"] == "DEPLOYED"
            && i["returnOrder"].is_null()
            && i["assignedTo"]["type"] == "PERSON"
    });
    let holder = deployed["assignedTo"]["id"].as_str().unwrap().to_owned();
    let asked = json!({"personId": holder, "itemIds": [deployed["id"]], "itadRequested": true});
    let made = c.check(
        "POST",
        orders,
        &app.call_raw(d.a.post_json(orders, &asked)).await,
    );
    let order_id = made["id"].as_str().unwrap().to_owned();
    // A key that may only write returns gets the new order's id alone, and
    // nothing back from a change.
    let other = item(&|i| {
        i["deployStatus"] == "DEPLOYED"
            && i["returnOrder"].is_null()
            && i["assignedTo"]["type"] == "PERSON"
            && i["id"] != deployed["id"]
    });
    let only_id = c.check(
        "POST",
        orders,
        &app.call_raw(d.returns_writer.post_json(
            orders,
            &json!({"personId": other["assignedTo"]["id"], "itemIds": [other["id"]]}),
        ))
        .await,
    );
    let only_id = only_id["id"].as_str().unwrap().to_owned();
    c.check(
        "PATCH",
        order,
        &app.call_raw(patch(
            &d.returns_writer,
            &format!("/api/v1/return-orders/{only_id}"),
            &json!({"retrievalMethod": {"type": "PHYSICAL"}}),
        ))
        .await,
    );
    for body in [
        asked.clone(),
        json!({"personId": holder, "itemIds": [missing]}),
        json!({"personId": holder, "itemIds": []}),
    ] {
        c.check(
            "POST",
            orders,
            &app.call_raw(d.a.post_json(orders, &body)).await,
        );
    }
    c.check(
        "POST",
        orders,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(orders))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    for id in [order_id.as_str(), &missing.to_string(), "x"] {
        c.check(
            "GET",
            order,
            &app.call_raw(d.a.get(&format!("/api/v1/return-orders/{id}")))
                .await,
        );
    }
    let order_uri = format!("/api/v1/return-orders/{order_id}");
    for (uri, body) in [
        (
            order_uri.clone(),
            json!({"retrievalMethod": {"type": "RETURN_KIT", "outboundTrackingCode": "1Z"}}),
        ),
        (
            order_uri.clone(),
            json!({"retrievalMethod": {"type": "RETURN_KIT", "status": "SCHEDULING_PICK_UP"}}),
        ),
        (order_uri.clone(), json!({"colour": "red"})),
        (
            format!("/api/v1/return-orders/{missing}"),
            json!({"status": "CANCELLED"}),
        ),
    ] {
        c.check(
            "PATCH",
            order,
            &app.call_raw(patch(&d.a, &uri, &body)).await,
        );
    }
    c.check(
        "PATCH",
        order,
        &app.call_raw(
            d.a.with(TestRequest::patch().uri(&order_uri))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );

    // Returns: a receipt (an entry of each outcome; bad bodies, an unknown
    // warehouse, not JSON), the settings, an early release.
    let receipts = "/api/v1/warehouses/{id}/receipts";
    let receipts_at = |w: &str| format!("/api/v1/warehouses/{w}/receipts");
    let returning = item(&|i| !i["returnOrder"].is_null() && i["deployStatus"] == "DEPLOYED");
    let returning_id = returning["id"].as_str().unwrap().to_owned();
    let answered = c.check(
        "POST",
        receipts,
        &app.call_raw(d.a.post_json(
            &receipts_at(&warehouse),
            &json!({"items": [{"itemId": returning_id, "condition": "USED_GOOD"},
                {"serialNumber": "NO-SUCH-SERIAL"}, {"itemId": available_id}]}),
        ))
        .await,
    );
    let statuses: Vec<u64> = answered["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, [200, 404, 409], "{answered}");
    let many: Vec<Value> = (0..=1000)
        .map(|n| json!({"serialNumber": format!("S-{n}")}))
        .collect();
    for (at, body) in [
        (warehouse.clone(), json!({"items": []})),
        (
            warehouse.clone(),
            json!({"items": [{"serialNumber": "x", "colour": "red"}]}),
        ),
        (warehouse.clone(), json!({ "items": many })),
        (
            missing.to_string(),
            json!({"items": [{"serialNumber": "x"}]}),
        ),
        ("x".into(), json!({"items": [{"serialNumber": "x"}]})),
    ] {
        c.check(
            "POST",
            receipts,
            &app.call_raw(d.a.post_json(&receipts_at(&at), &body)).await,
        );
    }
    c.check(
        "POST",
        receipts,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(&receipts_at(&warehouse)))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    let settings = "/api/v1/organization/settings";
    c.check("GET", settings, &app.call_raw(d.a.get(settings)).await);
    for body in [
        json!({"holdPeriodDays": 14}),
        json!({"holdPeriodDays": 4000}),
    ] {
        c.check(
            "PUT",
            settings,
            &app.call_raw(d.a.with(TestRequest::put().uri(settings)).set_json(&body))
                .await,
        );
    }
    c.check(
        "PUT",
        settings,
        &app.call_raw(
            d.a.with(TestRequest::put().uri(settings))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    let release = "/api/v1/inventory/{id}/release-hold";
    // A key that may not read items gets none back from a release.
    let held_too = item(&|i| {
        !i["returnOrder"].is_null() && i["deployStatus"] == "DEPLOYED" && i["id"] != returning["id"]
    });
    let held_too = held_too["id"].as_str().unwrap().to_owned();
    receive_ok(&app, &d.a, &receipts_at(&warehouse), &held_too).await;
    c.check(
        "POST",
        release,
        &app.call_raw(
            d.returns_writer
                .with(TestRequest::post().uri(&release.replace("{id}", &held_too))),
        )
        .await,
    );
    for id in [
        returning_id.as_str(),
        returning_id.as_str(),
        &missing.to_string(),
        "x",
    ] {
        c.check(
            "POST",
            release,
            &app.call_raw(d.a.with(TestRequest::post().uri(&release.replace("{id}", id))))
                .await,
        );
    }

    // Joiners' orders: an order set up through the store for a person
    // created for it (one ALLOCATED line holding an AVAILABLE item, one
    // BACKORDERED); the listing, read, ship (good, a line not ALLOCATED, a
    // bad body, unknown, not JSON), a delivery (good, final, bad, unknown,
    // not JSON).
    let (status, user) = app
        .call(d.a.scim_post(
            "/scim/v2/Users",
            &crate::support::scim::okta_user("openapi-orders@example.com"),
        ))
        .await;
    assert_eq!(status.as_u16(), 201, "{user}");
    let spare = items
        .iter()
        .rev()
        .find(|i| i["deployStatus"] == "AVAILABLE" && i["id"] != available_id.as_str())
        .unwrap();
    let joiner_order = orders_walk::order(
        &app,
        d.org,
        user["id"].as_str().unwrap(),
        spare["id"].as_str().unwrap(),
        spare["skuId"].as_str().unwrap(),
    );
    let (id, allocated, backordered) = (
        joiner_order.id.to_string(),
        joiner_order.lines[0].id.to_string(),
        joiner_order.lines[1].id.to_string(),
    );
    let orders = "/api/v1/orders";
    let one = "/api/v1/orders/{id}";
    let shipments = "/api/v1/orders/{id}/shipments";
    let shipment = "/api/v1/orders/{id}/shipments/{shipmentId}";
    for uri in [
        "/api/v1/orders?size=5",
        "/api/v1/orders?status=PENDING&page=2&size=1",
        "/api/v1/orders?status=LOST",
    ] {
        c.check("GET", orders, &app.call_raw(d.a.get(uri)).await);
    }
    for oid in [id.as_str(), &missing.to_string(), "x"] {
        c.check(
            "GET",
            one,
            &app.call_raw(d.a.get(&format!("/api/v1/orders/{oid}")))
                .await,
        );
    }
    // The people directory: the list (filtered, paged, a bad status) and one
    // person (found, unknown, not a UUID).
    for uri in [
        "/api/v1/people?size=5",
        "/api/v1/people?status=active&search=openapi&page=1&size=2",
        "/api/v1/people?status=LEFT",
    ] {
        c.check("GET", "/api/v1/people", &app.call_raw(d.a.get(uri)).await);
    }
    let person = user["id"].as_str().unwrap().to_owned();
    for pid in [person.as_str(), &missing.to_string(), "x"] {
        c.check(
            "GET",
            "/api/v1/people/{id}",
            &app.call_raw(d.a.get(&format!("/api/v1/people/{pid}")))
                .await,
        );
    }
    let ship_uri = |oid: &str| format!("/api/v1/orders/{oid}/shipments");
    let shipped = c.check(
        "POST",
        shipments,
        &app.call_raw(d.a.post_json(
            &ship_uri(&id),
            &json!({"lineIds": [allocated], "carrier": "DHL", "trackingCode": "JD1",
                "trackingLink": "https://track.example/JD1"}),
        ))
        .await,
    );
    let sid = shipped["id"].as_str().unwrap().to_owned();
    for (oid, body) in [
        (id.clone(), json!({"lineIds": [backordered]})),
        (id.clone(), json!({"lineIds": []})),
        (missing.to_string(), json!({"lineIds": [allocated]})),
    ] {
        c.check(
            "POST",
            shipments,
            &app.call_raw(d.a.post_json(&ship_uri(&oid), &body)).await,
        );
    }
    c.check(
        "POST",
        shipments,
        &app.call_raw(
            d.a.with(TestRequest::post().uri(&ship_uri(&id)))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );
    let shipment_uri = |oid: &str, s: &str| format!("/api/v1/orders/{oid}/shipments/{s}");
    for (oid, s, body) in [
        (id.clone(), sid.clone(), json!({"status": "DELIVERED"})),
        (
            id.clone(),
            sid.clone(),
            json!({"status": "DELIVERY_EXCEPTION"}),
        ),
        (id.clone(), sid.clone(), json!({"status": "SHIPPED"})),
        (
            id.clone(),
            missing.to_string(),
            json!({"status": "DELIVERED"}),
        ),
    ] {
        c.check(
            "PATCH",
            shipment,
            &app.call_raw(patch(&d.a, &shipment_uri(&oid, &s), &body))
                .await,
        );
    }
    c.check(
        "PATCH",
        shipment,
        &app.call_raw(
            d.a.with(TestRequest::patch().uri(&shipment_uri(&id, &sid)))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload("x"),
        )
        .await,
    );

    // Without a key: 401; with a key that lacks the operation's scope: 403.
    for (method, path, statuses) in c.operations() {
        if !statuses.contains(&401) {
            continue;
        }
        let uri = fill(&path, &missing.to_string());
        let req = || {
            let req = TestRequest::default()
                .method(method.parse().unwrap())
                .uri(&uri);
            if method == "POST" || method == "PATCH" || method == "PUT" {
                req.set_json(json!({}))
            } else {
                req
            }
        };
        c.check(&method, &path, &app.call_raw(req()).await);
        let lacking = if path.starts_with("/api/v1/warehouses") {
            &d.reader
        } else {
            &d.narrow
        };
        c.check(&method, &path, &app.call_raw(lacking.with(req())).await);
    }

    // Every documented status was seen, but for the limits: 413 (bodies over
    // the limit), 414 and 431 (URL and headers, http_limits.rs), 429 (the
    // key's rate limit, rate_limits.rs) and 503 (no database connection or
    // out of time, http_limits.rs).
    for (method, path, statuses) in c.operations() {
        for status in statuses {
            if matches!(status, 413 | 414 | 429 | 431 | 503) {
                continue;
            }
            assert!(
                c.seen.contains(&(method.clone(), path.clone(), status)),
                "{method} {path} {status} is documented but the walk never saw it"
            );
        }
    }
}

/// Orders set up for the walk, as provisioning writes them.
mod orders_walk {
    use chrono::Utc;
    use equip_domain::ids::{
        InventoryItemId, OrderId, OrderLineId, OrganizationId, PersonId, SkuId,
    };
    use equip_domain::orders::order::{Order, OrderLine};
    use equip_domain::orders::{LineStatus, OrderStatus};

    use crate::support::TestApp;

    /// An order of `person` with a line holding `item` and a BACKORDERED one.
    pub fn order(app: &TestApp, org: OrganizationId, person: &str, item: &str, sku: &str) -> Order {
        let now = Utc::now();
        let line = |position, item: Option<InventoryItemId>| OrderLine {
            id: OrderLineId::new(),
            position,
            category_code: "LAPTOP".into(),
            sku_ids: vec![SkuId::parse(sku).unwrap()],
            status: if item.is_some() {
                LineStatus::Allocated
            } else {
                LineStatus::Backordered
            },
            item_id: item,
            shipment_id: None,
            created_at: now,
            updated_at: now,
        };
        let order = Order {
            id: OrderId::new(),
            organization_id: org,
            person_id: PersonId::parse(person).unwrap(),
            package_id: None,
            status: OrderStatus::Pending,
            lines: vec![
                line(0, Some(InventoryItemId::parse(item).unwrap())),
                line(1, None),
            ],
            shipments: vec![],
            created_at: now,
            updated_at: now,
        }
        .restated();
        app.store.put_order_for_tests(&order).unwrap();
        order
    }
}
