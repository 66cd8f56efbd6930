//! Port: Inventory items.

use crate::error::StoreResult;
use crate::ids::{InventoryItemId, OrganizationId};
use crate::inventory::InventoryItem;
use crate::inventory_query::{InventoryItemView, InventoryPage, InventoryQuery};

/// Inventory items.
pub trait InventoryRepository: Send + Sync {
    /// Finds an item of the organization with its tags and active return.
    ///
    /// # Errors
    /// Backend failures.
    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>>;

    /// One page of the organization's items for a validated query: filtered,
    /// ordered (ties broken by id) and counted by the store.
    ///
    /// # Errors
    /// Backend failures.
    fn list_inventory(
        &self,
        organization: OrganizationId,
        query: &InventoryQuery,
    ) -> StoreResult<InventoryPage>;

    /// The listed form of the given items of the organization, in the order of
    /// `ids`; unknown ids are skipped.
    ///
    /// # Errors
    /// Backend failures.
    fn find_inventory_views(
        &self,
        organization: OrganizationId,
        ids: &[InventoryItemId],
    ) -> StoreResult<Vec<InventoryItemView>>;
}
