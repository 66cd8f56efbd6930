//! The bulk import's rules: a refused batch writes nothing.

use crate::support::*;

storage_tests!(
    import_bad_external_reference_writes_nothing,
    import_foreign_id_writes_nothing,
    import_user_name_rules,
    import_package_slug_rules,
    import_level_rules,
    import_failure_in_write_phase_rolls_back,
);

fn import_bad_external_reference_writes_nothing(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let new_sku = sku(&org, "New");
    let good = item(&org, &new_sku, &w, at(20, 0));
    let bad_sku = InventoryItem {
        sku_id: SkuId::new(),
        ..item(&org, &s, &w, at(20, 1))
    };
    let batch = ImportBatch {
        skus: vec![new_sku.clone()],
        inventory: vec![good, bad_sku.clone()],
        ..ImportBatch::default()
    };
    let err = import(store, &org, &batch).unwrap_err();
    assert_eq!(err.entry, "inventory[1].skuId");
    assert!(err.message.contains("not found"), "{err}");
    assert_eq!(store.find_sku(org.id, new_sku.id).unwrap(), None);
    assert_eq!(db.count_rows("inventory_items"), 0);

    // An assignee that does not exist.
    let nobody = InventoryItem {
        deploy_status: DeployStatus::Deployed,
        assignment: Some(Assignment {
            assignee: Assignee::new(AssigneeType::Person, Uuid::new_v4()),
            assigned_at: None,
        }),
        ..item(&org, &s, &w, at(20, 2))
    };
    let batch = ImportBatch {
        skus: vec![new_sku.clone()],
        inventory: vec![nobody],
        ..ImportBatch::default()
    };
    let err = import(store, &org, &batch).unwrap_err();
    assert_eq!(err.entry, "inventory[0].assignedTo");
    assert_eq!(db.count_rows("skus"), 1);

    // A warehouse of another organization is not accessible.
    let (_, _, foreign_wh) = seeded(store, "Other");
    let batch = ImportBatch {
        inventory_levels: vec![level(&org, &s, &foreign_wh, at(20, 3))],
        ..ImportBatch::default()
    };
    let err = import(store, &org, &batch).unwrap_err();
    assert_eq!(err.entry, "inventoryLevels[0].warehouseId");
    assert_eq!(db.count_rows("inventory_levels"), 0);
}

