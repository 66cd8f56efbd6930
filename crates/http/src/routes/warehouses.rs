//! `GET /api/v1/warehouses` and `GET /api/v1/warehouses/{id}`.

use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::warehouse::{WarehouseBody, WarehouseList};
use equip_domain::ids::WarehouseId;
use equip_domain::location::MAX_LISTED_WAREHOUSES;
use equip_domain::services::warehouses::{get_warehouse, list_warehouses};
use utoipa::OpenApi;

use crate::body::path_id;
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(get, list))]
pub struct Doc;

/// 200 with the warehouse; 400 malformed id; 401; 403; 404 unknown or not accessible.
#[utoipa::path(
    get,
    path = "/api/v1/warehouses/{id}",
    operation_id = "getWarehouse",
    tag = "warehouses",
    summary = "Read a warehouse accessible to the organization.",
    params(("id" = uuid::Uuid, Path, description = "The warehouse's id.")),
    responses(
        (status = 200, description = "The warehouse.", body = WarehouseBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such warehouse, or not accessible to the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WarehouseId::parse)?;
    let warehouse = scoped
        .run(move |ports, org| get_warehouse(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(WarehouseBody::from(&warehouse)))
}

/// `{"data": [warehouse, …]}`: the warehouses accessible to the organization
/// (owned, or shared and granted), by name then id, at most
/// [`equip_domain::location::MAX_LISTED_WAREHOUSES`]; 401; 403.
#[utoipa::path(
    get,
    path = "/api/v1/warehouses",
    operation_id = "listWarehouses",
    tag = "warehouses",
    summary = "List the warehouses accessible to the organization (extension).",
    description = format!(
        "The warehouses the organization owns and the shared ones it was granted: exactly those \
         GET /api/v1/warehouses/{{id}} answers, by name (byte order), then id. At most \
         {MAX_LISTED_WAREHOUSES}: the first in that order."
    ),
    responses((status = 200, description = "The warehouses.", body = inline(WarehouseList))),
)]
pub async fn list(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let warehouses = scoped
        .run(move |ports, org| list_warehouses(ports, org))
        .await?;
    Ok(HttpResponse::Ok().json(WarehouseList {
        data: warehouses.iter().map(WarehouseBody::from).collect(),
    }))
}
