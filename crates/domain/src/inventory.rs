//! Inventory items: every field of the item in docs/api.md, the enums they
//! use, and the deploy rules (docs/api.md, "Rules").
//!
//! Over 500 lines on purpose: the item's thirty fields and the enums they use,
//! each documented, are one definition that the rules below read.

use chrono::{DateTime, NaiveDate, Utc};

use crate::error::DomainError;
use crate::ids::{
    InventoryItemId, OfficeId, OrganizationId, PersonId, RetrievalId, ReturnOrderId,
    ReturnOrderItemId, SkuId, TagId, WarehouseId,
};
use crate::text::{check_length, check_optional_length, LONG_TEXT_MAX, SHORT_TEXT_MAX};

wire_enum! {
    /// Where an item is in its life. The listing filter also names GIFTED, LOCKED
    /// and OUT_FOR_REPAIR (deprecated, refused) and VOIDED (matches nothing); see
    /// the inventory query.
    DeployStatus, field = "deployStatus" {
        /// Assigned to a person.
        Deployed => "DEPLOYED",
        /// In a warehouse, ready to ship.
        Available => "AVAILABLE",
        /// In a warehouse, not ready to ship.
        Unavailable => "UNAVAILABLE",
        /// In transit to a warehouse.
        AwaitingArrival => "AWAITING_ARRIVAL",
        /// Permanently decommissioned; final.
        Archived => "ARCHIVED",
        /// Held (e.g. retention hold after a return).
        OnHold => "ON_HOLD",
    }
}

wire_enum! {
    /// Why an item is in its deploy status.
    DeployReason, field = "deployReason" {
        /// Assigned to an administrator.
        AssignedToAdmin => "ASSIGNED_TO_ADMIN",
        /// Waiting for information.
        AwaitingInformation => "AWAITING_INFORMATION",
        /// Bought out by the worker.
        BoughtOut => "BOUGHT_OUT",
        /// Kept for a data hold.
        DataHold => "DATA_HOLD",
        /// Decommissioned by the employer.
        DecommissionedByEmployer => "DECOMMISSIONED_BY_EMPLOYER",
        /// Destroyed at end of life.
        EndOfUsefulLifeDestroyed => "END_OF_USEFUL_LIFE_DESTROYED",
        /// Donated at end of life.
        EndOfUsefulLifeDonated => "END_OF_USEFUL_LIFE_DONATED",
        /// Waiting to be fulfilled.
        PendingFulfillment => "PENDING_FULFILLMENT",
        /// Gifted by the employer.
        GiftedByEmployer => "GIFTED_BY_EMPLOYER",
        /// Gifted by the operator.
        GiftedByOperator => "GIFTED_BY_OPERATOR",
        /// In transit.
        InTransit => "IN_TRANSIT",
        /// Locked by the maker's activation lock.
        LockedMakerActivation => "LOCKED_MAKER_ACTIVATION",
        /// Locked: reported lost or stolen.
        LockedFmdReportedLostStolen => "LOCKED_FMD_REPORTED_LOST_STOLEN",
        /// Locked by device management.
        LockedMdm => "LOCKED_MDM",
        /// Locked by a PIN.
        LockedPin => "LOCKED_PIN",
        /// Lost by the operator.
        LostByOperator => "LOST_BY_OPERATOR",
        /// Lost in transit.
        LostInTransit => "LOST_IN_TRANSIT",
        /// Lost by the worker.
        LostByWorker => "LOST_BY_WORKER",
        /// Marked for destruction.
        MarkedForDestruction => "MARKED_FOR_DESTRUCTION",
        /// Not applicable.
        Na => "NA",
        /// Never received by the worker.
        NeverReceivedByWorker => "NEVER_RECEIVED_BY_WORKER",
        /// Another reason.
        Other => "OTHER",
        /// Out for destruction.
        OutForDestruction => "OUT_FOR_DESTRUCTION",
        /// Out for repair.
        OutForRepair => "OUT_FOR_REPAIR",
        /// Buy-out pending.
        PendingBuyOut => "PENDING_BUY_OUT",
        /// Recycling requested.
        RecyclingRequested => "RECYCLING_REQUESTED",
        /// Needs cleaning.
        RequiresCleaning => "REQUIRES_CLEANING",
        /// Needs repair.
        RequiresRepair => "REQUIRES_REPAIR",
        /// A return is in progress.
        ReturnInProgress => "RETURN_IN_PROGRESS",
        /// Sent to an office.
        SentToOffice => "SENT_TO_OFFICE",
        /// Stolen.
        Stolen => "STOLEN",
        /// The worker does not respond.
        UnresponsiveWorker => "UNRESPONSIVE_WORKER",
        /// Region not supported.
        UnsupportedRegion => "UNSUPPORTED_REGION",
        /// A personal device.
        PersonalDevice => "PERSONAL_DEVICE",
        /// Waiting for a hold to be released.
        PendingHoldRelease => "PENDING_HOLD_RELEASE",
    }
}

