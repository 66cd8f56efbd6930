//! The return order as a resource: the order, its retrieval and its lines
//! ([`ReturnOrder`]), the view its events record, and [`ReturnOrder::restated`],
//! which writes the statuses [`super::status`] derives into it. Whoever
//! changes an order (a PATCH, a receipt, a write-off) changes its method or
//! its lines, then restates it, and the store writes the result.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::event::{
    optional_time_value, Change, Changes, EventType, EventView, NewEvent, Subject, SubjectType,
};
use crate::ids::{
    InventoryItemId, OrganizationId, PersonId, ReturnOrderId, ReturnOrderItemId, WarehouseId,
};
use crate::inventory::{Retrieval, RetrievalKind, ReturnStatus};
use crate::returns::status::{line_status, order_status, Progress};
use crate::returns::{LineState, RetrievalType};

/// A return order: the items of one person coming back together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnOrder {
    /// Its id.
    pub id: ReturnOrderId,
    /// Its organization.
    pub organization_id: OrganizationId,
    /// The person whose items come back; `None` for an imported order whose
    /// person was not recorded.
    pub person: Option<PersonId>,
    /// Its status, derived ([`ReturnOrder::restated`]).
    pub status: ReturnStatus,
    /// Whether it was cancelled.
    pub cancelled: bool,
    /// How the items come back; `None` while no method is chosen. One
    /// retrieval for the whole order (each line's row holds a copy).
    pub retrieval: Option<Retrieval>,
    /// Its lines, in line id order.
    pub lines: Vec<ReturnLine>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Its last change.
    pub updated_at: DateTime<Utc>,
}

/// One item of a return order (`returnOrderItemId`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnLine {
    /// The line's id.
    pub id: ReturnOrderItemId,
    /// The item.
    pub item: InventoryItemId,
    /// Where it stands.
    pub state: LineState,
    /// Its status, derived ([`ReturnOrder::restated`]).
    pub status: ReturnStatus,
    /// Whether IT asset disposition is requested for the item (copied onto
    /// the item's hold when it is received).
    pub itad_requested: bool,
    /// When it was received at a warehouse.
    pub received_at: Option<DateTime<Utc>>,
    /// The warehouse that received it.
    pub warehouse_id: Option<WarehouseId>,
}

impl ReturnLine {
    /// The line is its item's current (active) return: it is open.
    #[must_use]
    pub fn active(&self) -> bool {
        self.state == LineState::Open
    }
}

/// The method of a retrieval kind.
#[must_use]
pub const fn method_of(kind: &RetrievalKind) -> RetrievalType {
    match kind {
        RetrievalKind::ReturnKit { .. } => RetrievalType::ReturnKit,
        RetrievalKind::InboundLabel { .. } => RetrievalType::InboundLabel,
        RetrievalKind::Physical => RetrievalType::Physical,
    }
}

impl ReturnOrder {
    /// The chosen method and where it stands.
    #[must_use]
    pub fn progress(&self) -> Option<Progress> {
        self.retrieval.as_ref().map(|r| Progress {
            method: method_of(&r.kind),
            status: r.status,
        })
    }

    /// The order with its own and its lines' statuses derived from its
    /// method and lines ([`order_status`], [`line_status`]).
    #[must_use]
    pub fn restated(mut self) -> Self {
        let progress = self.progress();
        self.status = order_status(self.cancelled, progress, self.lines.iter().map(|l| l.state));
        for line in &mut self.lines {
            line.status = line_status(line.state, progress);
        }
        self
    }

    /// Its lines still to come back.
    #[must_use]
    pub fn open_lines(&self) -> usize {
        self.lines.iter().filter(|l| l.active()).count()
    }

    /// Every line closed (received or written off): nothing more will
    /// happen to it.
    #[must_use]
    pub fn finished(&self) -> bool {
        !self.lines.is_empty() && self.lines.iter().all(|l| l.state.is_closed())
    }
}

