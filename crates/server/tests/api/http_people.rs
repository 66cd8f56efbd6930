//! Black-box tests of the people directory (`GET /api/v1/people`,
//! `GET /api/v1/people/{id}`) on SQLite and PostgreSQL: a leaver (SCIM
//! DELETE of a person holding a DEPLOYED item: OFFBOARDING), whom SCIM no
//! longer shows, is found by id and in the list with their offboarding's
//! times; the `status` and `search` filters and the order; bad parameters
//! (400 naming them), another organization's person (404), a key without
//! `people:read` (403); that a person's history still answers; and, through
//! the binary, that the default key holds `people:read` and the migration
//! grants it to a default key made before it.
use actix_web::http::StatusCode;
use chrono::{DateTime, Utc};
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

use crate::http_receipts::{leaver, receive};
use crate::support::scratch::Scratch;
use crate::support::{url_encode, Client, TestApp};

on_both_backends!(
    a_leaver_is_found_by_id_and_in_the_list,
    the_list_filters_by_status_and_search_in_a_stable_order,
    bad_parameters_are_refused_naming_them,
    another_organization_and_a_key_without_the_scope_are_refused,
);

/// A person of A created over SCIM with these names; their id.
async fn person(app: &TestApp, user_name: &str, given: &str, family: &str) -> String {
    let w = app.world();
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": user_name,
        "name": {"givenName": given, "familyName": family, "formatted": format!("{given} {family}")},
        "emails": [{"primary": true, "value": user_name, "type": "work"}],
        "active": true
    });
    let (status, created) = app.call(w.a.scim_post("/scim/v2/Users", &user)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

async fn list(app: &TestApp, client: &Client, query: &str) -> Value {
    let (status, body) = app
        .call(client.get(&format!("/api/v1/people{query}")))
        .await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

fn time(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

async fn a_leaver_is_found_by_id_and_in_the_list(app: TestApp) {
    let w = app.world();
    let before = Utc::now();
    let (id, items) = leaver(&app, "leaver", 1).await;
    // SCIM no longer shows them (RFC 7644 §3.6) ...
    let (status, _) = app.call(w.a.get(&format!("/scim/v2/Users/{id}"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // ... the directory does, with their status and when offboarding started.
    let (status, p) = app.call(w.a.get(&format!("/api/v1/people/{id}"))).await;
    assert_eq!(status, StatusCode::OK, "{p}");
    assert_eq!(p["id"], id.as_str());
    assert_eq!(p["userName"], "leaver@acme.example");
    assert_eq!(p["name"]["givenName"], "Ada");
    assert_eq!(p["name"]["familyName"], "Lovelace");
    assert_eq!(p["name"]["formatted"], Value::Null);
    assert_eq!(
        p["emails"],
        json!([{"value": "leaver@acme.example", "type": "work", "primary": true}])
    );
    assert_eq!(p["status"], "OFFBOARDING");
    assert_eq!(p["startDate"], Value::Null);
    assert_eq!(p["packageId"], Value::Null);
    assert_eq!(p["effectivePackageId"], Value::Null);
    let started = time(&p["offboardingStartedAt"]);
    assert!(started >= before && started <= Utc::now(), "{p}");
    assert!(p["offboardingStartedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(p["offboardedAt"], Value::Null, "{p}");
    let page = list(&app, &w.a, "").await;
    assert_eq!(ids(&page), std::slice::from_ref(&id), "{page}");
    assert_eq!(page["data"][0], p, "the list shows what the read shows");
    assert_eq!(
        page["pagination"],
        json!({"totalRecords": 1, "totalPages": 1, "currentPage": 1, "pageSize": 100})
    );
    // Their history still answers.
    let (status, history) = app
        .call(w.a.get(&format!("/api/v1/people/{id}/history")))
        .await;
    assert_eq!(status, StatusCode::OK, "{history}");
    // Their last item back completes the offboarding: OFFBOARDED, with its time.
    receive(&app, &w.a, w.a_warehouse, json!([{"itemId": items[0]}])).await;
    let (_, p) = app.call(w.a.get(&format!("/api/v1/people/{id}"))).await;
    assert_eq!(p["status"], "OFFBOARDED", "{p}");
    assert_eq!(time(&p["offboardingStartedAt"]), started);
    assert!(time(&p["offboardedAt"]) >= started, "{p}");
}

async fn the_list_filters_by_status_and_search_in_a_stable_order(app: TestApp) {
    let w = app.world();
    let grace = person(&app, "grace@acme.example", "Grace", "Hopper").await;
    let alan = person(&app, "alan@acme.example", "Alan", "turing").await;
    let charles = person(&app, "cb@acme.example", "Charles", "Babbage").await;
    let (ada, _) = leaver(&app, "ada", 1).await; // Ada Lovelace, OFFBOARDING
                                                 // Family name (case-insensitively), then given name, then id.
    let all = list(&app, &w.a, "").await;
    assert_eq!(
        ids(&all),
        [charles.clone(), grace.clone(), ada.clone(), alan.clone()]
    );
    // status, case-insensitive.
    let active = list(&app, &w.a, "?status=active").await;
    assert_eq!(ids(&active), [charles.clone(), grace.clone(), alan.clone()]);
    let leaving = list(&app, &w.a, "?status=OFFBOARDING").await;
    assert_eq!(ids(&leaving), std::slice::from_ref(&ada));
    assert_eq!(
        ids(&list(&app, &w.a, "?status=OFFBOARDED").await),
        Vec::<String>::new()
    );
    // search: a substring of a name, the userName or an email, any case, trimmed.
    for (search, expected) in [
        ("hop", vec![grace.clone()]),
        ("TURING", vec![alan.clone()]),
        ("  lovelace  ", vec![ada.clone()]),
        ("cb@", vec![charles.clone()]),
        ("Grace Hopper", vec![grace.clone()]),
        (
            "acme.example",
            vec![charles.clone(), grace.clone(), ada.clone(), alan.clone()],
        ),
        ("nobody", vec![]),
        (
            "   ",
            vec![charles.clone(), grace.clone(), ada.clone(), alan.clone()],
        ),
        ("100%", vec![]),
    ] {
        let page = list(&app, &w.a, &format!("?search={}", url_encode(search))).await;
        assert_eq!(ids(&page), expected, "{search:?}");
    }
    let both = list(&app, &w.a, "?search=a&status=OFFBOARDING").await;
    assert_eq!(ids(&both), std::slice::from_ref(&ada));
    // Pages.
    let second = list(&app, &w.a, "?size=3&page=2").await;
    assert_eq!(ids(&second), std::slice::from_ref(&alan));
    assert_eq!(
        second["pagination"],
        json!({"totalRecords": 4, "totalPages": 2, "currentPage": 2, "pageSize": 3})
    );
}

async fn bad_parameters_are_refused_naming_them(app: TestApp) {
    let w = app.world();
    let long = format!("?search={}", "x".repeat(257));
    for (query, source) in [
        ("?status=LEFT", "status"),
        ("?status=", "status"),
        (long.as_str(), "search"),
        ("?size=0", "size"),
        ("?page=x", "page"),
        ("?sort=name", "sort"),
        ("?status=ACTIVE&status=OFFBOARDING", "status"),
    ] {
        let (status, body) = app.call(w.a.get(&format!("/api/v1/people{query}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["errors"][0]["source"], source, "{query}: {body}");
    }
    // A control character is text like any other (the document allows any text in search).
    let (status, body) = app.call(w.a.get("/api/v1/people?search=%01%09")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"], json!([]), "{body}");
    let (status, body) = app.call(w.a.get("/api/v1/people/not-a-uuid")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = app
        .call(w.a.get(&format!("/api/v1/people/{}", uuid::Uuid::new_v4())))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

async fn another_organization_and_a_key_without_the_scope_are_refused(app: TestApp) {
    let w = app.world();
    let (ada, _) = leaver(&app, "ada", 1).await;
    let grace = person(&app, "grace@acme.example", "Grace", "Hopper").await;
    for id in [&ada, &grace] {
        let (status, body) = app.call(w.b.get(&format!("/api/v1/people/{id}"))).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    }
    assert_eq!(ids(&list(&app, &w.b, "").await), Vec::<String>::new());
    // inventory:read only, and every scope but people:read.
    let all_but = Scopes::from_list(
        Scope::ALL
            .iter()
            .copied()
            .filter(|s| *s != Scope::PeopleRead),
    );
    let without = Client {
        key: admin::issue_api_key(&*app.store, w.a_org, all_but, None, Utc::now())
            .unwrap()
            .secret,
    };
    for client in [&w.limited, &without] {
        for path in ["/api/v1/people".to_owned(), format!("/api/v1/people/{ada}")] {
            let (status, body) = app.call(client.get(&path)).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        }
    }
    // people:read alone is enough.
    let only = Client {
        key: admin::issue_api_key(
            &*app.store,
            w.a_org,
            Scopes::from_list([Scope::PeopleRead]),
            None,
            Utc::now(),
        )
        .unwrap()
        .secret,
    };
    let (status, body) = app.call(only.get(&format!("/api/v1/people/{ada}"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(ids(&list(&app, &only, "").await).len(), 2);
}

// ---------------------------------------------------------------------------
// The scope: the default key holds it, and the migration grants it to a
// default key made before it. Through the real binary.

/// The number of `org`'s keys whose scopes hold `scope`.
fn keys_holding(db: &TestDatabase, scope: &str) -> i64 {
    db.read_number(&format!(
        "SELECT COUNT(*) AS n FROM api_keys WHERE (' ' || scopes || ' ') LIKE '% {scope} %'"
    ))
}

fn the_default_key_holds_people_read_and_the_migration_grants_it(db: &TestDatabase) {
    let scratch = Scratch::new();
    scratch.equip_on(db.url(), &["migrate"]).ok();
    let run = scratch.equip_on(db.url(), &["org", "create", "--name", "Acme"]);
    run.ok();
    let org = run.stdout().trim().to_owned();
    let default = scratch.equip_on(db.url(), &["key", "create", "--org", &org]);
    default.ok();
    assert!(
        default.stderr().contains("people:read"),
        "{}",
        default.stderr()
    );
    scratch
        .equip_on(
            db.url(),
            &["key", "create", "--org", &org, "--scope", "inventory:read"],
        )
        .ok();
    assert_eq!(keys_holding(db, "people:read"), 1);
    // What a database of the version before held: the default key without
    // people:read, the directory's migrations not applied.
    db.execute(
        "UPDATE api_keys SET scopes = replace(scopes, ' people:read', '');
         DELETE FROM __diesel_schema_migrations WHERE version IN ('20261202160000', '20261202160001');
         DELETE FROM migration_versions WHERE migration IN ('20261202160000', '20261202160001');
         DROP TABLE person_offboardings;",
    );
    assert_eq!(keys_holding(db, "people:read"), 0);
    scratch.equip_on(db.url(), &["migrate"]).ok();
    // The default key holds it again; the key given a chosen list does not.
    assert_eq!(keys_holding(db, "people:read"), 1);
    assert_eq!(keys_holding(db, "scim"), 1);
    assert_eq!(
        db.read_number("SELECT COUNT(*) AS n FROM api_keys WHERE scopes = 'inventory:read'"),
        1
    );
}

mod migration {
    mod sqlite {
        #[test]
        fn the_default_key_holds_people_read_and_the_migration_grants_it() {
            super::super::the_default_key_holds_people_read_and_the_migration_grants_it(
                &super::super::TestDatabase::sqlite(),
            );
        }
    }

    mod postgres {
        #[test]
        fn the_default_key_holds_people_read_and_the_migration_grants_it() {
            let Some(db) = super::super::TestDatabase::postgres() else {
                return;
            };
            super::super::the_default_key_holds_people_read_and_the_migration_grants_it(&db);
        }
    }
}
