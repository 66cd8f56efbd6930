//! Warehouses: owned, shared (granted) and foreign.

use crate::support::*;

storage_tests!(
    warehouses_owned_shared_and_foreign,
    the_accessible_warehouses_are_listed_in_name_order,
);

fn warehouses_owned_shared_and_foreign(_db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let b = new_org(store, "B");
    let owned = owned_warehouse(&a, "A's own");
    let granted = shared_warehouse("Operator EU hub");
    let mut not_configured = owned_warehouse(&a, "Not configured yet");
    not_configured.address = None;
    import(
        store,
        &a,
        &ImportBatch {
            warehouses: vec![owned.clone(), granted.clone(), not_configured.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let only_b = shared_warehouse("Operator US hub");
    let b_own = owned_warehouse(&b, "B's own");
    import(
        store,
        &b,
        &ImportBatch {
            warehouses: vec![only_b.clone(), b_own.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();

    let find =
        |org: &Organization, w: &Warehouse| store.find_accessible_warehouse(org.id, w.id).unwrap();
    assert_eq!(find(&a, &owned), Some(owned.clone()), "owned");
    assert_eq!(
        find(&a, &granted),
        Some(granted.clone()),
        "shared and granted"
    );
    assert_eq!(find(&a, &not_configured), Some(not_configured.clone()));
    assert_eq!(find(&a, &only_b), None, "shared, not granted");
    assert_eq!(find(&a, &b_own), None, "another organization's");
    assert_eq!(find(&b, &owned), None, "another organization's");
    assert_eq!(find(&b, &granted), None, "shared, not granted to B");
    assert_eq!(find(&b, &only_b), Some(only_b.clone()));
    assert_eq!(
        store
            .find_accessible_warehouse(a.id, WarehouseId::new())
            .unwrap(),
        None
    );

    // B's import cannot grant the shared hub to B, nor rename it for
    // everyone (review finding 11); an operator's grant opens it for B.
    let mut renamed = granted.clone();
    renamed.name = "Renamed by B".to_owned();
    for w in [&granted, &renamed] {
        let err = import(
            store,
            &b,
            &ImportBatch {
                warehouses: vec![w.clone()],
                ..ImportBatch::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.entry, "warehouses[0]");
        assert!(err.message.contains(&granted.id.to_string()), "{err}");
    }
    assert_eq!(find(&b, &granted), None);
    assert_eq!(find(&a, &granted), Some(granted.clone()), "unchanged");
    assert!(store.grant_warehouse(granted.id, b.id, at(8, 0)).unwrap());
    assert!(!store.grant_warehouse(granted.id, b.id, at(8, 1)).unwrap());
    assert_eq!(find(&b, &granted), Some(granted.clone()));
    assert_eq!(find(&a, &granted), Some(granted.clone()));

    // References from a later import resolve against the same access rule.
    let s = sku(&a, "Laptop");
    import(
        store,
        &a,
        &ImportBatch {
            skus: vec![s.clone()],
            inventory_levels: vec![level(&a, &s, &granted, at(9, 0))],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let err = import(
        store,
        &a,
        &ImportBatch {
            inventory_levels: vec![level(&a, &s, &only_b, at(9, 1))],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "inventoryLevels[0].warehouseId");
}

/// `list_accessible_warehouses`: owned and granted shared warehouses, never
/// another organization's nor an ungranted shared one; by name in byte order
/// (upper case before lower case before accents, whatever the database's
/// collation), then id; at most `limit`.
fn the_accessible_warehouses_are_listed_in_name_order(_db: &TestDatabase, store: &Store) {
    let a = new_org(store, "A");
    let b = new_org(store, "B");
    let owned = owned_warehouse(&a, "berlin");
    let owned_upper = owned_warehouse(&a, "Zagreb");
    let owned_accent = owned_warehouse(&a, "Älmhult");
    let granted = shared_warehouse("Operator EU hub");
    let mut twins = [owned_warehouse(&a, "Twin"), owned_warehouse(&a, "Twin")];
    twins.sort_by_key(|w| w.id);
    let mut batch = vec![
        owned.clone(),
        owned_upper.clone(),
        owned_accent.clone(),
        granted.clone(),
    ];
    batch.extend(twins.iter().cloned());
    import(
        store,
        &a,
        &ImportBatch {
            warehouses: batch,
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let b_own = owned_warehouse(&b, "A warehouse of B");
    // Shared and granted to B (its import did), not to A.
    let ungranted = shared_warehouse("Another hub");
    import(
        store,
        &b,
        &ImportBatch {
            warehouses: vec![b_own.clone(), ungranted.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    // Shared and stored, but granted to nobody.
    let never_granted = shared_warehouse("Nobody's hub");
    import(
        store,
        &b,
        &ImportBatch {
            warehouses: vec![never_granted.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    store
        .revoke_warehouse_grant(never_granted.id, b.id)
        .unwrap();

    let expected = vec![
        granted.clone(),
        twins[0].clone(),
        twins[1].clone(),
        owned_upper.clone(),
        owned.clone(),
        owned_accent.clone(),
    ];
    let listed = store.list_accessible_warehouses(a.id, 1_000).unwrap();
    assert_eq!(
        listed.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(),
        expected.iter().map(|w| w.name.as_str()).collect::<Vec<_>>()
    );
    assert_eq!(listed, expected, "whole warehouses, addresses included");
    // Exactly what a read by id finds.
    for w in [&b_own, &ungranted, &never_granted] {
        assert_eq!(store.find_accessible_warehouse(a.id, w.id).unwrap(), None);
    }
    for w in &listed {
        assert_eq!(
            store
                .find_accessible_warehouse(a.id, w.id)
                .unwrap()
                .as_ref(),
            Some(w)
        );
    }
    assert_eq!(
        store.list_accessible_warehouses(a.id, 2).unwrap(),
        expected[..2],
        "the first in order"
    );
    assert_eq!(
        store.list_accessible_warehouses(b.id, 1_000).unwrap(),
        vec![b_own, ungranted.clone()]
    );
    assert!(store
        .list_accessible_warehouses(OrganizationId::new(), 1_000)
        .unwrap()
        .is_empty());

    // A grant taken back: no longer listed.
    store.revoke_warehouse_grant(granted.id, a.id).unwrap();
    assert_eq!(
        store.list_accessible_warehouses(a.id, 1_000).unwrap(),
        expected[1..]
    );
}
