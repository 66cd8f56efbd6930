//! Black-box tests of `GET /api/v1/inventory` through the real application on
//! SQLite and PostgreSQL. The domain's in-memory store, fed the same data, is
//! the reference for what each filter and order must return.
use crate::support::inventory::{organization, seed, Seeded};
use crate::support::TestApp;
use actix_web::http::StatusCode;
use equip_domain::inventory_query::RawInventoryQuery;
use serde_json::Value;

on_both_backends!(
    envelope_default_order_and_every_field,
    every_sort_key_in_both_directions_pages_through_every_item_once,
    every_filter_matches_the_reference,
    totals_and_pages,
    bad_parameters_are_400_naming_them,
    ids_of_another_organization_are_404,
    tenant_isolation,
    scope_and_key_are_required,
    deep_pages_start_from_remembered_positions_and_stay_exact,
);

const N: usize = 61;

fn seeded(app: &TestApp) -> Seeded {
    let w = app.world();
    seed(&app.store, &organization(w.a_org), N)
}

fn ids(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .expect("data array")
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every id the listing returns for `query`, page by page (size 7).
async fn all_pages(app: &TestApp, query: &str) -> Vec<String> {
    let w = app.world();
    let mut out = Vec::new();
    for page in 1.. {
        let (status, body) = app
            .call(w.a.get(&format!("/api/v1/inventory?{query}&size=7&page={page}")))
            .await;
        assert_eq!(status, StatusCode::OK, "{query}: {body}");
        let got = ids(&body);
        let total_pages = body["pagination"]["totalPages"].as_u64().unwrap();
        out.extend(got.clone());
        if page as u64 >= total_pages {
            assert!(got.len() <= 7);
            break;
        }
        assert_eq!(got.len(), 7, "{query} page {page}");
    }
    out
}

fn raw(f: impl FnOnce(&mut RawInventoryQuery)) -> RawInventoryQuery {
    let mut r = RawInventoryQuery::default();
    f(&mut r);
    r
}

async fn envelope_default_order_and_every_field(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let (status, body) = app.call(w.a.get("/api/v1/inventory")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body["pagination"],
        serde_json::json!({"totalRecords": N, "totalPages": 1, "currentPage": 1, "pageSize": 100})
    );
    assert_eq!(
        ids(&body),
        s.expected_ids(w.a_org, RawInventoryQuery::default())
    );
    // The alias without the version segment answers the same.
    let (status, alias) = app.call(w.a.get("/api/inventory")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(alias, body);

    let data = body["data"].as_array().unwrap();
    // Default order: createdAt descending.
    let created: Vec<&str> = data
        .iter()
        .map(|i| i["createdAt"].as_str().unwrap())
        .collect();
    assert!(created.windows(2).all(|p| p[0] >= p[1]), "{created:?}");

    // Every field of docs/api.md's item is present on every item; imei and tags are arrays.
    const FIELDS: [&str; 29] = [
        "id",
        "skuId",
        "serialNumber",
        "imei",
        "deployStatus",
        "deployReason",
        "condition",
        "categoryCode",
        "categoryNameOfSku",
        "skuTitle",
        "vendorCode",
        "vendorSku",
        "createdAt",
        "updatedAt",
        "renewalDate",
        "renewalDateUpdatedBy",
        "billingStartDate",
        "billingEndDate",
        "procurementMethod",
        "returnOrder",
        "assignedTo",
        "tags",
        "pricing",
        "description",
        "erpInvoiceId",
        "holdStartDate",
        "unlockDate",
        "itadRequested",
        "deviceProgram",
    ];
    for item in data {
        for f in FIELDS {
            assert!(item.get(f).is_some(), "{f} missing in {item}");
        }
        assert!(item["imei"].is_array() && item["tags"].is_array());
        match item["deployStatus"].as_str().unwrap() {
            "DEPLOYED" | "AVAILABLE" => assert_eq!(item["deployReason"], Value::Null),
            "UNAVAILABLE" | "ARCHIVED" => assert!(item["deployReason"].is_string()),
            _ => {}
        }
    }
    // A deployed item: the assignee's label is the person's email.
    let deployed = data
        .iter()
        .find(|i| i["deployStatus"] == "DEPLOYED")
        .unwrap();
    let person = s
        .people
        .iter()
        .find(|p| p.id.to_string() == deployed["assignedTo"]["id"].as_str().unwrap())
        .unwrap();
    assert_eq!(deployed["assignedTo"]["type"], "PERSON");
    assert_eq!(deployed["assignedTo"]["label"], person.user_name.as_str());
    // Nested objects as docs/api.md shapes them.
    let priced = data.iter().find(|i| !i["pricing"].is_null()).unwrap();
    assert_eq!(priced["pricing"]["currencyCode"], "EUR");
    assert_eq!(priced["pricing"]["discountedPrice"], 1799.1);
    let tagged = data
        .iter()
        .find(|i| !i["tags"].as_array().unwrap().is_empty())
        .unwrap();
    assert_eq!(tagged["tags"][0]["label"], "loaner");
    let program = data.iter().find(|i| !i["deviceProgram"].is_null()).unwrap();
    assert_eq!(program["deviceProgram"]["assignmentStatus"], "ASSIGNED");
    assert_eq!(program["deviceProgram"]["lastSyncTimestamp"], Value::Null);
    let phone = data.iter().find(|i| i["categoryCode"] == "PHONE").unwrap();
    assert_eq!(phone["imei"].as_array().unwrap().len(), 1);
    assert_eq!(phone["categoryNameOfSku"], "Mobile phones");
    let warehoused = data
        .iter()
        .find(|i| i["deployStatus"] == "AVAILABLE")
        .unwrap();
    assert_eq!(warehoused["assignedTo"]["label"], "Berlin Central");
    assert_eq!(warehoused["assignedTo"]["assignedAt"], Value::Null);
}

async fn every_sort_key_in_both_directions_pages_through_every_item_once(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    for key in equip_domain::inventory_query::SortKey::ALL {
        for dir in ["ASC", "DESC"] {
            let query = format!("sortBy={}&sortDirection={dir}", key.as_str());
            let got = all_pages(&app, &query).await;
            let mut unique = got.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), N, "{query}: every item exactly once");
            let expected = s.expected_ids(
                w.a_org,
                raw(|r| {
                    r.sort_by = Some(key.as_str().into());
                    r.sort_direction = Some(dir.into());
                }),
            );
            assert_eq!(got, expected, "{query}");
        }
    }
}

