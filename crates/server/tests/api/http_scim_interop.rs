//! Black-box tests of what real SCIM clients need of `/scim/v2` (issue 28),
//! through the real application on SQLite and PostgreSQL: filters on the
//! timestamps equip shows, a page cap an identity provider's `count` fits
//! in, the authentication scheme discovery announces, extra slashes and a
//! missing `Content-Type` forgiven, the CSV's `start_date` column, and the
//! reminder naming a package that comes from a group.
use std::process::Command;

use crate::support::process::{organization_with_key, Serve};
use crate::support::scim::{okta_user, package, EXT, SCIM};
use crate::support::{url_encode, Client, TestApp};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::ports::OutboxRepository;
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

on_both_backends!(
    user_time_filters_match_the_times_shown,
    group_time_filters_match_the_times_shown,
    pages_follow_the_scim_max_results_setting,
    discovery_lists_the_bearer_scheme_equip_accepts,
    writes_without_content_type_are_read_as_scim_json,
    trailing_and_doubled_slashes_are_served_on_scim_only,
    a_start_date_column_makes_csv_people_new_joiners,
    the_reminder_names_the_package_of_the_persons_group,
    entra_default_mapping_is_accepted_as_patch_with_deactivation,
    entra_default_mapping_is_accepted_as_post,
);

const GROUP: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";
const GROUP_EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group";
const BULK: &str = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";
const CSV_HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";
const BOUNDARY: &str = "equip-interop-boundary-2c9d";

