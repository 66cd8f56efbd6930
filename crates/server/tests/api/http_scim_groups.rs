//! Black-box tests of `/scim/v2/Groups` through the real application on SQLite
//! and PostgreSQL (docs/scim.md, "Groups"): the PATCH shapes Okta and Entra ID
//! send, members who are not users of the organization, the effective package,
//! offboarding, and concurrent member changes from two instances.
use std::sync::Arc;

use crate::support::scim::{okta_user, package, PATCH_OP, SCIM};
use crate::support::TestApp;
use actix_web::http::StatusCode;
use actix_web::test;
use equip_http::AppState;
use equip_persistence::PoolOptions;
use serde_json::{json, Value};

on_both_backends!(
    group_lifecycle_with_members,
    okta_patch_shapes,
    entra_patch_shapes,
    members_must_be_users_of_the_organization,
    display_names_are_unique_case_insensitively,
    excluded_members_and_filters,
    effective_package_follows_groups,
    offboarding_leaves_every_group,
    concurrent_member_patches_from_two_instances_all_apply,
    concurrent_renames_with_member_changes_all_apply,
    bulk_creates_users_and_a_group_referring_to_them,
    etags_and_preconditions_on_groups,
    root_search_spans_users_and_groups,
);

const GROUP: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";
const GROUP_EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group";
const USER_EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";

