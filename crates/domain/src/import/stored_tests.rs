//! The import's rules against stored facts, without a store.

use chrono::Utc;

use super::*;
use crate::catalog::Package;
use crate::ids::{
    GroupId, InventoryItemId, InventoryLevelId, OrganizationId, PackageId, ReturnOrderId,
    ReturnOrderItemId, SkuId, WarehouseId,
};
use crate::inventory::InventoryItem;
use crate::inventory_level::InventoryLevel;
use crate::location::{Warehouse, WarehouseOwner};
use crate::person::tests::person;

fn org() -> OrganizationId {
    OrganizationId::new()
}

fn warehouse(owner: WarehouseOwner, name: &str) -> Warehouse {
    Warehouse {
        id: WarehouseId::new(),
        owner,
        name: name.into(),
        address: None,
    }
}

fn package(organization: OrganizationId, slug: &str) -> Package {
    Package {
        id: PackageId::new(),
        organization_id: organization,
        slug: slug.into(),
        name: slug.into(),
        items: Vec::new(),
    }
}

fn level(organization: OrganizationId, sku: SkuId, warehouse: WarehouseId) -> InventoryLevel {
    InventoryLevel {
        id: InventoryLevelId::new(),
        organization_id: organization,
        sku_id: sku,
        warehouse_id: warehouse,
        minimum_quantity: 1,
        target_quantity: 2,
        created_at: Utc::now(),
        deactivated_at: None,
    }
}

fn refused(result: Result<StoredChanges, ImportError>) -> (String, String) {
    match result {
        Ok(changes) => panic!("accepted: {changes:?}"),
        Err(e) => (e.entry, e.message),
    }
}

#[test]
fn nothing_stored_changes_nothing() {
    let me = org();
    let batch = ImportBatch {
        warehouses: vec![warehouse(WarehouseOwner::Organization(me), "A")],
        packages: vec![package(me, "eng")],
        ..ImportBatch::default()
    };
    let changes = check_against_stored(me, &batch, &StoredFacts::default());
    assert_eq!(changes, Ok(StoredChanges::default()));
}

#[test]
fn an_id_of_another_organization_is_refused_naming_the_entry() {
    let (me, other) = (org(), org());
    let mine = package(me, "a");
    let theirs = package(me, "b");
    let batch = ImportBatch {
        packages: vec![mine.clone(), theirs.clone()],
        ..ImportBatch::default()
    };
    let mut facts = StoredFacts::default();
    for (p, o) in [(&mine, me), (&theirs, other)] {
        facts.packages.insert(
            p.id,
            StoredPackage {
                organization: o,
                slug: p.slug.clone(),
            },
        );
    }
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!((entry.as_str(), message.as_str()), ("packages[1]", FOREIGN));
}

#[test]
fn a_shared_warehouse_stays_shared_and_an_owned_one_owned() {
    let me = org();
    let shared = warehouse(WarehouseOwner::Shared, "Hub");
    let owned = warehouse(WarehouseOwner::Organization(me), "Mine");
    let facts = |w: &Warehouse, granted| {
        let mut f = StoredFacts::default();
        f.warehouses.insert(
            w.id,
            StoredWarehouse {
                warehouse: w.clone(),
                granted,
            },
        );
        f
    };
    let as_owned = Warehouse {
        owner: WarehouseOwner::Organization(me),
        ..shared.clone()
    };
    let batch = |w: Warehouse| ImportBatch {
        warehouses: vec![w],
        ..ImportBatch::default()
    };
    let (entry, message) = refused(check_against_stored(
        me,
        &batch(as_owned),
        &facts(&shared, true),
    ));
    assert_eq!(entry, "warehouses[0].shared");
    assert!(message.contains("cannot make it owned"), "{message}");

    let as_shared = Warehouse {
        owner: WarehouseOwner::Shared,
        ..owned.clone()
    };
    let (entry, message) = refused(check_against_stored(
        me,
        &batch(as_shared),
        &facts(&owned, false),
    ));
    assert_eq!(entry, "warehouses[0].shared");
    assert!(message.contains("cannot make it shared"), "{message}");

    // Restated as it is and granted: accepted, and its items' rows are rewritten.
    let changes = check_against_stored(me, &batch(shared.clone()), &facts(&shared, true));
    assert_eq!(changes.map(|c| c.warehouses), Ok(vec![shared.id]));
    // Renamed, or not granted: refused.
    let renamed = Warehouse {
        name: "Renamed".into(),
        ..shared.clone()
    };
    let (entry, _) = refused(check_against_stored(
        me,
        &batch(renamed),
        &facts(&shared, true),
    ));
    assert_eq!(entry, "warehouses[0]");
    let (_, message) = refused(check_against_stored(
        me,
        &batch(shared.clone()),
        &facts(&shared, false),
    ));
    assert!(message.contains("cannot grant"), "{message}");
    // Another organization's owned warehouse.
    let theirs = warehouse(WarehouseOwner::Organization(org()), "Theirs");
    let (entry, message) = refused(check_against_stored(
        me,
        &batch(theirs.clone()),
        &facts(&theirs, false),
    ));
    assert_eq!(
        (entry.as_str(), message.as_str()),
        ("warehouses[0]", FOREIGN)
    );
}

