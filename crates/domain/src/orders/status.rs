//! An order's status, derived from its lines (never stored independently of
//! them: the stored column is a copy for filtering).

use super::{LineStatus, OrderStatus};

/// The order's status from its lines' statuses:
/// - every line CANCELLED (or no line): CANCELLED;
/// - otherwise, over the lines not cancelled: every one DELIVERED:
///   DELIVERED; one SHIPPED or DELIVERED: SHIPPED; every one ALLOCATED:
///   ALLOCATED; else (a line BACKORDERED, none shipped): PENDING.
#[must_use]
pub fn order_status(lines: impl IntoIterator<Item = LineStatus>) -> OrderStatus {
    let (mut live, mut delivered, mut shipped, mut allocated) = (0usize, 0usize, 0usize, 0usize);
    for status in lines {
        match status {
            LineStatus::Cancelled => continue,
            LineStatus::Delivered => delivered += 1,
            LineStatus::Shipped => shipped += 1,
            LineStatus::Allocated => allocated += 1,
            LineStatus::Backordered => {}
        }
        live += 1;
    }
    if live == 0 {
        OrderStatus::Cancelled
    } else if delivered == live {
        OrderStatus::Delivered
    } else if delivered + shipped > 0 {
        OrderStatus::Shipped
    } else if allocated == live {
        OrderStatus::Allocated
    } else {
        OrderStatus::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LineStatus::{Allocated, Backordered, Cancelled, Delivered, Shipped};

    #[test]
    fn statuses_follow_the_lines() {
        assert_eq!(order_status([]), OrderStatus::Cancelled);
        assert_eq!(order_status([Cancelled, Cancelled]), OrderStatus::Cancelled);
        assert_eq!(order_status([Backordered, Allocated]), OrderStatus::Pending);
        assert_eq!(order_status([Allocated, Allocated]), OrderStatus::Allocated);
        assert_eq!(order_status([Allocated, Cancelled]), OrderStatus::Allocated);
        assert_eq!(order_status([Backordered, Shipped]), OrderStatus::Shipped);
        assert_eq!(order_status([Delivered, Allocated]), OrderStatus::Shipped);
        assert_eq!(order_status([Delivered, Delivered]), OrderStatus::Delivered);
        assert_eq!(order_status([Delivered, Cancelled]), OrderStatus::Delivered);
    }
}
