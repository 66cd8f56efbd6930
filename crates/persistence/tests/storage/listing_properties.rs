//! Property tests of the inventory listing's paging on the real stores
//! (SQLite, and PostgreSQL when reachable; required when
//! `EQUIP_REQUIRE_POSTGRES=1` or `CI=true`).
//!
//! For generated inventories (items sharing sort values and creation times,
//! absent serials and renewal dates, titles and labels that differ only in
//! case, ASCII or not, every assignee kind), any sort key, either direction and any page
//! size, reading the pages one after the other returns every item exactly
//! once, full pages until the last, the same total on every page, and in the
//! order of the domain's in-memory reference store. Deep pages (past offset
//! 1,000, where the store starts from remembered keyset positions in the time
//! orders) are read in order, then again in a random order, and must be the
//! same.
//!
//! Run: `cargo test -p equip-persistence --test storage listing_properties`.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestRunner};

use equip_domain::catalog::Sku;
use equip_domain::ids::{InventoryItemId, OfficeId, OrganizationId, PersonId, SkuId, WarehouseId};
use equip_domain::import::ImportBatch;
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, InventoryItem,
    SuppliedBy,
};
use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery, SortKey};
use equip_domain::location::{Office, Warehouse, WarehouseOwner};
use equip_domain::organization::{Organization, OrganizationName};
use equip_domain::person::{Email, Person, PersonStatus};
use equip_domain::ports::{InventoryRepository, OrganizationRepository};
use equip_domain::services::import::run_import;
use equip_domain::testing::InMemoryStore;
use equip_persistence::test_support::TestDatabase;
use equip_persistence::Store;

/// One generated item: indexes into the fixed choices below.
#[derive(Debug, Clone)]
struct ItemSpec {
    /// Status, reason and assignee kind (see `STATES`).
    state: usize,
    /// Which person, SKU, serial, condition.
    person: usize,
    sku: usize,
    serial: Option<usize>,
    condition: usize,
    renewal: Option<u32>,
    operator: bool,
    /// Creation and last change, as a few shared instants.
    created: i64,
    updated: i64,
}

const STATES: [(DeployStatus, Option<DeployReason>); 7] = [
    (DeployStatus::Deployed, None),
    (DeployStatus::Available, None),
    (
        DeployStatus::Unavailable,
        Some(DeployReason::RequiresRepair),
    ),
    (DeployStatus::OnHold, Some(DeployReason::DataHold)),
    (
        DeployStatus::Archived,
        Some(DeployReason::EndOfUsefulLifeDestroyed),
    ),
    (DeployStatus::AwaitingArrival, Some(DeployReason::InTransit)),
    (DeployStatus::AwaitingArrival, None),
];

/// Serials that tie once lowercased (non-ASCII letters too).
const SERIALS: [&str; 6] = ["SN-1", "sn-1", "SN-2", "a-0", "ÉSN-3", "ésn-3"];

fn item_spec() -> impl Strategy<Value = ItemSpec> {
    (
        0..STATES.len(),
        0..3usize,
        0..6usize,
        proptest::option::of(0..SERIALS.len()),
        0..Condition::ALL.len(),
        proptest::option::of(1..4u32),
        any::<bool>(),
        0..4i64,
        0..3i64,
    )
        .prop_map(
            |(state, person, sku, serial, condition, renewal, operator, created, updated)| {
                ItemSpec {
                    state,
                    person,
                    sku,
                    serial,
                    condition,
                    renewal,
                    operator,
                    created,
                    updated,
                }
            },
        )
}

fn at(micros: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 1, 8, 0, 0).unwrap() + Duration::microseconds(micros)
}

