//! The webhook dispatcher.
//!
//! One coordinator thread looks for work every `poll_interval` (a cheap read
//! while nothing is due) and claims as many webhooks as it has idle workers,
//! each with a lease (`claimed_until`) that no other dispatcher (thread,
//! process or host) can take while it runs (PostgreSQL `FOR UPDATE SKIP
//! LOCKED`, SQLite `BEGIN IMMEDIATE`). A worker then delivers its webhook's
//! events in sequence order: it reads them from the feed in batches
//! (`read_feed` with the webhook's types after its position), POSTs each one
//! and waits for the answer before the next, so event n+1 never goes out
//! before n succeeded or was given up on.
//!
//! The position and the delivery log are written in batches (every
//! `flush_every` attempts or `flush_interval`, at a failure and at the end),
//! each write renewing the lease and only if the lease is still held. At
//! least once: after a crash the deliveries since the last write are made
//! again by whoever claims the webhook after the lease ran out.
//!
//! A failure schedules a retry of the same event (the domain's back-off) and
//! releases the webhook; a retry past the event's 24-hour window gives the
//! event up (logged as `FAILED`) and moves on, and a webhook failing
//! continuously for 24 hours is disabled
//! ([`equip_domain::webhook::RetryPolicy::after_failure`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, Utc};
use equip_api_types::event::EventBody;
use equip_domain::event::Event;
use equip_domain::event_feed::{Cursor, FeedQuery, FeedRead};
use equip_domain::ports::{EventRepository, WebhookQueue};
use equip_domain::webhook::{
    disabled_reason, error_text, signature_header, standard_signature_header, AfterFailure,
    AttemptOutcome, DeliveryAttempt, DeliveryState, RetryPolicy, SigningSecrets, Webhook,
    WebhookProgress,
};
use equip_domain::StoreError;

use super::transport::WebhookTransport;

/// What the dispatcher needs of a store.
pub trait DeliveryStore: WebhookQueue + EventRepository {}
impl<T: WebhookQueue + EventRepository> DeliveryStore for T {}

/// How a dispatcher behaves.
#[derive(Debug, Clone, Copy)]
pub struct WebhookOptions {
    /// Webhooks delivered at once (one thread each).
    pub workers: usize,
    /// Pause between looks for work while there is none.
    pub poll_interval: StdDuration,
    /// Length of a claim's lease (renewed with every write of progress).
    pub lease: StdDuration,
    /// Events read from the feed at once.
    pub batch: usize,
    /// Attempts after which progress is written.
    pub flush_every: usize,
    /// Time after which progress is written.
    pub flush_interval: StdDuration,
    /// Time-out of one delivery (also in the transport).
    pub timeout: StdDuration,
    /// Back-off and the 24-hour rules.
    pub retry: RetryPolicy,
    /// Delivery-log rows older than this many days are deleted (the event
    /// retention, `serve --event-retention-days`).
    pub retention_days: u32,
    /// How often the delivery log is pruned.
    pub prune_interval: StdDuration,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        Self {
            workers: 4,
            poll_interval: StdDuration::from_millis(500),
            lease: StdDuration::from_secs(60),
            batch: 500,
            flush_every: 100,
            flush_interval: StdDuration::from_secs(1),
            timeout: StdDuration::from_secs(10),
            retry: RetryPolicy::default(),
            retention_days: 90,
            prune_interval: StdDuration::from_secs(3600),
        }
    }
}

fn chrono_of(d: StdDuration) -> Duration {
    Duration::from_std(d).unwrap_or_else(|_| Duration::hours(1))
}

/// Delivery-log rows deleted per call.
const PRUNE_BATCH: usize = 5_000;

/// Delivers every organization's webhooks from one store.
pub struct WebhookDispatcher {
    store: Arc<dyn DeliveryStore>,
    transport: Arc<dyn WebhookTransport>,
    options: WebhookOptions,
}

/// A started dispatcher; stopped (and its threads joined) by [`Self::stop`]
/// or on drop.
pub struct RunningDispatcher {
    stop: Option<Sender<()>>,
    stopping: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl RunningDispatcher {
    /// Stops: each worker writes its progress and releases its webhook after
    /// the delivery it is making; then the threads are joined.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        drop(self.stop.take());
        for handle in self.threads.drain(..) {
            if handle.join().is_err() {
                tracing::error!("a webhook dispatcher thread panicked");
            }
        }
    }
}

