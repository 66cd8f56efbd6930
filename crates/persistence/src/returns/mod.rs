//! The store's part of a return's life (docs/returns.md), shared by every
//! writer of return orders: the return-order endpoints, warehouse receipts,
//! offboarding. Each runs in its own write transaction (inside
//! [`crate::events::recorded`]) and uses these pieces:
//!
//! - [`lock_order`]: the order with its lines, locked (PostgreSQL:
//!   `FOR UPDATE` on the order's row; SQLite: the write transaction holds
//!   the database);
//! - [`active_order_of_item`]: the order of an item's active (open) line,
//!   to lock before the item;
//! - [`lock_items`] / [`read_item`] / [`write_item`]: items as the domain
//!   sees them, locked, and written back with their event and listing row;
//! - [`write_order`]: after a change decided on an order's method or lines,
//!   restates its statuses (`returns::status`), writes the order's and
//!   lines' rows, its `return_order.updated` event, refreshes the listing
//!   rows of the items whose view of the order changed
//!   (`order::items_shown_changed`), and completes its person's offboarding when due
//!   (`returns::completion`, `person.offboarded`).
//!
//! Lock order, so that no two writers deadlock: the return order, then its
//! items, then the person (locked last by [`write_order`]).

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use equip_domain::event::{EventType, NewEvent};
use equip_domain::ids::{InventoryItemId, PersonId, ReturnOrderId};
use equip_domain::inventory::InventoryItem;
use equip_domain::returns::completion::{self, Completion};
use equip_domain::returns::order::{items_shown_changed, written, ReturnOrder};

use crate::connection::{on_inner, DbConnection};
use crate::error::DbResult;
use crate::events::Recorder;
use crate::listing::{refresh, Scope};
use crate::models::{
    db_time, return_order_from_rows, ItemRow, ItemRows, PricingRow, ReturnLineChange,
    ReturnOrderItemRow, ReturnOrderRow, TagRow,
};
use crate::repositories::people::lock_person;
use crate::schema::{
    inventory_item_pricing, inventory_item_tags, inventory_items, people, person_offboardings,
    return_order_items, return_orders,
};

/// The return order `id` of `org` with its lines, its row locked until the
/// transaction ends; `None` when the organization has no such order.
pub(crate) fn lock_order(
    c: &mut DbConnection,
    org: &str,
    id: ReturnOrderId,
) -> DbResult<Option<ReturnOrder>> {
    order_of(c, org, id, true)
}

/// The return order `id` of `org` with its lines, as [`lock_order`] without
/// the lock (a read).
pub(crate) fn read_order(
    c: &mut DbConnection,
    org: &str,
    id: ReturnOrderId,
) -> DbResult<Option<ReturnOrder>> {
    order_of(c, org, id, false)
}

fn order_of(
    c: &mut DbConnection,
    org: &str,
    id: ReturnOrderId,
    lock: bool,
) -> DbResult<Option<ReturnOrder>> {
    let id = id.to_string();
    let row = return_orders::table
        .filter(return_orders::id.eq(&id))
        .filter(return_orders::organization_id.eq(org));
    let order: Option<ReturnOrderRow> = match &mut *c {
        DbConnection::Postgres(pg) if lock => row
            .select(ReturnOrderRow::as_select())
            .for_update()
            .first(pg)
            .optional()?,
        DbConnection::Postgres(pg) => row
            .select(ReturnOrderRow::as_select())
            .first(pg)
            .optional()?,
        DbConnection::Sqlite(lite) => row
            .select(ReturnOrderRow::as_select())
            .first(lite)
            .optional()?,
    };
    let Some(order) = order else {
        return Ok(None);
    };
    let lines = return_order_items::table
        .filter(return_order_items::return_order_id.eq(&id))
        .filter(return_order_items::organization_id.eq(org))
        .select(ReturnOrderItemRow::as_select())
        .load(c)?;
    return_order_from_rows(order, lines).map(Some)
}

/// Lines per multi-row insert (18 binds each, under SQLite's conservative
/// 999-bind limit).
const LINE_CHUNK: usize = 50;