fn person(org: OrganizationId, email: &str) -> Person {
    Person {
        id: PersonId::new(),
        organization_id: org,
        external_id: None,
        user_name: email.into(),
        given_name: None,
        family_name: None,
        display_name: None,
        emails: vec![Email {
            value: email.into(),
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
        profile: Default::default(),
        created_at: at(0),
        updated_at: at(0),
        version: 1,
    }
}

fn sku(org: OrganizationId, title: &str, category: &str) -> Sku {
    Sku {
        id: SkuId::new(),
        organization_id: org,
        title: title.into(),
        category_code: category.into(),
        category_name: category.into(),
        vendor_code: "ACME".into(),
        vendor_name: "Acme".into(),
        vendor_sku: "A-1".into(),
    }
}

/// A new organization in `store` and in a fresh reference store, holding the
/// items of `specs` (creation times `step` microseconds apart per spec unit).
fn seed(store: &Store, specs: &[ItemSpec], step: i64) -> (OrganizationId, InMemoryStore) {
    let org = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse("Paging Org").unwrap(),
        created_at: at(0),
    };
    store.insert_organization(&org).unwrap();
    let o = org.id;
    // Titles, categories and labels that tie once lowercased, and that sort
    // apart only when non-ASCII letters fold too (`Éclair` after `éa`).
    let skus = vec![
        sku(o, "MacBook Pro", "LAPTOP"),
        sku(o, "macbook pro", "laptop"),
        sku(o, "iPhone", "PHONE"),
        sku(o, "Zebra Label", "PRINTER"),
        sku(o, "Éclair Pro", "ÉCRAN"),
        sku(o, "éa mini", "écran"),
    ];
    let people = vec![
        person(o, "ada@example.com"),
        person(o, "Bob@Example.com"),
        person(o, "Évora@example.com"),
    ];
    let warehouse = Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(o),
        name: "Évora".into(),
        address: None,
    };
    let office = Office {
        id: OfficeId::new(),
        organization_id: o,
        name: "éa office".into(),
    };
    let inventory = specs
        .iter()
        .map(|s| {
            let (status, reason) = STATES[s.state];
            let assignee = match status {
                DeployStatus::Deployed => {
                    Some((AssigneeType::Person, *people[s.person].id.as_uuid()))
                }
                DeployStatus::Available | DeployStatus::Unavailable => {
                    Some((AssigneeType::Warehouse, *warehouse.id.as_uuid()))
                }
                DeployStatus::OnHold => Some((AssigneeType::Office, *office.id.as_uuid())),
                _ => None,
            };
            let created = at(s.created * step);
            InventoryItem {
                id: InventoryItemId::new(),
                organization_id: o,
                sku_id: skus[s.sku].id,
                serial_number: s.serial.map(|i| SERIALS[i].to_owned()),
                imei: vec![],
                deploy_status: status,
                deploy_reason: reason,
                condition: Condition::ALL[s.condition],
                renewal_date: s
                    .renewal
                    .map(|d| NaiveDate::from_ymd_opt(2027, 1, d).unwrap()),
                renewal_date_updated_by: None,
                billing_start_date: None,
                billing_end_date: None,
                procurement_method: None,
                assignment: assignee.map(|(kind, id)| Assignment {
                    assignee: Assignee::new(kind, id),
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
                supplied_by: if s.operator {
                    SuppliedBy::Operator
                } else {
                    SuppliedBy::Organization
                },
                return_order: None,
                created_at: created,
                updated_at: created + Duration::microseconds(s.updated * step),
            }
        })
        .collect();
    let batch = ImportBatch {
        warehouses: vec![warehouse],
        offices: vec![office],
        skus,
        people,
        inventory,
        ..ImportBatch::default()
    };
    run_import(store, o, &batch, &mut |_| {}).unwrap();
    let reference = InMemoryStore::default();
    reference.state().organizations.push(org);
    run_import(&reference, o, &batch, &mut |_| {}).unwrap();
    (o, reference)
}

fn query(key: SortKey, dir: &str, page: u64, size: u32) -> InventoryQuery {
    InventoryQuery::parse(&RawInventoryQuery {
        page: Some(page.to_string()),
        size: Some(size.to_string()),
        sort_by: Some(key.as_str().into()),
        sort_direction: Some(dir.into()),
        ..RawInventoryQuery::default()
    })
    .unwrap()
}

/// The ids of one page, and the page's total.
fn page_ids(
    store: &dyn InventoryRepository,
    org: OrganizationId,
    q: &InventoryQuery,
) -> (Vec<String>, u64) {
    let page = store.list_inventory(org, q).unwrap();
    let ids = page.items.iter().map(|i| i.id.to_string()).collect();
    (ids, page.total_records)
}

/// Reads the pages one after the other; checks full pages and the total.
fn all_pages(
    store: &Store,
    org: OrganizationId,
    key: SortKey,
    dir: &str,
    size: u32,
    n: usize,
) -> Result<Vec<String>, TestCaseError> {
    let mut out: Vec<String> = Vec::new();
    let pages = n.div_ceil(size as usize).max(1) as u64;
    for page in 1..=pages + 1 {
        let (ids, total) = page_ids(store, org, &query(key, dir, page, size));
        prop_assert_eq!(total, n as u64, "page {} total", page);
        let expected_len = n.saturating_sub(out.len()).min(size as usize);
        prop_assert_eq!(ids.len(), expected_len, "page {} of {} items", page, n);
        out.extend(ids);
    }
    Ok(out)
}

/// Every id of the reference's listing, in order.
fn reference_ids(
    reference: &InMemoryStore,
    org: OrganizationId,
    key: SortKey,
    dir: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    for page in 1.. {
        let (ids, total) = page_ids(reference, org, &query(key, dir, page, 1000));
        out.extend(ids);
        if out.len() as u64 >= total {
            return out;
        }
    }
    out
}

/// Every sort key, both directions, any page size: every item once, in the
/// reference's order.
fn pages_hold_every_item_once_in_order(store: &Store, cases: u32) {
    let strategy = (
        proptest::collection::vec(item_spec(), 0..50),
        select(SortKey::ALL.to_vec()),
        select(vec!["ASC", "DESC"]),
        1..=12u32,
    );
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        // Each shrinking step seeds a new organization: keep a failure quick.
        max_shrink_iters: 64,
        ..Config::default()
    });
    runner
        .run(&strategy, |(specs, key, dir, size)| {
            let (org, reference) = seed(store, &specs, 1_000_000);
            let got = all_pages(store, org, key, dir, size, specs.len())?;
            let mut unique = got.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(unique.len(), specs.len(), "every item exactly once");
            prop_assert_eq!(
                got,
                reference_ids(&reference, org, key, dir),
                "{} {}",
                key.as_str(),
                dir
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}", summary(&e)));
}

/// Deep pages in the time orders, where remembered keyset positions take
/// over from `OFFSET`: in order, then in a random order, the same pages.
fn deep_pages_hold_every_item_once_in_order(store: &Store, cases: u32) {
    let strategy = (
        proptest::collection::vec(item_spec(), 1_250..1_300),
        select(vec![SortKey::CreatedAt, SortKey::UpdatedAt]),
        select(vec!["ASC", "DESC"]),
        100..=250u32,
        // Creation times: ties within the same microsecond, or a step apart.
        select(vec![1i64, 250]),
        any::<u64>(),
    );
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        // Each shrinking step seeds a new organization: keep a failure quick.
        max_shrink_iters: 64,
        ..Config::default()
    });
    runner
        .run(&strategy, |(specs, key, dir, size, step, shuffle)| {
            let n = specs.len();
            let (org, reference) = seed(store, &specs, step);
            let expected = reference_ids(&reference, org, key, dir);
            let got = all_pages(store, org, key, dir, size, n)?;
            if let Some(i) = (0..n).find(|&i| got.get(i) != expected.get(i)) {
                return Err(TestCaseError::fail(format!(
                    "in order: {} {dir} size {size} step {step}, {n} items: first difference at {i} (page {}): got {:?}, expected {:?}",
                    key.as_str(),
                    i / size as usize + 1,
                    got.get(i),
                    expected.get(i)
                )));
            }
            // Again, pages in a scrambled order (a deep page may now start
            // from a position remembered by the first pass).
            let pages = n.div_ceil(size as usize) as u64;
            let mut order: Vec<u64> = (1..=pages).collect();
            let mut state = shuffle | 1;
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, usize::try_from(state % (i as u64 + 1)).unwrap());
            }
            for page in order {
                let (ids, _) = page_ids(store, org, &query(key, dir, page, size));
                let from = ((page - 1) * u64::from(size)) as usize;
                let to = (from + size as usize).min(n);
                if ids[..] != expected[from..to] {
                    return Err(TestCaseError::fail(format!(
                        "scrambled: {} {dir} size {size} step {step}, {n} items: page {page} differs",
                        key.as_str()
                    )));
                }
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}", summary(&e)));
}

