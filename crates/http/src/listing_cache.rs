//! Inventory listing responses kept in memory and validated by the database on
//! every use.
//!
//! An entry is the response body of one (organization, query string) with the
//! [`ListingStamp`] read before its page was. A request reads the stamp again
//! (one indexed point read: the organization's listing version, bumped in the
//! transaction of every write that changes what the listing shows) and is
//! answered from the entry only if the stamps are equal; otherwise the page is
//! read and the entry replaced. Since the stamp lives in the database, several
//! instances over one PostgreSQL database each keep their own entries and are
//! all exact. Entries are bounded by a byte budget and evicted least recently
//! used first (an index by last use keeps each get, put and eviction at
//! O(log n), whatever the number of entries).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use actix_web::web::Bytes;
use equip_domain::ids::OrganizationId;
use equip_domain::inventory_query::ListingStamp;

/// Default byte budget: about 130 pages of 100 items.
pub const DEFAULT_BUDGET: usize = 16 * 1024 * 1024;

/// What an entry costs besides its body (key, stamp, map slot), counted
/// against the budget so that many small bodies stay bounded too.
const ENTRY_OVERHEAD: usize = 256;

/// Cached listing bodies (see the module documentation).
#[derive(Debug)]
pub struct ListingCache {
    budget: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<OrganizationId, HashMap<Arc<str>, Entry>>,
    /// The entries by last use (`Entry::used`, unique), oldest first.
    by_use: BTreeMap<u64, (OrganizationId, Arc<str>)>,
    bytes: usize,
    tick: u64,
}

#[derive(Debug)]
struct Entry {
    stamp: ListingStamp,
    body: Bytes,
    used: u64,
}

impl Entry {
    fn cost(&self, query: &str) -> usize {
        self.body.len() + query.len() + ENTRY_OVERHEAD
    }
}

impl ListingCache {
    /// A cache holding at most about `budget` bytes; 0 keeps nothing.
    #[must_use]
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// Whether it keeps anything.
    #[must_use]
    pub fn enabled(&self) -> bool {
        self.budget > 0
    }

    /// The body kept for `query` of `org` if it was read under `stamp`.
    pub fn get(&self, org: OrganizationId, query: &str, stamp: &ListingStamp) -> Option<Bytes> {
        let mut guard = self.inner.lock().ok()?;
        let inner = &mut *guard;
        inner.tick += 1;
        let tick = inner.tick;
        let entry = inner.entries.get_mut(&org)?.get_mut(query)?;
        if entry.stamp != *stamp {
            return None;
        }
        if let Some(key) = inner.by_use.remove(&entry.used) {
            inner.by_use.insert(tick, key);
        }
        entry.used = tick;
        Some(entry.body.clone())
    }

    /// Keeps `body` for `query` of `org`, read under `stamp`; evicts the
    /// least recently used entries beyond the budget. A body larger than an
    /// eighth of the budget is not kept.
    pub fn put(&self, org: OrganizationId, query: &str, stamp: ListingStamp, body: Bytes) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let entry = Entry {
            stamp,
            body,
            used: 0,
        };
        let cost = entry.cost(query);
        if cost > self.budget / 8 {
            return;
        }
        inner.tick += 1;
        let tick = inner.tick;
        let query: Arc<str> = query.into();
        let old = inner.entries.entry(org).or_default().insert(
            Arc::clone(&query),
            Entry {
                used: tick,
                ..entry
            },
        );
        let freed = old.map_or(0, |e| {
            inner.by_use.remove(&e.used);
            e.cost(&query)
        });
        inner.by_use.insert(tick, (org, query));
        inner.bytes = inner.bytes + cost - freed;
        while inner.bytes > self.budget {
            if !inner.evict_oldest() {
                break;
            }
        }
    }

    /// Bytes held (bodies and overhead).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.bytes)
    }
}

