//! [`ReceiptRepository`] for [`Store`]: warehouse receipts (one transaction
//! per entry), the organization's hold period, and hold releases (one, or a
//! batch of due ones skipped by other processes' batches). The rules are the
//! domain's (`equip_domain::returns::receipt`, `::hold`): here the facts are
//! locked and read, and what the rules decided is written with its events.
//!
//! Locks, in this order (as every change of a return order takes them): the
//! item's open return order, then the item (PostgreSQL: `FOR UPDATE`;
//! SQLite: the write transaction holds the database).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, NewEvent};
use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory::{InventoryItem, ReturnStatus};
use equip_domain::ports::{EntryOutcome, ReceiptRepository};
use equip_domain::returns::hold::{self, HoldPeriod};
use equip_domain::returns::receipt::{
    self, ItemKey, OpenLine, ReceiptEntry, ReceiptFacts, Received, Receiving,
};

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::events::{recorded, Recorder};
use crate::listing::{refresh, Scope};
use crate::models::{db_time, parse_id, ItemRows};
use crate::repositories::inventory::load_item;
use crate::schema::{inventory_items, organizations, return_order_items, return_orders};
use crate::store::Store;

impl ReceiptRepository for Store {
    fn hold_period(&self, organization: OrganizationId) -> StoreResult<Option<HoldPeriod>> {
        let org = organization.to_string();
        self.read("organization", |c| read_hold_period(c, &org))
    }

    fn set_hold_period(
        &self,
        organization: OrganizationId,
        period: HoldPeriod,
    ) -> StoreResult<bool> {
        let org = organization.to_string();
        self.with("organization", "", |c| {
            let n = diesel::update(organizations::table.filter(organizations::id.eq(&org)))
                .set(organizations::hold_period_days.eq(i32::from(period.days())))
                .execute(c)?;
            Ok(n > 0)
        })
    }

    fn receive_item(
        &self,
        organization: OrganizationId,
        entry: &ReceiptEntry,
        receiving: Receiving,
    ) -> StoreResult<EntryOutcome> {
        let org = organization.to_string();
        self.with("inventoryItem", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, self.actor, |c, events| {
                receive_in(c, &org, entry, receiving, events)
            })
        })
    }

    fn release_hold(
        &self,
        organization: OrganizationId,
        item: InventoryItemId,
        at: DateTime<Utc>,
    ) -> StoreResult<EntryOutcome> {
        let org = organization.to_string();
        let id = item.to_string();
        self.with("inventoryItem", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, self.actor, |c, events| {
                let Some(current) = lock_and_load(c, &org, &id)? else {
                    return Ok(EntryOutcome {
                        item: None,
                        serial_number: None,
                        result: Err(receipt::not_found(&ItemKey::Id(item), 0)),
                    });
                };
                let result = match hold::release(&current, at) {
                    Ok(released) => {
                        write_item(c, &org, &current, &released, events)?;
                        refresh(c, &org, Scope::Items(std::slice::from_ref(&id)))?;
                        Ok(())
                    }
                    Err(refused) => Err(refused),
                };
                Ok(EntryOutcome {
                    item: Some(item),
                    serial_number: current.serial_number,
                    result,
                })
            })
        })
    }

    fn release_due_holds(
        &self,
        today: NaiveDate,
        at: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<usize> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with("inventoryItem", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, self.actor, |c, events| {
                // The due holds, locked; those another process has locked
                // are skipped (its batch releases them).
                let due = inventory_items::table
                    .filter(inventory_items::unlock_date.le(today))
                    .order((
                        inventory_items::unlock_date.asc(),
                        inventory_items::id.asc(),
                    ))
                    .limit(limit)
                    .select((inventory_items::organization_id, inventory_items::id));
                let due: Vec<(String, String)> = match c {
                    DbConnection::Postgres(pg) => due.for_update().skip_locked().load(pg)?,
                    DbConnection::Sqlite(lite) => due.load(lite)?,
                };
                let mut by_org: std::collections::BTreeMap<&str, Vec<String>> =
                    std::collections::BTreeMap::new();
                for (org, id) in &due {
                    let Some(current) = load_item(c, org, id)? else {
                        continue;
                    };
                    let released = hold::release(&current, at).map_err(DbError::corrupt)?;
                    write_item(c, org, &current, &released, events)?;
                    by_org.entry(org).or_default().push(id.clone());
                }
                for (org, ids) in &by_org {
                    refresh(c, org, Scope::Items(ids))?;
                }
                Ok(due.len())
            })
        })
    }
}

/// The organization's hold period; `None` for an unknown organization.
fn read_hold_period(c: &mut DbConnection, org: &str) -> DbResult<Option<HoldPeriod>> {
    let days: Option<i32> = organizations::table
        .filter(organizations::id.eq(org))
        .select(organizations::hold_period_days)
        .first(c)
        .optional()?;
    days.map(|d| HoldPeriod::new(i64::from(d)).map_err(DbError::corrupt))
        .transpose()
}

