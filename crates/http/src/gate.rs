//! The gate in front of every route that needs a key.
//!
//! Each route declares, where it is registered (`routes::register`), what
//! each of its methods needs ([`Needs`]): a key holding a scope, or, for the
//! one route that answers only about the key itself (`GET /api/v1/api-key`),
//! any valid key whatever its scopes. The gate runs before the route's extractors:
//! it reads the `Authorization` header, checks the key and its scope, and only
//! then lets the request through. So a missing, unknown or revoked key (401)
//! or a key without the scope (403) is answered before any byte of the body is
//! read and before any parameter, path segment or body is validated: a caller
//! without a key learns nothing about the route's input rules, and cannot hold
//! a connection open with a slow upload (docs/reliability.md, "Authentication
//! comes first").
//!
//! What passes the gate carries its verified [`Caller`] in the request's
//! extensions, where the [`crate::auth::Authenticated`] extractor and the SCIM
//! handlers find it without reading the key again.
//!
//! A verified key's request then counts against the key's rate limit
//! (`crate::rate_limit`): past it, 429 with `Retry-After`; within it, the
//! response carries what is left (`RateLimit-Limit`, `-Remaining`, `-Reset`).
//!
//! The request's later store calls count against its organization's share
//! of the store (`crate::shares`): past it, 429 with `Retry-After`.
//!
//! After the key, the gate checks that every query parameter decodes to UTF-8
//! (400 naming the parameter): the query extractors would otherwise replace
//! invalid bytes silently.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{HeaderMap, HeaderValue};
use actix_web::{web, Error, HttpMessage};
use equip_domain::api_key::{Caller, Scope};

use crate::auth::ApiKeyHeader;
use crate::error::{Area, HttpError, RATELIMIT_LIMIT, RATELIMIT_REMAINING, RATELIMIT_RESET};
use crate::rate_limit::{Allowed, RateLimit};
use crate::state::AppState;

/// What a request to one method of a route must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A valid key holding this scope (else 403).
    KeyWith(Scope),
    /// A valid key, whatever its scopes, none included: only for a route
    /// that answers about the key itself and nothing of the organization's
    /// data (`GET /api/v1/api-key`). Still 401 without a valid key, and the
    /// key's rate limit applies.
    AnyKey,
}

/// What each method of a route needs (`HEAD` needs what `GET` needs). A
/// method not listed passes the gate without a key: an empty list is an
/// open route (health, the OpenAPI document), and a method the route does
/// not take gets its 405.
pub type Access = &'static [(&'static str, Needs)];

/// The middleware factory of one route.
#[derive(Clone, Copy)]
pub struct Gate {
    access: Access,
}

impl Gate {
    /// A gate requiring `access`.
    #[must_use]
    pub const fn new(access: Access) -> Self {
        Self { access }
    }

    /// What `method` needs, if the route takes that method with a key.
    fn needs_of(&self, method: &str) -> Option<Needs> {
        let method = if method == "HEAD" { "GET" } else { method };
        self.access
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, n)| *n)
    }
}

impl<S, B> Transform<S, ServiceRequest> for Gate
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Transform = GateService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(GateService {
            service: Rc::new(service),
            gate: *self,
        }))
    }
}

/// The middleware of one route.
pub struct GateService<S> {
    service: Rc<S>,
    gate: Gate,
}

impl<S, B> Service<ServiceRequest> for GateService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let service = Rc::clone(&self.service);
        let Some(needs) = self.gate.needs_of(req.method().as_str()) else {
            // An open route, or a method the route does not take (405).
            return Box::pin(async move { Ok(service.call(req).await?.map_into_left_body()) });
        };
        let request = req.app_data::<web::Data<AppState>>().map(|state| {
            crate::blocking::RequestScope::new(
                state.admission(),
                state.shares(),
                crate::client::Client::of(req.request()),
            )
        });
        let organization_of = request.clone();
        let rate_limit = req
            .app_data::<web::Data<AppState>>()
            .map(|state| state.rate_limit().clone())
            .unwrap_or_default();
        let gated = async move {
            let area = Area::of_path(req.path());
            let admitted = match admit(&req, needs).await {
                Ok(caller) => within_rate_limit(&rate_limit, &caller, area).and_then(|allowed| {
                    check_query(req.query_string(), area).map(|()| (caller, allowed))
                }),
                Err(e) => Err(e),
            };
            match admitted {
                Ok((caller, allowed)) => {
                    // The handler's store calls take the organization's
                    // places (`crate::shares`).
                    if let Some(scope) = &organization_of {
                        scope.set_organization(caller.organization_id);
                    }
                    req.extensions_mut().insert(caller);
                    let mut res = service.call(req).await?;
                    if let Some(allowed) = allowed {
                        rate_limit_headers(res.headers_mut(), &allowed);
                    }
                    Ok(res.map_into_left_body())
                }
                // Answered here, as a response: the handler never runs and
                // the body is never read.
                Err(e) => Ok(req.error_response(e).map_into_right_body()),
            }
        };
        // The store calls of the gate and of the handler run under the
        // request's admission and client (`crate::blocking`).
        match request {
            Some(request) => Box::pin(crate::blocking::scoped(request, gated)),
            None => Box::pin(gated),
        }
    }
}

