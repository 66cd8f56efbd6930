//! Stock levels (docs/orders.md, "Stock levels"): the available quantity the
//! listing shows after item creates, changes and receipts, and
//! `inventory_level.below_minimum` once per crossing, also under concurrent
//! writers.

use super::events::all_events;
use super::support::*;
use equip_domain::event::EventType;
use equip_domain::inventory_level::StockedLevel;
use equip_domain::ports::{ItemWrite, ReceiptRepository};
use equip_domain::returns::receipt::{ItemKey, ReceiptEntry, Receiving};
use equip_domain::DomainError;

storage_tests!(
    available_quantity_follows_creates_changes_and_receipts,
    one_event_per_crossing,
    a_level_created_below_its_minimum_starts_below_without_an_event,
    concurrent_takers_of_the_last_items_write_one_event,
    the_import_restates_the_levels_of_its_items,
    a_held_item_moves_only_through_its_order,
);

fn stocked(store: &Store, org: &Organization, id: InventoryLevelId) -> StockedLevel {
    store
        .list_inventory_levels(org.id, true)
        .unwrap()
        .into_iter()
        .find(|l| l.level.id == id)
        .unwrap()
}

fn crossings(store: &Store, org: &Organization) -> usize {
    all_events(store, org)
        .iter()
        .filter(|e| e.kind == EventType::LevelBelowMinimum)
        .count()
}

/// `it` taken (UNAVAILABLE) or put back (AVAILABLE), as a PATCH writes it.
fn set_available(store: &Store, it: &InventoryItem, available: bool) -> InventoryItem {
    let current = store
        .find_inventory_item(it.organization_id, it.id)
        .unwrap()
        .unwrap();
    let mut after = current.clone();
    if available {
        after.deploy_status = DeployStatus::Available;
        after.deploy_reason = None;
    } else {
        after.deploy_status = DeployStatus::Unavailable;
        after.deploy_reason = Some(DeployReason::AwaitingInformation);
    }
    after.updated_at = current.updated_at + Duration::seconds(1);
    assert!(store
        .update_inventory_item(&current, &after)
        .unwrap()
        .written());
    after
}

