//! Inventory levels: per-SKU, per-warehouse stock-level settings. At most one
//! active level per (organization, SKU, warehouse). Deactivation is a soft
//! delete: the record is kept with its deactivation time, and reactivation means
//! creating a new configuration.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::error::DomainError;
use crate::event::{
    time_value, Change, Changes, EventType, EventView, NewEvent, Subject, SubjectType,
};
use crate::ids::{InventoryLevelId, OrganizationId, SkuId, WarehouseId};
use crate::inventory::{Assignee, DeployStatus, InventoryItem};

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

/// A level with the stock it watches, as the listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockedLevel {
    /// The level.
    pub level: InventoryLevel,
    /// AVAILABLE items of the level's SKU assigned to its warehouse.
    pub available_quantity: i64,
}

impl StockedLevel {
    /// Whether the available stock is below the level's minimum.
    #[must_use]
    pub fn below_minimum(&self) -> bool {
        is_below(self.available_quantity, self.level.minimum_quantity)
    }
}

/// Whether `available` items are below a level's `minimum`.
#[must_use]
pub fn is_below(available: i64, minimum: i32) -> bool {
    available < i64::from(minimum)
}

/// Where an item counts toward a level's available stock: its SKU and the
/// warehouse it is assigned to. Only an AVAILABLE item assigned to a
/// warehouse counts; `None` for any other.
#[must_use]
pub fn counted_at(item: &InventoryItem) -> Option<(SkuId, WarehouseId)> {
    match (item.deploy_status, item.assignment.map(|a| a.assignee)) {
        (DeployStatus::Available, Some(Assignee::Warehouse(warehouse))) => {
            Some((item.sku_id, warehouse))
        }
        _ => None,
    }
}

/// A (SKU, warehouse) whose available count a write changed, and whether
/// the item is AVAILABLE there after the write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StockTouch {
    /// The SKU.
    pub sku: SkuId,
    /// The warehouse.
    pub warehouse: WarehouseId,
    /// The item counts there after the write (it became AVAILABLE there).
    pub now_available: bool,
}

/// The places whose available count a write of one item changed, from the
/// item before (`None`: created) and after (`None`: gone): the place it
/// counted at before and the place it counts at after, when they differ;
/// nothing when the item counts where it counted (or nowhere, both times).
#[must_use]
pub fn stock_touches(
    before: Option<&InventoryItem>,
    after: Option<&InventoryItem>,
) -> Vec<StockTouch> {
    let was = before.and_then(counted_at);
    let is = after.and_then(counted_at);
    if was == is {
        return Vec::new();
    }
    let mut touches = Vec::with_capacity(2);
    if let Some((sku, warehouse)) = was {
        touches.push(StockTouch {
            sku,
            warehouse,
            now_available: false,
        });
    }
    if let Some((sku, warehouse)) = is {
        touches.push(StockTouch {
            sku,
            warehouse,
            now_available: true,
        });
    }
    touches
}

/// What a write does to a level's crossing state (the stored
/// `belowMinimum` flag), decided by [`crossing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossing {
    /// The level's state after the write: its available stock is below its
    /// minimum.
    pub below: bool,
    /// The stored flag differs from `below` and is written.
    pub write_flag: bool,
    /// The stock fell below the minimum in this write:
    /// `inventory_level.below_minimum` is written.
    pub event: bool,
}

/// The crossing rule (docs/orders.md, "Stock levels"): from the stored flag
/// and the level's available stock and minimum after a write. A level that
/// falls below its minimum writes one event; while it stays below, nothing
/// more; once back at or above, the flag is cleared without an event (and
/// the next fall writes one again).
#[must_use]
pub fn crossing(stored_below: bool, available: i64, minimum: i32) -> Crossing {
    let below = is_below(available, minimum);
    Crossing {
        below,
        write_flag: below != stored_below,
        event: below && !stored_below,
    }
}

/// `inventory_level.below_minimum` for `level`, whose available stock fell
/// to `available`, below its `minimum`: `belowMinimum` from false to true,
/// `availableQuantity` to the stock after the write (from null: the event
/// records the crossing, not the stock before), and the `minimumQuantity`
/// it fell below (unchanged: from and to the same).
#[must_use]
pub fn below_minimum_event(level: InventoryLevelId, available: i64, minimum: i32) -> NewEvent {
    let change = |from, to| Change { from, to };
    NewEvent {
        kind: EventType::LevelBelowMinimum,
        subject: Subject {
            kind: SubjectType::InventoryLevel,
            id: *level.as_uuid(),
        },
        changes: Changes::from([
            ("belowMinimum".to_owned(), change(json!(false), json!(true))),
            (
                "availableQuantity".to_owned(),
                change(Value::Null, json!(available)),
            ),
            (
                "minimumQuantity".to_owned(),
                change(json!(minimum), json!(minimum)),
            ),
        ]),
    }
}

