//! Port: joiners' orders (docs/orders.md): listed, read, shipped and
//! delivered. Orders are created, changed and cancelled by provisioning
//! (the writers of people and groups), not through this port.

use chrono::{DateTime, Utc};

use crate::error::{DomainError, StoreResult};
use crate::ids::{OrderId, OrganizationId, ShipmentId};
use crate::orders::order::{Order, Shipment};
use crate::orders::query::{OrderPage, OrderQuery};
use crate::orders::shipment::NewShipment;
use crate::orders::ShipmentStatus;

/// Joiners' orders of an organization. Every write runs in one transaction
/// that locks the order, then the items its lines hold, asks the domain
/// (`orders::shipment::ship`, `orders::shipment::deliver`) and writes what
/// it decided: the order, its lines and shipment, the items
/// (`orders::fulfilment`), their events and listing rows.
pub trait OrderRepository: Send + Sync {
    /// One page of the organization's orders, newest first (created, then
    /// id, descending).
    ///
    /// # Errors
    /// Backend failures.
    fn list_orders(
        &self,
        organization: OrganizationId,
        query: &OrderQuery,
    ) -> StoreResult<OrderPage>;

    /// One order of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_order(&self, organization: OrganizationId, id: OrderId) -> StoreResult<Option<Order>>;

    /// Ships the lines `shipment` names of the order `id` at `at`: the order
    /// as written and the new shipment. `Ok(Err(_))` is the domain's refusal
    /// or an unknown order (`NotFound`), nothing written.
    ///
    /// # Errors
    /// Backend failures.
    fn ship_order(
        &self,
        organization: OrganizationId,
        id: OrderId,
        shipment: &NewShipment,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<(Order, Shipment), DomainError>>;

    /// Moves the shipment `shipment` of the order `id` to `status` at `at`
    /// (a delivery makes its items DEPLOYED to the person): the order as
    /// written and the shipment. `Ok(Err(_))` is the domain's refusal or an
    /// unknown order or shipment (`NotFound`), nothing written.
    ///
    /// # Errors
    /// Backend failures.
    fn record_delivery(
        &self,
        organization: OrganizationId,
        id: OrderId,
        shipment: ShipmentId,
        status: ShipmentStatus,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<(Order, Shipment), DomainError>>;
}
