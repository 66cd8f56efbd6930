//! One log line per request: method, path (no query string: it may hold emails),
//! status and latency. Never headers, so never a key.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::time::Instant;

use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::Error;

/// Middleware factory.
pub struct RequestLog;

impl<S, B> Transform<S, ServiceRequest> for RequestLog
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = RequestLogService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestLogService { service }))
    }
}

/// The middleware.
pub struct RequestLogService<S> {
    service: S,
}

impl<S, B> Service<ServiceRequest> for RequestLogService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let started = Instant::now();
        let method = req.method().clone();
        let path = req.path().to_owned();
        let fut = self.service.call(req);
        Box::pin(async move {
            let res = fut.await;
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            match &res {
                Ok(r) => log::info!("{method} {path} {} {ms:.1}ms", r.status().as_u16()),
                Err(e) => log::info!(
                    "{method} {path} {} {ms:.1}ms",
                    e.as_response_error().status_code().as_u16()
                ),
            }
            res
        })
    }
}
