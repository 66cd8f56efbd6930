//! Every request's id: a sane incoming `X-Request-Id` is kept (a load
//! balancer's or a client's, so one id follows the request across systems),
//! otherwise one is made. [`crate::logging::RequestLog`] puts it in the
//! request's extensions and in the request's span (`request_id`, on every
//! line logged while the request runs), echoes it in the response's
//! `X-Request-Id`, and runs the request's future with it as the current id
//! ([`current`]), which [`crate::error::HttpError`] puts in 5xx bodies (an
//! error is rendered on the request's worker, never on the blocking pool).

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

/// The id of the request whose future is being polled here; `None` outside
/// requests.
#[must_use]
pub fn current() -> Option<RequestId> {
    CURRENT.try_with(Clone::clone).ok()
}

/// Runs `fut` (a request's handling) with `id` as the current id.
pub(crate) async fn scoped<F: Future>(id: RequestId, fut: F) -> F::Output {
    CURRENT.scope(id, fut).await
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
}
