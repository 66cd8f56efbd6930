//! Migrations: one embedded baseline per backend (`migrations/sqlite`,
//! `migrations/postgres`) and the migrations after it, applied in one
//! transaction, each recorded with the equip version that applied it
//! (`migration_versions`). A database recording migrations this build does
//! not know is refused with what happened and what to do: migrated by a
//! newer equip (which one, when it recorded its version), made by a build
//! before the baseline, or migrated by another build.

use std::collections::BTreeMap;

use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use super::{write_transaction, DbConnection, Store};
use crate::error::PersistenceError;
use crate::models::db_time;
use crate::schema::migration_versions;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// The equip version this build records beside the migrations it applies:
/// the workspace's version (`[workspace.package] version`, what `equip
/// --version` prints).
pub const EQUIP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Key of the PostgreSQL advisory lock held while migrating, so that several
/// `equip` instances starting together migrate one after the other.
const MIGRATION_LOCK_KEY: i64 = 0x6571_7569_705f_6d69; // "equip_mi"

/// The migrations a database records that this build does not know, and the
/// range of versions this build does know.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Foreign {
    unknown: Vec<String>,
    first_known: String,
    last_known: String,
}

enum MigrateError {
    Diesel(diesel::result::Error),
    Migration(String),
    Foreign(Foreign),
}

/// A migration is not run again after a lock conflict: its failure is
/// reported as it is.
impl crate::error::LockConflict for MigrateError {
    fn is_lock_conflict(&self) -> bool {
        false
    }
}

impl From<diesel::result::Error> for MigrateError {
    fn from(err: diesel::result::Error) -> Self {
        Self::Diesel(err)
    }
}

/// Applies the pending migrations of `source`; the (version, name) of each
/// applied now.
fn apply_migrations<DB, C>(
    conn: &mut C,
    source: EmbeddedMigrations,
) -> Result<Vec<(String, String)>, MigrateError>
where
    DB: diesel::backend::Backend,
    C: MigrationHarness<DB>,
{
    let mut known: Vec<String> = diesel::migration::MigrationSource::<DB>::migrations(&source)
        .map_err(|e| MigrateError::Migration(e.to_string()))?
        .iter()
        .map(|m| m.name().version().to_string())
        .collect();
    known.sort();
    let mut unknown: Vec<String> = conn
        .applied_migrations()
        .map_err(|e| MigrateError::Migration(e.to_string()))?
        .into_iter()
        .map(|v| v.to_string())
        .filter(|v| known.binary_search(v).is_err())
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(MigrateError::Foreign(Foreign {
            unknown,
            first_known: known.first().cloned().unwrap_or_default(),
            last_known: known.last().cloned().unwrap_or_default(),
        }));
    }
    let pending = conn
        .pending_migrations(source)
        .map_err(|e| MigrateError::Migration(e.to_string()))?;
    let mut applied = Vec::with_capacity(pending.len());
    for migration in pending {
        let name = migration.name().to_string();
        let version = migration.name().version().to_string();
        conn.run_migration(&*migration)
            .map_err(|e| MigrateError::Migration(format!("{name}: {e}")))?;
        tracing::info!("applied migration {name}");
        applied.push((version, name));
    }
    Ok(applied)
}

