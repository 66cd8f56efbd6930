//! Two `equip serve` processes on one PostgreSQL database, both running the
//! hold release pass every second: when a few thousand holds come due at
//! once, each is released exactly once, with one `inventory.item.updated`
//! event by SYSTEM, and the two logs together count each release once.
use std::time::{Duration, Instant};

use crate::support::process::Serve;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::catalog::Sku;
use equip_domain::ids::{InventoryItemId, SkuId, WarehouseId};
use equip_domain::import::ImportBatch;
use equip_domain::inventory::{
    Assignee, Assignment, Condition, DeployReason, DeployStatus, InventoryItem, SuppliedBy,
};
use equip_domain::location::{Warehouse, WarehouseOwner};
use equip_domain::services::{admin, import};
use equip_persistence::test_support::TestDatabase;

/// Holds that come due together.
const HOLDS: usize = 3_000;

/// The releases a log reports (`released N holds`).
fn released_in_log(log: &str) -> usize {
    log.lines()
        .filter_map(|l| l.split("released ").nth(1))
        .filter_map(|rest| {
            rest.strip_suffix(" holds")
                .or_else(|| rest.split(" holds").next())
        })
        .filter_map(|n| n.trim().parse::<usize>().ok())
        .sum()
}

#[test]
fn two_instances_release_each_due_hold_once() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let now = Utc::now();
    let org = admin::create_organization(&store, "Holds", now).unwrap().id;
    admin::issue_api_key(&store, org, Scopes::all(), None, now).unwrap();
    let w = Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(org),
        name: "Returns desk".into(),
        address: None,
    };
    let sku = Sku {
        id: SkuId::new(),
        organization_id: org,
        title: "ThinkPad X1".into(),
        category_code: "LAPTOP".into(),
        category_name: "Laptops".into(),
        vendor_code: "LENOVO".into(),
        vendor_name: "Lenovo".into(),
        vendor_sku: "21HM".into(),
    };
    let today = now.date_naive();
    let held = |n: usize| InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org,
        sku_id: sku.id,
        serial_number: Some(format!("HOLD-{n}")),
        imei: vec![],
        deploy_status: DeployStatus::Unavailable,
        deploy_reason: Some(DeployReason::PendingHoldRelease),
        condition: Condition::UsedGood,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::Warehouse(w.id),
            assigned_at: Some(now),
        }),
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: Some(today),
        // Not due yet: made due all at once below, while both run.
        unlock_date: today.checked_add_days(chrono::Days::new(365)),
        itad_requested: Some(n.is_multiple_of(5)),
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: now,
        updated_at: now,
    };
    let batch = ImportBatch {
        warehouses: vec![w.clone()],
        skus: vec![sku.clone()],
        inventory: (0..HOLDS).map(held).collect(),
        ..ImportBatch::default()
    };
    import::run_import(&store, org, &batch, &mut |_| {}).unwrap();
    drop(store);

    let mut instances = [0, 1].map(|_| {
        Serve::start(
            db.url(),
            &["--workers", "2", "--hold-release-interval", "1"],
        )
    });
    db.execute(
        "UPDATE inventory_items SET unlock_date = CURRENT_DATE - 1 WHERE unlock_date IS NOT NULL",
    );
    let started = Instant::now();
    while db.count_rows("inventory_items WHERE unlock_date IS NOT NULL") > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "holds still due after a minute"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    for s in &mut instances {
        s.terminate(Duration::from_secs(30));
    }

    // Each released once: one event each, by SYSTEM, and the right state.
    let updates = "events WHERE type = 'inventory.item.updated'";
    assert_eq!(db.count_rows(updates), HOLDS as i64);
    assert_eq!(
        db.count_rows(&format!("{updates} AND actor_type = 'SYSTEM'")),
        HOLDS as i64
    );
    assert_eq!(
        db.count_rows(&format!(
            "(SELECT subject_id FROM {updates} GROUP BY subject_id HAVING COUNT(*) <> 1) twice"
        )),
        0
    );
    assert_eq!(
        db.count_rows(
            "inventory_items WHERE deploy_status = 'AVAILABLE' AND deploy_reason IS NULL"
        ),
        (HOLDS - HOLDS / 5) as i64
    );
    assert_eq!(
        db.count_rows("inventory_items WHERE deploy_reason = 'MARKED_FOR_DESTRUCTION'"),
        (HOLDS / 5) as i64
    );
    assert_eq!(
        db.count_rows(
            "inventory_items WHERE hold_start_date IS NOT NULL OR itad_requested IS NOT NULL"
        ),
        0
    );
    let logs: Vec<String> = instances.iter().map(Serve::log).collect();
    let per_instance: Vec<usize> = logs.iter().map(|l| released_in_log(l)).collect();
    assert_eq!(
        per_instance.iter().sum::<usize>(),
        HOLDS,
        "{per_instance:?}"
    );
    eprintln!("releases per instance: {per_instance:?}");
}
