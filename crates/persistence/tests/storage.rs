//! The storage integration suite: every test runs against SQLite and against
//! PostgreSQL (skipped with a note on stderr when PostgreSQL cannot be reached,
//! unless `EQUIP_REQUIRE_POSTGRES=1` or `CI=true`).
//!
//! Run: `cargo test -p equip-persistence --features test-support`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::too_many_lines)]

use std::sync::{Arc, Barrier};

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use uuid::Uuid;

use equip_domain::api_key::{ApiKey, Scope, Scopes};
use equip_domain::catalog::{Package, Sku};
use equip_domain::ids::{
    ApiKeyId, InventoryItemId, InventoryLevelId, OfficeId, OrganizationId, PackageId, PersonId,
    RetrievalId, ReturnOrderId, ReturnOrderItemId, SkuId, TagId, WarehouseId,
};
use equip_domain::import::{ImportBatch, ImportError, ImportSummary};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, DeviceProgram,
    DeviceProgramStatus, InventoryItem, Price, RenewalDateUpdatedBy, Retrieval, RetrievalKind,
    RetrievalStatus, ReturnInfo, ReturnStatus, SuppliedBy, Tag,
};
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};
use equip_domain::location::{Office, Warehouse, WarehouseAddress, WarehouseOwner};
use equip_domain::organization::{Organization, OrganizationName};
use equip_domain::person::{Address, Email, Person, PersonStatus, PhoneNumber};
use equip_domain::ports::{
    ApiKeyRepository, CatalogRepository, HealthCheck, ImportRepository, InventoryLevelRepository,
    InventoryRepository, OrganizationRepository, PersonRepository, WarehouseGrants,
    WarehouseRepository,
};
use equip_domain::StoreError;
use equip_persistence::test_support::TestDatabase;
use equip_persistence::{Backend, Store};

/// Generates `mod sqlite` and `mod postgres`, each with one `#[test]` per
/// function; every function takes `(&TestDatabase, &Store)`.
macro_rules! storage_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    let db = super::TestDatabase::sqlite();
                    let store = db.store();
                    assert_eq!(store.backend(), super::Backend::Sqlite);
                    super::$name(&db, &store);
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    let Some(db) = super::TestDatabase::postgres() else {
                        return;
                    };
                    let store = db.store();
                    assert_eq!(store.backend(), super::Backend::Postgres);
                    super::$name(&db, &store);
                }
            )*
        }
    };
}

storage_tests!(
    write_sessions_commit_each_write_and_reset_their_connection,
    migrations_are_idempotent,
    ping_answers,
    organizations_round_trip,
    api_keys_insert_find_revoke,
    warehouses_owned_shared_and_foreign,
    inventory_levels_rules,
    inventory_levels_list_order,
    concurrent_active_level_inserts_one_wins,
    import_round_trip_keeps_every_field,
    import_upserts_by_id,
    import_bad_external_reference_writes_nothing,
    import_foreign_id_writes_nothing,
    import_user_name_rules,
    import_package_slug_rules,
    import_level_rules,
    import_failure_in_write_phase_rolls_back,
    import_many_items_reports_progress,
    non_ascii_text_folds_like_the_reference,
    unfiltered_people_totals_follow_every_write,
);

