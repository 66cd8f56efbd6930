//! The inventory listing over the `inventory_listing` read model.
//!
//! - `refresh.rs`: [`refresh`] rewrites the listing rows of some items from the
//!   source tables, their JSON (the API's serializer) included; every write
//!   path that changes what the listing shows calls it.
//! - [`page`] (here) serves one page: the filter (`filter.rs`) and order
//!   (`order.rs`) in SQL, one statement for the page (`page.rs`) whose rows
//!   carry their pre-rendered JSON (not decoded, only concatenated by the HTTP
//!   layer), and the count (`count.rs`: from the trigger-maintained
//!   `inventory_counts` when only statuses and categories filter, then in the
//!   page's statement). Deep pages in a time order start from remembered
//!   keyset positions (`anchors.rs`).
//! - `views.rs`: items decoded from the source tables (the listed view of an
//!   item, used to render its JSON and by the item look-ups).
//!
//! Statements are [`Sql`](crate::sql_builder::Sql) values, prepared once per
//! connection unless their shape is open-ended.

mod anchors;
mod count;
mod filter;
mod index;
mod order;
mod page;
mod rebuild;
mod refresh;
mod views;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};

use equip_domain::inventory_query::{AssigneeFilter, InventoryPage, InventoryQuery, SortKey};

use crate::connection::{Backend, DbConnection};
use crate::error::DbResult;
use crate::sql_builder::Sql;

pub(crate) use anchors::Anchors;
pub(crate) use index::{ListingIndexes, INLINE_BUILD_MAX};
pub use rebuild::ListingRebuilt;
pub(crate) use rebuild::{next_items, organization_exists, rebuild_items, remove_orphans};
pub(crate) use refresh::{refresh, Scope};
pub(crate) use views::views_by_id;

use anchors::{listing_version, Anchor, ANCHOR_MIN_OFFSET};
use page::{page_statement, PageSql, Start};

use crate::sql_builder::ID_CHUNK;

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = Text)]
    item_id: String,
}

/// A row of a page's statement.
#[derive(QueryableByName)]
struct JsonRow {
    #[diesel(sql_type = Text)]
    item_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    item_json: Option<String>,
    /// The page's time order key, when it is in a time order.
    #[diesel(sql_type = Nullable<Timestamp>)]
    k: Option<NaiveDateTime>,
    /// The count of all matches, when it came with the page.
    #[diesel(sql_type = Nullable<BigInt>)]
    total: Option<i64>,
}

/// One page of the listing, with the total of matches: from the
/// organization's listing index when it has one (`index/`), else by SQL.
/// `build_later` is called when the organization's index is to be built on a
/// thread of its own ([`ListingIndexes::build`]).
pub(crate) fn page(
    c: &mut DbConnection,
    (anchors, indexes): (&Anchors, &ListingIndexes),
    org: &str,
    q: &InventoryQuery,
    build_later: impl FnOnce(),
) -> DbResult<InventoryPage> {
    let backend = c.backend();
    let email_people = match &q.filter().person {
        Some(AssigneeFilter::Email(email)) => {
            let ids = filter::people_with_email(c, org, email)?;
            if ids.is_empty() {
                return Ok(InventoryPage::empty());
            }
            ids
        }
        _ => Vec::new(),
    };
    match indexes.page(c, org, q, &email_people)? {
        index::Answer::Page(ids, total_records) => {
            crate::error::still_wanted()?;
            let items = index::rendered(c, org, &ids)?;
            return Ok(InventoryPage {
                items,
                total_records,
            });
        }
        index::Answer::BuildLater => build_later(),
        index::Answer::Unavailable => {}
    }
    // A person's items are few: on SQLite, keep the planner on the assignee
    // index (its sampled statistics may not tell it so) by taking the order
    // columns out of index consideration with a unary `+`; the few rows sort.
    let selective = backend == Backend::Sqlite && q.filter().person.is_some();
    let order = order::order_by(backend, q.sort(), q.direction(), selective);
    let time_key = match q.sort() {
        SortKey::CreatedAt => Some("l.created_at"),
        SortKey::UpdatedAt => Some("l.updated_at"),
        _ => None,
    };
    let offset = q.offset();
    let mut filter = Sql::default();
    filter::push_filter(&mut filter, backend, q.filter(), &email_people);

    // Deep pages in a time order: start from a remembered position.
    let anchored = match time_key {
        Some(column) if offset >= ANCHOR_MIN_OFFSET => {
            let version = listing_version(c, org)?;
            let scope = (org.to_owned(), format!("{filter:?}{order}"));
            let best = anchors.best(&scope, offset, version);
            Some((scope, version, best, column))
        }
        _ => None,
    };
    let start = match &anchored {
        Some((_, _, best, column)) => Start::Deep {
            at: best.as_ref().map(|(at, anchor)| (*at, anchor)),
            column,
        },
        None => Start::Offset,
    };
    let (st, lead) = page_statement(
        q,
        &PageSql {
            backend,
            org,
            filter: &filter,
            order: &order,
            email_people: &email_people,
            start,
        },
    );
    let mut rows: Vec<JsonRow> = st.load(c)?;
    if let Some((scope, version, _, _)) = &anchored {
        if lead && !rows.is_empty() {
            let before = rows.remove(0);
            if let Some(key) = before.k {
                let item_id = before.item_id;
                let anchor = Anchor {
                    version: *version,
                    key,
                    item_id,
                };
                anchors.remember(scope, offset, anchor);
            }
        }
        // The next page starts after this one's last row.
        if rows.len() == q.size() as usize {
            if let Some(last) = rows.last() {
                if let Some(key) = last.k {
                    let next = offset + u64::from(q.size());
                    let item_id = last.item_id.clone();
                    let anchor = Anchor {
                        version: *version,
                        key,
                        item_id,
                    };
                    anchors.remember(scope, next, anchor);
                }
            }
        }
    }

    let total_records = if q.page().get() == 1 && rows.len() < q.size() as usize {
        rows.len() as u64
    } else if let Some(n) = rows.first().and_then(|r| r.total) {
        u64::try_from(n).unwrap_or(0)
    } else {
        crate::error::still_wanted()?;
        count::count(c, org, q.filter(), &email_people)?
    };
    crate::error::still_wanted()?;
    let items = views::listed_items(rows)?;
    Ok(InventoryPage {
        items,
        total_records,
    })
}
