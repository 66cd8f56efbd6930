//! [`EventRepository`] and [`Acting`] for [`Store`] (the statements are in
//! `crate::events`).

use chrono::{DateTime, Utc};
use diesel::Connection;

use equip_domain::error::StoreResult;
use equip_domain::event::{Actor, Event, Subject};
use equip_domain::event_feed::{Cursor, FeedQuery, FeedRead};
use equip_domain::ids::OrganizationId;
use equip_domain::ports::{Acting, EventRepository};

use crate::store::Store;

impl EventRepository for Store {
    fn read_feed(&self, organization: OrganizationId, query: &FeedQuery) -> StoreResult<FeedRead> {
        // One transaction: on SQLite one snapshot; on PostgreSQL (READ
        // COMMITTED) the head is read before the events, which is all the
        // feed needs (crate::events).
        self.read("event", |c| {
            c.transaction(|c| crate::events::read_feed(c, organization, query))
        })
    }

    fn read_history(
        &self,
        organization: OrganizationId,
        subject: Subject,
        before: Option<Cursor>,
        size: usize,
    ) -> StoreResult<Vec<Event>> {
        self.read("event", |c| {
            crate::events::read_history(c, organization, subject, before, size)
        })
    }

    fn prune_events(&self, cutoff: DateTime<Utc>, limit: usize) -> StoreResult<usize> {
        self.with("event", "", |c| crate::events::prune(c, cutoff, limit))
    }
}

impl Acting for Store {
    fn acting_as(&self, actor: Actor) -> Self {
        let mut store = self.clone();
        store.actor = actor;
        store
    }
}