/// The total of an unfiltered people list comes from a count kept by
/// triggers (`people_active_counts`); after creates, offboardings, a person
/// written in a rolled-back session and another organization's people, it
/// equals a real count of the organization's active people (a filter every
/// person matches, which counts them).
fn unfiltered_people_totals_follow_every_write(db: &TestDatabase, store: &Store) {
    use equip_domain::person_query::{PersonField, PersonFilter, PersonQuery};
    let org = new_org(store, "Counted");
    let other = new_org(store, "Other");
    let totals = |org: &Organization| {
        let all = store.list_people(org.id, &PersonQuery::default()).unwrap();
        let matched = store
            .list_people(
                org.id,
                &PersonQuery {
                    filter: Some(PersonFilter::Present(PersonField::UserName)),
                    ..PersonQuery::default()
                },
            )
            .unwrap();
        (all.total, matched.total)
    };
    assert_eq!(totals(&org), (0, 0));
    let people: Vec<Person> = (0..7)
        .map(|n| person(&org, &format!("p{n}@counted.example")))
        .collect();
    for p in &people {
        store.insert_person(p).unwrap();
    }
    store
        .insert_person(&person(&other, "elsewhere@other.example"))
        .unwrap();
    assert_eq!(totals(&org), (7, 7));
    assert_eq!(totals(&other), (1, 1));
    // Offboarded people are not active: both counts drop, once each.
    for p in &people[..3] {
        store
            .offboard_person(org.id, p.id, None, Utc::now())
            .unwrap();
    }
    store
        .offboard_person(org.id, people[0].id, None, Utc::now())
        .unwrap();
    assert_eq!(totals(&org), (4, 4));
    // An update that keeps the person active changes nothing.
    let mut renamed = people[5].clone();
    renamed.given_name = Some("Renamed".into());
    store.update_person(&renamed, renamed.version).unwrap();
    assert_eq!(totals(&org), (4, 4));
    // A page past the first still reports the whole total.
    let second = store
        .list_people(
            org.id,
            &PersonQuery {
                start_index: 3,
                count: 1,
                ..PersonQuery::default()
            },
        )
        .unwrap();
    assert_eq!((second.total, second.people.len()), (4, 1));
    // Rows deleted behind equip's back are counted out too.
    db.execute(&format!(
        "DELETE FROM person_emails WHERE person_id = '{}'",
        people[6].id
    ));
    db.execute(&format!("DELETE FROM people WHERE id = '{}'", people[6].id));
    assert_eq!(totals(&org), (3, 3));
    assert_eq!(totals(&other), (1, 1));
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

/// A time with microsecond precision (what both backends store).
fn at(day: u32, micros: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, day, 9, 30, 0).unwrap() + Duration::microseconds(micros)
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn new_org(store: &Store, name: &str) -> Organization {
    let org = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse(name).unwrap(),
        created_at: at(1, 123_456),
    };
    store.insert_organization(&org).unwrap();
    org
}

fn sku(org: &Organization, title: &str) -> Sku {
    Sku {
        id: SkuId::new(),
        organization_id: org.id,
        title: title.into(),
        category_code: "LAPTOP".into(),
        category_name: "Laptops".into(),
        vendor_code: "APPLE".into(),
        vendor_name: "Apple".into(),
        vendor_sku: "MLY33".into(),
    }
}

fn owned_warehouse(org: &Organization, name: &str) -> Warehouse {
    Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(org.id),
        name: name.into(),
        address: Some(WarehouseAddress {
            street1: Some("Hauptstraße 1".into()),
            street2: None,
            city: Some("Berlin".into()),
            province: Some("BE".into()),
            postal_code: Some("10115".into()),
            country_code: Some("DE".into()),
            phone_number: Some("+49 30 1234567".into()),
        }),
    }
}

fn shared_warehouse(name: &str) -> Warehouse {
    Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Shared,
        name: name.into(),
        address: None,
    }
}

fn person(org: &Organization, user_name: &str) -> Person {
    Person {
        id: PersonId::new(),
        organization_id: org.id,
        external_id: None,
        user_name: user_name.into(),
        given_name: Some("Ada".into()),
        family_name: Some("Lovelace".into()),
        display_name: None,
        emails: vec![Email {
            value: user_name.into(),
            kind: Some("work".into()),
            primary: true,
        }],
        phone_numbers: vec![],
        addresses: vec![],
        active: true,
        package_id: None,
        start_date: None,
        status: PersonStatus::Active,
        skip_user_activation: None,
        cpf_number: None,
        created_at: at(2, 1),
        updated_at: at(2, 2),
        version: 1,
    }
}

/// A minimal AVAILABLE item in `warehouse`.
fn item(
    org: &Organization,
    sku: &Sku,
    warehouse: &Warehouse,
    created: DateTime<Utc>,
) -> InventoryItem {
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org.id,
        sku_id: sku.id,
        serial_number: Some(format!("SN-{}", Uuid::new_v4().simple())),
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
            assignee: Assignee::new(AssigneeType::Warehouse, *warehouse.id.as_uuid()),
            assigned_at: None,
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
        created_at: created,
        updated_at: created,
    }
}

fn level(
    org: &Organization,
    sku: &Sku,
    warehouse: &Warehouse,
    created: DateTime<Utc>,
) -> InventoryLevel {
    InventoryLevel {
        id: InventoryLevelId::new(),
        organization_id: org.id,
        sku_id: sku.id,
        warehouse_id: warehouse.id,
        minimum_quantity: 5,
        target_quantity: 20,
        created_at: created,
        deactivated_at: None,
    }
}

/// Validates `batch` like the import use case, then writes it.
fn import(
    store: &Store,
    org: &Organization,
    batch: &ImportBatch,
) -> Result<ImportSummary, ImportError> {
    let external = batch.validate(org)?;
    store
        .import_batch(org.id, batch, &external, &mut |_| {})
        .expect("no backend failure")
}

