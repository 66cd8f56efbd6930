//! Error bodies and status mapping.
//!
//! Two areas, two bodies (docs/api.md, "Errors"; docs/scim.md):
//! - `/api/v1/...` (and everything outside `/scim/`): `{"errors":[{"detail","source"}]}`
//!   as `application/json`;
//! - `/scim/v2/...`: the RFC 7644 §3.12 body as `application/scim+json`.
//!
//! The area is the request's, decided once from its path ([`error_bodies`]):
//! an [`HttpError`] is made without it, wherever it is made, and gets its
//! area's body when it is answered.
//!
//! A 5xx never shows internals: the cause is logged, the caller gets a fixed text.

use std::fmt;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, Error, HttpRequest, HttpResponse, ResponseError};
use equip_domain::api_key::{AuthError, MissingScope};
use equip_domain::DomainError;
use equip_scim::error::{ScimError, ScimErrorBody, ScimType};
use serde_json::json;

use crate::rate_limit::Exceeded;

/// The request quota of the caller's key: its burst (`crate::rate_limit`).
pub const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
/// Requests the key may still make at once.
pub const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
/// Whole seconds until the key's full burst is available again.
pub const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

/// Which part of the API a request belongs to; decides the error body.
///
/// An [`HttpError`] does not know its area: the area is the request's,
/// decided once from its path by [`error_bodies`], and the body is chosen
/// when the error is answered ([`Area::current`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// `/api/v1` and the operational endpoints.
    Api,
    /// `/scim/v2`.
    Scim,
}

tokio::task_local! {
    /// The area of the request being handled ([`error_bodies`]).
    static AREA: Area;
}

impl Area {
    /// The area of a request path.
    #[must_use]
    pub fn of_path(path: &str) -> Self {
        if path == "/scim" || path.starts_with("/scim/") {
            Self::Scim
        } else {
            Self::Api
        }
    }

    /// The area of the request being handled here, as [`error_bodies`] set it
    /// from its path; [`Area::Api`] outside a request.
    #[must_use]
    pub fn current() -> Self {
        AREA.try_with(|area| *area).unwrap_or(Self::Api)
    }
}

/// 499, "client closed request" (not in the HTTP registry; nginx's
/// convention for what the request log shows when the client left first).
fn client_closed_request() -> StatusCode {
    StatusCode::from_u16(499).unwrap_or(StatusCode::BAD_REQUEST)
}

/// An error answered to the caller, with the body of the request's area
/// ([`Area`]).
#[derive(Debug, Clone)]
pub struct HttpError {
    status: StatusCode,
    detail: String,
    source: String,
    scim_type: Option<ScimType>,
    /// Headers the response carries besides the status's own.
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl HttpError {
    /// An error with `status`, naming `source` (the parameter, field or
    /// entity) in the API body.
    pub fn with_status(
        status: StatusCode,
        source: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            status,
            detail: detail.into(),
            source: source.into(),
            scim_type: None,
            headers: Vec::new(),
        }
    }

    /// 400 naming `source`.
    pub fn invalid(source: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::with_status(StatusCode::BAD_REQUEST, source, detail)
    }

    /// Sets the SCIM `scimType`.
    #[must_use]
    pub fn with_scim_type(mut self, scim_type: ScimType) -> Self {
        self.scim_type = Some(scim_type);
        self
    }

    /// Adds a header to the response.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// 401 for a refused key.
    #[must_use]
    pub fn unauthorized(err: AuthError) -> Self {
        Self::with_status(StatusCode::UNAUTHORIZED, "authorization", err.to_string())
    }

    /// 403 for a key without the needed scope.
    #[must_use]
    pub fn forbidden(err: MissingScope) -> Self {
        Self::with_status(StatusCode::FORBIDDEN, "authorization", err.to_string())
    }

    /// 500 with a fixed text; `cause` goes to the log only.
    pub fn internal(cause: &dyn fmt::Display) -> Self {
        tracing::error!("internal error: {cause}");
        Self::with_status(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server",
            "internal server error",
        )
    }

    /// 503 at once: more work waits for the database than it can do in
    /// time (`crate::blocking`). Like every 503, answered with
    /// `Retry-After`.
    #[must_use]
    pub fn overloaded() -> Self {
        Self::with_status(
            StatusCode::SERVICE_UNAVAILABLE,
            "server",
            "the service is at capacity; retry later",
        )
    }

    /// 429: the key is over its rate limit (`crate::rate_limit`), with
    /// `Retry-After` and the `RateLimit-*` headers.
    #[must_use]
    pub fn too_many_requests(exceeded: &Exceeded) -> Self {
        let mut err = Self::with_status(
            StatusCode::TOO_MANY_REQUESTS,
            "authorization",
            format!(
                "this API key is over its rate limit; retry in {} s",
                exceeded.retry_after_secs
            ),
        );
        err.headers = vec![
            (
                header::RETRY_AFTER,
                HeaderValue::from(exceeded.retry_after_secs),
            ),
            (RATELIMIT_LIMIT, HeaderValue::from(exceeded.limit)),
            (RATELIMIT_REMAINING, HeaderValue::from(0u32)),
            (RATELIMIT_RESET, HeaderValue::from(exceeded.reset_secs)),
        ];
        err
    }

