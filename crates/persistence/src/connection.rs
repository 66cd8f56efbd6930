//! Connections: the [`DbConnection`] enum over both backends, the r2d2 manager
//! that picks the backend from the URL, the SQLite pragmas, and the helpers that
//! reach the inner connection where the enum cannot (upserts, `BEGIN IMMEDIATE`).

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::pg::PgConnection;
use diesel::r2d2::{CustomizeConnection, Error as PoolError, ManageConnection, R2D2Connection};
use diesel::sqlite::SqliteConnection;
use diesel::Connection;

use crate::database_url::{self, Secrets};
use crate::error::PersistenceError;

/// One connection to either backend. Most queries run on the enum itself
/// (Diesel's `MultiConnection` covers the SQL both backends share); the few that
/// need one backend's own API use the inner connection through [`on_inner!`].
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    /// An embedded SQLite database.
    Sqlite(SqliteConnection),
    /// A PostgreSQL server.
    Postgres(PgConnection),
}

impl DbConnection {
    /// Which backend this connection talks to.
    pub(crate) fn backend(&self) -> Backend {
        match self {
            Self::Sqlite(_) => Backend::Sqlite,
            Self::Postgres(_) => Backend::Postgres,
        }
    }
}

/// Runs `$body` with `$c` bound to the inner connection of `$conn` (a
/// `&mut DbConnection`), once per backend: the body is compiled for each
/// concrete connection type, so backend-specific Diesel APIs (`on_conflict`
/// upserts, for instance) are available.
macro_rules! on_inner {
    ($conn:expr, |$c:ident| $body:expr) => {
        match &mut *$conn {
            $crate::connection::DbConnection::Sqlite($c) => $body,
            $crate::connection::DbConnection::Postgres($c) => $body,
        }
    };
}
pub(crate) use on_inner;

/// The database behind a [`crate::Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite, embedded, one file.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Backend {
    /// The backend a database URL selects: `postgres://` or `postgresql://` for
    /// PostgreSQL; `sqlite://path`, `sqlite:path` or a plain path for SQLite.
    ///
    /// # Errors
    /// [`PersistenceError::InvalidUrl`] for an empty URL or another scheme.
    pub fn from_url(database_url: &str) -> Result<Self, PersistenceError> {
        Target::parse(database_url).map(|t| t.backend())
    }
}

/// A parsed database URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// Path of the SQLite file.
    Sqlite(String),
    /// PostgreSQL connection URL, as given.
    Postgres(String),
}

impl Target {
    pub(crate) fn parse(database_url: &str) -> Result<Self, PersistenceError> {
        let url = database_url.trim();
        for scheme in ["postgres://", "postgresql://"] {
            if let Some(rest) = url.strip_prefix(scheme) {
                database_url::check_postgres(rest)?;
                return Ok(Self::Postgres(url.to_owned()));
            }
        }
        let path = if let Some(rest) = url.strip_prefix("sqlite://") {
            rest
        } else if let Some(rest) = url.strip_prefix("sqlite:") {
            rest
        } else if let Some((scheme, _)) = url.split_once("://") {
            return Err(PersistenceError::InvalidUrl(format!(
                "unsupported scheme '{scheme}://'; use postgres://, postgresql://, sqlite:// or a file path"
            )));
        } else if let Some(why) = database_url::mistyped_scheme(url) {
            return Err(PersistenceError::InvalidUrl(why));
        } else {
            url
        };
        if path.is_empty() {
            return Err(PersistenceError::InvalidUrl(
                "no SQLite database path given".to_owned(),
            ));
        }
        Ok(Self::Sqlite(path.to_owned()))
    }

    pub(crate) fn backend(&self) -> Backend {
        match self {
            Self::Sqlite(_) => Backend::Sqlite,
            Self::Postgres(_) => Backend::Postgres,
        }
    }

    /// The SQLite database's file: the path, or the path of a `file:` URI
    /// (`file:/x/equip.db?mode=ro`); `None` for PostgreSQL and `:memory:`.
    pub(crate) fn sqlite_file(&self) -> Option<PathBuf> {
        let Self::Sqlite(path) = self else {
            return None;
        };
        if path == ":memory:" {
            return None;
        }
        let path = match path.strip_prefix("file:") {
            Some(uri) => uri.split(['?', '#']).next().unwrap_or_default(),
            None => path,
        };
        (!path.is_empty() && path != ":memory:").then(|| PathBuf::from(path))
    }