/// The failure's reason, without the (long) generated input.
fn summary<T: std::fmt::Debug>(e: &proptest::test_runner::TestError<T>) -> String {
    match e {
        proptest::test_runner::TestError::Fail(reason, _) => format!("{reason}"),
        proptest::test_runner::TestError::Abort(reason) => format!("aborted: {reason}"),
    }
}

#[test]
fn sqlite_pages_hold_every_item_once_in_order() {
    let db = TestDatabase::sqlite();
    pages_hold_every_item_once_in_order(&db.store(), 48);
}

#[test]
fn postgres_pages_hold_every_item_once_in_order() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    pages_hold_every_item_once_in_order(&db.store(), 16);
}

#[test]
fn sqlite_deep_pages_hold_every_item_once_in_order() {
    let db = TestDatabase::sqlite();
    deep_pages_hold_every_item_once_in_order(&db.store(), 2);
}

#[test]
fn postgres_deep_pages_hold_every_item_once_in_order() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    deep_pages_hold_every_item_once_in_order(&db.store(), 1);
}

/// A generated filter, as indexes into the organization's values.
#[derive(Debug, Clone)]
struct FilterSpec {
    statuses: Vec<usize>,
    categories: Vec<usize>,
    /// (text, start, length) cut from `SEARCHED`.
    search: Option<(usize, usize, usize)>,
    /// (person, by email instead of id).
    person: Option<(usize, bool)>,
    warehouse: bool,
    office: bool,
    sku: Option<usize>,
    serial: Option<usize>,
    /// (from, how much later to) in the spec's time units.
    updated: Option<(i64, i64)>,
    vendor: bool,
}

