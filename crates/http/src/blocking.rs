//! Running synchronous store calls off the async workers, and refusing the
//! work nobody will read.
//!
//! Diesel is synchronous: every store call of a request runs on actix's
//! blocking threads ([`run`]), a few per worker, where it queues
//! behind the calls before it. Three rules keep that queue useful:
//!
//! - **Past capacity, refuse at once.** When the last new request to leave
//!   the queue (within the last second or so) had waited longer than
//!   [`Admission`]'s limit (one second by default, `equip serve
//!   --max-queue-wait-ms`), a new request is not queued while calls still
//!   wait: it is answered 503 with `Retry-After: 1` straight away, instead
//!   of an answer seconds later that its client has likely stopped waiting
//!   for. A request already admitted is never refused at its later calls
//!   (the gate's key check is its first). The wait measured is the wait for
//!   a blocking thread and, for any call that had to wait for one, for a
//!   database connection (reported by the store through
//!   [`equip_domain::waits`]).
//! - **Each organization within its share.** Once the gate knows the
//!   caller's organization, each later store call first takes one of the
//!   organization's places ([`crate::shares`]), waiting for it without
//!   holding a thread; an organization that already uses its share waits on
//!   its own calls only, and past the wait bound is answered 429. That wait
//!   is the organization's own and does not count as the service's.
//! - **Not started for a client that has gone.** A call that reaches the head
//!   of the queue first checks that its client is still connected
//!   ([`crate::client`]) and that actix has not dropped the request; if not,
//!   it does not run (status 499 in the request log; nobody receives it).
//! - **Stopped between statements.** While the call runs, the same test is
//!   installed as the thread's [`equip_domain::interrupt`] check, together
//!   with the request's time limit ([`crate::limits::Deadline`]): a long read
//!   stops before its next statement, and a run of writes (a receipt, a Bulk
//!   request, a CSV upload) before its next entry, once the client has gone
//!   or the limit is reached. A write already started runs to its end.
//!
//! Requests carry their admission and client into this module through a
//! task-local value the gate sets ([`scoped`]); store calls made outside a
//! gated request (health checks, tests of single handlers) are admitted and
//! always wanted.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use actix_web::web;

use crate::client::Client;
use crate::error::HttpError;
use crate::limits::Deadline;
use crate::shares::{Places, ShareTaken, Shares};
use equip_domain::ids::OrganizationId;

/// The longest a new request may have waited for a blocking thread before
/// new requests are refused, by default, in milliseconds (`equip serve
/// --max-queue-wait-ms`).
pub const DEFAULT_MAX_QUEUE_WAIT_MS: u64 = 1000;

/// [`DEFAULT_MAX_QUEUE_WAIT_MS`] as a duration.
pub const DEFAULT_MAX_QUEUE_WAIT: Duration = Duration::from_millis(DEFAULT_MAX_QUEUE_WAIT_MS);

/// Most store calls waiting for a blocking thread, whatever their waits (a
/// bound on memory under a flood).
const MAX_WAITING: usize = 4096;

/// A connection handed out slower than this had to wait for one (an idle one
/// is handed out in microseconds).
const CONNECTION_WAITED: Duration = Duration::from_millis(1);

/// Admission to the blocking threads: how many calls wait, and how long the
/// last one to start had waited.
#[derive(Debug)]
pub struct Admission {
    waiting: AtomicUsize,
    /// How long the last new request to start had waited…
    last_wait_micros: AtomicU64,
    /// … and when it started, since `epoch`.
    last_start_micros: AtomicU64,
    epoch: Instant,
    max_wait: Duration,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Admission {
    /// Refuses new calls while others wait and the last call to start had
    /// waited longer than `max_wait` (`Duration::ZERO`: never refuses, except
    /// past the bound on waiting calls).
    #[must_use]
    pub fn new(max_wait: Duration) -> Self {
        Self {
            waiting: AtomicUsize::new(0),
            last_wait_micros: AtomicU64::new(0),
            last_start_micros: AtomicU64::new(0),
            epoch: Instant::now(),
            max_wait,
        }
    }

    /// A place in the queue for a request's first store call, or `None`:
    /// refused. Its wait, once it starts, is what later requests are judged
    /// by.
    fn enter(self: &Arc<Self>) -> Option<Ticket> {
        let waiting = self.waiting.load(Ordering::Relaxed);
        let last_wait = Duration::from_micros(self.last_wait_micros.load(Ordering::Relaxed));
        let last_start = Duration::from_micros(self.last_start_micros.load(Ordering::Relaxed));
        let recent = self.epoch.elapsed().saturating_sub(last_start) < self.freshness();
        let overloaded =
            waiting > 0 && !self.max_wait.is_zero() && recent && last_wait > self.max_wait;
        if overloaded || waiting >= MAX_WAITING {
            return None;
        }
        Some(self.queue(true))
    }

    /// A place in the queue for a later store call of an admitted request:
    /// never refused (its request's earlier work would be wasted).
    fn follow(self: &Arc<Self>) -> Ticket {
        self.queue(false)
    }

    fn queue(self: &Arc<Self>, new_request: bool) -> Ticket {
        self.waiting.fetch_add(1, Ordering::Relaxed);
        Ticket {
            admission: Arc::clone(self),
            since: Instant::now(),
            waiting: true,
            new_request,
        }
    }

    /// How long the last wait says something about the queue: a wait
    /// measured longer ago than this (and at least a second) is history.
    fn freshness(&self) -> Duration {
        self.max_wait.max(Duration::from_secs(1))
    }

    /// `waited` is the latest wait of a call that started just now.
    fn record(&self, waited: Duration) {
        self.last_wait_micros
            .store(micros(waited), Ordering::Relaxed);
        self.last_start_micros
            .store(micros(self.epoch.elapsed()), Ordering::Relaxed);
    }

    /// A call that waited `for_thread` for its thread then waited
    /// `for_connection` for a database connection: when it had to wait for
    /// one at all, the sum is the latest wait (connections are shared by
    /// every request, as threads are).
    fn connection_waited(&self, for_thread: Duration, new_request: bool, for_connection: Duration) {
        if for_connection >= CONNECTION_WAITED {
            let for_thread = if new_request {
                for_thread
            } else {
                Duration::ZERO
            };
            self.record(for_thread.saturating_add(for_connection));
        }
    }

    /// Calls admitted and not started yet.
    #[must_use]
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

impl Default for Admission {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_QUEUE_WAIT)
    }
}

