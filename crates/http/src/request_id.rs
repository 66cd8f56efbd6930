//! Every request's id: a sane incoming `X-Request-Id` is kept (a load
//! balancer's or a client's, so one id follows the request across systems),
//! otherwise one is made. [`crate::logging::RequestLog`] puts it in the
//! request's extensions, echoes it in the response's `X-Request-Id` and runs
//! the request with it as the current id ([`current`]), which the log format
//! writes on every line logged while the request runs (also from the
//! blocking pool, where [`crate::blocking::run`] carries it) and
//! [`crate::error::HttpError`] puts in 5xx bodies.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use actix_web::http::header::HeaderValue;

/// The header that carries the id, in and out.
pub const HEADER: &str = "x-request-id";

/// The longest incoming id kept.
const MAX_LEN: usize = 128;

/// A request's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(Arc<str>);

impl RequestId {
    /// The incoming header's value when it is sane (1 to 128 characters of
    /// letters, digits and `-_.:/+=`), otherwise a new id.
    #[must_use]
    pub fn from_header(value: Option<&HeaderValue>) -> Self {
        value
            .and_then(|v| v.to_str().ok())
            .filter(|v| Self::sane(v))
            .map_or_else(Self::new, |v| Self(Arc::from(v)))
    }

    /// A new id (a random UUID, without hyphens).
    #[must_use]
    pub fn new() -> Self {
        Self(Arc::from(uuid::Uuid::new_v4().simple().to_string()))
    }

    fn sane(value: &str) -> bool {
        !value.is_empty()
            && value.len() <= MAX_LEN
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:/+=".contains(&b))
    }

    /// The id's text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for RequestId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

tokio::task_local! {
    static CURRENT: RequestId;
}

thread_local! {
    /// The id of the request whose store call this blocking thread runs.
    static ON_THREAD: RefCell<Option<RequestId>> = const { RefCell::new(None) };
}

/// The id of the request being handled here: in its future, or in a store
/// call it runs on the blocking pool. `None` outside requests.
#[must_use]
pub fn current() -> Option<RequestId> {
    CURRENT
        .try_with(Clone::clone)
        .ok()
        .or_else(|| ON_THREAD.with(|id| id.borrow().clone()))
}

/// Runs `fut` (a request's handling) with `id` as the current id.
pub(crate) async fn scoped<F: Future>(id: RequestId, fut: F) -> F::Output {
    CURRENT.scope(id, fut).await
}

/// Runs `f` on this (blocking) thread with `id` as the current id. The
/// thread has no id afterwards, also when `f` panics (the blocking pool
/// catches the panic and keeps the thread for the next call).
pub(crate) fn on_this_thread<T>(id: Option<RequestId>, f: impl FnOnce() -> T) -> T {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            ON_THREAD.with(|slot| *slot.borrow_mut() = None);
        }
    }
    ON_THREAD.with(|slot| *slot.borrow_mut() = id);
    let _clear = Clear;
    f()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sane_ids_are_kept_and_others_replaced() {
        let kept = |v: &str| RequestId::from_header(Some(&HeaderValue::from_str(v).unwrap()));
        assert_eq!(kept("lb-7f3a.01:x/y+z=").as_str(), "lb-7f3a.01:x/y+z=");
        for insane in ["", "has space", "quote\"", "ü", &"x".repeat(129)] {
            let id = RequestId::from_header(HeaderValue::from_str(insane).ok().as_ref());
            assert_ne!(id.as_str(), insane);
            assert_eq!(id.as_str().len(), 32, "{insane:?} → {id}");
        }
        assert_eq!(RequestId::from_header(None).as_str().len(), 32);
        assert_ne!(RequestId::new(), RequestId::new());
    }

    #[test]
    fn a_blocking_thread_has_the_id_only_while_it_runs_the_call() {
        assert_eq!(current(), None);
        let id = RequestId::new();
        let seen = on_this_thread(Some(id.clone()), current);
        assert_eq!(seen, Some(id.clone()));
        assert_eq!(current(), None);
        // A call that panics leaves no id behind for the thread's next work.
        let panicked = std::panic::catch_unwind(|| on_this_thread(Some(id), || panic!("boom")));
        assert!(panicked.is_err());
        assert_eq!(current(), None);
    }
}
