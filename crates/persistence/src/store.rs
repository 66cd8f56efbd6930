//! [`Store`]: the r2d2 pool and migrations. The repository traits are
//! implemented in `crate::repositories`, one module per port.

use std::time::Duration;

use diesel::prelude::*;
use diesel::r2d2::{Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use equip_domain::error::StoreResult;

use crate::connection::{write_transaction, Backend, DbConnection, Manager, SqlitePragmas, Target};
use crate::error::{DbError, DbResult, PersistenceError};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Key of the PostgreSQL advisory lock held while migrating, so that several
/// `equip` instances starting together migrate one after the other.
const MIGRATION_LOCK_KEY: i64 = 0x6571_7569_705f_6d69; // "equip_mi"

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
}

impl Default for PoolOptions {
    /// 16 connections (SQLite: 8), 5 s timeout.
    fn default() -> Self {
        Self {
            max_size: 16,
            connection_timeout: Duration::from_secs(5),
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

enum MigrateError {
    Diesel(diesel::result::Error),
    Migration(String),
}

impl From<diesel::result::Error> for MigrateError {
    fn from(err: diesel::result::Error) -> Self {
        Self::Diesel(err)
    }
}

fn apply_migrations<DB, C>(
    conn: &mut C,
    source: EmbeddedMigrations,
) -> Result<Vec<String>, MigrateError>
where
    DB: diesel::backend::Backend,
    C: MigrationHarness<DB>,
{
    let pending = conn
        .pending_migrations(source)
        .map_err(|e| MigrateError::Migration(e.to_string()))?;
    let mut applied = Vec::with_capacity(pending.len());
    for migration in pending {
        let name = migration.name().to_string();
        conn.run_migration(&*migration)
            .map_err(|e| MigrateError::Migration(format!("{name}: {e}")))?;
        log::info!("applied migration {name}");
        applied.push(name);
    }
    Ok(applied)
}

impl Store {
    /// Opens a pool for `database_url` (`postgres://…` / `postgresql://…`, or a
    /// SQLite `sqlite://path`, `sqlite:path` or plain path; a missing SQLite file
    /// and its directory are created). Waits for one working connection. Does
    /// not migrate: call [`Store::run_migrations`].
    ///
    /// # Errors
    /// [`PersistenceError::InvalidUrl`], [`PersistenceError::CreateDirectory`],
    /// or [`PersistenceError::Connect`] when no connection could be opened
    /// within `options.connection_timeout`.
    pub fn connect(database_url: &str, options: PoolOptions) -> Result<Store, PersistenceError> {
        let target = Target::parse(database_url)?;
        target.prepare()?;
        let backend = target.backend();
        let max_size = match backend {
            Backend::Sqlite => options.max_size.min(SQLITE_MAX_POOL_SIZE),
            Backend::Postgres => options.max_size,
        }
        .max(1);
        let pool = Pool::builder()
            .max_size(max_size)
            .min_idle(Some(1))
            .connection_timeout(options.connection_timeout)
            .connection_customizer(Box::new(SqlitePragmas))
            .build(Manager::new(target))
            .map_err(|e| PersistenceError::Connect(e.to_string()))?;
        Ok(Store { pool, backend })
    }

    /// Applies the pending migrations of the backend, all in one transaction
    /// (on PostgreSQL under an advisory lock, so concurrent starters wait for
    /// each other). Returns the names of the migrations applied now; empty when
    /// the schema was up to date.
    ///
    /// # Errors
    /// [`PersistenceError::Migration`] (nothing of this run is kept), or the
    /// pool's errors.
    pub fn run_migrations(&self) -> Result<Vec<String>, PersistenceError> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| PersistenceError::Unavailable(e.to_string()))?;
        let result = write_transaction(&mut conn, |conn| match conn {
            DbConnection::Sqlite(c) => apply_migrations(c, SQLITE_MIGRATIONS),
            DbConnection::Postgres(c) => {
                diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                    .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK_KEY)
                    .execute(c)?;
                apply_migrations(c, POSTGRES_MIGRATIONS)
            }
        });
        result.map_err(|e| match e {
            MigrateError::Diesel(e) => PersistenceError::Migration(e.to_string()),
            MigrateError::Migration(m) => PersistenceError::Migration(m),
        })
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

    pub(crate) fn conn(&self) -> DbResult<Conn> {
        self.pool.get().map_err(|e| DbError::Pool(e.to_string()))
    }

    /// Runs `f` with a pooled connection, mapping errors for `entity`.
    pub(crate) fn with<T>(
        &self,
        entity: &'static str,
        duplicate: &str,
        f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.conn().map_err(|e| e.into_store(entity, duplicate))?;
        f(&mut conn).map_err(|e| e.into_store(entity, duplicate))
    }
}
