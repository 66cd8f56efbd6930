//! Black-box tests of `POST /scim/v2/Bulk` through the real application on
//! SQLite and PostgreSQL: RFC 7644 §3.7 as docs/scim.md, "Bulk", settles it.
use crate::support::scim::{okta_user, package, EXT, PATCH_OP, SCIM};
use crate::support::{Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::{json, Value};

on_both_backends!(
    operations_run_in_order_with_bulk_id_references,
    each_operation_follows_the_single_user_rules_and_fails_alone,
    references_to_missing_or_failed_operations_fail_that_operation,
    fail_on_errors_stops_after_that_many_failures,
    malformed_requests_are_refused_before_any_work,
    limits_are_enforced_before_any_work,
    an_operation_version_is_its_if_match,
    another_organizations_users_are_not_found,
    keys_and_scopes_apply_to_bulk,
    a_thousand_creates_in_one_request,
);

const BULK: &str = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

fn bulk(ops: Value) -> Value {
    json!({"schemas": [BULK], "Operations": ops})
}

fn post(bulk_id: &str, user: Value) -> Value {
    json!({"method": "POST", "bulkId": bulk_id, "path": "/Users", "data": user})
}

async fn send_bulk(app: &TestApp, c: &Client, body: &Value) -> (StatusCode, Value) {
    app.call(c.scim_post("/scim/v2/Bulk", body)).await
}

/// Sends a Bulk request that must answer 200; its `Operations`.
async fn run_bulk(app: &TestApp, c: &Client, body: &Value) -> Vec<Value> {
    let (status, resp) = send_bulk(app, c, body).await;
    assert_eq!(status, StatusCode::OK, "{resp}");
    assert_eq!(
        resp["schemas"],
        json!(["urn:ietf:params:scim:api:messages:2.0:BulkResponse"])
    );
    resp["Operations"].as_array().unwrap().clone()
}

async fn user_count(app: &TestApp, c: &Client) -> u64 {
    let (status, body) = app.call(c.get("/scim/v2/Users?count=0")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["totalResults"].as_u64().unwrap()
}

fn id_of(result: &Value) -> String {
    let location = result["location"].as_str().unwrap();
    location.rsplit('/').next().unwrap().to_owned()
}

fn assert_failed(result: &Value, status: &str, scim_type: Option<&str>) {
    assert_eq!(result["status"], status, "{result}");
    let response = &result["response"];
    assert_eq!(
        response["schemas"],
        json!(["urn:ietf:params:scim:api:messages:2.0:Error"]),
        "{result}"
    );
    assert_eq!(response["status"], status, "{result}");
    assert!(response["detail"].as_str().is_some_and(|d| !d.is_empty()));
    match scim_type {
        Some(t) => assert_eq!(response["scimType"], t, "{result}"),
        None => assert!(response.get("scimType").is_none(), "{result}"),
    }
}

// ---------------------------------------------------------------------------

async fn operations_run_in_order_with_bulk_id_references(app: TestApp) {
    let w = app.world();
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([
            post("ada", okta_user("ada@acme.example")),
            post("bob", okta_user("bob@acme.example")),
            {"method": "PUT", "path": "/Users/bulkId:ada", "data": {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "userName": "ada@acme.example",
                "name": {"givenName": "Augusta", "familyName": "King"},
                "emails": [{"value": "ada@acme.example", "primary": true}]
            }},
            // A reference inside a PATCH value: bob's externalId becomes ada's id.
            {"method": "PATCH", "path": "/Users/bulkId:bob", "data": {
                "schemas": [PATCH_OP],
                "Operations": [{"op": "replace", "path": "externalId", "value": "bulkId:ada"}]
            }},
            {"method": "DELETE", "path": "/Users/bulkId:bob"}
        ])),
    )
    .await;
    assert_eq!(ops.len(), 5);
    let statuses: Vec<&str> = ops.iter().map(|o| o["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["201", "201", "200", "200", "204"]);
    let methods: Vec<&str> = ops.iter().map(|o| o["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["POST", "POST", "PUT", "PATCH", "DELETE"]);
    assert_eq!(ops[0]["bulkId"], "ada");
    assert_eq!(ops[0]["version"], "W/\"1\"");
    assert_eq!(ops[2]["version"], "W/\"2\"");
    assert!(ops.iter().all(|o| o.get("response").is_none()));
    let (ada, bob) = (id_of(&ops[0]), id_of(&ops[1]));
    assert_eq!(id_of(&ops[2]), ada);
    assert_eq!(id_of(&ops[3]), bob);
    assert_eq!(id_of(&ops[4]), bob);
    assert!(ops[0]["location"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/scim/v2/Users/{ada}")));

    // Every operation's effect is stored: ada replaced, bob patched then offboarded.
    let (status, user) = app.call(w.a.get(&format!("/scim/v2/Users/{ada}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(user["name"]["givenName"], "Augusta");
    assert_eq!(user["meta"]["version"], "W/\"2\"");
    let (status, _) = app.call(w.a.get(&format!("/scim/v2/Users/{bob}"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let bob_person = equip_domain::ports::PersonRepository::find_person(
        &*app.store,
        w.a_org,
        equip_domain::ids::PersonId::parse(&bob).unwrap(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(bob_person.external_id.as_deref(), Some(ada.as_str()));
}

async fn each_operation_follows_the_single_user_rules_and_fails_alone(app: TestApp) {
    let w = app.world();
    let theirs = package(&app.store, w.b_org, "eng-mac");
    let mine = package(&app.store, w.a_org, "eng-mac");
    let mut wrong_primary = okta_user("x@acme.example");
    wrong_primary["emails"] = json!([{"value": "other@acme.example", "primary": true}]);
    let mut foreign_package = okta_user("pkg@acme.example");
    foreign_package[EXT] = json!({"packageId": theirs.to_string()});
    let mut own_package = okta_user("own@acme.example");
    own_package[EXT] = json!({"packageId": mine.to_string()});
    let mut brazil = okta_user("joao@acme.example");
    brazil["addresses"] = json!([{"type": "home", "country": "BR", "locality": "São Paulo"}]);
    let mut brazil_ok = brazil.clone();
    brazil_ok["userName"] = json!("maria@acme.example");
    brazil_ok["emails"] = json!([{"value": "maria@acme.example", "primary": true}]);
    brazil_ok[EXT] = json!({"cpfNumber": "529.982.247-25"});
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([
            post("1", okta_user("ada@acme.example")),
            post("2", wrong_primary),
            post("3", okta_user("ADA@acme.example")),
            post("4", foreign_package),
            post("5", brazil),
            post("6", own_package),
            post("7", brazil_ok),
            post("8", json!({"userName": 42})),
            {"method": "PATCH", "path": "/Users/bulkId:1", "data": {
                "schemas": [PATCH_OP], "Operations": [{"op": "explode", "path": "active"}]
            }},
            {"method": "PUT", "path": "/Users/not-a-uuid", "data": okta_user("q@acme.example")},
            {"method": "POST", "bulkId": "9", "path": "/Devices", "data": {}}
        ])),
    )
    .await;
    assert_eq!(ops.len(), 11);
    assert_eq!(ops[0]["status"], "201");
    assert_failed(&ops[1], "400", Some("invalidValue"));
    assert_failed(&ops[2], "409", Some("uniqueness"));
    assert_failed(&ops[3], "404", None);
    assert_failed(&ops[4], "400", Some("invalidValue"));
    assert!(ops[4]["response"]["detail"]
        .as_str()
        .unwrap()
        .contains("CPF"));
    assert_eq!(ops[5]["status"], "201", "{}", ops[5]);
    assert_eq!(ops[6]["status"], "201", "{}", ops[6]);
    assert_failed(&ops[7], "400", Some("invalidValue"));
    assert_failed(&ops[8], "400", Some("invalidSyntax"));
    assert_failed(&ops[9], "404", None);
    assert_failed(&ops[10], "400", Some("invalidPath"));
    // A failed POST has no location; the bulkId still names it.
    assert!(ops[1].get("location").is_none());
    assert_eq!(ops[1]["bulkId"], "2");
    // Only the three good creates are stored; the failures left nothing.
    assert_eq!(user_count(&app, &w.a).await, 3);
}

async fn references_to_missing_or_failed_operations_fail_that_operation(app: TestApp) {
    let w = app.world();
    let mut bad = okta_user("bad@acme.example");
    bad["userName"] = json!("not-the-email@acme.example");
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([
            // A forward reference: operations run in order, so it is unresolved.
            {"method": "DELETE", "path": "/Users/bulkId:later"},
            post("later", okta_user("later@acme.example")),
            post("failed", bad),
            {"method": "PATCH", "path": "/Users/bulkId:failed", "data": {
                "schemas": [PATCH_OP], "Operations": [{"op": "replace", "path": "active", "value": false}]
            }},
            {"method": "PATCH", "path": "/Users/bulkId:later", "data": {
                "schemas": [PATCH_OP],
                "Operations": [{"op": "replace", "path": "externalId", "value": "bulkId:nobody"}]
            }}
        ])),
    )
    .await;
    assert_failed(&ops[0], "409", Some("invalidValue"));
    assert!(ops[0]["response"]["detail"]
        .as_str()
        .unwrap()
        .contains("later"));
    assert_eq!(ops[1]["status"], "201");
    assert_failed(&ops[2], "400", Some("invalidValue"));
    assert_failed(&ops[3], "409", Some("invalidValue"));
    assert_failed(&ops[4], "409", Some("invalidValue"));
    // The user created by "later" is still there, untouched.
    let later = id_of(&ops[1]);
    let (status, user) = app.call(w.a.get(&format!("/scim/v2/Users/{later}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(user.get("externalId").is_none() || user["externalId"] == "00u1okta");
    assert_eq!(user["meta"]["version"], "W/\"1\"");
}

async fn fail_on_errors_stops_after_that_many_failures(app: TestApp) {
    let w = app.world();
    let mut body = bulk(json!([
        post("1", okta_user("one@acme.example")),
        post("2", okta_user("one@acme.example")),
        post("3", okta_user("three@acme.example")),
        post("4", okta_user("three@acme.example")),
        post("5", okta_user("five@acme.example"))
    ]));
    body["failOnErrors"] = json!(2);
    let ops = run_bulk(&app, &w.a, &body).await;
    let statuses: Vec<&str> = ops.iter().map(|o| o["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["201", "409", "201", "409"]);
    // The fifth never ran.
    assert_eq!(user_count(&app, &w.a).await, 2);

    // Without failOnErrors every operation runs.
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([
            post("1", okta_user("one@acme.example")),
            post("2", okta_user("one@acme.example")),
            post("3", okta_user("six@acme.example"))
        ])),
    )
    .await;
    let statuses: Vec<&str> = ops.iter().map(|o| o["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["409", "409", "201"]);
}

async fn malformed_requests_are_refused_before_any_work(app: TestApp) {
    let w = app.world();
    let good = post("ok", okta_user("ok@acme.example"));
    let cases = [
        // Duplicate bulkId, after a valid first operation.
        (
            bulk(json!([
                good,
                post("x", okta_user("x@a.example")),
                post("x", okta_user("y@a.example"))
            ])),
            "invalidValue",
        ),
        (
            bulk(json!([good, {"method": "POST", "path": "/Users", "data": {}}])),
            "invalidSyntax",
        ),
        (
            bulk(json!([good, {"method": "GET", "path": "/Users"}])),
            "invalidSyntax",
        ),
        (
            bulk(json!([good, {"method": "PUT", "path": "/Users/1"}])),
            "invalidSyntax",
        ),
        (bulk(json!([good, "not an object"])), "invalidSyntax"),
        (json!({"Operations": [good]}), "invalidSyntax"),
        (
            json!({"schemas": [BULK], "Operations": {"method": "POST"}}),
            "invalidSyntax",
        ),
        (
            json!({"schemas": [BULK], "failOnErrors": "two", "Operations": [good]}),
            "invalidValue",
        ),
    ];
    for (body, scim_type) in cases {
        let (status, resp) = send_bulk(&app, &w.a, &body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body} -> {resp}");
        assert_eq!(resp["scimType"], scim_type, "{body} -> {resp}");
        assert_eq!(resp["status"], "400");
    }
    let (status, resp) = app
        .call(
            w.a.with(TestRequest::post().uri("/scim/v2/Bulk"))
                .insert_header(("Content-Type", SCIM))
                .set_payload("{not json"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(resp["scimType"], "invalidSyntax");
    assert_eq!(user_count(&app, &w.a).await, 0, "nothing ran");
}

async fn limits_are_enforced_before_any_work(app: TestApp) {
    let w = app.world();
    let ops: Vec<Value> = (0..1001)
        .map(|i| post(&format!("b{i}"), okta_user(&format!("u{i}@acme.example"))))
        .collect();
    let (status, resp) = send_bulk(&app, &w.a, &bulk(Value::Array(ops))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{resp}");
    assert_eq!(resp["status"], "413");
    assert!(resp["detail"].as_str().unwrap().contains("1000"));

    // Over 1 MiB of payload, with few operations.
    let mut big = okta_user("big@acme.example");
    big["displayName"] = json!("x".repeat(1024 * 1024));
    let (status, resp) = send_bulk(&app, &w.a, &bulk(json!([post("big", big)]))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{resp}");
    assert_eq!(resp["status"], "413");
    assert_eq!(user_count(&app, &w.a).await, 0, "nothing ran");

    // Discovery advertises the limits.
    let (_, spc) = app.call(w.a.get("/scim/v2/ServiceProviderConfig")).await;
    assert_eq!(
        spc["bulk"],
        json!({"supported": true, "maxOperations": 1000, "maxPayloadSize": 1_048_576})
    );
}

async fn an_operation_version_is_its_if_match(app: TestApp) {
    let w = app.world();
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([post("a", okta_user("ada@acme.example"))])),
    )
    .await;
    let id = id_of(&ops[0]);
    let deactivate = json!({"schemas": [PATCH_OP], "Operations": [{"op": "replace", "path": "active", "value": false}]});
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([
            {"method": "PATCH", "path": format!("/Users/{id}"), "version": "W/\"1\"", "data": deactivate},
            // Stale now: the PATCH above made it version 2.
            {"method": "PATCH", "path": format!("/Users/{id}"), "version": "W/\"1\"", "data": deactivate},
            {"method": "DELETE", "path": format!("/Users/{id}"), "version": "W/\"1\""},
            {"method": "DELETE", "path": format!("/Users/{id}"), "version": "W/\"2\""}
        ])),
    )
    .await;
    assert_eq!(ops[0]["status"], "200");
    assert_eq!(ops[0]["version"], "W/\"2\"");
    assert_failed(&ops[1], "412", None);
    assert_eq!(ops[1]["location"], ops[0]["location"]);
    assert_failed(&ops[2], "412", None);
    assert_eq!(ops[3]["status"], "204");
}

async fn another_organizations_users_are_not_found(app: TestApp) {
    let w = app.world();
    let theirs = run_bulk(
        &app,
        &w.b,
        &bulk(json!([post("b", okta_user("bea@other.example"))])),
    )
    .await;
    let id = id_of(&theirs[0]);
    let ops = run_bulk(
        &app,
        &w.a,
        &bulk(json!([
            {"method": "PUT", "path": format!("/Users/{id}"), "data": okta_user("bea@other.example")},
            {"method": "PATCH", "path": format!("/Users/{id}"), "data": {
                "schemas": [PATCH_OP], "Operations": [{"op": "replace", "path": "active", "value": false}]
            }},
            {"method": "DELETE", "path": format!("/Users/{id}")}
        ])),
    )
    .await;
    for op in &ops {
        assert_failed(op, "404", None);
    }
    let (status, user) = app.call(w.b.get(&format!("/scim/v2/Users/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(user["active"], true);
    assert_eq!(user["meta"]["version"], "W/\"1\"");
    assert_eq!(user_count(&app, &w.a).await, 0);
}

async fn keys_and_scopes_apply_to_bulk(app: TestApp) {
    let w = app.world();
    let body = bulk(json!([post("a", okta_user("ada@acme.example"))]));
    let anonymous = TestRequest::post()
        .uri("/scim/v2/Bulk")
        .insert_header(("Content-Type", SCIM))
        .set_payload(body.to_string());
    let (status, resp) = app.call(anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(resp["status"], "401");
    let (status, resp) = send_bulk(&app, &w.limited, &body).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{resp}");
    let revoked = Client {
        key: w.revoked_key.clone(),
    };
    let (status, _) = send_bulk(&app, &revoked, &body).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // A well-formed but invalid BulkRequest from an unknown caller is a 401,
    // not a 400 (a body that is not JSON at all is refused before the key).
    let anonymous = TestRequest::post()
        .uri("/scim/v2/Bulk")
        .insert_header(("Content-Type", SCIM))
        .set_payload("{}");
    let (status, _) = app.call(anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(user_count(&app, &w.a).await, 0);
    // GET is not a Bulk method: 405.
    let (status, _) = app.call(w.a.get("/scim/v2/Bulk")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
}

async fn a_thousand_creates_in_one_request(app: TestApp) {
    let w = app.world();
    let ops: Vec<Value> = (0..1000)
        .map(|i| {
            post(
                &format!("u{i}"),
                okta_user(&format!("user{i}@acme.example")),
            )
        })
        .collect();
    let results = run_bulk(&app, &w.a, &bulk(Value::Array(ops))).await;
    assert_eq!(results.len(), 1000);
    assert!(results.iter().all(|r| r["status"] == "201"));
    let ids: std::collections::HashSet<String> = results.iter().map(id_of).collect();
    assert_eq!(ids.len(), 1000);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["bulkId"], format!("u{i}"));
    }
    assert_eq!(user_count(&app, &w.a).await, 1000);
}