/// Texts the searches are cut from: titles, serials, the vendor, and the
/// joins of the search text's fields (a newline between title and serial).
const SEARCHED: [&str; 8] = [
    "MacBook Pro",
    "ÉCLAIR PRO",
    "SN-1",
    "ésn-3",
    "Acme\nlaptop",
    "pro\nsn-2",
    "mini\n",
    "iphone",
];
const CATEGORIES: [&str; 5] = ["LAPTOP", "phone", "écran", "PRINTER", "tablet"];

fn filter_spec() -> impl Strategy<Value = FilterSpec> {
    use proptest::option::weighted;
    (
        proptest::collection::vec(0..STATES.len(), 0..3),
        proptest::collection::vec(0..CATEGORIES.len(), 0..3),
        weighted(0.4, (0..SEARCHED.len(), 0..8usize, 1..6usize)),
        weighted(0.15, (0..3usize, any::<bool>())),
        proptest::bool::weighted(0.1),
        proptest::bool::weighted(0.1),
        weighted(0.15, 0..6usize),
        weighted(0.1, 0..SERIALS.len()),
        weighted(0.15, (0..4i64, 0..6i64)),
        proptest::bool::weighted(0.1),
    )
        .prop_map(
            |(
                statuses,
                categories,
                search,
                person,
                warehouse,
                office,
                sku,
                serial,
                updated,
                vendor,
            )| {
                FilterSpec {
                    statuses,
                    categories,
                    search,
                    person,
                    warehouse,
                    office,
                    sku,
                    serial,
                    updated,
                    vendor,
                }
            },
        )
}

