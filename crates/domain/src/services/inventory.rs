//! Listing, reading, creating and changing inventory items.

use chrono::{DateTime, NaiveDate, Utc};

use crate::error::DomainError;
use crate::ids::{InventoryItemId, OrganizationId, SkuId, TagId};
use crate::inventory::{
    check_transition, Assignee, Assignment, Condition, DeployReason, DeployStatus, InventoryItem,
    RenewalDateUpdatedBy, SuppliedBy, Tag,
};
use crate::inventory_query::{
    AssigneeFilter, InventoryItemView, InventoryPage, InventoryQuery, RawInventoryQuery,
};
use crate::inventory_summary::{holds_window, summarized, InventorySummary};
use crate::ports::{
    CatalogRepository, InventoryRepository, ItemWrite, OfficeRepository, PersonRepository,
    WarehouseRepository,
};

/// The ports listing needs.
pub trait InventoryPorts:
    InventoryRepository + PersonRepository + WarehouseRepository + OfficeRepository + CatalogRepository
{
}
impl<T> InventoryPorts for T where
    T: InventoryRepository
        + PersonRepository
        + WarehouseRepository
        + OfficeRepository
        + CatalogRepository
{
}

/// One page of the organization's inventory for raw listing parameters.
///
/// # Errors
/// [`DomainError::Invalid`] naming a bad parameter; [`DomainError::NotFound`]
/// (`personId`, `warehouseId`, `officeId`) for a well-formed id that is not in
/// the organization (or, for a warehouse, not accessible to it).
pub fn list_inventory(
    ports: &dyn InventoryPorts,
    organization: OrganizationId,
    raw: &RawInventoryQuery,
) -> Result<(InventoryQuery, InventoryPage), DomainError> {
    let query = InventoryQuery::parse(raw)?;
    let page = list_inventory_page(ports, organization, &query)?;
    Ok((query, page))
}

/// The organization's items at a glance: counts by status and category, and
/// the holds that end within a week of `today` (the console's overview).
///
/// # Errors
/// Store failures.
pub fn inventory_summary<P>(
    ports: &P,
    organization: OrganizationId,
    today: NaiveDate,
) -> Result<InventorySummary, DomainError>
where
    P: InventoryRepository + CatalogRepository + ?Sized,
{
    let (counts, holds) = ports.inventory_counts(organization, holds_window(today))?;
    let skus = ports.skus(organization)?;
    let codes: Vec<&str> = skus.iter().map(|s| s.category_code.as_str()).collect();
    Ok(summarized(counts, holds, &codes))
}

/// One page of the organization's inventory for a validated query.
///
/// # Errors
/// As [`list_inventory`], except for the parameters' validation.
pub fn list_inventory_page(
    ports: &dyn InventoryPorts,
    organization: OrganizationId,
    query: &InventoryQuery,
) -> Result<InventoryPage, DomainError> {
    if let Some(AssigneeFilter::Person(id)) = &query.filter().person {
        if ports.find_person(organization, *id)?.is_none() {
            return Err(DomainError::not_found(
                "personId",
                format!("person {id} not found"),
            ));
        }
    }
    if let Some(id) = query.filter().warehouse_id {
        if ports.find_accessible_warehouse(organization, id)?.is_none() {
            return Err(DomainError::not_found(
                "warehouseId",
                format!("warehouse {id} not found"),
            ));
        }
    }
    if let Some(id) = query.filter().office_id {
        if ports.find_office(organization, id)?.is_none() {
            return Err(DomainError::not_found(
                "officeId",
                format!("office {id} not found"),
            ));
        }
    }
    if query.filter().matches_nothing {
        return Ok(InventoryPage::empty());
    }
    Ok(ports.list_inventory(organization, query)?)
}

/// Reading one item.
///
/// # Errors
/// [`DomainError::NotFound`] (`inventoryItem`) for an unknown item or another
/// organization's.
pub fn get_item(
    ports: &dyn InventoryPorts,
    organization: OrganizationId,
    id: InventoryItemId,
) -> Result<InventoryItemView, DomainError> {
    ports
        .find_inventory_views(organization, &[id])?
        .pop()
        .ok_or_else(|| {
            DomainError::not_found("inventoryItem", format!("inventory item {id} not found"))
        })
}

