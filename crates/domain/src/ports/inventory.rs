//! Port: Inventory items.

use chrono::{DateTime, Utc};

use crate::api_key::ApiKey;
use crate::error::StoreResult;
use crate::ids::{InventoryItemId, OrganizationId};
use crate::inventory::InventoryItem;
use crate::inventory_query::{InventoryItemView, InventoryPage, InventoryQuery, ListingStamp};

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

    /// The API key record of `prefix` and the [`ListingStamp`] of `query` in
    /// that key's organization, read together (one round trip where the store
    /// has a network hop): what an authenticated listing request reads before
    /// it may answer from a cache. While the stamp stays equal,
    /// [`Self::list_inventory`] returns the same page for `query` (the people,
    /// warehouses and offices that `personId`, `warehouseId` and `officeId`
    /// name are not covered: callers check them separately). The caller
    /// verifies the key before it uses the stamp. `None` when no key has this
    /// prefix; a `None` stamp when this store keeps no listing version.
    ///
    /// # Errors
    /// Backend failures.
    fn find_api_key_with_listing_stamp(
        &self,
        prefix: &str,
        query: &InventoryQuery,
    ) -> StoreResult<Option<(ApiKey, Option<ListingStamp>)>>;

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

    /// Stores a new item (and its tags) and its listing row, in one transaction.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] for an existing id;
    /// [`crate::StoreError::MissingReference`] for a SKU not in the organization.
    fn insert_inventory_item(&self, item: &InventoryItem) -> StoreResult<()>;

    /// Replaces a stored item's fields, tags and listing row if its `updatedAt`
    /// is still `expected_updated_at` (optimistic concurrency). Returns whether it
    /// was written.
    ///
    /// # Errors
    /// Backend failures.
    fn update_inventory_item(
        &self,
        item: &InventoryItem,
        expected_updated_at: DateTime<Utc>,
    ) -> StoreResult<bool>;
}
