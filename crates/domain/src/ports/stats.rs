//! Port: the figures of the running service its metrics report.

use chrono::{DateTime, Utc};

use crate::service_stats::ServiceStats;

/// Gives the service's figures ([`ServiceStats`]) when the metrics are
/// scraped. Blocks (it reads the queues from the database): async callers run
/// it on a blocking pool. Never fails: what cannot be read is `None` in the
/// figures.
pub trait StatsSource: Send + Sync {
    /// The figures now (`now`: for the queues' ages).
    fn service_stats(&self, now: DateTime<Utc>) -> ServiceStats;
}
