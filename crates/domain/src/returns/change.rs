//! Where a change of a return order is decided (`PATCH
//! /api/v1/return-orders/{id}`): choosing or changing its retrieval method
//! ([`super::moves::check_method_change`], [`super::moves::starting_status`]),
//! moving its status along the method's path ([`super::moves::check_move`]),
//! its tracking fields, a line's `itadRequested`, writing a line off with a
//! [`ClosedReason`], and cancelling the order.
//!
//! [`ReturnOrderChange::check`] checks the change's shape before any store
//! work; the store then locks the order, the items of the lines written off
//! ([`ReturnOrderChange::written_off_items`]) and the person, and [`plan`]
//! decides over them what it writes.
//!
//! - A write-off closes the line (`NOT_RETURNED`); the item becomes ARCHIVED
//!   with the reason as its `deployReason` and stays recorded with its last
//!   holder (who lost it, who bought it), its active return gone.
//! - Cancelling is allowed while no line is received or written off: every
//!   line becomes CANCELLED and inactive, and the items stay DEPLOYED with
//!   the person. An OFFBOARDING person's order is not cancelled (409):
//!   cancelled lines are not open, so their offboarding would complete while
//!   they still hold the items; its lines are written off instead.
//! - A cancelled order does not change any more; a finished one (every line
//!   closed) keeps its retrieval as it ended.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::event::NewEvent;
use crate::ids::{InventoryItemId, RetrievalId, ReturnOrderItemId};
use crate::inventory::{DeployStatus, InventoryItem, Retrieval, RetrievalKind, RetrievalStatus};
use crate::person::PersonStatus;
use crate::person::StoredPersonState;
use crate::returns::create::MAX_ITEMS;
use crate::returns::moves::{check_method_change, check_move, starting_status};
use crate::returns::order::{method_of, ReturnOrder};
use crate::returns::{ClosedReason, LineState, RetrievalType};
use crate::text::LONG_TEXT_MAX;

/// Tracking fields given with a method: `None` when absent (unchanged),
/// `Some(None)` to clear one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tracking {
    /// `inboundTrackingCode`.
    pub inbound_tracking_code: Option<Option<String>>,
    /// `inboundTrackingLink`.
    pub inbound_tracking_link: Option<Option<String>>,
    /// `outboundTrackingCode`.
    pub outbound_tracking_code: Option<Option<String>>,
    /// `outboundTrackingLink`.
    pub outbound_tracking_link: Option<Option<String>>,
}

impl Tracking {
    fn given(&self) -> [(&'static str, &Option<Option<String>>); 4] {
        [
            ("inboundTrackingCode", &self.inbound_tracking_code),
            ("inboundTrackingLink", &self.inbound_tracking_link),
            ("outboundTrackingCode", &self.outbound_tracking_code),
            ("outboundTrackingLink", &self.outbound_tracking_link),
        ]
    }

    /// `kind` (a kind of the same method) with these fields applied.
    fn applied_to(&self, kind: &RetrievalKind) -> RetrievalKind {
        fn pick(given: &Option<Option<String>>, current: &Option<String>) -> Option<String> {
            given.clone().unwrap_or_else(|| current.clone())
        }
        match kind {
            RetrievalKind::ReturnKit {
                inbound_tracking_code,
                inbound_tracking_link,
                outbound_tracking_code,
                outbound_tracking_link,
            } => RetrievalKind::ReturnKit {
                inbound_tracking_code: pick(&self.inbound_tracking_code, inbound_tracking_code),
                inbound_tracking_link: pick(&self.inbound_tracking_link, inbound_tracking_link),
                outbound_tracking_code: pick(&self.outbound_tracking_code, outbound_tracking_code),
                outbound_tracking_link: pick(&self.outbound_tracking_link, outbound_tracking_link),
            },
            RetrievalKind::InboundLabel {
                inbound_tracking_code,
                inbound_tracking_link,
            } => RetrievalKind::InboundLabel {
                inbound_tracking_code: pick(&self.inbound_tracking_code, inbound_tracking_code),
                inbound_tracking_link: pick(&self.inbound_tracking_link, inbound_tracking_link),
            },
            RetrievalKind::Physical => RetrievalKind::Physical,
        }
    }
}

/// An empty retrieval of `method` (no tracking fields yet).
fn blank(method: RetrievalType) -> RetrievalKind {
    match method {
        RetrievalType::ReturnKit => RetrievalKind::ReturnKit {
            inbound_tracking_code: None,
            inbound_tracking_link: None,
            outbound_tracking_code: None,
            outbound_tracking_link: None,
        },
        RetrievalType::InboundLabel => RetrievalKind::InboundLabel {
            inbound_tracking_code: None,
            inbound_tracking_link: None,
        },
        RetrievalType::Physical => RetrievalKind::Physical,
    }
}

/// `retrievalMethod` of a change: the method, where it stands, its tracking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrievalChange {
    /// The method (chosen, kept or changed).
    pub method: RetrievalType,
    /// The status to move to; `None` to leave it (or start at REQUESTED).
    pub status: Option<RetrievalStatus>,
    /// Tracking fields.
    pub tracking: Tracking,
}

