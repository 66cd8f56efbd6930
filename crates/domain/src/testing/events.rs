//! Events in memory: the feed and histories over `State::events`.

use super::*;
use crate::event::{Event, Subject};
use crate::event_feed::{Cursor, FeedQuery, FeedRead};
use crate::ports::EventRepository;

impl EventRepository for InMemoryStore {
    fn read_feed(&self, organization: OrganizationId, query: &FeedQuery) -> StoreResult<FeedRead> {
        let s = self.state();
        let (head, pruned) = s.event_heads.get(&organization).copied().unwrap_or((0, 0));
        let Some(after) = query.start(head, pruned) else {
            return Ok(FeedRead::Expired);
        };
        let events = s
            .events
            .iter()
            .filter(|e| e.organization_id == organization && e.sequence > after)
            .filter(|e| query.matches(e))
            .take(query.size)
            .cloned()
            .collect();
        Ok(FeedRead::Events { events, head })
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
        let mut through: std::collections::HashMap<OrganizationId, i64> = Default::default();
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
                through.insert(e.organization_id, e.sequence);
                deleted += 1;
            } else {
                stopped.insert(e.organization_id);
            }
        }
        s.events.retain(|e| {
            through
                .get(&e.organization_id)
                .is_none_or(|t| e.sequence > *t)
        });
        for (org, t) in through {
            if let Some(head) = s.event_heads.get_mut(&org) {
                head.1 = head.1.max(t);
            }
        }
        Ok(deleted)
    }
}
