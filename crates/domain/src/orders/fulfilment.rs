//! What each step of an order does to the item a line holds: allocated
//! (UNAVAILABLE, PENDING_FULFILLMENT, still in its warehouse), released
//! (AVAILABLE again), shipped (UNAVAILABLE, IN_TRANSIT) and delivered
//! (DEPLOYED to the person, `assignedAt` the delivery time).

use chrono::{DateTime, Utc};

use crate::ids::PersonId;
use crate::inventory::{Assignee, Assignment, DeployReason, DeployStatus, InventoryItem};

/// The item taken by a line.
#[must_use]
pub fn allocated(item: &InventoryItem, at: DateTime<Utc>) -> InventoryItem {
    moved(
        item,
        DeployStatus::Unavailable,
        Some(DeployReason::PendingFulfillment),
        at,
    )
}

/// The item given back by a cancelled line: AVAILABLE where it is.
#[must_use]
pub fn released(item: &InventoryItem, at: DateTime<Utc>) -> InventoryItem {
    moved(item, DeployStatus::Available, None, at)
}

/// The item on its way to the person.
#[must_use]
pub fn shipped(item: &InventoryItem, at: DateTime<Utc>) -> InventoryItem {
    moved(
        item,
        DeployStatus::Unavailable,
        Some(DeployReason::InTransit),
        at,
    )
}

/// The item delivered: DEPLOYED to the person since `at`.
#[must_use]
pub fn delivered(item: &InventoryItem, person: PersonId, at: DateTime<Utc>) -> InventoryItem {
    let mut after = moved(item, DeployStatus::Deployed, None, at);
    after.assignment = Some(Assignment {
        assignee: Assignee::Person(person),
        assigned_at: Some(at),
    });
    after
}

fn moved(
    item: &InventoryItem,
    status: DeployStatus,
    reason: Option<DeployReason>,
    at: DateTime<Utc>,
) -> InventoryItem {
    let mut after = item.clone();
    after.deploy_status = status;
    after.deploy_reason = reason;
    after.updated_at = at;
    after
}
