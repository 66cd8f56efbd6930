//! Joiners' orders (docs/orders.md): listed, read, shipped and delivered;
//! each write decided by `crate::orders::shipment` in the store's
//! transaction.

use chrono::{DateTime, SubsecRound, Utc};

use crate::error::DomainError;
use crate::ids::{OrderId, OrganizationId, ShipmentId};
use crate::orders::order::{Order, Shipment};
use crate::orders::query::{OrderPage, OrderQuery, RawOrderQuery};
use crate::orders::shipment::NewShipment;
use crate::orders::ShipmentStatus;
use crate::ports::OrderRepository;

/// Now, at the stores' precision (microseconds), so that what a write
/// answers is what a later read shows.
fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}

/// The answer for an order the organization does not have.
#[must_use]
pub fn unknown_order(id: OrderId) -> DomainError {
    DomainError::not_found("order", format!("order {id} not found"))
}

/// One page of the organization's orders.
///
/// # Errors
/// [`DomainError::Invalid`] for a bad parameter; store failures.
pub fn list_orders(
    repo: &dyn OrderRepository,
    organization: OrganizationId,
    raw: &RawOrderQuery,
) -> Result<(OrderQuery, OrderPage), DomainError> {
    let query = OrderQuery::parse(raw)?;
    let page = repo.list_orders(organization, &query)?;
    Ok((query, page))
}

/// The order `id` of the organization.
///
/// # Errors
/// [`DomainError::NotFound`] (`order`) when unknown or another
/// organization's; store failures.
pub fn get_order(
    repo: &dyn OrderRepository,
    organization: OrganizationId,
    id: OrderId,
) -> Result<Order, DomainError> {
    repo.find_order(organization, id)?
        .ok_or_else(|| unknown_order(id))
}

/// Ships lines of the order `id`: the new shipment.
///
/// # Errors
/// The request's shape ([`NewShipment::check`]) before any store work;
/// [`DomainError::NotFound`] for an unknown order; the domain's refusal
/// (`orders::shipment::ship`); store failures.
pub fn ship_order(
    repo: &dyn OrderRepository,
    organization: OrganizationId,
    id: OrderId,
    shipment: &NewShipment,
) -> Result<Shipment, DomainError> {
    shipment.check()?;
    let (_, shipment) = repo.ship_order(organization, id, shipment, now())??;
    Ok(shipment)
}

/// Moves the shipment `shipment` of the order `id` to `status`: the
/// shipment as it is now.
///
/// # Errors
/// [`DomainError::Invalid`] (`status`) for SHIPPED, before any store work;
/// [`DomainError::NotFound`] for an unknown order or shipment; the domain's
/// refusal (`orders::shipment::deliver`); store failures.
pub fn record_delivery(
    repo: &dyn OrderRepository,
    organization: OrganizationId,
    id: OrderId,
    shipment: ShipmentId,
    status: ShipmentStatus,
) -> Result<Shipment, DomainError> {
    if status == ShipmentStatus::Shipped {
        return Err(DomainError::invalid(
            "status",
            "status may be DELIVERED or DELIVERY_EXCEPTION; a shipment is SHIPPED when created",
        ));
    }
    let (_, shipment) = repo.record_delivery(organization, id, shipment, status, now())??;
    Ok(shipment)
}

#[cfg(test)]
mod tests;
