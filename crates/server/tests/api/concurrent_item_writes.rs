//! Two `equip serve` processes on one database, writing items of one
//! organization at once in opposite directions (issue 47, item 9): item
//! PATCHes moving items AVAILABLE → UNAVAILABLE beside others moving
//! UNAVAILABLE → AVAILABLE (in two categories), and SCIM joiners created with
//! a package (their items allocated) and deleted again (their orders
//! cancelled, the items back in stock). On PostgreSQL the item counts'
//! triggers locked the old (status, category) row before the new one, so such
//! writers deadlocked and one of them was answered 500. Every write must
//! succeed, and the maintained counts (`GET /api/v1/inventory-summary`) must
//! equal a count of the items.
use std::collections::BTreeMap;
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use crate::support::process::{Api, Serve};
use crate::support::scim::EXT;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::catalog::{Package, PackageItem, Sku};
use equip_domain::ids::{InventoryItemId, OrganizationId, PackageId, SkuId, WarehouseId};
use equip_domain::import::ImportBatch;
use equip_domain::inventory::{
    Assignee, Assignment, Condition, DeployReason, DeployStatus, InventoryItem, SuppliedBy,
};
use equip_domain::location::{Warehouse, WarehouseOwner};
use equip_domain::ports::CatalogRepository;
use equip_domain::services::{admin, import};
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

/// Threads toggling items, each owning `ITEMS_EACH` items of its own.
const TOGGLERS: usize = 8;
const ITEMS_EACH: usize = 2;
/// Rounds; in each, every toggler moves each of its items once and every
/// joiner thread creates one joiner and deletes the one before.
const ROUNDS: usize = 20;
const JOINER_THREADS: usize = 2;
/// Monitors in stock for the joiners' package (one each).
const MONITORS: usize = 10;

#[test]
fn concurrent_item_writes_on_two_instances_postgres() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    concurrent_item_writes_on_two_instances(&db);
}

#[test]
fn concurrent_item_writes_on_two_instances_sqlite() {
    concurrent_item_writes_on_two_instances(&TestDatabase::sqlite());
}

struct Seeded {
    key: String,
    package: PackageId,
    /// Per toggler, its items and whether each starts AVAILABLE.
    items: Vec<Vec<(InventoryItemId, bool)>>,
}

fn seed(db: &TestDatabase) -> Seeded {
    let store = db.store();
    let now = Utc::now();
    let org = admin::create_organization(&store, "Concurrent writers", now)
        .unwrap()
        .id;
    let key = admin::issue_api_key(&store, org, Scopes::all(), None, now)
        .unwrap()
        .secret;
    let w = Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(org),
        name: "Main store".into(),
        address: None,
    };
    let sku = |title: &str, category: &str| Sku {
        id: SkuId::new(),
        organization_id: org,
        title: title.into(),
        category_code: category.into(),
        category_name: category.into(),
        vendor_code: "ACME".into(),
        vendor_name: "Acme".into(),
        vendor_sku: title.into(),
    };
    let skus = [
        sku("X1", "LAPTOP"),
        sku("Pixel", "PHONE"),
        sku("U27", "MONITOR"),
    ];
    let item = |n: usize, sku: SkuId, available: bool| {
        item_at(
            org,
            w.id,
            sku,
            format!("SN-{n}"),
            if available {
                (DeployStatus::Available, None)
            } else {
                (
                    DeployStatus::Unavailable,
                    Some(DeployReason::RequiresRepair),
                )
            },
        )
    };
    let mut inventory = Vec::new();
    let mut items = Vec::new();
    for t in 0..TOGGLERS {
        let mut mine = Vec::new();
        for k in 0..ITEMS_EACH {
            let n = t * ITEMS_EACH + k;
            // Half start AVAILABLE, half UNAVAILABLE, in both categories: in
            // every round half the moves go one way and half the other.
            let available = (t + k) % 2 == 0;
            let sku = skus[n % 2].id;
            let it = item(n, sku, available);
            mine.push((it.id, available));
            inventory.push(it);
        }
        items.push(mine);
    }
    for m in 0..MONITORS {
        inventory.push(item(1000 + m, skus[2].id, true));
    }
    let kit = Package {
        id: PackageId::new(),
        organization_id: org,
        slug: "desk".into(),
        name: "Desk".into(),
        items: Vec::new(),
    };
    let batch = ImportBatch {
        warehouses: vec![w.clone()],
        skus: skus.to_vec(),
        packages: vec![kit.clone()],
        inventory,
        ..ImportBatch::default()
    };
    import::run_import(&store, org, &batch, &mut |_| {}).unwrap();
    let contents = [PackageItem {
        category_code: "MONITOR".into(),
        sku_ids: vec![skus[2].id],
        quantity: 1,
    }];
    store
        .replace_package_contents(org, kit.id, &contents)
        .unwrap()
        .unwrap();
    Seeded {
        key,
        package: kit.id,
        items,
    }
}

