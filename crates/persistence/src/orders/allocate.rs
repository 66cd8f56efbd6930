//! Allocation in the database: the facts the domain's tiers are built from
//! (the organization's usable warehouses with their country, its SKUs by
//! category), read once per write, and the item a line takes, locked.
//!
//! An item is taken by one query per tier (`equip_domain::orders::allocation`),
//! oldest first. On PostgreSQL the query locks the row it returns with
//! `FOR UPDATE SKIP LOCKED`: two writers allocating at once never take one
//! item and never wait for each other's candidates (a row another writer
//! holds is skipped, and if that writer releases it without taking it, it is
//! AVAILABLE for the next allocation). The item's own update then checks it
//! is still AVAILABLE. On SQLite the write transaction holds the database.
//! The unique index `order_lines_item_key` guards the rule whatever a
//! writer does.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use equip_domain::ids::{InventoryItemId, SkuId};
use equip_domain::orders::allocation::{tiers, StockPlace, Tier};
use equip_domain::orders::fulfilment;
use equip_domain::orders::order::OrderLine;
use equip_domain::orders::LineStatus;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::events::Recorder;
use crate::models::parse_id;
use crate::schema::{inventory_items, skus, warehouse_grants, warehouses};
use crate::stock::StockTouched;

/// What allocation reads once per write.
#[derive(Debug, Default)]
pub(crate) struct StockMap {
    places: Vec<StockPlace>,
    by_category: HashMap<String, Vec<SkuId>>,
    category_of: HashMap<String, String>,
}

impl StockMap {
    /// The organization's usable warehouses (owned, or shared and granted)
    /// and its SKUs.
    pub(crate) fn read(c: &mut DbConnection, org: &str) -> DbResult<Self> {
        let granted = warehouse_grants::table
            .filter(warehouse_grants::organization_id.eq(org))
            .select(warehouse_grants::warehouse_id);
        let rows: Vec<(String, Option<String>)> = warehouses::table
            .filter(
                warehouses::owner_organization_id
                    .eq(org)
                    .or(warehouses::owner_organization_id
                        .is_null()
                        .and(warehouses::id.eq_any(granted))),
            )
            .order(warehouses::id.asc())
            .select((warehouses::id, warehouses::country_code))
            .load(c)?;
        let places = rows
            .into_iter()
            .map(|(id, country_code)| {
                Ok(StockPlace {
                    warehouse_id: parse_id(&id)?,
                    country_code,
                })
            })
            .collect::<DbResult<Vec<_>>>()?;
        let skus: Vec<(String, String)> = skus::table
            .filter(skus::organization_id.eq(org))
            .order(skus::id.asc())
            .select((skus::id, skus::category_code))
            .load(c)?;
        let mut by_category: HashMap<String, Vec<SkuId>> = HashMap::new();
        let mut category_of = HashMap::new();
        for (id, category) in skus {
            by_category
                .entry(category.clone())
                .or_default()
                .push(parse_id(&id)?);
            category_of.insert(id, category);
        }
        Ok(Self {
            places,
            by_category,
            category_of,
        })
    }

    /// The category of an SKU (by id text).
    pub(crate) fn category_of(&self, sku: &str) -> Option<&str> {
        self.category_of.get(sku).map(String::as_str)
    }

    /// The search for a line going to a person in `country`.
    pub(crate) fn tiers(&self, line: &OrderLine, country: Option<&str>) -> Vec<Tier> {
        let category = self
            .by_category
            .get(&line.category_code)
            .map_or(&[][..], Vec::as_slice);
        tiers(&line.sku_ids, category, &self.places, country)
    }
}

/// The oldest AVAILABLE item of the first tier that has one, locked; `None`
/// when no tier has one.
fn take(c: &mut DbConnection, org: &str, tiers: &[Tier]) -> DbResult<Option<String>> {
    for tier in tiers {
        let skus: Vec<String> = tier.sku_ids.iter().map(ToString::to_string).collect();
        let places: Vec<String> = tier.warehouse_ids.iter().map(ToString::to_string).collect();
        let query = inventory_items::table
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::sku_id.eq_any(&skus))
            .filter(inventory_items::deploy_status.eq("AVAILABLE"))
            .filter(inventory_items::assignee_type.eq("WAREHOUSE"))
            .filter(inventory_items::assignee_id.eq_any(&places))
            .order((inventory_items::created_at.asc(), inventory_items::id.asc()))
            .select(inventory_items::id)
            .limit(1);
        let found: Option<String> = match c {
            DbConnection::Postgres(pg) => query.for_update().skip_locked().first(pg).optional()?,
            DbConnection::Sqlite(lite) => query.first(lite).optional()?,
        };
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// Allocates `line` (BACKORDERED) for a person in `country`: the item it
/// takes becomes UNAVAILABLE (PENDING_FULFILLMENT) with its event, its
/// stock is noted in `touched` and its id in `items` (whose listing rows
/// the caller refreshes once). `false` when there is no stock: the line
/// stays BACKORDERED.
#[allow(clippy::too_many_arguments)]
pub(crate) fn allocate_line(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    map: &StockMap,
    line: &mut OrderLine,
    country: Option<&str>,
    touched: &mut StockTouched,
    items: &mut Vec<String>,
    at: DateTime<Utc>,
) -> DbResult<bool> {
    let Some(id) = take(c, org, &map.tiers(line, country))? else {
        return Ok(false);
    };
    let item_id: InventoryItemId = parse_id(&id)?;
    let before = crate::returns::read_item(c, org, item_id)?
        .ok_or_else(|| DbError::corrupt(format!("allocated item {id} vanished")))?;
    let after = fulfilment::allocated(&before, at);
    crate::returns::write_item(c, org, &before, &after, events)?;
    if let Some(warehouse) = warehouse_of(&before) {
        touched.item(&before.sku_id.to_string(), &warehouse, false);
    }
    line.status = LineStatus::Allocated;
    line.item_id = Some(item_id);
    line.updated_at = at;
    items.push(id);
    Ok(true)
}

/// Gives back an item a cancelled line held: AVAILABLE where it is, with
/// its event; its stock noted as gained.
pub(crate) fn release_item(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    item_id: InventoryItemId,
    touched: &mut StockTouched,
    items: &mut Vec<String>,
    at: DateTime<Utc>,
) -> DbResult<()> {
    let Some(before) = crate::returns::read_item(c, org, item_id)? else {
        return Ok(());
    };
    let after = fulfilment::released(&before, at);
    crate::returns::write_item(c, org, &before, &after, events)?;
    if let Some(warehouse) = warehouse_of(&before) {
        touched.item(&before.sku_id.to_string(), &warehouse, true);
    }
    items.push(item_id.to_string());
    Ok(())
}

/// The warehouse holding an item, as text.
fn warehouse_of(item: &equip_domain::inventory::InventoryItem) -> Option<String> {
    match item.assignment.as_ref().map(|a| a.assignee) {
        Some(equip_domain::inventory::Assignee::Warehouse(w)) => Some(w.to_string()),
        _ => None,
    }
}
