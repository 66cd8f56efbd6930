//! `GET /api/v1/api-key`: the key the request carries (docs/api.md, "The
//! key of a request"). Any valid key may ask, whatever its scopes.

use actix_web::HttpResponse;
use chrono::SecondsFormat;
use equip_domain::api_key::ApiKey;
use equip_domain::services::auth::caller_key;
use serde_json::{json, Value};

use crate::error::HttpError;
use crate::scoped::Scoped;

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
pub async fn get(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let caller = scoped.caller().clone();
    let key = scoped
        .run(move |ports, _| caller_key(ports, &caller))
        .await?;
    Ok(HttpResponse::Ok().json(api_key_json(&key)))
}
