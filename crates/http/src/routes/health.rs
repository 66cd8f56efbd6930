//! `GET /healthz` (the process is up) and `GET /readyz` (the database answers and can be written).
//! Neither needs a key.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::error::HttpError;
use crate::state::AppState;

/// 200 while the process serves requests.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// 200 when the database answers a trivial query and can be written
/// (`check_writable`: a write that is rolled back, or after a write failed
/// for a full disk, a committed one-row no-op, on SQLite after 1 MiB written
/// next to the database file), 503 otherwise, naming which.
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, HttpError> {
    let ports = state.system_ports();
    let result = web::block(move || {
        ports
            .ping()
            .map_err(|e| (e, "the database is not reachable"))?;
        ports
            .check_writable()
            .map_err(|e| (e, "the database cannot be written"))
    })
    .await
    .map_err(|e| HttpError::internal(&e))?;
    match result {
        Ok(()) => Ok(HttpResponse::Ok().json(json!({"status": "ready"}))),
        Err((e, detail)) => {
            tracing::warn!("readiness check failed: {e}");
            Err(HttpError::with_status(
                StatusCode::SERVICE_UNAVAILABLE,
                "database",
                detail,
            ))
        }
    }
}
