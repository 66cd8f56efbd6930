//! What shipping lines and recording a delivery do to an order, decided over
//! the order a store read under its lock:
//!
//! - [`ship`]: `POST /api/v1/orders/{id}/shipments`. The request is checked
//!   first ([`NewShipment::check`]: `lineIds` non-empty, at most
//!   [`MAX_SHIPMENT_LINES`], no duplicates; tracking texts' lengths; the
//!   link an `http(s)` URL), then against the order: a line that is not one
//!   of the order's is a 400 naming `lineIds[i]`, a line that is not
//!   ALLOCATED a 409 naming it. The lines become SHIPPED in a new SHIPPED
//!   shipment; their items go IN_TRANSIT (`super::fulfilment::shipped`).
//! - [`deliver`]: `PATCH /api/v1/orders/{id}/shipments/{shipmentId}`.
//!   SHIPPED → DELIVERED | DELIVERY_EXCEPTION; DELIVERY_EXCEPTION →
//!   DELIVERED; DELIVERED is final (409 for another status). The same
//!   status again changes nothing; SHIPPED may not be set (400). Delivered
//!   lines become DELIVERED; their items DEPLOYED to the person
//!   (`super::fulfilment::delivered`, `assignedAt` the delivery time).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::order::{Order, Shipment};
use super::{LineStatus, ShipmentStatus};
use crate::error::DomainError;
use crate::ids::{InventoryItemId, OrderLineId, ShipmentId};
use crate::text::{check_length, LONG_TEXT_MAX, SHORT_TEXT_MAX};

/// Most lines one shipment carries.
pub const MAX_SHIPMENT_LINES: usize = 1000;

/// A shipment as a client asks for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewShipment {
    /// The lines it carries (`lineIds`).
    pub line_ids: Vec<OrderLineId>,
    /// `carrier`: at most [`SHORT_TEXT_MAX`] characters, not empty.
    pub carrier: Option<String>,
    /// `trackingCode`: at most [`SHORT_TEXT_MAX`] characters, not empty.
    pub tracking_code: Option<String>,
    /// `trackingLink`: an absolute `http` or `https` URL with a host, at
    /// most [`LONG_TEXT_MAX`] characters.
    pub tracking_link: Option<String>,
}