/// One receipt entry, in its transaction.
fn receive_in(
    c: &mut DbConnection,
    org: &str,
    entry: &ReceiptEntry,
    receiving: Receiving,
    events: &mut Recorder,
) -> DbResult<EntryOutcome> {
    let sent_serial = match &entry.key {
        ItemKey::Serial(serial) => Some(serial.clone()),
        ItemKey::Id(_) => None,
    };
    let ids: Vec<String> = match &entry.key {
        ItemKey::Id(id) => inventory_items::table
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::id.eq(id.to_string()))
            .select(inventory_items::id)
            .load(c)?,
        ItemKey::Serial(serial) => inventory_items::table
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::serial_number.eq(serial))
            .select(inventory_items::id)
            .limit(10)
            .load(c)?,
    };
    let [id] = &ids[..] else {
        return Ok(EntryOutcome {
            item: None,
            serial_number: sent_serial,
            result: Err(receipt::not_found(&entry.key, ids.len())),
        });
    };
    // The open order first (the order every change of an order locks in),
    // then the item; the line is read again under both locks.
    if let Some(line) = open_line(c, org, id)? {
        lock_order(c, org, &line.order.to_string())?;
    }
    let Some(current) = lock_and_load(c, org, id)? else {
        return Ok(EntryOutcome {
            item: None,
            serial_number: sent_serial,
            result: Err(receipt::not_found(&entry.key, 0)),
        });
    };
    let hold_period = read_hold_period(c, org)?.unwrap_or_default();
    let facts = ReceiptFacts {
        item: &current,
        line: open_line(c, org, id)?,
        hold_period,
    };
    let outcome = |result| EntryOutcome {
        item: Some(current.id),
        serial_number: current.serial_number.clone(),
        result,
    };
    let Received { item, line } = match receipt::receive(facts, entry.condition, receiving) {
        Ok(received) => received,
        Err(refused) => return Ok(outcome(Err(refused))),
    };
    write_item(c, org, &current, &item, events)?;
    if let Some(line) = line {
        diesel::update(
            return_order_items::table
                .filter(return_order_items::organization_id.eq(org))
                .filter(return_order_items::id.eq(line.line.to_string())),
        )
        .set((
            return_order_items::active.eq(false),
            return_order_items::status.eq(ReturnStatus::ReceivedInWarehouse.as_str()),
            return_order_items::received_at.eq(Some(db_time(line.at))),
            return_order_items::warehouse_id.eq(Some(line.warehouse.to_string())),
        ))
        .execute(c)?;
        order_lines_changed(c, org, line.order, line.at, events)?;
    }
    refresh(c, org, Scope::Items(std::slice::from_ref(id)))?;
    Ok(outcome(Ok(())))
}

/// The item's open return line (active), if any.
fn open_line(c: &mut DbConnection, org: &str, item: &str) -> DbResult<Option<OpenLine>> {
    let row: Option<(String, String, bool)> = return_order_items::table
        .filter(return_order_items::organization_id.eq(org))
        .filter(return_order_items::inventory_item_id.eq(item))
        .filter(return_order_items::active.eq(true))
        .select((
            return_order_items::id,
            return_order_items::return_order_id,
            return_order_items::itad_requested,
        ))
        .first(c)
        .optional()?;
    row.map(|(id, order, itad)| {
        Ok(OpenLine {
            id: parse_id(&id)?,
            order: parse_id(&order)?,
            itad_requested: itad,
        })
    })
    .transpose()
}

/// Locks a return order until the transaction ends (PostgreSQL).
fn lock_order(c: &mut DbConnection, org: &str, order: &str) -> DbResult<()> {
    if let DbConnection::Postgres(pg) = c {
        let _: Option<String> = return_orders::table
            .filter(return_orders::organization_id.eq(org))
            .filter(return_orders::id.eq(order))
            .select(return_orders::id)
            .for_update()
            .first(pg)
            .optional()?;
    }
    Ok(())
}

/// Locks the item (PostgreSQL: `FOR UPDATE`) and reads it whole.
fn lock_and_load(c: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<InventoryItem>> {
    let row = inventory_items::table
        .filter(inventory_items::organization_id.eq(org))
        .filter(inventory_items::id.eq(id))
        .select(inventory_items::id);
    let found: Option<String> = match c {
        DbConnection::Postgres(pg) => row.for_update().first(pg).optional()?,
        DbConnection::Sqlite(lite) => row.first(lite).optional()?,
    };
    match found {
        Some(_) => load_item(c, org, id),
        None => Ok(None),
    }
}

/// Writes the item's row as decided, with its `inventory.item.updated`
/// event (the fields that changed).
fn write_item(
    c: &mut DbConnection,
    org: &str,
    current: &InventoryItem,
    item: &InventoryItem,
    events: &mut Recorder,
) -> DbResult<()> {
    let rows = ItemRows::from_domain(item)?;
    diesel::update(
        inventory_items::table
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::id.eq(&rows.item.id)),
    )
    .set(&rows.item)
    .execute(c)?;
    let event = NewEvent::updated(EventType::ItemUpdated, current, item);
    events.push_some(org, item.updated_at, event);
    Ok(())
}

/// Placeholder until the shared return-order writer (branch returns-orders,
/// `crate::returns::write_order`) is merged: the order's status, its event
/// and the offboarding's completion are written there.
fn order_lines_changed(
    _c: &mut DbConnection,
    _org: &str,
    _order: equip_domain::ids::ReturnOrderId,
    _at: DateTime<Utc>,
    _events: &mut Recorder,
) -> DbResult<()> {
    Ok(())
}
