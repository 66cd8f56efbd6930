//! `GET /healthz` (the process is up) and `GET /readyz` (the database answers).
//! Neither needs a key.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::error::{Area, HttpError};
use crate::state::AppState;

/// 200 while the process serves requests.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// 200 when the database answers a trivial query, 503 otherwise.
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, HttpError> {
    let ports = state.ports();
    let result = web::block(move || ports.ping())
        .await
        .map_err(|e| HttpError::internal(Area::Api, &e))?;
    match result {
        Ok(()) => Ok(HttpResponse::Ok().json(json!({"status": "ready"}))),
        Err(e) => {
            log::warn!("readiness check failed: {e}");
            Err(HttpError::new(
                Area::Api,
                StatusCode::SERVICE_UNAVAILABLE,
                "database",
                "the database is not reachable",
            ))
        }
    }
}
