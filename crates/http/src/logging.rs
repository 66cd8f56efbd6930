//! One `tracing` span per request, and one log line when it ends.
//!
//! The span (`request`) holds the request's fields: `request_id`
//! ([`crate::request_id`]), `method`, `route` (the matched route's template,
//! such as `/api/v1/inventory/{id}`, or `unmatched`: never the path as sent,
//! which may hold an email or any text a client chose, nor its query string)
//! and, once the gate has verified the key ([`crate::gate`]), `org_id` and
//! `key_id` (the key's id: never the key). Every line logged while the
//! request runs, on its worker or in a store call on the blocking pool
//! ([`crate::blocking::run`] enters the span there), carries these fields.
//! The line written when the request ends adds `status` and `latency_ms`
//! (its message: `GET /api/v1/inventory 401`). Headers and bodies are never
//! logged, so neither is a key.
//!
//! The response echoes the id in `X-Request-Id`.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{Error, HttpMessage};
use tracing::field::{display, Empty};
use tracing::Instrument;

use crate::metrics::UNMATCHED;
use crate::request_id::{self, RequestId};

/// Middleware factory.
pub struct RequestLog;

impl<S, B> Transform<S, ServiceRequest> for RequestLog
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = RequestLogService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestLogService {
            service: Rc::new(service),
        }))
    }
}

/// The middleware.
pub struct RequestLogService<S> {
    service: Rc<S>,
}

impl<S, B> Service<ServiceRequest> for RequestLogService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let started = Instant::now();
        let method = req.method().clone();
        let id = RequestId::from_header(req.headers().get(request_id::HEADER));
        req.extensions_mut().insert(id.clone());
        // At ERROR level, so that the span is on whenever any line is: a
        // warning logged under `RUST_LOG=warn` still carries the fields.
        let span = tracing::error_span!(
            "request",
            request_id = %id,
            method = %method,
            route = Empty,
            org_id = Empty,
            key_id = Empty,
            session_id = Empty,
        );
        // The template the path matches before routing; the route that
        // answers is recorded at the end when it differs (a SCIM path with
        // extra slashes is routed once normalised).
        let matched = req.match_pattern();
        if let Some(route) = &matched {
            span.record("route", display(route));
        }
        let service = Rc::clone(&self.service);
        let header = HeaderValue::from_str(id.as_str()).ok();
        let handled = async move {
            let res = service.call(req).await;
            let latency_ms = (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0;
            let (status, routed) = match &res {
                Ok(res) => (res.status().as_u16(), res.request().match_pattern()),
                // Every layer below answers with a response; an error that
                // gets here is rendered by actix (without the header).
                Err(e) => (e.as_response_error().status_code().as_u16(), None),
            };
            let route = match (routed, matched) {
                (Some(routed), Some(matched)) if routed == matched => routed,
                (None, Some(matched)) => matched,
                (routed, _) => {
                    let route = routed.unwrap_or_else(|| UNMATCHED.to_owned());
                    tracing::Span::current().record("route", display(&route));
                    route
                }
            };
            tracing::info!(status, latency_ms, "{method} {route} {status}");
            res.map(|mut res| {
                if let Some(value) = header {
                    res.headers_mut()
                        .insert(HeaderName::from_static(request_id::HEADER), value);
                }
                res
            })
        };
        Box::pin(request_id::scoped(id, handled.instrument(span)))
    }
}
