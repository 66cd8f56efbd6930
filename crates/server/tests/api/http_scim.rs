//! Black-box tests of `/scim/v2` through the real application on SQLite and
//! PostgreSQL: each rule of docs/scim.md, with the JSON Okta and Microsoft
//! Entra ID send.
use std::sync::Arc;

use crate::support::scim::{deployed_item, entra_user, okta_user, package, EXT, PATCH_OP, SCIM};
use crate::support::{Client, TestApp};
use actix_web::http::header::HeaderMap;
use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use equip_domain::ids::{InventoryItemId, PersonId};
use equip_domain::person::PersonStatus;
use equip_domain::ports::{InventoryRepository, PersonRepository};
use equip_http::AppState;
use serde_json::{json, Value};

on_both_backends!(
    create_answers_201_with_the_user_location_and_etag,
    requests_are_accepted_as_scim_json_or_json_only,
    user_name_must_equal_the_primary_email,
    user_names_are_unique_case_insensitively_per_organization,
    concurrent_creates_of_one_user_name_yield_exactly_one_201,
    package_must_belong_to_the_organization,
    brazilian_users_need_a_valid_cpf,
    okta_looks_users_up_by_user_name_before_creating,
    entra_filters_on_external_id_and_work_email,
    the_filter_grammar_runs_in_the_database,
    bad_or_unsupported_filters_are_invalid_filter,
    paging_is_stable_and_capped_at_50,
    sorting_and_attribute_selection,
    search_takes_the_list_inputs_in_a_body,
    okta_deactivates_with_a_pathless_replace,
    entra_patch_shapes_are_understood,
    patch_errors_carry_their_scim_type,
    put_replaces_the_user,
    etags_and_preconditions,
    delete_takes_any_of_the_listed_versions,
    delete_starts_offboarding_and_frees_the_user_name,
    errors_are_scim_bodies_including_401_and_403,
    discovery_describes_what_equip_supports,
);

const GROUP_EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group";

struct Resp {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

async fn send(app: &TestApp, req: TestRequest) -> Resp {
    let service = test::init_service(equip_http::app(AppState::with_write_sessions(Arc::clone(
        &app.store,
    ))))
    .await;
    let resp = test::call_service(&service, req.to_request()).await;
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = test::read_body(resp).await;
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
    };
    Resp {
        status,
        headers,
        body,
    }
}

fn header<'a>(r: &'a Resp, name: &str) -> Option<&'a str> {
    r.headers.get(name).and_then(|v| v.to_str().ok())
}

