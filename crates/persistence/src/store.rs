//! [`Store`]: the r2d2 pool (migrations: `store/migrate.rs`). The repository traits are
//! implemented in `crate::repositories`, one module per port.

mod migrate;
pub use migrate::EQUIP_VERSION;
mod statistics;
mod writer;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use diesel::prelude::*;
use diesel::r2d2::{Pool, PooledConnection, R2D2Connection};

use equip_domain::error::StoreResult;

use crate::change_feed::Memo;
use crate::connection::{
    write_transaction, Backend, ConnectFailures, DbConnection, FailureHandler, Losses, Manager,
    SqlitePragmas, Target,
};
use crate::error::{DbError, DbResult, PersistenceError};

/// Most connections a SQLite pool opens: SQLite has one writer at a time, and a
/// few WAL readers are plenty.
pub const SQLITE_MAX_POOL_SIZE: u32 = 8;

/// Pool settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most connections the pool opens (at most [`SQLITE_MAX_POOL_SIZE`] for
    /// SQLite whatever is asked).
    pub max_size: u32,
    /// How long a caller waits for a free connection before getting
    /// [`equip_domain::StoreError::Unavailable`].
    pub connection_timeout: Duration,
    /// Idle connections the pool keeps open in the background. A one-shot
    /// command wants 0: r2d2 opens replacement connections on its worker
    /// threads, and a process that exits while one of them is in the middle
    /// of a PostgreSQL (TLS) handshake can crash in libc at exit.
    pub min_idle: u32,
    /// PostgreSQL: the longest one statement of a pooled connection may run
    /// (`statement_timeout`; `None`: no limit). A statement past it is
    /// cancelled and its call fails with
    /// [`equip_domain::StoreError::Unavailable`]. Migrations are not limited.
    /// SQLite: ignored.
    pub statement_timeout: Option<Duration>,
    /// SQLite: the file's mapping and each connection's page cache.
    /// PostgreSQL: ignored.
    pub sqlite_memory: crate::connection::SqliteMemory,
}

impl Default for PoolOptions {
    /// 16 connections (SQLite: 8), 5 s timeout, one kept idle, no statement
    /// time limit.
    fn default() -> Self {
        Self {
            max_size: 16,
            connection_timeout: Duration::from_secs(5),
            min_idle: 1,
            statement_timeout: None,
            sqlite_memory: crate::connection::SqliteMemory::default(),
        }
    }
}

/// The persistent store: a pool of connections to SQLite or PostgreSQL.
/// Cheap to clone (the pool is shared). Implements every repository trait of
/// [`equip_domain::ports`]; all methods block, so async callers run them on a
/// blocking pool.
#[derive(Clone)]
pub struct Store {
    pool: Pool<Manager>,
    backend: Backend,
    /// The URL of a PostgreSQL store (for the change listener's connection).
    postgres_url: Option<String>,
    /// The file of a SQLite store (not `:memory:`): the readiness probe
    /// writes next to it to see whether its disk has room.
    sqlite_file: Option<Arc<std::path::Path>>,
    /// Set on a write session ([`Store::session`]): the one connection every
    /// call of this value uses.
    pinned: Option<Arc<Pinned>>,
    /// Keyset positions of deep listing pages (see `listing::Anchors`).
    pub(crate) anchors: Arc<crate::listing::Anchors>,
    /// Organizations' listings in memory (see `listing::ListingIndexes`).
    pub(crate) listing_index: Arc<crate::listing::ListingIndexes>,
    /// API keys kept valid by PostgreSQL notifications,
    /// once [`Store::watch_changes`] started the listener (`crate::change_feed`).
    pub(crate) memo: Arc<Memo>,
    /// A write failed because the database could not be written (read-only,
    /// disk full) and no write probe has succeeded since
    /// ([`equip_domain::ports::HealthCheck::check_writable`]).
    unwritable: Arc<AtomicBool>,
    /// When a connection was last found lost (shared with the pool's manager).
    losses: Arc<Losses>,
    /// What checkouts from the pool waited (for the metrics).
    checkouts: Arc<Checkouts>,
    /// Who this value's writes are attributed to in their events
    /// ([`equip_domain::ports::Acting`]); `SYSTEM` unless set.
    pub(crate) actor: equip_domain::event::Actor,
    /// SQLite: the writer queue and the creates' checkpoint count of this
    /// database (shared by every store of the process on its file).
    writer: Arc<writer::SqliteWriter>,
}