async fn user(app: &TestApp, name: &str) -> String {
    let a = app.world().a;
    let (s, body) = app
        .call(a.scim_post("/scim/v2/Users", &okta_user(name)))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

fn group_body(name: &str, members: &[&str]) -> Value {
    json!({
        "schemas": [GROUP],
        "displayName": name,
        "members": members.iter().map(|m| json!({"value": m})).collect::<Vec<_>>(),
    })
}

async fn group(app: &TestApp, name: &str, members: &[&str]) -> Value {
    let a = app.world().a;
    let (s, body) = app
        .call(a.scim_post("/scim/v2/Groups", &group_body(name, members)))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    body
}

fn patch(ops: Value) -> Value {
    json!({"schemas": [PATCH_OP], "Operations": ops})
}

/// The member ids of group `id`, sorted.
async fn members(app: &TestApp, id: &str) -> Vec<String> {
    let (s, body) = app
        .call(app.world().a.get(&format!("/scim/v2/Groups/{id}")))
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let mut ids: Vec<String> = body["members"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|x| x["value"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

fn sorted(ids: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

async fn group_lifecycle_with_members(app: TestApp) {
    let a = app.world().a;
    let (ada, bob) = (
        user(&app, "ada@acme.example").await,
        user(&app, "bob@acme.example").await,
    );
    let raw = app
        .call_raw(a.scim_post("/scim/v2/Groups", &group_body("Engineering", &[&ada])))
        .await;
    assert_eq!(raw.status, StatusCode::CREATED);
    assert_eq!(raw.content_type.as_deref(), Some(SCIM));
    let created: Value = serde_json::from_slice(&raw.body).unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(
        raw.location.as_deref(),
        Some(format!("http://localhost:8080/scim/v2/Groups/{id}").as_str())
    );
    assert_eq!(created["displayName"], "Engineering");
    assert_eq!(created["meta"]["resourceType"], "Group");
    assert_eq!(created["members"][0]["value"], ada.as_str());
    assert_eq!(created["members"][0]["display"], "ada@acme.example");
    assert_eq!(created["members"][0]["type"], "User");
    // The user shows the group, and the user's tag changed with it: a client
    // holding the tag from before gets the new representation, not a 304.
    let (_, u) = app.call(a.get(&format!("/scim/v2/Users/{ada}"))).await;
    assert_eq!(u["groups"][0]["value"], id.as_str());
    assert_eq!(u["groups"][0]["display"], "Engineering");
    let tag = u["meta"]["version"].as_str().unwrap().to_owned();
    assert!(tag.starts_with("W/\"1."), "{tag}");
    for (sent, want) in [
        ("W/\"1\"", StatusCode::OK),
        (tag.as_str(), StatusCode::NOT_MODIFIED),
    ] {
        let (s, _) = app
            .call(
                a.get(&format!("/scim/v2/Users/{ada}"))
                    .insert_header(("If-None-Match", sent)),
            )
            .await;
        assert_eq!(s, want, "{sent}");
    }
    // A write's precondition compares the user's own version.
    let ops = patch(json!([{"op": "replace", "path": "displayName", "value": "Ada L."}]));
    let (s, body) = app
        .call(
            a.scim_patch(&format!("/scim/v2/Users/{ada}"), &ops)
                .insert_header(("If-Match", tag.as_str())),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    // A member's new userName is a new version of the group (its display).
    let (_, before) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    let ops = patch(json!([
        {"op": "replace", "path": "userName", "value": "ada.l@acme.example"},
        {"op": "replace", "path": "emails[primary eq true].value", "value": "ada.l@acme.example"}
    ]));
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Users/{ada}"), &ops))
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (_, after) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_ne!(before["meta"]["version"], after["meta"]["version"]);
    assert_eq!(after["members"][0]["display"], "ada.l@acme.example");
    // PUT replaces the members.
    let (s, put) = app
        .call(a.scim_put(
            &format!("/scim/v2/Groups/{id}"),
            &group_body("Engineering", &[&bob]),
        ))
        .await;
    assert_eq!(s, StatusCode::OK, "{put}");
    assert_eq!(members(&app, &id).await, sorted(&[&bob]));
    // Listed.
    let (_, list) = app.call(a.get("/scim/v2/Groups")).await;
    assert_eq!(list["totalResults"], 1);
    // DELETE: the group is gone, its users stay.
    let (s, _) = app.call(a.delete(&format!("/scim/v2/Groups/{id}"))).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, _) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, u) = app.call(a.get(&format!("/scim/v2/Users/{bob}"))).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(u["groups"].as_array().map_or(0, Vec::len), 0, "{u}");
    // Another organization sees no such group.
    let b = app.world().b;
    let g = group(&app, "Sales", &[]).await;
    let (s, _) = app
        .call(b.get(&format!("/scim/v2/Groups/{}", g["id"].as_str().unwrap())))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, list) = app.call(b.get("/scim/v2/Groups")).await;
    assert_eq!(list["totalResults"], 0);
}

async fn okta_patch_shapes(app: TestApp) {
    let a = app.world().a;
    let (ada, bob) = (
        user(&app, "ada@acme.example").await,
        user(&app, "bob@acme.example").await,
    );
    let g = group(&app, "Engineering", &[]).await;
    let id = g["id"].as_str().unwrap();
    let path = format!("/scim/v2/Groups/{id}?excludedAttributes=members");
    let add =
        patch(json!([{"op": "add", "path": "members", "value": [{"value": ada}, {"value": bob}]}]));
    let (s, body) = app.call(a.scim_patch(&path, &add)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert!(body.get("members").is_none(), "{body}");
    assert_eq!(members(&app, id).await, sorted(&[&ada, &bob]));
    // Adding again: no change, not even the version.
    let (_, before) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    let (s, _) = app.call(a.scim_patch(&path, &add)).await;
    assert_eq!(s, StatusCode::OK);
    let (_, after) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_eq!(before["meta"]["version"], after["meta"]["version"]);
    let remove = patch(json!([{"op": "remove", "path": format!("members[value eq \"{ada}\"]")}]));
    let (s, body) = app.call(a.scim_patch(&path, &remove)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(members(&app, id).await, sorted(&[&bob]));
    // Removing an absent member succeeds without change.
    let (s, _) = app.call(a.scim_patch(&path, &remove)).await;
    assert_eq!(s, StatusCode::OK);
    // Path-less replace of displayName, with the group's own id inside.
    let rename = patch(json!([{"op": "replace", "value": {"id": id, "displayName": "Platform"}}]));
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Groups/{id}"), &rename))
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["displayName"], "Platform");
    assert_eq!(members(&app, id).await, sorted(&[&bob]));
}

async fn entra_patch_shapes(app: TestApp) {
    let a = app.world().a;
    let (ada, bob) = (
        user(&app, "ada@acme.example").await,
        user(&app, "bob@acme.example").await,
    );
    let g = group(&app, "Engineering", &[]).await;
    let id = g["id"].as_str().unwrap();
    let path = format!("/scim/v2/Groups/{id}");
    let ops = patch(json!([
        {"op": "Add", "path": "members", "value": [{"value": ada}, {"value": bob}]},
        {"op": "Replace", "path": "displayName", "value": "Platform"},
        {"op": "Replace", "path": "externalId", "value": "8f1c-entra"}
    ]));
    let (s, body) = app.call(a.scim_patch(&path, &ops)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["displayName"], "Platform");
    assert_eq!(body["externalId"], "8f1c-entra");
    // Entra checks a membership with a filter on id and members.
    let filter =
        crate::support::url_encode(&format!("id eq \"{id}\" and members[value eq \"{ada}\"]"));
    let (s, list) = app
        .call(a.get(&format!(
            "/scim/v2/Groups?filter={filter}&excludedAttributes=members"
        )))
        .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert_eq!(list["totalResults"], 1, "{list}");
    let ops = patch(json!([{"op": "Remove", "path": "members", "value": [{"value": ada}]}]));
    let (s, body) = app.call(a.scim_patch(&path, &ops)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(members(&app, id).await, sorted(&[&bob]));
    let (_, list) = app
        .call(a.get(&format!(
            "/scim/v2/Groups?filter={filter}&excludedAttributes=members"
        )))
        .await;
    assert_eq!(list["totalResults"], 0, "{list}");
    // Remove without a value removes every member; replace sets them.
    let ops = patch(json!([{"op": "remove", "path": "members"}]));
    let (s, _) = app.call(a.scim_patch(&path, &ops)).await;
    assert_eq!(s, StatusCode::OK);
    assert!(members(&app, id).await.is_empty());
    let ops = patch(json!([{"op": "replace", "path": "members", "value": [{"value": ada}]}]));
    let (s, _) = app.call(a.scim_patch(&path, &ops)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(members(&app, id).await, sorted(&[&ada]));
}

async fn members_must_be_users_of_the_organization(app: TestApp) {
    let (a, b) = (app.world().a, app.world().b);
    let ada = user(&app, "ada@acme.example").await;
    let (s, other) = app
        .call(b.scim_post("/scim/v2/Users", &okta_user("eve@other.example")))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let eve = other["id"].as_str().unwrap().to_owned();
    // On create: 400 naming the id, no group.
    let (s, body) = app
        .call(a.scim_post("/scim/v2/Groups", &group_body("Engineering", &[&ada, &eve])))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidValue");
    assert!(body["detail"].as_str().unwrap().contains(&eve), "{body}");
    let (_, list) = app.call(a.get("/scim/v2/Groups")).await;
    assert_eq!(list["totalResults"], 0);
    // On PATCH: nothing of the PATCH applies, the version stays.
    let g = group(&app, "Engineering", &[]).await;
    let id = g["id"].as_str().unwrap();
    let ops = patch(json!([
        {"op": "replace", "path": "displayName", "value": "Renamed"},
        {"op": "add", "path": "members", "value": [{"value": ada}, {"value": eve}]}
    ]));
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Groups/{id}"), &ops))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["detail"].as_str().unwrap().contains(&eve), "{body}");
    let (_, now) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_eq!(now["displayName"], "Engineering");
    assert_eq!(now["meta"]["version"], g["meta"]["version"]);
    assert!(members(&app, id).await.is_empty());
    // An unknown id and a malformed one are refused the same way.
    let unknown = uuid::Uuid::new_v4().to_string();
    for bad in [unknown.as_str(), "not-a-uuid"] {
        let ops = patch(json!([{"op": "add", "path": "members", "value": [{"value": bad}]}]));
        let (s, body) = app
            .call(a.scim_patch(&format!("/scim/v2/Groups/{id}"), &ops))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["scimType"], "invalidValue");
        assert!(body["detail"].as_str().unwrap().contains(bad), "{body}");
    }
    // Organization B cannot touch A's group.
    let ops = patch(json!([{"op": "add", "path": "members", "value": [{"value": eve}]}]));
    let (s, _) = app
        .call(b.scim_patch(&format!("/scim/v2/Groups/{id}"), &ops))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

async fn display_names_are_unique_case_insensitively(app: TestApp) {
    let (a, b) = (app.world().a, app.world().b);
    group(&app, "Engineering", &[]).await;
    let (s, body) = app
        .call(a.scim_post("/scim/v2/Groups", &group_body("ENGINEERING", &[])))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["scimType"], "uniqueness");
    // Another organization may use the name.
    let (s, _) = app
        .call(b.scim_post("/scim/v2/Groups", &group_body("Engineering", &[])))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, body) = app
        .call(a.scim_post("/scim/v2/Groups", &json!({"schemas": [GROUP]})))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
}

async fn excluded_members_and_filters(app: TestApp) {
    let a = app.world().a;
    let ada = user(&app, "ada@acme.example").await;
    let eng = group(&app, "Engineering", &[&ada]).await;
    group(&app, "Sales", &[]).await;
    let id = eng["id"].as_str().unwrap();
    let (_, body) = app
        .call(a.get(&format!("/scim/v2/Groups/{id}?excludedAttributes=members")))
        .await;
    assert!(body.get("members").is_none(), "{body}");
    assert_eq!(body["displayName"], "Engineering");
    let q = |f: &str| format!("/scim/v2/Groups?filter={}", crate::support::url_encode(f));
    for (filter, want) in [
        ("displayName eq \"engineering\"", vec!["Engineering"]),
        ("displayName sw \"S\"", vec!["Sales"]),
        (&*format!("members.value eq \"{ada}\""), vec!["Engineering"]),
        (
            &*format!("members[value eq \"{ada}\"]"),
            vec!["Engineering"],
        ),
        ("members pr", vec!["Engineering"]),
        ("not (members pr)", vec!["Sales"]),
    ] {
        let (s, list) = app.call(a.get(&q(filter))).await;
        assert_eq!(s, StatusCode::OK, "{filter}: {list}");
        let names: Vec<&str> = list["Resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["displayName"].as_str().unwrap())
            .collect();
        assert_eq!(names, want, "{filter}");
    }
    let (s, body) = app.call(a.get(&q("nickName eq \"x\""))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidFilter");
    // .search takes the same inputs.
    let (s, list) = app
        .call(a.scim_post(
            "/scim/v2/Groups/.search",
            &json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                    "filter": "displayName eq \"Sales\"", "excludedAttributes": ["members"]}),
        ))
        .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert_eq!(list["totalResults"], 1);
}

/// The user's `effectivePackageId`.
async fn effective(app: &TestApp, user: &str) -> Option<String> {
    let (_, u) = app
        .call(app.world().a.get(&format!("/scim/v2/Users/{user}")))
        .await;
    u[USER_EXT]["effectivePackageId"]
        .as_str()
        .map(str::to_owned)
}

async fn effective_package_follows_groups(app: TestApp) {
    let a = app.world().a;
    let org = app.world().a_org;
    let (eng_kit, all_kit, own_kit) = (
        package(&app.store, org, "eng").to_string(),
        package(&app.store, org, "all").to_string(),
        package(&app.store, org, "own").to_string(),
    );
    let ada = user(&app, "ada@acme.example").await;
    assert_eq!(effective(&app, &ada).await, None);
    let mut all = group_body("Everyone", &[&ada]);
    all[GROUP_EXT] = json!({"packageId": all_kit, "precedence": 10});
    let (s, all) = app.call(a.scim_post("/scim/v2/Groups", &all)).await;
    assert_eq!(s, StatusCode::CREATED, "{all}");
    assert_eq!(all[GROUP_EXT]["precedence"], 10);
    assert_eq!(
        effective(&app, &ada).await.as_deref(),
        Some(all_kit.as_str())
    );
    let mut eng = group_body("Engineering", &[&ada]);
    eng[GROUP_EXT] = json!({"packageId": eng_kit, "precedence": 1});
    let (_, eng) = app.call(a.scim_post("/scim/v2/Groups", &eng)).await;
    let eng_id = eng["id"].as_str().unwrap();
    assert_eq!(
        effective(&app, &ada).await.as_deref(),
        Some(eng_kit.as_str())
    );
    // A change of precedence decides at once.
    let ops =
        patch(json!([{"op": "replace", "path": format!("{GROUP_EXT}:precedence"), "value": 50}]));
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Groups/{eng_id}"), &ops))
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(
        effective(&app, &ada).await.as_deref(),
        Some(all_kit.as_str())
    );
    // Leaving the group decides at once.
    let ops = patch(json!([{"op": "remove", "path": "members", "value": [{"value": ada}]}]));
    let all_id = all["id"].as_str().unwrap();
    let (s, _) = app
        .call(a.scim_patch(&format!("/scim/v2/Groups/{all_id}"), &ops))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        effective(&app, &ada).await.as_deref(),
        Some(eng_kit.as_str())
    );
    // The user's own package wins.
    let ops = patch(
        json!([{"op": "replace", "path": format!("{USER_EXT}:packageId"), "value": own_kit}]),
    );
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Users/{ada}"), &ops))
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body[USER_EXT]["effectivePackageId"], own_kit.as_str());
    // effectivePackageId and groups are read-only.
    for path in [
        format!("{USER_EXT}:effectivePackageId"),
        "groups".to_owned(),
    ] {
        let ops = patch(json!([{"op": "replace", "path": path, "value": all_kit}]));
        let (s, body) = app
            .call(a.scim_patch(&format!("/scim/v2/Users/{ada}"), &ops))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{path}: {body}");
        assert_eq!(body["scimType"], "mutability", "{path}");
    }
    // A package of another organization on a group: 404 naming packageId.
    let b_kit = package(&app.store, app.world().b_org, "b").to_string();
    let ops =
        patch(json!([{"op": "replace", "path": format!("{GROUP_EXT}:packageId"), "value": b_kit}]));
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Groups/{eng_id}"), &ops))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{body}");
}

async fn offboarding_leaves_every_group(app: TestApp) {
    let a = app.world().a;
    let (ada, bob) = (
        user(&app, "ada@acme.example").await,
        user(&app, "bob@acme.example").await,
    );
    let g = group(&app, "Engineering", &[&ada, &bob]).await;
    let id = g["id"].as_str().unwrap();
    let (s, _) = app.call(a.delete(&format!("/scim/v2/Users/{ada}"))).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    assert_eq!(members(&app, id).await, sorted(&[&bob]));
    let (_, now) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_ne!(now["meta"]["version"], g["meta"]["version"]);
    // An offboarded user cannot join again.
    let ops = patch(json!([{"op": "add", "path": "members", "value": [{"value": ada}]}]));
    let (s, body) = app
        .call(a.scim_patch(&format!("/scim/v2/Groups/{id}"), &ops))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
}

/// A group of A (no members) and sixteen users of A: their ids.
async fn group_and_sixteen_users(app: &TestApp, prefix: &str) -> (String, Vec<String>) {
    let g = group(app, "Engineering", &[]).await;
    let id = g["id"].as_str().unwrap().to_owned();
    let mut users = Vec::new();
    for i in 0..16 {
        users.push(user(app, &format!("{prefix}{i}@acme.example")).await);
    }
    (id, users)
}

/// Sends `reqs` all at once, alternately to this instance and to a second
/// one (its own pool on the same database), and checks that every one
/// answers 200.
async fn all_apply_on_two_instances(app: &TestApp, reqs: Vec<test::TestRequest>) {
    let second = Arc::new(app.db().store_with(PoolOptions::default()));
    let one = test::init_service(equip_http::app(AppState::with_write_sessions(Arc::clone(
        &app.store,
    ))))
    .await;
    let two = test::init_service(equip_http::app(AppState::with_write_sessions(second))).await;
    let calls = reqs.into_iter().enumerate().map(|(i, req)| {
        let (one, two, req) = (&one, &two, req.to_request());
        async move {
            let resp = if i % 2 == 0 {
                test::call_service(one, req).await
            } else {
                test::call_service(two, req).await
            };
            let status = resp.status();
            (status, test::read_body(resp).await)
        }
    });
    for (status, body) in futures_util::future::join_all(calls).await {
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    }
}

async fn concurrent_member_patches_from_two_instances_all_apply(app: TestApp) {
    let a = app.world().a;
    let (id, users) = group_and_sixteen_users(&app, "u").await;
    let path = format!("/scim/v2/Groups/{id}?excludedAttributes=members");
    let reqs = users
        .iter()
        .map(|u| {
            a.scim_patch(
                &path,
                &patch(json!([{"op": "add", "path": "members", "value": [{"value": u}]}])),
            )
        })
        .collect();
    all_apply_on_two_instances(&app, reqs).await;
    let want: Vec<&str> = users.iter().map(String::as_str).collect();
    assert_eq!(members(&app, &id).await, sorted(&want));
    let (_, now) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_eq!(now["meta"]["version"], format!("W/\"{}\"", 1 + users.len()));
}

/// Okta's shape without `If-Match`: sixteen PATCHes at once on two
/// instances, each renaming the group and adding a member, another changing
/// its precedence. Every one answers 200 (before, PostgreSQL answered some
/// `409 … retry`: each rename needed the version it was read at); every
/// member is there, the name is one of the names sent, the precedence kept.
async fn concurrent_renames_with_member_changes_all_apply(app: TestApp) {
    let a = app.world().a;
    let (id, users) = group_and_sixteen_users(&app, "r").await;
    let path = format!("/scim/v2/Groups/{id}?excludedAttributes=members");
    let mut bodies: Vec<Value> = users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            patch(json!([
                {"op": "replace", "path": "displayName", "value": format!("Engineering {i}")},
                {"op": "add", "path": "members", "value": [{"value": u}]}
            ]))
        })
        .collect();
    bodies.push(patch(json!([
        {"op": "replace", "path": format!("{GROUP_EXT}:precedence"), "value": 7}
    ])));
    let reqs = bodies
        .iter()
        .map(|body| a.scim_patch(&path, body))
        .collect();
    all_apply_on_two_instances(&app, reqs).await;
    let want: Vec<&str> = users.iter().map(String::as_str).collect();
    assert_eq!(members(&app, &id).await, sorted(&want));
    let (_, now) = app.call(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    let name = now["displayName"].as_str().unwrap();
    assert!(
        (0..16).any(|i| name == format!("Engineering {i}")),
        "{name}"
    );
    assert_eq!(now[GROUP_EXT]["precedence"], 7, "{now}");
    assert_eq!(
        now["meta"]["version"],
        format!("W/\"{}\"", 1 + bodies.len())
    );
}

