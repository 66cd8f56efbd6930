//! SCIM Groups over the in-memory store: the lifecycle, every PATCH shape
//! identity providers send, versions, member selection in answers, filters,
//! the users' groups and effective package, Bulk and discovery.

use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header::HeaderMap;
use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use chrono::Utc;
use serde_json::{json, Value};

use equip_domain::api_key::{Scope, Scopes};
use equip_domain::catalog::Package;
use equip_domain::ids::PackageId;
use equip_domain::services::admin::issue_api_key;
use equip_domain::testing::{fixtures, InMemoryStore};
use equip_http::AppState;

use super::{auth, world};

const EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group";
const USER_EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";
const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/// An answer: status, headers and the JSON body (null when empty).
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The member ids of a group answered, sorted.
    fn member_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.body["members"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|x| x["value"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        ids.sort();
        ids
    }
}

async fn send<S, R, B>(app: &S, req: R) -> Reply
where
    S: Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let res = test::call_service(app, req).await;
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = test::read_body(res).await;
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        body,
    }
}

/// A SCIM request with `key` and, when given, a JSON body.
fn scim(method: &str, uri: &str, key: &str, body: Option<Value>) -> TestRequest {
    let req = match method {
        "GET" => TestRequest::get(),
        "POST" => TestRequest::post(),
        "PUT" => TestRequest::put(),
        "PATCH" => TestRequest::patch(),
        "DELETE" => TestRequest::delete(),
        other => panic!("method {other}"),
    }
    .uri(uri)
    .insert_header(auth(key));
    match body {
        Some(b) => req
            .insert_header(("Content-Type", "application/scim+json"))
            .set_payload(b.to_string()),
        None => req,
    }
}

fn patch_body(ops: Value) -> Value {
    json!({"schemas": [PATCH_OP], "Operations": ops})
}

fn package(store: &InMemoryStore, org: equip_domain::ids::OrganizationId, slug: &str) -> String {
    let id = PackageId::new();
    store.state().packages.push(Package {
        id,
        organization_id: org,
        slug: slug.into(),
        name: slug.into(),
        items: Vec::new(),
    });
    id.to_string()
}

