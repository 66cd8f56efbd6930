//! Port: Inventory items.

use chrono::NaiveDate;

use crate::error::{DomainError, StoreResult};
use crate::ids::{InventoryItemId, OrganizationId};
use crate::inventory::InventoryItem;
use crate::inventory_query::{InventoryItemView, InventoryPage, InventoryQuery};
use crate::inventory_summary::StatusCount;

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

    /// How many of the organization's items each status and category holds
    /// (any order; zero counts may be included; the category code in any
    /// case, one entry per spelling or not), and how many items' holds
    /// end (`unlock_date`) from `unlocking.0` through `unlocking.1`.
    ///
    /// # Errors
    /// Backend failures.
    fn inventory_counts(
        &self,
        organization: OrganizationId,
        unlocking: (NaiveDate, NaiveDate),
    ) -> StoreResult<(Vec<StatusCount>, u64)>;

    /// Stores a new item (and its tags) and its listing row, in one transaction.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] for an existing id;
    /// [`crate::StoreError::MissingReference`] for a SKU not in the organization.
    fn insert_inventory_item(&self, item: &InventoryItem) -> StoreResult<()>;

    /// Replaces a stored item's fields, tags and listing row with `item` if
    /// its `updatedAt` is still the one of `current`, the item as the caller
    /// read it (optimistic concurrency), and the order that holds it, if any,
    /// allows the change (`crate::orders::held::check_item_change`, over the
    /// holder read in the write's transaction); records the change's event
    /// (the fields that differ from `current`).
    ///
    /// # Errors
    /// Backend failures.
    fn update_inventory_item(
        &self,
        current: &InventoryItem,
        item: &InventoryItem,
    ) -> StoreResult<ItemWrite>;
}

/// What [`InventoryRepository::update_inventory_item`] did.
#[derive(Debug)]
pub enum ItemWrite {
    /// Written.
    Written,
    /// Not written: the item changed since the caller read it.
    Stale,
    /// Not written: a rule refused it (an order holds the item).
    Refused(DomainError),
}

impl ItemWrite {
    /// Whether it was written.
    #[must_use]
    pub const fn written(&self) -> bool {
        matches!(self, Self::Written)
    }
}