async fn every_filter_matches_the_reference(app: TestApp) {
    let s = seeded(&app);
    let w = app.world();
    let ada = &s.people[0];
    let grace = &s.people[1];
    let laptop_sku = s.skus[0].id;
    let cases: Vec<(String, RawInventoryQuery)> = vec![
        (
            format!("personId={}", ada.id),
            raw(|r| r.person_id = Some(ada.id.to_string())),
        ),
        (
            format!("warehouseId={}", s.warehouse),
            raw(|r| r.warehouse_id = Some(s.warehouse.to_string())),
        ),
        (
            format!("officeId={}", s.office),
            raw(|r| r.office_id = Some(s.office.to_string())),
        ),
        (
            "categories=LAPTOP".into(),
            raw(|r| r.categories = vec!["LAPTOP".into()]),
        ),
        (
            "categories=laptop,Phone".into(),
            raw(|r| r.categories = vec!["laptop,Phone".into()]),
        ),
        (
            "categories=LAPTOP&categories=MONITOR".into(),
            raw(|r| r.categories = vec!["LAPTOP".into(), "MONITOR".into()]),
        ),
        (
            "deployStatuses=DEPLOYED".into(),
            raw(|r| r.deploy_statuses = vec!["DEPLOYED".into()]),
        ),
        (
            "deployStatuses=AVAILABLE,UNAVAILABLE&deployStatuses=ON_HOLD".into(),
            raw(|r| r.deploy_statuses = vec!["AVAILABLE,UNAVAILABLE".into(), "ON_HOLD".into()]),
        ),
        (
            "deployStatuses=VOIDED,ARCHIVED".into(),
            raw(|r| r.deploy_statuses = vec!["VOIDED,ARCHIVED".into()]),
        ),
        (
            format!("skuIds={laptop_sku}"),
            raw(|r| r.sku_ids = vec![laptop_sku.to_string()]),
        ),
        (
            "searchString=LOANER".into(),
            raw(|r| r.search_string = Some("LOANER".into())),
        ),
        (
            "searchString=sn-03".into(),
            raw(|r| r.search_string = Some("sn-03".into())),
        ),
        (
            "searchString=lenovo".into(),
            raw(|r| r.search_string = Some("lenovo".into())),
        ),
        (
            "searchString=mobile%20phones".into(),
            raw(|r| r.search_string = Some("mobile phones".into())),
        ),
        (
            "searchString=x1".into(),
            raw(|r| r.search_string = Some("x1".into())),
        ),
        (
            "searchString=100%25".into(),
            raw(|r| r.search_string = Some("100%".into())),
        ),
        (
            "searchString=design%20team".into(),
            raw(|r| r.search_string = Some("design team".into())),
        ),
        (
            "updatedAtFrom=2026-01-05T12:00:00".into(),
            raw(|r| r.updated_at_from = Some("2026-01-05T12:00:00".into())),
        ),
        (
            "updatedAtFrom=2026-01-05T10:00:00Z&updatedAtTo=2026-01-06T09:00:00.000".into(),
            raw(|r| {
                r.updated_at_from = Some("2026-01-05T10:00:00Z".into());
                r.updated_at_to = Some("2026-01-06T09:00:00.000".into());
            }),
        ),
        (
            format!("assignedEmail={}", grace.user_name.to_uppercase()),
            raw(|r| r.assigned_email = Some(grace.user_name.to_uppercase())),
        ),
        (
            "assignedEmail=private.ada@example.com".into(),
            raw(|r| r.assigned_email = Some("private.ada@example.com".into())),
        ),
        (
            "assignedEmail=nobody@example.com".into(),
            raw(|r| r.assigned_email = Some("nobody@example.com".into())),
        ),
        (
            "serialNumber=sn-0037-y,SN-0000-X".into(),
            raw(|r| r.serial_numbers = vec!["sn-0037-y,SN-0000-X".into()]),
        ),
        (
            "vendorSku=21hm".into(),
            raw(|r| r.vendor_skus = vec!["21hm".into()]),
        ),
        (
            "deployStatuses=DEPLOYED&categories=LAPTOP&sortBy=product".into(),
            raw(|r| {
                r.deploy_statuses = vec!["DEPLOYED".into()];
                r.categories = vec!["LAPTOP".into()];
                r.sort_by = Some("product".into());
            }),
        ),
    ];
    for (query, reference) in cases {
        let expected = s.expected_ids(w.a_org, reference);
        let got = all_pages(&app, &query).await;
        assert_eq!(got, expected, "{query}");
        let (_, body) = app
            .call(w.a.get(&format!("/api/v1/inventory?{query}&size=7")))
            .await;
        assert_eq!(
            body["pagination"]["totalRecords"],
            expected.len(),
            "{query}: totalRecords"
        );
    }
    // Sanity: the filters above are not vacuous.
    assert!(!s
        .expected_ids(w.a_org, raw(|r| r.search_string = Some("sn-03".into())))
        .is_empty());
    assert!(!s
        .expected_ids(
            w.a_org,
            raw(|r| r.assigned_email = Some("private.ada@example.com".into()))
        )
        .is_empty());
    // VOIDED alone matches nothing.
    let (status, body) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=VOIDED"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["data"], serde_json::json!([]));
    assert_eq!(body["pagination"]["totalRecords"], 0);
}

