//! The background workers of `equip serve`, started and stopped together by
//! one holder, [`Workers`]: the outbox dispatcher, the planner statistics
//! keeper (PostgreSQL), the event retention, the hold release and the
//! webhook dispatcher. Each
//! runs on threads of its own (their store calls block and never run on
//! actix's async workers) over the background pool, apart from the request
//! pool (docs/reliability.md, "Overload"); the webhook dispatcher has a pool
//! of its own.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context;
use equip_delivery::{mail, webhooks};
use equip_persistence::{Backend, Store};

/// How often the planner statistics are looked at (one catalog read when
/// nothing changed).
const STATISTICS_INTERVAL: Duration = Duration::from_secs(30);

/// What `serve` runs in the background.
pub struct Plan {
    /// The outbox dispatcher; `None` with `--no-dispatcher`.
    pub mail: Option<mail::Dispatcher>,
    /// The webhook dispatcher; `None` with `--no-webhooks`.
    pub webhooks: Option<webhooks::WebhookDispatcher>,
    /// Days events are kept (`--event-retention-days`).
    pub event_retention_days: u32,
    /// How long console sessions live (ended ones are pruned with events).
    pub session_limits: equip_domain::sso::SessionLimits,
    /// How often due holds are released (`--hold-release-interval`); `None`
    /// with `--no-hold-release`.
    pub hold_release: Option<Duration>,
}

/// The started workers. [`Self::stop`] (or dropping the holder, as when
/// `serve` fails after starting them) stops each in the reverse order of
/// their start and waits for it: the webhook dispatcher records the delivery
/// it is making and releases its webhook, the outbox dispatcher finishes the
/// message it is sending.
pub struct Workers {
    /// In the order they were started.
    running: Vec<Worker>,
}

impl Workers {
    /// Starts the plan's workers over `background`: the outbox dispatcher,
    /// the statistics keeper (PostgreSQL only: equip keeps the planner
    /// statistics current itself), the event retention and the webhook
    /// dispatcher. Those started before a failure are stopped again.
    ///
    /// # Errors
    /// A thread cannot be started.
    pub fn start(background: &Arc<Store>, plan: Plan) -> anyhow::Result<Self> {
        let mut workers = Self {
            running: Vec::new(),
        };
        match plan.mail {
            Some(dispatcher) => workers.running.push(Worker::Mail(
                dispatcher
                    .start()
                    .context("cannot start the outbox dispatcher")?,
            )),
            None => tracing::info!("outbox dispatcher disabled (--no-dispatcher)"),
        }
        if background.backend() == Backend::Postgres {
            let store = Arc::clone(background);
            workers.running.push(Worker::Loop(
                Loop::spawn("equip-statistics", "statistics", move |stopped| {
                    keep_statistics(&store, stopped);
                })
                .context("cannot start the statistics thread")?,
            ));
        }
        let store = Arc::clone(background);
        let (days, sessions) = (plan.event_retention_days, plan.session_limits);
        workers.running.push(Worker::Loop(
            Loop::spawn("equip-retention", "event retention", move |stopped| {
                crate::retention::run(&*store, days, sessions, stopped);
            })
            .context("cannot start the event retention thread")?,
        ));
        match plan.hold_release {
            Some(interval) => {
                let store = Arc::clone(background);
                let batch = crate::holds::batch(background.backend());
                workers.running.push(Worker::Loop(
                    Loop::spawn("equip-holds", "hold release", move |stopped| {
                        crate::holds::run(&*store, batch, interval, stopped);
                    })
                    .context("cannot start the hold release thread")?,
                ));
            }
            None => tracing::info!("hold release disabled (--no-hold-release)"),
        }
        match plan.webhooks {
            Some(dispatcher) => workers.running.push(Worker::Webhooks(
                dispatcher
                    .start()
                    .context("cannot start the webhook dispatcher")?,
            )),
            None => tracing::info!("webhook delivery disabled (--no-webhooks)"),
        }
        Ok(workers)
    }

    /// Stops every worker, the last started first, and waits for each.
    pub fn stop(mut self) {
        self.stop_all();
    }

    fn stop_all(&mut self) {
        while let Some(worker) = self.running.pop() {
            worker.stop();
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// One started worker.
enum Worker {
    Mail(mail::RunningDispatcher),
    Webhooks(webhooks::RunningDispatcher),
    Loop(Loop),
}

impl Worker {
    fn stop(self) {
        match self {
            Self::Mail(running) => running.stop(),
            Self::Webhooks(running) => running.stop(),
            Self::Loop(running) => running.stop(),
        }
    }
}

/// A thread that runs until its stop channel is closed.
struct Loop {
    what: &'static str,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Loop {
    /// Runs `body` on a thread called `name`; `body` returns when the
    /// receiver it is given says to stop.
    fn spawn(
        name: &str,
        what: &'static str,
        body: impl FnOnce(&Receiver<()>) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || body(&stopped))?;
        Ok(Self {
            what,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the {} thread panicked", self.what);
            }
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Runs [`Store::refresh_statistics`] now and then every
/// [`STATISTICS_INTERVAL`] until `stopped` is closed. Failures are logged.
fn keep_statistics(store: &Store, stopped: &Receiver<()>) {
    loop {
        match store.refresh_statistics() {
            Ok(tables) if !tables.is_empty() => {
                tracing::info!("planner statistics refreshed: {}", tables.join(", "));
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("could not refresh planner statistics: {e}"),
        }
        match stopped.recv_timeout(STATISTICS_INTERVAL) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Instant;

    use equip_delivery::mail::{Dispatcher, DispatcherOptions, Sender, SpoolDir, DEFAULT_FROM};
    use equip_delivery::webhooks::{HttpTransport, WebhookDispatcher, WebhookOptions};
    use equip_domain::webhook::AddressPolicy;
    use equip_persistence::test_support::TestDatabase;

    use super::*;

    #[test]
    fn every_worker_starts_and_all_stop_at_once_when_asked_or_dropped() {
        let db = TestDatabase::sqlite();
        let background = Arc::new(db.store());
        let spool = std::env::temp_dir().join(format!("equip-workers-{}", uuid::Uuid::new_v4()));
        let plan = || Plan {
            mail: Some(Dispatcher::new(
                background.clone(),
                Box::new(SpoolDir::new(&spool, Sender::parse(DEFAULT_FROM).unwrap()).unwrap()),
                DispatcherOptions::default(),
            )),
            webhooks: Some(WebhookDispatcher::new(
                background.clone(),
                Arc::new(
                    HttpTransport::new(Duration::from_secs(1), AddressPolicy::default()).unwrap(),
                ),
                WebhookOptions::default(),
            )),
            event_retention_days: 90,
            session_limits: equip_domain::sso::SessionLimits::default(),
            hold_release: Some(Duration::from_secs(300)),
        };
        let workers = Workers::start(&background, plan()).unwrap();
        assert_eq!(workers.running.len(), 4, "no statistics keeper on SQLite");
        // Each waits for work for seconds; stopping does not wait for that.
        let stopping = Instant::now();
        workers.stop();
        assert!(
            stopping.elapsed() < Duration::from_secs(3),
            "{:?}",
            stopping.elapsed()
        );
        // Dropped (as when `serve` fails after starting them): stopped too.
        let workers = Workers::start(&background, plan()).unwrap();
        let stopping = Instant::now();
        drop(workers);
        assert!(
            stopping.elapsed() < Duration::from_secs(3),
            "{:?}",
            stopping.elapsed()
        );
        let _ = std::fs::remove_dir_all(&spool);
    }
}