/// The connection of a write session. Its commits are as durable as every
/// other connection's when they return (PostgreSQL's `synchronous_commit`
/// stays on): nothing a session wrote is visible to others, or reported to a
/// client, before a crash of the database server could take it back.
struct Pinned {
    conn: Mutex<Conn>,
    /// People inserted through the session.
    people_written: AtomicU64,
}

/// A session refreshes the planner's statistics of the people tables after
/// this many inserted people, and again each time that count doubles.
const SESSION_ANALYZE_FIRST: u64 = 500;

/// A connection of the pool, or the session's pinned one. What the store
/// remembers (API keys, `crate::change_feed`) is emptied by key writes
/// themselves ([`Store::keys_changed`]), not by returning a connection.
pub(crate) struct ConnGuard<'a> {
    held: Held<'a>,
}

// A guard lives on the stack for one call; boxing the pooled connection would
// cost an allocation per call.
#[allow(clippy::large_enum_variant)]
enum Held<'a> {
    Pooled(Conn),
    Pinned(MutexGuard<'a, Conn>),
}

impl std::ops::Deref for ConnGuard<'_> {
    type Target = DbConnection;
    fn deref(&self) -> &DbConnection {
        match &self.held {
            Held::Pooled(c) => c,
            Held::Pinned(c) => c,
        }
    }
}

impl ConnGuard<'_> {
    /// Marks the connection as lost: the pool drops it when it comes back.
    fn mark_suspect(&mut self) {
        match &mut self.held {
            Held::Pooled(c) => c.suspect = true,
            Held::Pinned(c) => c.suspect = true,
        }
    }
}

impl std::ops::DerefMut for ConnGuard<'_> {
    fn deref_mut(&mut self) -> &mut DbConnection {
        match &mut self.held {
            Held::Pooled(c) => c,
            Held::Pinned(c) => c,
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.pool.state();
        f.debug_struct("Store")
            .field("backend", &self.backend)
            .field("connections", &state.connections)
            .field("idle_connections", &state.idle_connections)
            .finish()
    }
}

type Conn = PooledConnection<Manager>;

/// A checkout slower than this had to wait (an idle connection is handed out
/// in microseconds).
const CHECKOUT_WAITED: Duration = Duration::from_millis(1);

/// Counts of the pool's checkouts, shared by a store's clones and sessions.
#[derive(Default)]
struct Checkouts {
    /// Checkouts that took longer than [`CHECKOUT_WAITED`].
    waits: AtomicU64,
    /// Nanoseconds spent in all checkouts.
    wait_nanos: AtomicU64,
    /// Checkouts that failed (no connection within the timeout).
    timeouts: AtomicU64,
}