    /// 429: the caller's organization already runs as many store calls as
    /// its share allows (`crate::shares`), and none ended within the wait
    /// bound; with `Retry-After: 1`. Other organizations are not refused.
    #[must_use]
    pub fn share_taken() -> Self {
        Self::with_status(
            StatusCode::TOO_MANY_REQUESTS,
            "organization",
            "this organization's requests already use its share of the database; \
             retry in 1 s",
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(1u32))
    }

    /// The client closed its connection before the work was done (nginx's
    /// 499, "client closed request"): nobody receives this answer, it is
    /// what the request log shows.
    #[must_use]
    pub fn client_gone() -> Self {
        Self::with_status(
            client_closed_request(),
            "client",
            "the client closed the connection before the answer",
        )
    }

    /// A request that did not finish within `limit`: 503. Whether a write
    /// took effect is unknown to the client.
    #[must_use]
    pub fn timed_out(limit: std::time::Duration) -> Self {
        Self::with_status(
            StatusCode::SERVICE_UNAVAILABLE,
            "server",
            format!(
                "the request did not finish within {} s; a write may or may not have taken effect: read before retrying",
                limit.as_secs()
            ),
        )
    }

    /// The status.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What went wrong, as the body says it.
    #[must_use]
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The RFC 7644 error body of this error (also the `response` of a
    /// failed Bulk operation).
    #[must_use]
    pub fn scim_body(&self) -> ScimErrorBody {
        ScimErrorBody::new(self.status.as_u16(), self.scim_type, &self.detail)
    }

    /// The response to this error with `area`'s body.
    #[must_use]
    pub fn render(&self, area: Area) -> HttpResponse {
        let mut builder = HttpResponse::build(self.status);
        if self.status == StatusCode::UNAUTHORIZED {
            builder.insert_header((
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("ApiKey realm=\"equip\""),
            ));
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            // Every 503 is temporary: at capacity, the database unreachable.
            builder.insert_header((header::RETRY_AFTER, HeaderValue::from_static("1")));
        }
        for (name, value) in &self.headers {
            builder.insert_header((name.clone(), value.clone()));
        }
        // A server-side failure names the request, so that a report of it
        // can be found in the logs.
        let id = self
            .status
            .is_server_error()
            .then(crate::request_id::current)
            .flatten();
        match area {
            Area::Api => {
                let mut body = json!({"errors": [{"detail": self.detail, "source": self.source}]});
                if let Some(id) = &id {
                    body["requestId"] = json!(id.as_str());
                }
                builder
                    .content_type("application/json")
                    .body(body.to_string())
            }
            Area::Scim => {
                let mut body = self.scim_body();
                if let Some(id) = &id {
                    body.detail = format!("{} (request id {id})", body.detail);
                }
                builder
                    .content_type(equip_scim::schemas::MEDIA_TYPE)
                    .body(serde_json::to_string(&body).unwrap_or_default())
            }
        }
    }
}

/// The status of a domain error, with its field as `source`: decided once,
/// by the SCIM error of the same failure (`equip_scim::error`; the API body
/// shows its `detail` and `source`, the SCIM body its `scimType` too).
impl From<DomainError> for HttpError {
    fn from(err: DomainError) -> Self {
        ScimError::from(err).into()
    }
}

/// A SCIM operation's error, answered with its status, `scimType`, `source`
/// and text as the provisioning service decided them.
impl From<ScimError> for HttpError {
    fn from(e: ScimError) -> Self {
        let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let err = Self::with_status(status, e.about(), e.detail());
        match e.scim_type() {
            Some(t) => err.with_scim_type(t),
            None => err,
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.source,
            self.detail
        )
    }
}

impl ResponseError for HttpError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    /// The body of the request's area ([`Area::current`]).
    fn error_response(&self) -> HttpResponse {
        self.render(Area::current())
    }
}

/// The middleware that decides each request's [`Area`] once, from its path
/// (after [`crate::scim_requests`] has normalised it): every [`HttpError`]
/// answered while the request runs (by its gate, extractors, handler, or
/// the 404 and 405 defaults) has that area's body. An error a middleware
/// returns instead of a response is answered by actix after the request
/// has run: it leaves here holding the area it is answered with.
///
/// Mounted with `actix_web::middleware::from_fn(error_bodies)`.
///
/// # Errors
/// The inner service's, an [`HttpError`] among them holding its area.
pub async fn error_bodies(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let area = Area::of_path(req.path());
    AREA.scope(area, async move {
        next.call(req)
            .await
            .map_err(|e| match e.as_error::<HttpError>() {
                Some(error) => InArea {
                    error: error.clone(),
                    area,
                }
                .into(),
                None => e,
            })
    })
    .await
}

