//! Figures about the running service that its metrics report (`equip serve
//! --metrics-bind`, docs/operations.md, "Metrics"): the connection pool, the
//! key memory, events written, and the depth and age of the two delivery
//! queues. Plain numbers; the port that gives them is
//! [`crate::ports::StatsSource`].

use chrono::{DateTime, Duration, Utc};

use crate::reminder::OutboxStats;

/// Everything a scrape of the metrics reports besides the request figures
/// the web layer counts itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServiceStats {
    /// The request pool's connections.
    pub pool: PoolStats,
    /// The API-key memory (PostgreSQL; on SQLite every lookup is a miss).
    pub api_key_cache: CacheStats,
    /// Events written by this process since it started.
    pub events_written: u64,
    /// The email outbox; `None` when it could not be read.
    pub outbox: Option<OutboxStats>,
    /// The webhook deliveries behind; `None` when they could not be read.
    pub webhooks: Option<WebhookBacklog>,
    /// The inventory listings held in memory.
    pub listing_index: ListingIndexStats,
    /// The operating system's figures of the process; `None` where they
    /// cannot be read (no `/proc`).
    pub process: Option<ProcessStats>,
}

/// What the operating system says of the process (the `process_*` metrics).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProcessStats {
    /// User and system CPU time, seconds, since the start.
    pub cpu_seconds: f64,
    /// Resident memory, bytes.
    pub resident_bytes: u64,
    /// The anonymous part of it (what the process allocated), bytes.
    pub resident_anonymous_bytes: u64,
    /// The file-backed part of it (mapped files, such as SQLite's mapped
    /// database: the kernel's page cache, shared), bytes.
    pub resident_file_bytes: u64,
    /// Virtual memory, bytes.
    pub virtual_bytes: u64,
    /// Open file descriptors.
    pub open_fds: u64,
    /// The limit of open file descriptors (the soft limit); `None` when
    /// unlimited or unknown.
    pub max_fds: Option<u64>,
    /// Threads.
    pub threads: u64,
    /// When the process started, seconds since the Unix epoch.
    pub start_time_seconds: f64,
}

/// The listing indexes of the process (docs/performance.md, "Inventory
/// listing"): what they hold and the memory they take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListingIndexStats {
    /// Organizations whose listing is held.
    pub organizations: u64,
    /// Items held, over those organizations.
    pub items: u64,
    /// Sort orders built.
    pub orders: u64,
    /// Heap bytes the rows, texts and orders take (by capacity).
    pub bytes: u64,
}

/// A connection pool's state and what waiting for it cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PoolStats {
    /// Most connections the pool opens.
    pub max: u32,
    /// Connections checked out now.
    pub in_use: u32,
    /// Open connections nobody holds.
    pub idle: u32,
    /// Checkouts that waited longer than a millisecond (no idle connection
    /// was there at once), since start.
    pub waits: u64,
    /// Seconds spent in all checkouts, since start.
    pub wait_seconds: f64,
    /// Checkouts that gave up (no connection within the pool's timeout).
    pub timeouts: u64,
}

/// Hits and misses of a memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Answers given from memory.
    pub hits: u64,
    /// Lookups that went to the database.
    pub misses: u64,
}

/// Active webhooks with events after their position (events they have not
/// been given yet, or not given up on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookBacklog {
    /// Active webhooks behind their organization's last event.
    pub behind: u64,
    /// The time of the oldest event such a webhook still has to deliver (the
    /// event right after its position; an event already pruned is not
    /// counted).
    pub oldest_undelivered_at: Option<DateTime<Utc>>,
}

impl WebhookBacklog {
    /// Age of the oldest undelivered event at `now` (zero when none).
    #[must_use]
    pub fn oldest_undelivered_age(&self, now: DateTime<Utc>) -> Duration {
        self.oldest_undelivered_at
            .map_or_else(Duration::zero, |t| (now - t).max(Duration::zero()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_age_of_nothing_behind_is_zero_and_never_negative() {
        let now = Utc::now();
        assert_eq!(
            WebhookBacklog::default().oldest_undelivered_age(now),
            Duration::zero()
        );
        let late = WebhookBacklog {
            behind: 1,
            oldest_undelivered_at: Some(now - Duration::seconds(90)),
        };
        assert_eq!(late.oldest_undelivered_age(now), Duration::seconds(90));
        let future = WebhookBacklog {
            behind: 1,
            oldest_undelivered_at: Some(now + Duration::seconds(5)),
        };
        assert_eq!(future.oldest_undelivered_age(now), Duration::zero());
    }
}
