//! Black-box tests of the RFC 7643 §4.1 core User attributes equip used to
//! accept and drop (issue 47, item 6): `nickName`, `title`, `userType`,
//! `preferredLanguage`, `locale`, `timezone`, `profileUrl`, `ims`, `photos`,
//! `entitlements`, `roles`, `x509Certificates` and `name.formatted`,
//! `middleName`, `honorificPrefix`, `honorificSuffix`: stored by POST, PUT,
//! PATCH and Bulk, shown by GET and lists (with `attributes` /
//! `excludedAttributes`), listed in `/Schemas`, filtered and sorted on the
//! texts, limited with a 400 naming the attribute, on SQLite and PostgreSQL;
//! and Microsoft Entra ID's default mapping of `title` and
//! `preferredLanguage` through the real binary.
use crate::support::process::{organization_with_key, request, Serve};
use crate::support::scim::{EXT, PATCH_OP};
use crate::support::{url_encode, Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

on_both_backends!(
    core_attributes_survive_post_and_show_in_get_and_lists,
    attributes_and_excluded_attributes_select_the_core_attributes,
    put_replaces_the_core_attributes_and_clears_the_omitted_ones,
    patch_adds_replaces_and_removes_the_core_attributes,
    entra_title_and_preferred_language_are_stored_as_entra_sends_them,
    the_profile_texts_are_filtered_and_sorted,
    bulk_creates_keep_the_core_attributes,
    schemas_list_the_core_attributes,
    limits_are_refused_naming_the_attribute,
);

const USER: &str = "urn:ietf:params:scim:schemas:core:2.0:User";

/// A user with every core attribute of the item, names in mixed case where
/// identity providers send them so.
fn full_user(user_name: &str) -> Value {
    json!({
        "schemas": [USER],
        "userName": user_name,
        "name": {
            "formatted": "Dr. Ada King Lovelace III",
            "givenName": "Ada",
            "familyName": "Lovelace",
            "middleName": "King",
            "HonorificPrefix": "Dr.",
            "honorificSuffix": "III"
        },
        "emails": [{"value": user_name, "type": "work", "primary": true}],
        "nickName": "Ada",
        "title": "Senior Engineer",
        "userType": "Employee",
        "preferredLanguage": "en-GB",
        "Locale": "en-GB",
        "timezone": "Europe/London",
        "profileUrl": "https://people.example/ada",
        "ims": [{"value": "ada@im.example", "type": "xmpp", "primary": true}],
        "photos": [
            {"value": "https://photos.example/ada.jpg", "type": "photo"},
            {"value": "https://photos.example/ada-small.jpg", "type": "thumbnail", "primary": "True"}
        ],
        "entitlements": [{"value": "laptop-admin", "display": "Laptop administrator"}],
        "roles": [
            {"value": "engineering", "display": "Engineering", "type": "department", "primary": true},
            {"value": "on-call"}
        ],
        "x509Certificates": [{"value": "MIIDQTCCAimgAwIBAgITBmyfz5m/jAo54vB4ikPmljZbyj"}]
    })
}

/// What [`full_user`] shows back, attribute by attribute.
fn assert_full_user_shown(u: &Value) {
    assert_eq!(
        u["name"],
        json!({
            "givenName": "Ada",
            "familyName": "Lovelace",
            "formatted": "Dr. Ada King Lovelace III",
            "middleName": "King",
            "honorificPrefix": "Dr.",
            "honorificSuffix": "III"
        }),
        "{u}"
    );
    assert_eq!(u["nickName"], "Ada", "{u}");
    assert_eq!(u["title"], "Senior Engineer");
    assert_eq!(u["userType"], "Employee");
    assert_eq!(u["preferredLanguage"], "en-GB");
    assert_eq!(u["locale"], "en-GB");
    assert_eq!(u["timezone"], "Europe/London");
    assert_eq!(u["profileUrl"], "https://people.example/ada");
    assert_eq!(
        u["ims"],
        json!([{"value": "ada@im.example", "type": "xmpp", "primary": true}])
    );
    assert_eq!(
        u["photos"],
        json!([
            {"value": "https://photos.example/ada.jpg", "type": "photo", "primary": false},
            {"value": "https://photos.example/ada-small.jpg", "type": "thumbnail", "primary": true}
        ])
    );
    assert_eq!(
        u["entitlements"],
        json!([{"value": "laptop-admin", "display": "Laptop administrator", "primary": false}])
    );
    assert_eq!(
        u["roles"],
        json!([
            {"value": "engineering", "display": "Engineering", "type": "department", "primary": true},
            {"value": "on-call", "primary": false}
        ])
    );
    assert_eq!(
        u["x509Certificates"],
        json!([{"value": "MIIDQTCCAimgAwIBAgITBmyfz5m/jAo54vB4ikPmljZbyj", "primary": false}])
    );
}

const PROFILE_KEYS: [&str; 12] = [
    "nickName",
    "title",
    "userType",
    "preferredLanguage",
    "locale",
    "timezone",
    "profileUrl",
    "ims",
    "photos",
    "entitlements",
    "roles",
    "x509Certificates",
];

async fn call_ok(app: &TestApp, req: TestRequest, expected: StatusCode) -> Value {
    let (status, body) = app.call(req).await;
    assert_eq!(status, expected, "{body}");
    body
}

async fn create(app: &TestApp, c: &Client, body: &Value) -> Value {
    call_ok(
        app,
        c.scim_post("/scim/v2/Users", body),
        StatusCode::CREATED,
    )
    .await
}

fn path_of(user: &Value) -> String {
    format!("/scim/v2/Users/{}", user["id"].as_str().unwrap())
}

fn patch(ops: Value) -> Value {
    json!({"schemas": [PATCH_OP], "Operations": ops})
}

/// `totalResults` of a users filter.
async fn total(app: &TestApp, c: &Client, filter: &str) -> u64 {
    let path = format!("/scim/v2/Users?filter={}", url_encode(filter));
    call_ok(app, c.get(&path), StatusCode::OK).await["totalResults"]
        .as_u64()
        .unwrap()
}

// ---------------------------------------------------------------------------

async fn core_attributes_survive_post_and_show_in_get_and_lists(app: TestApp) {
    let w = app.world();
    let created = create(&app, &w.a, &full_user("ada@example.com")).await;
    assert_full_user_shown(&created);
    let read = call_ok(&app, w.a.get(&path_of(&created)), StatusCode::OK).await;
    assert_full_user_shown(&read);
    let filter = url_encode(r#"userName eq "ada@example.com""#);
    let list = call_ok(
        &app,
        w.a.get(&format!("/scim/v2/Users?filter={filter}")),
        StatusCode::OK,
    )
    .await;
    assert_full_user_shown(&list["Resources"][0]);
    // A user without them shows none of them (absent, not null or empty).
    let plain = create(
        &app,
        &w.a,
        &json!({"schemas": [USER], "userName": "plain@example.com", "title": "", "roles": null}),
    )
    .await;
    for key in PROFILE_KEYS {
        assert!(plain.get(key).is_none(), "{key}: {plain}");
    }
    assert!(plain.get("name").is_none(), "{plain}");
}

async fn attributes_and_excluded_attributes_select_the_core_attributes(app: TestApp) {
    let w = app.world();
    let created = create(&app, &w.a, &full_user("ada@example.com")).await;
    let path = path_of(&created);
    let only = call_ok(
        &app,
        w.a.get(&format!(
            "{path}?attributes=title,name.middleName,roles.value"
        )),
        StatusCode::OK,
    )
    .await;
    assert_eq!(only["title"], "Senior Engineer", "{only}");
    assert_eq!(only["name"], json!({"middleName": "King"}), "{only}");
    assert_eq!(
        only["roles"],
        json!([{"value": "engineering"}, {"value": "on-call"}])
    );
    for key in [
        "nickName",
        "photos",
        "x509Certificates",
        "preferredLanguage",
    ] {
        assert!(only.get(key).is_none(), "{key}: {only}");
    }
    let without = call_ok(
        &app,
        w.a.get(&format!(
            "{path}?excludedAttributes=x509Certificates,photos,name.formatted"
        )),
        StatusCode::OK,
    )
    .await;
    assert!(without.get("x509Certificates").is_none(), "{without}");
    assert!(without.get("photos").is_none(), "{without}");
    assert!(without["name"].get("formatted").is_none(), "{without}");
    assert_eq!(without["name"]["middleName"], "King");
    assert_eq!(without["title"], "Senior Engineer");
    assert_eq!(without["roles"], created["roles"]);
}

async fn put_replaces_the_core_attributes_and_clears_the_omitted_ones(app: TestApp) {
    let w = app.world();
    let created = create(&app, &w.a, &full_user("ada@example.com")).await;
    let path = path_of(&created);
    let replacement = json!({
        "schemas": [USER],
        "userName": "ada@example.com",
        "name": {"givenName": "Ada", "honorificPrefix": "Prof."},
        "title": "Principal Engineer",
        "roles": [{"value": "architecture"}]
    });
    let (status, put) = app.call(w.a.scim_put(&path, &replacement)).await;
    assert_eq!(status, StatusCode::OK, "{put}");
    let read = call_ok(&app, w.a.get(&path), StatusCode::OK).await;
    for u in [&put, &read] {
        assert_eq!(u["title"], "Principal Engineer", "{u}");
        assert_eq!(
            u["name"],
            json!({"givenName": "Ada", "honorificPrefix": "Prof."})
        );
        assert_eq!(
            u["roles"],
            json!([{"value": "architecture", "primary": false}])
        );
        for key in PROFILE_KEYS
            .iter()
            .filter(|k| !["title", "roles"].contains(k))
        {
            assert!(u.get(*key).is_none(), "a PUT clears {key}: {u}");
        }
    }
    assert_ne!(read["meta"]["version"], created["meta"]["version"]);
}

async fn patch_adds_replaces_and_removes_the_core_attributes(app: TestApp) {
    let w = app.world();
    let created = create(&app, &w.a, &full_user("ada@example.com")).await;
    let path = path_of(&created);
    let ops = patch(json!([
        {"op": "replace", "path": "nickName", "value": "Countess"},
        {"op": "remove", "path": "timezone"},
        {"op": "replace", "path": "name.middleName", "value": "Augusta"},
        {"op": "remove", "path": "name.honorificSuffix"},
        {"op": "add", "path": "entitlements", "value": [{"value": "printer"}]},
        {"op": "replace", "path": "roles[value eq \"engineering\"].display", "value": "Engineering & Research"},
        {"op": "remove", "path": "roles[value eq \"on-call\"]"},
        {"op": "add", "path": "ims[type eq \"skype\"].value", "value": "ada.skype"},
        {"op": "remove", "path": "x509Certificates"},
        {"op": "replace", "value": {"userType": "Contractor", "name.honorificPrefix": "Lady", "urn:ietf:params:scim:schemas:core:2.0:User:locale": "fr-FR"}}
    ]));
    let (status, patched) = app.call(w.a.scim_patch(&path, &ops)).await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let read = call_ok(&app, w.a.get(&path), StatusCode::OK).await;
    for u in [&patched, &read] {
        assert_eq!(u["nickName"], "Countess", "{u}");
        assert!(u.get("timezone").is_none(), "{u}");
        assert_eq!(u["name"]["middleName"], "Augusta");
        assert_eq!(u["name"]["honorificPrefix"], "Lady");
        assert!(u["name"].get("honorificSuffix").is_none(), "{u}");
        assert_eq!(u["name"]["formatted"], "Dr. Ada King Lovelace III");
        assert_eq!(u["userType"], "Contractor");
        assert_eq!(u["locale"], "fr-FR");
        assert_eq!(u["title"], "Senior Engineer", "untouched: {u}");
        assert_eq!(
            u["entitlements"],
            json!([
                {"value": "laptop-admin", "display": "Laptop administrator", "primary": false},
                {"value": "printer", "primary": false}
            ])
        );
        assert_eq!(
            u["roles"],
            json!([{"value": "engineering", "display": "Engineering & Research", "type": "department", "primary": true}])
        );
        assert_eq!(
            u["ims"],
            json!([
                {"value": "ada@im.example", "type": "xmpp", "primary": true},
                {"value": "ada.skype", "type": "skype", "primary": false}
            ])
        );
        assert!(u.get("x509Certificates").is_none(), "{u}");
    }
    assert_ne!(read["meta"]["version"], created["meta"]["version"]);
    // A PATCH that sets what is already stored changes nothing, not even
    // the version.
    let same = patch(json!([{"op": "replace", "path": "title", "value": "Senior Engineer"}]));
    let (status, again) = app.call(w.a.scim_patch(&path, &same)).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["meta"]["version"], read["meta"]["version"]);
}

async fn entra_title_and_preferred_language_are_stored_as_entra_sends_them(app: TestApp) {
    let w = app.world();
    // Entra's POST with its default mapping's title and preferredLanguage.
    let created = create(
        &app,
        &w.a,
        &json!({
            "schemas": [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
            "externalId": "8c2e4b0a-entra",
            "userName": "grace@contoso.example",
            "active": true,
            "displayName": "Grace Hopper",
            "title": "Rear Admiral",
            "preferredLanguage": "en-US",
            "emails": [{"primary": true, "type": "work", "value": "grace@contoso.example"}],
            "name": {"formatted": "Grace Hopper", "familyName": "Hopper", "givenName": "Grace"}
        }),
    )
    .await;
    assert_eq!(created["title"], "Rear Admiral", "{created}");
    assert_eq!(created["preferredLanguage"], "en-US");
    assert_eq!(created["name"]["formatted"], "Grace Hopper");
    let path = path_of(&created);
    // Entra's PATCH of the same mapping: capitalised ops, plain paths.
    let ops = patch(json!([
        {"op": "Add", "path": "title", "value": "Engineer"},
        {"op": "Replace", "path": "preferredLanguage", "value": "de-DE"}
    ]));
    let raw = app.call_raw(w.a.scim_patch(&path, &ops)).await;
    assert_eq!(raw.status, StatusCode::OK);
    let etag = raw.header("ETag").unwrap().to_owned();
    assert_ne!(
        Some(etag.as_str()),
        created["meta"]["version"].as_str(),
        "the entity tag follows the change"
    );
    let read = call_ok(&app, w.a.get(&path), StatusCode::OK).await;
    assert_eq!(read["title"], "Engineer", "{read}");
    assert_eq!(read["preferredLanguage"], "de-DE");
    assert_eq!(read["meta"]["version"], etag.as_str());
    // The attributes Entra matches on afterwards find the user.
    assert_eq!(total(&app, &w.a, r#"title eq "engineer""#).await, 1);
    assert_eq!(
        total(&app, &w.a, r#"preferredLanguage eq "de-DE""#).await,
        1
    );
    assert_eq!(
        total(&app, &w.b, r#"title eq "engineer""#).await,
        0,
        "another organization's filter finds nothing"
    );
}

async fn the_profile_texts_are_filtered_and_sorted(app: TestApp) {
    let w = app.world();
    create(&app, &w.a, &full_user("ada@example.com")).await;
    let mut other = full_user("grace@example.com");
    other["title"] = json!("Rear Admiral");
    other["nickName"] = json!("Amazing Grace");
    other["name"]["middleName"] = json!("Brewster");
    other["userType"] = json!("Contractor");
    other["timezone"] = json!("America/New_York");
    create(&app, &w.a, &other).await;
    create(
        &app,
        &w.a,
        &json!({"schemas": [USER], "userName": "plain@example.com"}),
    )
    .await;
    for (filter, expected) in [
        (r#"title eq "SENIOR ENGINEER""#, 1),
        (r#"title ne "Senior Engineer""#, 2),
        (r#"title co "admir""#, 1),
        (r#"title sw "senior""#, 1),
        (r#"title ew "ENGINEER""#, 1),
        ("title pr", 2),
        ("not (title pr)", 1),
        (r#"nickName co "grace""#, 1),
        (r#"userType eq "employee""#, 1),
        (r#"preferredLanguage eq "en-gb""#, 2),
        (r#"locale sw "en""#, 2),
        (r#"timezone ew "york""#, 1),
        (r#"profileUrl eq "https://people.example/ada""#, 2),
        (r#"name.formatted co "lovelace""#, 2),
        (r#"name.middleName eq "brewster""#, 1),
        (r#"name.honorificPrefix eq "dr.""#, 2),
        (r#"name.honorificSuffix pr"#, 2),
        (
            r#"urn:ietf:params:scim:schemas:core:2.0:User:title eq "rear admiral""#,
            1,
        ),
        (r#"title eq null"#, 1),
        (r#"title eq "Rear Admiral" and userType eq "Contractor""#, 1),
    ] {
        assert_eq!(total(&app, &w.a, filter).await, expected, "{filter}");
    }
    // Sorted by title: absent last when ascending.
    let sorted = call_ok(
        &app,
        w.a.get("/scim/v2/Users?sortBy=title&attributes=userName"),
        StatusCode::OK,
    )
    .await;
    let names: Vec<&str> = sorted["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["userName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["grace@example.com", "ada@example.com", "plain@example.com"]
    );
    // The multi-valued lists are shown, not filtered: said so.
    let (status, body) = app
        .call(w.a.get(&format!(
            "/scim/v2/Users?filter={}",
            url_encode(r#"roles.value eq "engineering""#)
        )))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidFilter");
}

async fn bulk_creates_keep_the_core_attributes(app: TestApp) {
    let w = app.world();
    let bulk = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": [
            {"method": "POST", "bulkId": "a", "path": "/Users", "data": full_user("ada@example.com")},
            {"method": "POST", "bulkId": "b", "path": "/Users", "data": full_user("grace@example.com")}
        ]
    });
    let answer = call_ok(&app, w.a.scim_post("/scim/v2/Bulk", &bulk), StatusCode::OK).await;
    let ops = answer["Operations"].as_array().unwrap();
    assert_eq!(ops.len(), 2, "{answer}");
    for op in ops {
        assert_eq!(op["status"], "201", "{answer}");
        let location = op["location"].as_str().unwrap();
        let path = &location[location.find("/scim/v2/").unwrap()..];
        let read = call_ok(&app, w.a.get(path), StatusCode::OK).await;
        assert_full_user_shown(&read);
    }
}

async fn schemas_list_the_core_attributes(app: TestApp) {
    let w = app.world();
    let schema = call_ok(
        &app,
        w.a.get(&format!("/scim/v2/Schemas/{USER}")),
        StatusCode::OK,
    )
    .await;
    let attrs = schema["attributes"].as_array().unwrap();
    let attr = |name: &str| {
        attrs
            .iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("{name} is listed: {schema}"))
    };
    for name in [
        "nickName",
        "title",
        "userType",
        "preferredLanguage",
        "locale",
        "timezone",
    ] {
        let a = attr(name);
        assert_eq!(a["type"], "string", "{a}");
        assert_eq!(a["multiValued"], false);
        assert_eq!(a["mutability"], "readWrite");
        assert_eq!(a["caseExact"], false);
    }
    assert_eq!(attr("profileUrl")["type"], "reference");
    assert_eq!(attr("profileUrl")["referenceTypes"], json!(["external"]));
    for name in ["ims", "photos", "entitlements", "roles", "x509Certificates"] {
        let a = attr(name);
        assert_eq!(a["type"], "complex", "{a}");
        assert_eq!(a["multiValued"], true);
        let subs: Vec<&str> = a["subAttributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(subs, ["value", "display", "type", "primary"], "{a}");
    }
    let cert_value = &attr("x509Certificates")["subAttributes"][0];
    assert_eq!(cert_value["type"], "binary");
    let name_subs: Vec<&str> = attr("name")["subAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    for sub in [
        "formatted",
        "givenName",
        "familyName",
        "middleName",
        "honorificPrefix",
        "honorificSuffix",
    ] {
        assert!(name_subs.contains(&sub), "{sub}: {name_subs:?}");
    }
}

async fn limits_are_refused_naming_the_attribute(app: TestApp) {
    let w = app.world();
    let refused = |field: &'static str, value: Value| {
        let mut body = full_user("ada@example.com");
        body[field] = value;
        body
    };
    let many: Vec<Value> = (0..51).map(|i| json!({"value": format!("r{i}")})).collect();
    for (body, attribute) in [
        (refused("title", json!("t".repeat(257))), "title"),
        (refused("roles", json!(many)), "roles"),
        (
            refused("x509Certificates", json!([{"value": "M".repeat(16_385)}])),
            "x509Certificates.value",
        ),
        (
            refused(
                "ims",
                json!([{"value": "a", "primary": true}, {"value": "b", "primary": true}]),
            ),
            "ims",
        ),
    ] {
        let (status, err) = app.call(w.a.scim_post("/scim/v2/Users", &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{attribute}: {err}");
        assert_eq!(err["scimType"], "invalidValue", "{err}");
        assert!(
            err["detail"].as_str().unwrap().contains(attribute),
            "{attribute}: {err}"
        );
    }
    // Nothing was stored by the refused creates; at the limits it is.
    assert_eq!(total(&app, &w.a, "userName pr").await, 0);
    let mut at_limits = full_user("ada@example.com");
    at_limits["title"] = json!("t".repeat(256));
    at_limits["roles"] = json!((0..50)
        .map(|i| json!({"value": format!("r{i}")}))
        .collect::<Vec<_>>());
    let created = create(&app, &w.a, &at_limits).await;
    assert_eq!(created["roles"].as_array().unwrap().len(), 50);
    // A PATCH over the limit is refused the same way and changes nothing.
    let path = path_of(&created);
    let ops = patch(json!([{"op": "add", "path": "roles", "value": [{"value": "one-too-many"}]}]));
    let (status, err) = app.call(w.a.scim_patch(&path, &ops)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(err["scimType"], "invalidValue");
    let read = call_ok(&app, w.a.get(&path), StatusCode::OK).await;
    assert_eq!(read["roles"].as_array().unwrap().len(), 50);
}

// ---------------------------------------------------------------------------
// Through the real binary: Entra's POST and PATCH of title and
// preferredLanguage, then a filter on them.

#[test]
fn entra_title_and_preferred_language_survive_the_binary_on_sqlite() {
    entra_mapping_through_the_binary(&TestDatabase::sqlite());
}

#[test]
fn entra_title_and_preferred_language_survive_the_binary_on_postgres() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    entra_mapping_through_the_binary(&db);
}

fn entra_mapping_through_the_binary(db: &TestDatabase) {
    let key = organization_with_key(db, "Contoso");
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    let api = server.client(&key);
    let created = api
        .scim_post(
            "/scim/v2/Users",
            &json!({
                "schemas": [USER],
                "externalId": "8c2e4b0a-entra",
                "userName": "grace@contoso.example",
                "title": "Rear Admiral",
                "preferredLanguage": "en-US",
                "emails": [{"primary": true, "type": "work", "value": "grace@contoso.example"}]
            }),
        )
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.text());
    let user = created.json();
    assert_eq!(user["title"], "Rear Admiral", "{user}");
    assert_eq!(user["preferredLanguage"], "en-US");
    let path = format!("/scim/v2/Users/{}", user["id"].as_str().unwrap());
    let auth = format!("ApiKey {key}");
    let ops = patch(json!([
        {"op": "Add", "path": "title", "value": "Engineer"},
        {"op": "Replace", "path": "preferredLanguage", "value": "de-DE"}
    ]));
    let patched = request(
        &server.addr,
        "PATCH",
        &path,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/scim+json"),
        ],
        ops.to_string().as_bytes(),
    )
    .unwrap();
    assert_eq!(patched.status, 200, "{}", patched.text());
    assert_ne!(patched.header("ETag"), created.header("ETag"));
    let read = api.get(&path).unwrap().json();
    assert_eq!(read["title"], "Engineer", "{read}");
    assert_eq!(read["preferredLanguage"], "de-DE");
    let found = api
        .get(&format!(
            "/scim/v2/Users?filter={}",
            url_encode(r#"title eq "ENGINEER" and preferredLanguage sw "de""#)
        ))
        .unwrap()
        .json();
    assert_eq!(found["totalResults"], 1, "{found}");
    // The extension object is untouched by these attributes.
    assert!(read[EXT].is_object(), "{read}");
}
