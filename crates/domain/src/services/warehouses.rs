//! Reading warehouses.

use crate::error::DomainError;
use crate::ids::{OrganizationId, WarehouseId};
use crate::location::Warehouse;
use crate::ports::WarehouseRepository;

/// The warehouse `id` if the organization owns it or was granted access.
///
/// # Errors
/// [`DomainError::NotFound`] (`warehouse`) when it is unknown or not accessible.
pub fn get_warehouse(
    repo: &dyn WarehouseRepository,
    organization: OrganizationId,
    id: WarehouseId,
) -> Result<Warehouse, DomainError> {
    repo.find_accessible_warehouse(organization, id)?
        .ok_or_else(|| DomainError::not_found("warehouse", format!("warehouse {id} not found")))
}
