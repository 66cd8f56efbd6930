//! The listing index: each organization's listing rows held in the process's
//! memory (`columns.rs`), with an order per sort key used (`order.rs`), so
//! that a page and its exact total are chosen without reading the wide rows
//! or visiting every match in the database (`select.rs`); the page's
//! pre-rendered JSON is then read by item id (`load.rs`).
//!
//! **Kept current by the listing version.** Every write that changes the
//! listing moves the organization's listing version in its transaction and
//! stamps the rows it writes (`listing_stamp`, `listing/refresh.rs`: on
//! SQLite the version it moves to, on PostgreSQL its transaction's id). Each
//! request reads the version first (one primary-key look-up; on PostgreSQL
//! with the oldest running transaction, `load::marks`); an index behind it
//! reads the rows stamped since the first stamp it could not yet know to be
//! final, under its write lock, before answering. So a write is in the next
//! listing on every instance (read-your-writes), and an idle index costs
//! nothing.
//!
//! **Built on first use.** An organization of up to [`INLINE_BUILD_MAX`]
//! items is read while its first request waits; a larger one is read on a
//! thread of its own (at `serve`'s start, or at its first listing, which the
//! SQL listing answers); requests that arrive meanwhile wait for it up to
//! [`WAIT_FOR_BUILD`], then the SQL listing answers them. An index further
//! behind than [`DELTA_MAX`] rows is built again the same way.
//!
//! **A build is not a request.** The background builds read their rows
//! without the request pool's `statement_timeout` (PostgreSQL): with a cold
//! cache one chunk of a million-item organization can take longer than a
//! request's statement may, and a build cancelled by it left the listing on
//! SQL until the next restart.
//!
//! `equip serve --no-listing-index` (the SQL listing for every request)
//! turns it off.

mod columns;
mod load;
mod order;
mod select;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use diesel::connection::Connection;
use equip_domain::inventory_query::{InventoryQuery, ListedItem, SortKey};
use equip_domain::service_stats::ListingIndexStats;

use crate::connection::DbConnection;
use crate::error::DbResult;

use columns::Columns;
use order::Order;
use select::{select, Compiled};

/// Largest organization whose index its first request waits for.
pub(crate) const INLINE_BUILD_MAX: i64 = 50_000;
/// Most rows an index catches up with while a request waits; further behind,
/// it is built again.
const DELTA_MAX: i64 = 50_000;

/// How long a listing request waits for its organization's index while it
/// is built on its own thread, before the SQL listing answers it: under load
/// a build finishes far sooner when the requests wait than when they all run
/// SQL meanwhile (after a restart under the benchmark's 32 connections on
/// PostgreSQL, the build had not finished after 10 s of SQL listings).
const WAIT_FOR_BUILD: Duration = Duration::from_secs(10);

/// One organization's index.
#[derive(Debug, Default)]
struct OrgIndex {
    columns: RwLock<Option<Columns>>,
    /// The orders built so far, by sort key.
    orders: Mutex<HashMap<SortKey, Arc<Order>>>,
    /// A build on its own thread is under way.
    building: AtomicBool,
    /// Signalled when a build on its own thread ends.
    built: (Mutex<()>, Condvar),
}

impl OrgIndex {
    /// Waits (at most `limit`) while a build on its own thread is under way.
    fn wait_for_build(&self, limit: Duration) {
        let started = Instant::now();
        let (lock, signal) = &self.built;
        let Ok(mut guard) = lock.lock() else {
            return;
        };
        while self.building.load(Ordering::Acquire) {
            let Some(left) = limit.checked_sub(started.elapsed()) else {
                return;
            };
            match signal.wait_timeout(guard, left) {
                Ok((g, _)) => guard = g,
                Err(_) => return,
            }
        }
    }

    /// A build on its own thread ended.
    fn build_ended(&self) {
        let (lock, signal) = &self.built;
        let _guard = lock.lock();
        self.building.store(false, Ordering::Release);
        signal.notify_all();
    }
}

