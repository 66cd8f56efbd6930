//! Black-box tests of review findings 2, 4, 9, 10 and 13 (issue 13) through
//! the real application on SQLite and PostgreSQL: Entra ID's default
//! attribute mapping, NUL in filters, email addresses, Unicode identifiers and
//! field length limits. See docs/reliability.md, "Review findings 2, 4, 9, 10,
//! 13".
use crate::support::inventory::{organization, seed};
use crate::support::scim::{okta_user, PATCH_OP};
use crate::support::{Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use equip_domain::text::{LONG_TEXT_MAX, PHONE_MAX, SHORT_TEXT_MAX};
use serde_json::{json, Value};

/// A change to a user's JSON, named by the attribute it breaks.
type UserChange = (&'static str, Box<dyn Fn(&mut Value)>);

on_both_backends!(
    entra_default_mapping_is_accepted_as_patch_with_deactivation,
    entra_default_mapping_is_accepted_as_post,
    nul_in_a_filter_is_invalid_filter,
    email_addresses_are_plain_addr_specs_everywhere,
    unicode_identifiers_have_one_comparison,
    scim_text_fields_have_length_limits,
    inventory_text_fields_have_length_limits,
);

const ENTERPRISE: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const BULK: &str = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

async fn create(app: &TestApp, c: &Client, body: &Value) -> Value {
    let (status, user) = app.call(c.scim_post("/scim/v2/Users", body)).await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
    user
}

fn user_path(user: &Value) -> String {
    format!("/scim/v2/Users/{}", user["id"].as_str().unwrap())
}

/// A 400 `invalidValue` whose detail names `attribute`.
fn assert_invalid_value(status: StatusCode, body: &Value, attribute: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidValue", "{body}");
    let detail = body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(attribute),
        "detail should name {attribute}: {body}"
    );
}

/// Microsoft Entra ID's complete default User attribute mapping, as the
/// PATCH operations it sends (capitalised op names).
fn entra_default_mapping_ops(user_name: &str) -> Value {
    let op = |op: &str, path: &str, value: Value| json!({"op": op, "path": path, "value": value});
    json!([
        op("Replace", "userName", json!(user_name)),
        op("Replace", "active", json!("False")),
        op("Replace", "displayName", json!("Grace Brewster Hopper")),
        op("Add", "title", json!("Rear Admiral")),
        op(
            "Replace",
            "emails[type eq \"work\"].value",
            json!(user_name)
        ),
        op("Replace", "name.givenName", json!("Grace")),
        op("Replace", "name.familyName", json!("Hopper")),
        op("Add", "name.formatted", json!("Grace Hopper")),
        op(
            "Add",
            "addresses[type eq \"work\"].formatted",
            json!("1 Navy Way, Arlington")
        ),
        op(
            "Add",
            "addresses[type eq \"work\"].streetAddress",
            json!("1 Navy Way")
        ),
        op(
            "Add",
            "addresses[type eq \"work\"].locality",
            json!("Arlington")
        ),
        op("Add", "addresses[type eq \"work\"].region", json!("VA")),
        op(
            "Add",
            "addresses[type eq \"work\"].postalCode",
            json!("22202")
        ),
        op("Add", "addresses[type eq \"work\"].country", json!("US")),
        op(
            "Add",
            "addresses[type eq \"other\"].Formatted",
            json!("Building 5")
        ),
        op(
            "Add",
            "phoneNumbers[type eq \"work\"].value",
            json!("+1 555 0100")
        ),
        op(
            "Add",
            "phoneNumbers[type eq \"mobile\"].value",
            json!("+1 555 0101")
        ),
        op(
            "Add",
            "phoneNumbers[type eq \"fax\"].value",
            json!("+1 555 0102")
        ),
        op(
            "Replace",
            "externalId",
            json!("e1f2a3b4-0000-4000-8000-000000000001")
        ),
        op(
            "Add",
            &format!("{ENTERPRISE}:employeeNumber"),
            json!("1906")
        ),
        op("Add", &format!("{ENTERPRISE}:department"), json!("Navy")),
        op("Add", &format!("{ENTERPRISE}:costCenter"), json!("CC-7")),
        op(
            "Add",
            &format!("{ENTERPRISE}:organization"),
            json!("US Navy")
        ),
        op(
            "Add",
            &format!("{ENTERPRISE}:division"),
            json!("Programming")
        ),
        op(
            "Add",
            &format!("{ENTERPRISE}:manager"),
            json!("a7c1e0f2-0000-4000-8000-000000000002")
        ),
        // The other display sub-attributes Entra can map.
        op("Add", "emails[type eq \"work\"].display", json!("Grace")),
        op(
            "Add",
            "phoneNumbers[type eq \"work\"].display",
            json!("Office")
        ),
    ])
}

/// What equip stores of the mapping (the rest is accepted and ignored).
fn assert_entra_mapping_stored(u: &Value, user_name: &str) {
    assert_eq!(u["userName"], user_name, "{u}");
    assert_eq!(u["displayName"], "Grace Brewster Hopper");
    assert_eq!(
        u["name"],
        json!({"givenName": "Grace", "familyName": "Hopper"})
    );
    assert_eq!(u["externalId"], "e1f2a3b4-0000-4000-8000-000000000001");
    let emails = u["emails"].as_array().unwrap();
    assert_eq!(emails.len(), 1, "{u}");
    assert_eq!(emails[0]["value"], user_name);
    assert_eq!(emails[0]["type"], "work");
    assert!(emails[0].get("display").is_none());
    let work = u["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "work")
        .unwrap();
    assert_eq!(work["streetAddress"], "1 Navy Way");
    assert_eq!(work["locality"], "Arlington");
    assert_eq!(work["region"], "VA");
    assert_eq!(work["postalCode"], "22202");
    assert_eq!(work["country"], "US");
    assert!(work.get("formatted").is_none());
    let phones: Vec<(&str, &str)> = u["phoneNumbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["type"].as_str().unwrap(), p["value"].as_str().unwrap()))
        .collect();
    for expected in [
        ("work", "+1 555 0100"),
        ("mobile", "+1 555 0101"),
        ("fax", "+1 555 0102"),
    ] {
        assert!(phones.contains(&expected), "{phones:?}");
    }
    for ignored in ["title", ENTERPRISE] {
        assert!(u.get(ignored).is_none(), "{ignored} is not stored: {u}");
    }
}

async fn entra_default_mapping_is_accepted_as_patch_with_deactivation(app: TestApp) {
    let w = app.world();
    let user = create(&app, &w.a, &okta_user("grace@contoso.example")).await;
    assert_eq!(user["active"], true);
    let body = json!({"schemas": [PATCH_OP], "Operations": entra_default_mapping_ops("grace@contoso.example")});
    let (status, patched) = app.call(w.a.scim_patch(&user_path(&user), &body)).await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let (status, read) = app.call(w.a.get(&user_path(&user))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        read["active"], false,
        "the deactivation took effect: {read}"
    );
    assert_entra_mapping_stored(&read, "grace@contoso.example");
    // Alone, the office mapping is accepted too and changes nothing.
    let (status, again) = app
        .call(w.a.scim_patch(
            &user_path(&user),
            &json!({"schemas": [PATCH_OP], "Operations": [
                {"op": "Add", "path": "addresses[type eq \"other\"].Formatted", "value": "Building 5"},
                {"op": "Replace", "path": "active", "value": true}
            ]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["active"], true);
    assert_eq!(again["addresses"], read["addresses"]);
}

async fn entra_default_mapping_is_accepted_as_post(app: TestApp) {
    let w = app.world();
    let body = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", ENTERPRISE],
        "externalId": "e1f2a3b4-0000-4000-8000-000000000001",
        "userName": "grace@contoso.example",
        "active": "False",
        "displayName": "Grace Brewster Hopper",
        "title": "Rear Admiral",
        "emails": [{"primary": true, "type": "work", "value": "grace@contoso.example", "display": "Grace"}],
        "name": {"formatted": "Grace Hopper", "familyName": "Hopper", "givenName": "Grace"},
        "addresses": [
            {"type": "work", "formatted": "1 Navy Way, Arlington", "streetAddress": "1 Navy Way",
             "locality": "Arlington", "region": "VA", "postalCode": "22202", "country": "US"},
            {"type": "other", "Formatted": "Building 5"}
        ],
        "phoneNumbers": [
            {"type": "work", "value": "+1 555 0100", "display": "Office"},
            {"type": "mobile", "value": "+1 555 0101"},
            {"type": "fax", "value": "+1 555 0102"}
        ],
        ENTERPRISE: {
            "employeeNumber": "1906", "department": "Navy", "costCenter": "CC-7",
            "organization": "US Navy", "division": "Programming",
            "manager": {"value": "a7c1e0f2-0000-4000-8000-000000000002"}
        }
    });
    let user = create(&app, &w.a, &body).await;
    assert_eq!(user["active"], false);
    let (_, read) = app.call(w.a.get(&user_path(&user))).await;
    assert_entra_mapping_stored(&read, "grace@contoso.example");
}

async fn nul_in_a_filter_is_invalid_filter(app: TestApp) {
    let w = app.world();
    create(&app, &w.a, &okta_user("ada@acme.example")).await;
    for filter in [
        "userName co \"\\u0000\"",
        "userName eq \"a\u{0}b\"",
        "emails[value sw \"\\u0000\"]",
        "name.givenName eq \"\\u0000\" or active eq true",
        "externalId eq \"\\u0000\"",
    ] {
        let path = format!(
            "/scim/v2/Users?filter={}",
            crate::support::url_encode(filter)
        );
        let (status, body) = app.call(w.a.get(&path)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{filter}: {body}");
        assert_eq!(body["scimType"], "invalidFilter", "{filter}: {body}");
        let (status, body) = app
            .call(w.a.scim_post(
                "/scim/v2/Users/.search",
                &json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                        "filter": filter}),
            ))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{filter}: {body}");
        assert_eq!(body["scimType"], "invalidFilter", "{filter}: {body}");
    }
}

const BAD_ADDRESSES: [&str; 5] = [
    "Attacker<attacker@evil.example>",
    "Attacker <attacker@evil.example>",
    "a,b@a.example",
    "\"a\u{7}b\"@a.example",
    "x@[127.0.0.1]",
];

async fn email_addresses_are_plain_addr_specs_everywhere(app: TestApp) {
    let w = app.world();
    let ada = create(&app, &w.a, &okta_user("ada@acme.example")).await;
    for bad in BAD_ADDRESSES {
        // POST: as userName (and primary email), and as another email.
        let (status, body) = app
            .call(w.a.scim_post("/scim/v2/Users", &okta_user(bad)))
            .await;
        assert_invalid_value(status, &body, "userName");
        let mut u = okta_user("bob@acme.example");
        u["emails"] = json!([
            {"value": "bob@acme.example", "primary": true},
            {"value": bad, "type": "home"}
        ]);
        let (status, body) = app.call(w.a.scim_post("/scim/v2/Users", &u)).await;
        assert_invalid_value(status, &body, "emails.value");
        // PUT.
        let mut u = okta_user("ada@acme.example");
        u["emails"] = json!([
            {"value": "ada@acme.example", "primary": true},
            {"value": bad, "type": "home"}
        ]);
        let (status, body) = app.call(w.a.scim_put(&user_path(&ada), &u)).await;
        assert_invalid_value(status, &body, "emails.value");
        // PATCH.
        let (status, body) = app
            .call(w.a.scim_patch(
                &user_path(&ada),
                &json!({"schemas": [PATCH_OP], "Operations": [
                    {"op": "Add", "path": "emails[type eq \"home\"].value", "value": bad}
                ]}),
            ))
            .await;
        assert_invalid_value(status, &body, "emails.value");
        // Bulk.
        let (status, body) = app
            .call(w.a.scim_post(
                "/scim/v2/Bulk",
                &json!({"schemas": [BULK], "Operations": [
                    {"method": "POST", "bulkId": "1", "path": "/Users", "data": okta_user(bad)}
                ]}),
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let result = &body["Operations"][0];
        assert_eq!(result["status"], "400", "{body}");
        assert_eq!(result["response"]["scimType"], "invalidValue", "{body}");
    }
    // Nothing of the above was stored.
    let (_, list) = app.call(w.a.get("/scim/v2/Users")).await;
    assert_eq!(list["totalResults"], 1, "{list}");
    assert_eq!(list["Resources"][0]["emails"].as_array().unwrap().len(), 1);
}

async fn unicode_identifiers_have_one_comparison(app: TestApp) {
    let w = app.world();
    let nfc = "caf\u{e9}@x.example";
    let nfd = "cafe\u{301}@x.example";
    create(&app, &w.a, &okta_user(nfc)).await;
    let (status, body) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user(nfd)))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["scimType"], "uniqueness", "{body}");
    // Full case folding: userName and its primary email differ in case only.
    let mut u = okta_user("\u{c4}d\u{e4}@x.example");
    u["emails"] = json!([{"value": "\u{e4}D\u{c4}@x.example", "primary": true}]);
    create(&app, &w.a, &u).await;
    let (status, body) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("\u{e4}d\u{e4}@X.EXAMPLE")))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    // Filters compare the same way, in the database.
    for (filter, expected) in [
        ("userName eq \"CAFE\u{301}@X.example\"".to_owned(), 1),
        (format!("emails.value eq \"{nfd}\""), 1),
        ("userName sw \"\u{e4}d\"".to_owned(), 1),
        ("userName eq \"cafe@x.example\"".to_owned(), 0),
    ] {
        let (status, body) = app
            .call(w.a.get(&format!(
                "/scim/v2/Users?filter={}",
                crate::support::url_encode(&filter)
            )))
            .await;
        assert_eq!(status, StatusCode::OK, "{filter}: {body}");
        assert_eq!(body["totalResults"], expected, "{filter}: {body}");
    }
    // Invisible and control characters in identifiers.
    for (mut u, attribute) in [
        (okta_user("ada\u{200b}@x.example"), "userName"),
        (okta_user("ada@x.example"), "externalId"),
    ] {
        if attribute == "externalId" {
            u["externalId"] = json!("00u\u{200d}1");
        }
        let (status, body) = app.call(w.a.scim_post("/scim/v2/Users", &u)).await;
        assert_invalid_value(status, &body, attribute);
    }
}

