//! The SCIM list response cache (`AppState::scim_cache`), black-box through
//! the real application on SQLite and PostgreSQL: after every kind of write to
//! people (SCIM create, replace, PATCH, DELETE, Bulk, CSV, an import, a write
//! of the store outside HTTP), the next list read shows it, on the instance
//! that wrote and on another one over the same database, and every cached
//! body equals what an instance without a cache reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use equip_domain::ids::PersonId;
use equip_domain::import::ImportBatch;
use equip_domain::person::Email;
use equip_domain::ports::{PersonRepository, PersonWrite};
use equip_domain::services::import;
use equip_http::AppState;
use serde_json::{json, Value};
use support::scim::{okta_user, PATCH_OP, SCIM};
use support::{Client, TestApp};

on_both_backends!(
    cached_lists_follow_every_write_to_people,
    the_key_is_checked_on_every_cached_read,
    the_base_url_is_part_of_a_cached_response,
    concurrent_writes_and_reads_end_on_the_current_list,
);

/// A state over the store of `app` with its own SCIM cache (`budget` bytes;
/// 0: none): another instance.
fn instance(app: &TestApp, budget: usize) -> AppState {
    AppState::new(Arc::clone(&app.store)).with_scim_cache(budget)
}

async fn call(state: &AppState, req: TestRequest) -> (StatusCode, String) {
    let service = test::init_service(equip_http::app(state.clone())).await;
    let resp = test::call_service(&service, req.to_request()).await;
    let status = resp.status();
    let body = test::read_body(resp).await;
    (status, String::from_utf8(body.to_vec()).unwrap())
}

/// The readers of one test: the app's own instance (its cache is the one under
/// test: every URL is read twice there), another instance with its own
/// cache, and one without a cache (the reference).
struct Readers<'a> {
    app: &'a TestApp,
    other: AppState,
    fresh: AppState,
}

impl<'a> Readers<'a> {
    fn new(app: &'a TestApp) -> Self {
        Self {
            app,
            other: instance(app, 16 << 20),
            fresh: instance(app, 0),
        }
    }

    /// Reads `url` with `c` everywhere; all readings must be byte-equal.
    async fn read(&self, c: &Client, url: &str) -> Value {
        let fresh = call(&self.fresh, c.get(url)).await;
        assert_eq!(fresh.0, StatusCode::OK, "{url}: {}", fresh.1);
        for n in 0..2 {
            let raw = self.app.call_raw(c.get(url)).await;
            assert_eq!(raw.status, StatusCode::OK);
            assert_eq!(raw.content_type.as_deref(), Some(SCIM));
            assert_eq!(
                String::from_utf8(raw.body.to_vec()).unwrap(),
                fresh.1,
                "{url}: read {n} of the instance under test differs from a fresh read"
            );
        }
        assert_eq!(
            call(&self.other, c.get(url)).await,
            fresh,
            "{url}: the other instance differs from a fresh read"
        );
        serde_json::from_str(&fresh.1).unwrap()
    }

    /// The URLs a test follows, all read; the full first page.
    async fn read_all(&self, c: &Client, urls: &[String]) -> Value {
        let mut first = Value::Null;
        for url in urls {
            let v = self.read(c, url).await;
            if first.is_null() {
                first = v;
            }
        }
        first
    }
}

fn by_user_name(name: &str) -> String {
    format!(
        "/scim/v2/Users?filter={}",
        support::url_encode(&format!("userName eq \"{name}\""))
    )
}

