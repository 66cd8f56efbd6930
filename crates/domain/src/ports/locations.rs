//! Port: Warehouses (and later offices).

use crate::error::StoreResult;
use crate::ids::{OrganizationId, WarehouseId};
use crate::location::Warehouse;

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