impl Store {
    /// Opens a pool for `database_url` (`postgres://…` / `postgresql://…`, or a
    /// SQLite `sqlite://path`, `sqlite:path` or plain path; a missing SQLite file
    /// is created, in a directory that must exist). Waits for one working
    /// connection. Does not migrate: call [`Store::run_migrations`].
    ///
    /// # Errors
    /// [`PersistenceError::InvalidUrl`] (also for a mistyped scheme such as
    /// `postgres//host/db`, and for a PostgreSQL user name or password that is
    /// not percent-encoded), [`PersistenceError::MissingDirectory`],
    /// or [`PersistenceError::Connect`] when no connection could be opened
    /// within `options.connection_timeout`.
    pub fn connect(database_url: &str, options: PoolOptions) -> Result<Store, PersistenceError> {
        let target = Target::parse(database_url)?;
        target.check_directory()?;
        let backend = target.backend();
        let postgres_url = match &target {
            Target::Postgres(url) => Some(url.clone()),
            Target::Sqlite(_) => None,
        };
        let sqlite_file: Option<Arc<std::path::Path>> = target.sqlite_file().map(Arc::from);
        let max_size = match backend {
            Backend::Sqlite => options.max_size.min(SQLITE_MAX_POOL_SIZE),
            Backend::Postgres => options.max_size,
        }
        .max(1);
        let losses = Arc::new(Losses::default());
        let failures = Arc::new(ConnectFailures::default());
        let pool = Pool::builder()
            .max_size(max_size)
            .min_idle(Some(options.min_idle))
            .connection_timeout(options.connection_timeout)
            .connection_customizer(Box::new(SqlitePragmas {
                failures: Arc::clone(&failures),
                statement_timeout: options.statement_timeout,
                sqlite_memory: options.sqlite_memory.pragmas(),
            }))
            .error_handler(Box::new(FailureHandler(failures)))
            .build(Manager::new(target, Arc::clone(&losses)))
            .map_err(|e| PersistenceError::Connect(e.to_string()))?;
        let writer = writer::SqliteWriter::of(sqlite_file.as_deref());
        Ok(Store {
            pool,
            backend,
            postgres_url,
            sqlite_file,
            writer,
            pinned: None,
            anchors: Arc::default(),
            listing_index: Arc::default(),
            memo: Arc::default(),
            unwritable: Arc::default(),
            losses,
            checkouts: Arc::default(),
            actor: equip_domain::event::Actor::System,
        })
    }