/// The listing query of a filter spec over the reference's organization.
fn filtered_query(
    reference: &InMemoryStore,
    f: &FilterSpec,
    (key, dir, page, size): (SortKey, &str, u64, u32),
    step: i64,
) -> InventoryQuery {
    let state = reference.state();
    let mut raw = RawInventoryQuery {
        page: Some(page.to_string()),
        size: Some(size.to_string()),
        sort_by: Some(key.as_str().into()),
        sort_direction: Some(dir.into()),
        ..RawInventoryQuery::default()
    };
    raw.deploy_statuses = f
        .statuses
        .iter()
        .map(|s| STATES[*s].0.as_str().to_owned())
        .collect();
    raw.categories = f
        .categories
        .iter()
        .map(|c| CATEGORIES[*c].to_owned())
        .collect();
    if let Some((text, start, len)) = f.search {
        let chars: Vec<char> = SEARCHED[text].chars().collect();
        let start = start.min(chars.len().saturating_sub(1));
        let end = (start + len).min(chars.len());
        let cut: String = chars[start..end].iter().collect();
        if !cut.trim().is_empty() {
            raw.search_string = Some(cut);
        }
    }
    if let Some((p, by_email)) = f.person {
        let person = &state.people[p];
        if by_email {
            raw.assigned_email = Some(person.user_name.to_uppercase());
        } else {
            raw.person_id = Some(person.id.to_string());
        }
    }
    if f.warehouse {
        raw.warehouse_id = Some(state.warehouses[0].id.to_string());
    }
    if f.office {
        raw.office_id = Some(state.offices[0].id.to_string());
    }
    if let Some(s) = f.sku {
        raw.sku_ids = vec![state.skus[s].id.to_string()];
    }
    if let Some(s) = f.serial {
        raw.serial_numbers = vec![SERIALS[s].to_owned()];
    }
    if let Some((from, to)) = f.updated {
        let time = |n: i64| at(n * step).format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
        raw.updated_at_from = Some(time(from));
        raw.updated_at_to = Some(time(from + to));
    }
    if f.vendor {
        raw.vendor_skus = vec!["a-1".into()];
    }
    InventoryQuery::parse(&raw).unwrap()
}

/// Any filter, sort and page, before and after items are changed and added:
/// the same page and total as the reference store.
fn filtered_pages_match_the_reference(store: &Store, cases: u32) {
    let strategy = (
        proptest::collection::vec(item_spec(), 0..60),
        proptest::collection::vec(filter_spec(), 4),
        select(SortKey::ALL.to_vec()),
        select(vec!["ASC", "DESC"]),
        1..=7u32,
        // Items changed afterwards: (which item, new state, new serial).
        proptest::collection::vec((0..60usize, 0..STATES.len(), 0..SERIALS.len()), 0..6),
    );
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    });
    runner
        .run(&strategy, |(specs, filters, key, dir, size, changes)| {
            let step = 1_000_000;
            let (org, reference) = seed(store, &specs, step);
            let compare = |round: &str| -> Result<(), TestCaseError> {
                for f in &filters {
                    for page in 1..=3 {
                        let q = filtered_query(&reference, f, (key, dir, page, size), step);
                        let got = page_ids(store, org, &q);
                        let expected = page_ids(&reference, org, &q);
                        prop_assert_eq!(
                            got,
                            expected,
                            "{} {:?} {} {} page {}",
                            round,
                            f,
                            key.as_str(),
                            dir,
                            page
                        );
                    }
                }
                Ok(())
            };
            compare("seeded")?;
            // Change some items (status, serial, a later update time) and
            // add one, on both stores: the next pages must show it.
            let mut items = reference.state().inventory.clone();
            for (n, (which, state, serial)) in changes.iter().enumerate() {
                let Some(current) = items.get(*which).cloned() else {
                    continue;
                };
                let current = &current;
                let mut next = current.clone();
                let (status, reason) = STATES[*state];
                next.deploy_status = status;
                next.deploy_reason = reason;
                if status == DeployStatus::Deployed && next.assignment.is_none() {
                    next.deploy_status = DeployStatus::Archived;
                    next.deploy_reason = Some(DeployReason::EndOfUsefulLifeDestroyed);
                }
                next.serial_number = Some(SERIALS[*serial].to_owned());
                next.updated_at =
                    current.updated_at + Duration::microseconds(step * (n as i64 + 1));
                prop_assert!(store
                    .update_inventory_item(current, &next)
                    .unwrap()
                    .written());
                prop_assert!(reference
                    .update_inventory_item(current, &next)
                    .unwrap()
                    .written());
                items[*which] = next;
            }
            if let Some(first) = items.first() {
                let mut added = first.clone();
                added.id = InventoryItemId::new();
                added.serial_number = Some("SN-9".into());
                store.insert_inventory_item(&added).unwrap();
                reference.insert_inventory_item(&added).unwrap();
            }
            compare("changed")
        })
        .unwrap_or_else(|e| panic!("{}", summary(&e)));
}

