//! The bulk import: every field round-trips, upserts by id, reports progress.

use crate::support::*;

storage_tests!(
    import_round_trip_keeps_every_field,
    import_upserts_by_id,
    import_many_items_reports_progress,
);

/// A batch using every field, with one item per retrieval variant.
fn full_batch(org: &Organization) -> ImportBatch {
    let laptop = sku(org, "MacBook Pro 14\"");
    let phone = Sku {
        category_code: "PHONE".into(),
        category_name: "Phones".into(),
        ..sku(org, "iPhone 15")
    };
    let berlin = owned_warehouse(org, "Berlin");
    let hub = shared_warehouse("Operator EU hub");
    let office = Office {
        id: OfficeId::new(),
        organization_id: org.id,
        name: "Lisbon office".into(),
    };
    let package = Package {
        id: PackageId::new(),
        organization_id: org.id,
        slug: "engineering-mac".into(),
        name: "Engineering (Mac)".into(),
        items: Vec::new(),
    };
    let ada = Person {
        external_id: Some("okta-00u1".into()),
        display_name: Some("Ada L.".into()),
        emails: vec![
            Email {
                value: "Ada@Example.com".into(),
                kind: Some("work".into()),
                primary: true,
            },
            Email {
                value: "ada@home.example".into(),
                kind: Some("home".into()),
                primary: false,
            },
            Email {
                value: "ada@other.example".into(),
                kind: None,
                primary: false,
            },
        ],
        phone_numbers: vec![
            PhoneNumber {
                value: "+351 912 345 678".into(),
                kind: Some("mobile".into()),
                primary: true,
            },
            PhoneNumber {
                value: "+49 30 000".into(),
                kind: None,
                primary: false,
            },
        ],
        addresses: vec![Address {
            kind: Some("home".into()),
            primary: true,
            country: Some("BR".into()),
            street_address: Some("Rua Augusta 1\nApto 2".into()),
            postal_code: Some("01305-000".into()),
            region: Some("SP".into()),
            locality: Some("São Paulo".into()),
        }],
        active: false,
        package_id: Some(package.id),
        start_date: Some(date(2026, 12, 1)),
        skip_user_activation: Some(true),
        cpf_number: Some("529.982.247-25".into()),
        profile: Default::default(),
        version: 7,
        ..person(org, "Ada@Example.com")
    };
    let leaving = Person {
        status: PersonStatus::Offboarding,
        ..person(org, "grace@example.com")
    };

    let base = item(org, &laptop, &berlin, at(20, 1));
    let full = InventoryItem {
        imei: vec!["356938035643809".into(), "356938035643817".into()],
        deploy_status: DeployStatus::Deployed,
        condition: Condition::UsedGood,
        renewal_date: Some(date(2029, 1, 31)),
        renewal_date_updated_by: Some(RenewalDateUpdatedBy::ManuallyUpdated),
        billing_start_date: Some(date(2026, 1, 1)),
        billing_end_date: Some(date(2028, 12, 31)),
        procurement_method: Some("Purchase".into()),
        assignment: Some(Assignment {
            assignee: Assignee::new(AssigneeType::Person, *ada.id.as_uuid()),
            assigned_at: Some(at(20, 777_777)),
        }),
        tags: vec![
            Tag {
                id: TagId::new(),
                label: "loaner".into(),
            },
            Tag {
                id: TagId::new(),
                label: "VIP".into(),
            },
            Tag {
                id: TagId::new(),
                label: "a-first".into(),
            },
        ],
        pricing: Some(Price {
            region_code: "EU".into(),
            price_option: "RENTAL_24M".into(),
            price: 1234.56,
            currency_code: "EUR".into(),
            discounted_price: 1111.1,
            discount_percentage: 10.0,
        }),
        description: Some("Ada's laptop — with ünïcode".into()),
        erp_invoice_id: Some("INV-2026-0001".into()),
        hold_start_date: Some(date(2026, 2, 1)),
        unlock_date: Some(date(2026, 5, 1)),
        itad_requested: Some(false),
        device_program: Some(DeviceProgram {
            assignment_status: DeviceProgramStatus::Assigned,
            last_sync_timestamp: Some(at(21, 5)),
            next_sync_timestamp: at(22, 6),
        }),
        supplied_by: SuppliedBy::Operator,
        return_order: Some(ReturnInfo {
            id: ReturnOrderId::new(),
            status: ReturnStatus::Processing,
            created_at: at(23, 1),
            return_order_item_id: ReturnOrderItemId::new(),
            return_order_item_status: ReturnStatus::ReturnKitSent,
            retrieval: Some(Retrieval {
                id: RetrievalId::new(),
                status: RetrievalStatus::Shipped,
                updated_at: at(23, 2),
                kind: RetrievalKind::ReturnKit {
                    inbound_tracking_code: Some("IN-1".into()),
                    inbound_tracking_link: Some("https://track.example/IN-1".into()),
                    outbound_tracking_code: Some("OUT-1".into()),
                    outbound_tracking_link: None,
                },
            }),
        }),
        updated_at: at(24, 999_999),
        ..base
    };
    let shared_return = ReturnOrderId::new();
    let label = InventoryItem {
        deploy_status: DeployStatus::OnHold,
        deploy_reason: Some(DeployReason::ReturnInProgress),
        return_order: Some(ReturnInfo {
            id: shared_return,
            status: ReturnStatus::Pending,
            created_at: at(25, 0),
            return_order_item_id: ReturnOrderItemId::new(),
            return_order_item_status: ReturnStatus::Pending,
            retrieval: Some(Retrieval {
                id: RetrievalId::new(),
                status: RetrievalStatus::LabelCreated,
                updated_at: at(25, 1),
                kind: RetrievalKind::InboundLabel {
                    inbound_tracking_code: Some("LBL-9".into()),
                    inbound_tracking_link: None,
                },
            }),
        }),
        ..item(org, &phone, &hub, at(20, 2))
    };
    let physical = InventoryItem {
        deploy_status: DeployStatus::Unavailable,
        deploy_reason: Some(DeployReason::RequiresRepair),
        assignment: Some(Assignment {
            assignee: Assignee::new(AssigneeType::Office, *office.id.as_uuid()),
            assigned_at: Some(at(26, 0)),
        }),
        return_order: Some(ReturnInfo {
            id: shared_return,
            status: ReturnStatus::Pending,
            created_at: at(25, 0),
            return_order_item_id: ReturnOrderItemId::new(),
            return_order_item_status: ReturnStatus::Submitted,
            retrieval: Some(Retrieval {
                id: RetrievalId::new(),
                status: RetrievalStatus::SchedulingPickUp,
                updated_at: at(26, 3),
                kind: RetrievalKind::Physical,
            }),
        }),
        ..item(org, &laptop, &berlin, at(20, 3))
    };
    let not_chosen = InventoryItem {
        deploy_status: DeployStatus::AwaitingArrival,
        serial_number: None,
        assignment: None,
        return_order: Some(ReturnInfo {
            id: ReturnOrderId::new(),
            status: ReturnStatus::None,
            created_at: at(27, 0),
            return_order_item_id: ReturnOrderItemId::new(),
            return_order_item_status: ReturnStatus::None,
            retrieval: None,
        }),
        ..item(org, &phone, &berlin, at(20, 4))
    };
    let levels = vec![
        level(org, &laptop, &berlin, at(28, 0)),
        InventoryLevel {
            deactivated_at: Some(at(29, 0)),
            ..level(org, &laptop, &berlin, at(27, 0))
        },
        level(org, &phone, &hub, at(28, 1)),
    ];
    ImportBatch {
        warehouses: vec![berlin, hub],
        offices: vec![office],
        skus: vec![laptop, phone],
        packages: vec![package],
        people: vec![ada, leaving],
        inventory: vec![full, label, physical, not_chosen],
        inventory_levels: levels,
        groups: Vec::new(),
    }
}