fn item_at(
    org: OrganizationId,
    warehouse: WarehouseId,
    sku: SkuId,
    serial: String,
    (status, reason): (DeployStatus, Option<DeployReason>),
) -> InventoryItem {
    let now = Utc::now();
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org,
        sku_id: sku,
        serial_number: Some(serial),
        imei: vec![],
        deploy_status: status,
        deploy_reason: reason,
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::Warehouse(warehouse),
            assigned_at: Some(now),
        }),
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: now,
        updated_at: now,
    }
}

/// What went wrong, collected by every thread and asserted at the end.
#[derive(Default)]
struct Outcomes {
    answers: usize,
    server_errors: usize,
    other_failures: Vec<String>,
}

impl Outcomes {
    fn record(
        &mut self,
        what: &str,
        expected: u16,
        r: std::io::Result<crate::support::process::Response>,
    ) -> Option<Value> {
        self.answers += 1;
        match r {
            Ok(r) if r.status == expected => Some(if r.body.is_empty() {
                Value::Null
            } else {
                r.json()
            }),
            Ok(r) => {
                if r.status >= 500 {
                    self.server_errors += 1;
                }
                if self.other_failures.len() < 10 {
                    self.other_failures
                        .push(format!("{what}: {} {}", r.status, r.text()));
                }
                None
            }
            Err(e) => {
                self.other_failures.push(format!("{what}: no answer: {e}"));
                None
            }
        }
    }
}

