//! The listing's filters and sort keys over in-memory items: the reference the
//! database store's SQL is compared with in property tests.

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

fn assigned_to(v: &InventoryItemView, assignee: Assignee) -> bool {
    v.item.assignment.is_some_and(|a| a.assignee == assignee)
}

pub(super) fn matches_filter(s: &State, v: &InventoryItemView, f: &InventoryFilter) -> bool {
    // Every field is named, so that a new filter does not compile until it is
    // given its meaning here too.
    let InventoryFilter {
        person,
        warehouse_id,
        office_id,
        categories,
        deploy_statuses,
        matches_nothing,
        sku_ids,
        search,
        updated_from,
        updated_to,
        serial_numbers,
        vendor_skus,
    } = f;
    let i = &v.item;
    let lower = |o: &Option<String>| o.as_deref().unwrap_or("").to_lowercase();
    let person_ok = match person {
        None => true,
        Some(AssigneeFilter::Person(id)) => assigned_to(v, Assignee::Person(*id)),
        Some(AssigneeFilter::Email(email)) => s.people.iter().any(|p| {
            p.emails
                .iter()
                .any(|e| crate::text::identifier_key(&e.value) == *email)
                && assigned_to(v, Assignee::Person(p.id))
        }),
    };
    let search_text = [
        lower(&i.description),
        v.sku.vendor_name.to_lowercase(),
        v.sku.category_code.to_lowercase(),
        v.sku.category_name.to_lowercase(),
        v.sku.title.to_lowercase(),
        lower(&i.serial_number),
    ]
    .join("\n");
    person_ok
        && warehouse_id.is_none_or(|w| assigned_to(v, Assignee::Warehouse(w)))
        && office_id.is_none_or(|o| assigned_to(v, Assignee::Office(o)))
        && (categories.is_empty() || categories.contains(&v.sku.category_code.to_lowercase()))
        && (deploy_statuses.is_empty() || deploy_statuses.contains(&i.deploy_status))
        && !matches_nothing
        && (sku_ids.is_empty() || sku_ids.contains(&i.sku_id))
        && search
            .as_ref()
            .is_none_or(|q| search_text.contains(q.as_str()))
        && updated_from.is_none_or(|t| i.updated_at.naive_utc() >= t)
        && updated_to.is_none_or(|t| i.updated_at.naive_utc() <= t)
        && (serial_numbers.is_empty() || serial_numbers.contains(&lower(&i.serial_number)))
        && (vendor_skus.is_empty() || vendor_skus.contains(&v.sku.vendor_sku.to_lowercase()))
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
