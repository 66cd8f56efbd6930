//! Warehouse receipts and the organization's settings (docs/returns.md):
//! the body of `POST /api/v1/warehouses/{id}/receipts` ([`ReceiptRequest`])
//! and its per-entry answer ([`ReceiptResults`]), and the body of
//! `GET`/`PUT /api/v1/organization/settings` ([`OrganizationSettings`]).

use equip_domain::ids::InventoryItemId;
use equip_domain::inventory::Condition;
use equip_domain::ports::EntryOutcome;
use equip_domain::returns::hold::HoldPeriod;
use equip_domain::returns::receipt::{ItemKey, ReceiptEntry, MAX_ENTRIES};
use equip_domain::text::SHORT_TEXT_MAX;
use equip_domain::DomainError;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::item::condition;

const _: () = assert!(SHORT_TEXT_MAX == 256, "serialNumber");
// The schema's literals (utoipa takes no constant there).
const _: () = assert!(MAX_ENTRIES == 1000, "items: maxItems");
const _: () = assert!(HoldPeriod::MAX_DAYS == 3650, "holdPeriodDays: maximum");

/// The body of a receipt: the items received, each named by `itemId` or
/// `serialNumber` (one of them), with the `condition` found, if any.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReceiptRequest {
    /// 1 to 1,000 entries, answered in this order.
    #[schema(min_items = 1, max_items = 1000)]
    pub items: Vec<ReceiptItem>,
}

/// One item received.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReceiptItem {
    /// The item's id (or give `serialNumber`).
    #[serde(default, deserialize_with = "crate::id::or_null")]
    #[schema(value_type = Option<uuid::Uuid>)]
    item_id: Option<InventoryItemId>,
    /// The item's serial number, as a scanner reads it (or give `itemId`).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 256)]
    serial_number: Option<String>,
    /// The condition found; the item's condition is left as it is without.
    #[serde(default)]
    #[schema(schema_with = condition)]
    condition: Option<Condition>,
}

impl ReceiptRequest {
    /// The entries as the domain takes them.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming `items[n]` for an entry with neither
    /// or both of `itemId` and `serialNumber`, or a blank or over-long
    /// serial number.
    pub fn entries(self) -> Result<Vec<ReceiptEntry>, DomainError> {
        self.items
            .into_iter()
            .enumerate()
            .map(|(n, item)| {
                let key = match (item.item_id, item.serial_number) {
                    (Some(id), None) => ItemKey::Id(id),
                    (None, Some(serial)) => {
                        let serial = serial.trim().to_owned();
                        if serial.is_empty() || serial.chars().count() > SHORT_TEXT_MAX {
                            return Err(DomainError::invalid(
                                format!("items[{n}].serialNumber"),
                                format!("a serial number has 1 to {SHORT_TEXT_MAX} characters"),
                            ));
                        }
                        ItemKey::Serial(serial)
                    }
                    _ => {
                        return Err(DomainError::invalid(
                            format!("items[{n}]"),
                            "give exactly one of itemId and serialNumber",
                        ))
                    }
                };
                Ok(ReceiptEntry {
                    key,
                    condition: item.condition,
                })
            })
            .collect()
    }
}

/// The answer to a receipt: one result per entry, in the order sent.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptResults {
    /// One per entry.
    pub results: Vec<ReceiptResult>,
}

/// The answer to a receipt that stopped before its end (503): its time limit
/// was reached (`equip serve --upload-timeout`), so no entry started after
/// it. `results` holds one result per entry, in the order sent, as a
/// receipt answered 200 does: each entry that ran has its own status, and each
/// entry not run has status 503 and says so (nothing of it was written; it
/// is safe to send again). Nothing of the receipt is written after this
/// answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ReceiptStopped)]
pub struct ReceiptStopped<'a> {
    /// Why the receipt stopped (one entry, source `server`).
    #[schema(min_items = 1)]
    pub errors: Vec<crate::error::ErrorEntry<'a>>,
    /// One per entry, in the order sent.
    pub results: Vec<ReceiptResult>,
}

/// How one entry ended.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptResult {
    /// The item, when found.
    #[schema(value_type = Option<uuid::Uuid>, required)]
    pub item_id: Option<InventoryItemId>,
    /// Its serial number (the one sent, when not found).
    #[schema(required)]
    pub serial_number: Option<String>,
    /// The HTTP status of this entry: 200 received, 404 unknown (or another
    /// organization's), 409 not receivable in its status, 503 the store
    /// could not be reached for it, or (in a receipt answered 503) not run
    /// because the receipt stopped at its time limit.
    pub status: u16,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl ReceiptResult {
    /// The result of `outcome`, whose failure (if any) is answered with
    /// `status` and `detail`.
    #[must_use]
    pub fn new(outcome: EntryOutcome, failure: Option<(u16, String)>) -> Self {
        let (status, detail) = match failure {
            Some((status, detail)) => (status, Some(detail)),
            None => (200, None),
        };
        Self {
            item_id: outcome.item,
            serial_number: outcome.serial_number,
            status,
            detail,
        }
    }
}

/// The organization's settings.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OrganizationSettings {
    /// Days a returned item is held after its receipt before it is released
    /// (0 to 3650; 0: no hold). Default 30.
    #[schema(minimum = 0, maximum = 3650)]
    #[serde(deserialize_with = "crate::read::whole_number")]
    pub hold_period_days: i64,
}

impl From<HoldPeriod> for OrganizationSettings {
    fn from(p: HoldPeriod) -> Self {
        Self {
            hold_period_days: i64::from(p.days()),
        }
    }
}