fn import_round_trip_keeps_every_field(db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let other = new_org(store, "Other");
    let batch = full_batch(&org);
    let summary = import(store, &org, &batch).unwrap();
    assert_eq!(
        summary,
        ImportSummary {
            warehouses: 2,
            offices: 1,
            skus: 2,
            packages: 1,
            people: 2,
            inventory: 4,
            inventory_levels: 3,
            groups: 0,
        }
    );
    for w in &batch.warehouses {
        assert_eq!(
            store
                .find_accessible_warehouse(org.id, w.id)
                .unwrap()
                .as_ref(),
            Some(w)
        );
    }
    for s in &batch.skus {
        assert_eq!(store.find_sku(org.id, s.id).unwrap().as_ref(), Some(s));
        assert_eq!(store.find_sku(other.id, s.id).unwrap(), None);
    }
    for p in &batch.people {
        assert_eq!(store.find_person(org.id, p.id).unwrap().as_ref(), Some(p));
        assert_eq!(store.find_person(other.id, p.id).unwrap(), None);
    }
    for i in &batch.inventory {
        assert_eq!(
            store.find_inventory_item(org.id, i.id).unwrap().as_ref(),
            Some(i)
        );
        assert_eq!(store.find_inventory_item(other.id, i.id).unwrap(), None);
    }
    for l in &batch.inventory_levels {
        assert_eq!(
            store.find_inventory_level(org.id, l.id).unwrap().as_ref(),
            Some(l)
        );
    }
    assert_eq!(db.count_rows("person_emails"), 4);
    assert_eq!(db.count_rows("inventory_item_tags"), 3);
    assert_eq!(
        db.count_rows("return_orders"),
        3,
        "one order covers two items"
    );
    assert_eq!(db.count_rows("return_order_items"), 4);
    assert_eq!(db.count_rows("warehouse_grants"), 1);
}

