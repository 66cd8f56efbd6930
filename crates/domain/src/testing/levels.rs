//! Inventory levels in memory, one active per SKU and warehouse, with their
//! available stock and its crossing state (`crate::inventory_level::crossing`).

use super::unit_of_work::MemoryUnit;
use super::*;
use crate::event::Actor;
use crate::inventory_level::{counted_at, StockedLevel};
use crate::workflows::stock::{after_write, StockTouched};

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

    /// After a write of one item (`before` → `after`): the stock workflow
    /// the database store runs too (`crate::workflows::stock`): backorders
    /// the item's stock can fill are allocated, then the levels of the
    /// places whose stock changed are restated.
    pub(crate) fn restate_levels_for(
        &mut self,
        organization: OrganizationId,
        before: Option<&InventoryItem>,
        after: Option<&InventoryItem>,
        actor: Actor,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        let mut touched = StockTouched::default();
        touched.item(before, after);
        let mut unit = MemoryUnit {
            state: self,
            organization,
            actor,
            at,
        };
        after_write(&mut unit, touched)
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
