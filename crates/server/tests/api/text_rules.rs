//! The domain's rules for text (`equip_domain::text`) through every way a
//! client writes it, on SQLite and PostgreSQL: email addresses are plain
//! addr-specs, identifiers have one comparison (NFC and full case folding;
//! invisible and control characters refused), and every text field has a
//! length limit, on `/scim/v2` (POST, PUT, PATCH, Bulk) and `/api/v1/inventory`.
//! See docs/reliability.md, "Text: identifiers, email addresses, NUL" and
//! "Field length limits".
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
    email_addresses_are_plain_addr_specs_everywhere,
    unicode_identifiers_have_one_comparison,
    scim_text_fields_have_length_limits,
    inventory_text_fields_have_length_limits,
);

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
