//! [`InventoryRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory::InventoryItem;
use equip_domain::inventory_query::{InventoryItemView, InventoryPage, InventoryQuery};
use equip_domain::ports::InventoryRepository;

use crate::models::{ItemRow, ItemRows, PricingRow, ReturnOrderItemRow, ReturnOrderRow, TagRow};
use crate::schema::{
    inventory_item_pricing, inventory_item_tags, inventory_items, return_order_items, return_orders,
};

use crate::store::Store;

impl InventoryRepository for Store {
    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.with("inventoryItem", "", |c| {
            c.transaction(|c| {
                let Some(item) = inventory_items::table
                    .filter(inventory_items::id.eq(&id))
                    .filter(inventory_items::organization_id.eq(&org))
                    .select(ItemRow::as_select())
                    .first(c)
                    .optional()?
                else {
                    return Ok(None);
                };
                let tags = inventory_item_tags::table
                    .filter(inventory_item_tags::item_id.eq(&id))
                    .filter(inventory_item_tags::organization_id.eq(&org))
                    .order(inventory_item_tags::position.asc())
                    .select(TagRow::as_select())
                    .load(c)?;
                let pricing = inventory_item_pricing::table
                    .filter(inventory_item_pricing::item_id.eq(&id))
                    .filter(inventory_item_pricing::organization_id.eq(&org))
                    .select(PricingRow::as_select())
                    .first(c)
                    .optional()?;
                let active_return = return_order_items::table
                    .inner_join(return_orders::table)
                    .filter(return_order_items::inventory_item_id.eq(&id))
                    .filter(return_order_items::organization_id.eq(&org))
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
            })
        })
    }

    fn list_inventory(
        &self,
        organization: OrganizationId,
        query: &InventoryQuery,
    ) -> StoreResult<InventoryPage> {
        let org = organization.to_string();
        self.with("inventoryItem", "", |c| {
            // One snapshot for the page, its count and its details.
            c.transaction(|c| crate::listing::page(c, &org, query))
        })
    }

    fn find_inventory_views(
        &self,
        organization: OrganizationId,
        ids: &[InventoryItemId],
    ) -> StoreResult<Vec<InventoryItemView>> {
        self.with("inventoryItem", "", |c| {
            c.transaction(|c| crate::listing::views_by_id(c, organization, ids))
        })
    }
}
