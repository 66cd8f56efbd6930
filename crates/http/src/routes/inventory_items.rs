//! `GET`, `POST` and `PATCH` of single inventory items (extension, docs/api.md):
//! create, change status and reason, (re)assign, tags, renewal date and
//! description, under the domain's rules.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::Utc;
use equip_api_types::item::ItemBody;
use equip_api_types::item_input::{
    self as input, ASSIGNED_TO, CONDITION, DEPLOY_REASON, DEPLOY_STATUS, DESCRIPTION, IMEI,
    PROCUREMENT_METHOD, RENEWAL_DATE, SERIAL_NUMBER, SKU_ID, SUPPLIED_BY, TAGS,
};
use equip_domain::api_key::Scope;
use equip_domain::ids::InventoryItemId;
use equip_domain::inventory::SuppliedBy;
use equip_domain::services::inventory::{create_item, get_item, update_item, ItemChanges, NewItem};
use serde_json::Value;

use crate::body::{path_id, Fields};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// `GET /api/v1/inventory/{id}`.
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, InventoryItemId::parse)?;
    let view = scoped
        .run(move |ports, org| get_item(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}

/// `POST /api/v1/inventory`: 201 with its `Location` and the item, or only
/// `{"id"}` to a key without `inventory:read` (docs/api.md).
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::InventoryRead);
    let f = Fields::of(&body)?;
    f.only(&input::CREATE)?;
    let new = NewItem {
        sku_id: f.require_input(&SKU_ID)?,
        serial_number: f.input(&SERIAL_NUMBER)?.into_option(),
        imei: f.input(&IMEI)?.into_option().unwrap_or_default(),
        deploy_status: f.require_input(&DEPLOY_STATUS)?,
        deploy_reason: f.input(&DEPLOY_REASON)?.into_option(),
        condition: f.require_input(&CONDITION)?,
        assigned_to: f.input(&ASSIGNED_TO)?.into_option(),
        tags: f.input(&TAGS)?.into_option().unwrap_or_default(),
        renewal_date: f.input(&RENEWAL_DATE)?.into_option(),
        description: f.input(&DESCRIPTION)?.into_option(),
        procurement_method: f.input(&PROCUREMENT_METHOD)?.into_option(),
        supplied_by: f
            .input(&SUPPLIED_BY)?
            .into_option()
            .unwrap_or(SuppliedBy::Organization),
    };
    let view = scoped
        .run(move |ports, org| create_item(ports, org, new, Utc::now()))
        .await?;
    let mut created = HttpResponse::Created();
    created.insert_header((LOCATION, format!("/api/v1/inventory/{}", view.item.id)));
    if !may_read {
        return Ok(created.json(serde_json::json!({ "id": view.item.id.to_string() })));
    }
    Ok(created.json(ItemBody::from(&view)))
}

/// `PATCH /api/v1/inventory/{id}`: 200 with the changed item to a key that
/// may read it (`inventory:read`), 204 without a body to a key that may only
/// write (docs/api.md).
pub async fn update(
    scoped: Scoped,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::InventoryRead);
    let id = path_id("id", &id, InventoryItemId::parse)?;
    let f = Fields::of(&body)?;
    f.only(&input::PATCH)?;
    let not_null = |name: &str| HttpError::invalid(name, format!("{name} cannot be null"));
    let changes = ItemChanges {
        deploy_status: match f.input(&DEPLOY_STATUS)?.into_change() {
            Some(None) => return Err(not_null(DEPLOY_STATUS.name)),
            other => other.flatten(),
        },
        deploy_reason: f.input(&DEPLOY_REASON)?.into_change(),
        condition: match f.input(&CONDITION)?.into_change() {
            Some(None) => return Err(not_null(CONDITION.name)),
            other => other.flatten(),
        },
        assigned_to: f.input(&ASSIGNED_TO)?.into_change(),
        tags: f.input(&TAGS)?.into_change().map(Option::unwrap_or_default),
        renewal_date: f.input(&RENEWAL_DATE)?.into_change(),
        description: f.input(&DESCRIPTION)?.into_change(),
    };
    let view = scoped
        .run(move |ports, org| update_item(ports, org, id, changes, Utc::now()))
        .await?;
    if !may_read {
        return Ok(HttpResponse::NoContent().finish());
    }
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}