wire_enum! {
    /// Physical condition of an item.
    Condition, field = "condition" {
        /// New.
        New => "NEW",
        /// Used, like new.
        UsedLikeNew => "USED_LIKE_NEW",
        /// Used, good.
        UsedGood => "USED_GOOD",
        /// Used, fair.
        UsedFair => "USED_FAIR",
        /// Used.
        Used => "USED",
        /// Used, poor.
        UsedPoor => "USED_POOR",
        /// Cannot be used.
        Unusable => "UNUSABLE",
    }
}

wire_enum! {
    /// Who last set an item's renewal date.
    RenewalDateUpdatedBy, field = "renewalDateUpdatedBy" {
        /// The organization-wide rule.
        OrganizationLevel => "RENEWAL_DATE_ORGANIZATION_LEVEL",
        /// The organization's per-category rule.
        OrganizationCategoryLevel => "RENEWAL_DATE_ORGANIZATION_CATEGORY_LEVEL",
        /// Set by hand.
        ManuallyUpdated => "RENEWAL_DATE_MANUALLY_UPDATED",
        /// Cleared by hand.
        ClearManuallySet => "CLEAR_RENEWAL_DATE_MANUALLY_SET",
    }
}

wire_enum! {
    /// What kind of holder an item is assigned to.
    AssigneeType, field = "assignedTo.type" {
        /// A person.
        Person => "PERSON",
        /// A warehouse.
        Warehouse => "WAREHOUSE",
        /// An office.
        Office => "OFFICE",
    }
}

wire_enum! {
    /// Who supplied an item (sort key `suppliedBy`).
    SuppliedBy, field = "suppliedBy" {
        /// The operator of the platform.
        Operator => "OPERATOR",
        /// The organization itself.
        Organization => "ORGANIZATION",
    }
}

wire_enum! {
    /// Status of a return order and of each of its items (one shared value set).
    ReturnStatus, field = "returnOrder.status" {
        /// Pending.
        Pending => "PENDING",
        /// Processing.
        Processing => "PROCESSING",
        /// Completed.
        Completed => "COMPLETED",
        /// Return kit sent.
        ReturnKitSent => "RETURN_KIT_SENT",
        /// Return kit delivered.
        ReturnKitDelivered => "RETURN_KIT_DELIVERED",
        /// Return kit sent back.
        ReturnKitSentBack => "RETURN_KIT_SENT_BACK",
        /// Received in the warehouse.
        ReceivedInWarehouse => "RECEIVED_IN_WAREHOUSE",
        /// Returned.
        Returned => "RETURNED",
        /// Not returned.
        NotReturned => "NOT_RETURNED",
        /// Submitted.
        Submitted => "SUBMITTED",
        /// Cancelled.
        Cancelled => "CANCELLED",
        /// None.
        None => "NONE",
        /// Confirmed.
        Confirmed => "CONFIRMED",
        /// Partially completed.
        PartiallyCompleted => "PARTIALLY_COMPLETED",
        /// Not completed.
        NotCompleted => "NOT_COMPLETED",
    }
}