/// The items whose view of `after`'s order differs from their view of
/// `before`'s: an item shows its open line and that line's order (id,
/// status, creation time, retrieval), so an item is among them when its own
/// line changed (a closed line leaves the item's view), or when its line is
/// open and what the item shows of the order changed. An item whose closed
/// line stayed as it was shows nothing of this order, and one whose open
/// line and order look the same shows the same: neither is named. So a
/// receipt that closes one line of a large order names that line's item
/// alone, unless it also moved the order's status (the first receipt of an
/// order, which every open line shows).
#[must_use]
pub fn items_shown_changed(before: &ReturnOrder, after: &ReturnOrder) -> Vec<InventoryItemId> {
    let order_shown_changed = before.id != after.id
        || before.status != after.status
        || before.created_at != after.created_at
        || before.retrieval != after.retrieval;
    // By id, not a search per line: a receipt entry compares every line of a
    // 1,000-line order, and n searches were n² comparisons an entry.
    let earlier: BTreeMap<_, _> = before.lines.iter().map(|l| (l.id, l)).collect();
    after
        .lines
        .iter()
        .filter(|line| {
            let old = earlier.get(&line.id).copied();
            old != Some(*line) || (order_shown_changed && line.active())
        })
        .map(|line| line.item)
        .collect()
}

/// The retrieval as an event records it.
fn retrieval_view(r: &Retrieval) -> Value {
    let mut v = json!({
        "type": r.kind.type_name(),
        "status": r.status.as_str(),
    });
    if let Some(map) = v.as_object_mut() {
        match &r.kind {
            RetrievalKind::ReturnKit {
                inbound_tracking_code,
                inbound_tracking_link,
                outbound_tracking_code,
                outbound_tracking_link,
            } => {
                map.insert("inboundTrackingCode".into(), json!(inbound_tracking_code));
                map.insert("inboundTrackingLink".into(), json!(inbound_tracking_link));
                map.insert("outboundTrackingCode".into(), json!(outbound_tracking_code));
                map.insert("outboundTrackingLink".into(), json!(outbound_tracking_link));
            }
            RetrievalKind::InboundLabel {
                inbound_tracking_code,
                inbound_tracking_link,
            } => {
                map.insert("inboundTrackingCode".into(), json!(inbound_tracking_code));
                map.insert("inboundTrackingLink".into(), json!(inbound_tracking_link));
            }
            RetrievalKind::Physical => {}
        }
    }
    v
}

