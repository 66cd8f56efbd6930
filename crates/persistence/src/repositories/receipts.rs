//! [`ReceiptRepository`] for [`Store`]: warehouse receipts (one transaction
//! per entry), the organization's hold period, and hold releases (one, or a
//! batch of due ones skipped by other processes' batches). The rules are the
//! domain's (`equip_domain::returns::receipt`, `::hold`): here the facts are
//! locked and read, and what the rules decided is written with its events.
//!
//! Locks, in the order every change of a return takes them
//! (`crate::returns`): the item's open return order, then the item, then
//! (when the receipt closes their last open line) the person (PostgreSQL:
//! `FOR UPDATE`; SQLite: the write transaction holds the database).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::ports::{EntryOutcome, ReceiptRepository};
use equip_domain::returns::hold::{self, HoldPeriod};
use equip_domain::returns::receipt::{
    self, ItemKey, OpenLine, ReceiptEntry, ReceiptFacts, Received, Receiving,
};
use equip_domain::returns::LineState;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::events::{recorded, Recorder};
use crate::levels;
use crate::listing::{refresh, Scope};
use crate::models::parse_id;
use crate::returns;
use crate::schema::{inventory_items, organizations};
use crate::stock::{after_write, StockTouched};
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
        let outcome = self.with("inventoryItem", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                receive_in(c, &org, entry, receiving, events)
            })
        });
        // A receipt's entries come one after another: a SCIM write waits for
        // one entry, not for the receipt.
        self.let_other_writers_in();
        outcome
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
            recorded(c, &self.actor, |c, events| {
                returns::lock_items(c, &org, &[item])?;
                let Some(current) = returns::read_item(c, &org, item)? else {
                    return Ok(EntryOutcome {
                        item: None,
                        serial_number: None,
                        result: Err(receipt::not_found(&ItemKey::Id(item), 0)),
                    });
                };
                let result = match hold::release(&current, at) {
                    Ok(released) => {
                        returns::write_item(c, &org, &current, &released, events)?;
                        refresh(c, &org, Scope::Items(std::slice::from_ref(&id)))?;
                        let mut touched = StockTouched::default();
                        levels::touch(&mut touched, Some(&current), Some(&released));
                        after_write(c, events, &org, touched, at)?;
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
        let released = self.with("inventoryItem", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
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
                let mut by_org: std::collections::BTreeMap<&str, (Vec<String>, StockTouched)> =
                    std::collections::BTreeMap::new();
                for (org, id) in &due {
                    let Some(current) = returns::read_item(c, org, parse_id(id)?)? else {
                        continue;
                    };
                    let released = hold::release(&current, at).map_err(DbError::corrupt)?;
                    returns::write_item(c, org, &current, &released, events)?;
                    let (ids, touched) = by_org.entry(org).or_default();
                    ids.push(id.clone());
                    levels::touch(touched, Some(&current), Some(&released));
                }
                for (org, (ids, touched)) in by_org {
                    refresh(c, org, Scope::Items(&ids))?;
                    after_write(c, events, org, touched, at)?;
                }
                Ok(due.len())
            })
        });
        // The next batch follows at once: a SCIM write waits for one batch,
        // not for the pass.
        self.let_other_writers_in();
        released
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
    let id: InventoryItemId = parse_id(id)?;
    // The open order first, then the item (the lock order of every change
    // of a return); the line is read under both locks.
    let before = match returns::active_order_of_item(c, org, id)? {
        Some(order) => returns::lock_order(c, org, order)?,
        None => None,
    };
    returns::lock_items(c, org, &[id])?;
    let Some(current) = returns::read_item(c, org, id)? else {
        return Ok(EntryOutcome {
            item: None,
            serial_number: sent_serial,
            result: Err(receipt::not_found(&entry.key, 0)),
        });
    };
    let line = before.as_ref().and_then(|order| {
        order
            .lines
            .iter()
            .find(|l| l.item == id && l.active())
            .map(|l| OpenLine {
                id: l.id,
                order: order.id,
                itad_requested: l.itad_requested,
            })
    });
    let facts = ReceiptFacts {
        item: &current,
        line,
        hold_period: read_hold_period(c, org)?.unwrap_or_default(),
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
    returns::write_item(c, org, &current, &item, events)?;
    let mut touched = StockTouched::default();
    levels::touch(&mut touched, Some(&current), Some(&item));
    let written_at = item.updated_at;
    match (line, before) {
        (Some(received), Some(before)) => {
            let mut after = before.clone();
            for l in after.lines.iter_mut().filter(|l| l.id == received.line) {
                l.state = LineState::Received;
                l.received_at = Some(received.at);
                l.warehouse_id = Some(received.warehouse);
            }
            // Restates the order, writes it and its lines, its event, the
            // listing rows of its items, and completes the offboarding when
            // this was the person's last open line.
            returns::write_order(c, org, &before, after, received.at, events)?;
        }
        _ => refresh(c, org, Scope::Items(&[id.to_string()]))?,
    }
    after_write(c, events, org, touched, written_at)?;
    Ok(outcome(Ok(())))
}
