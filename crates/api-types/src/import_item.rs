//! Inventory items of the import document: the shape `GET /api/v1/inventory/{id}`
//! returns ([`super::item`]; docs/api.md, "The item"), every member a string or plain JSON value so that
//! a bad value is named by the entry's own error. The SKU-derived fields
//! (`skuTitle`, `categoryCode`, `categoryNameOfSku`, `vendorCode`, `vendorSku`)
//! and `assignedTo.label` may be present, as the listing shows them, and are
//! ignored: they come from the SKU and the assignee.

use chrono::{DateTime, Utc};
use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::import_entry::{non_empty, Entry};
use equip_domain::ids::{OrganizationId, TagId};
use equip_domain::import::ImportError;
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, DeviceProgram,
    DeviceProgramStatus, InventoryItem, Price, RenewalDateUpdatedBy, Retrieval, RetrievalKind,
    RetrievalStatus, ReturnInfo, ReturnStatus, SuppliedBy, Tag,
};

/// An inventory entry as the document holds it.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an inventory item object"
)]
pub struct WireItem {
    id: String,
    sku_id: String,
    #[serde(default)]
    serial_number: Option<String>,
    #[serde(default)]
    imei: Option<Vec<String>>,
    deploy_status: String,
    #[serde(default)]
    deploy_reason: Option<String>,
    condition: String,
    #[serde(default)]
    renewal_date: Option<String>,
    #[serde(default)]
    renewal_date_updated_by: Option<String>,
    #[serde(default)]
    billing_start_date: Option<String>,
    #[serde(default)]
    billing_end_date: Option<String>,
    #[serde(default)]
    procurement_method: Option<String>,
    #[serde(default)]
    return_order: Option<WireReturnOrder>,
    #[serde(default)]
    assigned_to: Option<WireAssignee>,
    #[serde(default)]
    tags: Option<Vec<WireTag>>,
    #[serde(default)]
    pricing: Option<WirePrice>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    erp_invoice_id: Option<String>,
    #[serde(default)]
    hold_start_date: Option<String>,
    #[serde(default)]
    unlock_date: Option<String>,
    #[serde(default)]
    itad_requested: Option<bool>,
    #[serde(default)]
    device_program: Option<WireDeviceProgram>,
    #[serde(default)]
    supplied_by: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    // Shown by the listing, derived from the SKU: accepted and ignored.
    #[serde(default, rename = "skuTitle")]
    _sku_title: Option<IgnoredAny>,
    #[serde(default, rename = "categoryCode")]
    _category_code: Option<IgnoredAny>,
    #[serde(default, rename = "categoryNameOfSku")]
    _category_name: Option<IgnoredAny>,
    #[serde(default, rename = "vendorCode")]
    _vendor_code: Option<IgnoredAny>,
    #[serde(default, rename = "vendorSku")]
    _vendor_sku: Option<IgnoredAny>,
}

/// `assignedTo`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an assignee object"
)]
pub struct WireAssignee {
    #[serde(rename = "type")]
    kind: String,
    id: String,
    #[serde(default)]
    assigned_at: Option<String>,
    /// Derived (email or name): ignored.
    #[serde(default, rename = "label")]
    _label: Option<IgnoredAny>,
}

/// One of `tags`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a tag object")]
pub struct WireTag {
    id: String,
    label: String,
}

/// `pricing`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a pricing object"
)]
pub struct WirePrice {
    region_code: String,
    price_option: String,
    price: f64,
    currency_code: String,
    discounted_price: f64,
    discount_percentage: f64,
}

/// `deviceProgram`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a device program object"
)]
pub struct WireDeviceProgram {
    assignment_status: String,
    #[serde(default)]
    last_sync_timestamp: Option<String>,
    next_sync_timestamp: String,
}

/// `returnOrder`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a return order object"
)]
pub struct WireReturnOrder {
    id: String,
    status: String,
    #[serde(default)]
    created_at: Option<String>,
    return_order_item_id: String,
    return_order_item_status: String,
    #[serde(default)]
    retrieval_method: Option<WireRetrieval>,
}