/// An organization with one SKU and one owned warehouse, stored.
fn seeded(store: &Store, name: &str) -> (Organization, Sku, Warehouse) {
    let org = new_org(store, name);
    let s = sku(&org, "MacBook Air 13\"");
    let w = owned_warehouse(&org, "Berlin");
    import(
        store,
        &org,
        &ImportBatch {
            skus: vec![s.clone()],
            warehouses: vec![w.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    (org, s, w)
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

fn migrations_are_idempotent(db: &TestDatabase, store: &Store) {
    assert_eq!(store.run_migrations().unwrap(), Vec::<String>::new());
    // A second store on the same database finds nothing to do either.
    let again = Store::connect(db.url(), equip_persistence::PoolOptions::default()).unwrap();
    assert!(again.run_migrations().unwrap().is_empty());
    // Every table exists and is empty.
    for table in [
        "organizations",
        "api_keys",
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
        "reminders",
        "outbox_messages",
    ] {
        assert_eq!(db.count_rows(table), 0, "{table}");
    }
}

fn ping_answers(_db: &TestDatabase, store: &Store) {
    store.ping().unwrap();
}

fn organizations_round_trip(_db: &TestDatabase, store: &Store) {
    assert_eq!(store.count_organizations().unwrap(), 0);
    let org = new_org(store, "Acme");
    assert_eq!(store.count_organizations().unwrap(), 1);
    assert_eq!(store.find_organization(org.id).unwrap(), Some(org.clone()));
    assert_eq!(
        store.find_organization(OrganizationId::new()).unwrap(),
        None
    );
    assert!(matches!(
        store.insert_organization(&org),
        Err(StoreError::Duplicate { .. })
    ));
}

fn api_keys_insert_find_revoke(_db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Acme");
    let key = ApiKey {
        id: ApiKeyId::new(),
        organization_id: org.id,
        prefix: "0123456789abcdef".into(),
        hash: "ab".repeat(32),
        scopes: Scopes::all(),
        label: Some("Okta provisioning".into()),
        created_at: at(3, 5),
        revoked_at: None,
    };
    store.insert_api_key(&key).unwrap();
    assert_eq!(
        store.find_api_key_by_prefix("0123456789abcdef").unwrap(),
        Some(key.clone())
    );
    assert_eq!(
        store.find_api_key_by_prefix("ffffffffffffffff").unwrap(),
        None
    );

    // Scopes other than "all" survive too.
    let narrow = ApiKey {
        id: ApiKeyId::new(),
        prefix: "1111111111111111".into(),
        scopes: Scopes::from_list([Scope::Scim, Scope::InventoryRead]),
        label: None,
        ..key.clone()
    };
    store.insert_api_key(&narrow).unwrap();
    assert_eq!(
        store.find_api_key_by_prefix(&narrow.prefix).unwrap(),
        Some(narrow)
    );

    // Same prefix, another id: duplicate.
    let clash = ApiKey {
        id: ApiKeyId::new(),
        ..key.clone()
    };
    assert!(matches!(
        store.insert_api_key(&clash),
        Err(StoreError::Duplicate {
            entity: "apiKey",
            ..
        })
    ));
    // Unknown organization: missing reference.
    let orphan = ApiKey {
        id: ApiKeyId::new(),
        organization_id: OrganizationId::new(),
        prefix: "2222222222222222".into(),
        ..key.clone()
    };
    assert!(matches!(
        store.insert_api_key(&orphan),
        Err(StoreError::MissingReference { .. })
    ));

    // Revocation keeps the first time.
    store.revoke_api_key(key.id, at(4, 1)).unwrap();
    store.revoke_api_key(key.id, at(5, 1)).unwrap();
    let stored = store.find_api_key_by_prefix(&key.prefix).unwrap().unwrap();
    assert_eq!(stored.revoked_at, Some(at(4, 1)));
    assert!(matches!(
        store.revoke_api_key(ApiKeyId::new(), at(4, 1)),
        Err(StoreError::NotFound { entity: "apiKey" })
    ));
}

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
    assert_eq!(
        store.list_inventory_levels(org.id, false).unwrap(),
        vec![second.clone()]
    );
    assert_eq!(
        store.list_inventory_levels(org.id, true).unwrap(),
        vec![second, stored]
    );

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
        .map(|l| l.id)
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
        store.list_inventory_levels(org.id, true).unwrap(),
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

#[test]
fn sqlite_pragmas_are_set_on_pooled_connections() {
    let db = TestDatabase::sqlite();
    let store = db.store();
    let n = 4;
    assert_eq!(store.pooled_sqlite_pragma("foreign_keys", n), vec!["1"; n]);
    assert_eq!(
        store.pooled_sqlite_pragma("journal_mode", n),
        vec!["wal"; n]
    );
    assert_eq!(
        store.pooled_sqlite_pragma("busy_timeout", n),
        vec!["5000"; n]
    );
    // synchronous = NORMAL is 1.
    assert_eq!(store.pooled_sqlite_pragma("synchronous", n), vec!["1"; n]);
}

#[test]
fn sqlite_file_and_directory_are_created() {
    let db = TestDatabase::sqlite();
    let nested = std::path::Path::new(db.url())
        .parent()
        .unwrap()
        .join("a/b/equip.db");
    let url = format!("sqlite://{}", nested.display());
    let store = Store::connect(&url, equip_persistence::PoolOptions::default()).unwrap();
    let applied = store.run_migrations().unwrap();
    assert_eq!(
        applied.first().map(String::as_str),
        Some("2026-11-21-060000_create_schema")
    );
    assert!(
        applied.iter().any(|m| m.ends_with("_inventory_listing")),
        "{applied:?}"
    );
    assert!(nested.exists());
    assert!(store.run_migrations().unwrap().is_empty());
}

#[test]
fn postgres_fresh_database_is_migrated_once() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = Store::connect(db.url(), equip_persistence::PoolOptions::default()).unwrap();
    assert_eq!(store.backend(), Backend::Postgres);
    // Several starters at once: one applies the schema, the others wait for it.
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let store = store.clone();
            std::thread::spawn(move || store.run_migrations().unwrap())
        })
        .collect();
    let mut applied: Vec<Vec<String>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    applied.sort();
    assert!(
        applied[0].is_empty() && applied[1].is_empty(),
        "{applied:?}"
    );
    assert_eq!(
        applied[2].first().map(String::as_str),
        Some("2026-11-21-060000_create_schema"),
        "one starter applies every migration"
    );
}

#[test]
fn postgres_statistics_are_refreshed_when_stale() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let org = new_org(&store, "Stats");
    for i in 0..120 {
        store
            .insert_person(&person(&org, &format!("u{i}@stats.example")))
            .unwrap();
    }
    // The server's activity counters reach pg_stat_user_tables within a
    // second or so of the commits.
    let start = std::time::Instant::now();
    let analyzed = loop {
        let tables = store.refresh_statistics().unwrap();
        if tables.iter().any(|t| t == "people") {
            break tables;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "people never analyzed: {tables:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(
        analyzed.iter().any(|t| t == "person_emails"),
        "{analyzed:?}"
    );
    // Nothing changed since: nothing to do.
    let again = store.refresh_statistics().unwrap();
    assert!(!again.iter().any(|t| t == "people"), "{again:?}");
}

#[test]
fn sqlite_statistics_refresh_does_nothing() {
    let db = TestDatabase::sqlite();
    let store = db.store();
    assert!(store.refresh_statistics().unwrap().is_empty());
}

/// Waits up to 5 s for `done`.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "not within 5 s: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// PostgreSQL: a store that watches the database's change notifications
/// answers API keys from memory, and drops them when any writer changes them:
/// another process (here a plain connection), its own writes (seen at once),
/// and whatever happened while its listener was cut off.
#[test]
fn postgres_remembered_keys_follow_every_writer() {
    use diesel::prelude::*;
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let (org, _sku, _warehouse) = seeded(&store, "Acme");
    let key = ApiKey {
        id: ApiKeyId::new(),
        organization_id: org.id,
        prefix: "feedfeedfeedfeed".into(),
        hash: "ab".repeat(32),
        scopes: Scopes::all(),
        label: None,
        created_at: at(1, 0),
        revoked_at: None,
    };
    store.insert_api_key(&key).unwrap();
    let label = |store: &Store| {
        store
            .find_api_key_by_prefix(&key.prefix)
            .unwrap()
            .unwrap()
            .label
    };
    store.watch_changes().unwrap();
    eventually("the listener listens", || store.watching_changes());
    // The first read is kept; the next ones are answered from memory.
    assert_eq!(label(&store), None);
    let hits = store.memo_hits();
    assert_eq!(
        store.find_api_key_by_prefix(&key.prefix).unwrap(),
        Some(key.clone())
    );
    assert_eq!(label(&store), None);
    assert_eq!(store.memo_hits(), hits + 2, "answered from memory");

    // Another writer: seen once its notification arrives.
    let mut other = PgConnection::establish(db.url()).unwrap();
    let relabel = |to: &str| format!("UPDATE api_keys SET label = '{to}' WHERE id = '{}'", key.id);
    diesel::sql_query(relabel("other writer"))
        .execute(&mut other)
        .unwrap();
    eventually("another writer's change", || {
        label(&store).as_deref() == Some("other writer")
    });

    // Its own writes: seen at once, without waiting for the notification.
    label(&store);
    store.revoke_api_key(key.id, at(2, 0)).unwrap();
    assert!(store
        .find_api_key_by_prefix(&key.prefix)
        .unwrap()
        .is_some_and(|k| k.revoked_at.is_some()));

    // The listener is cut off; what changes until it listens again is not
    // answered from memory (the memo is emptied when it reconnects).
    label(&store);
    diesel::sql_query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'equip-change-feed' AND datname = current_database()",
    )
    .execute(&mut other)
    .unwrap();
    diesel::sql_query(relabel("while nobody listened"))
        .execute(&mut other)
        .unwrap();
    eventually("the change made while nobody listened", || {
        label(&store).as_deref() == Some("while nobody listened")
    });
    eventually("listening again", || store.watching_changes());
    let hits = store.memo_hits();
    label(&store);
    label(&store);
    assert!(store.memo_hits() > hits, "answered from memory again");
}

