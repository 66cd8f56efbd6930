//! How SCIM names attributes, on SQLite and PostgreSQL.
//!
//! Attribute names are case-insensitive in every body (RFC 7643 §2.1):
//! a POST, a PUT and a Bulk operation's `data` read `"Active"`, a
//! sub-attribute's `"Primary"`, a group's `"Members"` and the extension URN's
//! keys as their canonical spellings. Before, such attributes were dropped
//! silently (a user created active) or misread. A PATCH path naming a
//! sub-attribute its attribute does not have is `invalidPath` (it answered 200
//! and changed nothing), and `not (…)` around a member condition filters as
//! docs/scim.md says.
use crate::support::scim::{okta_user, EXT, PATCH_OP};
use crate::support::{url_encode, TestApp};
use actix_web::http::StatusCode;
use serde_json::{json, Value};

on_both_backends!(
    user_attributes_are_read_in_any_case_at_every_level,
    a_put_reads_attributes_in_any_case,
    group_members_and_display_name_are_read_in_any_case,
    bulk_data_is_read_in_any_case,
    one_attribute_in_two_spellings_is_refused,
    a_patch_path_to_a_sub_attribute_that_does_not_exist_is_an_invalid_path,
    not_around_a_member_condition_is_the_groups_without_that_member,
);

fn id_of(body: &Value) -> String {
    body["id"].as_str().expect("an id").to_owned()
}

async fn user_attributes_are_read_in_any_case_at_every_level(app: TestApp) {
    let w = app.world();
    let body = json!({
        "Schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "USERNAME": "ada@acme.example",
        "Active": false,
        "Name": {"GivenName": "Ada", "FAMILYNAME": "Lovelace"},
        "DisplayName": "Ada L.",
        "Emails": [{"Value": "ada@acme.example", "Type": "work", "Primary": true}],
        "PhoneNumbers": [{"VALUE": "+49 30 1234", "type": "mobile"}],
        "ExternalId": "00u1",
        "URN:IETF:PARAMS:SCIM:SCHEMAS:EXTENSION:EQUIP:1.0:USER": {"StartDate": "2026-12-01"}
    });
    let (status, created) = app.call(w.a.scim_post("/scim/v2/Users", &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["active"], json!(false), "{created}");
    assert_eq!(created["name"]["givenName"], "Ada");
    assert_eq!(created["name"]["familyName"], "Lovelace");
    assert_eq!(created["displayName"], "Ada L.");
    assert_eq!(created["externalId"], "00u1");
    assert_eq!(created["emails"][0]["primary"], json!(true), "{created}");
    assert_eq!(created["phoneNumbers"][0]["value"], "+49 30 1234");
    assert_eq!(created[EXT]["startDate"], "2026-12-01", "{created}");
    // What was answered is what is stored.
    let (status, read) = app
        .call(w.a.get(&format!("/scim/v2/Users/{}", id_of(&created))))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["active"], json!(false));
    assert_eq!(read[EXT]["startDate"], "2026-12-01");
}

async fn a_put_reads_attributes_in_any_case(app: TestApp) {
    let w = app.world();
    let (status, created) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("bob@acme.example")))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let mut replaced = okta_user("bob@acme.example");
    let o = replaced.as_object_mut().unwrap();
    o.remove("active");
    o.insert("ACTIVE".into(), json!("False"));
    o.remove("name");
    o.insert(
        "name".into(),
        json!({"givenname": "Robert", "familyname": "Byte"}),
    );
    let (status, put) = app
        .call(w.a.scim_put(&format!("/scim/v2/Users/{}", id_of(&created)), &replaced))
        .await;
    assert_eq!(status, StatusCode::OK, "{put}");
    assert_eq!(put["active"], json!(false), "{put}");
    assert_eq!(put["name"]["givenName"], "Robert", "{put}");
}

async fn group_members_and_display_name_are_read_in_any_case(app: TestApp) {
    let w = app.world();
    let (_, ada) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("ada@acme.example")))
        .await;
    let (_, bob) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("bob@acme.example")))
        .await;
    let (status, group) = app
        .call(w.a.scim_post(
            "/scim/v2/Groups",
            &json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                "DisplayName": "Engineering",
                "MEMBERS": [{"Value": id_of(&ada)}]
            }),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{group}");
    assert_eq!(group["displayName"], "Engineering");
    assert_eq!(
        group["members"].as_array().map(Vec::len),
        Some(1),
        "{group}"
    );
    // A PUT with "Members" replaces the members (before: wiped them).
    let path = format!("/scim/v2/Groups/{}", id_of(&group));
    let (status, put) = app
        .call(w.a.scim_put(
            &path,
            &json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                "DisplayName": "Engineering",
                "Members": [{"value": id_of(&ada)}, {"VALUE": id_of(&bob)}]
            }),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{put}");
    let (status, read) = app.call(w.a.get(&path)).await;
    assert_eq!(status, StatusCode::OK);
    let mut members: Vec<&str> = read["members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|m| m["value"].as_str())
        .collect();
    members.sort_unstable();
    let mut want = vec![ada["id"].as_str().unwrap(), bob["id"].as_str().unwrap()];
    want.sort_unstable();
    assert_eq!(members, want, "{read}");
}

