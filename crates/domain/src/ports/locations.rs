//! Ports: warehouses and offices.

use chrono::{DateTime, Utc};

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

    /// The warehouses the organization owns or was granted (exactly those
    /// [`Self::find_accessible_warehouse`] finds), ordered by name, then id
    /// (both in byte order), at most `limit` of them: the first in that order.
    ///
    /// # Errors
    /// Backend failures.
    fn list_accessible_warehouses(
        &self,
        organization: OrganizationId,
        limit: usize,
    ) -> StoreResult<Vec<Warehouse>>;
}

/// The operator's view of warehouses: any warehouse by id, and the grants
/// of shared ones (admin commands only; never reached from a request).
pub trait WarehouseGrants: Send + Sync {
    /// Finds a warehouse by id, whoever runs it.
    ///
    /// # Errors
    /// Backend failures.
    fn find_any_warehouse(&self, id: WarehouseId) -> StoreResult<Option<Warehouse>>;

    /// Grants `organization` access to the shared warehouse `id`; `false`
    /// when it already had it.
    ///
    /// # Errors
    /// Backend failures.
    fn grant_warehouse(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;

    /// Whether `organization` has inventory levels at warehouse `id` or items
    /// assigned to it.
    ///
    /// # Errors
    /// Backend failures.
    fn warehouse_in_use(&self, id: WarehouseId, organization: OrganizationId) -> StoreResult<bool>;

    /// Takes the grant back; `false` when there was none.
    ///
    /// # Errors
    /// Backend failures.
    fn revoke_warehouse_grant(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
    ) -> StoreResult<bool>;
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

    /// Every office of the organization, in any order.
    ///
    /// # Errors
    /// Backend failures.
    fn offices(&self, organization: OrganizationId) -> StoreResult<Vec<Office>>;
}
