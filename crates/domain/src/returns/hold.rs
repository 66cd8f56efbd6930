//! Where a hold is decided: the organization's hold period, the dates a
//! warehouse receipt stamps, when a hold is due, and what its release does
//! to the item (docs/returns.md, "Holds").
//!
//! - A receipt of a returned item stamps `holdStartDate` = the receipt's date
//!   in UTC and `unlockDate` = that plus the organization's hold period
//!   ([`stamp`]); a period of 0 means no hold ([`stamp`] gives `None`).
//! - A hold is due when `unlockDate` <= today in UTC ([`is_due`]).
//! - The release ([`release`]): an item waiting for it (UNAVAILABLE,
//!   PENDING_HOLD_RELEASE) becomes UNAVAILABLE MARKED_FOR_DESTRUCTION when
//!   `itadRequested`, else AVAILABLE without a reason; `holdStartDate`,
//!   `unlockDate` and `itadRequested` become null. An item with hold dates in
//!   another status (an imported one) only loses its hold dates.
//!
//! The store finds the due holds, locks each item, asks [`release`] and
//! writes what it decided with the item's `inventory.item.updated` event.

use chrono::{DateTime, Days, NaiveDate, Utc};

use crate::error::DomainError;
use crate::inventory::{DeployReason, DeployStatus, InventoryItem};

/// An organization's hold period, in days: 0 (no hold) to 3650.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HoldPeriod(u16);

impl HoldPeriod {
    /// The period of an organization that never set one.
    pub const DEFAULT: Self = Self(30);
    /// The longest period (about ten years).
    pub const MAX_DAYS: u16 = 3650;

    /// A period of `days` days.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`holdPeriodDays`) outside 0..=3650.
    pub fn new(days: i64) -> Result<Self, DomainError> {
        u16::try_from(days)
            .ok()
            .filter(|d| *d <= Self::MAX_DAYS)
            .map(Self)
            .ok_or_else(|| {
                DomainError::invalid(
                    "holdPeriodDays",
                    format!(
                        "must be a whole number of days from 0 to {} (got {days})",
                        Self::MAX_DAYS
                    ),
                )
            })
    }

    /// Its length in days.
    #[must_use]
    pub const fn days(self) -> u16 {
        self.0
    }
}

