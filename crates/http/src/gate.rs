//! The gate in front of every route that needs a key.
//!
//! Each route declares, with each of its methods and their handlers
//! (`crate::routes`), what the method needs ([`Needs`]): a key holding a
//! scope, or, for the one route that answers only about the key itself
//! (`GET /api/v1/api-key`), any valid key whatever its scopes; the gate of
//! the route is made from that declaration ([`Access`]). The gate runs before the route's extractors:
//! it reads the `Authorization` header, checks the key and its scope, and only
//! then lets the request through. So a missing, unknown or revoked key (401)
//! or a key without the scope (403) is answered before any byte of the body is
//! read and before any parameter, path segment or body is validated: a caller
//! without a key learns nothing about the route's input rules, and cannot hold
//! a connection open with a slow upload (docs/reliability.md, "Authentication
//! comes first").
//!
//! What passes the gate carries its verified [`Caller`] in the request's
//! extensions, where the [`crate::scoped::Scoped`] and
//! [`crate::auth::Authenticated`] extractors find it without reading the key
//! again, and its organization and key id are recorded on the request's span
//! (`org_id`, `key_id`: [`crate::logging`]) from the moment the key is
//! verified, so a request refused by the rate limit is logged with them too.
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
use actix_web::http::Method;
use actix_web::{web, Error, HttpMessage};
use equip_domain::api_key::{Caller, Credential, Scope};
use tracing::field::display;

use crate::auth::ApiKeyHeader;
use crate::error::{HttpError, RATELIMIT_LIMIT, RATELIMIT_REMAINING, RATELIMIT_RESET};
use crate::rate_limit::{Allowed, RateLimit};
use crate::state::AppState;

/// What a request to one method of a route must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Nothing: the operational endpoints (health, the OpenAPI document).
    NoKey,
    /// A valid key holding this scope (else 403).
    KeyWith(Scope),
    /// A valid key, whatever its scopes, none included: only for a route
    /// that answers about the key itself and nothing of the organization's
    /// data (`GET /api/v1/api-key`). Still 401 without a valid key, and the
    /// key's rate limit applies.
    AnyKey,
}

/// What each method of a route needs, as the route declares it
/// (`crate::routes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The methods the route takes (`HEAD` needs what `GET` needs).
    methods: Vec<(Method, Needs)>,
    /// What the other methods of [`FOREIGN`] need before their 405.
    others: Needs,
}

/// The methods whose 405 a route may put behind its key ([`Access::new`]).
const FOREIGN: [Method; 5] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
];

impl Access {
    /// `methods` need what they are listed with; another of `GET`, `POST`,
    /// `PUT`, `PATCH` and `DELETE` (or `HEAD` without `GET`) needs `others`
    /// before its 405, any other method nothing.
    #[must_use]
    pub fn new(methods: Vec<(Method, Needs)>, others: Needs) -> Self {
        Self { methods, others }
    }

    /// What `method` needs.
    fn needs_of(&self, method: &Method) -> Needs {
        let method = if method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        match self.methods.iter().find(|(m, _)| m == method) {
            Some((_, needs)) => *needs,
            None if FOREIGN.contains(method) => self.others,
            None => Needs::NoKey,
        }
    }
}

/// The middleware factory of one route.
#[derive(Clone)]
pub struct Gate {
    access: Rc<Access>,
}

impl Gate {
    /// A gate requiring `access`.
    #[must_use]
    pub fn new(access: Access) -> Self {
        Self {
            access: Rc::new(access),
        }
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
            access: Rc::clone(&self.access),
        }))
    }
}

