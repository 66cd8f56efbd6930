//! Port: write sessions, for a request that makes many writes in a row (a
//! SCIM Bulk request, a CSV upload).
//!
//! Each write of a session commits on its own (a failure undoes only that
//! write) and is durable when its commit returns, as every write of the
//! store is: nothing is reported, or visible to another reader (the feed,
//! webhooks), before a crash of the database server could take it back.
//! What a session saves is a connection check-out per write.

use crate::error::StoreResult;

/// Opens write sessions: optional, a store without them serves every write
/// of a request through its plain ports.
pub trait WriteSessions: Sized {
    /// The same ports bound to one connection for the life of the returned
    /// value.
    ///
    /// # Errors
    /// No connection within the store's timeout.
    fn write_session(&self) -> StoreResult<Self>;
}