#[test]
fn a_slug_held_outside_the_batch_is_refused_and_a_moved_slug_is_parked() {
    let me = org();
    let stored = package(me, "eng");
    let newcomer = package(me, "eng");
    let batch = ImportBatch {
        packages: vec![package(me, "ops"), newcomer],
        ..ImportBatch::default()
    };
    let facts = StoredFacts {
        packages_with_batch_slugs: vec![(stored.id, "eng".into())],
        ..StoredFacts::default()
    };
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!(entry, "packages[1].slug");
    assert!(message.contains("'eng'"), "{message}");

    // The holder is in the batch with a new slug: allowed, and parked first.
    let renamed = Package {
        slug: "engineering".into(),
        ..stored.clone()
    };
    let batch = ImportBatch {
        packages: vec![renamed, package(me, "eng")],
        ..ImportBatch::default()
    };
    let mut facts = facts;
    facts.packages.insert(
        stored.id,
        StoredPackage {
            organization: me,
            slug: "eng".into(),
        },
    );
    let changes = check_against_stored(me, &batch, &facts);
    assert_eq!(changes.map(|c| c.packages_to_park), Ok(vec![stored.id]));
}

#[test]
fn an_active_user_name_is_unique_and_an_offboarded_person_holds_none() {
    let me = org();
    let mut ada = person("Ada@Example.com");
    ada.organization_id = me;
    let holder = PersonId::new();
    let batch = ImportBatch {
        people: vec![ada.clone()],
        ..ImportBatch::default()
    };
    let facts = StoredFacts {
        active_people_with_batch_names: vec![(holder, identifier_key("ada@example.com"))],
        ..StoredFacts::default()
    };
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!(entry, "people[0].userName");
    assert!(message.contains("Ada@Example.com"), "{message}");

    // Imported as not active: no clash.
    ada.status = PersonStatus::Offboarded;
    let batch = ImportBatch {
        people: vec![ada],
        ..ImportBatch::default()
    };
    assert!(check_against_stored(me, &batch, &facts).is_ok());
}

#[test]
fn a_stored_person_renamed_by_the_import_is_parked_first() {
    let me = org();
    let mut ada = person("ada.new@example.com");
    ada.organization_id = me;
    let mut facts = StoredFacts::default();
    facts.people.insert(
        ada.id,
        StoredPerson {
            organization: me,
            user_name_key: identifier_key("ada@example.com"),
            status: PersonStatus::Active,
        },
    );
    let batch = ImportBatch {
        people: vec![ada.clone()],
        ..ImportBatch::default()
    };
    let changes = check_against_stored(me, &batch, &facts);
    assert_eq!(
        changes.map(|c| (c.people, c.people_to_park)),
        Ok((vec![ada.id], vec![ada.id]))
    );
}

#[test]
fn one_active_level_per_sku_and_warehouse() {
    let me = org();
    let (sku, wh) = (SkuId::new(), WarehouseId::new());
    let stored = level(me, sku, wh);
    let batch = ImportBatch {
        inventory_levels: vec![level(me, sku, WarehouseId::new()), level(me, sku, wh)],
        ..ImportBatch::default()
    };
    let mut facts = StoredFacts {
        active_levels_of_batch_skus: vec![(stored.id, sku, wh)],
        ..StoredFacts::default()
    };
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!(entry, "inventoryLevels[1]");
    assert!(message.contains(&stored.id.to_string()), "{message}");

    // The stored level is deactivated in the same batch: allowed, and parked.
    let mut retired = stored.clone();
    retired.deactivated_at = Some(Utc::now());
    let batch = ImportBatch {
        inventory_levels: vec![retired, level(me, sku, wh)],
        ..ImportBatch::default()
    };
    facts.levels.insert(
        stored.id,
        StoredLevel {
            organization: me,
            sku,
            warehouse: wh,
            active: true,
        },
    );
    let changes = check_against_stored(me, &batch, &facts);
    assert_eq!(changes.map(|c| c.levels_to_park), Ok(vec![stored.id]));
}