/// The sorted list of `ids`.
fn sorted(ids: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

macro_rules! app {
    ($store:expr) => {
        test::init_service(equip_http::app(AppState::new(Arc::clone(&$store)))).await
    };
}

/// Creates a user and returns its id.
macro_rules! user {
    ($app:expr, $key:expr, $name:expr) => {{
        let r = send(
            &$app,
            scim(
                "POST",
                "/scim/v2/Users",
                &$key,
                Some(json!({"userName": $name})),
            )
            .to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        r.body["id"].as_str().unwrap_or_default().to_owned()
    }};
}

#[actix_web::test]
async fn a_group_lives_from_create_to_delete_and_its_users_stay() {
    let (store, _, key) = world(Scopes::all());
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let bob = user!(app, key, "bob@example.com");

    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                "displayName": "Engineering",
                "externalId": "00g1",
                "members": [{"value": ada, "display": "ignored"}]
            })),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let id = r.body["id"].as_str().unwrap_or_default().to_owned();
    assert!(r
        .header("Location")
        .is_some_and(|l| l.ends_with(&format!("/scim/v2/Groups/{id}"))));
    assert_eq!(r.header("ETag"), Some("W/\"1\""));
    assert_eq!(r.header("Content-Type"), Some("application/scim+json"));
    assert_eq!(r.body["meta"]["resourceType"], "Group");
    assert_eq!(r.body["meta"]["version"], "W/\"1\"");
    assert_eq!(r.body["externalId"], "00g1");
    assert_eq!(r.body["members"][0]["value"], ada.as_str());
    assert_eq!(r.body["members"][0]["display"], "ada@example.com");
    assert_eq!(r.body["members"][0]["type"], "User");
    assert!(r.body["members"][0]["$ref"]
        .as_str()
        .is_some_and(|s| s.ends_with(&format!("/scim/v2/Users/{ada}"))));
    // The default precedence 0 is not shown, nor an empty extension.
    assert!(r.body.get(EXT).is_none(), "{}", r.body);
    assert_eq!(
        r.body["schemas"],
        json!(["urn:ietf:params:scim:schemas:core:2.0:Group"])
    );
    let url = format!("/scim/v2/Groups/{id}");

    // The name is unique in the organization, case-insensitively.
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"displayName": "ENGINEERING"})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.body["scimType"], "uniqueness");
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"members": []})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.body["scimType"], "invalidValue");
    assert!(r.body["detail"]
        .as_str()
        .is_some_and(|d| d.contains("displayName")));

    let r = send(&app, scim("GET", &url, &key, None).to_request()).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.member_ids(), sorted(&[&ada]));
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.body["totalResults"], 1);
    assert_eq!(r.body["Resources"][0]["members"][0]["value"], ada.as_str());

    // PUT replaces the fields and the members.
    let r = send(
        &app,
        scim(
            "PUT",
            &url,
            &key,
            Some(json!({"id": id, "displayName": "Eng", "members": [{"value": bob}]})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["displayName"], "Eng");
    assert!(r.body.get("externalId").is_none());
    assert_eq!(r.member_ids(), sorted(&[&bob]));
    assert_eq!(r.header("ETag"), Some("W/\"2\""));
    // Without members, the group has none.
    let r = send(
        &app,
        scim("PUT", &url, &key, Some(json!({"displayName": "Eng"}))).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["members"], json!([]), "{}", r.body);

    let r = send(&app, scim("DELETE", &url, &key, None).to_request()).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = send(&app, scim("GET", &url, &key, None).to_request()).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(
        r.body["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:Error"
    );
    let r = send(&app, scim("DELETE", &url, &key, None).to_request()).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // Its users stay.
    for u in [&ada, &bob] {
        let r = send(
            &app,
            scim("GET", &format!("/scim/v2/Users/{u}"), &key, None).to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(r.body.get("groups").is_none());
    }
    // A malformed id names no group.
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups/not-a-uuid", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["status"], "404");
}

#[actix_web::test]
async fn another_organizations_group_is_not_found_and_groups_need_the_scim_scope() {
    let (store, _, key) = world(Scopes::all());
    let other = fixtures::seed(&store);
    let other_key = issue_api_key(&*store, other.org.id, Scopes::all(), None, Utc::now())
        .unwrap_or_else(|e| panic!("{e}"))
        .secret;
    let reader = issue_api_key(
        &*store,
        other.org.id,
        Scopes::from_list([Scope::InventoryRead]),
        None,
        Utc::now(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .secret;
    let app = app!(store);
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"displayName": "Engineering"})),
        )
        .to_request(),
    )
    .await;
    let url = format!(
        "/scim/v2/Groups/{}",
        r.body["id"].as_str().unwrap_or_default()
    );
    for (method, body) in [
        ("GET", None),
        ("PUT", Some(json!({"displayName": "Mine"}))),
        (
            "PATCH",
            Some(patch_body(
                json!([{"op": "replace", "path": "displayName", "value": "Mine"}]),
            )),
        ),
        ("DELETE", None),
    ] {
        let r = send(&app, scim(method, &url, &other_key, body).to_request()).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{method}");
    }
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups", &other_key, None).to_request(),
    )
    .await;
    assert_eq!(r.body["totalResults"], 0);
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups", &reader, None).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = send(&app, scim("GET", &url, &key, None).to_request()).await;
    assert_eq!(r.body["displayName"], "Engineering");
}