fn assert_scim_error(r: &Resp, status: u16, scim_type: Option<&str>) {
    assert_eq!(r.status.as_u16(), status, "{}", r.body);
    assert_eq!(header(r, "content-type"), Some(SCIM), "{}", r.body);
    assert_eq!(
        r.body["schemas"],
        json!(["urn:ietf:params:scim:api:messages:2.0:Error"])
    );
    assert_eq!(r.body["status"], status.to_string());
    assert!(r.body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    match scim_type {
        Some(t) => assert_eq!(r.body["scimType"], t, "{}", r.body),
        None => assert!(r.body.get("scimType").is_none(), "{}", r.body),
    }
}

async fn create(app: &TestApp, c: &Client, body: &Value) -> Value {
    let r = send(app, c.scim_post("/scim/v2/Users", body)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.body
}

fn user_path(user: &Value) -> String {
    format!("/scim/v2/Users/{}", user["id"].as_str().unwrap())
}

fn list_path(filter: &str, rest: &str) -> String {
    let f: String = crate::support::url_encode(filter);
    format!("/scim/v2/Users?filter={f}{rest}")
}

async fn total(app: &TestApp, c: &Client, filter: &str) -> u64 {
    let r = send(app, c.get(&list_path(filter, ""))).await;
    assert_eq!(r.status, StatusCode::OK, "{filter}: {}", r.body);
    r.body["totalResults"].as_u64().unwrap()
}

// ---------------------------------------------------------------------------

async fn create_answers_201_with_the_user_location_and_etag(app: TestApp) {
    let w = app.world();
    let r = send(
        &app,
        w.a.scim_post("/scim/v2/Users", &okta_user("ada@acme.example")),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(header(&r, "content-type"), Some(SCIM));
    let u = &r.body;
    let id = u["id"].as_str().unwrap();
    assert!(PersonId::parse(id).is_ok());
    assert!(header(&r, "location")
        .unwrap()
        .ends_with(&format!("/scim/v2/Users/{id}")));
    assert_eq!(u["meta"]["location"], header(&r, "location").unwrap());
    assert_eq!(header(&r, "etag"), Some("W/\"1\""));
    assert_eq!(u["meta"]["version"], "W/\"1\"");
    assert_eq!(u["meta"]["resourceType"], "User");
    assert_eq!(u["externalId"], "00u1okta");
    assert_eq!(u["active"], true);
    assert_eq!(
        u["schemas"],
        json!(["urn:ietf:params:scim:schemas:core:2.0:User", EXT])
    );
    assert_eq!(u[EXT]["status"], "ACTIVE");
    assert!(u.get("password").is_none(), "password is never echoed");
    let text = u.to_string();
    assert!(!text.contains("1mz050nq"));
    let g = send(&app, w.a.get(&user_path(u))).await;
    assert_eq!(g.status, StatusCode::OK);
    assert_eq!(&g.body, u);
}

async fn requests_are_accepted_as_scim_json_or_json_only(app: TestApp) {
    let w = app.world();
    let r = send(
        &app,
        w.a.post_json("/scim/v2/Users", &okta_user("json@acme.example")),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(header(&r, "content-type"), Some(SCIM));
    let r = send(
        &app,
        w.a.with(TestRequest::post().uri("/scim/v2/Users"))
            .insert_header(("Content-Type", "text/plain"))
            .set_payload(okta_user("text@acme.example").to_string()),
    )
    .await;
    assert_scim_error(&r, 415, None);
    let r = send(
        &app,
        w.a.with(TestRequest::post().uri("/scim/v2/Users"))
            .insert_header(("Content-Type", SCIM))
            .set_payload("{\"userName\": "),
    )
    .await;
    assert_scim_error(&r, 400, Some("invalidSyntax"));
}

async fn user_name_must_equal_the_primary_email(app: TestApp) {
    let w = app.world();
    let mut u = okta_user("ada@acme.example");
    u["userName"] = json!("ADA@ACME.example");
    create(&app, &w.a, &u).await;
    let mut u = okta_user("bob@acme.example");
    u["userName"] = json!("robert@acme.example");
    let r = send(&app, w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_scim_error(&r, 400, Some("invalidValue"));
    let mut u = okta_user("carl@acme.example");
    u["emails"] = json!([
        {"value": "carl@acme.example", "primary": true},
        {"value": "carl@home.example", "primary": true}
    ]);
    let r = send(&app, w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_scim_error(&r, 400, Some("invalidValue"));
    let r = send(
        &app,
        w.a.scim_post("/scim/v2/Users", &json!({"emails": []})),
    )
    .await;
    assert_scim_error(&r, 400, Some("invalidValue"));
}

async fn user_names_are_unique_case_insensitively_per_organization(app: TestApp) {
    let w = app.world();
    create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let r = send(
        &app,
        w.a.scim_post("/scim/v2/Users", &okta_user("Ada@Acme.Example")),
    )
    .await;
    assert_scim_error(&r, 409, Some("uniqueness"));
    // Another organization may have the same userName.
    create(&app, &w.b, &okta_user("ada@acme.example")).await;
    // A replace onto a taken userName is a conflict too.
    let bob = create(&app, &w.a, &okta_user("bob@acme.example")).await;
    let r = send(
        &app,
        w.a.scim_put(&user_path(&bob), &okta_user("ADA@acme.example")),
    )
    .await;
    assert_scim_error(&r, 409, Some("uniqueness"));
}

async fn concurrent_creates_of_one_user_name_yield_exactly_one_201(app: TestApp) {
    let w = app.world();
    let n = 8;
    let reqs = (0..n)
        .map(|i| {
            let name = if i % 2 == 0 {
                "race@acme.example"
            } else {
                "RACE@acme.example"
            };
            w.a.scim_post("/scim/v2/Users", &okta_user(name))
        })
        .collect();
    let statuses = app.call_concurrently(reqs).await;
    let created = statuses
        .iter()
        .filter(|s| **s == StatusCode::CREATED)
        .count();
    let conflicts = statuses
        .iter()
        .filter(|s| **s == StatusCode::CONFLICT)
        .count();
    assert_eq!((created, conflicts), (1, n - 1), "{statuses:?}");
    assert_eq!(
        total(&app, &w.a, r#"userName eq "race@acme.example""#).await,
        1
    );
}

async fn package_must_belong_to_the_organization(app: TestApp) {
    let w = app.world();
    let mine = package(&app.store, w.a_org, "eng-mac");
    let theirs = package(&app.store, w.b_org, "eng-mac");
    let mut u = okta_user("pkg@acme.example");
    u[EXT] = json!({"packageId": theirs.to_string()});
    let r = send(&app, w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_scim_error(&r, 404, None);
    u[EXT] = json!({"packageId": "not-a-uuid"});
    let r = send(&app, w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_scim_error(&r, 400, Some("invalidValue"));
    u[EXT] = json!({"packageId": mine.to_string(), "startDate": "2031-02-03", "skipUserActivation": "True"});
    let created = create(&app, &w.a, &u).await;
    assert_eq!(created[EXT]["packageId"], mine.to_string());
    assert_eq!(created[EXT]["startDate"], "2031-02-03");
    assert_eq!(created[EXT]["skipUserActivation"], true);
}

async fn brazilian_users_need_a_valid_cpf(app: TestApp) {
    let w = app.world();
    let mut u = okta_user("joao@acme.example");
    u["addresses"] = json!([{
        "type": "home", "primary": true, "country": "BR",
        "streetAddress": "Rua Augusta, 1500\nApto 42", "postalCode": "01304-001",
        "region": "SP", "locality": "São Paulo"
    }]);
    let r = send(&app, w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_scim_error(&r, 400, Some("invalidValue"));
    assert!(r.body["detail"].as_str().unwrap().contains("CPF"));
    u[EXT] = json!({"cpfNumber": "529.982.247-26"});
    let r = send(&app, w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_scim_error(&r, 400, Some("invalidValue"));
    u[EXT] = json!({"cpfNumber": "529.982.247-25"});
    let created = create(&app, &w.a, &u).await;
    assert_eq!(
        created["addresses"][0]["streetAddress"],
        "Rua Augusta, 1500\nApto 42"
    );
}

async fn okta_looks_users_up_by_user_name_before_creating(app: TestApp) {
    let w = app.world();
    // Okta: GET /Users?filter=userName eq "…"&startIndex=1&count=100
    let path = list_path(
        r#"userName eq "ada@acme.example""#,
        "&startIndex=1&count=100",
    );
    let r = send(&app, w.a.get(&path)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(header(&r, "content-type"), Some(SCIM));
    assert_eq!(
        r.body,
        json!({
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
            "totalResults": 0, "itemsPerPage": 0, "startIndex": 1, "Resources": []
        })
    );
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    create(&app, &w.a, &okta_user("bob@acme.example")).await;
    let path = list_path(
        r#"userName eq "ADA@acme.example""#,
        "&startIndex=1&count=100",
    );
    let r = send(&app, w.a.get(&path)).await;
    assert_eq!(r.body["totalResults"], 1);
    assert!(r.body["totalResults"].is_u64() && r.body["itemsPerPage"].is_u64());
    assert_eq!(r.body["startIndex"], 1);
    assert_eq!(r.body["Resources"][0]["id"], ada["id"]);
    // Another organization's users are invisible.
    assert_eq!(
        total(&app, &w.b, r#"userName eq "ada@acme.example""#).await,
        0
    );
}

async fn entra_filters_on_external_id_and_work_email(app: TestApp) {
    let w = app.world();
    let grace = create(&app, &w.a, &entra_user("grace@acme.example", "8a3f-entra")).await;
    create(&app, &w.a, &entra_user("alan@acme.example", "9b4e-entra")).await;
    let r = send(
        &app,
        w.a.get(&list_path(r#"externalId eq "8a3f-entra""#, "")),
    )
    .await;
    assert_eq!(r.body["totalResults"], 1);
    assert_eq!(r.body["Resources"][0]["id"], grace["id"]);
    // externalId is case-exact.
    assert_eq!(total(&app, &w.a, r#"externalId eq "8A3F-ENTRA""#).await, 0);
    assert_eq!(
        total(
            &app,
            &w.a,
            r#"emails[type eq "work"].value eq "GRACE@acme.example""#
        )
        .await,
        1
    );
    assert_eq!(
        total(
            &app,
            &w.a,
            r#"emails[type eq "home"].value eq "grace@acme.example""#
        )
        .await,
        0
    );
    // The enterprise extension was ignored, not stored.
    assert!(grace
        .get("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User")
        .is_none());
}

async fn the_filter_grammar_runs_in_the_database(app: TestApp) {
    let w = app.world();
    for (user, given, family) in [
        ("ada@acme.example", "Ada", "Lovelace"),
        ("grace@acme.example", "Grace", "Hopper"),
        ("alan@other.example", "Alan", "Turing"),
        ("o'brien@acme.example", "Pat", "O'Brien"),
    ] {
        let mut u = okta_user(user);
        u["name"] = json!({"givenName": given, "familyName": family});
        u["externalId"] = json!(format!("ext-{given}"));
        create(&app, &w.a, &u).await;
    }
    let cases: &[(&str, u64)] = &[
        (r#"userName sw "A""#, 2),
        (r#"userName ew "@ACME.EXAMPLE""#, 3),
        (r#"userName co "o'b""#, 1),
        (r#"name.givenName eq "ada""#, 1),
        (r#"name.familyName co "o""#, 3),
        (r#"emails.value co "other""#, 1),
        (r#"emails co "other""#, 1),
        (r#"userName sw "a" and name.familyName eq "Turing""#, 1),
        (
            r#"userName sw "g" or name.givenName eq "Pat" and active eq true"#,
            2,
        ),
        (r#"not (userName sw "a")"#, 2),
        (
            r#"(userName sw "a" or userName sw "g") and not (name.givenName eq "Alan")"#,
            2,
        ),
        (r#"emails[type eq "work" and value co "@acme"]"#, 3),
        (r#"emails[primary eq true]"#, 4),
        (r#"externalId pr"#, 4),
        (r#"displayName ne "nobody""#, 4),
        (r#"externalId eq "ext-ada""#, 0),
        (r#"externalId eq "ext-Ada""#, 1),
        (r#"meta.created gt "2000-01-01T00:00:00Z""#, 4),
        (r#"meta.lastModified lt "2000-01-01T00:00:00Z""#, 0),
        (r#"userName gt "b""#, 2),
        (r#"active eq false"#, 0),
        (
            r#"urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ada@acme.example""#,
            1,
        ),
        (r#"USERNAME EQ "ada@acme.example""#, 1),
        (r#"userName eq "%_*""#, 0),
        (r#"userName co "%""#, 0),
    ];
    for (filter, expected) in cases {
        assert_eq!(total(&app, &w.a, filter).await, *expected, "{filter}");
    }
}

async fn bad_or_unsupported_filters_are_invalid_filter(app: TestApp) {
    let w = app.world();
    for filter in [
        r#"userName eq"#,
        r#"userName eq "a" and"#,
        r#"(userName eq "a""#,
        r#"userName zz "a""#,
        r#"roles.value eq "x""#,
        r#"phoneNumbers.value eq "1""#,
        r#"active gt true"#,
        r#"meta.created gt "soon""#,
    ] {
        let r = send(&app, w.a.get(&list_path(filter, ""))).await;
        assert_scim_error(&r, 400, Some("invalidFilter"));
    }
}

async fn paging_is_stable_and_capped_at_50(app: TestApp) {
    let w = app.world();
    for i in 0..7 {
        create(&app, &w.a, &okta_user(&format!("user{i}@acme.example"))).await;
    }
    let mut seen = Vec::new();
    for start in [1, 4, 7] {
        let r = send(
            &app,
            w.a.get(&format!("/scim/v2/Users?startIndex={start}&count=3")),
        )
        .await;
        assert_eq!(r.body["totalResults"], 7);
        assert_eq!(r.body["startIndex"], start);
        for u in r.body["Resources"].as_array().unwrap() {
            seen.push(u["userName"].as_str().unwrap().to_owned());
        }
    }
    let expected: Vec<String> = (0..7).map(|i| format!("user{i}@acme.example")).collect();
    assert_eq!(
        seen, expected,
        "creation order, nothing skipped or repeated"
    );
    let r = send(&app, w.a.get("/scim/v2/Users?count=500")).await;
    assert_eq!(r.body["itemsPerPage"], 7);
    let r = send(&app, w.a.get("/scim/v2/Users?count=0")).await;
    assert_eq!(r.body["totalResults"], 7);
    assert_eq!(r.body["itemsPerPage"], 0);
    assert_eq!(r.body["Resources"], json!([]));
    let r = send(&app, w.a.get("/scim/v2/Users?startIndex=100")).await;
    assert_eq!(r.body["totalResults"], 7);
    assert_eq!(r.body["Resources"], json!([]));
    let r = send(&app, w.a.get("/scim/v2/Users?count=many")).await;
    assert_scim_error(&r, 400, Some("invalidValue"));
}

async fn sorting_and_attribute_selection(app: TestApp) {
    let w = app.world();
    for name in ["bea@acme.example", "Cid@acme.example", "abe@acme.example"] {
        create(&app, &w.a, &okta_user(name)).await;
    }
    let names = |b: &Value| -> Vec<String> {
        b["Resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["userName"].as_str().unwrap().to_owned())
            .collect()
    };
    let r = send(&app, w.a.get("/scim/v2/Users?sortBy=userName")).await;
    assert_eq!(
        names(&r.body),
        ["abe@acme.example", "bea@acme.example", "Cid@acme.example"]
    );
    let r = send(
        &app,
        w.a.get("/scim/v2/Users?sortBy=userName&sortOrder=descending"),
    )
    .await;
    assert_eq!(
        names(&r.body),
        ["Cid@acme.example", "bea@acme.example", "abe@acme.example"]
    );
    let r = send(&app, w.a.get("/scim/v2/Users?sortBy=roles.value")).await;
    assert_scim_error(&r, 400, Some("invalidValue"));

    let r = send(
        &app,
        w.a.get("/scim/v2/Users?attributes=name.givenName,emails"),
    )
    .await;
    let u = &r.body["Resources"][0];
    let keys: Vec<&str> = u.as_object().unwrap().keys().map(String::as_str).collect();
    for k in ["schemas", "id", "userName", "name", "emails"] {
        assert!(keys.contains(&k), "{k} in {keys:?}");
    }
    assert!(u.get("meta").is_none() && u.get("active").is_none());
    assert_eq!(u["name"], json!({"givenName": "Ada"}));
    let r = send(
        &app,
        w.a.get("/scim/v2/Users?excludedAttributes=emails,userName,meta"),
    )
    .await;
    let u = &r.body["Resources"][0];
    assert!(u.get("emails").is_none() && u.get("meta").is_none());
    assert!(u.get("userName").is_some(), "userName is always returned");
    let one = user_path(u);
    let r = send(&app, w.a.get(&format!("{one}?attributes=active"))).await;
    assert_eq!(r.body.as_object().unwrap().len(), 4, "{}", r.body);
}

async fn search_takes_the_list_inputs_in_a_body(app: TestApp) {
    let w = app.world();
    create(&app, &w.a, &okta_user("ada@acme.example")).await;
    create(&app, &w.a, &okta_user("alan@acme.example")).await;
    create(&app, &w.a, &okta_user("grace@acme.example")).await;
    let r = send(
        &app,
        w.a.scim_post(
            "/scim/v2/Users/.search",
            &json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                "attributes": ["userName"],
                "filter": "userName sw \"a\"",
                "sortBy": "userName", "sortOrder": "descending",
                "startIndex": 1, "count": 1
            }),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["totalResults"], 2);
    assert_eq!(r.body["itemsPerPage"], 1);
    assert_eq!(r.body["Resources"][0]["userName"], "alan@acme.example");
    assert!(r.body["Resources"][0].get("emails").is_none());
    let r = send(
        &app,
        w.a.scim_post("/scim/v2/Users/.search", &json!({"filter": "userName eq"})),
    )
    .await;
    assert_scim_error(&r, 400, Some("invalidFilter"));
}

async fn okta_deactivates_with_a_pathless_replace(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let r = send(
        &app,
        w.a.scim_patch(
            &user_path(&ada),
            &json!({"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": false}}]}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["active"], false);
    assert_eq!(r.body["meta"]["version"], "W/\"2\"");
    assert_eq!(header(&r, "etag"), Some("W/\"2\""));
    // Still readable and listed; only DELETE offboards.
    let g = send(&app, w.a.get(&user_path(&ada))).await;
    assert_eq!(g.status, StatusCode::OK);
    assert_eq!(g.body["active"], false);
    assert_eq!(g.body[EXT]["status"], "ACTIVE");
    assert_eq!(total(&app, &w.a, "active eq false").await, 1);
    // Okta reactivates the same way; PUT with active works too.
    let r = send(
        &app,
        w.a.scim_patch(
            &user_path(&ada),
            &json!({"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": true}}]}),
        ),
    )
    .await;
    assert_eq!(r.body["active"], true);
}

async fn entra_patch_shapes_are_understood(app: TestApp) {
    let w = app.world();
    let grace = create(&app, &w.a, &entra_user("grace@acme.example", "8a3f")).await;
    let path = user_path(&grace);
    // Entra: capitalized ops, "False" as a string, dotted and URN keys.
    let r = send(
        &app,
        w.a.scim_patch(
            &path,
            &json!({
                "schemas": [PATCH_OP],
                "Operations": [
                    {"op": "Replace", "path": "active", "value": "False"},
                    {"op": "Replace", "value": {
                        "name.givenName": "Amazing Grace",
                        "urn:ietf:params:scim:schemas:core:2.0:User:displayName": "Rear Admiral Hopper",
                        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber": "42"
                    }},
                    {"op": "Add", "path": "emails[type eq \"home\"].value", "value": "grace@home.example"},
                    {"op": "Add", "path": "phoneNumbers[type eq \"mobile\"].value", "value": "+1 555 0100"},
                    {"op": "Replace", "path": "name.familyName", "value": "Murray Hopper"},
                    {"op": "Add", "path": "urn:ietf:params:scim:schemas:extension:equip:1.0:User:startDate", "value": "2031-01-05"}
                ]
            }),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let u = &r.body;
    assert_eq!(u["active"], false);
    assert_eq!(u["name"]["givenName"], "Amazing Grace");
    assert_eq!(u["name"]["familyName"], "Murray Hopper");
    assert_eq!(u["displayName"], "Rear Admiral Hopper");
    assert_eq!(
        u["emails"][1],
        json!({"value": "grace@home.example", "type": "home", "primary": false})
    );
    assert_eq!(u["phoneNumbers"][0]["value"], "+1 555 0100");
    assert_eq!(u[EXT]["startDate"], "2031-01-05");
    // Entra changes the work email and the userName together.
    let r = send(
        &app,
        w.a.scim_patch(
            &path,
            &json!({"schemas": [PATCH_OP], "Operations": [
                {"op": "Replace", "path": "emails[type eq \"work\"].value", "value": "g.hopper@acme.example"},
                {"op": "Replace", "path": "userName", "value": "g.hopper@acme.example"}
            ]}),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["userName"], "g.hopper@acme.example");
    assert_eq!(
        total(&app, &w.a, r#"userName eq "grace@acme.example""#).await,
        0
    );
    // A userName that is not the primary email is refused.
    let r = send(
        &app,
        w.a.scim_patch(
            &path,
            &json!({"Operations": [{"op": "replace", "path": "userName", "value": "x@acme.example"}]}),
        ),
    )
    .await;
    assert_scim_error(&r, 400, Some("invalidValue"));
}

async fn patch_errors_carry_their_scim_type(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let path = user_path(&ada);
    for (body, t) in [
        (
            json!({"Operations": [{"op": "replace", "path": "id", "value": "x"}]}),
            "mutability",
        ),
        (
            json!({"Operations": [{"op": "replace", "path": "meta.created", "value": "x"}]}),
            "mutability",
        ),
        (json!({"Operations": [{"op": "remove"}]}), "noTarget"),
        (
            json!({"Operations": [{"op": "replace", "path": "emails[type eq \"other\"].value", "value": "x@y.example"}]}),
            "noTarget",
        ),
        (
            json!({"Operations": [{"op": "add", "path": "emails[type eq", "value": "x"}]}),
            "invalidPath",
        ),
        (
            json!({"Operations": [{"op": "move", "path": "userName"}]}),
            "invalidSyntax",
        ),
        (json!({"schemas": [PATCH_OP]}), "invalidSyntax"),
        (
            json!({"Operations": [{"op": "replace", "path": "active", "value": "maybe"}]}),
            "invalidValue",
        ),
    ] {
        let r = send(&app, w.a.scim_patch(&path, &body)).await;
        assert_scim_error(&r, 400, Some(t));
    }
    let r = send(&app, w.a.get(&path)).await;
    assert_eq!(
        r.body["meta"]["version"], "W/\"1\"",
        "failed patches change nothing"
    );
}

async fn put_replaces_the_user(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let mut body = okta_user("ada@acme.example");
    body["name"] = json!({"givenName": "Augusta"});
    body["displayName"] = Value::Null;
    body["id"] = json!("ignored-read-only");
    let r = send(&app, w.a.scim_put(&user_path(&ada), &body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["id"], ada["id"]);
    assert_eq!(r.body["name"]["givenName"], "Augusta");
    assert!(r.body["name"].get("familyName").is_none());
    assert!(r.body.get("displayName").is_none());
    assert_eq!(r.body["meta"]["created"], ada["meta"]["created"]);
    assert_eq!(r.body["meta"]["version"], "W/\"2\"");
    let r = send(
        &app,
        w.a.scim_put(&format!("/scim/v2/Users/{}", uuid::Uuid::new_v4()), &body),
    )
    .await;
    assert_scim_error(&r, 404, None);
}

async fn etags_and_preconditions(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let path = user_path(&ada);
    let r = send(
        &app,
        w.a.get(&path).insert_header(("If-None-Match", "W/\"1\"")),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    assert_eq!(header(&r, "etag"), Some("W/\"1\""));
    let r = send(
        &app,
        w.a.get(&path).insert_header(("If-None-Match", "W/\"0\"")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let patch = json!({"Operations": [{"op": "replace", "path": "displayName", "value": "A"}]});
    let r = send(
        &app,
        w.a.scim_patch(&path, &patch)
            .insert_header(("If-Match", "W/\"1\"")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    // Version 1 is stale now.
    let r = send(
        &app,
        w.a.scim_patch(&path, &patch)
            .insert_header(("If-Match", "W/\"1\"")),
    )
    .await;
    assert_scim_error(&r, 412, None);
    let r = send(
        &app,
        w.a.scim_put(&path, &okta_user("ada@acme.example"))
            .insert_header(("If-Match", "W/\"1\"")),
    )
    .await;
    assert_scim_error(&r, 412, None);
    let r = send(
        &app,
        w.a.delete(&path).insert_header(("If-Match", "W/\"1\"")),
    )
    .await;
    assert_scim_error(&r, 412, None);
    let r = send(
        &app,
        w.a.scim_put(&path, &okta_user("ada@acme.example"))
            .insert_header(("If-Match", "\"2\"")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let r = send(&app, w.a.delete(&path).insert_header(("If-Match", "*"))).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
}

async fn delete_takes_any_of_the_listed_versions(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let path = user_path(&ada);
    let patch = json!({"Operations": [{"op": "replace", "path": "displayName", "value": "A"}]});
    let r = send(&app, w.a.scim_patch(&path, &patch)).await;
    assert_eq!(r.body["meta"]["version"], "W/\"2\"");
    // Neither listed version is the stored one.
    let r = send(
        &app,
        w.a.delete(&path)
            .insert_header(("If-Match", "W/\"98\", W/\"99\"")),
    )
    .await;
    assert_scim_error(&r, 412, None);
    // The stored version second in the list: as for PUT and PATCH, any tag
    // may match.
    let r = send(
        &app,
        w.a.delete(&path)
            .insert_header(("If-Match", "W/\"99\", W/\"2\"")),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
}

async fn delete_starts_offboarding_and_frees_the_user_name(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let id = ada["id"].as_str().unwrap().to_owned();
    let laptop = deployed_item(&app.store, w.a_org, w.a_sku, &id);
    let phone = deployed_item(&app.store, w.a_org, w.a_sku, &id);
    let r = send(&app, w.a.delete(&user_path(&ada))).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(r.body, Value::Null);
    // The person is kept, offboarding.
    let person = app
        .store
        .find_person(w.a_org, PersonId::parse(&id).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(person.status, PersonStatus::Offboarding);
    // Every deployed item has a PENDING return order.
    for item in [laptop, phone] {
        let item = app
            .store
            .find_inventory_item(w.a_org, item)
            .unwrap()
            .unwrap();
        let ret = item.return_order.expect("return order");
        assert_eq!(ret.status.as_str(), "PENDING");
        assert_eq!(ret.return_order_item_status.as_str(), "PENDING");
    }
    // From then on 404, not listed, and the userName may be provisioned again.
    let r = send(&app, w.a.get(&user_path(&ada))).await;
    assert_scim_error(&r, 404, None);
    let r = send(&app, w.a.delete(&user_path(&ada))).await;
    assert_scim_error(&r, 404, None);
    let r = send(
        &app,
        w.a.scim_patch(
            &user_path(&ada),
            &json!({"Operations": [{"op": "replace", "value": {"active": false}}]}),
        ),
    )
    .await;
    assert_scim_error(&r, 404, None);
    assert_eq!(
        total(&app, &w.a, r#"userName eq "ada@acme.example""#).await,
        0
    );
    let again = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    assert_ne!(again["id"], ada["id"]);
    let _ = InventoryItemId::new();
}

async fn errors_are_scim_bodies_including_401_and_403(app: TestApp) {
    let w = app.world();
    let r = send(&app, TestRequest::get().uri("/scim/v2/Users")).await;
    assert_scim_error(&r, 401, None);
    let r = send(
        &app,
        TestRequest::get()
            .uri("/scim/v2/Users")
            .insert_header(("Authorization", format!("ApiKey {}", w.revoked_key))),
    )
    .await;
    assert_scim_error(&r, 401, None);
    for req in [
        w.limited.get("/scim/v2/Users"),
        w.limited
            .scim_post("/scim/v2/Users", &okta_user("x@acme.example")),
        w.limited.get("/scim/v2/Schemas"),
        w.limited.get("/scim/v2/ServiceProviderConfig"),
    ] {
        let r = send(&app, req).await;
        assert_scim_error(&r, 403, None);
    }
    // Okta and Entra send the key as a bearer token: accepted on /scim/v2 only.
    let bearer = |path: &str| {
        TestRequest::get()
            .uri(path)
            .insert_header(("Authorization", format!("Bearer {}", w.a.key)))
    };
    let r = send(&app, bearer("/scim/v2/Users")).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = send(
        &app,
        bearer(&format!("/api/v1/warehouses/{}", w.a_warehouse)),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = send(
        &app,
        w.a.get(&format!("/scim/v2/Users/{}", uuid::Uuid::new_v4())),
    )
    .await;
    assert_scim_error(&r, 404, None);
    let r = send(&app, w.a.get("/scim/v2/Users/not-a-uuid")).await;
    assert_scim_error(&r, 404, None);
    // Another organization's user is unknown.
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    let r = send(&app, w.b.get(&user_path(&ada))).await;
    assert_scim_error(&r, 404, None);
    let r = send(&app, w.b.delete(&user_path(&ada))).await;
    assert_scim_error(&r, 404, None);
}

async fn discovery_describes_what_equip_supports(app: TestApp) {
    let w = app.world();
    let r = send(&app, w.a.get("/scim/v2/ServiceProviderConfig")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(header(&r, "content-type"), Some(SCIM));
    assert_eq!(r.body["patch"]["supported"], true);
    assert_eq!(r.body["filter"]["maxResults"], 50);
    assert_eq!(r.body["etag"]["supported"], true);
    assert_eq!(r.body["bulk"]["supported"], true);
    assert_eq!(r.body["bulk"]["maxOperations"], 1000);
    assert_eq!(r.body["bulk"]["maxPayloadSize"], 1_048_576);
    let r = send(&app, w.a.get("/scim/v2/ResourceTypes")).await;
    assert_eq!(r.body["totalResults"], 2);
    assert_eq!(r.body["Resources"][0]["schemaExtensions"][0]["schema"], EXT);
    assert_eq!(r.body["Resources"][1]["endpoint"], "/Groups");
    assert_eq!(
        r.body["Resources"][1]["schemaExtensions"][0]["schema"],
        GROUP_EXT
    );
    let r = send(&app, w.a.get("/scim/v2/ResourceTypes/User")).await;
    assert_eq!(r.body["endpoint"], "/Users");
    let r = send(&app, w.a.get("/scim/v2/ResourceTypes/Group")).await;
    assert_eq!(r.body["endpoint"], "/Groups");
    let r = send(&app, w.a.get("/scim/v2/Schemas")).await;
    assert_eq!(r.body["totalResults"], 4);
    let ids: Vec<&str> = r.body["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "urn:ietf:params:scim:schemas:core:2.0:User",
            EXT,
            "urn:ietf:params:scim:schemas:core:2.0:Group",
            GROUP_EXT
        ]
    );
    let r = send(&app, w.a.get(&format!("/scim/v2/Schemas/{EXT}"))).await;
    assert_eq!(r.status, StatusCode::OK);
    let attrs: Vec<&str> = r.body["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        attrs,
        [
            "packageId",
            "startDate",
            "status",
            "skipUserActivation",
            "cpfNumber",
            "effectivePackageId"
        ]
    );
    let r = send(&app, w.a.get("/scim/v2/Schemas/urn:nothing")).await;
    assert_scim_error(&r, 404, None);
    for path in [
        "/scim/v2/ServiceProviderConfig",
        "/scim/v2/ResourceTypes",
        "/scim/v2/Schemas",
    ] {
        for req in [
            TestRequest::post().uri(path),
            TestRequest::put().uri(path),
            TestRequest::delete().uri(path),
        ] {
            let r = send(&app, w.a.with(req)).await;
            assert_scim_error(&r, 405, None);
            assert_eq!(header(&r, "allow"), Some("GET, HEAD"));
        }
    }
}
