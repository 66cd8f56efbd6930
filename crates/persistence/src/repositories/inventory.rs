//! [`InventoryRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, NewEvent};
use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory::InventoryItem;
use equip_domain::inventory_query::{InventoryItemView, InventoryPage, InventoryQuery};
use equip_domain::ports::InventoryRepository;

use crate::connection::{on_inner, DbConnection};
use crate::error::DbResult;
use crate::events::recorded;
use crate::listing::{refresh, Scope};
use crate::models::{db_time, ItemRows};
use crate::schema::{inventory_item_pricing, inventory_item_tags, inventory_items};

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
        let anchors = &*self.anchors;
        // No transaction: the page is one statement and its items come with
        // it (pre-rendered); the count is a second one, which may see a later
        // commit (as on PostgreSQL under READ COMMITTED).
        self.read("inventoryItem", |c| {
            crate::listing::page(c, anchors, &org, query)
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

    fn insert_inventory_item(&self, item: &InventoryItem) -> StoreResult<()> {
        let org = item.organization_id.to_string();
        self.with(
            "inventoryItem",
            "an inventory item with this id exists",
            |c| {
                let rows = ItemRows::from_domain(item)?;
                recorded(c, self.actor, |c, events| {
                    diesel::insert_into(inventory_items::table)
                        .values(&rows.item)
                        .execute(c)?;
                    write_details(c, &rows)?;
                    refresh(c, &org, Scope::Items(std::slice::from_ref(&rows.item.id)))?;
                    let event = NewEvent::created(EventType::ItemCreated, item);
                    events.push(&org, item.updated_at, event);
                    Ok(())
                })
            },
        )
    }

    fn update_inventory_item(
        &self,
        current: &InventoryItem,
        item: &InventoryItem,
    ) -> StoreResult<bool> {
        let org = item.organization_id.to_string();
        let expected_updated_at = current.updated_at;
        self.with("inventoryItem", "", |c| {
            let rows = ItemRows::from_domain(item)?;
            recorded(c, self.actor, |c, events| {
                let changed = diesel::update(
                    inventory_items::table
                        .filter(inventory_items::id.eq(&rows.item.id))
                        .filter(inventory_items::organization_id.eq(&org))
                        .filter(inventory_items::updated_at.eq(db_time(expected_updated_at))),
                )
                .set(&rows.item)
                .execute(c)?;
                if changed == 0 {
                    return Ok(false);
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
                Ok(true)
            })
        })
    }
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
