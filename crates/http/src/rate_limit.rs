//! Per-key rate limits (`equip serve --rate-limit N`; docs/api.md, "Rate
//! limits").
//!
//! Each API key may make `N` requests a second, with bursts of up to `2N`
//! (a token bucket: the bucket holds `2N` requests and refills at `N` a
//! second; governor's GCRA). The gate ([`crate::gate`]) checks the limit
//! once the key is verified, so requests without a valid key (401) are not
//! counted, and one key's traffic never limits another key, even of the same
//! organization. A request over the limit is answered 429
//! ([`crate::error::HttpError::too_many_requests`]).
//!
//! The buckets live in this process's memory: `K` instances behind a load
//! balancer let a key make `K` times the rate. Buckets of keys that have
//! been idle long enough to be full again are dropped now and then, so the
//! memory held follows the keys in use, not every key ever seen.

use std::hash::Hash;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

/// `equip serve`'s default: requests a second per key.
pub const DEFAULT_PER_SECOND: u32 = 100;

/// Checks between two sweeps of the buckets of idle keys.
const SWEEP_EVERY: u32 = 4096;

/// The burst, in seconds of the rate.
const BURST_SECONDS: NonZeroU32 = NonZeroU32::MIN.saturating_add(1);

type KeyedLimiter<K> =
    RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock, StateInformationMiddleware>;

/// The rate limit of every key (an API key's id by default; the sign-in
/// limits also count per organization and per client address); cheap to
/// clone (clones share the buckets). The default is off.
#[derive(Clone)]
pub struct RateLimit<K: Hash + Eq + Clone = uuid::Uuid> {
    inner: Option<Arc<Buckets<K>>>,
}

impl<K: Hash + Eq + Clone> Default for RateLimit<K> {
    fn default() -> Self {
        Self { inner: None }
    }
}

struct Buckets<K: Hash + Eq + Clone> {
    limiter: KeyedLimiter<K>,
    per_second: NonZeroU32,
    burst: NonZeroU32,
    checks: AtomicU32,
}

/// A request within the limit: what is left of its key's burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed {
    /// The burst: requests a key may make at once after a pause (`2N`).
    pub limit: u32,
    /// Requests the key may still make at once.
    pub remaining: u32,
    /// Whole seconds until the key's full burst is available again.
    pub reset_secs: u64,
}

/// A request over the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exceeded {
    /// The burst (`2N`), as in [`Allowed::limit`].
    pub limit: u32,
    /// Whole seconds until the key may make a request again (at least 1).
    pub retry_after_secs: u64,
    /// Whole seconds until the key's full burst is available again.
    pub reset_secs: u64,
}

impl<K: Hash + Eq + Clone> RateLimit<K> {
    /// `per_second` requests a second per key with bursts of twice that;
    /// 0 turns the limit off.
    #[must_use]
    pub fn per_second(per_second: u32) -> Self {
        let Some(rate) = NonZeroU32::new(per_second) else {
            return Self::off();
        };
        Self::with_burst(rate, rate.saturating_mul(BURST_SECONDS))
    }

    /// `rate` requests a second per key with bursts of up to `burst`.
    #[must_use]
    pub fn with_burst(rate: NonZeroU32, burst: NonZeroU32) -> Self {
        let limiter = RateLimiter::hashmap(Quota::per_second(rate).allow_burst(burst))
            .with_middleware::<StateInformationMiddleware>();
        Self {
            inner: Some(Arc::new(Buckets {
                limiter,
                per_second: rate,
                burst,
                checks: AtomicU32::new(0),
            })),
        }
    }

    /// No limit.
    #[must_use]
    pub fn off() -> Self {
        Self { inner: None }
    }

    /// Requests a second per key (0: off).
    #[must_use]
    pub fn rate(&self) -> u32 {
        self.inner.as_ref().map_or(0, |b| b.per_second.get())
    }

