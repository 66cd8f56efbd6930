//! Where a return order's status is decided: derived from its method and its
//! lines by [`order_status`], and each line's by [`line_status`]. The store
//! writes what these say whenever a method, a status or a line changes, so a
//! stored status is never set on its own.
//!
//! An order is `CANCELLED` when cancelled. When every line is closed it is
//! `COMPLETED` (all received), `PARTIALLY_COMPLETED` (some received, the rest
//! written off) or `NOT_COMPLETED` (all written off). Otherwise it is
//! `RECEIVED_IN_WAREHOUSE` once a line was received; else `PENDING` without a
//! method, and with one `PROCESSING`, or for a kit `RETURN_KIT_SENT` (the kit
//! SHIPPED), `RETURN_KIT_DELIVERED` (DELIVERED) or `RETURN_KIT_SENT_BACK`
//! (SENT_BACK or later).
//!
//! A line is `RECEIVED_IN_WAREHOUSE` when received, `NOT_RETURNED` when
//! written off, `CANCELLED` with its order, and while open shares its order's
//! in-flight status (`PENDING`, `PROCESSING`, `RETURN_KIT_…`).

use crate::inventory::{RetrievalStatus, ReturnStatus};
use crate::returns::{LineState, RetrievalType};

/// The retrieval an order has chosen: its method and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The method.
    pub method: RetrievalType,
    /// Its status.
    pub status: RetrievalStatus,
}

/// The status of an order with `retrieval` (`None`: no method chosen yet)
/// and `lines`; `cancelled` when it was cancelled.
#[must_use]
pub fn order_status(
    cancelled: bool,
    retrieval: Option<Progress>,
    lines: impl IntoIterator<Item = LineState>,
) -> ReturnStatus {
    if cancelled {
        return ReturnStatus::Cancelled;
    }
    let (mut received, mut written_off, mut open) = (0_usize, 0_usize, 0_usize);
    for line in lines {
        match line {
            LineState::Received => received += 1,
            LineState::WrittenOff(_) => written_off += 1,
            LineState::Open | LineState::Cancelled => open += 1,
        }
    }
    let closed = received + written_off;
    if open > 0 || closed == 0 {
        if received > 0 {
            ReturnStatus::ReceivedInWarehouse
        } else {
            in_flight(retrieval)
        }
    } else if written_off == 0 {
        ReturnStatus::Completed
    } else if received == 0 {
        ReturnStatus::NotCompleted
    } else {
        ReturnStatus::PartiallyCompleted
    }
}

/// The status of a line in `state` of an order whose in-flight status (the
/// one [`order_status`] gives while nothing is received) comes from
/// `retrieval`.
#[must_use]
pub fn line_status(state: LineState, retrieval: Option<Progress>) -> ReturnStatus {
    match state {
        LineState::Received => ReturnStatus::ReceivedInWarehouse,
        LineState::WrittenOff(_) => ReturnStatus::NotReturned,
        LineState::Cancelled => ReturnStatus::Cancelled,
        LineState::Open => in_flight(retrieval),
    }
}

/// The status of an order in flight (no line received): by its method.
fn in_flight(retrieval: Option<Progress>) -> ReturnStatus {
    let Some(p) = retrieval else {
        return ReturnStatus::Pending;
    };
    match (p.method, p.status) {
        (RetrievalType::ReturnKit, RetrievalStatus::Shipped) => ReturnStatus::ReturnKitSent,
        (RetrievalType::ReturnKit, RetrievalStatus::Delivered) => ReturnStatus::ReturnKitDelivered,
        (
            RetrievalType::ReturnKit,
            RetrievalStatus::SentBack | RetrievalStatus::ArrivedAtProcessingFacility,
        ) => ReturnStatus::ReturnKitSentBack,
        _ => ReturnStatus::Processing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::returns::ClosedReason;

    use LineState::{Open, Received};
    const OFF: LineState = LineState::WrittenOff(ClosedReason::Stolen);

    fn kit(status: RetrievalStatus) -> Option<Progress> {
        Some(Progress {
            method: RetrievalType::ReturnKit,
            status,
        })
    }

    #[test]
    fn an_order_without_a_method_is_pending_and_with_one_processing() {
        assert_eq!(
            order_status(false, None, [Open, Open]),
            ReturnStatus::Pending
        );
        let label = Some(Progress {
            method: RetrievalType::InboundLabel,
            status: RetrievalStatus::SentBack,
        });
        assert_eq!(order_status(false, label, [Open]), ReturnStatus::Processing);
        assert_eq!(
            order_status(false, kit(RetrievalStatus::LabelCreated), [Open]),
            ReturnStatus::Processing
        );
    }

    #[test]
    fn a_kit_shows_where_it_is() {
        for (s, want) in [
            (RetrievalStatus::Shipped, ReturnStatus::ReturnKitSent),
            (RetrievalStatus::Delivered, ReturnStatus::ReturnKitDelivered),
            (RetrievalStatus::SentBack, ReturnStatus::ReturnKitSentBack),
            (
                RetrievalStatus::ArrivedAtProcessingFacility,
                ReturnStatus::ReturnKitSentBack,
            ),
            (RetrievalStatus::DeliveryException, ReturnStatus::Processing),
        ] {
            assert_eq!(order_status(false, kit(s), [Open]), want, "{s}");
            assert_eq!(line_status(Open, kit(s)), want, "{s}");
        }
    }

    #[test]
    fn a_received_line_shows_until_every_line_is_closed() {
        let k = kit(RetrievalStatus::SentBack);
        assert_eq!(
            order_status(false, k, [Received, Open]),
            ReturnStatus::ReceivedInWarehouse
        );
        assert_eq!(
            order_status(false, k, [Received, OFF, Open]),
            ReturnStatus::ReceivedInWarehouse
        );
        // Written off alone, with lines open: still in flight.
        assert_eq!(
            order_status(false, k, [OFF, Open]),
            ReturnStatus::ReturnKitSentBack
        );
    }

    #[test]
    fn closed_orders_say_how_they_ended() {
        assert_eq!(
            order_status(false, None, [Received, Received]),
            ReturnStatus::Completed
        );
        assert_eq!(
            order_status(false, None, [Received, OFF]),
            ReturnStatus::PartiallyCompleted
        );
        assert_eq!(
            order_status(false, None, [OFF, OFF]),
            ReturnStatus::NotCompleted
        );
    }

    #[test]
    fn a_cancelled_order_is_cancelled_whatever_its_lines() {
        assert_eq!(
            order_status(true, kit(RetrievalStatus::Shipped), [LineState::Cancelled]),
            ReturnStatus::Cancelled
        );
        assert_eq!(
            line_status(LineState::Cancelled, None),
            ReturnStatus::Cancelled
        );
    }

    #[test]
    fn closed_lines_say_how_they_closed() {
        assert_eq!(
            line_status(Received, None),
            ReturnStatus::ReceivedInWarehouse
        );
        assert_eq!(line_status(OFF, None), ReturnStatus::NotReturned);
        assert_eq!(line_status(Open, None), ReturnStatus::Pending);
    }
}
