//! The outbox dispatcher: claims due messages, hands them to the transport,
//! and marks each one sent, or schedules a retry with exponential back-off, or
//! marks it dead after the last attempt (or a permanent refusal).
//!
//! Exactly once: a message is claimed with a lease (`claimed_until`) in a
//! transaction that other dispatchers cannot interleave with (PostgreSQL
//! `FOR UPDATE SKIP LOCKED`, SQLite `BEGIN IMMEDIATE`); only the holder of the
//! lease sends it, and the outcome is written only if the lease is still
//! held. A message is sent only while its lease has at least one send time-out
//! left, so no other dispatcher can claim it while it is being sent. The one
//! remaining window is a crash (or lost database) between the transport
//! accepting a message and the `SENT` mark: after the lease expires the
//! message is sent again. See `docs/reminders.md`.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, Utc};
use equip_domain::ports::OutboxRepository;
use equip_domain::reminder::{AfterFailure, RetryPolicy};
use equip_domain::StoreError;

use super::transport::MailTransport;

/// How a dispatcher behaves.
#[derive(Debug, Clone, Copy)]
pub struct DispatcherOptions {
    /// Messages claimed per round.
    pub batch: usize,
    /// Time-out of one send (the SMTP command time-out).
    pub send_timeout: StdDuration,
    /// Length of a claim's lease; must exceed `batch × send_timeout` for a
    /// batch to be sent in one lease (messages left when the lease runs short
    /// are not sent but left to be claimed again).
    pub lease: StdDuration,
    /// Pause between rounds when nothing is due.
    pub poll_interval: StdDuration,
    /// How often the loop logs the outbox depth.
    pub report_interval: StdDuration,
    /// Back-off and attempt limit.
    pub retry: RetryPolicy,
}

impl Default for DispatcherOptions {
    fn default() -> Self {
        Self {
            batch: 10,
            send_timeout: StdDuration::from_secs(20),
            lease: StdDuration::from_secs(300),
            poll_interval: StdDuration::from_secs(5),
            report_interval: StdDuration::from_secs(60),
            retry: RetryPolicy::default(),
        }
    }
}

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DispatchReport {
    /// Messages delivered.
    pub sent: usize,
    /// Failed attempts that will be retried.
    pub retried: usize,
    /// Messages given up on.
    pub dead: usize,
    /// Claimed messages whose lease ran out (or was taken) before the outcome
    /// could be recorded.
    pub lost: usize,
}

impl DispatchReport {
    fn add(&mut self, other: Self) {
        self.sent += other.sent;
        self.retried += other.retried;
        self.dead += other.dead;
        self.lost += other.lost;
    }
}

fn chrono_of(d: StdDuration) -> Duration {
    Duration::from_std(d).unwrap_or_else(|_| Duration::hours(1))
}

/// Delivers the outbox of one store through one transport.
pub struct Dispatcher {
    store: Arc<dyn OutboxRepository>,
    transport: Box<dyn MailTransport>,
    options: DispatcherOptions,
}

impl Dispatcher {
    /// A dispatcher over `store` sending through `transport`.
    pub fn new(
        store: Arc<dyn OutboxRepository>,
        transport: Box<dyn MailTransport>,
        options: DispatcherOptions,
    ) -> Self {
        Self {
            store,
            transport,
            options,
        }
    }

    /// The transport's description (for logs).
    #[must_use]
    pub fn transport(&self) -> String {
        self.transport.describe()
    }

    /// Delivers every message due now, round after round, until none is left
    /// (a message rescheduled during the pass waits for a later pass).
    ///
    /// # Errors
    /// A store failure (the pass stops; claimed messages are reclaimed after
    /// their lease).
    pub fn run_once(&self) -> Result<DispatchReport, StoreError> {
        let started = Utc::now();
        let mut report = DispatchReport::default();
        loop {
            let round = self.round(started)?;
            if round == DispatchReport::default() {
                return Ok(report);
            }
            report.add(round);
        }
    }