    /// Counts one request of `key`: `None` when there is no limit.
    ///
    /// # Errors
    /// The key is over its limit.
    pub fn check(&self, key: K) -> Option<Result<Allowed, Exceeded>> {
        let buckets = self.inner.as_ref()?;
        buckets.sweep_now_and_then();
        let limit = buckets.burst.get();
        let per_second = u64::from(buckets.per_second.get());
        Some(match buckets.limiter.check_key(&key) {
            Ok(state) => {
                let remaining = state.remaining_burst_capacity();
                let used = u64::from(limit.saturating_sub(remaining));
                Ok(Allowed {
                    limit,
                    remaining,
                    reset_secs: used.div_ceil(per_second),
                })
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(buckets.limiter.clock().now());
                // After the wait one request is possible; the rest of the
                // burst refills at `per_second`.
                let refill = Duration::from_secs_f64(
                    f64::from(limit.saturating_sub(1)) / f64::from(buckets.per_second.get()),
                );
                Err(Exceeded {
                    limit,
                    retry_after_secs: whole_seconds(wait).max(1),
                    reset_secs: whole_seconds(wait.saturating_add(refill)).max(1),
                })
            }
        })
    }

    /// Keys holding a bucket (for tests of the sweep).
    #[must_use]
    pub fn keys_held(&self) -> usize {
        self.inner.as_ref().map_or(0, |b| b.limiter.len())
    }

    /// Drops the buckets of keys idle long enough to be full again.
    pub fn sweep(&self) {
        if let Some(buckets) = &self.inner {
            buckets.limiter.retain_recent();
        }
    }
}

impl<K: Hash + Eq + Clone> Buckets<K> {
    /// Every [`SWEEP_EVERY`] checks, drops the buckets of idle keys (one
    /// pass over the map under its lock: keys are few, the pass is short).
    fn sweep_now_and_then(&self) {
        let n = self.checks.fetch_add(1, Ordering::Relaxed);
        if n % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
    }
}

/// `d` rounded up to whole seconds.
fn whole_seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn off_limits_nothing() {
        let limit = RateLimit::per_second(0);
        assert_eq!(limit.rate(), 0);
        assert!(limit.check(uuid::Uuid::new_v4()).is_none());
        assert!(RateLimit::default().check(uuid::Uuid::new_v4()).is_none());
    }

    #[test]
    fn a_key_gets_twice_the_rate_at_once_then_waits() {
        let limit = RateLimit::per_second(5);
        let key = uuid::Uuid::new_v4();
        let first = limit.check(key).unwrap().unwrap();
        assert_eq!(first.limit, 10);
        assert_eq!(first.remaining, 9);
        assert_eq!(first.reset_secs, 1);
        for _ in 1..10 {
            limit.check(key).unwrap().unwrap();
        }
        let refused = limit.check(key).unwrap().unwrap_err();
        assert_eq!(refused.limit, 10);
        assert_eq!(refused.retry_after_secs, 1);
        assert!(refused.reset_secs >= 2, "{refused:?}");
        // Another key is not limited by the first.
        assert!(limit.check(uuid::Uuid::new_v4()).unwrap().is_ok());
    }

    #[test]
    fn idle_keys_are_dropped() {
        let limit = RateLimit::per_second(1000);
        let key = uuid::Uuid::new_v4();
        limit.check(key).unwrap().unwrap();
        assert_eq!(limit.keys_held(), 1);
        std::thread::sleep(Duration::from_millis(20));
        limit.sweep();
        assert_eq!(limit.keys_held(), 0);
    }

    #[test]
    fn seconds_round_up() {
        assert_eq!(whole_seconds(Duration::ZERO), 0);
        assert_eq!(whole_seconds(Duration::from_millis(1)), 1);
        assert_eq!(whole_seconds(Duration::from_secs(2)), 2);
        assert_eq!(whole_seconds(Duration::from_millis(2001)), 3);
    }
}