/// What a caller gives to create an item.
#[derive(Debug, Clone, PartialEq)]
pub struct NewItem {
    /// SKU of the organization.
    pub sku_id: SkuId,
    /// Serial number.
    pub serial_number: Option<String>,
    /// IMEI values.
    pub imei: Vec<String>,
    /// Initial status.
    pub deploy_status: DeployStatus,
    /// Reason (required for UNAVAILABLE and ARCHIVED, refused for DEPLOYED and AVAILABLE).
    pub deploy_reason: Option<DeployReason>,
    /// Condition.
    pub condition: Condition,
    /// Holder (DEPLOYED needs a person).
    pub assigned_to: Option<Assignee>,
    /// Tag labels.
    pub tags: Vec<String>,
    /// Renewal date.
    pub renewal_date: Option<NaiveDate>,
    /// Description.
    pub description: Option<String>,
    /// Procurement method label.
    pub procurement_method: Option<String>,
    /// Who supplied it.
    pub supplied_by: SuppliedBy,
}

/// A change to an item: `None` leaves a field as it is; `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemChanges {
    /// New status.
    pub deploy_status: Option<DeployStatus>,
    /// New reason, or cleared.
    pub deploy_reason: Option<Option<DeployReason>>,
    /// New condition.
    pub condition: Option<Condition>,
    /// New holder, or unassigned.
    pub assigned_to: Option<Option<Assignee>>,
    /// New tag labels (replace the list).
    pub tags: Option<Vec<String>>,
    /// New renewal date, or cleared.
    pub renewal_date: Option<Option<NaiveDate>>,
    /// New description, or cleared.
    pub description: Option<Option<String>>,
}

fn tags_from(labels: Vec<String>, existing: &[Tag]) -> Result<Vec<Tag>, DomainError> {
    let mut tags: Vec<Tag> = Vec::with_capacity(labels.len());
    for label in labels {
        let label = label.trim().to_owned();
        if label.is_empty() {
            return Err(DomainError::invalid("tags", "tag labels must not be empty"));
        }
        if tags.iter().any(|t| t.label == label) {
            continue;
        }
        let id = existing
            .iter()
            .find(|t| t.label == label)
            .map_or_else(TagId::new, |t| t.id);
        tags.push(Tag { id, label });
    }
    Ok(tags)
}

fn check_assignee(
    ports: &dyn InventoryPorts,
    organization: OrganizationId,
    assigned_to: Option<Assignee>,
) -> Result<(), DomainError> {
    let Some(assignee) = assigned_to else {
        return Ok(());
    };
    let exists = match assignee {
        Assignee::Person(id) => ports
            .find_person(organization, id)?
            .is_some_and(|p| p.is_provisioned()),
        Assignee::Warehouse(id) => ports.find_accessible_warehouse(organization, id)?.is_some(),
        Assignee::Office(id) => ports.find_office(organization, id)?.is_some(),
    };
    if exists {
        Ok(())
    } else {
        Err(DomainError::not_found(
            "assignedTo.id",
            format!(
                "{} {} not found",
                assignee.kind().as_str().to_lowercase(),
                assignee.id()
            ),
        ))
    }
}

/// Creates an item under the domain rules.
///
/// # Errors
/// [`DomainError::Invalid`] for a rule broken (reason, DEPLOYED without a
/// PERSON, …); [`DomainError::NotFound`] for a SKU (`skuId`) or assignee
/// (`assignedTo.id`) not in the organization.
pub fn create_item(
    ports: &dyn InventoryPorts,
    organization: OrganizationId,
    new: NewItem,
    now: DateTime<Utc>,
) -> Result<InventoryItemView, DomainError> {
    let item = InventoryItem {
        id: InventoryItemId::new(),
        organization_id: organization,
        sku_id: new.sku_id,
        serial_number: new.serial_number,
        imei: new.imei,
        deploy_status: new.deploy_status,
        deploy_reason: new.deploy_reason,
        condition: new.condition,
        renewal_date: new.renewal_date,
        renewal_date_updated_by: new
            .renewal_date
            .map(|_| RenewalDateUpdatedBy::ManuallyUpdated),
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: new.procurement_method,
        assignment: new.assigned_to.map(|assignee| Assignment {
            assignee,
            assigned_at: Some(now),
        }),
        tags: tags_from(new.tags, &[])?,
        pricing: None,
        description: new.description,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: new.supplied_by,
        return_order: None,
        created_at: now,
        updated_at: now,
    };
    item.validate()?;
    if ports.find_sku(organization, item.sku_id)?.is_none() {
        return Err(DomainError::not_found(
            "skuId",
            format!("SKU {} not found", item.sku_id),
        ));
    }
    check_assignee(ports, organization, new.assigned_to)?;
    ports.insert_inventory_item(&item)?;
    get_item(ports, organization, item.id)
}