async fn totals_and_pages(app: TestApp) {
    seeded(&app);
    let w = app.world();
    let (_, body) = app.call(w.a.get("/api/v1/inventory?size=10&page=3")).await;
    assert_eq!(
        body["pagination"],
        serde_json::json!({"totalRecords": N, "totalPages": 7, "currentPage": 3, "pageSize": 10})
    );
    assert_eq!(ids(&body).len(), 10);
    let (_, body) = app.call(w.a.get("/api/v1/inventory?size=10&page=7")).await;
    assert_eq!(ids(&body).len(), 1);
    // A page past the end: 200, empty data, true pagination.
    let (status, body) = app.call(w.a.get("/api/v1/inventory?size=10&page=8")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["data"], serde_json::json!([]));
    assert_eq!(body["pagination"]["totalRecords"], N);
    assert_eq!(body["pagination"]["currentPage"], 8);
    // Maintained counts agree with the filtered count.
    let (_, deployed) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=DEPLOYED&size=1"))
        .await;
    let (_, by_search) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=DEPLOYED&searchString=sn&size=1"))
        .await;
    assert_eq!(deployed["pagination"]["totalRecords"], 11);
    assert_eq!(
        by_search["pagination"]["totalRecords"],
        deployed["pagination"]["totalRecords"].as_u64().unwrap() - 1
    );
}

