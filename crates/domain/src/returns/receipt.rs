//! Where a warehouse receipt's effect on one item is decided
//! (docs/returns.md, "Warehouse receipts").
//!
//! A receipt names up to [`MAX_ENTRIES`] items, by id or serial number; each
//! entry is received on its own (its own transaction, its own answer). For
//! one entry the store finds the item in the organization, locks it, reads
//! the [`ReceiptFacts`] (the item, its open return line if any, the
//! organization's hold period) and asks [`receive`], then writes the item, the
//! line and their events as decided:
//!
//! - an item on an open return line: assigned to the WAREHOUSE (`assignedAt`
//!   the receipt's time), UNAVAILABLE with PENDING_HOLD_RELEASE, the hold
//!   stamped ([`super::hold::stamp`]) with `itadRequested` copied from the
//!   line, and the line received at that warehouse. A hold period of 0 means
//!   no hold: the release applies at once (AVAILABLE, or UNAVAILABLE
//!   MARKED_FOR_DESTRUCTION when ITAD was requested), the line is received all
//!   the same;
//! - an item AWAITING_ARRIVAL (new stock): AVAILABLE at that warehouse, no
//!   hold;
//! - any other item: 409 naming its status.
//!
//! `condition`, when given, becomes the item's condition.

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::ids::{InventoryItemId, ReturnOrderId, ReturnOrderItemId, WarehouseId};
use crate::inventory::{
    check_transition, Assignee, Assignment, Condition, DeployReason, DeployStatus, InventoryItem,
};
use crate::returns::hold::{released_state, stamp, HoldPeriod};

/// The most entries one receipt may hold.
pub const MAX_ENTRIES: usize = 1_000;

/// How an entry names its item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKey {
    /// By id.
    Id(InventoryItemId),
    /// By serial number (what a barcode scanner reads).
    Serial(String),
}

/// One entry of a receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptEntry {
    /// The item.
    pub key: ItemKey,
    /// Its condition as found, if the desk says.
    pub condition: Option<Condition>,
}

/// The open return line an item is on, as the store read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenLine {
    /// The line (`returnOrderItemId`).
    pub id: ReturnOrderItemId,
    /// Its order.
    pub order: ReturnOrderId,
    /// Whether IT asset disposition was asked for the item.
    pub itad_requested: bool,
}

/// What the store read, in the entry's transaction, for [`receive`].
#[derive(Debug, Clone, Copy)]
pub struct ReceiptFacts<'a> {
    /// The item as stored (locked).
    pub item: &'a InventoryItem,
    /// Its open return line, if it is on one.
    pub line: Option<OpenLine>,
    /// The organization's hold period.
    pub hold_period: HoldPeriod,
}

/// Where and when items are received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receiving {
    /// The warehouse receiving (accessible to the organization).
    pub warehouse: WarehouseId,
    /// The receipt's time.
    pub at: DateTime<Utc>,
}

/// A line a receipt closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineReceived {
    /// The line.
    pub line: ReturnOrderItemId,
    /// Its order (whose status follows from its lines).
    pub order: ReturnOrderId,
    /// Received there.
    pub warehouse: WarehouseId,
    /// Received then.
    pub at: DateTime<Utc>,
}

/// What a receipt decided for one item: the item to write and the line it
/// closes, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Received {
    /// The item after the receipt.
    pub item: InventoryItem,
    /// The return line received, if the item was on one.
    pub line: Option<LineReceived>,
}

/// The answer for an entry whose key found `found` items of the
/// organization (0, or several sharing a serial number).
#[must_use]
pub fn not_found(key: &ItemKey, found: usize) -> DomainError {
    match key {
        ItemKey::Id(id) => {
            DomainError::not_found("itemId", format!("inventory item {id} not found"))
        }
        ItemKey::Serial(serial) if found == 0 => DomainError::not_found(
            "serialNumber",
            format!("no inventory item with serial number '{serial}'"),
        ),
        ItemKey::Serial(serial) => DomainError::conflict(
            "serialNumber",
            format!("{found} inventory items have serial number '{serial}'; send itemId instead"),
        ),
    }
}

