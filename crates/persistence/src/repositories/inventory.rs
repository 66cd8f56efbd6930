//! [`InventoryRepository`] for [`Store`].

use chrono::NaiveDate;
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, NewEvent};
use equip_domain::ids::{InventoryItemId, OrderId, OrganizationId};
use equip_domain::inventory::{DeployStatus, InventoryItem};
use equip_domain::inventory_query::{InventoryItemView, InventoryPage, InventoryQuery};
use equip_domain::inventory_summary::StatusCount;
use equip_domain::orders::{held, LineStatus};
use equip_domain::ports::{InventoryRepository, ItemWrite};

use crate::connection::{on_inner, DbConnection};
use crate::error::{DbError, DbResult};
use crate::events::recorded;
use crate::listing::{refresh, Scope};
use crate::models::{db_time, parse_id, ItemRows};
use crate::schema::{
    inventory_counts, inventory_item_pricing, inventory_item_tags, inventory_items, order_lines,
};
use crate::stock::{after_write, StockTouched};

use crate::store::Store;

impl InventoryRepository for Store {
    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>> {
        let org = organization.to_string();
        self.read("inventoryItem", |c| {
            c.transaction(|c| crate::returns::read_item(c, &org, id))
        })
    }

    fn list_inventory(
        &self,
        organization: OrganizationId,
        query: &InventoryQuery,
    ) -> StoreResult<InventoryPage> {
        let org = organization.to_string();
        let listing = (&*self.anchors, &*self.listing_index);
        // No transaction: the page is one statement and its items come with
        // it (pre-rendered); the count is a second one, which may see a later
        // commit (as on PostgreSQL under READ COMMITTED). From the listing
        // index: the listing version, then the page's JSON by id.
        self.read("inventoryItem", |c| {
            crate::listing::page(c, listing, &org, query, || {
                self.build_listing_index_later(&org);
            })
        })
    }

    fn find_inventory_views(
        &self,
        organization: OrganizationId,
        ids: &[InventoryItemId],
    ) -> StoreResult<Vec<InventoryItemView>> {
        self.read("inventoryItem", |c| {
            c.transaction(|c| crate::listing::views_by_id(c, organization, ids))
        })
    }

    fn inventory_counts(
        &self,
        organization: OrganizationId,
        unlocking: (NaiveDate, NaiveDate),
    ) -> StoreResult<(Vec<StatusCount>, u64)> {
        let org = organization.to_string();
        self.read("inventoryItem", |c| {
            // The maintained counts (`crate::listing`), not a scan of the items.
            let rows: Vec<(String, String, i64)> = inventory_counts::table
                .filter(inventory_counts::organization_id.eq(&org))
                .filter(inventory_counts::n.gt(0))
                .select((
                    inventory_counts::deploy_status,
                    inventory_counts::category,
                    inventory_counts::n,
                ))
                .load(c)?;
            let counts = rows
                .into_iter()
                .map(|(status, category, n)| {
                    Ok(StatusCount {
                        deploy_status: DeployStatus::parse(&status).map_err(DbError::corrupt)?,
                        category,
                        count: u64::try_from(n).unwrap_or(0),
                    })
                })
                .collect::<DbResult<Vec<_>>>()?;
            let holds: i64 = inventory_items::table
                .filter(inventory_items::organization_id.eq(&org))
                .filter(inventory_items::unlock_date.ge(unlocking.0))
                .filter(inventory_items::unlock_date.le(unlocking.1))
                .count()
                .get_result(c)?;
            Ok((counts, u64::try_from(holds).unwrap_or(0)))
        })
    }

    fn insert_inventory_item(&self, item: &InventoryItem) -> StoreResult<()> {
        let org = item.organization_id.to_string();
        self.with(
            "inventoryItem",
            "an inventory item with this id exists",
            |c| {
                let rows = ItemRows::from_domain(item)?;
                recorded(c, &self.actor, |c, events| {
                    diesel::insert_into(inventory_items::table)
                        .values(&rows.item)
                        .execute(c)?;
                    write_details(c, &rows)?;
                    refresh(c, &org, Scope::Items(std::slice::from_ref(&rows.item.id)))?;
                    let event = NewEvent::created(EventType::ItemCreated, item);
                    events.push(&org, item.updated_at, event);
                    let mut touched = StockTouched::default();
                    crate::levels::touch(&mut touched, None, Some(item));
                    after_write(c, events, &org, touched, item.updated_at)
                })
            },
        )
    }

    fn update_inventory_item(
        &self,
        current: &InventoryItem,
        item: &InventoryItem,
    ) -> StoreResult<ItemWrite> {
        let org = item.organization_id.to_string();
        let expected_updated_at = current.updated_at;
        self.with("inventoryItem", "", |c| {
            let rows = ItemRows::from_domain(item)?;
            recorded(c, &self.actor, |c, events| {
                // The item locked, then the order that holds it (an
                // allocation that took it first has committed its line).
                crate::returns::lock_items(c, &org, &[item.id])?;
                let held_by = holding_order(c, &org, &rows.item.id)?;
                if let Err(refusal) = held::check_item_change(current, item, held_by) {
                    return Ok(ItemWrite::Refused(refusal));
                }
                let changed = diesel::update(
                    inventory_items::table
                        .filter(inventory_items::id.eq(&rows.item.id))
                        .filter(inventory_items::organization_id.eq(&org))
                        .filter(inventory_items::updated_at.eq(db_time(expected_updated_at))),
                )
                .set(&rows.item)
                .execute(c)?;
                if changed == 0 {
                    return Ok(ItemWrite::Stale);
                }
                diesel::delete(
                    inventory_item_tags::table
                        .filter(inventory_item_tags::item_id.eq(&rows.item.id))
                        .filter(inventory_item_tags::organization_id.eq(&org)),
                )
                .execute(c)?;
                diesel::delete(
                    inventory_item_pricing::table
                        .filter(inventory_item_pricing::item_id.eq(&rows.item.id))
                        .filter(inventory_item_pricing::organization_id.eq(&org)),
                )
                .execute(c)?;
                write_details(c, &rows)?;
                refresh(c, &org, Scope::Items(std::slice::from_ref(&rows.item.id)))?;
                let event = NewEvent::updated(EventType::ItemUpdated, current, item);
                events.push_some(&org, item.updated_at, event);
                let mut touched = StockTouched::default();
                crate::levels::touch(&mut touched, Some(current), Some(item));
                after_write(c, events, &org, touched, item.updated_at)?;
                Ok(ItemWrite::Written)
            })
        })
    }
}

/// The order whose ALLOCATED or SHIPPED line holds the item `id`.
fn holding_order(c: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<OrderId>> {
    let holding = [LineStatus::Allocated, LineStatus::Shipped].map(LineStatus::as_str);
    order_lines::table
        .filter(order_lines::organization_id.eq(org))
        .filter(order_lines::inventory_item_id.eq(id))
        .filter(order_lines::status.eq_any(holding))
        .select(order_lines::order_id)
        .first::<String>(c)
        .optional()?
        .map(|order| parse_id(&order))
        .transpose()
}

/// Writes an item's tags and pricing (its row exists).
fn write_details(c: &mut DbConnection, rows: &ItemRows) -> DbResult<()> {
    if !rows.tags.is_empty() {
        // Multi-row inserts need the concrete connection.
        on_inner!(c, |c| diesel::insert_into(inventory_item_tags::table)
            .values(&rows.tags)
            .execute(c))?;
    }
    if let Some(pricing) = &rows.pricing {
        diesel::insert_into(inventory_item_pricing::table)
            .values(pricing)
            .execute(c)?;
    }
    Ok(())
}
