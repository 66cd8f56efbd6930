//! Inventory levels' available stock (docs/orders.md, "Stock levels"):
//! counted for the listing, and restated after every write that changed it
//! (the crossing rule is the domain's, `equip_domain::inventory_level::crossing`;
//! here the levels are locked, the stock counted, and what the rule decided
//! written).

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use diesel::dsl::count_star;
use diesel::prelude::*;

use equip_domain::inventory::{AssigneeType, DeployStatus, InventoryItem};
use equip_domain::inventory_level::{below_minimum_event, crossing, is_below, stock_touches};

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::events::Recorder;
use crate::schema::{inventory_items, inventory_levels};
use crate::stock::StockTouched;

/// (SKU id, warehouse id) pairs per statement: both lists stay under
/// SQLite's 999 bind parameters.
const PAIRS_PER_STATEMENT: usize = 400;

/// A (SKU id, warehouse id) pair.
pub(crate) type Pair = (String, String);

/// What restating a level reads of it: id, SKU, warehouse, minimum and the
/// stored crossing state.
type LevelFacts = (String, String, String, i32, bool);

/// Records in `touched` the places whose available stock a write of one
/// item changed (`before`: `None` when created; `after`: `None` when gone),
/// as the domain's `stock_touches` says.
pub(crate) fn touch(
    touched: &mut StockTouched,
    before: Option<&InventoryItem>,
    after: Option<&InventoryItem>,
) {
    for t in stock_touches(before, after) {
        touched.item(
            &t.sku.to_string(),
            &t.warehouse.to_string(),
            t.now_available,
        );
    }
}

/// Restates the active levels of the (SKU, warehouse) `pairs`: a level
/// whose available quantity fell below its minimum writes
/// `inventory_level.below_minimum` once per crossing.
///
/// The levels are locked (PostgreSQL: `FOR NO KEY UPDATE`, in id order;
/// SQLite: the write transaction holds the database) before their stock is
/// counted, so that of two writers that take the last items of a level, the
/// second counts after the first committed and finds its flag set: one
/// event.
pub(crate) fn restate(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    pairs: &BTreeSet<Pair>,
    at: DateTime<Utc>,
) -> DbResult<()> {
    if pairs.is_empty() {
        return Ok(());
    }
    let levels = lock_levels(c, org, pairs)?;
    if levels.is_empty() {
        return Ok(());
    }
    let watched: Vec<Pair> = levels
        .iter()
        .map(|(_, sku, warehouse, _, _)| (sku.clone(), warehouse.clone()))
        .collect();
    let counts = available_counts(c, org, &watched)?;
    let (mut raise, mut clear) = (Vec::new(), Vec::new());
    for (id, sku, warehouse, minimum, stored) in levels {
        let available = counts.get(&(sku, warehouse)).copied().unwrap_or_default();
        let decided = crossing(stored, available, minimum);
        if decided.write_flag {
            if decided.below {
                raise.push(id.clone());
            } else {
                clear.push(id.clone());
            }
        }
        if decided.event {
            let level = crate::models::parse_id(&id)?;
            events.push(org, at, below_minimum_event(level, available, minimum));
        }
    }
    for (ids, below) in [(raise, true), (clear, false)] {
        for chunk in ids.chunks(crate::sql_builder::ID_CHUNK) {
            diesel::update(
                inventory_levels::table
                    .filter(inventory_levels::organization_id.eq(org))
                    .filter(inventory_levels::id.eq_any(chunk)),
            )
            .set(inventory_levels::below_minimum.eq(below))
            .execute(c)?;
        }
    }
    Ok(())
}

/// Sets the crossing state of the new levels `ids` from the stock they
/// watch, without an event: a level created below its minimum starts
/// below (no stock was taken from it; the next write that leaves it below
/// writes nothing, and once back at or above, the next fall writes the
/// event).
pub(crate) fn initialize(c: &mut DbConnection, org: &str, ids: &[String]) -> DbResult<()> {
    let mut below = Vec::new();
    for chunk in ids.chunks(PAIRS_PER_STATEMENT) {
        let levels: Vec<LevelFacts> = inventory_levels::table
            .filter(inventory_levels::organization_id.eq(org))
            .filter(inventory_levels::id.eq_any(chunk))
            .filter(inventory_levels::deactivated_at.is_null())
            .select(FACTS)
            .load(c)?;
        let pairs: Vec<Pair> = levels
            .iter()
            .map(|(_, sku, warehouse, _, _)| (sku.clone(), warehouse.clone()))
            .collect();
        let counts = available_counts(c, org, &pairs)?;
        for ((id, _, _, minimum, _), pair) in levels.into_iter().zip(pairs) {
            let available = counts.get(&pair).copied().unwrap_or_default();
            if is_below(available, minimum) {
                below.push(id);
            }
        }
    }
    for chunk in below.chunks(crate::sql_builder::ID_CHUNK) {
        diesel::update(
            inventory_levels::table
                .filter(inventory_levels::organization_id.eq(org))
                .filter(inventory_levels::id.eq_any(chunk)),
        )
        .set(inventory_levels::below_minimum.eq(true))
        .execute(c)?;
    }
    Ok(())
}

