//! Joiners' orders made by provisioning, in the store: the change that
//! gives a person a package with contents creates their order in its
//! transaction and allocates it (a preferred SKU first, then the person's
//! country, then the oldest item); no stock backorders a line, which stock
//! made AVAILABLE later fills; a package change replaces the unshipped
//! lines, offboarding cancels them and gives their items back; a group's
//! package reaches its members. And under concurrent writers from two
//! stores (as two server instances) no item is ever allocated twice.

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};

use equip_domain::catalog::{Package, PackageItem};
use equip_domain::event::EventType;
use equip_domain::group::{Group, GroupFields, GroupFieldsChange, MembersChange};
use equip_domain::ids::{GroupId, PackageId};
use equip_domain::import::ImportBatch;
use equip_domain::person::Address;
use equip_domain::ports::{CatalogRepository, GroupChange, GroupRepository};

use crate::events::all_events;
use crate::support::*;

storage_tests!(
    a_joiner_takes_a_preferred_sku_in_their_country_oldest_first,
    a_line_without_stock_is_backordered_and_filled_when_stock_arrives,
    a_package_change_replaces_the_lines_and_offboarding_cancels_them,
    a_groups_package_orders_for_its_members,
    concurrent_joiners_never_take_one_item_twice,
    joiners_created_together_each_get_their_order,
);

pub(crate) fn category_sku(org: &Organization, title: &str, category: &str) -> Sku {
    let mut s = sku(org, title);
    s.category_code = category.into();
    s
}

pub(crate) fn package(org: &Organization, slug: &str, items: Vec<PackageItem>) -> Package {
    Package {
        id: PackageId::new(),
        organization_id: org.id,
        slug: slug.into(),
        name: slug.to_uppercase(),
        items,
    }
}

pub(crate) fn entry(category: &str, preferred: &[&Sku], quantity: u8) -> PackageItem {
    PackageItem {
        category_code: category.into(),
        sku_ids: preferred.iter().map(|s| s.id).collect(),
        quantity,
    }
}

fn in_country(mut w: Warehouse, country: &str) -> Warehouse {
    if let Some(a) = w.address.as_mut() {
        a.country_code = Some(country.into());
    }
    w
}

pub(crate) fn joiner(
    org: &Organization,
    name: &str,
    package: Option<PackageId>,
    country: &str,
) -> Person {
    let mut p = person(org, &format!("{name}@example.com"));
    p.package_id = package;
    p.addresses = vec![Address {
        primary: true,
        country: Some(country.into()),
        ..Address::default()
    }];
    p
}

/// Imports `batch`, then sets its packages' contents through the store.
pub(crate) fn load(store: &Store, org: &Organization, batch: &ImportBatch) -> Result<(), String> {
    import(store, org, batch).map_err(|e| format!("{e:?}"))?;
    for p in &batch.packages {
        if !p.items.is_empty() {
            store
                .replace_package_contents(org.id, p.id, &p.items)
                .unwrap()
                .unwrap();
        }
    }
    Ok(())
}

pub(crate) fn count(db: &TestDatabase, from_where: &str) -> i64 {
    db.count_rows(from_where)
}

pub(crate) fn item_status(
    store: &Store,
    org: &Organization,
    id: InventoryItemId,
) -> (String, Option<String>) {
    let it = store.find_inventory_item(org.id, id).unwrap().unwrap();
    (
        it.deploy_status.as_str().to_owned(),
        it.deploy_reason.map(|r| r.as_str().to_owned()),
    )
}

