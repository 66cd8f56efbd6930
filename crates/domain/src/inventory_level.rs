//! Inventory levels: per-SKU, per-warehouse stock-level settings. At most one
//! active level per (organization, SKU, warehouse). Deactivation is a soft
//! delete: the record is kept with its deactivation time, and reactivation means
//! creating a new configuration.

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::ids::{InventoryLevelId, OrganizationId, SkuId, WarehouseId};

/// A stock-level configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct InventoryLevel {
    pub id: InventoryLevelId,
    pub organization_id: OrganizationId,
    /// The SKU it watches.
    pub sku_id: SkuId,
    /// The warehouse it watches.
    pub warehouse_id: WarehouseId,
    /// Stock below this is too low.
    pub minimum_quantity: i32,
    /// Stock to replenish up to.
    pub target_quantity: i32,
    pub created_at: DateTime<Utc>,
    /// When it was deactivated; `None` while active.
    pub deactivated_at: Option<DateTime<Utc>>,
}

/// Largest quantity accepted for a level.
pub const MAX_QUANTITY: i32 = 1_000_000;

impl InventoryLevel {
    /// Whether the level is active.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.deactivated_at.is_none()
    }

    /// Checks the quantities: `0 <= minimumQuantity <= targetQuantity <= 1,000,000`.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the quantity.
    pub fn validate(&self) -> Result<(), DomainError> {
        check_quantities(self.minimum_quantity, self.target_quantity)
    }

    /// Deactivates the level at `now`.
    ///
    /// # Errors
    /// [`DomainError::Conflict`] when it is already deactivated.
    pub fn deactivate(&mut self, now: DateTime<Utc>) -> Result<(), DomainError> {
        if let Some(at) = self.deactivated_at {
            return Err(DomainError::conflict(
                "inventoryLevel",
                format!(
                    "inventory level {} was already deactivated at {}",
                    self.id,
                    at.to_rfc3339()
                ),
            ));
        }
        self.deactivated_at = Some(now);
        Ok(())
    }
}

/// Checks level quantities.
///
/// # Errors
/// [`DomainError::Invalid`] naming the quantity.
pub fn check_quantities(minimum: i32, target: i32) -> Result<(), DomainError> {
    if !(0..=MAX_QUANTITY).contains(&minimum) {
        return Err(DomainError::invalid(
            "minimumQuantity",
            format!("must be between 0 and {MAX_QUANTITY}"),
        ));
    }
    if !(0..=MAX_QUANTITY).contains(&target) {
        return Err(DomainError::invalid(
            "targetQuantity",
            format!("must be between 0 and {MAX_QUANTITY}"),
        ));
    }
    if target < minimum {
        return Err(DomainError::invalid(
            "targetQuantity",
            "must not be below minimumQuantity",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level() -> InventoryLevel {
        InventoryLevel {
            id: InventoryLevelId::new(),
            organization_id: OrganizationId::new(),
            sku_id: SkuId::new(),
            warehouse_id: WarehouseId::new(),
            minimum_quantity: 5,
            target_quantity: 20,
            created_at: Utc::now(),
            deactivated_at: None,
        }
    }

    #[test]
    fn deactivation_happens_once() {
        let mut l = level();
        let now = Utc::now();
        assert!(l.deactivate(now).is_ok());
        assert_eq!(l.deactivated_at, Some(now));
        assert!(!l.is_active());
        assert!(matches!(
            l.deactivate(Utc::now()),
            Err(DomainError::Conflict { .. })
        ));
        assert_eq!(
            l.deactivated_at,
            Some(now),
            "first deactivation time is kept"
        );
    }

    #[test]
    fn quantity_rules() {
        assert!(check_quantities(0, 0).is_ok());
        assert!(check_quantities(5, 20).is_ok());
        assert!(
            matches!(check_quantities(-1, 5), Err(DomainError::Invalid { field, .. }) if field == "minimumQuantity")
        );
        assert!(
            matches!(check_quantities(10, 5), Err(DomainError::Invalid { field, .. }) if field == "targetQuantity")
        );
        assert!(check_quantities(0, MAX_QUANTITY + 1).is_err());
        let mut l = level();
        l.target_quantity = 1;
        assert!(l.validate().is_err());
    }
}