    /// Refuses a SQLite file whose directory does not exist: a typo in the
    /// path must not start an empty database elsewhere (which looks like lost
    /// data). SQLite creates the file itself.
    pub(crate) fn check_directory(&self) -> Result<(), PersistenceError> {
        if let Self::Sqlite(path) = self {
            // `:memory:`, or an SQLite URI (`file:…?mode=ro`): no directory to check.
            if path == ":memory:" || path.starts_with("file:") {
                return Ok(());
            }
            if let Some(dir) = Path::new(path).parent() {
                if !dir.as_os_str().is_empty() && !dir.is_dir() {
                    return Err(PersistenceError::MissingDirectory(PathBuf::from(dir)));
                }
            }
        }
        Ok(())
    }
}

/// A PostgreSQL connection idle for at least this long is pinged before it is
/// handed out; a fresher one is trusted (see [`Manager::is_valid`]).
pub(crate) const PING_AFTER_IDLE: Duration = Duration::from_secs(10);

/// A pooled connection: the [`DbConnection`] and what the pool needs to decide
/// whether to trust it without a round trip.
pub(crate) struct Pooled {
    conn: DbConnection,
    /// When it was last given back to the pool (or opened).
    idle_since: Instant,
    /// A statement on it failed as if the connection were lost: the pool
    /// drops it instead of handing it out again.
    pub(crate) suspect: bool,
}

impl Deref for Pooled {
    type Target = DbConnection;

    fn deref(&self) -> &DbConnection {
        &self.conn
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut DbConnection {
        &mut self.conn
    }
}

pub(crate) use crate::error::connection_lost;

/// r2d2 connection manager: opens a connection of the backend its URL names.
/// (Diesel's `establish` on the enum would try backends in order, and SQLite
/// accepts any string as a path.)
#[derive(Debug)]
pub(crate) struct Manager {
    target: Target,
    losses: std::sync::Arc<Losses>,
    /// The URL's passwords, removed from libpq's messages.
    secrets: Secrets,
}

impl Manager {
    pub(crate) fn new(target: Target, losses: std::sync::Arc<Losses>) -> Self {
        let secrets = match &target {
            Target::Postgres(url) => Secrets::of(url),
            Target::Sqlite(_) => Secrets::default(),
        };
        Self {
            target,
            losses,
            secrets,
        }
    }

    /// A connection error without the URL's passwords (libpq quotes parts of
    /// the URL it cannot read).
    fn scrubbed(&self, err: diesel::ConnectionError) -> diesel::ConnectionError {
        use diesel::ConnectionError as E;
        match err {
            E::BadConnection(m) => E::BadConnection(self.secrets.scrub(&m)),
            E::InvalidConnectionUrl(m) => E::InvalidConnectionUrl(self.secrets.scrub(&m)),
            other => other,
        }
    }
}

/// The pool's error handler (r2d2's default logs every failed attempt at
/// ERROR: an unreachable database printed the same line four times before
/// the command said it once more). Until the pool has opened a connection,
/// nothing is logged: the failure reaches the caller (`Store::connect`, the
/// first checkout) as an error, which says it once. After that (the database
/// went away under a running server), a failure is logged when it differs
/// from the last one logged, and the recovery once.
#[derive(Debug, Default)]
pub(crate) struct ConnectFailures {
    /// A connection has been opened.
    opened: std::sync::atomic::AtomicBool,
    /// The failure last logged, until a connection opens again.
    logged: std::sync::Mutex<Option<String>>,
}

impl ConnectFailures {
    /// A connection was opened (and set up).
    fn opened(&self) {
        self.opened
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut logged = self
            .logged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if logged.take().is_some() {
            tracing::info!("database connections open again");
        }
    }