#[test]
fn sqlite_filtered_pages_match_the_reference() {
    let db = TestDatabase::sqlite();
    filtered_pages_match_the_reference(&db.store(), 48);
    filtered_pages_match_the_reference(&db.store().with_listing_index(false), 16);
}

#[test]
fn postgres_filtered_pages_match_the_reference() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    filtered_pages_match_the_reference(&db.store(), 16);
    filtered_pages_match_the_reference(&db.store().with_listing_index(false), 8);
}

#[test]
fn sqlite_pages_by_sql_hold_every_item_once_in_order() {
    let db = TestDatabase::sqlite();
    pages_hold_every_item_once_in_order(&db.store().with_listing_index(false), 16);
    deep_pages_hold_every_item_once_in_order(&db.store().with_listing_index(false), 1);
}

#[test]
fn postgres_pages_by_sql_hold_every_item_once_in_order() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    pages_hold_every_item_once_in_order(&db.store().with_listing_index(false), 8);
    deep_pages_hold_every_item_once_in_order(&db.store().with_listing_index(false), 1);
}

fn spec(state: usize, serial: Option<usize>, created: i64) -> ItemSpec {
    ItemSpec {
        state,
        person: 0,
        sku: created as usize % 6,
        serial,
        condition: 0,
        renewal: None,
        operator: false,
        created,
        updated: 0,
    }
}

fn status_query(status: DeployStatus) -> InventoryQuery {
    InventoryQuery::parse(&RawInventoryQuery {
        deploy_statuses: vec![status.as_str().into()],
        size: Some("1000".into()),
        ..RawInventoryQuery::default()
    })
    .unwrap()
}

/// A write through one instance (`writer`) is in the next listing of
/// another (`reader`, whose listing index was built before the write): the
/// item moved between status filters, its JSON is the new one, and a new
/// item is counted.
fn a_write_is_in_the_next_listing_of_another_instance(reader: &Store, writer: &Store) {
    let specs: Vec<ItemSpec> = (0..40)
        .map(|n| spec(n as usize % 2, Some(n as usize % 6), n))
        .collect();
    let (org, reference) = seed(writer, &specs, 1_000);
    let all = query(SortKey::CreatedAt, "ASC", 1, 1000);
    assert_eq!(page_ids(reader, org, &all), page_ids(&reference, org, &all));
    let available = status_query(DeployStatus::Available);
    let before = page_ids(reader, org, &available);

    let items = reference.state().inventory.clone();
    let current = items
        .iter()
        .find(|i| i.deploy_status == DeployStatus::Available)
        .unwrap()
        .clone();
    let mut next = current.clone();
    next.deploy_status = DeployStatus::Archived;
    next.deploy_reason = Some(DeployReason::EndOfUsefulLifeDestroyed);
    next.assignment = None;
    next.updated_at = current.updated_at + Duration::seconds(1);
    assert!(writer
        .update_inventory_item(&current, &next)
        .unwrap()
        .written());
    let after = page_ids(reader, org, &available);
    assert_eq!(after.1, before.1 - 1, "the item left AVAILABLE");
    assert!(!after.0.contains(&current.id.to_string()));
    let archived = reader
        .list_inventory(org, &status_query(DeployStatus::Archived))
        .unwrap();
    let shown = archived
        .items
        .iter()
        .find(|i| i.id == current.id)
        .expect("the item is listed as ARCHIVED");
    match &shown.body {
        equip_domain::inventory_query::ListedBody::Rendered(json) => {
            assert!(json.contains("\"ARCHIVED\""), "{json}");
        }
        other => panic!("{other:?}"),
    }

    let mut added = current.clone();
    added.id = InventoryItemId::new();
    writer.insert_inventory_item(&added).unwrap();
    assert_eq!(page_ids(reader, org, &all).1, 41);
}

#[test]
fn sqlite_a_write_is_in_the_next_listing_of_another_instance() {
    let db = TestDatabase::sqlite();
    a_write_is_in_the_next_listing_of_another_instance(&db.store(), &db.store());
}

#[test]
fn postgres_a_write_is_in_the_next_listing_of_another_instance() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    a_write_is_in_the_next_listing_of_another_instance(&db.store(), &db.store());
}

