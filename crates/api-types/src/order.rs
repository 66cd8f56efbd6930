//! Joiners' orders as the API shows and takes them (docs/api.md, "Orders";
//! docs/orders.md): the order ([`OrderBody`]) with its lines and shipments
//! ([`ShipmentBody`], also the answer of the shipment endpoints), a page of
//! the listing ([`OrderPageBody`], the inventory listing's envelope), the
//! listing's parameters ([`OrderListParams`]), and the bodies of
//! `POST /api/v1/orders/{id}/shipments` ([`ShipmentCreate`], turned into the
//! domain's `NewShipment`) and `PATCH …/shipments/{shipmentId}`
//! ([`ShipmentPatch`]).

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::Object;
use utoipa::{IntoParams, ToSchema};

use equip_domain::error::DomainError;
use equip_domain::ids::{
    InventoryItemId, OrderId, OrderLineId, PackageId, PersonId, ShipmentId, SkuId,
};
use equip_domain::inventory_query::{DEFAULT_PAGE_SIZE, FIRST_PAGE, MAX_PAGE, MAX_PAGE_SIZE};
use equip_domain::orders::order::{Order, OrderLine, Shipment};
use equip_domain::orders::query::{OrderPage, OrderQuery, RawOrderQuery};
use equip_domain::orders::shipment::{NewShipment, MAX_SHIPMENT_LINES};
use equip_domain::orders::{LineStatus, OrderStatus, ShipmentStatus};
use equip_domain::text::{LONG_TEXT_MAX, SHORT_TEXT_MAX};

use crate::item::Pagination;
use crate::schema::{names, one_of};

// The `#[param]` / `#[schema]` facts below are literals (utoipa takes no
// constant there).
const _: () = assert!(FIRST_PAGE == 1 && MAX_PAGE == 10_000_000, "page");
const _: () = assert!(MAX_PAGE_SIZE == 1000 && DEFAULT_PAGE_SIZE == 100, "size");
const _: () = assert!(MAX_SHIPMENT_LINES == 1000, "lineIds: maxItems");
const _: () = assert!(SHORT_TEXT_MAX == 256, "carrier, trackingCode: maxLength");
const _: () = assert!(LONG_TEXT_MAX == 2048, "trackingLink: maxLength");

use crate::time::auto as time;

fn order_status() -> Object {
    one_of(names!(OrderStatus))
}

fn line_status() -> Object {
    one_of(names!(LineStatus))
}

fn shipment_status() -> Object {
    one_of(names!(ShipmentStatus))
}

fn delivery_status() -> Object {
    one_of([
        ShipmentStatus::Delivered.as_str(),
        ShipmentStatus::DeliveryException.as_str(),
    ])
}