wire_enum! {
    /// Status of a retrieval (kit, label or physical pick-up).
    RetrievalStatus, field = "retrievalMethod.status" {
        /// Requested.
        Requested => "REQUESTED",
        /// Processed.
        Processed => "PROCESSED",
        /// Cancelled.
        Cancelled => "CANCELLED",
        /// Label created.
        LabelCreated => "LABEL_CREATED",
        /// Shipped.
        Shipped => "SHIPPED",
        /// Delivered.
        Delivered => "DELIVERED",
        /// Sent back.
        SentBack => "SENT_BACK",
        /// Arrived at the processing facility.
        ArrivedAtProcessingFacility => "ARRIVED_AT_PROCESSING_FACILITY",
        /// Delivery exception.
        DeliveryException => "DELIVERY_EXCEPTION",
        /// Not processed.
        NotProcessed => "NOT_PROCESSED",
        /// Partially processed.
        PartiallyProcessed => "PARTIALLY_PROCESSED",
        /// Pick-up being scheduled.
        SchedulingPickUp => "SCHEDULING_PICK_UP",
    }
}

wire_enum! {
    /// Whether a device is enrolled in the manufacturer's device-management program.
    DeviceProgramStatus, field = "deviceProgram.assignmentStatus" {
        /// Assigned.
        Assigned => "ASSIGNED",
        /// Not assigned.
        NotAssigned => "NOT_ASSIGNED",
    }
}

impl Condition {
    /// Position from best to worst (NEW = 0 … UNUSABLE = 6): the order of the
    /// listing's `condition` sort key.
    #[must_use]
    pub fn rank(self) -> i32 {
        Self::ALL
            .iter()
            .position(|c| *c == self)
            .map_or(i32::MAX, |i| i as i32)
    }
}

/// The holder of an item, with the id of its own kind (a person's id cannot
/// stand for a warehouse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Assignee {
    /// A person.
    Person(PersonId),
    /// A warehouse.
    Warehouse(WarehouseId),
    /// An office.
    Office(OfficeId),
}

impl Assignee {
    /// The holder of `kind` with the id `id`.
    #[must_use]
    pub fn new(kind: AssigneeType, id: uuid::Uuid) -> Self {
        match kind {
            AssigneeType::Person => Self::Person(id.into()),
            AssigneeType::Warehouse => Self::Warehouse(id.into()),
            AssigneeType::Office => Self::Office(id.into()),
        }
    }

    /// Its kind, as the wire and the store name it.
    #[must_use]
    pub const fn kind(self) -> AssigneeType {
        match self {
            Self::Person(_) => AssigneeType::Person,
            Self::Warehouse(_) => AssigneeType::Warehouse,
            Self::Office(_) => AssigneeType::Office,
        }
    }

    /// Its id, untyped (as the wire and the store hold it).
    #[must_use]
    pub fn id(self) -> uuid::Uuid {
        match self {
            Self::Person(id) => *id.as_uuid(),
            Self::Warehouse(id) => *id.as_uuid(),
            Self::Office(id) => *id.as_uuid(),
        }
    }
}

/// Who holds an item, since when. The label (email or name) is derived when
/// read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assignment {
    /// The holder.
    pub assignee: Assignee,
    /// When it was assigned; `None` when unknown.
    pub assigned_at: Option<DateTime<Utc>>,
}

/// A label on an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Identifier.
    pub id: TagId,
    /// Text.
    pub label: String,
}

/// Pricing of an item.
#[derive(Debug, Clone, PartialEq)]
pub struct Price {
    /// Region code.
    pub region_code: String,
    /// Price option (e.g. `PURCHASE`, `RENTAL_24M`).
    pub price_option: String,
    /// List price.
    pub price: f64,
    /// ISO 4217 currency code.
    pub currency_code: String,
    /// Price after discount.
    pub discounted_price: f64,
    /// Discount in percent.
    pub discount_percentage: f64,
}