fn available_quantity_follows_creates_changes_and_receipts(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let other_w = owned_warehouse(&org, "Hamburg");
    import(
        store,
        &org,
        &ImportBatch {
            warehouses: vec![other_w.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let l = level(&org, &s, &w, at(2, 0)); // minimum 5
    let created = store.insert_inventory_level(&l).unwrap();
    assert_eq!(created.available_quantity, 0);
    assert!(created.below_minimum());

    let items: Vec<InventoryItem> = (0..6).map(|i| item(&org, &s, &w, at(3, i))).collect();
    for it in &items {
        store.insert_inventory_item(it).unwrap();
    }
    // Counted: AVAILABLE items of the SKU in the warehouse only.
    let mut elsewhere = item(&org, &s, &other_w, at(3, 9));
    store.insert_inventory_item(&elsewhere).unwrap();
    let mut deployed = item(&org, &s, &w, at(3, 10));
    deployed.deploy_status = DeployStatus::Unavailable;
    deployed.deploy_reason = Some(DeployReason::AwaitingInformation);
    store.insert_inventory_item(&deployed).unwrap();
    let now = stocked(store, &org, l.id);
    assert_eq!(now.available_quantity, 6);
    assert!(!now.below_minimum());

    // A PATCH taking one, and one moving another warehouse's item here.
    set_available(store, &items[0], false);
    let current = elsewhere.clone();
    elsewhere.assignment = Some(Assignment {
        assignee: Assignee::Warehouse(w.id),
        assigned_at: Some(at(4, 0)),
    });
    elsewhere.updated_at = at(4, 0);
    assert!(store
        .update_inventory_item(&current, &elsewhere)
        .unwrap()
        .written());
    assert_eq!(stocked(store, &org, l.id).available_quantity, 6);

    // A receipt of an arriving item makes it AVAILABLE here.
    let mut arriving = item(&org, &s, &w, at(3, 11));
    arriving.deploy_status = DeployStatus::AwaitingArrival;
    arriving.assignment = None;
    store.insert_inventory_item(&arriving).unwrap();
    assert_eq!(stocked(store, &org, l.id).available_quantity, 6);
    store
        .receive_item(
            org.id,
            &ReceiptEntry {
                key: ItemKey::Id(arriving.id),
                condition: Some(Condition::New),
            },
            Receiving {
                warehouse: w.id,
                at: Utc::now(),
            },
        )
        .unwrap()
        .result
        .unwrap();
    assert_eq!(stocked(store, &org, l.id).available_quantity, 7);
    // Another organization's stock is not counted.
    let (other, os, ow) = seeded(store, "Other");
    store
        .insert_inventory_item(&item(&other, &os, &ow, at(3, 0)))
        .unwrap();
    assert_eq!(stocked(store, &org, l.id).available_quantity, 7);
    assert_eq!(crossings(store, &org), 0, "never fell below from above");
}

fn one_event_per_crossing(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let items: Vec<InventoryItem> = (0..3).map(|i| item(&org, &s, &w, at(3, i))).collect();
    for it in &items {
        store.insert_inventory_item(it).unwrap();
    }
    let mut l = level(&org, &s, &w, at(2, 0));
    l.minimum_quantity = 2;
    store.insert_inventory_level(&l).unwrap();
    assert!(!stocked(store, &org, l.id).below_minimum());

    set_available(store, &items[0], false); // 2: at the minimum
    assert_eq!(crossings(store, &org), 0);
    set_available(store, &items[1], false); // 1: below
    assert_eq!(crossings(store, &org), 1);
    set_available(store, &items[2], false); // 0: down again, still below
    assert_eq!(crossings(store, &org), 1, "once per crossing");
    let event = all_events(store, &org)
        .into_iter()
        .find(|e| e.kind == EventType::LevelBelowMinimum)
        .unwrap();
    assert_eq!(event.subject.id, *l.id.as_uuid());
    let changes = event.changes();
    assert_eq!(changes["availableQuantity"].to, serde_json::json!(1));
    assert_eq!(changes["belowMinimum"].to, serde_json::json!(true));

    set_available(store, &items[0], true); // 1
    set_available(store, &items[1], true); // 2: back at the minimum (re-armed)
    assert_eq!(crossings(store, &org), 1, "going up writes nothing");
    assert!(!stocked(store, &org, l.id).below_minimum());
    set_available(store, &items[1], false); // 1: below again
    assert_eq!(crossings(store, &org), 2, "up then down: a second event");

    // A deactivated level is not restated.
    assert!(store
        .mark_inventory_level_deactivated(org.id, l.id, at(9, 0))
        .unwrap());
    set_available(store, &items[0], true);
    set_available(store, &items[0], false);
    set_available(store, &items[1], true);
    set_available(store, &items[1], false);
    assert_eq!(crossings(store, &org), 2);
}

fn a_level_created_below_its_minimum_starts_below_without_an_event(
    _db: &TestDatabase,
    store: &Store,
) {
    let (org, s, w) = seeded(store, "Acme");
    let items: Vec<InventoryItem> = (0..2).map(|i| item(&org, &s, &w, at(3, i))).collect();
    for it in &items {
        store.insert_inventory_item(it).unwrap();
    }
    let mut l = level(&org, &s, &w, at(4, 0));
    l.minimum_quantity = 3;
    let created = store.insert_inventory_level(&l).unwrap();
    assert_eq!(
        (created.available_quantity, created.below_minimum()),
        (2, true)
    );
    assert_eq!(crossings(store, &org), 0);
    set_available(store, &items[0], false); // 1: still below
    assert_eq!(crossings(store, &org), 0);
    let more: Vec<InventoryItem> = (0..3).map(|i| item(&org, &s, &w, at(5, i))).collect();
    for it in &more {
        store.insert_inventory_item(it).unwrap(); // up to 4: at or above
    }
    set_available(store, &more[0], false);
    set_available(store, &more[1], false); // 2: below
    assert_eq!(crossings(store, &org), 1);
}

fn concurrent_takers_of_the_last_items_write_one_event(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let threads = 4;
    let items: Vec<InventoryItem> = (0..threads)
        .map(|i| item(&org, &s, &w, at(3, i64::try_from(i).unwrap())))
        .collect();
    for it in &items {
        store.insert_inventory_item(it).unwrap();
    }
    let mut l = level(&org, &s, &w, at(4, 0));
    l.minimum_quantity = i32::try_from(threads).unwrap();
    store.insert_inventory_level(&l).unwrap();
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = items
        .into_iter()
        .map(|it| {
            let store = store.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                set_available(&store, &it, false);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let now = stocked(store, &org, l.id);
    assert_eq!(now.available_quantity, 0);
    assert_eq!(crossings(store, &org), 1, "one crossing, one event");
}

fn the_import_restates_the_levels_of_its_items(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let items: Vec<InventoryItem> = (0..3).map(|i| item(&org, &s, &w, at(3, i))).collect();
    let mut l = level(&org, &s, &w, at(2, 0));
    l.minimum_quantity = 2;
    // Items and their level in one import: the level starts at or above.
    import(
        store,
        &org,
        &ImportBatch {
            inventory: items.clone(),
            inventory_levels: vec![l.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let now = stocked(store, &org, l.id);
    assert_eq!((now.available_quantity, now.below_minimum()), (3, false));
    // An import that takes two of them: one crossing.
    let taken: Vec<InventoryItem> = items[..2]
        .iter()
        .map(|i| {
            let mut i = i.clone();
            i.deploy_status = DeployStatus::Unavailable;
            i.deploy_reason = Some(DeployReason::AwaitingInformation);
            i.updated_at = at(5, 0);
            i
        })
        .collect();
    import(
        store,
        &org,
        &ImportBatch {
            inventory: taken,
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(stocked(store, &org, l.id).available_quantity, 1);
    assert_eq!(crossings(store, &org), 1);
}

fn a_held_item_moves_only_through_its_order(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let joiner = person(&org, "joiner@acme.example");
    store.insert_person(&joiner).unwrap();
    let it = item(&org, &s, &w, at(3, 0));
    store.insert_inventory_item(&it).unwrap();
    let mut allocated = it.clone();
    allocated.deploy_status = DeployStatus::Unavailable;
    allocated.deploy_reason = Some(DeployReason::PendingFulfillment);
    allocated.updated_at = at(4, 0);
    assert!(store
        .update_inventory_item(&it, &allocated)
        .unwrap()
        .written());
    // The order's rows, as an allocation writes them.
    let order = Uuid::new_v4();
    db.execute(&format!(
        "INSERT INTO orders (id, organization_id, person_id, package_id, status, created_at, \
         updated_at) VALUES ('{order}', '{}', '{}', NULL, 'ALLOCATED', CURRENT_TIMESTAMP, \
         CURRENT_TIMESTAMP)",
        org.id, joiner.id
    ));
    db.execute(&format!(
        "INSERT INTO order_lines (id, organization_id, order_id, position, category_code, \
         sku_ids, status, inventory_item_id, shipment_id, created_at, updated_at) VALUES \
         ('{}', '{}', '{order}', 0, 'LAPTOP', '[]', 'ALLOCATED', '{}', NULL, \
         CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
        Uuid::new_v4(),
        org.id,
        it.id
    ));
    let events_before = all_events(store, &org).len();

    // Its status, reason or holder: 409 naming deployStatus and the order.
    let mut released = allocated.clone();
    released.deploy_status = DeployStatus::Available;
    released.deploy_reason = None;
    released.updated_at = at(5, 0);
    let mut handed = allocated.clone();
    handed.assignment = Some(Assignment {
        assignee: Assignee::Person(joiner.id),
        assigned_at: Some(at(5, 0)),
    });
    handed.deploy_status = DeployStatus::Deployed;
    handed.deploy_reason = None;
    handed.updated_at = at(5, 0);
    for after in [&released, &handed] {
        match store.update_inventory_item(&allocated, after).unwrap() {
            ItemWrite::Refused(DomainError::Conflict { entity, message }) => {
                assert_eq!(entity, "deployStatus");
                assert!(message.contains(&order.to_string()), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
    let stored = store.find_inventory_item(org.id, it.id).unwrap().unwrap();
    assert_eq!(stored.deploy_status, DeployStatus::Unavailable);
    assert_eq!(
        all_events(store, &org).len(),
        events_before,
        "nothing written"
    );

    // Its other fields may change.
    let mut described = allocated.clone();
    described.description = Some("scratched lid".into());
    described.updated_at = at(6, 0);
    assert!(store
        .update_inventory_item(&allocated, &described)
        .unwrap()
        .written());

    // Once the line no longer holds it (cancelled), the item is free.
    db.execute("UPDATE order_lines SET status = 'CANCELLED', inventory_item_id = NULL");
    let mut free = described.clone();
    free.deploy_status = DeployStatus::Available;
    free.deploy_reason = None;
    free.updated_at = at(7, 0);
    assert!(store
        .update_inventory_item(&described, &free)
        .unwrap()
        .written());
}

/// What the stock hook costs an item write (ignored; run explicitly, in
/// release for figures: `cargo test -p equip-persistence --test storage
/// --release -- --ignored --nocapture stock_hook`): a change that moves no
/// stock, a status change at a place no level watches, and one that a level
/// watches (locked, counted, its flag written on a crossing).
#[test]
#[ignore = "benchmark; run explicitly"]
fn sqlite_stock_hook_benchmark() {
    stock_hook_benchmark(&TestDatabase::sqlite());
}

#[test]
#[ignore = "benchmark; run explicitly"]
fn postgres_stock_hook_benchmark() {
    if let Some(db) = TestDatabase::postgres() {
        stock_hook_benchmark(&db);
    }
}

fn stock_hook_benchmark(db: &TestDatabase) {
    const WRITES: usize = 300;
    let store = db.store();
    let (org, s, w) = seeded(&store, "Acme");
    let items: Vec<InventoryItem> = (0..WRITES)
        .map(|i| item(&org, &s, &w, at(3, i64::try_from(i).unwrap())))
        .collect();
    import(
        &store,
        &org,
        &ImportBatch {
            inventory: items.clone(),
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let timed = |what: &str, change: &dyn Fn(&mut InventoryItem)| {
        let started = std::time::Instant::now();
        for it in &items {
            let current = store.find_inventory_item(org.id, it.id).unwrap().unwrap();
            let mut after = current.clone();
            change(&mut after);
            after.updated_at = current.updated_at + Duration::seconds(1);
            assert!(store
                .update_inventory_item(&current, &after)
                .unwrap()
                .written());
        }
        let per = started.elapsed().as_secs_f64() * 1000.0 / WRITES as f64;
        eprintln!(
            "{:?} {what}: {per:.2} ms per write (read + write)",
            store.backend()
        );
    };
    timed("description only (no stock moved)", &|i| {
        i.description = Some(format!("{}", i.updated_at));
    });
    timed("taken, no level watching", &|i| {
        i.deploy_status = DeployStatus::Unavailable;
        i.deploy_reason = Some(DeployReason::AwaitingInformation);
    });
    timed("put back, no level watching", &|i| {
        i.deploy_status = DeployStatus::Available;
        i.deploy_reason = None;
    });
    let mut l = level(&org, &s, &w, at(2, 0));
    l.minimum_quantity = i32::try_from(WRITES / 2).unwrap();
    l.target_quantity = i32::try_from(WRITES).unwrap();
    store.insert_inventory_level(&l).unwrap();
    timed("taken, a level watching (one crossing)", &|i| {
        i.deploy_status = DeployStatus::Unavailable;
        i.deploy_reason = Some(DeployReason::AwaitingInformation);
    });
    timed("put back, a level watching", &|i| {
        i.deploy_status = DeployStatus::Available;
        i.deploy_reason = None;
    });
    assert_eq!(crossings(&store, &org), 1);
}