async fn ok(app: &TestApp, req: TestRequest) -> Value {
    let (status, body) = app.call(req).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn created(app: &TestApp, req: TestRequest) -> Value {
    let (status, body) = app.call(req).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// `totalResults` of `GET <resource>?filter=<filter>`.
async fn total(app: &TestApp, c: &Client, resource: &str, filter: &str) -> u64 {
    let path = format!("/scim/v2/{resource}?filter={}", url_encode(filter));
    ok(app, c.get(&path)).await["totalResults"]
        .as_u64()
        .unwrap()
}

/// Checks that filters on `attr` with the value `shown` (as equip returned
/// it) treat the resource as having exactly that time.
async fn assert_compares_as_shown(
    app: &TestApp,
    c: &Client,
    resource: &str,
    attr: &str,
    shown: &str,
    id: &str,
) {
    let only = |op: &str| format!(r#"id eq "{id}" and {attr} {op} "{shown}""#);
    for (op, expected) in [
        ("eq", 1),
        ("ne", 0),
        ("gt", 0),
        ("ge", 1),
        ("lt", 0),
        ("le", 1),
    ] {
        assert_eq!(
            total(app, c, resource, &only(op)).await,
            expected,
            "{resource}: {attr} {op} {shown}"
        );
    }
}

// ---------------------------------------------------------------------------

async fn user_time_filters_match_the_times_shown(app: TestApp) {
    let w = app.world();
    // Two users: the chance that both were stored on a whole millisecond
    // (where the stored and the shown time agree anyway) is negligible.
    for name in ["ada@acme.example", "bob@acme.example"] {
        let user = created(&app, w.a.scim_post("/scim/v2/Users", &okta_user(name))).await;
        let id = user["id"].as_str().unwrap();
        for attr in ["created", "lastModified"] {
            let shown = user["meta"][attr].as_str().unwrap();
            assert_compares_as_shown(&app, &w.a, "Users", &format!("meta.{attr}"), shown, id).await;
        }
        // A delta sync: nothing changed after the last lastModified seen.
        let last = user["meta"]["lastModified"].as_str().unwrap();
        let changed = format!(r#"meta.lastModified gt "{last}""#);
        let later = total(&app, &w.a, "Users", &changed).await;
        assert_eq!(later, 0, "{changed}");
    }
}

async fn group_time_filters_match_the_times_shown(app: TestApp) {
    let w = app.world();
    for name in ["Engineering", "Sales"] {
        let group = json!({"schemas": [GROUP], "displayName": name});
        let group = created(&app, w.a.scim_post("/scim/v2/Groups", &group)).await;
        let id = group["id"].as_str().unwrap();
        for attr in ["created", "lastModified"] {
            let shown = group["meta"][attr].as_str().unwrap();
            assert_compares_as_shown(&app, &w.a, "Groups", &format!("meta.{attr}"), shown, id)
                .await;
        }
    }
}

/// A Bulk request creating `n` users `<prefix><i>@acme.example`.
fn users_bulk(prefix: &str, n: usize) -> Value {
    let ops: Vec<Value> = (0..n)
        .map(|i| {
            json!({"method": "POST", "bulkId": format!("u{i}"), "path": "/Users",
                   "data": okta_user(&format!("{prefix}{i}@acme.example"))})
        })
        .collect();
    json!({"schemas": [BULK], "Operations": ops})
}

/// A Bulk request creating `n` groups.
fn groups_bulk(n: usize) -> Value {
    let ops: Vec<Value> = (0..n)
        .map(|i| {
            json!({"method": "POST", "bulkId": format!("g{i}"), "path": "/Groups",
                   "data": {"schemas": [GROUP], "displayName": format!("Team {i}")}})
        })
        .collect();
    json!({"schemas": [BULK], "Operations": ops})
}

async fn pages_follow_the_scim_max_results_setting(app: TestApp) {
    let app = app.with_scim_max_results(100);
    let w = app.world();
    ok(&app, w.a.scim_post("/scim/v2/Bulk", &users_bulk("u", 120))).await;
    ok(&app, w.a.scim_post("/scim/v2/Bulk", &groups_bulk(60))).await;
    let spc = ok(&app, w.a.get("/scim/v2/ServiceProviderConfig")).await;
    assert_eq!(spc["filter"]["maxResults"], 100);
    // Okta asks for 100 and steps startIndex by 100: nobody is skipped.
    let first = ok(&app, w.a.get("/scim/v2/Users?startIndex=1&count=100")).await;
    assert_eq!(first["itemsPerPage"], 100);
    assert_eq!(first["totalResults"], 120);
    let second = ok(&app, w.a.get("/scim/v2/Users?startIndex=101&count=100")).await;
    assert_eq!(second["itemsPerPage"], 20);
    let names = |page: &Value| -> Vec<String> {
        page["Resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["userName"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut all = names(&first);
    all.extend(names(&second));
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 120);
    // No more than the setting, however many are asked for; without count, as many.
    let big = ok(&app, w.a.get("/scim/v2/Users?count=500")).await;
    assert_eq!(big["itemsPerPage"], 100);
    let default = ok(&app, w.a.get("/scim/v2/Users")).await;
    assert_eq!(default["itemsPerPage"], 100);
    // Groups and searches too.
    let groups = ok(&app, w.a.get("/scim/v2/Groups?count=100")).await;
    assert_eq!(groups["itemsPerPage"], 60);
    let search =
        json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"], "count": 1000});
    let found = ok(&app, w.a.scim_post("/scim/v2/Users/.search", &search)).await;
    assert_eq!(found["itemsPerPage"], 100);
    let found = ok(&app, w.a.scim_post("/scim/v2/.search", &search)).await;
    assert_eq!(found["itemsPerPage"], 100);
    assert_eq!(found["totalResults"], 180);
}

#[test]
fn scim_max_results_is_a_serve_setting_from_1_to_1000() {
    let db = TestDatabase::sqlite();
    let key = organization_with_key(&db, "Acme");
    let server = Serve::start(db.url(), &["--no-dispatcher", "--scim-max-results", "100"]);
    let spc = server
        .client(&key)
        .get("/scim/v2/ServiceProviderConfig")
        .unwrap()
        .json();
    assert_eq!(spc["filter"]["maxResults"], 100, "{spc}");
    drop(server);
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    let spc = server
        .client(&key)
        .get("/scim/v2/ServiceProviderConfig")
        .unwrap()
        .json();
    assert_eq!(spc["filter"]["maxResults"], 50, "the default: {spc}");
    drop(server);
    for bad in ["0", "1001"] {
        let run = Command::new(env!("CARGO_BIN_EXE_equip"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .env("DATABASE_URL", db.url())
            .env("EQUIP_SCIM_MAX_RESULTS", bad)
            .output()
            .unwrap();
        assert!(
            !run.status.success(),
            "EQUIP_SCIM_MAX_RESULTS={bad} was accepted"
        );
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("scim-max-results"), "{stderr}");
    }
}

async fn discovery_lists_the_bearer_scheme_equip_accepts(app: TestApp) {
    let w = app.world();
    let spc = ok(&app, w.a.get("/scim/v2/ServiceProviderConfig")).await;
    let schemes = spc["authenticationSchemes"].as_array().unwrap();
    assert_eq!(schemes.len(), 1, "{spc}");
    assert_eq!(schemes[0]["type"], "oauthbearertoken");
    assert_eq!(schemes[0]["primary"], true);
    let description = schemes[0]["description"].as_str().unwrap();
    assert!(description.contains("Bearer <key>"), "{description}");
    assert!(description.contains("ApiKey <key>"), "{description}");
    assert!(!spc.to_string().contains("httpbasic"), "{spc}");
    // What it announces works: the key as a bearer token.
    let bearer = TestRequest::get()
        .uri("/scim/v2/ServiceProviderConfig")
        .insert_header(("Authorization", format!("Bearer {}", w.a.key)));
    ok(&app, bearer).await;
}

async fn writes_without_content_type_are_read_as_scim_json(app: TestApp) {
    let w = app.world();
    let bare = |req: TestRequest, body: &Value| w.a.with(req).set_payload(body.to_string());
    // POST without Content-Type: created.
    let user = created(
        &app,
        bare(
            TestRequest::post().uri("/scim/v2/Users"),
            &okta_user("ada@acme.example"),
        ),
    )
    .await;
    let path = format!("/scim/v2/Users/{}", user["id"].as_str().unwrap());
    // PUT and PATCH without Content-Type.
    let mut replacement = okta_user("ada@acme.example");
    replacement["displayName"] = json!("Ada King");
    let put = ok(&app, bare(TestRequest::put().uri(&path), &replacement)).await;
    assert_eq!(put["displayName"], "Ada King");
    let patch = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": "replace", "path": "displayName", "value": "Ada L."}]
    });
    let patched = ok(&app, bare(TestRequest::patch().uri(&path), &patch)).await;
    assert_eq!(patched["displayName"], "Ada L.");
    // Bulk and search too.
    ok(
        &app,
        bare(
            TestRequest::post().uri("/scim/v2/Bulk"),
            &users_bulk("b", 1),
        ),
    )
    .await;
    let search = json!({"filter": "userName eq \"ada@acme.example\""});
    let found = ok(
        &app,
        bare(TestRequest::post().uri("/scim/v2/Users/.search"), &search),
    )
    .await;
    assert_eq!(found["totalResults"], 1);
    // A type that is not JSON is still refused.
    let (status, body) = app
        .call(
            bare(
                TestRequest::post().uri("/scim/v2/Users"),
                &okta_user("bob@acme.example"),
            )
            .insert_header(("Content-Type", "text/xml")),
        )
        .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert_eq!(body["status"], "415");
    // /api/v1 still requires its Content-Type.
    let level = json!({"skuId": w.a_sku.to_string(), "warehouseId": w.a_warehouse.to_string(), "minimumQuantity": 1});
    let (status, body) = app
        .call(bare(
            TestRequest::post().uri("/api/v1/inventory-levels"),
            &level,
        ))
        .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert!(body["errors"].is_array(), "{body}");
}

async fn trailing_and_doubled_slashes_are_served_on_scim_only(app: TestApp) {
    let w = app.world();
    // A tenant URL typed with a trailing slash: `…/scim/v2/` + `/Users`.
    let user = created(
        &app,
        w.a.scim_post("/scim/v2//Users", &okta_user("ada@acme.example")),
    )
    .await;
    let id = user["id"].as_str().unwrap();
    let filter = url_encode(r#"userName eq "ada@acme.example""#);
    for path in [
        "/scim/v2/Users/".to_owned(),
        "/scim/v2//Users".to_owned(),
        format!("/scim/v2//Users?filter={filter}"),
        format!("/scim/v2/Users/?filter={filter}"),
    ] {
        let list = ok(&app, w.a.get(&path)).await;
        assert_eq!(list["totalResults"], 1, "{path}: {list}");
    }
    for path in [
        format!("/scim/v2/Users/{id}/"),
        format!("/scim/v2//Users//{id}"),
    ] {
        let got = ok(&app, w.a.get(&path)).await;
        assert_eq!(got["id"], id, "{path}");
    }
    ok(&app, w.a.get("/scim/v2/ServiceProviderConfig/")).await;
    // Unknown SCIM paths and methods keep their SCIM answers.
    let (status, body) = app.call(w.a.get("/scim/v2/Nothing/")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        body["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:Error"
    );
    let raw = app
        .call_raw(w.a.with(TestRequest::delete().uri("/scim/v2/Users/")))
        .await;
    assert_eq!(raw.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(raw.content_type.as_deref(), Some(SCIM));
    assert_eq!(raw.allow.as_deref(), Some("GET, HEAD, POST"));
    // /api/v1 is routed as sent.
    let (status, body) = app.call(w.a.get("/api/v1/warehouses/")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body["errors"].is_array(), "{body}");
    let (status, _) = app.call(w.a.get("/api/v1//warehouses")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    ok(&app, w.a.get("/api/v1/warehouses")).await;
}

fn csv_upload(c: &Client, csv: &str) -> TestRequest {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"users.csv\"\r\n\
         Content-Type: text/csv\r\n\r\n{csv}\r\n--{BOUNDARY}--\r\n"
    )
    .into_bytes();
    body.shrink_to_fit();
    c.with(TestRequest::post().uri("/scim/v2/Users/csv"))
        .insert_header((
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ))
        .set_payload(body)
}

async fn a_start_date_column_makes_csv_people_new_joiners(app: TestApp) {
    let w = app.world();
    let start = (Utc::now().date_naive() + chrono::Days::new(10)).format("%Y-%m-%d");
    let csv = format!(
        "{CSV_HEADER},Start_Date\n\
         ,Ana,Lima,ana@acme.example,,,,,,,,,,,,{start}\n\
         ,Bia,Reis,bia@acme.example,,,,,,,,,,,,next monday\n"
    );
    let body = ok(&app, csv_upload(&w.a, &csv)).await;
    let ops = body["Operations"].as_array().unwrap();
    assert_eq!(ops[0]["status"], "201", "{body}");
    assert_eq!(ops[1]["status"], "400", "{body}");
    assert!(
        ops[1]["response"]["detail"]
            .as_str()
            .unwrap()
            .contains("start_date"),
        "{body}"
    );
    let id = ops[0]["location"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let user = ok(&app, w.a.get(&format!("/scim/v2/Users/{id}"))).await;
    assert_eq!(user[EXT]["startDate"], start.to_string(), "{user}");
    // The person can be reminded.
    let (status, body) = app
        .call(w.a.with(TestRequest::post().uri(&format!("/api/v1/new-joiners/{id}/remind"))))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    // A file of exactly the document's 15 columns still works.
    let csv = format!("{CSV_HEADER}\n,Caio,Melo,caio@acme.example,,,,,,,,,,,\n");
    let body = ok(&app, csv_upload(&w.a, &csv)).await;
    assert_eq!(body["Operations"][0]["status"], "201", "{body}");
}

async fn the_reminder_names_the_package_of_the_persons_group(app: TestApp) {
    let w = app.world();
    let kit = package(&app.store, w.a_org, "eng-kit");
    let mut joiner = okta_user("ana@acme.example");
    let start = (Utc::now().date_naive() + chrono::Days::new(7)).format("%Y-%m-%d");
    joiner["schemas"] = json!(["urn:ietf:params:scim:schemas:core:2.0:User", EXT]);
    joiner[EXT] = json!({"startDate": start.to_string()});
    let user = created(&app, w.a.scim_post("/scim/v2/Users", &joiner)).await;
    let id = user["id"].as_str().unwrap();
    let group = json!({
        "schemas": [GROUP, GROUP_EXT],
        "displayName": "Engineering",
        "members": [{"value": id}],
        GROUP_EXT: {"packageId": kit.to_string()}
    });
    created(&app, w.a.scim_post("/scim/v2/Groups", &group)).await;
    let (status, body) = app
        .call(w.a.with(TestRequest::post().uri(&format!("/api/v1/new-joiners/{id}/remind"))))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let now = Utc::now();
    let messages = app
        .store
        .claim_outbox_messages(now, now + chrono::Duration::minutes(5), 10)
        .unwrap();
    assert_eq!(messages.len(), 1);
    for text in [&messages[0].body_text, &messages[0].body_html] {
        // `package` names it "Package <slug>".
        assert!(text.contains("Package eng-kit"), "{text}");
        assert!(!text.contains("not been chosen"), "{text}");
    }
}

// Microsoft Entra ID's default attribute mapping: the sub-attributes RFC 7643
// defines but equip does not store are accepted and ignored, so the rest of a
// PATCH (a deactivation) is not lost (docs/reliability.md, "What identity
// providers send").
const ENTERPRISE: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

async fn create_user(app: &TestApp, c: &Client, body: &Value) -> Value {
    let (status, user) = app.call(c.scim_post("/scim/v2/Users", body)).await;
    assert_eq!(status, StatusCode::CREATED, "{user}");
    user
}

fn entra_user_path(user: &Value) -> String {
    format!("/scim/v2/Users/{}", user["id"].as_str().unwrap())
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
        json!({"givenName": "Grace", "familyName": "Hopper", "formatted": "Grace Hopper"})
    );
    assert_eq!(u["title"], "Rear Admiral", "title is stored: {u}");
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
    assert!(
        u.get(ENTERPRISE).is_none(),
        "the enterprise extension is not stored: {u}"
    );
}

async fn entra_default_mapping_is_accepted_as_patch_with_deactivation(app: TestApp) {
    let w = app.world();
    let user = create_user(&app, &w.a, &okta_user("grace@contoso.example")).await;
    assert_eq!(user["active"], true);
    let body = json!({"schemas": [crate::support::scim::PATCH_OP], "Operations": entra_default_mapping_ops("grace@contoso.example")});
    let (status, patched) = app
        .call(w.a.scim_patch(&entra_user_path(&user), &body))
        .await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let (status, read) = app.call(w.a.get(&entra_user_path(&user))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        read["active"], false,
        "the deactivation took effect: {read}"
    );
    assert_entra_mapping_stored(&read, "grace@contoso.example");
    // Alone, the office mapping is accepted too and changes nothing.
    let (status, again) = app
        .call(w.a.scim_patch(
            &entra_user_path(&user),
            &json!({"schemas": [crate::support::scim::PATCH_OP], "Operations": [
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
    let user = create_user(&app, &w.a, &body).await;
    assert_eq!(user["active"], false);
    let (_, read) = app.call(w.a.get(&entra_user_path(&user))).await;
    assert_entra_mapping_stored(&read, "grace@contoso.example");
}
