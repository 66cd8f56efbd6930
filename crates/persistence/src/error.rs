//! Errors: [`PersistenceError`] for opening and migrating a store, and the
//! mapping of Diesel and pool errors onto the domain's [`StoreError`].

use std::path::PathBuf;

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use equip_domain::import::ImportError;
use equip_domain::StoreError;

/// What can go wrong while opening or migrating a [`crate::Store`].
#[derive(Debug, thiserror::Error)]
pub enum PersistenceError {
    /// The database URL is empty, names an unsupported scheme, looks like a
    /// mistyped one, or has a user name or password that is not
    /// percent-encoded (the message never quotes it).
    #[error("invalid database URL: {0}")]
    InvalidUrl(String),
    /// The directory of a SQLite database file does not exist (equip creates
    /// the file, never its directory: a typo in the path must not start an
    /// empty database elsewhere).
    #[error(
        "the directory {} of the SQLite database does not exist: create it, or correct the \
         path (equip creates the database file on first start, but not its directory)",
        .0.display()
    )]
    MissingDirectory(PathBuf),
    /// The pool could not open its first connection (server down, bad
    /// credentials, unreadable file, ...).
    #[error("cannot connect to the database: {0}")]
    Connect(String),
    /// No connection became available in time.
    #[error("no database connection available: {0}")]
    Unavailable(String),
    /// A migration failed; the migrations of that run were rolled back.
    #[error("database migration failed: {0}")]
    Migration(String),
    /// Any other database failure.
    #[error("database error: {0}")]
    Database(#[from] DieselError),
}

impl From<PersistenceError> for StoreError {
    fn from(err: PersistenceError) -> Self {
        match err {
            PersistenceError::Connect(m) | PersistenceError::Unavailable(m) => {
                StoreError::Unavailable(m)
            }
            other => StoreError::Backend(other.to_string()),
        }
    }
}

/// Internal error of a store operation, mapped to [`StoreError`] at the edge.
#[derive(Debug)]
pub(crate) enum DbError {
    /// A query failed.
    Diesel(DieselError),
    /// No pooled connection in time.
    Pool(String),
    /// A stored value could not be turned back into a domain value.
    Corrupt(String),
    /// A bad import entry; the transaction must roll back.
    Import(ImportError),
    /// The caller went away: a read stopped before its next statement
    /// ([`equip_domain::interrupt`]).
    Interrupted,
}

/// `Err(DbError::Interrupted)` when the caller of this thread's read is gone:
/// asked by reads between statements (never by writes).
pub(crate) fn still_wanted() -> DbResult<()> {
    equip_domain::interrupt::check().map_err(|_| DbError::Interrupted)
}

impl From<DieselError> for DbError {
    fn from(err: DieselError) -> Self {
        Self::Diesel(err)
    }
}

impl From<ImportError> for DbError {
    fn from(err: ImportError) -> Self {
        Self::Import(err)
    }
}

impl DbError {
    /// A stored value that does not parse.
    pub(crate) fn corrupt(what: impl std::fmt::Display) -> Self {
        Self::Corrupt(what.to_string())
    }

    /// Maps to the domain error for an operation on `entity`; `duplicate` is the
    /// caller-safe description of what a unique violation means there.
    pub(crate) fn into_store(self, entity: &'static str, duplicate: &str) -> StoreError {
        match self {
            Self::Diesel(err) => map_diesel(err, entity, duplicate),
            Self::Pool(m) => StoreError::Unavailable(m),
            Self::Corrupt(m) => StoreError::Backend(format!("unreadable stored {entity}: {m}")),
            Self::Import(e) => StoreError::Backend(format!("unexpected import error: {e}")),
            Self::Interrupted => StoreError::Interrupted,
        }
    }
}

