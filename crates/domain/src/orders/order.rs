//! The order as a resource: the order, its lines and its shipments
//! ([`Order`]), the view its events record, and [`Order::restated`], which
//! writes the status [`super::status`] derives into it. Whoever changes an
//! order (provisioning, allocation, a shipment, a delivery, a cancellation)
//! changes its lines, restates it, and the store writes the result with the
//! events [`written`] decides.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::status::order_status;
use super::{LineStatus, OrderStatus, ShipmentStatus};
use crate::event::{optional_time_value, EventType, EventView, NewEvent, Subject, SubjectType};
use crate::ids::{
    InventoryItemId, OrderId, OrderLineId, OrganizationId, PackageId, PersonId, ShipmentId, SkuId,
};

/// A joiner's order: the equipment of one package for one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// Its id.
    pub id: OrderId,
    /// Its organization.
    pub organization_id: OrganizationId,
    /// Who receives it.
    pub person_id: PersonId,
    /// The package it was made for (the person's effective package then).
    pub package_id: Option<PackageId>,
    /// Its status, derived ([`Order::restated`]).
    pub status: OrderStatus,
    /// Its lines, by position (a cancelled line stays).
    pub lines: Vec<OrderLine>,
    /// Its shipments, oldest first.
    pub shipments: Vec<Shipment>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Its last change.
    pub updated_at: DateTime<Utc>,
}

/// One unit of an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderLine {
    /// The line's id.
    pub id: OrderLineId,
    /// Its place in the order (0, 1, …; lines added by a package change
    /// come after the existing ones).
    pub position: u32,
    /// The category it takes an item of.
    pub category_code: String,
    /// The SKUs it prefers, in order (copied from the package).
    pub sku_ids: Vec<SkuId>,
    /// Where it stands.
    pub status: LineStatus,
    /// The item it holds (ALLOCATED, SHIPPED, DELIVERED).
    pub item_id: Option<InventoryItemId>,
    /// The shipment that carries it.
    pub shipment_id: Option<ShipmentId>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Its last change.
    pub updated_at: DateTime<Utc>,
}

/// Some lines of an order on their way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shipment {
    /// Its id.
    pub id: ShipmentId,
    /// The order.
    pub order_id: OrderId,
    /// Where it stands.
    pub status: ShipmentStatus,
    /// The lines it carries.
    pub line_ids: Vec<OrderLineId>,
    /// The carrier's name.
    pub carrier: Option<String>,
    /// The carrier's tracking code.
    pub tracking_code: Option<String>,
    /// A link to the carrier's tracking page.
    pub tracking_link: Option<String>,
    /// When it shipped.
    pub shipped_at: DateTime<Utc>,
    /// When it was delivered.
    pub delivered_at: Option<DateTime<Utc>>,
    /// Its last change.
    pub updated_at: DateTime<Utc>,
}

impl Order {
    /// The order with its status derived from its lines ([`order_status`]).
    #[must_use]
    pub fn restated(mut self) -> Self {
        self.status = order_status(self.lines.iter().map(|l| l.status));
        self
    }

    /// Whether the order still counts as the person's order: not CANCELLED.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.status != OrderStatus::Cancelled
    }

    /// Whether a line has shipped (or was delivered).
    #[must_use]
    pub fn any_shipped(&self) -> bool {
        self.lines
            .iter()
            .any(|l| matches!(l.status, LineStatus::Shipped | LineStatus::Delivered))
    }

    /// The line with this id.
    #[must_use]
    pub fn line(&self, id: OrderLineId) -> Option<&OrderLine> {
        self.lines.iter().find(|l| l.id == id)
    }

    /// The position after the last line.
    #[must_use]
    pub fn next_position(&self) -> u32 {
        self.lines.iter().map(|l| l.position + 1).max().unwrap_or(0)
    }
}

impl EventView for Order {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::Order,
            id: *self.id.as_uuid(),
        }
    }

    /// The order's fields; its lines by line id, so that a change names the
    /// line (`lines.<id>.status`), and its shipments by id.
    fn event_view(&self) -> Value {
        let lines: BTreeMap<String, Value> = self
            .lines
            .iter()
            .map(|l| {
                (
                    l.id.to_string(),
                    json!({
                        "categoryCode": l.category_code,
                        "status": l.status.as_str(),
                        "itemId": l.item_id,
                        "shipmentId": l.shipment_id,
                    }),
                )
            })
            .collect();
        let shipments: BTreeMap<String, Value> = self
            .shipments
            .iter()
            .map(|s| {
                (
                    s.id.to_string(),
                    json!({
                        "status": s.status.as_str(),
                        "carrier": s.carrier,
                        "trackingCode": s.tracking_code,
                        "trackingLink": s.tracking_link,
                        "deliveredAt": optional_time_value(s.delivered_at),
                    }),
                )
            })
            .collect();
        json!({
            "personId": self.person_id,
            "packageId": self.package_id,
            "status": self.status.as_str(),
            "lines": lines,
            "shipments": shipments,
        })
    }
}

/// The events of writing `after` over `before` (`None`: a new order):
/// `order.created` for a new order, `order.updated` for a change that shows
/// in its view, and `order.backordered` when a line is BACKORDERED that was
/// not before (a new order's or a new line's found no stock).
#[must_use]
pub fn written(before: Option<&Order>, after: &Order) -> Vec<NewEvent> {
    let mut events = Vec::new();
    match before {
        None => events.push(NewEvent::created(EventType::OrderCreated, after)),
        Some(before) => {
            if let Some(e) = NewEvent::updated(EventType::OrderUpdated, before, after) {
                events.push(e);
            }
        }
    }
    let newly_backordered = after.lines.iter().any(|l| {
        l.status == LineStatus::Backordered
            && before
                .and_then(|b| b.line(l.id))
                .is_none_or(|b| b.status != LineStatus::Backordered)
    });
    if newly_backordered {
        let mut e = NewEvent::created(EventType::OrderBackordered, after);
        e.changes.retain(|k, _| k.starts_with("lines."));
        events.push(e);
    }
    events
}