async fn bulk_data_is_read_in_any_case(app: TestApp) {
    let w = app.world();
    let body = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": [{
            "method": "POST", "path": "/Users", "bulkId": "u1",
            "data": {
                "UserName": "carl@acme.example",
                "Active": false,
                "Emails": [{"Value": "carl@acme.example", "Primary": true}]
            }
        }, {
            "method": "POST", "path": "/Groups", "bulkId": "g1",
            "data": {"displayname": "Ops", "members": [{"Value": "bulkId:u1"}]}
        }]
    });
    let (status, resp) = app.call(w.a.scim_post("/scim/v2/Bulk", &body)).await;
    assert_eq!(status, StatusCode::OK, "{resp}");
    assert_eq!(resp["Operations"][0]["status"], "201", "{resp}");
    assert_eq!(resp["Operations"][1]["status"], "201", "{resp}");
    let (_, list) = app
        .call(w.a.get("/scim/v2/Users?filter=userName%20eq%20%22carl@acme.example%22"))
        .await;
    assert_eq!(list["Resources"][0]["active"], json!(false), "{list}");
    assert_eq!(
        list["Resources"][0]["groups"][0]["display"], "Ops",
        "{list}"
    );
}

async fn one_attribute_in_two_spellings_is_refused(app: TestApp) {
    let w = app.world();
    let mut u = okta_user("dora@acme.example");
    u["Active"] = json!(false);
    let (status, body) = app.call(w.a.scim_post("/scim/v2/Users", &u)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidValue", "{body}");
    assert!(
        body["detail"].as_str().unwrap_or("").contains("active"),
        "{body}"
    );
    // Nothing was created.
    let (_, list) = app
        .call(w.a.get("/scim/v2/Users?filter=userName%20eq%20%22dora@acme.example%22"))
        .await;
    assert_eq!(list["totalResults"], json!(0), "{list}");
}

async fn a_patch_path_to_a_sub_attribute_that_does_not_exist_is_an_invalid_path(app: TestApp) {
    let w = app.world();
    let (_, user) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("eve@acme.example")))
        .await;
    let user_path = format!("/scim/v2/Users/{}", id_of(&user));
    for path in ["name.nonsense", "displayName.x", "userName.foo"] {
        let (status, body) = app
            .call(w.a.scim_patch(
                &user_path,
                &json!({"schemas": [PATCH_OP], "Operations": [
                    {"op": "replace", "path": path, "value": "x"}
                ]}),
            ))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {body}");
        assert_eq!(body["scimType"], "invalidPath", "{path}: {body}");
    }
    let (_, group) = app
        .call(w.a.scim_post("/scim/v2/Groups", &json!({"displayName": "Sales"})))
        .await;
    let (status, body) = app
        .call(w.a.scim_patch(
            &format!("/scim/v2/Groups/{}", id_of(&group)),
            &json!({"schemas": [PATCH_OP], "Operations": [
                {"op": "replace", "path": "displayName.x", "value": "x"}
            ]}),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidPath", "{body}");
    // A sub-attribute RFC 7643 defines and equip does not store stays accepted.
    let (status, body) = app
        .call(w.a.scim_patch(
            &user_path,
            &json!({"schemas": [PATCH_OP], "Operations": [
                {"op": "replace", "path": "name.formatted", "value": "Eve E."}
            ]}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn not_around_a_member_condition_is_the_groups_without_that_member(app: TestApp) {
    let w = app.world();
    let (_, ada) = app
        .call(w.a.scim_post("/scim/v2/Users", &okta_user("ada@acme.example")))
        .await;
    let ada = id_of(&ada);
    for (name, members) in [
        ("Engineering", vec![json!({"value": ada})]),
        ("Sales", vec![]),
    ] {
        let (status, body) = app
            .call(w.a.scim_post(
                "/scim/v2/Groups",
                &json!({"displayName": name, "members": members}),
            ))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    for filter in [
        format!("not (members.value eq \"{ada}\")"),
        format!("members.value ne \"{ada}\""),
    ] {
        let (status, body) = app
            .call(w.a.get(&format!(
                "/scim/v2/Groups?excludedAttributes=members&filter={}",
                url_encode(&filter)
            )))
            .await;
        assert_eq!(status, StatusCode::OK, "{filter}: {body}");
        let names: Vec<&str> = body["Resources"]
            .as_array()
            .expect("Resources")
            .iter()
            .filter_map(|g| g["displayName"].as_str())
            .collect();
        assert_eq!(names, vec!["Sales"], "{filter}: {body}");
    }
    let (status, body) = app
        .call(w.a.get(&format!(
            "/scim/v2/Groups?filter={}",
            url_encode(&format!("members[not (value eq \"{ada}\")]"))
        )))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidFilter", "{body}");
}