/// Manufacturer device-management assignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProgram {
    /// Assigned or not.
    pub assignment_status: DeviceProgramStatus,
    /// Last sync; `None` when never synced.
    pub last_sync_timestamp: Option<DateTime<Utc>>,
    /// Next scheduled full sync.
    pub next_sync_timestamp: DateTime<Utc>,
}

/// How a returned item travels back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetrievalKind {
    /// Pre-paid kit sent to the employee.
    ReturnKit {
        /// Kit going to the employee.
        inbound_tracking_code: Option<String>,
        /// Kit going to the employee.
        inbound_tracking_link: Option<String>,
        /// Equipment coming back.
        outbound_tracking_code: Option<String>,
        /// Equipment coming back.
        outbound_tracking_link: Option<String>,
    },
    /// Pre-paid label sent to the employee.
    InboundLabel {
        /// Tracking code of the shipment.
        inbound_tracking_code: Option<String>,
        /// Tracking link of the shipment.
        inbound_tracking_link: Option<String>,
    },
    /// Dropped off in person or collected by courier.
    Physical,
}

impl RetrievalKind {
    /// The discriminator value: `RETURN_KIT`, `INBOUND_LABEL` or `PHYSICAL`.
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::ReturnKit { .. } => "RETURN_KIT",
            Self::InboundLabel { .. } => "INBOUND_LABEL",
            Self::Physical => "PHYSICAL",
        }
    }
}

/// The retrieval of a return order item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieval {
    /// Identifier.
    pub id: RetrievalId,
    /// Status.
    pub status: RetrievalStatus,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// The variant and its fields.
    pub kind: RetrievalKind,
}

/// An item's active return, as the listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnInfo {
    /// Return order id.
    pub id: ReturnOrderId,
    /// Overall return order status.
    pub status: ReturnStatus,
    /// When the return order was created.
    pub created_at: DateTime<Utc>,
    /// The return order item for this piece.
    pub return_order_item_id: ReturnOrderItemId,
    /// Status of that item.
    pub return_order_item_status: ReturnStatus,
    /// How it comes back; `None` while not chosen.
    pub retrieval: Option<Retrieval>,
}

