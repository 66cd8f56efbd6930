//! Event retention: `serve` deletes events older than `--event-retention-days`
//! in the background, oldest first, in batches (docs/events.md, "Retention"),
//! and with them the console sessions that ended (docs/sso.md).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use chrono::Utc;
use equip_domain::ports::{EventRepository, SsoRepository};
use equip_domain::sso::SessionLimits;

/// Events deleted per call: one short transaction per organization and batch.
const BATCH: usize = 5_000;

/// How often the pruner looks for expired events.
pub const PRUNE_INTERVAL: Duration = Duration::from_secs(3600);

/// Deletes the events older than `days` days; returns how many.
///
/// # Errors
/// Store failures (what was deleted before stays deleted).
pub fn prune_once(
    store: &dyn EventRepository,
    days: u32,
) -> equip_domain::error::StoreResult<usize> {
    let cutoff = Utc::now() - chrono::Duration::days(i64::from(days));
    let mut total = 0;
    loop {
        let n = store.prune_events(cutoff, BATCH)?;
        total += n;
        if n < BATCH {
            return Ok(total);
        }
    }
}

/// Prunes at start and every [`PRUNE_INTERVAL`] until `stopped` is closed:
/// events older than `days`, and console sessions that ended and sign-in
/// attempts that expired (docs/sso.md).
pub fn run<S>(store: &S, days: u32, sessions: SessionLimits, stopped: &Receiver<()>)
where
    S: EventRepository + SsoRepository,
{
    loop {
        match prune_once(store, days) {
            Ok(0) => {}
            Ok(n) => tracing::info!("pruned {n} events older than {days} days"),
            Err(e) => tracing::warn!("could not prune old events: {e}"),
        }
        match equip_domain::services::sso::prune_ended(store, Utc::now(), sessions) {
            Ok(0) => {}
            Ok(n) => tracing::info!("pruned {n} ended sessions and expired sign-in attempts"),
            Err(e) => tracing::warn!("could not prune ended sessions: {e}"),
        }
        match stopped.recv_timeout(PRUNE_INTERVAL) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use equip_domain::event::{Actor, EventType, NewEvent, Subject, SubjectType};
    use equip_domain::event_feed::{FeedQuery, FeedRead};
    use equip_domain::ids::OrganizationId;
    use equip_domain::testing::InMemoryStore;

    #[test]
    fn events_older_than_the_retention_are_pruned_in_batches_and_the_rest_kept() {
        let store = InMemoryStore::default();
        let org = OrganizationId::new();
        let old = Utc::now() - chrono::Duration::days(91);
        let event = || {
            NewEvent::bare(
                EventType::GroupDeleted,
                Subject {
                    kind: SubjectType::Group,
                    id: uuid::Uuid::new_v4(),
                },
            )
        };
        {
            let mut s = store.state();
            for i in 0..(BATCH + 10) {
                let at = old + chrono::Duration::seconds(i64::try_from(i).unwrap());
                s.record(org, Actor::System, at, event());
            }
            s.record(org, Actor::System, Utc::now(), event());
        }
        assert_eq!(prune_once(&store, 90).unwrap(), BATCH + 10);
        let q = FeedQuery {
            after: None,
            types: vec![],
            subject_id: None,
            size: 1000,
        };
        let FeedRead::Events { events, .. } = store.read_feed(org, &q).unwrap() else {
            panic!("a feed without a cursor never expires");
        };
        assert_eq!(events.len(), 1);
        assert_eq!(prune_once(&store, 90).unwrap(), 0);
    }
}
