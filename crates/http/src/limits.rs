//! Request limits that apply to every route: the length of the URL, the size of
//! the request head, and how long a request may take.
//!
//! Bodies are limited per route where they are read (`JSON_LIMIT` for JSON,
//! `equip_scim::bulk::MAX_PAYLOAD_SIZE` for Bulk, the CSV upload's streamed
//! limit). actix-web itself closes a connection whose request head exceeds
//! 128 KiB or 96 headers (431 without a body); the checks here come first for
//! anything smaller, and answer with the area's error body.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::StatusCode;
use actix_web::{Error, HttpMessage as _};

use crate::error::HttpError;

/// The limits of [`Limits`]' middleware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest time a request may take (reading its body, the work, the
    /// answer) before it is answered 503.
    pub request_timeout: Duration,
    /// The same for the uploads (`/scim/v2/Bulk`, `/scim/v2/Users/csv`, a
    /// warehouse receipt), which carry up to 1,000 operations, 50,000 rows
    /// or 1,000 items, each written on its own. At this limit an upload
    /// starts no further entry: the entry in flight ends, and the upload
    /// answers 503 with the result of every entry (those not run say so).
    /// Only an entry still in flight [`Limits::request_timeout`] later is
    /// answered the plain 503 without results.
    pub upload_timeout: Duration,
    /// Longest request target (path and query) in bytes; longer is 414.
    pub max_uri_bytes: usize,
    /// Largest total of header names and values in bytes; larger is 431.
    pub max_header_bytes: usize,
}

impl Default for Limits {
    /// 30 s per request, 300 s per upload, 8 KiB of URL, 32 KiB of headers.
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(30),
            upload_timeout: Duration::from_secs(300),
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 32 * 1024,
        }
    }
}

impl Limits {
    /// Whether `path` is one of the upload routes, which get
    /// [`Limits::upload_timeout`].
    #[must_use]
    pub fn is_upload(path: &str) -> bool {
        matches!(path, "/scim/v2/Bulk" | "/scim/v2/Users/csv")
            || path
                .strip_prefix("/api/v1/warehouses/")
                .and_then(|rest| rest.strip_suffix("/receipts"))
                .is_some_and(|id| !id.is_empty() && !id.contains('/'))
    }

    /// The time limit of a request to `path`.
    #[must_use]
    pub fn timeout_for(&self, path: &str) -> Duration {
        if Self::is_upload(path) {
            self.upload_timeout
        } else {
            self.request_timeout
        }
    }

    /// When a request to `path` is cut off with the plain 503: at its limit,
    /// or, for an upload (which stops by itself at its limit and answers what
    /// it did, see [`Deadline`]), once the entry in flight at its limit has
    /// had a request's limit more to end.
    fn cut_off_for(&self, path: &str) -> Duration {
        if Self::is_upload(path) {
            self.upload_timeout.saturating_add(self.request_timeout)
        } else {
            self.request_timeout
        }
    }

    /// The error for a request whose head breaks a limit, if any.
    fn check_head(&self, req: &ServiceRequest) -> Option<HttpError> {
        let uri_len = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
        if uri_len > self.max_uri_bytes {
            return Some(HttpError::with_status(
                StatusCode::URI_TOO_LONG,
                "request",
                format!(
                    "the request URL is {uri_len} bytes; at most {} are accepted",
                    self.max_uri_bytes
                ),
            ));
        }
        let header_len: usize = req
            .headers()
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum();
        if header_len > self.max_header_bytes {
            return Some(HttpError::with_status(
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "request",
                format!(
                    "the request headers are {header_len} bytes; at most {} are accepted",
                    self.max_header_bytes
                ),
            ));
        }
        None
    }
}

impl<S, B> Transform<S, ServiceRequest> for Limits
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = LimitsService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(LimitsService {
            service,
            limits: *self,
        }))
    }
}

/// A request's time limit, in its extensions (set by [`Limits`]' middleware):
/// the request's store work starts nothing after `at` (the domain's
/// `interrupt::check` says so from then on), and an upload that stopped
/// there answers 503 with what it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    /// When the limit is reached.
    pub at: Instant,
    /// The limit, as configured.
    pub limit: Duration,
}

impl Deadline {
    /// Whether the limit is reached.
    #[must_use]
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }
}

/// The middleware. A broken limit is returned as an error ([`HttpError`]),
/// which actix answers with the error's response: the area's body
/// ([`crate::error::error_bodies`]).
pub struct LimitsService<S> {
    service: S,
    limits: Limits,
}

impl<S, B> Service<ServiceRequest> for LimitsService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        if let Some(err) = self.limits.check_head(&req) {
            return Box::pin(ready(Err(err.into())));
        }
        let limit = self.limits.timeout_for(req.path());
        let cut_off = self.limits.cut_off_for(req.path());
        // The store work of the request stops at its limit
        // (`crate::blocking`): nothing starts after it.
        req.extensions_mut().insert(Deadline {
            at: Instant::now() + limit,
            limit,
        });
        let fut = self.service.call(req);
        Box::pin(async move {
            match actix_web::rt::time::timeout(cut_off, fut).await {
                Ok(res) => res,
                Err(_elapsed) => {
                    tracing::warn!("a request timed out after {} s", cut_off.as_secs());
                    Err(HttpError::timed_out(cut_off).into())
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_csv_and_receipts_get_the_upload_time_limit() {
        let limits = Limits::default();
        for path in [
            "/scim/v2/Bulk",
            "/scim/v2/Users/csv",
            "/api/v1/warehouses/5b7c1d0e-8f4a-4c3e-9d2b-1a6e7f8c9d01/receipts",
        ] {
            assert_eq!(limits.timeout_for(path), limits.upload_timeout, "{path}");
            // Cut off only once the entry in flight at the limit had time to end.
            assert_eq!(
                limits.cut_off_for(path),
                limits.upload_timeout + limits.request_timeout,
                "{path}"
            );
        }
        for path in [
            "/api/v1/warehouses/5b7c1d0e-8f4a-4c3e-9d2b-1a6e7f8c9d01",
            "/api/v1/warehouses//receipts",
            "/api/v1/warehouses/a/b/receipts",
            "/api/v1/inventory",
        ] {
            assert_eq!(limits.timeout_for(path), limits.request_timeout, "{path}");
        }
    }
}
