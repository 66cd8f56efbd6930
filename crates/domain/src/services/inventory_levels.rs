//! Creating, listing and deactivating inventory levels.

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::ids::{InventoryLevelId, OrganizationId, SkuId, WarehouseId};
use crate::inventory_level::{InventoryLevel, StockedLevel};
use crate::ports::{CatalogRepository, InventoryLevelRepository, WarehouseRepository};

/// What a caller asks for when creating a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewInventoryLevel {
    /// SKU of the organization.
    pub sku_id: SkuId,
    /// Warehouse accessible to the organization.
    pub warehouse_id: WarehouseId,
    /// Minimum quantity.
    pub minimum_quantity: i32,
    /// Target quantity.
    pub target_quantity: i32,
}

/// The ports creating a level needs.
pub trait LevelPorts: InventoryLevelRepository + CatalogRepository + WarehouseRepository {}
impl<T: InventoryLevelRepository + CatalogRepository + WarehouseRepository> LevelPorts for T {}

/// Creates an active level; answers it with the stock it watches.
///
/// # Errors
/// [`DomainError::Invalid`] for bad quantities; [`DomainError::NotFound`]
/// (`skuId` / `warehouseId`) for a SKU not in the organization or a warehouse not
/// accessible to it; [`DomainError::Conflict`] when an active level exists for the
/// same SKU and warehouse.
pub fn create_inventory_level(
    ports: &dyn LevelPorts,
    organization: OrganizationId,
    input: NewInventoryLevel,
    now: DateTime<Utc>,
) -> Result<StockedLevel, DomainError> {
    let level = InventoryLevel {
        id: InventoryLevelId::new(),
        organization_id: organization,
        sku_id: input.sku_id,
        warehouse_id: input.warehouse_id,
        minimum_quantity: input.minimum_quantity,
        target_quantity: input.target_quantity,
        created_at: now,
        deactivated_at: None,
    };
    level.validate()?;
    if ports.find_sku(organization, input.sku_id)?.is_none() {
        return Err(DomainError::not_found(
            "skuId",
            format!("SKU {} not found", input.sku_id),
        ));
    }
    if ports
        .find_accessible_warehouse(organization, input.warehouse_id)?
        .is_none()
    {
        return Err(DomainError::not_found(
            "warehouseId",
            format!("warehouse {} not found", input.warehouse_id),
        ));
    }
    ports.insert_inventory_level(&level).map_err(|e| match e {
        crate::StoreError::Duplicate { .. } => DomainError::conflict(
            "inventoryLevel",
            format!(
                "an active inventory level already exists for SKU {} in warehouse {}",
                input.sku_id, input.warehouse_id
            ),
        ),
        other => other.into(),
    })
}

/// The organization's levels (active only unless `include_inactive`), each
/// with its available stock.
///
/// # Errors
/// Store failures.
pub fn list_inventory_levels(
    repo: &dyn InventoryLevelRepository,
    organization: OrganizationId,
    include_inactive: bool,
) -> Result<Vec<StockedLevel>, DomainError> {
    Ok(repo.list_inventory_levels(organization, include_inactive)?)
}

