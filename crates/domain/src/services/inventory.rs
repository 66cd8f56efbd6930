//! Listing inventory.

use crate::error::DomainError;
use crate::ids::OrganizationId;
use crate::inventory_query::{AssigneeFilter, InventoryPage, InventoryQuery, RawInventoryQuery};
use crate::ports::{InventoryRepository, OfficeRepository, PersonRepository, WarehouseRepository};

/// The ports listing needs.
pub trait InventoryPorts:
    InventoryRepository + PersonRepository + WarehouseRepository + OfficeRepository
{
}
impl<T: InventoryRepository + PersonRepository + WarehouseRepository + OfficeRepository>
    InventoryPorts for T
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
    if let Some(AssigneeFilter::Person(id)) = &query.filter.person {
        if ports.find_person(organization, *id)?.is_none() {
            return Err(DomainError::not_found(
                "personId",
                format!("person {id} not found"),
            ));
        }
    }
    if let Some(id) = query.filter.warehouse_id {
        if ports.find_accessible_warehouse(organization, id)?.is_none() {
            return Err(DomainError::not_found(
                "warehouseId",
                format!("warehouse {id} not found"),
            ));
        }
    }
    if let Some(id) = query.filter.office_id {
        if ports.find_office(organization, id)?.is_none() {
            return Err(DomainError::not_found(
                "officeId",
                format!("office {id} not found"),
            ));
        }
    }
    if query.filter.matches_nothing {
        return Ok((query, InventoryPage::empty()));
    }
    let page = ports.list_inventory(organization, &query)?;
    Ok((query, page))
}
