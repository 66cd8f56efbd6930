//! [`HealthCheck`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ports::HealthCheck;

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

impl HealthCheck for Store {
    fn ping(&self) -> StoreResult<()> {
        self.read("database", |c| {
            on_inner!(c, |c| diesel::sql_query("SELECT 1").execute(c))?;
            Ok(())
        })
    }

    fn check_writable(&self) -> StoreResult<()> {
        // After a write failed for a full disk, only a committed write shows
        // that there is room again.
        let commit = self.write_refused();
        self.read("database", |c| probe(c, commit))?;
        self.note_writable();
        Ok(())
    }
}
