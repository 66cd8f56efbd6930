//! Event retention: `serve` deletes events older than `--event-retention-days`
//! in the background, oldest first, in batches (docs/events.md, "Retention").

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use chrono::Utc;
use equip_domain::ports::EventRepository;

/// Events deleted per call: one short transaction per organization and batch.
const BATCH: usize = 5_000;

/// How often the pruner looks for expired events.
pub const PRUNE_INTERVAL: Duration = Duration::from_secs(3600);

/// Deletes the events older than `days` days; returns how many.
///
/// # Errors
/// Store failures (what was deleted before stays deleted).
pub fn prune_once(
    store: &dyn EventRepository,
    days: u32,
) -> equip_domain::error::StoreResult<usize> {
    let cutoff = Utc::now() - chrono::Duration::days(i64::from(days));
    let mut total = 0;
    loop {
        let n = store.prune_events(cutoff, BATCH)?;
        total += n;
        if n < BATCH {
            return Ok(total);
        }
    }
}

/// Prunes at start and every [`PRUNE_INTERVAL`] until `stopped` is closed.
pub fn run(store: &dyn EventRepository, days: u32, stopped: &Receiver<()>) {
    loop {
        match prune_once(store, days) {
            Ok(0) => {}
            Ok(n) => log::info!("pruned {n} events older than {days} days"),
            Err(e) => log::warn!("could not prune old events: {e}"),
        }
        match stopped.recv_timeout(PRUNE_INTERVAL) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