/// An [`HttpError`] answered by actix outside its request: with the area
/// of the request it ended.
#[derive(Debug)]
struct InArea {
    error: HttpError,
    area: Area,
}

impl fmt::Display for InArea {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl ResponseError for InArea {
    fn status_code(&self) -> StatusCode {
        self.error.status
    }

    fn error_response(&self) -> HttpResponse {
        self.error.render(self.area)
    }
}

/// Default service: an unknown path is 404 with the area's body.
pub async fn unknown_path(req: HttpRequest) -> HttpResponse {
    HttpError::with_status(
        StatusCode::NOT_FOUND,
        "path",
        format!("no such endpoint: {}", req.path()),
    )
    .error_response()
}

/// Resource default: a known path with another method is 405 with the area's
/// body and an `Allow` header listing `allow`.
#[must_use]
pub fn method_not_allowed(req: &HttpRequest, allow: &str) -> HttpResponse {
    let mut resp = HttpError::with_status(
        StatusCode::METHOD_NOT_ALLOWED,
        "method",
        format!("method {} is not allowed on {}", req.method(), req.path()),
    )
    .error_response();
    if let Ok(allow) = HeaderValue::from_str(allow) {
        resp.headers_mut().insert(header::ALLOW, allow);
    }
    resp
}

/// An endpoint equip does not provide (a route declared
/// `not_implemented`): 501 with the area's body saying `detail`.
#[must_use]
pub fn not_implemented(detail: &str) -> HttpResponse {
    HttpError::with_status(StatusCode::NOT_IMPLEMENTED, "path", detail).error_response()
}

/// JSON bodies: `application/json` or any `+json` type (SCIM), at most `limit`
/// bytes; errors mapped to 400 / 413 / 415 with the area's body.
#[must_use]
pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .content_type(|mime| mime.subtype() == mime::JSON || mime.suffix() == Some(mime::JSON))
        .content_type_required(true)
        .error_handler(|err, _| json_error(&err).into())
}

fn json_error(err: &JsonPayloadError) -> HttpError {
    match err {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            HttpError::with_status(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request",
                format!("request body is larger than the limit ({err})"),
            )
        }
        JsonPayloadError::ContentType => HttpError::with_status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type",
            "expected Content-Type application/json (or application/scim+json on /scim/v2)",
        ),
        JsonPayloadError::Deserialize(e) => {
            HttpError::invalid("request", format!("malformed JSON body: {e}"))
                .with_scim_type(ScimType::InvalidSyntax)
        }
        other => HttpError::invalid("request", format!("unreadable body: {other}"))
            .with_scim_type(ScimType::InvalidSyntax),
    }
}

/// Query strings that do not parse: 400.
#[must_use]
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err: QueryPayloadError, _| {
        HttpError::invalid("query", format!("malformed query string: {err}")).into()
    })
}

/// Path segments that do not parse: 400.
#[must_use]
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err: PathError, _| {
        HttpError::invalid("path", format!("malformed path: {err}")).into()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use actix_web::body::to_bytes;

    async fn body_of(resp: HttpResponse) -> String {
        String::from_utf8(to_bytes(resp.into_body()).await.unwrap().to_vec()).unwrap()
    }

    #[actix_web::test]
    async fn server_errors_hide_their_cause() {
        let err = HttpError::from(DomainError::Store(equip_domain::StoreError::Backend(
            "SELECT secret FROM x".into(),
        )));
        let resp = err.error_response();
        assert_eq!(resp.status(), 500);
        let text = body_of(resp).await;
        assert!(!text.contains("SELECT"), "{text}");
    }

    #[test]
    fn area_follows_the_path() {
        assert_eq!(Area::of_path("/scim/v2/Users"), Area::Scim);
        assert_eq!(Area::of_path("/api/v1/warehouses/x"), Area::Api);
        assert_eq!(Area::of_path("/scimx"), Area::Api);
    }

    #[actix_web::test]
    async fn the_body_is_the_area_of_the_request_being_answered() {
        let err = || HttpError::invalid("size", "size must be a number");
        assert_eq!(Area::current(), Area::Api);
        let api = body_of(err().error_response()).await;
        assert_eq!(
            api,
            r#"{"errors":[{"detail":"size must be a number","source":"size"}]}"#
        );
        let scim = AREA
            .scope(Area::Scim, async { err().error_response() })
            .await;
        assert_eq!(
            scim.headers().get(header::CONTENT_TYPE).unwrap(),
            equip_scim::schemas::MEDIA_TYPE
        );
        let text = body_of(scim).await;
        assert!(text.contains(r#""status":"400""#), "{text}");
        assert!(text.contains("size must be a number"), "{text}");
    }
}