/// A large organization's index is built on a thread of its own; its
/// listing is answered (by SQL) meanwhile, the same before and after.
fn an_index_built_in_the_background_answers_the_same(db: &TestDatabase) {
    let reader = db.store().with_listing_index_built_in_background();
    let writer = db.store();
    // Creation times shared by three items each: the build's chunks of 7
    // rows end between items of one time.
    let specs: Vec<ItemSpec> = (0..30)
        .map(|n| spec(n as usize % 7, Some(n as usize % 6), n / 3))
        .collect();
    let (org, reference) = seed(&writer, &specs, 1_000);
    let q = query(SortKey::Product, "DESC", 2, 7);
    let expected = page_ids(&reference, org, &q);
    assert_eq!(
        page_ids(&reader, org, &q),
        expected,
        "answered while building"
    );
    let started = std::time::Instant::now();
    while !reader.listing_index_built(org) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "never built"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        page_ids(&reader, org, &q),
        expected,
        "answered from the index"
    );
    a_write_is_in_the_next_listing_of_another_instance(&reader, &writer);
}

#[test]
fn sqlite_an_index_built_in_the_background_answers_the_same() {
    an_index_built_in_the_background_answers_the_same(&TestDatabase::sqlite());
}

#[test]
fn postgres_an_index_built_in_the_background_answers_the_same() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    an_index_built_in_the_background_answers_the_same(&db);
}

/// A build is not a request: on PostgreSQL, a build whose reads take longer
/// than the request pool's `statement_timeout` (a cold cache at a million
/// items; here, a lock held on the listing for longer than it) is not
/// cancelled by it, and the index answers once built.
#[test]
fn postgres_a_build_outlasts_the_statement_timeout() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let writer = db.store();
    let specs: Vec<ItemSpec> = (0..20)
        .map(|n| spec(n as usize % 7, Some(n as usize % 6), n / 2))
        .collect();
    let (org, reference) = seed(&writer, &specs, 1_000);
    let reader = db
        .store_with(equip_persistence::PoolOptions {
            statement_timeout: Some(std::time::Duration::from_millis(100)),
            ..equip_persistence::PoolOptions::default()
        })
        .with_listing_index_built_in_background();
    let mut locker = PgConnection::establish(db.url()).expect("connect");
    diesel::sql_query("BEGIN")
        .execute(&mut locker)
        .expect("begin");
    diesel::sql_query("LOCK TABLE inventory_listing IN ACCESS EXCLUSIVE MODE")
        .execute(&mut locker)
        .expect("lock");
    reader.warm_listing_indexes();
    // The build's reads wait for the lock five times the statement limit.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!reader.listing_index_built(org), "built through the lock");
    diesel::sql_query("COMMIT")
        .execute(&mut locker)
        .expect("commit");
    let started = std::time::Instant::now();
    while !reader.listing_index_built(org) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "never built: cancelled by the statement timeout?"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let q = query(SortKey::SerialNumber, "DESC", 1, 6);
    assert_eq!(page_ids(&reader, org, &q), page_ids(&reference, org, &q));
}

/// `serve` builds the index of every organization too large to be built
/// while a request waits, at its start: built without any listing request,
/// and answering as the reference does.
fn large_organizations_are_built_at_the_start(db: &TestDatabase) {
    let writer = db.store();
    let specs: Vec<ItemSpec> = (0..20)
        .map(|n| spec(n as usize % 7, Some(n as usize % 6), n / 2))
        .collect();
    let (org, reference) = seed(&writer, &specs, 1_000);
    let reader = db.store().with_listing_index_built_in_background();
    assert!(!reader.listing_index_built(org));
    reader.warm_listing_indexes();
    let started = std::time::Instant::now();
    while !reader.listing_index_built(org) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "never built"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let q = query(SortKey::SerialNumber, "ASC", 2, 6);
    assert_eq!(page_ids(&reader, org, &q), page_ids(&reference, org, &q));
}

#[test]
fn sqlite_large_organizations_are_built_at_the_start() {
    large_organizations_are_built_at_the_start(&TestDatabase::sqlite());
}

#[test]
fn postgres_large_organizations_are_built_at_the_start() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    large_organizations_are_built_at_the_start(&db);
}
