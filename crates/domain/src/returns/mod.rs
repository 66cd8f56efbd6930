//! Where a return's life is decided (docs/returns.md): the leaver's half of
//! the equipment lifecycle, from the return order offboarding creates to the
//! item back on a warehouse shelf and the offboarding completed.
//!
//! - [`moves`]: the retrieval methods and the path each status moves along;
//! - [`status`]: the order's status and each line's, derived from the method
//!   and the lines (never stored independently of them);
//! - [`completion`]: when an offboarding completes;
//! - [`ClosedReason`]: why a line that will not come back is written off.
//!
//! A store applies these as it applies the import's rules
//! (`crate::import::stored`): it locks and reads the facts in its
//! transaction, asks the functions here, and writes what they decided.

pub mod change;
pub mod completion;
pub mod create;
pub mod hold;
pub mod moves;
pub mod order;
pub mod query;
pub mod receipt;
pub mod status;

use crate::inventory::DeployReason;

wire_enum! {
    /// How a return comes back (`retrievalMethod.type`).
    RetrievalType, field = "retrievalMethod.type", unknown = (|raw: &str| format!(
        "unknown retrieval method '{raw}'; expected RETURN_KIT, INBOUND_LABEL or PHYSICAL"
    )) {
        /// A pre-paid kit is sent to the person, who sends the equipment back in it.
        ReturnKit => "RETURN_KIT",
        /// A pre-paid label is sent to the person.
        InboundLabel => "INBOUND_LABEL",
        /// Dropped off in person or collected by a courier.
        Physical => "PHYSICAL",
    }
}

wire_enum! {
    /// Why a return line is closed without the item coming back (a
    /// write-off); the item is ARCHIVED with the same deploy reason.
    ClosedReason, field = "closedReason" {
        /// The person lost it.
        LostByWorker => "LOST_BY_WORKER",
        /// Stolen.
        Stolen => "STOLEN",
        /// The person does not answer.
        UnresponsiveWorker => "UNRESPONSIVE_WORKER",
        /// It never reached the person.
        NeverReceivedByWorker => "NEVER_RECEIVED_BY_WORKER",
        /// The person bought it.
        BoughtOut => "BOUGHT_OUT",
        /// The employer gave it to the person.
        GiftedByEmployer => "GIFTED_BY_EMPLOYER",
        /// It was the person's own device.
        PersonalDevice => "PERSONAL_DEVICE",
    }
}

impl ClosedReason {
    /// The deploy reason of the ARCHIVED item.
    #[must_use]
    pub const fn deploy_reason(self) -> DeployReason {
        match self {
            Self::LostByWorker => DeployReason::LostByWorker,
            Self::Stolen => DeployReason::Stolen,
            Self::UnresponsiveWorker => DeployReason::UnresponsiveWorker,
            Self::NeverReceivedByWorker => DeployReason::NeverReceivedByWorker,
            Self::BoughtOut => DeployReason::BoughtOut,
            Self::GiftedByEmployer => DeployReason::GiftedByEmployer,
            Self::PersonalDevice => DeployReason::PersonalDevice,
        }
    }
}

/// Where a return line stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineState {
    /// The item is still to come back.
    Open,
    /// Received at a warehouse (closed).
    Received,
    /// Written off (closed): it will not come back.
    WrittenOff(ClosedReason),
    /// The order was cancelled while nothing was received; the item stays
    /// with the person.
    Cancelled,
}

impl LineState {
    /// Received or written off: the line needs nothing more.
    #[must_use]
    pub const fn is_closed(self) -> bool {
        matches!(self, Self::Received | Self::WrittenOff(_))
    }
}

/// An AVAILABLE item in a warehouse, for the rules' tests.
#[cfg(test)]
pub(crate) fn sample_item() -> crate::inventory::InventoryItem {
    use crate::ids::{InventoryItemId, OrganizationId, SkuId, WarehouseId};
    use crate::inventory::{
        Assignee, Assignment, Condition, DeployStatus, InventoryItem, SuppliedBy,
    };
    let at = chrono::DateTime::parse_from_rfc3339("2026-01-05T10:00:00Z")
        .map(|t| t.with_timezone(&chrono::Utc))
        .unwrap_or_default();
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: OrganizationId::new(),
        sku_id: SkuId::new(),
        serial_number: Some("C02SAMPLE".into()),
        imei: vec![],
        deploy_status: DeployStatus::Available,
        deploy_reason: None,
        condition: Condition::UsedGood,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::Warehouse(WarehouseId::new()),
            assigned_at: Some(at),
        }),
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: at,
        updated_at: at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_closed_reason_archives_with_the_same_name() {
        for r in ClosedReason::ALL {
            assert_eq!(r.deploy_reason().as_str(), r.as_str());
        }
    }

    #[test]
    fn received_and_written_off_lines_are_closed_and_no_other() {
        assert!(LineState::Received.is_closed());
        assert!(LineState::WrittenOff(ClosedReason::Stolen).is_closed());
        assert!(!LineState::Open.is_closed());
        assert!(!LineState::Cancelled.is_closed());
    }

    #[test]
    fn an_unknown_method_names_the_field_and_the_choices() {
        let e = RetrievalType::parse("PIGEON").unwrap_err().to_string();
        assert!(e.contains("retrievalMethod.type"), "{e}");
        assert!(e.contains("RETURN_KIT, INBOUND_LABEL or PHYSICAL"), "{e}");
    }
}