async fn scim_text_fields_have_length_limits(app: TestApp) {
    let w = app.world();
    let long = |n: usize| "x".repeat(n + 1);
    let cases: Vec<UserChange> = vec![
        (
            "displayName",
            Box::new(move |u| u["displayName"] = json!(long(SHORT_TEXT_MAX))),
        ),
        (
            "name.givenName",
            Box::new(move |u| u["name"]["givenName"] = json!(long(SHORT_TEXT_MAX))),
        ),
        (
            "externalId",
            Box::new(move |u| u["externalId"] = json!(long(SHORT_TEXT_MAX))),
        ),
        (
            "phoneNumbers.value",
            Box::new(move |u| u["phoneNumbers"] = json!([{"value": "1".repeat(100_000)}])),
        ),
        (
            "addresses.streetAddress",
            Box::new(move |u| u["addresses"] = json!([{"streetAddress": long(LONG_TEXT_MAX)}])),
        ),
    ];
    for (attribute, change) in &cases {
        let mut u = okta_user("ada@acme.example");
        change(&mut u);
        let (status, body) = app.call(w.a.scim_post("/scim/v2/Users", &u)).await;
        assert_invalid_value(status, &body, attribute);
    }
    // At the limits: accepted; one more through PATCH: refused.
    let mut u = okta_user("ada@acme.example");
    u["displayName"] = json!("d".repeat(SHORT_TEXT_MAX));
    u["phoneNumbers"] = json!([{"value": "1".repeat(PHONE_MAX)}]);
    let ada = create(&app, &w.a, &u).await;
    let (status, body) = app
        .call(w.a.scim_patch(
            &user_path(&ada),
            &json!({"schemas": [PATCH_OP], "Operations": [
                {"op": "replace", "path": "displayName", "value": long(SHORT_TEXT_MAX)}
            ]}),
        ))
        .await;
    assert_invalid_value(status, &body, "displayName");
}