/// Applies `changes` to an item under the domain rules: a move to UNAVAILABLE
/// or ARCHIVED needs a `deployReason` in the same change; DEPLOYED and
/// AVAILABLE clear it; DEPLOYED needs a PERSON assignee; ARCHIVED is final.
///
/// # Errors
/// [`DomainError::NotFound`] (`inventoryItem`, `assignedTo.id`);
/// [`DomainError::Invalid`] naming the field; [`DomainError::Conflict`] for a
/// move the current status forbids, or when the item changed concurrently.
pub fn update_item(
    ports: &dyn InventoryPorts,
    organization: OrganizationId,
    id: InventoryItemId,
    changes: ItemChanges,
    now: DateTime<Utc>,
) -> Result<InventoryItemView, DomainError> {
    let current_view = get_item(ports, organization, id)?;
    let current = current_view.item.clone();
    let mut item = current.clone();
    if let Some(status) = changes.deploy_status {
        check_transition(current.deploy_status, status)?;
        item.deploy_status = status;
    }
    let status_changed = item.deploy_status != current.deploy_status;
    item.deploy_reason = match changes.deploy_reason {
        Some(reason) => reason,
        None if status_changed => None,
        None => current.deploy_reason,
    };
    if matches!(
        item.deploy_status,
        DeployStatus::Deployed | DeployStatus::Available
    ) && changes.deploy_reason.is_none()
    {
        item.deploy_reason = None;
    }
    if let Some(condition) = changes.condition {
        item.condition = condition;
    }
    if let Some(assigned_to) = changes.assigned_to {
        check_assignee(ports, organization, assigned_to)?;
        let unchanged = current.assignment.map(|a| a.assignee) == assigned_to;
        if !unchanged {
            item.assignment = assigned_to.map(|assignee| Assignment {
                assignee,
                assigned_at: Some(now),
            });
        }
    }
    if let Some(labels) = changes.tags {
        item.tags = tags_from(labels, &current.tags)?;
    }
    if let Some(date) = changes.renewal_date {
        item.renewal_date = date;
        item.renewal_date_updated_by = Some(match date {
            Some(_) => RenewalDateUpdatedBy::ManuallyUpdated,
            None => RenewalDateUpdatedBy::ClearManuallySet,
        });
    }
    if let Some(description) = changes.description {
        item.description = description;
    }
    item.validate()?;
    if item == current {
        // Nothing changed: no write, and `updatedAt` stays, so a client
        // syncing by `updatedAtFrom` sees no change that did not happen.
        return Ok(current_view);
    }
    item.updated_at = now.max(current.updated_at);
    match ports.update_inventory_item(&current, &item)? {
        ItemWrite::Written => {}
        ItemWrite::Stale => {
            return Err(DomainError::conflict(
                "inventoryItem",
                "the item was changed by another request; read it again and retry",
            ))
        }
        ItemWrite::Refused(refusal) => return Err(refusal),
    }
    get_item(ports, organization, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{fixtures, InMemoryStore};

    fn new_item(sku: SkuId) -> NewItem {
        NewItem {
            sku_id: sku,
            serial_number: Some("C02ABC".into()),
            imei: vec![],
            deploy_status: DeployStatus::Available,
            deploy_reason: None,
            condition: Condition::New,
            assigned_to: None,
            tags: vec!["loaner".into(), "loaner".into()],
            renewal_date: None,
            description: None,
            procurement_method: None,
            supplied_by: SuppliedBy::Organization,
        }
    }

    #[test]
    fn create_checks_rules_and_references() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let now = Utc::now();
        let created = create_item(&store, f.org.id, new_item(f.sku.id), now).unwrap();
        assert_eq!(created.item.tags.len(), 1, "duplicate labels collapse");
        let mut bad = new_item(f.sku.id);
        bad.deploy_status = DeployStatus::Unavailable;
        assert!(
            matches!(create_item(&store, f.org.id, bad, now), Err(DomainError::Invalid { field, .. }) if field == "deployReason")
        );
        let mut bad = new_item(f.sku.id);
        bad.deploy_status = DeployStatus::Deployed;
        assert!(
            matches!(create_item(&store, f.org.id, bad, now), Err(DomainError::Invalid { field, .. }) if field == "assignedTo")
        );
        let mut bad = new_item(SkuId::new());
        bad.assigned_to = None;
        assert!(
            matches!(create_item(&store, f.org.id, bad, now), Err(DomainError::NotFound { entity, .. }) if entity == "skuId")
        );
        let mut bad = new_item(f.sku.id);
        bad.assigned_to = Some(Assignee::Warehouse(crate::ids::WarehouseId::new()));
        assert!(
            matches!(create_item(&store, f.org.id, bad, now), Err(DomainError::NotFound { entity, .. }) if entity == "assignedTo.id")
        );
    }

    #[test]
    fn a_change_that_changes_nothing_keeps_updated_at() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let created_at = Utc::now() - chrono::Duration::hours(1);
        let created = create_item(&store, f.org.id, new_item(f.sku.id), created_at).unwrap();
        let id = created.item.id;
        let later = Utc::now();
        let empty = update_item(&store, f.org.id, id, ItemChanges::default(), later).unwrap();
        assert_eq!(empty.item.updated_at, created.item.updated_at);
        let same = ItemChanges {
            condition: Some(created.item.condition),
            tags: Some(vec!["loaner".into()]),
            description: Some(None),
            ..ItemChanges::default()
        };
        let same = update_item(&store, f.org.id, id, same, later).unwrap();
        assert_eq!(same.item.updated_at, created.item.updated_at);
        let real = ItemChanges {
            description: Some(Some("dented lid".into())),
            ..ItemChanges::default()
        };
        let real = update_item(&store, f.org.id, id, real, later).unwrap();
        assert!(real.item.updated_at > created.item.updated_at);
    }

    #[test]
    fn status_moves_follow_the_rules() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let now = Utc::now();
        let id = create_item(&store, f.org.id, new_item(f.sku.id), now)
            .unwrap()
            .item
            .id;
        let to = |status, reason| ItemChanges {
            deploy_status: Some(status),
            deploy_reason: reason,
            ..ItemChanges::default()
        };
        assert!(matches!(
            update_item(&store, f.org.id, id, to(DeployStatus::Unavailable, None), now),
            Err(DomainError::Invalid { field, .. }) if field == "deployReason"
        ));
        let v = update_item(
            &store,
            f.org.id,
            id,
            to(
                DeployStatus::Unavailable,
                Some(Some(DeployReason::RequiresRepair)),
            ),
            now,
        )
        .unwrap();
        assert_eq!(v.item.deploy_reason, Some(DeployReason::RequiresRepair));
        let v = update_item(&store, f.org.id, id, to(DeployStatus::Available, None), now).unwrap();
        assert_eq!(v.item.deploy_reason, None, "AVAILABLE clears the reason");
        assert!(matches!(
            update_item(&store, f.org.id, id, to(DeployStatus::Deployed, None), now),
            Err(DomainError::Invalid { field, .. }) if field == "assignedTo"
        ));
        let v = update_item(
            &store,
            f.org.id,
            id,
            to(DeployStatus::Archived, Some(Some(DeployReason::Stolen))),
            now,
        )
        .unwrap();
        assert_eq!(v.item.deploy_status, DeployStatus::Archived);
        assert!(matches!(
            update_item(&store, f.org.id, id, to(DeployStatus::Available, None), now),
            Err(DomainError::Conflict { .. })
        ));
        let other = fixtures::seed(&store);
        assert!(matches!(
            update_item(&store, other.org.id, id, ItemChanges::default(), now),
            Err(DomainError::NotFound { .. })
        ));
    }
}
