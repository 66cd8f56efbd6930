//! An item an order holds (its line ALLOCATED or SHIPPED) moves only
//! through the order: a change of its status, reason or holder by any other
//! writer would break the order silently (docs/orders.md, "Stock levels").

use crate::error::DomainError;
use crate::ids::OrderId;
use crate::inventory::InventoryItem;

/// Checks a change of an item (`before` → `after`, as an item PATCH would
/// write it) against the order that holds it (`held_by`, read by the store
/// in the change's transaction).
///
/// # Errors
/// [`DomainError::Conflict`] naming `deployStatus` when the item is held and
/// the change moves its `deployStatus`, `deployReason` or assignment. Other
/// fields (condition, tags, description, …) may change.
pub fn check_item_change(
    before: &InventoryItem,
    after: &InventoryItem,
    held_by: Option<OrderId>,
) -> Result<(), DomainError> {
    let Some(order) = held_by else {
        return Ok(());
    };
    let moved = before.deploy_status != after.deploy_status
        || before.deploy_reason != after.deploy_reason
        || before.assignment.map(|a| a.assignee) != after.assignment.map(|a| a.assignee);
    if moved {
        return Err(DomainError::conflict(
            "deployStatus",
            format!("held by order {order}; ship or cancel through the order"),
        ));
    }
    Ok(())
}

/// An item an import writes while an order holds it (its line's status
/// `line`): the import's other fields, with the status, reason and holder
/// the order gave it (an import restates the catalog; it does not move
/// items out of orders). `None` when the line does not hold it.
#[must_use]
pub fn as_imported(
    imported: &InventoryItem,
    stored: &InventoryItem,
    line: crate::orders::LineStatus,
) -> Option<InventoryItem> {
    if !line.holds_item() {
        return None;
    }
    let mut kept = imported.clone();
    kept.deploy_status = stored.deploy_status;
    kept.deploy_reason = stored.deploy_reason;
    kept.assignment = stored.assignment;
    Some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{OrganizationId, PersonId, WarehouseId};
    use crate::inventory::{Assignee, Assignment, DeployReason, DeployStatus};
    use crate::orders::fulfilment;

    fn held_item() -> InventoryItem {
        let mut item = crate::inventory_level::tests::available_item(WarehouseId::new());
        item.organization_id = OrganizationId::new();
        fulfilment::allocated(&item, chrono::Utc::now())
    }

    #[test]
    fn a_held_item_keeps_its_status_reason_and_holder() {
        let before = held_item();
        let order = OrderId::new();
        let mut status = before.clone();
        status.deploy_status = DeployStatus::Available;
        status.deploy_reason = None;
        let mut reason = before.clone();
        reason.deploy_reason = Some(DeployReason::AwaitingInformation);
        let mut holder = before.clone();
        holder.assignment = Some(Assignment {
            assignee: Assignee::Person(PersonId::new()),
            assigned_at: None,
        });
        for after in [&status, &reason, &holder] {
            let err = check_item_change(&before, after, Some(order)).unwrap_err();
            assert!(
                matches!(&err, DomainError::Conflict { entity, message }
                    if entity == "deployStatus" && message.contains(&order.to_string())),
                "{err:?}"
            );
            // Not held: any change the item's own rules allow.
            assert!(check_item_change(&before, after, None).is_ok());
        }
        // Held: its other fields may change.
        let mut described = before.clone();
        described.description = Some("scratched lid".into());
        assert!(check_item_change(&before, &described, Some(order)).is_ok());
    }
}
