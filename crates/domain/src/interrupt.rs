//! Whether the caller of the work running on this thread still wants its
//! answer.
//!
//! A web request's store work runs on a blocking thread, out of reach of the
//! request's future: when its client disconnects, nothing stops the thread.
//! The web layer therefore installs, for the duration of that work, a test
//! that says whether the client is still there ([`while_wanted`]); a long
//! read asks it between statements ([`check`]) and stops with
//! [`StoreError::Interrupted`] instead of reading what nobody will receive.
//! Writes do not ask: once started, a write runs to its end.
//!
//! Without an installed test (commands, background work, tests of the store)
//! the work is always wanted.

use std::cell::RefCell;

use crate::error::StoreError;

thread_local! {
    static WANTED: RefCell<Option<Box<dyn Fn() -> bool>>> = const { RefCell::new(None) };
}

/// Runs `f` with `wanted` as this thread's test of whether its work is still
/// wanted; the previous test (if any) is restored afterwards, also when `f`
/// panics.
pub fn while_wanted<T>(wanted: impl Fn() -> bool + 'static, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Box<dyn Fn() -> bool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            WANTED.with(|w| *w.borrow_mut() = previous);
        }
    }
    let previous = WANTED.with(|w| w.borrow_mut().replace(Box::new(wanted)));
    let _restore = Restore(previous);
    f()
}

/// `Err(StoreError::Interrupted)` when the work running on this thread is no
/// longer wanted.
///
/// # Errors
/// [`StoreError::Interrupted`]: the caller has gone.
pub fn check() -> Result<(), StoreError> {
    let wanted = WANTED.with(|w| w.borrow().as_ref().is_none_or(|wanted| wanted()));
    if wanted {
        Ok(())
    } else {
        Err(StoreError::Interrupted)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    #[test]
    fn work_is_wanted_unless_a_test_says_otherwise() {
        assert!(check().is_ok());
        let gone = Rc::new(Cell::new(false));
        let seen = Rc::clone(&gone);
        while_wanted(
            move || !seen.get(),
            || {
                assert!(check().is_ok());
                gone.set(true);
                assert!(matches!(check(), Err(StoreError::Interrupted)));
            },
        );
        // Restored after the work.
        assert!(check().is_ok());
    }

    #[test]
    fn nested_tests_restore_the_outer_one() {
        while_wanted(
            || false,
            || {
                while_wanted(|| true, || assert!(check().is_ok()));
                assert!(check().is_err());
            },
        );
        assert!(check().is_ok());
    }
}
