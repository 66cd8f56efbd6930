//! Port: Inventory levels.

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::ids::{InventoryLevelId, OrganizationId};
use crate::inventory_level::{InventoryLevel, StockedLevel};

/// Inventory levels.
pub trait InventoryLevelRepository: Send + Sync {
    /// Stores a new level with its crossing state set from the stock it
    /// watches, without an event (a level created below its minimum starts
    /// below: `inventory_level.below_minimum` is written only when a later
    /// write takes the stock below after it was at or above); returns it
    /// with that stock.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] when an active level exists for the same
    /// organization, SKU and warehouse (enforced by the store, also under
    /// concurrent inserts); backend failures.
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<StockedLevel>;

    /// Finds a level of the organization, active or not.
    ///
    /// # Errors
    /// Backend failures.
    fn find_inventory_level(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
    ) -> StoreResult<Option<InventoryLevel>>;

    /// Lists the organization's levels, newest first (ties by id), each with
    /// its available stock; only active ones unless `include_inactive`.
    ///
    /// # Errors
    /// Backend failures.
    fn list_inventory_levels(
        &self,
        organization: OrganizationId,
        include_inactive: bool,
    ) -> StoreResult<Vec<StockedLevel>>;

    /// Sets `deactivated_at` if the level is still active. Returns whether it
    /// changed the row (false: unknown, another organization's, or already
    /// deactivated — e.g. by a concurrent request).
    ///
    /// # Errors
    /// Backend failures.
    fn mark_inventory_level_deactivated(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
}
