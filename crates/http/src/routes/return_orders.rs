//! `/api/v1/return-orders`: list, read, create and change return orders
//! (docs/api.md, "Returns"; docs/returns.md). Scopes `returns:read` (GET)
//! and `returns:write`.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::return_order::{
    ReturnOrderBody, ReturnOrderCreate, ReturnOrderCreated, ReturnOrderListParams,
    ReturnOrderPageBody, ReturnOrderPatch,
};
use equip_domain::api_key::Scope;
use equip_domain::ids::ReturnOrderId;
use equip_domain::returns::change::ReturnOrderChange;
use equip_domain::returns::create::ReturnRequest;
use equip_domain::returns::query::RawReturnOrderQuery;
use equip_domain::services::returns::{
    change_return_order, create_return_order, get_return_order, list_return_orders,
};
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{self, path_id};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, get, create, update))]
pub struct Doc;

/// `GET /api/v1/return-orders`: a page of the organization's return orders,
/// newest first.
#[utoipa::path(
    get,
    path = "/api/v1/return-orders",
    operation_id = "listReturnOrders",
    tag = "returns",
    summary = "The organization's return orders, newest first.",
    description = "Filtered by `status`, `personId` and `itemId` (an order with a line for that item, \
        open or closed), in pages of `size` (the inventory listing's envelope).",
    params(ReturnOrderListParams),
    responses(
        (status = 200, description = "A page of return orders.", body = ReturnOrderPageBody),
        (status = 400, description = "A malformed or unknown parameter (source names it).", body = ErrorBody),
    ),
)]
pub async fn list(
    scoped: Scoped,
    query: crate::query::Query<ReturnOrderListParams>,
) -> Result<HttpResponse, HttpError> {
    let raw: RawReturnOrderQuery = query.into_inner().into();
    let (query, page) = scoped
        .run(move |ports, org| list_return_orders(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(ReturnOrderPageBody::new(&query, &page)))
}

/// `GET /api/v1/return-orders/{id}`.
#[utoipa::path(
    get,
    path = "/api/v1/return-orders/{id}",
    operation_id = "getReturnOrder",
    tag = "returns",
    summary = "A return order with its retrieval and its lines.",
    params(("id" = uuid::Uuid, Path, description = "The return order.")),
    responses(
        (status = 200, description = "The return order.", body = ReturnOrderBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such return order in the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, ReturnOrderId::parse)?;
    let order = scoped
        .run(move |ports, org| get_return_order(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(ReturnOrderBody::from(&order)))
}

/// `POST /api/v1/return-orders` `{personId, itemIds, itadRequested?}`: 201
/// with the order and its `Location` (only `{"id"}` to a key without
/// `returns:read`).
#[utoipa::path(
    post,
    path = "/api/v1/return-orders",
    operation_id = "createReturnOrder",
    tag = "returns",
    summary = "Ask for a person's deployed items back (a repair, an upgrade).",
    description = "Creates a PENDING return order with a line per item for an ACTIVE or OFFBOARDING \
        person (an OFFBOARDING person stays so until it closes). Each item must be DEPLOYED to that \
        person and on no active return. Records `return_order.created` and each item's \
        `inventory.item.updated`.",
    request_body = ReturnOrderCreate,
    responses(
        (status = 201, description = "Created. The order, to a key that also holds returns:read; only its id to a key that may only write.", body = inline(ReturnOrderCreated), headers(
            ("Location" = String, description = "/api/v1/return-orders/{id} of the new order."),
        )),
        (status = 400, description = "A malformed body, no items or more than 1,000, an item given twice, or an item not deployed to the person (source names it).", body = ErrorBody),
        (status = 404, description = "The person or an item is not in the organization (source names it).", body = ErrorBody),
        (status = 409, description = "An item is already on an active return, or the person is OFFBOARDED.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::ReturnsRead);
    let input: ReturnOrderCreate = body::parse(body.into_inner())?;
    let request = ReturnRequest::try_from(input)?;
    let order = scoped
        .run(move |ports, org| create_return_order(ports, org, &request))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/api/v1/return-orders/{}", order.id)))
        .json(if may_read {
            ReturnOrderCreated::order(&order)
        } else {
            ReturnOrderCreated::id(&order)
        }))
}

/// `PATCH /api/v1/return-orders/{id}`: the method, its status and tracking,
/// lines' `itadRequested` and write-offs, or a cancellation: 200 with the
/// order to a key that may read it (`returns:read`), 204 to one that may
/// only write.
#[utoipa::path(
    patch,
    path = "/api/v1/return-orders/{id}",
    operation_id = "updateReturnOrder",
    tag = "returns",
    summary = "Choose or change the retrieval method, move it along its path, write lines off, or cancel.",
    description = "`retrievalMethod` chooses a method (starting at REQUESTED, or at the `status` given \
        when it is on the method's path), changes it while nothing has left (REQUESTED or \
        LABEL_CREATED), or moves its `status` forward along the method's path (RETURN_KIT: REQUESTED, \
        LABEL_CREATED, SHIPPED, DELIVERED, SENT_BACK, ARRIVED_AT_PROCESSING_FACILITY; INBOUND_LABEL: \
        REQUESTED, LABEL_CREATED, SENT_BACK, ARRIVED_AT_PROCESSING_FACILITY; PHYSICAL: REQUESTED, \
        SCHEDULING_PICK_UP, ARRIVED_AT_PROCESSING_FACILITY; DELIVERY_EXCEPTION from SHIPPED or \
        SENT_BACK and back onto the path), with its tracking fields (null clears one). A line's \
        `closedReason` writes it off: the item becomes ARCHIVED with that reason. `status` CANCELLED, \
        given alone, cancels the order while no line is received or written off (not for an \
        OFFBOARDING person: write the lines off instead). The order's status follows. Records \
        `return_order.updated` with the changes, the items' `inventory.item.updated`, and \
        `person.offboarded` when the person's last open line closes.",
    params(("id" = uuid::Uuid, Path, description = "The return order.")),
    request_body = ReturnOrderPatch,
    responses(
        (status = 200, description = "The order as changed (to a key that also holds returns:read).", body = ReturnOrderBody),
        (status = 204, description = "Changed, answered without the order to a key that may only write."),
        (status = 400, description = "A malformed body, an unknown field, method or reason, nothing to change, a status off the new method's path, or a line not in the order (source names it).", body = ErrorBody),
        (status = 404, description = "No such return order in the organization.", body = ErrorBody),
        (status = 409, description = "A move the current status does not allow (naming both), a method change once the retrieval left, a change of a cancelled order or a closed line, or a cancel after a line closed or of an OFFBOARDING person's order.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn update(
    scoped: Scoped,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::ReturnsRead);
    let id = path_id("id", &id, ReturnOrderId::parse)?;
    let input: ReturnOrderPatch = body::parse(body.into_inner())?;
    let change = ReturnOrderChange::try_from(input)?;
    let order = scoped
        .run(move |ports, org| change_return_order(ports, org, id, &change))
        .await?;
    if !may_read {
        return Ok(HttpResponse::NoContent().finish());
    }
    Ok(HttpResponse::Ok().json(ReturnOrderBody::from(&order)))
}