async fn bad_parameters_are_400_naming_them(app: TestApp) {
    seeded(&app);
    let w = app.world();
    let person = uuid::Uuid::new_v4();
    let cases: Vec<(String, &str)> = vec![
        ("page=0".into(), "page"),
        ("page=abc".into(), "page"),
        ("size=0".into(), "size"),
        ("size=1001".into(), "size"),
        ("size=-5".into(), "size"),
        ("deployStatuses=GIFTED".into(), "deployStatuses"),
        ("deployStatuses=AVAILABLE,LOCKED".into(), "deployStatuses"),
        ("deployStatuses=OUT_FOR_REPAIR".into(), "deployStatuses"),
        ("deployStatuses=BROKEN".into(), "deployStatuses"),
        ("sortBy=price".into(), "sortBy"),
        ("sortDirection=sideways".into(), "sortDirection"),
        (
            format!("personId={person}&assignedEmail=a@b.c"),
            "assignedEmail",
        ),
        ("personId=nope".into(), "personId"),
        ("warehouseId=123".into(), "warehouseId"),
        ("officeId=x".into(), "officeId"),
        ("skuIds=not-a-uuid".into(), "skuIds"),
        ("updatedAtFrom=yesterday".into(), "updatedAtFrom"),
        (
            "updatedAtTo=2026-01-01T00:00:00%2B02:00".into(),
            "updatedAtTo",
        ),
        (
            "updatedAtFrom=2026-02-01T00:00:00&updatedAtTo=2026-01-01T00:00:00".into(),
            "updatedAtFrom",
        ),
        ("deployStatus=AVAILABLE".into(), "deployStatus"),
        ("page=1&page=2".into(), "page"),
    ];
    for (query, source) in cases {
        let (status, body) = app
            .call(w.a.get(&format!("/api/v1/inventory?{query}")))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["errors"][0]["source"], source, "{query}: {body}");
    }
    let (_, body) = app
        .call(w.a.get("/api/v1/inventory?deployStatuses=AVAILABLE,gifted"))
        .await;
    assert!(
        body["errors"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("GIFTED"),
        "{body}"
    );
}

