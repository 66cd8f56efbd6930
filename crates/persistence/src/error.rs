//! Errors: [`PersistenceError`] for opening and migrating a store, and the
//! mapping of Diesel and pool errors onto the domain's [`StoreError`].

use std::path::PathBuf;

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use equip_domain::import::ImportError;
use equip_domain::StoreError;

/// What can go wrong while opening or migrating a [`crate::Store`].
#[derive(Debug, thiserror::Error)]
pub enum PersistenceError {
    /// The database URL is empty or names an unsupported scheme.
    #[error("unsupported database URL: {0}")]
    InvalidUrl(String),
    /// The directory for a new SQLite database file could not be created.
    #[error("cannot create the directory {path} for the SQLite database: {source}")]
    CreateDirectory {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
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
        }
    }
}

/// Maps a Diesel error: unique violation → `Duplicate`, foreign-key violation →
/// `MissingReference`, lost connection or a locked SQLite database →
/// `Unavailable`, anything else → `Backend` (text for logs only).
pub(crate) fn map_diesel(err: DieselError, entity: &'static str, duplicate: &str) -> StoreError {
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
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            StoreError::Unavailable(info.message().to_owned())
        }
        DieselError::DatabaseError(_, ref info)
            if info.message().contains("database is locked")
                || info.message().contains("database table is locked") =>
        {
            StoreError::Unavailable(info.message().to_owned())
        }
        other => StoreError::Backend(other.to_string()),
    }
}

/// Result of an internal store operation.
pub(crate) type DbResult<T> = Result<T, DbError>;