impl Drop for RunningDispatcher {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Where one webhook's delivery stands while a worker holds it.
struct Holding {
    webhook: Webhook,
    token: DateTime<Utc>,
    state: DeliveryState,
    failing_since: Option<DateTime<Utc>>,
    number: i64,
    pending: Vec<DeliveryAttempt>,
    last_write: Instant,
}

impl WebhookDispatcher {
    /// A dispatcher over `store` posting through `transport`.
    pub fn new(
        store: Arc<dyn DeliveryStore>,
        transport: Arc<dyn WebhookTransport>,
        options: WebhookOptions,
    ) -> Self {
        Self {
            store,
            transport,
            options,
        }
    }

    /// Starts the coordinator and the workers.
    ///
    /// # Errors
    /// A thread cannot be started.
    pub fn start(self) -> std::io::Result<RunningDispatcher> {
        let this = Arc::new(self);
        let stopping = Arc::new(AtomicBool::new(false));
        let busy = Arc::new(AtomicUsize::new(0));
        let (work_tx, work_rx) = mpsc::channel::<Webhook>();
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let mut threads = Vec::new();
        for i in 0..this.options.workers.max(1) {
            let this = Arc::clone(&this);
            let rx = Arc::clone(&work_rx);
            let stopping = Arc::clone(&stopping);
            let busy = Arc::clone(&busy);
            threads.push(
                std::thread::Builder::new()
                    .name(format!("equip-webhook-{i}"))
                    .spawn(move || this.work(&rx, &stopping, &busy))?,
            );
        }
        {
            let this = Arc::clone(&this);
            let stopping = Arc::clone(&stopping);
            threads.push(
                std::thread::Builder::new()
                    .name("equip-webhooks".into())
                    .spawn(move || this.coordinate(&work_tx, &stop_rx, &stopping, &busy))?,
            );
        }
        tracing::info!(
            "webhook dispatcher started ({} workers)",
            this.options.workers.max(1)
        );
        Ok(RunningDispatcher {
            stop: Some(stop_tx),
            stopping,
            threads,
        })
    }