impl EventView for InventoryLevel {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::InventoryLevel,
            id: *self.id.as_uuid(),
        }
    }

    fn event_view(&self) -> Value {
        json!({
            "skuId": self.sku_id,
            "warehouseId": self.warehouse_id,
            "minimumQuantity": self.minimum_quantity,
            "targetQuantity": self.target_quantity,
            "deactivatedAt": self.deactivated_at.map_or(Value::Null, time_value),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn available_item(warehouse: WarehouseId) -> InventoryItem {
        use crate::inventory::{Assignment, Condition, SuppliedBy};
        let now = Utc::now();
        InventoryItem {
            id: crate::ids::InventoryItemId::new(),
            organization_id: OrganizationId::new(),
            sku_id: SkuId::new(),
            serial_number: Some("C02XYZ".into()),
            imei: vec![],
            deploy_status: DeployStatus::Available,
            deploy_reason: None,
            condition: Condition::New,
            renewal_date: None,
            renewal_date_updated_by: None,
            billing_start_date: None,
            billing_end_date: None,
            procurement_method: None,
            assignment: Some(Assignment {
                assignee: Assignee::Warehouse(warehouse),
                assigned_at: Some(now),
            }),
            tags: vec![],
            pricing: None,
            description: None,
            erp_invoice_id: None,
            hold_start_date: None,
            unlock_date: None,
            itad_requested: None,
            device_program: None,
            supplied_by: SuppliedBy::Organization,
            return_order: None,
            created_at: now,
            updated_at: now,
        }
    }

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
    fn a_fall_below_the_minimum_writes_one_event_per_crossing() {
        // Down from at or above: the flag and the event.
        assert_eq!(
            crossing(false, 1, 2),
            Crossing {
                below: true,
                write_flag: true,
                event: true
            }
        );
        // Down again while below: nothing.
        assert_eq!(
            crossing(true, 0, 2),
            Crossing {
                below: true,
                write_flag: false,
                event: false
            }
        );
        // Back at the minimum: the flag cleared, no event (re-armed).
        assert_eq!(
            crossing(true, 2, 2),
            Crossing {
                below: false,
                write_flag: true,
                event: false
            }
        );
        // At or above, staying there: nothing.
        assert_eq!(
            crossing(false, 5, 2),
            Crossing {
                below: false,
                write_flag: false,
                event: false
            }
        );
        // A minimum of 0 is never crossed.
        assert!(!crossing(false, 0, 0).below);
        // Up then down: a second event.
        let mut stored = false;
        let mut events = 0;
        for available in [1, 0, 3, 1, 0] {
            let c = crossing(stored, available, 2);
            events += usize::from(c.event);
            if c.write_flag {
                stored = c.below;
            }
        }
        assert_eq!(events, 2);
    }

    #[test]
    fn the_event_names_the_stock_and_the_minimum() {
        let id = InventoryLevelId::new();
        let e = below_minimum_event(id, 1, 3);
        assert_eq!(e.kind, EventType::LevelBelowMinimum);
        assert_eq!(e.subject.id, *id.as_uuid());
        assert_eq!(e.changes["belowMinimum"].to, json!(true));
        assert_eq!(e.changes["availableQuantity"].to, json!(1));
        assert_eq!(e.changes["minimumQuantity"].from, json!(3));
        let stocked = StockedLevel {
            level: level(),
            available_quantity: 4,
        };
        assert!(stocked.below_minimum(), "4 < 5");
        assert!(!StockedLevel {
            available_quantity: 5,
            ..stocked
        }
        .below_minimum());
    }

    #[test]
    fn only_an_available_item_in_a_warehouse_counts_and_only_changes_touch() {
        use crate::inventory::{Assignment, DeployReason};
        let warehouse = WarehouseId::new();
        let item = available_item(warehouse);
        assert_eq!(counted_at(&item), Some((item.sku_id, warehouse)));
        // Created AVAILABLE in a warehouse: that place gained one.
        assert_eq!(
            stock_touches(None, Some(&item)),
            vec![StockTouch {
                sku: item.sku_id,
                warehouse,
                now_available: true
            }]
        );
        // A change that leaves it counted where it was: nothing.
        let mut described = item.clone();
        described.description = Some("dented".into());
        assert!(stock_touches(Some(&item), Some(&described)).is_empty());
        // Taken: the place lost one.
        let mut taken = item.clone();
        taken.deploy_status = DeployStatus::Unavailable;
        taken.deploy_reason = Some(DeployReason::PendingFulfillment);
        assert_eq!(counted_at(&taken), None);
        assert_eq!(
            stock_touches(Some(&item), Some(&taken)),
            vec![StockTouch {
                sku: item.sku_id,
                warehouse,
                now_available: false
            }]
        );
        // Moved to another warehouse: both places.
        let other = WarehouseId::new();
        let mut moved = item.clone();
        moved.assignment = Some(Assignment {
            assignee: Assignee::Warehouse(other),
            assigned_at: None,
        });
        assert_eq!(stock_touches(Some(&item), Some(&moved)).len(), 2);
        // An item that counts nowhere, before and after: nothing.
        assert!(stock_touches(Some(&taken), Some(&taken)).is_empty());
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
