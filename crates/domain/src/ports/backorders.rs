//! The sweep that fills backorders stock could fill but no write did
//! (docs/orders.md, "Backorders"): a write that makes stock AVAILABLE fills
//! what it can in its own transaction, but on PostgreSQL it skips an order
//! another writer holds at that moment. The background pass of `serve`
//! catches those.

use chrono::{DateTime, Utc};

use crate::error::StoreResult;

/// Fills waiting backorders across organizations.
pub trait BackorderRepository: Send + Sync {
    /// Allocates BACKORDERED lines for which AVAILABLE stock of their
    /// category exists, oldest line first, one organization and category
    /// per transaction; returns how many lines were allocated.
    ///
    /// # Errors
    /// Backend failures (the transactions before stay written).
    fn fill_waiting_backorders(&self, at: DateTime<Utc>) -> StoreResult<usize>;
}
