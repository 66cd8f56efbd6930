//! `GET`, `POST` and `PATCH` of single inventory items (extension, docs/api.md):
//! create, change status and reason, (re)assign, tags, renewal date and
//! description, under the domain's rules. The bodies are
//! `equip_api_types::item_input`, the item `equip_api_types::item`.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::Utc;
use equip_api_types::error::ErrorBody;
use equip_api_types::item::{ItemBody, ItemCreated};
use equip_api_types::item_input::{InventoryItemCreate, InventoryItemPatch};
use equip_domain::api_key::Scope;
use equip_domain::ids::InventoryItemId;
use equip_domain::services::inventory::{create_item, get_item, update_item};
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{parse, path_id};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(get, create, update))]
pub struct Doc;

/// `GET /api/v1/inventory/{id}`.
#[utoipa::path(
    get,
    path = "/api/v1/inventory/{id}",
    operation_id = "getInventoryItem",
    tag = "inventory",
    summary = "Read one inventory item (extension).",
    params(("id" = uuid::Uuid, Path, description = "The item's id.")),
    responses(
        (status = 200, description = "The item.", body = ItemBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such item in the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, InventoryItemId::parse)?;
    let view = scoped
        .run(move |ports, org| get_item(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}

/// `POST /api/v1/inventory`: 201 with its `Location` and the item, or only
/// `{"id"}` to a key without `inventory:read` (docs/api.md).
#[utoipa::path(
    post,
    path = "/api/v1/inventory",
    operation_id = "createInventoryItem",
    tag = "inventory",
    summary = "Create an inventory item (extension).",
    description = "A move's rules apply from the start: UNAVAILABLE and ARCHIVED need a deployReason, \
        DEPLOYED and AVAILABLE take none, DEPLOYED needs a PERSON assignee. The assignee must be a \
        provisioned person, an office of the organization or a warehouse accessible to it.",
    request_body = InventoryItemCreate,
    responses(
        (status = 201, description = "Created. The item, to a key that also holds inventory:read; only its id to a key that may only write.",
            body = inline(ItemCreated),
            headers(("Location" = String, description = "/api/v1/inventory/{id} of the new item."))),
        (status = 400, description = "A field is missing, unknown or invalid, or a rule is broken (source names the field).", body = ErrorBody),
        (status = 404, description = "skuId or assignedTo.id is not in the organization.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::InventoryRead);
    let new = parse::<InventoryItemCreate>(body.into_inner())?.into();
    let view = scoped
        .run(move |ports, org| create_item(ports, org, new, Utc::now()))
        .await?;
    let mut created = HttpResponse::Created();
    created.insert_header((LOCATION, format!("/api/v1/inventory/{}", view.item.id)));
    Ok(created.json(if may_read {
        ItemCreated::item(&view)
    } else {
        ItemCreated::id(&view)
    }))
}

/// `PATCH /api/v1/inventory/{id}`: 200 with the changed item to a key that
/// may read it (`inventory:read`), 204 without a body to a key that may only
/// write (docs/api.md).
#[utoipa::path(
    patch,
    path = "/api/v1/inventory/{id}",
    operation_id = "updateInventoryItem",
    tag = "inventory",
    summary = "Change an inventory item (extension).",
    description = "Only the fields given change; null clears a nullable field. A status change to \
        UNAVAILABLE or ARCHIVED needs a deployReason in the same request; DEPLOYED and AVAILABLE clear \
        it; DEPLOYED needs a PERSON assignee; ARCHIVED is final (409). A change that raced another \
        change of the item is 409: read it again and retry.",
    params(("id" = uuid::Uuid, Path, description = "The item's id.")),
    request_body = InventoryItemPatch,
    responses(
        (status = 200, description = "The changed item (to a key that also holds inventory:read). A change that changes nothing writes nothing and leaves updatedAt as it was.", body = ItemBody),
        (status = 204, description = "Changed, answered without the item to a key that may only write."),
        (status = 400, description = "The id is not a UUID, or a field is unknown or invalid, or a rule is broken.", body = ErrorBody),
        (status = 404, description = "No such item, or assignedTo.id is not in the organization.", body = ErrorBody),
        (status = 409, description = "The move is not allowed from the current status, or the item changed meanwhile.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn update(
    scoped: Scoped,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::InventoryRead);
    let id = path_id("id", &id, InventoryItemId::parse)?;
    let changes = parse::<InventoryItemPatch>(body.into_inner())?.into();
    let view = scoped
        .run(move |ports, org| update_item(ports, org, id, changes, Utc::now()))
        .await?;
    if !may_read {
        return Ok(HttpResponse::NoContent().finish());
    }
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}
