//! Inventory items in memory; the listing is filtered and sorted by `inventory_filter`.

use super::inventory_filter::{listed, matches_filter, sort_key};
use super::*;
use crate::event::{EventType, NewEvent};

impl InventoryRepository for InMemoryStore {
    fn insert_inventory_item(&self, item: &InventoryItem) -> StoreResult<()> {
        let mut s = self.state();
        if s.inventory.iter().any(|i| i.id == item.id) {
            return Err(StoreError::Duplicate {
                entity: "inventoryItem",
                detail: item.id.to_string(),
            });
        }
        s.inventory.push(item.clone());
        let event = NewEvent::created(EventType::ItemCreated, item);
        s.record(item.organization_id, self.actor(), item.updated_at, event);
        s.restate_levels_for(
            item.organization_id,
            None,
            Some(item),
            self.actor(),
            item.updated_at,
        )?;
        Ok(())
    }

    fn update_inventory_item(
        &self,
        current: &InventoryItem,
        item: &InventoryItem,
    ) -> StoreResult<crate::ports::ItemWrite> {
        let mut s = self.state();
        match s.inventory.iter_mut().find(|i| {
            i.id == item.id
                && i.organization_id == item.organization_id
                && i.updated_at == current.updated_at
        }) {
            Some(slot) => {
                *slot = item.clone();
                if let Some(event) = NewEvent::updated(EventType::ItemUpdated, current, item) {
                    s.record(item.organization_id, self.actor(), item.updated_at, event);
                }
                s.restate_levels_for(
                    item.organization_id,
                    Some(current),
                    Some(item),
                    self.actor(),
                    item.updated_at,
                )?;
                Ok(crate::ports::ItemWrite::Written)
            }
            None => Ok(crate::ports::ItemWrite::Stale),
        }
    }

    fn list_inventory(
        &self,
        organization: OrganizationId,
        query: &InventoryQuery,
    ) -> StoreResult<InventoryPage> {
        let s = self.state();
        let mut views: Vec<InventoryItemView> = s
            .inventory
            .iter()
            .filter(|i| i.organization_id == organization)
            .filter_map(|i| listed(&s, i))
            .filter(|v| matches_filter(&s, v, query.filter()))
            .collect();
        views.sort_by(|a, b| {
            let order = sort_key(a, query.sort())
                .cmp(&sort_key(b, query.sort()))
                .then_with(|| a.item.id.to_string().cmp(&b.item.id.to_string()));
            match query.direction() {
                SortDirection::Asc => order,
                SortDirection::Desc => order.reverse(),
            }
        });
        let total_records = views.len() as u64;
        let items = views
            .iter()
            .skip(usize::try_from(query.offset()).unwrap_or(usize::MAX))
            .take(query.size() as usize)
            .map(|v| ListedItem {
                id: v.item.id,
                body: ListedBody::View(Box::new(v.clone())),
            })
            .collect();
        Ok(InventoryPage {
            items,
            total_records,
        })
    }

    fn find_inventory_views(
        &self,
        organization: OrganizationId,
        ids: &[InventoryItemId],
    ) -> StoreResult<Vec<InventoryItemView>> {
        let s = self.state();
        Ok(ids
            .iter()
            .filter_map(|id| {
                s.inventory
                    .iter()
                    .find(|i| i.id == *id && i.organization_id == organization)
            })
            .filter_map(|i| listed(&s, i))
            .collect())
    }

    fn inventory_counts(
        &self,
        organization: OrganizationId,
        unlocking: (chrono::NaiveDate, chrono::NaiveDate),
    ) -> StoreResult<(Vec<crate::inventory_summary::StatusCount>, u64)> {
        let s = self.state();
        let mut counts: std::collections::BTreeMap<(&str, String), u64> = Default::default();
        let mut holds = 0;
        for item in s
            .inventory
            .iter()
            .filter(|i| i.organization_id == organization)
        {
            let category = s
                .skus
                .iter()
                .find(|k| k.id == item.sku_id)
                .map(|k| k.category_code.clone())
                .unwrap_or_default();
            *counts
                .entry((item.deploy_status.as_str(), category))
                .or_default() += 1;
            if item
                .unlock_date
                .is_some_and(|d| unlocking.0 <= d && d <= unlocking.1)
            {
                holds += 1;
            }
        }
        let counts = counts
            .into_iter()
            .filter_map(|((status, category), count)| {
                Some(crate::inventory_summary::StatusCount {
                    deploy_status: crate::inventory::DeployStatus::parse(status).ok()?,
                    category,
                    count,
                })
            })
            .collect();
        Ok((counts, holds))
    }

    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>> {
        Ok(self
            .state()
            .inventory
            .iter()
            .find(|i| i.id == id && i.organization_id == organization)
            .cloned())
    }
}