/// Maps a Diesel error: unique violation → `Duplicate`, foreign-key violation →
/// `MissingReference`; a lost connection ([`connection_lost`]), a locked
/// SQLite database, or a database that cannot be written ([`unwritable`]) →
/// `Unavailable` (503, safe to retry later); anything else → `Backend` (text
/// for logs only).
pub(crate) fn map_diesel(err: DieselError, entity: &'static str, duplicate: &str) -> StoreError {
    if connection_lost(&err) {
        return StoreError::Unavailable(format!("database connection lost: {err}"));
    }
    if let Some(why) = unwritable(&err) {
        return StoreError::Unavailable(format!("{why}: {err}"));
    }
    match err {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
            StoreError::Duplicate {
                entity,
                detail: duplicate.to_owned(),
            }
        }
        DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _) => {
            StoreError::MissingReference {
                entity,
                detail: "a referenced row does not exist in the organization".to_owned(),
            }
        }
        // Still a deadlock's victim after the transaction ran again
        // (`connection::write_transaction`): the client may retry.
        ref err if lock_conflict(err) => StoreError::Unavailable(format!(
            "the database aborted the write for a lock conflict: {err}"
        )),
        DieselError::DatabaseError(_, ref info)
            if info.message().contains("database is locked")
                || info.message().contains("database table is locked")
                // PostgreSQL 57014: a statement ran past `statement_timeout`.
                || info.message().contains("canceling statement due to statement timeout") =>
        {
            StoreError::Unavailable(info.message().to_owned())
        }
        other => StoreError::Backend(other.to_string()),
    }
}

/// Texts of errors that mean the connection to PostgreSQL is gone: libpq's
/// own ("server closed the connection unexpectedly", "no connection to the
/// server", …) and the server's FATAL messages on the way out (57P01
/// `admin_shutdown`, "terminating connection due to administrator command",
/// 57P02 `crash_shutdown`, 57P03 `cannot_connect_now`). Diesel does not
/// expose the SQLSTATE, and reports some of these as `Unknown` when libpq has
/// not yet noticed the closed socket.
const LOST_CONNECTION_TEXTS: &[&str] = &[
    "terminating connection",
    "server closed the connection",
    "no connection to the server",
    "connection to server",
    "could not receive data from server",
    "could not send data to server",
    "ssl connection has been closed",
    "connection not open",
    "the database system is shutting down",
    "the database system is starting up",
    "the database system is in recovery mode",
];

/// Whether `err` means the connection itself is gone (server restarted or
/// terminated the session, network cut), or Diesel's transaction manager gave
/// up on it ([`DieselError::BrokenTransactionManager`]): the connection must
/// not be used again, and the operation may be retried on another one.
pub(crate) fn connection_lost(err: &DieselError) -> bool {
    match err {
        DieselError::BrokenTransactionManager => true,
        DieselError::DatabaseError(
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
            _,
        ) => true,
        DieselError::DatabaseError(_, info) => {
            let message = info.message().to_ascii_lowercase();
            LOST_CONNECTION_TEXTS.iter().any(|t| message.contains(t))
        }
        _ => false,
    }
}

/// Why a write failed because the database cannot be written at all, if it
/// did: a read-only SQLite file or connection (`SQLITE_READONLY`), a full disk
/// (`SQLITE_FULL`, PostgreSQL 53100 `disk_full` and "No space left on
/// device"), a PostgreSQL in recovery or with `default_transaction_read_only`
/// (25006 `read_only_sql_transaction`).
pub(crate) fn unwritable(err: &DieselError) -> Option<&'static str> {
    let DieselError::DatabaseError(kind, info) = err else {
        return None;
    };
    if matches!(kind, DatabaseErrorKind::ReadOnlyTransaction) {
        return Some("the database is read-only");
    }
    let message = info.message().to_ascii_lowercase();
    if message.contains("readonly database")
        || message.contains("read-only transaction")
        || message.contains("read-only database")
        || message.contains("recovery is in progress")
    {
        Some("the database is read-only")
    } else if message.contains("database or disk is full")
        || message.contains("no space left on device")
        || message.contains("could not extend file")
    {
        Some("the database's disk is full")
    } else {
        None
    }
}

/// Whether `err` is PostgreSQL aborting a transaction for a lock conflict: 40001
/// `serialization_failure` (Diesel's `SerializationFailure`) or 40P01
/// `deadlock_detected`, which Diesel reports as `Unknown` (it does not expose
/// the SQLSTATE; the server's text is "deadlock detected").
pub(crate) fn lock_conflict(err: &DieselError) -> bool {
    match err {
        DieselError::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => true,
        DieselError::DatabaseError(_, info) => info
            .message()
            .to_ascii_lowercase()
            .contains("deadlock detected"),
        _ => false,
    }
}

