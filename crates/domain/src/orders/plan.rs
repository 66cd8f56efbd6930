//! What a provisioning change does to a person's order: the rule every
//! writer of people, groups and imports asks after its change, with the
//! facts it read under the person's lock.
//!
//! - An ACTIVE, active person with an effective package that has contents
//!   and a start date today or later (or none) gets one open order, with a
//!   line per unit of the package; the store then allocates its lines
//!   ([`super::allocation`]).
//! - A change of effective package before anything shipped replaces the
//!   unshipped lines with the new package's; the package taken away (or
//!   left without contents) before anything shipped cancels the order.
//! - A person who is no longer ACTIVE and active (offboarding, deactivated)
//!   has the unshipped lines of their order cancelled: what they held is
//!   released. Shipped lines go on.
//! - Once a line shipped, a package change leaves the order as it is.

use std::collections::BTreeSet;

use chrono::{DateTime, NaiveDate, Utc};

use super::order::{Order, OrderLine};
use super::{LineStatus, OrderStatus};
use crate::catalog::PackageItem;
use crate::ids::{InventoryItemId, OrderId, OrderLineId, OrganizationId, PackageId, PersonId};
use crate::person::{Person, PersonStatus};

/// A package as an order needs it: its id and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageContents {
    /// The package.
    pub package_id: PackageId,
    /// Its contents (empty: the package orders nothing).
    pub items: Vec<PackageItem>,
}

/// What a store reads, under the person's lock, to plan their order.
#[derive(Debug, Clone, Copy)]
pub struct JoinerFacts<'a> {
    /// The organization.
    pub organization_id: OrganizationId,
    /// The person.
    pub person_id: PersonId,
    /// Their status.
    pub status: PersonStatus,
    /// Their SCIM `active`.
    pub active: bool,
    /// Their start date.
    pub start_date: Option<NaiveDate>,
    /// Their effective package (own, else their group's) with its contents.
    pub package: Option<&'a PackageContents>,
    /// Their open (not CANCELLED) order, with its lines.
    pub order: Option<&'a Order>,
    /// Today, in UTC.
    pub today: NaiveDate,
    /// The change's time.
    pub at: DateTime<Utc>,
}

/// What to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderPlan {
    /// Nothing changes.
    Keep,
    /// A new order; every line BACKORDERED until the store allocates it.
    Create(Order),
    /// The open order with lines changed (unshipped ones cancelled, new ones
    /// BACKORDERED until allocated); `released` are the items the cancelled
    /// lines held, AVAILABLE again.
    Change {
        /// The order as it is to be written.
        order: Order,
        /// Items to make AVAILABLE again.
        released: Vec<InventoryItemId>,
    },
}

impl OrderPlan {
    /// The lines the store must try to allocate (BACKORDERED lines of a
    /// created or changed order).
    #[must_use]
    pub fn to_allocate(&self) -> Vec<OrderLineId> {
        match self {
            Self::Keep => Vec::new(),
            Self::Create(order) | Self::Change { order, .. } => order
                .lines
                .iter()
                .filter(|l| l.status == LineStatus::Backordered)
                .map(|l| l.id)
                .collect(),
        }
    }
}

/// Whether the person should have an order now (for a new one: the start
/// date has not passed).
fn eligible(f: &JoinerFacts<'_>) -> bool {
    f.status == PersonStatus::Active && f.active
}

/// The lines for a package, from `first` on, all BACKORDERED.
#[must_use]
pub fn lines_for(package: &PackageContents, first: u32, at: DateTime<Utc>) -> Vec<OrderLine> {
    let mut position = first;
    let mut lines = Vec::new();
    for entry in &package.items {
        for _ in 0..entry.quantity {
            lines.push(OrderLine {
                id: OrderLineId::new(),
                position,
                category_code: entry.category_code.clone(),
                sku_ids: entry.sku_ids.clone(),
                status: LineStatus::Backordered,
                item_id: None,
                shipment_id: None,
                created_at: at,
                updated_at: at,
            });
            position += 1;
        }
    }
    lines
}