/// The active levels of `pairs`, locked in id order.
fn lock_levels(
    c: &mut DbConnection,
    org: &str,
    pairs: &BTreeSet<Pair>,
) -> DbResult<Vec<LevelFacts>> {
    let pairs: Vec<&Pair> = pairs.iter().collect();
    if pairs.len() <= PAIRS_PER_STATEMENT {
        // The usual case (one item written): one statement finds and locks.
        return levels_of_pairs(c, org, &pairs, true);
    }
    // Many pairs (an import): the candidates first, then locked in id order
    // across all of them, so that two such writers cannot deadlock.
    let mut ids = Vec::new();
    for chunk in pairs.chunks(PAIRS_PER_STATEMENT) {
        ids.extend(
            levels_of_pairs(c, org, chunk, false)?
                .into_iter()
                .map(|(id, ..)| id),
        );
    }
    ids.sort_unstable();
    let mut locked = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(crate::sql_builder::ID_CHUNK) {
        let query = inventory_levels::table
            .filter(inventory_levels::organization_id.eq(org))
            .filter(inventory_levels::id.eq_any(chunk))
            .filter(inventory_levels::deactivated_at.is_null())
            .order(inventory_levels::id.asc())
            .select(FACTS);
        locked.extend(match &mut *c {
            DbConnection::Postgres(pg) => query.for_no_key_update().load::<LevelFacts>(pg)?,
            DbConnection::Sqlite(lite) => query.load::<LevelFacts>(lite)?,
        });
    }
    Ok(locked)
}

const FACTS: (
    inventory_levels::id,
    inventory_levels::sku_id,
    inventory_levels::warehouse_id,
    inventory_levels::minimum_quantity,
    inventory_levels::below_minimum,
) = (
    inventory_levels::id,
    inventory_levels::sku_id,
    inventory_levels::warehouse_id,
    inventory_levels::minimum_quantity,
    inventory_levels::below_minimum,
);

/// The active levels of `pairs` (at most [`PAIRS_PER_STATEMENT`]), in id
/// order; locked when `lock` (PostgreSQL).
fn levels_of_pairs(
    c: &mut DbConnection,
    org: &str,
    pairs: &[&Pair],
    lock: bool,
) -> DbResult<Vec<LevelFacts>> {
    let skus: BTreeSet<&str> = pairs.iter().map(|(s, _)| s.as_str()).collect();
    let warehouses: BTreeSet<&str> = pairs.iter().map(|(_, w)| w.as_str()).collect();
    let query = inventory_levels::table
        .filter(inventory_levels::organization_id.eq(org))
        .filter(inventory_levels::deactivated_at.is_null())
        .filter(inventory_levels::sku_id.eq_any(skus))
        .filter(inventory_levels::warehouse_id.eq_any(warehouses))
        .order(inventory_levels::id.asc())
        .select(FACTS);
    let rows: Vec<LevelFacts> = match &mut *c {
        DbConnection::Postgres(pg) if lock => query.for_no_key_update().load(pg)?,
        DbConnection::Postgres(pg) => query.load(pg)?,
        DbConnection::Sqlite(lite) => query.load(lite)?,
    };
    // The lists select the cross product of their SKUs and warehouses: keep
    // the pairs asked for.
    let wanted: BTreeSet<(&str, &str)> = pairs
        .iter()
        .map(|(s, w)| (s.as_str(), w.as_str()))
        .collect();
    Ok(rows
        .into_iter()
        .filter(|(_, s, w, _, _)| wanted.contains(&(s.as_str(), w.as_str())))
        .collect())
}

/// The AVAILABLE items of each (SKU, warehouse) of `pairs` assigned to the
/// warehouse: one grouped count per [`PAIRS_PER_STATEMENT`] pairs. A pair
/// without any is absent.
pub(crate) fn available_counts(
    c: &mut DbConnection,
    org: &str,
    pairs: &[Pair],
) -> DbResult<HashMap<Pair, i64>> {
    let mut counts = HashMap::new();
    let unique: Vec<&Pair> = pairs.iter().collect::<BTreeSet<_>>().into_iter().collect();
    for chunk in unique.chunks(PAIRS_PER_STATEMENT) {
        let skus: BTreeSet<&str> = chunk.iter().map(|(s, _)| s.as_str()).collect();
        let warehouses: BTreeSet<&str> = chunk.iter().map(|(_, w)| w.as_str()).collect();
        let rows: Vec<(String, Option<String>, i64)> = inventory_items::table
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::sku_id.eq_any(skus))
            .filter(inventory_items::deploy_status.eq(DeployStatus::Available.as_str()))
            .filter(inventory_items::assignee_type.eq(AssigneeType::Warehouse.as_str()))
            .filter(inventory_items::assignee_id.eq_any(warehouses))
            .group_by((inventory_items::sku_id, inventory_items::assignee_id))
            .select((
                inventory_items::sku_id,
                inventory_items::assignee_id,
                count_star(),
            ))
            .load(c)?;
        for (sku, warehouse, n) in rows {
            if let Some(warehouse) = warehouse {
                counts.insert((sku, warehouse), n);
            }
        }
    }
    Ok(counts)
}
