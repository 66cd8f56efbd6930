//! Inventory levels in memory, one active per SKU and warehouse.

use super::*;

impl InventoryLevelRepository for InMemoryStore {
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<()> {
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
        Ok(())
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
    ) -> StoreResult<Vec<InventoryLevel>> {
        let mut v: Vec<InventoryLevel> = self
            .state()
            .inventory_levels
            .iter()
            .filter(|l| l.organization_id == organization && (include_inactive || l.is_active()))
            .cloned()
            .collect();
        v.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
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
