//! The event feed and histories through the API (docs/events.md): what
//! writes record (and what they do not), the actor, filters, cursors,
//! scopes, another organization's ids and events; and the feed's promise
//! under concurrent writers on two `equip serve` instances.
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

use crate::support::inventory::{organization, seed, Seeded};
use crate::support::process::{organization_with_key, Api, Serve};
use crate::support::scim::okta_user;
use crate::support::{Client, TestApp};

on_both_backends!(
    writes_record_events_with_the_callers_key,
    a_write_that_changes_nothing_records_nothing,
    feed_parameters_are_checked,
    histories_of_items_and_people,
    another_organizations_events_and_ids_stay_hidden,
    the_feed_needs_its_scope,
);

fn seeded(app: &TestApp) -> Seeded {
    seed(&app.store, &organization(app.world().a_org), 2)
}

/// Every event of the client's organization after `after`, following `next`.
async fn drain(app: &TestApp, client: &Client, after: &str) -> (Vec<Value>, String) {
    let mut events = Vec::new();
    let mut cursor = after.to_owned();
    loop {
        let path = if cursor.is_empty() {
            "/api/v1/events?size=1000".to_owned()
        } else {
            format!("/api/v1/events?size=1000&after={cursor}")
        };
        let (status, page) = app.call(client.get(&path)).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let data = page["data"].as_array().unwrap().clone();
        cursor = page["next"].as_str().unwrap().to_owned();
        if data.is_empty() {
            return (events, cursor);
        }
        events.extend(data);
    }
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

async fn create_item(app: &TestApp, s: &Seeded) -> Value {
    let body = json!({"skuId": s.skus[0].id, "deployStatus": "AVAILABLE", "condition": "NEW",
        "assignedTo": {"type": "WAREHOUSE", "id": s.warehouse}});
    let (status, item) = app
        .call(app.world().a.post_json("/api/v1/inventory", &body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    item
}

fn patch(client: &Client, id: &str, body: &Value) -> TestRequest {
    client
        .with(TestRequest::patch().uri(&format!("/api/v1/inventory/{id}")))
        .set_json(body)
}

async fn writes_record_events_with_the_callers_key(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let (_, start) = drain(&app, &w.a, "").await;
    let item = create_item(&app, &s).await;
    let id = item["id"].as_str().unwrap();
    let (status, _) = app
        .call(patch(
            &w.a,
            id,
            &json!({"description": "dented lid", "condition": "USED_FAIR"}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("events.ada@example.com")))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
    let (status, _) = app
        .call(w.a.with(
            TestRequest::delete().uri(&format!("/scim/v2/Users/{}", user["id"].as_str().unwrap())),
        ))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    let (events, _) = drain(&app, &w.a, &start).await;
    assert_eq!(
        types(&events),
        [
            "inventory.item.created",
            "inventory.item.updated",
            "person.created",
            "person.offboarding_started",
            // They held nothing: the offboarding completes at once.
            "person.offboarded"
        ]
    );
    let sequences: Vec<i64> = events
        .iter()
        .map(|e| e["sequence"].as_i64().unwrap())
        .collect();
    assert!(
        sequences.windows(2).all(|p| p[1] == p[0] + 1),
        "{sequences:?}"
    );
    for e in &events {
        assert_eq!(e["actor"]["type"], "API_KEY", "{e}");
        assert!(e["actor"]["id"].is_string(), "{e}");
        assert!(e["id"].is_string() && e["occurredAt"].is_string(), "{e}");
    }
    let update = &events[1];
    assert_eq!(
        update["subject"],
        json!({"type": "INVENTORY_ITEM", "id": id})
    );
    assert_eq!(
        update["changes"],
        json!({
            "condition": {"from": "NEW", "to": "USED_FAIR"},
            "description": {"from": null, "to": "dented lid"}
        })
    );
    assert_eq!(
        events[2]["changes"]["userName"]["to"],
        "events.ada@example.com"
    );
    // A type filter across pages.
    let (status, page) = app
        .call(w.a.get(&format!(
            "/api/v1/events?after={start}&types=person.created,person.offboarding_started"
        )))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        types(page["data"].as_array().unwrap()),
        ["person.created", "person.offboarding_started"]
    );
}

async fn a_write_that_changes_nothing_records_nothing(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create_item(&app, &s).await;
    let id = item["id"].as_str().unwrap();
    let (status, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("events.ada@example.com")))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, cursor) = drain(&app, &w.a, "").await;
    // The same values again: a PATCH of the item, a SCIM PUT of the user.
    let (status, same) = app
        .call(patch(
            &w.a,
            id,
            &json!({"condition": "NEW", "description": null}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(same["updatedAt"], item["updatedAt"]);
    let uid = user["id"].as_str().unwrap();
    let mut again = okta_user("events.ada@example.com");
    again["id"] = json!(uid);
    let (status, put) = app
        .call(w.a.scim_put(&format!("/scim/v2/Users/{uid}"), &again))
        .await;
    assert_eq!(status, StatusCode::OK, "{put}");
    assert_eq!(put["meta"]["version"], user["meta"]["version"]);
    assert_eq!(put["meta"]["lastModified"], user["meta"]["lastModified"]);
    let (events, _) = drain(&app, &w.a, &cursor).await;
    assert!(events.is_empty(), "{events:?}");
}

async fn feed_parameters_are_checked(app: TestApp) {
    let w = app.world();
    for (query, field) in [
        ("after=nonsense", "after"),
        ("after=ev2.0123456789abcdef.x", "after"),
        ("size=0", "size"),
        ("size=1001", "size"),
        ("types=person.exploded", "types"),
        ("subjectId=42", "subjectId"),
        ("colour=red", "colour"),
        ("size=1&size=2", "size"),
    ] {
        let (status, body) = app.call(w.a.get(&format!("/api/v1/events?{query}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["errors"][0]["source"], field, "{query}: {body}");
    }
    // A cursor of the earlier form, and a cursor past the last event (what a
    // client holds after the database was restored to an earlier state):
    // 410, resynchronize.
    let s = seeded(&app);
    create_item(&app, &s).await;
    let (_, next) = drain(&app, &w.a, "").await;
    let (prefix, rest) = next.split_at("ev2.0123456789abcdef.".len());
    let (sequence, event) = rest.split_once('.').unwrap();
    let ahead = format!(
        "{prefix}{}.{event}",
        sequence.parse::<i64>().unwrap() + 1000
    );
    for cursor in ["ev1.1".to_owned(), ahead] {
        let (status, body) = app
            .call(w.a.get(&format!("/api/v1/events?after={cursor}")))
            .await;
        assert_eq!(status, StatusCode::GONE, "{cursor}: {body}");
        assert_eq!(body["errors"][0]["source"], "after", "{body}");
        let detail = body["errors"][0]["detail"].as_str().unwrap();
        assert!(detail.to_lowercase().contains("resynchronize"), "{detail}");
    }
}

async fn histories_of_items_and_people(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create_item(&app, &s).await;
    let id = item["id"].as_str().unwrap();
    for n in 1..=3 {
        let (status, _) = app
            .call(patch(
                &w.a,
                id,
                &json!({"description": format!("note {n}")}),
            ))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, page) = app
        .call(w.a.get(&format!("/api/v1/inventory/{id}/history?size=3")))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let data = page["data"].as_array().unwrap();
    assert_eq!(data[0]["changes"]["description"]["to"], "note 3");
    assert_eq!(data.len(), 3);
    let next = page["next"].as_str().unwrap();
    let (_, older) = app
        .call(w.a.get(&format!(
            "/api/v1/inventory/{id}/history?size=3&after={next}"
        )))
        .await;
    assert_eq!(
        types(older["data"].as_array().unwrap()),
        ["inventory.item.created"]
    );
    assert!(older["next"].is_null());
    // A person's history, also once offboarded.
    let (_, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("events.ada@example.com")))
        .await;
    let uid = user["id"].as_str().unwrap();
    app.call(w.a.with(TestRequest::delete().uri(&format!("/scim/v2/Users/{uid}"))))
        .await;
    let (status, page) = app
        .call(w.a.get(&format!("/api/v1/people/{uid}/history")))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        types(page["data"].as_array().unwrap()),
        [
            "person.offboarded",
            "person.offboarding_started",
            "person.created"
        ]
    );
    // Unknown ids, malformed ids.
    let unknown = uuid::Uuid::new_v4();
    for path in [
        format!("/api/v1/inventory/{unknown}/history"),
        format!("/api/v1/people/{unknown}/history"),
    ] {
        assert_eq!(
            app.call(w.a.get(&path)).await.0,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    assert_eq!(
        app.call(w.a.get("/api/v1/people/42/history")).await.0,
        StatusCode::BAD_REQUEST
    );
}

async fn another_organizations_events_and_ids_stay_hidden(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let item = create_item(&app, &s).await;
    let id = item["id"].as_str().unwrap();
    let (_, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("events.ada@example.com")))
        .await;
    let uid = user["id"].as_str().unwrap();
    // B sees none of A's events, not even by subject.
    let (b_events, _) = drain(&app, &w.b, "").await;
    assert!(
        b_events
            .iter()
            .all(|e| e["subject"]["id"] != id && e["subject"]["id"] != uid),
        "{b_events:?}"
    );
    let (_, by_subject) = app
        .call(w.b.get(&format!("/api/v1/events?subjectId={id}")))
        .await;
    assert_eq!(by_subject["data"], json!([]));
    for path in [
        format!("/api/v1/inventory/{id}/history"),
        format!("/api/v1/people/{uid}/history"),
    ] {
        let (status, body) = app.call(w.b.get(&path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
    }
    // A cursor of A's feed is refused by B's, whatever its number: the
    // first event's (low enough to be a position in B's feed too), the
    // last's, and B's cursor before any event in A's.
    let (status, first) = app.call(w.a.get("/api/v1/events?size=1")).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let a_first = first["next"].as_str().unwrap().to_owned();
    let (_, a_next) = drain(&app, &w.a, "").await;
    let (_, b_next) = drain(&app, &w.b, "").await;
    for (client, cursor) in [(&w.b, &a_first), (&w.b, &a_next), (&w.a, &b_next)] {
        let (status, body) = app
            .call(client.get(&format!("/api/v1/events?after={cursor}")))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{cursor}: {body}");
        assert_eq!(body["errors"][0]["source"], "after", "{body}");
        let detail = body["errors"][0]["detail"].as_str().unwrap();
        assert!(detail.contains("another organization"), "{detail}");
    }
}

async fn the_feed_needs_its_scope(app: TestApp) {
    let w = app.world();
    let (status, body) = app.call(w.limited.get("/api/v1/events")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let unknown = uuid::Uuid::new_v4();
    let (status, _) = app
        .call(
            w.limited
                .get(&format!("/api/v1/inventory/{unknown}/history")),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

/// Writers per instance, and items each creates.
const WRITERS: usize = 3;
const ITEMS_PER_WRITER: usize = 40;

/// Concurrent writers on two `equip serve` instances over one database and a
/// reader following `next` all along: the reader sees every committed event
/// once, in sequence order (docs/events.md, "The feed's promise").
fn two_instances_and_a_reader(db: &TestDatabase) {
    let key = organization_with_key(db, "Acme");
    let a = Serve::start(db.url(), &["--no-dispatcher"]);
    let b = Serve::start(db.url(), &["--no-dispatcher"]);
    let apis = [a.client(&key), b.client(&key)];
    // A SKU and a warehouse to create items with (imported, as the CLI would).
    let (sku, warehouse) = sku_and_warehouse(db, &key);
    // What the seed recorded, before the writers start.
    let seeded = follow(&apis[0], &AtomicBool::new(true)).len();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let api = apis[0].clone();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || follow(&api, &stop))
    };
    let writers: Vec<_> = (0..WRITERS * 2)
        .map(|n| {
            let api = apis[n % 2].clone();
            let body = json!({"skuId": sku, "deployStatus": "AVAILABLE", "condition": "NEW",
                "assignedTo": {"type": "WAREHOUSE", "id": warehouse}})
            .to_string();
            std::thread::spawn(move || {
                for _ in 0..ITEMS_PER_WRITER {
                    let r = api
                        .post("/api/v1/inventory", "application/json", body.as_bytes())
                        .unwrap();
                    assert_eq!(r.status, 201, "{}", r.text());
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    let seen = reader.join().unwrap();
    // Everything committed, read afresh from the start.
    let all = follow(&apis[1], &AtomicBool::new(true));
    assert_eq!(all.len(), seeded + WRITERS * 2 * ITEMS_PER_WRITER);
    assert_eq!(seen, all, "the reader saw every event once, in order");
    let distinct: BTreeSet<i64> = seen.iter().copied().collect();
    assert_eq!(distinct.len(), seen.len());
    assert!(seen.windows(2).all(|p| p[0] < p[1]));
}

/// Follows the feed from the start with small pages until `stop` is set and a
/// page comes back empty; the sequences seen.
fn follow(api: &Api, stop: &AtomicBool) -> Vec<i64> {
    let mut seen = Vec::new();
    let mut cursor = String::new();
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        let path = if cursor.is_empty() {
            "/api/v1/events?size=5".to_owned()
        } else {
            format!("/api/v1/events?size=5&after={cursor}")
        };
        let page = api.get(&path).unwrap().json();
        let data = page["data"].as_array().unwrap();
        seen.extend(data.iter().map(|e| e["sequence"].as_i64().unwrap()));
        cursor = page["next"].as_str().unwrap().to_owned();
        if stopping && data.is_empty() {
            return seen;
        }
    }
}

/// A SKU and a warehouse of the key's organization, created through the
/// store.
fn sku_and_warehouse(db: &TestDatabase, key: &str) -> (String, String) {
    use equip_domain::ports::ApiKeyRepository;
    let store = db.store();
    let prefix = key.split('_').nth(1).unwrap();
    let org = store
        .find_api_key_by_prefix(prefix)
        .unwrap()
        .unwrap()
        .organization_id;
    let s = seed(&store, &organization(org), 0);
    (s.skus[0].id.to_string(), s.warehouse.to_string())
}

#[test]
fn sqlite_two_instances_never_make_a_reader_skip() {
    let db = TestDatabase::sqlite();
    two_instances_and_a_reader(&db);
}

#[test]
fn postgres_two_instances_never_make_a_reader_skip() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    two_instances_and_a_reader(&db);
}
