//! Stock touched by a write (docs/orders.md, "Backorders" and "Stock
//! levels"): the BACKORDERED lines that stock which became AVAILABLE can
//! fill are allocated, oldest first, then the levels whose available
//! quantity changed are restated (`inventory_level.below_minimum` on a
//! crossing).
//!
//! A writer collects what it touched in a [`StockTouched`] and calls
//! [`after_write`] once, in its transaction, after its own rows.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::StoreResult;
use crate::ids::{InventoryItemId, OrderId, OrderLineId, SkuId};
use crate::inventory::{Assignee, InventoryItem};
use crate::inventory_level::{below_minimum_event, crossing, stock_touches};
use crate::orders::allocation::StockMap;
use crate::orders::fulfilment;
use crate::orders::order::OrderLine;
use crate::orders::LineStatus;
use crate::ports::unit_of_work::{StockPair, UnitOfWork};

/// At most this many BACKORDERED lines are read at a time.
pub const BACKORDER_BATCH: usize = 100;

/// The stock a write changed: places whose count of AVAILABLE items may
/// differ, and the SKUs of which an item became AVAILABLE.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StockTouched {
    /// Places whose AVAILABLE count may have changed.
    pub pairs: BTreeSet<StockPair>,
    /// SKUs of which an item became AVAILABLE (backorders of their
    /// categories may be filled).
    pub gained: BTreeSet<SkuId>,
}

impl StockTouched {
    /// An item of `sku` in `warehouse` whose availability may have changed;
    /// `now_available`: it is AVAILABLE there after the write.
    pub fn place(&mut self, pair: StockPair, now_available: bool) {
        if now_available {
            self.gained.insert(pair.0);
        }
        self.pairs.insert(pair);
    }

    /// The places a write of one item changed (`before`: `None` when
    /// created; `after`: `None` when gone), as `stock_touches` says.
    pub fn item(&mut self, before: Option<&InventoryItem>, after: Option<&InventoryItem>) {
        for t in stock_touches(before, after) {
            self.place((t.sku, t.warehouse), t.now_available);
        }
    }

    /// Whether nothing was touched.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.gained.is_empty()
    }
}

/// Fills what backorders the gained stock can, then restates the touched
/// levels.
///
/// # Errors
/// The unit of work's failures (the caller's transaction rolls back).
pub fn after_write(uow: &mut dyn UnitOfWork, mut touched: StockTouched) -> StoreResult<()> {
    if touched.is_empty() {
        return Ok(());
    }
    fill_backorders(uow, &mut touched)?;
    restate(uow, &touched.pairs)
}

/// Allocates `line` (BACKORDERED) for a person in `country`: the item it
/// takes becomes UNAVAILABLE (PENDING_FULFILLMENT) with its event and its
/// place is noted in `touched`. `false` when there is no stock: the line
/// stays BACKORDERED.
///
/// # Errors
/// The unit of work's failures.
pub fn allocate_line(
    uow: &mut dyn UnitOfWork,
    map: &StockMap,
    line: &mut OrderLine,
    country: Option<&str>,
    touched: &mut StockTouched,
) -> StoreResult<bool> {
    let Some(before) = uow.take_item(&map.tiers(line, country))? else {
        return Ok(false);
    };
    let after = fulfilment::allocated(&before, uow.at());
    uow.write_item(&before, &after)?;
    if let Some(warehouse) = warehouse_of(&before) {
        touched.place((before.sku_id, warehouse), false);
    }
    line.status = LineStatus::Allocated;
    line.item_id = Some(before.id);
    line.updated_at = uow.at();
    Ok(true)
}

/// Gives back an item a cancelled line held: AVAILABLE where it is, with
/// its event; its stock noted as gained.
///
/// # Errors
/// The unit of work's failures.
pub fn release_item(
    uow: &mut dyn UnitOfWork,
    id: InventoryItemId,
    touched: &mut StockTouched,
) -> StoreResult<()> {
    let Some(before) = uow.item(id)? else {
        return Ok(());
    };
    let after = fulfilment::released(&before, uow.at());
    uow.write_item(&before, &after)?;
    if let Some(warehouse) = warehouse_of(&before) {
        touched.place((before.sku_id, warehouse), true);
    }
    Ok(())
}

