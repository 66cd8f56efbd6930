//! Re-reading an organization's listing from its items (`equip index
//! rebuild --org`, docs/operations.md, "The listing follows equip's
//! writes"): for rows changed in the database behind equip's back, which
//! the listing (the `inventory_listing` read model and every instance's
//! index of it) follows only at the item's next write through equip.
//!
//! Each batch of items is one write transaction through [`refresh`], the
//! refresh every write path runs: the rows are rendered again from the
//! source tables, stamped, and the organization's listing version moves, so
//! every running instance's index reads them before its next listing answer
//! (as it reads any other write's). Listing rows whose item no longer exists
//! are deleted.

use diesel::prelude::*;

use crate::connection::{write_transaction, DbConnection};
use crate::error::DbResult;
use crate::schema::{inventory_items, organizations};
use crate::sql_builder::Sql;

use super::refresh::{bump_version, refresh, Scope};

/// Items re-rendered per transaction: the writer (SQLite's database lock,
/// PostgreSQL's rows) is let go between batches, so other writes of the
/// organization and of other organizations go on during a long rebuild.
pub(crate) const REBUILD_BATCH: usize = 2_000;

/// What a rebuild did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListingRebuilt {
    /// Items whose listing rows were rendered again.
    pub items: u64,
    /// Listing rows deleted because their item no longer exists.
    pub removed: u64,
}

/// Whether the organization exists.
pub(crate) fn organization_exists(c: &mut DbConnection, org: &str) -> DbResult<bool> {
    Ok(organizations::table
        .find(org)
        .select(organizations::id)
        .first::<String>(c)
        .optional()?
        .is_some())
}

/// The organization's item ids after `after` (in id order), at most
/// [`REBUILD_BATCH`].
pub(crate) fn next_items(
    c: &mut DbConnection,
    org: &str,
    after: Option<&str>,
) -> DbResult<Vec<String>> {
    #[allow(clippy::cast_possible_wrap)]
    let limit = REBUILD_BATCH as i64;
    // Ids are UUID texts: every one sorts after "".
    Ok(inventory_items::table
        .filter(inventory_items::organization_id.eq(org))
        .filter(inventory_items::id.gt(after.unwrap_or("")))
        .select(inventory_items::id)
        .order(inventory_items::id)
        .limit(limit)
        .load::<String>(c)?)
}

/// Renders the listing rows of `ids` again in one write transaction.
pub(crate) fn rebuild_items(c: &mut DbConnection, org: &str, ids: &[String]) -> DbResult<()> {
    write_transaction(c, |c| refresh(c, org, Scope::Items(ids)))
}

/// Deletes the organization's listing rows whose item is gone; how many.
pub(crate) fn remove_orphans(c: &mut DbConnection, org: &str) -> DbResult<u64> {
    write_transaction(c, |c| {
        let mut delete = Sql::default();
        delete
            .push_sql("DELETE FROM inventory_listing WHERE organization_id = ")
            .push_bind(org)
            .push_sql(
                " AND NOT EXISTS (SELECT 1 FROM inventory_items i \
                 WHERE i.organization_id = inventory_listing.organization_id \
                 AND i.id = inventory_listing.item_id)",
            );
        let n = delete.execute(c)?;
        if n > 0 {
            // Deep-page positions of the old listing no longer hold.
            bump_version(c, org)?;
        }
        Ok(n as u64)
    })
}