/// Records that this equip applied `applied`, in the transaction that applied
/// them (the table is made by one of the migrations, so it exists once they
/// ran).
fn record_versions(
    conn: &mut DbConnection,
    applied: &[(String, String)],
) -> Result<(), MigrateError> {
    let at = db_time(chrono::Utc::now());
    for (version, name) in applied {
        diesel::insert_into(migration_versions::table)
            .values((
                migration_versions::migration.eq(version),
                migration_versions::name.eq(name),
                migration_versions::equip_version.eq(EQUIP_VERSION),
                migration_versions::applied_at.eq(at),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// What the database says about the migrations this build does not know:
/// (name, equip version) by version, for those recorded. Empty when the
/// table cannot be read (a database from before it, or of another build).
fn recorded_versions(
    conn: &mut DbConnection,
    versions: &[String],
) -> BTreeMap<String, (String, String)> {
    migration_versions::table
        .filter(migration_versions::migration.eq_any(versions))
        .select((
            migration_versions::migration,
            migration_versions::name,
            migration_versions::equip_version,
        ))
        .load::<(String, String, String)>(conn)
        .map(|rows| {
            rows.into_iter()
                .map(|(version, name, equip)| (version, (name, equip)))
                .collect()
        })
        .unwrap_or_default()
}

/// `a` and `b` as release versions (`MAJOR.MINOR.PATCH`, anything after a
/// `-` or `+` ignored): the newer one.
fn newer_version<'a>(a: &'a str, b: &'a str) -> &'a str {
    let key = |v: &str| -> Vec<u64> {
        v.split(['-', '+'])
            .next()
            .unwrap_or("")
            .split('.')
            .map(|n| n.parse().unwrap_or(0))
            .collect()
    };
    if key(b) > key(a) {
        b
    } else {
        a
    }
}

/// Why this build refuses the database, and what to do, in words.
/// `recorded`: what `migration_versions` says of the unknown migrations
/// (name, equip version), `current`: this build's version.
fn refusal(
    foreign: &Foreign,
    recorded: &BTreeMap<String, (String, String)>,
    current: &str,
) -> String {
    let Foreign {
        unknown,
        first_known,
        last_known,
    } = foreign;
    let named: Vec<String> = unknown
        .iter()
        .map(|v| match recorded.get(v) {
            Some((name, equip)) => format!("{name} (applied by equip {equip})"),
            None => v.clone(),
        })
        .collect();
    let named = named.join(", ");
    if unknown.iter().all(|v| v > last_known) {
        let newest = recorded
            .values()
            .map(|(_, equip)| equip.as_str())
            .reduce(newer_version);
        let run = newest.map_or_else(
            || "run the newer equip that migrated it".to_owned(),
            |v| format!("run equip {v} (or newer) on it"),
        );
        format!(
            "the database was migrated by a newer equip than this one (equip {current}), which \
             does not know its migrations {named}; nothing was changed. Either {run}, or, to \
             go back to equip {current}, restore the backup taken before the upgrade and \
             run this equip on that (docs/operations.md, \"Rollback\")"
        )
    } else if unknown.iter().all(|v| v < first_known) {
        format!(
            "the database was made by a build of equip from before its first release (its \
             migrations {named} are older than this build's first, {first_known}, the \
             baseline that replaced them); this build cannot upgrade it and changed nothing: \
             use a new database, or the build that made it"
        )
    } else {
        format!(
            "the database records migrations this build of equip (equip {current}) does not \
             know ({named}), neither all newer than its own nor older than its baseline: it \
             was migrated by another build (a development build, or a branch); nothing was \
             changed. Run the build that migrated it, or restore the backup taken before \
             that build ran"
        )
    }
}

impl Store {
    /// Applies the pending migrations of the backend, all in one transaction
    /// (on PostgreSQL under an advisory lock, so concurrent starters wait for
    /// each other), and records this equip's version beside each
    /// (`migration_versions`). Returns the names of the migrations applied
    /// now; empty when the schema was up to date.
    ///
    /// # Errors
    /// [`PersistenceError::Migration`] (nothing of this run is kept): among
    /// others a database that records migrations this build does not know,
    /// said with the equip that applied them when it recorded itself; or the
    /// pool's errors.
    pub fn run_migrations(&self) -> Result<Vec<String>, PersistenceError> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| PersistenceError::Unavailable(e.to_string()))?;
        let result = write_transaction(&mut conn, |conn| {
            let applied = match conn {
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
            };
            match applied {
                Ok(applied) => {
                    record_versions(conn, &applied)?;
                    Ok(applied.into_iter().map(|(_, name)| name).collect())
                }
                Err(MigrateError::Foreign(foreign)) => {
                    let recorded = recorded_versions(conn, &foreign.unknown);
                    Err(MigrateError::Migration(refusal(
                        &foreign,
                        &recorded,
                        EQUIP_VERSION,
                    )))
                }
                Err(e) => Err(e),
            }
        });
        result.map_err(|e| match e {
            MigrateError::Diesel(e) => PersistenceError::Migration(e.to_string()),
            MigrateError::Migration(m) => PersistenceError::Migration(m),
            MigrateError::Foreign(f) => {
                PersistenceError::Migration(refusal(&f, &BTreeMap::new(), EQUIP_VERSION))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{newer_version, refusal, Foreign};

    fn foreign(unknown: &[&str]) -> Foreign {
        Foreign {
            unknown: unknown.iter().map(|v| (*v).to_owned()).collect(),
            first_known: "20261121000000".to_owned(),
            last_known: "20261202150000".to_owned(),
        }
    }

    #[test]
    fn a_newer_equips_migrations_name_the_version_to_run_and_the_backup() {
        let recorded = BTreeMap::from([
            (
                "20270110000000".to_owned(),
                ("2027-01-10-000000_a".to_owned(), "0.3.0".to_owned()),
            ),
            (
                "20270301000000".to_owned(),
                ("2027-03-01-000000_b".to_owned(), "0.10.1".to_owned()),
            ),
        ]);
        let said = refusal(
            &foreign(&["20270110000000", "20270301000000"]),
            &recorded,
            "0.2.0",
        );
        assert!(said.contains("migrated by a newer equip"), "{said}");
        assert!(
            said.contains("2027-01-10-000000_a (applied by equip 0.3.0)"),
            "{said}"
        );
        assert!(said.contains("run equip 0.10.1 (or newer)"), "{said}");
        assert!(
            said.contains("restore the backup taken before the upgrade"),
            "{said}"
        );
        assert!(!said.contains("new database"), "{said}");
    }

    #[test]
    fn a_newer_equip_that_did_not_record_itself_is_still_newer() {
        let said = refusal(&foreign(&["20270110000000"]), &BTreeMap::new(), "0.2.0");
        assert!(said.contains("migrated by a newer equip"), "{said}");
        assert!(said.contains("20270110000000"), "{said}");
        assert!(
            said.contains("run the newer equip that migrated it"),
            "{said}"
        );
    }

    #[test]
    fn migrations_before_the_baseline_are_a_pre_release_build() {
        let said = refusal(&foreign(&["20261101000000"]), &BTreeMap::new(), "0.2.0");
        assert!(said.contains("before its first release"), "{said}");
        assert!(said.contains("use a new database"), "{said}");
    }

    #[test]
    fn migrations_between_known_ones_are_another_build() {
        let said = refusal(&foreign(&["20261124090000"]), &BTreeMap::new(), "0.2.0");
        assert!(said.contains("another build"), "{said}");
        assert!(!said.contains("new database"), "{said}");
    }

    #[test]
    fn release_versions_compare_by_number() {
        assert_eq!(newer_version("0.9.0", "0.10.0"), "0.10.0");
        assert_eq!(newer_version("1.0.0", "0.10.0"), "1.0.0");
        assert_eq!(newer_version("0.2.0", "0.2.0-rc.1"), "0.2.0");
    }
}
