//! What `/scim/v2` forgives of the requests identity providers send, before
//! they are routed:
//!
//! - a path with a trailing slash or doubled slashes (`/scim/v2/Users/`,
//!   `/scim/v2//Users`: a tenant URL typed with a trailing slash gives the
//!   latter) is served as the path without them. Only paths that are under
//!   `/scim/v2` once their slashes are merged are changed; `/api/v1`, the
//!   console and unknown paths are routed as sent.
//! - a `POST`, `PUT` or `PATCH` without `Content-Type` is read as
//!   `application/scim+json` (Okta's SCIM test suite sends none). A
//!   `Content-Type` that is sent is kept, so a type that is not JSON is still
//!   415; the CSV upload (`/scim/v2/Users/csv`, multipart) is not changed.

use std::future::{ready, Ready};

use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{HeaderValue, CONTENT_TYPE};
use actix_web::http::uri::PathAndQuery;
use actix_web::http::{Method, Uri};
use actix_web::Error;

/// The path `path` is served as: with `//` merged and a trailing `/` trimmed
/// when the result is under `/scim/v2`; `None` when it is served as sent.
#[must_use]
pub fn scim_path(path: &str) -> Option<String> {
    let mut merged = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && merged.ends_with('/')) {
            merged.push(c);
        }
    }
    let trimmed = merged.trim_end_matches('/');
    let scim = trimmed == "/scim/v2" || trimmed.starts_with("/scim/v2/");
    (scim && trimmed != path).then(|| trimmed.to_owned())
}

/// Whether `path` (already normalised) is a SCIM path whose JSON body may
/// come without a `Content-Type`.
fn json_body_route(path: &str) -> bool {
    (path == "/scim/v2" || path.starts_with("/scim/v2/")) && path != "/scim/v2/Users/csv"
}

/// The middleware (see the module).
#[derive(Debug, Clone, Copy, Default)]
pub struct ScimRequests;

impl<S, B> Transform<S, ServiceRequest> for ScimRequests
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = ScimRequestsService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(ScimRequestsService { service }))
    }
}

/// [`ScimRequests`] in front of a service.
pub struct ScimRequestsService<S> {
    service: S,
}

impl<S, B> Service<ServiceRequest> for ScimRequestsService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = S::Future;

    forward_ready!(service);

    fn call(&self, mut req: ServiceRequest) -> Self::Future {
        if let Some(path) = scim_path(req.path()) {
            if let Some(uri) = with_path(req.uri(), &path) {
                // Before routing: nothing has been matched yet.
                req.match_info_mut().get_mut().update(&uri);
                req.head_mut().uri = uri;
            }
        }
        let writes = matches!(*req.method(), Method::POST | Method::PUT | Method::PATCH);
        if writes && json_body_route(req.path()) && !req.headers().contains_key(CONTENT_TYPE) {
            req.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(equip_scim::schemas::MEDIA_TYPE),
            );
        }
        self.service.call(req)
    }
}

/// `uri` with its path replaced by `path` (the query kept); `None` if that
/// is not a URI (not expected: `path` is a part of the original path).
fn with_path(uri: &Uri, path: &str) -> Option<Uri> {
    let path_and_query = match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_owned(),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(PathAndQuery::try_from(path_and_query).ok()?);
    Uri::from_parts(parts).ok()
}

#[cfg(test)]
mod tests {
    use super::scim_path;

    #[test]
    fn only_scim_paths_lose_extra_slashes() {
        assert_eq!(
            scim_path("/scim/v2/Users/").as_deref(),
            Some("/scim/v2/Users")
        );
        assert_eq!(
            scim_path("/scim/v2//Users").as_deref(),
            Some("/scim/v2/Users")
        );
        assert_eq!(
            scim_path("//scim//v2///Groups/abc//").as_deref(),
            Some("/scim/v2/Groups/abc")
        );
        assert_eq!(scim_path("/scim/v2/").as_deref(), Some("/scim/v2"));
        // Already normal, or not SCIM: as sent.
        assert_eq!(scim_path("/scim/v2/Users"), None);
        assert_eq!(scim_path("/api/v1/inventory/"), None);
        assert_eq!(scim_path("/api/v1//warehouses"), None);
        assert_eq!(scim_path("/scim/v2x/"), None);
        assert_eq!(scim_path("/"), None);
        assert_eq!(scim_path(""), None);
    }
}