/// The middleware of one route.
pub struct GateService<S> {
    service: Rc<S>,
    access: Rc<Access>,
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
        let scope = match self.access.needs_of(req.method()) {
            Needs::KeyWith(scope) => Some(scope),
            Needs::AnyKey => None,
            // An open route, or a method the route does not take (405).
            Needs::NoKey => {
                return Box::pin(async move { Ok(service.call(req).await?.map_into_left_body()) })
            }
        };
        let request = req.app_data::<web::Data<AppState>>().map(|state| {
            crate::blocking::RequestScope::new(
                state.admission(),
                state.shares(),
                crate::client::Client::of(req.request()),
            )
            .until(
                req.request()
                    .extensions()
                    .get::<crate::limits::Deadline>()
                    .copied(),
            )
        });
        let organization_of = request.clone();
        let rate_limit = req
            .app_data::<web::Data<AppState>>()
            .map(|state| state.rate_limit().clone())
            .unwrap_or_default();
        let gated = async move {
            let admitted = match admit(&req, scope).await {
                Ok(caller) => {
                    // The request's log lines name the organization and the
                    // key's id (never the key): `crate::logging`.
                    let span = tracing::Span::current();
                    span.record("org_id", display(caller.organization_id));
                    match &caller.credential {
                        Credential::Key(id) => span.record("key_id", display(id)),
                        Credential::Session { id, .. } => span.record("session_id", display(id)),
                    };
                    within_rate_limit(&rate_limit, &caller).and_then(|allowed| {
                        check_query(req.query_string()).map(|()| (caller, allowed))
                    })
                }
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
) -> Result<Option<Allowed>, HttpError> {
    match rate_limit.check(caller.credential_id()) {
        None => Ok(None),
        Some(Ok(allowed)) => Ok(Some(allowed)),
        Some(Err(exceeded)) => Err(HttpError::too_many_requests(&exceeded)),
    }
}

/// `RateLimit-Limit`, `-Remaining` and `-Reset` on a response within the limit.
fn rate_limit_headers(headers: &mut HeaderMap, allowed: &Allowed) {
    headers.insert(RATELIMIT_LIMIT, HeaderValue::from(allowed.limit));
    headers.insert(RATELIMIT_REMAINING, HeaderValue::from(allowed.remaining));
    headers.insert(RATELIMIT_RESET, HeaderValue::from(allowed.reset_secs));
}

/// The verified caller of `req`, holding `scope` if one is needed: by its
/// API key, or, without an `Authorization` header, by its session cookie
/// (`crate::sso`; a request that may change something must then carry the
/// CSRF header).
async fn admit(req: &ServiceRequest, scope: Option<Scope>) -> Result<Caller, HttpError> {
    let header = ApiKeyHeader::read(req.request());
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| HttpError::internal(&"application state missing"))?;
    let ports = state.system_ports();
    if header.is_absent() {
        let secure = crate::sso::is_https(&state.public_url().base(req.request()));
        let token = crate::sso::session_cookie(req.request(), secure);
        if let (Some(sso), Some(token)) = (state.sso(), token) {
            // Before any store call: a forged cross-site write costs nothing.
            crate::sso::check_csrf(req.request())?;
            let limits = sso.limits;
            let (caller, _) = crate::blocking::run(move || {
                crate::sso::session_caller(&*ports, &token, limits, scope)
            })
            .await?;
            return Ok(caller);
        }
    }
    // Missing or malformed: answered without a store call.
    header.presented()?;
    crate::blocking::run(move || header.authenticate(&*ports, scope)).await
}

/// 400 naming the first query parameter whose name or value is not UTF-8
/// once percent-decoded (`+` is a space, as in forms).
pub(crate) fn check_query(query: &str) -> Result<(), HttpError> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decoded_name = decode(name);
        let Ok(decoded_name) = decoded_name else {
            return Err(HttpError::invalid(
                "query",
                "a query parameter name is not valid UTF-8 once percent-decoded",
            ));
        };
        if decode(value).is_err() {
            return Err(HttpError::invalid(
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
        assert!(check_query("").is_ok());
        assert!(check_query("searchString=caf%C3%A9&size=5").is_ok());
        assert!(check_query("a=%&b=%zz&c=100%").is_ok());
        let err = check_query("size=5&searchString=%ff%fe").unwrap_err();
        assert_eq!(err.status(), 400);
        assert!(err.to_string().contains("searchString"), "{err}");
        assert!(check_query("%ff=1").is_err());
        // A three-byte character cut short is not UTF-8 either.
        assert!(check_query("q=%E2%82").is_err());
    }

    #[test]
    fn head_needs_what_get_needs() {
        let access = Access::new(
            vec![
                (Method::GET, Needs::KeyWith(Scope::InventoryRead)),
                (Method::POST, Needs::KeyWith(Scope::InventoryWrite)),
            ],
            Needs::NoKey,
        );
        assert_eq!(
            access.needs_of(&Method::HEAD),
            Needs::KeyWith(Scope::InventoryRead)
        );
        assert_eq!(
            access.needs_of(&Method::POST),
            Needs::KeyWith(Scope::InventoryWrite)
        );
        assert_eq!(access.needs_of(&Method::PUT), Needs::NoKey);
        let any = Access::new(vec![(Method::GET, Needs::AnyKey)], Needs::NoKey);
        assert_eq!(any.needs_of(&Method::HEAD), Needs::AnyKey);
        assert_eq!(any.needs_of(&Method::DELETE), Needs::NoKey);
    }

    #[test]
    fn other_methods_may_need_the_key_before_their_405() {
        let scim = Needs::KeyWith(Scope::Scim);
        let access = Access::new(vec![(Method::POST, scim)], scim);
        for method in [Method::GET, Method::HEAD, Method::PUT, Method::DELETE] {
            assert_eq!(access.needs_of(&method), scim, "{method}");
        }
        assert_eq!(access.needs_of(&Method::OPTIONS), Needs::NoKey);
    }
}