fn a_joiner_takes_a_preferred_sku_in_their_country_oldest_first(db: &TestDatabase, store: &Store) {
    let org = new_org(store, "Preferences");
    let mac = category_sku(&org, "MacBook", "LAPTOP");
    let dell = category_sku(&org, "Dell", "LAPTOP");
    let de = in_country(owned_warehouse(&org, "Berlin"), "DE");
    let fr = in_country(owned_warehouse(&org, "Paris"), "FR");
    let old_dell_de = item(&org, &dell, &de, at(3, 0));
    let mac_fr = item(&org, &mac, &fr, at(3, 1));
    let new_mac_de = item(&org, &mac, &de, at(3, 3));
    let old_mac_de = item(&org, &mac, &de, at(3, 2));
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[&mac], 1)]);
    load(
        store,
        &org,
        &ImportBatch {
            skus: vec![mac.clone(), dell.clone()],
            warehouses: vec![de.clone(), fr.clone()],
            packages: vec![kit.clone()],
            inventory: vec![
                old_dell_de.clone(),
                mac_fr.clone(),
                new_mac_de.clone(),
                old_mac_de.clone(),
            ],
            ..ImportBatch::default()
        },
    )
    .unwrap();

    let p = joiner(&org, "ada", Some(kit.id), "DE");
    store.insert_person(&p).unwrap();
    assert_eq!(count(db, "orders WHERE status = 'ALLOCATED'"), 1);
    assert_eq!(
        count(
            db,
            &format!(
                "order_lines WHERE status = 'ALLOCATED' AND inventory_item_id = '{}'",
                old_mac_de.id
            )
        ),
        1,
        "the oldest preferred SKU in the person's country"
    );
    assert_eq!(
        item_status(store, &org, old_mac_de.id),
        ("UNAVAILABLE".into(), Some("PENDING_FULFILLMENT".into()))
    );
    assert_eq!(item_status(store, &org, new_mac_de.id).0, "AVAILABLE");

    // A second joiner in France: the preferred SKU there.
    let q = joiner(&org, "grace", Some(kit.id), "FR");
    store.insert_person(&q).unwrap();
    assert_eq!(item_status(store, &org, mac_fr.id).0, "UNAVAILABLE");
    // A third in Spain: no warehouse there; the preferred SKU anywhere.
    let r = joiner(&org, "linus", Some(kit.id), "ES");
    store.insert_person(&r).unwrap();
    assert_eq!(item_status(store, &org, new_mac_de.id).0, "UNAVAILABLE");
    // A fourth: no MacBook left; another laptop.
    let s = joiner(&org, "ken", Some(kit.id), "FR");
    store.insert_person(&s).unwrap();
    assert_eq!(item_status(store, &org, old_dell_de.id).0, "UNAVAILABLE");
    assert_eq!(count(db, "orders WHERE status = 'ALLOCATED'"), 4);

    // The events: each order's creation and each item's update, in the
    // creating transaction; no backorder.
    let events = all_events(store, &org);
    let kinds = |k: EventType| events.iter().filter(|e| e.kind == k).count();
    assert_eq!(kinds(EventType::OrderCreated), 4);
    assert_eq!(kinds(EventType::OrderBackordered), 0);
    assert_eq!(kinds(EventType::ItemUpdated), 4);

    // Nobody without a package, or with one without contents, gets an order.
    let empty = package(&org, "none", vec![]);
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![empty.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    store
        .insert_person(&joiner(&org, "nopkg", None, "DE"))
        .unwrap();
    store
        .insert_person(&joiner(&org, "emptypkg", Some(empty.id), "DE"))
        .unwrap();
    assert_eq!(count(db, "orders"), 4);
}

fn a_line_without_stock_is_backordered_and_filled_when_stock_arrives(
    db: &TestDatabase,
    store: &Store,
) {
    let (org, laptop, w) = seeded(store, "Backorders");
    let one = item(&org, &laptop, &w, at(3, 0));
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[], 2)]);
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            inventory: vec![one.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let p = joiner(&org, "ada", Some(kit.id), "DE");
    store.insert_person(&p).unwrap();
    assert_eq!(count(db, "orders WHERE status = 'PENDING'"), 1);
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 1);
    assert_eq!(count(db, "order_lines WHERE status = 'ALLOCATED'"), 1);
    let backordered = |store: &Store| {
        all_events(store, &org)
            .iter()
            .filter(|e| e.kind == EventType::OrderBackordered)
            .count()
    };
    assert_eq!(backordered(store), 1);

    // An item created AVAILABLE fills the backorder in its transaction.
    let arrived = item(&org, &laptop, &w, at(4, 0));
    store.insert_inventory_item(&arrived).unwrap();
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 0);
    assert_eq!(count(db, "orders WHERE status = 'ALLOCATED'"), 1);
    assert_eq!(
        item_status(store, &org, arrived.id),
        ("UNAVAILABLE".into(), Some("PENDING_FULFILLMENT".into()))
    );
    assert_eq!(backordered(store), 1, "no second backorder event");
}

