//! `/scim/v2`: Users and Groups (RFC 7644 §3), Bulk, the CSV upload of users
//! and the discovery endpoints (§4). Every response is
//! `application/scim+json`; every error is the RFC 7644 error body with its
//! `scimType`.

pub mod bulk;
pub mod csv;
pub mod discovery;
mod group_provisioning;
pub mod groups;
mod provisioning;
pub mod root_search;
pub mod users;

use std::collections::HashMap;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use equip_scim::error::ScimType;
use equip_scim::list::ListError;
use equip_scim::schemas::MEDIA_TYPE;
use serde_json::Value;

use crate::auth::Authenticated;
use crate::error::{Area, HttpError};

/// The base of `Location` and `meta.location` for the answer to `req`
/// ([`crate::public_url`]).
pub(crate) fn base_url(req: &HttpRequest) -> String {
    req.app_data::<actix_web::web::Data<crate::state::AppState>>()
        .map_or_else(
            || crate::public_url::PublicUrl::from_host().base(req),
            |state| state.public_url().base(req),
        )
}

/// The query parameters of a request.
pub(crate) type Query = actix_web::web::Query<HashMap<String, String>>;

/// The query parameter `name`, matched case-insensitively.
pub(crate) fn param<'a>(q: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    q.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A list input that cannot be used: 400 `invalidFilter` or `invalidValue`.
pub(crate) fn list_error(e: ListError) -> HttpError {
    match e {
        ListError::Filter(m) => bad(ScimType::InvalidFilter, "filter", m),
        ListError::Param { param, message } => bad(ScimType::InvalidValue, param, message),
    }
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

/// Runs `f` with the caller's organization on the blocking pool.
pub(crate) async fn run<T, F>(
    state: &crate::state::AppState,
    key: Authenticated,
    f: F,
) -> Result<T, HttpError>
where
    F: StoreWork<T>,
    T: Send + 'static,
{
    run_with(state, key, false, f).await
}

/// As [`run`], on a write session (Bulk, CSV): the key check and every store
/// call of `f` use one connection (each write durable when it commits, as
/// everywhere).
pub(crate) async fn run_in_session<T, F>(
    state: &crate::state::AppState,
    key: Authenticated,
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
    key: Authenticated,
    session: bool,
    f: F,
) -> Result<T, HttpError>
where
    F: StoreWork<T>,
    T: Send + 'static,
{
    // The gate checked the key and the scope `scim`.
    let org = key.caller.organization_id;
    let state = state.clone();
    crate::blocking::block(Area::Scim, move || {
        let store_error = |e: equip_domain::error::StoreError| domain(e.into());
        let ports = if session {
            state.write_session(&key.caller).map_err(store_error)?
        } else {
            state.ports(&key.caller)
        };
        f(&*ports, org)
    })
    .await
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