/// Whether an error is PostgreSQL aborting a transaction for a lock conflict:
/// a deadlock's victim (40P01) or a serialization failure (40001), after which
/// the whole transaction may run again.
pub(crate) trait LockConflict {
    /// Whether this error is such an abort.
    fn is_lock_conflict(&self) -> bool;
}

impl LockConflict for DieselError {
    fn is_lock_conflict(&self) -> bool {
        lock_conflict(self)
    }
}

impl LockConflict for DbError {
    fn is_lock_conflict(&self) -> bool {
        matches!(self, Self::Diesel(err) if lock_conflict(err))
    }
}

/// Result of an internal store operation.
pub(crate) type DbResult<T> = Result<T, DbError>;

#[cfg(test)]
mod tests {
    use super::*;

    fn db(kind: DatabaseErrorKind, message: &str) -> DieselError {
        DieselError::DatabaseError(kind, Box::new(message.to_owned()))
    }

    fn unavailable(err: DieselError) -> bool {
        matches!(map_diesel(err, "person", ""), StoreError::Unavailable(_))
    }

    #[test]
    fn lost_connections_are_unavailable() {
        use DatabaseErrorKind::{ClosedConnection, Unknown};
        assert!(unavailable(DieselError::BrokenTransactionManager));
        assert!(unavailable(db(ClosedConnection, "anything")));
        for message in [
            "terminating connection due to administrator command",
            "server closed the connection unexpectedly\n\tThis probably means …",
            "SSL connection has been closed unexpectedly",
            "no connection to the server",
            "FATAL:  the database system is shutting down",
        ] {
            let err = db(Unknown, message);
            assert!(connection_lost(&err), "{message}");
            assert!(unavailable(err), "{message}");
        }
        assert!(!connection_lost(&db(Unknown, "syntax error at or near")));
        assert!(!unavailable(db(Unknown, "syntax error at or near")));
    }

    #[test]
    fn a_statement_past_its_time_limit_is_unavailable() {
        let err = db(
            DatabaseErrorKind::Unknown,
            "canceling statement due to statement timeout",
        );
        assert!(unavailable(err));
    }

    #[test]
    fn unwritable_databases_are_unavailable() {
        use DatabaseErrorKind::{ReadOnlyTransaction, Unknown};
        for (err, why) in [
            (
                db(
                    ReadOnlyTransaction,
                    "cannot execute INSERT in a read-only transaction",
                ),
                "read-only",
            ),
            (
                db(Unknown, "attempt to write a readonly database"),
                "read-only",
            ),
            (db(Unknown, "database or disk is full"), "full"),
            (
                db(
                    Unknown,
                    "could not extend file \"base/1/2\": No space left on device",
                ),
                "full",
            ),
        ] {
            assert!(unwritable(&err).is_some_and(|w| w.contains(why)), "{err}");
            assert!(unavailable(err));
        }
        assert!(unwritable(&db(Unknown, "syntax error")).is_none());
        // A unique violation stays a duplicate.
        assert!(matches!(
            map_diesel(
                db(DatabaseErrorKind::UniqueViolation, "dup"),
                "person",
                "taken"
            ),
            StoreError::Duplicate { .. }
        ));
    }

    #[test]
    fn deadlock_victims_and_serialization_failures_are_lock_conflicts() {
        use DatabaseErrorKind::{SerializationFailure, Unknown};
        let deadlock = || db(Unknown, "deadlock detected");
        assert!(lock_conflict(&deadlock()));
        assert!(lock_conflict(&db(
            SerializationFailure,
            "could not serialize access due to concurrent update"
        )));
        assert!(DbError::Diesel(deadlock()).is_lock_conflict());
        assert!(!DbError::corrupt("x").is_lock_conflict());
        assert!(!lock_conflict(&db(Unknown, "syntax error at or near")));
        assert!(!lock_conflict(&db(
            DatabaseErrorKind::UniqueViolation,
            "duplicate key value"
        )));
        // Still a victim after the retry: 503, to be retried, never a 500.
        assert!(unavailable(deadlock()));
    }
}
