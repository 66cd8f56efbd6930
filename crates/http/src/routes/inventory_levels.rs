//! `/api/v1/inventory-levels`: create (extension), list (extension) and
//! deactivate (a soft delete; docs/api.md, "Inventory levels"). The JSON
//! shapes are `equip_api_types::inventory_level`.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::Utc;
use equip_api_types::error::ErrorBody;
use equip_api_types::inventory_level::{LevelBody, LevelCreate, LevelList, LevelQuery};
use equip_domain::ids::InventoryLevelId;
use equip_domain::services::inventory_levels::{
    create_inventory_level, deactivate_inventory_level, list_inventory_levels,
};
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{self, path_id};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, create, deactivate))]
pub struct Doc;

/// `POST /api/v1/inventory-levels`: 201 with the level and its `Location`.
#[utoipa::path(
    post,
    path = "/api/v1/inventory-levels",
    operation_id = "createInventoryLevel",
    tag = "inventory-levels",
    summary = "Create an inventory level (extension).",
    request_body = LevelCreate,
    responses(
        (status = 201, description = "Created.", body = LevelBody, headers(
            ("Location" = String, description = "/api/v1/inventory-levels/{id} of the new level."),
        )),
        (status = 400, description = "A field is missing or invalid, or minimumQuantity > targetQuantity.", body = ErrorBody),
        (status = 404, description = "skuId is not in the organization, or warehouseId is not accessible to it.", body = ErrorBody),
        (status = 409, description = "An active level for this SKU and warehouse exists.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let input = body::parse::<LevelCreate>(body.into_inner())?.into();
    let level = scoped
        .run(move |ports, org| create_inventory_level(ports, org, input, Utc::now()))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            LOCATION,
            format!("/api/v1/inventory-levels/{}", level.level.id),
        ))
        .json(LevelBody::from(&level)))
}

/// `GET /api/v1/inventory-levels[?includeInactive=true]`: `{"data": [...]}`,
/// newest first.
#[utoipa::path(
    get,
    path = "/api/v1/inventory-levels",
    operation_id = "listInventoryLevels",
    tag = "inventory-levels",
    summary = "List the organization's inventory levels, newest first (extension).",
    params(LevelQuery),
    responses(
        (status = 200, description = "The levels.", body = inline(LevelList)),
        (status = 400, description = "includeInactive is neither true nor false.", body = ErrorBody),
    ),
)]
pub async fn list(
    scoped: Scoped,
    query: web::Query<LevelQuery>,
) -> Result<HttpResponse, HttpError> {
    let include_inactive = query
        .include_inactive()
        .map_err(|why| HttpError::invalid("includeInactive", why))?;
    let levels = scoped
        .run(move |ports, org| list_inventory_levels(ports, org, include_inactive))
        .await?;
    Ok(HttpResponse::Ok().json(LevelList {
        data: levels.iter().map(LevelBody::from).collect(),
    }))
}

/// `DELETE /api/v1/inventory-levels/{id}`: 204; 400 malformed id; 404 unknown or
/// another organization's; 409 already deactivated.
#[utoipa::path(
    delete,
    path = "/api/v1/inventory-levels/{id}",
    operation_id = "deactivateInventoryLevel",
    tag = "inventory-levels",
    summary = "Deactivate (soft-delete) an inventory level.",
    description = "The level is kept with its deactivation time; reactivating means creating a new level.",
    params(("id" = uuid::Uuid, Path, description = "The level's id.")),
    responses(
        (status = 204, description = "Deactivated."),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such level in the organization.", body = ErrorBody),
        (status = 409, description = "The level is already deactivated.", body = ErrorBody),
    ),
)]
pub async fn deactivate(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, InventoryLevelId::parse)?;
    scoped
        .run(move |ports, org| deactivate_inventory_level(ports, org, id, Utc::now()))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
