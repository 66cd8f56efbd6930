//! The listing's rows, filters and sort keys over in-memory items: the
//! reference the database store's SQL is compared with in property tests (what
//! a filter means is `InventoryFilter::matches`, in the domain's query module).

use super::*;

pub(super) fn listed(s: &State, item: &InventoryItem) -> Option<InventoryItemView> {
    let sku = s.skus.iter().find(|k| k.id == item.sku_id)?.clone();
    let assignee_label = item.assignment.and_then(|a| match a.assignee {
        Assignee::Person(id) => s
            .people
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.user_name.clone()),
        Assignee::Warehouse(id) => s
            .warehouses
            .iter()
            .find(|w| w.id == id)
            .map(|w| w.name.clone()),
        Assignee::Office(id) => s
            .offices
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.name.clone()),
    });
    Some(InventoryItemView {
        item: item.clone(),
        sku,
        assignee_label,
    })
}

/// The filters' meaning (`InventoryFilter::matches`), with the people's
/// emails of this store.
pub(super) fn matches_filter(s: &State, v: &InventoryItemView, f: &InventoryFilter) -> bool {
    f.matches(v, |holder, email| {
        s.people.iter().any(|p| {
            p.id == holder
                && p.emails
                    .iter()
                    .any(|e| crate::text::identifier_key(&e.value) == email)
        })
    })
}

pub(super) fn sort_key(v: &InventoryItemView, key: SortKey) -> String {
    let i = &v.item;
    let date = |d: Option<chrono::NaiveDate>| d.map(|d| d.to_string()).unwrap_or_default();
    let time = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%S%.6f").to_string();
    match key {
        SortKey::Product => v.sku.title.to_lowercase(),
        SortKey::SkuId => i.sku_id.to_string(),
        SortKey::CreatedAt => time(i.created_at),
        SortKey::UpdatedAt => time(i.updated_at),
        SortKey::SerialNumber => i.serial_number.as_deref().unwrap_or("").to_lowercase(),
        SortKey::DeployStatus => i.deploy_status.as_str().to_owned(),
        SortKey::DeployReason => i.deploy_reason.map(|r| r.as_str()).unwrap_or("").to_owned(),
        SortKey::Assignee => v.assignee_label.as_deref().unwrap_or("").to_lowercase(),
        SortKey::Condition => format!("{:02}", i.condition.rank()),
        SortKey::RenewalDate => date(i.renewal_date),
        SortKey::Category => format!(
            "{}\u{0}{}",
            v.sku.category_code.to_lowercase(),
            v.sku.title.to_lowercase()
        ),
        SortKey::SuppliedBy => i.supplied_by.as_str().to_owned(),
    }
}