#[test]
fn unsupported_urls_are_refused() {
    let err = Store::connect(
        "mysql://localhost/db",
        equip_persistence::PoolOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(
        err,
        equip_persistence::PersistenceError::InvalidUrl(_)
    ));
}

/// 100,000 items (with tags, pricing on half, an active return on a tenth) and
/// 1,000 people, imported, then imported again (all upserts); each round must
/// take well under a minute. Ignored by default (slow in debug builds); run with
/// `cargo test -p equip-persistence --features test-support --release -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark; run explicitly"]
fn sqlite_import_100k_items_benchmark() {
    let db = TestDatabase::sqlite();
    import_100k_items(&db);
}

/// The same on PostgreSQL.
#[test]
#[ignore = "benchmark; run explicitly"]
fn postgres_import_100k_items_benchmark() {
    if let Some(db) = TestDatabase::postgres() {
        import_100k_items(&db);
    }
}

fn import_100k_items(db: &TestDatabase) {
    let store = db.store();
    let (org, s, w) = seeded(&store, "Big");
    let people: Vec<Person> = (0..1_000)
        .map(|i| person(&org, &format!("person{i}@example.com")))
        .collect();
    let inventory: Vec<InventoryItem> = (0..100_000i64)
        .map(|i| {
            let mut it = item(&org, &s, &w, at(15, i));
            it.tags = vec![
                Tag {
                    id: TagId::new(),
                    label: "fleet".into(),
                },
                Tag {
                    id: TagId::new(),
                    label: format!("batch-{}", i % 13),
                },
            ];
            if i % 2 == 0 {
                it.pricing = Some(Price {
                    region_code: "EU".into(),
                    price_option: "PURCHASE".into(),
                    price: 999.0,
                    currency_code: "EUR".into(),
                    discounted_price: 899.0,
                    discount_percentage: 10.0,
                });
            }
            if i % 10 == 0 {
                it.return_order = Some(ReturnInfo {
                    id: ReturnOrderId::new(),
                    status: ReturnStatus::Pending,
                    created_at: at(16, i),
                    return_order_item_id: ReturnOrderItemId::new(),
                    return_order_item_status: ReturnStatus::Pending,
                    retrieval: None,
                });
            }
            it
        })
        .collect();
    let batch = ImportBatch {
        people,
        inventory,
        ..ImportBatch::default()
    };
    let external = batch.validate(&org).unwrap();
    for round in ["insert", "upsert"] {
        let started = std::time::Instant::now();
        let summary = store
            .import_batch(org.id, &batch, &external, &mut |_| {})
            .unwrap()
            .unwrap();
        eprintln!(
            "{:?} {round}: {} items, {} people in {:.1?}",
            store.backend(),
            summary.inventory,
            summary.people,
            started.elapsed()
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }
    assert_eq!(db.count_rows("inventory_items"), 100_000);
    assert_eq!(db.count_rows("inventory_item_tags"), 200_000);
}
pub fn profile_entry(db: &TestDatabase) {
    import_100k_items(db)
}

fn write_sessions_commit_each_write_and_reset_their_connection(_db: &TestDatabase, store: &Store) {
    let session = store.session().unwrap();
    let postgres = store.backend() == Backend::Postgres;
    if postgres {
        assert_eq!(
            session.postgres_setting("synchronous_commit").as_deref(),
            Some("off")
        );
        // The other connections keep waiting for durability.
        assert_eq!(
            store.postgres_setting("synchronous_commit").as_deref(),
            Some("on")
        );
    }
    // A session of a session is the same connection.
    let nested = session.session().unwrap();
    let now = Utc::now();
    let org = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse("Session Org").unwrap(),
        created_at: now,
    };
    nested.insert_organization(&org).unwrap();
    // Committed on its own: visible to another connection before any flush.
    assert!(store.find_organization(org.id).unwrap().is_some());
    session.flush().unwrap();
    drop(nested);
    drop(session);
    if postgres {
        let settings = store.pooled_postgres_setting("synchronous_commit", 4);
        assert_eq!(settings, ["on", "on", "on", "on"], "reset before reuse");
    }
}

