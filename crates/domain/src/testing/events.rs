//! Events in memory: the feed and histories over `State::events`.

use super::*;
use crate::event::{Event, Subject};
use crate::event_feed::{Cursor, FeedMarks, FeedQuery, FeedRead};
use crate::ids::EventId;
use crate::ports::EventRepository;

impl EventRepository for InMemoryStore {
    fn read_feed(&self, organization: OrganizationId, query: &FeedQuery) -> StoreResult<FeedRead> {
        let s = self.state();
        let (head, pruned) = s.event_heads.get(&organization).copied().unwrap_or((0, 0));
        let after = match query.start(head, pruned) {
            Ok(after) => after,
            Err(refused) => return Ok(refused),
        };
        let mark = |sequence: i64| -> Option<EventId> {
            s.events
                .iter()
                .find(|e| e.organization_id == organization && e.sequence == sequence)
                .map(|e| e.id)
                .or_else(|| {
                    (sequence == pruned && sequence > 0)
                        .then(|| s.pruned_event_ids.get(&organization).copied())
                        .flatten()
                })
        };
        let marks = FeedMarks {
            after: query.after.and_then(|c| mark(c.0)),
            head: mark(head),
        };
        let events = s
            .events
            .iter()
            .filter(|e| e.organization_id == organization && e.sequence > after)
            .filter(|e| query.matches(e))
            .take(query.size)
            .cloned()
            .collect();
        Ok(FeedRead::Events {
            events,
            head,
            marks,
        })
    }

    fn read_history(
        &self,
        organization: OrganizationId,
        subject: Subject,
        before: Option<Cursor>,
        size: usize,
    ) -> StoreResult<Vec<Event>> {
        Ok(self
            .state()
            .events
            .iter()
            .rev()
            .filter(|e| e.organization_id == organization && e.subject == subject)
            .filter(|e| before.is_none_or(|b| e.sequence < b.0))
            .take(size)
            .cloned()
            .collect())
    }

    fn prune_events(&self, cutoff: DateTime<Utc>, limit: usize) -> StoreResult<usize> {
        let mut s = self.state();
        let mut through: std::collections::HashMap<OrganizationId, (i64, EventId)> =
            Default::default();
        let mut stopped: HashSet<OrganizationId> = HashSet::new();
        let mut deleted = 0;
        for e in &s.events {
            if deleted == limit {
                break;
            }
            if stopped.contains(&e.organization_id) {
                continue;
            }
            if e.occurred_at < cutoff {
                through.insert(e.organization_id, (e.sequence, e.id));
                deleted += 1;
            } else {
                stopped.insert(e.organization_id);
            }
        }
        s.events.retain(|e| {
            through
                .get(&e.organization_id)
                .is_none_or(|(t, _)| e.sequence > *t)
        });
        for (org, (t, id)) in through {
            let advanced = s.event_heads.get_mut(&org).is_some_and(|head| {
                let advanced = t > head.1;
                head.1 = head.1.max(t);
                advanced
            });
            if advanced {
                s.pruned_event_ids.insert(org, id);
            }
        }
        Ok(deleted)
    }
}
