//! `/scim/v2`: Users (RFC 7644 §3) and the discovery endpoints (§4). Every
//! response is `application/scim+json`; every error is the RFC 7644 error body
//! with its `scimType`.

pub mod bulk;
pub mod csv;
pub mod discovery;
mod provisioning;
pub mod users;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use equip_scim::error::ScimType;
use equip_scim::schemas::MEDIA_TYPE;
use serde_json::Value;

use crate::error::{Area, HttpError};

/// `scheme://host` of the request, for `meta.location`.
pub(crate) fn base_url(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}

/// A SCIM JSON response.
pub(crate) fn scim_response(status: StatusCode, body: &Value) -> HttpResponse {
    HttpResponse::build(status)
        .content_type(MEDIA_TYPE)
        .body(body.to_string())
}

/// A SCIM JSON response with an `ETag`.
pub(crate) fn with_etag(mut resp: HttpResponse, tag: &str) -> HttpResponse {
    if let Ok(v) = HeaderValue::from_str(tag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

/// A 400 with `scim_type` naming `source`.
pub(crate) fn bad(scim_type: ScimType, source: &str, detail: impl Into<String>) -> HttpError {
    HttpError::bad_request(Area::Scim, source, detail).with_scim_type(scim_type)
}

/// The `Authorization` header of a SCIM request, read without touching the
/// store: the key is checked in the same blocking call as the request's own
/// store work ([`run`]), one hop to the blocking pool instead of two.
/// `Bearer <key>` is accepted as `ApiKey <key>`: Okta and Microsoft Entra ID
/// can only send bearer tokens.
#[derive(Debug, Clone)]
pub struct ScimKey(Option<Result<String, ()>>);

impl actix_web::FromRequest for ScimKey {
    type Error = HttpError;
    type Future = std::future::Ready<Result<Self, HttpError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let header = req.headers().get(header::AUTHORIZATION).map(|v| {
            v.to_str().map_err(|_| ()).map(|h| match h.split_once(' ') {
                Some((scheme, key)) if scheme.eq_ignore_ascii_case("Bearer") => {
                    format!("ApiKey {}", key.trim())
                }
                _ => h.to_owned(),
            })
        });
        std::future::ready(Ok(Self(header)))
    }
}

/// What a SCIM handler runs on the blocking pool: store work for the
/// caller's organization.
pub(crate) trait StoreWork<T>:
    FnOnce(&dyn crate::state::Ports, equip_domain::ids::OrganizationId) -> Result<T, HttpError>
    + Send
    + 'static
{
}

impl<T, F> StoreWork<T> for F where
    F: FnOnce(&dyn crate::state::Ports, equip_domain::ids::OrganizationId) -> Result<T, HttpError>
        + Send
        + 'static
{
}

/// Authenticates `key` (scope `scim`) and runs `f` with the caller's
/// organization, all on the blocking pool.
pub(crate) async fn run<T, F>(
    state: &crate::state::AppState,
    key: ScimKey,
    f: F,
) -> Result<T, HttpError>
where
    F: StoreWork<T>,
    T: Send + 'static,
{
    run_with(state, key, false, f).await
}

/// As [`run`], on a write session (Bulk, CSV): the key check and every store
/// call of `f` use one connection, and what `f` committed is durable before
/// the answer.
pub(crate) async fn run_in_session<T, F>(
    state: &crate::state::AppState,
    key: ScimKey,
    f: F,
) -> Result<T, HttpError>
where
    F: StoreWork<T>,
    T: Send + 'static,
{
    run_with(state, key, true, f).await
}

async fn run_with<T, F>(
    state: &crate::state::AppState,
    key: ScimKey,
    session: bool,
    f: F,
) -> Result<T, HttpError>
where
    F: StoreWork<T>,
    T: Send + 'static,
{
    use equip_domain::api_key::{AuthError, Scope};
    use equip_domain::services::auth::{authenticate, AuthFailure};
    let header = match key.0 {
        None => return Err(HttpError::unauthorized(Area::Scim, AuthError::Missing)),
        Some(Err(())) => return Err(HttpError::unauthorized(Area::Scim, AuthError::Malformed)),
        Some(Ok(h)) => h,
    };
    let state = state.clone();
    actix_web::web::block(move || {
        let store_error = |e: equip_domain::error::StoreError| domain(e.into());
        let ports = if session {
            state.write_session().map_err(store_error)?
        } else {
            state.ports()
        };
        let caller = match authenticate(&*ports, Some(&header)) {
            Ok(caller) => caller,
            Err(AuthFailure::Refused(e)) => return Err(HttpError::unauthorized(Area::Scim, e)),
            Err(AuthFailure::Store(e)) => return Err(HttpError::from_domain(Area::Scim, e.into())),
        };
        caller
            .require(Scope::Scim)
            .map_err(|e| HttpError::forbidden(Area::Scim, e))?;
        let result = f(&*ports, caller.organization_id);
        if session {
            ports.make_durable().map_err(store_error)?;
        }
        result
    })
    .await
    .map_err(|e| HttpError::internal(Area::Scim, &e))?
}

/// A domain error as a SCIM error (409 is `uniqueness`).
pub(crate) fn domain(e: equip_domain::DomainError) -> HttpError {
    let e = HttpError::from_domain(Area::Scim, e);
    if e.status() == StatusCode::CONFLICT {
        e.with_scim_type(ScimType::Uniqueness)
    } else {
        e
    }
}
