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
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::StatusCode;
use actix_web::Error;

use crate::error::HttpError;

/// The limits of [`Limits`]' middleware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest time a request may take (reading its body, the work, the
    /// answer) before it is answered 503.
    pub request_timeout: Duration,
    /// The same for the uploads (`/scim/v2/Bulk`, `/scim/v2/Users/csv`, a
    /// warehouse receipt), which carry up to 1,000 operations, 50,000 rows
    /// or 1,000 items, each written on its own.
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
        let fut = self.service.call(req);
        Box::pin(async move {
            match actix_web::rt::time::timeout(limit, fut).await {
                Ok(res) => res,
                Err(_elapsed) => {
                    tracing::warn!("a request timed out after {} s", limit.as_secs());
                    Err(HttpError::with_status(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "server",
                        format!(
                            "the request did not finish within {} s; a write may or may not have taken effect: read before retrying",
                            limit.as_secs()
                        ),
                    )
                    .into())
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
