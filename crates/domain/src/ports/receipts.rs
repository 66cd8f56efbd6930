//! Port: warehouse receipts, the organization's hold period and the hold
//! releases (docs/returns.md). Each method is one transaction (a receipt's
//! entry, one release, one batch of releases) in which the store locks and
//! reads the facts, asks the rules of [`crate::returns::receipt`] and
//! [`crate::returns::hold`], and writes what they decided with its events.

use chrono::{DateTime, NaiveDate, Utc};

use crate::error::{DomainError, StoreResult};
use crate::ids::{InventoryItemId, OrganizationId};
use crate::returns::hold::HoldPeriod;
use crate::returns::receipt::{ReceiptEntry, Receiving};

/// How one entry of a receipt (or one release) ended.
#[derive(Debug)]
pub struct EntryOutcome {
    /// The item the entry named, when it was found.
    pub item: Option<InventoryItemId>,
    /// Its serial number (the one sent when it was not found).
    pub serial_number: Option<String>,
    /// Done, or why not: [`DomainError::NotFound`] for an unknown item or
    /// another organization's, [`DomainError::Conflict`] for one the rules
    /// refuse.
    pub result: Result<(), DomainError>,
}

/// Warehouse receipts, hold periods and hold releases.
pub trait ReceiptRepository: Send + Sync {
    /// The organization's hold period; `None` for an unknown organization.
    ///
    /// # Errors
    /// Backend failures.
    fn hold_period(&self, organization: OrganizationId) -> StoreResult<Option<HoldPeriod>>;

    /// Sets the organization's hold period; `false` for an unknown
    /// organization. Holds already stamped keep their dates.
    ///
    /// # Errors
    /// Backend failures.
    fn set_hold_period(
        &self,
        organization: OrganizationId,
        period: HoldPeriod,
    ) -> StoreResult<bool>;

    /// Receives one item of the organization at `receiving` in its own
    /// transaction: the item found by id or serial number and locked, its
    /// open return line and the hold period read, the rule
    /// [`crate::returns::receipt::receive`] asked, and its decision written
    /// (the item and its listing row, the line, the order's status and the
    /// offboarding's completion, their events).
    ///
    /// # Errors
    /// Backend failures (the entry's transaction rolled back).
    fn receive_item(
        &self,
        organization: OrganizationId,
        entry: &ReceiptEntry,
        receiving: Receiving,
    ) -> StoreResult<EntryOutcome>;

    /// Releases the hold of one item of the organization now, due or not
    /// ([`crate::returns::hold::release`]), with its event.
    ///
    /// # Errors
    /// Backend failures.
    fn release_hold(
        &self,
        organization: OrganizationId,
        item: InventoryItemId,
        at: DateTime<Utc>,
    ) -> StoreResult<EntryOutcome>;

    /// Releases up to `limit` holds of every organization due on `today`,
    /// in one transaction, each with its event (actor SYSTEM unless the
    /// store acts as another); a hold another process is releasing is
    /// skipped, never released twice. Returns how many it released.
    ///
    /// # Errors
    /// Backend failures (nothing of the batch written).
    fn release_due_holds(
        &self,
        today: NaiveDate,
        at: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<usize>;
}