/// A joiner's order: the equipment of one package for one person, a line
/// per unit, and the shipments that carry its lines.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Order)]
pub struct OrderBody {
    #[schema(value_type = uuid::Uuid)]
    id: OrderId,
    /// Who receives it.
    #[schema(value_type = uuid::Uuid)]
    person_id: PersonId,
    /// The package it was made for; null when that package is gone.
    #[schema(value_type = Option<uuid::Uuid>, required)]
    package_id: Option<PackageId>,
    /// Derived from the lines: PENDING while a line is BACKORDERED and none
    /// shipped, ALLOCATED when every line holds an item, SHIPPED once a line
    /// shipped, DELIVERED when every line was delivered, CANCELLED.
    #[schema(schema_with = order_status)]
    status: OrderStatus,
    /// The lines, by position (cancelled lines stay).
    lines: Vec<OrderLineBody>,
    /// The shipments, oldest first.
    shipments: Vec<ShipmentBody>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// One unit of an order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OrderLine)]
pub struct OrderLineBody {
    #[schema(value_type = uuid::Uuid)]
    id: OrderLineId,
    /// The category it takes an item of.
    category_code: String,
    /// The SKUs it prefers, in order.
    #[schema(value_type = Vec<uuid::Uuid>)]
    sku_ids: Vec<SkuId>,
    #[schema(schema_with = line_status)]
    status: LineStatus,
    /// The item it holds (ALLOCATED, SHIPPED, DELIVERED).
    #[schema(value_type = Option<uuid::Uuid>, required)]
    item_id: Option<InventoryItemId>,
    /// The shipment that carries it.
    #[schema(value_type = Option<uuid::Uuid>, required)]
    shipment_id: Option<ShipmentId>,
}

/// Some lines of an order on their way to the person.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Shipment)]
pub struct ShipmentBody {
    #[schema(value_type = uuid::Uuid)]
    id: ShipmentId,
    /// The lines it carries, in the order's order (by position).
    #[schema(value_type = Vec<uuid::Uuid>)]
    line_ids: Vec<OrderLineId>,
    /// SHIPPED, then DELIVERED or DELIVERY_EXCEPTION (then DELIVERED).
    #[schema(schema_with = shipment_status)]
    status: ShipmentStatus,
    #[schema(required)]
    carrier: Option<String>,
    #[schema(required)]
    tracking_code: Option<String>,
    #[schema(required)]
    tracking_link: Option<String>,
    #[schema(format = DateTime)]
    shipped_at: String,
    /// When it was delivered (the items' `assignedAt`).
    #[schema(value_type = Option<String>, format = DateTime, required)]
    delivered_at: Option<String>,
}

impl From<&OrderLine> for OrderLineBody {
    fn from(l: &OrderLine) -> Self {
        Self {
            id: l.id,
            category_code: l.category_code.clone(),
            sku_ids: l.sku_ids.clone(),
            status: l.status,
            item_id: l.item_id,
            shipment_id: l.shipment_id,
        }
    }
}

impl From<&Shipment> for ShipmentBody {
    fn from(s: &Shipment) -> Self {
        Self {
            id: s.id,
            line_ids: s.line_ids.clone(),
            status: s.status,
            carrier: s.carrier.clone(),
            tracking_code: s.tracking_code.clone(),
            tracking_link: s.tracking_link.clone(),
            shipped_at: time(s.shipped_at),
            delivered_at: s.delivered_at.map(time),
        }
    }
}

impl From<&Order> for OrderBody {
    fn from(o: &Order) -> Self {
        Self {
            id: o.id,
            person_id: o.person_id,
            package_id: o.package_id,
            status: o.status,
            lines: o.lines.iter().map(OrderLineBody::from).collect(),
            shipments: o.shipments.iter().map(ShipmentBody::from).collect(),
            created_at: time(o.created_at),
            updated_at: time(o.updated_at),
        }
    }
}

/// A page of orders, newest first, and where it is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = OrderPage)]
pub struct OrderPageBody {
    data: Vec<OrderBody>,
    pagination: Pagination,
}

impl OrderPageBody {
    /// The page `page` of `query`.
    #[must_use]
    pub fn new(query: &OrderQuery, page: &OrderPage) -> Self {
        let size = u64::from(query.size());
        Self {
            data: page.orders.iter().map(OrderBody::from).collect(),
            pagination: Pagination {
                total_records: page.total_records,
                total_pages: page.total_records.div_ceil(size),
                current_page: query.page().get(),
                page_size: query.size(),
            },
        }
    }
}

/// The parameters of `GET /api/v1/orders`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct OrderListParams {
    /// 1-based page number.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 10000000, default = 1)]
    page: Option<String>,
    /// Orders per page.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 1000, default = 100)]
    size: Option<String>,
    /// Orders of this status (case-insensitive).
    #[param(schema_with = order_status)]
    status: Option<String>,
    /// Orders of this person.
    #[param(value_type = Option<uuid::Uuid>)]
    person_id: Option<String>,
}

impl From<OrderListParams> for RawOrderQuery {
    fn from(p: OrderListParams) -> Self {
        Self {
            page: p.page,
            size: p.size,
            status: p.status,
            person_id: p.person_id,
        }
    }
}

/// The body of `POST /api/v1/orders/{id}/shipments`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShipmentCreate {
    /// 1 to 1,000 distinct ALLOCATED lines of the order.
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 1000)]
    line_ids: Vec<String>,
    /// The carrier's name.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 256)]
    carrier: Option<String>,
    /// The carrier's tracking code.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 256)]
    tracking_code: Option<String>,
    /// A link to the carrier's tracking page: an absolute http or https URL.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 2048, pattern = "^https?://")]
    tracking_link: Option<String>,
}

impl TryFrom<ShipmentCreate> for NewShipment {
    type Error = DomainError;

    fn try_from(b: ShipmentCreate) -> Result<Self, DomainError> {
        let line_ids = b
            .line_ids
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                OrderLineId::parse(raw).map_err(|_| {
                    DomainError::invalid(format!("lineIds[{i}]"), format!("'{raw}' is not a UUID"))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            line_ids,
            carrier: b.carrier,
            tracking_code: b.tracking_code,
            tracking_link: b.tracking_link,
        })
    }
}

/// The body of `PATCH /api/v1/orders/{id}/shipments/{shipmentId}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShipmentPatch {
    /// DELIVERED (final: the items become DEPLOYED to the person) or
    /// DELIVERY_EXCEPTION.
    #[schema(schema_with = delivery_status)]
    pub status: ShipmentStatus,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::read::from_value as read;
    use serde_json::json;

    #[test]
    fn a_shipment_body_names_the_bad_line() {
        let ok: ShipmentCreate = read(json!({"lineIds": [OrderLineId::new().to_string()],
            "carrier": null}))
        .unwrap();
        assert!(NewShipment::try_from(ok).is_ok());
        let bad: ShipmentCreate =
            read(json!({"lineIds": [OrderLineId::new().to_string(), "x"]})).unwrap();
        let e = NewShipment::try_from(bad).unwrap_err().to_string();
        assert!(e.starts_with("lineIds[1]:"), "{e}");
        assert!(read::<ShipmentCreate>(json!({"lineIds": [], "extra": 1})).is_err());
        assert!(read::<ShipmentCreate>(json!({})).is_err());
        let p: ShipmentPatch = read(json!({"status": "DELIVERED"})).unwrap();
        assert_eq!(p.status, ShipmentStatus::Delivered);
        assert!(read::<ShipmentPatch>(json!({"status": "LOST"})).is_err());
    }
}