#[test]
fn the_keys_to_read_come_from_the_batch_without_repeats() {
    let me = org();
    let sku = SkuId::new();
    let mut offboarded = person("b@example.com");
    offboarded.status = PersonStatus::Offboarded;
    let mut retired = level(me, SkuId::new(), WarehouseId::new());
    retired.deactivated_at = Some(Utc::now());
    let batch = ImportBatch {
        people: vec![person("A@example.com"), offboarded],
        inventory_levels: vec![
            level(me, sku, WarehouseId::new()),
            level(me, sku, WarehouseId::new()),
            retired,
        ],
        ..ImportBatch::default()
    };
    let keys = StoredKeys::of(&batch);
    assert_eq!(keys.people.len(), 2);
    assert_eq!(
        keys.active_user_name_keys,
        vec![identifier_key("a@example.com")]
    );
    assert_eq!(keys.levels.len(), 3);
    assert_eq!(keys.active_level_skus, vec![sku]);
}

fn item_with_return(
    organization: OrganizationId,
    order: ReturnOrderId,
    line: ReturnOrderItemId,
) -> InventoryItem {
    use crate::inventory::{Condition, DeployStatus, ReturnInfo, ReturnStatus, SuppliedBy};
    let now = Utc::now();
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: organization,
        sku_id: SkuId::new(),
        serial_number: None,
        imei: vec![],
        deploy_status: DeployStatus::Available,
        deploy_reason: None,
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: None,
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: Some(ReturnInfo {
            id: order,
            status: ReturnStatus::Pending,
            created_at: now,
            return_order_item_id: line,
            return_order_item_status: ReturnStatus::Pending,
            retrieval: None,
        }),
        created_at: now,
        updated_at: now,
    }
}

#[test]
fn a_return_line_is_named_once_stays_with_its_item_and_in_its_organization() {
    let (me, other) = (org(), org());
    let (order, line) = (ReturnOrderId::new(), ReturnOrderItemId::new());
    let first = item_with_return(me, order, line);
    let line_entry = "inventory[1].returnOrder.returnOrderItemId";

    // The same line on two items of the batch.
    let batch = ImportBatch {
        inventory: vec![first.clone(), item_with_return(me, order, line)],
        ..ImportBatch::default()
    };
    let (entry, message) = refused(check_against_stored(me, &batch, &StoredFacts::default()));
    assert_eq!(
        (entry.as_str(), message.as_str()),
        (line_entry, "also used by inventory[0]")
    );

    let batch = ImportBatch {
        inventory: vec![
            item_with_return(me, ReturnOrderId::new(), ReturnOrderItemId::new()),
            first.clone(),
        ],
        ..ImportBatch::default()
    };
    // The return order is another organization's.
    let mut facts = StoredFacts::default();
    facts.return_orders.insert(order, other);
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!(
        (entry.as_str(), message.as_str()),
        ("inventory[1].returnOrder", FOREIGN)
    );

    // The line is another organization's.
    let mut facts = StoredFacts::default();
    let stored_line = |organization, item| StoredReturnLine { organization, item };
    facts
        .return_lines
        .insert(line, stored_line(other, first.id));
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!((entry.as_str(), message.as_str()), (line_entry, FOREIGN));

    // The line returns another item.
    facts
        .return_lines
        .insert(line, stored_line(me, InventoryItemId::new()));
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!(entry, line_entry);
    assert!(message.contains("another inventory item"), "{message}");

    // Restated with its own item: accepted.
    facts.return_lines.insert(line, stored_line(me, first.id));
    facts.return_orders.insert(order, me);
    assert!(check_against_stored(me, &batch, &facts).is_ok());
}

fn imported_group(organization: OrganizationId, name: &str) -> super::super::ImportedGroup {
    super::super::ImportedGroup {
        group: crate::group::Group::new(
            GroupId::new(),
            organization,
            crate::group::GroupFields {
                external_id: None,
                display_name: name.into(),
                package_id: None,
                precedence: 0,
            },
            Utc::now(),
        ),
        members: Vec::new(),
    }
}

#[test]
fn a_group_name_held_outside_the_batch_is_refused_and_a_renamed_group_is_parked() {
    let me = org();
    let batch = ImportBatch {
        groups: vec![
            imported_group(me, "Engineering"),
            imported_group(me, "Sales"),
        ],
        ..ImportBatch::default()
    };
    let keys = StoredKeys::of(&batch);
    assert_eq!(keys.group_name_keys, vec!["engineering", "sales"]);
    // Another stored group holds "ENGINEERING" (names compare as identifiers).
    let mut facts = StoredFacts::default();
    facts
        .groups_with_batch_names
        .push((GroupId::new(), "engineering".into()));
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!(entry, "groups[0].displayName");
    assert!(message.contains("Engineering"), "{message}");
    // The batch's own stored group renamed: parked first, members replaced.
    let sales = batch.groups[1].group.id;
    let mut facts = StoredFacts::default();
    facts.groups.insert(
        sales,
        StoredGroup {
            organization: me,
            display_name_key: "old sales".into(),
        },
    );
    let changes = check_against_stored(me, &batch, &facts).unwrap();
    assert_eq!(changes.groups, vec![sales]);
    assert_eq!(changes.groups_to_park, vec![sales]);
    // Another organization's group id.
    facts.groups.insert(
        sales,
        StoredGroup {
            organization: org(),
            display_name_key: "sales".into(),
        },
    );
    let (entry, message) = refused(check_against_stored(me, &batch, &facts));
    assert_eq!((entry.as_str(), message.as_str()), ("groups[1]", FOREIGN));
}

