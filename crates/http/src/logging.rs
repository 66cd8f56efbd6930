//! One log line per request: method, path (no query string: it may hold emails),
//! status and latency. Never headers, so never a key. The request runs with
//! its id ([`crate::request_id`]), which the log format writes on this line
//! and on every other line logged while it runs, and which the response
//! echoes in `X-Request-Id`.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{Error, HttpMessage};

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
        let path = req.path().to_owned();
        let id = RequestId::from_header(req.headers().get(request_id::HEADER));
        req.extensions_mut().insert(id.clone());
        let service = Rc::clone(&self.service);
        let header = HeaderValue::from_str(id.as_str()).ok();
        Box::pin(request_id::scoped(id, async move {
            let res = service.call(req).await;
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            match res {
                Ok(mut res) => {
                    log::info!("{method} {path} {} {ms:.1}ms", res.status().as_u16());
                    if let Some(value) = header {
                        res.headers_mut()
                            .insert(HeaderName::from_static(request_id::HEADER), value);
                    }
                    Ok(res)
                }
                // Every layer below answers with a response; an error that
                // gets here is rendered by actix (without the header).
                Err(e) => {
                    let status = e.as_response_error().status_code().as_u16();
                    log::info!("{method} {path} {status} {ms:.1}ms");
                    Err(e)
                }
            }
        }))
    }
}