impl EventView for ReturnOrder {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::ReturnOrder,
            id: *self.id.as_uuid(),
        }
    }

    /// The order's fields; its lines by line id, so that a change names the
    /// line (`lines.<id>.status`).
    fn event_view(&self) -> Value {
        let lines: BTreeMap<String, Value> = self
            .lines
            .iter()
            .map(|l| {
                let closed_reason = match l.state {
                    LineState::WrittenOff(r) => Some(r.as_str()),
                    _ => None,
                };
                (
                    l.id.to_string(),
                    json!({
                        "itemId": l.item,
                        "status": l.status.as_str(),
                        "itadRequested": l.itad_requested,
                        "receivedAt": optional_time_value(l.received_at),
                        "warehouseId": l.warehouse_id,
                        "closedReason": closed_reason,
                    }),
                )
            })
            .collect();
        json!({
            "personId": self.person,
            "status": self.status.as_str(),
            "retrievalMethod": self.retrieval.as_ref().map(retrieval_view),
            "lines": lines,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::event::{EventType, NewEvent};
    use crate::ids::RetrievalId;
    use crate::inventory::RetrievalStatus;
    use crate::returns::ClosedReason;

    pub(crate) fn order(states: &[LineState]) -> ReturnOrder {
        let at = Utc::now();
        ReturnOrder {
            id: ReturnOrderId::new(),
            organization_id: OrganizationId::new(),
            person: Some(PersonId::new()),
            status: ReturnStatus::Pending,
            cancelled: false,
            retrieval: None,
            lines: states
                .iter()
                .map(|&state| ReturnLine {
                    id: ReturnOrderItemId::new(),
                    item: InventoryItemId::new(),
                    state,
                    status: ReturnStatus::Pending,
                    itad_requested: false,
                    received_at: None,
                    warehouse_id: None,
                })
                .collect(),
            created_at: at,
            updated_at: at,
        }
        .restated()
    }

    #[test]
    fn a_receipt_changes_the_view_of_its_item_and_only_the_first_of_the_others() {
        let before = order(&[LineState::Open, LineState::Open, LineState::Open]);
        // The first receipt: the order becomes RECEIVED_IN_WAREHOUSE, which
        // every open line's item shows.
        let mut first = before.clone();
        first.lines[0].state = LineState::Received;
        let first = first.restated();
        assert_eq!(first.status, ReturnStatus::ReceivedInWarehouse);
        assert_eq!(
            items_shown_changed(&before, &first),
            first.lines.iter().map(|l| l.item).collect::<Vec<_>>()
        );
        // The second: the status stays, only the received line's item.
        let mut second = first.clone();
        second.lines[1].state = LineState::Received;
        let second = second.restated();
        assert_eq!(items_shown_changed(&first, &second), [second.lines[1].item]);
        // The last: the order completes, which no open line shows any more.
        let mut last = second.clone();
        last.lines[2].state = LineState::Received;
        let last = last.restated();
        assert_eq!(last.status, ReturnStatus::Completed);
        assert_eq!(items_shown_changed(&second, &last), [last.lines[2].item]);
        // Nothing changed: nothing to show again.
        assert!(items_shown_changed(&last, &last).is_empty());
    }

    #[test]
    fn a_new_retrieval_changes_the_view_of_the_open_lines_only() {
        let mut before = order(&[LineState::Open, LineState::Open]);
        before.lines[0].state = LineState::WrittenOff(ClosedReason::Stolen);
        let before = before.restated();
        let mut after = before.clone();
        after.retrieval = Some(Retrieval {
            id: RetrievalId::new(),
            status: RetrievalStatus::LabelCreated,
            updated_at: Utc::now(),
            kind: RetrievalKind::Physical,
        });
        let after = after.restated();
        assert_eq!(items_shown_changed(&before, &after), [after.lines[1].item]);
    }

    #[test]
    fn restating_derives_the_order_and_line_statuses() {
        let mut o = order(&[LineState::Open, LineState::Open]);
        o.retrieval = Some(Retrieval {
            id: RetrievalId::new(),
            status: RetrievalStatus::Shipped,
            updated_at: Utc::now(),
            kind: RetrievalKind::ReturnKit {
                inbound_tracking_code: None,
                inbound_tracking_link: None,
                outbound_tracking_code: None,
                outbound_tracking_link: None,
            },
        });
        o.lines[0].state = LineState::WrittenOff(ClosedReason::Stolen);
        let o = o.restated();
        assert_eq!(o.status, ReturnStatus::ReturnKitSent);
        assert_eq!(o.lines[0].status, ReturnStatus::NotReturned);
        assert_eq!(o.lines[1].status, ReturnStatus::ReturnKitSent);
        assert_eq!(o.open_lines(), 1);
        assert!(!o.finished());
    }

    #[test]
    fn an_update_event_names_the_line_that_changed() {
        let before = order(&[LineState::Open, LineState::Open]);
        let mut after = before.clone();
        after.lines[1].state = LineState::WrittenOff(ClosedReason::LostByWorker);
        let after = after.restated();
        let e = NewEvent::updated(EventType::ReturnOrderUpdated, &before, &after).unwrap();
        let line = before.lines[1].id;
        assert_eq!(
            e.changes[&format!("lines.{line}.status")].to,
            "NOT_RETURNED"
        );
        assert_eq!(
            e.changes[&format!("lines.{line}.closedReason")].to,
            "LOST_BY_WORKER"
        );
        assert_eq!(e.changes.len(), 2, "{:?}", e.changes);
        assert!(NewEvent::updated(EventType::ReturnOrderUpdated, &after, &after).is_none());
    }
    #[test]
    fn a_retrieval_move_records_each_open_items_event_and_no_completion() {
        let mut before = order(&[LineState::Open, LineState::WrittenOff(ClosedReason::Stolen)]);
        before.retrieval = Some(Retrieval {
            id: RetrievalId::new(),
            status: RetrievalStatus::LabelCreated,
            updated_at: Utc::now(),
            kind: RetrievalKind::ReturnKit {
                inbound_tracking_code: None,
                inbound_tracking_link: None,
                outbound_tracking_code: None,
                outbound_tracking_link: None,
            },
        });
        let before = before.restated();
        let mut after = before.clone();
        if let Some(r) = after.retrieval.as_mut() {
            r.status = RetrievalStatus::Shipped;
        }
        let at = Utc::now();
        let w = written(&before, after, at).unwrap();
        assert_eq!(w.order.updated_at, at);
        assert_eq!(w.order.status, ReturnStatus::ReturnKitSent);
        assert!(!w.lines_closed);
        let kinds: Vec<EventType> = w.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [EventType::ReturnOrderUpdated, EventType::ItemUpdated]
        );
        let item = &w.events[1];
        assert_eq!(
            item.subject.id,
            *before.lines[0].item.as_uuid(),
            "the open line's item only"
        );
        assert_eq!(item.changes["returnOrder.status"].from, "PROCESSING");
        assert_eq!(item.changes["returnOrder.status"].to, "RETURN_KIT_SENT");
        assert_eq!(
            item.changes["returnOrder.retrievalMethod"].to["status"],
            "SHIPPED"
        );
    }

    #[test]
    fn a_closed_line_asks_for_completion_and_no_change_writes_nothing() {
        let before = order(&[LineState::Open]);
        assert!(written(&before, before.clone(), Utc::now()).is_none());
        let mut after = before.clone();
        after.lines[0].state = LineState::Received;
        let w = written(&before, after, Utc::now()).unwrap();
        assert!(w.lines_closed);
        assert_eq!(w.order.status, ReturnStatus::Completed);
        assert_eq!(
            w.events.len(),
            1,
            "a closed line's item records its own event"
        );
    }
}

/// What a store writes after a change of an order (`before`, as read and
/// locked) gave `after`, decided once for every store ([`written`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderWrite {
    /// The order restated, its `updated_at` the change's time.
    pub order: ReturnOrder,
    /// `return_order.updated` with what changed, then, for each line still
    /// open whose status or retrieval moved, its item's
    /// `inventory.item.updated` (the item's `returnOrder` shows both), in
    /// line order.
    pub events: Vec<NewEvent>,
    /// A line was closed or reopened: the person's offboarding may be due to
    /// complete (`super::completion`).
    pub lines_closed: bool,
}