/// Allocates the oldest BACKORDERED lines of the categories of the SKUs in
/// `touched.gained`, as long as stock lasts: in batches of
/// [`BACKORDER_BATCH`], the lines of one order together (in the order of
/// its oldest line), a category stopped at its first line left without
/// stock (the tiers cover every usable warehouse: nothing later can be
/// filled either). A line whose order another writer holds is left for the
/// background sweep. The places of the items taken are added to
/// `touched.pairs`; returns how many lines were allocated.
///
/// # Errors
/// The unit of work's failures.
pub fn fill_backorders(uow: &mut dyn UnitOfWork, touched: &mut StockTouched) -> StoreResult<usize> {
    if touched.gained.is_empty() {
        return Ok(0);
    }
    let map = uow.stock_map()?;
    let categories: BTreeSet<String> = std::mem::take(&mut touched.gained)
        .into_iter()
        .filter_map(|sku| map.category_of(sku).map(str::to_owned))
        .collect();
    let mut filled = 0;
    for category in categories {
        let mut skipped: BTreeSet<OrderLineId> = BTreeSet::new();
        'category: loop {
            let lines: Vec<(OrderLineId, OrderId)> = uow
                .backordered_lines(&category, BACKORDER_BATCH + skipped.len())?
                .into_iter()
                .filter(|(id, _)| !skipped.contains(id))
                .collect();
            if lines.is_empty() {
                break;
            }
            for (order_id, line_ids) in by_order(lines) {
                let Some(before) = uow.order_unless_held(order_id)? else {
                    skipped.extend(line_ids);
                    continue;
                };
                let country = uow.destination_country(before.person_id)?;
                let mut after = before.clone();
                let mut out_of_stock = false;
                for line in &mut after.lines {
                    if !line_ids.contains(&line.id) || line.status != LineStatus::Backordered {
                        continue;
                    }
                    if allocate_line(uow, &map, line, country.as_deref(), touched)? {
                        filled += 1;
                    } else {
                        skipped.insert(line.id);
                        out_of_stock = true;
                    }
                }
                let mut after = after.restated();
                if after != before {
                    after.updated_at = uow.at();
                    uow.write_order(Some(&before), &after)?;
                }
                if out_of_stock {
                    break 'category;
                }
            }
        }
    }
    Ok(filled)
}

/// Lines grouped by order, each group in the order of its oldest line.
fn by_order(lines: Vec<(OrderLineId, OrderId)>) -> Vec<(OrderId, Vec<OrderLineId>)> {
    let mut groups: BTreeMap<usize, (OrderId, Vec<OrderLineId>)> = BTreeMap::new();
    let mut first_of: HashMap<OrderId, usize> = HashMap::new();
    for (i, (line, order)) in lines.into_iter().enumerate() {
        let k = *first_of.entry(order).or_insert(i);
        groups
            .entry(k)
            .or_insert_with(|| (order, Vec::new()))
            .1
            .push(line);
    }
    groups.into_values().collect()
}

/// Restates the active levels of `pairs`: a level whose available quantity
/// fell below its minimum records `inventory_level.below_minimum` once per
/// crossing (`inventory_level::crossing`). The levels are locked before
/// their stock is counted, so that of two writers taking the last items of
/// a level the second counts after the first and finds its flag set.
///
/// # Errors
/// The unit of work's failures.
pub fn restate(uow: &mut dyn UnitOfWork, pairs: &BTreeSet<StockPair>) -> StoreResult<()> {
    if pairs.is_empty() {
        return Ok(());
    }
    let levels = uow.lock_levels(pairs)?;
    if levels.is_empty() {
        return Ok(());
    }
    let watched: Vec<StockPair> = levels.iter().map(|l| (l.sku_id, l.warehouse_id)).collect();
    let counts = uow.available_counts(&watched)?;
    let (mut raise, mut clear) = (Vec::new(), Vec::new());
    for level in levels {
        let available = counts
            .get(&(level.sku_id, level.warehouse_id))
            .copied()
            .unwrap_or_default();
        let decided = crossing(level.below, available, level.minimum_quantity);
        if decided.write_flag {
            if decided.below {
                raise.push(level.id);
            } else {
                clear.push(level.id);
            }
        }
        if decided.event {
            uow.record(below_minimum_event(
                level.id,
                available,
                level.minimum_quantity,
            ));
        }
    }
    if raise.is_empty() && clear.is_empty() {
        return Ok(());
    }
    uow.set_level_flags(&raise, &clear)
}

/// The warehouse holding an item.
fn warehouse_of(item: &InventoryItem) -> Option<crate::ids::WarehouseId> {
    match item.assignment.as_ref().map(|a| a.assignee) {
        Some(Assignee::Warehouse(w)) => Some(w),
        _ => None,
    }
}
