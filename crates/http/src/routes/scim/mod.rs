//! `/scim/v2`: Users (RFC 7644 §3) and the discovery endpoints (§4). Every
//! response is `application/scim+json`; every error is the RFC 7644 error body
//! with its `scimType`.

pub mod discovery;
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
