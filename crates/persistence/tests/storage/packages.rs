//! Packages and their contents: the contents round-trip in order, a
//! replacement checks the organization's SKUs in its transaction and
//! writes whole or nothing, `contents_of` (what the provisioning writers
//! read) answers by package id in position order, and another
//! organization's package is not found.

use std::collections::HashMap;

use equip_domain::catalog::PackageItem;
use equip_domain::error::DomainError;

use crate::support::*;

storage_tests!(
    package_contents_round_trip_in_order,
    package_contents_replaced_whole_or_refused,
    package_contents_of_by_package_in_position_order,
    package_of_another_organization_is_not_found,
    an_import_writes_and_replaces_package_contents,
);

fn package(org: &Organization, slug: &str, name: &str) -> Package {
    Package {
        id: PackageId::new(),
        organization_id: org.id,
        slug: slug.into(),
        name: name.into(),
        items: Vec::new(),
    }
}

fn phone_sku(org: &Organization) -> Sku {
    Sku {
        category_code: "PHONE".into(),
        category_name: "Phones".into(),
        ..sku(org, "iPhone 15")
    }
}

fn entry(category: &str, skus: &[&Sku], quantity: u8) -> PackageItem {
    PackageItem {
        category_code: category.into(),
        sku_ids: skus.iter().map(|s| s.id).collect(),
        quantity,
    }
}