/// Inserts a new return order (decided by the domain) with its lines, and
/// refreshes its items' listing rows. Its events are the caller's.
pub(crate) fn insert_order(c: &mut DbConnection, org: &str, order: &ReturnOrder) -> DbResult<()> {
    let order_id = order.id.to_string();
    diesel::insert_into(return_orders::table)
        .values(ReturnOrderRow {
            id: order_id.clone(),
            organization_id: org.to_owned(),
            person_id: order.person.map(|p| p.to_string()),
            status: order.status.as_str().into(),
            created_at: db_time(order.created_at),
            updated_at: db_time(order.updated_at),
            cancelled: order.cancelled,
        })
        .execute(c)?;
    let lines: Vec<ReturnOrderItemRow> = order
        .lines
        .iter()
        .map(|line| {
            let w = ReturnLineChange::of(line, order.retrieval.as_ref());
            ReturnOrderItemRow {
                id: line.id.to_string(),
                organization_id: org.to_owned(),
                return_order_id: order_id.clone(),
                inventory_item_id: line.item.to_string(),
                status: w.status,
                active: w.active,
                retrieval_id: w.retrieval_id,
                retrieval_type: w.retrieval_type,
                retrieval_status: w.retrieval_status,
                retrieval_updated_at: w.retrieval_updated_at,
                inbound_tracking_code: w.inbound_tracking_code,
                inbound_tracking_link: w.inbound_tracking_link,
                outbound_tracking_code: w.outbound_tracking_code,
                outbound_tracking_link: w.outbound_tracking_link,
                itad_requested: w.itad_requested,
                received_at: w.received_at,
                warehouse_id: w.warehouse_id,
                closed_reason: w.closed_reason,
            }
        })
        .collect();
    for chunk in lines.chunks(LINE_CHUNK) {
        on_inner!(c, |inner| diesel::insert_into(return_order_items::table)
            .values(chunk)
            .execute(inner))?;
    }
    let items: Vec<String> = lines.into_iter().map(|l| l.inventory_item_id).collect();
    refresh(c, org, Scope::Items(&items))
}

/// The order of the item's active (open) line, if any; not locked (lock it
/// with [`lock_order`], then check the line is still open).
#[allow(dead_code)] // for warehouse receipts
pub(crate) fn active_order_of_item(
    c: &mut DbConnection,
    org: &str,
    item: InventoryItemId,
) -> DbResult<Option<ReturnOrderId>> {
    let found: Option<String> = return_order_items::table
        .filter(return_order_items::inventory_item_id.eq(item.to_string()))
        .filter(return_order_items::organization_id.eq(org))
        .filter(return_order_items::active.eq(true))
        .select(return_order_items::return_order_id)
        .first(c)
        .optional()?;
    found.as_deref().map(crate::models::parse_id).transpose()
}

/// Locks the rows of the organization's items among `ids` (PostgreSQL:
/// `FOR NO KEY UPDATE`, in id order) until the transaction ends. Not
/// `FOR UPDATE`: a return line inserted for an item checks its foreign key
/// with a `FOR KEY SHARE` lock, which `FOR UPDATE` would block, so an
/// offboarding (which holds the person and inserts lines) and a return
/// created for the same person (which holds the items and waits for the
/// person) would deadlock. Two writers of one item still queue here.
pub(crate) fn lock_items(c: &mut DbConnection, org: &str, ids: &[InventoryItemId]) -> DbResult<()> {
    let mut ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    ids.sort_unstable();
    ids.dedup();
    if let DbConnection::Postgres(pg) = c {
        for chunk in ids.chunks(1000) {
            inventory_items::table
                .filter(inventory_items::organization_id.eq(org))
                .filter(inventory_items::id.eq_any(chunk))
                .order(inventory_items::id.asc())
                .select(inventory_items::id)
                .for_no_key_update()
                .load::<String>(pg)?;
        }
    }
    Ok(())
}

/// The organization's item `id` as the domain sees it (with its tags,
/// pricing and active return); `None` when there is no such item.
pub(crate) fn read_item(
    c: &mut DbConnection,
    org: &str,
    id: InventoryItemId,
) -> DbResult<Option<InventoryItem>> {
    let id = id.to_string();
    let Some(item) = inventory_items::table
        .filter(inventory_items::id.eq(&id))
        .filter(inventory_items::organization_id.eq(org))
        .select(ItemRow::as_select())
        .first(c)
        .optional()?
    else {
        return Ok(None);
    };
    let tags = inventory_item_tags::table
        .filter(inventory_item_tags::item_id.eq(&id))
        .filter(inventory_item_tags::organization_id.eq(org))
        .order(inventory_item_tags::position.asc())
        .select(TagRow::as_select())
        .load(c)?;
    let pricing = inventory_item_pricing::table
        .filter(inventory_item_pricing::item_id.eq(&id))
        .filter(inventory_item_pricing::organization_id.eq(org))
        .select(PricingRow::as_select())
        .first(c)
        .optional()?;
    let active_return = return_order_items::table
        .inner_join(return_orders::table)
        .filter(return_order_items::inventory_item_id.eq(&id))
        .filter(return_order_items::organization_id.eq(org))
        .filter(return_order_items::active.eq(true))
        .select((ReturnOrderRow::as_select(), ReturnOrderItemRow::as_select()))
        .first(c)
        .optional()?;
    ItemRows {
        item,
        pricing,
        tags,
        active_return,
    }
    .into_domain()
    .map(Some)
}

