//! The unit of work a lifecycle workflow runs over (docs/workflows.md): the
//! facts it needs, read under the store's locks, the writes the domain
//! decided and the events they record, all in the one transaction the store
//! opened for the write that started the workflow.
//!
//! Its methods are facts and writes, never steps: the sequence (which
//! backorders fill, which levels are restated, in which order) is the
//! domain's, in [`crate::workflows`]. The in-memory store implements it over
//! its state under its lock (`crate::testing`).

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::event::NewEvent;
use crate::ids::{
    InventoryItemId, InventoryLevelId, OrderId, OrderLineId, OrganizationId, PersonId, SkuId,
    WarehouseId,
};
use crate::inventory::InventoryItem;
use crate::orders::allocation::{StockMap, Tier};
use crate::orders::order::Order;

/// A (SKU, warehouse) place whose available stock a level watches.
pub type StockPair = (SkuId, WarehouseId);

/// What restating a level reads of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelFacts {
    /// The level.
    pub id: InventoryLevelId,
    /// The SKU it watches.
    pub sku_id: SkuId,
    /// The warehouse it watches.
    pub warehouse_id: WarehouseId,
    /// Its minimum quantity.
    pub minimum_quantity: i32,
    /// The stored crossing state (`belowMinimum`).
    pub below: bool,
}

/// One write transaction of one organization, as a workflow sees it.
pub trait UnitOfWork {
    /// The organization the transaction writes for.
    fn organization(&self) -> OrganizationId;

    /// The moment of the write (every row and event of the workflow carries
    /// it).
    fn at(&self) -> DateTime<Utc>;

    /// The organization's usable warehouses (owned, or shared and granted)
    /// with their countries, in id order, and its SKUs by category.
    ///
    /// # Errors
    /// Backend failures.
    fn stock_map(&mut self) -> StoreResult<StockMap>;

    /// The BACKORDERED lines of `category`, oldest first (creation time,
    /// then id), at most `limit`: (line, its order).
    ///
    /// # Errors
    /// Backend failures.
    fn backordered_lines(
        &mut self,
        category: &str,
        limit: usize,
    ) -> StoreResult<Vec<(OrderLineId, OrderId)>>;

    /// The order, locked; `None` when another writer holds it (it is left
    /// for the background sweep) or it does not exist.
    ///
    /// # Errors
    /// Backend failures.
    fn order_unless_held(&mut self, id: OrderId) -> StoreResult<Option<Order>>;

    /// The country a person's equipment goes to
    /// (`orders::allocation::destination_country` of their addresses).
    ///
    /// # Errors
    /// Backend failures.
    fn destination_country(&mut self, person: PersonId) -> StoreResult<Option<String>>;

    /// The oldest AVAILABLE item of the first tier that has one, locked
    /// without waiting (an item another writer holds is skipped); `None`
    /// when no tier has one.
    ///
    /// # Errors
    /// Backend failures.
    fn take_item(&mut self, tiers: &[Tier]) -> StoreResult<Option<InventoryItem>>;

    /// An item of the organization, locked.
    ///
    /// # Errors
    /// Backend failures.
    fn item(&mut self, id: InventoryItemId) -> StoreResult<Option<InventoryItem>>;

    /// Writes `after` over `before`, with its `inventory.item.updated`.
    ///
    /// # Errors
    /// Backend failures.
    fn write_item(&mut self, before: &InventoryItem, after: &InventoryItem) -> StoreResult<()>;

    /// Writes an order (`before`: `None` when new), with the events
    /// `orders::order::written` decides.
    ///
    /// # Errors
    /// Backend failures.
    fn write_order(&mut self, before: Option<&Order>, after: &Order) -> StoreResult<()>;

    /// The active levels watching `pairs`, locked in id order.
    ///
    /// # Errors
    /// Backend failures.
    fn lock_levels(&mut self, pairs: &BTreeSet<StockPair>) -> StoreResult<Vec<LevelFacts>>;

    /// The AVAILABLE items assigned to each warehouse of `pairs`, counted; a
    /// pair without any is absent.
    ///
    /// # Errors
    /// Backend failures.
    fn available_counts(&mut self, pairs: &[StockPair]) -> StoreResult<HashMap<StockPair, i64>>;

    /// Stores the crossing state of levels: `below` set, `clear` cleared.
    ///
    /// # Errors
    /// Backend failures.
    fn set_level_flags(
        &mut self,
        below: &[InventoryLevelId],
        clear: &[InventoryLevelId],
    ) -> StoreResult<()>;

    /// Records an event of the transaction (written with the transaction's
    /// sequences, in the order recorded).
    fn record(&mut self, event: NewEvent);
}
