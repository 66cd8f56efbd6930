//! `GET /api/v1/api-key`: the key the request carries (docs/api.md, "The
//! key of a request"). Any valid key may ask, whatever its scopes. The JSON
//! shape is `equip_api_types::api_key`.

use actix_web::HttpResponse;
use equip_api_types::api_key::{ApiKeyBody, ApiKeyNameBody, ApiKeyNameList};
use equip_domain::services::auth::{caller_key_and_organization, organization_keys};
use utoipa::OpenApi;

use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(get, list))]
pub struct Doc;

/// 200 with the caller's key; 401 without a valid key (also when it was
/// revoked since the gate checked it). Never 403: the route takes any valid
/// key (`gate::Needs::AnyKey`), so the document lists no 403 for it.
#[utoipa::path(
    get,
    path = "/api/v1/api-key",
    operation_id = "getOwnApiKey",
    tag = "api-key",
    summary = "The API key this request carries: its organization and scopes (extension).",
    description = "Any valid key may call it, whatever its scopes, also a key without any: \
        it answers only about the key itself. Never the key or its hash. Clients use it to \
        learn which organization a key acts for and what it may do.",
    responses((status = 200, description = "The key the request carries.", body = ApiKeyBody)),
)]
pub async fn get(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let caller = scoped.caller().clone();
    let (key, organization) = scoped
        .run(move |ports, _| caller_key_and_organization(ports, &caller))
        .await?;
    Ok(HttpResponse::Ok().json(ApiKeyBody::new(&key, &organization)))
}

/// `{"data": [key, …]}`: the organization's keys, to name events' actors.
#[utoipa::path(
    get,
    path = "/api/v1/api-keys",
    operation_id = "listApiKeyNames",
    tag = "api-key",
    summary = "Name the organization's API keys (extension).",
    description = "Every key of the organization, revoked or not, oldest first: its id, public         prefix, label and dates, so that a client can say who did what (an event's `actor` of         type `API_KEY` carries the key's id). Never a key, its hash or its scopes. Query         parameters are ignored.",
    responses((status = 200, description = "The keys.", body = inline(ApiKeyNameList))),
)]
pub async fn list(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let keys = scoped
        .run(move |ports, org| organization_keys(ports, org))
        .await?;
    Ok(HttpResponse::Ok().json(ApiKeyNameList {
        data: keys.iter().map(ApiKeyNameBody::from).collect(),
    }))
}