/// Writes the item's own row as `after` (tags and pricing are left as they
/// are: a return never changes them) and records `inventory.item.updated`
/// with what differs from `before`. The caller refreshes the listing (once
/// for all it touched; [`write_order`] does for the order's items).
pub(crate) fn write_item(
    c: &mut DbConnection,
    org: &str,
    before: &InventoryItem,
    after: &InventoryItem,
    events: &mut Recorder,
) -> DbResult<()> {
    let rows = ItemRows::from_domain(after)?;
    diesel::update(
        inventory_items::table
            .filter(inventory_items::id.eq(&rows.item.id))
            .filter(inventory_items::organization_id.eq(org)),
    )
    .set(&rows.item)
    .execute(c)?;
    events.push_some(
        org,
        after.updated_at,
        NewEvent::updated(EventType::ItemUpdated, before, after),
    );
    Ok(())
}

/// After a change decided on `before` (locked by [`lock_order`]) gave
/// `after` (its method, retrieval status, lines' states, `itadRequested`,
/// receipts or cancellation changed; statuses need not be restated): writes
/// the order restated (`ReturnOrder::restated`) with `updated_at` = `at`,
/// each changed line's row (all of them when the retrieval changed),
/// `return_order.updated` with the changes, the listing rows of the items
/// whose view of the order changed ([`items_shown_changed`]), and, when the person's offboarding is due to complete (no open
/// line left on any of their orders), the person OFFBOARDED with
/// `person.offboarded`. Returns the order as written; when nothing a caller
/// sees changed, writes nothing and returns `before`.
pub(crate) fn write_order(
    c: &mut DbConnection,
    org: &str,
    before: &ReturnOrder,
    after: ReturnOrder,
    at: DateTime<Utc>,
    events: &mut Recorder,
) -> DbResult<ReturnOrder> {
    let Some(write) = written(before, after, at) else {
        return Ok(before.clone());
    };
    let after = write.order;
    let order_id = after.id.to_string();
    diesel::update(
        return_orders::table
            .filter(return_orders::id.eq(&order_id))
            .filter(return_orders::organization_id.eq(org)),
    )
    .set((
        return_orders::status.eq(after.status.as_str()),
        return_orders::cancelled.eq(after.cancelled),
        return_orders::updated_at.eq(db_time(at)),
    ))
    .execute(c)?;
    let retrieval_changed = before.retrieval != after.retrieval;
    for line in &after.lines {
        let old = before.lines.iter().find(|l| l.id == line.id);
        if !retrieval_changed && old == Some(line) {
            continue;
        }
        diesel::update(
            return_order_items::table
                .filter(return_order_items::id.eq(line.id.to_string()))
                .filter(return_order_items::organization_id.eq(org)),
        )
        .set(ReturnLineChange::of(line, after.retrieval.as_ref()))
        .execute(c)?;
    }
    for event in write.events {
        events.push(org, at, event);
    }
    // Only the items whose rendered view changed: a receipt closing one line
    // of a 1,000-line order rewrites one listing row, not 1,000.
    let items: Vec<String> = items_shown_changed(before, &after)
        .iter()
        .map(ToString::to_string)
        .collect();
    if !items.is_empty() {
        refresh(c, org, Scope::Items(&items))?;
    }
    if let (Some(person), true) = (after.person, write.lines_closed) {
        complete_if_due(c, org, person, at, events)?;
    }
    Ok(after)
}

/// Completes the offboarding of `person` when it is due: locks the person
/// (after every line write of the transaction, so that a concurrent writer
/// closing their other last line is seen once it commits), counts their
/// open lines in a new statement, and writes what
/// [`completion::complete`] decides. Returns the completion, if any.
pub(crate) fn complete_if_due(
    c: &mut DbConnection,
    org: &str,
    person: PersonId,
    at: DateTime<Utc>,
    events: &mut Recorder,
) -> DbResult<Option<Completion>> {
    let id = person.to_string();
    let Some(stored) = lock_person(c, org, &id)? else {
        return Ok(None);
    };
    let open = open_lines_of_person(c, org, &id)?;
    let Some(done) = completion::complete(person, stored, open, at) else {
        return Ok(None);
    };
    diesel::update(
        people::table
            .filter(people::id.eq(&id))
            .filter(people::organization_id.eq(org)),
    )
    .set((
        people::status.eq(done.status.as_str()),
        people::version.eq(done.version),
        people::updated_at.eq(db_time(done.updated_at)),
    ))
    .execute(c)?;
    diesel::update(
        person_offboardings::table
            .filter(person_offboardings::person_id.eq(&id))
            .filter(person_offboardings::organization_id.eq(org)),
    )
    .set(person_offboardings::offboarded_at.eq(Some(db_time(at))))
    .execute(c)?;
    events.push(org, at, done.event.clone());
    Ok(Some(done))
}

/// How many of the person's return lines are open (active).
pub(crate) fn open_lines_of_person(
    c: &mut DbConnection,
    org: &str,
    person: &str,
) -> DbResult<usize> {
    let n: i64 = return_order_items::table
        .inner_join(return_orders::table)
        .filter(return_orders::organization_id.eq(org))
        .filter(return_orders::person_id.eq(person))
        .filter(return_order_items::active.eq(true))
        .count()
        .get_result(c)?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}