/// An admitted call: counted as waiting until it starts (or is dropped
/// without running).
struct Ticket {
    admission: Arc<Admission>,
    since: Instant,
    waiting: bool,
    new_request: bool,
}

impl Ticket {
    /// The call starts: a new request's wait is the admission's latest.
    /// Returns the wait for the thread.
    fn start(&mut self) -> Duration {
        let waited = self.since.elapsed();
        if self.new_request {
            self.admission.record(waited);
        }
        self.leave();
        waited
    }

    fn leave(&mut self) {
        if std::mem::take(&mut self.waiting) {
            self.admission.waiting.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.leave();
    }
}

/// What a gated request's store calls need to know: its admission and its
/// client.
#[derive(Clone)]
pub(crate) struct RequestScope {
    admission: Arc<Admission>,
    client: Option<Client>,
    /// Set by the request's first store call once admitted.
    admitted: Arc<AtomicBool>,
    /// The organizations' shares of the store calls.
    shares: Arc<Shares>,
    /// The caller's organization, once the gate has verified the key: the
    /// calls after take its places.
    organization: Arc<OnceLock<OrganizationId>>,
    /// Set once a call of the request got a place: its later calls are not
    /// refused (the work before would be wasted), they wait for theirs.
    placed: Arc<AtomicBool>,
    /// The request's time limit: its calls start nothing after it.
    deadline: Option<Deadline>,
}

impl RequestScope {
    pub(crate) fn new(
        admission: Arc<Admission>,
        shares: Arc<Shares>,
        client: Option<Client>,
    ) -> Self {
        Self {
            admission,
            client,
            admitted: Arc::default(),
            shares,
            organization: Arc::default(),
            placed: Arc::default(),
            deadline: None,
        }
    }

    /// The same scope, its calls wanted until `deadline` at most.
    #[must_use]
    pub(crate) fn until(mut self, deadline: Option<Deadline>) -> Self {
        self.deadline = deadline;
        self
    }

    /// A place of the request's organization for its next call, once the
    /// gate has verified the key (`None` before): the first may be refused,
    /// later ones wait.
    async fn places(&self) -> Result<Option<Places>, ShareTaken> {
        let Some(org) = self.organization.get() else {
            return Ok(None);
        };
        let bounded = !self.placed.load(Ordering::Relaxed);
        let places = self.shares.enter(*org, bounded).await?;
        self.placed.store(true, Ordering::Relaxed);
        Ok(Some(places))
    }

    /// The request is `org`'s: its later store calls take `org`'s places.
    pub(crate) fn set_organization(&self, org: OrganizationId) {
        let _ = self.organization.set(org);
    }