    /// One claim and the sends of its messages; claims what was due at `due`.
    fn round(&self, due: DateTime<Utc>) -> Result<DispatchReport, StoreError> {
        let claimed_at = Utc::now();
        let lease = claimed_at + chrono_of(self.options.lease);
        let messages = self
            .store
            .claim_outbox_messages(due, lease, self.options.batch)?;
        let mut report = DispatchReport::default();
        let margin = chrono_of(self.options.send_timeout) * 2;
        for message in messages {
            let Some(token) = message.claimed_until else {
                continue;
            };
            if Utc::now() + margin >= token {
                // Not enough lease left to send safely: leave it for a later claim.
                tracing::warn!(
                    "outbox message {}: lease too short, not sent now",
                    message.id
                );
                report.lost += 1;
                continue;
            }
            match self.transport.send(&message) {
                Ok(()) => {
                    if self.store.mark_outbox_sent(message.id, token, Utc::now())? {
                        tracing::info!(
                            "outbox message {} (reminder {}) sent, attempt {}",
                            message.id,
                            message.reminder_id,
                            message.attempts
                        );
                        report.sent += 1;
                    } else {
                        tracing::error!(
                            "outbox message {} sent but its lease was lost; it may be sent again",
                            message.id
                        );
                        report.lost += 1;
                    }
                }
                Err(err) => {
                    let outcome = self.options.retry.after_failure(
                        message.attempts,
                        err.permanent,
                        Utc::now(),
                    );
                    let recorded =
                        self.store
                            .mark_outbox_failed(message.id, token, outcome, &err.detail)?;
                    match (recorded, outcome) {
                        (false, _) => report.lost += 1,
                        (true, AfterFailure::RetryAt(at)) => {
                            tracing::warn!(
                                "outbox message {} attempt {} failed ({}); retry at {}",
                                message.id,
                                message.attempts,
                                err.summary(),
                                at.format("%Y-%m-%dT%H:%M:%SZ")
                            );
                            report.retried += 1;
                        }
                        (true, AfterFailure::Dead) => {
                            tracing::error!(
                                "outbox message {} is dead after attempt {} ({})",
                                message.id,
                                message.attempts,
                                err.summary()
                            );
                            report.dead += 1;
                        }
                    }
                }
            }
        }
        Ok(report)
    }

    /// Logs the outbox depth and the age of its oldest pending message; a
    /// warning when that age exceeds `stuck_after`.
    pub fn report_depth(&self, stuck_after: Duration) {
        match self.store.outbox_stats() {
            Ok(stats) => {
                let age = stats.oldest_pending_age(Utc::now());
                let line = format!(
                    "outbox: {} pending, oldest pending {}s, {} dead",
                    stats.pending,
                    age.num_seconds(),
                    stats.dead
                );
                if stats.pending > 0 && age > stuck_after {
                    tracing::warn!("{line} (is the mail server reachable?)");
                } else if stats.pending > 0 || stats.dead > 0 {
                    tracing::info!("{line}");
                } else {
                    tracing::debug!("{line}");
                }
            }
            Err(e) => tracing::warn!("outbox: cannot read its depth: {e}"),
        }
    }

