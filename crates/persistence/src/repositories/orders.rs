//! [`OrderRepository`] for [`Store`]: the order listing and each shipment
//! write in one transaction that locks the order, then the items its lines
//! hold (`crate::orders::read::lock_order`, `crate::returns::lock_items`),
//! asks the domain (`equip_domain::orders::shipment`) and writes what it
//! decided: the order (`crate::orders::write::write_order`, with its
//! events), the items (`orders::fulfilment`, `inventory.item.updated`) and
//! their listing rows.
//!
//! Shipping and delivery change no item's availability (UNAVAILABLE →
//! UNAVAILABLE → DEPLOYED), so they neither fill backorders nor restate
//! stock levels.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::{DomainError, StoreResult};
use equip_domain::ids::{InventoryItemId, OrderId, OrganizationId, ShipmentId};
use equip_domain::inventory::InventoryItem;
use equip_domain::orders::order::{Order, Shipment};
use equip_domain::orders::query::{OrderPage, OrderQuery};
use equip_domain::orders::shipment::{self, NewShipment};
use equip_domain::orders::{fulfilment, ShipmentStatus};
use equip_domain::ports::OrderRepository;
use equip_domain::services::orders::unknown_order;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::events::{recorded, Recorder};
use crate::listing::{refresh, Scope};
use crate::models::OrderRow;
use crate::orders::read::{lock_order, orders_of_rows, read_order};
use crate::orders::write::write_order;
use crate::returns::{lock_items, read_item, write_item};
use crate::schema::orders;
use crate::store::Store;

impl OrderRepository for Store {
    fn list_orders(
        &self,
        organization: OrganizationId,
        query: &OrderQuery,
    ) -> StoreResult<OrderPage> {
        let org = organization.to_string();
        self.read("order", |c| c.transaction(|c| list(c, &org, query)))
    }

    fn find_order(&self, organization: OrganizationId, id: OrderId) -> StoreResult<Option<Order>> {
        let org = organization.to_string();
        self.read("order", |c| c.transaction(|c| read_order(c, &org, id)))
    }

    fn ship_order(
        &self,
        organization: OrganizationId,
        id: OrderId,
        new: &NewShipment,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<(Order, Shipment), DomainError>> {
        let org = organization.to_string();
        self.with("order", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                let Some(before) = lock_order(c, &org, id)? else {
                    return Ok(Err(unknown_order(id)));
                };
                let (after, shipped) = match shipment::ship(&before, new, at) {
                    Ok(done) => done,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                let items = shipment::shipped_items(&after, &shipped);
                write_order(c, events, &org, Some(&before), &after)?;
                move_items(c, events, &org, &items, |i| fulfilment::shipped(i, at))?;
                Ok(Ok((after, shipped)))
            })
        })
    }

    fn record_delivery(
        &self,
        organization: OrganizationId,
        id: OrderId,
        shipment_id: ShipmentId,
        status: ShipmentStatus,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<(Order, Shipment), DomainError>> {
        let org = organization.to_string();
        self.with("order", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                let Some(before) = lock_order(c, &org, id)? else {
                    return Ok(Err(unknown_order(id)));
                };
                let d = match shipment::deliver(&before, shipment_id, status, at) {
                    Ok(d) => d,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                write_order(c, events, &org, Some(&before), &d.order)?;
                let person = d.order.person_id;
                move_items(c, events, &org, &d.delivered, |i| {
                    fulfilment::delivered(i, person, at)
                })?;
                Ok(Ok((d.order, d.shipment)))
            })
        })
    }
}

/// Locks the organization's items `ids` (after the order: the lock order of
/// every order writer), writes each as `moved` makes it with its
/// `inventory.item.updated`, and refreshes their listing rows.
fn move_items(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    ids: &[InventoryItemId],
    moved: impl Fn(&InventoryItem) -> InventoryItem,
) -> DbResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    lock_items(c, org, ids)?;
    for id in ids {
        let Some(before) = read_item(c, org, *id)? else {
            return Err(DbError::corrupt(format!(
                "order line holds item {id}, which is not the organization's"
            )));
        };
        let after = moved(&before);
        write_item(c, org, &before, &after, events)?;
    }
    let texts: Vec<String> = ids.iter().map(ToString::to_string).collect();
    refresh(c, org, Scope::Items(&texts))
}

/// One page of the organization's orders, newest first, with their lines
/// and shipments.
fn list(c: &mut DbConnection, org: &str, query: &OrderQuery) -> DbResult<OrderPage> {
    let filtered = || {
        let mut q = orders::table
            .filter(orders::organization_id.eq(org.to_owned()))
            .into_boxed();
        if let Some(status) = query.status {
            q = q.filter(orders::status.eq(status.as_str()));
        }
        if let Some(person) = query.person {
            q = q.filter(orders::person_id.eq(person.to_string()));
        }
        q
    };
    let total: i64 = filtered().count().get_result(c)?;
    let rows: Vec<OrderRow> = filtered()
        .order((orders::created_at.desc(), orders::id.desc()))
        .limit(i64::from(query.size()))
        .offset(i64::try_from(query.offset()).unwrap_or(i64::MAX))
        .select(OrderRow::as_select())
        .load(c)?;
    Ok(OrderPage {
        orders: orders_of_rows(c, org, rows)?,
        total_records: u64::try_from(total).unwrap_or(0),
    })
}