// ---------------------------------------------------------------------------
// Non-ASCII case folding
// ---------------------------------------------------------------------------

/// An organization holding SKUs, labels, serials and people whose texts
/// differ only in the case of non-ASCII letters (`Éb` / `éa` sort apart only
/// when `É` folds to `é`), stored by `store` and by a fresh in-memory
/// reference store.
fn seed_non_ascii(store: &Store) -> (OrganizationId, equip_domain::testing::InMemoryStore) {
    use equip_domain::services::import::run_import;
    let org = new_org(store, "Société Générale");
    let o = &org;
    let mk = |title: &str, category: &str, vendor_sku: &str| Sku {
        category_code: category.into(),
        category_name: format!("Catégorie {category}"),
        vendor_sku: vendor_sku.into(),
        ..sku(o, title)
    };
    let skus = vec![
        mk("Éb", "ÉCRAN", "ÄB-1"),
        mk("éa", "écran", "äb-1"),
        mk("Ec", "LAPTOP", "AB-1"),
        mk("ÉA", "Écran", "ÄB-2"),
        mk("Ölfass STRAẞE", "ÖL", "Ö"),
        // `ſ` (long s) is lowercase already: `sab` must not find it, although
        // SQLite's trigram index folds it to `s`.
        mk("ſab", "LAPTOP", "ſ-1"),
        mk("ЖУК Δέλτα", "ЖУК", "Ж-1"),
    ];
    let warehouses = vec![owned_warehouse(o, "Évora"), owned_warehouse(o, "éa depot")];
    let office = Office {
        id: OfficeId::new(),
        organization_id: o.id,
        name: "Ålesund".into(),
    };
    let people: Vec<Person> = [("Émile@example.com", "Éb"), ("ebba@example.com", "éa")]
        .iter()
        .map(|(user, given)| Person {
            given_name: Some((*given).into()),
            family_name: Some(format!("Öz{given}")),
            display_name: Some(format!("{given} ÖZ")),
            ..person(o, user)
        })
        .collect();
    let serials = [
        Some("ÉSN-1"),
        Some("ésn-0"),
        Some("ÉSN-2"),
        Some("SN-Ä"),
        None,
    ];
    let inventory: Vec<InventoryItem> = (0..21)
        .map(|i| {
            let mut it = item(o, &skus[i % skus.len()], &warehouses[0], at(3, i as i64));
            it.serial_number = serials[i % serials.len()].map(str::to_owned);
            it.description = (i % 4 == 0).then(|| "Écran cassé".to_owned());
            let (kind, id, status) = match i % 4 {
                0 => (
                    AssigneeType::Warehouse,
                    *warehouses[0].id.as_uuid(),
                    DeployStatus::Available,
                ),
                1 => (
                    AssigneeType::Warehouse,
                    *warehouses[1].id.as_uuid(),
                    DeployStatus::Available,
                ),
                2 => (
                    AssigneeType::Office,
                    *office.id.as_uuid(),
                    DeployStatus::OnHold,
                ),
                _ => (
                    AssigneeType::Person,
                    *people[i % 2].id.as_uuid(),
                    DeployStatus::Deployed,
                ),
            };
            it.deploy_status = status;
            it.deploy_reason = (status == DeployStatus::OnHold).then_some(DeployReason::DataHold);
            it.assignment = Some(Assignment {
                assignee: Assignee::new(kind, id),
                assigned_at: None,
            });
            it
        })
        .collect();
    let batch = ImportBatch {
        skus,
        warehouses,
        offices: vec![office],
        people,
        inventory,
        ..ImportBatch::default()
    };
    run_import(store, org.id, &batch, &mut |_| {}).unwrap();
    let reference = equip_domain::testing::InMemoryStore::default();
    reference.state().organizations.push(org.clone());
    run_import(&reference, org.id, &batch, &mut |_| {}).unwrap();
    (org.id, reference)
}

