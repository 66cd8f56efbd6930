//! `/api/v1/orders`: list and read joiners' orders, ship their lines and
//! record deliveries (docs/api.md, "Orders"; docs/orders.md). Scopes
//! `orders:read` (GET) and `orders:write`.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::order::{
    OrderBody, OrderListParams, OrderPageBody, ShipmentBody, ShipmentCreate, ShipmentPatch,
};
use equip_domain::ids::{OrderId, ShipmentId};
use equip_domain::orders::query::RawOrderQuery;
use equip_domain::orders::shipment::NewShipment;
use equip_domain::services::orders::{get_order, list_orders, record_delivery, ship_order};
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{self, path_id};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, get, ship, deliver))]
pub struct Doc;

/// `GET /api/v1/orders`: a page of the organization's orders, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/orders",
    operation_id = "listOrders",
    tag = "orders",
    summary = "The organization's joiners' orders, newest first.",
    description = "Orders are created by provisioning (a person given a package with contents). \
        Filtered by `status` and `personId`, in pages of `size` (the inventory listing's envelope).",
    params(OrderListParams),
    responses(
        (status = 200, description = "A page of orders.", body = OrderPageBody),
        (status = 400, description = "A malformed or unknown parameter (source names it).", body = ErrorBody),
    ),
)]
pub async fn list(
    scoped: Scoped,
    query: crate::query::Query<OrderListParams>,
) -> Result<HttpResponse, HttpError> {
    let raw: RawOrderQuery = query.into_inner().into();
    let (query, page) = scoped
        .run(move |ports, org| list_orders(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(OrderPageBody::new(&query, &page)))
}

/// `GET /api/v1/orders/{id}`.
#[utoipa::path(
    get,
    path = "/api/v1/orders/{id}",
    operation_id = "getOrder",
    tag = "orders",
    summary = "An order with its lines and shipments.",
    params(("id" = uuid::Uuid, Path, description = "The order.")),
    responses(
        (status = 200, description = "The order.", body = OrderBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such order in the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, OrderId::parse)?;
    let order = scoped
        .run(move |ports, org| get_order(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(OrderBody::from(&order)))
}

/// `POST /api/v1/orders/{id}/shipments` `{lineIds, carrier?, trackingCode?,
/// trackingLink?}`: 201 with the shipment and its `Location` (its order).
#[utoipa::path(
    post,
    path = "/api/v1/orders/{id}/shipments",
    operation_id = "createShipment",
    tag = "orders",
    summary = "Ship ALLOCATED lines of an order.",
    description = "Creates a SHIPPED shipment carrying the lines: they become SHIPPED, their items \
        UNAVAILABLE with deployReason IN_TRANSIT, the order SHIPPED. Records `order.updated` and \
        each item's `inventory.item.updated`.",
    params(("id" = uuid::Uuid, Path, description = "The order.")),
    request_body = ShipmentCreate,
    responses(
        (status = 201, description = "Shipped.", body = ShipmentBody, headers(
            ("Location" = String, description = "/api/v1/orders/{id} of the order."),
        )),
        (status = 400, description = "A malformed body, no lines or more than 1,000, a line given twice or not of this order, a blank text or a tracking link that is not an http(s) URL (source names it).", body = ErrorBody),
        (status = 404, description = "No such order in the organization.", body = ErrorBody),
        (status = 409, description = "A line is not ALLOCATED (backordered, shipped, delivered or cancelled; source names it).", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn ship(
    scoped: Scoped,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, OrderId::parse)?;
    let input: ShipmentCreate = body::parse(body.into_inner())?;
    let new = NewShipment::try_from(input)?;
    let shipment = scoped
        .run(move |ports, org| ship_order(ports, org, id, &new))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/api/v1/orders/{id}")))
        .json(ShipmentBody::from(&shipment)))
}

/// `PATCH /api/v1/orders/{id}/shipments/{shipmentId}` `{status}`.
#[utoipa::path(
    patch,
    path = "/api/v1/orders/{id}/shipments/{shipmentId}",
    operation_id = "updateShipment",
    tag = "orders",
    summary = "Record a shipment's delivery or a delivery exception.",
    description = "SHIPPED → DELIVERED or DELIVERY_EXCEPTION; DELIVERY_EXCEPTION → DELIVERED; \
        DELIVERED is final. The same status again changes nothing. A delivery makes the lines \
        DELIVERED and their items DEPLOYED to the order's person (`assignedAt` the delivery time, \
        deployReason null). Records `order.updated` and each item's `inventory.item.updated`.",
    params(
        ("id" = uuid::Uuid, Path, description = "The order."),
        ("shipmentId" = uuid::Uuid, Path, description = "The shipment."),
    ),
    request_body = ShipmentPatch,
    responses(
        (status = 200, description = "The shipment as it is now.", body = ShipmentBody),
        (status = 400, description = "A malformed body or an unknown status, or SHIPPED (source names it).", body = ErrorBody),
        (status = 404, description = "No such order in the organization, or no such shipment of it.", body = ErrorBody),
        (status = 409, description = "The shipment was DELIVERED.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn deliver(
    scoped: Scoped,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let (id, shipment) = path.into_inner();
    let id = path_id("id", &id, OrderId::parse)?;
    let shipment = path_id("shipmentId", &shipment, ShipmentId::parse)?;
    let input: ShipmentPatch = body::parse(body.into_inner())?;
    let status = input.status;
    let shipment = scoped
        .run(move |ports, org| record_delivery(ports, org, id, shipment, status))
        .await?;
    Ok(HttpResponse::Ok().json(ShipmentBody::from(&shipment)))
}
