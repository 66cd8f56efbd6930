//! Warehouses (owned and shared, with grants) and offices in memory.

use super::*;

impl WarehouseRepository for InMemoryStore {
    fn find_accessible_warehouse(
        &self,
        organization: OrganizationId,
        id: WarehouseId,
    ) -> StoreResult<Option<Warehouse>> {
        let s = self.state();
        Ok(s.warehouses
            .iter()
            .find(|w| {
                w.id == id
                    && w.is_accessible_to(organization, s.grants.contains(&(id, organization)))
            })
            .cloned())
    }

    fn list_accessible_warehouses(
        &self,
        organization: OrganizationId,
        limit: usize,
    ) -> StoreResult<Vec<Warehouse>> {
        let s = self.state();
        let mut found: Vec<Warehouse> = s
            .warehouses
            .iter()
            .filter(|w| w.is_accessible_to(organization, s.grants.contains(&(w.id, organization))))
            .cloned()
            .collect();
        // `String` and `WarehouseId` order bytewise, as the database store does.
        found.sort_by(|x, y| (&x.name, x.id).cmp(&(&y.name, y.id)));
        found.truncate(limit);
        Ok(found)
    }
}

impl crate::ports::WarehouseGrants for InMemoryStore {
    fn find_any_warehouse(&self, id: WarehouseId) -> StoreResult<Option<Warehouse>> {
        Ok(self.state().warehouses.iter().find(|w| w.id == id).cloned())
    }

    fn grant_warehouse(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
        _at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        Ok(self.state().grants.insert((id, organization)))
    }

    fn warehouse_in_use(&self, id: WarehouseId, organization: OrganizationId) -> StoreResult<bool> {
        let s = self.state();
        Ok(s.inventory_levels
            .iter()
            .any(|l| l.organization_id == organization && l.warehouse_id == id)
            || s.inventory.iter().any(|i| {
                i.organization_id == organization
                    && i.assignment
                        .is_some_and(|a| a.assignee == Assignee::Warehouse(id))
            }))
    }

    fn revoke_warehouse_grant(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
    ) -> StoreResult<bool> {
        Ok(self.state().grants.remove(&(id, organization)))
    }
}

impl OfficeRepository for InMemoryStore {
    fn find_office(
        &self,
        organization: OrganizationId,
        id: OfficeId,
    ) -> StoreResult<Option<Office>> {
        Ok(self
            .state()
            .offices
            .iter()
            .find(|o| o.id == id && o.organization_id == organization)
            .cloned())
    }

    fn offices(&self, organization: OrganizationId) -> StoreResult<Vec<Office>> {
        Ok(self
            .state()
            .offices
            .iter()
            .filter(|o| o.organization_id == organization)
            .cloned()
            .collect())
    }
}