/// The ids and total of one listing page of `raw` (page 1 of 100).
fn listing(
    store: &dyn InventoryRepository,
    org: OrganizationId,
    raw: RawInventoryQuery,
) -> (Vec<String>, u64) {
    let q = InventoryQuery::parse(&RawInventoryQuery {
        size: Some("100".into()),
        ..raw
    })
    .unwrap();
    let page = store.list_inventory(org, &q).unwrap();
    (
        page.items.iter().map(|i| i.id.to_string()).collect(),
        page.total_records,
    )
}

/// The listing's sorts, searches and filters over non-ASCII text agree with
/// the reference; returns the differences (empty when all agree).
fn non_ascii_listing_differences(
    store: &Store,
    reference: &equip_domain::testing::InMemoryStore,
    org: OrganizationId,
) -> Vec<String> {
    let mut queries: Vec<(String, RawInventoryQuery)> = Vec::new();
    for key in ["product", "serialNumber", "assignee", "category"] {
        for dir in ["ASC", "DESC"] {
            queries.push((
                format!("sortBy={key} {dir}"),
                RawInventoryQuery {
                    sort_by: Some(key.into()),
                    sort_direction: Some(dir.into()),
                    ..RawInventoryQuery::default()
                },
            ));
        }
    }
    // Short ones take the LIKE path on SQLite, longer ones the trigram index.
    for search in [
        "éb",
        "é",
        "ÉA",
        "É",
        "écran cassé",
        "sab",
        "ſab",
        "straße",
        "STRAẞE",
        "жук",
        "δέλτα",
        "catégorie écran",
        "ésn-",
        "sn-ä",
        "ölf",
    ] {
        queries.push((
            format!("searchString={search}"),
            RawInventoryQuery {
                search_string: Some(search.into()),
                ..RawInventoryQuery::default()
            },
        ));
    }
    type MakeQuery = fn(Vec<String>) -> RawInventoryQuery;
    let lists: [(&str, MakeQuery); 3] = [
        ("categories", |v| RawInventoryQuery {
            categories: v,
            ..RawInventoryQuery::default()
        }),
        ("vendorSku", |v| RawInventoryQuery {
            vendor_skus: v,
            ..RawInventoryQuery::default()
        }),
        ("serialNumber", |v| RawInventoryQuery {
            serial_numbers: v,
            ..RawInventoryQuery::default()
        }),
    ];
    for (name, make) in lists {
        for values in [
            vec!["écran"],
            vec!["ÉCRAN"],
            vec!["Öl", "жук"],
            vec!["äb-1"],
            vec!["ÄB-2", "ſ-1"],
            vec!["ésn-1"],
            vec!["ÉSN-2", "sn-ä"],
        ] {
            let values: Vec<String> = values.into_iter().map(str::to_owned).collect();
            queries.push((format!("{name}={}", values.join(",")), make(values)));
        }
        // Also with a status, which the maintained counts answer.
        queries.push((
            format!("{name}=écran&deployStatuses=AVAILABLE"),
            RawInventoryQuery {
                deploy_statuses: vec!["AVAILABLE".into()],
                ..make(vec!["écran".into()])
            },
        ));
    }
    let mut differences = Vec::new();
    let mut non_empty = 0;
    for (what, raw) in queries {
        let got = listing(store, org, raw.clone());
        let expected = listing(reference, org, raw);
        if !expected.0.is_empty() {
            non_empty += 1;
        }
        if got != expected {
            differences.push(format!(
                "{what}: {} items, expected {} ({} in reference order)",
                got.1,
                expected.1,
                if got.0 == expected.0 {
                    "same ids"
                } else {
                    "not"
                }
            ));
        }
    }
    // The inputs do select something: the comparison is not vacuous.
    assert!(non_empty >= 30, "only {non_empty} queries match any item");
    differences
}