/// `returnOrder.retrievalMethod`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a retrieval method object"
)]
pub struct WireRetrieval {
    #[serde(rename = "type")]
    kind: String,
    id: String,
    status: String,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    inbound_tracking_code: Option<String>,
    #[serde(default)]
    inbound_tracking_link: Option<String>,
    #[serde(default)]
    outbound_tracking_code: Option<String>,
    #[serde(default)]
    outbound_tracking_link: Option<String>,
}

/// Converts one inventory entry `w` of `entry`. `createdAt` and `updatedAt`
/// default to `now`, `suppliedBy` to `ORGANIZATION`, `imei` and `tags` to
/// empty.
///
/// # Errors
/// The first field that does not hold a good value, named by entry and path.
pub fn inventory_item(
    entry: &Entry,
    w: WireItem,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<InventoryItem, ImportError> {
    let e = entry;
    let assignment = w
        .assigned_to
        .map(|a| -> Result<Assignment, ImportError> {
            let kind = e.value(
                "assignedTo.type",
                &a.kind,
                AssigneeType::parse,
                AssigneeType::ALL,
            )?;
            Ok(Assignment {
                assignee: Assignee::new(kind, e.id("assignedTo.id", &a.id)?),
                assigned_at: e.opt_timestamp("assignedTo.assignedAt", a.assigned_at.as_deref())?,
            })
        })
        .transpose()?;
    let tags = w
        .tags
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            Ok(Tag {
                id: e.id::<TagId>(&format!("tags[{i}].id"), &t.id)?,
                label: t.label,
            })
        })
        .collect::<Result<Vec<_>, ImportError>>()?;
    let device_program = w
        .device_program
        .map(|d| -> Result<DeviceProgram, ImportError> {
            Ok(DeviceProgram {
                assignment_status: e.value(
                    "deviceProgram.assignmentStatus",
                    &d.assignment_status,
                    DeviceProgramStatus::parse,
                    DeviceProgramStatus::ALL,
                )?,
                last_sync_timestamp: e.opt_timestamp(
                    "deviceProgram.lastSyncTimestamp",
                    d.last_sync_timestamp.as_deref(),
                )?,
                next_sync_timestamp: e
                    .timestamp("deviceProgram.nextSyncTimestamp", &d.next_sync_timestamp)?,
            })
        })
        .transpose()?;
    let return_order = w.return_order.map(|r| return_info(e, r, now)).transpose()?;
    Ok(InventoryItem {
        id: e.id("id", &w.id)?,
        organization_id: organization,
        sku_id: e.id("skuId", &w.sku_id)?,
        serial_number: w.serial_number,
        imei: w.imei.unwrap_or_default(),
        deploy_status: e.value(
            "deployStatus",
            &w.deploy_status,
            DeployStatus::parse,
            DeployStatus::ALL,
        )?,
        deploy_reason: e.opt_value(
            "deployReason",
            w.deploy_reason.as_deref(),
            DeployReason::parse,
            DeployReason::ALL,
        )?,
        condition: e.value("condition", &w.condition, Condition::parse, Condition::ALL)?,
        renewal_date: e.opt_date("renewalDate", w.renewal_date.as_deref())?,
        renewal_date_updated_by: e.opt_value(
            "renewalDateUpdatedBy",
            w.renewal_date_updated_by.as_deref(),
            RenewalDateUpdatedBy::parse,
            RenewalDateUpdatedBy::ALL,
        )?,
        billing_start_date: e.opt_date("billingStartDate", w.billing_start_date.as_deref())?,
        billing_end_date: e.opt_date("billingEndDate", w.billing_end_date.as_deref())?,
        procurement_method: w.procurement_method,
        assignment,
        tags,
        pricing: w.pricing.map(|p| Price {
            region_code: p.region_code,
            price_option: p.price_option,
            price: p.price,
            currency_code: p.currency_code,
            discounted_price: p.discounted_price,
            discount_percentage: p.discount_percentage,
        }),
        description: w.description,
        erp_invoice_id: w.erp_invoice_id,
        hold_start_date: e.opt_date("holdStartDate", w.hold_start_date.as_deref())?,
        unlock_date: e.opt_date("unlockDate", w.unlock_date.as_deref())?,
        itad_requested: w.itad_requested,
        device_program,
        supplied_by: e
            .opt_value(
                "suppliedBy",
                w.supplied_by.as_deref(),
                SuppliedBy::parse,
                SuppliedBy::ALL,
            )?
            .unwrap_or(SuppliedBy::Organization),
        return_order,
        created_at: e
            .opt_timestamp("createdAt", w.created_at.as_deref())?
            .unwrap_or(now),
        updated_at: e
            .opt_timestamp("updatedAt", w.updated_at.as_deref())?
            .unwrap_or(now),
    })
}

