//! What the work running on this thread waited for shared resources.
//!
//! A web request's store work runs on a blocking thread; the wait that tells
//! whether the service is past capacity is not only the wait for that thread
//! but also the wait for a database connection, which happens inside the
//! store. The store reports each such wait ([`note`]); the web layer, around
//! the work of one call, reads the sum ([`measured`]) and judges admission by
//! it. Without a measurement in progress (commands, background work) a
//! reported wait is ignored.

use std::cell::Cell;
use std::time::Duration;

thread_local! {
    /// The waits of the measurement in progress, if any.
    static WAITED: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Adds `waited` to the measurement in progress on this thread, if any.
pub fn note(waited: Duration) {
    WAITED.with(|w| {
        if let Some(sum) = w.get() {
            w.set(Some(sum.saturating_add(waited)));
        }
    });
}

/// Runs `f` and returns its value with what it waited ([`note`]); the
/// measurement in progress before (if any) is restored afterwards and the
/// waits of `f` added to it.
pub fn measured<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    struct Restore(Option<Duration>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let inner = WAITED.with(|w| w.get()).unwrap_or_default();
            let outer = self.0.map(|outer| outer.saturating_add(inner));
            WAITED.with(|w| w.set(outer));
        }
    }
    let previous = WAITED.with(|w| w.replace(Some(Duration::ZERO)));
    let restore = Restore(previous);
    let value = f();
    let waited = WAITED.with(|w| w.get()).unwrap_or_default();
    drop(restore);
    (value, waited)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_summed_within_a_measurement_only() {
        note(Duration::from_secs(5)); // nobody measures: ignored
        let ((), waited) = measured(|| {
            note(Duration::from_millis(3));
            note(Duration::from_millis(4));
        });
        assert_eq!(waited, Duration::from_millis(7));
        let ((), waited) = measured(|| {});
        assert_eq!(waited, Duration::ZERO);
    }

    #[test]
    fn a_nested_measurement_adds_to_the_outer_one() {
        let (inner, outer) = measured(|| {
            note(Duration::from_millis(1));
            let ((), inner) = measured(|| note(Duration::from_millis(2)));
            inner
        });
        assert_eq!(inner, Duration::from_millis(2));
        assert_eq!(outer, Duration::from_millis(3));
    }
}
