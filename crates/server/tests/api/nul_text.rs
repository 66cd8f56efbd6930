//! PostgreSQL cannot store a NUL character in text, and answered 500 when one
//! came in (found by Schemathesis on /api/v1, then by hand on /scim/v2). Every
//! entry point now refuses it with 400 naming the input, on both backends, and
//! stores nothing.
use crate::support::TestApp;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;

on_both_backends!(
    text_with_a_nul_is_refused_everywhere,
    nul_in_a_filter_is_invalid_filter,
);

async fn text_with_a_nul_is_refused_everywhere(app: TestApp) {
    let w = app.world();
    let a = &w.a;

    // /api/v1: a query parameter, a body field, a nested body field.
    for uri in [
        "/api/v1/inventory?searchString=a%00b",
        "/api/v1/inventory?categories=LAPTOP&categories=%00",
        "/api/inventory?assignedEmail=%00@x.example",
    ] {
        let (status, body) = app.call(a.get(uri)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {body}");
        assert!(
            body["errors"][0]["detail"]
                .as_str()
                .unwrap()
                .contains("NUL"),
            "{body}"
        );
    }
    for (field, value) in [
        ("description", json!("a\u{0}b")),
        ("serialNumber", json!("\u{0}")),
        ("tags", json!([{"label": "x\u{0}"}])),
        ("imei", json!(["35\u{0}"])),
    ] {
        let mut body = json!({"skuId": w.a_sku, "deployStatus": "AVAILABLE", "condition": "NEW"});
        body[field] = value;
        let (status, answer) = app.call(a.post_json("/api/v1/inventory", &body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{field}: {answer}");
        assert_eq!(answer["errors"][0]["source"], field, "{answer}");
    }
    let (_, listing) = app.call(a.get("/api/v1/inventory")).await;
    assert_eq!(
        listing["pagination"]["totalRecords"], 0,
        "nothing was stored"
    );

    // /scim/v2: a user, and a CSV row (which becomes a failed Bulk operation).
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": "nul@x.example",
        "name": {"givenName": "A\u{0}", "familyName": "B"},
    });
    let (status, body) = app.call(a.post_json("/scim/v2/Users", &user)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("name.givenName"),
        "{body}"
    );
    let csv = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,\
               state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number\n\
               ,Ada,Love\u{0}lace,ada@x.example,,,,,,,,,,,\n";
    let boundary = "nulboundary";
    let payload = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"u.csv\"\r\n\
         Content-Type: text/csv\r\n\r\n{csv}\r\n--{boundary}--\r\n"
    );
    let (status, body) = app
        .call(
            a.with(TestRequest::post().uri("/scim/v2/Users/csv"))
                .insert_header((
                    "Content-Type",
                    format!("multipart/form-data; boundary={boundary}"),
                ))
                .set_payload(payload),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["Operations"][0]["status"], "400", "{body}");
    let (_, users) = app.call(a.get("/scim/v2/Users")).await;
    assert_eq!(users["totalResults"], 0, "nothing was stored: {users}");
}

async fn nul_in_a_filter_is_invalid_filter(app: TestApp) {
    let w = app.world();
    let (status, user) = app
        .call(w.a.scim_post(
            "/scim/v2/Users",
            &crate::support::scim::okta_user("ada@acme.example"),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
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
