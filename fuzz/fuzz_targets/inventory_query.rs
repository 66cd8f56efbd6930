//! The inventory listing's query (`equip_domain::inventory_query`): any query
//! string, read as the HTTP route reads it
//! (`equip_api_types::inventory_query::from_query`), is refused with
//! `DomainError::Invalid` or validated into a query within the documented
//! limits (page, size, list lengths, search length, lowercase values, a time
//! range in order); the listing service then runs it over an in-memory
//! organization of 30 items and returns a page no larger than `size`, at the
//! right offset of the total.
#![no_main]

use std::sync::OnceLock;

use chrono::{DateTime, Duration, TimeZone, Utc};
use equip_api_types::inventory_query::from_query;
use equip_domain::error::DomainError;
use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, InventoryItem,
    SuppliedBy,
};
use equip_domain::inventory_query::{
    InventoryQuery, RawInventoryQuery, SortDirection, DEFAULT_PAGE_SIZE, MAX_LIST_VALUES, MAX_PAGE,
    MAX_PAGE_SIZE, MAX_SEARCH_CHARS,
};
use equip_domain::services::inventory::list_inventory;
use equip_domain::testing::{fixtures, InMemoryStore};
use libfuzzer_sys::fuzz_target;

const ITEMS: u64 = 30;

/// An organization with `ITEMS` items in varied states, and its id.
fn store() -> &'static (InMemoryStore, OrganizationId) {
    static STORE: OnceLock<(InMemoryStore, OrganizationId)> = OnceLock::new();
    STORE.get_or_init(|| {
        let store = InMemoryStore::default();
        let seeded = fixtures::seed(&store);
        let start: DateTime<Utc> = Utc.with_ymd_and_hms(2026, 1, 5, 9, 0, 0).unwrap();
        for n in 0..ITEMS {
            let n = i64::try_from(n).unwrap();
            let (status, reason) = match n % 3 {
                0 => (DeployStatus::Available, None),
                1 => (DeployStatus::Unavailable, Some(DeployReason::InTransit)),
                _ => (DeployStatus::Archived, Some(DeployReason::LostByWorker)),
            };
            let at = start + Duration::minutes(n / 2);
            let item = InventoryItem {
                id: InventoryItemId::new(),
                organization_id: seeded.org.id,
                sku_id: seeded.sku.id,
                serial_number: (n % 4 != 0).then(|| format!("SN-{n:03}")),
                imei: vec![],
                deploy_status: status,
                deploy_reason: reason,
                condition: Condition::ALL[usize::try_from(n).unwrap() % Condition::ALL.len()],
                renewal_date: None,
                renewal_date_updated_by: None,
                billing_start_date: None,
                billing_end_date: None,
                procurement_method: None,
                assignment: Some(Assignment {
                    assignee: Assignee::new(
                        AssigneeType::Warehouse,
                        *seeded.warehouse.id.as_uuid(),
                    ),
                    assigned_at: None,
                }),
                tags: vec![],
                pricing: None,
                description: (n % 5 == 0).then(|| format!("Loaner {n}")),
                erp_invoice_id: None,
                hold_start_date: None,
                unlock_date: None,
                itad_requested: None,
                device_program: None,
                supplied_by: SuppliedBy::Organization,
                return_order: None,
                created_at: at,
                updated_at: at + Duration::seconds(n),
            };
            store.state().inventory.push(item);
        }
        (store, seeded.org.id)
    })
}

/// The query string read as `crates/http`'s inventory route reads it (the
/// listing's parameter struct); `None` where it answers 400 (unknown
/// parameter, repeated single parameter, a NUL character).
fn raw_query(query: &str) -> Option<RawInventoryQuery> {
    from_query(query).ok()
}

fn lowercase_list(values: &[String]) {
    assert!(values.len() <= MAX_LIST_VALUES);
    for v in values {
        assert!(!v.is_empty() && v.trim() == v && !v.contains(','), "{v:?}");
        assert_eq!(*v, v.to_lowercase());
    }
}

fn check(raw: &RawInventoryQuery, q: &InventoryQuery) {
    let (page, size) = (q.page().get(), q.size());
    assert!((1..=MAX_PAGE).contains(&page));
    assert!((1..=MAX_PAGE_SIZE).contains(&size));
    if raw.page.is_none() {
        assert_eq!(page, 1);
    }
    if raw.size.is_none() {
        assert_eq!(size, DEFAULT_PAGE_SIZE);
    }
    assert_eq!(q.offset(), u64::from(page - 1) * u64::from(size));
    let f = q.filter();
    lowercase_list(&f.categories);
    lowercase_list(&f.serial_numbers);
    lowercase_list(&f.vendor_skus);
    assert!(f.sku_ids.len() <= MAX_LIST_VALUES);
    assert!(f.deploy_statuses.len() <= MAX_LIST_VALUES);
    for (i, s) in f.deploy_statuses.iter().enumerate() {
        assert!(
            !f.deploy_statuses[..i].contains(s),
            "duplicate status {s:?}"
        );
    }
    assert!(!f.matches_nothing || f.deploy_statuses.is_empty());
    if let Some(search) = &f.search {
        assert!(!search.is_empty() && search.chars().count() <= MAX_SEARCH_CHARS);
        assert_eq!(*search, search.to_lowercase());
    }
    if let (Some(from), Some(to)) = (f.updated_from, f.updated_to) {
        assert!(from <= to);
    }
    let sort_given = raw.sort_by.as_deref().is_some_and(|s| !s.trim().is_empty());
    let direction_given = raw
        .sort_direction
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty());
    if !direction_given {
        let expected = if sort_given {
            SortDirection::Asc
        } else {
            SortDirection::Desc
        };
        assert_eq!(q.direction(), expected);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    let Some(raw) = raw_query(query) else {
        return;
    };
    let q = match InventoryQuery::parse(&raw) {
        Ok(q) => q,
        Err(DomainError::Invalid { field, .. }) => {
            assert!(!field.is_empty());
            return;
        }
        Err(other) => panic!("validation answered {other:?}"),
    };
    check(&raw, &q);
    let (store, org) = store();
    match list_inventory(store, *org, &raw) {
        Ok((again, page)) => {
            assert_eq!(again, q);
            assert!(page.total_records <= ITEMS);
            let expected = page
                .total_records
                .saturating_sub(q.offset())
                .min(u64::from(q.size()));
            assert_eq!(page.items.len() as u64, expected, "{q:?}");
        }
        Err(DomainError::NotFound { .. }) => {}
        Err(other) => panic!("listing answered {other:?}"),
    }
});
