//! `GET /api/v1/api-key`: the key the request carries (docs/api.md, "The
//! key of a request"). Any valid key may ask, whatever its scopes. The JSON
//! shape is `equip_api_types::api_key`.

use actix_web::HttpResponse;
use equip_api_types::api_key::ApiKeyBody;
use equip_domain::services::auth::caller_key;
use utoipa::OpenApi;

use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(get))]
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
    let key = scoped
        .run(move |ports, _| caller_key(ports, &caller))
        .await?;
    Ok(HttpResponse::Ok().json(ApiKeyBody::from(&key)))
}