/// SCIM people filters and sorts over non-ASCII names agree with the
/// reference; returns the differences.
fn non_ascii_people_differences(
    store: &Store,
    reference: &equip_domain::testing::InMemoryStore,
    org: OrganizationId,
) -> Vec<String> {
    use equip_domain::person_query::{
        CompareOp, FilterValue, PersonField, PersonFilter, PersonQuery, SortOrder,
    };
    let mut differences = Vec::new();
    let fields = [
        PersonField::GivenName,
        PersonField::FamilyName,
        PersonField::DisplayName,
    ];
    for field in fields {
        for (op, value) in [
            (CompareOp::Eq, "ÉB"),
            (CompareOp::Eq, "éa"),
            (CompareOp::Sw, "öz"),
            (CompareOp::Co, "É"),
            (CompareOp::Ew, "b öz"),
        ] {
            for order in [SortOrder::Ascending, SortOrder::Descending] {
                let q = PersonQuery {
                    filter: Some(PersonFilter::Compare(
                        field,
                        op,
                        FilterValue::Text(value.into()),
                    )),
                    sort: Some(field),
                    order,
                    start_index: 1,
                    count: 50,
                };
                let names = |s: &dyn PersonRepository| {
                    let page = s.list_people(org, &q).unwrap();
                    let names: Vec<String> =
                        page.people.iter().map(|p| p.user_name.clone()).collect();
                    (names, page.total)
                };
                let (got, expected) = (names(store), names(reference));
                if got != expected {
                    differences.push(format!(
                        "{field:?} {op:?} {value:?} {order:?}: {got:?}, expected {expected:?}"
                    ));
                }
            }
        }
    }
    differences
}