fn return_info(
    e: &Entry,
    r: WireReturnOrder,
    now: DateTime<Utc>,
) -> Result<ReturnInfo, ImportError> {
    let retrieval = r
        .retrieval_method
        .map(|m| retrieval(e, m, now))
        .transpose()?;
    Ok(ReturnInfo {
        id: e.id("returnOrder.id", &r.id)?,
        status: e.value(
            "returnOrder.status",
            &r.status,
            ReturnStatus::parse,
            ReturnStatus::ALL,
        )?,
        created_at: e
            .opt_timestamp("returnOrder.createdAt", r.created_at.as_deref())?
            .unwrap_or(now),
        return_order_item_id: e.id("returnOrder.returnOrderItemId", &r.return_order_item_id)?,
        return_order_item_status: e.value(
            "returnOrder.returnOrderItemStatus",
            &r.return_order_item_status,
            ReturnStatus::parse,
            ReturnStatus::ALL,
        )?,
        retrieval,
    })
}

fn retrieval(e: &Entry, m: WireRetrieval, now: DateTime<Utc>) -> Result<Retrieval, ImportError> {
    const FIELD: &str = "returnOrder.retrievalMethod";
    let not_for = |name: &str, value: &Option<String>, kind: &str| -> Result<(), ImportError> {
        match non_empty(value.as_deref()) {
            Some(_) => Err(e.error(
                &format!("{FIELD}.{name}"),
                format!("not a field of a {kind} retrieval"),
            )),
            None => Ok(()),
        }
    };
    let kind = match m.kind.trim().to_ascii_uppercase().as_str() {
        "RETURN_KIT" => RetrievalKind::ReturnKit {
            inbound_tracking_code: m.inbound_tracking_code,
            inbound_tracking_link: m.inbound_tracking_link,
            outbound_tracking_code: m.outbound_tracking_code,
            outbound_tracking_link: m.outbound_tracking_link,
        },
        "INBOUND_LABEL" => {
            not_for(
                "outboundTrackingCode",
                &m.outbound_tracking_code,
                "INBOUND_LABEL",
            )?;
            not_for(
                "outboundTrackingLink",
                &m.outbound_tracking_link,
                "INBOUND_LABEL",
            )?;
            RetrievalKind::InboundLabel {
                inbound_tracking_code: m.inbound_tracking_code,
                inbound_tracking_link: m.inbound_tracking_link,
            }
        }
        "PHYSICAL" => {
            for (name, value) in [
                ("inboundTrackingCode", &m.inbound_tracking_code),
                ("inboundTrackingLink", &m.inbound_tracking_link),
                ("outboundTrackingCode", &m.outbound_tracking_code),
                ("outboundTrackingLink", &m.outbound_tracking_link),
            ] {
                not_for(name, value, "PHYSICAL")?;
            }
            RetrievalKind::Physical
        }
        _ => {
            return Err(e.error(
                &format!("{FIELD}.type"),
                format!(
                    "unknown value '{}'; expected one of RETURN_KIT, INBOUND_LABEL, PHYSICAL",
                    m.kind
                ),
            ))
        }
    };
    Ok(Retrieval {
        id: e.id(&format!("{FIELD}.id"), &m.id)?,
        status: e.value(
            &format!("{FIELD}.status"),
            &m.status,
            RetrievalStatus::parse,
            RetrievalStatus::ALL,
        )?,
        updated_at: e
            .opt_timestamp(&format!("{FIELD}.updatedAt"), m.updated_at.as_deref())?
            .unwrap_or(now),
        kind,
    })
}
