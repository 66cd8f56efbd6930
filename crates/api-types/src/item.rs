//! The inventory item as JSON (docs/api.md, "The item"): one serializer for every
//! place that shows an item — the single-item endpoints, the listing, and the
//! pre-rendered item text the store keeps in each listing row (so that a page
//! is concatenated, not rebuilt). Lives in the domain so that the store (which
//! renders at write time) and the HTTP layer (which renders single items) share
//! it without depending on each other. The import reads the same shape back
//! ([`super::import_item`]).

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{json, Value};

use equip_domain::ids::{InventoryItemId, SkuId};
use equip_domain::inventory::{
    AssigneeType, Condition, DeployReason, DeployStatus, DeviceProgramStatus, Price,
    RenewalDateUpdatedBy, RetrievalKind, ReturnInfo, SuppliedBy, Tag,
};
use equip_domain::inventory_query::InventoryItemView;

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

fn return_json(r: &ReturnInfo) -> Value {
    let retrieval = r.retrieval.as_ref().map(|m| {
        let mut v = json!({
            "type": m.kind.type_name(),
            "id": m.id,
            "status": m.status,
            "updatedAt": time(m.updated_at),
        });
        match &m.kind {
            RetrievalKind::ReturnKit {
                inbound_tracking_code,
                inbound_tracking_link,
                outbound_tracking_code,
                outbound_tracking_link,
            } => {
                v["inboundTrackingCode"] = json!(inbound_tracking_code);
                v["inboundTrackingLink"] = json!(inbound_tracking_link);
                v["outboundTrackingCode"] = json!(outbound_tracking_code);
                v["outboundTrackingLink"] = json!(outbound_tracking_link);
            }
            RetrievalKind::InboundLabel {
                inbound_tracking_code,
                inbound_tracking_link,
            } => {
                v["inboundTrackingCode"] = json!(inbound_tracking_code);
                v["inboundTrackingLink"] = json!(inbound_tracking_link);
            }
            RetrievalKind::Physical => {}
        }
        v
    });
    json!({
        "id": r.id,
        "status": r.status,
        "createdAt": time(r.created_at),
        "returnOrderItemId": r.return_order_item_id,
        "returnOrderItemStatus": r.return_order_item_status,
        "retrievalMethod": retrieval,
    })
}

/// Who holds an item, as docs/api.md shows it (`assignedTo`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssigneeBody<'a> {
    id: uuid::Uuid,
    #[serde(rename = "type")]
    kind: AssigneeType,
    label: Option<&'a str>,
    assigned_at: Option<String>,
}

/// Device-management program, as docs/api.md shows it (`deviceProgram`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceProgramBody {
    assignment_status: DeviceProgramStatus,
    last_sync_timestamp: Option<String>,
    next_sync_timestamp: String,
}

/// The members of an item's JSON, in the order [`ItemBody`] writes them.
pub const FIELDS: [&str; 30] = [
    "id",
    "skuId",
    "serialNumber",
    "imei",
    "deployStatus",
    "deployReason",
    "condition",
    "categoryCode",
    "categoryNameOfSku",
    "skuTitle",
    "vendorCode",
    "vendorSku",
    "createdAt",
    "updatedAt",
    "renewalDate",
    "renewalDateUpdatedBy",
    "billingStartDate",
    "billingEndDate",
    "procurementMethod",
    "returnOrder",
    "assignedTo",
    "tags",
    "pricing",
    "description",
    "erpInvoiceId",
    "holdStartDate",
    "unlockDate",
    "itadRequested",
    "deviceProgram",
    "suppliedBy",
];

/// The inventory item of docs/api.md ("The item"), serialized straight from the
/// domain values. Absent optional values are `null`; `imei` and `tags` are
/// always arrays.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemBody<'a> {
    id: InventoryItemId,
    sku_id: SkuId,
    serial_number: Option<&'a str>,
    imei: &'a [String],
    deploy_status: DeployStatus,
    deploy_reason: Option<DeployReason>,
    condition: Condition,
    category_code: &'a str,
    category_name_of_sku: &'a str,
    sku_title: &'a str,
    vendor_code: &'a str,
    vendor_sku: &'a str,
    created_at: String,
    updated_at: String,
    renewal_date: Option<NaiveDate>,
    renewal_date_updated_by: Option<RenewalDateUpdatedBy>,
    billing_start_date: Option<NaiveDate>,
    billing_end_date: Option<NaiveDate>,
    procurement_method: Option<&'a str>,
    return_order: Option<Value>,
    assigned_to: Option<AssigneeBody<'a>>,
    tags: &'a [Tag],
    pricing: Option<&'a Price>,
    description: Option<&'a str>,
    erp_invoice_id: Option<&'a str>,
    hold_start_date: Option<NaiveDate>,
    unlock_date: Option<NaiveDate>,
    itad_requested: Option<bool>,
    device_program: Option<DeviceProgramBody>,
    supplied_by: SuppliedBy,
}

impl<'a> From<&'a InventoryItemView> for ItemBody<'a> {
    fn from(v: &'a InventoryItemView) -> Self {
        let i = &v.item;
        Self {
            id: i.id,
            sku_id: i.sku_id,
            serial_number: i.serial_number.as_deref(),
            imei: &i.imei,
            deploy_status: i.deploy_status,
            deploy_reason: i.deploy_reason,
            condition: i.condition,
            category_code: &v.sku.category_code,
            category_name_of_sku: &v.sku.category_name,
            sku_title: &v.sku.title,
            vendor_code: &v.sku.vendor_code,
            vendor_sku: &v.sku.vendor_sku,
            created_at: time(i.created_at),
            updated_at: time(i.updated_at),
            renewal_date: i.renewal_date,
            renewal_date_updated_by: i.renewal_date_updated_by,
            billing_start_date: i.billing_start_date,
            billing_end_date: i.billing_end_date,
            procurement_method: i.procurement_method.as_deref(),
            return_order: i.return_order.as_ref().map(return_json),
            assigned_to: i.assignment.map(|a| AssigneeBody {
                id: a.assignee.id(),
                kind: a.assignee.kind(),
                label: v.assignee_label.as_deref(),
                assigned_at: a.assigned_at.map(time),
            }),
            tags: &i.tags,
            pricing: i.pricing.as_ref(),
            description: i.description.as_deref(),
            erp_invoice_id: i.erp_invoice_id.as_deref(),
            hold_start_date: i.hold_start_date,
            unlock_date: i.unlock_date,
            itad_requested: i.itad_requested,
            device_program: i.device_program.as_ref().map(|d| DeviceProgramBody {
                assignment_status: d.assignment_status,
                last_sync_timestamp: d.last_sync_timestamp.map(time),
                next_sync_timestamp: time(d.next_sync_timestamp),
            }),
            supplied_by: i.supplied_by,
        }
    }
}

/// An item's JSON text, as every endpoint shows it (the text a database
/// store keeps in the item's listing row).
///
/// # Errors
/// Serialization failures (none are expected for these types).
pub fn render(view: &InventoryItemView) -> Result<String, serde_json::Error> {
    serde_json::to_string(&ItemBody::from(view))
}
