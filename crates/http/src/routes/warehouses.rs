//! `GET /api/v1/warehouses` and `GET /api/v1/warehouses/{id}`.

use actix_web::{web, HttpResponse};
use equip_domain::ids::WarehouseId;
use equip_domain::location::Warehouse;
use equip_domain::services::warehouses::{get_warehouse, list_warehouses};
use serde_json::{json, Value};

use crate::body::path_id;
use crate::error::HttpError;
use crate::scoped::Scoped;

/// The Warehouse JSON (docs/api.md, "Warehouses"): `id`, `name`, `address` (or null).
#[must_use]
pub fn warehouse_json(w: &Warehouse) -> Value {
    json!({
        "id": w.id,
        "name": w.name,
        "address": w.address,
    })
}

/// 200 with the warehouse; 400 malformed id; 401; 403; 404 unknown or not accessible.
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WarehouseId::parse)?;
    let warehouse = scoped
        .run(move |ports, org| get_warehouse(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(warehouse_json(&warehouse)))
}

/// `{"data": [warehouse, …]}`: the warehouses accessible to the organization
/// (owned, or shared and granted), by name then id, at most
/// [`equip_domain::location::MAX_LISTED_WAREHOUSES`]; 401; 403.
pub async fn list(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let warehouses = scoped
        .run(move |ports, org| list_warehouses(ports, org))
        .await?;
    let data: Vec<Value> = warehouses.iter().map(warehouse_json).collect();
    Ok(HttpResponse::Ok().json(json!({ "data": data })))
}