async fn inventory_text_fields_have_length_limits(app: TestApp) {
    let w = app.world();
    let s = seed(&app.store, &organization(w.a_org), 1);
    let ok = json!({"skuId": s.skus[0].id, "deployStatus": "AVAILABLE", "condition": "NEW"});
    let with = |k: &str, v: Value| {
        let mut b = ok.clone();
        b[k] = v;
        b
    };
    let long = |n: usize| "x".repeat(n + 1);
    let assert_source = |status: StatusCode, body: &Value, source: &str| {
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["errors"][0]["source"], source, "{body}");
        assert!(body["errors"][0]["detail"]
            .as_str()
            .is_some_and(|d| !d.is_empty()));
    };
    for (body, source) in [
        (
            with("description", json!(long(LONG_TEXT_MAX))),
            "description",
        ),
        (
            with("serialNumber", json!(long(SHORT_TEXT_MAX))),
            "serialNumber",
        ),
        (
            with("procurementMethod", json!(long(SHORT_TEXT_MAX))),
            "procurementMethod",
        ),
        (with("imei", json!([long(SHORT_TEXT_MAX)])), "imei"),
        (with("tags", json!([long(SHORT_TEXT_MAX)])), "tags"),
    ] {
        let (status, resp) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
        assert_source(status, &resp, source);
    }
    let (status, item) = app
        .call(w.a.post_json(
            "/api/v1/inventory",
            &with("description", json!("d".repeat(LONG_TEXT_MAX))),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    let id = item["id"].as_str().unwrap();
    for (body, source) in [
        (json!({"description": long(LONG_TEXT_MAX)}), "description"),
        (json!({"tags": [{"label": long(SHORT_TEXT_MAX)}]}), "tags"),
    ] {
        let (status, resp) = app
            .call(
                w.a.with(TestRequest::patch().uri(&format!("/api/v1/inventory/{id}")))
                    .set_json(&body),
            )
            .await;
        assert_source(status, &resp, source);
    }
}