#[actix_web::test]
async fn every_patch_shape_applies_end_to_end() {
    let (store, seeded, key) = world(Scopes::all());
    let kit = package(&store, seeded.org.id, "kit");
    let kit2 = package(&store, seeded.org.id, "kit2");
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let bob = user!(app, key, "bob@example.com");
    let cid = user!(app, key, "cid@example.com");
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"displayName": "Engineering"})),
        )
        .to_request(),
    )
    .await;
    let gid = r.body["id"].as_str().unwrap_or_default().to_owned();
    let url = format!("/scim/v2/Groups/{gid}");
    let filter = |id: &str| format!("members[value eq \"{id}\"]");
    // Each step: the operations, then the members and fields the group has.
    let steps: Vec<(Value, Vec<String>, Value)> = vec![
        // Okta
        (
            json!([{"op": "add", "path": "members", "value": [{"value": ada}, {"value": bob}]}]),
            sorted(&[&ada, &bob]),
            json!({"displayName": "Engineering"}),
        ),
        (
            json!([{"op": "remove", "path": filter(&bob)}]),
            sorted(&[&ada]),
            json!({}),
        ),
        (
            json!([{"op": "replace", "value": {"id": gid, "displayName": "Platform"}}]),
            sorted(&[&ada]),
            json!({"displayName": "Platform"}),
        ),
        // Entra
        (
            json!([{"op": "Add", "path": "members", "value": [{"value": bob}]}]),
            sorted(&[&ada, &bob]),
            json!({}),
        ),
        (
            json!([{"op": "Remove", "path": "members", "value": [{"value": ada}]}]),
            sorted(&[&bob]),
            json!({}),
        ),
        (
            json!([{"op": "Replace", "path": "displayName", "value": "Infra"}]),
            sorted(&[&bob]),
            json!({"displayName": "Infra"}),
        ),
        (
            json!([{"op": "Replace", "path": "externalId", "value": "ext-9"}]),
            sorted(&[&bob]),
            json!({"externalId": "ext-9"}),
        ),
        // Everyone out, then exactly these.
        (
            json!([{"op": "remove", "path": "members"}]),
            vec![],
            json!({}),
        ),
        (
            json!([{"op": "replace", "path": "members", "value": [{"value": ada}, {"value": bob}]}]),
            sorted(&[&ada, &bob]),
            json!({}),
        ),
        (
            json!([{"op": "add", "value": {"members": [{"value": cid}]}}]),
            sorted(&[&ada, &bob, &cid]),
            json!({}),
        ),
        (
            json!([{"op": "replace", "value": {"members": [{"value": cid}]}}]),
            sorted(&[&cid]),
            json!({}),
        ),
        // The extension.
        (
            json!([
                {"op": "replace", "path": format!("{EXT}:packageId"), "value": kit},
                {"op": "replace", "path": format!("{EXT}:precedence"), "value": 4}
            ]),
            sorted(&[&cid]),
            json!({EXT: {"packageId": kit, "precedence": 4}}),
        ),
        (
            json!([{"op": "replace", "value": {EXT: {"packageId": kit2, "precedence": "1"}}}]),
            sorted(&[&cid]),
            json!({EXT: {"packageId": kit2, "precedence": 1}}),
        ),
        (
            json!([{"op": "remove", "path": format!("{EXT}:packageId")}]),
            sorted(&[&cid]),
            json!({EXT: {"precedence": 1}}),
        ),
    ];
    for (ops, members, fields) in steps {
        let r = send(
            &app,
            scim("PATCH", &url, &key, Some(patch_body(ops.clone()))).to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{ops}: {}", r.body);
        assert_eq!(r.member_ids(), members, "{ops}");
        for (k, v) in fields.as_object().into_iter().flatten() {
            assert_eq!(&r.body[k], v, "{ops}: {}", r.body);
        }
        // What PATCH answers is what is stored.
        let stored = send(&app, scim("GET", &url, &key, None).to_request()).await;
        assert_eq!(stored.body, r.body, "{ops}");
        assert_eq!(stored.header("ETag"), r.header("ETag"));
    }
    // Adding a present member and removing an absent one: 200, no change.
    let before = send(&app, scim("GET", &url, &key, None).to_request()).await;
    let r = send(
        &app,
        scim(
            "PATCH",
            &url,
            &key,
            Some(patch_body(json!([
                {"op": "add", "path": "members", "value": [{"value": cid}]},
                {"op": "remove", "path": filter(&ada)}
            ]))),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body, before.body);
    // A package of no one's: 404 naming packageId, nothing applied.
    let r = send(
        &app,
        scim(
            "PATCH",
            &url,
            &key,
            Some(patch_body(json!([
                {"op": "replace", "path": "displayName", "value": "Nope"},
                {"op": "replace", "path": format!("{EXT}:packageId"), "value": PackageId::new().to_string()}
            ]))),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);
    assert!(r.body["detail"]
        .as_str()
        .is_some_and(|d| d.contains("package")));
    // Read-only attributes.
    for path in ["id", "meta.version", "members.display"] {
        let r = send(
            &app,
            scim(
                "PATCH",
                &url,
                &key,
                Some(patch_body(
                    json!([{"op": "replace", "path": path, "value": "x"}]),
                )),
            )
            .to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(r.body["scimType"], "mutability", "{path}");
    }
    let after = send(&app, scim("GET", &url, &key, None).to_request()).await;
    assert_eq!(after.body, before.body);
}

#[actix_web::test]
async fn a_member_who_is_not_a_user_of_the_organization_is_refused_and_nothing_applies() {
    let (store, _, key) = world(Scopes::all());
    let other = fixtures::seed(&store);
    let other_key = issue_api_key(&*store, other.org.id, Scopes::all(), None, Utc::now())
        .unwrap_or_else(|e| panic!("{e}"))
        .secret;
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let gone = user!(app, key, "gone@example.com");
    let stranger = user!(app, other_key, "eve@example.com");
    let r = send(
        &app,
        scim("DELETE", &format!("/scim/v2/Users/{gone}"), &key, None).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"displayName": "Engineering"})),
        )
        .to_request(),
    )
    .await;
    let url = format!(
        "/scim/v2/Groups/{}",
        r.body["id"].as_str().unwrap_or_default()
    );
    for outsider in [&stranger, &gone] {
        let r = send(
            &app,
            scim(
                "PATCH",
                &url,
                &key,
                Some(patch_body(json!([
                    {"op": "replace", "path": "displayName", "value": "Changed"},
                    {"op": "add", "path": "members", "value": [{"value": ada}, {"value": outsider}]}
                ]))),
            )
            .to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        assert_eq!(r.body["scimType"], "invalidValue");
        let detail = r.body["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(outsider.as_str()), "{detail}");
        assert!(!detail.contains(ada.as_str()), "{detail}");
    }
    let r = send(&app, scim("GET", &url, &key, None).to_request()).await;
    assert_eq!(r.body["displayName"], "Engineering");
    assert_eq!(r.body["members"], json!([]), "{}", r.body);
    assert_eq!(r.header("ETag"), Some("W/\"1\""));
    // On create and replace too.
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"displayName": "Sales", "members": [{"value": stranger}]})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.body["detail"]
        .as_str()
        .is_some_and(|d| d.contains(stranger.as_str())));
    let r = send(
        &app,
        scim(
            "PUT",
            &url,
            &key,
            Some(json!({"displayName": "Sales", "members": [{"value": stranger}]})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.body["totalResults"], 1);
    assert_eq!(r.body["Resources"][0]["displayName"], "Engineering");
    // A value that is no user id at all is named.
    let r = send(
        &app,
        scim(
            "PATCH",
            &url,
            &key,
            Some(patch_body(
                json!([{"op": "add", "path": "members", "value": [{"value": "eve"}]}]),
            )),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.body["scimType"], "invalidValue");
    assert!(r.body["detail"]
        .as_str()
        .is_some_and(|d| d.contains("'eve'")));
}

#[actix_web::test]
async fn versions_answer_304_and_412() {
    let (store, _, key) = world(Scopes::all());
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups",
            &key,
            Some(json!({"displayName": "Engineering"})),
        )
        .to_request(),
    )
    .await;
    let url = format!(
        "/scim/v2/Groups/{}",
        r.body["id"].as_str().unwrap_or_default()
    );
    let r = send(
        &app,
        scim("GET", &url, &key, None)
            .insert_header(("If-None-Match", "W/\"1\""))
            .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    assert_eq!(r.header("ETag"), Some("W/\"1\""));
    let r = send(
        &app,
        scim("GET", &url, &key, None)
            .insert_header(("If-None-Match", "W/\"7\""))
            .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);

    let add = patch_body(json!([{"op": "add", "path": "members", "value": [{"value": ada}]}]));
    let stale = |method: &str, body: Option<Value>| {
        scim(method, &url, &key, body)
            .insert_header(("If-Match", "W/\"7\""))
            .to_request()
    };
    let r = send(&app, stale("PATCH", Some(add.clone()))).await;
    assert_eq!(r.status, StatusCode::PRECONDITION_FAILED);
    assert!(r.body["detail"]
        .as_str()
        .is_some_and(|d| d.contains("group")));
    let r = send(&app, stale("PUT", Some(json!({"displayName": "X"})))).await;
    assert_eq!(r.status, StatusCode::PRECONDITION_FAILED);
    let r = send(&app, stale("DELETE", None)).await;
    assert_eq!(r.status, StatusCode::PRECONDITION_FAILED);
    let r = send(&app, scim("GET", &url, &key, None).to_request()).await;
    assert_eq!(r.header("ETag"), Some("W/\"1\""), "nothing applied");

    let r = send(
        &app,
        scim("PATCH", &url, &key, Some(add))
            .insert_header(("If-Match", "W/\"1\""))
            .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("ETag"), Some("W/\"2\""));
    let r = send(
        &app,
        scim("PUT", &url, &key, Some(json!({"displayName": "Eng"})))
            .insert_header(("If-Match", "W/\"2\""))
            .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("ETag"), Some("W/\"3\""));
    let r = send(
        &app,
        scim("DELETE", &url, &key, None)
            .insert_header(("If-Match", "W/\"3\""))
            .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
}

#[actix_web::test]
async fn answers_leave_out_members_when_asked() {
    let (store, _, key) = world(Scopes::all());
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups?excludedAttributes=members",
            &key,
            Some(json!({"displayName": "Engineering", "members": [{"value": ada}]})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert!(r.body.get("members").is_none());
    assert_eq!(r.body["displayName"], "Engineering");
    let id = r.body["id"].as_str().unwrap_or_default().to_owned();
    let url = format!("/scim/v2/Groups/{id}");
    let r = send(
        &app,
        scim(
            "GET",
            &format!("{url}?excludedAttributes=members"),
            &key,
            None,
        )
        .to_request(),
    )
    .await;
    assert!(r.body.get("members").is_none());
    assert_eq!(r.body["meta"]["version"], "W/\"1\"");
    let r = send(
        &app,
        scim(
            "GET",
            "/scim/v2/Groups?excludedAttributes=members",
            &key,
            None,
        )
        .to_request(),
    )
    .await;
    assert!(r.body["Resources"][0].get("members").is_none());
    // PATCH as Okta and Entra send it: 200 with the group, without members.
    let r = send(
        &app,
        scim(
            "PATCH",
            &format!("{url}?excludedAttributes=members"),
            &key,
            Some(patch_body(
                json!([{"op": "remove", "path": format!("members[value eq \"{ada}\"]")}]),
            )),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.get("members").is_none());
    assert_eq!(r.body["meta"]["version"], "W/\"2\"");
    // attributes: only what is named, and the id.
    let r = send(
        &app,
        scim("GET", &format!("{url}?attributes=displayName"), &key, None).to_request(),
    )
    .await;
    assert_eq!(
        r.body,
        json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
            "id": id,
            "displayName": "Engineering"
        })
    );
    send(
        &app,
        scim(
            "PATCH",
            &url,
            &key,
            Some(patch_body(
                json!([{"op": "add", "path": "members", "value": [{"value": ada}]}]),
            )),
        )
        .to_request(),
    )
    .await;
    let r = send(
        &app,
        scim(
            "GET",
            &format!("{url}?attributes=members.value"),
            &key,
            None,
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.body["members"], json!([{"value": ada}]));
}

#[actix_web::test]
async fn groups_are_filtered_on_their_fields_and_members() {
    let (store, _, key) = world(Scopes::all());
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let bob = user!(app, key, "bob@example.com");
    for (name, ext, members) in [
        ("Engineering", "e-1", vec![ada.clone()]),
        ("Sales", "s-1", vec![bob.clone(), ada.clone()]),
        ("Empty", "x-1", vec![]),
    ] {
        let members: Vec<Value> = members.iter().map(|m| json!({"value": m})).collect();
        let r = send(
            &app,
            scim(
                "POST",
                "/scim/v2/Groups",
                &key,
                Some(json!({"displayName": name, "externalId": ext, "members": members})),
            )
            .to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let names = |r: &Reply| -> Vec<String> {
        r.body["Resources"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|g| g["displayName"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let cases: Vec<(String, Vec<&str>)> = vec![
        (format!("members.value eq \"{bob}\""), vec!["Sales"]),
        (format!("members[value eq \"{ada}\"]"), vec!["Engineering", "Sales"]),
        (format!("members.value ne \"{bob}\""), vec!["Engineering", "Empty"]),
        ("members pr".into(), vec!["Engineering", "Sales"]),
        ("not (members pr)".into(), vec!["Empty"]),
        ("displayName sw \"e\"".into(), vec!["Engineering", "Empty"]),
        ("displayName eq \"SALES\"".into(), vec!["Sales"]),
        ("externalId eq \"S-1\"".into(), vec![]),
        ("externalId ew \"-1\" and displayName co \"a\"".into(), vec!["Sales"]),
        ("meta.created gt \"2000-01-01T00:00:00Z\" and meta.lastModified le \"2999-01-01T00:00:00Z\"".into(), vec!["Engineering", "Sales", "Empty"]),
    ];
    for (filter, want) in cases {
        let uri = format!(
            "/scim/v2/Groups?sortBy=displayName&filter={}",
            urlencode(&filter)
        );
        let r = send(&app, scim("GET", &uri, &key, None).to_request()).await;
        assert_eq!(r.status, StatusCode::OK, "{filter}: {}", r.body);
        let mut want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
        want.sort();
        assert_eq!(names(&r), want, "{filter}");
        assert_eq!(r.body["totalResults"], want.len(), "{filter}");
    }
    let r = send(
        &app,
        scim(
            "GET",
            &format!("/scim/v2/Groups?filter={}", urlencode("userName eq \"a\"")),
            &key,
            None,
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.body["scimType"], "invalidFilter");
    // Sorted, paged, and by search.
    let r = send(
        &app,
        scim(
            "GET",
            "/scim/v2/Groups?sortBy=displayName&sortOrder=descending&startIndex=2&count=1",
            &key,
            None,
        )
        .to_request(),
    )
    .await;
    assert_eq!(
        names(&r),
        ["Sales".to_owned(), "Engineering".to_owned()][1..]
    );
    assert_eq!(
        (r.body["totalResults"].clone(), r.body["startIndex"].clone()),
        (json!(3), json!(2))
    );
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Groups/.search",
            &key,
            Some(json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                "filter": format!("members.value eq \"{ada}\""),
                "sortBy": "displayName",
                "excludedAttributes": ["members"]
            })),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(names(&r), ["Engineering", "Sales"]);
    assert!(r.body["Resources"][0].get("members").is_none());
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups?sortBy=members", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[actix_web::test]
async fn users_show_their_groups_and_effective_package() {
    let (store, seeded, key) = world(Scopes::all());
    let (kit_a, kit_b) = (
        package(&store, seeded.org.id, "a"),
        package(&store, seeded.org.id, "b"),
    );
    let app = app!(store);
    let ada = user!(app, key, "ada@example.com");
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Users",
            &key,
            Some(json!({"userName": "bob@example.com", USER_EXT: {"packageId": kit_a}})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(r.body[USER_EXT]["effectivePackageId"], kit_a.as_str());
    let bob = r.body["id"].as_str().unwrap_or_default().to_owned();
    let mut gids = Vec::new();
    for (name, kit, precedence, members) in [
        ("Everyone", None, -1, vec![&ada, &bob]),
        ("Design", Some(&kit_a), 5, vec![&ada]),
        ("Engineering", Some(&kit_b), 1, vec![&ada, &bob]),
    ] {
        let members: Vec<Value> = members.iter().map(|m| json!({"value": m})).collect();
        let r = send(
            &app,
            scim(
                "POST",
                "/scim/v2/Groups",
                &key,
                Some(json!({
                    "displayName": name,
                    "members": members,
                    EXT: {"packageId": kit, "precedence": precedence}
                })),
            )
            .to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        gids.push(r.body["id"].as_str().unwrap_or_default().to_owned());
    }
    let get = |id: &str| scim("GET", &format!("/scim/v2/Users/{id}"), &key, None).to_request();
    let r = send(&app, get(&ada)).await;
    // The group of lowest precedence with a package gives ada's.
    assert_eq!(r.body[USER_EXT]["effectivePackageId"], kit_b.as_str());
    assert!(r.body[USER_EXT].get("packageId").is_none());
    let groups = r.body["groups"].as_array().cloned().unwrap_or_default();
    let shown: Vec<&str> = groups
        .iter()
        .filter_map(|g| g["display"].as_str())
        .collect();
    assert_eq!(shown, ["Design", "Engineering", "Everyone"]);
    assert_eq!(groups[1]["value"], gids[2].as_str());
    assert_eq!(groups[1]["type"], "direct");
    assert!(groups[1]["$ref"]
        .as_str()
        .is_some_and(|s| s.ends_with(&format!("/scim/v2/Groups/{}", gids[2]))));
    // Bob's own package wins.
    let r = send(&app, get(&bob)).await;
    assert_eq!(r.body[USER_EXT]["effectivePackageId"], kit_a.as_str());
    assert_eq!(r.body["groups"].as_array().map(Vec::len), Some(2));
    // Lists, PATCH and PUT answers carry them too.
    let r = send(
        &app,
        scim("GET", "/scim/v2/Users?sortBy=userName", &key, None).to_request(),
    )
    .await;
    assert_eq!(
        r.body["Resources"][0]["groups"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(
        r.body["Resources"][1][USER_EXT]["effectivePackageId"],
        kit_a.as_str()
    );
    let r = send(
        &app,
        scim(
            "PATCH",
            &format!("/scim/v2/Users/{ada}"),
            &key,
            Some(patch_body(json!([{"op": "replace", "value": {
                "displayName": "Ada",
                "groups": [{"value": gids[0]}],
                USER_EXT: {"effectivePackageId": kit_a}
            }}]))),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["displayName"], "Ada");
    assert_eq!(
        r.body["groups"].as_array().map(Vec::len),
        Some(3),
        "ignored in a body"
    );
    assert_eq!(r.body[USER_EXT]["effectivePackageId"], kit_b.as_str());
    for path in [
        "groups",
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User:effectivePackageId",
    ] {
        let r = send(
            &app,
            scim(
                "PATCH",
                &format!("/scim/v2/Users/{ada}"),
                &key,
                Some(patch_body(json!([{"op": "remove", "path": path}]))),
            )
            .to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(r.body["scimType"], "mutability", "{path}");
    }
    let r = send(
        &app,
        scim(
            "PUT",
            &format!("/scim/v2/Users/{ada}"),
            &key,
            Some(json!({"userName": "ada@example.com", "groups": [], USER_EXT: {"effectivePackageId": kit_a}})),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["groups"].as_array().map(Vec::len), Some(3));
    assert_eq!(r.body[USER_EXT]["effectivePackageId"], kit_b.as_str());
    // The group's precedence decides at once.
    let r = send(
        &app,
        scim(
            "PATCH",
            &format!("/scim/v2/Groups/{}", gids[2]),
            &key,
            Some(patch_body(
                json!([{"op": "replace", "path": format!("{EXT}:precedence"), "value": 9}]),
            )),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let r = send(&app, get(&ada)).await;
    assert_eq!(r.body[USER_EXT]["effectivePackageId"], kit_a.as_str());
    // Leaving every group with a package leaves none.
    for g in &gids[1..] {
        send(
            &app,
            scim("DELETE", &format!("/scim/v2/Groups/{g}"), &key, None).to_request(),
        )
        .await;
    }
    let r = send(&app, get(&ada)).await;
    assert!(r.body[USER_EXT].get("effectivePackageId").is_none());
    assert_eq!(r.body["groups"][0]["display"], "Everyone");
}

#[actix_web::test]
async fn bulk_creates_users_and_a_group_that_names_them_by_bulk_id() {
    let (store, _, key) = world(Scopes::all());
    let app = app!(store);
    let r = send(
        &app,
        scim(
            "POST",
            "/scim/v2/Bulk",
            &key,
            Some(json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
                "Operations": [
                    {"method": "POST", "path": "/Users", "bulkId": "u1", "data": {"userName": "ada@example.com"}},
                    {"method": "POST", "path": "/Users", "bulkId": "u2", "data": {"userName": "bob@example.com"}},
                    {"method": "POST", "path": "/Groups", "bulkId": "g1", "data": {
                        "displayName": "Engineering",
                        "members": [{"value": "bulkId:u1"}, {"value": "bulkId:u2"}]
                    }},
                    {"method": "PATCH", "path": "/Groups/bulkId:g1", "data": {
                        "schemas": [PATCH_OP],
                        "Operations": [{"op": "remove", "path": "members[value eq \"bulkId:u2\"]"}]
                    }},
                    {"method": "POST", "path": "/Groups", "bulkId": "g2", "data": {"displayName": "Temp"}},
                    {"method": "PUT", "path": "/Groups/bulkId:g2", "version": "W/\"1\"", "data": {
                        "displayName": "Sales", "members": [{"value": "bulkId:u2"}]
                    }},
                    {"method": "DELETE", "path": "/Groups/bulkId:g2"},
                    {"method": "POST", "path": "/Groups", "bulkId": "g3", "data": {
                        "displayName": "Later", "members": [{"value": "bulkId:u9"}]
                    }},
                    {"method": "POST", "path": "/Things", "bulkId": "t", "data": {}}
                ]
            })),
        )
        .to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let ops = r.body["Operations"].as_array().cloned().unwrap_or_default();
    let statuses: Vec<&str> = ops.iter().filter_map(|o| o["status"].as_str()).collect();
    assert_eq!(
        statuses,
        ["201", "201", "201", "200", "201", "200", "204", "409", "400"],
        "{}",
        r.body
    );
    let location = ops[2]["location"].as_str().unwrap_or_default();
    assert!(location.contains("/scim/v2/Groups/"), "{location}");
    assert_eq!(ops[3]["location"], location);
    assert_eq!(ops[3]["version"], "W/\"2\"");
    assert_eq!(ops[8]["response"]["scimType"], "invalidPath");
    let path = &location[location.find("/scim/").unwrap_or(0)..];
    let group = send(&app, scim("GET", path, &key, None).to_request()).await;
    assert_eq!(group.body["displayName"], "Engineering");
    let ada = ops[0]["location"]
        .as_str()
        .unwrap_or_default()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(group.member_ids(), [ada]);
    let r = send(
        &app,
        scim("GET", "/scim/v2/Groups", &key, None).to_request(),
    )
    .await;
    assert_eq!(
        r.body["totalResults"], 1,
        "Sales was deleted, Later never made"
    );
}

#[actix_web::test]
async fn discovery_describes_groups() {
    let (store, _, key) = world(Scopes::all());
    let app = app!(store);
    let r = send(
        &app,
        scim("GET", "/scim/v2/ResourceTypes", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.body["totalResults"], 2);
    let ids: Vec<&str> = r.body["Resources"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, ["User", "Group"]);
    let r = send(
        &app,
        scim("GET", "/scim/v2/ResourceTypes/Group", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["endpoint"], "/Groups");
    assert_eq!(
        r.body["schemaExtensions"],
        json!([{"schema": EXT, "required": false}])
    );
    let r = send(
        &app,
        scim("GET", "/scim/v2/Schemas", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.body["totalResults"], 4);
    for id in ["urn:ietf:params:scim:schemas:core:2.0:Group", EXT] {
        let r = send(
            &app,
            scim("GET", &format!("/scim/v2/Schemas/{id}"), &key, None).to_request(),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{id}");
        assert_eq!(r.body["id"], id);
    }
    let r = send(
        &app,
        scim(
            "GET",
            "/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User",
            &key,
            None,
        )
        .to_request(),
    )
    .await;
    let groups = r.body["attributes"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["name"] == "groups").cloned())
        .unwrap_or(Value::Null);
    assert_eq!(groups["mutability"], "readOnly");
    // Groups answer 405 for a method they do not have, with the SCIM body.
    let r = send(
        &app,
        scim("DELETE", "/scim/v2/Groups", &key, None).to_request(),
    )
    .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("Allow"), Some("GET, HEAD, POST"));
}
