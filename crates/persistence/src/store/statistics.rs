//! Planner statistics: refreshed after bulk loads on a write session, and on
//! demand by the background statistics keeper (`Store::refresh_statistics`).

use std::sync::atomic::Ordering;

use diesel::prelude::*;

use equip_domain::error::StoreResult;

use super::{DbConnection, Store, SESSION_ANALYZE_FIRST};
use crate::error::DbError;

/// Key of the PostgreSQL advisory lock held while [`Store::refresh_statistics`]
/// analyzes, so that several instances do not analyze the same tables twice.
const STATISTICS_LOCK_KEY: i64 = 0x6571_7569_705f_7374; // "equip_st"

/// [`Store::refresh_statistics`] analyzes an analyzed table again once this
/// many rows plus a tenth of its rows changed (autovacuum's defaults).
pub const ANALYZE_MIN_CHANGES: i64 = 50;

impl Store {
    /// Counts a person inserted (after its commit) on `conn`. On a write
    /// session on PostgreSQL, refreshes the statistics of the people tables
    /// after [`SESSION_ANALYZE_FIRST`] inserts and each time the count
    /// doubles: a bulk load into an organization whose tables were small
    /// when the connection planned its foreign-key checks keeps using those
    /// plans (an index scan over the organization's whole prefix per check,
    /// quadratic over a 50,000-row CSV) until statistics change; autovacuum
    /// may be off or minutes away. `ANALYZE` invalidates the cached plans.
    pub(crate) fn note_people_inserted(&self, conn: &mut DbConnection) {
        let Some(pinned) = &self.pinned else { return };
        let n = pinned.people_written.fetch_add(1, Ordering::Relaxed) + 1;
        // 500, 1,000, 2,000, 4,000, …
        if n % SESSION_ANALYZE_FIRST != 0 || !(n / SESSION_ANALYZE_FIRST).is_power_of_two() {
            return;
        }
        if let DbConnection::Postgres(c) = conn {
            if let Err(e) = diesel::sql_query("ANALYZE people, person_emails").execute(c) {
                tracing::warn!("could not refresh the statistics of the people tables: {e}");
            }
        }
    }

    /// Keeps the query planner's statistics current, so that no plan depends
    /// on someone running `ANALYZE` by hand (autovacuum may be off, or
    /// minutes away after a load). Returns the tables it analyzed.
    ///
    /// PostgreSQL: `VACUUM (ANALYZE)`s the tables of the current schema that have
    /// changed since their last analysis and either were never analyzed or
    /// changed by at least [`ANALYZE_MIN_CHANGES`] rows plus a tenth of their
    /// rows (autovacuum's default thresholds), from
    /// `pg_stat_user_tables.n_mod_since_analyze`. Nothing changed: one
    /// catalog read. Several instances: one analyzes, the others skip
    /// (`pg_try_advisory_lock`). The VACUUM sets the visibility map that
    /// index-only scans need (without it a deep SCIM page reads the table rows
    /// too; docs/performance.md, "Planner statistics"). Without statistics PostgreSQL planned
    /// `GET /scim/v2/Users/{id}` as a `BitmapAnd` over every email of the
    /// organization (see docs/performance.md, "Planner statistics").
    ///
    /// SQLite: nothing. Without `sqlite_stat1` its planner takes an equality
    /// on a primary key or unique index as one row, which is what the SCIM
    /// lookups are (fast without statistics: docs/performance.md, "Planner
    /// statistics"); the inventory listing's statistics come from the import
    /// path's `PRAGMA optimize` and its migrations' `ANALYZE`.
    ///
    /// # Errors
    /// Backend failures (a caller running it in the background logs them).
    pub fn refresh_statistics(&self) -> StoreResult<Vec<String>> {
        #[derive(QueryableByName)]
        struct Stale {
            #[diesel(sql_type = diesel::sql_types::Text)]
            name: String,
        }
        self.read("statistics", |c| match c {
            DbConnection::Sqlite(_) => Ok(Vec::new()),
            DbConnection::Postgres(c) => {
                #[derive(QueryableByName)]
                struct Locked {
                    #[diesel(sql_type = diesel::sql_types::Bool)]
                    locked: bool,
                }
                // VACUUM cannot run in a transaction: a session lock instead
                // of a transaction's, released whatever happens below.
                let locked: Locked = diesel::sql_query("SELECT pg_try_advisory_lock($1) AS locked")
                    .bind::<diesel::sql_types::BigInt, _>(STATISTICS_LOCK_KEY)
                    .get_result(c)?;
                if !locked.locked {
                    return Ok(Vec::new());
                }
                let result = (|| {
                    let stale: Vec<Stale> = diesel::sql_query(
                        "SELECT quote_ident(relname) AS name FROM pg_stat_user_tables \
                         WHERE schemaname = current_schema() AND n_mod_since_analyze > 0 \
                         AND (COALESCE(last_analyze, last_autoanalyze) IS NULL \
                              OR n_mod_since_analyze >= $1 + n_live_tup / 10) \
                         ORDER BY relname",
                    )
                    .bind::<diesel::sql_types::BigInt, _>(ANALYZE_MIN_CHANGES)
                    .load(c)?;
                    let names: Vec<String> = stale.into_iter().map(|s| s.name).collect();
                    if !names.is_empty() {
                        // VACUUM too, as autovacuum would: it marks pages
                        // all-visible, so index-only scans (a SCIM page's
                        // ids, a listing page) skip the table.
                        diesel::sql_query(format!("VACUUM (ANALYZE) {}", names.join(", ")))
                            .execute(c)?;
                    }
                    Ok::<_, diesel::result::Error>(names)
                })();
                diesel::sql_query("SELECT pg_advisory_unlock($1)")
                    .bind::<diesel::sql_types::BigInt, _>(STATISTICS_LOCK_KEY)
                    .execute(c)?;
                result.map_err(DbError::from)
            }
        })
    }
}
