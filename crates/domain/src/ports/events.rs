//! Ports: reading the recorded events, and who the writes of a port are
//! attributed to.
//!
//! Every write method of the other ports records its events (see
//! [`crate::event`]) in the transaction of its change, attributed to the
//! store value's actor ([`Acting::acting_as`]).

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::event::{Actor, Event, Subject};
use crate::event_feed::{Cursor, FeedQuery, FeedRead};
use crate::ids::OrganizationId;

/// Reading events.
pub trait EventRepository: Send + Sync {
    /// The organization's events matching the query after its cursor, oldest
    /// first, and the last sequence committed when they were read (read
    /// first); [`FeedRead::Expired`] when the cursor lies before pruned
    /// events or after the last sequence.
    ///
    /// # Errors
    /// Backend failures.
    fn read_feed(&self, organization: OrganizationId, query: &FeedQuery) -> StoreResult<FeedRead>;

    /// The subject's events, newest first, before `before` (all when
    /// `None`), at most `size`.
    ///
    /// # Errors
    /// Backend failures.
    fn read_history(
        &self,
        organization: OrganizationId,
        subject: Subject,
        before: Option<Cursor>,
        size: usize,
    ) -> StoreResult<Vec<Event>>;

    /// Deletes every organization's events that occurred before `cutoff`
    /// (oldest first, so what remains of a feed has no holes), at most
    /// `limit` in one call. Returns how many it deleted.
    ///
    /// # Errors
    /// Backend failures.
    fn prune_events(&self, cutoff: DateTime<Utc>, limit: usize) -> StoreResult<usize>;
}

/// The same ports with their writes attributed to another actor.
pub trait Acting: Sized {
    /// This store's ports, recording `actor` on every event they write.
    #[must_use]
    fn acting_as(&self, actor: Actor) -> Self;
}