/// The write of a change from `before` to `after` at `at`; `None` when
/// nothing a caller sees changed (nothing is written, `updatedAt` stays).
#[must_use]
pub fn written(before: &ReturnOrder, after: ReturnOrder, at: DateTime<Utc>) -> Option<OrderWrite> {
    let mut order = after.restated();
    let updated = NewEvent::updated(EventType::ReturnOrderUpdated, before, &order)?;
    order.updated_at = at;
    let mut events = vec![updated];
    let retrieval_view = |o: &ReturnOrder| {
        o.retrieval.as_ref().map_or(
            Value::Null,
            |r| json!({"type": method_of(&r.kind).as_str(), "status": r.status.as_str()}),
        )
    };
    let (was, is) = (retrieval_view(before), retrieval_view(&order));
    for line in order.lines.iter().filter(|l| l.active()) {
        let Some(old) = before.lines.iter().find(|b| b.id == line.id && b.active()) else {
            continue;
        };
        let mut changes = Changes::new();
        if old.status != line.status {
            changes.insert(
                "returnOrder.status".to_owned(),
                Change {
                    from: json!(old.status.as_str()),
                    to: json!(line.status.as_str()),
                },
            );
        }
        if was != is {
            changes.insert(
                "returnOrder.retrievalMethod".to_owned(),
                Change {
                    from: was.clone(),
                    to: is.clone(),
                },
            );
        }
        if !changes.is_empty() {
            events.push(NewEvent {
                kind: EventType::ItemUpdated,
                subject: Subject {
                    kind: SubjectType::InventoryItem,
                    id: *line.item.as_uuid(),
                },
                changes,
            });
        }
    }
    let lines_closed = order.lines.iter().any(|l| {
        before
            .lines
            .iter()
            .any(|b| b.id == l.id && b.state != l.state)
    });
    Some(OrderWrite {
        order,
        events,
        lines_closed,
    })
}