async fn bulk_creates_users_and_a_group_referring_to_them(app: TestApp) {
    let a = app.world().a;
    let body = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": [
            {"method": "POST", "path": "/Users", "bulkId": "u1", "data": okta_user("ada@acme.example")},
            {"method": "POST", "path": "/Users", "bulkId": "u2", "data": okta_user("bob@acme.example")},
            {"method": "POST", "path": "/Groups", "bulkId": "g1",
             "data": {"schemas": [GROUP], "displayName": "Engineering",
                      "members": [{"value": "bulkId:u1"}, {"value": "bulkId:u2"}]}},
            {"method": "PATCH", "path": "/Groups/bulkId:g1",
             "data": patch(json!([{"op": "remove", "path": "members[value eq \"bulkId:u2\"]"}]))}
        ]
    });
    let (s, resp) = app.call(a.scim_post("/scim/v2/Bulk", &body)).await;
    assert_eq!(s, StatusCode::OK, "{resp}");
    let ops = resp["Operations"].as_array().unwrap();
    assert!(
        ops.iter()
            .all(|o| o["status"].as_str().is_some_and(|s| s.starts_with('2'))),
        "{resp}"
    );
    let location = ops[2]["location"].as_str().unwrap();
    let id = location.rsplit('/').next().unwrap();
    let ada = ops[0]["location"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    assert_eq!(members(&app, id).await, sorted(&[ada]));
    // A Bulk write of a user in a group answers the tag GET shows.
    let body = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": [{"method": "PATCH", "path": format!("/Users/{ada}"),
            "data": patch(json!([{"op": "replace", "path": "displayName", "value": "Ada"}]))}]
    });
    let (s, resp) = app.call(a.scim_post("/scim/v2/Bulk", &body)).await;
    assert_eq!(s, StatusCode::OK, "{resp}");
    let (_, u) = app.call(a.get(&format!("/scim/v2/Users/{ada}"))).await;
    assert_eq!(
        resp["Operations"][0]["version"], u["meta"]["version"],
        "{resp}"
    );
    assert!(u["meta"]["version"].as_str().unwrap().contains('.'));
}

