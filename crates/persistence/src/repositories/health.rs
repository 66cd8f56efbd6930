//! [`HealthCheck`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ports::HealthCheck;
use equip_domain::StoreError;

use crate::connection::{on_inner, write_transaction, DbConnection};
use crate::error::DbError;

use crate::store::Store;

/// The outcome of the body of a probe transaction.
enum Probe {
    /// A statement failed: the database cannot be written.
    Failed(diesel::result::Error),
    /// The write lock was taken; rolled back on purpose.
    RolledBack,
}

impl crate::error::LockConflict for Probe {
    fn is_lock_conflict(&self) -> bool {
        matches!(self, Self::Failed(err) if err.is_lock_conflict())
    }
}

impl From<diesel::result::Error> for Probe {
    fn from(err: diesel::result::Error) -> Self {
        Self::Failed(err)
    }
}

/// A write that matches no row of the one-row `health_probe` table: refused
/// before it runs by a read-only SQLite file or connection (`SQLITE_READONLY`;
/// in WAL mode `BEGIN IMMEDIATE` alone succeeds there) and by a read-only
/// PostgreSQL (25006).
const NO_OP_WRITE: &str = "UPDATE health_probe SET written_at = written_at WHERE id <> 1";

/// A write that rewrites the one row of that table with its own value: it
/// needs the disk to take a (tiny) write, and adds nothing to the database.
const ONE_ROW_WRITE: &str = "UPDATE health_probe SET written_at = written_at WHERE id = 1";

/// Takes the write lock (`BEGIN IMMEDIATE` on SQLite), runs a write that
/// matches nothing, and rolls back: fails on a read-only SQLite file or
/// connection, and on a PostgreSQL in recovery or under
/// `default_transaction_read_only`. Leaves nothing behind. When `commit` is
/// set, a one-row no-op write is committed instead, which also finds a full
/// disk.
fn probe(conn: &mut DbConnection, commit: bool) -> Result<(), DbError> {
    let result = write_transaction(conn, |c| {
        if commit {
            on_inner!(c, |c| diesel::sql_query(ONE_ROW_WRITE).execute(c))?;
            return Ok(());
        }
        on_inner!(c, |c| diesel::sql_query(NO_OP_WRITE).execute(c))?;
        Err(Probe::RolledBack)
    });
    match result {
        Ok(()) | Err(Probe::RolledBack) => Ok(()),
        Err(Probe::Failed(e)) => Err(DbError::Diesel(e)),
    }
}

/// Bytes the readiness probe writes next to a SQLite database after a write
/// failed for a full disk: the disk must take that much before the store
/// counts as writable again.
pub(crate) const SPACE_PROBE_BYTES: usize = 1024 * 1024;

/// Writes [`SPACE_PROBE_BYTES`] to a new file next to `database` (same
/// directory, so the same file system), flushes it to disk and removes it:
/// fails when the file system cannot take them. A write through SQLite
/// cannot show this: its commit may rewrite pages the database or its WAL
/// already own, and succeed on a disk where any write that grows them fails.
fn space_probe(database: &std::path::Path) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut name = database.as_os_str().to_owned();
    name.push(format!("-space-probe-{}", std::process::id()));
    let path = std::path::PathBuf::from(name);
    let written = (|| {
        let mut file = std::fs::File::create(&path)?;
        let chunk = vec![0u8; 64 * 1024];
        for _ in 0..SPACE_PROBE_BYTES / chunk.len() {
            file.write_all(&chunk)?;
        }
        file.sync_all()
    })();
    let removed = std::fs::remove_file(&path);
    written?;
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

impl HealthCheck for Store {
    fn ping(&self) -> StoreResult<()> {
        self.read("database", |c| {
            on_inner!(c, |c| diesel::sql_query("SELECT 1").execute(c))?;
            Ok(())
        })
    }

    fn check_writable(&self) -> StoreResult<()> {
        // After a write failed for a full disk, only a committed write shows
        // that there is room again, and on SQLite only one that needs new
        // space: its commit alone may rewrite pages it already owns.
        let commit = self.write_refused();
        if commit {
            if let Some(file) = self.sqlite_file() {
                space_probe(file).map_err(|e| {
                    StoreError::Unavailable(format!(
                        "the database's disk cannot take {} KiB: {e}",
                        SPACE_PROBE_BYTES / 1024
                    ))
                })?;
            }
        }
        self.read("database", |c| probe(c, commit))?;
        self.note_writable();
        Ok(())
    }
}