    /// Runs passes until `stop` receives a message or its sender is dropped:
    /// a pass, then a pause of `poll_interval`; the depth is logged every
    /// `report_interval`. Store failures are logged and retried.
    pub fn run(&self, stop: &Receiver<()>) {
        tracing::info!("outbox dispatcher started ({})", self.transport());
        let stuck_after = Duration::minutes(15);
        let mut last_report: Option<Instant> = None;
        loop {
            if let Err(e) = self.run_once() {
                tracing::warn!("outbox dispatcher: {e}");
            }
            if last_report.is_none_or(|t| t.elapsed() >= self.options.report_interval) {
                self.report_depth(stuck_after);
                last_report = Some(Instant::now());
            }
            match stop.recv_timeout(self.options.poll_interval) {
                Err(RecvTimeoutError::Timeout) => {}
                Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        tracing::info!("outbox dispatcher stopped");
    }

    /// Starts [`Self::run`] on a thread of its own (`equip-dispatcher`): its
    /// store calls and SMTP conversations block.
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn start(self) -> std::io::Result<RunningDispatcher> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("equip-dispatcher".into())
            .spawn(move || self.run(&stopped))?;
        Ok(RunningDispatcher {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

/// A started outbox dispatcher; stopped (and its thread joined) by
/// [`Self::stop`] or on drop.
pub struct RunningDispatcher {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl RunningDispatcher {
    /// Stops: the dispatcher finishes the message it is sending, then its
    /// thread is joined.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the outbox dispatcher panicked");
            }
        }
    }
}

impl Drop for RunningDispatcher {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Mutex;

    use equip_domain::ids::{OrganizationId, OutboxMessageId, ReminderId};
    use equip_domain::reminder::{DeliveryStatus, OutboxMessage};
    use equip_domain::testing::InMemoryStore;

    use super::*;
    use crate::mail::SendError;

    /// Accepts every message after `refusals` transient refusals; records
    /// what it accepted.
    #[derive(Default)]
    struct Recording {
        refusals: Mutex<usize>,
        sent: Mutex<Vec<OutboxMessageId>>,
    }

    impl MailTransport for Arc<Recording> {
        fn send(&self, message: &OutboxMessage) -> Result<(), SendError> {
            let mut refusals = self.refusals.lock().unwrap();
            if *refusals > 0 {
                *refusals -= 1;
                return Err(SendError::transient("try later"));
            }
            self.sent.lock().unwrap().push(message.id);
            Ok(())
        }

        fn describe(&self) -> String {
            "recording".into()
        }
    }

    fn queued(store: &InMemoryStore) -> OutboxMessageId {
        let now = Utc::now();
        let message = OutboxMessage {
            id: OutboxMessageId::new(),
            organization_id: OrganizationId::new(),
            reminder_id: ReminderId::new(),
            recipient: "ana@example.com".into(),
            subject: "Welcome".into(),
            body_text: "Hello".into(),
            body_html: "<p>Hello</p>".into(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: now - Duration::seconds(1),
            last_error: None,
            sent_at: None,
            claimed_until: None,
            created_at: now,
        };
        let id = message.id;
        store.state().outbox.push(message);
        id
    }

    fn fast() -> DispatcherOptions {
        DispatcherOptions {
            send_timeout: StdDuration::from_millis(100),
            poll_interval: StdDuration::from_millis(20),
            retry: RetryPolicy {
                base: Duration::milliseconds(1),
                ..RetryPolicy::default()
            },
            ..DispatcherOptions::default()
        }
    }

    #[test]
    fn a_pass_sends_what_is_due_and_schedules_a_retry_after_a_refusal() {
        let store = Arc::new(InMemoryStore::default());
        let first = queued(&store);
        let transport = Arc::new(Recording {
            refusals: Mutex::new(1),
            ..Recording::default()
        });
        let dispatcher = Dispatcher::new(store.clone(), Box::new(transport.clone()), fast());
        let report = dispatcher.run_once().unwrap();
        assert_eq!((report.sent, report.retried), (0, 1), "{report:?}");
        std::thread::sleep(StdDuration::from_millis(50));
        let report = dispatcher.run_once().unwrap();
        assert_eq!((report.sent, report.retried), (1, 0), "{report:?}");
        assert_eq!(*transport.sent.lock().unwrap(), [first]);
        assert_eq!(dispatcher.run_once().unwrap(), DispatchReport::default());
    }

    #[test]
    fn a_started_dispatcher_delivers_until_it_is_stopped() {
        let store = Arc::new(InMemoryStore::default());
        let transport = Arc::new(Recording::default());
        let running = Dispatcher::new(store.clone(), Box::new(transport.clone()), fast())
            .start()
            .unwrap();
        let id = queued(&store);
        let deadline = Instant::now() + StdDuration::from_secs(10);
        while transport.sent.lock().unwrap().is_empty() && Instant::now() < deadline {
            std::thread::sleep(StdDuration::from_millis(10));
        }
        running.stop();
        assert_eq!(*transport.sent.lock().unwrap(), [id]);
        // Stopped: nothing more is sent.
        queued(&store);
        std::thread::sleep(StdDuration::from_millis(100));
        assert_eq!(transport.sent.lock().unwrap().len(), 1);
    }
}