    /// Opening a connection failed with `message` (passwords already removed).
    /// Whether it was logged.
    fn failed(&self, message: &str) -> bool {
        if !self.opened.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let mut logged = self
            .logged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if logged.as_deref() == Some(message) {
            return false;
        }
        tracing::error!("cannot open a database connection (retrying): {message}");
        *logged = Some(message.to_owned());
        true
    }
}

/// [`ConnectFailures`] as the pool's error handler.
#[derive(Debug)]
pub(crate) struct FailureHandler(pub(crate) std::sync::Arc<ConnectFailures>);

impl diesel::r2d2::HandleError<PoolError> for FailureHandler {
    fn handle_error(&self, error: PoolError) {
        self.0.failed(&error.to_string());
    }
}

/// When a connection of the pool was last found lost. A server restart, a
/// failover or `pg_terminate_backend` takes every connection at once, so
/// after one is found lost, every idle connection given back before that is
/// pinged before it is handed out again (see [`Manager::is_valid`]), instead
/// of failing the next request that gets it.
#[derive(Debug)]
pub(crate) struct Losses {
    base: Instant,
    /// Nanoseconds after `base` of the last loss; 0: none.
    last: std::sync::atomic::AtomicU64,
}

impl Default for Losses {
    fn default() -> Self {
        Self {
            base: Instant::now(),
            last: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl Losses {
    /// A connection was found lost now.
    pub(crate) fn note(&self) {
        let nanos = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last
            .fetch_max(nanos.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether a loss was found at or after `t`.
    fn since(&self, t: Instant) -> bool {
        let last = self.last.load(std::sync::atomic::Ordering::Relaxed);
        last > 0
            && t.checked_duration_since(self.base)
                .is_none_or(|d| u128::from(last) >= d.as_nanos())
    }
}

impl ManageConnection for Manager {
    type Connection = Pooled;
    type Error = PoolError;

    fn connect(&self) -> Result<Pooled, PoolError> {
        let conn = match &self.target {
            Target::Sqlite(path) => SqliteConnection::establish(path)
                .map(DbConnection::Sqlite)
                .map_err(PoolError::ConnectionError)?,
            Target::Postgres(url) => PgConnection::establish(url)
                .map(DbConnection::Postgres)
                .map_err(|e| PoolError::ConnectionError(self.scrubbed(e)))?,
        };
        Ok(Pooled {
            conn,
            idle_since: Instant::now(),
            suspect: false,
        })
    }

    /// Runs on every checkout. A `SELECT 1` on every checkout would be one more
    /// round trip per repository call (a listing or SCIM request makes several), so only a
    /// PostgreSQL connection that sat idle for [`PING_AFTER_IDLE`] is pinged (a
    /// server restart or an idle time-out in between is then caught before a
    /// request uses it), and so is one that was idle when another connection
    /// was found lost ([`Losses`]). A SQLite connection is a handle on a local file:
    /// nothing to lose. A connection that dies while in use is caught by
    /// [`Manager::has_broken`] when it comes back.
    fn is_valid(&self, conn: &mut Pooled) -> Result<(), PoolError> {
        match &mut conn.conn {
            DbConnection::Sqlite(_) => Ok(()),
            DbConnection::Postgres(c)
                if conn.idle_since.elapsed() >= PING_AFTER_IDLE
                    || self.losses.since(conn.idle_since) =>
            {
                c.batch_execute("SELECT 1").map_err(PoolError::QueryError)
            }
            DbConnection::Postgres(_) => Ok(()),
        }
    }

    /// Runs when a connection comes back to the pool: drops it if a statement
    /// found it lost, or if Diesel left it in a broken transaction state.
    fn has_broken(&self, conn: &mut Pooled) -> bool {
        conn.idle_since = Instant::now();
        conn.suspect || conn.conn.is_broken()
    }
}

/// Statements run on every new SQLite connection. `busy_timeout` comes first so
/// that switching a fresh file to WAL waits for a concurrent opener instead of
/// failing. The memory settings follow ([`SqliteMemory`]).
pub(crate) const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 5000; \
     PRAGMA journal_mode = WAL; \
     PRAGMA foreign_keys = ON; \
     PRAGMA synchronous = NORMAL;";

/// What a SQLite connection reads its file through (docs/operations.md,
/// "Memory"). `mmap_mib`: the first MiB of the file are read straight from
/// the operating system's page cache, shared by every connection (resident
/// as the process's mapped file, `RssFile`, which the kernel reclaims under
/// pressure), instead of being copied into each connection's own cache
/// (`pread` and the page cache's lock were most of a listing's time;
/// docs/performance.md, "Connections"). `cache_mib`: each connection's own
/// cache of pages (the pages past the mapping and the pages it writes), in
/// the process's anonymous memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqliteMemory {
    /// MiB of the file mapped (`PRAGMA mmap_size`; 0: none).
    pub mmap_mib: u32,
    /// MiB of each connection's page cache (`PRAGMA cache_size`).
    pub cache_mib: u32,
}

impl Default for SqliteMemory {
    /// 1 GiB mapped; 2 MiB of cache per connection (SQLite's own default
    /// size: at 1,000,000 items 8 MiB made the process's memory 125 MB
    /// larger under 32 listing clients, for no speed; docs/operations.md,
    /// "Memory").
    fn default() -> Self {
        Self {
            mmap_mib: 1024,
            cache_mib: 2,
        }
    }
}

impl SqliteMemory {
    /// The statements that set it on a connection.
    pub(crate) fn pragmas(self) -> String {
        format!(
            "PRAGMA mmap_size = {}; PRAGMA cache_size = -{};",
            u64::from(self.mmap_mib) * 1024 * 1024,
            u64::from(self.cache_mib) * 1024
        )
    }
}

diesel::define_sql_function! {
    /// Unicode lowercase of a text (NULL stays NULL): [`crate::models::fold_case`]
    /// as an SQL function on SQLite, whose built-in `lower()` folds ASCII only.
    fn equip_lower(x: diesel::sql_types::Nullable<diesel::sql_types::Text>)
        -> diesel::sql_types::Nullable<diesel::sql_types::Text>;
}

/// The SQL function that folds case as [`crate::models::fold_case`] (and the
/// in-memory reference store) do: `equip_lower`, registered on every SQLite
/// connection by [`SqlitePragmas`] (SQLite's `lower()` leaves `É` as it is),
/// or PostgreSQL's `LOWER`. A name of its own rather than an override of
/// `lower`, so that SQL run without it (the `sqlite3` shell) fails loudly
/// instead of folding differently; no index, trigger or view uses it.
pub(crate) fn fold_function(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "equip_lower",
        Backend::Postgres => "LOWER",
    }
}

/// Registers `equip_lower` (deterministic) on a SQLite connection.
pub(crate) fn register_sqlite_functions(c: &mut SqliteConnection) -> diesel::QueryResult<()> {
    equip_lower_utils::register_impl(c, |x: Option<String>| {
        x.map(|s| crate::models::fold_case(&s))
    })
}

/// Applies [`SQLITE_PRAGMAS`] to each SQLite connection the pool opens, and
/// registers the application's SQL functions on it
/// ([`register_sqlite_functions`]); on PostgreSQL, sets the pool's statement
/// time limit, if any; then counts the connection, of either backend, as
/// opened ([`ConnectFailures`]: a SQLite file that is not a database opens,
/// and fails only here).
#[derive(Debug, Clone)]
pub(crate) struct SqlitePragmas {
    /// What the pool's error handler reports.
    pub(crate) failures: std::sync::Arc<ConnectFailures>,
    /// PostgreSQL's `statement_timeout` of every connection of the pool
    /// ([`crate::PoolOptions::statement_timeout`]).
    pub(crate) statement_timeout: Option<std::time::Duration>,
    /// SQLite's `mmap_size` and `cache_size`, as statements.
    pub(crate) sqlite_memory: String,
}

impl CustomizeConnection<Pooled, PoolError> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut Pooled) -> Result<(), PoolError> {
        match &mut conn.conn {
            DbConnection::Sqlite(c) => {
                c.batch_execute(SQLITE_PRAGMAS)
                    .map_err(PoolError::QueryError)?;
                c.batch_execute(&self.sqlite_memory)
                    .map_err(PoolError::QueryError)?;
                register_sqlite_functions(c).map_err(PoolError::QueryError)?;
            }
            DbConnection::Postgres(c) => {
                if let Some(limit) = self.statement_timeout {
                    // 0 would mean no limit: at least a millisecond.
                    let ms = limit.as_millis().max(1);
                    c.batch_execute(&format!("SET statement_timeout = {ms}"))
                        .map_err(PoolError::QueryError)?;
                }
            }
        }
        self.failures.opened();
        Ok(())
    }
}

/// Runs `body` in a write transaction: `BEGIN IMMEDIATE` on SQLite (the write
/// lock is taken up front, so a concurrent writer waits on `busy_timeout`
/// instead of failing on a lock upgrade), a plain `BEGIN` on PostgreSQL. Commits
/// when `body` returns `Ok`, rolls back otherwise.
///
/// On PostgreSQL, a transaction that the server aborted as a deadlock's victim
/// (40P01) or for a serialization failure (40001) is rolled back and `body`
/// run once more from its start, so nothing of the first attempt is kept
/// (its events and sequences included: they are written by `body`). Only the
/// outermost transaction retries: a savepoint's failure belongs to the
/// transaction around it. docs/reliability.md, "Concurrent writers".
pub(crate) fn write_transaction<T, E, F>(conn: &mut DbConnection, mut body: F) -> Result<T, E>
where
    E: From<diesel::result::Error> + crate::error::LockConflict,
    F: FnMut(&mut DbConnection) -> Result<T, E>,
{
    let retry = match conn {
        DbConnection::Sqlite(_) => false,
        DbConnection::Postgres(c) => AnsiTransactionManager::transaction_manager_status_mut(c)
            .transaction_depth()?
            .is_none(),
    };
    match write_once(conn, &mut body) {
        Err(err) if retry && err.is_lock_conflict() => {
            tracing::warn!(
                "a write transaction was aborted by a lock conflict (deadlock or \
                 serialization failure); running it once more"
            );
            write_once(conn, &mut body)
        }
        other => other,
    }
}

/// One attempt of [`write_transaction`].
fn write_once<T, E, F>(conn: &mut DbConnection, body: &mut F) -> Result<T, E>
where
    E: From<diesel::result::Error>,
    F: FnMut(&mut DbConnection) -> Result<T, E>,
{
    match conn {
        DbConnection::Sqlite(c) => {
            AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")?
        }
        DbConnection::Postgres(c) => AnsiTransactionManager::begin_transaction(c)?,
    }
    match body(conn) {
        Ok(value) => {
            if let Err(commit) = DbConnection::commit_transaction(conn) {
                // Leave the connection usable (or marked broken for the pool).
                let _ = DbConnection::rollback_transaction(conn);
                return Err(commit.into());
            }
            Ok(value)
        }
        Err(err) => match DbConnection::rollback_transaction(conn) {
            Ok(()) | Err(diesel::result::Error::BrokenTransactionManager) => Err(err),
            Err(rollback) => Err(rollback.into()),
        },
    }
}

/// Lifts the pool's `statement_timeout` for the rest of the current
/// PostgreSQL transaction (`SET LOCAL`): for work no request waits on, which
/// may take longer than a request's statements are allowed to (migrations,
/// the listing index's background build).
pub(crate) fn without_statement_timeout(c: &mut diesel::PgConnection) -> diesel::QueryResult<()> {
    use diesel::RunQueryDsl;
    diesel::sql_query("SET LOCAL statement_timeout = 0")
        .execute(c)
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_the_backend() {
        let pg = |u: &str| Target::parse(u).map(|t| t.backend()).ok();
        assert_eq!(pg("postgres://u@h/db"), Some(Backend::Postgres));
        assert_eq!(pg("postgresql://u@h/db"), Some(Backend::Postgres));
        assert_eq!(
            Target::parse("sqlite://data/equip.db").ok(),
            Some(Target::Sqlite("data/equip.db".into()))
        );
        assert_eq!(
            Target::parse("sqlite:///var/equip.db").ok(),
            Some(Target::Sqlite("/var/equip.db".into()))
        );
        assert_eq!(
            Target::parse("sqlite:equip.db").ok(),
            Some(Target::Sqlite("equip.db".into()))
        );
        assert_eq!(
            Target::parse("./equip.db").ok(),
            Some(Target::Sqlite("./equip.db".into()))
        );
        assert!(Target::parse("mysql://h/db").is_err());
        assert!(Target::parse("").is_err());
        assert!(Target::parse("sqlite://").is_err());
    }

    #[test]
    fn a_sqlite_target_names_its_file() {
        let file = |u: &str| Target::parse(u).ok().and_then(|t| t.sqlite_file());
        assert_eq!(file("/x/equip.db"), Some(PathBuf::from("/x/equip.db")));
        assert_eq!(file("sqlite:equip.db"), Some(PathBuf::from("equip.db")));
        assert_eq!(
            file("file:/x/equip.db?mode=ro"),
            Some(PathBuf::from("/x/equip.db"))
        );
        assert_eq!(file(":memory:"), None);
        assert_eq!(file("postgres://u@h/db"), None);
    }
}
