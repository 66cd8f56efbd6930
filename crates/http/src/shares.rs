//! Each organization's share of the store: how many store calls of one
//! organization may run (or wait for a blocking thread) at once (`equip serve
//! --max-store-calls-per-organization`; docs/reliability.md, "Fairness
//! between organizations").
//!
//! Without a bound, one organization's key, well within its rate limit,
//! could hold every pooled connection and every blocking thread with slow
//! reads (an expensive SCIM filter deep in its results), and every other
//! organization's requests would wait behind them. So every store call of a
//! gated request after the key check ([`crate::blocking::run`]) first
//! takes a place of its organization:
//!
//! - at most `per_organization` in the whole process (by default half the
//!   pool's connections, at least one, and on SQLite no more than the
//!   machine's CPUs), so the others keep the rest of the pool;
//! - at most `per_worker` on one actix worker (half its blocking threads, at
//!   least one), so a worker's requests of other organizations always find a
//!   thread.
//!
//! A call waits for its place without holding a thread or a connection. A
//! request whose first call cannot get one within the wait bound
//! (`--max-queue-wait-ms`) is answered 429 with `Retry-After`: only that
//! organization is refused, the others are unaffected. Once a call of a
//! request got a place, its later calls wait for theirs as long as it takes
//! (they wait only for the same organization's calls to end). The place is given back when the call ends, on its
//! blocking thread, even when the request has gone meanwhile.
//!
//! An API key belongs to one organization: what a key may hold is bounded by
//! its organization's share.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use equip_domain::ids::OrganizationId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default share of one organization in the whole process: half the
/// pool's connections, at least one; and when the database runs on this
/// process's CPUs (SQLite: `in_process_cpus`), no more than there are CPUs:
/// more of one organization's calls at once would not read faster, they
/// would only take CPU time from the others' calls.
#[must_use]
pub fn default_per_organization(pool_size: u32, in_process_cpus: Option<usize>) -> usize {
    let half_the_pool = usize::try_from(pool_size / 2).unwrap_or(usize::MAX);
    in_process_cpus
        .map_or(half_the_pool, |cpus| half_the_pool.min(cpus))
        .max(1)
}

/// The share of one organization on one worker: half the worker's blocking
/// threads, at least one, and never more than its share in the process.
#[must_use]
pub fn per_worker(blocking_threads: usize, per_organization: usize) -> usize {
    (blocking_threads / 2).max(1).min(per_organization.max(1))
}

/// Distinguishes the worker-local places of different [`Shares`] (tests run
/// several applications on one thread).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This worker's places, by shares and organization.
    static WORKER: RefCell<HashMap<(u64, OrganizationId), Arc<Semaphore>>> =
        RefCell::new(HashMap::new());
}

/// The organizations' shares of the store calls, shared by every worker.
#[derive(Debug)]
pub struct Shares {
    id: u64,
    /// Places of one organization in the process (0: no limit).
    per_organization: usize,
    /// Places of one organization on one worker (0: no limit).
    per_worker: usize,
    /// The longest a call waits for its place (`Duration::ZERO`: no bound).
    max_wait: Duration,
    organizations: Mutex<HashMap<OrganizationId, Arc<Semaphore>>>,
}

/// A call's places, given back when dropped.
#[derive(Debug)]
pub(crate) struct Places {
    _process: Option<OwnedSemaphorePermit>,
    _worker: Option<OwnedSemaphorePermit>,
}

/// No place within the wait bound: the organization already uses its share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShareTaken;

impl Shares {
    /// No limits: every call runs as soon as a thread is free (the default of
    /// an [`crate::AppState`]; `equip serve` sets limits).
    #[must_use]
    pub fn off() -> Self {
        Self::new(0, 0, Duration::ZERO)
    }

