//! Writing an order as the domain decided it: [`insert_order`] for a new
//! order (its row, its lines and its shipments), [`write_order`] for any
//! writer (a new order or a change of one read by
//! [`lock_order`](super::read::lock_order)), with the order's events
//! (`equip_domain::orders::order::written`).
//!
//! Rows are written in foreign-key order: the order, its shipments, then
//! its lines (a line names its shipment).

use diesel::prelude::*;

use equip_domain::orders::order::{written, Order};

use crate::connection::{on_inner, DbConnection};
use crate::error::DbResult;
use crate::events::Recorder;
use crate::models::{
    db_time, OrderLineChange, OrderLineRow, OrderRow, ShipmentChange, ShipmentRow,
};
use crate::schema::{order_lines, orders, shipments};

/// Lines per multi-row insert (11 binds each, under SQLite's conservative
/// 999-bind limit).
const LINE_CHUNK: usize = 80;

/// Inserts a new order (as the domain made it: restated, with its
/// `updated_at`) with its shipments and lines. Records no event (see
/// [`write_order`] with no `before`, which does).
pub(crate) fn insert_order(c: &mut DbConnection, org: &str, order: &Order) -> DbResult<()> {
    diesel::insert_into(orders::table)
        .values(OrderRow::of(org, order))
        .execute(c)?;
    for s in &order.shipments {
        diesel::insert_into(shipments::table)
            .values(ShipmentRow::of(org, s))
            .execute(c)?;
    }
    let lines = order
        .lines
        .iter()
        .map(|l| OrderLineRow::of(org, order.id, l))
        .collect::<DbResult<Vec<_>>>()?;
    for chunk in lines.chunks(LINE_CHUNK) {
        on_inner!(c, |inner| diesel::insert_into(order_lines::table)
            .values(chunk)
            .execute(inner))?;
    }
    Ok(())
}

/// Writes `after` (restated by the caller, its `updated_at` the change's
/// time) over `before` (`None`: a new order, inserted by [`insert_order`]):
/// the order's row (status, package, `updated_at`), new shipments inserted
/// and changed ones updated, new lines inserted and changed ones updated,
/// and the events [`written`] decides, at `after.updated_at`. Writes nothing
/// when `after` equals `before`. Item rows are the caller's.
pub(crate) fn write_order(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    before: Option<&Order>,
    after: &Order,
) -> DbResult<()> {
    let Some(before) = before else {
        insert_order(c, org, after)?;
        for e in written(None, after) {
            events.push(org, after.updated_at, e);
        }
        return Ok(());
    };
    if before == after {
        return Ok(());
    }
    let order_id = after.id.to_string();
    diesel::update(
        orders::table
            .filter(orders::id.eq(&order_id))
            .filter(orders::organization_id.eq(org)),
    )
    .set((
        orders::status.eq(after.status.as_str()),
        orders::package_id.eq(after.package_id.map(|p| p.to_string())),
        orders::updated_at.eq(db_time(after.updated_at)),
    ))
    .execute(c)?;
    for s in &after.shipments {
        match before.shipments.iter().find(|b| b.id == s.id) {
            None => {
                diesel::insert_into(shipments::table)
                    .values(ShipmentRow::of(org, s))
                    .execute(c)?;
            }
            Some(old) if old == s => {}
            Some(_) => {
                diesel::update(
                    shipments::table
                        .filter(shipments::id.eq(s.id.to_string()))
                        .filter(shipments::organization_id.eq(org)),
                )
                .set(ShipmentChange::of(s))
                .execute(c)?;
            }
        }
    }
    let mut new_lines = Vec::new();
    for l in &after.lines {
        match before.line(l.id) {
            None => new_lines.push(OrderLineRow::of(org, after.id, l)?),
            Some(old) if old == l => {}
            Some(_) => {
                diesel::update(
                    order_lines::table
                        .filter(order_lines::id.eq(l.id.to_string()))
                        .filter(order_lines::organization_id.eq(org)),
                )
                .set(OrderLineChange::of(l))
                .execute(c)?;
            }
        }
    }
    for chunk in new_lines.chunks(LINE_CHUNK) {
        on_inner!(c, |inner| diesel::insert_into(order_lines::table)
            .values(chunk)
            .execute(inner))?;
    }
    for e in written(Some(before), after) {
        events.push(org, after.updated_at, e);
    }
    Ok(())
}