/// Deactivates (soft-deletes) a level; the record is kept.
///
/// # Errors
/// [`DomainError::NotFound`] (`inventoryLevel`) for an unknown level or another
/// organization's; [`DomainError::Conflict`] when it is already deactivated
/// (also when a concurrent request deactivated it first).
pub fn deactivate_inventory_level(
    repo: &dyn InventoryLevelRepository,
    organization: OrganizationId,
    id: InventoryLevelId,
    now: DateTime<Utc>,
) -> Result<InventoryLevel, DomainError> {
    let mut level = repo
        .find_inventory_level(organization, id)?
        .ok_or_else(|| {
            DomainError::not_found("inventoryLevel", format!("inventory level {id} not found"))
        })?;
    level.deactivate(now)?;
    if !repo.mark_inventory_level_deactivated(organization, id, now)? {
        return Err(DomainError::conflict(
            "inventoryLevel",
            format!("inventory level {id} was already deactivated"),
        ));
    }
    Ok(level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{fixtures, InMemoryStore};

    #[test]
    fn create_then_second_active_is_a_conflict_until_deactivated() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let input = NewInventoryLevel {
            sku_id: f.sku.id,
            warehouse_id: f.warehouse.id,
            minimum_quantity: 2,
            target_quantity: 10,
        };
        let first = create_inventory_level(&store, f.org.id, input, Utc::now()).unwrap();
        assert!(matches!(
            create_inventory_level(&store, f.org.id, input, Utc::now()),
            Err(DomainError::Conflict { .. })
        ));
        deactivate_inventory_level(&store, f.org.id, first.level.id, Utc::now()).unwrap();
        assert!(matches!(
            deactivate_inventory_level(&store, f.org.id, first.level.id, Utc::now()),
            Err(DomainError::Conflict { .. })
        ));
        create_inventory_level(&store, f.org.id, input, Utc::now()).unwrap();
        assert_eq!(
            list_inventory_levels(&store, f.org.id, false)
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            list_inventory_levels(&store, f.org.id, true).unwrap().len(),
            2
        );
    }

    #[test]
    fn the_in_memory_store_counts_stock_and_records_each_crossing_once() {
        use crate::event::EventType;
        use crate::inventory::{Assignee, Assignment, DeployReason, DeployStatus};
        use crate::ports::InventoryRepository;
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let mut items = Vec::new();
        for _ in 0..2 {
            let mut item = crate::inventory_level::tests::available_item(f.warehouse.id);
            item.organization_id = f.org.id;
            item.sku_id = f.sku.id;
            item.assignment = Some(Assignment {
                assignee: Assignee::Warehouse(f.warehouse.id),
                assigned_at: None,
            });
            store.insert_inventory_item(&item).unwrap();
            items.push(item);
        }
        let input = NewInventoryLevel {
            sku_id: f.sku.id,
            warehouse_id: f.warehouse.id,
            minimum_quantity: 2,
            target_quantity: 4,
        };
        let level = create_inventory_level(&store, f.org.id, input, Utc::now()).unwrap();
        assert_eq!(
            (level.available_quantity, level.below_minimum()),
            (2, false)
        );
        let crossings = || {
            store
                .state()
                .events
                .iter()
                .filter(|e| e.kind == EventType::LevelBelowMinimum)
                .count()
        };
        for item in &items {
            let mut taken = item.clone();
            taken.deploy_status = DeployStatus::Unavailable;
            taken.deploy_reason = Some(DeployReason::AwaitingInformation);
            assert!(store.update_inventory_item(item, &taken).unwrap().written());
        }
        let listed = list_inventory_levels(&store, f.org.id, false).unwrap();
        assert_eq!(
            (listed[0].available_quantity, listed[0].below_minimum()),
            (0, true)
        );
        assert_eq!(crossings(), 1, "two takes below the minimum, one crossing");
    }

    #[test]
    fn another_organizations_level_is_not_found() {
        let store = InMemoryStore::default();
        let a = fixtures::seed(&store);
        let b = fixtures::seed(&store);
        let level = create_inventory_level(
            &store,
            a.org.id,
            NewInventoryLevel {
                sku_id: a.sku.id,
                warehouse_id: a.warehouse.id,
                minimum_quantity: 0,
                target_quantity: 1,
            },
            Utc::now(),
        )
        .unwrap();
        assert!(matches!(
            deactivate_inventory_level(&store, b.org.id, level.level.id, Utc::now()),
            Err(DomainError::NotFound { .. })
        ));
        assert!(store
            .find_inventory_level(a.org.id, level.level.id)
            .unwrap()
            .unwrap()
            .is_active());
    }

    #[test]
    fn unknown_sku_or_foreign_warehouse_is_not_found() {
        let store = InMemoryStore::default();
        let a = fixtures::seed(&store);
        let b = fixtures::seed(&store);
        let err = create_inventory_level(
            &store,
            a.org.id,
            NewInventoryLevel {
                sku_id: b.sku.id,
                warehouse_id: a.warehouse.id,
                minimum_quantity: 0,
                target_quantity: 1,
            },
            Utc::now(),
        )
        .unwrap_err();
        assert!(matches!(err, DomainError::NotFound { ref entity, .. } if entity == "skuId"));
        let err = create_inventory_level(
            &store,
            a.org.id,
            NewInventoryLevel {
                sku_id: a.sku.id,
                warehouse_id: b.warehouse.id,
                minimum_quantity: 0,
                target_quantity: 1,
            },
            Utc::now(),
        )
        .unwrap_err();
        assert!(matches!(err, DomainError::NotFound { ref entity, .. } if entity == "warehouseId"));
    }
}
