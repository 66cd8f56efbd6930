//! Ports: warehouses and offices.

use crate::error::StoreResult;
use crate::ids::{OfficeId, OrganizationId, WarehouseId};
use crate::location::{Office, Warehouse};

/// Warehouses.
pub trait WarehouseRepository: Send + Sync {
    /// Finds a warehouse the organization owns or was granted; `None` otherwise.
    ///
    /// # Errors
    /// Backend failures.
    fn find_accessible_warehouse(
        &self,
        organization: OrganizationId,
        id: WarehouseId,
    ) -> StoreResult<Option<Warehouse>>;
}

/// Offices.
pub trait OfficeRepository: Send + Sync {
    /// Finds an office of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_office(
        &self,
        organization: OrganizationId,
        id: OfficeId,
    ) -> StoreResult<Option<Office>>;
}