/// What receiving `facts.item` with `condition` at `receiving` does.
///
/// # Errors
/// [`DomainError::Conflict`] (`deployStatus`) naming the item's status when
/// it is neither on an open return nor AWAITING_ARRIVAL.
pub fn receive(
    facts: ReceiptFacts<'_>,
    condition: Option<Condition>,
    receiving: Receiving,
) -> Result<Received, DomainError> {
    let current = facts.item;
    let refused = || {
        DomainError::conflict(
            "deployStatus",
            format!(
                "inventory item {} is {}: only an item on an open return or AWAITING_ARRIVAL can be received",
                current.id,
                current.deploy_status.as_str()
            ),
        )
    };
    let mut item = current.clone();
    let line = match (facts.line, current.deploy_status) {
        (Some(line), status) if status != DeployStatus::Archived => {
            match stamp(receiving.at, facts.hold_period) {
                Some(hold) => {
                    item.deploy_status = DeployStatus::Unavailable;
                    item.deploy_reason = Some(DeployReason::PendingHoldRelease);
                    item.hold_start_date = Some(hold.start);
                    item.unlock_date = Some(hold.unlock);
                    item.itad_requested = Some(line.itad_requested);
                }
                None => {
                    let (status, reason) = released_state(line.itad_requested);
                    item.deploy_status = status;
                    item.deploy_reason = reason;
                    item.hold_start_date = None;
                    item.unlock_date = None;
                    item.itad_requested = None;
                }
            }
            item.return_order = None;
            Some(LineReceived {
                line: line.id,
                order: line.order,
                warehouse: receiving.warehouse,
                at: receiving.at,
            })
        }
        (None, DeployStatus::AwaitingArrival) => {
            item.deploy_status = DeployStatus::Available;
            item.deploy_reason = None;
            None
        }
        _ => return Err(refused()),
    };
    check_transition(current.deploy_status, item.deploy_status)?;
    item.assignment = Some(Assignment {
        assignee: Assignee::Warehouse(receiving.warehouse),
        assigned_at: Some(receiving.at),
    });
    if let Some(condition) = condition {
        item.condition = condition;
    }
    item.updated_at = receiving.at.max(current.updated_at);
    item.validate()?;
    Ok(Received { item, line })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ids::PersonId;
    use crate::returns::sample_item;
    use chrono::NaiveDate;

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-03-01T23:30:00-05:00")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn deployed() -> InventoryItem {
        let mut i = sample_item();
        i.deploy_status = DeployStatus::Deployed;
        i.assignment = Some(Assignment {
            assignee: Assignee::Person(PersonId::new()),
            assigned_at: None,
        });
        i
    }

    fn line(itad: bool) -> OpenLine {
        OpenLine {
            id: ReturnOrderItemId::new(),
            order: ReturnOrderId::new(),
            itad_requested: itad,
        }
    }

    fn facts(item: &InventoryItem, line: Option<OpenLine>, days: i64) -> ReceiptFacts<'_> {
        ReceiptFacts {
            item,
            line,
            hold_period: HoldPeriod::new(days).unwrap(),
        }
    }

    fn here() -> Receiving {
        Receiving {
            warehouse: WarehouseId::new(),
            at: at(),
        }
    }

    #[test]
    fn a_returned_item_goes_on_hold_at_the_warehouse_and_closes_its_line() {
        let (item, l, r) = (deployed(), line(true), here());
        let got = receive(facts(&item, Some(l), 30), Some(Condition::UsedFair), r).unwrap();
        let i = &got.item;
        assert_eq!(i.deploy_status, DeployStatus::Unavailable);
        assert_eq!(i.deploy_reason, Some(DeployReason::PendingHoldRelease));
        assert_eq!(
            i.assignment,
            Some(Assignment {
                assignee: Assignee::Warehouse(r.warehouse),
                assigned_at: Some(r.at)
            })
        );
        assert_eq!(i.hold_start_date, NaiveDate::from_ymd_opt(2026, 3, 2));
        assert_eq!(i.unlock_date, NaiveDate::from_ymd_opt(2026, 4, 1));
        assert_eq!(i.itad_requested, Some(true));
        assert_eq!(i.condition, Condition::UsedFair);
        assert_eq!(i.updated_at, r.at);
        assert_eq!(
            got.line,
            Some(LineReceived {
                line: l.id,
                order: l.order,
                warehouse: r.warehouse,
                at: r.at
            })
        );
    }

    #[test]
    fn the_line_says_whether_itad_was_requested() {
        let item = deployed();
        let got = receive(facts(&item, Some(line(false)), 30), None, here()).unwrap();
        assert_eq!(got.item.itad_requested, Some(false));
        assert_eq!(
            got.item.condition, item.condition,
            "no condition: unchanged"
        );
    }

    #[test]
    fn without_a_hold_period_the_release_applies_at_once() {
        let item = deployed();
        let got = receive(facts(&item, Some(line(false)), 0), None, here()).unwrap();
        assert_eq!(got.item.deploy_status, DeployStatus::Available);
        assert_eq!(got.item.deploy_reason, None);
        assert_eq!(got.item.unlock_date, None);
        assert!(got.line.is_some(), "the line is received all the same");
        let got = receive(facts(&item, Some(line(true)), 0), None, here()).unwrap();
        assert_eq!(got.item.deploy_status, DeployStatus::Unavailable);
        assert_eq!(
            got.item.deploy_reason,
            Some(DeployReason::MarkedForDestruction)
        );
        assert_eq!(got.item.itad_requested, None);
    }

    #[test]
    fn new_stock_becomes_available_without_a_hold() {
        let mut item = sample_item();
        item.deploy_status = DeployStatus::AwaitingArrival;
        item.deploy_reason = Some(DeployReason::InTransit);
        item.assignment = None;
        let r = here();
        let got = receive(facts(&item, None, 30), Some(Condition::New), r).unwrap();
        assert_eq!(got.item.deploy_status, DeployStatus::Available);
        assert_eq!(got.item.deploy_reason, None);
        assert_eq!(got.item.unlock_date, None);
        assert_eq!(
            got.item.assignment.map(|a| a.assignee),
            Some(Assignee::Warehouse(r.warehouse))
        );
        assert_eq!(got.line, None);
    }

    #[test]
    fn any_other_item_is_refused_naming_its_status() {
        let mut held = sample_item();
        held.deploy_status = DeployStatus::Unavailable;
        held.deploy_reason = Some(DeployReason::PendingHoldRelease);
        for (item, status) in [
            (sample_item(), "AVAILABLE"),
            (deployed(), "DEPLOYED"),
            (held, "UNAVAILABLE"),
        ] {
            let e = receive(facts(&item, None, 30), None, here()).unwrap_err();
            assert!(matches!(e, DomainError::Conflict { .. }), "{e}");
            assert!(e.to_string().contains(&format!("is {status}")), "{e}");
        }
        let mut archived = deployed();
        archived.deploy_status = DeployStatus::Archived;
        archived.deploy_reason = Some(DeployReason::Stolen);
        let e = receive(facts(&archived, Some(line(false)), 30), None, here()).unwrap_err();
        assert!(e.to_string().contains("is ARCHIVED"), "{e}");
    }
}
