//! The `Authorization: ApiKey <key>` header and the extractors of the caller.
//!
//! The key of a request is checked by the route's gate ([`crate::gate`])
//! before the handler runs; the extractors here hand the gate's verdict to the
//! handler. A key is looked up on every request (on PostgreSQL the store
//! answers from memory kept current by change notifications), so a revoked
//! key stops working at once on every instance. The key is never logged.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use equip_domain::api_key::{AuthError, Caller, Scope};
use equip_domain::ports::ApiKeyRepository;
use equip_domain::services::auth::{authenticate, AuthFailure};

use crate::error::{Area, HttpError};
use crate::gate::Needs;

/// The answer to a failed key check: 401 for the caller's key, 5xx for the
/// store.
pub(crate) fn auth_failure(area: Area, failure: AuthFailure) -> HttpError {
    match failure {
        AuthFailure::Refused(e) => HttpError::unauthorized(area, e),
        AuthFailure::Store(e) => HttpError::from_domain(area, e.into()),
    }
}

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Authenticated {
    /// Who is calling.
    pub caller: Caller,
    area: Area,
}

impl Authenticated {
    /// The caller, if it holds `scope`; otherwise 403.
    ///
    /// # Errors
    /// 403 with the area's body.
    pub fn require(&self, scope: Scope) -> Result<&Caller, HttpError> {
        self.caller
            .require(scope)
            .map(|()| &self.caller)
            .map_err(|e| HttpError::forbidden(self.area, e))
    }
}

impl FromRequest for Authenticated {
    type Error = HttpError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let header = ApiKeyHeader::read(req);
        // Verified by the route's gate; a route without one is a wiring
        // mistake, answered 500 rather than served without a key check.
        let found = match req.extensions().get::<Caller>() {
            Some(caller) => Ok(Self {
                caller: caller.clone(),
                area: header.area,
            }),
            None => Err(HttpError::internal(
                header.area,
                &"route without a key gate",
            )),
        };
        Box::pin(std::future::ready(found))
    }
}

/// The `Authorization` header of a request, read without touching the store;
/// the gate checks the key with [`ApiKeyHeader::authenticate`] on the blocking
/// pool.
#[derive(Debug, Clone)]
pub struct ApiKeyHeader {
    header: Option<Result<String, ()>>,
    area: Area,
}

impl ApiKeyHeader {
    /// The header of `req`, and the area its errors are answered in. On
    /// `/scim/v2`, `Bearer <key>` is read as `ApiKey <key>`: Okta and
    /// Microsoft Entra ID can only send bearer tokens.
    pub(crate) fn read(req: &HttpRequest) -> Self {
        let area = Area::of_path(req.path());
        let header = req.headers().get(AUTHORIZATION).map(|v| {
            v.to_str().map_err(|_| ()).map(|h| match h.split_once(' ') {
                Some((scheme, key))
                    if area == Area::Scim && scheme.eq_ignore_ascii_case("Bearer") =>
                {
                    format!("ApiKey {}", key.trim())
                }
                _ => h.to_owned(),
            })
        });
        Self { header, area }
    }

    /// The area the request's errors are answered in.
    pub(crate) fn area(&self) -> Area {
        self.area
    }

    /// The header's value, or the 401 of a missing or unreadable one.
    ///
    /// # Errors
    /// 401 when there is no header or it is not text.
    pub(crate) fn presented(&self) -> Result<&str, HttpError> {
        match &self.header {
            None => Err(HttpError::unauthorized(self.area, AuthError::Missing)),
            Some(Err(())) => Err(HttpError::unauthorized(self.area, AuthError::Malformed)),
            Some(Ok(h)) => Ok(h),
        }
    }

    /// The caller of the key (blocking: call it on the blocking pool).
    ///
    /// # Errors
    /// 401 for a missing, malformed, unknown or revoked key; 5xx when the
    /// store fails.
    pub fn caller(&self, keys: &dyn ApiKeyRepository) -> Result<Caller, HttpError> {
        let header = self.presented()?;
        authenticate(keys, Some(header)).map_err(|e| auth_failure(self.area, e))
    }

    /// Checks the key (blocking: call it on the blocking pool) and that it
    /// holds what the method `needs`.
    ///
    /// # Errors
    /// As [`Self::caller`], and 403 without the scope it needs.
    pub fn authenticate(
        &self,
        keys: &dyn ApiKeyRepository,
        needs: Needs,
    ) -> Result<Caller, HttpError> {
        let caller = self.caller(keys)?;
        match needs {
            Needs::KeyWith(scope) => self.require(&caller, scope)?,
            Needs::AnyKey => {}
        }
        Ok(caller)
    }

    fn require(&self, caller: &Caller, scope: Scope) -> Result<(), HttpError> {
        caller
            .require(scope)
            .map_err(|e| HttpError::forbidden(self.area, e))
    }
}
