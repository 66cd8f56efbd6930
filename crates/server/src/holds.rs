//! The hold release: `serve` releases every hold whose `unlockDate` has come
//! (docs/returns.md, "Holds"), at start and every `--hold-release-interval`,
//! in short batches (one transaction each). Several instances may run it on
//! one database: a hold is released by one of them
//! (`ReceiptRepository::release_due_holds`).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use chrono::Utc;
use equip_domain::ports::ReceiptRepository;
use equip_domain::services::receipts::release_due_holds;

/// Holds released per transaction: short enough that the locks it takes
/// (SQLite: the database's write lock) hold up no other write for long
/// (docs/performance.md, "Hold release").
pub const BATCH: usize = 50;

/// Releases every due hold now; returns how many.
///
/// # Errors
/// Store failures (the batches before stay written).
pub fn release_once(store: &dyn ReceiptRepository) -> equip_domain::error::StoreResult<usize> {
    release_due_holds(store, Utc::now(), BATCH)
}

/// Releases at start and every `interval` until `stopped` is closed.
pub fn run(store: &dyn ReceiptRepository, interval: Duration, stopped: &Receiver<()>) {
    loop {
        let started = std::time::Instant::now();
        match release_once(store) {
            Ok(0) => {}
            Ok(n) => tracing::info!("released {n} holds in {} ms", started.elapsed().as_millis()),
            Err(e) => tracing::warn!("could not release due holds: {e}"),
        }
        match stopped.recv_timeout(interval) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