    /// SQLite: waits for this database's other writers of the process (the
    /// people and group writes take it before their write transaction; see
    /// `writer.rs`). PostgreSQL: nothing.
    pub(crate) fn sqlite_writer(&self, c: &DbConnection) -> Option<MutexGuard<'_, ()>> {
        match c {
            DbConnection::Sqlite(_) => Some(self.writer.lock()),
            DbConnection::Postgres(_) => None,
        }
    }

    /// SQLite: between two transactions of a long run of writes, lets this
    /// process's queued writers go first (`writer.rs`). PostgreSQL: nothing.
    pub(crate) fn let_other_writers_in(&self) {
        if self.backend() == Backend::Sqlite {
            self.writer.let_others_in();
        }
    }

    /// Counts `n` people created on this database; whether a WAL checkpoint
    /// is due (every `every` creates).
    pub(crate) fn checkpoint_due(&self, n: u64, every: u64) -> bool {
        self.writer.people_created(n, every)
    }

    /// Holds this database's writer queue until the guard is dropped, as a
    /// people or group write does (tests: whether two stores share it).
    #[cfg(feature = "test-support")]
    pub fn hold_sqlite_writer(&self) -> MutexGuard<'_, ()> {
        self.writer.lock()
    }

    /// Which database this store talks to.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool (for the test helpers).
    #[cfg(feature = "test-support")]
    pub(crate) fn pool(&self) -> &Pool<Manager> {
        &self.pool
    }

    /// A connection for anything, writes included.
    pub(crate) fn conn(&self) -> DbResult<ConnGuard<'_>> {
        self.checkout()
    }

    fn checkout(&self) -> DbResult<ConnGuard<'_>> {
        let held = match &self.pinned {
            Some(p) => {
                let mut conn = p.conn.lock().unwrap_or_else(PoisonError::into_inner);
                if conn.suspect || R2D2Connection::is_broken(&mut ***conn) {
                    // The session's connection was lost (or Diesel gave up on
                    // its transaction state): go on with a fresh one. The old
                    // one goes back to the pool, which drops it
                    // (`Manager::has_broken`).
                    *conn = self.fresh_session_connection()?;
                    tracing::warn!(
                        "write session: the database connection was lost; using a new one"
                    );
                }
                Held::Pinned(conn)
            }
            None => Held::Pooled(self.pool_get()?),
        };
        Ok(ConnGuard { held })
    }

    /// A connection from the pool, the wait counted.
    fn pool_get(&self) -> DbResult<Conn> {
        let started = std::time::Instant::now();
        let got = self.pool.get();
        let waited = started.elapsed();
        // The web layer's admission counts it as part of the call's wait.
        equip_domain::waits::note(waited);
        let counts = &self.checkouts;
        counts.wait_nanos.fetch_add(
            u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        if waited > CHECKOUT_WAITED {
            counts.waits.fetch_add(1, Ordering::Relaxed);
        }
        got.map_err(|e| {
            counts.timeouts.fetch_add(1, Ordering::Relaxed);
            DbError::Pool(e.to_string())
        })
    }

    /// The request pool's state and what its checkouts waited (for the
    /// metrics; no database access).
    #[must_use]
    pub fn pool_stats(&self) -> equip_domain::service_stats::PoolStats {
        let state = self.pool.state();
        let counts = &self.checkouts;
        equip_domain::service_stats::PoolStats {
            max: self.pool.max_size(),
            in_use: state.connections.saturating_sub(state.idle_connections),
            idle: state.idle_connections,
            waits: counts.waits.load(Ordering::Relaxed),
            #[allow(clippy::cast_precision_loss)]
            wait_seconds: counts.wait_nanos.load(Ordering::Relaxed) as f64 / 1e9,
            timeouts: counts.timeouts.load(Ordering::Relaxed),
        }
    }

    /// What the listing indexes hold (for the metrics).
    #[must_use]
    pub fn listing_index_stats(&self) -> equip_domain::service_stats::ListingIndexStats {
        self.listing_index.stats()
    }

    /// Hits and misses of the API-key memory (for the metrics).
    #[must_use]
    pub fn api_key_cache_stats(&self) -> equip_domain::service_stats::CacheStats {
        equip_domain::service_stats::CacheStats {
            hits: self.memo.hits(),
            misses: self.memo.misses(),
        }
    }

    /// A pooled connection for a write session, checked with one statement:
    /// a lost connection may still sit idle in the pool, and a session would
    /// otherwise find it lost at its first write.
    fn fresh_session_connection(&self) -> DbResult<Conn> {
        let mut attempts = 2;
        loop {
            let mut conn = self.pool_get()?;
            let DbConnection::Postgres(c) = &mut **conn else {
                return Ok(conn);
            };
            match diesel::sql_query("SELECT 1").execute(c) {
                Ok(_) => return Ok(conn),
                Err(e) if crate::connection::connection_lost(&e) && attempts > 0 => {
                    conn.suspect = true;
                    self.losses.note();
                    attempts -= 1;
                }
                Err(e) => {
                    conn.suspect = crate::connection::connection_lost(&e);
                    return Err(DbError::Diesel(e));
                }
            }
        }
    }

    /// A write session: this store bound to one pooled connection until the
    /// returned value (and its clones) are dropped, for a request that makes
    /// many writes (SCIM Bulk, a CSV upload). Each write still commits on its
    /// own, durably (people created together share one commit:
    /// `PersonRepository::insert_people`). A session of a session is itself.
    ///
    /// # Errors
    /// No connection within the pool's timeout.
    pub fn session(&self) -> Result<Store, PersistenceError> {
        if self.pinned.is_some() {
            return Ok(self.clone());
        }
        let conn = self.fresh_session_connection().map_err(|e| match e {
            DbError::Pool(m) => PersistenceError::Unavailable(m),
            DbError::Diesel(e) => PersistenceError::Unavailable(e.to_string()),
            other => PersistenceError::Unavailable(format!("{other:?}")),
        })?;
        Ok(Store {
            pool: self.pool.clone(),
            backend: self.backend,
            postgres_url: self.postgres_url.clone(),
            sqlite_file: self.sqlite_file.clone(),
            pinned: Some(Arc::new(Pinned {
                conn: Mutex::new(conn),
                people_written: AtomicU64::new(0),
            })),
            anchors: self.anchors.clone(),
            listing_index: self.listing_index.clone(),
            memo: self.memo.clone(),
            unwritable: self.unwritable.clone(),
            losses: self.losses.clone(),
            checkouts: self.checkouts.clone(),
            actor: self.actor.clone(),
            writer: self.writer.clone(),
        })
    }

    /// On PostgreSQL: starts listening for the database's change
    /// notifications on a connection of its own, so that API keys are
    /// answered from memory while they are known to be current
    /// (`crate::change_feed`). For a long-running server; a one-shot command
    /// has no use for it. Does nothing on SQLite (its reads are in-process) or
    /// when already listening.
    ///
    /// # Errors
    /// The listener thread could not be started.
    pub fn watch_changes(&self) -> Result<(), PersistenceError> {
        let Some(url) = &self.postgres_url else {
            return Ok(());
        };
        if self.memo.watch() {
            crate::change_feed::spawn_listener(url.clone(), &self.memo)
                .map_err(|e| PersistenceError::Connect(e.to_string()))?;
        }
        Ok(())
    }

    /// Whether the change listener is connected and current (tests).
    #[cfg(feature = "test-support")]
    #[must_use]
    pub fn watching_changes(&self) -> bool {
        self.memo.is_live()
    }

    /// Answers given from memory so far (tests).
    #[cfg(feature = "test-support")]
    #[must_use]
    pub fn memo_hits(&self) -> u64 {
        self.memo.hits()
    }

    /// Runs `f` with a pooled connection, mapping errors for `entity`. `f` may
    /// write (a write to `api_keys` calls [`Self::keys_changed`] after).
    pub(crate) fn with<T>(
        &self,
        entity: &'static str,
        duplicate: &str,
        f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
    ) -> StoreResult<T> {
        Self::run(
            (&self.unwritable, &self.losses),
            self.checkout(),
            entity,
            duplicate,
            f,
        )
    }

    /// After a write to `api_keys` through this store has returned (committed
    /// or rolled back): the keys it remembers are forgotten, so this process
    /// sees the change at once (other processes through the change
    /// notifications).
    pub(crate) fn keys_changed(&self) {
        if self.memo.watching() {
            self.memo.clear();
        }
    }

    /// [`Self::with`] for `f` that only reads: it does not start when its
    /// caller has gone (`equip_domain::interrupt`).
    pub(crate) fn read<T>(
        &self,
        entity: &'static str,
        f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
    ) -> StoreResult<T> {
        // A read that waited for a connection does not start when its caller
        // has gone meanwhile.
        let conn = self
            .checkout()
            .and_then(|conn| crate::error::still_wanted().map(|()| conn));
        Self::run((&self.unwritable, &self.losses), conn, entity, "", f)
    }

    /// Whether a write failed for a read-only or full database since the
    /// last successful write probe.
    pub(crate) fn write_refused(&self) -> bool {
        self.unwritable.load(Ordering::Relaxed)
    }

    /// This store with its listing index on (the default) or off (every
    /// listing page by SQL); see docs/performance.md, "Inventory listing".
    #[must_use]
    pub fn with_listing_index(mut self, enabled: bool) -> Store {
        self.listing_index = Arc::new(crate::listing::ListingIndexes::new(
            enabled,
            crate::listing::INLINE_BUILD_MAX,
        ));
        self
    }

    /// This store with a listing index that every organization builds on a
    /// thread of its own (as one of more than 50,000 items does), reading 7
    /// rows per statement; for tests.
    #[cfg(feature = "test-support")]
    #[must_use]
    pub fn with_listing_index_built_in_background(mut self) -> Store {
        self.listing_index = Arc::new(crate::listing::ListingIndexes::new(true, 0).reading(7));
        self
    }

    /// Whether the organization's listing index is built; for tests.
    #[cfg(feature = "test-support")]
    #[must_use]
    pub fn listing_index_built(&self, organization: equip_domain::ids::OrganizationId) -> bool {
        self.listing_index.is_built(&organization.to_string())
    }

    /// Builds, on a thread of its own, the listing index of every
    /// organization too large to be built while its first listing request
    /// waits (largest first), so that a restarted server answers their
    /// listings from memory soon after it starts; `serve` calls it once.
    pub fn warm_listing_indexes(&self) {
        let store = self.clone();
        let spawned = std::thread::Builder::new()
            .name("equip-listing-index".into())
            .spawn(move || {
                let index = store.listing_index.clone();
                let orgs = match store.read("inventoryItem", |c| index.large_organizations(c)) {
                    Ok(orgs) => orgs,
                    Err(e) => {
                        tracing::warn!(error = %e, "listing indexes not built at start");
                        return;
                    }
                };
                for org in orgs {
                    let started = std::time::Instant::now();
                    match store.read("inventoryItem", |c| index.warm(c, &org)) {
                        Ok(()) => tracing::info!(
                            org_id = %org,
                            ms = started.elapsed().as_millis() as u64,
                            "listing index built at start"
                        ),
                        Err(e) => {
                            tracing::warn!(org_id = %org, error = %e, "listing index not built")
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "listing index thread not started");
        }
    }

    /// Renders the organization's listing rows again from its items, as
    /// every write through equip does for the items it changes, and deletes
    /// the rows of items that no longer exist: for rows changed in the
    /// database directly (`equip index rebuild`; docs/operations.md). In
    /// batches of one write transaction each; each moves the listing
    /// version, so every running instance's listing index reads the rows
    /// before its next answer.
    ///
    /// # Errors
    /// `NotFound` (`organization`) for an unknown organization; a store
    /// failure (the batches written before it stay written: run it again).
    pub fn rebuild_listing(
        &self,
        organization: equip_domain::ids::OrganizationId,
    ) -> StoreResult<crate::ListingRebuilt> {
        let org = organization.to_string();
        if !self.read("organization", |c| {
            crate::listing::organization_exists(c, &org)
        })? {
            return Err(equip_domain::error::StoreError::NotFound {
                entity: "organization",
            });
        }
        let mut done = crate::ListingRebuilt::default();
        let mut after: Option<String> = None;
        loop {
            let ids = self.with("inventoryItem", "", |c| {
                let ids = crate::listing::next_items(c, &org, after.as_deref())?;
                if !ids.is_empty() {
                    let _writer = self.sqlite_writer(c);
                    crate::listing::rebuild_items(c, &org, &ids)?;
                }
                Ok(ids)
            })?;
            self.let_other_writers_in();
            done.items += ids.len() as u64;
            match ids.last() {
                Some(last) => after = Some(last.clone()),
                None => break,
            }
        }
        done.removed = self.with("inventoryItem", "", |c| {
            let _writer = self.sqlite_writer(c);
            crate::listing::remove_orphans(c, &org)
        })?;
        Ok(done)
    }

    /// Builds the organization's listing index on a thread of its own; its
    /// listing is answered by SQL meanwhile.
    pub(crate) fn build_listing_index_later(&self, org: &str) {
        let store = self.clone();
        let org = org.to_owned();
        let spawned = std::thread::Builder::new()
            .name("equip-listing-index".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                let index = store.listing_index.clone();
                match store.read("inventoryItem", |c| index.build(c, &org)) {
                    Ok(()) => tracing::info!(
                        org_id = %org,
                        ms = started.elapsed().as_millis() as u64,
                        "listing index built"
                    ),
                    Err(e) => tracing::warn!(org_id = %org, error = %e, "listing index not built"),
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "listing index thread not started");
        }
    }

    /// The SQLite database's file, if it has one.
    pub(crate) fn sqlite_file(&self) -> Option<&std::path::Path> {
        self.sqlite_file.as_deref()
    }

    /// A write probe succeeded.
    pub(crate) fn note_writable(&self) {
        self.unwritable.store(false, Ordering::Relaxed);
    }

    fn run<T>(
        (unwritable, losses): (&AtomicBool, &Losses),
        conn: DbResult<ConnGuard<'_>>,
        entity: &'static str,
        duplicate: &str,
        f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
    ) -> StoreResult<T> {
        let mut conn = conn.map_err(|e| e.into_store(entity, duplicate))?;
        let result = f(&mut conn);
        if let Err(DbError::Diesel(e)) = &result {
            if crate::connection::connection_lost(e) {
                // Not handed out again (see `Manager::has_broken`); the
                // idle ones are checked before they are (`Losses`).
                conn.mark_suspect();
                losses.note();
            } else if let Some(why) = crate::error::unwritable(e) {
                tracing::warn!("a write failed: {why}");
                unwritable.store(true, Ordering::Relaxed);
            }
        }
        result.map_err(|e| e.into_store(entity, duplicate))
    }
}