async fn ids_of_another_organization_are_404(app: TestApp) {
    seeded(&app);
    let w = app.world();
    let b = seed(&app.store, &organization(w.b_org), 5);
    for (param, id) in [
        ("personId", b.people[0].id.to_string()),
        ("warehouseId", b.warehouse.to_string()),
        ("officeId", b.office.to_string()),
        ("personId", uuid::Uuid::new_v4().to_string()),
    ] {
        let (status, body) = app
            .call(w.a.get(&format!("/api/v1/inventory?{param}={id}")))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{param}");
        assert_eq!(body["errors"][0]["source"], param);
    }
    // A shared warehouse granted to A filters fine (empty here).
    let (status, _) = app
        .call(w.a.get(&format!(
            "/api/v1/inventory?warehouseId={}",
            w.shared_granted
        )))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .call(w.a.get(&format!(
            "/api/v1/inventory?warehouseId={}",
            w.shared_not_granted
        )))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn tenant_isolation(app: TestApp) {
    let a = seeded(&app);
    let w = app.world();
    let b = seed(&app.store, &organization(w.b_org), 9);
    let (_, body) = app.call(w.b.get("/api/v1/inventory")).await;
    assert_eq!(body["pagination"]["totalRecords"], 9);
    let b_ids = ids(&body);
    let a_ids: Vec<String> = a.batch.inventory.iter().map(|i| i.id.to_string()).collect();
    assert!(b_ids.iter().all(|id| !a_ids.contains(id)));
    // A's SKU ids and search terms find nothing of B's, and the other way round.
    let (_, body) = app
        .call(w.b.get(&format!("/api/v1/inventory?skuIds={}", a.skus[0].id)))
        .await;
    assert_eq!(body["data"], serde_json::json!([]));
    let (_, body) = app
        .call(w.a.get("/api/v1/inventory?searchString=macbook&size=1000"))
        .await;
    let found = ids(&body);
    assert!(!found.is_empty() && found.iter().all(|id| a_ids.contains(id)));
    let (_, body) = app
        .call(w.a.get(&format!(
            "/api/v1/inventory?assignedEmail={}",
            b.people[0].user_name
        )))
        .await;
    // Both organizations have an ada@example.com: A sees only its own.
    assert!(ids(&body).iter().all(|id| a_ids.contains(id)));
}

async fn scope_and_key_are_required(app: TestApp) {
    let w = app.world();
    let (status, _) = app
        .call(actix_web::test::TestRequest::get().uri("/api/v1/inventory"))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.call(w.limited.get("/api/v1/inventory")).await;
    assert_eq!(status, StatusCode::OK, "inventory:read suffices");
    let (status, body) = app.call(w.a.get("/api/v1/inventory")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["pagination"]["totalRecords"], 0);
    assert_eq!(body["pagination"]["totalPages"], 0);
}

/// Pages past the first thousand items start from remembered keyset positions
/// (`listing::Anchors`); whatever the order of requests, each must equal the
/// reference's slice, and a write must not leave a remembered position stale.
async fn deep_pages_start_from_remembered_positions_and_stay_exact(app: TestApp) {
    let w = app.world();
    let s = seed(&app.store, &organization(w.a_org), 1_250);
    let reference = |f: &dyn Fn(&mut RawInventoryQuery)| -> Vec<String> {
        let mut all = Vec::new();
        for page in ["1", "2"] {
            let mut r = raw(|r| f(r));
            r.page = Some(page.into());
            r.size = Some("1000".into());
            let q = equip_domain::inventory_query::InventoryQuery::parse(&r).unwrap();
            let p =
                equip_domain::ports::InventoryRepository::list_inventory(&s.reference, w.a_org, &q)
                    .unwrap();
            all.extend(p.items.iter().map(|i| i.id.to_string()));
        }
        all
    };
    type Case<'a> = (&'a str, &'a dyn Fn(&mut RawInventoryQuery));
    let cases: [Case<'_>; 4] = [
        ("sortBy=createdAt&sortDirection=DESC", &|r| {
            r.sort_by = Some("createdAt".into());
            r.sort_direction = Some("DESC".into());
        }),
        ("sortBy=createdAt&sortDirection=ASC", &|r| {
            r.sort_by = Some("createdAt".into());
            r.sort_direction = Some("ASC".into());
        }),
        ("sortBy=updatedAt&sortDirection=ASC", &|r| {
            r.sort_by = Some("updatedAt".into());
            r.sort_direction = Some("ASC".into());
        }),
        ("deployStatuses=DEPLOYED&deployStatuses=AVAILABLE", &|r| {
            r.deploy_statuses = vec!["DEPLOYED".into(), "AVAILABLE".into()];
        }),
    ];
    for (query, f) in cases {
        let expected = reference(f);
        for (page, size) in [
            (11, 100),
            (12, 100),
            (11, 100),
            (13, 100),
            (25, 50),
            (24, 50),
            (7, 150),
            (9, 125),
            (1, 1000),
            (2, 1000),
        ] {
            let (status, body) = app
                .call(w.a.get(&format!(
                    "/api/v1/inventory?{query}&page={page}&size={size}"
                )))
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            let from = ((page - 1) * size).min(expected.len());
            let to = (page * size).min(expected.len());
            assert_eq!(
                ids(&body),
                expected[from..to],
                "{query} page {page} size {size}"
            );
        }
    }

    // A write moves the oldest-updated item to the end of the updatedAt order:
    // every later position shifts by one, so the remembered ones must not be used.
    let query = "sortBy=updatedAt&sortDirection=ASC";
    let mut expected = reference(cases[2].1);
    let first = expected.remove(0);
    let (status, _) = app
        .call(
            w.a.with(
                actix_web::test::TestRequest::patch().uri(&format!("/api/v1/inventory/{first}")),
            )
            .set_json(serde_json::json!({"description": "touched"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    expected.push(first);
    for (page, size) in [(11, 100), (12, 100), (13, 100), (25, 50)] {
        let (_, body) = app
            .call(w.a.get(&format!(
                "/api/v1/inventory?{query}&page={page}&size={size}"
            )))
            .await;
        let from = ((page - 1) * size).min(expected.len());
        let to = (page * size).min(expected.len());
        assert_eq!(
            ids(&body),
            expected[from..to],
            "after a write: page {page} size {size}"
        );
    }
}
