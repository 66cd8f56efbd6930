//! Two `equip serve` processes on one PostgreSQL database, provisioning
//! joiners with a package at once over SCIM against less stock than they
//! order: each item is allocated to at most one order line, every line
//! without an item is BACKORDERED, and every joiner has exactly one order.
use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::support::process::Serve;
use crate::support::scim::EXT;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::catalog::{Package, PackageItem, Sku};
use equip_domain::ids::{InventoryItemId, PackageId, SkuId, WarehouseId};
use equip_domain::import::ImportBatch;
use equip_domain::inventory::{
    Assignee, Assignment, Condition, DeployStatus, InventoryItem, SuppliedBy,
};
use equip_domain::location::{Warehouse, WarehouseOwner};
use equip_domain::ports::CatalogRepository;
use equip_domain::services::{admin, import};
use equip_persistence::test_support::TestDatabase;
use serde_json::json;

/// Items in stock, and joiners ordering two each.
const STOCK: usize = 30;
const JOINERS: usize = 40;

#[test]
fn two_instances_never_allocate_one_item_twice() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let now = Utc::now();
    let org = admin::create_organization(&store, "Joiners", now)
        .unwrap()
        .id;
    let key = admin::issue_api_key(&store, org, Scopes::all(), None, now)
        .unwrap()
        .secret;
    let w = Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(org),
        name: "Joiners desk".into(),
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
    let available = |n: usize| InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org,
        sku_id: sku.id,
        serial_number: Some(format!("STOCK-{n}")),
        imei: vec![],
        deploy_status: DeployStatus::Available,
        deploy_reason: None,
        condition: Condition::New,
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
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: now,
        updated_at: now,
    };
    let kit = Package {
        id: PackageId::new(),
        organization_id: org,
        slug: "kit".into(),
        name: "Kit".into(),
        items: Vec::new(),
    };
    let batch = ImportBatch {
        warehouses: vec![w.clone()],
        skus: vec![sku.clone()],
        packages: vec![kit.clone()],
        inventory: (0..STOCK).map(available).collect(),
        ..ImportBatch::default()
    };
    import::run_import(&store, org, &batch, &mut |_| {}).unwrap();
    let contents = [PackageItem {
        category_code: "LAPTOP".into(),
        sku_ids: vec![sku.id],
        quantity: 2,
    }];
    store
        .replace_package_contents(org, kit.id, &contents)
        .unwrap()
        .unwrap();
    drop(store);

    // Every create at once: no per-organization share or rate limit.
    let args = [
        "--workers",
        "2",
        "--no-hold-release",
        "--max-store-calls-per-organization",
        "0",
        "--rate-limit",
        "0",
    ];
    let instances = [0, 1].map(|_| Serve::start(db.url(), &args));
    let barrier = Arc::new(Barrier::new(JOINERS));
    let threads: Vec<_> = (0..JOINERS)
        .map(|i| {
            let api = instances[i % 2].client(&key);
            let barrier = Arc::clone(&barrier);
            let package = kit.id.to_string();
            std::thread::spawn(move || {
                let name = format!("joiner{i}@example.com");
                let user = json!({
                    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", EXT],
                    "userName": name,
                    "emails": [{"value": name, "primary": true}],
                    "active": true,
                    EXT: {"packageId": package},
                });
                barrier.wait();
                let r = api.scim_post("/scim/v2/Users", &user).unwrap();
                assert_eq!(r.status, 201, "{}", r.text());
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    for mut s in instances {
        s.terminate(Duration::from_secs(30));
    }
    assert_eq!(db.count_rows("orders"), JOINERS as i64, "one order each");
    let allocated = "order_lines WHERE status = 'ALLOCATED'";
    assert_eq!(db.count_rows(allocated), STOCK as i64, "every item taken");
    assert_eq!(
        db.count_rows(&format!(
            "(SELECT inventory_item_id FROM {allocated} GROUP BY inventory_item_id HAVING COUNT(*) > 1) twice"
        )),
        0,
        "no item on two lines"
    );
    assert_eq!(
        db.count_rows("order_lines WHERE status = 'BACKORDERED'"),
        (2 * JOINERS - STOCK) as i64
    );
    assert_eq!(
        db.count_rows("inventory_items WHERE deploy_status = 'UNAVAILABLE' AND deploy_reason = 'PENDING_FULFILLMENT'"),
        STOCK as i64
    );
}