#[test]
fn group_members_are_provisioned_people_named_once() {
    let me = crate::organization::Organization {
        id: org(),
        name: crate::organization::OrganizationName::parse("Acme").unwrap(),
        created_at: Utc::now(),
    };
    let mut ada = person("ada@example.com");
    ada.organization_id = me.id;
    let mut gone = person("gone@example.com");
    gone.organization_id = me.id;
    gone.status = crate::person::PersonStatus::Offboarded;
    let outside = crate::ids::PersonId::new();
    let mut g = imported_group(me.id, "Engineering");
    g.members = vec![ada.id, outside];
    let mut batch = ImportBatch {
        people: vec![ada.clone(), gone.clone()],
        groups: vec![g],
        ..ImportBatch::default()
    };
    let external = batch.validate(&me).unwrap();
    assert_eq!(external.len(), 1);
    assert_eq!(external[0].kind, super::super::ReferenceKind::Member);
    assert_eq!(external[0].entry, "groups[0].members[1]");
    batch.groups[0].members = vec![ada.id, ada.id];
    let err = batch.validate(&me).unwrap_err();
    assert_eq!(err.entry, "groups[0].members[1]");
    batch.groups[0].members = vec![gone.id];
    let err = batch.validate(&me).unwrap_err();
    assert_eq!(err.entry, "groups[0].members[0]");
    batch.groups[0].members = vec![];
    batch.groups.push(imported_group(me.id, "ENGINEERING"));
    let err = batch.validate(&me).unwrap_err();
    assert_eq!(err.entry, "groups[1]");
}

#[test]
fn package_contents_name_skus_and_categories_of_the_batch_or_the_store() {
    use crate::catalog::{PackageItem, Sku};
    let a = org();
    let sku = |category: &str| Sku {
        id: SkuId::new(),
        organization_id: a,
        title: category.into(),
        category_code: category.into(),
        category_name: category.into(),
        vendor_code: "V".into(),
        vendor_name: "V".into(),
        vendor_sku: "V".into(),
    };
    let entry = |category: &str, skus: Vec<SkuId>| PackageItem {
        category_code: category.into(),
        sku_ids: skus,
        quantity: 1,
    };
    let batch_laptop = sku("LAPTOP");
    let stored_phone = SkuId::new();
    let unknown = SkuId::new();
    let mut kit = package(a, "kit");
    kit.items = vec![
        entry("LAPTOP", vec![batch_laptop.id]),
        entry("PHONE", vec![stored_phone]),
    ];
    let mut batch = ImportBatch {
        skus: vec![batch_laptop.clone()],
        packages: vec![package(a, "empty"), kit],
        ..ImportBatch::default()
    };
    // The keys: what the batch's SKUs do not answer.
    let keys = StoredKeys::of(&batch);
    assert_eq!(keys.contents_skus, vec![stored_phone]);
    assert_eq!(keys.contents_categories, vec!["PHONE".to_owned()]);

    let facts = StoredFacts {
        contents_sku_categories: HashMap::from([(stored_phone, "PHONE".to_owned())]),
        contents_categories: HashSet::from(["PHONE".to_owned()]),
        ..StoredFacts::default()
    };
    assert!(check_against_stored(a, &batch, &facts).is_ok());
    // Nothing stored: the phone is unknown.
    assert_eq!(
        refused(check_against_stored(a, &batch, &StoredFacts::default())).0,
        "packages[1].items[1].categoryCode"
    );
    // An SKU of no one.
    batch.packages[1].items[1].sku_ids.push(unknown);
    assert_eq!(
        refused(check_against_stored(a, &batch, &facts)).0,
        "packages[1].items[1].skuIds[1]"
    );
    // A batch SKU of another category.
    batch.packages[1].items[1].sku_ids = vec![batch_laptop.id];
    assert_eq!(
        refused(check_against_stored(a, &batch, &facts)).0,
        "packages[1].items[1].skuIds[0]"
    );
}