    /// At most `per_organization` calls of one organization in the process
    /// and `per_worker` on one worker (0: no limit), each waiting at most
    /// `max_wait` for its place (`Duration::ZERO`: as long as it takes).
    #[must_use]
    pub fn new(per_organization: usize, per_worker: usize, max_wait: Duration) -> Self {
        Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            per_organization,
            per_worker,
            max_wait,
            organizations: Mutex::default(),
        }
    }

    /// Places of one organization in the process (0: no limit).
    #[must_use]
    pub fn per_organization(&self) -> usize {
        self.per_organization
    }

    fn process_places(&self, org: OrganizationId) -> Option<Arc<Semaphore>> {
        if self.per_organization == 0 {
            return None;
        }
        let mut map = self
            .organizations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Some(Arc::clone(map.entry(org).or_insert_with(|| {
            Arc::new(Semaphore::new(self.per_organization))
        })))
    }

    fn worker_places(&self, org: OrganizationId) -> Option<Arc<Semaphore>> {
        if self.per_worker == 0 {
            return None;
        }
        Some(WORKER.with(|w| {
            Arc::clone(
                w.borrow_mut()
                    .entry((self.id, org))
                    .or_insert_with(|| Arc::new(Semaphore::new(self.per_worker))),
            )
        }))
    }

    /// Places for one store call of `org`: the worker's, then the process's,
    /// within the wait bound when `bounded` (else as long as it takes).
    pub(crate) async fn enter(
        &self,
        org: OrganizationId,
        bounded: bool,
    ) -> Result<Places, ShareTaken> {
        let deadline =
            (bounded && !self.max_wait.is_zero()).then(|| Instant::now() + self.max_wait);
        let taken = ShareTaken;
        let worker = match self.worker_places(org) {
            Some(places) => Some(Self::place(places, deadline).await.ok_or(taken)?),
            None => None,
        };
        let process = match self.process_places(org) {
            Some(places) => Some(Self::place(places, deadline).await.ok_or(taken)?),
            None => None,
        };
        Ok(Places {
            _process: process,
            _worker: worker,
        })
    }

    async fn place(
        places: Arc<Semaphore>,
        deadline: Option<Instant>,
    ) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = Arc::clone(&places).try_acquire_owned() {
            return Some(permit);
        }
        let Some(deadline) = deadline else {
            return places.acquire_owned().await.ok();
        };
        let left = deadline.saturating_duration_since(Instant::now());
        actix_web::rt::time::timeout(left, places.acquire_owned())
            .await
            .ok()
            .and_then(Result::ok)
    }
}

impl Default for Shares {
    fn default() -> Self {
        Self::off()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defaults_leave_the_others_half() {
        assert_eq!(default_per_organization(16, None), 8);
        assert_eq!(default_per_organization(8, None), 4);
        assert_eq!(default_per_organization(1, None), 1);
        // SQLite reads on this process's CPUs.
        assert_eq!(default_per_organization(8, Some(2)), 2);
        assert_eq!(default_per_organization(8, Some(16)), 4);
        assert_eq!(default_per_organization(8, Some(0)), 1);
        assert_eq!(per_worker(4, 8), 2);
        assert_eq!(per_worker(4, 1), 1);
        assert_eq!(per_worker(1, 4), 1);
        assert_eq!(per_worker(3, 4), 1);
    }

    #[actix_web::test]
    async fn one_organization_waits_for_its_own_places_only() {
        let shares = Shares::new(2, 0, Duration::from_millis(50));
        let (a, b) = (OrganizationId::new(), OrganizationId::new());
        let first = shares.enter(a, true).await.unwrap();
        let _second = shares.enter(a, true).await.unwrap();
        let started = Instant::now();
        assert_eq!(shares.enter(a, true).await.unwrap_err(), ShareTaken);
        assert!(started.elapsed() >= Duration::from_millis(50));
        // Another organization is not affected.
        let _other = shares.enter(b, true).await.unwrap();
        // A place given back is taken again.
        drop(first);
        let third = shares.enter(a, true).await.unwrap();
        // A later call of a request that had a place waits for its own.
        actix_web::rt::spawn(async move {
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
            drop(third);
        });
        let started = Instant::now();
        assert!(shares.enter(a, false).await.is_ok());
        assert!(started.elapsed() >= Duration::from_millis(100));
    }

    #[actix_web::test]
    async fn a_worker_holds_at_most_its_share() {
        let shares = Shares::new(4, 1, Duration::from_millis(20));
        let a = OrganizationId::new();
        let held = shares.enter(a, true).await.unwrap();
        assert!(
            shares.enter(a, true).await.is_err(),
            "the worker's one place"
        );
        drop(held);
        let _again = shares.enter(a, true).await.unwrap();
    }

    #[actix_web::test]
    async fn off_never_waits() {
        let shares = Shares::off();
        let a = OrganizationId::new();
        let mut held = Vec::new();
        for _ in 0..50 {
            held.push(shares.enter(a, true).await.unwrap());
        }
    }
}