    /// A place in the queue: the first call of a request may be refused,
    /// later ones follow.
    fn ticket(&self) -> Option<Ticket> {
        if self.admitted.load(Ordering::Relaxed) {
            return Some(self.admission.follow());
        }
        let ticket = self.admission.enter()?;
        self.admitted.store(true, Ordering::Relaxed);
        Some(ticket)
    }
}

tokio::task_local! {
    static REQUEST: RequestScope;
}

/// Runs `fut` (a request's handling) with `scope` for the store calls it
/// makes.
pub(crate) async fn scoped<F: Future>(scope: RequestScope, fut: F) -> F::Output {
    REQUEST.scope(scope, fut).await
}

/// Sets its flag when dropped before [`Dropped::disarm`]: the request's
/// future was dropped while its call waited or ran.
struct Dropped(Option<Arc<AtomicBool>>);

impl Dropped {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Dropped {
    fn drop(&mut self) {
        if let Some(flag) = self.0.take() {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// Runs `f` on actix's blocking thread pool under the rules of this module;
/// its error (a domain error, or an HTTP error) becomes the HTTP error
/// answered ([`HttpError::from`] for a domain error).
///
/// # Errors
/// 429 when the organization's share stays taken, 503 when refused (past
/// capacity), 499 when the client went away before `f` started, 500 when
/// the blocking pool failed, or `f`'s error.
pub async fn run<T, E, F>(f: F) -> Result<T, HttpError>
where
    F: FnOnce() -> Result<T, E> + Send + 'static,
    E: Into<HttpError>,
    T: Send + 'static,
{
    let scope = REQUEST.try_with(Clone::clone).ok();
    // The organization's place, waited for without a thread (and before the
    // wait for a thread starts: it is the organization's own).
    let places = match &scope {
        Some(scope) => scope.places().await.map_err(|_| HttpError::share_taken())?,
        None => None,
    };
    let mut ticket = match &scope {
        Some(scope) => Some(scope.ticket().ok_or_else(HttpError::overloaded)?),
        None => None,
    };
    let deadline = scope.as_ref().and_then(|s| s.deadline);
    let client = scope.and_then(|s| s.client);
    let dropped = Arc::new(AtomicBool::new(false));
    let guard = Dropped(Some(Arc::clone(&dropped)));
    // The request's span (its id, route, organization and key) is entered
    // on the blocking thread, so that the lines the call logs carry it.
    let span = tracing::Span::current();
    let result = web::block(move || {
        let _in_span = span.enter();
        // Given back when the call ends, whether or not anyone waits for it.
        let _places = places;
        let for_thread = ticket.as_mut().map(Ticket::start);
        let wanted = move || {
            !dropped.load(Ordering::Relaxed)
                && deadline.is_none_or(|d| !d.passed())
                && client.as_ref().is_none_or(Client::connected)
        };
        if !wanted() {
            return Err(match deadline {
                Some(d) if d.passed() => HttpError::timed_out(d.limit),
                _ => HttpError::client_gone(),
            });
        }
        let (result, for_connection) =
            equip_domain::waits::measured(|| equip_domain::interrupt::while_wanted(wanted, f));
        if let (Some(ticket), Some(for_thread)) = (&ticket, for_thread) {
            ticket
                .admission
                .connection_waited(for_thread, ticket.new_request, for_connection);
        }
        result.map_err(Into::into)
    })
    .await;
    guard.disarm();
    match result {
        Ok(result) => result,
        Err(e) => Err(HttpError::internal(&e)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn new_calls_are_refused_while_others_wait_after_a_long_wait() {
        let admission = Arc::new(Admission::new(Duration::from_millis(100)));
        let mut first = admission.enter().unwrap();
        let second = admission.enter().unwrap();
        assert_eq!(admission.waiting(), 2);
        // A later call of an admitted request does not set the wait.
        let mut later = admission.follow();
        later.since -= Duration::from_secs(5);
        later.start();
        // The first call starts after a long wait; one call still waits.
        first.since -= Duration::from_millis(150);
        first.start();
        assert_eq!(admission.waiting(), 1);
        assert!(admission.enter().is_none(), "refused while one waits");
        // Once nobody waits, a request is admitted again, and a short wait
        // ends the refusals.
        drop(second);
        assert_eq!(admission.waiting(), 0);
        let mut third = admission.enter().unwrap();
        let fourth = admission.enter();
        assert!(fourth.is_none(), "the long wait is recent");
        third.start();
        let _fifth = admission.enter().unwrap();
        assert!(admission.enter().is_some(), "a short wait admits");
    }

    #[test]
    fn a_long_wait_long_ago_is_history() {
        let mut admission = Admission::new(Duration::from_millis(100));
        admission.epoch -= Duration::from_secs(10);
        let admission = Arc::new(admission);
        let mut first = admission.enter().unwrap();
        first.since -= Duration::from_millis(150);
        first.start();
        let _waiting = admission.enter().unwrap();
        assert!(admission.enter().is_none());
        // The same wait, measured two seconds ago.
        let now = micros(admission.epoch.elapsed());
        admission
            .last_start_micros
            .store(now - micros(Duration::from_secs(2)), Ordering::Relaxed);
        assert!(admission.enter().is_some());
    }

    #[test]
    fn a_zero_limit_never_refuses_below_the_bound() {
        let admission = Arc::new(Admission::new(Duration::ZERO));
        let mut first = admission.enter().unwrap();
        let _second = admission.enter().unwrap();
        first.since -= Duration::from_secs(10);
        first.start();
        assert!(admission.enter().is_some());
    }

    #[test]
    fn a_ticket_dropped_unstarted_leaves_the_queue() {
        let admission = Arc::new(Admission::default());
        let ticket = admission.enter().unwrap();
        assert_eq!(admission.waiting(), 1);
        drop(ticket);
        assert_eq!(admission.waiting(), 0);
    }
}