impl Inner {
    /// Removes the least recently used entry; false when there is none.
    fn evict_oldest(&mut self) -> bool {
        let Some((_, (org, query))) = self.by_use.pop_first() else {
            return false;
        };
        if let Some(queries) = self.entries.get_mut(&org) {
            if let Some(e) = queries.remove(&query) {
                self.bytes -= e.cost(&query);
            }
            if queries.is_empty() {
                self.entries.remove(&org);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn stamp(version: i64) -> ListingStamp {
        ListingStamp {
            version,
            people: Vec::new(),
        }
    }

    #[test]
    fn a_body_is_served_only_under_the_stamp_it_was_read_with() {
        let cache = ListingCache::new(DEFAULT_BUDGET);
        let org = OrganizationId::new();
        cache.put(org, "page=1", stamp(3), Bytes::from_static(b"v3"));
        assert_eq!(cache.get(org, "page=1", &stamp(3)).unwrap(), "v3");
        assert!(cache.get(org, "page=1", &stamp(4)).is_none());
        assert!(cache.get(org, "page=2", &stamp(3)).is_none());
        assert!(cache
            .get(OrganizationId::new(), "page=1", &stamp(3))
            .is_none());
        let people = ListingStamp {
            version: 3,
            people: vec!["p".into()],
        };
        assert!(cache.get(org, "page=1", &people).is_none());
        cache.put(org, "page=1", stamp(4), Bytes::from_static(b"v4"));
        assert_eq!(cache.get(org, "page=1", &stamp(4)).unwrap(), "v4");
        assert!(cache.get(org, "page=1", &stamp(3)).is_none());
    }

    #[test]
    fn the_budget_holds_and_the_least_recently_used_go_first() {
        let body = Bytes::from(vec![b'x'; 1000]);
        let per_entry = 1000 + "q00".len() + ENTRY_OVERHEAD;
        let cache = ListingCache::new(per_entry * 10);
        let org = OrganizationId::new();
        for n in 0..10 {
            cache.put(org, &format!("q{n:02}"), stamp(1), body.clone());
        }
        assert_eq!(cache.bytes(), per_entry * 10);
        // q00 is used again: q01 is now the oldest.
        assert!(cache.get(org, "q00", &stamp(1)).is_some());
        cache.put(org, "q10", stamp(1), body.clone());
        assert_eq!(cache.bytes(), per_entry * 10);
        assert!(cache.get(org, "q00", &stamp(1)).is_some());
        assert!(cache.get(org, "q01", &stamp(1)).is_none());
        assert!(cache.get(org, "q10", &stamp(1)).is_some());
        // Replacing an entry does not count it twice.
        cache.put(org, "q10", stamp(2), body.clone());
        assert_eq!(cache.bytes(), per_entry * 10);
        // Too big for the budget: not kept, nothing evicted.
        cache.put(org, "big", stamp(1), Bytes::from(vec![b'x'; per_entry * 2]));
        assert!(cache.get(org, "big", &stamp(1)).is_none());
        assert_eq!(cache.bytes(), per_entry * 10);
        // The use index holds each entry once.
        let inner = cache.inner.lock().unwrap();
        let entries: usize = inner.entries.values().map(HashMap::len).sum();
        assert_eq!((entries, inner.by_use.len()), (10, 10));
    }

    #[test]
    fn many_organizations_evict_in_order_of_use() {
        let body = Bytes::from(vec![b'x'; 100]);
        let per_entry = 100 + "q".len() + ENTRY_OVERHEAD;
        let cache = ListingCache::new(per_entry * 100);
        let orgs: Vec<_> = (0..1000).map(|_| OrganizationId::new()).collect();
        for org in &orgs {
            cache.put(*org, "q", stamp(1), body.clone());
        }
        // The last 100 stay, the others went oldest first.
        assert_eq!(cache.bytes(), per_entry * 100);
        assert!(orgs[..900]
            .iter()
            .all(|o| cache.get(*o, "q", &stamp(1)).is_none()));
        assert!(orgs[900..]
            .iter()
            .all(|o| cache.get(*o, "q", &stamp(1)).is_some()));
        let inner = cache.inner.lock().unwrap();
        assert_eq!((inner.entries.len(), inner.by_use.len()), (100, 100));
    }

    #[test]
    fn a_zero_budget_keeps_nothing() {
        let cache = ListingCache::new(0);
        assert!(!cache.enabled());
        let org = OrganizationId::new();
        cache.put(org, "", stamp(1), Bytes::from_static(b"x"));
        assert!(cache.get(org, "", &stamp(1)).is_none());
        assert_eq!(cache.bytes(), 0);
    }
}