fn concurrent_item_writes_on_two_instances(db: &TestDatabase) {
    let seeded = seed(db);
    // No per-organization share or rate limit: every write at once.
    let args = [
        "--workers",
        "4",
        "--no-hold-release",
        "--max-store-calls-per-organization",
        "0",
        "--rate-limit",
        "0",
    ];
    let instances = [0, 1].map(|_| Serve::start(db.url(), &args));
    let apis: Vec<Api> = instances.iter().map(|s| s.client(&seeded.key)).collect();
    let outcomes = Arc::new(Mutex::new(Outcomes::default()));
    let barrier = Arc::new(Barrier::new(TOGGLERS + JOINER_THREADS));
    let mut threads = Vec::new();
    for (t, mine) in seeded.items.iter().cloned().enumerate() {
        let api = apis[t % 2].clone();
        let barrier = Arc::clone(&barrier);
        let outcomes = Arc::clone(&outcomes);
        threads.push(std::thread::spawn(move || {
            let mut states: Vec<bool> = mine.iter().map(|(_, a)| *a).collect();
            for round in 0..ROUNDS {
                barrier.wait();
                for ((id, _), available) in mine.iter().zip(states.iter_mut()) {
                    let body = if *available {
                        json!({"deployStatus": "UNAVAILABLE", "deployReason": "REQUIRES_REPAIR"})
                    } else {
                        json!({"deployStatus": "AVAILABLE", "deployReason": null})
                    };
                    let r = api.patch_json(&format!("/api/v1/inventory/{id}"), &body);
                    let what = format!("round {round}: PATCH item {id}");
                    if outcomes.lock().unwrap().record(&what, 200, r).is_some() {
                        *available = !*available;
                    }
                }
            }
            mine.into_iter()
                .zip(states)
                .map(|((id, _), a)| (id, a))
                .collect::<Vec<_>>()
        }));
    }
    let mut joiners = Vec::new();
    for j in 0..JOINER_THREADS {
        let api = apis[(j + 1) % 2].clone();
        let barrier = Arc::clone(&barrier);
        let outcomes = Arc::clone(&outcomes);
        let package = seeded.package.to_string();
        joiners.push(std::thread::spawn(move || {
            let mut previous: Option<String> = None;
            for round in 0..ROUNDS {
                barrier.wait();
                let name = format!("joiner{j}-{round}@example.com");
                let user = json!({
                    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
                    "userName": name,
                    "emails": [{"value": name, "primary": true}],
                    "active": true,
                    EXT: {"packageId": package},
                });
                let r = api.scim_post("/scim/v2/Users", &user);
                let created =
                    outcomes
                        .lock()
                        .unwrap()
                        .record(&format!("round {round}: SCIM create"), 201, r);
                if let Some(id) = previous.take() {
                    let r = api.delete(&format!("/scim/v2/Users/{id}"));
                    outcomes
                        .lock()
                        .unwrap()
                        .record(&format!("round {round}: SCIM delete"), 204, r);
                }
                previous = created.and_then(|u| u["id"].as_str().map(str::to_owned));
            }
        }));
    }
    let mut finals = Vec::new();
    for t in threads {
        finals.extend(t.join().unwrap());
    }
    for j in joiners {
        j.join().unwrap();
    }
    let summary = apis[0].get("/api/v1/inventory-summary").unwrap();
    assert_eq!(summary.status, 200, "{}", summary.text());
    let summary = summary.json();
    for mut s in instances {
        s.terminate(Duration::from_secs(30));
    }
    let outcomes = outcomes.lock().unwrap();
    assert_eq!(
        outcomes.server_errors, 0,
        "{} of {} answers were 5xx; first failures: {:#?}",
        outcomes.server_errors, outcomes.answers, outcomes.other_failures
    );
    assert!(
        outcomes.other_failures.is_empty(),
        "{:#?}",
        outcomes.other_failures
    );
    // Every PATCH moved its item: each ends where its toggles left it.
    for (id, available) in &finals {
        let status = if *available {
            "AVAILABLE"
        } else {
            "UNAVAILABLE"
        };
        assert_eq!(
            db.count_rows(&format!(
                "inventory_items WHERE id = '{id}' AND deploy_status = '{status}'"
            )),
            1,
            "item {id} should be {status}"
        );
    }
    // The maintained counts are a count of the items.
    let got: BTreeMap<(String, String), i64> = summary["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                (
                    c["deployStatus"].as_str().unwrap().to_owned(),
                    c["categoryCode"].as_str().unwrap().to_owned(),
                ),
                c["count"].as_i64().unwrap(),
            )
        })
        .collect();
    let mut recount = BTreeMap::new();
    for status in ["AVAILABLE", "UNAVAILABLE", "DEPLOYED", "ARCHIVED"] {
        for category in ["LAPTOP", "PHONE", "MONITOR"] {
            let n = db.count_rows(&format!(
                "inventory_items i JOIN skus s ON s.id = i.sku_id \
                 WHERE i.deploy_status = '{status}' AND s.category_code = '{category}'"
            ));
            if n > 0 {
                recount.insert((status.to_owned(), category.to_owned()), n);
            }
        }
    }
    assert_eq!(got, recount, "{summary}");
    let counted = db.count_rows("inventory_items");
    assert_eq!(
        recount.values().sum::<i64>(),
        counted,
        "every item in a counted status"
    );
}
