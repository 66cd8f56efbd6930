//! `/scim/v2`: Users and Groups (RFC 7644 §3), Bulk, the CSV upload of users
//! and the discovery endpoints (§4), over the provisioning service of
//! `equip_scim::provisioning`. These handlers only read the request (path
//! ids, query parameters, preconditions, bodies), run the service on the
//! blocking pool, and render its answer: every response is
//! `application/scim+json`; every error is the RFC 7644 error body with its
//! `scimType` (a [`ScimError`] mapped once, in `crate::error`).

pub mod bulk;
pub mod csv;
pub mod discovery;
pub mod resources;
pub mod root_search;

use std::collections::HashMap;

use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use equip_scim::provisioning::{Answer, Fetched, IfMatch, Provisioning, ScimError, Selection};
use equip_scim::schemas::MEDIA_TYPE;
use serde_json::Value;

use crate::error::HttpError;
use crate::scoped::Scoped;

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

/// `attributes` / `excludedAttributes` of the query `q`.
pub(crate) fn selection(q: &HashMap<String, String>) -> Selection {
    Selection::read(|name| param(q, name).map(str::to_owned))
}

/// The precondition in header `name` (`If-Match` / `If-None-Match`).
pub(crate) fn precondition(req: &HttpRequest, name: HeaderName) -> IfMatch {
    // As header text: visible ASCII, else "" (names no version).
    IfMatch::stated(
        req.headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or_default()),
    )
}

/// A SCIM JSON response.
pub(crate) fn scim_response(status: StatusCode, body: &Value) -> HttpResponse {
    HttpResponse::build(status)
        .content_type(MEDIA_TYPE)
        .body(body.to_string())
}

/// A SCIM response of JSON text (a list, a BulkResponse).
pub(crate) fn scim_text(body: String) -> HttpResponse {
    HttpResponse::Ok().content_type(MEDIA_TYPE).body(body)
}

/// The answer of a Bulk request or CSV upload: 200 with its BulkResponse, or
/// 503 with it when the run stopped at its time limit (every operation
/// listed, those not run with 503).
pub(crate) fn bulk_answer(answer: equip_scim::provisioning::bulk_run::BulkAnswer) -> HttpResponse {
    if answer.stopped {
        tracing::warn!("a Bulk request or CSV upload stopped at its time limit");
        HttpResponse::ServiceUnavailable()
            .content_type(MEDIA_TYPE)
            .body(answer.body)
    } else {
        scim_text(answer.body)
    }
}

/// A response with an `ETag`.
fn with_etag(mut resp: HttpResponse, tag: &str) -> HttpResponse {
    if let Ok(v) = HeaderValue::from_str(tag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

/// A resource answered with `status`: its `ETag`, and for 201 its `Location`.
pub(crate) fn resource(status: StatusCode, answer: Answer) -> HttpResponse {
    let mut resp = with_etag(
        HttpResponse::build(status)
            .content_type(MEDIA_TYPE)
            .body(answer.body),
        &answer.tag,
    );
    if status == StatusCode::CREATED {
        if let Ok(v) = HeaderValue::from_str(&answer.location) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
    }
    resp
}

/// A `GET` of one resource: 200, or 304 with the current tag.
pub(crate) fn fetched(fetched: Fetched) -> HttpResponse {
    match fetched {
        Fetched::Resource(answer) => resource(StatusCode::OK, answer),
        Fetched::NotModified { tag } => with_etag(HttpResponse::NotModified().finish(), &tag),
    }
}

/// What a SCIM handler runs on the blocking pool: provisioning for the
/// caller's organization.
pub(crate) trait ScimWork<T>:
    for<'a> FnOnce(Provisioning<'a>) -> Result<T, ScimError> + Send + 'static
{
}

impl<T, F> ScimWork<T> for F where
    F: for<'a> FnOnce(Provisioning<'a>) -> Result<T, ScimError> + Send + 'static
{
}

/// Runs `f` with provisioning for the caller's organization (links under
/// `base`) on the blocking pool.
pub(crate) async fn run<T, F>(scoped: Scoped, base: String, f: F) -> Result<T, HttpError>
where
    F: ScimWork<T>,
    T: Send + 'static,
{
    scoped
        .run(move |ports, org| f(Provisioning::new(ports, org, &base)))
        .await
}

/// As [`run`], on a write session (Bulk, CSV): every store call of `f` uses
/// one connection (each write durable when it commits, as everywhere).
pub(crate) async fn run_in_session<T, F>(scoped: Scoped, base: String, f: F) -> Result<T, HttpError>
where
    F: ScimWork<T>,
    T: Send + 'static,
{
    scoped
        .run_in_session(move |ports, org| f(Provisioning::new(ports, org, &base)))
        .await
}
