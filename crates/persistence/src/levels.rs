//! Inventory levels' available stock (docs/orders.md, "Stock levels"):
//! restated after every write that changed it.

#![allow(dead_code)] // wired into the writers by the joiners work (issue 33) in progress

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::events::Recorder;

/// Restates the active levels of the (SKU, warehouse) `pairs`: a level
/// whose available quantity fell below its minimum writes
/// `inventory_level.below_minimum` once per crossing.
pub(crate) fn restate(
    _c: &mut DbConnection,
    _events: &mut Recorder,
    _org: &str,
    _pairs: &BTreeSet<(String, String)>,
    _at: DateTime<Utc>,
) -> DbResult<()> {
    Ok(())
}