fn names(page: &Value) -> Vec<String> {
    let mut names: Vec<String> = page["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["userName"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn find<'v>(page: &'v Value, user_name: &str) -> &'v Value {
    page["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["userName"] == user_name)
        .unwrap_or_else(|| panic!("{user_name} is not listed: {page}"))
}

async fn created(app: &TestApp, c: &Client, user_name: &str) -> Value {
    let (status, body) = app
        .call(c.scim_post("/scim/v2/Users", &okta_user(user_name)))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

const CSV_HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";
const BOUNDARY: &str = "equip-cache-test-boundary-7MA4YWxk";

fn csv_upload(c: &Client, rows: &[&str]) -> TestRequest {
    let mut file = String::from(CSV_HEADER);
    for r in rows {
        file.push('\n');
        file.push_str(r);
    }
    file.push('\n');
    let body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"users.csv\"\r\n\
         Content-Type: text/csv\r\n\r\n{file}\r\n--{BOUNDARY}--\r\n"
    );
    c.with(TestRequest::post().uri("/scim/v2/Users/csv"))
        .insert_header((
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ))
        .set_payload(body)
}

// ---------------------------------------------------------------------------

async fn cached_lists_follow_every_write_to_people(app: TestApp) {
    let w = app.world();
    let r = Readers::new(&app);
    let urls = [
        "/scim/v2/Users?count=50".to_owned(),
        "/scim/v2/Users?startIndex=2&count=1".to_owned(),
        "/scim/v2/Users?count=0".to_owned(),
        "/scim/v2/Users?sortBy=name.givenName&sortOrder=descending&attributes=userName,name"
            .to_owned(),
        by_user_name("ada@acme.example"),
        by_user_name("dave@acme.example"),
    ];
    let page = r.read_all(&w.a, &urls).await;
    assert_eq!(page["totalResults"], 0);

    // SCIM create.
    let ada = created(&app, &w.a, "ada@acme.example").await;
    let ada_path = format!("/scim/v2/Users/{}", ada["id"].as_str().unwrap());
    let page = r.read_all(&w.a, &urls).await;
    assert_eq!(names(&page), ["ada@acme.example"]);
    assert_eq!(r.read(&w.a, &urls[4]).await["totalResults"], 1);
    let version = find(&page, "ada@acme.example")["meta"]["version"].clone();

    // PUT: a new display name and a second address (the emails change).
    let mut replaced = okta_user("ada@acme.example");
    replaced["displayName"] = json!("Countess of Lovelace");
    replaced["emails"] = json!([
        {"primary": true, "value": "ada@acme.example", "type": "work"},
        {"value": "ada@home.example", "type": "home"}
    ]);
    let (status, body) = app.call(w.a.scim_put(&ada_path, &replaced)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let page = r.read_all(&w.a, &urls).await;
    let listed = find(&page, "ada@acme.example");
    assert_eq!(listed["displayName"], "Countess of Lovelace");
    assert_eq!(listed["emails"].as_array().unwrap().len(), 2);
    assert_ne!(listed["meta"]["version"], version);
    assert_eq!(listed["meta"]["version"], body["meta"]["version"]);
    let version = listed["meta"]["version"].clone();

    // PATCH (Okta's path-less deactivation).
    let (status, body) = app
        .call(w.a.scim_patch(
            &ada_path,
            &json!({"schemas": [PATCH_OP],
                    "Operations": [{"op": "replace", "value": {"active": false}}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let page = r.read_all(&w.a, &urls).await;
    let listed = find(&page, "ada@acme.example");
    assert_eq!(listed["active"], false);
    assert_ne!(listed["meta"]["version"], version);

    // Bulk.
    let (status, body) = app
        .call(w.a.scim_post(
            "/scim/v2/Bulk",
            &json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
                    "Operations": [{"method": "POST", "bulkId": "b", "path": "/Users",
                                    "data": okta_user("bob@acme.example")}]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["Operations"][0]["status"], "201", "{body}");
    let page = r.read_all(&w.a, &urls).await;
    assert_eq!(names(&page), ["ada@acme.example", "bob@acme.example"]);

    // CSV: a create, and a replace of ada (another family name).
    let ada_id = ada["id"].as_str().unwrap();
    let (status, body) = app
        .call(csv_upload(
            &w.a,
            &[
                ",Carol,Shaw,carol@acme.example,,,,,,,,,,,",
                &format!("{ada_id},Ada,King,ada@acme.example,,,,,,,,,,,"),
            ],
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let page = r.read_all(&w.a, &urls).await;
    assert_eq!(
        names(&page),
        ["ada@acme.example", "bob@acme.example", "carol@acme.example"]
    );
    assert_eq!(
        find(&page, "ada@acme.example")["name"]["familyName"],
        "King"
    );

    // An import (`equip import`) of a new person.
    let mut dave = app
        .store
        .find_person(w.a_org, PersonId::parse(ada_id).unwrap())
        .unwrap()
        .unwrap();
    dave.id = PersonId::new();
    dave.user_name = "dave@acme.example".into();
    dave.emails = vec![Email {
        value: "dave@acme.example".into(),
        kind: Some("work".into()),
        primary: true,
    }];
    dave.external_id = Some("dave-ext".into());
    dave.active = true;
    dave.version = 1;
    let batch = ImportBatch {
        people: vec![dave.clone()],
        ..ImportBatch::default()
    };
    import::run_import(&*app.store, w.a_org, &batch, &mut |_| {}).unwrap();
    let page = r.read_all(&w.a, &urls).await;
    assert_eq!(page["totalResults"], 4);
    assert_eq!(r.read(&w.a, &urls[5]).await["totalResults"], 1);

    // A write of the store outside HTTP: only an email's type changes.
    let mut changed = dave.clone();
    changed.emails[0].kind = Some("other".into());
    changed.version = dave.version + 1;
    assert_eq!(
        app.store.update_person(&changed, dave.version).unwrap(),
        PersonWrite::Done
    );
    let listed = r.read(&w.a, &urls[5]).await;
    assert_eq!(listed["Resources"][0]["emails"][0]["type"], "other");

    // DELETE (offboarding): gone from every list, its filter finds nothing.
    let (status, _) = app.call(w.a.delete(&ada_path)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let page = r.read_all(&w.a, &urls).await;
    assert_eq!(
        names(&page),
        [
            "bob@acme.example",
            "carol@acme.example",
            "dave@acme.example"
        ]
    );
    assert_eq!(r.read(&w.a, &urls[4]).await["totalResults"], 0);

    // Another organization's writes and reads are its own.
    let theirs = r.read(&w.b, &urls[0]).await;
    assert_eq!(theirs["totalResults"], 0);
    created(&app, &w.b, "ada@acme.example").await;
    assert_eq!(r.read(&w.b, &urls[4]).await["totalResults"], 1);
    assert_eq!(r.read(&w.a, &urls[4]).await["totalResults"], 0);
}

async fn the_key_is_checked_on_every_cached_read(app: TestApp) {
    let w = app.world();
    created(&app, &w.a, "ada@acme.example").await;
    let url = "/scim/v2/Users?count=10";
    for _ in 0..2 {
        let (status, _) = app.call(w.a.get(url)).await;
        assert_eq!(status, StatusCode::OK);
    }
    // A key of the organization without the scim scope: 403, cached or not.
    let (status, _) = app.call(w.limited.get(url)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // No key, a wrong key: 401.
    let (status, _) = app.call(TestRequest::get().uri(url)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app
        .call(TestRequest::get().uri(url).insert_header((
            "Authorization",
            format!("ApiKey {}x", w.a.key.trim_end_matches(|c| c != '_')),
        )))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Revoked after its pages were cached: 401.
    support::revoke_key(&*app.store, &w.a.key);
    let (status, body) = app.call(w.a.get(url)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
}

async fn the_base_url_is_part_of_a_cached_response(app: TestApp) {
    let w = app.world();
    let ada = created(&app, &w.a, "ada@acme.example").await;
    let id = ada["id"].as_str().unwrap();
    let url = "/scim/v2/Users?count=5";
    let at = |host: &'static str| w.a.get(url).insert_header(("Host", host));
    for host in ["one.example", "two.example", "one.example"] {
        let (status, page) = app.call(at(host)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            page["Resources"][0]["meta"]["location"],
            format!("http://{host}/scim/v2/Users/{id}")
        );
    }
}

/// Creates and list reads at once through one instance: the list read after
/// they all finished is the current one.
async fn concurrent_writes_and_reads_end_on_the_current_list(app: TestApp) {
    let w = app.world();
    let r = Readers::new(&app);
    let url = "/scim/v2/Users?count=50";
    let mut reqs = Vec::new();
    for n in 0..12 {
        reqs.push(w.a.scim_post("/scim/v2/Users", &okta_user(&format!("u{n}@acme.example"))));
        reqs.push(w.a.get(url));
        reqs.push(w.a.get("/scim/v2/Users?count=0"));
    }
    let statuses = app.call_concurrently(reqs).await;
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::OK || *s == StatusCode::CREATED),
        "{statuses:?}"
    );
    let page = r.read(&w.a, url).await;
    assert_eq!(page["totalResults"], 12);
    assert_eq!(
        r.read(&w.a, "/scim/v2/Users?count=0").await["totalResults"],
        12
    );
}
