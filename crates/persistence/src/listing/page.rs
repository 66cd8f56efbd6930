//! The statement of one listing page: the page's keys are cut over the
//! listing (an index-only walk where an index serves the order), then joined
//! back to their rows for the pre-rendered JSON; the count comes with the page
//! when the maintained counts answer it.
//!
//! Pure: [`page_statement`] only writes SQL, so each backend's text is tested
//! without a database; `listing/mod.rs` runs it.

use equip_domain::inventory_query::{InventoryQuery, SortDirection};

use crate::connection::Backend;
use crate::sql_builder::Sql;

use super::anchors::Anchor;
use super::count::count_statement;

/// Whether and where a deep page in a time order starts from a remembered
/// position.
#[derive(Debug, Clone, Copy)]
pub(super) enum Start<'a> {
    /// Not a deep page in a time order: skip `OFFSET` rows; nothing to remember.
    Offset,
    /// A deep page in a time order: the order key comes back with each row
    /// (to remember positions), and the row before the page is fetched too,
    /// from `at` (a remembered position at or before the page) or from the start.
    Deep {
        at: Option<(u64, &'a Anchor)>,
        /// The order's time column (`l.created_at` or `l.updated_at`).
        column: &'static str,
    },
}

/// What [`page_statement`] needs besides the query.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageSql<'a> {
    pub(super) backend: Backend,
    pub(super) org: &'a str,
    /// The filter's conditions (`listing/filter.rs`).
    pub(super) filter: &'a Sql,
    /// The `ORDER BY` (`listing/order.rs`).
    pub(super) order: &'a str,
    /// The people of an assigned-email filter.
    pub(super) email_people: &'a [String],
    pub(super) start: Start<'a>,
}

/// The page's statement (rows `item_id`, `item_json`, `k`, `total`), and
/// whether its first row is the row before the page (`lead`: its key is this
/// page's position, to remember).
pub(super) fn page_statement(q: &InventoryQuery, p: &PageSql<'_>) -> (Sql, bool) {
    let offset = q.offset();
    // The order key is decoded only where positions are remembered.
    let key = match (p.start, p.backend) {
        (Start::Deep { column, .. }, _) => column,
        (Start::Offset, Backend::Sqlite) => "NULL",
        (Start::Offset, Backend::Postgres) => "CAST(NULL AS TIMESTAMP)",
    };
    // The page's rows are found again by their physical address: SQLite's
    // rowid (in every index), PostgreSQL's ctid (a TID scan, no index
    // search). Reading the ctid costs the inner walk its index-only scan:
    // every skipped row is read from the table too (a deep page reads each
    // skipped row's heap page; docs/performance.md, "Inventory listing", "How
    // the listing is built", item 10).
    // So a PostgreSQL page that skips rows joins by item_id (100 primary-key
    // look-ups), unless it starts at a remembered position.
    let id = match (p.backend, p.start) {
        (Backend::Sqlite, _) => "row_id",
        (Backend::Postgres, Start::Deep { at: Some(_), .. }) => "ctid",
        (Backend::Postgres, _) if offset == 0 => "ctid",
        (Backend::Postgres, _) => "item_id",
    };
    let mut st = Sql::default();
    // A count from the maintained counts (a few rows) comes with the page, in
    // the same statement: one round trip fewer. Other counts run after, only
    // when needed.
    st.push_sql("SELECT l.item_id, l.item_json, p.k, ");
    if q.filter().is_countable_by_status_and_category() {
        let count = count_statement(p.backend, p.org, q.filter(), p.email_people);
        st.push_sql("(").push_sql_of(&count).push_sql(")");
    } else {
        st.push_sql("CAST(NULL AS BIGINT)");
    }
    st.push_sql(&format!(
        " AS total FROM inventory_listing l JOIN (SELECT l.{id}, \
         {key} AS k FROM inventory_listing l WHERE l.organization_id = "
    ))
    .push_bind(p.org)
    .push_sql_of(p.filter);
    // Rows to skip, and whether the row before the page is fetched too (its
    // key is the position of this page, remembered for the next request).
    let (skip, lead) = match p.start {
        Start::Deep {
            at: Some((at, anchor)),
            column,
        } => {
            let cmp = if q.direction() == SortDirection::Asc {
                ">"
            } else {
                "<"
            };
            let id = match p.backend {
                Backend::Sqlite => "l.item_id",
                Backend::Postgres => "l.item_id COLLATE \"C\"",
            };
            st.push_sql(&format!(" AND ({column}, {id}) {cmp} ("))
                .push_bind(anchor.key)
                .push_sql(", ")
                .push_bind(anchor.item_id.as_str())
                .push_sql(")");
            let rest = offset - at;
            if rest == 0 {
                (0, false)
            } else {
                (rest - 1, true)
            }
        }
        Start::Deep { at: None, .. } => (offset - 1, true),
        Start::Offset => (offset, false),
    };
    st.push_sql(p.order)
        .push_sql(" LIMIT ")
        .push_bind(i64::from(q.size()) + i64::from(lead))
        .push_sql(" OFFSET ")
        .push_bind(i64::try_from(skip).unwrap_or(i64::MAX));
    // The outer order is the inner one over the same rows (a sort of one page).
    st.push_sql(&format!(") p ON l.{id} = p.{id}"))
        .push_sql(p.order);
    (st, lead)
}

#[cfg(test)]
mod tests;
