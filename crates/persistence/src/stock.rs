//! What every write that changes an item's availability runs before it
//! commits (docs/orders.md): the BACKORDERED order lines that the stock it
//! made AVAILABLE can fill are allocated, then the inventory levels whose
//! available quantity it changed are restated (`inventory_level.below_minimum`
//! on a crossing).
//!
//! A writer collects what it touched in a [`StockTouched`] and calls
//! [`after_write`] once, in its transaction, after its own rows.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::events::Recorder;

/// The stock a write changed: (SKU id, warehouse id) pairs whose count of
/// AVAILABLE items may differ, and whether some became AVAILABLE.
#[derive(Debug, Default, Clone)]
pub(crate) struct StockTouched {
    /// Pairs whose AVAILABLE count may have changed.
    pub(crate) pairs: BTreeSet<(String, String)>,
    /// SKUs of which an item became AVAILABLE (backorders of their
    /// categories may be filled).
    pub(crate) gained: BTreeSet<String>,
}

impl StockTouched {
    /// An item of `sku` in `warehouse` whose availability may have changed;
    /// `now_available`: it is AVAILABLE after the write.
    pub(crate) fn item(&mut self, sku: &str, warehouse: &str, now_available: bool) {
        self.pairs.insert((sku.to_owned(), warehouse.to_owned()));
        if now_available {
            self.gained.insert(sku.to_owned());
        }
    }

    /// Whether nothing was touched.
    pub(crate) fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.gained.is_empty()
    }
}

/// Fills what backorders the gained stock can, then restates the touched
/// levels. Runs inside the writer's transaction.
pub(crate) fn after_write(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    mut touched: StockTouched,
    at: DateTime<Utc>,
) -> DbResult<()> {
    if touched.is_empty() {
        return Ok(());
    }
    crate::orders::fill_backorders(c, events, org, &mut touched, at)?;
    crate::levels::restate(c, events, org, &touched.pairs, at)
}