/// An organization with a laptop SKU, a second laptop SKU, a phone SKU and
/// two packages, stored.
fn catalog(store: &Store, name: &str) -> (Organization, [Sku; 3], [Package; 2]) {
    let org = new_org(store, name);
    let laptop = sku(&org, "MacBook Pro 14\"");
    let other_laptop = sku(&org, "ThinkPad X1");
    let phone = phone_sku(&org);
    let kit = package(&org, "engineering", "Engineering kit");
    let sales = package(&org, "sales", "Sales kit");
    import(
        store,
        &org,
        &ImportBatch {
            skus: vec![laptop.clone(), other_laptop.clone(), phone.clone()],
            packages: vec![kit.clone(), sales.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    (org, [laptop, other_laptop, phone], [kit, sales])
}

fn invalid_field(result: Result<Package, DomainError>) -> String {
    match result {
        Err(DomainError::Invalid { field, .. }) => field,
        other => panic!("expected Invalid, got {other:?}"),
    }
}

fn package_contents_round_trip_in_order(_db: &TestDatabase, store: &Store) {
    let (org, [laptop, other_laptop, phone], [kit, sales]) = catalog(store, "Acme");
    let items = vec![
        entry("LAPTOP", &[&other_laptop, &laptop], 1),
        entry("PHONE", &[&phone], 2),
        entry("LAPTOP", &[], 20),
    ];
    let written = store
        .replace_package_contents(org.id, kit.id, &items)
        .unwrap()
        .unwrap();
    assert_eq!(written.items, items);
    assert_eq!(
        (written.slug.as_str(), written.name.as_str()),
        ("engineering", "Engineering kit")
    );

    let found = store.find_package(org.id, kit.id).unwrap().unwrap();
    assert_eq!(found, written);
    // The listing (by slug) carries every package's contents.
    let listed = store.packages(org.id).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0], written);
    assert_eq!(listed[1].id, sales.id);
    assert!(listed[1].items.is_empty());
}

fn package_contents_replaced_whole_or_refused(db: &TestDatabase, store: &Store) {
    let (org, [laptop, _, phone], [kit, _]) = catalog(store, "Acme");
    let (other, foreign_laptop, _) = seeded(store, "Globex");
    let first = vec![entry("LAPTOP", &[&laptop], 1), entry("PHONE", &[], 1)];
    store
        .replace_package_contents(org.id, kit.id, &first)
        .unwrap()
        .unwrap();

    // An SKU of another organization, of another category, a category no
    // SKU of the organization has: refused, nothing written.
    assert_eq!(
        invalid_field(
            store
                .replace_package_contents(
                    org.id,
                    kit.id,
                    &[
                        entry("PHONE", &[], 1),
                        entry("LAPTOP", &[&laptop, &foreign_laptop], 1)
                    ]
                )
                .unwrap()
        ),
        "items[1].skuIds[1]"
    );
    assert_eq!(
        invalid_field(
            store
                .replace_package_contents(org.id, kit.id, &[entry("LAPTOP", &[&phone], 1)])
                .unwrap()
        ),
        "items[0].skuIds[0]"
    );
    assert_eq!(
        invalid_field(
            store
                .replace_package_contents(org.id, kit.id, &[entry("TABLET", &[], 1)])
                .unwrap()
        ),
        "items[0].categoryCode"
    );
    // The other organization has LAPTOP SKUs, but no PHONE.
    let theirs = package(&other, "kit", "Their kit");
    import(
        store,
        &other,
        &ImportBatch {
            packages: vec![theirs.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(
        invalid_field(
            store
                .replace_package_contents(other.id, theirs.id, &[entry("PHONE", &[], 1)])
                .unwrap()
        ),
        "items[0].categoryCode"
    );
    assert_eq!(
        store.find_package(org.id, kit.id).unwrap().unwrap().items,
        first
    );
    assert_eq!(db.count_rows("package_items"), 2);

    // A replacement writes the new contents whole; emptying removes them.
    let second = vec![entry("PHONE", &[&phone], 3)];
    let written = store
        .replace_package_contents(org.id, kit.id, &second)
        .unwrap()
        .unwrap();
    assert_eq!(written.items, second);
    assert_eq!(db.count_rows("package_items"), 1);
    let emptied = store
        .replace_package_contents(org.id, kit.id, &[])
        .unwrap()
        .unwrap();
    assert!(emptied.items.is_empty());
    assert_eq!(db.count_rows("package_items"), 0);
}

fn package_contents_of_by_package_in_position_order(_db: &TestDatabase, store: &Store) {
    let (org, [laptop, other_laptop, phone], [kit, sales]) = catalog(store, "Acme");
    let (other, _, _) = seeded(store, "Globex");
    let kit_items: Vec<PackageItem> = (1..=12)
        .map(|q| entry("LAPTOP", &[&laptop, &other_laptop], q))
        .chain([entry("PHONE", &[&phone], 1)])
        .collect();
    let sales_items = vec![entry("PHONE", &[], 2)];
    for (p, items) in [(&kit, &kit_items), (&sales, &sales_items)] {
        store
            .replace_package_contents(org.id, p.id, items)
            .unwrap()
            .unwrap();
    }
    let empty = package(&org, "empty", "Empty");
    import(
        store,
        &org,
        &ImportBatch {
            packages: vec![empty.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();

    let unknown = PackageId::new();
    let contents = store
        .package_contents_of(org.id, &[kit.id, sales.id, empty.id, unknown])
        .unwrap();
    let expected: HashMap<PackageId, Vec<PackageItem>> =
        HashMap::from([(kit.id, kit_items.clone()), (sales.id, sales_items)]);
    assert_eq!(contents, expected);
    // Asked for one: only that one.
    let one = store.package_contents_of(org.id, &[kit.id]).unwrap();
    assert_eq!(one, HashMap::from([(kit.id, kit_items)]));
    // Another organization asking for these ids gets nothing.
    assert!(store
        .package_contents_of(other.id, &[kit.id, sales.id])
        .unwrap()
        .is_empty());
    assert!(store.package_contents_of(org.id, &[]).unwrap().is_empty());
}

fn package_of_another_organization_is_not_found(db: &TestDatabase, store: &Store) {
    let (org, [laptop, _, _], [kit, _]) = catalog(store, "Acme");
    let (other, _, _) = seeded(store, "Globex");
    assert!(store.find_package(other.id, kit.id).unwrap().is_none());
    assert!(store
        .find_package(org.id, PackageId::new())
        .unwrap()
        .is_none());
    assert!(store.packages(other.id).unwrap().is_empty());
    let refused = store
        .replace_package_contents(other.id, kit.id, &[entry("LAPTOP", &[&laptop], 1)])
        .unwrap();
    assert!(
        matches!(refused, Err(DomainError::NotFound { .. })),
        "{refused:?}"
    );
    assert_eq!(db.count_rows("package_items"), 0);
}

fn an_import_writes_and_replaces_package_contents(db: &TestDatabase, store: &Store) {
    // SKUs stored by an earlier import, and a phone SKU in the same batch
    // as the package that prefers it.
    let (org, [laptop, _, _], [kit, _]) = catalog(store, "Acme");
    let tablet = Sku {
        category_code: "TABLET".into(),
        category_name: "Tablets".into(),
        ..sku(&org, "iPad Air")
    };
    let mut with_contents = kit.clone();
    with_contents.items = vec![
        entry("LAPTOP", &[&laptop], 1),
        entry("TABLET", &[&tablet], 2),
    ];
    import(
        store,
        &org,
        &ImportBatch {
            skus: vec![tablet.clone()],
            packages: vec![with_contents.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(
        store.find_package(org.id, kit.id).unwrap().unwrap(),
        with_contents
    );
    assert_eq!(db.count_rows("package_items"), 2);

    // Re-imported: its contents are the entry's.
    let mut fewer = kit.clone();
    fewer.items = vec![entry("TABLET", &[], 3)];
    import(
        store,
        &org,
        &ImportBatch {
            packages: vec![fewer.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    assert_eq!(store.find_package(org.id, kit.id).unwrap().unwrap(), fewer);
    assert_eq!(db.count_rows("package_items"), 1);

    // An SKU of another organization, or a category nobody has: refused,
    // nothing written.
    let (other, foreign_laptop, _) = seeded(store, "Globex");
    let mut bad = kit.clone();
    bad.items = vec![entry("LAPTOP", &[&foreign_laptop], 1)];
    let refused = import(
        store,
        &org,
        &ImportBatch {
            packages: vec![bad.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(refused.entry, "packages[0].items[0].skuIds[0]", "{refused}");
    let mut theirs = package(&other, "kit", "Their kit");
    theirs.items = vec![entry("TABLET", &[], 1)];
    let refused = import(
        store,
        &other,
        &ImportBatch {
            packages: vec![theirs],
            ..ImportBatch::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        refused.entry, "packages[0].items[0].categoryCode",
        "{refused}"
    );
    assert_eq!(store.find_package(org.id, kit.id).unwrap().unwrap(), fewer);
    assert_eq!(db.count_rows("package_items"), 1);
}
