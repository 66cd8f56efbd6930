//! `GET /api/v1/api-key`: the key the request carries (docs/api.md, "The
//! key of a request"). Any valid key may ask, whatever its scopes.

use actix_web::{web, HttpResponse};
use chrono::SecondsFormat;
use equip_domain::api_key::ApiKey;
use equip_domain::services::auth::caller_key;
use serde_json::{json, Value};

use crate::auth::{auth_failure, Authenticated};
use crate::blocking;
use crate::error::{Area, HttpError};
use crate::state::AppState;

/// The key's JSON: `id`, `prefix`, `label` (or null), `organizationId`,
/// `scopes` (in their stored order), `createdAt`. Never the key or its hash.
#[must_use]
pub fn api_key_json(key: &ApiKey) -> Value {
    json!({
        "id": key.id,
        "prefix": key.prefix,
        "label": key.label,
        "organizationId": key.organization_id,
        "scopes": key.scopes.as_slice().iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "createdAt": key.created_at.to_rfc3339_opts(SecondsFormat::Millis, true),
    })
}

/// 200 with the caller's key; 401 without a valid key (also when it was
/// revoked since the gate checked it).
pub async fn get(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, HttpError> {
    let caller = auth.caller.clone();
    let ports = state.ports(&auth.caller);
    let key = blocking::block(Area::Api, move || {
        caller_key(&*ports, &caller).map_err(|e| auth_failure(Area::Api, e))
    })
    .await?;
    Ok(HttpResponse::Ok().json(api_key_json(&key)))
}
