//! Warehouse receipts, the organization's hold period and hold releases
//! (docs/returns.md): the use cases over [`ReceiptRepository`].

use chrono::{DateTime, Utc};

use crate::error::{DomainError, StoreError, StoreResult};
use crate::ids::{InventoryItemId, OrganizationId, WarehouseId};
use crate::inventory_query::InventoryItemView;
use crate::ports::{EntryOutcome, InventoryRepository, ReceiptRepository, WarehouseRepository};
use crate::returns::hold::{today, HoldPeriod};
use crate::returns::receipt::{ItemKey, ReceiptEntry, Receiving};

/// The ports receipts need.
pub trait ReceiptPorts: ReceiptRepository + WarehouseRepository + InventoryRepository {}
impl<T> ReceiptPorts for T where T: ReceiptRepository + WarehouseRepository + InventoryRepository {}

/// Receives `entries` at the warehouse `warehouse` at `at`, each entry in its
/// own transaction, answered in the order sent. A store failure on one
/// entry is that entry's answer; the others go on. Before each entry the
/// work asks whether it is still wanted ([`crate::interrupt::check`]: the
/// client is there and the request within its time limit); once it is not,
/// no further entry starts, and each entry not run is answered
/// [`StoreError::Interrupted`] (see [`not_run`]), so the answer still says
/// which entries were done.
///
/// # Errors
/// [`DomainError::NotFound`] (`warehouse`) when the warehouse is not
/// accessible to the organization (nothing is received).
pub fn receive(
    ports: &dyn ReceiptPorts,
    organization: OrganizationId,
    warehouse: WarehouseId,
    entries: &[ReceiptEntry],
    at: DateTime<Utc>,
) -> Result<Vec<EntryOutcome>, DomainError> {
    crate::services::warehouses::get_warehouse(ports, organization, warehouse)?;
    let receiving = Receiving { warehouse, at };
    let mut stopped = false;
    Ok(entries
        .iter()
        .map(|entry| {
            stopped = stopped || crate::interrupt::check().is_err();
            if stopped {
                return failed(entry, StoreError::Interrupted);
            }
            ports
                .receive_item(organization, entry, receiving)
                .unwrap_or_else(|e| {
                    // Interrupted inside the entry: it was rolled back, and
                    // nothing after it starts.
                    stopped = stopped || matches!(e, StoreError::Interrupted);
                    failed(entry, e)
                })
        })
        .collect())
}

/// An entry that failed with `e` before its item was read.
fn failed(entry: &ReceiptEntry, e: StoreError) -> EntryOutcome {
    EntryOutcome {
        item: match &entry.key {
            ItemKey::Id(id) => Some(*id),
            ItemKey::Serial(_) => None,
        },
        serial_number: match &entry.key {
            ItemKey::Serial(s) => Some(s.clone()),
            ItemKey::Id(_) => None,
        },
        result: Err(e.into()),
    }
}

/// Whether the entry answered `outcome` was not run: the receipt stopped
/// before it (its client gone, or its time limit reached), so nothing of it
/// was written and it is safe to send again.
#[must_use]
pub fn not_run(outcome: &EntryOutcome) -> bool {
    matches!(
        outcome.result,
        Err(DomainError::Store(StoreError::Interrupted))
    )
}

/// The organization's hold period.
///
/// # Errors
/// [`DomainError::NotFound`] (`organization`) for an unknown organization.
pub fn hold_period(
    ports: &dyn ReceiptRepository,
    organization: OrganizationId,
) -> Result<HoldPeriod, DomainError> {
    ports
        .hold_period(organization)?
        .ok_or_else(|| DomainError::not_found("organization", "organization not found"))
}

/// Sets the organization's hold period (from the next receipt on).
///
/// # Errors
/// [`DomainError::Invalid`] (`holdPeriodDays`) outside 0..=3650;
/// [`DomainError::NotFound`] (`organization`).
pub fn set_hold_period(
    ports: &dyn ReceiptRepository,
    organization: OrganizationId,
    days: i64,
) -> Result<HoldPeriod, DomainError> {
    let period = HoldPeriod::new(days)?;
    if ports.set_hold_period(organization, period)? {
        Ok(period)
    } else {
        Err(DomainError::not_found(
            "organization",
            "organization not found",
        ))
    }
}

/// Releases an item's hold now, due or not; the item after it.
///
/// # Errors
/// [`DomainError::NotFound`] (`inventoryItem`); [`DomainError::Conflict`]
/// when it holds no active hold.
pub fn release_hold(
    ports: &dyn ReceiptPorts,
    organization: OrganizationId,
    item: InventoryItemId,
    at: DateTime<Utc>,
) -> Result<InventoryItemView, DomainError> {
    ports.release_hold(organization, item, at)?.result?;
    ports
        .find_inventory_views(organization, &[item])?
        .pop()
        .ok_or_else(|| {
            DomainError::not_found("inventoryItem", format!("inventory item {item} not found"))
        })
}

/// Releases every hold due at `now`, `batch` per transaction, until none is
/// left; returns how many. Several processes may run it at once: each hold
/// is released by one of them.
///
/// # Errors
/// Store failures (the batches before stay written).
pub fn release_due_holds(
    ports: &dyn ReceiptRepository,
    now: DateTime<Utc>,
    batch: usize,
) -> StoreResult<usize> {
    let day = today(now);
    let mut total = 0;
    loop {
        let n = ports.release_due_holds(day, now, batch)?;
        total += n;
        if n < batch {
            return Ok(total);
        }
    }
}
