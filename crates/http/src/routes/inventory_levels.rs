//! `/api/v1/inventory-levels`: create (extension), list (extension) and
//! deactivate (a soft delete; docs/api.md, "Inventory levels").

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::{SecondsFormat, Utc};
use equip_domain::ids::{InventoryLevelId, SkuId, WarehouseId};
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::services::inventory_levels::{
    create_inventory_level, deactivate_inventory_level, list_inventory_levels, NewInventoryLevel,
};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::body::{path_id, Fields};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// The JSON of a level.
#[must_use]
pub fn level_json(l: &InventoryLevel) -> Value {
    json!({
        "id": l.id,
        "skuId": l.sku_id,
        "warehouseId": l.warehouse_id,
        "minimumQuantity": l.minimum_quantity,
        "targetQuantity": l.target_quantity,
        "active": l.is_active(),
        "createdAt": l.created_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        "deactivatedAt": l.deactivated_at.map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true)),
    })
}

/// `POST /api/v1/inventory-levels`: 201 with the level and its `Location`.
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let fields = Fields::of(&body)?;
    let input = NewInventoryLevel {
        sku_id: fields.id("skuId", SkuId::parse)?,
        warehouse_id: fields.id("warehouseId", WarehouseId::parse)?,
        minimum_quantity: fields.i32("minimumQuantity")?,
        target_quantity: fields.i32("targetQuantity")?,
    };
    let level = scoped
        .run(move |ports, org| create_inventory_level(ports, org, input, Utc::now()))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/api/v1/inventory-levels/{}", level.id)))
        .json(level_json(&level)))
}

/// Query of the level listing.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    #[serde(rename = "includeInactive")]
    include_inactive: Option<String>,
}

/// `GET /api/v1/inventory-levels[?includeInactive=true]`: `{"data": [...]}`,
/// newest first.
pub async fn list(scoped: Scoped, query: web::Query<ListQuery>) -> Result<HttpResponse, HttpError> {
    let include_inactive = match query.include_inactive.as_deref().map(str::trim) {
        None => false,
        Some(v) if v.eq_ignore_ascii_case("true") => true,
        Some(v) if v.eq_ignore_ascii_case("false") => false,
        Some(v) => {
            return Err(HttpError::invalid(
                "includeInactive",
                format!("includeInactive must be true or false, not '{v}'"),
            ))
        }
    };
    let levels = scoped
        .run(move |ports, org| list_inventory_levels(ports, org, include_inactive))
        .await?;
    let data: Vec<Value> = levels.iter().map(level_json).collect();
    Ok(HttpResponse::Ok().json(json!({ "data": data })))
}

/// `DELETE /api/v1/inventory-levels/{id}`: 204; 400 malformed id; 404 unknown or
/// another organization's; 409 already deactivated.
pub async fn deactivate(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, InventoryLevelId::parse)?;
    scoped
        .run(move |ports, org| deactivate_inventory_level(ports, org, id, Utc::now()))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