/// Counts the request against its key's rate limit (`crate::rate_limit`):
/// 429 past it; what is left of the key's burst within it (`None`: no limit).
fn within_rate_limit(
    rate_limit: &RateLimit,
    caller: &Caller,
    area: Area,
) -> Result<Option<Allowed>, HttpError> {
    match rate_limit.check(caller.key_id) {
        None => Ok(None),
        Some(Ok(allowed)) => Ok(Some(allowed)),
        Some(Err(exceeded)) => Err(HttpError::too_many_requests(area, &exceeded)),
    }
}

/// `RateLimit-Limit`, `-Remaining` and `-Reset` on a response within the limit.
fn rate_limit_headers(headers: &mut HeaderMap, allowed: &Allowed) {
    headers.insert(RATELIMIT_LIMIT, HeaderValue::from(allowed.limit));
    headers.insert(RATELIMIT_REMAINING, HeaderValue::from(allowed.remaining));
    headers.insert(RATELIMIT_RESET, HeaderValue::from(allowed.reset_secs));
}

/// The verified caller of `req`, with what the method `needs`.
async fn admit(req: &ServiceRequest, needs: Needs) -> Result<Caller, HttpError> {
    let header = ApiKeyHeader::read(req.request());
    let area = header.area();
    // Missing or malformed: answered without a store call.
    header.presented()?;
    let ports = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.system_ports())
        .ok_or_else(|| HttpError::internal(area, &"application state missing"))?;
    crate::blocking::block(area, move || header.authenticate(&*ports, needs)).await
}

/// 400 naming the first query parameter whose name or value is not UTF-8
/// once percent-decoded (`+` is a space, as in forms).
pub(crate) fn check_query(query: &str, area: Area) -> Result<(), HttpError> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decoded_name = decode(name);
        let Ok(decoded_name) = decoded_name else {
            return Err(HttpError::bad_request(
                area,
                "query",
                "a query parameter name is not valid UTF-8 once percent-decoded",
            ));
        };
        if decode(value).is_err() {
            return Err(HttpError::bad_request(
                area,
                decoded_name.clone(),
                format!("the value of '{decoded_name}' is not valid UTF-8 once percent-decoded"),
            )
            .with_scim_type(equip_scim::error::ScimType::InvalidValue));
        }
    }
    Ok(())
}

/// Percent-decodes `raw` (`+` as a space; a `%` not followed by two hex
/// digits stays as it is); an error when the bytes are not UTF-8.
fn decode(raw: &str) -> Result<String, std::string::FromUtf8Error> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match bytes.get(i..i + 3) {
            Some([b'%', hi, lo]) => hex(*hi).zip(hex(*lo)).map(|(h, l)| h * 16 + l),
            _ => None,
        };
        if let Some(b) = escaped {
            out.push(b);
            i += 3;
        } else {
            out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
            i += 1;
        }
    }
    String::from_utf8(out)
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn query_values_must_be_utf8_once_decoded() {
        assert!(check_query("", Area::Api).is_ok());
        assert!(check_query("searchString=caf%C3%A9&size=5", Area::Api).is_ok());
        assert!(check_query("a=%&b=%zz&c=100%", Area::Api).is_ok());
        let err = check_query("size=5&searchString=%ff%fe", Area::Api).unwrap_err();
        assert_eq!(err.status(), 400);
        assert!(err.to_string().contains("searchString"), "{err}");
        assert!(check_query("%ff=1", Area::Api).is_err());
        // A three-byte character cut short is not UTF-8 either.
        assert!(check_query("q=%E2%82", Area::Scim).is_err());
    }

    #[test]
    fn head_needs_what_get_needs() {
        let gate = Gate::new(&[
            ("GET", Needs::KeyWith(Scope::InventoryRead)),
            ("POST", Needs::KeyWith(Scope::InventoryWrite)),
        ]);
        assert_eq!(
            gate.needs_of("HEAD"),
            Some(Needs::KeyWith(Scope::InventoryRead))
        );
        assert_eq!(
            gate.needs_of("POST"),
            Some(Needs::KeyWith(Scope::InventoryWrite))
        );
        assert_eq!(gate.needs_of("PUT"), None);
        let any = Gate::new(&[("GET", Needs::AnyKey)]);
        assert_eq!(any.needs_of("HEAD"), Some(Needs::AnyKey));
        assert_eq!(any.needs_of("DELETE"), None);
    }
}
