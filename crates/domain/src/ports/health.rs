//! Port: Liveness of the store.

use crate::error::StoreResult;

/// Liveness of the store.
pub trait HealthCheck: Send + Sync {
    /// Runs a trivial query.
    ///
    /// # Errors
    /// [`crate::StoreError::Unavailable`] or backend failures.
    fn ping(&self) -> StoreResult<()>;

    /// Whether the store can be written: a write that changes nothing (rolled
    /// back), or, after a write failed for a read-only database or a full
    /// disk, a committed no-op write, preceded where the store can (a
    /// database file) by a write that needs new space on its disk. Never
    /// grows the database.
    ///
    /// # Errors
    /// [`crate::StoreError::Unavailable`] naming why it cannot be written
    /// (read-only, disk full, unreachable), or backend failures.
    fn check_writable(&self) -> StoreResult<()>;
}