/// SQLite's built-in `lower()` folds ASCII only; the listing's keys and the
/// people filter's name comparisons fold non-ASCII letters too, as the
/// reference (and PostgreSQL) do.
fn non_ascii_text_folds_like_the_reference(_db: &TestDatabase, store: &Store) {
    let (org, reference) = seed_non_ascii(store);
    let mut differences = non_ascii_listing_differences(store, &reference, org);
    differences.extend(non_ascii_people_differences(store, &reference, org));
    assert_eq!(differences, Vec::<String>::new());
}

/// A SQLite database whose listing keys were folded by the built-in `lower()`
/// (as before `2026-11-23-090000_inventory_listing_unicode_folding`) is
/// corrected by `run_migrations`, and stays consistent for tools that do not
/// know `equip_lower` (the integrity checks run on a bare connection).
#[test]
fn sqlite_migration_refolds_ascii_folded_listing_keys() {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;
    let db = TestDatabase::sqlite();
    let store = db.store();
    let (org, reference) = seed_non_ascii(&store);
    let mut bare = diesel::sqlite::SqliteConnection::establish(db.url()).unwrap();
    // The keys as the earlier versions wrote them (their listing SELECT).
    bare.batch_execute(
        "UPDATE inventory_listing SET
            serial_number = (SELECT lower(COALESCE(i.serial_number, '')) FROM inventory_items i
                WHERE i.id = inventory_listing.item_id),
            product = (SELECT lower(s.title) FROM skus s WHERE s.id = inventory_listing.sku_id),
            category = (SELECT lower(s.category_code) FROM skus s
                WHERE s.id = inventory_listing.sku_id),
            vendor_sku = (SELECT lower(s.vendor_sku) FROM skus s
                WHERE s.id = inventory_listing.sku_id),
            assignee = (SELECT lower(COALESCE(p.user_name, w.name, o.name, ''))
                FROM inventory_items i
                LEFT JOIN people p ON i.assignee_type = 'PERSON' AND p.id = i.assignee_id
                LEFT JOIN warehouses w ON i.assignee_type = 'WAREHOUSE' AND w.id = i.assignee_id
                LEFT JOIN offices o ON i.assignee_type = 'OFFICE' AND o.id = i.assignee_id
                WHERE i.id = inventory_listing.item_id),
            search_text = (SELECT lower(COALESCE(i.description, '') || char(10) || s.vendor_name
                    || char(10) || s.category_code || char(10) || s.category_name || char(10)
                    || s.title || char(10) || COALESCE(i.serial_number, ''))
                FROM inventory_items i JOIN skus s ON s.id = i.sku_id
                WHERE i.id = inventory_listing.item_id);
         DELETE FROM __diesel_schema_migrations WHERE version = '20261123090000';",
    )
    .unwrap();
    let before = non_ascii_listing_differences(&store, &reference, org);
    assert!(
        before.iter().any(|d| d.starts_with("sortBy=product ASC")),
        "the simulated old keys sort by product as before: {before:?}"
    );
    assert_eq!(
        store.run_migrations().unwrap(),
        vec!["2026-11-23-090000_inventory_listing_unicode_folding".to_owned()]
    );
    assert_eq!(
        non_ascii_listing_differences(&store, &reference, org),
        Vec::<String>::new()
    );
    // The search index and the maintained counts followed the re-folded rows.
    bare.batch_execute(
        "INSERT INTO inventory_search (inventory_search) VALUES ('integrity-check')",
    )
    .unwrap();
    assert_eq!(
        db.count_rows("pragma_integrity_check() WHERE integrity_check <> 'ok'"),
        0
    );
    assert_eq!(
        db.count_rows(
            "(SELECT organization_id, deploy_status, category, COUNT(*) AS n FROM inventory_listing
              GROUP BY 1, 2, 3) l
             LEFT JOIN inventory_counts c USING (organization_id, deploy_status, category)
             WHERE c.n IS NOT l.n"
        ),
        0,
        "inventory_counts agree with the listing"
    );
}
