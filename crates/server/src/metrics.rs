//! The figures of `equip serve`'s metrics that come from the stores
//! ([`StatsSource`]): the request pool's state and waits and the key memory
//! from the request store, events written by the process, and the depth and
//! age of the email outbox and of the webhook deliveries, read through the
//! background pool so that a scrape never takes a request's connection.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use equip_domain::ports::{OutboxRepository, StatsSource, WebhookQueue};
use equip_domain::service_stats::ServiceStats;
use equip_persistence::Store;

/// The stores whose figures a scrape reports.
pub struct StoreStats {
    /// The pool requests use.
    pub requests: Arc<Store>,
    /// The pool of background work: the queues are read through it.
    pub background: Arc<Store>,
}

impl StatsSource for StoreStats {
    fn service_stats(&self, _now: DateTime<Utc>) -> ServiceStats {
        let outbox = self
            .background
            .outbox_stats()
            .map_err(|e| tracing::warn!("metrics: cannot read the outbox: {e}"))
            .ok();
        let webhooks = self
            .background
            .webhook_backlog()
            .map_err(|e| tracing::warn!("metrics: cannot read the webhook backlog: {e}"))
            .ok();
        ServiceStats {
            pool: self.requests.pool_stats(),
            api_key_cache: self.requests.api_key_cache_stats(),
            events_written: equip_persistence::events_written(),
            outbox,
            webhooks,
            listing_index: self.requests.listing_index_stats(),
            process: crate::process::read(),
        }
    }
}