/// The listing indexes of the process, by organization (see the module docs).
#[derive(Debug)]
pub(crate) struct ListingIndexes {
    enabled: bool,
    /// Largest organization built while its request waits.
    inline_max: i64,
    /// Rows read per statement while building.
    chunk: i64,
    orgs: Mutex<HashMap<String, Arc<OrgIndex>>>,
}

impl Default for ListingIndexes {
    fn default() -> Self {
        Self::new(true, INLINE_BUILD_MAX)
    }
}

/// What a request gets from the index.
pub(crate) enum Answer {
    /// The page's item ids and the total of matches.
    Page(Vec<u128>, u64),
    /// No index to answer from (off, or being built): the SQL listing answers.
    Unavailable,
    /// A large organization's index should be built on its own thread
    /// ([`ListingIndexes::build`]); the SQL listing answers meanwhile.
    BuildLater,
}

impl ListingIndexes {
    /// Indexes on or off; organizations of more than `inline_max` items
    /// built on a thread of their own.
    pub(crate) fn new(enabled: bool, inline_max: i64) -> Self {
        Self {
            enabled,
            inline_max,
            chunk: load::CHUNK,
            orgs: Mutex::default(),
        }
    }

    /// Reads `chunk` rows per statement while building (tests read
    /// several chunks from a small organization).
    #[cfg(feature = "test-support")]
    pub(crate) fn reading(mut self, chunk: i64) -> Self {
        self.chunk = chunk.max(1);
        self
    }

    /// Whether the organization's index is built.
    #[cfg(feature = "test-support")]
    pub(crate) fn is_built(&self, org: &str) -> bool {
        self.org(org)
            .is_some_and(|i| i.columns.read().is_ok_and(|c| c.is_some()))
    }

    fn org(&self, org: &str) -> Option<Arc<OrgIndex>> {
        let mut orgs = self.orgs.lock().ok()?;
        Some(orgs.entry(org.to_owned()).or_default().clone())
    }

    /// The page `q` of the organization, `email_people` being the people an
    /// assigned-email filter names.
    pub(crate) fn page(
        &self,
        c: &mut DbConnection,
        org: &str,
        q: &InventoryQuery,
        email_people: &[String],
    ) -> DbResult<Answer> {
        if !self.enabled {
            return Ok(Answer::Unavailable);
        }
        let Some(index) = self.org(org) else {
            return Ok(Answer::Unavailable);
        };
        if index.building.load(Ordering::Acquire) {
            index.wait_for_build(WAIT_FOR_BUILD);
        }
        let (version, from) = load::marks(c, org)?;
        // Twice at most: a concurrent catch-up may have gone past `version`.
        for _ in 0..2 {
            if let Ok(held) = index.columns.read() {
                if let Some(cols) = held.as_ref().filter(|c| c.version >= version) {
                    return Ok(answer(&index, cols, q, email_people));
                }
            }
            let Ok(mut held) = index.columns.write() else {
                return Ok(Answer::Unavailable);
            };
            match held.as_mut() {
                Some(cols) if cols.version >= version => continue,
                Some(cols) if load::changed_since(c, org, cols.from)? <= DELTA_MAX => {
                    let rows = load::rows_since(c, org, cols.from)?;
                    cols.apply(rows);
                    cols.version = version;
                    cols.from = from;
                    continue;
                }
                _ => {}
            }
            if load::items_of(c, org)? > self.inline_max {
                *held = None;
                return Ok(if index.building.swap(true, Ordering::AcqRel) {
                    Answer::Unavailable
                } else {
                    Answer::BuildLater
                });
            }
            *held = Some(read_all(c, org, (version, from), self.chunk)?);
        }
        Ok(Answer::Unavailable)
    }

    /// Builds the organization's index (on a thread of its own: see
    /// [`Answer::BuildLater`]).
    pub(crate) fn build(&self, c: &mut DbConnection, org: &str) -> DbResult<()> {
        let Some(index) = self.org(org) else {
            return Ok(());
        };
        let result = without_statement_limit(c, |c| {
            load::marks(c, org).and_then(|marks| read_all(c, org, marks, self.chunk))
        });
        let outcome = result.map(|built| {
            if let Ok(mut held) = index.columns.write() {
                if held.as_ref().is_none_or(|h| h.version < built.version) {
                    *held = Some(built);
                }
            }
        });
        index.build_ended();
        outcome
    }
}

