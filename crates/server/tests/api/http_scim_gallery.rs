//! Black-box tests of what Microsoft's gallery validation, authentik and
//! RFC probes need of `/scim/v2` (issue 47), on SQLite and PostgreSQL:
//! canonical `type` values in `/Schemas`, clearing one element's value by
//! PATCH (Microsoft's SCIM_Null_Update_Test), `/Me` answered 501, an empty
//! group's `"members": []`, `externalId` kept exactly as sent, a `count`
//! over the page cap warned about and counted, and a raw `"` in a query
//! string (through the spawned binary, with raw HTTP: a client library
//! would percent-encode it).
use crate::support::process::{organization_with_key, request, Serve};
use crate::support::scim::{EXT, PATCH_OP, SCIM};
use crate::support::{url_encode, Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

on_both_backends!(
    schemas_publish_the_canonical_types_of_emails_phones_and_addresses,
    clearing_an_elements_value_removes_that_element,
    clearing_the_primary_email_leaves_user_name_the_primary_email,
    microsoft_null_update_clears_every_optional_attribute,
    me_answers_501_with_a_scim_error_on_every_method,
    an_empty_group_shows_an_empty_members_list,
    external_id_is_kept_exactly_as_sent,
);

const CORE_USER: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";

async fn expect(app: &TestApp, req: TestRequest, status: StatusCode) -> Value {
    let (got, body) = app.call(req).await;
    assert_eq!(got, status, "{body}");
    body
}

fn patch(ops: Value) -> Value {
    json!({"schemas": [PATCH_OP], "Operations": ops})
}

/// A user with an email of each kind equip keeps, two phones and two
/// addresses.
fn full_user(user_name: &str) -> Value {
    json!({
        "schemas": [CORE_USER, EXT],
        "externalId": "8f2e-entra-object-id",
        "userName": user_name,
        "name": {"givenName": "Grace", "familyName": "Hopper"},
        "displayName": "Grace Hopper",
        "emails": [{"value": user_name, "type": "work", "primary": true}],
        "phoneNumbers": [
            {"value": "+49 30 1234567", "type": "work"},
            {"value": "+49 170 7654321", "type": "mobile", "primary": true}
        ],
        "addresses": [
            {"type": "work", "streetAddress": "Unter den Linden 1", "locality": "Berlin",
             "region": "BE", "postalCode": "10117", "country": "DE", "primary": true},
            {"type": "home", "locality": "Potsdam", "country": "DE"}
        ],
        "active": true,
        EXT: {"startDate": "2031-02-03"}
    })
}

async fn create_user(app: &TestApp, c: &Client, body: &Value) -> (String, Value) {
    let user = expect(
        app,
        c.scim_post("/scim/v2/Users", body),
        StatusCode::CREATED,
    )
    .await;
    (user["id"].as_str().unwrap().to_owned(), user)
}

fn types(user: &Value, attr: &str) -> Vec<String> {
    user[attr]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|i| i["type"].as_str().unwrap_or("-").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Item 1: canonical values.

async fn schemas_publish_the_canonical_types_of_emails_phones_and_addresses(app: TestApp) {
    let w = app.world();
    let schema = expect(
        &app,
        w.a.get(&format!("/scim/v2/Schemas/{CORE_USER}")),
        StatusCode::OK,
    )
    .await;
    let attrs = schema["attributes"].as_array().unwrap();
    let type_of = |name: &str| -> Value {
        let attr = attrs.iter().find(|a| a["name"] == name).unwrap();
        let sub = attr["subAttributes"].as_array().unwrap();
        sub.iter().find(|s| s["name"] == "type").unwrap().clone()
    };
    assert_eq!(
        type_of("emails")["canonicalValues"],
        json!(["work", "home", "other"])
    );
    assert_eq!(
        type_of("phoneNumbers")["canonicalValues"],
        json!(["work", "home", "mobile", "fax", "pager", "other"])
    );
    assert_eq!(
        type_of("addresses")["canonicalValues"],
        json!(["work", "home", "other"])
    );
    // The list of every schema says the same.
    let all = expect(&app, w.a.get("/scim/v2/Schemas"), StatusCode::OK).await;
    let user = all["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == CORE_USER)
        .unwrap();
    assert_eq!(user, &schema);
    // The values stay free-form: other labels are accepted and kept.
    let mut body = full_user("ada@acme.example");
    body["emails"][0]["type"] = json!("Büro");
    body["phoneNumbers"][0]["type"] = json!("satellite");
    body["addresses"][1]["type"] = json!("holiday");
    let (_, user) = create_user(&app, &w.a, &body).await;
    assert_eq!(types(&user, "emails"), ["Büro"]);
    assert_eq!(types(&user, "phoneNumbers"), ["satellite", "mobile"]);
    assert_eq!(types(&user, "addresses"), ["work", "holiday"]);
}

// ---------------------------------------------------------------------------
// Item 2: a value made absent removes its element.

async fn clearing_an_elements_value_removes_that_element(app: TestApp) {
    let w = app.world();
    let (id, _) = create_user(&app, &w.a, &full_user("grace@acme.example")).await;
    let path = format!("/scim/v2/Users/{id}");
    // null, with another operation in the same PATCH: both apply.
    let user = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([
                {"op": "Replace", "path": "phoneNumbers[type eq \"mobile\"].value", "value": null},
                {"op": "Replace", "path": "displayName", "value": "Rear Admiral Hopper"}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(types(&user, "phoneNumbers"), ["work"], "{user}");
    assert_eq!(user["displayName"], "Rear Admiral Hopper");
    // "" the same; the last phone gone, the attribute is absent.
    let user = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([
                {"op": "replace", "path": "phoneNumbers[type eq \"work\"].value", "value": ""}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert!(user.get("phoneNumbers").is_none(), "{user}");
    // Clearing what is no longer there changes nothing and is no error.
    expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([
                {"op": "replace", "path": "phoneNumbers[type eq \"mobile\"].value", "value": null}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    // An address whose every part is removed is removed; `remove` of a
    // sub-attribute path works as null does.
    let user = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([
                {"op": "remove", "path": "addresses[type eq \"home\"].locality"},
                {"op": "replace", "path": "addresses[type eq \"home\"].country", "value": null}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(types(&user, "addresses"), ["work"], "{user}");
    // One part of an address removed leaves the rest.
    let user = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([
                {"op": "remove", "path": "addresses[type eq \"work\"].region"}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(user["addresses"][0]["locality"], "Berlin", "{user}");
    assert!(user["addresses"][0].get("region").is_none(), "{user}");
    // What was answered is what is stored.
    let stored = expect(&app, w.a.get(&path), StatusCode::OK).await;
    assert_eq!(stored, user);
}

async fn clearing_the_primary_email_leaves_user_name_the_primary_email(app: TestApp) {
    let w = app.world();
    // One email: removing its value leaves the user without emails, so
    // userName is its primary email again.
    let (id, _) = create_user(&app, &w.a, &full_user("grace@acme.example")).await;
    let user = expect(
        &app,
        w.a.scim_patch(
            &format!("/scim/v2/Users/{id}"),
            &patch(json!([
                {"op": "remove", "path": "emails[type eq \"work\"].value"}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(user["userName"], "grace@acme.example");
    assert_eq!(
        user["emails"],
        json!([{"value": "grace@acme.example", "primary": true}]),
        "{user}"
    );
    // Two emails, the primary one cleared: the other stays, and userName
    // is the primary email.
    let mut body = full_user("ada@acme.example");
    body["emails"] = json!([
        {"value": "ada@acme.example", "type": "work", "primary": true},
        {"value": "ada@home.example", "type": "home"}
    ]);
    let (id, _) = create_user(&app, &w.a, &body).await;
    let user = expect(
        &app,
        w.a.scim_patch(
            &format!("/scim/v2/Users/{id}"),
            &patch(json!([
                {"op": "Replace", "path": "emails[type eq \"work\"].value", "value": ""}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        user["emails"],
        json!([
            {"value": "ada@home.example", "type": "home", "primary": false},
            {"value": "ada@acme.example", "primary": true}
        ]),
        "{user}"
    );
    // The rules still hold: a new userName that is no email of the user is
    // refused, and nothing applies.
    let (status, body) = app
        .call(w.a.scim_patch(
            &format!("/scim/v2/Users/{id}"),
            &patch(json!([
                {"op": "replace", "path": "userName", "value": "other@acme.example"},
                {"op": "replace", "path": "displayName", "value": "Changed"}
            ])),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidValue");
}

/// Microsoft's SCIM_Null_Update_Test: one PATCH replacing every optional
/// attribute the mapping has with a null (and, a second time, an empty)
/// value; the user answers without them.
async fn microsoft_null_update_clears_every_optional_attribute(app: TestApp) {
    let w = app.world();
    for (i, empty) in [Value::Null, json!("")].into_iter().enumerate() {
        let user_name = format!("null{i}@acme.example");
        let (id, _) = create_user(&app, &w.a, &full_user(&user_name)).await;
        let ops: Vec<Value> = [
            "externalId",
            "name.givenName",
            "name.familyName",
            "displayName",
            "emails[type eq \"work\"].value",
            "phoneNumbers[type eq \"work\"].value",
            "phoneNumbers[type eq \"mobile\"].value",
            "addresses[type eq \"work\"].streetAddress",
            "addresses[type eq \"work\"].locality",
            "addresses[type eq \"work\"].region",
            "addresses[type eq \"work\"].postalCode",
            "addresses[type eq \"work\"].country",
            "addresses[type eq \"home\"].locality",
            "addresses[type eq \"home\"].country",
            "urn:ietf:params:scim:schemas:extension:equip:1.0:User:startDate",
        ]
        .iter()
        .map(|path| json!({"op": "Replace", "path": path, "value": empty}))
        .collect();
        let path = format!("/scim/v2/Users/{id}");
        let user = expect(
            &app,
            w.a.scim_patch(&path, &patch(Value::Array(ops))),
            StatusCode::OK,
        )
        .await;
        for gone in [
            "externalId",
            "name",
            "displayName",
            "phoneNumbers",
            "addresses",
        ] {
            assert!(user.get(gone).is_none(), "{empty}: {gone} in {user}");
        }
        assert!(user[EXT].get("startDate").is_none(), "{user}");
        assert_eq!(user["userName"], user_name.as_str());
        assert_eq!(
            user["emails"],
            json!([{"value": user_name, "primary": true}])
        );
        assert_eq!(user["active"], true);
        let stored = expect(&app, w.a.get(&path), StatusCode::OK).await;
        assert_eq!(stored, user);
    }
}

// ---------------------------------------------------------------------------
// Item 3: /Me.

async fn me_answers_501_with_a_scim_error_on_every_method(app: TestApp) {
    let w = app.world();
    let me = "/scim/v2/Me";
    let body = json!({"schemas": [CORE_USER], "userName": "me@acme.example"});
    for req in [
        w.a.get(me),
        w.a.scim_post(me, &body),
        w.a.scim_put(me, &body),
        w.a.scim_patch(
            me,
            &patch(json!([{"op": "replace", "path": "displayName", "value": "x"}])),
        ),
        w.a.delete(me),
        w.a.get("/scim/v2/Me?attributes=userName"),
    ] {
        let raw = app.call_raw(req).await;
        assert_eq!(raw.status, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(raw.content_type.as_deref(), Some(SCIM));
        let body: Value = serde_json::from_slice(&raw.body).unwrap();
        assert_eq!(
            body["schemas"],
            json!(["urn:ietf:params:scim:api:messages:2.0:Error"])
        );
        assert_eq!(body["status"], "501");
        assert!(body["detail"].as_str().unwrap().contains("/Me"), "{body}");
    }
    // Still behind the key and its scope, as every SCIM route.
    let (status, body) = app.call(TestRequest::get().uri(me)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (status, body) = app.call(w.limited.get(me)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
}

// ---------------------------------------------------------------------------
// Item 4: an empty group's members.

async fn an_empty_group_shows_an_empty_members_list(app: TestApp) {
    let w = app.world();
    let created = expect(
        &app,
        w.a.scim_post(
            "/scim/v2/Groups",
            &json!({"schemas": [GROUP], "displayName": "Engineering"}),
        ),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(created["members"], json!([]), "{created}");
    let id = created["id"].as_str().unwrap();
    let path = format!("/scim/v2/Groups/{id}");
    let got = expect(&app, w.a.get(&path), StatusCode::OK).await;
    assert_eq!(got["members"], json!([]), "{got}");
    let listed = expect(&app, w.a.get("/scim/v2/Groups"), StatusCode::OK).await;
    assert_eq!(listed["Resources"][0]["members"], json!([]), "{listed}");
    let search = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"]});
    let found = expect(
        &app,
        w.a.scim_post("/scim/v2/Groups/.search", &search),
        StatusCode::OK,
    )
    .await;
    assert_eq!(found["Resources"][0]["members"], json!([]), "{found}");
    let replaced = expect(
        &app,
        w.a.scim_put(
            &path,
            &json!({"schemas": [GROUP], "displayName": "Engineering"}),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(replaced["members"], json!([]), "{replaced}");
    let renamed = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([{"op": "replace", "path": "displayName", "value": "Eng"}])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(renamed["members"], json!([]), "{renamed}");
    // A member added and removed again: empty, not unknown.
    let (ada, _) = create_user(&app, &w.a, &full_user("ada@acme.example")).await;
    let emptied = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([
                {"op": "add", "path": "members", "value": [{"value": ada}]},
                {"op": "remove", "path": format!("members[value eq \"{ada}\"]")}
            ])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(emptied["members"], json!([]), "{emptied}");
    // Projections: members excluded or not selected are absent; selected, [].
    for query in ["excludedAttributes=members", "attributes=displayName"] {
        let got = expect(&app, w.a.get(&format!("{path}?{query}")), StatusCode::OK).await;
        assert!(got.get("members").is_none(), "{query}: {got}");
        let listed = expect(
            &app,
            w.a.get(&format!("/scim/v2/Groups?{query}")),
            StatusCode::OK,
        )
        .await;
        assert!(
            listed["Resources"][0].get("members").is_none(),
            "{query}: {listed}"
        );
    }
    let got = expect(
        &app,
        w.a.get(&format!("{path}?attributes=members")),
        StatusCode::OK,
    )
    .await;
    assert_eq!(got["members"], json!([]), "{got}");
    assert!(got.get("displayName").is_none(), "{got}");
}

// ---------------------------------------------------------------------------
// Item 5: externalId as sent; names trimmed.

async fn external_id_is_kept_exactly_as_sent(app: TestApp) {
    let w = app.world();
    let total = |resource: &'static str, filter: String| {
        let path = format!("/scim/v2/{resource}?filter={}", url_encode(&filter));
        let req = w.a.get(&path);
        let app = &app;
        async move { expect(app, req, StatusCode::OK).await["totalResults"].clone() }
    };
    for (i, external_id) in [" 00u1 Ab ", "\u{a0}00u2", "   "].iter().enumerate() {
        let mut body = full_user(&format!("u{i}@acme.example"));
        body["externalId"] = json!(external_id);
        let (id, user) = create_user(&app, &w.a, &body).await;
        assert_eq!(user["externalId"], *external_id, "{user}");
        let stored = expect(
            &app,
            w.a.get(&format!("/scim/v2/Users/{id}")),
            StatusCode::OK,
        )
        .await;
        assert_eq!(stored["externalId"], *external_id);
        let filter = format!("externalId eq {}", json!(external_id));
        assert_eq!(total("Users", filter).await, 1, "{external_id:?}");
    }
    // caseExact: another case or the trimmed value is another identifier.
    assert_eq!(total("Users", r#"externalId eq "00u1 Ab""#.into()).await, 0);
    assert_eq!(
        total("Users", r#"externalId eq " 00U1 AB ""#.into()).await,
        0
    );
    // By PATCH and PUT too.
    let (id, _) = create_user(&app, &w.a, &full_user("p@acme.example")).await;
    let path = format!("/scim/v2/Users/{id}");
    let user = expect(
        &app,
        w.a.scim_patch(
            &path,
            &patch(json!([{"op": "Replace", "path": "externalId", "value": " padded "}])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(user["externalId"], " padded ");
    let mut body = full_user("p@acme.example");
    body["externalId"] = json!("put ");
    let user = expect(&app, w.a.scim_put(&path, &body), StatusCode::OK).await;
    assert_eq!(user["externalId"], "put ");
    // An empty string is absent, as every empty string in a body is.
    body["externalId"] = json!("");
    let user = expect(&app, w.a.scim_put(&path, &body), StatusCode::OK).await;
    assert!(user.get("externalId").is_none(), "{user}");
    // Groups' externalId alike, by POST and PATCH.
    let group = expect(
        &app,
        w.a.scim_post(
            "/scim/v2/Groups",
            &json!({"schemas": [GROUP], "displayName": "Sales", "externalId": " g-1 "}),
        ),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(group["externalId"], " g-1 ");
    assert_eq!(total("Groups", r#"externalId eq " g-1 ""#.into()).await, 1);
    let gpath = format!("/scim/v2/Groups/{}", group["id"].as_str().unwrap());
    let group = expect(
        &app,
        w.a.scim_patch(
            &gpath,
            &patch(json!([{"op": "Replace", "path": "externalId", "value": "g-2 "}])),
        ),
        StatusCode::OK,
    )
    .await;
    assert_eq!(group["externalId"], "g-2 ");
    // Names are not identifiers: their ends are trimmed, and a name of only
    // whitespace is absent (docs/scim.md).
    let mut body = full_user("names@acme.example");
    body["name"] = json!({"givenName": "  Grace ", "familyName": "   "});
    body["displayName"] = json!(" Grace Hopper\t");
    let (_, user) = create_user(&app, &w.a, &body).await;
    assert_eq!(user["name"], json!({"givenName": "Grace"}), "{user}");
    assert_eq!(user["displayName"], "Grace Hopper");
}

// ---------------------------------------------------------------------------
// Item 7: a count over the page cap, through the binary.

#[test]
fn sqlite_a_count_over_the_cap_is_warned_about_and_counted() {
    a_count_over_the_cap_is_warned_about_and_counted(&TestDatabase::sqlite());
}

#[test]
fn postgres_a_count_over_the_cap_is_warned_about_and_counted() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    a_count_over_the_cap_is_warned_about_and_counted(&db);
}

/// The value of the metric line `name` (no labels) in an exposition.
fn metric(exposition: &str, name: &str) -> Option<f64> {
    exposition.lines().find_map(|l| {
        l.strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(' '))
            .and_then(|v| v.trim().parse().ok())
    })
}

fn a_count_over_the_cap_is_warned_about_and_counted(db: &TestDatabase) {
    let (a, b) = (
        organization_with_key(db, "Acme"),
        organization_with_key(db, "Beta"),
    );
    let serve = Serve::start(
        db.url(),
        &["--no-dispatcher", "--metrics-bind", "127.0.0.1:0"],
    );
    let metrics = serve.metrics_addr.clone().unwrap();
    let scrape = || {
        let r = request(&metrics, "GET", "/metrics", &[], b"").unwrap();
        metric(&r.text(), "equip_scim_count_over_cap_total")
    };
    assert_eq!(scrape(), Some(0.0));
    let (a, b) = (serve.client(&a), serve.client(&b));
    // At the cap (50 by default) or below: nothing to say.
    for path in [
        "/scim/v2/Users?count=50",
        "/scim/v2/Users?count=10",
        "/scim/v2/Users",
    ] {
        assert_eq!(a.get(path).unwrap().status, 200);
    }
    assert_eq!(scrape(), Some(0.0));
    // Okta's import: count=100, served at 50, counted every time, warned once.
    for path in [
        "/scim/v2/Users?startIndex=1&count=100",
        "/scim/v2/Users?startIndex=101&count=100",
        "/scim/v2/Groups?count=75",
    ] {
        let page = a.get(path).unwrap();
        assert_eq!(page.status, 200, "{}", page.text());
    }
    let search = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                        "count": 1000});
    assert_eq!(
        a.scim_post("/scim/v2/.search", &search).unwrap().status,
        200
    );
    assert_eq!(
        a.scim_post("/scim/v2/Users/.search", &search)
            .unwrap()
            .status,
        200
    );
    // Another organization is warned on its own.
    assert_eq!(b.get("/scim/v2/Users?count=100").unwrap().status, 200);
    assert_eq!(scrape(), Some(6.0));
    let warned = |log: &str| -> usize {
        log.lines()
            .filter(|l| l.contains("WARN") && l.contains("--scim-max-results"))
            .count()
    };
    // The log reaches the harness on a reader thread: wait for the lines
    // (at most 5 s), then count them.
    let mut log = serve.log();
    for _ in 0..250 {
        if warned(&log) >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        log = serve.log();
    }
    assert_eq!(warned(&log), 2, "{log}");
    assert!(log.contains("count=100"), "{log}");
    assert!(!log.contains(&a.key) && !log.contains(&b.key), "{log}");
}

// ---------------------------------------------------------------------------
// Item 8: a raw `"` in a query string, through the binary.

#[test]
fn sqlite_a_raw_quote_in_a_query_is_refused_before_any_route() {
    a_raw_quote_in_a_query_is_refused_before_any_route(&TestDatabase::sqlite());
}

#[test]
fn postgres_a_raw_quote_in_a_query_is_refused_before_any_route() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    a_raw_quote_in_a_query_is_refused_before_any_route(&db);
}

fn a_raw_quote_in_a_query_is_refused_before_any_route(db: &TestDatabase) {
    let key = organization_with_key(db, "Acme");
    let serve = Serve::start(db.url(), &["--no-dispatcher"]);
    let api = serve.client(&key);
    let ada = json!({"schemas": [CORE_USER], "userName": "ada@acme.example"});
    assert_eq!(api.scim_post("/scim/v2/Users", &ada).unwrap().status, 201);
    let auth = format!("ApiKey {key}");
    // Percent-encoded, as clients send it: served.
    let encoded = api
        .get("/scim/v2/Users?filter=userName%20eq%20%22ada@acme.example%22")
        .unwrap();
    assert_eq!(encoded.status, 200, "{}", encoded.text());
    assert_eq!(encoded.json()["totalResults"], 1);
    // Raw: the HTTP parser under actix-web (the `http` crate's URI rules)
    // refuses the request line before any of equip's code runs, so the
    // answer is a bare 400 with no body in either area (docs/scim.md,
    // "Query strings"), and the connection is closed.
    for path in [
        "/scim/v2/Users?filter=userName%20eq%20\"ada@acme.example\"",
        "/api/v1/inventory?q=\"laptop\"",
    ] {
        let raw = request(&serve.addr, "GET", path, &[("Authorization", &auth)], b"").unwrap();
        assert_eq!(raw.status, 400, "{path}: {}", raw.text());
        assert!(raw.body.is_empty(), "{path}: {}", raw.text());
    }
    // The server goes on serving.
    assert_eq!(api.get("/scim/v2/Users").unwrap().status, 200);
}