    /// The coordinator: claims webhooks for idle workers; prunes the log.
    fn coordinate(
        &self,
        work: &Sender<Webhook>,
        stop: &Receiver<()>,
        stopping: &AtomicBool,
        busy: &AtomicUsize,
    ) {
        let workers = self.options.workers.max(1);
        let mut last_prune: Option<Instant> = None;
        loop {
            if stopping.load(Ordering::SeqCst) {
                break;
            }
            let idle = workers.saturating_sub(busy.load(Ordering::SeqCst));
            let mut claimed_any = false;
            if idle > 0 {
                match self.claim(idle) {
                    Ok(claimed) => {
                        for webhook in claimed {
                            claimed_any = true;
                            busy.fetch_add(1, Ordering::SeqCst);
                            if work.send(webhook).is_err() {
                                busy.fetch_sub(1, Ordering::SeqCst);
                            }
                        }
                    }
                    Err(e) => tracing::warn!("webhook dispatcher: cannot claim webhooks: {e}"),
                }
            }
            if last_prune.is_none_or(|t| t.elapsed() >= self.options.prune_interval) {
                self.prune();
                last_prune = Some(Instant::now());
            }
            // Look again soon after handing out work (a worker that is done
            // quickly frees its slot), else after the poll interval.
            let pause = if claimed_any {
                self.options.poll_interval / 5
            } else {
                self.options.poll_interval
            };
            match stop.recv_timeout(pause) {
                Err(RecvTimeoutError::Timeout) => {}
                Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        tracing::info!("webhook dispatcher stopped");
    }

    fn claim(&self, limit: usize) -> Result<Vec<Webhook>, StoreError> {
        let now = Utc::now();
        if !self.store.webhooks_due(now)? {
            return Ok(Vec::new());
        }
        self.store
            .claim_webhooks(now, now + chrono_of(self.options.lease), limit)
    }

    /// Deletes delivery-log rows older than the retention.
    pub fn prune(&self) {
        let cutoff = Utc::now() - Duration::days(i64::from(self.options.retention_days));
        let mut total = 0;
        loop {
            match self.store.prune_webhook_attempts(cutoff, PRUNE_BATCH) {
                Ok(n) => {
                    total += n;
                    if n < PRUNE_BATCH {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!("could not prune the webhook delivery log: {e}");
                    break;
                }
            }
        }
        if total > 0 {
            tracing::info!(
                "pruned {total} webhook delivery attempts older than {} days",
                self.options.retention_days
            );
        }
    }

    fn work(&self, work: &Mutex<Receiver<Webhook>>, stopping: &AtomicBool, busy: &AtomicUsize) {
        loop {
            let next = {
                let rx = work
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                rx.recv()
            };
            let Ok(webhook) = next else {
                return;
            };
            let id = webhook.id;
            if let Err(e) = self.deliver(webhook, stopping) {
                // Its lease runs out and it is claimed again.
                tracing::warn!("webhook {id}: delivery stopped: {e}");
            }
            busy.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Delivers a claimed webhook's events until it is caught up, a delivery
    /// failed (a retry is scheduled), it is disabled, its lease is lost or
    /// the dispatcher stops. Its progress is written and it is released.
    ///
    /// # Errors
    /// A store failure (what was written stays; the lease runs out).
    pub fn deliver(&self, webhook: Webhook, stopping: &AtomicBool) -> Result<(), StoreError> {
        let Some(token) = webhook.claimed_until else {
            return Ok(());
        };
        let mut h = Holding {
            token,
            state: webhook.delivery,
            failing_since: webhook.failing_since,
            number: webhook.last_attempt_number,
            pending: Vec::new(),
            last_write: Instant::now(),
            webhook,
        };
        self.deliver_held(&mut h, stopping)
    }

    fn deliver_held(&self, h: &mut Holding, stopping: &AtomicBool) -> Result<(), StoreError> {
        loop {
            let query = FeedQuery {
                after: Some(Cursor(h.state.position)),
                types: h.webhook.types.clone(),
                subject_id: None,
                size: self.options.batch,
            };
            let (events, head) = match self.store.read_feed(h.webhook.organization_id, &query)? {
                FeedRead::Events { events, head, .. } => (events, head),
                FeedRead::Expired | FeedRead::Ahead => {
                    // Its position is past the last event (or before pruned
                    // ones, which the next claim skips): nothing to send now.
                    // (Past the last event: the database was restored while
                    // this instance ran, which docs/operations.md forbids.)
                    tracing::warn!(
                        "webhook {}: its position {} is outside the organization's feed",
                        h.webhook.id,
                        h.state.position
                    );
                    return self.write(h, None, true).map(drop);
                }
            };
            let full = events.len() == self.options.batch;
            for event in &events {
                if stopping.load(Ordering::SeqCst) {
                    return self.write(h, None, true).map(drop);
                }
                // Renew the lease while at least two time-outs are left of it
                // (half of it, for a lease shorter than that).
                let margin = (chrono_of(self.options.timeout) * 2 + Duration::seconds(1))
                    .min(chrono_of(self.options.lease) / 2);
                if Utc::now() + margin >= h.token && !self.write(h, None, false)? {
                    return Ok(());
                }
                // Deleted meanwhile (or its lease lost): no delivery starts
                // after a DELETE was answered. The secrets of this moment: a
                // rotation signs from the next delivery on.
                let Some(secrets) = self.store.leased_webhook_secrets(h.webhook.id, h.token)?
                else {
                    return Ok(());
                };
                match self.attempt(h, event, &secrets) {
                    Step::Next => {}
                    Step::Stop { disable } => return self.write(h, disable, true).map(drop),
                }
                if (h.pending.len() >= self.options.flush_every
                    || h.last_write.elapsed() >= self.options.flush_interval)
                    && !self.write(h, None, false)?
                {
                    return Ok(());
                }
            }
            if !full {
                // Every matching event up to the head was read: skip to it.
                h.state.position = h.state.position.max(head);
                return self.write(h, None, true).map(drop);
            }
        }
    }

    /// Posts one event, signed with `secrets` in both forms, and records
    /// the attempt in `h`.
    fn attempt(&self, h: &mut Holding, event: &Event, secrets: &SigningSecrets) -> Step {
        let body = serde_json::to_vec(&EventBody::from(event)).unwrap_or_default();
        let attempted_at = Utc::now();
        let timestamp = attempted_at.timestamp();
        let keys = secrets.valid_at(attempted_at);
        let signature = signature_header(&keys, timestamp, &body);
        let event_id = event.id.to_string();
        let standard = standard_signature_header(&keys, &event_id, timestamp, &body);
        let timestamp = timestamp.to_string();
        let answer = self.transport.post(
            &h.webhook.url,
            &[
                ("Content-Type", "application/json"),
                ("Equip-Event-Id", &event_id),
                ("Equip-Signature", &signature),
                // Standard Webhooks (standardwebhooks.com): the same event,
                // signed over "<id>.<timestamp>.<body>".
                ("webhook-id", &event_id),
                ("webhook-timestamp", &timestamp),
                ("webhook-signature", &standard),
            ],
            &body,
        );
        h.number += 1;
        let mut record = DeliveryAttempt {
            webhook_id: h.webhook.id,
            organization_id: h.webhook.organization_id,
            number: h.number,
            event_id: event.id,
            sequence: event.sequence,
            attempted_at,
            status_code: answer.status,
            latency_ms: u64::try_from(answer.latency.as_millis()).unwrap_or(u64::MAX),
            error: None,
            outcome: AttemptOutcome::Succeeded,
        };
        if answer.succeeded() {
            h.state = DeliveryState {
                position: event.sequence,
                ..DeliveryState::default()
            };
            h.failing_since = None;
            h.pending.push(record);
            return Step::Next;
        }
        let now = Utc::now();
        let error = answer.error.unwrap_or_else(|| "failed".into());
        record.error = Some(error_text(&error));
        let attempts = h.state.attempts.saturating_add(1);
        let outcome =
            self.options
                .retry
                .after_failure(attempts, h.state.retry_since, h.failing_since, now);
        let failing_since = h.failing_since.unwrap_or(attempted_at);
        h.failing_since = Some(failing_since);
        match outcome {
            AfterFailure::RetryAt(at) => {
                tracing::warn!(
                    "webhook {} event {} (sequence {}) attempt {attempts} failed: {error}; retry at {}",
                    h.webhook.id,
                    event.id,
                    event.sequence,
                    at.format("%Y-%m-%dT%H:%M:%S%.3fZ")
                );
                record.outcome = AttemptOutcome::Retrying;
                h.state = DeliveryState {
                    position: h.state.position,
                    attempts,
                    retry_since: Some(h.state.retry_since.unwrap_or(attempted_at)),
                    next_attempt_at: Some(at),
                };
                h.pending.push(record);
                Step::Stop { disable: None }
            }
            AfterFailure::GiveUp { disable } => {
                tracing::error!(
                    "webhook {} event {} (sequence {}) given up after {attempts} attempts: {error}",
                    h.webhook.id,
                    event.id,
                    event.sequence
                );
                record.outcome = AttemptOutcome::Failed;
                h.state = DeliveryState {
                    position: event.sequence,
                    ..DeliveryState::default()
                };
                h.pending.push(record);
                if disable {
                    tracing::error!(
                        "webhook {} disabled: failing continuously since {}",
                        h.webhook.id,
                        failing_since.format("%Y-%m-%dT%H:%M:%SZ")
                    );
                    Step::Stop {
                        disable: Some((now, disabled_reason(failing_since, &self.options.retry))),
                    }
                } else {
                    Step::Next
                }
            }
        }
    }

    /// Writes progress, renewing the lease or releasing the webhook; false
    /// when the lease was lost (nothing was written).
    fn write(
        &self,
        h: &mut Holding,
        disable: Option<(DateTime<Utc>, String)>,
        release: bool,
    ) -> Result<bool, StoreError> {
        let lease_until = (!release).then(|| Utc::now() + chrono_of(self.options.lease));
        let progress = WebhookProgress {
            delivery: h.state,
            failing_since: h.failing_since,
            disable,
            attempts: std::mem::take(&mut h.pending),
            last_attempt_number: h.number,
            lease_until,
        };
        let written = self
            .store
            .save_webhook_progress(h.webhook.id, h.token, &progress)?;
        h.last_write = Instant::now();
        if written {
            if let Some(lease) = lease_until {
                h.token = lease;
            }
        } else {
            tracing::warn!(
                "webhook {}: its lease was lost (or it was deleted); {} attempts since the last \
                 write were not recorded and may be made again",
                h.webhook.id,
                progress.attempts.len()
            );
        }
        Ok(written)
    }
}

/// After one attempt.
enum Step {
    /// Go on with the next event.
    Next,
    /// Write and release (a retry is scheduled, or the webhook is disabled).
    Stop {
        disable: Option<(DateTime<Utc>, String)>,
    },
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use equip_domain::event::{Actor, EventType, NewEvent, Subject, SubjectType};
    use equip_domain::ports::WebhookRepository;
    use equip_domain::services::admin::create_organization;
    use equip_domain::testing::InMemoryStore;
    use equip_domain::webhook::WebhookUrl;

    use super::*;
    use crate::webhooks::Answer;

    /// Answers every post with `status`; records the `Equip-Event-Id` and
    /// `Equip-Signature` of each.
    struct Recording {
        status: u16,
        posts: Mutex<Vec<(String, String)>>,
    }

    impl WebhookTransport for Recording {
        fn post(&self, _url: &str, headers: &[(&str, &str)], _body: &[u8]) -> Answer {
            let header = |name: &str| {
                headers
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_owned())
                    .unwrap_or_default()
            };
            self.posts
                .lock()
                .unwrap()
                .push((header("Equip-Event-Id"), header("Equip-Signature")));
            Answer {
                status: Some(self.status),
                error: (self.status >= 300).then(|| format!("answered {}", self.status)),
                latency: StdDuration::from_millis(1),
            }
        }
    }

    /// An organization with a webhook and `events` events after it.
    fn store_with_events(events: usize) -> (Arc<InMemoryStore>, Vec<String>) {
        let store = Arc::new(InMemoryStore::default());
        let now = Utc::now();
        let org = create_organization(&*store, "Acme", now).unwrap().id;
        let url = WebhookUrl::parse("https://hooks.example/equip").unwrap();
        let webhook = Webhook::new(org, &url, vec![], now).unwrap();
        store.insert_webhook(&webhook).unwrap().unwrap();
        let mut s = store.state();
        for _ in 0..events {
            let subject = Subject {
                kind: SubjectType::Group,
                id: *equip_domain::ids::GroupId::new().as_uuid(),
            };
            s.record(
                org,
                Actor::System,
                Utc::now(),
                NewEvent::bare(EventType::GroupDeleted, subject),
            );
        }
        drop(s);
        let query = FeedQuery {
            after: None,
            types: vec![],
            subject_id: None,
            size: 1000,
        };
        let FeedRead::Events { events, .. } = store.read_feed(org, &query).unwrap() else {
            panic!("a feed read without a cursor has events");
        };
        let ids = events.iter().map(|e| e.id.to_string()).collect();
        (store, ids)
    }

    fn fast() -> WebhookOptions {
        WebhookOptions {
            workers: 2,
            poll_interval: StdDuration::from_millis(20),
            batch: 2,
            ..WebhookOptions::default()
        }
    }

    #[test]
    fn events_are_posted_in_order_and_signed_then_the_dispatcher_stops() {
        let (store, ids) = store_with_events(5);
        assert_eq!(ids.len(), 5);
        let transport = Arc::new(Recording {
            status: 204,
            posts: Mutex::new(Vec::new()),
        });
        let running = WebhookDispatcher::new(store.clone(), transport.clone(), fast())
            .start()
            .unwrap();
        let deadline = Instant::now() + StdDuration::from_secs(10);
        while transport.posts.lock().unwrap().len() < ids.len() && Instant::now() < deadline {
            std::thread::sleep(StdDuration::from_millis(10));
        }
        running.stop();
        let posts = transport.posts.lock().unwrap().clone();
        let posted: Vec<&str> = posts.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(posted, ids.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            posts.iter().all(|(_, sig)| sig.starts_with("t=")),
            "{posts:?}"
        );
        // Its progress was written when it released the webhook: caught up.
        let webhook = &store.state().webhooks[0];
        assert!(webhook.claimed_until.is_none(), "{webhook:?}");
        assert_eq!(webhook.last_attempt_number, 5);
    }

    #[test]
    fn a_failed_delivery_schedules_a_retry_of_the_same_event() {
        let (store, ids) = store_with_events(2);
        let transport = Arc::new(Recording {
            status: 500,
            posts: Mutex::new(Vec::new()),
        });
        let dispatcher = WebhookDispatcher::new(store.clone(), transport.clone(), fast());
        let webhook = store
            .claim_webhooks(Utc::now(), Utc::now() + Duration::seconds(60), 1)
            .unwrap()
            .remove(0);
        dispatcher
            .deliver(webhook, &AtomicBool::new(false))
            .unwrap();
        let posts = transport.posts.lock().unwrap().clone();
        assert_eq!(posts.len(), 1, "one attempt, then a retry later");
        assert_eq!(posts[0].0, ids[0]);
        let webhook = &store.state().webhooks[0];
        assert_eq!(webhook.delivery.attempts, 1);
        assert!(webhook.delivery.next_attempt_at.is_some());
        assert!(webhook.failing_since.is_some());
        assert!(webhook.claimed_until.is_none(), "released");
    }
}
