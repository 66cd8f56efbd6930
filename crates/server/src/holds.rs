//! The hold release: `serve` releases every hold whose `unlockDate` has come
//! (docs/returns.md, "Holds"), at start and every `--hold-release-interval`,
//! in short batches (one transaction each). Several instances may run it on
//! one database: a hold is released by one of them
//! (`ReceiptRepository::release_due_holds`). The same pass then fills the
//! backorders that AVAILABLE stock could fill but no write did
//! (`BackorderRepository::fill_waiting_backorders`, docs/orders.md).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use chrono::Utc;
use equip_domain::ports::{BackorderRepository, ReceiptRepository};
use equip_domain::services::receipts::release_due_holds;
use equip_persistence::Backend;

/// Holds released per transaction on `backend`: short enough that the locks
/// a batch takes hold up no other write for more than a few milliseconds
/// (docs/performance.md, "Returns: receipts and the hold release"). SQLite: a batch holds the database's
/// only write lock (a SCIM create waits for it), about 0.75 ms per hold.
/// PostgreSQL: a batch locks only its own items (`SKIP LOCKED`), so it may
/// be longer.
#[must_use]
pub const fn batch(backend: Backend) -> usize {
    match backend {
        Backend::Sqlite => 8,
        Backend::Postgres => 100,
    }
}

/// Releases every hold due now, `batch` per transaction; returns how many.
///
/// # Errors
/// Store failures (the batches before stay written).
pub fn release_once(
    store: &dyn ReceiptRepository,
    batch: usize,
) -> equip_domain::error::StoreResult<usize> {
    release_due_holds(store, Utc::now(), batch)
}

/// Releases (then fills waiting backorders) at start and every `interval`
/// until `stopped` is closed.
pub fn run<S: ReceiptRepository + BackorderRepository>(
    store: &S,
    batch: usize,
    interval: Duration,
    stopped: &Receiver<()>,
) {
    loop {
        let started = std::time::Instant::now();
        match release_once(store, batch) {
            Ok(0) => {}
            Ok(n) => tracing::info!("released {n} holds in {} ms", started.elapsed().as_millis()),
            Err(e) => tracing::warn!("could not release due holds: {e}"),
        }
        match store.fill_waiting_backorders(Utc::now()) {
            Ok(0) => {}
            Ok(n) => tracing::info!("filled {n} waiting backorder lines"),
            Err(e) => tracing::warn!("could not fill waiting backorders: {e}"),
        }
        match stopped.recv_timeout(interval) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
