//! Migrations: one embedded baseline per backend (`migrations/sqlite`,
//! `migrations/postgres`), applied in one transaction; a database recording
//! migrations this build does not know is refused by name.

use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use super::{write_transaction, DbConnection, Store};
use crate::error::PersistenceError;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Key of the PostgreSQL advisory lock held while migrating, so that several
/// `equip` instances starting together migrate one after the other.
const MIGRATION_LOCK_KEY: i64 = 0x6571_7569_705f_6d69; // "equip_mi"

enum MigrateError {
    Diesel(diesel::result::Error),
    Migration(String),
}

/// A migration is not run again after a lock conflict: its failure is
/// reported as it is.
impl crate::connection::LockConflict for MigrateError {
    fn is_lock_conflict(&self) -> bool {
        false
    }
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
    let known: std::collections::HashSet<String> =
        diesel::migration::MigrationSource::<DB>::migrations(&source)
            .map_err(|e| MigrateError::Migration(e.to_string()))?
            .iter()
            .map(|m| m.name().version().to_string())
            .collect();
    let unknown: Vec<String> = conn
        .applied_migrations()
        .map_err(|e| MigrateError::Migration(e.to_string()))?
        .into_iter()
        .map(|v| v.to_string())
        .filter(|v| !known.contains(v))
        .collect();
    if !unknown.is_empty() {
        // Its schema is not one this build can upgrade: a database of a build
        // before the first release (whose migrations were folded into one
        // baseline), or of a newer build.
        return Err(MigrateError::Migration(format!(
            "the database records migrations this build of equip does not know ({}): \
             it was created by another build (a pre-release or a newer one); \
             use a new database, or the build that created it",
            unknown.join(", ")
        )));
    }
    let pending = conn
        .pending_migrations(source)
        .map_err(|e| MigrateError::Migration(e.to_string()))?;
    let mut applied = Vec::with_capacity(pending.len());
    for migration in pending {
        let name = migration.name().to_string();
        conn.run_migration(&*migration)
            .map_err(|e| MigrateError::Migration(format!("{name}: {e}")))?;
        tracing::info!("applied migration {name}");
        applied.push(name);
    }
    Ok(applied)
}

impl Store {
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
                // Migrations (and waiting for another instance's) may take
                // longer than a request's statements are allowed to.
                crate::connection::without_statement_timeout(c)?;
                diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                    .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK_KEY)
                    .execute(c)?;
                apply_migrations(c, POSTGRES_MIGRATIONS)
            }
        });
        let applied = result.map_err(|e| match e {
            MigrateError::Diesel(e) => PersistenceError::Migration(e.to_string()),
            MigrateError::Migration(m) => PersistenceError::Migration(m),
        })?;
        Ok(applied)
    }
}
