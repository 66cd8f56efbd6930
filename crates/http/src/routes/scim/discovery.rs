//! `/scim/v2/ServiceProviderConfig`, `/ResourceTypes`, `/Schemas` (read only;
//! other methods answer 405). They read no data: the route's gate has checked
//! the key (`Authenticated` fails closed without one), and the documents are
//! rendered from the request's base URL.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use equip_scim::discovery;
use equip_scim::error::ScimError;
use equip_scim::list::list_response;

use super::{base_url, scim_response};
use crate::auth::Authenticated;
use crate::error::HttpError;
use crate::state::AppState;

fn not_found(what: &str) -> HttpError {
    ScimError::new(404, "id", format!("no such {what}")).into()
}

/// `GET /scim/v2/ServiceProviderConfig`.
pub async fn service_provider_config(
    _key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    Ok(scim_response(
        StatusCode::OK,
        &discovery::service_provider_config(&base_url(&req), state.scim_max_results()),
    ))
}

/// `GET /scim/v2/ResourceTypes`.
pub async fn resource_types(
    _key: Authenticated,
    req: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let all = discovery::resource_types(&base_url(&req));
    Ok(scim_response(
        StatusCode::OK,
        &list_response(all.len() as u64, 1, all),
    ))
}

/// `GET /scim/v2/ResourceTypes/{id}`.
pub async fn resource_type(
    _key: Authenticated,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    discovery::resource_types(&base_url(&req))
        .into_iter()
        .find(|t| t["id"].as_str() == Some(id.as_str()))
        .map(|t| scim_response(StatusCode::OK, &t))
        .ok_or_else(|| not_found("resource type"))
}

/// `GET /scim/v2/Schemas`.
pub async fn schemas(_key: Authenticated, req: HttpRequest) -> Result<HttpResponse, HttpError> {
    let all = discovery::schemas(&base_url(&req));
    Ok(scim_response(
        StatusCode::OK,
        &list_response(all.len() as u64, 1, all),
    ))
}

/// `GET /scim/v2/Schemas/{id}`.
pub async fn schema(
    _key: Authenticated,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    discovery::schemas(&base_url(&req))
        .into_iter()
        .find(|s| s["id"].as_str() == Some(id.as_str()))
        .map(|s| scim_response(StatusCode::OK, &s))
        .ok_or_else(|| not_found("schema"))
}
