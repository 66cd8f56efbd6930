//! Port: write sessions, for a request that makes many writes in a row (a
//! SCIM Bulk request, a CSV upload).
//!
//! Each write of a session still commits on its own (a failure undoes only
//! that write, and a crash keeps every committed one), but the store may
//! acknowledge a commit before it is durable against a crash of the database
//! server itself; [`Durability::make_durable`] waits until all of them are, so
//! a caller makes one durability wait per request instead of one per write.

use crate::error::StoreResult;

/// Waits for the durability of what was committed.
pub trait Durability: Send + Sync {
    /// Returns once every write committed through this value is durable. The
    /// default suits a store whose every commit is durable when it returns.
    ///
    /// # Errors
    /// Backend failures.
    fn make_durable(&self) -> StoreResult<()> {
        Ok(())
    }
}

/// Opens write sessions: optional, a store without them serves every write
/// of a request through its plain ports.
pub trait WriteSessions: Sized {
    /// The same ports bound to one connection for the life of the returned
    /// value, committing without waiting for durability until
    /// [`Durability::make_durable`].
    ///
    /// # Errors
    /// No connection within the store's timeout.
    fn write_session(&self) -> StoreResult<Self>;
}