fn import_upserts_by_id(db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let batch = full_batch(&org);
    import(store, &org, &batch).unwrap();
    // The same batch again changes nothing and duplicates nothing.
    import(store, &org, &batch).unwrap();
    let counts = |db: &TestDatabase| {
        [
            "warehouses",
            "warehouse_grants",
            "offices",
            "skus",
            "packages",
            "people",
            "person_emails",
            "inventory_items",
            "inventory_item_pricing",
            "inventory_item_tags",
            "return_orders",
            "return_order_items",
            "inventory_levels",
        ]
        .map(|t| db.count_rows(t))
    };
    let before = counts(db);
    assert_eq!(before, [2, 1, 1, 2, 1, 2, 4, 4, 1, 3, 3, 4, 3]);

    // Change fields everywhere.
    let mut changed = batch.clone();
    changed.warehouses[0].name = "Berlin (new)".into();
    changed.warehouses[0].address = None;
    changed.skus[0].title = "MacBook Pro 16\"".into();
    changed.packages[0].name = "Engineering".into();
    changed.people[0].given_name = Some("Augusta Ada".into());
    changed.people[0].emails.truncate(1);
    changed.people[0].phone_numbers.clear();
    changed.people[0].version = 8;
    let item = &mut changed.inventory[0];
    item.description = Some("renamed".into());
    item.tags.remove(1);
    item.tags.reverse();
    item.pricing = None;
    item.device_program = None;
    item.imei = vec!["490154203237518".into()];
    // A new return replaces the active one.
    item.return_order = Some(ReturnInfo {
        id: ReturnOrderId::new(),
        status: ReturnStatus::Pending,
        created_at: at(28, 5),
        return_order_item_id: ReturnOrderItemId::new(),
        return_order_item_status: ReturnStatus::Pending,
        retrieval: None,
    });
    // The second item's return is over.
    changed.inventory[1].return_order = None;
    changed.inventory_levels[0].target_quantity = 99;
    import(store, &org, &changed).unwrap();

    assert_eq!(
        store
            .find_accessible_warehouse(org.id, changed.warehouses[0].id)
            .unwrap()
            .as_ref(),
        Some(&changed.warehouses[0])
    );
    assert_eq!(
        store.find_sku(org.id, changed.skus[0].id).unwrap().as_ref(),
        Some(&changed.skus[0])
    );
    assert_eq!(
        store
            .find_person(org.id, changed.people[0].id)
            .unwrap()
            .as_ref(),
        Some(&changed.people[0])
    );
    for i in &changed.inventory {
        assert_eq!(
            store.find_inventory_item(org.id, i.id).unwrap().as_ref(),
            Some(i)
        );
    }
    assert_eq!(
        store
            .find_inventory_level(org.id, changed.inventory_levels[0].id)
            .unwrap()
            .as_ref(),
        Some(&changed.inventory_levels[0])
    );
    let after = counts(db);
    // Same parents; fewer emails, tags and prices; one more return order and
    // line (the old lines are kept, inactive).
    assert_eq!(after, [2, 1, 1, 2, 1, 2, 2, 4, 0, 2, 4, 5, 3]);
}

fn import_many_items_reports_progress(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let items: Vec<InventoryItem> = (0..12_000)
        .map(|i| InventoryItem {
            tags: vec![Tag {
                id: TagId::new(),
                label: format!("batch-{}", i % 7),
            }],
            ..item(&org, &s, &w, at(15, i))
        })
        .collect();
    let batch = ImportBatch {
        inventory: items,
        ..ImportBatch::default()
    };
    let external = batch.validate(&org).unwrap();
    let mut reports = Vec::new();
    let summary = store
        .import_batch(org.id, &batch, &external, &mut |n| reports.push(n))
        .unwrap()
        .unwrap();
    assert_eq!(summary.inventory, 12_000);
    assert_eq!(db.count_rows("inventory_items"), 12_000);
    assert_eq!(db.count_rows("inventory_item_tags"), 12_000);
    assert!(reports.len() >= 3, "{reports:?}");
    assert!(reports.windows(2).all(|w| w[0] < w[1]), "{reports:?}");
    assert_eq!(reports.last(), Some(&12_000));
    let last = batch.inventory.last().unwrap();
    assert_eq!(
        store.find_inventory_item(org.id, last.id).unwrap().as_ref(),
        Some(last)
    );
}

// ---------------------------------------------------------------------------
// SQLite only
// ---------------------------------------------------------------------------
