//! Port: Liveness of the store.

use crate::error::StoreResult;

/// Liveness of the store.
pub trait HealthCheck: Send + Sync {
    /// Runs a trivial query.
    ///
    /// # Errors
    /// [`crate::StoreError::Unavailable`] or backend failures.
    fn ping(&self) -> StoreResult<()>;
}