async fn etags_and_preconditions_on_groups(app: TestApp) {
    let a = app.world().a;
    let g = group(&app, "Engineering", &[]).await;
    let id = g["id"].as_str().unwrap();
    let raw = app.call_raw(a.get(&format!("/scim/v2/Groups/{id}"))).await;
    assert_eq!(raw.status, StatusCode::OK);
    let version = g["meta"]["version"].as_str().unwrap().to_owned();
    let (s, _) = app
        .call(
            a.get(&format!("/scim/v2/Groups/{id}"))
                .insert_header(("If-None-Match", version.clone())),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_MODIFIED);
    let ops = patch(json!([{"op": "replace", "path": "displayName", "value": "Platform"}]));
    let (s, _) = app
        .call(
            a.scim_patch(&format!("/scim/v2/Groups/{id}"), &ops)
                .insert_header(("If-Match", "W/\"99\"")),
        )
        .await;
    assert_eq!(s, StatusCode::PRECONDITION_FAILED);
    let (s, body) = app
        .call(
            a.scim_patch(&format!("/scim/v2/Groups/{id}"), &ops)
                .insert_header(("If-Match", version.clone())),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (s, _) = app
        .call(
            a.delete(&format!("/scim/v2/Groups/{id}"))
                .insert_header(("If-Match", version)),
        )
        .await;
    assert_eq!(s, StatusCode::PRECONDITION_FAILED);
}

async fn root_search_spans_users_and_groups(app: TestApp) {
    let a = app.world().a;
    let ada = user(&app, "ada@acme.example").await;
    user(&app, "bob@acme.example").await;
    group(&app, "Engineering", &[&ada]).await;
    let search = |body: Value| a.scim_post("/scim/v2/.search", &body);
    let req = |filter: Option<&str>, start: u64, count: u64| {
        let mut body = json!({
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
            "startIndex": start, "count": count
        });
        if let Some(f) = filter {
            body["filter"] = json!(f);
        }
        search(body)
    };
    // Everything: the users, then the groups, paged as one list.
    let (s, all) = app.call(req(None, 1, 50)).await;
    assert_eq!(s, StatusCode::OK, "{all}");
    assert_eq!(all["totalResults"], 3);
    let kinds: Vec<&str> = all["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["meta"]["resourceType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["User", "User", "Group"]);
    let (_, page) = app.call(req(None, 2, 2)).await;
    let kinds: Vec<&str> = page["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["meta"]["resourceType"].as_str().unwrap())
        .collect();
    assert_eq!(
        (page["startIndex"].clone(), kinds),
        (json!(2), vec!["User", "Group"])
    );
    // A sortBy only users have orders the users; the groups still follow.
    let mut sorted_req = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
        "sortBy": "userName", "sortOrder": "descending"
    });
    let (s, body) = app.call(search(sorted_req.take())).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["totalResults"], 3, "{body}");
    assert_eq!(body["Resources"][0]["userName"], "bob@acme.example");
    assert_eq!(body["Resources"][2]["displayName"], "Engineering");
    // A filter only groups understand selects groups; one neither does is 400.
    let (s, only) = app
        .call(req(Some(&format!("members.value eq \"{ada}\"")), 1, 50))
        .await;
    assert_eq!(s, StatusCode::OK, "{only}");
    assert_eq!(only["totalResults"], 1);
    assert_eq!(only["Resources"][0]["displayName"], "Engineering");
    let (s, body) = app.call(req(Some("roles.value eq \"x\""), 1, 50)).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["scimType"], "invalidFilter");
}