/// One entry of `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineChange {
    /// The line (`returnOrderItemId`).
    pub id: ReturnOrderItemId,
    /// A new `itadRequested`.
    pub itad_requested: Option<bool>,
    /// A write-off.
    pub closed_reason: Option<ClosedReason>,
}

/// A change of a return order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReturnOrderChange {
    /// The retrieval.
    pub retrieval: Option<RetrievalChange>,
    /// Lines changed.
    pub lines: Vec<LineChange>,
    /// `"status": "CANCELLED"`.
    pub cancel: bool,
}

impl ReturnOrderChange {
    /// Checks the change's shape before any store work: something to
    /// change, a cancellation given alone, at most 1,000 lines, no line
    /// twice, only the tracking fields the method has, each at most 2,048
    /// characters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field.
    pub fn check(&self) -> Result<(), DomainError> {
        if self.retrieval.is_none() && self.lines.is_empty() && !self.cancel {
            return Err(DomainError::invalid(
                "body",
                "nothing to change: give retrievalMethod, lines or status",
            ));
        }
        if self.cancel && (self.retrieval.is_some() || !self.lines.is_empty()) {
            return Err(DomainError::invalid(
                "status",
                "CANCELLED is given alone, without retrievalMethod or lines",
            ));
        }
        if self.lines.len() > MAX_ITEMS {
            return Err(DomainError::invalid(
                "lines",
                format!("at most {MAX_ITEMS} lines per change"),
            ));
        }
        let mut seen = HashSet::new();
        for (i, line) in self.lines.iter().enumerate() {
            if !seen.insert(line.id) {
                return Err(DomainError::invalid(
                    format!("lines[{i}].id"),
                    format!("line {} is given twice", line.id),
                ));
            }
            if line.itad_requested.is_none() && line.closed_reason.is_none() {
                return Err(DomainError::invalid(
                    format!("lines[{i}]"),
                    "give itadRequested or closedReason",
                ));
            }
        }
        if let Some(r) = &self.retrieval {
            let allowed: &[&str] = match r.method {
                RetrievalType::ReturnKit => &[
                    "inboundTrackingCode",
                    "inboundTrackingLink",
                    "outboundTrackingCode",
                    "outboundTrackingLink",
                ],
                RetrievalType::InboundLabel => &["inboundTrackingCode", "inboundTrackingLink"],
                RetrievalType::Physical => &[],
            };
            for (name, value) in r.tracking.given() {
                let field = format!("retrievalMethod.{name}");
                let Some(value) = value else { continue };
                if !allowed.contains(&name) {
                    return Err(DomainError::invalid(
                        field,
                        format!("a {} retrieval has no {name}", r.method.as_str()),
                    ));
                }
                if let Some(text) = value {
                    if text.trim().is_empty() || text.chars().count() > LONG_TEXT_MAX {
                        return Err(DomainError::invalid(
                            field,
                            format!("1 to {LONG_TEXT_MAX} characters, or null"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether [`plan`] decides on the person's stored state (only a cancel
    /// does): the store locks and reads the person for it only then, so a
    /// retrieval move or an ITAD flag does not hold SCIM writes to them.
    #[must_use]
    pub const fn needs_person(&self) -> bool {
        self.cancel
    }

    /// The items of `order`'s open lines this change writes off: the store
    /// locks and reads them for [`plan`].
    #[must_use]
    pub fn written_off_items(&self, order: &ReturnOrder) -> Vec<InventoryItemId> {
        self.lines
            .iter()
            .filter(|c| c.closed_reason.is_some())
            .filter_map(|c| order.lines.iter().find(|l| l.id == c.id && l.active()))
            .map(|l| l.item)
            .collect()
    }
}

/// The facts [`plan`] decides on, read by the store (locked).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeFacts {
    /// The order's person, if it has one and they exist.
    pub person: Option<StoredPersonState>,
    /// The items of [`ReturnOrderChange::written_off_items`].
    pub items: HashMap<InventoryItemId, InventoryItem>,
}

/// What a change writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePlan {
    /// The order after the change (restated); the store writes it with
    /// `return_order.updated`, which says what changed.
    pub order: ReturnOrder,
    /// Items written off: (as read, as written); each with its
    /// `inventory.item.updated`.
    pub items: Vec<(InventoryItem, InventoryItem)>,
    /// Other events: for a cancellation, each item's return ended.
    pub events: Vec<NewEvent>,
}

fn closed_conflict(field: String, order: &ReturnOrder, line: ReturnOrderItemId) -> DomainError {
    let status = order
        .lines
        .iter()
        .find(|l| l.id == line)
        .map_or("closed", |l| l.status.as_str());
    DomainError::conflict(field, format!("line {line} is {status}"))
}

/// Decides `change` of `order` (as read, locked) at `at` over `facts`.
///
/// # Errors
/// [`DomainError::Invalid`] for a line not in the order, a status off the
/// new method's path; [`DomainError::Conflict`] for a move the current
/// status does not allow (naming both), a method change once the retrieval
/// has left, a change of a cancelled order or of a closed line, a cancel
/// after a line closed or of an OFFBOARDING person's order.
pub fn plan(
    order: &ReturnOrder,
    change: &ReturnOrderChange,
    facts: &ChangeFacts,
    at: DateTime<Utc>,
) -> Result<ChangePlan, DomainError> {
    change.check()?;
    let unchanged = || ChangePlan {
        order: order.clone(),
        items: Vec::new(),
        events: Vec::new(),
    };
    if order.cancelled {
        if change.cancel {
            return Ok(unchanged());
        }
        return Err(DomainError::conflict(
            "returnOrder",
            format!("return order {} is CANCELLED", order.id),
        ));
    }
    let mut after = order.clone();
    let mut events = Vec::new();
    if change.cancel {
        if let Some(line) = order.lines.iter().find(|l| l.state.is_closed()) {
            return Err(DomainError::conflict(
                "status",
                format!(
                    "return order {} cannot be cancelled: line {} is {}",
                    order.id,
                    line.id,
                    line.status.as_str()
                ),
            ));
        }
        if facts
            .person
            .is_some_and(|p| p.status == PersonStatus::Offboarding)
        {
            return Err(DomainError::conflict(
                "status",
                "the person is being offboarded: cancelled lines are not open, so their \
                 offboarding would complete while they hold the items; write the lines off \
                 instead (lines[].closedReason)",
            ));
        }
        after.cancelled = true;
        for line in &mut after.lines {
            if line.active() {
                events.push(NewEvent::return_ended(line.item, order.id, order.status));
                line.state = LineState::Cancelled;
            }
        }
    }
    if let Some(rc) = &change.retrieval {
        if order.finished() {
            return Err(DomainError::conflict(
                "retrievalMethod",
                format!(
                    "return order {} is {}: its retrieval no longer moves",
                    order.id,
                    order.status.as_str()
                ),
            ));
        }
        after.retrieval = Some(match &order.retrieval {
            Some(cur) if method_of(&cur.kind) == rc.method => {
                let mut status = cur.status;
                if let Some(to) = rc.status {
                    if check_move(rc.method, cur.status, to)? {
                        status = to;
                    }
                }
                let kind = rc.tracking.applied_to(&cur.kind);
                let moved = status != cur.status || kind != cur.kind;
                Retrieval {
                    id: cur.id,
                    status,
                    updated_at: if moved { at } else { cur.updated_at },
                    kind,
                }
            }
            current => {
                if let Some(cur) = current {
                    check_method_change(method_of(&cur.kind), cur.status, rc.method)?;
                }
                Retrieval {
                    id: RetrievalId::new(),
                    status: starting_status(rc.method, rc.status)?,
                    updated_at: at,
                    kind: rc.tracking.applied_to(&blank(rc.method)),
                }
            }
        });
    }
    let mut items = Vec::new();
    for (i, lc) in change.lines.iter().enumerate() {
        let Some(line) = after.lines.iter_mut().find(|l| l.id == lc.id) else {
            return Err(DomainError::invalid(
                format!("lines[{i}].id"),
                format!("return order {} has no line {}", order.id, lc.id),
            ));
        };
        if let Some(itad) = lc.itad_requested {
            if itad != line.itad_requested {
                if !line.active() {
                    return Err(closed_conflict(
                        format!("lines[{i}].itadRequested"),
                        order,
                        lc.id,
                    ));
                }
                line.itad_requested = itad;
            }
        }
        if let Some(reason) = lc.closed_reason {
            match line.state {
                LineState::WrittenOff(r) if r == reason => {}
                LineState::Open => {
                    line.state = LineState::WrittenOff(reason);
                    if let Some(item) = facts.items.get(&line.item) {
                        let mut archived = item.clone();
                        archived.deploy_status = DeployStatus::Archived;
                        archived.deploy_reason = Some(reason.deploy_reason());
                        archived.return_order = None;
                        archived.updated_at = at;
                        items.push((item.clone(), archived));
                    }
                }
                _ => {
                    return Err(closed_conflict(
                        format!("lines[{i}].closedReason"),
                        order,
                        lc.id,
                    ))
                }
            }
        }
    }
    Ok(ChangePlan {
        order: after.restated(),
        items,
        events,
    })
}

#[cfg(test)]
#[path = "change_tests.rs"]
mod tests;
