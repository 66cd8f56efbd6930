//! `GET /healthz` (the process is up) and `GET /readyz` (the database answers and can be written).
//! Neither needs a key. The JSON shapes are `equip_api_types::health`.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::health::{Live, Ready, LIVE, READY};
use utoipa::OpenApi;

use crate::error::HttpError;
use crate::state::AppState;

/// This module's part of the OpenAPI document (`GET /openapi.json`, the
/// third operation that needs no key, is `super::openapi_json`'s).
#[derive(OpenApi)]
#[openapi(paths(healthz, readyz))]
pub struct Doc;

/// 200 while the process serves requests.
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    tag = "operations",
    summary = "Liveness: the process serves requests.",
    security(()),
    responses((status = 200, description = "Serving.", body = inline(Live))),
)]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(LIVE)
}

/// 200 when the database answers a trivial query and can be written
/// (`check_writable`: a write that is rolled back, or after a write failed
/// for a full disk, a committed one-row no-op, on SQLite after 1 MiB written
/// next to the database file), 503 otherwise, naming which.
#[utoipa::path(
    get,
    path = "/readyz",
    operation_id = "readyz",
    tag = "operations",
    summary = "Readiness: the database answers and can be written.",
    security(()),
    responses(
        (status = 200, description = "Ready.", body = inline(Ready)),
        (status = 503, description = "The database is not reachable, or cannot be written (read-only, disk full).", body = ErrorBody),
    ),
)]
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
        Ok(()) => Ok(HttpResponse::Ok().json(READY)),
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
