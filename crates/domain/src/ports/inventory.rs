//! Port: Inventory items.

use crate::error::StoreResult;
use crate::ids::{InventoryItemId, OrganizationId};
use crate::inventory::InventoryItem;

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
}