fn check_text(field: &str, value: Option<&str>, max: usize) -> Result<(), DomainError> {
    let Some(value) = value else { return Ok(()) };
    if value.trim().is_empty() {
        return Err(DomainError::invalid(
            field,
            format!("{field} must not be empty (leave it out instead)"),
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(DomainError::invalid(
            field,
            format!("{field} must not contain control characters"),
        ));
    }
    check_length(field, value, max)
}

/// Checks a tracking link: an absolute `http` or `https` URL with a host,
/// at most [`LONG_TEXT_MAX`] characters.
///
/// # Errors
/// [`DomainError::Invalid`] naming `trackingLink`.
pub fn check_tracking_link(value: &str) -> Result<(), DomainError> {
    const FIELD: &str = "trackingLink";
    check_text(FIELD, Some(value), LONG_TEXT_MAX)?;
    let bad = || {
        DomainError::invalid(
            FIELD,
            "trackingLink must be an absolute http or https URL with a host",
        )
    };
    let url = url::Url::parse(value).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https")
        || matches!(url.host(), None | Some(url::Host::Domain("")))
    {
        return Err(bad());
    }
    Ok(())
}

impl NewShipment {
    /// Checks the request on its own (before any order is read).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming `lineIds`, `lineIds[i]` (a
    /// duplicate), `carrier`, `trackingCode` or `trackingLink`.
    pub fn check(&self) -> Result<(), DomainError> {
        if self.line_ids.is_empty() {
            return Err(DomainError::invalid(
                "lineIds",
                "lineIds must name at least one line",
            ));
        }
        if self.line_ids.len() > MAX_SHIPMENT_LINES {
            return Err(DomainError::invalid(
                "lineIds",
                format!("lineIds may name at most {MAX_SHIPMENT_LINES} lines"),
            ));
        }
        let mut seen = HashSet::with_capacity(self.line_ids.len());
        for (i, id) in self.line_ids.iter().enumerate() {
            if !seen.insert(*id) {
                return Err(DomainError::invalid(
                    format!("lineIds[{i}]"),
                    format!("line {id} is named twice"),
                ));
            }
        }
        check_text("carrier", self.carrier.as_deref(), SHORT_TEXT_MAX)?;
        check_text(
            "trackingCode",
            self.tracking_code.as_deref(),
            SHORT_TEXT_MAX,
        )?;
        if let Some(link) = &self.tracking_link {
            check_tracking_link(link)?;
        }
        Ok(())
    }
}

/// The order with `new`'s lines shipped at `at`, and the new shipment (its
/// lines in the order's order, by position). The store moves the items the shipment's
/// lines hold with `super::fulfilment::shipped` ([`shipped_items`]).
///
/// # Errors
/// [`DomainError::Invalid`] as [`NewShipment::check`], or naming
/// `lineIds[i]` for a line that is not one of the order's;
/// [`DomainError::Conflict`] naming `lineIds[i]` for a line that is not
/// ALLOCATED.
pub fn ship(
    order: &Order,
    new: &NewShipment,
    at: DateTime<Utc>,
) -> Result<(Order, Shipment), DomainError> {
    new.check()?;
    for (i, id) in new.line_ids.iter().enumerate() {
        let field = format!("lineIds[{i}]");
        let Some(line) = order.line(*id) else {
            return Err(DomainError::invalid(
                field,
                format!("line {id} is not a line of order {}", order.id),
            ));
        };
        if line.status != LineStatus::Allocated {
            return Err(DomainError::conflict(
                field,
                format!(
                    "line {id} is {}; only ALLOCATED lines can be shipped",
                    line.status.as_str()
                ),
            ));
        }
    }
    let line_ids = order
        .lines
        .iter()
        .filter(|l| new.line_ids.contains(&l.id))
        .map(|l| l.id)
        .collect();
    let shipment = Shipment {
        id: ShipmentId::new(),
        order_id: order.id,
        status: ShipmentStatus::Shipped,
        line_ids,
        carrier: new.carrier.clone(),
        tracking_code: new.tracking_code.clone(),
        tracking_link: new.tracking_link.clone(),
        shipped_at: at,
        delivered_at: None,
        updated_at: at,
    };
    let mut after = order.clone();
    for line in &mut after.lines {
        if new.line_ids.contains(&line.id) {
            line.status = LineStatus::Shipped;
            line.shipment_id = Some(shipment.id);
            line.updated_at = at;
        }
    }
    after.shipments.push(shipment.clone());
    after.updated_at = at;
    Ok((after.restated(), shipment))
}

/// The items a shipment's lines hold in `order` (in the shipment's order):
/// those a shipment moves IN_TRANSIT, or a delivery DEPLOYED.
#[must_use]
pub fn shipped_items(order: &Order, shipment: &Shipment) -> Vec<InventoryItemId> {
    shipment
        .line_ids
        .iter()
        .filter_map(|id| order.line(*id).and_then(|l| l.item_id))
        .collect()
}

/// What a delivery status change decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The order as it is to be written (equal to the one read when
    /// nothing changed).
    pub order: Order,
    /// The shipment as it is now.
    pub shipment: Shipment,
    /// The items to move DEPLOYED to the person (the lines this change
    /// delivered; empty unless it delivered).
    pub delivered: Vec<InventoryItemId>,
}

/// The order with its shipment `shipment_id` moved to `status` at `at`.
///
/// # Errors
/// [`DomainError::NotFound`] (`shipment`) when the order has no such
/// shipment; [`DomainError::Invalid`] naming `status` for SHIPPED;
/// [`DomainError::Conflict`] naming `status` for a DELIVERED shipment moved
/// to another status.
pub fn deliver(
    order: &Order,
    shipment_id: ShipmentId,
    status: ShipmentStatus,
    at: DateTime<Utc>,
) -> Result<Delivery, DomainError> {
    let Some(current) = order.shipments.iter().find(|s| s.id == shipment_id) else {
        return Err(DomainError::not_found(
            "shipment",
            format!("order {} has no shipment {shipment_id}", order.id),
        ));
    };
    if status == ShipmentStatus::Shipped {
        return Err(DomainError::invalid(
            "status",
            "status may be DELIVERED or DELIVERY_EXCEPTION; a shipment is SHIPPED when created",
        ));
    }
    if status == current.status {
        return Ok(Delivery {
            order: order.clone(),
            shipment: current.clone(),
            delivered: Vec::new(),
        });
    }
    if current.status == ShipmentStatus::Delivered {
        return Err(DomainError::conflict(
            "status",
            format!(
                "shipment {shipment_id} was DELIVERED; it cannot become {}",
                status.as_str()
            ),
        ));
    }
    let mut after = order.clone();
    let mut delivered = Vec::new();
    if status == ShipmentStatus::Delivered {
        for line in &mut after.lines {
            if line.shipment_id == Some(shipment_id) && line.status == LineStatus::Shipped {
                line.status = LineStatus::Delivered;
                line.updated_at = at;
                delivered.extend(line.item_id);
            }
        }
    }
    let mut shipment = current.clone();
    shipment.status = status;
    shipment.updated_at = at;
    if status == ShipmentStatus::Delivered {
        shipment.delivered_at = Some(at);
    }
    if let Some(s) = after.shipments.iter_mut().find(|s| s.id == shipment_id) {
        *s = shipment.clone();
    }
    after.updated_at = at;
    Ok(Delivery {
        order: after.restated(),
        shipment,
        delivered,
    })
}

#[cfg(test)]
mod tests;