/// An inventory item.
#[derive(Debug, Clone, PartialEq)]
pub struct InventoryItem {
    /// Identifier.
    pub id: InventoryItemId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// The SKU (title, category and vendor come from it).
    pub sku_id: SkuId,
    /// Serial number; `None` for non-serialized items.
    pub serial_number: Option<String>,
    /// IMEI values (mobile devices).
    pub imei: Vec<String>,
    /// Deploy status.
    pub deploy_status: DeployStatus,
    /// Why the item is in its status.
    pub deploy_reason: Option<DeployReason>,
    /// Physical condition.
    pub condition: Condition,
    /// Scheduled renewal date.
    pub renewal_date: Option<NaiveDate>,
    /// Who set the renewal date.
    pub renewal_date_updated_by: Option<RenewalDateUpdatedBy>,
    /// Start of billing.
    pub billing_start_date: Option<NaiveDate>,
    /// End of billing.
    pub billing_end_date: Option<NaiveDate>,
    /// How it was procured (human-readable label).
    pub procurement_method: Option<String>,
    /// Current holder.
    pub assignment: Option<Assignment>,
    /// Labels (unique by id).
    pub tags: Vec<Tag>,
    /// Pricing.
    pub pricing: Option<Price>,
    /// Custom description.
    pub description: Option<String>,
    /// Accounting-system invoice id.
    pub erp_invoice_id: Option<String>,
    /// Start of the retention hold.
    pub hold_start_date: Option<NaiveDate>,
    /// Hold expiry.
    pub unlock_date: Option<NaiveDate>,
    /// Whether IT asset disposition was requested.
    pub itad_requested: Option<bool>,
    /// Device-management program assignment.
    pub device_program: Option<DeviceProgram>,
    /// Who supplied the item.
    pub supplied_by: SuppliedBy,
    /// The active return, if any.
    pub return_order: Option<ReturnInfo>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// Checks the deploy-reason rule (docs/api.md, "Rules"): UNAVAILABLE and ARCHIVED need a
/// reason; DEPLOYED and AVAILABLE carry none.
///
/// # Errors
/// [`DomainError::Invalid`] on `deployReason`.
pub fn check_deploy_reason(
    status: DeployStatus,
    reason: Option<DeployReason>,
) -> Result<(), DomainError> {
    match (status, reason) {
        (DeployStatus::Unavailable | DeployStatus::Archived, None) => Err(DomainError::invalid(
            "deployReason",
            format!("a deployReason is required when deployStatus is {status}"),
        )),
        (DeployStatus::Deployed | DeployStatus::Available, Some(r)) => Err(DomainError::invalid(
            "deployReason",
            format!("deployReason must be null when deployStatus is {status} (got {r})"),
        )),
        _ => Ok(()),
    }
}

/// Checks a move of an item from `from` to `to`: an ARCHIVED item is final.
///
/// # Errors
/// [`DomainError::Conflict`] when the current state forbids the move.
pub fn check_transition(from: DeployStatus, to: DeployStatus) -> Result<(), DomainError> {
    if from == DeployStatus::Archived && to != DeployStatus::Archived {
        return Err(DomainError::conflict(
            "deployStatus",
            format!("an ARCHIVED item is final and cannot move to {to}"),
        ));
    }
    Ok(())
}

impl InventoryItem {
    /// Checks the item's own consistency: every text within its length
    /// limit ([`InventoryItem::check_lengths`]), the deploy-reason rule, a
    /// PERSON assignee for DEPLOYED items, unique tag ids, non-empty IMEI
    /// values.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), DomainError> {
        self.check_lengths()?;
        check_deploy_reason(self.deploy_status, self.deploy_reason)?;
        if self.deploy_status == DeployStatus::Deployed
            && !matches!(
                self.assignment,
                Some(Assignment {
                    assignee: Assignee::Person(_),
                    ..
                })
            )
        {
            return Err(DomainError::invalid(
                "assignedTo",
                "a DEPLOYED item must be assigned to a PERSON",
            ));
        }
        let mut ids: Vec<&TagId> = self.tags.iter().map(|t| &t.id).collect();
        ids.sort();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Err(DomainError::invalid("tags", "tags must be unique"));
        }
        if self.imei.iter().any(|i| i.trim().is_empty()) {
            return Err(DomainError::invalid(
                "imei",
                "IMEI values must not be empty",
            ));
        }
        if let (Some(start), Some(end)) = (self.billing_start_date, self.billing_end_date) {
            if end < start {
                return Err(DomainError::invalid(
                    "billingEndDate",
                    "billingEndDate must not be before billingStartDate",
                ));
            }
        }
        Ok(())
    }
}

impl InventoryItem {
    /// Every text a client or an import writes within its limit (see
    /// `docs/reliability.md`, "Field length limits"): `description`
    /// [`LONG_TEXT_MAX`], the others [`SHORT_TEXT_MAX`].
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field.
    pub fn check_lengths(&self) -> Result<(), DomainError> {
        check_optional_length(
            "serialNumber",
            self.serial_number.as_deref(),
            SHORT_TEXT_MAX,
        )?;
        for imei in &self.imei {
            check_length("imei", imei, SHORT_TEXT_MAX)?;
        }
        check_optional_length(
            "procurementMethod",
            self.procurement_method.as_deref(),
            SHORT_TEXT_MAX,
        )?;
        check_optional_length("description", self.description.as_deref(), LONG_TEXT_MAX)?;
        check_optional_length(
            "erpInvoiceId",
            self.erp_invoice_id.as_deref(),
            SHORT_TEXT_MAX,
        )?;
        for tag in &self.tags {
            check_length("tags", &tag.label, SHORT_TEXT_MAX)?;
        }
        if let Some(p) = &self.pricing {
            check_length("pricing.regionCode", &p.region_code, SHORT_TEXT_MAX)?;
            check_length("pricing.priceOption", &p.price_option, SHORT_TEXT_MAX)?;
            check_length("pricing.currencyCode", &p.currency_code, SHORT_TEXT_MAX)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
