//! The `Authorization: ApiKey <key>` header and the extractors of the caller.
//!
//! The key of a request is checked by the route's gate ([`crate::gate`])
//! before the handler runs; the extractors here hand the gate's verdict to the
//! handler. A key is looked up on every request (on PostgreSQL the store
//! answers from memory kept current by change notifications), so a revoked
//! key stops working at once on every instance. The key is never logged.

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use equip_domain::api_key::{AuthError, Caller, Scope};
use equip_domain::ports::ApiKeyRepository;
use equip_domain::services::auth::{authenticate, AuthFailure};
use equip_domain::DomainError;

use crate::error::{Area, HttpError};

/// The answer to a failed key check: 401 for the caller's key, 5xx for the
/// store.
impl From<AuthFailure> for HttpError {
    fn from(failure: AuthFailure) -> Self {
        match failure {
            AuthFailure::Refused(AuthError::NotAKey) => Self::with_status(
                actix_web::http::StatusCode::NOT_FOUND,
                "authorization",
                "signed in with a session, not an API key; GET /sso/session says who is signed in",
            ),
            AuthFailure::Refused(e) => Self::unauthorized(e),
            AuthFailure::Store(e) => Self::from(DomainError::from(e)),
        }
    }
}

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Authenticated {
    /// Who is calling.
    pub caller: Caller,
}

impl Authenticated {
    /// The caller, if it holds `scope`; otherwise 403.
    ///
    /// # Errors
    /// 403.
    pub fn require(&self, scope: Scope) -> Result<&Caller, HttpError> {
        self.caller
            .require(scope)
            .map(|()| &self.caller)
            .map_err(HttpError::forbidden)
    }
}

/// The caller the route's gate verified, from the request's extensions.
///
/// # Errors
/// 500 when the route has no gate: a wiring mistake, answered rather than
/// served without a key check.
pub(crate) fn gated_caller(req: &HttpRequest) -> Result<Caller, HttpError> {
    req.extensions()
        .get::<Caller>()
        .cloned()
        .ok_or_else(|| HttpError::internal(&"route without a key gate"))
}

impl FromRequest for Authenticated {
    type Error = HttpError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(gated_caller(req).map(|caller| Self { caller }))
    }
}

/// The `Authorization` header of a request, read without touching the store;
/// the gate checks the key with [`ApiKeyHeader::authenticate`] on the blocking
/// pool.
#[derive(Debug, Clone)]
pub struct ApiKeyHeader {
    header: Option<Result<String, ()>>,
}

impl ApiKeyHeader {
    /// The header of `req`. On `/scim/v2`, `Bearer <key>` is read as
    /// `ApiKey <key>`: Okta and Microsoft Entra ID can only send bearer
    /// tokens.
    pub(crate) fn read(req: &HttpRequest) -> Self {
        let scim = Area::of_path(req.path()) == Area::Scim;
        let header = req.headers().get(AUTHORIZATION).map(|v| {
            v.to_str().map_err(|_| ()).map(|h| match h.split_once(' ') {
                Some((scheme, key)) if scim && scheme.eq_ignore_ascii_case("Bearer") => {
                    format!("ApiKey {}", key.trim())
                }
                _ => h.to_owned(),
            })
        });
        Self { header }
    }

    /// Whether the request has no `Authorization` header at all.
    pub(crate) fn is_absent(&self) -> bool {
        self.header.is_none()
    }

    /// The header's value, or the 401 of a missing or unreadable one.
    ///
    /// # Errors
    /// 401 when there is no header or it is not text.
    pub(crate) fn presented(&self) -> Result<&str, HttpError> {
        match &self.header {
            None => Err(HttpError::unauthorized(AuthError::Missing)),
            Some(Err(())) => Err(HttpError::unauthorized(AuthError::Malformed)),
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
        Ok(authenticate(keys, Some(header))?)
    }

    /// Checks the key (blocking: call it on the blocking pool) and that it
    /// holds `scope`, if one is needed (`None`: any valid key).
    ///
    /// # Errors
    /// As [`Self::caller`], and 403 without the scope.
    pub fn authenticate(
        &self,
        keys: &dyn ApiKeyRepository,
        scope: Option<Scope>,
    ) -> Result<Caller, HttpError> {
        let caller = self.caller(keys)?;
        if let Some(scope) = scope {
            caller.require(scope).map_err(HttpError::forbidden)?;
        }
        Ok(caller)
    }
}
