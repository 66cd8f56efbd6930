//! Items as the listing shows them, decoded from the source tables:
//! [`load_views`] loads the views of some items in a fixed number of queries
//! (items with their SKUs and pricing, tags, active returns, assignee labels);
//! [`listed_items`] turns a page's rows into the pre-rendered JSON the HTTP
//! layer concatenates.

use std::collections::HashMap;

use diesel::prelude::*;

use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory_query::InventoryItemView;
use equip_domain::inventory_query::{ListedBody, ListedItem};

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::models::{
    ItemRow, ItemRows, PricingRow, ReturnOrderItemRow, ReturnOrderRow, SkuRow, TagRow,
};
use crate::schema::{
    inventory_item_pricing, inventory_item_tags, inventory_items, offices, people,
    return_order_items, return_orders, skus, warehouses,
};

use super::{JsonRow, ID_CHUNK};

/// The page's items from their rows, in order.
pub(super) fn listed_items(rows: Vec<JsonRow>) -> DbResult<Vec<ListedItem>> {
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        // `refresh` renders every row it writes; a row without JSON has no
        // item to show (its item could not be loaded when it was written).
        let Some(json) = row.item_json else {
            continue;
        };
        let id = InventoryItemId::parse(&row.item_id).map_err(DbError::corrupt)?;
        items.push(ListedItem {
            id,
            body: ListedBody::Rendered(json),
        });
    }
    Ok(items)
}

/// The listed form of the items `ids` (in that order), in a fixed number of
/// queries: items with their SKUs and pricing, tags, active returns, assignee
/// labels.
pub(crate) fn load_views(
    c: &mut DbConnection,
    org: &str,
    ids: &[String],
) -> DbResult<Vec<InventoryItemView>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut items: HashMap<String, ItemRow> = HashMap::with_capacity(ids.len());
    let mut pricing: HashMap<String, PricingRow> = HashMap::new();
    let mut tags: HashMap<String, Vec<TagRow>> = HashMap::new();
    let mut returns: HashMap<String, (ReturnOrderRow, ReturnOrderItemRow)> = HashMap::new();
    let mut sku_rows: HashMap<String, SkuRow> = HashMap::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let joined: Vec<(ItemRow, SkuRow, Option<PricingRow>)> = inventory_items::table
            .inner_join(
                skus::table.on(skus::id
                    .eq(inventory_items::sku_id)
                    .and(skus::organization_id.eq(inventory_items::organization_id))),
            )
            .left_join(
                inventory_item_pricing::table
                    .on(inventory_item_pricing::item_id.eq(inventory_items::id)),
            )
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::id.eq_any(chunk))
            .select((
                ItemRow::as_select(),
                SkuRow::as_select(),
                Option::<PricingRow>::as_select(),
            ))
            .load(c)?;
        for (item, sku, price) in joined {
            if let Some(price) = price {
                pricing.insert(item.id.clone(), price);
            }
            sku_rows.insert(sku.id.clone(), sku);
            items.insert(item.id.clone(), item);
        }
        for row in inventory_item_tags::table
            .filter(inventory_item_tags::organization_id.eq(org))
            .filter(inventory_item_tags::item_id.eq_any(chunk))
            .order((inventory_item_tags::item_id, inventory_item_tags::position))
            .select(TagRow::as_select())
            .load(c)?
        {
            tags.entry(row.item_id.clone()).or_default().push(row);
        }
        for (order, line) in return_order_items::table
            .inner_join(return_orders::table)
            .filter(return_order_items::organization_id.eq(org))
            .filter(return_order_items::inventory_item_id.eq_any(chunk))
            .filter(return_order_items::active.eq(true))
            .select((ReturnOrderRow::as_select(), ReturnOrderItemRow::as_select()))
            .load::<(ReturnOrderRow, ReturnOrderItemRow)>(c)?
        {
            returns.insert(line.inventory_item_id.clone(), (order, line));
        }
    }

    let labels = assignee_labels(c, org, items.values())?;

    let mut views = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(item) = items.remove(id) else {
            continue;
        };
        let Some(sku) = sku_rows.get(&item.sku_id).cloned() else {
            continue;
        };
        let assignee_label = item
            .assignee_id
            .as_ref()
            .and_then(|a| labels.get(a).cloned());
        let rows = ItemRows {
            pricing: pricing.remove(id),
            tags: tags.remove(id).unwrap_or_default(),
            active_return: returns.remove(id),
            item,
        };
        views.push(InventoryItemView {
            item: rows.into_domain()?,
            sku: sku.into_domain()?,
            assignee_label,
        });
    }
    Ok(views)
}

/// Labels of the assignees of `items`: a person's userName (their primary
/// email), a warehouse's or an office's name.
fn assignee_labels<'a>(
    c: &mut DbConnection,
    org: &str,
    items: impl Iterator<Item = &'a ItemRow>,
) -> DbResult<HashMap<String, String>> {
    let mut by_kind: HashMap<&str, Vec<String>> = HashMap::new();
    for item in items {
        if let (Some(kind), Some(id)) = (&item.assignee_type, &item.assignee_id) {
            by_kind.entry(kind.as_str()).or_default().push(id.clone());
        }
    }
    let mut labels = HashMap::new();
    for (kind, mut ids) in by_kind {
        ids.sort();
        ids.dedup();
        for chunk in ids.chunks(ID_CHUNK) {
            let rows: Vec<(String, String)> = match kind {
                "PERSON" => people::table
                    .filter(people::organization_id.eq(org))
                    .filter(people::id.eq_any(chunk))
                    .select((people::id, people::user_name))
                    .load(c)?,
                "WAREHOUSE" => warehouses::table
                    .filter(warehouses::id.eq_any(chunk))
                    .select((warehouses::id, warehouses::name))
                    .load(c)?,
                _ => offices::table
                    .filter(offices::organization_id.eq(org))
                    .filter(offices::id.eq_any(chunk))
                    .select((offices::id, offices::name))
                    .load(c)?,
            };
            labels.extend(rows);
        }
    }
    Ok(labels)
}

/// The listed form of items by id.
pub(crate) fn views_by_id(
    c: &mut DbConnection,
    org: OrganizationId,
    ids: &[InventoryItemId],
) -> DbResult<Vec<InventoryItemView>> {
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    load_views(c, &org.to_string(), &ids)
}