fn a_package_change_replaces_the_lines_and_offboarding_cancels_them(
    db: &TestDatabase,
    store: &Store,
) {
    let org = new_org(store, "Changes");
    let laptop = category_sku(&org, "Laptop", "LAPTOP");
    let phone = category_sku(&org, "Phone", "PHONE");
    let w = owned_warehouse(&org, "Berlin");
    let l1 = item(&org, &laptop, &w, at(3, 0));
    let ph = item(&org, &phone, &w, at(3, 1));
    let laptops = package(&org, "laptops", vec![entry("LAPTOP", &[], 1)]);
    let phones = package(&org, "phones", vec![entry("PHONE", &[], 1)]);
    load(
        store,
        &org,
        &ImportBatch {
            skus: vec![laptop.clone(), phone.clone()],
            warehouses: vec![w.clone()],
            packages: vec![laptops.clone(), phones.clone()],
            inventory: vec![l1.clone(), ph.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let p = joiner(&org, "ada", Some(laptops.id), "DE");
    store.insert_person(&p).unwrap();
    assert_eq!(item_status(store, &org, l1.id).0, "UNAVAILABLE");

    // The package changes: the laptop line is cancelled and its laptop
    // given back; a phone line takes the phone. One order throughout.
    let mut changed = p.clone();
    changed.package_id = Some(phones.id);
    changed.version += 1;
    changed.updated_at = at(5, 0);
    store.update_person(&p, &changed).unwrap();
    assert_eq!(count(db, "orders"), 1);
    assert_eq!(count(db, "order_lines WHERE status = 'CANCELLED'"), 1);
    assert_eq!(
        count(
            db,
            &format!(
                "order_lines WHERE status = 'ALLOCATED' AND inventory_item_id = '{}'",
                ph.id
            )
        ),
        1
    );
    assert_eq!(item_status(store, &org, l1.id), ("AVAILABLE".into(), None));
    assert_eq!(item_status(store, &org, ph.id).0, "UNAVAILABLE");

    // A second joiner takes the laptop given back.
    let q = joiner(&org, "grace", Some(laptops.id), "DE");
    store.insert_person(&q).unwrap();
    assert_eq!(item_status(store, &org, l1.id).0, "UNAVAILABLE");

    // Offboarding cancels the first order and gives the phone back.
    store.offboard_person(org.id, p.id, None, at(6, 0)).unwrap();
    assert_eq!(
        count(
            db,
            &format!(
                "orders WHERE person_id = '{}' AND status = 'CANCELLED'",
                p.id
            )
        ),
        1
    );
    assert_eq!(item_status(store, &org, ph.id), ("AVAILABLE".into(), None));
    let updated = all_events(store, &org)
        .iter()
        .filter(|e| e.kind == EventType::OrderUpdated)
        .count();
    assert_eq!(updated, 2, "the replacement and the cancellation");
}

fn a_groups_package_orders_for_its_members(db: &TestDatabase, store: &Store) {
    let (org, laptop, w) = seeded(store, "Groups");
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[&laptop], 1)]);
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            inventory: vec![item(&org, &laptop, &w, at(3, 0))],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let a = joiner(&org, "ada", None, "DE");
    let b = joiner(&org, "grace", None, "DE");
    store.insert_person(&a).unwrap();
    store.insert_person(&b).unwrap();
    assert_eq!(count(db, "orders"), 0);
    // A group without a package: nothing.
    let g = Group::new(
        GroupId::new(),
        org.id,
        GroupFields {
            external_id: None,
            display_name: "Engineering".into(),
            package_id: None,
            precedence: 0,
        },
        at(4, 0),
    );
    store
        .insert_group(&g, &BTreeSet::from([a.id, b.id]))
        .unwrap();
    assert_eq!(count(db, "orders"), 0);
    // The group gets the package: both members get an order, one item for
    // the first, a backorder for the second.
    let change = GroupChange {
        fields: GroupFieldsChange {
            package_id: Some(Some(kit.id)),
            ..GroupFieldsChange::default()
        },
        members: MembersChange::Keep,
        expected_version: None,
        at: at(5, 0),
    };
    store.update_group(org.id, g.id, &change).unwrap();
    assert_eq!(count(db, "orders"), 2);
    assert_eq!(count(db, "order_lines WHERE status = 'ALLOCATED'"), 1);
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 1);
    // A member leaves: their order is cancelled (and what it held given to
    // the other's backorder).
    let leave = GroupChange {
        fields: GroupFieldsChange::default(),
        members: MembersChange::Delta {
            add: BTreeSet::new(),
            remove: BTreeSet::from([a.id]),
        },
        expected_version: None,
        at: at(6, 0),
    };
    store.update_group(org.id, g.id, &leave).unwrap();
    assert_eq!(count(db, "orders WHERE status = 'CANCELLED'"), 1);
    assert_eq!(count(db, "order_lines WHERE status = 'ALLOCATED'"), 1);
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 0);
}