impl Default for HoldPeriod {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The dates of a hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldDates {
    /// `holdStartDate`: the receipt's date in UTC.
    pub start: NaiveDate,
    /// `unlockDate`: the start plus the period.
    pub unlock: NaiveDate,
}

/// The hold a receipt at `at` stamps with `period`; `None` for a period of
/// 0 (no hold: the item is released at once).
#[must_use]
pub fn stamp(at: DateTime<Utc>, period: HoldPeriod) -> Option<HoldDates> {
    if period.days() == 0 {
        return None;
    }
    let start = at.date_naive();
    // 3650 days from any date chrono represents stays representable.
    let unlock = start
        .checked_add_days(Days::new(u64::from(period.days())))
        .unwrap_or(NaiveDate::MAX);
    Some(HoldDates { start, unlock })
}

/// The day in UTC of `now`: the day a due hold is measured against.
#[must_use]
pub fn today(now: DateTime<Utc>) -> NaiveDate {
    now.date_naive()
}

/// Whether a hold that ends on `unlock` is due on `today`.
#[must_use]
pub fn is_due(unlock: NaiveDate, today: NaiveDate) -> bool {
    unlock <= today
}

/// Whether `item` holds an active hold: it has an `unlockDate`, or it waits
/// for a release (PENDING_HOLD_RELEASE).
#[must_use]
pub fn has_hold(item: &InventoryItem) -> bool {
    item.unlock_date.is_some() || item.deploy_reason == Some(DeployReason::PendingHoldRelease)
}

/// The status and reason a released item takes, by its ITAD request.
#[must_use]
pub const fn released_state(itad_requested: bool) -> (DeployStatus, Option<DeployReason>) {
    if itad_requested {
        (
            DeployStatus::Unavailable,
            Some(DeployReason::MarkedForDestruction),
        )
    } else {
        (DeployStatus::Available, None)
    }
}

/// The item `current` (read locked) after its hold is released at `at`.
///
/// # Errors
/// [`DomainError::Conflict`] (`holdStartDate`) when it holds no active hold.
pub fn release(current: &InventoryItem, at: DateTime<Utc>) -> Result<InventoryItem, DomainError> {
    if !has_hold(current) {
        return Err(DomainError::conflict(
            "holdStartDate",
            format!(
                "inventory item {} holds no active hold (it is {})",
                current.id,
                current.deploy_status.as_str()
            ),
        ));
    }
    let mut item = current.clone();
    if current.deploy_status == DeployStatus::Unavailable
        && current.deploy_reason == Some(DeployReason::PendingHoldRelease)
    {
        let (status, reason) = released_state(current.itad_requested == Some(true));
        item.deploy_status = status;
        item.deploy_reason = reason;
    }
    item.hold_start_date = None;
    item.unlock_date = None;
    item.itad_requested = None;
    item.updated_at = at.max(current.updated_at);
    Ok(item)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::returns::sample_item as item;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn the_period_is_zero_to_ten_years() {
        assert_eq!(HoldPeriod::new(0).unwrap().days(), 0);
        assert_eq!(HoldPeriod::new(3650).unwrap().days(), 3650);
        assert_eq!(HoldPeriod::default().days(), 30);
        for bad in [-1, 3651, i64::MAX] {
            let e = HoldPeriod::new(bad).unwrap_err().to_string();
            assert!(e.starts_with("holdPeriodDays: "), "{e}");
        }
    }

    #[test]
    fn a_receipt_stamps_its_utc_date_and_the_period() {
        // 23:30 in New York on the 1st is the 2nd in UTC.
        let received = at("2026-03-01T23:30:00-05:00");
        let h = stamp(received, HoldPeriod::new(30).unwrap()).unwrap();
        assert_eq!(h.start, day("2026-03-02"));
        assert_eq!(h.unlock, day("2026-04-01"));
        assert_eq!(stamp(received, HoldPeriod::new(0).unwrap()), None);
        let long = stamp(received, HoldPeriod::new(3650).unwrap()).unwrap();
        assert_eq!(long.unlock, day("2036-02-28"));
    }

    #[test]
    fn a_hold_is_due_on_its_unlock_date_and_after() {
        assert!(!is_due(day("2026-04-01"), day("2026-03-31")));
        assert!(is_due(day("2026-04-01"), day("2026-04-01")));
        assert!(is_due(day("2026-04-01"), day("2026-04-02")));
        assert_eq!(today(at("2026-04-01T23:59:59-01:00")), day("2026-04-02"));
    }

    fn held(itad: bool) -> InventoryItem {
        let mut i = item();
        i.deploy_status = DeployStatus::Unavailable;
        i.deploy_reason = Some(DeployReason::PendingHoldRelease);
        i.hold_start_date = Some(day("2026-03-02"));
        i.unlock_date = Some(day("2026-04-01"));
        i.itad_requested = Some(itad);
        i
    }

    #[test]
    fn a_release_makes_the_item_available_and_clears_the_hold() {
        let now = Utc::now();
        let r = release(&held(false), now).unwrap();
        assert_eq!(r.deploy_status, DeployStatus::Available);
        assert_eq!(r.deploy_reason, None);
        assert_eq!(
            (r.hold_start_date, r.unlock_date, r.itad_requested),
            (None, None, None)
        );
        assert_eq!(r.updated_at, now);
        r.validate().unwrap();
    }

    #[test]
    fn a_release_after_itad_marks_the_item_for_destruction() {
        let r = release(&held(true), Utc::now()).unwrap();
        assert_eq!(r.deploy_status, DeployStatus::Unavailable);
        assert_eq!(r.deploy_reason, Some(DeployReason::MarkedForDestruction));
        assert_eq!(
            (r.hold_start_date, r.unlock_date, r.itad_requested),
            (None, None, None)
        );
        r.validate().unwrap();
    }

    #[test]
    fn an_item_without_a_hold_is_not_released() {
        let e = release(&item(), Utc::now()).unwrap_err();
        assert!(matches!(e, DomainError::Conflict { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("holds no active hold (it is AVAILABLE)"),
            "{e}"
        );
    }

    #[test]
    fn imported_hold_dates_on_another_status_are_only_cleared() {
        let mut i = held(true);
        i.deploy_status = DeployStatus::OnHold;
        i.deploy_reason = Some(DeployReason::DataHold);
        let r = release(&i, Utc::now()).unwrap();
        assert_eq!(r.deploy_status, DeployStatus::OnHold);
        assert_eq!(r.deploy_reason, Some(DeployReason::DataHold));
        assert_eq!(r.unlock_date, None);
    }
}
