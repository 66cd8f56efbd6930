//! Inventory levels: rules, order, concurrent inserts.

use crate::support::*;

storage_tests!(
    inventory_levels_rules,
    inventory_levels_list_order,
    concurrent_active_level_inserts_one_wins,
);

fn inventory_levels_rules(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (other, other_sku, other_wh) = seeded(store, "Other");
    let first = level(&org, &s, &w, at(10, 1));
    store.insert_inventory_level(&first).unwrap();
    assert_eq!(
        store.find_inventory_level(org.id, first.id).unwrap(),
        Some(first.clone())
    );

    // A second active level for the same SKU and warehouse.
    let second = InventoryLevel {
        id: InventoryLevelId::new(),
        created_at: at(11, 1),
        ..first.clone()
    };
    assert!(matches!(
        store.insert_inventory_level(&second),
        Err(StoreError::Duplicate {
            entity: "inventoryLevel",
            ..
        })
    ));
    // The other organization may have its own.
    store
        .insert_inventory_level(&level(&other, &other_sku, &other_wh, at(10, 2)))
        .unwrap();

    // Another organization's id behaves like an unknown one.
    assert_eq!(
        store.find_inventory_level(other.id, first.id).unwrap(),
        None
    );
    assert!(!store
        .mark_inventory_level_deactivated(other.id, first.id, at(12, 0))
        .unwrap());
    assert!(!store
        .mark_inventory_level_deactivated(org.id, InventoryLevelId::new(), at(12, 0))
        .unwrap());

    // Deactivation happens once and keeps the first time.
    assert!(store
        .mark_inventory_level_deactivated(org.id, first.id, at(12, 0))
        .unwrap());
    assert!(!store
        .mark_inventory_level_deactivated(org.id, first.id, at(13, 0))
        .unwrap());
    let stored = store
        .find_inventory_level(org.id, first.id)
        .unwrap()
        .unwrap();
    assert_eq!(stored.deactivated_at, Some(at(12, 0)));

    // Now a new active level may be created.
    store.insert_inventory_level(&second).unwrap();
    assert_eq!(listed_levels(store, &org, false), vec![second.clone()]);
    assert_eq!(listed_levels(store, &org, true), vec![second, stored]);

    // A SKU of another organization is a missing reference.
    let foreign = level(&org, &other_sku, &w, at(14, 0));
    assert!(matches!(
        store.insert_inventory_level(&foreign),
        Err(StoreError::MissingReference { .. })
    ));
}

fn inventory_levels_list_order(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let w2 = owned_warehouse(&org, "Hamburg");
    let w3 = owned_warehouse(&org, "Munich");
    import(
        store,
        &org,
        &ImportBatch {
            warehouses: vec![w2.clone(), w3.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let old = level(&org, &s, &w, at(5, 0));
    let tie_a = level(&org, &s, &w2, at(6, 0));
    let tie_b = level(&org, &s, &w3, at(6, 0));
    for l in [&old, &tie_a, &tie_b] {
        store.insert_inventory_level(l).unwrap();
    }
    let listed: Vec<InventoryLevelId> = store
        .list_inventory_levels(org.id, false)
        .unwrap()
        .into_iter()
        .map(|l| l.level.id)
        .collect();
    let (hi, lo) = if tie_a.id > tie_b.id {
        (tie_a.id, tie_b.id)
    } else {
        (tie_b.id, tie_a.id)
    };
    assert_eq!(
        listed,
        vec![hi, lo, old.id],
        "newest first, ties by id descending"
    );
}

fn concurrent_active_level_inserts_one_wins(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let store = store.clone();
            let barrier = Arc::clone(&barrier);
            let l = level(&org, &s, &w, at(7, i64::try_from(i).unwrap()));
            std::thread::spawn(move || {
                barrier.wait();
                store.insert_inventory_level(&l)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let duplicates = results
        .iter()
        .filter(|r| matches!(r, Err(StoreError::Duplicate { .. })))
        .count();
    assert_eq!(ok, 1, "{results:?}");
    assert_eq!(duplicates, threads - 1, "{results:?}");
    assert_eq!(store.list_inventory_levels(org.id, true).unwrap().len(), 1);
}
