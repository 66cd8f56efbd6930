//! Joiners' orders in memory, by the same rules as the database store
//! (`crate::orders::shipment`, `crate::orders::fulfilment`): the order read
//! under the state's lock, the domain's decision written as it is, the
//! items its lines hold moved with their `inventory.item.updated`.

use super::*;
use crate::event::{EventType, NewEvent};
use crate::ids::{OrderId, ShipmentId};
use crate::orders::order::{written, Order, Shipment};
use crate::orders::query::{OrderPage, OrderQuery};
use crate::orders::shipment::{self, NewShipment};
use crate::orders::{fulfilment, ShipmentStatus};
use crate::DomainError;

impl InMemoryStore {
    /// Stores `order` as it is (a new one with `order.created`, a change
    /// with the events `orders::order::written` decides): what provisioning
    /// does once it has decided an order; tests use it to set orders up.
    pub fn put_order(&self, order: &Order) {
        let mut s = self.state();
        let actor = self.actor();
        let before = s
            .orders
            .iter()
            .find(|o| o.id == order.id && o.organization_id == order.organization_id)
            .cloned();
        for event in written(before.as_ref(), order) {
            s.record(order.organization_id, actor.clone(), order.updated_at, event);
        }
        upsert(&mut s.orders, order, |o| o.id);
    }
}

fn order_of(s: &State, organization: OrganizationId, id: OrderId) -> Option<Order> {
    s.orders
        .iter()
        .find(|o| o.id == id && o.organization_id == organization)
        .cloned()
}

/// Writes `after` over its order, with its events, and moves each item of
/// `items` with `moved`, recording its update.
fn write(
    s: &mut State,
    actor: crate::event::Actor,
    before: &Order,
    after: &Order,
    items: &[InventoryItemId],
    moved: impl Fn(&InventoryItem) -> InventoryItem,
) {
    let org = after.organization_id;
    for event in written(Some(before), after) {
        s.record(org, actor.clone(), after.updated_at, event);
    }
    upsert(&mut s.orders, after, |o| o.id);
    for id in items {
        let Some(n) = s
            .inventory
            .iter()
            .position(|i| i.id == *id && i.organization_id == org)
        else {
            continue;
        };
        let current = s.inventory[n].clone();
        let next = moved(&current);
        if let Some(event) = NewEvent::updated(EventType::ItemUpdated, &current, &next) {
            s.record(org, actor.clone(), next.updated_at, event);
        }
        s.inventory[n] = next;
    }
}

impl crate::ports::OrderRepository for InMemoryStore {
    fn list_orders(
        &self,
        organization: OrganizationId,
        query: &OrderQuery,
    ) -> StoreResult<OrderPage> {
        let s = self.state();
        let mut found: Vec<&Order> = s
            .orders
            .iter()
            .filter(|o| o.organization_id == organization && query.matches(o))
            .collect();
        found.sort_by_key(|o| std::cmp::Reverse((o.created_at, o.id)));
        let total_records = found.len() as u64;
        let orders = found
            .into_iter()
            .skip(usize::try_from(query.offset()).unwrap_or(usize::MAX))
            .take(query.size() as usize)
            .cloned()
            .collect();
        Ok(OrderPage {
            orders,
            total_records,
        })
    }

    fn find_order(&self, organization: OrganizationId, id: OrderId) -> StoreResult<Option<Order>> {
        Ok(order_of(&self.state(), organization, id))
    }

    fn ship_order(
        &self,
        organization: OrganizationId,
        id: OrderId,
        new: &NewShipment,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<(Order, Shipment), DomainError>> {
        let mut s = self.state();
        let Some(before) = order_of(&s, organization, id) else {
            return Ok(Err(crate::services::orders::unknown_order(id)));
        };
        let (after, shipped) = match shipment::ship(&before, new, at) {
            Ok(done) => done,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let items = shipment::shipped_items(&after, &shipped);
        write(&mut s, self.actor(), &before, &after, &items, |i| {
            fulfilment::shipped(i, at)
        });
        Ok(Ok((after, shipped)))
    }

    fn record_delivery(
        &self,
        organization: OrganizationId,
        id: OrderId,
        shipment_id: ShipmentId,
        status: ShipmentStatus,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<(Order, Shipment), DomainError>> {
        let mut s = self.state();
        let Some(before) = order_of(&s, organization, id) else {
            return Ok(Err(crate::services::orders::unknown_order(id)));
        };
        let d = match shipment::deliver(&before, shipment_id, status, at) {
            Ok(d) => d,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let person = d.order.person_id;
        write(&mut s, self.actor(), &before, &d.order, &d.delivered, |i| {
            fulfilment::delivered(i, person, at)
        });
        Ok(Ok((d.order, d.shipment)))
    }
}
