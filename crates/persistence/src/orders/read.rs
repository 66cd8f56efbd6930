//! Reading one order with its lines and shipments: [`read_order`] for a
//! read, [`lock_order`] for a writer (PostgreSQL: `FOR NO KEY UPDATE` on the
//! order's row, so two writers of one order queue while the foreign-key
//! checks of lines and shipments inserted for it, which take `FOR KEY
//! SHARE`, do not; SQLite: the write transaction holds the database).

use diesel::prelude::*;

use equip_domain::ids::OrderId;
use equip_domain::orders::order::Order;

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::models::{order_from_rows, OrderLineRow, OrderRow, ShipmentRow};
use crate::schema::{order_lines, orders, shipments};
use crate::sql_builder::ID_CHUNK;

/// The order `id` of `org` with its lines and shipments; `None` when the
/// organization has no such order.
pub(crate) fn read_order(c: &mut DbConnection, org: &str, id: OrderId) -> DbResult<Option<Order>> {
    order_of(c, org, id, false)
}

/// The order `id` of `org` as [`read_order`], its row locked until the
/// transaction ends (lock it before the items its lines hold).
pub(crate) fn lock_order(c: &mut DbConnection, org: &str, id: OrderId) -> DbResult<Option<Order>> {
    order_of(c, org, id, true)
}

fn order_of(c: &mut DbConnection, org: &str, id: OrderId, lock: bool) -> DbResult<Option<Order>> {
    let id = id.to_string();
    let row = orders::table
        .filter(orders::id.eq(&id))
        .filter(orders::organization_id.eq(org));
    let order: Option<OrderRow> = match &mut *c {
        DbConnection::Postgres(pg) if lock => row
            .select(OrderRow::as_select())
            .for_no_key_update()
            .first(pg)
            .optional()?,
        DbConnection::Postgres(pg) => row.select(OrderRow::as_select()).first(pg).optional()?,
        DbConnection::Sqlite(lite) => row.select(OrderRow::as_select()).first(lite).optional()?,
    };
    let Some(order) = order else {
        return Ok(None);
    };
    let (lines, ships) = parts_of(c, org, &[id])?;
    order_from_rows(order, lines, ships).map(Some)
}

/// The lines' and shipments' rows of the orders `ids` of `org` (any order).
pub(crate) fn parts_of(
    c: &mut DbConnection,
    org: &str,
    ids: &[String],
) -> DbResult<(Vec<OrderLineRow>, Vec<ShipmentRow>)> {
    let mut lines = Vec::new();
    let mut ships = Vec::new();
    for chunk in ids.chunks(ID_CHUNK) {
        lines.extend(
            order_lines::table
                .filter(order_lines::order_id.eq_any(chunk))
                .filter(order_lines::organization_id.eq(org))
                .select(OrderLineRow::as_select())
                .load(c)?,
        );
        ships.extend(
            shipments::table
                .filter(shipments::order_id.eq_any(chunk))
                .filter(shipments::organization_id.eq(org))
                .select(ShipmentRow::as_select())
                .load(c)?,
        );
    }
    Ok((lines, ships))
}

/// Orders of `org` from their rows (as a listing page read them), each with
/// its lines and shipments, in the rows' order.
pub(crate) fn orders_of_rows(
    c: &mut DbConnection,
    org: &str,
    rows: Vec<OrderRow>,
) -> DbResult<Vec<Order>> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let (lines, ships) = parts_of(c, org, &ids)?;
    let mut lines_by: std::collections::HashMap<String, Vec<OrderLineRow>> =
        std::collections::HashMap::new();
    for l in lines {
        lines_by.entry(l.order_id.clone()).or_default().push(l);
    }
    let mut ships_by: std::collections::HashMap<String, Vec<ShipmentRow>> =
        std::collections::HashMap::new();
    for s in ships {
        ships_by.entry(s.order_id.clone()).or_default().push(s);
    }
    rows.into_iter()
        .map(|r| {
            let lines = lines_by.remove(&r.id).unwrap_or_default();
            let ships = ships_by.remove(&r.id).unwrap_or_default();
            order_from_rows(r, lines, ships)
        })
        .collect()
}