/// Cancels the unshipped lines of `order`, returning the items they held.
fn cancel_unshipped(order: &mut Order, at: DateTime<Utc>) -> Vec<InventoryItemId> {
    let mut released = Vec::new();
    for line in &mut order.lines {
        if line.status.unshipped() {
            if let Some(item) = line.item_id.take() {
                released.push(item);
            }
            line.status = LineStatus::Cancelled;
            line.updated_at = at;
        }
    }
    released
}

/// What the change does to the person's order.
#[must_use]
pub fn plan(f: &JoinerFacts<'_>) -> OrderPlan {
    let package = f.package.filter(|p| !p.items.is_empty());
    match (f.order, package) {
        (None, Some(package)) => {
            let starts_in_time = f.start_date.is_none_or(|d| d >= f.today);
            if !eligible(f) || !starts_in_time {
                return OrderPlan::Keep;
            }
            let order = Order {
                id: OrderId::new(),
                organization_id: f.organization_id,
                person_id: f.person_id,
                package_id: Some(package.package_id),
                status: OrderStatus::Pending,
                lines: lines_for(package, 0, f.at),
                shipments: Vec::new(),
                created_at: f.at,
                updated_at: f.at,
            }
            .restated();
            OrderPlan::Create(order)
        }
        (None, None) => OrderPlan::Keep,
        (Some(order), package) => {
            let unshipped = order.lines.iter().any(|l| l.status.unshipped());
            let same_package = package.map(|p| p.package_id) == order.package_id;
            if !eligible(f) {
                if !unshipped {
                    return OrderPlan::Keep;
                }
                return changed(order.clone(), None, f.at);
            }
            if order.any_shipped() || same_package {
                return OrderPlan::Keep;
            }
            changed(order.clone(), package, f.at)
        }
    }
}

/// The order with its unshipped lines cancelled and, with a package, the
/// package's lines added.
fn changed(mut order: Order, package: Option<&PackageContents>, at: DateTime<Utc>) -> OrderPlan {
    let released = cancel_unshipped(&mut order, at);
    if let Some(package) = package {
        let first = order.next_position();
        order.lines.extend(lines_for(package, first, at));
        order.package_id = Some(package.package_id);
    }
    order.updated_at = at;
    OrderPlan::Change {
        order: order.restated(),
        released,
    }
}

/// Whether a person's update may change their order: their own package,
/// `active` or start date changed (their status and groups do not change
/// in an update; offboarding and group writes plan on their own).
#[must_use]
pub fn update_matters(before: &Person, after: &Person) -> bool {
    before.package_id != after.package_id
        || before.active != after.active
        || before.start_date != after.start_date
}

/// Whose order a group write may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Affected {
    /// Nobody's: the group has no package before or after.
    Nobody,
    /// These people's (joining or leaving a group with a package).
    These(BTreeSet<PersonId>),
    /// Every member's (after the write) and these leavers': the group's
    /// package or, for a group with a package, its precedence changed.
    EveryMember(BTreeSet<PersonId>),
}

/// Whose order a group write may change, from the group's package and
/// precedence before and after (`None` before: a new group; `None` after:
/// a deleted one) and the people who joined and left.
#[must_use]
pub fn affected_by_group(
    before: Option<(Option<PackageId>, i32)>,
    after: Option<(Option<PackageId>, i32)>,
    joining: &BTreeSet<PersonId>,
    leaving: &BTreeSet<PersonId>,
) -> Affected {
    let package = |g: Option<(Option<PackageId>, i32)>| g.and_then(|(p, _)| p);
    let (was, is) = (package(before), package(after));
    if was.is_none() && is.is_none() {
        return Affected::Nobody;
    }
    let moved: BTreeSet<PersonId> = joining.union(leaving).copied().collect();
    match (before, after) {
        (Some(b), Some(a)) if b != a => Affected::EveryMember(moved),
        _ => Affected::These(moved),
    }
}

#[cfg(test)]
mod tests;