impl ListingIndexes {
    /// What the indexes of the process hold now.
    pub(crate) fn stats(&self) -> ListingIndexStats {
        let mut stats = ListingIndexStats::default();
        let Ok(orgs) = self.orgs.lock() else {
            return stats;
        };
        for index in orgs.values() {
            if let Ok(held) = index.columns.read() {
                if let Some(cols) = held.as_ref() {
                    stats.organizations += 1;
                    stats.items += cols.len() as u64;
                    stats.bytes += cols.heap_bytes() as u64;
                }
            }
            if let Ok(orders) = index.orders.lock() {
                stats.orders += orders.len() as u64;
                stats.bytes += orders.values().map(|o| o.heap_bytes() as u64).sum::<u64>();
            }
        }
        stats
    }

    /// The organizations too large to be built while a request waits.
    pub(crate) fn large_organizations(&self, c: &mut DbConnection) -> DbResult<Vec<String>> {
        if !self.enabled {
            return Ok(Vec::new());
        }
        load::organizations_over(c, self.inline_max)
    }

    /// Builds the organization's index unless it is built or being built.
    pub(crate) fn warm(&self, c: &mut DbConnection, org: &str) -> DbResult<()> {
        let Some(index) = self.org(org) else {
            return Ok(());
        };
        let built = index.columns.read().is_ok_and(|c| c.is_some());
        if built || index.building.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.build(c, org)
    }
}

/// `read` run on PostgreSQL in a transaction of its own without the pool's
/// `statement_timeout` (SQLite has none); for the background builds, which
/// no caller waits on.
fn without_statement_limit<T>(
    c: &mut DbConnection,
    read: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    match c {
        DbConnection::Sqlite(_) => read(c),
        DbConnection::Postgres(_) => c.transaction(|c| {
            if let DbConnection::Postgres(pg) = c {
                crate::connection::without_statement_timeout(pg)?;
            }
            read(c)
        }),
    }
}

/// Every listing row of the organization, read after its marks were
/// `(version, from)` (so the rows hold at least that version, and every row
/// stamped before `from` is final).
fn read_all(
    c: &mut DbConnection,
    org: &str,
    (version, from): (i64, i64),
    chunk: i64,
) -> DbResult<Columns> {
    // Room for every row from the start: no vector is copied into twice
    // its size while the rows arrive (the copies freed would stay in the
    // allocator's memory).
    let items = usize::try_from(load::items_of(c, org)?).unwrap_or(0);
    let mut cols = Columns::with_capacity(items);
    load::all_rows(c, org, chunk, |rows| cols.apply(rows))?;
    cols.version = version;
    cols.from = from;
    Ok(cols)
}

/// The page's ids and total from an index that holds the request's version.
fn answer(index: &OrgIndex, cols: &Columns, q: &InventoryQuery, email_people: &[String]) -> Answer {
    let Some(order) = order_of(index, cols, q.sort()) else {
        return Answer::Unavailable;
    };
    let f = Compiled::new(cols, q.filter(), email_people);
    let (slots, total) = select(cols, &order, &f, q.direction(), q.offset(), q.size());
    Answer::Page(
        slots.iter().map(|s| cols.rows[*s as usize].id()).collect(),
        total,
    )
}

/// The order of `key` over `cols` (which the caller holds read-locked),
/// caught up or built if needed.
fn order_of(index: &OrgIndex, cols: &Columns, key: SortKey) -> Option<Arc<Order>> {
    let mut orders = index.orders.lock().ok()?;
    let previous = orders.get(&key);
    if let Some(order) = previous.filter(|o| o.is_current(cols)) {
        return Some(order.clone());
    }
    let order = Arc::new(Order::of(cols, key, previous.map(AsRef::as_ref)));
    orders.insert(key, order.clone());
    Some(order)
}

/// The rendered items of a page the index chose, in its order.
pub(crate) fn rendered(c: &mut DbConnection, org: &str, ids: &[u128]) -> DbResult<Vec<ListedItem>> {
    load::rendered(c, org, ids)
}
