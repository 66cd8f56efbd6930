//! Inventory levels in memory, one active per SKU and warehouse, with their
//! available stock and its crossing state (`crate::inventory_level::crossing`).

use super::*;
use crate::event::Actor;
use crate::inventory_level::{
    below_minimum_event, counted_at, crossing, stock_touches, StockedLevel,
};

impl State {
    /// AVAILABLE items of `sku` assigned to `warehouse`.
    fn available_at(
        &self,
        organization: OrganizationId,
        sku: SkuId,
        warehouse: WarehouseId,
    ) -> i64 {
        let n = self
            .inventory
            .iter()
            .filter(|i| i.organization_id == organization)
            .filter(|i| counted_at(i) == Some((sku, warehouse)))
            .count();
        i64::try_from(n).unwrap_or(i64::MAX)
    }

    /// `level` with its available stock.
    fn stocked(&self, level: &InventoryLevel) -> StockedLevel {
        StockedLevel {
            level: level.clone(),
            available_quantity: self.available_at(
                level.organization_id,
                level.sku_id,
                level.warehouse_id,
            ),
        }
    }

    /// After a write of one item (`before` → `after`): restates the active
    /// levels of the places whose stock it changed, as the database store's
    /// `levels::restate` does.
    pub(crate) fn restate_levels_for(
        &mut self,
        organization: OrganizationId,
        before: Option<&InventoryItem>,
        after: Option<&InventoryItem>,
        actor: Actor,
        at: DateTime<Utc>,
    ) {
        for touch in stock_touches(before, after) {
            self.restate_level_at(organization, touch.sku, touch.warehouse, actor.clone(), at);
        }
    }

    fn restate_level_at(
        &mut self,
        organization: OrganizationId,
        sku: SkuId,
        warehouse: WarehouseId,
        actor: Actor,
        at: DateTime<Utc>,
    ) {
        let Some(level) = self
            .inventory_levels
            .iter()
            .find(|l| {
                l.is_active()
                    && l.organization_id == organization
                    && l.sku_id == sku
                    && l.warehouse_id == warehouse
            })
            .cloned()
        else {
            return;
        };
        let available = self.available_at(organization, sku, warehouse);
        let stored = self.levels_below.contains(&level.id);
        let decided = crossing(stored, available, level.minimum_quantity);
        if decided.write_flag {
            if decided.below {
                self.levels_below.insert(level.id);
            } else {
                self.levels_below.remove(&level.id);
            }
        }
        if decided.event {
            let event = below_minimum_event(level.id, available, level.minimum_quantity);
            self.record(organization, actor.clone(), at, event);
        }
    }
}

impl InventoryLevelRepository for InMemoryStore {
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<StockedLevel> {
        let mut s = self.state();
        let clash = s.inventory_levels.iter().any(|l| {
            l.is_active()
                && level.is_active()
                && l.organization_id == level.organization_id
                && l.sku_id == level.sku_id
                && l.warehouse_id == level.warehouse_id
        });
        if clash {
            return Err(StoreError::Duplicate {
                entity: "inventoryLevel",
                detail: "active level exists".into(),
            });
        }
        s.inventory_levels.push(level.clone());
        let event = crate::event::NewEvent::created(crate::event::EventType::LevelCreated, level);
        s.record(level.organization_id, self.actor(), level.created_at, event);
        let stocked = s.stocked(level);
        if level.is_active() && stocked.below_minimum() {
            s.levels_below.insert(level.id);
        }
        Ok(stocked)
    }

    fn find_inventory_level(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
    ) -> StoreResult<Option<InventoryLevel>> {
        Ok(self
            .state()
            .inventory_levels
            .iter()
            .find(|l| l.id == id && l.organization_id == organization)
            .cloned())
    }

    fn list_inventory_levels(
        &self,
        organization: OrganizationId,
        include_inactive: bool,
    ) -> StoreResult<Vec<StockedLevel>> {
        let s = self.state();
        let mut v: Vec<StockedLevel> = s
            .inventory_levels
            .iter()
            .filter(|l| l.organization_id == organization && (include_inactive || l.is_active()))
            .map(|l| s.stocked(l))
            .collect();
        v.sort_by(|a, b| {
            b.level
                .created_at
                .cmp(&a.level.created_at)
                .then(b.level.id.cmp(&a.level.id))
        });
        Ok(v)
    }

    fn mark_inventory_level_deactivated(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        match s
            .inventory_levels
            .iter_mut()
            .find(|l| l.id == id && l.organization_id == organization && l.is_active())
        {
            Some(l) => {
                l.deactivated_at = Some(at);
                let event = crate::event::NewEvent::level_deactivated(id, at);
                s.record(organization, self.actor(), at, event);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