/// Joiners created at once from two stores (two server instances) against
/// fewer items than lines: each item is allocated at most once and every
/// line without one is BACKORDERED.
fn concurrent_joiners_never_take_one_item_twice(db: &TestDatabase, store: &Store) {
    const STOCK: usize = 12;
    const JOINERS: usize = 10; // two lines each: 20 lines
    let (org, laptop, w) = seeded(store, "Scarce");
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[], 2)]);
    let stock: Vec<_> = (0..STOCK)
        .map(|i| item(&org, &laptop, &w, at(3, i64::try_from(i).unwrap())))
        .collect();
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            inventory: stock,
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let barrier = Arc::new(Barrier::new(JOINERS));
    let threads: Vec<_> = (0..JOINERS)
        .map(|i| {
            let store = if i % 2 == 0 {
                db.store()
            } else {
                store.clone()
            };
            let barrier = Arc::clone(&barrier);
            let p = joiner(&org, &format!("j{i}"), Some(kit.id), "DE");
            std::thread::spawn(move || {
                barrier.wait();
                store.insert_person(&p).unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(count(db, "orders"), i64::try_from(JOINERS).unwrap());
    let allocated = count(db, "order_lines WHERE status = 'ALLOCATED'");
    assert_eq!(allocated, i64::try_from(STOCK).unwrap(), "all stock taken");
    assert_eq!(
        count(
            db,
            "(SELECT DISTINCT inventory_item_id FROM order_lines WHERE status = 'ALLOCATED') AS x"
        ),
        allocated,
        "no item twice"
    );
    assert_eq!(
        count(db, "order_lines WHERE status = 'BACKORDERED'"),
        i64::try_from(2 * JOINERS - STOCK).unwrap()
    );
    assert_eq!(
        count(db, "inventory_items WHERE deploy_status = 'AVAILABLE'"),
        0
    );
}

/// A batch of creates (Bulk, CSV) of joiners with a package: every one gets
/// an order, the stock goes to the first ones once each, a refused person
/// is refused alone (SQLite writes such a batch a few people at a time).
fn joiners_created_together_each_get_their_order(db: &TestDatabase, store: &Store) {
    const STOCK: usize = 15;
    const JOINERS: usize = 21;
    let (org, laptop, w) = seeded(store, "Together");
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[], 1)]);
    let stock: Vec<_> = (0..STOCK)
        .map(|i| item(&org, &laptop, &w, at(3, i64::try_from(i).unwrap())))
        .collect();
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            inventory: stock,
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let mut people: Vec<Person> = (0..JOINERS)
        .map(|i| joiner(&org, &format!("t{i}"), Some(kit.id), "DE"))
        .collect();
    // The 13th takes the 2nd's userName: refused, the others written.
    people[12].user_name = people[1].user_name.clone();
    let results = store.insert_people(&people);
    assert_eq!(results.len(), JOINERS);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.is_ok(), i != 12, "person {i}: {r:?}");
    }
    let ordered = i64::try_from(JOINERS - 1).unwrap();
    assert_eq!(count(db, "orders"), ordered);
    assert_eq!(
        count(db, "order_lines WHERE status = 'ALLOCATED'"),
        i64::try_from(STOCK).unwrap()
    );
    assert_eq!(
        count(
            db,
            "(SELECT DISTINCT inventory_item_id FROM order_lines WHERE status = 'ALLOCATED') AS x"
        ),
        i64::try_from(STOCK).unwrap(),
        "no item twice"
    );
    assert_eq!(
        count(db, "order_lines WHERE status = 'BACKORDERED'"),
        ordered - i64::try_from(STOCK).unwrap()
    );
    let created = all_events(store, &org)
        .iter()
        .filter(|e| e.kind == EventType::OrderCreated)
        .count();
    assert_eq!(created, JOINERS - 1, "one order.created each");
}