fn import_foreign_id_writes_nothing(db: &TestDatabase, store: &Store) {
    let (a, a_sku, a_wh) = seeded(store, "A");
    let a_item = item(&a, &a_sku, &a_wh, at(20, 0));
    let a_person = person(&a, "ada@a.example");
    import(
        store,
        &a,
        &ImportBatch {
            inventory: vec![a_item.clone()],
            people: vec![a_person.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();

    let (b, b_sku, b_wh) = seeded(store, "B");
    let items_before = db.count_rows("inventory_items");
    // B's batch reuses A's item id at inventory[1].
    let stolen = InventoryItem {
        id: a_item.id,
        ..item(&b, &b_sku, &b_wh, at(21, 0))
    };
    let new_b_sku = sku(&b, "B new");
    let batch = ImportBatch {
        skus: vec![new_b_sku.clone()],
        inventory: vec![item(&b, &b_sku, &b_wh, at(21, 1)), stolen],
        ..ImportBatch::default()
    };
    let err = import(store, &b, &batch).unwrap_err();
    assert_eq!(err.entry, "inventory[1]");
    assert!(err.message.contains("another organization"), "{err}");
    assert_eq!(store.find_sku(b.id, new_b_sku.id).unwrap(), None);
    assert_eq!(db.count_rows("inventory_items"), items_before);
    assert_eq!(
        store.find_inventory_item(a.id, a_item.id).unwrap(),
        Some(a_item.clone())
    );

    // The same for people, SKUs and warehouses.
    let err = import(
        store,
        &b,
        &ImportBatch {
            people: vec![Person {
                id: a_person.id,
                ..person(&b, "someone@b.example")
            }],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "people[0]");
    assert_eq!(
        store.find_person(a.id, a_person.id).unwrap(),
        Some(a_person)
    );

    let err = import(
        store,
        &b,
        &ImportBatch {
            skus: vec![Sku {
                id: a_sku.id,
                ..sku(&b, "x")
            }],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "skus[0]");
    assert_eq!(store.find_sku(a.id, a_sku.id).unwrap(), Some(a_sku));

    let err = import(
        store,
        &b,
        &ImportBatch {
            warehouses: vec![Warehouse {
                id: a_wh.id,
                ..owned_warehouse(&b, "mine now")
            }],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "warehouses[0]");
    // Nor can a shared warehouse entry take over an owned one.
    let err = import(
        store,
        &b,
        &ImportBatch {
            warehouses: vec![Warehouse {
                id: a_wh.id,
                ..shared_warehouse("shared now")
            }],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "warehouses[0]");
    assert_eq!(
        store.find_accessible_warehouse(a.id, a_wh.id).unwrap(),
        Some(a_wh)
    );
    assert_eq!(
        store.find_accessible_warehouse(b.id, b_wh.id).unwrap(),
        Some(b_wh)
    );
}

fn import_user_name_rules(db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let ada = person(&org, "ada@example.com");
    import(
        store,
        &org,
        &ImportBatch {
            people: vec![ada.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();

    // Another person with the same userName, other case: refused.
    let twin = person(&org, "ADA@example.COM");
    let err = import(
        store,
        &org,
        &ImportBatch {
            people: vec![person(&org, "bob@example.com"), twin.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "people[1].userName");
    assert_eq!(db.count_rows("people"), 1);

    // Another organization may use it.
    let other = new_org(store, "Other");
    import(
        store,
        &other,
        &ImportBatch {
            people: vec![person(&other, "ada@example.com")],
            ..ImportBatch::default()
        },
    )
    .unwrap();

    // Offboarding frees the userName.
    let leaving = Person {
        status: PersonStatus::Offboarding,
        ..ada.clone()
    };
    import(
        store,
        &org,
        &ImportBatch {
            people: vec![leaving.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    import(
        store,
        &org,
        &ImportBatch {
            people: vec![twin.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(
        store.find_person(org.id, twin.id).unwrap(),
        Some(twin.clone())
    );
    assert_eq!(store.find_person(org.id, ada.id).unwrap(), Some(leaving));

    // Two stored people may swap userNames in one import.
    let bob = person(&org, "bob@example.com");
    import(
        store,
        &org,
        &ImportBatch {
            people: vec![bob.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let swapped = vec![
        Person {
            user_name: "bob@example.com".into(),
            emails: bob.emails.clone(),
            ..twin.clone()
        },
        Person {
            user_name: "ADA@example.COM".into(),
            emails: twin.emails.clone(),
            ..bob.clone()
        },
    ];
    import(
        store,
        &org,
        &ImportBatch {
            people: swapped.clone(),
            ..ImportBatch::default()
        },
    )
    .unwrap();
    for p in &swapped {
        assert_eq!(store.find_person(org.id, p.id).unwrap().as_ref(), Some(p));
    }
}

fn import_package_slug_rules(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let pkg = |slug: &str| Package {
        id: PackageId::new(),
        organization_id: org.id,
        slug: slug.into(),
        name: slug.to_uppercase(),
        items: Vec::new(),
    };
    let mac = pkg("mac");
    let win = pkg("win");
    import(
        store,
        &org,
        &ImportBatch {
            packages: vec![mac.clone(), win.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let err = import(
        store,
        &org,
        &ImportBatch {
            packages: vec![pkg("mac")],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "packages[0].slug");
    // Swapping slugs between stored packages works; people keep their package.
    let mut ada = person(&org, "ada@example.com");
    ada.package_id = Some(mac.id);
    let swapped = vec![
        Package {
            slug: "win".into(),
            ..mac.clone()
        },
        Package {
            slug: "mac".into(),
            ..win.clone()
        },
    ];
    import(
        store,
        &org,
        &ImportBatch {
            packages: swapped,
            people: vec![ada.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(store.find_person(org.id, ada.id).unwrap(), Some(ada));
}

fn import_level_rules(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let stored = level(&org, &s, &w, at(10, 0));
    store.insert_inventory_level(&stored).unwrap();
    // A second active level for the same pair, with another id: refused.
    let err = import(
        store,
        &org,
        &ImportBatch {
            inventory_levels: vec![level(&org, &s, &w, at(11, 0))],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.entry, "inventoryLevels[0]");
    assert!(err.message.contains(&stored.id.to_string()), "{err}");
    // Deactivating the stored one and adding a new one in the same import works.
    let replacement = level(&org, &s, &w, at(11, 0));
    let deactivated = InventoryLevel {
        deactivated_at: Some(at(11, 0)),
        ..stored.clone()
    };
    import(
        store,
        &org,
        &ImportBatch {
            inventory_levels: vec![replacement.clone(), deactivated.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(
        listed_levels(store, &org, true),
        vec![replacement, deactivated]
    );
    assert_eq!(db.count_rows("inventory_levels"), 2);
}

fn import_failure_in_write_phase_rolls_back(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let new_sku = sku(&org, "New");
    // Levels are written last; this one breaks the table's CHECK (minimum above
    // target), which `ImportBatch::validate` would have refused: call the store
    // directly so the failure happens after everything else was written.
    let broken = InventoryLevel {
        minimum_quantity: 10,
        target_quantity: 1,
        ..level(&org, &s, &w, at(10, 0))
    };
    let batch = ImportBatch {
        skus: vec![new_sku.clone()],
        people: vec![person(&org, "ada@example.com")],
        inventory: vec![item(&org, &new_sku, &w, at(10, 1))],
        inventory_levels: vec![broken],
        ..ImportBatch::default()
    };
    let result = store.import_batch(org.id, &batch, &[], &mut |_| {});
    assert!(matches!(result, Err(StoreError::Backend(_))), "{result:?}");
    assert_eq!(store.find_sku(org.id, new_sku.id).unwrap(), None);
    assert_eq!(db.count_rows("people"), 0);
    assert_eq!(db.count_rows("inventory_items"), 0);
    assert_eq!(db.count_rows("skus"), 1);
    // The store is still usable.
    store.ping().unwrap();
}
